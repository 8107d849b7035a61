"""Tree supply tuning: the recommendation follows its stated rule, per field of players, and
says whether it holds across the fields; the command end to end."""

import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.legendary_forests.synthetic import ForestDeals
from sim.games.legendary_forests.tuning import SUPPLY, TREE_SUPPLY
from sim.stats.synthetic import SyntheticDesign, generate_rows
from sim.tune_rules import (
    SINGLE_FIELD,
    across_fields,
    parse_range,
    rules_metrics,
    skill_gap_to_best,
    tuning_document,
)
from sim.tune_rules import recommend as recommend_rules


# The tree-supply preset of the generic rules tuning, under the names these tests were written
# with.
def recommend(metrics, max_starvation=0.10, skill_tolerance=0.02):
    return recommend_rules(metrics, TREE_SUPPLY, skill_tolerance,
                           {"starvation_constrained": max_starvation})


def tree_supply_metrics(rows, strongest, fair_margin=0.02):
    return rules_metrics(rows, TREE_SUPPLY, strongest, fair_margin)


def tune_trees_document(*arguments, **options):
    return tuning_document("legendary-forests", TREE_SUPPLY, *arguments, **options)


def synthetic_metrics(rows):
    records = []
    best = {}
    for players, _, _, _, _, skill, _ in rows:
        if not math.isnan(skill):
            best[players] = max(best.get(players, -1.0), skill)
    for players, supply, fairness, starvation, starvation_half, skill, skill_half in rows:
        # the distance to the best supply, its interval as wide as the skill's own (NaN where
        # skill is not measured: no greedy at the table)
        gap = skill - best[players] if players in best else math.nan
        records.append({"players": players, SUPPLY: supply, "games": 1000,
                        "seat_gap": 0.01, "seat_gap_low": -0.01, "seat_gap_high": 0.03,
                        "seat_best": 1, "seat_worst": 0,
                        "skill_gap_to_best": gap,
                        "skill_gap_to_best_low": round(gap - skill_half, 12),
                        "skill_gap_to_best_high": min(0.0, gap + skill_half)
                        if not math.isnan(gap) else math.nan,
                        "fairness": fairness, "fair_margin": 0.02,
                        "starvation_constrained": starvation,
                        "starvation_constrained_low": starvation - starvation_half,
                        "starvation_constrained_high": starvation + starvation_half,
                        "starvation_no_tree": 0.0,
                        "skill": skill, "skill_low": skill - skill_half,
                        "skill_high": skill + skill_half,
                        "score_mean": 10.0, "score_sd": 3.0, "tie_rate": 0.1})
    return pl.DataFrame(records)


def test_recommendation_follows_its_rule():
    metrics = synthetic_metrics([
        # players, supply, fairness, starvation, its CI half-width, skill, its CI half-width
        (2, 1, "unfair", 0.30, 0.02, 0.70, 0.01),  # best skill, but unfair and starved
        (2, 2, "fair", 0.05, 0.01, 0.69, 0.01),  # fair, unstarved, keeps skill: smallest
        (2, 3, "fair", 0.01, 0.01, 0.69, 0.01),  # also qualifies, but is bigger
        (3, 1, "undecided", 0.20, 0.02, 0.70, 0.01),  # starved for sure: ruled out anyway
        (3, 2, "fair", 0.05, 0.01, 0.60, 0.01),  # loses skill for sure: ruled out
        (3, 3, "fair", 0.04, 0.01, 0.69, 0.01),  # the smallest that qualifies
        (4, 1, "undecided", 0.05, 0.01, 0.70, 0.01),  # could still qualify: undecided
        (4, 2, "fair", 0.05, 0.01, 0.70, 0.01),
        (5, 1, "unfair", 0.05, 0.01, 0.70, 0.01),  # nothing qualifies
        (5, 2, "fair", 0.20, 0.01, 0.70, 0.01),
        (6, 1, "fair", 0.09, 0.02, 0.70, 0.01),  # starvation straddles 10%: undecided
        (1, 2, "", 0.1, 0.01, math.nan, math.nan),  # one player: no pick
    ])
    picks = {pick.players: pick for pick in recommend(metrics)}
    assert set(picks) == {2, 3, 4, 5, 6}
    assert (picks[2].supply, picks[2].decided) == (2, True)
    assert "1 was ruled out as unfair (a seat gap shown above 2 pp) and starved" \
        in picks[2].sentence
    assert (picks[3].supply, picks[3].decided) == (3, True)
    assert "2 was ruled out as losing skill" in picks[3].sentence
    assert (picks[4].supply, picks[4].decided) == (None, False)
    assert "undecided on fairness" in picks[4].sentence
    assert "until it is decided, no larger supply (2) can be recommended" in picks[4].sentence
    assert (picks[5].supply, picks[5].decided) == (None, True)
    assert "no supply tried meets all three" in picks[5].sentence
    assert (picks[6].supply, picks[6].decided) == (None, False)
    assert "undecided on starvation" in picks[6].sentence
    assert picks[6].sentence.endswith("play more games at this point.")
    # The thresholds are the rule's: a stricter starvation limit moves 2 players to supply 3.
    stricter = {pick.players: pick for pick in recommend(metrics, max_starvation=0.03)}
    assert stricter[2].supply == 3


def field_metrics(per_field):
    """Hand-built metrics of several fields: ``synthetic_metrics`` of each, with its name."""
    return pl.concat([synthetic_metrics(rows).with_columns(field=pl.lit(name))
                      for name, rows in per_field.items()])


NO_SKILL = (math.nan, math.nan)  # the strongest and greedy never share a table


def test_the_across_fields_line_says_holds_depends_or_undecided():
    metrics = field_metrics({
        # players, supply, fairness, starvation, its CI half-width, skill, its CI half-width
        "strong": [
            (2, 1, "unfair", 0.05, 0.01, *NO_SKILL), (2, 2, "fair", 0.05, 0.01, *NO_SKILL),
            (3, 1, "fair", 0.05, 0.01, *NO_SKILL), (3, 2, "fair", 0.05, 0.01, *NO_SKILL),
            (4, 1, "fair", 0.05, 0.01, *NO_SKILL), (4, 2, "fair", 0.05, 0.01, *NO_SKILL),
            (5, 1, "unfair", 0.05, 0.01, *NO_SKILL), (5, 2, "fair", 0.30, 0.01, *NO_SKILL),
        ],
        "mixed": [
            (2, 1, "unfair", 0.05, 0.01, 0.70, 0.01), (2, 2, "fair", 0.05, 0.01, 0.70, 0.01),
            (3, 1, "fair", 0.05, 0.01, 0.60, 0.01),  # fair and unstarved, but loses skill
            (3, 2, "fair", 0.05, 0.01, 0.70, 0.01),
            (4, 1, "undecided", 0.05, 0.01, 0.70, 0.01), (4, 2, "fair", 0.05, 0.01, 0.70, 0.01),
            (5, 1, "unfair", 0.05, 0.01, 0.70, 0.01), (5, 2, "fair", 0.30, 0.01, 0.70, 0.01),
        ],
    })
    picks = recommend(metrics)
    # one pick per (field, players), by players then field in the metrics' order
    assert [(pick.players, pick.field) for pick in picks] == [
        (players, field) for players in (2, 3, 4, 5) for field in ("strong", "mixed")]
    assert picks[0].sentence.startswith("2 players, strong field: 2 trees per colour")
    lines = {verdict.players: verdict for verdict in across_fields(picks)}
    assert (lines[2].verdict, lines[2].supply) == ("holds", 2)
    assert lines[2].sentence == ("2 players: holds for strong and mixed: 2 trees per colour per "
                                 "player")
    assert lines[3].verdict == "depends on the players"
    assert lines[3].sentence == "3 players: depends on the players: strong 1, mixed 2"
    assert lines[4].verdict == "undecided"
    assert lines[4].sentence == ("4 players: undecided: mixed is still undecided (play more "
                                 "games); decided: strong 1")
    # every field rules every supply out: that holds too, and says so
    assert lines[5].verdict == "holds" and lines[5].supply is None
    assert lines[5].sentence.endswith("no supply tried meets the criteria")
    # a field with no pick at a player count (no games yet) leaves it undecided, named
    partial = across_fields([pick for pick in picks if (pick.players, pick.field) != (2, "mixed")],
                            ["strong", "mixed"])
    assert partial[0].verdict == "undecided"
    assert "mixed has no games at 2 players yet" in partial[0].sentence


def test_the_skill_criterion_is_not_counted_in_a_field_without_greedy():
    metrics = field_metrics({
        "strong": [(2, 1, "fair", 0.05, 0.01, *NO_SKILL), (3, 1, "unfair", 0.05, 0.01, *NO_SKILL),
                   (3, 2, "fair", 0.20, 0.01, *NO_SKILL)],
        "mixed": [(2, 1, "fair", 0.05, 0.01, 0.60, 0.01), (2, 2, "fair", 0.05, 0.01, 0.70, 0.01),
                  (3, 1, "fair", 0.05, 0.01, 0.70, 0.01)],
    })
    picks = {(pick.field, pick.players): pick for pick in recommend(metrics)}
    # strong: skill cannot be measured; the pick rests on fairness and starvation, and says so
    strong = picks[("strong", 2)]
    assert (strong.supply, strong.decided) == (1, True)
    assert "fair within ±2 pp and unstarved" in strong.sentence
    assert "keeps skill is n/a" in strong.sentence and "not counted" in strong.sentence
    assert "keeping" not in strong.sentence
    ruled_out = picks[("strong", 3)]
    assert (ruled_out.supply, ruled_out.decided) == (None, True)
    assert "no supply tried meets both criteria counted here" in ruled_out.sentence
    # mixed: skill is measured, and decides (supply 1 loses it)
    mixed = picks[("mixed", 2)]
    assert (mixed.supply, mixed.decided) == (2, True)
    assert "n/a" not in mixed.sentence and "1 was ruled out as losing skill" in mixed.sentence


def test_metrics_without_fields_are_one_field_as_before():
    metrics = synthetic_metrics([(2, 1, "fair", 0.05, 0.01, 0.70, 0.01)])
    (pick,) = recommend(metrics)
    assert pick.field == SINGLE_FIELD and pick.sentence.startswith("2 players: 1 trees")


def _sweep_rows(games: int) -> pl.DataFrame:
    """Synthetic tune-trees rows: supply 1 favours seat 1 and starves, supply 2 is fair with
    some starvation, supply 3 is fair and never starves."""
    parts = []
    plans = {1: ((4.0, 1.0, 0.0, -3.0), 0.30), 2: ((0.0, 0.0, 0.0, 0.0), 0.05),
             3: ((0.0, 0.0, 0.0, 0.0), 0.01)}
    generator = np.random.default_rng(4)
    for supply, (seat_points, starvation) in plans.items():
        design = SyntheticDesign(deals=games, lineup=("planner", "greedy", "planner", "greedy"),
                                 rotate_lineup=True, strategy_points={"planner": 2.0},
                                 seat_points=seat_points, seed=supply,
                                 deal_model=ForestDeals())
        rows = generate_rows(design)
        light = rows["light_tiles_drawn"].to_numpy().astype(np.int64)
        parts.append(rows.with_columns(
            pl.lit(supply, dtype=pl.Int16).alias(SUPPLY),
            tree_picks_constrained=pl.Series(generator.binomial(light, starvation)
                                             .astype(np.int8))))
    return pl.concat(parts)


def test_recommendation_does_not_flip_as_games_are_added():
    rows = _sweep_rows(24_000)
    answers = []
    for games in (300, 1_000, 3_000, 8_000, 24_000):
        metrics = tree_supply_metrics(rows.filter(pl.col("game_id") < games).lazy(), "planner")
        (pick,) = recommend(metrics)
        answers.append((games, pick.supply, pick.decided))
    decided = [supply for _, supply, is_decided in answers if is_decided]
    assert len(set(decided)) <= 1, answers
    assert answers[0][2] is False  # 300 games cannot tell
    assert answers[-1][1:] == (2, True), answers


def _field_rows(deals: int) -> pl.DataFrame:
    """Synthetic rows of two fields on the same deals, supplies 2 and 3, 2 players: strong
    (planner in both seats) and mixed (planner and greedy rotating), as a fields sweep writes
    them (a string ``field`` column)."""
    parts = []
    generator = np.random.default_rng(7)
    for field, lineup in (("strong", ("planner",)), ("mixed", ("planner", "greedy"))):
        for supply in (2, 3):
            design = SyntheticDesign(deals=deals, players=2, lineup=lineup,
                                     rotate_lineup=len(lineup) > 1,
                                     strategy_points={"planner": 2.0}, seed=supply,
                                     deal_model=ForestDeals())
            rows = generate_rows(design)
            light = rows["light_tiles_drawn"].to_numpy().astype(np.int64)
            parts.append(rows.with_columns(
                pl.lit(supply, dtype=pl.Int16).alias(SUPPLY), pl.lit(field).alias("field"),
                tree_picks_constrained=pl.Series(generator.binomial(light, 0.02)
                                                 .astype(np.int8))))
    return pl.concat(parts)


def test_metrics_and_picks_per_field_with_skill_only_where_greedy_plays():
    rows = _field_rows(200)
    metrics = tree_supply_metrics(rows.lazy(), "planner")
    # one row per field x point, the fields in the order played
    assert metrics.select("field", "players", SUPPLY).rows() == [
        ("strong", 2, 2), ("strong", 2, 3), ("mixed", 2, 2), ("mixed", 2, 3)]
    assert (metrics["games"] == 200).all()
    strong, mixed = metrics.filter(field="strong"), metrics.filter(field="mixed")
    assert strong["skill"].is_nan().all() and strong["skill_gap_to_best"].is_nan().all()
    assert mixed["skill"].is_finite().all() and (mixed["skill"] > 0.5).all()
    # the same deals in both fields: each field's metrics are its own rows' only
    assert strong["score_mean"].to_list() != mixed["score_mean"].to_list()
    picks = recommend(metrics)
    assert [(pick.players, pick.field) for pick in picks] == [(2, "strong"), (2, "mixed")]
    assert "skill is n/a" in picks[0].sentence
    assert "skill is n/a" not in picks[1].sentence
    # rows of a sweep played before fields (no field column) are one field
    single = tree_supply_metrics(rows.filter(field="mixed").drop("field").lazy(), "planner")
    assert single["field"].to_list() == [SINGLE_FIELD, SINGLE_FIELD]
    assert single.drop("field").equals(mixed.drop("field"))


def test_the_document_plays_strong_and_mixed_on_the_same_deals():
    from sim.sweep import load_sweep, sweep_from_document

    document = tune_trees_document([2], [2, 3], "planner", 100, 5, 50, "out", None)
    assert document["fields"] == ["strong=planner", "mixed=pool:planner+greedy"]
    assert "pool" not in document and "strategies" not in document
    plan = sweep_from_document(document, "test", Path.cwd(), "tune-trees")
    assert plan.axes["field"] == ["strong", "mixed"]
    lineups = {(p.values[SUPPLY], p.values["field"]): (p.config.lineup, p.config.rotate)
               for p in plan.points}
    assert lineups[(2, "strong")] == (("planner", "planner"), False)
    assert lineups[(2, "mixed")] == (("planner", "greedy"), True)
    assert len({(p.config.deals, p.config.seed) for p in plan.points}) == 1
    # --field replaces them; the shipped config spells out the same two fields
    mine = tune_trees_document([2], [2], "planner", 100, 5, 50, "out", None,
                               fields=["a=planner", "b=greedy"])
    assert mine["fields"] == ["a=planner", "b=greedy"]
    shipped = load_sweep(Path(__file__).parents[2] / "configs" / "tune-trees.toml")
    assert shipped.axes["field"] == ["strong", "mixed"]
    assert {(p.values["field"], p.config.lineup[:2], p.config.rotate)
            for p in shipped.points if p.values["players"] == 2} == {
        ("strong", ("planner", "planner"), False), ("mixed", ("planner", "greedy"), True)}


def test_a_field_option_must_play_the_strongest(tmp_path):
    result = CliRunner().invoke(app, [
        "tune-trees", "--players", "2", "--supply", "2", "--field", "a=greedy", "--field",
        "b=random", "--out", str(tmp_path / "sweep"), "--report-dir", str(tmp_path / "report")])
    assert result.exit_code == 2
    assert "no field plays planner, the strongest of --strategies" in result.stderr
    assert not (tmp_path / "sweep").exists()


def test_ranges():
    assert parse_range("1-5", "--players", 1, 5) == [1, 2, 3, 4, 5]
    assert parse_range("2,4", "--players", 1, 5) == [2, 4]


def test_tune_trees_end_to_end(tmp_path):
    runner = CliRunner()
    result = runner.invoke(app, [
        "tune-trees", "--players", "1-2", "--supply", "1,3", "--strategies", "random,greedy",
        "--games", "200", "--shard-size", "100", "--out", str(tmp_path / "sweep"),
        "--report-dir", str(tmp_path / "report"), "--workers", "1", "--quiet",
        "--no-point-reports"])
    assert result.exit_code == 0, result.output
    # The across-fields line per player count, then every field's pick.
    assert "Recommendation across fields:" in result.output
    assert any(line.startswith("  2 players: ") and (
        "holds for strong and mixed" in line or "depends on the players" in line
        or "undecided" in line) for line in result.output.splitlines())
    assert "2 players, strong field:" in result.output
    assert "2 players, mixed field:" in result.output
    assert "1 players" not in result.output  # one player: metrics, no pick
    # The strongest strategy is named, the games per point are said once when equal.
    assert "random ahead of greedy in" in result.output
    assert "1,600 games in all, 200 per grid point in each field." in result.output
    # The sweep report, led by the recommendation, with the tree-supply figures embedded.
    report = (tmp_path / "report" / "report.md").read_text()
    assert report.startswith("# Tree supply tuning")
    assert report.index("## Recommendation") < report.index("## Every grid point")
    assert "| Players | Across fields | strong | mixed |" in report
    assert "| Players | Field | Trees per colour per player | Why |" in report
    assert "| 1 | 1 | strong | 200 |" in report
    for name in ("skill", "starvation-constrained", "starvation-no-tree"):
        assert (tmp_path / "report" / "figures" / f"tune-trees-{name}.png").stat().st_size > 1000
    assert "data:image/png;base64," in (tmp_path / "report" / "report.html").read_text()
    metrics = pl.read_parquet(tmp_path / "report" / "tune-trees.parquet")
    assert metrics.height == 8
    assert metrics["field"].unique(maintain_order=True).to_list() == ["strong", "mixed"]
    seated = metrics.filter(pl.col("players") >= 2)
    # Skill only where random and greedy share tables (mixed), where greedy beats random at
    # every setting with two or more players: skill below one half.
    assert seated.filter(field="strong")["skill"].is_nan().all()
    assert (seated.filter(field="mixed")["skill"] < 0.5).all()
    assert "| n/a |" in report
    # The largest seat gap as observed is never negative; its pair's simultaneous interval
    # holds it and goes below zero when the seats cannot be told apart (200 games).
    assert (seated["seat_gap"] >= 0).all()
    assert ((seated["seat_gap_low"] <= seated["seat_gap"])
            & (seated["seat_gap"] <= seated["seat_gap_high"])).all()
    assert (seated["seat_gap_low"] < 0).any()
    assert (seated["seat_best"] != seated["seat_worst"]).all()
    # the distance to the best supply's skill is at most 0, and the best's interval ends at 0
    mixed = seated.filter(field="mixed")
    assert (mixed["skill_gap_to_best_high"] <= 0).all()
    assert mixed.group_by("players").agg(pl.col("skill_gap_to_best_high").max())[
        "skill_gap_to_best_high"].to_list() == [0.0]
    assert "Largest seat gap (simultaneous 95% CI)" in report
    assert "multiple comparisons with the best" in report
    # `sim report` on the tune-trees sweep folder writes the same report.
    again = runner.invoke(app, ["report", str(tmp_path / "sweep"), "--out",
                                str(tmp_path / "report"), "--no-point-reports", "-q"])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "report" / "report.md").read_text() == report


def test_a_sweep_played_before_fields_reports_as_before(tmp_path):
    """A tune-trees sweep of one pool (no fields, no ``field`` column in its rows): one
    implicit field, the recommendation as before, no across-fields line."""
    config = tmp_path / "old.toml"
    config.write_text('name = "tune-trees"\ngame = "legendary-forests"\n'
                      'pool = ["random", "greedy"]\ngames = 60\nseed = 3\nshard_size = 60\n'
                      'output = "sweep"\n\n[sweep]\nplayers = [2]\n'
                      'trees_per_colour_per_player = [2, 3]\n')
    result = CliRunner().invoke(app, [
        "tune-trees", "--config", str(config), "--out", str(tmp_path / "sweep"),
        "--report-dir", str(tmp_path / "report"), "--workers", "1", "--quiet",
        "--no-point-reports"])
    assert result.exit_code == 0, result.output
    assert "Recommendation:\n  2 players: " in result.output
    assert "across fields" not in result.output and "field:" not in result.output
    report = (tmp_path / "report" / "report.md").read_text()
    assert "| Players | Trees per colour per player | Why |" in report
    assert "Across fields" not in report
    metrics = pl.read_parquet(tmp_path / "report" / "tune-trees.parquet")
    assert metrics["field"].to_list() == [SINGLE_FIELD, SINGLE_FIELD]
    assert metrics["skill"].is_finite().all()


def _skill_units(skills, deals, generator):
    """Synthetic skill units: per deal one game per supply, each game's share of 4 meetings
    won, a deal effect common to every supply (the sweep's common deals)."""
    deal_effect = generator.normal(0.0, 0.05, deals)
    probability = np.clip(np.asarray(skills)[None, :] + deal_effect[:, None], 0.0, 1.0)
    ahead = generator.binomial(4, probability) / 4.0
    supplies = np.arange(1, len(skills) + 1)
    return pl.DataFrame({"players": np.full(ahead.size, 2, dtype=np.int64),
                         SUPPLY: np.tile(supplies, deals).astype(np.int64),
                         "cluster": np.repeat(np.arange(deals), len(skills)),
                         "ahead": ahead.ravel(), "games": np.ones(ahead.size, dtype=np.int64)})


@pytest.mark.slow
def test_the_distance_to_the_best_supply_covers_the_truth_with_the_best_unknown():
    """Known truth: four supplies' skills; every supply's interval of 'skill minus the best
    supply's' holds its true value in at least 95 - 2.5% of replications (jointly), and the
    best supply is never taken from the largest noisy estimate: with every skill equal, a
    supply is 'shown to lose skill' (upper end below -2 pp) in at most 5% of replications,
    where the old rule (the largest estimate as a fixed reference) does so far more often."""
    from sim.stats.clustered import grouped_ratio_intervals

    generator = np.random.default_rng(36)
    skills = np.array([0.60, 0.585, 0.57, 0.50])
    truth = skills - skills.max()
    covered = 0
    replications = 300
    for _ in range(replications):
        gaps = skill_gap_to_best(_skill_units(skills, 250, generator)).sort(SUPPLY)
        low, high = gaps["skill_gap_to_best_low"].to_numpy(), gaps[
            "skill_gap_to_best_high"].to_numpy()
        assert (high <= 0).all() and (low <= gaps["skill_gap_to_best"].to_numpy()).all()
        covered += bool(((low <= truth + 1e-12) & (truth <= high + 1e-12)).all())
    assert covered / replications >= 0.925, covered / replications
    equal = np.full(4, 0.58)
    new_rule = old_rule = 0
    for _ in range(replications):
        units = _skill_units(equal, 250, generator)
        gaps = skill_gap_to_best(units)
        new_rule += bool((gaps["skill_gap_to_best_high"] < -0.02).any())
        skill = grouped_ratio_intervals(units, ["players", SUPPLY], "ahead", "games", "skill")
        old_rule += bool((skill["skill_high"] < skill["skill"].max() - 0.02).any())
    assert new_rule / replications <= 0.05, new_rule / replications
    assert old_rule > new_rule, (old_rule, new_rule)


def test_the_largest_seat_gap_is_the_best_seat_minus_the_worst_with_its_pair_interval():
    from sim.stats.clustered import ContrastIntervals, pairwise_contrasts
    from sim.stats.sweep import largest_seat_gap

    _, pairs = pairwise_contrasts(3)  # (0, 1), (0, 2), (1, 2)
    rates = np.array([0.30, 0.36, 0.34])
    estimates = np.array([-0.06, -0.04, 0.02])
    intervals = ContrastIntervals(estimates, np.full(3, 0.02), estimates - 0.05,
                                  estimates + 0.05, 2.5)
    best, worst, gap, low, high = largest_seat_gap(rates, pairs, intervals)
    assert (best, worst) == (1, 0)
    assert gap == pytest.approx(0.06) and (low, high) == pytest.approx((0.01, 0.11))


def test_a_report_folder_of_another_sweep_is_refused_before_any_game(tmp_path, monkeypatch):
    """The report folder follows --out (reports/<out name>) unless --report-dir names one; one
    holding another sweep's report is refused before a game is played, naming --report-dir."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()
    common = ["tune-trees", "--players", "2", "--supply", "2-3", "--strategies", "random,greedy",
              "--games", "40", "--shard-size", "40", "--workers", "1", "--quiet",
              "--no-point-reports"]
    first = runner.invoke(app, [*common, "--out", "runs/a"])
    assert first.exit_code == 0, first.output
    assert (tmp_path / "reports" / "a" / "report.html").exists()
    second = runner.invoke(app, [*common, "--out", "runs/b"])
    assert second.exit_code == 0, second.output
    assert (tmp_path / "reports" / "b" / "report.html").exists()
    third = runner.invoke(app, [*common, "--out", "runs/c", "--report-dir", "reports/a"])
    assert third.exit_code == 2
    assert "holds the report of sweep" in third.output and "--report-dir" in third.output
    assert third.output.count("\n") == 1
    assert not (tmp_path / "runs" / "c").exists()
