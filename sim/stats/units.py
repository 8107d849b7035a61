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

import polars as pl

from sim.stats.batch import Batch, collect_streaming, rules_label
from sim.stats.clustered import WIN_SCALE

UNIT_KEYS = ["players", "rules", "strategy", "seat", "cluster"]


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


def cluster_units(batch: Batch, rows: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per (players, rules, strategy, seat, cluster): ``player_games``, ``score_sum``,
    ``win_units`` and ``shared_wins``; ``cluster`` is the deal (``batch.cluster_unit``), or the
    shard of a summary store without per-deal sums."""
    sums = dict(player_games=pl.col("player_games").sum(), score_sum=pl.col("score_sum").sum(),
                win_units=pl.col("win_units").sum(), shared_wins=pl.col("shared_wins").sum())
    if batch.is_rows:
        source = rows if rows is not None else batch.scan(["deal_id", "players", "rules",
                                                            "strategy", "seat", "score", "win"])
        units = source.group_by(["players", "rules", "strategy", "seat",
                                 pl.col("deal_id").alias("cluster")]).agg(
            player_games=pl.len().cast(pl.Int64),
            score_sum=pl.col("score").cast(pl.Int64).sum(),
            win_units=win_units().sum(),
            shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64))
    elif batch.has_deal_sums:
        # A deal whose replicates fall in two shards is one cluster: sum over the deal id.
        units = batch.scan_deal_sums().group_by(
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
    units = (units.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                               pl.col("strategy").cast(pl.String),
                               pl.col("cluster").cast(pl.Int64),
                               *(pl.col(c).cast(pl.Int64) for c in
                                 ("player_games", "score_sum", "win_units", "shared_wins"))))
    # The rows are streamed from the shards: only the per-deal sums are held.
    return collect_streaming(units) if batch.is_rows else units.collect()
