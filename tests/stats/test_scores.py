"""Score distributions from the histogram agree with direct computation, in both stores."""

import numpy as np
import polars as pl
import pytest
from scipy import stats

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.batch import open_batch
from sim.stats.scores import QUANTILES, distributions, score_histogram
from sim.stats.synthetic import SyntheticDesign, generate_rows
from sim.stats.units import cluster_units

DESIGN = SyntheticDesign(name="scores", deals=600, games_per_shard=150,
                         lineup=("greedy", "random", "random", "random"),
                         strategy_points={"greedy": 4.0}, noise_sd=3.0, deal_model=ForestDeals())


@pytest.fixture(scope="module")
def rows():
    return generate_rows(DESIGN)


@pytest.fixture(scope="module")
def tables(rows, write_batch):
    rows_batch = open_batch(write_batch(DESIGN, rows))
    summary_design = SyntheticDesign(**{**DESIGN.__dict__, "store": "summary",
                                        "name": "scores-summary"})
    summary_batch = open_batch(write_batch(summary_design, rows))
    return (distributions(score_histogram(rows_batch), cluster_units(rows_batch)),
            distributions(score_histogram(summary_batch), cluster_units(summary_batch)))


def test_matches_numpy_per_seat(rows, tables):
    from_rows, _ = tables
    for seat in range(4):
        scores = rows.filter(pl.col("seat") == seat)["score"].to_numpy().astype(float)
        wins = rows.filter(pl.col("seat") == seat)["win"].to_numpy()
        row = from_rows.filter(pl.col("seat") == seat).row(0, named=True)
        assert row["player_games"] == scores.size
        assert row["mean"] == pytest.approx(scores.mean())
        assert row["sd"] == pytest.approx(scores.std(ddof=1))
        for q in QUANTILES:
            expected = np.quantile(scores, q, method="inverted_cdf")
            assert row[f"q{round(q * 100):02d}"] == expected
        assert row["win_rate"] == pytest.approx(wins.mean())
        assert row["tie_rate"] == pytest.approx(np.mean((wins > 0) & (wins < 1)))
        assert row["win_rate_low"] < row["win_rate"] < row["win_rate_high"]


def test_pooled_rows_cover_all_seats_of_a_strategy(rows, tables):
    from_rows, _ = tables
    pooled = from_rows.filter(pl.col("seat").is_null() & (pl.col("strategy") == "random"))
    scores = rows.filter(pl.col("strategy") == "random")["score"].to_numpy()
    assert pooled["player_games"][0] == scores.size == 1800
    assert pooled["mean"][0] == pytest.approx(scores.mean())


def test_summary_store_gives_the_same_numbers(tables):
    from_rows, from_summary = tables
    assert from_rows.columns == from_summary.columns
    # Estimates agree; the intervals differ by design: the rows store clusters by deal, a
    # summary store without per-deal sums (as written before them, and by the synthetic
    # writer) by shard, with t on shards - 1 degrees of freedom. (With per-deal sums the two
    # agree exactly: tests/runner/test_runner.py.)
    intervals = [c for c in from_rows.columns
                 if c.endswith(("_low", "_high", "_se"))] + ["clusters"]
    assert from_rows.drop("rules", *intervals).equals(from_summary.drop("rules", *intervals))
    assert (from_summary["clusters"] == 4).all()  # 600 games in shards of 150
    assert (from_summary["mean_low"] < from_summary["mean"]).all()


def test_ties_are_counted(tables):
    # Small noise makes ties at the top common: the win shares must still sum to one per game.
    from_rows, _ = tables
    per_seat = from_rows.filter(pl.col("seat").is_not_null())
    assert per_seat["wins"].sum() == pytest.approx(DESIGN.games)
    assert per_seat["shared_wins"].sum() > 0


def test_win_and_tie_rates_have_intervals_inside_zero_and_one(tables):
    for table in tables:
        rates = table.filter(~pl.col("win_rate_fixed"))
        for rate in ("win_rate", "tie_rate"):
            low, high = rates[f"{rate}_low"].to_numpy(), rates[f"{rate}_high"].to_numpy()
            assert ((0 <= low) & (low <= rates[rate].to_numpy())).all()
            assert ((rates[rate].to_numpy() <= high) & (high <= 1)).all()


def test_a_rate_of_zero_gets_a_one_sided_interval_and_one_cluster_none():
    histogram = pl.DataFrame({"players": [2, 2], "rules": ["", ""], "strategy": ["a", "b"],
                              "seat": [0, 1], "score": [10, 5], "count": [40, 40],
                              "win_sum": [40.0, 0.0], "shared_wins": [0, 0]})
    units = pl.DataFrame({"players": [2] * 8, "rules": [""] * 8, "strategy": ["a", "b"] * 4,
                          "seat": [0, 1] * 4, "cluster": [0, 0, 1, 1, 2, 2, 3, 3],
                          "player_games": [10] * 8, "score_sum": [100, 50] * 4,
                          "win_units": [10 * 27720, 0] * 4, "shared_wins": [0] * 8})
    table = distributions(histogram, units).filter(pl.col("seat").is_not_null()).sort("seat")
    winner, loser = table.row(0, named=True), table.row(1, named=True)
    assert winner["win_rate"] == 1.0 and winner["win_rate_high"] == 1.0
    # One-sided, at n* = the 40 player-games, Wilson with t on 3 degrees of freedom.
    t3 = stats.t.ppf(0.975, 3)
    assert winner["win_rate_low"] == pytest.approx(40 / (40 + t3 ** 2))
    assert loser["win_rate"] == 0.0 and loser["win_rate_low"] == 0.0
    assert loser["win_rate_high"] == pytest.approx(t3 ** 2 / (40 + t3 ** 2))
    assert loser["tie_rate_low"] == 0.0 and loser["tie_rate_high"] > 0.0
    one_cluster = distributions(histogram, units.filter(pl.col("cluster") == 0))
    assert one_cluster["win_rate_low"].null_count() == one_cluster.height


def test_exact_sd_is_the_sample_sd_and_the_same_bits_in_any_row_order():
    """``exact_sd`` (categories, game length, tree tuning) equals numpy's sample SD and does not
    depend on the order the rows are reduced in, unlike a float ``std`` of a parallel group-by
    (which made two reports of one batch differ in the last bits)."""
    import numpy as np
    import polars as pl

    from sim.stats.units import exact_sd

    generator = np.random.default_rng(3)
    values = generator.integers(0, 120, 200_001)
    groups = generator.integers(0, 7, values.size)
    frame = pl.DataFrame({"group": groups, "points": values})
    results = []
    for seed in range(3):
        shuffled = frame.sample(fraction=1.0, shuffle=True, seed=seed)
        results.append(shuffled.group_by("group").agg(sd=exact_sd("points")).sort("group"))
    assert all(r["sd"].to_list() == results[0]["sd"].to_list() for r in results)
    expected = [np.std(values[groups == g], ddof=1) for g in range(7)]
    assert np.allclose(results[0]["sd"].to_numpy(), expected, rtol=1e-12)
    single = pl.DataFrame({"points": [5]}).select(sd=exact_sd("points"))
    assert single["sd"][0] is None  # one value: no sample SD
