"""Sweeps: a grid over rules parameters (and players, tile sets) played on common deals.

A sweep file is an experiment config (``configs/README.md``) plus a ``[sweep]`` table whose
arrays are the grid axes, and optionally an ``[adaptive]`` table. Every grid point is an
ordinary batch (``sim.runner``) in ``OUTPUT/points/<label>/`` with the same master seed, so all
points are played on the same deals (common random numbers) and differences between points
measure the rules, not the luck. The points together are one Parquet dataset:
``OUTPUT/points/*/shards/*.parquet``, with the grid values in columns (``players``, the rules
parameters, ``point``, and ``tiles_file`` when tile sets vary); ``sweep_rows`` reads the shards
every point's manifest records, nothing else.

A sweep folder is self-contained like a batch folder: ``sweep.json`` keeps every path relative
to the folder, and every point's batch folder (with its copies of data and strategy files) is
created when the sweep starts, so ``load_sweep_folder`` rebuilds the sweep from the folder alone
wherever it has moved (``sim sweep --resume DIR``). A sweep file's ``output`` stays below the
current directory, as a config's does.

A sweep may name its baseline, ``[sweep] baseline = {side = "A"}`` (a table of axis values; an
axis it does not name takes its first value): the grid point the report's "Against the baseline"
section compares every other point with, on the common deals. ``sweep.json`` keeps the
baseline's values; a sweep folder written before baselines existed has the first point as its
baseline.

Adaptive mode plays each point in rounds and stops a point once the metric it is judged on is
known to the set precision (95% CI half-width), so games go where the answer is still uncertain.
Rounds are whole shards and the stopping rule reads the results, so a sweep stays a pure
function of its config and resumes exactly.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import polars as pl

from sim.config import (
    BatchConfig,
    check_name,
    check_relative_output,
    config_from_document,
    load_lineup_code,
    read_toml,
)
from sim.errors import InputError, did_you_mean
from sim.fields import FIELD_AXIS, parse_fields
from sim.files import (
    hold_writer_lock,
    is_read_only_error,
    os_error_line,
    raise_if_locked,
    read_user_json,
    write_text_atomic,
)
from sim.games.registry import default_game, get_game
from sim.runner import config_from_manifest, prepare_run_dir, run_batch
from sim.stats.margins import FAIR_MARGIN
from sim.stats.stopping import metric_half_width, seat_verdict
from sim.store import MANIFEST, check_shards, finished_shards, read_manifest

SWEEP_MANIFEST = "sweep.json"
POINTS_DIR = "points"
# The key of the ``[sweep]`` table that names the baseline point (not an axis).
BASELINE_KEY = "baseline"
ADAPTIVE_METRICS = {
    "seat_win_rate": "largest 95% CI half-width of a seat's win rate",
    "strategy_win_rate": "largest 95% CI half-width of a strategy's win rate",
    "score_mean": "largest 95% CI half-width of a seat's mean score",
    "seat_verdict": "play until the seats' fairness verdict (within +-fair_margin) is decided",
}


@dataclass(frozen=True)
class AdaptiveRule:
    """Stop a point once ``metric``'s CI half-width is at most ``half_width`` (or, for
    ``seat_verdict``, once the seats are decided fair or unfair against ``fair_margin``), after
    at least ``min_games``, playing ``step_games`` more per round otherwise."""

    metric: str
    half_width: float
    min_games: int
    step_games: int
    fair_margin: float = FAIR_MARGIN


@dataclass
class SweepPoint:
    """One grid point: its axis values and the batch that plays it."""

    index: int
    values: dict[str, Any]
    label: str
    config: BatchConfig


@dataclass
class Sweep:
    """A resolved sweep: its points, where it writes, and how it stops points."""

    name: str
    source: str
    output: Path
    axes: dict[str, list[Any]]
    points: list[SweepPoint]
    adaptive: AdaptiveRule | None
    digest: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # The baseline point's axis values (every axis); None for a folder from before baselines,
    # whose baseline is its first point.
    baseline: dict[str, Any] | None = None

    @property
    def games_cap(self) -> int:
        """Most games any point plays."""
        return max(point.config.games for point in self.points)


def _point_label(values: dict[str, Any]) -> str:
    parts = []
    for name, value in values.items():
        text = Path(value).stem if name == "tiles" else str(value)
        parts.append(f"{name}={text}")
    return ",".join(parts)


def _parse_adaptive(table: Any, source: str, shard_size: int) -> AdaptiveRule:
    if not isinstance(table, dict):
        raise InputError(f"{source}: field 'adaptive': expected a table")
    known = {"metric", "half_width", "min_games", "step_games", "fair_margin"}
    for key in table:
        if key not in known:
            raise InputError(f"{source}: field 'adaptive.{key}': unknown{did_you_mean(key, known)}")
    metric = table.get("metric", "seat_win_rate")
    if metric not in ADAPTIVE_METRICS:
        hint = did_you_mean(str(metric), ADAPTIVE_METRICS)
        raise InputError(f"{source}: field 'adaptive.metric': '{metric}' is not one of "
                         f"{', '.join(ADAPTIVE_METRICS)}{hint}")
    half_width = table.get("half_width", 0.01)
    if not isinstance(half_width, int | float) or isinstance(half_width, bool) or half_width <= 0:
        raise InputError(f"{source}: field 'adaptive.half_width': expected a positive number, "
                         f"got {half_width!r}")
    min_games = table.get("min_games", shard_size)
    step_games = table.get("step_games", shard_size)
    for name, value in (("min_games", min_games), ("step_games", step_games)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise InputError(f"{source}: field 'adaptive.{name}': expected a positive integer, "
                             f"got {value!r}")
    fair_margin = table.get("fair_margin", FAIR_MARGIN)
    if not isinstance(fair_margin, int | float) or isinstance(fair_margin, bool) \
            or not 0 < fair_margin < 1:
        raise InputError(f"{source}: field 'adaptive.fair_margin': expected a proportion "
                         f"between 0 and 1 (0.02 = 2 percentage points), got {fair_margin!r}")
    return AdaptiveRule(metric, float(half_width), min_games, step_games, float(fair_margin))


def sweep_from_document(document: dict[str, Any], source: str, base_dir: Path,
                        default_name: str, overrides: dict[str, Any] | None = None,
                        allow_code: bool = False, load_code: bool = True) -> Sweep:
    """Validate a sweep document and expand its grid into points (``allow_code`` and
    ``load_code``: see ``sim.config.load_config``; ``run_sweep`` loads the code not loaded)."""
    document = dict(document)
    overrides = dict(overrides or {})
    grid = document.pop("sweep", None)
    adaptive_table = document.pop("adaptive", None)
    field_entries = document.pop("fields", None)
    baseline_table = None
    if isinstance(grid, dict) and BASELINE_KEY in grid:
        # The baseline chooses what the report compares, not what is played: it is no axis.
        baseline_table = grid[BASELINE_KEY]
        grid = {key: value for key, value in grid.items() if key != BASELINE_KEY}
        if not grid and field_entries is not None:
            grid = None  # the fields are the only axis
    field_where = f"{source}: field 'fields'"
    if overrides.get("fields") is not None:
        field_entries, field_where = overrides["fields"], "--field"
    overrides.pop("fields", None)
    if field_entries is not None:
        # Every field names its own lineup; the file's is what a run without fields plays.
        for key in ("strategies", "pool", "pool_design"):
            document.pop(key, None)
    if grid is None and field_entries is not None:
        grid = {}
    elif not isinstance(grid, dict) or not grid:
        raise InputError(f"{source}: field 'sweep': expected a table of axes, e.g. "
                         f"[sweep] players = [2, 3, 4]")
    grid = dict(grid)
    game_name = document.get("game", default_game())
    if not isinstance(game_name, str):
        raise InputError(f"{source}: field 'game': expected a string, got {game_name!r}")
    game = get_game(game_name, f"{source}: field 'game'")
    fields = parse_fields(field_entries, game, field_where) if field_entries is not None \
        else []
    # A file's fields are the file's strategies (checked, files found from its folder); the
    # command line's are the user's own request, as --strategy is.
    fields_from_file = field_where != "--field"

    def with_field(document: dict, overrides: dict, spec) -> None:
        (document if fields_from_file else overrides).update(spec.config_overrides())

    base_document, base_overrides = dict(document), dict(overrides)
    if fields:
        with_field(base_document, base_overrides, fields[0])
    base = config_from_document(base_document, source, base_dir, default_name, base_overrides,
                                allow_code=allow_code, load_code=load_code)
    rules_names = [p.name for p in game.rules_parameters]
    allowed = ["players", game.data_option, *rules_names]
    axes: dict[str, list[Any]] = {}
    for axis, values in grid.items():
        if axis not in allowed:
            raise InputError(f"{source}: field 'sweep.{axis}': not a sweepable field"
                             f"{did_you_mean(axis, allowed)} (sweepable: {', '.join(allowed)})")
        if not isinstance(values, list) or not values:
            raise InputError(f"{source}: field 'sweep.{axis}': expected a non-empty array")
        if len(set(map(str, values))) != len(values):
            raise InputError(f"{source}: field 'sweep.{axis}': repeated values")
        axes[axis] = values
    if fields:
        axes[FIELD_AXIS] = [spec.name for spec in fields]
    by_name = {spec.name: spec for spec in fields}
    output = Path(base.output)
    points = []
    shared_deals: dict[str, int] = {}
    for index, combination in enumerate(itertools.product(*axes.values())):
        values = dict(zip(axes, combination, strict=True))
        point_document = dict(document)
        point_document["rules"] = dict(document.get("rules", {}))
        point_overrides = dict(overrides)
        point_overrides["rules"] = dict(point_overrides.get("rules", {}) or {})
        tags: dict[str, Any] = {"point": index}
        for axis, value in values.items():
            if axis == FIELD_AXIS:
                with_field(point_document, point_overrides, by_name[value])
                tags[FIELD_AXIS] = value
                if value != fields[0].name:
                    # Every field plays the first field's deals and replicates of them (the
                    # same shuffles: common random numbers), whatever its own lineup would
                    # default to.
                    point_overrides.update(shared_deals)
            elif axis == "players":
                point_overrides["players"] = value
            elif axis == game.data_option:
                if not isinstance(value, str):
                    raise InputError(f"{source}: field 'sweep.{axis}': expected file names")
                point_document[axis] = value
                tags[f"{axis}_file"] = Path(value).stem
            else:
                point_overrides["rules"][axis] = value
        label = _point_label(values)
        # A label is built from the grid's values: only the file system's limit applies.
        check_name(label, f"{source}: field 'sweep': point {label!r}", max_characters=None)
        if any(point.label == label for point in points):
            raise InputError(f"{source}: field 'sweep': two grid points would share the folder "
                             f"{POINTS_DIR}/{label} (tile sets of the same file name?)")
        point_overrides["output"] = str(output / POINTS_DIR / label)
        point_overrides["name"] = f"{base.name}[{label}]"
        config = config_from_document(point_document, f"{source} (point {label})", base_dir,
                                      default_name, point_overrides, tags=tags,
                                      allow_code=allow_code, load_code=load_code)
        if fields and values[FIELD_AXIS] == fields[0].name:
            shared_deals = {"deals": config.deals,
                            "replicates_per_deal": config.replicates_per_deal}
        points.append(SweepPoint(index, values, label, config))
    adaptive = _parse_adaptive(adaptive_table, source, base.shard_size) \
        if adaptive_table is not None else None
    baseline = _parse_baseline(baseline_table, axes, source)
    return Sweep(base.name, source, output, axes, points, adaptive,
                 sweep_digest(points, adaptive), baseline=baseline)


def _parse_baseline(table: Any, axes: dict[str, list[Any]], source: str) -> dict[str, Any]:
    """The baseline point's value on every axis: the value ``table`` names (checked: an axis of
    the sweep, a value on it), else the axis's first value. ``table`` None: the first point."""
    where = f"{source}: field 'sweep.{BASELINE_KEY}'"
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise InputError(f"{where}: expected a table of axis values, e.g. "
                         f"{BASELINE_KEY} = {{side = \"A\"}}")
    for axis in table:
        if axis not in axes:
            raise InputError(f"{source}: field 'sweep.{BASELINE_KEY}.{axis}': not an axis of "
                             f"this sweep (its axes: {', '.join(axes)})")
    baseline = {}
    for axis, values in axes.items():
        if axis not in table:
            baseline[axis] = values[0]
            continue
        wanted = table[axis]
        # A value as the axis lists it; else as written ("2" for 2), else a data file by the
        # name its points' labels give it (its stem).
        matches = [value for value in values if value == wanted and
                   isinstance(value, bool) == isinstance(wanted, bool)] or \
            [value for value in values if str(value) == str(wanted)] or \
            [value for value in values if isinstance(value, str) and Path(value).stem == wanted]
        if not matches:
            shown = ", ".join(str(value) for value in values)
            raise InputError(f"{source}: field 'sweep.{BASELINE_KEY}.{axis}': {wanted!r} is not "
                             f"a value of the axis (its values: {shown})")
        baseline[axis] = matches[0]
    return baseline


def sweep_digest(points: list[SweepPoint], adaptive: AdaptiveRule | None) -> str:
    """SHA-256 of what decides a sweep's results: each point's config without its paths (so a
    moved sweep folder is the same sweep) and the adaptive rule."""
    digest_source = json.dumps({"points": [p.config.identity_digest() for p in points],
                                "adaptive": adaptive.__dict__ if adaptive else None},
                               sort_keys=True)
    return hashlib.sha256(digest_source.encode()).hexdigest()


def _legacy_digest(sweep: Sweep) -> str:
    """The digest sweeps written before sweep folders were relocatable recorded (paths
    included), so such a sweep still resumes where it is."""
    digest_source = json.dumps({"points": [p.config.digest() for p in sweep.points],
                                "adaptive": sweep.adaptive.__dict__ if sweep.adaptive else None},
                               sort_keys=True)
    return hashlib.sha256(digest_source.encode()).hexdigest()


def load_sweep(path: str | Path, overrides: dict[str, Any] | None = None,
               allow_code: bool = False, load_code: bool = True) -> Sweep:
    """Read and validate a sweep file (see the module docstring). Its ``output`` must be a
    relative folder without ``..`` (an override, ``--out``, may be anywhere)."""
    path = Path(path)
    document = read_toml(path, "sweep file")
    if "output" in document and (overrides or {}).get("output") is None:
        output = document["output"]
        if not isinstance(output, str):
            raise InputError(f"{path}: field 'output': expected a string, got {output!r}")
        check_relative_output(output, f"{path}: field 'output'")
    return sweep_from_document(document, str(path), path.parent, path.stem, overrides,
                               allow_code=allow_code, load_code=load_code)


def _stored(manifest: dict[str, Any], path: Path, key: str, kind: type) -> Any:
    value = manifest.get(key)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise InputError(f"{path}: field '{key}': damaged (got {value!r:.60})")
    return value


def load_sweep_folder(folder: str | Path, allow_code: bool = False,
                      load_code: bool = True) -> Sweep:
    """The sweep in ``folder``, rebuilt from its ``sweep.json`` and its points' batch manifests
    alone, wherever the folder is now (its points write into it, never where it started).
    A damaged manifest is a one-line InputError; ``allow_code`` as for ``sim run --resume``."""
    folder = Path(folder)
    if not folder.is_dir():
        raise InputError(f"{folder}: not a sweep folder (no such folder)")
    path = folder / SWEEP_MANIFEST
    manifest = read_sweep_manifest(folder)
    if not isinstance(manifest, dict) or manifest.get("kind") != "sweep" \
            or manifest.get("format") != 1:
        raise InputError(f"{path}: fields 'kind' and 'format': not a sweep manifest (kind "
                         f"'sweep', format 1)")
    name = _stored(manifest, path, "name", str)
    digest = _stored(manifest, path, "digest", str)
    axes = _stored(manifest, path, "axes", dict)
    stored_points = _stored(manifest, path, "points", list)
    if not stored_points:
        raise InputError(f"{path}: field 'points': damaged (no points)")
    points = []
    for index, stored in enumerate(stored_points):
        where = f"{path}: field 'points[{index}]'"
        if not isinstance(stored, dict) or stored.get("index") != index \
                or not isinstance(stored.get("label"), str) \
                or not isinstance(stored.get("values"), dict):
            raise InputError(f"{where}: damaged (needs index, label and values)")
        label = stored["label"]
        check_name(label, f"{where}: field 'label'", max_characters=None)
        run_dir = folder / POINTS_DIR / label
        if not (run_dir / MANIFEST).is_file():
            raise InputError(f"{run_dir / MANIFEST}: missing, so the point cannot be rebuilt "
                             f"from the folder; resume with the sweep file instead: sim sweep "
                             f"FILE --resume --out {folder}")
        config = config_from_manifest(read_manifest(run_dir), run_dir, allow_code=allow_code,
                                      load_code=load_code)
        points.append(SweepPoint(index, stored["values"], label, config))
    adaptive_table = manifest.get("adaptive")
    adaptive = None
    if adaptive_table is not None:
        adaptive = _parse_adaptive(adaptive_table, f"{path}", points[0].config.shard_size)
    stored_baseline = manifest.get(BASELINE_KEY)
    sweep = Sweep(name, str(manifest.get("source", path)), folder, axes, points, adaptive,
                  sweep_digest(points, adaptive),
                  baseline=stored_baseline if isinstance(stored_baseline, dict) else None)
    if digest != sweep.digest:
        raise InputError(f"{path}: field 'digest': does not match the configs of its points "
                         f"(the folder is damaged or was put together from two sweeps)")
    return sweep


def _finished_files(run_dir: Path, check_hash: bool) -> list[Path]:
    """The result files of a batch's finished shards, from its manifest only."""
    try:
        manifest = read_manifest(run_dir)
    except InputError:
        return []
    return check_shards(run_dir, manifest, check_hash).result_files(
        run_dir, manifest.get("store", "rows"))


def point_rows(point: SweepPoint) -> pl.LazyFrame | None:
    """The rows played so far at a point (None before its first shard): the shards its manifest
    records, with their recorded sizes (the sweep wrote them this session or checked them)."""
    files = _finished_files(Path(point.config.output), check_hash=False)
    if not files:
        return None
    return pl.scan_parquet([str(f) for f in files])


def point_is_done(rows: pl.LazyFrame, rule: AdaptiveRule) -> bool:
    """True when the adaptive rule stops the point (its metric precise or its verdict decided)."""
    if rule.metric == "seat_verdict":
        return seat_verdict(rows, rule.fair_margin) != "undecided"
    return metric_half_width(rows, rule.metric) <= rule.half_width


def games_done(point: SweepPoint) -> int:
    """Games finished so far at grid point ``point`` (its finished shards)."""
    config = point.config
    done = finished_shards(Path(config.output), config.store)
    return sum(min(config.shard_size, config.games - i * config.shard_size) for i in done)


# A point's states once it has stopped (all its games, or the adaptive rule); "pending" before.
FINISHED_STATES = ("complete", "precise", "decided")


def _recorded_progress(sweep: Sweep) -> dict[int, tuple[str, int]]:
    """(state, games played) of every point as the ``sweep.json`` on disk records them, when it
    is this sweep's (same digest); {} when there is none or it cannot be read."""
    try:
        stored = read_sweep_manifest(sweep.output)
    except InputError:
        return {}
    if not isinstance(stored, dict) or stored.get("digest") not in (sweep.digest,
                                                                     _legacy_digest(sweep)):
        return {}
    points = stored.get("points")
    labels = {point.index: point.label for point in sweep.points}
    recorded: dict[int, tuple[str, int]] = {}
    for point in points if isinstance(points, list) else []:
        if not isinstance(point, dict) or labels.get(point.get("index")) != point.get("label"):
            continue
        played = point.get("games_played")
        recorded[point["index"]] = (
            str(point.get("state")),
            played if isinstance(played, int) and not isinstance(played, bool) else 0)
    return recorded


def _write_manifest(sweep: Sweep, status: dict[int, str]) -> None:
    """Write ``sweep.json``, only ever advancing it: a point the file on disk records as
    finished (``FINISHED_STATES``) stays finished, with at least the games it records, whatever
    ``status`` says (a writer whose view is stale, e.g. one that started before another
    finished the point); such a state is adopted into ``status``. The writer lock makes this a
    guard for a lock removed by hand, or machines whose locks do not see each other."""
    recorded = _recorded_progress(sweep)
    for index, (state, _) in recorded.items():
        if state in FINISHED_STATES and status.get(index) not in FINISHED_STATES:
            status[index] = state
    # Every path in it is relative to the sweep folder (the folder may move); the sweep file is
    # named for the reader only.
    manifest = {
        "format": 1, "kind": "sweep", "name": sweep.name, "source": Path(sweep.source).name,
        "digest": sweep.digest, "axes": sweep.axes,
        "adaptive": sweep.adaptive.__dict__ if sweep.adaptive else None,
        # What the report compares every point with (it decides no game, so it is not in the
        # digest: a resumed sweep may name another one).
        BASELINE_KEY: sweep.baseline if sweep.baseline is not None else sweep.points[0].values,
        "points": [{"index": p.index, "label": p.label, "values": p.values,
                    "run_dir": f"{POINTS_DIR}/{p.label}",
                    "games_played": max(games_done(p), recorded.get(p.index, ("", 0))[1]),
                    "games_cap": p.config.games, "state": status.get(p.index, "pending")}
                   for p in sweep.points],
    }
    write_text_atomic(sweep.output / SWEEP_MANIFEST, json.dumps(manifest, indent=1) + "\n")


def read_sweep_manifest(output: Path) -> dict[str, Any]:
    """The manifest of a sweep folder, or a one-line InputError."""
    path = output / SWEEP_MANIFEST
    if not path.exists():
        raise InputError(f"{path}: not a sweep folder (no {SWEEP_MANIFEST})")
    return read_user_json(path, "sweep manifest")


def run_sweep(sweep: Sweep, *, workers: int = 0, backend: str = "local",
              scheduler: str | None = None, resume: bool = False,
              progress: Callable[[int, int, str], None] | None = None) -> dict[int, str]:
    """Play every point (adaptively when the sweep says so); returns each point's final state:
    ``complete`` (all its games), ``precise`` (stopped by the adaptive rule).

    One process writes a sweep at a time: the run holds the sweep folder's writer lock
    (``sim.files.hold_writer_lock``), and each point's batch lock while it plays it; a second
    writer gets a one-line error naming the holder and writes nothing. A resume of a finished
    sweep in a folder that cannot be written says so instead of failing."""
    manifest_path = sweep.output / SWEEP_MANIFEST
    if sweep.output.exists() and not sweep.output.is_dir():
        raise InputError(f"{sweep.output}: output is a file, not a folder")
    raise_if_locked(sweep.output, "sweep")
    if resume and not manifest_path.exists():
        raise InputError(f"{manifest_path}: nothing to resume (no sweep manifest)")
    try:
        lock = hold_writer_lock(sweep.output, "sweep")
    except OSError as error:
        if resume and is_read_only_error(error):
            return _finished_without_writing(sweep, error)
        raise
    with lock:
        return _run_sweep_holding_lock(sweep, workers=workers, backend=backend,
                                       scheduler=scheduler, resume=resume, progress=progress)


def _finished_without_writing(sweep: Sweep, error: OSError) -> dict[int, str]:
    """A resume of a sweep folder that cannot be written: the states its manifest records when
    every point is finished (all its games, or stopped by the adaptive rule), else a one-line
    error saying why it cannot go on and what to do."""
    stored = read_sweep_manifest(sweep.output)
    points = stored.get("points") if isinstance(stored, dict) else None
    states = {point.get("index"): point.get("state") for point in points
              if isinstance(point, dict)} if isinstance(points, list) else {}
    status: dict[int, str] = {}
    for point in sweep.points:
        if games_done(point) >= point.config.games:
            status[point.index] = "complete"
        elif states.get(point.index) in ("precise", "decided"):
            status[point.index] = states[point.index]
        else:
            raise InputError(f"{os_error_line(error)}; point {point.label} of the sweep is not "
                             f"finished: copy the sweep folder somewhere writable and resume "
                             f"it there") from None
    return status


def _run_sweep_holding_lock(sweep: Sweep, *, workers: int, backend: str, scheduler: str | None,
                            resume: bool,
                            progress: Callable[[int, int, str], None] | None) -> dict[int, str]:
    """``run_sweep`` once the sweep folder's writer lock is held."""
    manifest_path = sweep.output / SWEEP_MANIFEST
    if manifest_path.exists():
        stored = read_sweep_manifest(sweep.output)
        if not isinstance(stored, dict) or stored.get("digest") not in (sweep.digest,
                                                                         _legacy_digest(sweep)):
            raise InputError(f"{manifest_path}: field 'digest': this folder holds a sweep with "
                             f"another config; use another output or the same config")
        if not resume:
            raise InputError(f"{sweep.output}: a sweep is already here; add --resume to finish "
                             f"it or choose another output")
    elif resume:
        raise InputError(f"{manifest_path}: nothing to resume (no sweep manifest)")
    # Strategy code a caller has not loaded yet (``load_code=False``) runs only now, every
    # option and folder checked.
    for point in sweep.points:
        load_lineup_code(point.config, f"{sweep.source} (point {point.label})")
    # Every point's batch folder exists from the start (its config, data and strategy copies),
    # so the sweep folder alone can be resumed wherever it goes; each is prepared under its own
    # writer lock (someone may be resuming a point's batch on its own).
    for point in sweep.points:
        run_dir = Path(point.config.output)
        with hold_writer_lock(run_dir, "batch"):
            started = (run_dir / MANIFEST).exists()
            prepare_run_dir(point.config, resume=started, status="pending")
    status: dict[int, str] = {}
    _write_manifest(sweep, status)
    total_cap = sum(p.config.games for p in sweep.points)

    def report(label: str) -> None:
        if progress:
            done = sum(games_done(p) for p in sweep.points)
            budget = sum(games_done(p) if status.get(p.index) in ("precise", "decided")
                         else p.config.games for p in sweep.points)
            progress(done, min(budget, total_cap), label)

    def play(point: SweepPoint, shards: int | None) -> None:
        run_batch(point.config, workers=workers, backend=backend, scheduler=scheduler,
                  resume=True, stop_after_shards=shards)

    active = list(sweep.points)
    rule = sweep.adaptive
    while active:
        still_active = []
        for point in active:
            report(point.label)
            config = point.config
            done = games_done(point)
            if done >= config.games:
                status[point.index] = "complete"
                continue
            if rule is None:
                play(point, None)
                status[point.index] = "complete"
                _write_manifest(sweep, status)
                continue
            rows = point_rows(point)
            if done >= rule.min_games and rows is not None and point_is_done(rows, rule):
                status[point.index] = ("decided" if rule.metric == "seat_verdict"
                                       else "precise")
                _write_manifest(sweep, status)
                continue
            target = rule.min_games if done < rule.min_games else done + rule.step_games
            shards = max(1, -(-(min(target, config.games) - done) // config.shard_size))
            play(point, shards)
            _write_manifest(sweep, status)
            still_active.append(point)
        active = still_active
    report("")
    _write_manifest(sweep, status)
    return status


def sweep_rows(output: Path) -> pl.LazyFrame:
    """Every row of every point of a sweep, as one lazy dataset: the shards each point's manifest
    records, every file checked (size and SHA-256); stray or damaged files are left out."""
    output = Path(output)
    manifest = read_sweep_manifest(output)
    points = manifest.get("points") if isinstance(manifest, dict) else None
    if not isinstance(points, list):
        raise InputError(f"{output / SWEEP_MANIFEST}: field 'points': damaged")
    files = []
    for point in points:
        label = point.get("label") if isinstance(point, dict) else None
        if isinstance(label, str) and label not in ("", ".", "..") and "/" not in label:
            files += _finished_files(output / POINTS_DIR / label, check_hash=True)
    if not files:
        raise InputError(f"{output}: no results yet (no point has a finished shard)")
    return pl.scan_parquet([str(f) for f in files])
