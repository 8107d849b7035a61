"""Points by scoring category: for games whose rows carry ``points_<category>`` columns (e.g.
Harmonies: trees, mountains, fields, buildings, water, animals, spirit), the mean points of each
category per (players, rules, strategy) with a 95% CI."""

from __future__ import annotations

import polars as pl

from sim.stats.batch import Batch
from sim.stats.intervals import mean_interval

CATEGORY_PREFIX = "points_"


def category_columns(batch: Batch) -> list[str]:
    """The ``points_*`` columns of the batch's rows, in file order."""
    return [c for c in batch.columns if c.startswith(CATEGORY_PREFIX)]


def category_means(batch: Batch) -> pl.DataFrame:
    """One row per (players, rules, strategy, category): player-games, mean points, SD and the
    95% CI of the mean (normal approximation over player-games)."""
    columns = category_columns(batch)
    if not columns or not batch.is_rows:
        return pl.DataFrame()
    keys = ["players", "rules", "strategy"]
    rows = batch.scan([*keys, *columns])
    long = rows.unpivot(index=keys, on=columns, variable_name="category", value_name="points")
    table = (long.group_by([*keys, "category"])
             .agg(player_games=pl.len(), mean=pl.col("points").cast(pl.Float64).mean(),
                  sd=pl.col("points").cast(pl.Float64).std())
             .with_columns(category=pl.col("category").str.strip_prefix(CATEGORY_PREFIX))
             .collect())
    order = {name.removeprefix(CATEGORY_PREFIX): i for i, name in enumerate(columns)}
    table = table.with_columns(order=pl.col("category").replace_strict(order)).sort(
        [*keys, "order"]).drop("order")
    low, high = mean_interval(table["mean"].to_numpy(), table["sd"].fill_null(0).to_numpy(),
                              table["player_games"].to_numpy())
    return table.with_columns(mean_low=pl.Series(low), mean_high=pl.Series(high))
