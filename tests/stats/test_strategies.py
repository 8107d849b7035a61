"""Head-to-head results and strategy gaps against their true values."""

import numpy as np
import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.batch import open_batch
from sim.stats.scores import score_histogram
from sim.stats.seats import strategy_mix_is_balanced
from sim.stats.strategies import head_to_head, strategy_gaps
from sim.stats.synthetic import SyntheticDesign
from sim.stats.units import cluster_units

DESIGN = SyntheticDesign(name="mixed", deals=3000, games_per_shard=1000,
                         lineup=("greedy", "random", "greedy", "random"), rotate_lineup=True,
                         strategy_points={"greedy": 3.0}, noise_sd=8.0, deal_model=ForestDeals())


def _true_ahead_rate(edge: float, sd: float, base: float = 60.0) -> float:
    """P(greedy's rounded score beats random's) + half the chance of a tie, by simulation."""
    rng = np.random.default_rng(99)
    greedy = np.rint(base + edge + rng.normal(0, sd, 4_000_000))
    random = np.rint(base + rng.normal(0, sd, 4_000_000))
    return float(np.mean(greedy > random) + 0.5 * np.mean(greedy == random))


@pytest.fixture(scope="module")
def batch(write_batch):
    return open_batch(write_batch(DESIGN))


def test_head_to_head_covers_the_true_rate(batch):
    matrix = head_to_head(batch.scan(["game_id", "deal_id", "players", "rules", "strategy",
                                      "rank"]))
    greedy = matrix.filter(pl.col("strategy") == "greedy").row(0, named=True)
    random = matrix.filter(pl.col("strategy") == "random").row(0, named=True)
    assert greedy["games"] == random["games"] == DESIGN.games
    assert greedy["ahead_rate"] + random["ahead_rate"] == pytest.approx(1.0)
    truth = _true_ahead_rate(3.0, 8.0)
    assert greedy["ahead_rate_low"] < truth < greedy["ahead_rate_high"]
    assert greedy["ahead_rate_low"] > 0.5


def test_no_mixed_games_no_head_to_head(write_batch):
    batch = open_batch(write_batch(SyntheticDesign(name="mirror", deals=50,
                                                   games_per_shard=50, deal_model=ForestDeals())))
    assert head_to_head(batch.scan(["game_id", "deal_id", "players", "rules", "strategy", "rank"])
                        ).is_empty()


def test_strategy_gap_covers_the_built_in_edge(batch):
    gap = strategy_gaps(cluster_units(batch),
                        strategy_mix_is_balanced(score_histogram(batch))).row(0, named=True)
    assert gap["method"].startswith("seat-standardised")
    assert (gap["best"], gap["worst"]) == ("greedy", "random")
    assert gap["score_gap_low"] < 3.0 < gap["score_gap_high"]
    assert gap["best_win_rate"] > gap["worst_win_rate"]


def test_head_to_head_in_chunks_equals_it_from_every_game_at_once(batch, monkeypatch):
    """Read in chunks of a few whole deals, the matrix is the same bits as from the default
    chunks, and equals the per-game computation over every row (clustered by deal)."""
    from sim.stats import variance
    from sim.stats.clustered import grouped_ratio_intervals
    from sim.stats.strategies import pair_outcomes

    columns = ["game_id", "deal_id", "players", "rules", "strategy", "rank"]
    whole = head_to_head(batch.scan(columns))
    monkeypatch.setattr(variance, "DEAL_CHUNK_ROWS", 37)
    assert head_to_head(batch.scan(columns)).equals(whole)

    per_game = (pair_outcomes(batch.scan(columns), ["players", "rules"])
                .with_columns(pl.col("players").cast(pl.Int64), games=pl.lit(1, pl.Int64))
                .rename({"deal_id": "cluster"}).collect())
    keys = ["players", "rules", "strategy", "opponent"]
    reference = grouped_ratio_intervals(per_game, keys, "ahead", "games", "ahead_rate").sort(keys)
    np.testing.assert_allclose(whole["ahead_rate"], reference["ahead_rate"], rtol=1e-12)
    np.testing.assert_allclose(whole["ahead_rate_se"], reference["ahead_rate_se"], rtol=1e-10)
    assert whole["ahead_rate_clusters"].to_list() == reference["ahead_rate_clusters"].to_list()
