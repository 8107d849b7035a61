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


def _unit_sums(batch: Batch, rows: pl.LazyFrame | None = None,
               files: tuple | None = None) -> pl.LazyFrame:
    """The lazy per-(players, rules, unit) sums of ``convergence_units``, unsorted, over
    ``rows`` or the batch's files (``files``: a chunk of them): exact integers
    (``INTEGER_COLUMNS``) for deals, the floats of ``convergence_units`` for shards."""
    seat_0 = pl.col("seat") == 0
    if batch.is_rows:
        source = rows if rows is not None else batch.scan(["deal_id", "players", "rules", "seat",
                                                            "score", "win"], files=files)
        units = source.group_by([*PANEL, pl.col("deal_id").alias("unit")]).agg(
            score_sum=pl.col("score").cast(pl.Int64).sum(),
            player_games=pl.len().cast(pl.Int64),
            # Win shares as exact integer units, as the summary store's per-deal sums keep them.
            seat_0_win_units=win_units().filter(seat_0).sum(),
            games=seat_0.sum().cast(pl.Int64))
    elif batch.has_deal_sums:
        # Sums of integers: the same values as the rows store's, whatever the order.
        units = batch.scan_deal_sums(files).group_by(
            [*PANEL, pl.col("deal_id").alias("unit")]).agg(
            score_sum=pl.col("score_sum").sum().cast(pl.Int64),
            player_games=pl.col("player_games").sum().cast(pl.Int64),
            seat_0_win_units=pl.col("win_units").filter(seat_0).sum().cast(pl.Int64),
            games=pl.col("player_games").filter(seat_0).sum().cast(pl.Int64))
    else:
        columns = ["players", "seat", "score", "count", "win_sum", *batch.varying_rules]
        frame = batch.scan_by_shard(columns).with_columns(
            rules_label(batch.varying_rules)).rename({"shard": "unit"})
        units = frame.group_by([*PANEL, "unit"]).agg(
            score_sum=(pl.col("score").cast(pl.Float64) * pl.col("count")).sum(),
            player_games=pl.col("count").sum().cast(pl.Float64),
            seat_0_wins=pl.col("win_sum").filter(seat_0).sum(),
            games=pl.col("count").filter(seat_0).sum().cast(pl.Float64))
    return units.with_columns(pl.col("players").cast(pl.Int64))


def convergence_units(batch: Batch, rows: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Per (players, rules) the batch's independent units in play order with their sums:
    ``score_sum``, ``player_games``, ``seat_0_wins`` and ``games`` (one row per deal: the
    report uses ``batch_running_estimates``, whose memory does not grow with the deals)."""
    units = _unit_sums(batch, rows).sort([*PANEL, "unit"])
    if batch.is_rows or batch.has_deal_sums:
        units = _as_floats(units)
    # The rows are streamed from the shards: only the per-deal sums are held.
    return collect_streaming(units) if batch.is_rows else units.collect()


INTEGER_COLUMNS = ("score_sum", "player_games", "seat_0_win_units", "games")


def _as_floats(units: pl.LazyFrame | pl.DataFrame):
    """A deal's integer sums as the floats the estimates use (win shares per win)."""
    return units.with_columns(
        pl.col("score_sum", "player_games", "games").cast(pl.Float64),
        seat_0_wins=(pl.col("seat_0_win_units") / WIN_SCALE).cast(pl.Float64),
    ).drop("seat_0_win_units")


def _checkpoints(count: int, checkpoints: int) -> np.ndarray:
    """The numbers of units after which the running estimate is given (log-spaced, ending at
    ``count``)."""
    return np.unique(np.geomspace(2, count, num=min(checkpoints, count - 1)).astype(int))


def _ratio_at(cy: np.ndarray, cx: np.ndarray, cyy: np.ndarray, cxy: np.ndarray,
              cxx: np.ndarray, at: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ratio estimates and their standard errors from the running sums after ``at`` units."""
    ratio = cy / cx
    residual = cyy - 2.0 * ratio * cxy + ratio ** 2 * cxx
    k = at.astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        se = np.sqrt(np.maximum(residual, 0.0) * k / (k - 1.0)) / cx
    return ratio, se


def _path_frame(players: int, rules: str, at: np.ndarray, games: np.ndarray,
                running: dict[str, list[np.ndarray]], confidence: float) -> list[pl.DataFrame]:
    """One panel's rows of ``running_estimates``: per metric, the estimate and interval at the
    checkpoints ``at`` from the running sums (y, x, yy, xy, xx) there."""
    parts = []
    for metric in METRICS:
        value, se = _ratio_at(*running[metric], at)
        z = t_critical(at, confidence)  # t on units - 1 degrees of freedom
        parts.append(pl.DataFrame({
            "players": players, "rules": rules, "metric": metric, "units": at,
            "games": games.astype(np.int64), "value": value, "ci_low": value - z * se,
            "ci_high": value + z * se, "half_width": z * se,
        }))
    return parts


def _finish_paths(parts: list[pl.DataFrame]) -> pl.DataFrame:
    if not parts:
        # Too few units for any interval (e.g. a summary batch of one shard): no rows, but the
        # columns the report selects on.
        return pl.DataFrame(schema={
            "players": pl.Int64, "rules": pl.String, "metric": pl.String, "units": pl.Int64,
            "games": pl.Int64, "value": pl.Float64, "ci_low": pl.Float64,
            "ci_high": pl.Float64, "half_width": pl.Float64})
    return pl.concat(parts).with_columns(pl.col("players").cast(pl.Int64))


def running_estimates(units: pl.DataFrame, confidence: float = 0.95,
                      checkpoints: int = CHECKPOINTS) -> pl.DataFrame:
    """Per (players, rules, metric): estimate, interval and half-width after growing numbers of
    games (log-spaced checkpoints, ending at the whole batch)."""
    parts = []
    for (players, rules), panel in units.group_by(PANEL, maintain_order=True):
        count = panel.height
        if count < 2:
            continue
        at = _checkpoints(count, checkpoints)
        games = np.cumsum(panel["games"].to_numpy())[at - 1]
        running = {}
        for metric, (numerator, denominator, _) in METRICS.items():
            y, x = panel[numerator].to_numpy(), panel[denominator].to_numpy()
            running[metric] = [np.cumsum(values)[at - 1]
                               for values in (y, x, y * y, x * y, x * x)]
        parts += _path_frame(players, rules, at, games, running, confidence)
    return _finish_paths(parts)


class _RunningPanel:
    """One panel's running sums, fed its units in play order a block at a time; keeps the sums
    at the checkpoints only. The sums are accumulated one unit after another, as one
    ``np.cumsum`` over all units would: the same bits."""

    def __init__(self, count: int, checkpoints: int):
        self.at = _checkpoints(count, checkpoints) if count >= 2 else np.zeros(0, np.int64)
        self.done = 0
        self.carry = np.zeros(1 + 5 * len(METRICS))
        self.kept: list[np.ndarray] = []

    def add(self, block: pl.DataFrame) -> None:
        """Add the next units (``convergence_units``' columns, in play order)."""
        columns = [block["games"].to_numpy()]
        for numerator, denominator, _ in METRICS.values():
            y, x = block[numerator].to_numpy(), block[denominator].to_numpy()
            columns += [y, x, y * y, x * y, x * x]
        values = np.stack(columns, axis=1)
        running = np.cumsum(np.vstack([self.carry[None, :], values]), axis=0)[1:]
        wanted = self.at[(self.at > self.done) & (self.at <= self.done + block.height)]
        self.kept.append(running[wanted - self.done - 1])
        self.done += block.height
        self.carry = running[-1]

    def frames(self, players: int, rules: str, confidence: float) -> list[pl.DataFrame]:
        """The panel's rows of ``running_estimates``."""
        if self.at.size == 0:
            return []
        kept = np.concatenate(self.kept)
        running = {metric: [kept[:, 1 + 5 * m + j] for j in range(5)]
                   for m, metric in enumerate(METRICS)}
        return _path_frame(players, rules, self.at, kept[:, 0], running, confidence)


def batch_running_estimates(batch: Batch, unit_counts: dict[tuple[int, str], int],
                            confidence: float = 0.95,
                            checkpoints: int = CHECKPOINTS) -> pl.DataFrame:
    """``running_estimates(convergence_units(batch))`` read chunk by chunk (``Batch.chunks``),
    in memory that does not grow with the number of deals; ``unit_counts`` are the units
    (deals) of every (players, rules) (``ClusterMoments.unit_counts``), which place the
    checkpoints. A deal at the edge of two chunks is added once both are read. A summary batch
    without per-deal sums (a unit per shard: few) is reduced at once."""
    if not (batch.is_rows or batch.has_deal_sums):
        return running_estimates(convergence_units(batch), confidence, checkpoints)
    files = batch.shard_files if batch.is_rows else batch.deal_sum_files
    panels = {key: _RunningPanel(count, checkpoints) for key, count in unit_counts.items()}
    held: pl.DataFrame | None = None  # the last unit of every panel, which may continue
    last_unit = None
    for chunk in batch.chunks(files):
        units = collect_streaming(_unit_sums(batch, files=chunk).sort([*PANEL, "unit"]))
        if units.is_empty():
            continue
        if last_unit is not None and units["unit"].min() < last_unit:
            # Not in play order (not a batch the runner wrote): every unit at once.
            return running_estimates(convergence_units(batch), confidence, checkpoints)
        last_unit = units["unit"].max()
        if held is not None:
            # A held unit continued in this chunk is one unit: sum its parts (integers).
            units = (pl.concat([held, units]).group_by([*PANEL, "unit"], maintain_order=True)
                     .agg(pl.col(INTEGER_COLUMNS).sum()).sort([*PANEL, "unit"]))
        last = pl.col("unit") == pl.col("unit").max().over(PANEL)
        # As plain values: a filtered frame's strings would keep the whole chunk's buffers.
        held = pl.DataFrame(units.filter(last).rows(), schema=units.schema, orient="row")
        for (players, rules), block in units.filter(~last).partition_by(
                PANEL, as_dict=True, maintain_order=True).items():
            panels[(players, rules)].add(_as_floats(block))
    if held is not None:
        for (players, rules), block in held.partition_by(PANEL, as_dict=True).items():
            panels[(players, rules)].add(_as_floats(block))
    parts = []
    for (players, rules), panel in sorted(panels.items()):
        parts += panel.frames(players, rules, confidence)
    return _finish_paths(parts)


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
