"""Cluster-robust means, contrasts and tests: the one model of the design every interval uses.

Player-games are not independent: the seats of one game share it, and the replays of one deal
share the deal. The independent unit (the *cluster*) is the deal in the rows store (a deal played
once is one game) and the shard in the summary store (shards hold disjoint games).

Every mean the reports show is a ratio over player-games, R_k = sum_c Y_ck / sum_c X_ck, where
Y_ck sums the value (score, win share, ...) and X_ck counts the player-games of group k in
cluster c. Its linearised (sandwich, CR1) covariance over C clusters is::

    u_ck = (Y_ck - R_k X_ck) / X_k            with X_k = sum_c X_ck
    V_kl = C / (C - 1) * sum_c u_ck u_cl

which counts every correlation inside a cluster (seats of a game, replays of a deal) and assumes
none between clusters. It is the cluster-robust variance of the intercept of a regression of the
value on a constant, one regression per group (statsmodels ``cov_type="cluster"`` gives the same
up to its (N - 1) / (N - K) factor, which is 1 here). Intervals use Student's t with C - 1
degrees of freedom: close to normal with thousands of deals, honest with a handful of shards.

A contrast a'R (a seat gap, a difference between strategies) has variance a'Va. A family of
contrasts from which one is picked after looking (the largest seat gap) gets *simultaneous*
intervals: the critical value c with P(max_j |Z_j| / sd_j <= c) = confidence for
Z ~ N(0, A V A'), the max-|t| method (Hothorn, Bretz & Westfall 2008), found by a seeded Monte
Carlo so that a report is byte-reproducible. A test that several means are equal is the Wald
test on their differences, in its F form (F = W / q on q and C - 1 degrees of freedom).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import polars as pl
from scipy import stats

CONFIDENCE = 0.95
# Win shares are 1/k for a win shared by k seats; scaled by lcm(1..12) they sum exactly as
# integers, so every reduction of them gives the same bits whatever the order.
WIN_SCALE = 27720
# Below this many clusters (deals, or shards of an old summary store) no verdict is given: the
# covariance of a handful of cluster sums is too noisy for a test or an equivalence call to hold
# its stated level, so a report says so in one line instead.
MIN_VERDICT_CLUSTERS = 10
_MONTE_CARLO_DRAWS = 100_000
_MONTE_CARLO_SEED = 20261201


def t_critical(clusters: int | np.ndarray, confidence: float = CONFIDENCE):
    """Two-sided Student-t critical value on ``clusters - 1`` degrees of freedom (NaN below 2)."""
    clusters = np.asarray(clusters, dtype=float)
    with np.errstate(invalid="ignore"):
        value = stats.t.ppf(0.5 + confidence / 2.0, np.where(clusters >= 2, clusters - 1, np.nan))
    return float(value) if value.ndim == 0 else value


def normal_critical(confidence: float = CONFIDENCE) -> float:
    """Two-sided standard normal critical value (1.96 for 95%)."""
    return float(stats.norm.ppf(0.5 + confidence / 2.0))


@dataclass(frozen=True)
class RatioMeans:
    """K ratio means over the same clusters with their cluster-robust covariance."""

    means: np.ndarray  # (K,)
    covariance: np.ndarray  # (K, K)
    counts: np.ndarray  # (K,) player-games (the denominators)
    clusters: int

    @property
    def standard_errors(self) -> np.ndarray:
        """Standard error of each mean."""
        return np.sqrt(np.maximum(np.diag(self.covariance), 0.0))


def ratio_means(values: np.ndarray, counts: np.ndarray) -> RatioMeans:
    """Ratio means R_k and their CR1 covariance from per-cluster sums ``values`` and ``counts``,
    both (C clusters, K groups); see the module docstring."""
    values = np.asarray(values, dtype=float)
    counts = np.asarray(counts, dtype=float)
    clusters = values.shape[0]
    totals = counts.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = values.sum(axis=0) / totals
        residuals = (values - means[None, :] * counts) / totals[None, :]
    if clusters < 2:
        covariance = np.full((means.size, means.size), np.nan)
    else:
        covariance = clusters / (clusters - 1.0) * (residuals.T @ residuals)
    return RatioMeans(means, covariance, totals, clusters)


def simultaneous_critical(correlation: np.ndarray, clusters: int,
                          confidence: float = CONFIDENCE) -> float:
    """The max-|t| critical value for contrasts with the given correlation matrix.

    One contrast gets the ordinary t value. For several, c solves P(max_j |Z_j| <= c) =
    confidence with Z ~ N(0, correlation), by a seeded Monte Carlo of 100,000 draws (error about
    0.005 on c), then is widened by the ratio of the t to the normal quantile for the clusters'
    degrees of freedom.
    """
    correlation = np.asarray(correlation, dtype=float)
    if correlation.shape[0] <= 1:
        return t_critical(clusters, confidence)
    # Correlations rounded to 0.05 change c by less than 0.005, and let a report or a sweep with
    # many panels of the same design reuse one draw.
    key = tuple((np.round(correlation * 20.0) / 20.0).ravel().tolist())
    critical = _max_abs_normal_quantile(key, correlation.shape[0], confidence)
    return critical * t_critical(clusters, confidence) / normal_critical(confidence)


@lru_cache(maxsize=256)
def _max_abs_normal_quantile(correlation_key: tuple, size: int, confidence: float) -> float:
    """The ``confidence`` quantile of max_j |Z_j| for Z ~ N(0, R), R given rounded and flat."""
    correlation = np.array(correlation_key).reshape(size, size)
    # A singular correlation (contrasts that are linear combinations of others) is fine for
    # sampling: draw through the eigen-decomposition.
    eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    root = eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))[None, :]
    generator = np.random.default_rng(_MONTE_CARLO_SEED)
    draws = generator.standard_normal((_MONTE_CARLO_DRAWS, size)) @ root.T
    return float(np.quantile(np.abs(draws).max(axis=1), confidence))


@dataclass(frozen=True)
class ContrastIntervals:
    """Estimates of contrasts A R with standard errors and (simultaneous) intervals."""

    estimates: np.ndarray
    standard_errors: np.ndarray
    low: np.ndarray
    high: np.ndarray
    critical: float


def contrast_intervals(means: RatioMeans, matrix: np.ndarray, confidence: float = CONFIDENCE,
                       simultaneous: bool = True) -> ContrastIntervals:
    """Intervals for the contrasts ``matrix @ means.means`` (one row of ``matrix`` each):
    simultaneous over the rows (max-|t|) or one at a time."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    estimates = matrix @ means.means
    covariance = matrix @ means.covariance @ matrix.T
    standard_errors = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    if simultaneous and matrix.shape[0] > 1:
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(standard_errors > 0, 1.0 / standard_errors, 0.0)
        correlation = covariance * scale[:, None] * scale[None, :]
        np.fill_diagonal(correlation, 1.0)
        critical = simultaneous_critical(correlation, means.clusters, confidence)
    else:
        critical = t_critical(means.clusters, confidence)
    half = critical * standard_errors
    return ContrastIntervals(estimates, standard_errors, estimates - half, estimates + half,
                             float(critical))


def pairwise_contrasts(groups: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """The matrix of all differences R_i - R_j (i < j) and the pairs (i, j) of its rows."""
    pairs = [(i, j) for i in range(groups) for j in range(i + 1, groups)]
    matrix = np.zeros((len(pairs), groups))
    for row, (i, j) in enumerate(pairs):
        matrix[row, i], matrix[row, j] = 1.0, -1.0
    return matrix, pairs


@dataclass(frozen=True)
class WaldTest:
    """A cluster-robust Wald test in F form: statistic, degrees of freedom, p-value."""

    statistic: float
    numerator_df: int
    denominator_df: int
    p_value: float


def equal_means_test(means: RatioMeans) -> WaldTest:
    """Wald test that all K means are equal: W = d' (A V A')^+ d for the K - 1 differences
    d = A R from the last mean, F = W / (K - 1) on (K - 1, C - 1) degrees of freedom.

    The pseudo-inverse keeps the test valid when the means are tied by construction (seats'
    win shares sum to 1 in every game, so one difference is implied by the others' sum only
    through the covariance, never exactly singular unless a seat never varies).
    """
    k = means.means.size
    if k < 2 or means.clusters < 2:
        return WaldTest(float("nan"), max(k - 1, 0), max(means.clusters - 1, 0), float("nan"))
    matrix = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    difference = matrix @ means.means
    covariance = matrix @ means.covariance @ matrix.T
    rank = np.linalg.matrix_rank(covariance)
    if rank == 0:
        return WaldTest(float("nan"), k - 1, means.clusters - 1, float("nan"))
    wald = float(difference @ np.linalg.pinv(covariance) @ difference)
    statistic = wald / rank
    p_value = float(stats.f.sf(statistic, rank, means.clusters - 1))
    return WaldTest(statistic, int(rank), means.clusters - 1, p_value)


def cluster_matrix(units: pl.DataFrame, group: str, columns: tuple[str, ...],
                   cluster: str = "cluster",
                   groups: list | None = None) -> tuple[list, dict[str, np.ndarray]]:
    """Pivot per-(cluster, group) sums into (C, K) arrays, one per column of ``columns``.

    ``groups`` fixes the order of the K groups (default: sorted). Missing cells are 0 (the group
    had no player-game in that cluster).
    """
    labels = sorted(set(units[group].to_list())) if groups is None else list(groups)
    cluster_ids = np.unique(units[cluster].to_numpy())
    row = np.searchsorted(cluster_ids, units[cluster].to_numpy())
    index = {label: k for k, label in enumerate(labels)}
    column = units[group].replace_strict(index, default=-1, return_dtype=pl.Int64).to_numpy()
    keep = column >= 0
    arrays = {}
    for name in columns:
        matrix = np.zeros((cluster_ids.size, len(labels)))
        np.add.at(matrix, (row[keep], column[keep]), units[name].to_numpy().astype(float)[keep])
        arrays[name] = matrix
    return labels, arrays


def grouped_ratio_intervals(units: pl.DataFrame, by: list[str], value: str, count: str,
                            prefix: str, cluster: str = "cluster",
                            confidence: float = CONFIDENCE) -> pl.DataFrame:
    """Per group of ``by``: the ratio mean sum(value) / sum(count) over ``units`` (one row per
    group and cluster, or finer) with its cluster-robust standard error and t interval.

    Returns columns ``by``, ``{prefix}``, ``{prefix}_se``, ``{prefix}_low``, ``{prefix}_high``
    and ``{prefix}_clusters``, sorted by ``by``. The reductions run in numpy over cells sorted by
    (group, cluster), so the bits depend only on the rows' order within a cell (irrelevant for
    integer sums; callers sort float values).
    """
    return grouped_ratio_table(units, by, count, {prefix: value}, cluster, confidence)


def grouped_ratio_table(units: pl.DataFrame, by: list[str], count: str,
                        values: dict[str, str], cluster: str = "cluster",
                        confidence: float = CONFIDENCE) -> pl.DataFrame:
    """``grouped_ratio_intervals`` for several value columns over the same counts at once
    (``values`` maps each output prefix to its value column): the groups and cells are found
    once."""
    keys = units.select(by).unique().sort(by, nulls_last=True)
    if keys.is_empty():
        return keys.with_columns(**{
            name: pl.lit(None, dtype=pl.Float64) for prefix in values for name in
            (prefix, f"{prefix}_se", f"{prefix}_low", f"{prefix}_high")},
            **{f"{prefix}_clusters": pl.lit(None, dtype=pl.Int64) for prefix in values})
    group = (units.select(by).join(keys.with_row_index("_group"), on=by, how="left",
                                   nulls_equal=True, maintain_order="left")
             ["_group"].to_numpy().astype(np.int64))
    cluster_ids, cluster_index = np.unique(units[cluster].to_numpy(), return_inverse=True)
    cells, cell_index = np.unique(group * cluster_ids.size + cluster_index, return_inverse=True)
    x = np.bincount(cell_index, weights=units[count].to_numpy().astype(float))
    group_index = cells // cluster_ids.size
    groups = keys.height
    x_total = np.bincount(group_index, weights=x, minlength=groups)
    clusters = np.bincount(group_index, minlength=groups).astype(float)
    critical = t_critical(clusters, confidence)
    columns = {}
    for prefix, value in values.items():
        y = np.bincount(cell_index, weights=units[value].to_numpy().astype(float))
        y_total = np.bincount(group_index, weights=y, minlength=groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = y_total / x_total
            residual = (y - mean[group_index] * x) / x_total[group_index]
            squares = np.bincount(group_index, weights=residual ** 2, minlength=groups)
            variance = np.where(clusters >= 2, clusters / (clusters - 1.0) * squares, np.nan)
        se = np.sqrt(variance)
        columns.update({
            prefix: pl.Series(mean), f"{prefix}_se": pl.Series(se),
            f"{prefix}_low": pl.Series(mean - critical * se),
            f"{prefix}_high": pl.Series(mean + critical * se),
            f"{prefix}_clusters": pl.Series(clusters.astype(np.int64)),
        })
    return keys.with_columns(**columns)
