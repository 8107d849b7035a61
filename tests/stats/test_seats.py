"""Seat advantage and the construction token recover the effects built into synthetic batches."""

import polars as pl
import pytest

from sim.stats.batch import open_batch
from sim.stats.scores import score_histogram
from sim.stats.seats import (
    extra_token_effect,
    mean_pick_position,
    seat_tests,
    strategy_mix_is_balanced,
    token_table,
)
from sim.stats.synthetic import SyntheticDesign
from sim.stats.units import cluster_units

ROW_COLUMNS = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "win",
               "tree_phases_as_token_holder", "light_tiles_drawn"]


def _analyse(write_batch, design):
    batch = open_batch(write_batch(design))
    rows = batch.scan(ROW_COLUMNS).collect().lazy()
    return batch, rows, score_histogram(batch, rows)


def _tests(batch, rows, histogram, margin=0.02):
    return seat_tests(histogram, cluster_units(batch, rows), fair_margin=margin)


def test_seat_gap_is_found_and_covered(write_batch):
    design = SyntheticDesign(name="seat-gap", deals=3000, games_per_shard=1000,
                             seat_points=(2.0, 0.0, 0.0, -2.0))
    batch, rows, histogram = _analyse(write_batch, design)
    tests, gaps = _tests(batch, rows, histogram)
    test = tests.row(0, named=True)
    assert test["balanced"] and test["p_value"] < 1e-6
    assert (test["high_score_seat"], test["low_score_seat"]) == (0, 3)
    assert test["score_gap_low"] < 4.0 < test["score_gap_high"]
    assert (test["best_seat"], test["worst_seat"]) == (0, 3)
    assert test["win_gap_low"] > 0
    assert test["verdict"] == "unfair"  # seat 1 over seat 4 is far above 2 points
    assert gaps.height == 6  # every pair of four seats
    # The summary store clusters by shard (3 shards here): same estimates, wider intervals.
    summary_design = SyntheticDesign(**{**design.__dict__, "store": "summary",
                                        "name": "seat-gap-summary"})
    summary_batch = open_batch(write_batch(summary_design))
    summary = _tests(summary_batch, None, score_histogram(summary_batch))[0].row(0, named=True)
    assert summary["score_gap"] == pytest.approx(test["score_gap"])
    assert summary["score_gap_low"] < 4.0 < summary["score_gap_high"]


def test_equal_seats_are_not_rejected(write_batch):
    design = SyntheticDesign(name="no-seat-gap", deals=2000, games_per_shard=1000, seed=5)
    batch, rows, histogram = _analyse(write_batch, design)
    test = _tests(batch, rows, histogram)[0].row(0, named=True)
    assert test["p_value"] > 0.05
    assert test["win_gap_low"] < 0 < test["win_gap_high"]
    # 2,000 games cannot show every gap within 2 points, but can within 8.
    assert test["verdict"] == "undecided"
    assert _tests(batch, rows, histogram, 0.08)[0]["verdict"][0] == "fair"


def test_fixed_mixed_lineup_is_not_tested(write_batch):
    design = SyntheticDesign(name="fixed-lineup", deals=200, games_per_shard=100,
                             lineup=("greedy", "random", "random", "random"))
    batch, rows, histogram = _analyse(write_batch, design)
    assert not strategy_mix_is_balanced(histogram)["balanced"][0]
    test = _tests(batch, rows, histogram)[0].row(0, named=True)
    assert test["wald_f"] is None and test["verdict"] is None and not test["balanced"]


def test_rotated_lineup_is_balanced(write_batch):
    design = SyntheticDesign(name="rotated-lineup", deals=200, games_per_shard=100,
                             lineup=("greedy", "random", "random", "random"),
                             rotate_lineup=True)
    _, _, histogram = _analyse(write_batch, design)
    assert strategy_mix_is_balanced(histogram)["balanced"][0]


@pytest.mark.parametrize("players, light, seat, expected", [
    (4, 3, 0, (0 + 3 + 2) / 3), (4, 4, 2, 1.5), (3, 1, 2, 2.0), (2, 5, 1, 3 / 5)])
def test_mean_pick_position(players, light, seat, expected):
    assert mean_pick_position(players, light, seat) == pytest.approx(expected)


def test_extra_token_phase_is_worth_what_was_built_in(write_batch):
    design = SyntheticDesign(name="token", deals=4000, games_per_shard=1000, token_points=2.5)
    _, rows, _ = _analyse(write_batch, design)
    effect = extra_token_effect(rows).row(0, named=True)
    assert effect["score_gap_low"] < 2.5 < effect["score_gap_high"]
    assert effect["win_gap_low"] > 0


def test_seat_effect_is_not_taken_for_a_token_effect(write_batch):
    """The first seats lead the extra tree phases; a seat advantage alone must not show up as
    a token effect once the seat is held fixed."""
    design = SyntheticDesign(name="seat-not-token", deals=4000, games_per_shard=1000,
                             seat_points=(2.0, 1.0, 0.0, -1.0), seed=8)
    _, rows, _ = _analyse(write_batch, design)
    effect = extra_token_effect(rows).row(0, named=True)
    assert effect["score_gap_low"] < 0 < effect["score_gap_high"]
    assert effect["win_gap_low"] < 0 < effect["win_gap_high"]
    table = token_table(rows)
    # Seat s leads the tree phases k = s, s + P, ... below the light tiles drawn.
    expected = ((pl.col("light_tiles_drawn") - pl.col("seat") + 3) // 4).clip(0)
    assert table.select((pl.col("first_picks") == expected).all()).item()
