"""Paired comparisons against a baseline (``sim.stats.compare``): the sweep's baseline is parsed,
checked and stored; every point is paired with the baseline of its own player count; a known
difference (more trees per colour per player raise the mean score under ``greedy``) has the
right sign and a paired interval narrower than the unpaired one; deals that differ are refused
and deal covariates that differ are left out, each in one line."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import polars as pl
import pytest

from sim.errors import InputError
from sim.games.registry import get_game
from sim.stats.clustered import MIN_VERDICT_CLUSTERS
from sim.stats.compare import (
    FRAME_SCHEMA,
    HIGHER,
    LOWER,
    MEAN_SCORE_KEY,
    SAME,
    UNDECIDED,
    WITHIN,
    baseline_pairs,
    baseline_values,
    compare_rows,
    compare_sweep_points,
    comparison_frame,
    difference_verdict,
    differences,
    unpaired_difference,
)
from sim.stats.sweep import SweepFolder, SweepPointFolder, open_sweep, sweep_results
from sim.sweep import load_sweep, run_sweep

SWEEP = """
name = "trees"
game = "legendary-forests"
players = 2
strategies = ["greedy"]
deals = 150
replicates_per_deal = 2
seed = 5
shard_size = 100

[sweep]
trees_per_colour_per_player = [1, 3]
"""


def _sweep_file(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "trees.toml"
    path.write_text(SWEEP + extra)
    return path


@pytest.fixture(scope="module")
def trees_sweep(tmp_path_factory):
    """A played sweep (600 games, about 2 s): greedy at 2 players with 1 and 3 trees per colour
    per player, on the same 150 deals; the baseline named 1."""
    folder = tmp_path_factory.mktemp("compare")
    plan = load_sweep(_sweep_file(folder, "baseline = {trees_per_colour_per_player = 1}\n"),
                      {"output": str(folder / "run")})
    run_sweep(plan, workers=1)
    return open_sweep(folder / "run")


@pytest.fixture(scope="module")
def trees_comparison(trees_sweep):
    pairs, notes = baseline_pairs(trees_sweep, {point.index for point in trees_sweep.points})
    assert len(pairs) == 1 and not notes
    return compare_sweep_points(trees_sweep, pairs[0], get_game("legendary-forests"))


# --- the baseline of a sweep -------------------------------------------------------------------


def test_a_named_baseline_is_stored_and_an_unnamed_one_is_the_first_point(tmp_path, trees_sweep):
    plan = load_sweep(_sweep_file(tmp_path, "baseline = {trees_per_colour_per_player = 3}\n"),
                      {"output": str(tmp_path / "run")})
    assert plan.baseline == {"trees_per_colour_per_player": 3}
    assert [axis for axis in plan.axes] == ["trees_per_colour_per_player"]  # no axis of its own
    unnamed = load_sweep(_sweep_file(tmp_path), {"output": str(tmp_path / "run")})
    assert unnamed.baseline == {"trees_per_colour_per_player": 1}
    stored = json.loads((trees_sweep.folder / "sweep.json").read_text())
    assert stored["baseline"] == {"trees_per_colour_per_player": 1}
    assert baseline_values(trees_sweep) == {"trees_per_colour_per_player": 1}
    # A sweep folder from before baselines: its first point.
    older = dataclasses.replace(trees_sweep, manifest={
        key: value for key, value in trees_sweep.manifest.items() if key != "baseline"})
    assert baseline_values(older) == trees_sweep.points[0].values


@pytest.mark.parametrize(("line", "message"), [
    ("baseline = {trees = 1}", "field 'sweep.baseline.trees': not an axis of this sweep (its "
                               "axes: trees_per_colour_per_player)"),
    ("baseline = {trees_per_colour_per_player = 2}",
     "field 'sweep.baseline.trees_per_colour_per_player': 2 is not a value of the axis (its "
     "values: 1, 3)"),
    ('baseline = "A"', "field 'sweep.baseline': expected a table of axis values"),
])
def test_a_bad_baseline_is_a_one_line_error(tmp_path, line, message):
    with pytest.raises(InputError) as error:
        load_sweep(_sweep_file(tmp_path, line + "\n"), {"output": str(tmp_path / "run")})
    assert message in str(error.value) and "\n" not in str(error.value)


def _folder(axes: dict, baseline: dict | None) -> SweepFolder:
    """A sweep folder as the reports see it, without games (every point "played")."""
    import itertools

    points = tuple(SweepPointFolder(index, ",".join(f"{a}={v}" for a, v in zip(axes, values,
                                                                            strict=True)),
                                    dict(zip(axes, values, strict=True)), "complete", 10,
                                    Path("nowhere"))
                   for index, values in enumerate(itertools.product(*axes.values())))
    manifest = {"baseline": baseline} if baseline is not None else {}
    return SweepFolder(Path("nowhere"), manifest, "s", axes, None, points, "")


def test_every_point_is_paired_with_the_baseline_of_its_player_count():
    sweep = _folder({"players": [2, 3], "side": ["A", "B"]}, {"players": 2, "side": "A"})
    pairs, notes = baseline_pairs(sweep, {0, 1, 2, 3})
    assert [(p.setting, p.baseline.label, p.variant.label) for p in pairs] == [
        ("players 2", "players=2,side=A", "players=2,side=B"),
        ("players 3", "players=3,side=A", "players=3,side=B")]
    assert not notes
    # The baseline of 3 players has no results: its variant is not compared, and a line says so.
    pairs, notes = baseline_pairs(sweep, {0, 1, 3})
    assert [p.variant.label for p in pairs] == ["players=2,side=B"]
    assert notes == ["No comparison at players 3: its baseline players=3,side=A has no results "
                     "yet."]
    # Only the player count varies: nothing to compare.
    assert baseline_pairs(_folder({"players": [2, 3]}, None), {0, 1}) == ([], [])


def test_fields_are_a_table_setting_too():
    sweep = _folder({"side": ["A", "B"], "field": ["strong", "casual"]}, None)
    pairs, _ = baseline_pairs(sweep, {0, 1, 2, 3})
    assert [(p.baseline.label, p.variant.label) for p in pairs] == [
        ("side=A,field=strong", "side=B,field=strong"),
        ("side=A,field=casual", "side=B,field=casual")]


# --- a known difference --------------------------------------------------------------------------


def test_more_trees_raise_the_mean_score_and_pairing_narrows_the_interval(trees_sweep,
                                                                         trees_comparison):
    comparison = trees_comparison
    assert (comparison.baseline, comparison.variant) == ("trees_per_colour_per_player=1",
                                                         "trees_per_colour_per_player=3")
    assert comparison.deals == 150 and not comparison.notes
    mean = differences(comparison)[0]
    assert mean.finding.key == MEAN_SCORE_KEY
    # The plain means of the two points' rows, and their difference.
    results = sweep_results(trees_sweep)
    plain = [results.value(point.index, "score_mean") for point in trees_sweep.points]
    assert mean.baseline == pytest.approx(plain[0]["value"])
    assert mean.variant == pytest.approx(plain[1]["value"])
    assert mean.difference == pytest.approx(plain[1]["value"] - plain[0]["value"])
    assert mean.low > 5 and mean.verdict == HIGHER  # measured: +9.3 (+8.7 to +10.0)
    # The unpaired interval from the points' own intervals (each its batch report's).
    unpaired_half = math.hypot(*[(row["ci_high"] - row["ci_low"]) / 2 for row in plain])
    assert (mean.high - mean.low) / 2 < 0.8 * unpaired_half
    unpaired_se, paired_se = unpaired_difference(comparison)
    assert paired_se == pytest.approx(mean.standard_error) and paired_se < 0.8 * unpaired_se


def test_every_metric_reads_b_minus_a_and_the_frame_holds_them(trees_comparison):
    items = differences(trees_comparison)
    keys = [item.finding.key for item in items]
    assert keys[:5] == [MEAN_SCORE_KEY, "seat_win_gap/1", "seat_win_gap/2", "seat_score_gap/1",
                        "seat_score_gap/2"]
    assert "deal_share" in keys and any(k.startswith("removed_tiles_mask/") for k in keys)
    for item in items:
        assert item.difference == pytest.approx(item.variant - item.baseline, abs=1e-9)
        assert item.low <= item.difference <= item.high
        assert item.verdict in (HIGHER, HIGHER + WITHIN, LOWER, LOWER + WITHIN, SAME, UNDECIDED)
    seat = items[1]
    assert seat.finding.judgement.margin == pytest.approx(0.02)  # the fair margin
    frame = comparison_frame([trees_comparison])
    assert frame.schema == pl.Schema(FRAME_SCHEMA) and frame.height == len(items)
    assert frame["difference"].to_list() == [item.difference for item in items]
    assert frame.equals(comparison_frame([trees_comparison]))


@pytest.mark.parametrize(("low", "high", "deals", "verdict"), [
    (0.5, 2.0, 100, HIGHER), (0.1, 0.8, 100, HIGHER + WITHIN), (-3.0, -1.5, 100, LOWER),
    (-0.9, -0.2, 100, LOWER + WITHIN), (-0.5, 0.7, 100, SAME), (-0.5, 1.5, 100, UNDECIDED),
    (0.5, 2.0, MIN_VERDICT_CLUSTERS - 1, UNDECIDED), (float("nan"), 1.0, 100, UNDECIDED),
])
def test_the_verdict_on_a_difference(low, high, deals, verdict):
    assert difference_verdict(low, high, 1.0, deals)[0] == verdict


# --- deals that differ ---------------------------------------------------------------------------


def _rows(deals: int = 40, seed: int = 3, shift: float = 2.0) -> pl.DataFrame:
    """Two players, one game per deal, for A and B on deals 0..deals-1: B scores ``shift``
    more, a deal term common to both."""
    generator = np.random.default_rng(seed)
    deal_term = generator.normal(0.0, 5.0, deals)
    records = []
    for field, extra in (("A", 0.0), ("B", shift)):
        for deal in range(deals):
            scores = np.round(30 + deal_term[deal] + extra + generator.normal(0, 2, 2))
            winner = int(np.argmax(scores))
            for seat in range(2):
                records.append({"field": field, "deal_id": deal, "game_id": deal, "seat": seat,
                                "players": 2, "strategy": "greedy", "score": int(scores[seat]),
                                "win": float(seat == winner), "deal_seed": 1000 + deal,
                                "removed_tiles_mask": 1 << (deal % 5),
                                "light_tiles_drawn": 5 + deal % 3})
    return pl.DataFrame(records)


def test_deals_of_another_seed_or_none_in_common_are_one_line_errors():
    game = get_game("legendary-forests")
    rows = _rows()
    other_seed = rows.with_columns(pl.when(pl.col("field") == "B")
                                   .then(pl.col("deal_seed") + 1).otherwise(pl.col("deal_seed")))
    with pytest.raises(InputError, match=r"^run-b: not played on run-a's deals \(40 of the 40 "
                                         r"common deal ids have another deal seed, e\.g\. deal "
                                         r"0\)$"):
        compare_rows(other_seed.lazy(), "A", "B", game, sources=("run-a", "run-b"))
    apart = rows.with_columns(pl.when(pl.col("field") == "B")
                              .then(pl.col("deal_id") + 100).otherwise(pl.col("deal_id")))
    with pytest.raises(InputError, match=r"no deal id in common: deals 0–39 vs deals 100–139"):
        compare_rows(apart.lazy(), "A", "B", game, sources=("run-a", "run-b"))


def test_partly_common_deals_and_covariates_that_differ_are_said_in_one_line():
    game = get_game("legendary-forests")
    rows = _rows().filter((pl.col("field") == "A") | (pl.col("deal_id") < 30))
    # The change removes other tiles: the removed-tiles effects are no deal's own any more.
    rows = rows.with_columns(pl.when(pl.col("field") == "B")
                             .then(pl.col("removed_tiles_mask") * 2)
                             .otherwise(pl.col("removed_tiles_mask")))
    comparison = compare_rows(rows.lazy(), "A", "B", game, sources=("run-a", "run-b"))
    assert comparison.deals == 30
    assert comparison.notes == [
        "Compared on the 30 deals both played (run-a played 40, run-b 30); the other deals "
        "are left out.",
        "Not compared: the effects of removed_tiles_mask, which differ between A and B on the "
        "same deal (the change alters what the deal sets)."]
    keys = [finding.key for finding in comparison.findings]
    assert not any(key.startswith("removed_tiles_mask/") for key in keys)
    assert "light_tiles_drawn/above_median" in keys
    mean = differences(comparison)[0]
    assert mean.low < 2.0 < mean.high and mean.verdict == HIGHER
