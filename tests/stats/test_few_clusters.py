"""Few clusters: the seat test keeps its level and the seat-gap family its coverage with 4, 10
and 30 clusters, through the project's own functions (``ratio_means``, ``equal_means_test``,
``contrast_intervals`` over ``pairwise_contrasts``: the seat-gap path of the reports).

The synthetic null: 4 seats, every cluster (a deal, or a shard of an old summary store) has
its own seat win probabilities, exchangeable over seats (softmax of N(0, 0.3^2) logits), so
the seats share a cluster effect and no seat is better on average. Clusters hold 800 games, or
unequal numbers (uniform 500 to 1,100). The Hotelling form is exact for equal clusters; very
unequal ones lower the effective number of clusters (one cluster a quarter of three others
rejects about 7.7% at 4 clusters, 6% at 10), which the stores rarely make: deals have equal
replicates and shards equal games, all but the last.

The bands: the size within 5 +- 2% and the family coverage within 95 +- 2.5%, as the issue
asks; the standard error of a measured rate is 0.5% (size, 2,000 replications) and 0.9%
(coverage, 600), so a correct method passes and the old formulas fail (measured: size 40% at 4
clusters, 11-12% at 10; coverage 85% at 4 clusters).
"""

import numpy as np
import pytest
from scipy import stats

from sim.stats.clustered import (
    _max_abs_normal_quantile,
    contrast_intervals,
    equal_means_test,
    normal_critical,
    pairwise_contrasts,
    ratio_means,
    simultaneous_critical,
    t_critical,
)

SEATS = 4
GAPS, _ = pairwise_contrasts(SEATS)
SIZE_REPLICATIONS = 2000
COVERAGE_REPLICATIONS = 600


def null_seat_means(rng: np.random.Generator, clusters: int, unequal: bool):
    """Seat win rates of one synthetic batch with no seat effect (see the module docstring)."""
    games = rng.integers(500, 1101, clusters) if unequal else np.full(clusters, 800)
    logits = 0.3 * rng.standard_normal((clusters, SEATS))
    chances = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    wins = np.array([rng.multinomial(n, p) for n, p in zip(games, chances, strict=True)])
    return ratio_means(wins.astype(float), np.repeat(games[:, None], SEATS, axis=1).astype(float))


def _old_p_value(means) -> float:
    """The former test: F = W / q on (q, C - 1) degrees of freedom."""
    test = equal_means_test(means)
    q, clusters = test.numerator_df, means.clusters
    wald = test.statistic * q * (clusters - 1) / (clusters - q)
    return float(stats.f.sf(wald / q, q, clusters - 1))


def _old_covers(means) -> bool:
    """The former family interval (normal max-|Z| quantile scaled by t/z) covers every gap."""
    covariance = GAPS @ means.covariance @ GAPS.T
    se = np.sqrt(np.diag(covariance))
    correlation = covariance / se[:, None] / se[None, :]
    key = tuple((np.round(correlation * 20.0) / 20.0).ravel().tolist())
    critical = (_max_abs_normal_quantile(key, len(se), 0.95) * t_critical(means.clusters)
                / normal_critical())
    return bool((np.abs(GAPS @ means.means) <= critical * se).all())


@pytest.mark.parametrize("unequal", [False, True], ids=["equal", "unequal"])
@pytest.mark.parametrize("clusters", [4, 10, 30])
def test_seat_test_rejects_five_percent_under_the_null(clusters, unequal):
    rng = np.random.default_rng(100 + clusters + 7 * unequal)
    p_values = [equal_means_test(null_seat_means(rng, clusters, unequal)).p_value
                for _ in range(SIZE_REPLICATIONS)]
    size = np.mean(np.array(p_values) < 0.05)
    assert 0.03 <= size <= 0.07, size


def test_the_old_f_test_rejects_far_too_often_with_four_clusters():
    """The F(q, C - 1) form the reports used: the test above can fail."""
    rng = np.random.default_rng(104)
    old = [_old_p_value(null_seat_means(rng, 4, False)) < 0.05 for _ in range(SIZE_REPLICATIONS)]
    assert np.mean(old) > 0.25


def test_hotelling_form_and_its_degrees_of_freedom():
    """With equal clusters the test is Hotelling's one-sample T^2 on the per-cluster seat
    differences, F = (C - q) / (q (C - 1)) T^2 on (q, C - q) degrees of freedom."""
    rng = np.random.default_rng(3)
    clusters, games = 6, 800
    wins = rng.multinomial(games, np.full(SEATS, 0.25), size=clusters).astype(float)
    test = equal_means_test(ratio_means(wins, np.full((clusters, SEATS), float(games))))
    assert (test.numerator_df, test.denominator_df) == (3, 3)
    differences = (wins[:, :3] - wins[:, 3:]) / games
    mean = differences.mean(axis=0)
    t_squared = clusters * mean @ np.linalg.solve(np.cov(differences, rowvar=False), mean)
    f_value = (clusters - 3) / (3 * (clusters - 1)) * t_squared
    assert test.statistic == pytest.approx(f_value, rel=1e-9)
    assert test.p_value == pytest.approx(stats.f.sf(f_value, 3, 3), rel=1e-9)


def test_no_test_with_no_more_clusters_than_restrictions():
    rng = np.random.default_rng(5)
    for clusters in (2, 3):
        test = equal_means_test(null_seat_means(rng, clusters, False))
        assert np.isnan(test.statistic) and np.isnan(test.p_value)


@pytest.mark.slow
@pytest.mark.parametrize("clusters", [4, 10, 30])
def test_seat_gap_family_covers_at_the_nominal_rate(clusters):
    rng = np.random.default_rng(200 + clusters)
    covered, old = [], []
    for replication in range(COVERAGE_REPLICATIONS):
        means = null_seat_means(rng, clusters, unequal=replication % 2 == 1)
        gaps = contrast_intervals(means, GAPS)
        covered.append(bool(((gaps.low <= 0.0) & (0.0 <= gaps.high)).all()))
        old.append(_old_covers(means))
    assert 0.925 <= np.mean(covered) <= 0.975, np.mean(covered)
    if clusters == 4:
        assert np.mean(old) < 0.9  # the former scaling covers too little: this test can fail


def test_simultaneous_critical_is_reproducible_and_continuous():
    covariance = GAPS @ GAPS.T
    se = np.sqrt(np.diag(covariance))
    correlation = covariance / se[:, None] / se[None, :]
    values = [simultaneous_critical(correlation, c) for c in (4, 10, 30, 199, 200, 5000)]
    assert values == sorted(values, reverse=True)  # fewer clusters, wider intervals
    assert values[3] == pytest.approx(values[4], abs=0.01)  # the simulated and scaled forms meet
    _max_abs_normal_quantile.cache_clear()
    assert simultaneous_critical(correlation, 10) == values[1]
    # One contrast: the ordinary t value.
    assert simultaneous_critical(np.ones((1, 1)), 4) == pytest.approx(stats.t.ppf(0.975, 3))


def test_report_lines_for_few_units_and_missing_intervals():
    from sim.report.findings import format_p_value, percent_range
    from sim.report.numbers import few_units_warning, percent_ci
    from sim.stats.clustered import MIN_VERDICT_CLUSTERS

    line = few_units_warning("4 players", 4, "shard", MIN_VERDICT_CLUSTERS)
    assert line.startswith("4 players: only 4 shards as independent units (fewer than 10)")
    assert "3 degrees of freedom" in line and "no seat or card verdict" in line
    assert "1 degree of freedom" in few_units_warning("2 players", 2, "deal", 10)
    assert few_units_warning("4 players", MIN_VERDICT_CLUSTERS, "deal", 10) is None
    assert percent_ci(0.25, None, None) == "25.0% (no interval: fewer than 2 independent units)"
    assert percent_ci(0.0, 0.0, 0.004) == "0.0% (0.0–0.4%)"
    assert percent_range(float("nan"), 0.3) == "no interval"
    assert format_p_value(float("nan")).startswith("no p-value")


def test_a_family_with_no_more_clusters_than_contrasts_has_no_interval():
    """Two shards estimate a covariance of rank one: the pairwise seat gaps then had intervals
    of zero width ("3.4 (3.4 to 3.4)"). With no more clusters than independent contrasts the
    family gets no interval (NaN bounds); with one more it gets finite, positive-width ones."""
    generator = np.random.default_rng(11)
    matrix, _ = pairwise_contrasts(4)  # 6 pairs, 3 independent
    for clusters, expected in ((2, False), (3, False), (4, True), (10, True)):
        values = generator.normal(50.0, 5.0, (clusters, 4))
        counts = np.full((clusters, 4), 100.0)
        family = contrast_intervals(ratio_means(values, counts), matrix)
        finite = bool(np.isfinite(family.low).all() and np.isfinite(family.high).all())
        assert finite is expected, clusters
        if expected:
            assert (family.high - family.low > 0).all()
