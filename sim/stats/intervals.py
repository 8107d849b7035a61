"""The variance-components formulas (one-way random effects, ICC) and the games a precision
needs. Cluster-robust means and contrasts are in ``sim.stats.clustered``; the distributions
come from scipy.stats.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

CONFIDENCE = 0.95


def two_sided_z(confidence: float = CONFIDENCE) -> float:
    """The z such that a standard normal lies within +-z with probability ``confidence``."""
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


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

    f_low = ratio / float(stats.f.ppf(1.0 - alpha / 2.0, df1, df2))
    f_high = ratio * float(stats.f.ppf(1.0 - alpha / 2.0, df2, df1))
    return OneWayVariance(df_between, df_within, n0, ms_between, ms_within, between, ms_within,
                          icc_of(ratio), icc_of(f_low), icc_of(f_high))


def games_for_precision(per_game_variance: float, half_width: float,
                        confidence: float = CONFIDENCE) -> float:
    """Games needed for a ``confidence`` interval of +-``half_width``: (z sigma / h)^2, where
    sigma^2 is the variance contributed per game (the squared standard error times games)."""
    return (two_sided_z(confidence) ** 2) * per_game_variance / half_width ** 2
