"""Cluster-robust means, contrasts and tests: the one model of the design every interval uses.

Player-games are not independent: the seats of one game share it, and the replays of one deal
share the deal. The independent unit (the *cluster*) is the deal (a deal played once is one
game), in the rows store and in the summary store, which keeps per-deal sums; only a summary
batch written before those sums falls back to its shards (they hold disjoint games, but few).

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
intervals: the critical value c with P(max_j |t_j| <= c) = confidence, the max-|t| method
(Hothorn, Bretz & Westfall 2008), where t_j is each contrast over its standard error *estimated
from the C clusters*. With few clusters the estimated covariance is itself noisy, and the normal
max-|Z| quantile scaled by t/z covers too little (87% instead of 95% at 4 clusters), so for
C < 200 clusters c is found by a seeded Monte Carlo of exactly that: the cluster mean
z ~ N(0, R) and an independent Wishart(C - 1, R) covariance W (Bartlett's decomposition, or C - 1
normal vectors when C - 1 is below the rank of R), t_j = z_j / sqrt(W_jj / (C - 1)); this is the
exact law for equal-size clusters with normal cluster sums. From 200 clusters on the normal
max-|Z| quantile times t/z is used: at 200 it differs from the simulated value by 0.005 for 3
groups' pairwise gaps and 0.017 for 8 groups' (under 1% of the interval's width).

A test that several means are equal is Hotelling's T^2 on the cluster contributions in its exact
small-sample F form: with q restrictions (the rank of their covariance) and C clusters the
cluster-robust Wald statistic W equals T^2, and F = (C - q) / (q (C - 1)) W on (q, C - q) degrees
of freedom. The naive W / q on (q, C - 1) rejects a true null 35% of the time at 4 clusters and
10% at 10 (nominal 5%); the Hotelling form holds its level, and no test exists for C <= q.
Below ``MIN_VERDICT_CLUSTERS`` clusters a report gives no verdict at all and says why.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np
import polars as pl
from scipy import stats

from sim.store import WIN_SCALE  # noqa: F401  (the integer unit of a win share, re-exported)

CONFIDENCE = 0.95
# Below this many clusters (deals, or shards of an old summary store) no verdict is given: the
# covariance of a handful of cluster sums is too noisy for a test or an equivalence call to hold
# its stated level, so a report says so in one line instead.
MIN_VERDICT_CLUSTERS = 10
_MONTE_CARLO_DRAWS = 100_000
# From this many clusters on, the normal max-|Z| quantile times t/z is close to simulating the
# estimated covariance (under 1% of the interval's width apart for up to 8 groups' pairs).
SIMULATED_CLUSTERS_BELOW = 200
_CHUNK = 20_000
_WISHART_RANK = 12
# Draws of up to this rank are kept between calls (about 16 MB each).
_KEPT_RANK = 4
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
    """The max-|t| critical value for contrasts with the given correlation matrix whose
    covariance is estimated from ``clusters`` clusters (NaN below 2 clusters).

    One contrast gets the ordinary t value on C - 1 degrees of freedom. For several, c solves
    P(max_j |t_j| <= c) = confidence by a seeded Monte Carlo of 100,000 draws (error about
    0.005 on c) in which each t_j's standard error comes from a covariance estimated on C - 1
    degrees of freedom (see the module docstring); from ``SIMULATED_CLUSTERS_BELOW`` clusters
    on, the normal max-|Z| quantile widened by the ratio of the t to the normal quantile.
    """
    correlation = np.asarray(correlation, dtype=float)
    if correlation.shape[0] <= 1 or clusters < 2:
        return t_critical(clusters, confidence)
    # Correlations rounded to 0.05 change c by less than 0.005, and let a report or a sweep with
    # many panels of the same design reuse one draw.
    key = tuple((np.round(correlation * 20.0) / 20.0).ravel().tolist())
    if clusters < SIMULATED_CLUSTERS_BELOW:
        return _max_abs_t_quantile(key, correlation.shape[0], int(clusters), confidence)
    critical = _max_abs_normal_quantile(key, correlation.shape[0], confidence)
    return critical * t_critical(clusters, confidence) / normal_critical(confidence)


def covariance_critical(covariance: np.ndarray, clusters: int,
                        confidence: float = CONFIDENCE) -> float:
    """``simultaneous_critical`` for estimates with this covariance: their correlation (an
    estimate with no variance counts as uncorrelated with the others)."""
    standard_errors = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(standard_errors > 0, 1.0 / standard_errors, 0.0)
    correlation = covariance * scale[:, None] * scale[None, :]
    np.fill_diagonal(correlation, 1.0)
    return simultaneous_critical(correlation, clusters, confidence)


def _correlation_root(correlation_key: tuple, size: int) -> np.ndarray:
    """B (size x rank) with B B' = R for R given rounded and flat. A singular correlation
    (contrasts that are linear combinations of others) keeps only its positive directions."""
    correlation = np.array(correlation_key).reshape(size, size)
    eigenvalues, eigenvectors = np.linalg.eigh(correlation)
    keep = eigenvalues > 1e-8 * max(float(eigenvalues.max()), 1e-300)
    return eigenvectors[:, keep] * np.sqrt(eigenvalues[keep])[None, :]


@lru_cache(maxsize=256)
def _max_abs_normal_quantile(correlation_key: tuple, size: int, confidence: float) -> float:
    """The ``confidence`` quantile of max_j |Z_j| for Z ~ N(0, R), R given rounded and flat."""
    root = _correlation_root(correlation_key, size)
    draws = np.einsum("nr,jr->nj", _kept_normal_draws(root.shape[1]), root)
    return float(np.quantile(np.abs(draws).max(axis=1), confidence))


@lru_cache(maxsize=4)
def _kept_normal_draws(rank: int) -> np.ndarray:
    """Seeded N(0, I_rank) draws, kept between calls (they depend only on the rank)."""
    return np.random.default_rng(_MONTE_CARLO_SEED).standard_normal((_MONTE_CARLO_DRAWS, rank))


@lru_cache(maxsize=512)
def _max_abs_t_quantile(correlation_key: tuple, size: int, clusters: int,
                        confidence: float) -> float:
    """The ``confidence`` quantile of max_j |z_j| / sqrt(W_jj / (C - 1)) for z ~ N(0, R) and
    W ~ Wishart(C - 1, R) independent: the max-|t| law when R's scale is estimated from C
    clusters. Drawn in the rank-r space of R: z = B u and W = B G B' with u ~ N(0, I_r) and
    G ~ Wishart(C - 1, I_r) (``_rank_space_draws``), so diag(W)_j = sum_rs B_jr B_js G_rs.

    Above ``_WISHART_RANK`` dimensions the draws of G would take seconds; there the contrasts
    share one chi-square scale (the multivariate t on C - 1 degrees of freedom), which is
    close when so many contrasts are compared."""
    root = _correlation_root(correlation_key, size)
    rank = root.shape[1]
    df = clusters - 1
    # The draws depend only on (rank, C): small ones are kept, so the many panels and
    # replications of one design pay only for two matrix products each.
    draws = (_kept_rank_space_draws if rank <= _KEPT_RANK else _rank_space_draws)(rank, df)
    pairs = (root[:, :, None] * root[:, None, :]).reshape(size, rank * rank)
    maxima = []
    for normals, second in draws:
        # Squared statistics (no square roots over every draw); the quantile is rooted once.
        # einsum, not @: these products have an inner size of a few, where a threaded BLAS
        # spends more time starting threads than multiplying (5x slower on a busy machine).
        small = rank <= _KEPT_RANK  # larger inner sizes are worth BLAS's threads
        numerators = np.square(np.einsum("nr,jr->nj", normals, root) if small
                               else normals @ root.T)
        if second.ndim == 1:  # shared chi-square scale (many dimensions)
            maxima.append(numerators.max(axis=1) / second ** 2)
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            variances = np.einsum("nk,jk->nj", second, pairs) if small else second @ pairs.T
            statistics = numerators / variances * df
        maxima.append(np.nanmax(statistics, axis=1))
    return float(np.sqrt(np.quantile(np.concatenate(maxima), confidence)))


def _rank_space_draws(rank: int, df: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded draws, in chunks: u ~ N(0, I_rank) and G ~ Wishart(df, I_rank) flattened
    (rank * rank columns), or for more than ``_WISHART_RANK`` dimensions sqrt(chi2(df) / df)."""
    generator = np.random.default_rng(_MONTE_CARLO_SEED)
    chunks = []
    for start in range(0, _MONTE_CARLO_DRAWS, _CHUNK):
        draws = min(_CHUNK, _MONTE_CARLO_DRAWS - start)
        normals = generator.standard_normal((draws, rank))
        if rank > _WISHART_RANK:
            chunks.append((normals, np.sqrt(generator.chisquare(df, size=draws) / df)))
            continue
        if df >= rank:
            # Bartlett: G = A A' with A lower triangular, A_ii^2 ~ chi2(df - i), A_ij ~ N(0, 1).
            factor = np.zeros((draws, rank, rank))
            rows, columns = np.tril_indices(rank, -1)
            factor[:, rows, columns] = generator.standard_normal((draws, rows.size))
            diagonal = np.arange(rank)
            factor[:, diagonal, diagonal] = np.sqrt(
                generator.chisquare(df - diagonal, size=(draws, rank)))
        else:
            # Fewer degrees of freedom than dimensions: G = F F' from df normal vectors.
            factor = generator.standard_normal((draws, rank, df))
        wishart = factor @ factor.transpose(0, 2, 1)
        chunks.append((normals, wishart.reshape(draws, rank * rank)))
    return chunks


_kept_rank_space_draws = lru_cache(maxsize=4)(_rank_space_draws)


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
    simultaneous over the rows (max-|t|) or one at a time. A simultaneous family over q
    independent contrasts needs more than q clusters; with fewer its bounds are NaN (no
    interval)."""
    matrix = np.atleast_2d(np.asarray(matrix, dtype=float))
    estimates = matrix @ means.means
    covariance = matrix @ means.covariance @ matrix.T
    standard_errors = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    independent = int(np.linalg.matrix_rank(matrix)) if matrix.size else 0
    if simultaneous and independent > 1 and means.clusters <= independent:
        # C cluster sums estimate a covariance of rank at most C - 1: with no more clusters
        # than independent contrasts the family's intervals degenerate (some to zero width),
        # as Hotelling's test does not exist there either. No interval, then.
        nothing = np.full(estimates.shape, np.nan)
        return ContrastIntervals(estimates, standard_errors, nothing, nothing.copy(),
                                 float("nan"))
    if simultaneous and matrix.shape[0] > 1:
        critical = covariance_critical(covariance, means.clusters, confidence)
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
    """Test that all K means are equal: Hotelling's T^2 in its small-sample F form.

    W = d' (A V A')^+ d for the K - 1 differences d = A R from the last mean is the CR1 Wald
    statistic, which equals Hotelling's T^2 of the cluster contributions. With q = the rank of
    A V A' and C clusters, F = (C - q) / (q (C - 1)) W on (q, C - q) degrees of freedom is exact
    for normal cluster sums and keeps the test's level with few clusters, where W / q on
    (q, C - 1) rejects far too often (35% instead of 5% at 4 clusters). No test (NaN) when
    C <= K - 1: the covariance of fewer clusters cannot estimate K - 1 directions.

    The pseudo-inverse keeps the test valid when the means are tied by construction (seats'
    win shares sum to 1 in every game, so one difference is implied by the others' sum only
    through the covariance, never exactly singular unless a seat never varies).
    """
    k = means.means.size
    clusters = means.clusters
    if k < 2 or clusters <= k - 1:
        return WaldTest(float("nan"), max(k - 1, 0), max(clusters - (k - 1), 0), float("nan"))
    matrix = np.hstack([np.eye(k - 1), -np.ones((k - 1, 1))])
    difference = matrix @ means.means
    covariance = matrix @ means.covariance @ matrix.T
    rank = int(np.linalg.matrix_rank(covariance))
    if rank == 0:
        return WaldTest(float("nan"), k - 1, clusters - (k - 1), float("nan"))
    wald = float(difference @ np.linalg.pinv(covariance) @ difference)
    denominator = clusters - rank
    statistic = (clusters - rank) / (rank * (clusters - 1.0)) * wald
    p_value = float(stats.f.sf(statistic, rank, denominator))
    return WaldTest(statistic, rank, denominator, p_value)


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


# --- ratio means from exact sums over clusters ----------------------------------------------------
# A section that reads its rows in chunks of whole deals forms, per chunk, one row per (group,
# cluster) of integer components and keeps only their sums and the sums of their products per
# group (``cluster_gram``, added over the chunks by ``add_cluster_grams``). A ratio mean whose
# count and value are fixed rational combinations of the components then has its cluster-robust
# interval from those sums alone, exactly (``gram_ratio_table``): the numbers of
# ``grouped_ratio_table`` on the per-cluster rows, without holding them.

Combination = Mapping[str, Fraction | int]


def _product(first: str, second: str) -> str:
    return f"{first}*{second}"


def cluster_gram(units: pl.DataFrame, keys: list[str], components: list[str]) -> pl.DataFrame:
    """Per group of ``keys`` of ``units`` (one row per group and cluster, every cluster whole):
    ``clusters`` (its rows), the sum of each integer component and of each product of two,
    as exact Int64 sums."""
    values = {name: pl.col(name).cast(pl.Int64) for name in components}
    return units.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("clusters"),
        *[values[name].sum().alias(name) for name in components],
        *[(values[first] * values[second]).sum().alias(_product(first, second))
          for k, first in enumerate(components) for second in components[k:]])


def add_cluster_grams(parts: list[pl.DataFrame], keys: list[str]) -> pl.DataFrame:
    """The ``cluster_gram`` sums of several chunks added per group (a group's clusters fall in
    one chunk or several; each cluster in one)."""
    parts = [part for part in parts if part.height]
    if not parts:
        return pl.DataFrame()
    return pl.concat(parts, how="diagonal").group_by(keys).agg(pl.all().fill_null(0).sum())


def gram_ratio_table(sums: pl.DataFrame, keys: list[str], count: Combination,
                     values: Mapping[str, Combination],
                     confidence: float = CONFIDENCE) -> pl.DataFrame:
    """``grouped_ratio_table`` from ``add_cluster_grams`` sums: per group of ``keys`` the ratio
    mean of each value over the count (both rational combinations of the components, e.g.
    ``{"wins": Fraction(1, WIN_SCALE)}``) with its cluster-robust t interval, columns
    ``{prefix}``, ``_se``, ``_low``, ``_high`` and ``_clusters``, sorted by ``keys``. Every sum is
    exact; each number is rounded once."""
    # Imported here: sim.stats.variance imports this module.

    sums = sums.sort(keys, nulls_last=True)
    rows = sums.to_dicts()

    def linear(row: dict, weights: Combination) -> Fraction:
        return sum((Fraction(w) * row[name] for name, w in weights.items()), Fraction(0))

    def bilinear(row: dict, left: Combination, right: Combination) -> Fraction:
        total = Fraction(0)
        for a, u in left.items():
            for b, v in right.items():
                total += Fraction(u) * Fraction(v) * row.get(_product(a, b),
                                                             row.get(_product(b, a)))
        return total

    clusters = [row["clusters"] for row in rows]
    x = [linear(row, count) for row in rows]
    xx = [bilinear(row, count, count) for row in rows]
    columns = {}
    for prefix, weights in values.items():
        y = [linear(row, weights) for row in rows]
        found = exact_ratio_intervals(clusters, x, y, xx,
                                      [bilinear(row, count, weights) for row in rows],
                                      [bilinear(row, weights, weights) for row in rows],
                                      confidence)
        # A group that counts nothing: the float division's inf or NaN, as before.
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where([value == 0 for value in x],
                            np.array([float(value) for value in y]) / 0.0, found["mean"])
        columns.update({prefix: pl.Series(mean, dtype=pl.Float64),
                        f"{prefix}_se": pl.Series(found["se"], dtype=pl.Float64),
                        f"{prefix}_low": pl.Series(found["low"], dtype=pl.Float64),
                        f"{prefix}_high": pl.Series(found["high"], dtype=pl.Float64),
                        f"{prefix}_clusters": pl.Series(clusters, dtype=pl.Int64)})
    return sums.select(keys).with_columns(**columns)


def exact_ratio_intervals(clusters: Sequence[int], count: Sequence[Fraction | int],
                          total: Sequence[Fraction | int],
                          count_squares: Sequence[Fraction | int],
                          cross: Sequence[Fraction | int],
                          total_squares: Sequence[Fraction | int],
                          confidence: float) -> dict[str, np.ndarray]:
    """Per group: the ratio mean sum(y) / sum(x) over clusters with its cluster-robust (CR1)
    standard error and t interval on clusters - 1 degrees of freedom, from the exact sums over
    the group's clusters of x, y, x^2, x*y and y^2 (``count``, ``total``, ``count_squares``,
    ``cross``, ``total_squares``) - the numbers ``grouped_ratio_intervals`` gives from one row
    per cluster. Returns arrays ``mean``, ``se``, ``low``, ``high``."""
    means, squares = [], []
    for x, y, xx, xy, yy in zip(count, total, count_squares, cross, total_squares,
                                strict=True):
        x, y = Fraction(x), Fraction(y)
        means.append(float(y / x) if x else float("nan"))
        # sum over clusters of ((y_c - mean x_c) / x)^2, expanded and exact.
        squares.append(float((x * x * yy - 2 * x * y * xy + y * y * xx) / x ** 4) if x
                       else float("nan"))
    groups = np.asarray(clusters, dtype=float)
    mean, square = np.asarray(means, dtype=float), np.asarray(squares, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = np.where(groups >= 2, groups / (groups - 1.0) * square, np.nan)
    se = np.sqrt(variance)
    critical = t_critical(groups, confidence)
    return {"mean": mean, "se": se, "low": mean - critical * se, "high": mean + critical * se}
