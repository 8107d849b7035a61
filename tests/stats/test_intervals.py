"""Intervals and tests cover (or reject) at their nominal rates on simulated data."""

import numpy as np
import pytest

from sim.stats.intervals import (
    equal_shares_test,
    games_for_precision,
    mean_interval,
    multinomial_difference_se,
    one_way_random_effects,
    wilson_interval,
)

REPLICATIONS = 4000


def test_wilson_interval_known_value():
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson_interval(50, 100)
    assert (low, high) == pytest.approx((0.4038, 0.5962), abs=1e-4)


@pytest.mark.parametrize("true_rate", [0.05, 0.25, 0.5])
def test_wilson_interval_covers_at_nominal_rate(true_rate):
    # The exact coverage at n = 1000 is 0.947-0.950 for these rates (smaller n oscillates more).
    rng = np.random.default_rng(11)
    trials = 1000
    successes = rng.binomial(trials, true_rate, REPLICATIONS)
    low, high = wilson_interval(successes, trials)
    coverage = np.mean((low <= true_rate) & (true_rate <= high))
    assert 0.935 <= coverage <= 0.965


def test_mean_interval_covers_at_nominal_rate():
    rng = np.random.default_rng(12)
    samples = rng.normal(5.0, 3.0, (REPLICATIONS, 100))
    low, high = mean_interval(samples.mean(axis=1), samples.std(axis=1, ddof=1), 100)
    assert 0.93 <= np.mean((low <= 5.0) & (5.0 <= high)) <= 0.97


def test_equal_shares_test_rejects_five_percent_under_the_null():
    rng = np.random.default_rng(13)
    wins = rng.multinomial(400, [0.25] * 4, REPLICATIONS)
    p_values = np.array([equal_shares_test(row).p_value for row in wins])
    assert 0.04 <= np.mean(p_values < 0.05) <= 0.06
    assert 0.005 <= np.mean(p_values < 0.01) <= 0.016


def test_equal_shares_test_detects_a_seat_advantage():
    rng = np.random.default_rng(14)
    wins = rng.multinomial(3000, [0.29, 0.25, 0.25, 0.21], 500)
    assert np.mean([equal_shares_test(row).p_value < 0.05 for row in wins]) > 0.95


def test_multinomial_difference_interval_covers_at_nominal_rate():
    rng = np.random.default_rng(15)
    truth = np.array([0.3, 0.25, 0.25, 0.2])
    games = 1000
    rates = rng.multinomial(games, truth, REPLICATIONS) / games
    gap = rates[:, 0] - rates[:, 3]
    se = multinomial_difference_se(rates[:, 0], rates[:, 3], games)
    covered = np.abs(gap - (truth[0] - truth[3])) <= 1.959964 * se
    assert 0.93 <= covered.mean() <= 0.97


def _one_way(data: np.ndarray):
    groups, size = data.shape
    means = data.mean(axis=1)
    ss_between = size * ((means - data.mean()) ** 2).sum()
    ss_within = ((data - means[:, None]) ** 2).sum()
    return one_way_random_effects(ss_between, groups - 1, ss_within, groups * (size - 1), size)


def test_icc_interval_covers_at_nominal_rate():
    rng = np.random.default_rng(16)
    true_icc, groups, size = 0.3, 80, 4
    covered = []
    for _ in range(1000):
        data = (rng.normal(0, np.sqrt(true_icc), (groups, 1))
                + rng.normal(0, np.sqrt(1 - true_icc), (groups, size)))
        fit = _one_way(data)
        covered.append(fit.icc_low <= true_icc <= fit.icc_high)
    assert 0.93 <= np.mean(covered) <= 0.97


def test_icc_estimates_the_variance_components():
    rng = np.random.default_rng(17)
    data = rng.normal(0, 2.0, (4000, 1)) + rng.normal(0, 3.0, (4000, 5))
    fit = _one_way(data)
    assert fit.between == pytest.approx(4.0, rel=0.05)
    assert fit.within == pytest.approx(9.0, rel=0.02)
    assert fit.icc == pytest.approx(4 / 13, abs=0.015)
    assert fit.icc_low < fit.icc < fit.icc_high


def test_games_for_precision_formula():
    assert games_for_precision(100.0, 0.1) == pytest.approx((1.959964 * 10 / 0.1) ** 2, rel=1e-6)
