"""Tile-set variance: how much of the score the deal decides (rows store only).

- ``deal_variance``: one-way random-effects decomposition of a seat's score over deals, from
  games that replay the same deal (``replicate`` 0..R-1 of a ``deal_id``);
- ``tile_impact``: mean score of deals with a tile removed unseen against deals without it
  (Legendary Forests, ``removed_tiles_mask``);
- ``light_tile_effect``: mean score by the number of light tiles drawn, and the slope.

The unit for the last two is the deal (mean score of its rows): deals are independent, the
games of one deal are not.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.intervals import mean_interval, one_way_random_effects, two_sided_z

PANEL = ["players", "rules"]
CELL = ["players", "rules", "seat"]
FIXED_EFFECTS = ["players", "rules", "strategy", "seat"]


def _cell_sums(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, seat): the sums one-way ANOVA over deals needs.

    Scores are first centred on their (strategy, seat) mean: a lineup rotated over the replays of
    a deal then adds no spurious within-deal variance, and the sums of squares keep precision.
    """
    centred = (pl.col("score").cast(pl.Float64)
               - pl.col("score").cast(pl.Float64).mean().over(FIXED_EFFECTS)).alias("y")
    per_deal = rows.with_columns(centred).group_by([*CELL, "deal_id"]).agg(
        n=pl.len().cast(pl.Float64), total=pl.col("y").sum(), squares=(pl.col("y") ** 2).sum())
    strategies = rows.group_by(CELL).agg(strategies=pl.col("strategy").n_unique())
    return per_deal.group_by(CELL).agg(
        groups=pl.len().cast(pl.Float64),
        observations=pl.col("n").sum(),
        sum_n_squared=(pl.col("n") ** 2).sum(),
        largest_group=pl.col("n").max(),
        grand_total=pl.col("total").sum(),
        between_raw=(pl.col("total") ** 2 / pl.col("n")).sum(),
        squares=pl.col("squares").sum(),
    ).with_columns(
        ss_between=pl.col("between_raw") - pl.col("grand_total") ** 2 / pl.col("observations"),
        ss_within=pl.col("squares") - pl.col("between_raw"),
        df_within=pl.col("observations") - pl.col("groups"),
        n0_times_df=pl.col("observations") - pl.col("sum_n_squared") / pl.col("observations"),
    ).join(strategies, on=CELL).with_columns(
        # Each strategy's mean removed within the seat costs one degree of freedom between deals.
        df_between=pl.col("groups") - pl.col("strategies"),
    ).with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64)).collect()


def _decompose(sums: pl.DataFrame, level: list[str], confidence: float) -> list[dict]:
    """ANOVA per group of ``level``, pooling the sums of squares of the cells inside it.

    A pooled estimate's interval uses the average cell's degrees of freedom: the seats of one
    deal share its tiles, so their groups are not independent and counting
    every cell's degrees of freedom would make the interval too narrow.
    """
    results = []
    for keys, cells in sums.group_by(level, maintain_order=True):
        cells = cells.filter(pl.col("df_within") > 0)
        if cells.is_empty() or cells["df_between"].sum() <= 0:
            continue
        df_between = float(cells["df_between"].sum())
        df_within = float(cells["df_within"].sum())
        n0 = float(cells["n0_times_df"].sum()) / float((cells["groups"] - 1).sum())
        interval_df = (float(cells["df_between"].mean()), float(cells["df_within"].mean()))
        fit = one_way_random_effects(float(cells["ss_between"].sum()), df_between,
                                     float(cells["ss_within"].sum()), df_within, n0,
                                     confidence, interval_df)
        total = max(fit.between, 0.0) + fit.within
        results.append({
            **dict(zip(level, keys, strict=True)),
            "deals": int(cells["groups"].max()),
            "player_games": int(cells["observations"].sum()),
            "games_per_deal": n0,
            "balanced": bool((cells["sum_n_squared"] == cells["largest_group"] ** 2
                              * cells["groups"]).all()),
            "between_deal_variance": fit.between,
            "within_deal_variance": fit.within,
            "between_share": max(fit.between, 0.0) / total if total > 0 else float("nan"),
            "icc": fit.icc, "icc_low": fit.icc_low, "icc_high": fit.icc_high,
        })
    return results


def deal_variance(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Between-deal and within-deal variance of the score and the intraclass correlation.

    Model, per (players, rules, seat): score = mu_strategy + a_deal + e, a_deal ~ (0, sb^2),
    e ~ (0, sw^2); ICC = sb^2 / (sb^2 + sw^2) is the share of a seat's score variance that the
    deal decides (the rest is the players' own random choices). One row per seat and one pooled
    over seats (``seat`` null, seat means removed). Empty when no deal is replayed.
    """
    sums = _cell_sums(rows)
    if sums.is_empty() or float(sums["largest_group"].max()) < 2:
        return pl.DataFrame()
    records = _decompose(sums, CELL, confidence) + _decompose(sums, PANEL, confidence)
    if not records:
        return pl.DataFrame()
    return pl.DataFrame(records).with_columns(pl.col("seat").cast(pl.Int64)).select(
        *CELL, pl.exclude(CELL)).sort(CELL, nulls_last=True)


def _deal_means(rows: pl.LazyFrame, extra: list[str]) -> pl.LazyFrame:
    """Mean score per (players, rules, deal) with the deal-level columns ``extra``."""
    return rows.group_by([*PANEL, "deal_id"]).agg(
        pl.col("score").cast(pl.Float64).mean(), *[pl.col(c).first() for c in extra])


def tile_impact(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, tile): mean score per player of deals with the tile removed unseen
    and without it, and the difference with a Welch interval (deals as independent units).

    A tile never removed (tile 1, the start) or always removed has no comparison and is left out.
    """
    deals = _deal_means(rows, ["removed_tiles_mask"]).collect()
    z = two_sided_z(confidence)
    results = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        mask = panel["removed_tiles_mask"].to_numpy().astype(np.int64)
        score = panel["score"].to_numpy()
        bits = int(np.max(mask)).bit_length() if mask.size else 0
        for bit in range(bits):
            removed = ((mask >> bit) & 1).astype(bool)
            n_removed, n_kept = int(removed.sum()), int((~removed).sum())
            if n_removed < 2 or n_kept < 2:
                continue
            with_tile, without = score[removed], score[~removed]
            difference = with_tile.mean() - without.mean()
            se = np.sqrt(with_tile.var(ddof=1) / n_removed + without.var(ddof=1) / n_kept)
            results.append({
                "players": int(players), "rules": rules, "tile": bit + 1,
                "deals_removed": n_removed, "deals_kept": n_kept,
                "mean_removed": with_tile.mean(), "mean_kept": without.mean(),
                "effect": difference, "effect_low": difference - z * se,
                "effect_high": difference + z * se,
            })
    return pl.DataFrame(results)


def light_tile_effect(rows: pl.LazyFrame,
                      confidence: float = 0.95) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Mean score per player by the number of light tiles drawn (per deal), and the least-squares
    slope: points per extra light tile, with its interval.

    Returns (table per (players, rules, light_tiles_drawn), slope per (players, rules)).
    """
    deals = _deal_means(rows, ["light_tiles_drawn"]).with_columns(
        pl.col("light_tiles_drawn").cast(pl.Int64), pl.col("players").cast(pl.Int64)).collect()
    table = deals.group_by([*PANEL, "light_tiles_drawn"]).agg(
        deals=pl.len(), mean=pl.col("score").mean(), sd=pl.col("score").std(),
    ).sort([*PANEL, "light_tiles_drawn"])
    low, high = mean_interval(table["mean"].to_numpy(), table["sd"].fill_null(np.nan).to_numpy(),
                              table["deals"].to_numpy(), confidence)
    table = table.with_columns(mean_low=pl.Series(low), mean_high=pl.Series(high))
    z = two_sided_z(confidence)
    slopes = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        x = panel["light_tiles_drawn"].to_numpy().astype(float)
        y = panel["score"].to_numpy()
        spread = ((x - x.mean()) ** 2).sum()
        if x.size < 3 or spread == 0:
            continue
        slope = ((x - x.mean()) * (y - y.mean())).sum() / spread
        residual = y - y.mean() - slope * (x - x.mean())
        se = np.sqrt((residual ** 2).sum() / (x.size - 2) / spread)
        slopes.append({"players": int(players), "rules": rules, "deals": x.size,
                       "slope": slope, "slope_low": slope - z * se, "slope_high": slope + z * se})
    return table, pl.DataFrame(slopes)
