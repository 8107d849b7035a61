"""The batch cut into its independent units (clusters), with the sums every interval needs.

A cluster is a deal (all its replays and all seats of each): read from the rows in the rows
store, and from the per-deal sums the summary store keeps beside its histograms. A summary batch
written before those sums existed falls back to its shards (which hold disjoint games, so they
are independent, but few). One row per (players, rules, strategy, seat, cluster) with exact
integer sums: ``player_games``, ``score_sum``, ``win_units`` (win shares times ``WIN_SCALE``)
and ``shared_wins``, so every later reduction gives the same bits and both stores give the same
clusters for the same games.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import pairwise

import numpy as np
import polars as pl

from sim.stats.batch import Batch, collect_streaming, rules_label
from sim.stats.clustered import WIN_SCALE, RatioMeans

UNIT_KEYS = ["players", "rules", "strategy", "seat", "cluster"]
SUM_COLUMNS = ("player_games", "score_sum", "win_units", "shared_wins")
# Integers up to 2^53 are exact in a float, and so are sums of them that stay below it.
_EXACT_FLOAT = 2.0 ** 53


def exact_sd(column: str) -> pl.Expr:
    """The sample standard deviation of an integer column, from exact integer sums of the values
    and their squares: the same bits whatever order the rows are reduced in (a float ``std``
    over a parallel group-by is not)."""
    values = pl.col(column).cast(pl.Int64)
    count = pl.len().cast(pl.Float64)
    total = values.sum().cast(pl.Float64)
    squares = (values * values).sum().cast(pl.Float64)
    return pl.when(count > 1).then(
        ((squares - total * total / count) / (count - 1.0)).clip(lower_bound=0.0).sqrt())


def win_units(column: str = "win") -> pl.Expr:
    """A win share (1/k for a win shared by k seats) as an exact integer count of 1/WIN_SCALE."""
    return (pl.col(column).cast(pl.Float64) * WIN_SCALE).round().cast(pl.Int64)


def _unit_sums(batch: Batch, rows: pl.LazyFrame | None = None,
               files: tuple | None = None) -> pl.LazyFrame:
    """The lazy per-(players, rules, strategy, seat, cluster) sums of ``cluster_units``, over
    ``rows`` or the batch's files (``files``: a chunk of them)."""
    sums = dict(player_games=pl.col("player_games").sum(), score_sum=pl.col("score_sum").sum(),
                win_units=pl.col("win_units").sum(), shared_wins=pl.col("shared_wins").sum())
    if batch.is_rows:
        source = rows if rows is not None else batch.scan(["deal_id", "players", "rules",
                                                            "strategy", "seat", "score", "win"],
                                                           files=files)
        units = source.group_by(["players", "rules", "strategy", "seat",
                                 pl.col("deal_id").alias("cluster")]).agg(
            player_games=pl.len().cast(pl.Int64),
            score_sum=pl.col("score").cast(pl.Int64).sum(),
            win_units=win_units().sum(),
            shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
    elif batch.has_deal_sums:
        # A deal whose replicates fall in two shards is one cluster: sum over the deal id.
        units = batch.scan_deal_sums(files).group_by(
            ["players", "rules", "strategy", "seat", pl.col("deal_id").alias("cluster")]).agg(
            **sums)
    else:
        columns = ["players", "seat", "strategy", "score", "count", "win_sum", "shared_wins",
                   *batch.varying_rules]
        frame = batch.scan_by_shard(columns).with_columns(
            rules_label(batch.varying_rules)).rename({"shard": "cluster"})
        units = frame.group_by(["players", "rules", "strategy", "seat", "cluster"]).agg(
            player_games=pl.col("count").cast(pl.Int64).sum(),
            score_sum=(pl.col("score").cast(pl.Int64) * pl.col("count").cast(pl.Int64)).sum(),
            win_units=(pl.col("win_sum").cast(pl.Float64) * WIN_SCALE).round().cast(pl.Int64)
            .sum(),
            shared_wins=pl.col("shared_wins").cast(pl.Int64).sum())
    # Not sorted: every sum here is an integer, so later reductions are exact in any order.
    return units.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                              pl.col("strategy").cast(pl.String),
                              pl.col("cluster").cast(pl.Int64),
                              *(pl.col(c).cast(pl.Int64) for c in SUM_COLUMNS))


def cluster_units(batch: Batch, rows: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per (players, rules, strategy, seat, cluster): ``player_games``, ``score_sum``,
    ``win_units`` and ``shared_wins``; ``cluster`` is the deal (``batch.cluster_unit``), or the
    shard of a summary store without per-deal sums. One row per deal and cell: the report uses
    ``cluster_moments``, whose memory does not grow with the deals."""
    units = _unit_sums(batch, rows)
    # The rows are streamed from the shards: only the per-deal sums are held.
    return collect_streaming(units) if batch.is_rows else units.collect()


def _exact_gram(values: np.ndarray) -> np.ndarray:
    """values' values of an integer matrix, as exact Python integers (an object array).

    While every product and partial sum stays below 2^53 a float product is exact in any order
    (and fast); larger sums are split by rows, down to Python integers for a single row."""
    width = values.shape[1]
    if values.shape[0] == 0:
        return np.zeros((width, width), dtype=object)
    magnitude = np.abs(values).astype(float)
    if magnitude.max() * magnitude.sum(axis=0).max() < _EXACT_FLOAT:
        floats = values.astype(float)
        return np.rint(floats.T @ floats).astype(np.int64).astype(object)
    if values.shape[0] > 1:
        half = values.shape[0] // 2
        return _exact_gram(values[:half]) + _exact_gram(values[half:])
    row = values[0].astype(object)
    return np.outer(row, row)


@dataclass(frozen=True)
class PanelMoments:
    """The exact integer moments of one (players, rules)'s cluster sums, over its cells (one
    per (strategy, seat)): all that cluster-robust ratio means of any grouping of cells need.

    With z_c the cluster's sums of every column of ``SUM_COLUMNS`` for every cell (column-major:
    index ``column * K + cell``), ``products`` is sum_c z_c z_c' and ``totals`` sum_c z_c, as
    Python integers (exact, whatever order the clusters came in). ``presence`` lists the
    patterns of cells a cluster has player-games in and ``pattern_clusters`` how many clusters
    have each: the number of clusters a group of cells appears in follows from them.
    """

    players: int
    rules: str
    cells: list[tuple[str, int]]
    clusters: int
    totals: np.ndarray  # (len(SUM_COLUMNS), K) Python integers
    products: np.ndarray  # (len(SUM_COLUMNS) * K, len(SUM_COLUMNS) * K) Python integers
    presence: np.ndarray  # (patterns, K) bool
    pattern_clusters: np.ndarray  # (patterns,) int64

    @property
    def strategies(self) -> list[str]:
        """The strategies of the panel, sorted."""
        return sorted({strategy for strategy, _ in self.cells})

    def groups(self, by: list[str]) -> tuple[list[tuple], np.ndarray]:
        """The groups of cells with equal values of ``by`` (a subset of ``strategy`` and
        ``seat``; the others pooled), sorted, and their 0/1 membership matrix (groups, K)."""
        fields = [CELL_FIELDS.index(name) for name in by]
        keys = sorted({tuple(cell[f] for f in fields) for cell in self.cells})
        index = {key: g for g, key in enumerate(keys)}
        matrix = np.zeros((len(keys), len(self.cells)), dtype=np.int64)
        for k, cell in enumerate(self.cells):
            matrix[index[tuple(cell[f] for f in fields)], k] = 1
        return keys, matrix

    def group_clusters(self, groups: np.ndarray) -> np.ndarray:
        """The number of clusters in which each group (rows of a membership matrix) has
        player-games."""
        present = (self.presence.astype(np.int64) @ groups.T) > 0  # (patterns, groups)
        return self.pattern_clusters @ present.astype(np.int64)

    def _block(self, first: str, second: str) -> np.ndarray:
        size = len(self.cells)
        i, j = SUM_COLUMNS.index(first), SUM_COLUMNS.index(second)
        return self.products[i * size:(i + 1) * size, j * size:(j + 1) * size]

    def ratio_numerators(self, value: str, groups: np.ndarray,
                         count: str = "player_games") -> tuple[list, list, np.ndarray]:
        """For the ratio means R_g = Y_g / X_g of ``value`` over ``count`` per group (rows of
        ``groups``): the exact totals Y and X, and the exact integers N_gh with
        sum_c u_cg u_ch = N_gh / (X_g^2 X_h^2) for the linearised cluster terms
        u_cg = (y_cg - R_g x_cg) / X_g of ``sim.stats.clustered``:
        N_gh = X_g X_h S(y_g, y_h) - X_g Y_h S(y_g, x_h) - Y_g X_h S(x_g, y_h)
        + Y_g Y_h S(x_g, x_h), S the sums over clusters of products."""
        groups = groups.astype(object)
        y_total = list(groups @ self.totals[SUM_COLUMNS.index(value)])
        x_total = list(groups @ self.totals[SUM_COLUMNS.index(count)])
        yy = groups @ self._block(value, value) @ groups.T
        yx = groups @ self._block(value, count) @ groups.T
        xx = groups @ self._block(count, count) @ groups.T
        size = len(y_total)
        numerators = np.empty((size, size), dtype=object)
        for g in range(size):
            for h in range(size):
                numerators[g, h] = (x_total[g] * x_total[h] * yy[g, h]
                                    - x_total[g] * y_total[h] * yx[g, h]
                                    - y_total[g] * x_total[h] * yx[h, g]
                                    + y_total[g] * y_total[h] * xx[g, h])
        return y_total, x_total, numerators

    def ratio_means(self, value: str, groups: np.ndarray, scale: int = 1) -> RatioMeans:
        """The ratio means of ``value`` / ``scale`` per player-game of each group (rows of
        ``groups``) with their CR1 covariance over the panel's clusters
        (``sim.stats.clustered.ratio_means`` on the clusters' sums, from exact moments)."""
        y_total, x_total, numerators = self.ratio_numerators(value, groups)
        size, clusters = len(y_total), self.clusters
        means = np.array([_divide(y, x * scale) for y, x in zip(y_total, x_total, strict=True)])
        covariance = np.full((size, size), np.nan)
        if clusters >= 2:
            for g in range(size):
                for h in range(size):
                    covariance[g, h] = clusters / (clusters - 1.0) * _divide(
                        numerators[g, h], (x_total[g] * x_total[h] * scale) ** 2)
        return RatioMeans(means, covariance, np.array(x_total, dtype=float), clusters)


def _divide(numerator: int, denominator: int) -> float:
    """numerator / denominator of two integers, correctly rounded (NaN for 0 / 0)."""
    return numerator / denominator if denominator != 0 else float("nan")


CELL_FIELDS = ("strategy", "seat")


def _dense_index(ids: np.ndarray) -> tuple[np.ndarray, int]:
    """Each id's position among the distinct ``ids``, in increasing order, and their number.
    The deal ids of a chunk are nearly consecutive: a lookup table is then faster than a sort."""
    if ids.size == 0:
        return ids.astype(np.int64), 0
    low, high = int(ids.min()), int(ids.max())
    if high - low < 4 * ids.size:
        seen = np.zeros(high - low + 1, dtype=bool)
        seen[ids - low] = True
        position = np.cumsum(seen) - 1
        return position[ids - low], int(position[-1]) + 1
    distinct, index = np.unique(ids, return_inverse=True)
    return index.ravel(), distinct.size


class _PanelSums:
    """The moments of one panel accumulated chunk by chunk; cells are numbered as they first
    appear and sorted at the end."""

    def __init__(self, players: int, rules: str):
        self.players, self.rules = players, rules
        self.cells: list[tuple[str, int]] = []
        self.clusters = 0
        self.totals = np.zeros((len(SUM_COLUMNS), 0), dtype=object)
        self.products = np.zeros((0, 0), dtype=object)
        self.patterns: dict[int, int] = {}

    def _grow(self, cells: list[tuple[str, int]]) -> None:
        old = len(self.cells)
        self.cells += cells
        size = len(self.cells)
        totals = np.zeros((len(SUM_COLUMNS), size), dtype=object)
        totals[:, :old] = self.totals
        kept = np.array([c * size + k for c in range(len(SUM_COLUMNS)) for k in range(old)],
                        dtype=np.int64)
        products = np.zeros((len(SUM_COLUMNS) * size,) * 2, dtype=object)
        products[np.ix_(kept, kept)] = self.products
        self.totals, self.products = totals, products

    def add(self, units: pl.DataFrame) -> None:
        """Add whole clusters' sums (one row per cell and cluster, as ``cluster_units``)."""
        known = set(self.cells)
        new = sorted(cell for cell in units.select(CELL_FIELDS).unique().iter_rows()
                     if cell not in known)
        if new:
            self._grow(new)
        size = len(self.cells)
        table = pl.DataFrame({"strategy": [c[0] for c in self.cells],
                              "seat": [c[1] for c in self.cells],
                              "_cell": np.arange(size, dtype=np.int64)},
                             schema={"strategy": pl.String, "seat": pl.Int64,
                                     "_cell": pl.Int64})
        joined = units.join(table, on=list(CELL_FIELDS), how="left")
        row, clusters = _dense_index(joined["cluster"].to_numpy())
        cell = joined["_cell"].to_numpy()
        values = np.zeros((clusters, len(SUM_COLUMNS) * size), dtype=np.int64)
        for c, column in enumerate(SUM_COLUMNS):
            values[row, c * size + cell] = joined[column].to_numpy()
        self.clusters += clusters
        self.totals += values.sum(axis=0).reshape(len(SUM_COLUMNS), size).astype(object)
        self.products += _exact_gram(values)
        # Present = some player-game in the cell (player_games is the first column).
        present = values[:, :size] > 0
        if size < 63:
            keys, counts = np.unique(present @ (np.int64(1) << np.arange(size, dtype=np.int64)),
                                     return_counts=True)
            found = [(int(key), int(count)) for key, count in zip(keys, counts, strict=True)]
        else:
            packed, counts = np.unique(np.packbits(present, axis=1, bitorder="little"), axis=0,
                                       return_counts=True)
            found = [(int.from_bytes(pattern.tobytes(), "little"), int(count))
                     for pattern, count in zip(packed, counts, strict=True)]
        for key, count in found:
            self.patterns[key] = self.patterns.get(key, 0) + count

    def finish(self) -> PanelMoments:
        """The moments with the cells sorted by (strategy, seat)."""
        size = len(self.cells)
        order = sorted(range(size), key=lambda k: self.cells[k])
        index = np.array([c * size + k for c in range(len(SUM_COLUMNS)) for k in order],
                         dtype=np.int64)
        keys = sorted(self.patterns)
        presence = np.array([[(key >> k) & 1 for k in order] for key in keys],
                            dtype=bool).reshape(len(keys), size)
        return PanelMoments(self.players, self.rules, [self.cells[k] for k in order],
                            self.clusters, self.totals[:, order],
                            self.products[np.ix_(index, index)], presence,
                            np.array([self.patterns[key] for key in keys], dtype=np.int64))


@dataclass(frozen=True)
class ClusterMoments:
    """The batch's cluster sums reduced to exact moments, per (players, rules) panel (sorted):
    what ``cluster_units`` gives, in memory that does not grow with the number of clusters."""

    panels: dict[tuple[int, str], PanelMoments]

    @classmethod
    def from_units(cls, units: pl.DataFrame) -> ClusterMoments:
        """The moments of per-(cell, cluster) sums (``cluster_units``' columns; a frame without
        ``players``, ``rules``, ``strategy`` or ``shared_wins`` is one panel, one strategy, no
        ties)."""
        defaults = {"players": pl.lit(0, pl.Int64), "rules": pl.lit(""),
                    "strategy": pl.lit(""), "shared_wins": pl.lit(0, pl.Int64)}
        units = units.with_columns(**{name: value for name, value in defaults.items()
                                      if name not in units.columns})
        units = units.select(pl.col("players").cast(pl.Int64), pl.col("rules").cast(pl.String),
                             pl.col("strategy").cast(pl.String), pl.col("seat").cast(pl.Int64),
                             pl.col("cluster"), *(pl.col(c).cast(pl.Int64) for c in SUM_COLUMNS))
        sums: dict[tuple[int, str], _PanelSums] = {}
        _accumulate(sums, units)
        return cls._finished(sums)

    @classmethod
    def _finished(cls, sums: dict[tuple[int, str], _PanelSums]) -> ClusterMoments:
        return cls({key: sums[key].finish() for key in sorted(sums)})

    def unit_counts(self) -> dict[tuple[int, str], int]:
        """The number of clusters of every panel."""
        return {key: panel.clusters for key, panel in self.panels.items()}


def _accumulate(sums: dict[tuple[int, str], _PanelSums], units: pl.DataFrame) -> None:
    """Add whole clusters' per-cell sums to the moments of their panels."""
    if units.is_empty():
        return
    if units["players"].n_unique() == 1 and units["rules"].n_unique() == 1:
        panels = {(units["players"][0], units["rules"][0]): units}  # the common case: one
    else:
        panels = units.partition_by(["players", "rules"], as_dict=True)
    for (players, rules), panel in panels.items():
        key = (int(players), str(rules))
        if key not in sums:
            sums[key] = _PanelSums(*key)
        sums[key].add(panel)


def edges_in_order(spans: list[tuple[int, int]]) -> bool:
    """True when chunks with these (first, last) deal ids share a deal only at their common
    edge: each starts at or after the last deal of the one before (shards hold consecutive game
    ids, so a batch's chunks always do)."""
    return all(later[0] >= earlier[1] for earlier, later in pairwise(spans))


def cluster_moments(batch: Batch, rows: pl.LazyFrame | None = None) -> ClusterMoments:
    """``cluster_units`` reduced to exact moments per panel (``ClusterMoments``), read chunk by
    chunk (``Batch.chunks``) so that memory does not grow with the number of deals.

    A deal whose replicates fall in two chunks must still be one cluster: the deals at a
    chunk's edges (its first and last deal id) are held back and added once every chunk is
    read. ``rows`` (a frame of the rows store's rows) and summary batches without per-deal sums
    (a cluster per shard: few) are reduced at once."""
    if rows is not None or not (batch.is_rows or batch.has_deal_sums):
        return ClusterMoments.from_units(cluster_units(batch, rows))
    files = batch.shard_files if batch.is_rows else batch.deal_sum_files
    sums: dict[tuple[int, str], _PanelSums] = {}
    held, spans = [], []
    for chunk in batch.chunks(files):
        units = collect_streaming(_unit_sums(batch, files=chunk))
        if units.is_empty():
            continue
        first, last = int(units["cluster"].min()), int(units["cluster"].max())
        spans.append((first, last))
        edge = pl.col("cluster").is_in([first, last])
        # As plain values: a filtered frame's strings would keep the whole chunk's buffers.
        held += units.filter(edge).rows()
        _accumulate(sums, units.filter(~edge))
        schema = units.schema
    if not edges_in_order(spans):
        # Not a batch the runner wrote (deals out of order): reduce every cluster at once.
        return ClusterMoments.from_units(cluster_units(batch))
    if held:
        edges = (pl.DataFrame(held, schema=schema, orient="row").group_by(UNIT_KEYS)
                 .agg(pl.col(SUM_COLUMNS).sum()))
        _accumulate(sums, edges)
    return ClusterMoments._finished(sums)
