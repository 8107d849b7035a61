"""The report's cluster sums in bounded memory (issue 39): score distributions, seat advantage,
strategy gaps and convergence computed chunk by chunk from exact integer moments equal the
computation over one row per (cell, deal) (kept here as the plain polars / numpy reference),
also when a deal's replays fall in two chunks, in unbalanced pools and in the summary store; and
these sections never collect a frame of more rows than one chunk's."""

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats import batch as batch_module
from sim.stats.analysis import ROW_COLUMNS, _read_rows
from sim.stats.batch import open_batch
from sim.stats.clustered import WIN_SCALE, cluster_matrix, grouped_ratio_table, ratio_means
from sim.stats.convergence import batch_running_estimates, convergence_units, running_estimates
from sim.stats.scores import distributions, score_histogram
from sim.stats.seats import (
    lineup_model_family,
    seat_gap_family,
    seat_table,
    seat_tests,
    strategy_mix_is_balanced,
)
from sim.stats.strategies import strategy_gaps
from sim.stats.synthetic import SyntheticDesign
from sim.stats.units import cluster_moments, cluster_units

# Three replays per deal in shards of 50 games: deals 16, 33, ... have replays in two shards.
SPLIT = SyntheticDesign(name="bounded-split", deals=200, replicates=3, games_per_shard=50,
                        deal_sd=3.0, noise_sd=4.0, seat_points=(1.0, 0.0, 0.0, -1.0), seed=21,
                        deal_model=ForestDeals())
# Three strategies rotated through four seats: unequal shares of each seat, the lineup model.
UNBALANCED = SyntheticDesign(name="bounded-unbalanced", deals=150, replicates=2,
                             games_per_shard=45, lineup=("a", "b", "c", "a"),
                             rotate_lineup=True, strategy_points={"a": 2.0, "c": -1.0},
                             deal_sd=2.0, seed=22, deal_model=ForestDeals())
RELATIVE = 1e-12


@pytest.fixture
def one_shard_chunks(monkeypatch):
    """Chunks of a single shard each, so that deals span chunks."""
    monkeypatch.setattr(batch_module, "CHUNK_GAMES", 1)


def _reference_intervals(units: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """The clustered intervals of the distribution tables as the report computed them before:
    one row per (cell, deal) and ``grouped_ratio_table``."""
    table = grouped_ratio_table(units, by, "player_games",
                                {"mean": "score_sum", "win_rate": "win_units",
                                 "tie_rate": "shared_wins"})
    return table.select(*by, "mean", "mean_low", "mean_high", "mean_clusters",
                        pl.col("win_rate", "win_rate_se") / WIN_SCALE, "tie_rate_se")


def _close(new: pl.DataFrame, old: pl.DataFrame, keys: list[str]) -> None:
    """Same rows and keys; every float equal up to a relative 1e-12 (sums in another order)."""
    joined = old.join(new, on=keys, how="left", nulls_equal=True, suffix="_new")
    assert joined.height == old.height == new.height
    for column in old.columns:
        if column in keys:
            continue
        expected, got = joined[column].to_numpy(), joined[f"{column}_new"].to_numpy()
        if old[column].dtype.is_float():
            np.testing.assert_allclose(got, expected, rtol=RELATIVE, atol=0)
        else:
            assert (got == expected).all(), column


def _check_moments(batch) -> None:
    units = cluster_units(batch)
    moments = cluster_moments(batch)
    histogram = score_histogram(batch)
    table = distributions(histogram, moments)
    panel = ["players", "rules"]
    for by, rows in (([*panel, "strategy", "seat"], table.filter(pl.col("seat").is_not_null())),
                     ([*panel, "strategy"], table.filter(pl.col("seat").is_null())),
                     ([*panel, "seat"], seat_table(histogram, moments))):
        new = rows.select(*by, "mean", "mean_low", "mean_high",
                          pl.col("clusters").alias("mean_clusters"), "win_rate", "win_rate_se",
                          "tie_rate_se")
        old = _reference_intervals(units, by)
        if "seat" not in by:  # a lone strategy's win rate is fixed at 1 / players, no SE
            old = old.join(rows.select(*by, "win_rate_fixed"), on=by).filter(
                ~pl.col("win_rate_fixed")).drop("win_rate_fixed")
            new = new.join(old.select(by), on=by)
        _close(new, old, by)
    # The covariance of any grouping of cells (seats, strategies, cells) as ``ratio_means``
    # over the per-deal sums gives it: what seat gaps, tests and strategy gaps rest on.
    for (players, rules), panel_moments in moments.panels.items():
        panel_units = units.filter((pl.col("players") == players) & (pl.col("rules") == rules))
        cells = panel_units.with_columns(cell=pl.concat_str(
            [pl.col("strategy"), pl.col("seat").cast(pl.String)], separator="\u0000"))
        for group, frame, by in (("seat", panel_units, ["seat"]),
                                 ("strategy", panel_units, ["strategy"]),
                                 ("cell", cells, ["strategy", "seat"])):
            _, sums = cluster_matrix(frame, group, ("win_units", "score_sum", "player_games"))
            _, groups = panel_moments.groups(by)
            for value, scale in (("win_units", WIN_SCALE), ("score_sum", 1)):
                old = ratio_means(sums[value] / scale, sums["player_games"])
                new = panel_moments.ratio_means(value, groups, scale)
                assert new.clusters == old.clusters
                np.testing.assert_allclose(new.means, old.means, rtol=RELATIVE, atol=0)
                np.testing.assert_allclose(new.covariance, old.covariance, rtol=1e-10,
                                           atol=1e-12 * np.abs(old.covariance).max())
    # Strategy gaps and seat tests from the moments equal those from the per-deal sums.
    balance = strategy_mix_is_balanced(histogram)
    assert_frame_equal(strategy_gaps(moments, balance), strategy_gaps(units, balance),
                       check_exact=False, rel_tol=RELATIVE)
    for new, old in zip(seat_tests(moments, design=batch.pool_design),
                        seat_tests(units, design=batch.pool_design), strict=True):
        assert_frame_equal(new, old, check_exact=False, rel_tol=RELATIVE)
    family = seat_gap_family(next(iter(moments.panels.values())))
    assert family.clusters == units["cluster"].n_unique()
    # Convergence streamed: the same bits as over one row per deal.
    assert_frame_equal(batch_running_estimates(batch, moments.unit_counts()),
                       running_estimates(convergence_units(batch)), check_exact=True)


@pytest.mark.parametrize("design", [SPLIT, UNBALANCED], ids=["split-deals", "unbalanced-pool"])
def test_moments_equal_the_per_deal_sums(write_batch, one_shard_chunks, design):
    batch = open_batch(write_batch(design))
    assert len(batch.chunks()) == len(batch.shard_files) > 1
    _check_moments(batch)


def test_moments_of_a_summary_store_with_deal_sums(tmp_path, monkeypatch):
    """A summary batch of the runner (per-deal sums beside the histograms), two replays per deal
    in shards of 75 games, read one shard at a time."""
    from sim.config import load_config
    from sim.runner import run_batch

    monkeypatch.setattr(batch_module, "CHUNK_GAMES", 1)
    config_path = tmp_path / "batch.toml"
    config_path.write_text('game = "legendary-forests"\nplayers = 3\npool = ["greedy", "random"]\n'
                           'games = 450\nseed = 5\nshard_size = 75\nreplicates_per_deal = 2\n'
                           'store = "summary"\n')
    run_batch(load_config(config_path, {"output": str(tmp_path / "run")}), workers=1)
    batch = open_batch(tmp_path / "run")
    assert batch.has_deal_sums and len(batch.chunks(batch.deal_sum_files)) == 6
    _check_moments(batch)


def test_the_lineup_model_read_chunk_by_chunk_equals_it_over_every_row(write_batch):
    batch = open_batch(write_batch(UNBALANCED))
    columns = ["game_id", "deal_id", "seat", "strategy", "score", "win"]
    whole = lineup_model_family(batch.scan(columns).collect(), 4)
    chunks = [batch.scan(columns, files=(path,)) for path in batch.shard_files]
    chunked = lineup_model_family(chunks, 4)
    assert chunked.clusters == whole.clusters == UNBALANCED.deals
    for name in ("win", "score"):
        ours, theirs = getattr(chunked, name), getattr(whole, name)
        np.testing.assert_allclose(ours.estimates, theirs.estimates, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(ours.low, theirs.low, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(ours.standard_errors, theirs.standard_errors, rtol=1e-10)
    assert chunked.wald.statistic == pytest.approx(whole.wald.statistic, rel=1e-10)


def test_the_sections_never_collect_more_rows_than_a_chunk(write_batch, one_shard_chunks,
                                                           monkeypatch):
    design = UNBALANCED
    batch = open_batch(write_batch(design))
    shard_rows = design.games_per_shard * design.players
    # The histogram has a row per cell and score (however many games): read before the check.
    histogram = score_histogram(batch, _read_rows(batch))
    collect = pl.LazyFrame.collect
    largest = [0]

    def bounded(self, *args, **kwargs):
        frame = collect(self, *args, **kwargs)
        largest[0] = max(largest[0], frame.height)
        assert frame.height <= shard_rows, f"collected {frame.height} rows"
        return frame

    monkeypatch.setattr(pl.LazyFrame, "collect", bounded)
    moments = cluster_moments(batch)
    distributions(histogram, moments)
    seat_table(histogram, moments)
    chunks = [batch.scan(ROW_COLUMNS, files=chunk) for chunk in batch.chunks()]
    tests, _ = seat_tests(moments, rows=chunks, design=batch.pool_design)
    assert tests["method"][0] == "lineup model"
    strategy_gaps(moments, strategy_mix_is_balanced(histogram))
    batch_running_estimates(batch, moments.unit_counts())
    assert 0 < largest[0] <= shard_rows < design.games * design.players / 4
