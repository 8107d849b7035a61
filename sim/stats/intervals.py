"""The variance-components formulas (one-way random effects, ICC), intervals for proportions
that stay inside [0, 1], and the games a precision needs. Cluster-robust means and contrasts are
in ``sim.stats.clustered``; the distributions come from scipy.stats and statsmodels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats
from statsmodels.stats.proportion import proportion_confint

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


def proportion_interval(estimate, standard_error, clusters, player_games,
                        confidence: float = CONFIDENCE,
                        method: str = "wilson") -> tuple[np.ndarray, np.ndarray]:
    """An interval for a proportion estimated from clustered data that never leaves [0, 1].

    ``estimate`` is the proportion (a win rate, a tie rate, a take rate...), ``standard_error``
    its cluster-robust standard error, ``clusters`` the number of independent units it was
    estimated from and ``player_games`` the number of observations it averages; all may be
    arrays (broadcast together). The Wilson score interval (``method="wilson"``) or the
    Clopper-Pearson one (``"beta"``, Korn & Graubard 1998) is taken at the effective sample size
    n* = p (1 - p) / SE^2 (the design effect folded in) and made wider for the clusters' degrees
    of freedom: n* (z / t_{C-1})^2, which in the Wilson form is the score interval with t in
    place of z. When p is 0 or 1 (or the SE is 0) the data carry no design effect and n* is
    ``player_games``: the interval is then one-sided (0 to a bound, or a bound to 1) rather than
    the +-0 a Wald interval gives.

    n* is not capped at ``player_games`` as Korn & Graubard do for surveys: here a design effect
    below 1 is real, not noise (a strategy in two seats of every game wins in at most one of
    them, so its win rate varies less than independent player-games would: design effect 0.64
    in the coverage test), and the cap made those intervals cover 99% instead of 95%.

    Returns (low, high); NaN where no interval exists (fewer than 2 clusters, no observation,
    a missing estimate). Callers say why, e.g. "no interval: a single deal".
    """
    p, se, c, n = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (
        estimate, standard_error, clusters, player_games)))
    valid = (c >= 2) & (n > 0) & np.isfinite(p) & (p >= 0) & (p <= 1)
    interior = valid & (p > 0) & (p < 1) & np.isfinite(se) & (se > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        effective = np.where(interior, p * (1 - p) / np.where(interior, se, 1.0) ** 2, n)
        t_value = stats.t.ppf(0.5 + confidence / 2.0, np.where(valid, c - 1, 1.0))
        effective = effective * (two_sided_z(confidence) / t_value) ** 2
    count = np.where(valid, p * effective, 0.0)
    nobs = np.where(valid, effective, 1.0)
    low, high = proportion_confint(count, nobs, alpha=1.0 - confidence, method=method)
    # At p = 0 (or 1) the bound is exactly 0 (or 1), not a rounding error away from it.
    low = np.where(valid, np.where(p == 0, 0.0, np.clip(low, 0.0, 1.0)), np.nan)
    high = np.where(valid, np.where(p == 1, 1.0, np.clip(high, 0.0, 1.0)), np.nan)
    return low, high
