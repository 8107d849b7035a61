"""Every printed interval covers its true value at the nominal rate, on batches whose seats share
a game and whose games share a deal.

600 synthetic batches (150 deals x 2 replicates, 4 seats) with a deal effect, a game effect,
seat, strategy, token, light-tile and removed-tile effects are analysed together (one panel
each, told apart by the ``rules`` label), and the share of batches whose interval covers the
truth must lie within 95% +- 2.5 points. The truth is either known from the design (token,
strategy and tile effects, the ICC) or measured on one batch 1,000 times larger than one of
them (means, win rates, gaps, head-to-head), whose error is far below the intervals' width.
"""

from dataclasses import replace
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals, true_tile_effect
from sim.stats.clustered import (
    WIN_SCALE,
    contrast_intervals,
    pairwise_contrasts,
    ratio_means,
)
from sim.stats.rotating_role import role_turn_effect
from sim.stats.scores import distributions, score_histogram
from sim.stats.seats import equivalence_verdict, seat_tests
from sim.stats.strategies import head_to_head, strategy_gaps
from sim.stats.synthetic import SyntheticDesign, generate_rows, true_icc
from sim.stats.units import cluster_units
from sim.stats.variance import count_effect, deal_variance, removed_item_effect

# Slow (a few minutes on two cores): run with the suite in CI; skip locally with -m "not slow".
pytestmark = pytest.mark.slow
BATCHES = 600
DESIGN = SyntheticDesign(
    name="coverage", deals=150, replicates=2, lineup=("a", "b", "a", "b"), rotate_lineup=True,
    deal_sd=3.0, game_sd=3.0, noise_sd=8.0, strategy_points={"a": 1.0, "b": 0.0},
    seat_points=(1.0, 0.5, 0.0, 0.0),
    deal_model=ForestDeals(token_points=0.3, light_tile_points=0.4, tile_points={5: 1.5, 9: -1.0}))
LOW, HIGH = 0.925, 0.975
ROWS_STORE = SimpleNamespace(is_rows=True)


def _stack(design: SyntheticDesign, seeds: range) -> pl.DataFrame:
    """Batches of ``design`` with the given seeds as one frame, one ``rules`` label each."""
    parts = []
    for index, seed in enumerate(seeds):
        rows = generate_rows(replace(design, seed=seed))
        offset = index * design.games
        parts.append(rows.with_columns(
            pl.col("game_id") + offset, pl.col("deal_id") + offset,
            rules=pl.lit(f"batch={index:04d}")))
    return pl.concat(parts).with_columns(pl.col("players").cast(pl.Int64))


@pytest.fixture(scope="module")
def batches():
    return _stack(DESIGN, range(1, BATCHES + 1))


@pytest.fixture(scope="module")
def truth():
    """One batch 1,000 times larger than each of the small ones."""
    return _stack(replace(DESIGN, deals=DESIGN.deals * 1000), range(10_001, 10_002))


def _coverage(estimates: pl.DataFrame, truth: pl.DataFrame, keys: list[str],
              value: str) -> float:
    joined = estimates.join(truth.select(*keys, pl.col(value).alias("true")), on=keys,
                            nulls_equal=True)
    assert joined.height >= BATCHES
    covered = (joined[f"{value}_low"] <= joined["true"]) & (joined["true"]
                                                           <= joined[f"{value}_high"])
    return float(covered.mean())


def _analyses(rows: pl.DataFrame):
    lazy = rows.lazy()
    units = cluster_units(ROWS_STORE, lazy)
    histogram = score_histogram(ROWS_STORE, lazy)
    return lazy, units, histogram


@pytest.fixture(scope="module")
def analysed(batches, truth):
    return _analyses(batches), _analyses(truth.with_columns(rules=pl.lit("truth")))


def test_means_and_win_rates_cover(analysed):
    (_, units, histogram), (_, true_units, true_histogram) = analysed
    table = distributions(histogram, units)
    true_table = distributions(true_histogram, true_units).drop("rules")
    for seat_rows in (pl.col("seat").is_not_null(), pl.col("seat").is_null()):
        keys = ["players", "strategy", "seat"]
        part, true_part = table.filter(seat_rows), true_table.filter(seat_rows)
        for value in ("mean", "win_rate"):
            coverage = _coverage(part, true_part, keys, value)
            assert LOW <= coverage <= HIGH, (value, coverage)


def test_seat_gap_family_covers_all_pairs_at_once(analysed):
    (_, units, histogram), (_, true_units, true_histogram) = analysed
    _, gaps = seat_tests(units)
    _, true_gaps = seat_tests(true_units)
    keys = ["players", "seat", "other_seat"]
    for value in ("win_gap", "score_gap"):
        joined = gaps.join(true_gaps.select(*keys, pl.col(value).alias("true")), on=keys)
        joined = joined.with_columns(covered=(pl.col(f"{value}_low") <= pl.col("true"))
                                     & (pl.col("true") <= pl.col(f"{value}_high")))
        family = joined.group_by("rules").agg(pl.col("covered").all())["covered"].mean()
        assert LOW <= family <= HIGH, (value, family)


def test_strategy_gap_and_head_to_head_cover(analysed, batches, truth):
    (lazy, units, histogram), (true_lazy, _, _) = analysed
    from sim.stats.seats import strategy_mix_is_balanced

    gaps = strategy_gaps(units, strategy_mix_is_balanced(histogram))
    assert (gaps["best"] == "a").mean() > 0.9
    covered = (gaps["score_gap_low"] <= 1.0) & (1.0 <= gaps["score_gap_high"])
    assert LOW <= covered.mean() <= HIGH
    matrix = head_to_head(lazy)
    true_matrix = head_to_head(true_lazy)
    coverage = _coverage(matrix, true_matrix.drop("rules"), ["players", "strategy", "opponent"],
                         "ahead_rate")
    assert LOW <= coverage <= HIGH


def test_token_effect_covers_the_planted_worth(analysed, truth):
    (lazy, _, _), _ = analysed
    effect = role_turn_effect(lazy)
    covered = (effect["score_gap_low"] <= 0.3) & (0.3 <= effect["score_gap_high"])
    assert LOW <= covered.mean() <= HIGH


def test_tile_effects_cover(analysed):
    (lazy, _, _), _ = analysed
    impact = removed_item_effect(lazy)
    truths = {tile: true_tile_effect(DESIGN, tile) for tile in range(2, 26)}
    impact = impact.with_columns(true=pl.col("tile").replace_strict(truths))
    covered = (impact["effect_low"] <= impact["true"]) & (impact["true"] <= impact["effect_high"])
    assert LOW <= covered.mean() <= HIGH


def test_light_tile_means_cover(analysed):
    (lazy, _, _), (true_lazy, _, _) = analysed
    table, _ = count_effect(lazy)
    true_table, _ = count_effect(true_lazy)
    table = table.filter(pl.col("deals") >= 20)
    coverage = _coverage(table, true_table.drop("rules"), ["players", "light_tiles_drawn"],
                         "mean")
    assert LOW <= coverage <= HIGH


def test_icc_intervals_cover(analysed):
    (lazy, _, _), _ = analysed
    variance = deal_variance(lazy)
    icc = true_icc(DESIGN)
    for seat_rows in (pl.col("seat").is_not_null(), pl.col("seat").is_null()):
        part = variance.filter(seat_rows)
        covered = (part["icc_low"] <= icc) & (icc <= part["icc_high"])
        assert LOW <= covered.mean() <= HIGH, covered.mean()


# --- the fairness verdict --------------------------------------------------------------------

MARGIN = 0.02


def _verdicts(probabilities: np.ndarray, games: int, batches: int, seed: int) -> list[str]:
    """Fairness verdicts of ``batches`` batches of ``games`` games each, whose winner is drawn
    from ``probabilities`` (one per seat); each game is its own cluster."""
    generator = np.random.default_rng(seed)
    seats = probabilities.size
    matrix, _ = pairwise_contrasts(seats)
    verdicts = []
    for _ in range(batches):
        winners = generator.choice(seats, size=games, p=probabilities)
        wins = np.zeros((games, seats))
        wins[np.arange(games), winners] = WIN_SCALE
        means = ratio_means(wins / WIN_SCALE, np.ones((games, seats)))
        gaps = contrast_intervals(means, matrix)
        verdicts.append(equivalence_verdict(gaps.low, gaps.high, MARGIN))
    return verdicts


def test_a_gap_at_the_margin_is_rarely_called_fair():
    at_margin = np.array([0.26, 0.25, 0.25, 0.24])  # seat 1 - seat 4 = 2 points exactly
    for games in (2_000, 20_000, 80_000):
        verdicts = _verdicts(at_margin, games, 200, seed=games)
        assert verdicts.count("fair") / len(verdicts) <= 0.05, games


def test_fair_seats_are_called_fair_more_often_as_games_grow():
    equal = np.full(4, 0.25)
    shares = [_verdicts(equal, games, 100, seed=games).count("fair") / 100
              for games in (2_000, 8_000, 32_000)]
    assert shares[0] <= shares[1] <= shares[2]
    assert shares[0] < 0.5 and shares[2] >= 0.95


def test_verdict_words():
    assert equivalence_verdict([-0.01, 0.0], [0.01, 0.015], 0.02) == "fair"
    assert equivalence_verdict([0.021, -0.01], [0.05, 0.01], 0.02) == "unfair"
    assert equivalence_verdict([-0.03, 0.0], [0.01, 0.01], 0.02) == "undecided"
    assert equivalence_verdict([np.nan], [np.nan], 0.02) == "undecided"


# --- Bradley-Terry ratings (sim tournament) --------------------------------------------------


def test_rating_intervals_cover():
    """Three strategies of known strengths meet 4 times per pair in each of 300 deals; the
    deal-bootstrap interval of each Elo rating covers the truth 95% of the time."""
    from sim.tournament import elo_ratings, rating_intervals

    strength = np.array([1.0, 1.6, 2.5])
    truth = elo_ratings(strength)
    generator = np.random.default_rng(31)
    deals, meetings, covered = 300, 4, []
    for _ in range(400):
        pair_sum = np.zeros((deals, 3, 3))
        pair_count = np.zeros((deals, 3, 3))
        for a in range(3):
            for b in range(a + 1, 3):
                won = generator.binomial(meetings, strength[a] / (strength[a] + strength[b]),
                                         deals)
                pair_sum[:, a, b], pair_sum[:, b, a] = won, meetings - won
                pair_count[:, a, b] = pair_count[:, b, a] = meetings
        low, high = rating_intervals(pair_sum, pair_count)
        covered.extend((low <= truth) & (truth <= high))
    assert LOW <= np.mean(covered) <= HIGH, np.mean(covered)
