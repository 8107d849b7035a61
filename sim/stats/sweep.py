"""The statistics of a sweep: every grid point measured the same way, with 95% intervals.

A sweep folder (``sim sweep``) holds ``sweep.json`` and one ordinary batch per grid point. This
module reads it through ``open_sweep`` (the one place that knows where the points are) and
measures each point with the batch statistics (``sim.stats``), so a point's numbers are those
of its own batch report: every interval is cluster-robust over deals (shards in the summary
store; ``sim.stats.clustered``) and the seat gaps are simultaneous over all seat pairs.

Per point (``point_results``):

- stopping: games played, the cap, and why the point stopped (``sweep.json``);
- mean score over all player-games and per strategy, and the score SD;
- win rate per strategy (when two or more strategies play);
- seat advantage: the win rate of every seat, the largest gap between two seats' win rates
  as observed (``seat_gap``: the best seat's minus the worst's, the two seats in ``seat`` and
  ``other_seat``) with that pair's simultaneous 95% interval, which goes below zero when the
  two seats cannot be told apart (``largest_seat_gap``), the Wald test of equal seats and the
  fairness verdict against +-``fair_margin``;
- the share of player-games won in a tie;
- the mean per player-game of each count or points column the game records (rows store).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.games.registry import get_game
from sim.stats.batch import Batch, open_batch
from sim.stats.clustered import ContrastIntervals, grouped_ratio_intervals
from sim.stats.intervals import proportion_interval
from sim.stats.scores import distribution_table, score_histogram
from sim.stats.seats import FAIR_MARGIN, seat_table, seat_tests
from sim.stats.stopping import metric_half_width, seat_verdict
from sim.stats.units import cluster_units

SWEEP_MANIFEST = "sweep.json"
PANEL = ["players", "rules"]
# The long table of every number (summary.parquet of a sweep report, after the axis columns).
# ``other_seat`` is the second seat of a number about two seats (the largest seat gap).
RESULT_SCHEMA = {"point": pl.Int64, "label": pl.String, "section": pl.String,
                 "metric": pl.String, "strategy": pl.String, "seat": pl.Int64,
                 "other_seat": pl.Int64, "value": pl.Float64, "ci_low": pl.Float64,
                 "ci_high": pl.Float64, "verdict": pl.String}
# What each metric is, for tables, plots and the summary's readers.
METRIC_TITLES = {
    "games_played": "games played",
    "games_cap": "games cap",
    "state": "why the point stopped",
    "stop_half_width": "the stopping metric's 95% CI half-width now",
    "stop_verdict": "the stopping verdict now",
    "score_mean": "mean score (points)",
    "score_sd": "score SD (points)",
    "win_rate": "win rate",
    "seat_win_rate": "win rate by seat",
    "seat_gap": "largest seat gap: the best seat's win rate minus the worst's, with that "
                "pair's simultaneous interval",
    "seat_equal_p": "p-value of the test of equal seats",
    "won_in_tie": "player-games won in a tie",
}
STATES = {"complete": "played every game of its cap",
          "precise": "stopped early: its stopping metric reached the precision asked for",
          "decided": "stopped early: its fairness verdict was decided",
          "pending": "not finished (the sweep was interrupted or is still running)"}


@dataclass(frozen=True)
class SweepPointFolder:
    """One grid point of a sweep folder: its index, label, axis values, state as recorded and
    the batch folder that holds its games."""

    index: int
    label: str
    values: dict[str, Any]
    state: str
    games_cap: int
    run_dir: Path


@dataclass(frozen=True)
class SweepFolder:
    """A sweep folder as the reports see it (read by ``open_sweep``)."""

    folder: Path
    manifest: dict[str, Any]
    name: str
    axes: dict[str, list[Any]]
    adaptive: dict[str, Any] | None
    points: tuple[SweepPointFolder, ...]
    digest: str

    @property
    def output_as_configured(self) -> str:
        """The output folder for a config that plays this sweep again: ``runs/<this folder's
        name>``, since a sweep folder keeps its points' folders relative to itself (it may
        move); a sweep recorded before that keeps the relative folder its config named."""
        for point in self.manifest.get("points", []):
            stored = Path(str(point.get("run_dir", "")))
            label = str(point.get("label", ""))
            output = stored.parent.parent
            if stored.name == label and stored.parent.name == "points" \
                    and str(output) not in ("", ".") and not output.is_absolute() \
                    and ".." not in output.parts:
                return output.as_posix()
        return f"runs/{self.folder.resolve().name}"


def is_sweep_folder(folder: Path) -> bool:
    """True when ``folder`` holds a sweep (its ``sweep.json``)."""
    return (Path(folder) / SWEEP_MANIFEST).is_file()


def _point_folder(folder: Path, record: dict[str, Any]) -> Path:
    """Where a point's batch is: its recorded folder taken relative to the sweep folder (a
    relocatable sweep), else as recorded (relative to where the sweep was run), else
    ``points/<label>`` in the sweep folder (a sweep folder that was moved)."""
    stored = Path(str(record.get("run_dir", "")))
    label = str(record.get("label", ""))
    candidates = [stored] if stored.is_absolute() else [folder / stored, stored]
    candidates.append(folder / "points" / label)
    for candidate in candidates:
        if (candidate / "manifest.json").is_file():
            return candidate
    return candidates[-1]


def open_sweep(folder: str | Path) -> SweepFolder:
    """Read a sweep folder's ``sweep.json`` and find every point's batch; one-line
    ``InputError`` for a folder that is no sweep or a manifest that cannot be read."""
    folder = Path(folder)
    path = folder / SWEEP_MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: not a sweep folder (no {SWEEP_MANIFEST})") from None
    except (UnicodeDecodeError, RecursionError):
        raise InputError(f"{path}: not a readable sweep manifest") from None
    except json.JSONDecodeError as error:
        raise InputError(f"{path}: not valid JSON ({error.msg})") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != "sweep":
        raise InputError(f"{path}: field 'kind': expected \"sweep\"")
    records = manifest.get("points")
    axes = manifest.get("axes")
    if not isinstance(records, list) or not records:
        raise InputError(f"{path}: field 'points': expected a non-empty list")
    if not isinstance(axes, dict) or not axes:
        raise InputError(f"{path}: field 'axes': expected a table of axes")
    points = []
    for number, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("values"), dict):
            raise InputError(f"{path}: field 'points[{number}]': expected an object with "
                             f"'values'")
        points.append(SweepPointFolder(
            index=int(record.get("index", number)), label=str(record.get("label", number)),
            values=dict(record["values"]), state=str(record.get("state", "pending")),
            games_cap=int(record.get("games_cap", 0)), run_dir=_point_folder(folder, record)))
    adaptive = manifest.get("adaptive")
    return SweepFolder(folder=folder, manifest=manifest, name=str(manifest.get("name", "sweep")),
                       axes={str(k): list(v) for k, v in axes.items()},
                       adaptive=adaptive if isinstance(adaptive, dict) else None,
                       points=tuple(points), digest=str(manifest.get("digest", "")))


# --- one point ----------------------------------------------------------------------------------

def largest_seat_gap(win_rates: np.ndarray, pairs: list[tuple[int, int]],
                     intervals: ContrastIntervals) -> tuple[int, int, float, float, float]:
    """The largest gap between two seats' win rates as observed: (best seat, worst seat, the
    best's rate minus the worst's, and that pair's simultaneous interval, turned to the same
    sign), from every pair's simultaneous (max-|t|) interval (``seat_gap_family``).

    Picking the pair after looking makes its point estimate the largest of several noisy gaps
    (about 3.6 pp at 800 games with no seat effect at all); its interval is one of a family that
    holds together with 95% probability, so it stays honest for the pair picked, and it goes
    below zero when the data cannot tell the two seats apart. Seats are indices into
    ``win_rates``; with every rate equal the first pair is given, gap 0."""
    best, worst = int(np.argmax(win_rates)), int(np.argmin(win_rates))
    if best == worst:
        best, worst = pairs[0]
    if best < worst:
        row, sign = pairs.index((best, worst)), 1.0
    else:
        row, sign = pairs.index((worst, best)), -1.0
    low, high = float(intervals.low[row]), float(intervals.high[row])
    if sign < 0:
        low, high = -high, -low
    return best, worst, sign * float(intervals.estimates[row]), low, high


def _tie_units(units: pl.DataFrame) -> pl.DataFrame:
    """Per cluster (``cluster_units``: the deal, or the shard of an old summary store):
    player-games won in a tie and player-games."""
    return (units.group_by("cluster").agg(tied=pl.col("shared_wins").sum(),
                                          player_games=pl.col("player_games").sum())
            .with_columns(pl.lit(0).alias("all")).sort("cluster"))


def game_count_columns(batch: Batch) -> list[str]:
    """The game's own result columns that are counts or points (integers narrower than 64 bits:
    64-bit columns are ids, seeds and bit masks), in the game's documented order."""
    if not batch.is_rows:
        return []
    schema = pl.scan_parquet(list(batch.shard_files[:1])).collect_schema()
    wanted = []
    for column in get_game(batch.game).column_docs():
        dtype = schema.get(column)
        if dtype is not None and dtype.is_integer() and dtype not in (pl.Int64, pl.UInt64):
            wanted.append(column)
    return wanted


def _game_column_means(batch: Batch, columns: list[str]) -> list[dict[str, Any]]:
    if not columns:
        return []
    units = (batch.scan(["deal_id", *columns])
             .group_by(pl.col("deal_id").alias("cluster"))
             .agg(player_games=pl.len().cast(pl.Int64),
                  **{column: pl.col(column).cast(pl.Int64).sum() for column in columns})
             .with_columns(pl.lit(0).alias("all")).sort("cluster").collect())
    records = []
    for column in columns:
        table = grouped_ratio_intervals(units, ["all"], column, "player_games", "mean")
        records.append({"section": "game columns", "metric": column,
                        "value": table["mean"][0], "ci_low": table["mean_low"][0],
                        "ci_high": table["mean_high"][0]})
    return records


def _stop_records(point: SweepPointFolder, adaptive: dict[str, Any] | None,
                  rows: pl.LazyFrame | None, games: int) -> list[dict[str, Any]]:
    records = [{"section": "stopping", "metric": "games_played", "value": float(games)},
               {"section": "stopping", "metric": "games_cap",
                "value": float(point.games_cap or games)},
               {"section": "stopping", "metric": "state", "verdict": point.state}]
    if adaptive is None or rows is None:
        return records
    metric = str(adaptive.get("metric", ""))
    if metric == "seat_verdict":
        verdict = seat_verdict(rows, float(adaptive.get("fair_margin", FAIR_MARGIN)))
        records.append({"section": "stopping", "metric": "stop_verdict", "verdict": verdict})
    elif metric:
        records.append({"section": "stopping", "metric": "stop_half_width",
                        "value": metric_half_width(rows, metric)})
    return records


def point_results(sweep: SweepFolder, point: SweepPointFolder,
                  fair_margin: float = FAIR_MARGIN) -> pl.DataFrame:
    """Every number of one grid point in the long schema ``RESULT_SCHEMA``."""
    batch = open_batch(point.run_dir)
    histogram = score_histogram(batch)
    units = cluster_units(batch)
    unit_name = batch.cluster_unit
    records: list[dict[str, Any]] = []
    pooled = distribution_table(histogram, units, PANEL).row(0, named=True)
    games = int(histogram.filter(pl.col("seat") == 0)["count"].sum())
    rows = batch.scan() if batch.is_rows else None
    records += _stop_records(point, sweep.adaptive, rows, games)
    records += [{"section": "scores", "metric": "score_mean", "value": pooled["mean"],
                 "ci_low": pooled["mean_low"], "ci_high": pooled["mean_high"]},
                {"section": "scores", "metric": "score_sd", "value": pooled["sd"]}]
    per_strategy = distribution_table(histogram, units, [*PANEL, "strategy"])
    several = per_strategy.height > 1
    solo = int(histogram["players"].max()) < 2  # a one-player game is always won
    for row in per_strategy.iter_rows(named=True):
        if several:
            records.append({"section": "scores", "metric": "score_mean",
                            "strategy": row["strategy"], "value": row["mean"],
                            "ci_low": row["mean_low"], "ci_high": row["mean_high"]})
        if several and not solo:
            records.append({"section": "win rates", "metric": "win_rate",
                            "strategy": row["strategy"], "value": row["win_rate"],
                            "ci_low": row["win_rate_low"], "ci_high": row["win_rate_high"]})
    for row in seat_table(histogram, units).iter_rows(named=True) if not solo else ():
        records.append({"section": "seats", "metric": "seat_win_rate", "seat": row["seat"],
                        "value": row["win_rate"], "ci_low": row["win_rate_low"],
                        "ci_high": row["win_rate_high"]})
    tests, gaps = seat_tests(units, unit_name, fair_margin=fair_margin, rows=rows,
                             design=batch.pool_design)
    test = tests.row(0, named=True)
    if test["best_seat"] is not None:
        # The largest gap as observed, with its pair's interval from the simultaneous family
        # (signed: not cut at zero, so a gap the data cannot tell from none shows as such).
        verdict = test["verdict"] if test["balanced"] and test["verdict"] else "not tested"
        # every seat's rate equal: no pair is the largest (seats left null)
        equal = test["best_seat"] == test["worst_seat"]
        records.append({"section": "seats", "metric": "seat_gap",
                        "seat": None if equal else test["best_seat"],
                        "other_seat": None if equal else test["worst_seat"],
                        "value": test["win_gap"],
                        "ci_low": test["win_gap_low"], "ci_high": test["win_gap_high"],
                        "verdict": verdict})
        if test["p_value"] is not None:
            records.append({"section": "seats", "metric": "seat_equal_p",
                            "value": test["p_value"]})
    tie_units = _tie_units(units)
    ties = grouped_ratio_intervals(tie_units, ["all"], "tied", "player_games", "tie")
    # A share: its interval is the clustered Wilson one, inside 0-100% by construction.
    tie_low, tie_high = proportion_interval(ties["tie"][0], ties["tie_se"][0],
                                            ties["tie_clusters"][0],
                                            int(tie_units["player_games"].sum()))
    records.append({"section": "ties", "metric": "won_in_tie", "value": ties["tie"][0],
                    "ci_low": float(tie_low), "ci_high": float(tie_high)})
    records += _game_column_means(batch, game_count_columns(batch))
    frame = pl.DataFrame(records, schema={k: v for k, v in RESULT_SCHEMA.items()
                                          if k not in ("point", "label")})
    # A t interval of a share near 0 or 1 (or of a count near 0) can reach past what the
    # quantity can be: cut it there, as the reports say.
    share = pl.col("metric").is_in(["win_rate", "seat_win_rate", "won_in_tie"])
    count = (pl.col("section") == "game columns") & pl.col("metric").is_in(
        _non_negative(batch, game_count_columns(batch)))
    gap = pl.col("metric") == "seat_gap"  # a difference of two shares: -1 to 1
    frame = frame.with_columns(
        ci_low=pl.when(share | count).then(pl.col("ci_low").clip(lower_bound=0.0))
        .when(gap).then(pl.col("ci_low").clip(lower_bound=-1.0))
        .otherwise(pl.col("ci_low")),
        ci_high=pl.when(share | gap).then(pl.col("ci_high").clip(upper_bound=1.0))
        .otherwise(pl.col("ci_high")))
    return frame.with_columns(point=pl.lit(point.index, pl.Int64),
                              label=pl.lit(point.label)).select(list(RESULT_SCHEMA))


def _non_negative(batch: Batch, columns: list[str]) -> list[str]:
    """The ``columns`` that never hold a negative value in this batch."""
    if not columns:
        return []
    minima = batch.scan(columns).select(pl.col(c).min() for c in columns).collect().row(0)
    return [c for c, low in zip(columns, minima, strict=True) if low is not None and low >= 0]


@dataclass
class SweepResults:
    """Every point's numbers (``table``, long schema) and what the reports need around them."""

    sweep: SweepFolder
    table: pl.DataFrame
    fair_margin: float
    batches: dict[int, Batch] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)

    def value(self, point: int, metric: str, strategy: str | None = None,
              seat: int | None = None) -> dict[str, Any] | None:
        """The row of one number (None when the point does not have it)."""
        rows = self.table.filter((pl.col("point") == point) & (pl.col("metric") == metric))
        rows = rows.filter(pl.col("strategy").is_null() if strategy is None
                           else pl.col("strategy") == strategy)
        rows = rows.filter(pl.col("seat").is_null() if seat is None else pl.col("seat") == seat)
        return rows.row(0, named=True) if rows.height else None

    def strategies(self) -> list[str]:
        """The strategies with a win rate of their own (two or more play), sorted."""
        frame = self.table.filter(pl.col("metric") == "win_rate")
        return sorted(set(frame["strategy"].drop_nulls().to_list()))

    def game_columns(self) -> list[str]:
        """The game's count and points columns measured, in the game's order."""
        frame = self.table.filter(pl.col("section") == "game columns")
        return list(dict.fromkeys(frame["metric"].to_list()))

    def played_points(self) -> list[SweepPointFolder]:
        """The points that have results."""
        done = set(self.table["point"].to_list())
        return [point for point in self.sweep.points if point.index in done]


def sweep_results(sweep: SweepFolder, fair_margin: float = FAIR_MARGIN,
                  progress=None) -> SweepResults:
    """The numbers of every point of ``sweep`` that has finished shards; a point without any
    is listed in ``missing``. ``progress`` gets the label of each point as it starts."""
    parts, batches, missing = [], {}, []
    for point in sweep.points:
        if progress is not None:
            progress(point.label)
        try:
            batches[point.index] = open_batch(point.run_dir)
        except InputError:
            missing.append(point.label)
            continue
        parts.append(point_results(sweep, point, fair_margin))
    if not parts:
        raise InputError(f"{sweep.folder}: no results yet (no grid point has a finished "
                         f"shard)")
    return SweepResults(sweep, pl.concat(parts), fair_margin, batches, missing)


def sweep_rows(sweep: SweepFolder) -> pl.LazyFrame:
    """Every row of every point of ``sweep`` that has finished shards, as one lazy dataset (the
    rows store's columns, the grid values among them)."""
    files = []
    for point in sweep.points:
        try:
            files.extend(open_batch(point.run_dir).shard_files)
        except InputError:
            continue
    if not files:
        raise InputError(f"{sweep.folder}: no results yet (no grid point has a finished "
                         f"shard)")
    return pl.scan_parquet([str(path) for path in files])
