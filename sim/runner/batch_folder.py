"""The batch folder: its manifest (``new_manifest``; ``config_from_manifest`` reads a stored
config back, checked field by field), the copies of its data and strategy files that let a moved
or copied batch resume with what it started with, the checks before a run writes anything
(``check_run_dir``), creating or reopening it (``prepare_run_dir``), and its finished shards with
every file checked (``finished_shard_records``)."""

from __future__ import annotations

import os
import stat
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from sim import __version__
from sim.config import (
    MAX_GAMES,
    MAX_SEED,
    MAX_SHARD_SIZE,
    STORES,
    BatchConfig,
    check_name,
    load_lineup_code,
    note_strategy_origin,
    runs_code,
)
from sim.errors import InputError
from sim.files import raise_if_locked, write_bytes_atomic
from sim.games.base import MAX_DATA_FILE_BYTES
from sim.games.registry import get_game
from sim.seating import LEGACY_POOL_DESIGN, POOL_DESIGNS
from sim.store import (
    INPUT_DIR,
    MANIFEST,
    MANIFEST_FORMAT,
    NOTABLE_DIR,
    SHARD_FILES,
    STRATEGY_COPIES,
    file_record,
    legacy_finished_shards,
    read_manifest,
    shard_dir,
    shard_name,
    verified_shards,
    write_manifest,
)
from sim.strategy_spec import parse_strategy, split_strategy_text, strategy_file


def new_manifest(config: BatchConfig, stored_config: BatchConfig | None = None,
                 status: str = "running") -> dict[str, Any]:
    """The manifest of a batch that has not started; ``stored_config`` is the config with its
    paths relative to the batch folder (what the manifest keeps; default ``config``)."""
    stored_config = stored_config or config
    return {
        "format": MANIFEST_FORMAT,
        "name": config.name,
        "game": config.game,
        "config": stored_config.to_json(),
        "config_hash": config.digest(),
        "data_digest": config.data_digest,
        "sim_version": __version__,
        "store": config.store,
        "games_total": config.games,
        "shards_total": config.shards,
        "shard_size": config.shard_size,
        "shards_done": [],
        SHARD_FILES: {},
        "timings": [],
        "status": status,
    }


def _check_stored_field(path: Path, name: str, value: Any, kind: type | tuple[type, ...],
                        minimum: int | None = None) -> None:
    ok = isinstance(value, kind) and (kind is bool or not isinstance(value, bool))
    if ok and minimum is not None and value < minimum:
        ok = False
    if not ok:
        raise InputError(f"{path}: field 'config.{name}': damaged (got {value!r})")


def _inside_batch(relative: Any) -> bool:
    """True for a plain relative path that stays inside the batch folder."""
    return isinstance(relative, str) and bool(relative) and not Path(relative).is_absolute() \
        and ".." not in Path(relative).parts and "\\" not in relative


def config_from_manifest(manifest: dict[str, Any], run_dir: Path | None = None,
                         allow_code: bool = True, load_code: bool = True) -> BatchConfig:
    """The BatchConfig a manifest was written for, checked field by field (a damaged manifest is
    a one-line InputError). With ``run_dir``, the config's paths are taken from the batch folder
    where it is now: its output is that folder, and a data file and strategy files kept in it
    are read from there.

    A manifest is a file like a config: a strategy file the batch keeps in its own folder may
    run on resume, any other module or file only with ``allow_code`` (``--allow-code``); a copy
    "in the batch" that is a link, or lies under one, is refused whatever the options (the
    batch would run a file outside itself). The lineup's code is loaded (``load_lineup_code``)
    only with ``load_code``: a command checks its other options first."""
    path = (run_dir / MANIFEST) if run_dir is not None else Path(MANIFEST)
    stored = manifest.get("config")
    if not isinstance(stored, dict):
        raise InputError(f"{path}: field 'config': expected an object, got {stored!r:.60}")
    expected: dict[str, tuple[Any, int | None]] = {
        "name": (str, None), "game": (str, None), "players": (int, 1),
        "lineup": ((list, tuple), None), "rotate": (bool, None), "games": (int, 1),
        "deals": (int, 1), "replicates_per_deal": (int, 1), "seed": (int, 0),
        "shard_size": (int, 1),
        "output": (str, None), "store": (str, None), "rules": (dict, None),
        "data_file": ((str, type(None)), None), "data_digest": (str, None), "tags": (dict, None),
        "strategy_files": (dict, None),
        "trace": (bool, None),
    }
    known = {f.name for f in fields(BatchConfig)}
    for name in stored:
        if name not in known:
            raise InputError(f"{path}: field 'config.{name}': unknown")
    values = dict(stored)
    values.setdefault("tags", {})
    values.setdefault("strategy_files", {})
    values.setdefault("trace", False)  # batches written before the score trace existed
    lineup, players = values.get("lineup"), values.get("players")
    if values.get("rotate") is True and isinstance(lineup, list | tuple) and \
            isinstance(players, int) and len(lineup) > players >= 2:
        # A pool larger than the table started before pool designs existed was rotated.
        values.setdefault("pool_design", LEGACY_POOL_DESIGN)
        if values["pool_design"] not in POOL_DESIGNS:
            raise InputError(f"{path}: field 'config.pool_design': damaged "
                             f"(got {values['pool_design']!r:.60})")
    elif values.get("pool_design") is not None:
        raise InputError(f"{path}: field 'config.pool_design': damaged (only a pool larger "
                         f"than the table has one)")
    for name, (kind, minimum) in expected.items():
        if name not in values:
            if name in ("data_file", "data_digest"):
                continue
            raise InputError(f"{path}: field 'config.{name}': missing")
        _check_stored_field(path, name, values[name], kind, minimum)
    if not values["lineup"] or not all(isinstance(label, str) for label in values["lineup"]):
        raise InputError(f"{path}: field 'config.lineup': damaged (got {values['lineup']!r:.60})")
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in values["rules"].values()):
        raise InputError(f"{path}: field 'config.rules': damaged (values must be integers)")
    if values["store"] not in STORES:
        raise InputError(f"{path}: field 'config.store': damaged (got {values['store']!r})")
    if values["games"] != values["deals"] * values["replicates_per_deal"] or \
            values["games"] > MAX_GAMES or values["shard_size"] > MAX_SHARD_SIZE:
        raise InputError(f"{path}: field 'config.games': damaged (got {values['games']!r})")
    game = get_game(values["game"], f"{path}: field 'config.game'")
    # What the config checks would have refused is damage here too: the game's player range
    # and rules, the seed range, a name that is a folder name, one strategy per seat.
    game.check_players(values["players"], f"{path} (config)")
    resolved_rules = game.resolve_rules(values["rules"], f"{path} (config.rules)")
    if set(resolved_rules) != set(values["rules"]):
        raise InputError(f"{path}: field 'config.rules': names {', '.join(values['rules'])} "
                         f"but {game.name} has {', '.join(resolved_rules)} (damaged, or a batch "
                         f"of another version of sim)")
    if resolved_rules != values["rules"]:
        raise InputError(f"{path}: field 'config.rules': damaged (a value the game resolves "
                         f"otherwise)")
    if values["seed"] > MAX_SEED:
        raise InputError(f"{path}: field 'config.seed': damaged (more than 2**64 - 1)")
    # No length limit here: a batch named before names had one still resumes.
    check_name(values["name"], f"{path}: field 'config.name'", max_characters=None)
    if not values["rotate"] and len(values["lineup"]) != values["players"]:
        raise InputError(f"{path}: field 'config.lineup': damaged ({len(values['lineup'])} "
                         f"strategies for {values['players']} players)")
    if not all(isinstance(k, str) and isinstance(v, str | int | float | bool)
               for k, v in values["tags"].items()):
        raise InputError(f"{path}: field 'config.tags': damaged (values must be numbers or "
                         f"strings)")
    files = values["strategy_files"]
    if not all(isinstance(k, str) and isinstance(v, str) for k, v in files.items()):
        raise InputError(f"{path}: field 'config.strategy_files': damaged (paths must be "
                         f"strings)")
    for label in values["lineup"]:
        written = strategy_file(label)
        kept = written is not None and _inside_batch(files.get(written))
        if ":" in split_strategy_text(label)[0] and not kept and not allow_code:
            raise InputError(f"{path}: field 'config.lineup': strategy '{label}' runs code "
                             f"from a module or file outside the batch folder; add "
                             f"--allow-code to resume")
    if run_dir is not None:
        for written, where in files.items():
            if _inside_batch(where):
                _refuse_linked_copy(run_dir, where, written, path)
                note_strategy_origin(run_dir / where, "the batch's own copy")
    values["lineup"] = tuple(values["lineup"])
    config = BatchConfig(**values)
    loadable = config
    if run_dir is not None:
        loadable = replace(config, strategy_files=_strategy_files_in(run_dir, config))
    registry = game.strategies()
    for label in config.lineup:
        if not runs_code(label, registry):  # built-ins and drop-ins: no user code runs
            parse_strategy(loadable.loadable(label), registry, f"{path}: field 'config.lineup'")
    if load_code:
        load_lineup_code(loadable, f"{path}: field 'config.lineup'")
    if run_dir is not None:
        data_file = config.data_file
        if data_file is not None and not Path(data_file).is_absolute():
            data_file = str(run_dir / data_file)
        config = replace(config, output=str(run_dir), data_file=data_file,
                         strategy_files=_strategy_files_in(run_dir, config))
    return config


def _refuse_linked_copy(run_dir: Path, relative: str, written: str, manifest_path: Path) -> None:
    """A one-line InputError when the batch's copy of strategy file ``written`` (``relative``
    to ``run_dir``) is a link or lies under one (``input/`` or ``input/strategies/`` a link):
    what would run is a file outside the batch, whatever the manifest says."""
    place = run_dir
    for part in Path(relative).parts:
        place = place / part
        if place.is_symlink():
            raise InputError(f"{manifest_path}: field 'config.strategy_files': the batch's copy "
                             f"of strategy file '{written}' ({relative}) goes through the link "
                             f"{place.relative_to(run_dir).as_posix()} to "
                             f"{place.resolve()}; a batch runs only its own files, so it is "
                             f"refused")


def _strategy_files_in(run_dir: Path, config: BatchConfig) -> dict[str, str]:
    """The stored strategy files of a batch, where the batch folder is now."""
    return {written: str((run_dir / where).resolve()) if _inside_batch(where) else where
            for written, where in config.strategy_files.items()}


def _keep_strategy_copies(config: BatchConfig, run_dir: Path) -> dict[str, str]:
    """Copy the lineup's strategy files into the batch folder, so a moved or copied batch resumes
    with the very code it started with; returns each file as written -> its copy, relative to
    the batch folder."""
    kept: dict[str, str] = {}
    used: set[str] = set()
    for number, (written, source) in enumerate(sorted(config.strategy_files.items())):
        name = Path(source).name
        relative = f"{STRATEGY_COPIES}/{name}"
        if relative in used:  # two files of the same name from different folders
            relative = f"{STRATEGY_COPIES}/{number}/{name}"
        used.add(relative)
        try:
            data = Path(source).read_bytes()
        except OSError as error:
            raise InputError(f"{source}: strategy file cannot be read "
                             f"({error.strerror})") from None
        write_bytes_atomic(run_dir / relative, data)
        kept[written] = relative
    return kept


def _check_strategy_files(config: BatchConfig, stored: BatchConfig, manifest_path: Path) -> None:
    """A resume with a config must play the code the batch started with."""
    for written, source in config.strategy_files.items():
        kept = stored.strategy_files.get(written)
        try:
            same = kept is not None and Path(source).read_bytes() == Path(kept).read_bytes()
        except OSError:
            same = False
        if not same:
            raise InputError(f"{manifest_path}: field 'config.strategy_files': strategy file "
                             f"'{written}' changed since this batch started (or its copy in "
                             f"the batch is gone); resume with --resume DIR alone to play the "
                             f"batch's own copy")


def _keep_data_copy(config: BatchConfig, run_dir: Path) -> str | None:
    """Copy the batch's data file (or the files of its data folder that the game declares,
    ``Game.data_files_in``) into the batch folder, so a moved or copied batch can be resumed
    without the original; returns the copy's path relative to the batch folder (None for the
    shipped data). Every file is checked before any is written: a special file (a fifo, a
    device, anything on /proc) or one over ``MAX_DATA_FILE_BYTES`` is a one-line InputError."""
    if config.data_file is None:
        return None
    source = Path(config.data_file)
    target = run_dir / INPUT_DIR / source.name
    if source.resolve() == target.resolve():
        return target.relative_to(run_dir).as_posix()
    game = get_game(config.game)
    where = f"--{game.data_option}"
    declared = game.data_files_in(source, where)
    contents = {path.name: _read_data_file(path, where) for path in declared.files}
    if declared.folder:
        target.mkdir(parents=True, exist_ok=True)
        for name, data in contents.items():
            write_bytes_atomic(target / name, data)
    else:
        write_bytes_atomic(target, contents[source.name])
    return target.relative_to(run_dir).as_posix()


def _read_data_file(path: Path, where: str) -> bytes:
    """A checked data file's bytes, at most ``MAX_DATA_FILE_BYTES``, else a one-line
    InputError. It may have changed since it was checked: opened without blocking (a fifo put
    in its place would wait for a writer forever) and checked again to be a regular file."""
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(handle, "rb") as stream:
            if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                raise InputError(f"{where}: {path} is not a regular file; refused")
            data = stream.read(MAX_DATA_FILE_BYTES + 1)
    except OSError as error:
        raise InputError(f"{where}: {path}: data file cannot be read "
                         f"({error.strerror or type(error).__name__})") from None
    if len(data) > MAX_DATA_FILE_BYTES:
        raise InputError(f"{where}: {path} has more than the {MAX_DATA_FILE_BYTES // 2**20} MiB "
                         f"a data file may have; refused")
    return data


def check_run_dir(config: BatchConfig, resume: bool | None,
                  run_dir: Path | None = None) -> dict[str, Any] | None:
    """The checks of ``prepare_run_dir`` without creating or writing anything, so a command can
    make them before it starts playing: the output folder (``run_dir``, default
    ``config.output``) is not a file; a batch already there has the same config, and is
    refused by a fresh run (``resume`` False); a resume needs one (``resume`` True; None
    accepts either). Returns the manifest of the batch already there, or None."""
    run_dir = Path(run_dir if run_dir is not None else config.output)
    manifest_path = run_dir / MANIFEST
    if run_dir.exists() and not run_dir.is_dir():
        raise InputError(f"{run_dir}: output is a file, not a folder")
    # A batch another process is writing is its business: say so before judging its state.
    raise_if_locked(run_dir, "batch")
    if manifest_path.exists():
        manifest = read_manifest(run_dir)
        # Compared, not played: the stored batch's strategy code is not loaded.
        stored = config_from_manifest(manifest, run_dir, load_code=False)
        if stored.identity() != config.identity():
            changed = [k for k, v in config.identity().items() if stored.to_json().get(k) != v]
            raise InputError(f"{manifest_path}: field 'config': this folder holds a batch with "
                             f"another config (differs in: {', '.join(changed)}); "
                             f"use another --out or the same config")
        _check_strategy_files(config, stored, manifest_path)
        if resume is False:
            raise InputError(f"{run_dir}: a batch is already here; add --resume to finish it "
                             f"or choose another --out")
        return manifest
    if resume:
        raise InputError(f"{manifest_path}: nothing to resume (no manifest)")
    return None


def prepare_run_dir(config: BatchConfig, resume: bool, run_dir: Path | None = None,
                    status: str = "running") -> tuple[Path, dict[str, Any]]:
    """Create or reopen the output folder (``run_dir``, default ``config.output``). A fresh run
    refuses a folder that already holds a batch; a resume refuses a folder whose batch has
    another config (``check_run_dir``). A new batch's manifest gets ``status`` (a sweep creates
    its points' folders as ``pending``)."""
    manifest = check_run_dir(config, bool(resume), run_dir)
    run_dir = Path(run_dir if run_dir is not None else config.output)
    if manifest is not None:
        return run_dir, manifest
    run_dir.mkdir(parents=True, exist_ok=True)
    kept_data = _keep_data_copy(config, run_dir)
    kept_strategies = _keep_strategy_copies(config, run_dir)
    # Every path the manifest keeps is relative to the batch folder, so the folder can move.
    stored = replace(config, output=".", data_file=kept_data, strategy_files=kept_strategies)
    manifest = new_manifest(config, stored, status)
    write_manifest(run_dir, manifest)
    return run_dir, manifest



def finished_shard_records(run_dir: Path, manifest: dict[str, Any],
                           config: BatchConfig) -> dict[int, list[dict[str, Any]]]:
    """The finished shards of a batch with their file records, every file checked (size and
    SHA-256). A batch from before the manifest recorded files has its present shards recorded
    now (their notable files too, when present)."""
    if SHARD_FILES in manifest:
        return verified_shards(run_dir, manifest, config.shards)
    records: dict[int, list[dict[str, Any]]] = {}
    for index in sorted(legacy_finished_shards(run_dir, config.store, config.shards)):
        files = []
        for folder in (shard_dir(config.store), NOTABLE_DIR):
            path = run_dir / folder / shard_name(index)
            if path.is_file():
                files.append(file_record(run_dir, path, path.read_bytes()))
        records[index] = files
    return records

