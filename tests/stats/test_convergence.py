"""Running estimates, their intervals and the games needed for a precision."""

import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.batch import open_batch
from sim.stats.convergence import convergence_units, games_needed, running_estimates
from sim.stats.synthetic import SyntheticDesign, generate_rows

NOISE_SD = 8.0
DESIGN = SyntheticDesign(name="converge", deals=4000, games_per_shard=50, noise_sd=NOISE_SD,
                         deal_model=ForestDeals())


@pytest.fixture(scope="module")
def rows():
    return generate_rows(DESIGN)


@pytest.fixture(scope="module")
def running_by_store(rows, write_batch):
    summary = SyntheticDesign(**{**DESIGN.__dict__, "store": "summary",
                                 "name": "converge-summary"})
    result = {}
    for design in (DESIGN, summary):
        batch = open_batch(write_batch(design, rows))
        result[design.store] = running_estimates(convergence_units(batch))
    return result


def test_final_estimate_is_the_batch_mean(rows, running_by_store):
    for running in running_by_store.values():
        final = running.filter(pl.col("metric") == "mean_score").sort("games")[-1]
        assert final["games"][0] == DESIGN.games
        assert final["value"][0] == pytest.approx(rows["score"].mean())
        assert final["ci_low"][0] < DESIGN.base < final["ci_high"][0]
        seat_0 = running.filter(pl.col("metric") == "seat_0_win_rate").sort("games")[-1]
        assert seat_0["value"][0] == pytest.approx(
            rows.filter(pl.col("seat") == 0)["win"].mean())


def test_half_width_shrinks_like_one_over_root_games(running_by_store):
    running = running_by_store["rows"].filter(pl.col("metric") == "mean_score")
    end = running.sort("games")[-1]
    quarter = running.filter(pl.col("games") <= DESIGN.games // 4).sort("games")[-1]
    expected = (end["games"][0] / quarter["games"][0]) ** 0.5
    assert quarter["half_width"][0] / end["half_width"][0] == pytest.approx(expected, rel=0.15)


def test_games_needed_matches_the_true_variance(running_by_store):
    # The mean of 4 independent seats per game: variance (sd^2 + 1/12) / 4 per game.
    per_game_variance = (NOISE_SD ** 2 + 1 / 12) / 4
    for store, running in running_by_store.items():
        needed = games_needed(running).filter((pl.col("metric") == "mean_score")
                                              & (pl.col("precision") == 0.1))
        truth = 1.959964 ** 2 * per_game_variance / 0.1 ** 2
        # 80 shards against 4000 deals: the summary store's variance estimate is rougher
        # (relative SD sqrt(2 / 79) = 0.16).
        tolerance = 0.1 if store == "rows" else 0.4
        assert needed["games_needed"][0] == pytest.approx(truth, rel=tolerance)


def test_units_are_deals_for_rows_and_shards_for_summaries(running_by_store):
    assert running_by_store["rows"]["units"].max() == DESIGN.deals
    assert running_by_store["summary"]["units"].max() == DESIGN.deals // DESIGN.games_per_shard
