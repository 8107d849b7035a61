"""The few probability distributions the reports need, without scipy.

- standard normal quantile: ``statistics.NormalDist`` (exact to double precision);
- chi-square survival function: the regularized upper incomplete gamma function, by its power
  series or its continued fraction (Numerical Recipes, 3rd ed., section 6.2);
- F distribution function and quantile: the regularized incomplete beta function by its
  continued fraction (modified Lentz; Numerical Recipes section 6.4), inverted by bisection.
"""

from __future__ import annotations

import math
from functools import lru_cache
from statistics import NormalDist

_STANDARD_NORMAL = NormalDist()
_EPSILON = 1e-15
_TINY = 1e-300


def normal_quantile(probability: float) -> float:
    """The ``probability`` quantile of the standard normal distribution."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    return _STANDARD_NORMAL.inv_cdf(probability)


def normal_sf(z: float) -> float:
    """P(Z > z) for a standard normal Z."""
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def two_sided_z(confidence: float = 0.95) -> float:
    """The z such that a standard normal lies within +-z with probability ``confidence``."""
    return normal_quantile(0.5 + confidence / 2.0)


def _lower_gamma_series(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its power series (good for x < a + 1)."""
    term = 1.0 / a
    total = term
    denominator = a
    for _ in range(100_000):
        denominator += 1.0
        term *= x / denominator
        total += term
        if abs(term) < abs(total) * _EPSILON:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_gamma_fraction(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by its continued fraction (x >= a + 1)."""
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi_square_sf(statistic: float, degrees_of_freedom: int) -> float:
    """P(X > statistic) for X chi-square with ``degrees_of_freedom`` (the test's p-value)."""
    if degrees_of_freedom <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {degrees_of_freedom}")
    if statistic <= 0.0:
        return 1.0
    a, x = degrees_of_freedom / 2.0, statistic / 2.0
    if x < a + 1.0:
        return 1.0 - _lower_gamma_series(a, x)
    return _upper_gamma_fraction(a, x)


def _beta_fraction(a: float, b: float, x: float) -> float:
    """Continued fraction of the incomplete beta function (modified Lentz)."""
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = _TINY if abs(d) < _TINY else d
    d = 1.0 / d
    h = d
    # Converges in O(sqrt(max(a, b))) steps; the cap covers degrees of freedom in the tens of
    # millions.
    for m in range(1, 200_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = _TINY if abs(d) < _TINY else d
        c = 1.0 + aa / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPSILON:
            break
    return h


def regularized_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                 + a * math.log(x) + b * math.log1p(-x))
    front = math.exp(log_front)
    # The fraction converges fast on this side of the mean; use the symmetry otherwise.
    if x < (a + 1.0) / (a + b + 2.0):
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def f_cdf(value: float, numerator_df: float, denominator_df: float) -> float:
    """P(F <= value) for F with (``numerator_df``, ``denominator_df``) degrees of freedom."""
    if value <= 0.0:
        return 0.0
    d1, d2 = numerator_df, denominator_df
    return regularized_beta(d1 * value / (d1 * value + d2), d1 / 2.0, d2 / 2.0)


@lru_cache(maxsize=4096)  # the same degrees of freedom recur across a report's groups
def f_quantile(probability: float, numerator_df: float, denominator_df: float) -> float:
    """The ``probability`` quantile of the F distribution, by bisection on its beta variable."""
    if not 0.0 < probability < 1.0:
        raise ValueError(f"probability must be in (0, 1), got {probability}")
    d1, d2 = numerator_df, denominator_df
    low, high = 0.0, 1.0
    # F = (d2 / d1) t / (1 - t) with t ~ Beta(d1/2, d2/2); 80 halvings reach double precision.
    for _ in range(80):
        middle = 0.5 * (low + high)
        if regularized_beta(middle, d1 / 2.0, d2 / 2.0) < probability:
            low = middle
        else:
            high = middle
    t = 0.5 * (low + high)
    return d2 * t / (d1 * (1.0 - t))
