"""The hand-written distributions against published table values and exact special cases."""

import math

import numpy as np
import pytest

from sim.stats.distributions import (
    chi_square_sf,
    f_cdf,
    f_quantile,
    normal_quantile,
    normal_sf,
    regularized_beta,
    two_sided_z,
)


def test_normal_quantiles_match_tables():
    assert normal_quantile(0.975) == pytest.approx(1.959964, abs=1e-6)
    assert normal_quantile(0.5) == 0.0
    assert two_sided_z(0.99) == pytest.approx(2.575829, abs=1e-6)
    assert normal_sf(1.959964) == pytest.approx(0.025, abs=1e-7)


@pytest.mark.parametrize("critical, df", [(3.841459, 1), (5.991465, 2), (7.814728, 3),
                                          (11.070498, 5), (18.307038, 10), (67.504807, 50)])
def test_chi_square_critical_values_give_five_percent(critical, df):
    assert chi_square_sf(critical, df) == pytest.approx(0.05, abs=1e-6)


@pytest.mark.parametrize("statistic", [0.1, 1.0, 4.0, 20.0, 80.0])
def test_chi_square_with_two_df_is_exponential(statistic):
    assert chi_square_sf(statistic, 2) == pytest.approx(math.exp(-statistic / 2), rel=1e-10)


def test_chi_square_edge_cases():
    assert chi_square_sf(0.0, 3) == 1.0
    with pytest.raises(ValueError):
        chi_square_sf(1.0, 0)


@pytest.mark.parametrize("x, a, b, expected", [(0.3, 1.0, 1.0, 0.3), (0.3, 2.0, 1.0, 0.09),
                                               (0.3, 1.0, 3.0, 1 - 0.7 ** 3)])
def test_regularized_beta_closed_forms(x, a, b, expected):
    assert regularized_beta(x, a, b) == pytest.approx(expected, rel=1e-12)


def test_regularized_beta_symmetry():
    for x, a, b in [(0.2, 3.5, 7.0), (0.9, 50.0, 4.0), (0.5, 1000.0, 1200.0)]:
        assert regularized_beta(x, a, b) == pytest.approx(1 - regularized_beta(1 - x, b, a),
                                                          abs=1e-12)


@pytest.mark.parametrize("p, d1, d2, expected", [
    (0.95, 5, 10, 3.325835), (0.975, 1, 1, 647.7890), (0.99, 3, 20, 4.938193),
    (0.95, 1, 30, 4.170877), (0.975, 3, 3_000_000, 9.348404 / 3),  # chi-square(3) / 3 limit
])
def test_f_quantiles_match_tables(p, d1, d2, expected):
    assert f_quantile(p, d1, d2) == pytest.approx(expected, rel=1e-5)


def test_f_quantile_inverts_cdf_and_matches_sampling():
    for p in (0.025, 0.5, 0.975):
        assert f_cdf(f_quantile(p, 7, 19), 7, 19) == pytest.approx(p, abs=1e-10)
    sample = np.random.default_rng(3).f(4, 12, 400_000)
    assert f_quantile(0.9, 4, 12) == pytest.approx(np.quantile(sample, 0.9), rel=0.01)
