"""Confidence intervals and tests on plain numbers and numpy arrays.

These are the formulas; the modules beside this one gather the counts and sums from Parquet with
polars and hand them here. Every function is vectorised over numpy arrays where that is natural.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from sim.stats.distributions import chi_square_sf, f_quantile, normal_quantile, two_sided_z

CONFIDENCE = 0.95


def wilson_interval(successes, trials, confidence: float = CONFIDENCE):
    """Wilson score interval for a proportion: ``(low, high)`` arrays.

    With p = successes / n and z the two-sided normal quantile::

        centre = (p + z^2 / 2n) / (1 + z^2 / n)
        half   = z sqrt(p (1 - p) / n + z^2 / 4n^2) / (1 + z^2 / n)

    Shared wins count as fractions of a success; the binomial variance then overstates the true
    one, so the interval is, if anything, a little wide.
    """
    successes = np.asarray(successes, dtype=float)
    trials = np.asarray(trials, dtype=float)
    z = two_sided_z(confidence)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = successes / trials
        scale = 1.0 + z * z / trials
        centre = (p + z * z / (2.0 * trials)) / scale
        half = z * np.sqrt(p * (1.0 - p) / trials + z * z / (4.0 * trials * trials)) / scale
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def mean_interval(mean, standard_deviation, count, confidence: float = CONFIDENCE):
    """Normal-approximation interval ``mean +- z SD / sqrt(n)`` for independent observations."""
    mean = np.asarray(mean, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        half = two_sided_z(confidence) * np.asarray(standard_deviation, float) / np.sqrt(count)
    return mean - half, mean + half


def bonferroni_z(comparisons: int, confidence: float = CONFIDENCE) -> float:
    """Two-sided z for ``comparisons`` simultaneous intervals (Bonferroni): with it every
    interval of the family covers its true value at once with probability >= ``confidence``."""
    return normal_quantile(1.0 - (1.0 - confidence) / (2.0 * max(comparisons, 1)))


def multinomial_difference_se(p_first, p_second, games):
    """Standard error of p_i - p_j when seats i and j are scored in the same ``games`` and at
    most one of them wins each game: Var = (p_i + p_j - (p_i - p_j)^2) / n.

    Shared wins only lower the variance (|W_i - W_j| <= W_i + W_j), so ties keep it an upper
    bound."""
    p_first = np.asarray(p_first, dtype=float)
    p_second = np.asarray(p_second, dtype=float)
    variance = (p_first + p_second - (p_first - p_second) ** 2) / np.asarray(games, dtype=float)
    return np.sqrt(np.maximum(variance, 0.0))


@dataclass(frozen=True)
class ChiSquareTest:
    """A chi-square test: statistic, degrees of freedom and p-value."""

    statistic: float
    degrees_of_freedom: int
    p_value: float


def equal_shares_test(observed) -> ChiSquareTest:
    """Pearson goodness-of-fit test of "every category has the same share" on ``observed``
    counts (here: wins per seat over the same games): sum (O - E)^2 / E with E = total / k and
    k - 1 degrees of freedom."""
    observed = np.asarray(observed, dtype=float)
    expected = observed.sum() / observed.size
    statistic = float(((observed - expected) ** 2 / expected).sum())
    df = observed.size - 1
    return ChiSquareTest(statistic, df, chi_square_sf(statistic, df))


@dataclass(frozen=True)
class OneWayVariance:
    """One-way random-effects decomposition y_ij = mu + a_i + e_ij over groups i.

    ``between`` is the estimated variance of the group effects a_i, ``within`` that of e_ij,
    ``icc`` the intraclass correlation between / (between + within) with its confidence interval.
    """

    df_between: float
    df_within: float
    n0: float
    ms_between: float
    ms_within: float
    between: float
    within: float
    icc: float
    icc_low: float
    icc_high: float


def one_way_random_effects(ss_between: float, df_between: float, ss_within: float,
                           df_within: float, n0: float, confidence: float = CONFIDENCE,
                           interval_df: tuple[float, float] | None = None) -> OneWayVariance:
    """ANOVA estimates and the F-based interval for the intraclass correlation ICC(1).

    MSB = SSB / (a - 1), MSW = SSW / (N - a), sigma_b^2 = (MSB - MSW) / n0, sigma_w^2 = MSW and
    ICC = (F - 1) / (F + n0 - 1) with F = MSB / MSW. The interval (Searle 1971; Shrout & Fleiss
    1979) transforms F_L = F / F_{1-alpha/2}(a-1, N-a) and F_U = F * F_{1-alpha/2}(N-a, a-1) the
    same way. ``n0 = (N - sum n_i^2 / N) / (a - 1)`` is the group size, equal to n when every
    group has n observations; the interval is exact for balanced groups and an approximation for
    unbalanced ones.

    ``interval_df`` = (df between, df within) for the interval when they are smaller than the
    estimate's (a pooled estimate whose parts are correlated): a wider, conservative interval.
    """
    ms_between = ss_between / df_between
    ms_within = ss_within / df_within
    between = (ms_between - ms_within) / n0
    ratio = ms_between / ms_within if ms_within > 0 else float("inf")
    df1, df2 = interval_df if interval_df is not None else (df_between, df_within)
    alpha = 1.0 - confidence

    def icc_of(f: float) -> float:
        return (f - 1.0) / (f + n0 - 1.0) if np.isfinite(f) else 1.0

    f_low = ratio / f_quantile(1.0 - alpha / 2.0, df1, df2)
    f_high = ratio * f_quantile(1.0 - alpha / 2.0, df2, df1)
    return OneWayVariance(df_between, df_within, n0, ms_between, ms_within, between, ms_within,
                          icc_of(ratio), icc_of(f_low), icc_of(f_high))


def games_for_precision(per_game_variance: float, half_width: float,
                        confidence: float = CONFIDENCE) -> float:
    """Games needed for a ``confidence`` interval of +-``half_width``: (z sigma / h)^2, where
    sigma^2 is the variance contributed per game (the squared standard error times games)."""
    return (two_sided_z(confidence) ** 2) * per_game_variance / half_width ** 2
