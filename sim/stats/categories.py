"""Points by scoring category: for games whose rows carry ``points_<category>`` columns (e.g.
trees, mountains, fields, buildings, water, animals), the mean points of each
category per (players, rules, strategy) with a 95% CI, cluster-robust over deals."""

from __future__ import annotations

import polars as pl

from sim.stats.batch import Batch
from sim.stats.clustered import grouped_ratio_intervals
from sim.stats.units import exact_sd

CATEGORY_PREFIX = "points_"


def category_columns(batch: Batch) -> list[str]:
    """The ``points_*`` columns of the batch's rows, in file order."""
    return [c for c in batch.columns if c.startswith(CATEGORY_PREFIX)]


def category_means(batch: Batch) -> pl.DataFrame:
    """One row per (players, rules, strategy, category): player-games, mean points, SD and the
    95% CI of the mean (cluster-robust over deals, t on deals - 1 degrees of freedom)."""
    columns = category_columns(batch)
    if not columns or not batch.is_rows:
        return pl.DataFrame()
    keys = ["players", "rules", "strategy"]
    rows = batch.scan([*keys, "deal_id", *columns])
    long = rows.unpivot(index=[*keys, "deal_id"], on=columns, variable_name="category",
                        value_name="points").with_columns(
        category=pl.col("category").str.strip_prefix(CATEGORY_PREFIX),
        players=pl.col("players").cast(pl.Int64))
    table = (long.group_by([*keys, "category"])
             .agg(player_games=pl.len(), sd=exact_sd("points"))
             .collect())
    units = (long.group_by([*keys, "category", pl.col("deal_id").alias("cluster")])
             .agg(points=pl.col("points").cast(pl.Int64).sum(),
                  player_games=pl.len().cast(pl.Int64)).collect())
    intervals = grouped_ratio_intervals(units, [*keys, "category"], "points", "player_games",
                                        "mean")
    order = {name.removeprefix(CATEGORY_PREFIX): i for i, name in enumerate(columns)}
    table = table.join(intervals.select(*keys, "category", "mean", "mean_low", "mean_high"),
                       on=[*keys, "category"])
    return (table.with_columns(order=pl.col("category").replace_strict(order))
            .sort([*keys, "order"]).drop("order")
            .select(*keys, "category", "player_games", "mean", "sd", "mean_low", "mean_high"))
