"""Tree supply tuning: the recommendation follows its stated rule; the command end to end."""

import math

import polars as pl
from typer.testing import CliRunner

from sim.cli import app
from sim.tune_trees import SUPPLY, parse_range, recommend


def synthetic_metrics(rows):
    records = []
    for players, supply, spread, starvation, skill, skill_half in rows:
        records.append({"players": players, SUPPLY: supply, "games": 1000,
                        "seat_spread": spread, "starvation_constrained": starvation,
                        "starvation_no_tree": 0.0, "skill": skill,
                        "skill_low": skill - skill_half, "skill_high": skill + skill_half,
                        "score_mean": 10.0, "score_sd": 3.0, "tie_rate": 0.1})
    return pl.DataFrame(records)


def test_recommendation_follows_its_rule():
    metrics = synthetic_metrics([
        # players, supply, seat spread, starvation, skill, skill CI half-width
        (2, 1, 0.02, 0.30, 0.70, 0.01),  # most skill but starved
        (2, 2, 0.03, 0.10, 0.69, 0.01),  # skill not significantly lower: eligible, cost 0.13
        (2, 3, 0.01, 0.02, 0.60, 0.01),  # lowest cost but skill significantly lower: excluded
        (3, 1, 0.05, 0.20, 0.65, 0.02),
        (3, 2, 0.04, 0.05, 0.66, 0.02),  # cost 0.09
        (3, 3, 0.02, 0.07, 0.66, 0.02),  # cost 0.09 as well: tie goes to the smaller supply
        (1, 2, math.nan, 0.1, math.nan, math.nan),  # one player: no pick
    ])
    picks = {pick.players: pick for pick in recommend(metrics)}
    assert set(picks) == {2, 3}
    assert picks[2].supply == 2
    assert picks[3].supply == 2
    assert "2 players: 2 trees per colour per player" in picks[2].sentence
    assert "3 would starve less" in picks[2].sentence


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
