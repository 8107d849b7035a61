"""The batch report in bounded memory (issue 39): every section that streams its aggregates from
the shards gives the same numbers, to the bit, as the same section over rows held in memory (the
way the report read them before), and ``analyse_batch`` never collects a per-row frame outside
the sections that still need one."""

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats import analysis as analysis_module
from sim.stats.analysis import ROLE_COLUMNS, _read_rows, analyse_batch
from sim.stats.batch import open_batch
from sim.stats.convergence import convergence_units
from sim.stats.rotating_role import role_table
from sim.stats.scores import score_histogram
from sim.stats.seats import seat_tests
from sim.stats.synthetic import SyntheticDesign
from sim.stats.units import cluster_units
from sim.stats.variance import count_effect, deal_variance, removed_item_effect

# Replayed deals (so the deal's share is computed), a tie now and then (fractional wins), tile
# and light-tile effects, two shards.
REPLAYED = SyntheticDesign(name="bounded-replayed", deals=150, replicates=2,
                           games_per_shard=150, deal_sd=3.0, noise_sd=4.0, seed=11,
                           deal_model=ForestDeals(tile_points={3: 2.0, 7: -2.0},
                                                  light_tile_points=0.5))
# A rotating pool: the lineup model reads the games of each panel.
POOL = SyntheticDesign(name="bounded-pool", deals=120, replicates=2, games_per_shard=120,
                       lineup=("a", "b", "c", "d"), rotate_lineup=True,
                       strategy_points={"a": 2.0}, deal_sd=2.0, seed=12, deal_model=ForestDeals())


def _in_memory(batch) -> pl.LazyFrame:
    """The rows as the report used to read them: collected once, handed on as a lazy frame."""
    return _read_rows(batch).collect().lazy()


def _sorted(frame: pl.DataFrame) -> pl.DataFrame:
    return frame.sort(frame.columns, nulls_last=True) if not frame.is_empty() else frame


@pytest.mark.parametrize("design", [REPLAYED, POOL], ids=["replayed", "pool"])
def test_streamed_sections_equal_the_in_memory_ones_to_the_bit(write_batch, design):
    batch = open_batch(write_batch(design))
    streamed, held = _read_rows(batch), _in_memory(batch)
    assert_frame_equal(score_histogram(batch, streamed), score_histogram(batch, held),
                       check_exact=True)
    # Cluster sums come unsorted (integer sums: exact in any order).
    assert_frame_equal(_sorted(cluster_units(batch, streamed)),
                       _sorted(cluster_units(batch, held)), check_exact=True)
    assert_frame_equal(convergence_units(batch, streamed), convergence_units(batch, held),
                       check_exact=True)
    units = cluster_units(batch, streamed)
    for new, old in zip(seat_tests(units, rows=streamed, design=batch.pool_design),
                        seat_tests(units, rows=held, design=batch.pool_design), strict=True):
        assert_frame_equal(new, old, check_exact=True)
    assert_frame_equal(deal_variance(streamed), deal_variance(held), check_exact=True)
    assert_frame_equal(role_table(streamed), role_table(held), check_exact=True)
    assert_frame_equal(removed_item_effect(streamed), removed_item_effect(held), check_exact=True)
    for new, old in zip(count_effect(streamed), count_effect(held), strict=True):
        assert_frame_equal(new, old, check_exact=True)


def test_deal_variance_without_replays_is_empty_before_any_per_deal_sum(write_batch,
                                                                       monkeypatch):
    from sim.stats import variance

    batch = open_batch(write_batch(SyntheticDesign(name="bounded-solo", deals=100, seed=13,
                                                   deal_model=ForestDeals())))

    def refuse(_rows):
        raise AssertionError("per-deal sums formed for a batch with no replayed deal")

    monkeypatch.setattr(variance, "_per_deal_sums", refuse)
    assert deal_variance(_read_rows(batch)).is_empty()


def test_analyse_batch_collects_nothing_per_row_but_the_token_regression(write_batch,
                                                                        monkeypatch):
    design = REPLAYED
    batch = open_batch(write_batch(design))
    assert batch.has_columns(*ROLE_COLUMNS, "removed_tiles_mask")
    player_rows = design.deals * design.replicates * design.players
    # Per (deal, seat) is the finest grain a streamed section may hold: half the rows here.
    limit = design.deals * design.players
    collect = pl.LazyFrame.collect
    largest = [0]

    def bounded(self, *args, **kwargs):
        frame = collect(self, *args, **kwargs)
        if isinstance(frame, pl.DataFrame):
            largest[0] = max(largest[0], frame.height)
            assert frame.height <= limit, f"collected {frame.height} rows (limit {limit})"
        return frame

    # The within-game token regression is the one section still fitted on the player rows.
    monkeypatch.setattr(analysis_module, "role_turn_effect", lambda rows: pl.DataFrame())
    monkeypatch.setattr(pl.LazyFrame, "collect", bounded)
    result = analyse_batch(batch)
    assert result.deal_variance is not None and result.removed_items is not None
    assert result.count_table is not None and result.role_table is not None
    assert 0 < largest[0] <= limit < player_rows
