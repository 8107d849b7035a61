"""Seat advantage and the construction token recover the effects built into synthetic batches."""

import numpy as np
import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.batch import open_batch
from sim.stats.rotating_role import mean_order_position, role_table, role_turn_effect
from sim.stats.scores import score_histogram
from sim.stats.seats import (
    METHOD_DESIGN,
    METHOD_MODEL,
    lineup_model_family,
    seat_gap_family,
    seat_tests,
    strategy_mix_is_balanced,
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
    return seat_tests(cluster_units(batch, rows), fair_margin=margin, rows=rows,
                      design=batch.pool_design)


def test_seat_gap_is_found_and_covered(write_batch):
    design = SyntheticDesign(name="seat-gap", deals=3000, games_per_shard=1000,
                             seat_points=(2.0, 0.0, 0.0, -2.0), deal_model=ForestDeals())
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
    # A summary store without per-deal sums clusters by shard (3 shards here): same estimates,
    # but 3 clusters cannot estimate the spread of 3 independent seat gaps: no interval.
    summary_design = SyntheticDesign(**{**design.__dict__, "store": "summary",
                                        "name": "seat-gap-summary"})
    summary_batch = open_batch(write_batch(summary_design))
    summary = _tests(summary_batch, None, score_histogram(summary_batch))[0].row(0, named=True)
    assert summary["score_gap"] == pytest.approx(test["score_gap"])
    assert summary["clusters"] == 3 and summary["verdict"] is None
    assert np.isnan(summary["score_gap_low"]) and np.isnan(summary["score_gap_high"])


def test_equal_seats_are_not_rejected(write_batch):
    design = SyntheticDesign(name="no-seat-gap", deals=2000, games_per_shard=1000, seed=5,
                             deal_model=ForestDeals())
    batch, rows, histogram = _analyse(write_batch, design)
    test = _tests(batch, rows, histogram)[0].row(0, named=True)
    assert test["p_value"] > 0.05
    assert test["win_gap_low"] < 0 < test["win_gap_high"]
    # 2,000 games cannot show every gap within 2 points, but can within 8.
    assert test["verdict"] == "undecided"
    assert _tests(batch, rows, histogram, 0.08)[0]["verdict"][0] == "fair"


def test_fixed_mixed_lineup_is_not_tested(write_batch):
    design = SyntheticDesign(name="fixed-lineup", deals=200, games_per_shard=100,
                             lineup=("greedy", "random", "random", "random"),
                             deal_model=ForestDeals())
    batch, rows, histogram = _analyse(write_batch, design)
    assert not strategy_mix_is_balanced(histogram)["balanced"][0]
    test = _tests(batch, rows, histogram)[0].row(0, named=True)
    assert test["wald_f"] is None and test["verdict"] is None and not test["balanced"]
    # Seats counted from 1: seat 1 is the only one that always plays greedy.
    assert test["reason"] == ("seat and strategy cannot be told apart: seat 1 always plays "
                              "greedy; use a pool")
    assert test["method"] is None and test["design"] == "fixed"


def test_rotated_lineup_is_balanced(write_batch):
    design = SyntheticDesign(name="rotated-lineup", deals=200, games_per_shard=100,
                             lineup=("greedy", "random", "random", "random"),
                             rotate_lineup=True, deal_model=ForestDeals())
    _, _, histogram = _analyse(write_batch, design)
    assert strategy_mix_is_balanced(histogram)["balanced"][0]


@pytest.mark.parametrize("players, light, seat, expected", [
    (4, 3, 0, (0 + 3 + 2) / 3), (4, 4, 2, 1.5), (3, 1, 2, 2.0), (2, 5, 1, 3 / 5)])
def test_mean_pick_position(players, light, seat, expected):
    assert mean_order_position(players, light, seat) == pytest.approx(expected)


def test_extra_token_phase_is_worth_what_was_built_in(write_batch):
    design = SyntheticDesign(name="token", deals=4000, games_per_shard=1000,
                             deal_model=ForestDeals(token_points=2.5))
    _, rows, _ = _analyse(write_batch, design)
    effect = role_turn_effect(rows).row(0, named=True)
    assert effect["score_gap_low"] < 2.5 < effect["score_gap_high"]
    assert effect["win_gap_low"] > 0


def test_seat_effect_is_not_taken_for_a_token_effect(write_batch):
    """The first seats lead the extra tree phases; a seat advantage alone must not show up as
    a token effect once the seat is held fixed."""
    design = SyntheticDesign(name="seat-not-token", deals=4000, games_per_shard=1000,
                             seat_points=(2.0, 1.0, 0.0, -1.0), seed=8, deal_model=ForestDeals())
    _, rows, _ = _analyse(write_batch, design)
    effect = role_turn_effect(rows).row(0, named=True)
    assert effect["score_gap_low"] < 0 < effect["score_gap_high"]
    assert effect["win_gap_low"] < 0 < effect["win_gap_high"]
    table = role_table(rows)
    # Seat s leads the tree phases k = s, s + P, ... below the light tiles drawn.
    expected = ((pl.col("light_tiles_drawn") - pl.col("seat") + 3) // 4).clip(0)
    assert table.select((pl.col("first_picks") == expected).all()).item()


def test_the_lineup_model_with_one_strategy_gives_the_raw_seat_gaps(write_batch):
    """With one strategy in every seat, holding the lineup fixed changes nothing: the model's
    gaps, intervals and test are those of the raw seat means."""
    design = SyntheticDesign(name="one-strategy-model", deals=300, replicates=2,
                             games_per_shard=200, seat_points=(1.5, 0.0, 0.5, -1.0),
                             deal_sd=3.0, game_sd=2.0, seed=3, deal_model=ForestDeals())
    batch, rows, _ = _analyse(write_batch, design)
    model = lineup_model_family(rows.collect(), 4)
    raw = seat_gap_family(cluster_units(batch, rows))
    for name in ("win", "score"):
        ours, theirs = getattr(model, name), getattr(raw, name)
        assert ours.estimates == pytest.approx(theirs.estimates, abs=1e-9)
        assert ours.standard_errors == pytest.approx(theirs.standard_errors, rel=1e-6)
        assert ours.low == pytest.approx(theirs.low, abs=1e-9)
    assert model.wald.statistic == pytest.approx(raw.wald.statistic, rel=1e-6)
    assert model.win_rates == pytest.approx(raw.win_rates, abs=1e-9)


def test_a_rotated_mixed_lineup_is_tested_by_the_lineup_model(write_batch):
    design = SyntheticDesign(name="rotated-model", deals=400, games_per_shard=100,
                             lineup=("greedy", "random", "random", "random"),
                             rotate_lineup=True, strategy_points={"greedy": 10.0}, seed=4,
                             deal_model=ForestDeals())
    batch, rows, histogram = _analyse(write_batch, design)
    test = _tests(batch, rows, histogram, 0.1)[0].row(0, named=True)
    assert test["method"] == METHOD_MODEL and test["reason"] is None and test["balanced"]
    assert test["verdict"] in ("fair", "undecided") and test["p_value"] is not None
    # The summary store of a design balanced by construction compares the raw seat means.
    summary_design = SyntheticDesign(**{**design.__dict__, "store": "summary",
                                        "name": "rotated-summary", "games_per_shard": 20})
    summary_batch = open_batch(write_batch(summary_design))
    assert summary_batch.pool_design == "repeated"
    summary = _tests(summary_batch, None, score_histogram(summary_batch))[0].row(0, named=True)
    assert summary["method"] == METHOD_DESIGN and summary["reason"] is None
    assert summary["clusters"] == 20


def test_few_clusters_give_no_verdict(write_batch):
    design = SyntheticDesign(name="few-deals", deals=9, replicates=20, games_per_shard=60,
                             deal_model=ForestDeals())
    batch, rows, histogram = _analyse(write_batch, design)
    test = _tests(batch, rows, histogram, 0.5)[0].row(0, named=True)
    assert test["reason"] == "only 9 deals: a seat verdict needs at least 10"
    assert test["verdict"] is None and test["p_value"] is None and not test["balanced"]
    assert test["win_gap_low"] is not None  # the gaps are still described


def test_summary_store_of_a_whole_pool_rotation_gives_no_verdict():
    """A pool larger than the table rotated as a whole (batches before pool designs) ties each
    seat to its opponents; without games to hold the lineup fixed there is no verdict."""
    from types import SimpleNamespace

    from sim.stats.synthetic import generate_rows
    from sim.stats.units import cluster_units as units_of

    rows = generate_rows(SyntheticDesign(deals=200, lineup=("a", "b", "c", "d"),
                                         rotate_lineup=True, deal_model=ForestDeals()))
    store = SimpleNamespace(is_rows=True)
    lazy = rows.with_columns(pl.col("players").cast(pl.Int64), rules=pl.lit("")).lazy()
    # No rows handed over: what the summary store can give.
    tests, _ = seat_tests(units_of(store, lazy), design="rotation")
    row = tests.row(0, named=True)
    assert row["verdict"] is None and "pool_design \"rotation\"" in row["reason"]
