"""The batch runner: plays a ``BatchConfig`` in shards, in parallel, into Parquet, resumably.

Design of experiments: game ``g`` of a batch is replicate ``g % R`` of deal ``g // R``
(``R = replicates_per_deal``). The deal seed depends on the deal only and the strategy seed on
(deal, replicate), both from the master seed through SeedSequence (``sim.seeding``), so every
lineup, rules setting or replicate can be played on the same deals. With a rotating pool of K
strategies and P players, rotation ``r = deal + replicate`` gives seat ``s`` the strategy
``pool[((r + s) % P) % K]`` when K <= P: every game has the same mix (the pool repeated to fill
the seats) and over P rotations each strategy sits in every seat equally often, so seats stay
comparable. With more strategies than seats (K > P), seat ``s`` gets ``pool[(r + s) % K]``.

A shard is a contiguous range of games: one compiled call that returns arrays, turned into one
Parquet file by the worker and written by the parent. Results never depend on the worker count,
the shard size or the backend, only on the config.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim import __version__
from sim.config import BatchConfig
from sim.errors import InputError
from sim.games.registry import get_game
from sim.seeding import deal_seeds, strategy_seeds
from sim.store import (
    MANIFEST_FORMAT,
    NOTABLE_DIR,
    finished_shards,
    parquet_bytes,
    read_manifest,
    remove_temporary_files,
    rows_frame,
    shard_dir,
    summary_frame,
    write_manifest,
    write_shard,
)
from sim.strategy_spec import parse_strategy


@dataclass(frozen=True)
class ShardTask:
    """Everything a worker needs to play one shard (picklable; carries the loaded data so remote
    workers need no access to the config's files)."""

    index: int
    first_game: int
    games: int
    config: BatchConfig
    data: Any


@dataclass(frozen=True)
class ShardOutput:
    """What a worker sends back: the shard's files as bytes, and how long it took."""

    index: int
    games: int
    result_bytes: bytes
    notable_bytes: bytes | None
    seconds: float


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
        else:
            # More strategies than seats: each strategy still sits in every seat equally often.
            seat_lineup = rotation % pool
    else:
        seat_lineup = np.broadcast_to(seats, (games, config.players))
    return game_ids, deal_ids, replicates, np.ascontiguousarray(seat_lineup)


def play_shard_task(task: ShardTask) -> ShardOutput:
    """Play one shard and encode its files (runs in a worker process)."""
    start = time.perf_counter()
    config = task.config
    game = get_game(config.game)
    specs = [parse_strategy(label, game.strategies(), "config") for label in config.lineup]
    game_ids, deal_ids, replicates, seat_lineup = game_design(config, task.first_game, task.games)
    deals = deal_seeds(config.seed, deal_ids)
    strategies = strategy_seeds(config.seed, deal_ids, replicates)
    columns = game.play_shard(task.data, config.players, config.rules, specs, seat_lineup,
                              deals, strategies)
    players = config.players
    labels = np.array(config.lineup, dtype=object)
    common = {
        "game_id": np.repeat(game_ids, players),
        "deal_id": np.repeat(deal_ids, players),
        "replicate": np.repeat(replicates, players).astype(np.int32),
        "deal_seed": np.repeat(deals, players),
        "strategy_seed": np.repeat(strategies, players),
        "players": np.full(task.games * players, players, dtype=np.int8),
        "seat": columns["seat"].astype(np.int8),
        "strategy": pl.Series("strategy", labels[seat_lineup.reshape(-1)].tolist(),
                              dtype=pl.String),
        "score": columns["score"].astype(np.int16),
        "rank": columns["rank"].astype(np.int8),
        "win": columns["win"].astype(np.float32),
    }
    rows = rows_frame(common, columns, config.rules)
    if config.tags:
        rows = rows.with_columns(pl.lit(value).alias(name) for name, value in config.tags.items())
    notable = notable_games(game, task, rows, specs, seat_lineup, deals, strategies)
    if config.store == "rows":
        result = parquet_bytes(rows)
    else:
        result = parquet_bytes(summary_frame(rows, config.rules))
    return ShardOutput(task.index, task.games, result, notable, time.perf_counter() - start)


def notable_games(game, task, rows, specs, seat_lineup, deals, strategies) -> bytes | None:
    """Drawings of the shard's highest- and lowest-scoring games (by the best score of the
    game), replayed from their seeds, for the report."""
    best = rows.group_by("game_id").agg(pl.col("score").max()).sort(["score", "game_id"])
    picks = [("lowest", int(best["game_id"][0])), ("highest", int(best["game_id"][-1]))]
    records = []
    for kind, game_id in picks:
        offset = game_id - task.first_game
        lineup = [specs[i] for i in seat_lineup[offset]]
        drawings = game.final_drawings(task.data, task.config.players, task.config.rules,
                                       lineup, deals[offset], strategies[offset])
        if drawings is None:
            return None  # the game draws no positions
        seat_rows = rows.filter(pl.col("game_id") == game_id).sort("seat")
        for seat, drawing in enumerate(drawings):
            records.append({"game_id": game_id, "kind": kind, "seat": seat,
                            "strategy": lineup[seat].label(),
                            "score": int(seat_rows["score"][seat]), "drawing": drawing})
    frame = pl.DataFrame(records, schema={"game_id": pl.Int64, "kind": pl.String,
                                          "seat": pl.Int8, "strategy": pl.String,
                                          "score": pl.Int16, "drawing": pl.String})
    return parquet_bytes(frame)


def new_manifest(config: BatchConfig) -> dict[str, Any]:
    """The manifest of a batch that has not started."""
    return {
        "format": MANIFEST_FORMAT,
        "name": config.name,
        "game": config.game,
        "config": config.to_json(),
        "config_hash": config.digest(),
        "data_digest": config.data_digest,
        "sim_version": __version__,
        "store": config.store,
        "games_total": config.games,
        "shards_total": config.shards,
        "shard_size": config.shard_size,
        "shards_done": [],
        "timings": [],
        "status": "running",
    }


def config_from_manifest(manifest: dict[str, Any]) -> BatchConfig:
    """The BatchConfig a manifest was written for."""
    stored = dict(manifest["config"])
    stored["lineup"] = tuple(stored["lineup"])
    stored.setdefault("tags", {})
    return BatchConfig(**stored)


def prepare_run_dir(config: BatchConfig, resume: bool) -> tuple[Path, dict[str, Any]]:
    """Create or reopen the output folder. A fresh run refuses a folder that already holds a
    batch; a resume refuses a folder whose batch has another config."""
    run_dir = Path(config.output)
    manifest_path = run_dir / "manifest.json"
    if manifest_path.exists():
        manifest = read_manifest(run_dir)
        if manifest.get("config_hash") != config.digest():
            stored = config_from_manifest(manifest)
            changed = [k for k, v in config.to_json().items() if stored.to_json().get(k) != v]
            raise InputError(f"{manifest_path}: field 'config': this folder holds a batch with "
                             f"another config (differs in: {', '.join(changed)}); "
                             f"use another --out or the same config")
        if not resume:
            raise InputError(f"{run_dir}: a batch is already here; add --resume to finish it "
                             f"or choose another --out")
        return run_dir, manifest
    if resume:
        raise InputError(f"{manifest_path}: nothing to resume (no manifest)")
    run_dir.mkdir(parents=True, exist_ok=True)
    manifest = new_manifest(config)
    write_manifest(run_dir, manifest)
    return run_dir, manifest


def shard_tasks(config: BatchConfig, data: Any, pending: list[int]) -> Iterator[ShardTask]:
    """Tasks for the pending shards, in shard order."""
    for index in pending:
        first = index * config.shard_size
        yield ShardTask(index, first, min(config.shard_size, config.games - first), config, data)


def _run_local(tasks: list[ShardTask], workers: int) -> Iterator[ShardOutput]:
    if workers == 1:
        for task in tasks:
            yield play_shard_task(task)
        return
    from joblib import Parallel, delayed

    parallel = Parallel(n_jobs=workers, backend="loky", return_as="generator_unordered",
                        pre_dispatch="2*n_jobs")
    yield from parallel(delayed(play_shard_task)(task) for task in tasks)


def _run_dask(tasks: list[ShardTask], workers: int, scheduler: str | None) -> Iterator[ShardOutput]:
    from dask.distributed import Client, LocalCluster, as_completed

    cluster = None
    if scheduler:
        client = Client(scheduler, timeout="30s")
    else:
        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address=None)
        client = Client(cluster)
    try:
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
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


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


def run_batch(config: BatchConfig, *, workers: int = 0, backend: str = "local",
              scheduler: str | None = None, resume: bool = False,
              progress: Callable[[int, int], None] | None = None,
              stop_after_shards: int | None = None) -> RunSummary:
    """Play every unfinished shard of ``config`` and write it; returns what was done.

    ``progress(games_done_total, games_total)`` is called after each shard. Ctrl-C stops after
    writing nothing partial: finished shards stay, and ``--resume`` completes the batch.
    ``stop_after_shards`` ends the session early (for tests of resuming)."""
    if backend not in ("local", "dask"):
        raise InputError(f"--backend: '{backend}' is not one of local, dask")
    workers = workers or os.cpu_count() or 1
    game = get_game(config.game)
    data = game.load_data(config.data_file)
    if game.data_digest(data) != config.data_digest:
        raise InputError(f"{config.data_file}: field '{game.data_option}': the file changed "
                         f"since this batch started (content hash differs)")
    run_dir, manifest = prepare_run_dir(config, resume)
    remove_temporary_files(run_dir)
    folder = shard_dir(config.store)
    done = finished_shards(run_dir, config.store)
    pending = [i for i in range(config.shards) if i not in done]
    if stop_after_shards is not None:
        pending = pending[:stop_after_shards]
    manifest["shards_done"] = sorted(done)
    manifest["status"] = "running"
    write_manifest(run_dir, manifest)
    games_done = sum(min(config.shard_size, config.games - i * config.shard_size) for i in done)
    if progress:
        progress(games_done, config.games)
    tasks = list(shard_tasks(config, data, pending))
    outputs = _run_local(tasks, workers) if backend == "local" else \
        _run_dask(tasks, workers, scheduler)
    start = time.perf_counter()
    played = 0
    interrupted = False
    previous_handler = signal.getsignal(signal.SIGTERM)
    # SIGTERM ends a run like Ctrl-C: finished shards are kept, the manifest says interrupted.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        for output in outputs:
            write_shard(run_dir, folder, output.index, output.result_bytes)
            if output.notable_bytes is not None:
                write_shard(run_dir, NOTABLE_DIR, output.index, output.notable_bytes)
            done.add(output.index)
            played += output.games
            games_done += output.games
            manifest["shards_done"] = sorted(done)
            write_manifest(run_dir, manifest)
            if progress:
                progress(games_done, config.games)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
        close = getattr(outputs, "close", None)
        if close is not None:
            close()
    seconds = time.perf_counter() - start
    # The files are the truth: an interrupt may land between writing a shard and noting it.
    done = finished_shards(run_dir, config.store)
    manifest["shards_done"] = sorted(done)
    complete = len(done) == config.shards
    manifest["status"] = "complete" if complete else ("interrupted" if interrupted else "partial")
    manifest["timings"].append({"games": played, "seconds": round(seconds, 3),
                                "games_per_second": round(played / seconds, 1) if seconds else 0,
                                "workers": workers, "backend": backend})
    write_manifest(run_dir, manifest)
    if interrupted:
        raise KeyboardInterrupt
    return RunSummary(run_dir, played, seconds, complete, len(done), config.shards)
