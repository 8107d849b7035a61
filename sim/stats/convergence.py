"""Convergence: the running estimate and its interval as games accumulate, and the games
needed for a chosen precision.

The batch is cut into independent units in the order they were played: deals (every replicate
of a deal is one unit, since they are correlated), read from the rows or from the summary
store's per-deal sums, so both stores give the same estimate for the same games; shards only for
a summary store from before per-deal sums were kept. An estimate after k units is a ratio
R = sum y / sum x (e.g. points over player-games); its standard error is the ratio estimator's::

    SE^2 = k / (k - 1) * sum (y_u - R x_u)^2 / (sum x_u)^2

which counts any correlation inside a unit. Variance per game = SE^2 * games, and a precision
of +-h needs (z sigma / h)^2 games. Intervals use t on units - 1 degrees of freedom.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.batch import Batch, collect_streaming, rules_label
from sim.stats.clustered import WIN_SCALE, t_critical
from sim.stats.intervals import games_for_precision, two_sided_z
from sim.stats.units import win_units

PANEL = ["players", "rules"]
METRICS = {
    # metric: (numerator, denominator, description)
    "mean_score": ("score_sum", "player_games", "mean score per player"),
    "seat_0_win_rate": ("seat_0_wins", "games", "win rate of seat 0"),
}
SCORE_PRECISIONS = (0.5, 0.2, 0.1)  # points
WIN_RATE_PRECISIONS = (0.02, 0.01, 0.005)  # proportions (2, 1, 0.5 percentage points)
CHECKPOINTS = 60


def convergence_units(batch: Batch, rows: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per (players, rules) the batch's independent units in play order with their sums:
    ``score_sum``, ``player_games``, ``seat_0_wins`` and ``games``."""
    seat_0 = pl.col("seat") == 0
    if batch.is_rows:
        source = rows if rows is not None else batch.scan(["deal_id", "players", "rules", "seat",
                                                            "score", "win"])
        units = source.group_by([*PANEL, pl.col("deal_id").alias("unit")]).agg(
            score_sum=pl.col("score").cast(pl.Float64).sum(),
            player_games=pl.len().cast(pl.Float64),
            # Win shares as exact integer units, as the summary store's per-deal sums keep them.
            seat_0_wins=(win_units().filter(seat_0).sum() / WIN_SCALE).cast(pl.Float64),
            games=seat_0.sum().cast(pl.Float64))
    elif batch.has_deal_sums:
        # Sums of integers: the same values as the rows store's, whatever the order.
        units = batch.scan_deal_sums().group_by([*PANEL, pl.col("deal_id").alias("unit")]).agg(
            score_sum=pl.col("score_sum").sum().cast(pl.Float64),
            player_games=pl.col("player_games").sum().cast(pl.Float64),
            seat_0_wins=(pl.col("win_units").filter(seat_0).sum() / WIN_SCALE)
            .cast(pl.Float64),
            games=pl.col("player_games").filter(seat_0).sum().cast(pl.Float64))
    else:
        columns = ["players", "seat", "score", "count", "win_sum", *batch.varying_rules]
        frame = batch.scan_by_shard(columns).with_columns(
            rules_label(batch.varying_rules)).rename({"shard": "unit"})
        units = frame.group_by([*PANEL, "unit"]).agg(
            score_sum=(pl.col("score").cast(pl.Float64) * pl.col("count")).sum(),
            player_games=pl.col("count").sum().cast(pl.Float64),
            seat_0_wins=pl.col("win_sum").filter(seat_0).sum(),
            games=pl.col("count").filter(seat_0).sum().cast(pl.Float64))
    units = units.with_columns(pl.col("players").cast(pl.Int64)).sort([*PANEL, "unit"])
    # The rows are streamed from the shards: only the per-deal sums are held.
    return collect_streaming(units) if batch.is_rows else units.collect()


def _ratio_path(y: np.ndarray, x: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratio estimates and their standard errors after the first ``at`` units."""
    cy, cx = np.cumsum(y), np.cumsum(x)
    cyy, cxy, cxx = np.cumsum(y * y), np.cumsum(x * y), np.cumsum(x * x)
    index = at - 1
    ratio = cy[index] / cx[index]
    residual = cyy[index] - 2.0 * ratio * cxy[index] + ratio ** 2 * cxx[index]
    k = at.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(residual, 0.0) * k / (k - 1.0)) / cx[index]
    return ratio, se


def running_estimates(units: pl.DataFrame, confidence: float = 0.95,
                      checkpoints: int = CHECKPOINTS) -> pl.DataFrame:
    """Per (players, rules, metric): estimate, interval and half-width after growing numbers of
    games (log-spaced checkpoints, ending at the whole batch)."""
    parts = []
    for (players, rules), panel in units.group_by(PANEL, maintain_order=True):
        count = panel.height
        if count < 2:
            continue
        at = np.unique(np.geomspace(2, count, num=min(checkpoints, count - 1)).astype(int))
        games = np.cumsum(panel["games"].to_numpy())[at - 1]
        for metric, (numerator, denominator, _) in METRICS.items():
            value, se = _ratio_path(panel[numerator].to_numpy(), panel[denominator].to_numpy(),
                                    at)
            z = t_critical(at, confidence)  # t on units - 1 degrees of freedom
            parts.append(pl.DataFrame({
                "players": players, "rules": rules, "metric": metric, "units": at,
                "games": games.astype(np.int64), "value": value, "ci_low": value - z * se,
                "ci_high": value + z * se, "half_width": z * se,
            }))
    if not parts:
        # Too few units for any interval (e.g. a summary batch of one shard): no rows, but the
        # columns the report selects on.
        return pl.DataFrame(schema={
            "players": pl.Int64, "rules": pl.String, "metric": pl.String, "units": pl.Int64,
            "games": pl.Int64, "value": pl.Float64, "ci_low": pl.Float64,
            "ci_high": pl.Float64, "half_width": pl.Float64})
    return pl.concat(parts).with_columns(pl.col("players").cast(pl.Int64))


def games_needed(running: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, metric, precision): games needed for a +-precision interval, from
    the variance per game measured on the whole batch (the last checkpoint)."""
    if running.is_empty():
        return pl.DataFrame()
    z = two_sided_z(confidence)
    final = running.group_by([*PANEL, "metric"], maintain_order=True).last()
    results = []
    for row in final.iter_rows(named=True):
        se = row["half_width"] / z
        per_game_variance = se ** 2 * row["games"]
        precisions = SCORE_PRECISIONS if row["metric"] == "mean_score" else WIN_RATE_PRECISIONS
        for precision in precisions:
            results.append({"players": row["players"], "rules": row["rules"],
                            "metric": row["metric"], "precision": precision,
                            "games_needed": int(np.ceil(games_for_precision(
                                per_game_variance, precision, confidence))),
                            "games_played": row["games"],
                            "half_width_now": row["half_width"]})
    return pl.DataFrame(results)
