"""Tree supply tuning: the recommendation follows its stated rule; the command end to end."""

import math

import polars as pl
from typer.testing import CliRunner

from sim.cli import app
from sim.tune_trees import SUPPLY, parse_range, recommend


def synthetic_metrics(rows):
    records = []
    for players, supply, spread, spread_low, starvation, skill, skill_half in rows:
        records.append({"players": players, SUPPLY: supply, "games": 1000,
                        "seat_spread": spread, "seat_spread_low": spread_low,
                        "starvation_constrained": starvation, "starvation_no_tree": 0.0,
                        "skill": skill, "skill_low": skill - skill_half,
                        "skill_high": skill + skill_half,
                        "score_mean": 10.0, "score_sd": 3.0, "tie_rate": 0.1})
    return pl.DataFrame(records)


def test_recommendation_follows_its_rule():
    metrics = synthetic_metrics([
        # players, supply, seat spread, its CI low end, starvation, skill, skill CI half-width
        (2, 1, 0.04, 0.02, 0.30, 0.70, 0.01),  # best skill, but unfair and starved
        (2, 2, 0.01, -0.01, 0.08, 0.69, 0.01),  # fair, starves < 10%, keeps skill: smallest
        (2, 3, 0.00, -0.01, 0.01, 0.69, 0.01),  # also qualifies, but is bigger
        (3, 1, 0.05, 0.03, 0.20, 0.70, 0.01),  # unfair
        (3, 2, 0.01, -0.02, 0.05, 0.60, 0.01),  # fair and unstarved but loses skill: excluded
        (3, 3, 0.01, -0.01, 0.04, 0.69, 0.01),  # the smallest that qualifies
        (4, 1, 0.05, 0.03, 0.30, 0.70, 0.01),  # nothing qualifies: lowest spread + starvation
        (4, 2, 0.04, 0.02, 0.15, 0.69, 0.01),  # cost 0.19 (the pick)
        (4, 3, 0.03, 0.01, 0.12, 0.60, 0.01),  # cost 0.15 but loses skill
        (1, 2, math.nan, math.nan, 0.1, math.nan, math.nan),  # one player: no pick
    ])
    picks = {pick.players: pick for pick in recommend(metrics)}
    assert set(picks) == {2, 3, 4}
    assert picks[2].supply == 2
    assert picks[3].supply == 3
    assert picks[4].supply == 2
    assert "2 players: 2 trees per colour per player" in picks[2].sentence
    assert "1 would reward skill more" in picks[2].sentence
    assert "best compromise" in picks[4].sentence
    # The thresholds are the rule's: a stricter starvation limit moves 2 players to supply 3.
    stricter = {pick.players: pick for pick in recommend(metrics, max_starvation=0.05)}
    assert stricter[2].supply == 3


def test_ranges():
    assert parse_range("1-5", "--players", 1, 5) == [1, 2, 3, 4, 5]
    assert parse_range("2,4", "--players", 1, 5) == [2, 4]


def test_tune_trees_end_to_end(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, [
        "tune-trees", "--players", "1-3", "--supply", "1,3", "--strategies", "random,greedy",
        "--games", "400", "--shard-size", "200", "--out", str(tmp_path / "sweep"),
        "--report-dir", str(tmp_path / "report"), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "2 players:" in result.output and "3 players:" in result.output
    report = (tmp_path / "report" / "tune-trees.md").read_text()
    assert "| 1 | 1 | 400 |" in report
    for metric in ("seat_spread", "skill", "starvation_constrained"):
        assert (tmp_path / "report" / f"heatmap-{metric}.png").stat().st_size > 1000
    metrics = pl.read_parquet(tmp_path / "report" / "tune-trees.parquet")
    assert metrics.height == 6
    # greedy beats random at every setting with two or more players: skill below one half.
    assert (metrics.filter(pl.col("players") >= 2)["skill"] < 0.5).all()
