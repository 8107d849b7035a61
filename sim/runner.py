"""The batch runner: plays a ``BatchConfig`` in shards, in parallel, into Parquet, resumably.

Design of experiments: game ``g`` of a batch is replicate ``g % R`` of deal ``g // R``
(``R = replicates_per_deal``). The deal seed depends on the deal only and the strategy seed on
(deal, replicate), both from the master seed through SeedSequence (``sim.seeding``), so every
lineup, rules setting or replicate can be played on the same deals. With a rotating pool of K
strategies and P players, rotation ``r = deal + replicate`` gives seat ``s`` the strategy
``pool[((r + s) % P) % K]`` when K <= P: every game has the same mix (the pool repeated to fill
the seats) and over P rotations each strategy sits in every seat equally often, so seats stay
comparable. With more strategies than seats (K > P >= 2) game ``g`` plays lineup ``g mod L`` of
``sim.seating.pool_lineups`` for the config's ``pool_design``: ``"balanced"`` (every combination
of P strategies in its seat rotations, L = C(K, P) * (P if P == 2 else 2P)) or ``"every-order"``
(every ordered lineup, L = K! / (K - P)!). Both are balanced by construction: with no seat effect
every seat faces the same opponents on average, which rotating the whole pool does not give (a
seat's results would then depend on who it tends to face). With ``replicates_per_deal`` a
multiple of L (the default) every deal is played by every lineup. A batch whose manifest has no
``pool_design`` (started before it existed) plays ``"rotation"``, the cyclic and mirrored
rotations of the whole pool, lineup ``(deal + replicate) mod 2K``, so it resumes unchanged.

A shard is a contiguous range of games: one compiled call that returns arrays, turned into one
Parquet file by the worker and written by the main process; with several workers a run's last
shards are played in pieces that the main process joins and encodes (how the work overlaps:
``docs/architecture.md``, "How a batch is played"). Results never depend on the worker count,
the shard size or the backend, only on the config.
"""

from __future__ import annotations

import itertools
import os
import queue
import signal
import stat
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as futures_wait
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

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
from sim.files import (
    hold_writer_lock,
    is_read_only_error,
    os_error_line,
    raise_if_locked,
    write_bytes_atomic,
)
from sim.games.base import MAX_DATA_FILE_BYTES
from sim.games.registry import get_game
from sim.pool import discard_pools, pool_size, start_pool, worker_count, worker_limit
from sim.seating import LEGACY_POOL_DESIGN, POOL_DESIGNS, pool_lineups
from sim.seeding import deal_seeds, strategy_seeds
from sim.signals import stop_handlers_installed, stop_signals_held
from sim.store import (
    DEAL_SUMS_DIR,
    INPUT_DIR,
    MANIFEST,
    MANIFEST_FORMAT,
    NOTABLE_DIR,
    SHARD_FILES,
    STRATEGY_COPIES,
    adopt_recorded_shards,
    deal_sums_frame,
    file_record,
    legacy_finished_shards,
    manifest_stamp,
    parquet_bytes,
    read_manifest,
    remove_temporary_files,
    rows_frame,
    shard_dir,
    shard_name,
    summary_frame,
    verified_shards,
    write_manifest,
    write_shard,
)
from sim.strategy_spec import parse_strategy, split_strategy_text, strategy_file


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to play one shard (picklable; carries the loaded data so remote
    workers need no access to the config's files)."""

    index: int
    first_game: int
    games: int
    config: BatchConfig
    data: Any
    # More than 1: this task is one of that many pieces of shard ``index`` (its own range of
    # games); the pieces are played apart and joined into the shard before it is encoded.
    pieces: int = 1


@dataclass(frozen=True)
class ShardOutput:
    """What a worker sends back: the shard's files as bytes, and how long it took."""

    index: int
    games: int
    result_bytes: bytes
    notable_bytes: bytes | None
    seconds: float
    # The summary store's per-deal sums (``sim.store.deal_sums_frame``); None for rows.
    deal_bytes: bytes | None = None


def game_design(config: BatchConfig, first_game: int, games: int):
    """Game ids, deal ids, replicates and per-seat lineup indices of a range of games."""
    game_ids = np.arange(first_game, first_game + games, dtype=np.int64)
    deal_ids = game_ids // config.replicates_per_deal
    replicates = game_ids % config.replicates_per_deal
    seats = np.arange(config.players, dtype=np.int64)
    if config.rotate:
        pool = len(config.lineup)
        players = config.players
        rotation = deal_ids[:, None] + replicates[:, None] + seats[None, :]
        if pool <= players:
            # Every game has the same mix (the pool repeated to fill the seats) and its
            # rotations move each strategy through every seat: seats stay comparable.
            seat_lineup = (rotation % players) % pool
        elif (config.pool_design or LEGACY_POOL_DESIGN) == LEGACY_POOL_DESIGN:
            # A batch started before pool designs: cyclic and mirrored rotations of the whole
            # pool, kept so that it resumes byte-identically.
            schedule = pool_lineups(pool, players, LEGACY_POOL_DESIGN)
            seat_lineup = schedule[(deal_ids + replicates) % len(schedule)]
        else:
            # A design balanced by construction (sim.seating.pool_lineups): game g plays
            # lineup g mod L, so R a multiple of L gives every deal every lineup.
            schedule = pool_lineups(pool, players, config.pool_design)
            seat_lineup = schedule[game_ids % len(schedule)]
    else:
        seat_lineup = np.broadcast_to(seats, (games, config.players))
    return game_ids, deal_ids, replicates, np.ascontiguousarray(seat_lineup)


@dataclass(frozen=True)
class PlayedShard:
    """A shard whose games are played, before its files are encoded (``encode_shard``)."""

    task: ShardTask
    specs: list
    game_ids: np.ndarray
    deal_ids: np.ndarray
    replicates: np.ndarray
    seat_lineup: np.ndarray
    deals: np.ndarray
    strategies: np.ndarray
    columns: dict
    start: float


def play_shard_games(task: ShardTask) -> PlayedShard:
    """Play the games of one shard (the compiled kernel; it releases the GIL meanwhile)."""
    start = time.perf_counter()
    config = task.config
    game = get_game(config.game)
    specs = [parse_strategy(config.loadable(label), game.strategies(), "config")
             for label in config.lineup]
    game_ids, deal_ids, replicates, seat_lineup = game_design(config, task.first_game, task.games)
    deals = deal_seeds(config.seed, deal_ids)
    strategies = strategy_seeds(config.seed, deal_ids, replicates)
    # Only a traced batch passes ``trace``: a game without the trace never sees the option.
    traced = {"trace": True} if config.trace else {}
    columns = game.play_shard(task.data, config.players, config.rules, specs, seat_lineup,
                              deals, strategies, **traced)
    return PlayedShard(task, specs, game_ids, deal_ids, replicates, seat_lineup, deals,
                       strategies, columns, start)


def encode_shard(played: PlayedShard) -> ShardOutput:
    """The files of a played shard as bytes: its rows (or summary) and its notable games."""
    task, config, columns = played.task, played.task.config, played.columns
    game = get_game(config.game)
    players = config.players
    labels = pl.Series("strategy", list(config.lineup), dtype=pl.String)
    common = {
        "game_id": np.repeat(played.game_ids, players),
        "deal_id": np.repeat(played.deal_ids, players),
        "replicate": np.repeat(played.replicates, players).astype(np.int32),
        "deal_seed": np.repeat(played.deals, players),
        "strategy_seed": np.repeat(played.strategies, players),
        "players": np.full(task.games * players, players, dtype=np.int8),
        "seat": columns["seat"].astype(np.int8),
        "strategy": labels.gather(played.seat_lineup.reshape(-1)),
        "score": columns["score"].astype(np.int16),
        "rank": columns["rank"].astype(np.int8),
        "win": columns["win"].astype(np.float32),
    }
    rows = rows_frame(common, columns, config.rules)
    if config.tags:
        rows = rows.with_columns(pl.lit(value).alias(name) for name, value in config.tags.items())
    notable = notable_games(game, task, rows, played.specs, played.seat_lineup, played.deals,
                            played.strategies)
    deal_sums = None
    if config.store == "rows":
        result = parquet_bytes(rows)
    else:
        result = parquet_bytes(summary_frame(rows, config.rules))
        deal_sums = parquet_bytes(deal_sums_frame(rows, config.rules))
    return ShardOutput(task.index, task.games, result, notable,
                       time.perf_counter() - played.start, deal_sums)


def play_shard_task(task: ShardTask) -> ShardOutput | PlayedShard:
    """What a worker runs: a shard played and its files encoded; a piece of a shard
    (``task.pieces`` > 1) only played (``join_pieces`` encodes the shard once all its pieces
    are in)."""
    played = play_shard_games(task)
    return encode_shard(played) if task.pieces == 1 else played


def _concatenated(parts: list) -> Any:
    """The pieces of one result column (numpy arrays or polars Series), end to end."""
    if isinstance(parts[0], pl.Series):
        return pl.concat(parts, rechunk=True)
    return np.concatenate(parts)


def join_pieces(pieces: list[PlayedShard]) -> PlayedShard:
    """The played pieces of one shard as that shard played whole (every game depends only on
    its own seeds, so the rows, and the files encoded from them, are the same)."""
    pieces = sorted(pieces, key=lambda piece: piece.task.first_game)
    first = pieces[0]
    task = replace(first.task, games=sum(piece.task.games for piece in pieces), pieces=1)
    arrays = {name: np.concatenate([getattr(piece, name) for piece in pieces])
              for name in ("game_ids", "deal_ids", "replicates", "seat_lineup", "deals",
                           "strategies")}
    columns = {name: _concatenated([piece.columns[name] for piece in pieces])
               for name in first.columns}
    return PlayedShard(task, first.specs, columns=columns,
                       start=min(piece.start for piece in pieces), **arrays)


def notable_games(game, task, rows, specs, seat_lineup, deals, strategies) -> bytes | None:
    """Drawings of the shard's highest- and lowest-scoring games (by the best score of the
    game), replayed from their seeds, for the report: the text drawing of each seat's final
    position and its SVG (``Game.final_svgs``; null when the game draws none)."""
    # Rows come game by game, one per seat (numpy here: polars' group-by and filters cost
    # more than a shard of fast games takes to play).
    players = task.config.players
    game_ids = rows["game_id"].to_numpy()[::players]
    scores = rows["score"].to_numpy().reshape(-1, players)
    seats = rows["seat"].to_numpy().reshape(-1, players)
    by_score = np.lexsort((game_ids, scores.max(axis=1)))  # ties: the lower game id first
    records = []
    for kind, offset in (("lowest", int(by_score[0])), ("highest", int(by_score[-1]))):
        game_id = int(game_ids[offset])
        lineup = [specs[i] for i in seat_lineup[offset]]
        labels = [task.config.lineup[i] for i in seat_lineup[offset]]
        drawings = game.final_drawings(task.data, task.config.players, task.config.rules,
                                       lineup, deals[offset], strategies[offset])
        if drawings is None:
            return None  # the game draws no positions
        svgs = game.final_svgs(task.data, task.config.players, task.config.rules, lineup,
                               deals[offset], strategies[offset], labels=labels)
        seat_scores = scores[offset][np.argsort(seats[offset])]
        for seat, drawing in enumerate(drawings):
            records.append({"game_id": game_id, "kind": kind, "seat": seat,
                            "strategy": labels[seat],
                            "score": int(seat_scores[seat]), "drawing": drawing,
                            "svg": None if svgs is None else svgs[seat]})
    frame = pl.DataFrame(records, schema={"game_id": pl.Int64, "kind": pl.String,
                                          "seat": pl.Int8, "strategy": pl.String,
                                          "score": pl.Int16, "drawing": pl.String,
                                          "svg": pl.String})
    return parquet_bytes(frame)


# Set to a file path, it makes the runner create that file and wait (up to a minute) right
# after writing a shard's result file and before its notable-games file: crash tests use it to
# kill a run exactly between the files of one shard.
PAUSE_BETWEEN_SHARD_FILES = "SIM_TEST_PAUSE_BETWEEN_SHARD_FILES"

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


def shard_tasks(config: BatchConfig, data: Any, pending: Iterable[int]) -> Iterator[ShardTask]:
    """Tasks for the pending shards, in shard order (lazily: a huge batch is never listed)."""
    for index in pending:
        first = index * config.shard_size
        yield ShardTask(index, first, min(config.shard_size, config.games - first), config, data)


def shard_games(config: BatchConfig, index: int) -> int:
    """Number of games in shard ``index``."""
    return min(config.shard_size, config.games - index * config.shard_size)


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


def _pending_shards(config: BatchConfig, done: dict[int, Any]) -> Iterator[int]:
    return (index for index in range(config.shards) if index not in done)


def _thread_holding_stop_signals(function, *arguments) -> threading.Thread:
    """A daemon thread running ``function``, started with SIGINT and SIGTERM held back in it
    (a thread inherits the mask of the thread that starts it): a Ctrl-C always goes to the main
    thread, never to a helper thread while the main thread is in a kernel (see
    ``sim.signals.stop_signals_held``)."""
    thread = threading.Thread(target=function, args=arguments, daemon=True,
                              name=f"sim-{function.__name__}")
    with stop_signals_held():
        thread.start()
    return thread


def _run_pipelined(tasks: Iterable[ShardTask]) -> Iterator[ShardOutput]:
    """One worker, the main thread: while a helper thread encodes shard k (rows, notable
    games' replays, Parquet), the kernel plays shard k + 1 (it releases the GIL). Outputs
    come in shard order; an error while encoding reaches the caller when that shard's output
    is due, so the shard is never written."""
    jobs: queue.Queue = queue.Queue()
    done: queue.Queue = queue.Queue()

    def encode_shards() -> None:
        while (played := jobs.get()) is not None:
            try:
                done.put((encode_shard(played), None))
            except BaseException as error:  # handed to the main thread, raised there
                done.put((None, error))

    def next_encoded() -> ShardOutput:
        output, error = done.get()
        if error is not None:
            raise error
        return output

    encoder = _thread_holding_stop_signals(encode_shards)
    waiting = 0
    try:
        for task in tasks:
            played = play_shard_games(task)
            if waiting:
                waiting -= 1
                yield next_encoded()
            jobs.put(played)
            waiting += 1
        while waiting:
            waiting -= 1
            yield next_encoded()
    finally:
        jobs.put(None)
        encoder.join()


def _run_with_pool(tasks: Iterable[ShardTask], workers: int,
                   executor) -> Iterator[ShardOutput]:
    """``workers`` processes: this one plays shards as in a one-worker run, and a pool of
    ``workers - 1`` loky processes plays the others, fed by a helper thread that hands a pool
    worker its next shard as soon as it finishes one (the kernel releases the GIL, so it does
    so while this process plays). This process starts playing at once; while the pool's
    processes start Python and load the kernels (about 1.4 s of a core each), as many helper
    threads here play shards in their place, each until the pool has sent back one shard per
    process (the cores would stand idle otherwise: a run of 300,000 fast games takes about 11 s
    on two). All take shards from one queue, so they end within a shard of each other."""
    tasks = iter(tasks)
    lock = threading.Lock()
    stop = threading.Event()
    finished: queue.Queue = queue.Queue()
    slots = workers - 1
    pool_warm = threading.Event()  # the pool has sent back ``slots`` shards

    def next_task() -> ShardTask | None:
        with lock:
            return None if stop.is_set() else next(tasks, None)

    def feed_pool() -> None:
        in_flight: set = set()
        returned = 0
        try:
            while True:
                while len(in_flight) < slots and (task := next_task()) is not None:
                    in_flight.add(executor.submit(play_shard_task, task))
                if not in_flight:
                    return
                ready, in_flight = futures_wait(in_flight, timeout=0.2,
                                                return_when=FIRST_COMPLETED)
                for future in ready:
                    finished.put(future)
                returned += len(ready)
                if returned >= slots:
                    pool_warm.set()
                if stop.is_set():
                    for future in in_flight:
                        future.cancel()
                    return
        except BaseException as error:  # handed to the main thread, raised there
            finished.put(error)
        finally:
            pool_warm.set()
            finished.put(None)

    def fill_in() -> None:
        try:
            while not pool_warm.is_set() and (task := next_task()) is not None:
                played: Future = Future()
                played.set_result(play_shard_task(task))
                finished.put(played)
        except BaseException as error:
            finished.put(error)
        finally:
            finished.put(None)

    helpers = [_thread_holding_stop_signals(feed_pool)]
    helpers += [_thread_holding_stop_signals(fill_in) for _ in range(slots)]
    helpers_left = len(helpers)

    def take(block: bool) -> Iterator[ShardOutput]:
        nonlocal helpers_left
        while helpers_left:
            try:
                item = finished.get(block=block)
            except queue.Empty:
                return
            if item is None:
                helpers_left -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item.result()

    def stop_helpers(wait: bool) -> None:
        stop.set()  # no helper takes another shard (``next_task`` gives None)
        if wait:
            for helper in helpers:
                helper.join()

    try:
        while (task := next_task()) is not None:
            yield play_shard_task(task)
            yield from take(block=False)
        yield from take(block=True)
    except BaseException:
        # Stopped (an error, Ctrl-C): no waiting for a fill-in thread to finish the shard its
        # kernel is playing (a slow strategy's shard takes minutes; nothing will write it).
        # They are daemon threads and take no other shard.
        stop_helpers(wait=False)
        discard_pools()
        raise
    else:
        stop_helpers(wait=True)


# How many pieces each of a run's last shards is played in, per worker.
TAIL_PIECES_PER_WORKER = 2


def split_tail(tasks: Iterable[ShardTask], workers: int) -> Iterator[ShardTask]:
    """``tasks`` with the last ``workers`` shards each cut into ``TAIL_PIECES_PER_WORKER x
    workers`` pieces (fewer when a shard has fewer games). Workers take shards from one queue,
    so the first to run out of work waits for the others' last shard: half a shard of one
    core on average, 1% of a 2-worker run of 1,000,000 fast games and up to a whole shard of
    a slow strategy's. Small last pieces keep every worker busy nearly to the end."""
    held: list[ShardTask] = []
    for task in tasks:
        held.append(task)
        if len(held) > workers:
            yield held.pop(0)
    for task in held:
        pieces = min(task.games, TAIL_PIECES_PER_WORKER * workers)
        if pieces <= 1:
            yield task
            continue
        bounds = np.linspace(0, task.games, pieces + 1).astype(np.int64)
        for start, end in itertools.pairwise(bounds.tolist()):
            yield replace(task, first_game=task.first_game + start, games=end - start,
                          pieces=pieces)


def join_pieces_as_they_come(outputs: Iterable[ShardOutput | PlayedShard]
                             ) -> Iterator[ShardOutput]:
    """``outputs`` with the pieces of a shard held back until all are in, then joined and
    encoded into the shard's output."""
    waiting: dict[int, list[PlayedShard]] = {}
    try:
        for output in outputs:
            if isinstance(output, ShardOutput):
                yield output
                continue
            pieces = waiting.setdefault(output.task.index, [])
            pieces.append(output)
            if len(pieces) == output.task.pieces:
                del waiting[output.task.index]
                yield encode_shard(join_pieces(pieces))
    finally:
        # Closed early (an error, Ctrl-C): the run's workers stop now, not when collected.
        close = getattr(outputs, "close", None)
        if close is not None:
            close()


def _run_local(tasks: Iterable[ShardTask], workers: int, pool) -> Iterator[ShardOutput]:
    """Outputs of the local backend: one worker pipelined, more with ``pool``
    (``sim.pool.start_pool`` with ``workers - 1`` processes), the last shards in pieces
    (``split_tail``)."""
    if workers == 1:
        yield from _run_pipelined(tasks)
    else:
        yield from join_pieces_as_they_come(
            _run_with_pool(split_tail(tasks, workers), workers, pool))


def _run_dask(tasks: Iterable[ShardTask], workers: int,
              scheduler: str | None) -> Iterator[ShardOutput]:
    from dask.distributed import as_completed

    from sim.distributed import dask_client

    # One client per batch (or the one a command keeps open); an unreachable scheduler is a
    # one-line error before anything is submitted.
    with dask_client(workers, scheduler) as client:
        # A bounded window of tasks in flight keeps memory flat in the number of shards.
        window = max(2, 2 * workers)
        pending = iter(tasks)
        futures = as_completed()
        for task in pending:
            futures.add(client.submit(play_shard_task, task, pure=False))
            if futures.count() >= window:
                break
        for future in futures:
            yield future.result()
            future.release()
            nxt = next(pending, None)
            if nxt is not None:
                futures.add(client.submit(play_shard_task, nxt, pure=False))


@dataclass
class RunSummary:
    """What a run did: where, how many games, how fast, and whether it finished."""

    run_dir: Path
    games_played: int
    seconds: float
    complete: bool
    shards_done: int
    shards_total: int

    @property
    def games_per_second(self) -> float:
        """Throughput of this session."""
        return self.games_played / self.seconds if self.seconds > 0 else 0.0


def _close(outputs) -> None:
    close = getattr(outputs, "close", None)
    if close is not None:
        close()


class ManifestKeeper:
    """Writes a batch's manifest for its writer, only ever advancing it: before each write it
    looks whether the file on disk changed since its own last write (one ``stat``) and, if so,
    adopts the finished shards recorded there that it lacks (``sim.store.adopt_recorded_shards``),
    so a writer never records fewer finished shards than the manifest on disk already has. With
    the writer lock there is no one else; this guards a lock file removed by hand, or a folder
    shared by machines whose locks do not see each other."""

    def __init__(self, run_dir: Path, manifest: dict[str, Any], config: BatchConfig,
                 records: dict[int, list[dict[str, Any]]]) -> None:
        self.run_dir = run_dir
        self.manifest = manifest
        self.config = config
        self.records = records
        self.stamp = manifest_stamp(run_dir)

    def write(self) -> None:
        """Write the manifest, with the shards someone else recorded meanwhile adopted."""
        if manifest_stamp(self.run_dir) != self.stamp:
            adopted = adopt_recorded_shards(self.run_dir, self.manifest, self.config.shards)
            self.records.update(adopted)
        self.manifest["shards_done"] = sorted(self.records)
        write_manifest(self.run_dir, self.manifest)
        self.stamp = manifest_stamp(self.run_dir)


def _finish_run(keeper: ManifestKeeper, outputs, previous_handler, timing: dict,
                interrupted: bool) -> None:
    """Stop the workers and write the manifest's final status and ``timing`` (safe to
    repeat: the timing is recorded once)."""
    signal.signal(signal.SIGTERM, previous_handler)
    _close(outputs)
    manifest, records = keeper.manifest, keeper.records
    if manifest_stamp(keeper.run_dir) != keeper.stamp:
        records.update(adopt_recorded_shards(keeper.run_dir, manifest, keeper.config.shards))
    complete = len(records) == keeper.config.shards
    manifest["status"] = "complete" if complete else ("interrupted" if interrupted else "partial")
    if not isinstance(manifest.get("timings"), list):
        manifest["timings"] = []
    if not manifest["timings"] or manifest["timings"][-1] is not timing:
        manifest["timings"].append(timing)
    keeper.write()


def check_workers(workers: int, option: str = "--workers") -> int:
    """``workers`` checked: 0 (every core) up to ``sim.pool.worker_limit`` (4 per core), else a
    one-line InputError."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InputError(f"{option}: must be 0 (all cores) or more, got {workers!r}")
    limit = worker_limit()
    if workers > limit:
        raise InputError(f"{option}: at most {limit} (4 per core of this machine), got "
                         f"{workers}")
    return workers


def _complete_without_writing(config: BatchConfig, run_dir: Path,
                              error: OSError) -> RunSummary:
    """A resume of a batch folder that cannot be written (a read-only medium, no permission):
    nothing to do when every shard is finished (files checked, size and SHA-256), else the
    one-line error says why it cannot go on and what to do."""
    manifest = read_manifest(run_dir)
    records = finished_shard_records(run_dir, manifest, config)
    if len(records) == config.shards:
        return RunSummary(run_dir, 0, 0.0, True, len(records), config.shards)
    raise InputError(f"{os_error_line(error)}; the batch has {len(records)} of "
                     f"{config.shards} shards: copy its folder somewhere writable and resume "
                     f"it there") from None


def run_batch(config: BatchConfig, *, workers: int = 0, backend: str = "local",
              scheduler: str | None = None, resume: bool = False,
              progress: Callable[[int, int], None] | None = None,
              stop_after_shards: int | None = None, run_dir: Path | None = None) -> RunSummary:
    """Play every unfinished shard of ``config`` and write it into ``run_dir`` (default
    ``config.output``); returns what was done.

    A shard is finished once all its files are written and the manifest records them (path,
    size, SHA-256); a resume checks every recorded file and plays again the shards whose files
    are missing or damaged. ``progress(games_done_total, games_total)`` is called after each
    shard. Ctrl-C stops after writing nothing partial: finished shards stay, and ``--resume``
    completes the batch. ``stop_after_shards`` ends the session early (for tests of resuming).

    One process writes a batch at a time: the run holds the folder's writer lock
    (``sim.files.hold_writer_lock``) from before it writes anything to its end; a second one
    gets a one-line error naming the holder and writes nothing. A resume of a finished batch
    in a folder that cannot be written says it is complete instead of failing."""
    if backend not in ("local", "dask"):
        raise InputError(f"--backend: '{backend}' is not one of local, dask")
    workers = worker_count(check_workers(workers))
    run_dir = Path(run_dir if run_dir is not None else config.output)
    # Refused before anything is created: a file as the folder, another batch, nothing to resume.
    check_run_dir(config, bool(resume), run_dir)
    # Then the lineup's code, if a caller has not loaded it yet (``load_code=False``).
    load_lineup_code(config)
    try:
        lock = hold_writer_lock(run_dir, "batch")
    except OSError as error:
        if resume and is_read_only_error(error):
            return _complete_without_writing(config, run_dir, error)
        raise
    with lock:
        return _run_holding_lock(config, run_dir, workers=workers, backend=backend,
                                 scheduler=scheduler, resume=resume, progress=progress,
                                 stop_after_shards=stop_after_shards)


def _run_holding_lock(config: BatchConfig, run_dir: Path, *, workers: int, backend: str,
                      scheduler: str | None, resume: bool,
                      progress: Callable[[int, int], None] | None,
                      stop_after_shards: int | None) -> RunSummary:
    """``run_batch`` once its writer lock is held."""
    game = get_game(config.game)
    processes = pool_size(workers, backend)
    pool = start_pool(processes, config.game) if processes else None
    data = game.load_data(config.data_file)
    if game.data_digest(data) != config.data_digest:
        where = config.data_file or "the shipped data"
        raise InputError(f"{where}: field '{game.data_option}': the data changed since this "
                         f"batch started (its content hash is not the manifest's "
                         f"config.data_digest)")
    # Checked again under the lock: another run may have created the batch meanwhile.
    run_dir, manifest = prepare_run_dir(config, resume, run_dir)
    remove_temporary_files(run_dir)
    folder = shard_dir(config.store)
    records = finished_shard_records(run_dir, manifest, config)
    keeper = ManifestKeeper(run_dir, manifest, config, records)
    pending: Iterable[int] = _pending_shards(config, records)
    if stop_after_shards is not None:
        pending = itertools.islice(pending, stop_after_shards)
    manifest[SHARD_FILES] = {str(index): files for index, files in sorted(records.items())}
    manifest["status"] = "running"
    keeper.write()
    games_done = sum(shard_games(config, index) for index in records)
    if progress:
        progress(games_done, config.games)
    pause_marker = os.environ.get(PAUSE_BETWEEN_SHARD_FILES)
    tasks = shard_tasks(config, data, pending)
    outputs = _run_local(tasks, workers, pool) if backend == "local" else \
        _run_dask(tasks, workers, scheduler)
    start = time.perf_counter()
    played = 0
    interrupted = False
    previous_handler = signal.getsignal(signal.SIGTERM)
    if not stop_handlers_installed():
        # SIGTERM ends a run like Ctrl-C: finished shards are kept, the manifest says
        # interrupted (the `sim` command's own handler, ``sim.signals``, does so already).
        signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for output in outputs:
            # A shard's files and its manifest entry are written whole: a signal waits for
            # them (a fraction of a second), so a stop never leaves a shard written but not
            # recorded.
            with stop_signals_held():
                path = write_shard(run_dir, folder, output.index, output.result_bytes)
                files = [file_record(run_dir, path, output.result_bytes)]
                if pause_marker:
                    Path(pause_marker).touch()
                    time.sleep(60)
                if output.notable_bytes is not None:
                    path = write_shard(run_dir, NOTABLE_DIR, output.index, output.notable_bytes)
                    files.append(file_record(run_dir, path, output.notable_bytes))
                if output.deal_bytes is not None:
                    path = write_shard(run_dir, DEAL_SUMS_DIR, output.index, output.deal_bytes)
                    files.append(file_record(run_dir, path, output.deal_bytes))
                # Only now, with every file of the shard written, does the manifest call it
                # done.
                records[output.index] = files
                played += output.games
                games_done += output.games
                manifest[SHARD_FILES][str(output.index)] = files
                keeper.write()
            if progress:
                progress(games_done, config.games)
    except KeyboardInterrupt:
        interrupted = True
    except BaseException:
        signal.signal(signal.SIGTERM, previous_handler)
        _close(outputs)
        raise
    # The batch's last word (its status) must reach the manifest even when a signal lands
    # after the loop: it waits while the manifest is written (``stop_signals_held``), and one
    # that came just before, or is let through as the stretch ends, is caught and the
    # (idempotent) finishing done again, now as interrupted.
    timing = None
    while True:
        try:
            with stop_signals_held():
                if timing is None:
                    seconds = time.perf_counter() - start
                    timing = {"games": played, "seconds": round(seconds, 3),
                              "games_per_second": round(played / seconds, 1) if seconds else 0,
                              "workers": workers, "backend": backend}
                _finish_run(keeper, outputs, previous_handler, timing, interrupted)
            break
        except KeyboardInterrupt:
            interrupted = True
    if interrupted:
        raise KeyboardInterrupt
    complete = len(records) == config.shards
    return RunSummary(run_dir, played, seconds, complete, len(records), config.shards)
