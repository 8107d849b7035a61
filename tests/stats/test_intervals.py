"""The formulas: cluster-robust ratio means, contrasts and the Wald test against hand
computations and known truths; the one-way random-effects interval."""

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from sim.stats.clustered import (
    contrast_intervals,
    equal_means_test,
    pairwise_contrasts,
    ratio_means,
    t_critical,
)
from sim.stats.intervals import (
    games_for_precision,
    one_way_random_effects,
    proportion_interval,
)

REPLICATIONS = 2000


def test_ratio_mean_variance_by_hand():
    # Three clusters; group sums y and counts x: R = 12 / 6 = 2.
    y = np.array([[2.0], [4.0], [6.0]])
    x = np.array([[2.0], [1.0], [3.0]])
    fit = ratio_means(y, x)
    assert fit.means[0] == pytest.approx(2.0)
    residuals = (y[:, 0] - 2.0 * x[:, 0]) / 6.0  # (-2, 2, 0) / 6
    assert fit.covariance[0, 0] == pytest.approx(3 / 2 * (residuals ** 2).sum())


def test_ratio_mean_matches_statsmodels_cluster_robust_intercept():
    rng = np.random.default_rng(3)
    clusters = np.repeat(np.arange(300), rng.integers(1, 6, 300))
    values = rng.normal(0, 1, 300)[clusters] + rng.normal(0, 1, clusters.size)
    fit = sm.OLS(values, np.ones(values.size)).fit(cov_type="cluster",
                                                   cov_kwds={"groups": clusters})
    y = np.bincount(clusters, weights=values)[:, None]
    x = np.bincount(clusters).astype(float)[:, None]
    ours = ratio_means(y, x)
    assert ours.means[0] == pytest.approx(fit.params[0])
    # statsmodels adds (N - 1) / (N - K) = 1 for one regressor.
    assert ours.standard_errors[0] == pytest.approx(fit.bse[0], rel=1e-9)


def test_clustered_interval_covers_with_correlated_seats():
    """Four seats share a game effect (correlation 0.5): the pooled mean's interval covers 95%
    of the time, while the one that treats player-games as independent does not."""
    rng = np.random.default_rng(5)
    games, seats = 200, 4
    covered, naive = [], []
    for _ in range(REPLICATIONS):
        scores = rng.normal(0, 1, (games, 1)) + rng.normal(0, 1, (games, seats))
        fit = ratio_means(scores.sum(axis=1, keepdims=True), np.full((games, 1), seats))
        half = t_critical(games) * fit.standard_errors[0]
        covered.append(abs(fit.means[0]) <= half)
        naive.append(abs(fit.means[0]) <= 1.96 * scores.std(ddof=1) / np.sqrt(scores.size))
    assert 0.935 <= np.mean(covered) <= 0.965
    assert np.mean(naive) < 0.85


def test_simultaneous_gaps_cover_every_pair_at_once():
    rng = np.random.default_rng(7)
    truth = np.array([0.3, 0.25, 0.25, 0.2])
    matrix, _ = pairwise_contrasts(4)
    covered = []
    for _ in range(500):
        winners = rng.choice(4, size=800, p=truth)
        wins = np.zeros((800, 4))
        wins[np.arange(800), winners] = 1.0
        gaps = contrast_intervals(ratio_means(wins, np.ones((800, 4))), matrix)
        true_gaps = matrix @ truth
        covered.append(bool(((gaps.low <= true_gaps) & (true_gaps <= gaps.high)).all()))
    assert 0.93 <= np.mean(covered) <= 0.97


def test_wald_test_rejects_five_percent_under_the_null_with_shared_wins():
    rng = np.random.default_rng(9)
    p_values = []
    for _ in range(1000):
        winners = rng.choice(4, size=500)
        shared = rng.random(500) < 0.12  # 12% of games share the win between two seats
        wins = np.zeros((500, 4))
        wins[np.arange(500), winners] = np.where(shared, 0.5, 1.0)
        wins[np.arange(500), (winners + 1) % 4] += np.where(shared, 0.5, 0.0)
        p_values.append(equal_means_test(ratio_means(wins, np.ones((500, 4)))).p_value)
    assert 0.035 <= np.mean(np.array(p_values) < 0.05) <= 0.065


def test_wald_test_detects_a_seat_advantage():
    rng = np.random.default_rng(11)
    detected = []
    for _ in range(200):
        winners = rng.choice(4, size=4000, p=[0.28, 0.25, 0.25, 0.22])
        wins = np.zeros((4000, 4))
        wins[np.arange(4000), winners] = 1.0
        detected.append(equal_means_test(ratio_means(wins, np.ones((4000, 4)))).p_value < 0.05)
    assert np.mean(detected) > 0.95


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


def _rare_event_batch(rng, truth: float, clusters: int, per_cluster: int, icc: float = 0.002):
    """A proportion over ``clusters`` clusters whose own chances vary (beta, intraclass
    correlation ``icc``), as a strategy's rare wins vary from deal to deal."""
    a, b = truth * (1 - icc) / icc, (1 - truth) * (1 - icc) / icc
    successes = rng.binomial(per_cluster, rng.beta(a, b, clusters)).astype(float)
    fit = ratio_means(successes[:, None], np.full((clusters, 1), float(per_cluster)))
    return fit.means[0], fit.standard_errors[0]


@pytest.mark.parametrize(("truth", "clusters", "per_cluster"), [
    (0.002, 4, 1000), (0.002, 10, 500), (0.998, 30, 200), (0.998, 200, 50)])
def test_proportion_interval_stays_in_range_and_covers_near_zero_and_one(truth, clusters,
                                                                         per_cluster):
    """Every bound in [0, 1], and coverage within 95 +- 2.5% (up to 99.5% at 4 clusters, where
    t on 3 degrees of freedom makes it conservative), the band the issue asks of every interval.
    With an expected 10-20 events in 1,000 replications the coverage moves in steps of about a
    point (measured: 98.3%, 93.1%, 94.5%, 95.2% for the four cases). The Wald t interval of the
    same data crosses 0 or 1 (in 5-90% of the batches) and covers 90-94%."""
    rng = np.random.default_rng(int(truth * 1000) + clusters)
    covered, wald_outside = [], 0
    for _ in range(1000):
        estimate, se = _rare_event_batch(rng, truth, clusters, per_cluster)
        low, high = proportion_interval(estimate, se, clusters, clusters * per_cluster)
        assert 0.0 <= low <= estimate <= high <= 1.0
        covered.append(low <= truth <= high)
        half = t_critical(clusters) * se
        wald_outside += bool(estimate - half < 0 or estimate + half > 1)
    upper = 0.995 if clusters == 4 else 0.975
    assert 0.925 <= np.mean(covered) <= upper, np.mean(covered)
    if clusters <= 30:
        assert wald_outside > 50  # the former interval leaves the range: this test can fail


def test_proportion_interval_at_zero_one_and_without_clusters():
    low, high = proportion_interval([0.0, 1.0, 0.25, 0.25, np.nan],
                                    [0.0, 0.0, 0.01, 0.01, 0.01], [20, 20, 1, 20, 20],
                                    [1000, 1000, 1000, 0, 1000])
    # p = 0 and p = 1: one-sided, with n* = the player-games (Wilson with t on 19 df).
    t19 = stats.t.ppf(0.975, 19)
    assert low[0] == 0.0 and high[0] == pytest.approx(t19 ** 2 / (1000 + t19 ** 2))
    assert high[1] == 1.0 and low[1] == pytest.approx(1000 / (1000 + t19 ** 2))
    # A single cluster, no player-game, no estimate: no interval.
    assert np.isnan(low[2:]).all() and np.isnan(high[2:]).all()


def test_proportion_interval_is_the_t_interval_for_a_central_proportion():
    """Far from 0 and 1 with many clusters it is close to estimate +- t * SE."""
    low, high = proportion_interval(0.4, 0.01, 500, 100_000)
    half = t_critical(500) * 0.01
    assert low == pytest.approx(0.4 - half, abs=2e-4)
    assert high == pytest.approx(0.4 + half, abs=2e-4)
