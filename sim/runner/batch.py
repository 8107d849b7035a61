"""The run of a batch: ``run_batch`` takes the batch folder's writer lock, plays every unfinished
shard on a backend (``sim.runner.backends``) and writes each shard's files and then the manifest
entry that makes it done (``ManifestKeeper``), so that a stop at any moment leaves finished shards
only; ``RunSummary`` says what it did.

``set_between_shard_files`` installs an extension point the run calls after a shard's result file
is written and before its other files and its manifest record (default: none): a launcher for
tests (``tests/reliability/sim_pausing_between_shard_files.py``) pauses there, so that a run can
be killed exactly between the files of one shard."""

from __future__ import annotations

import itertools
import signal
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sim.config import BatchConfig, load_lineup_code
from sim.errors import InputError
from sim.files import hold_writer_lock, is_read_only_error, os_error_line
from sim.games.registry import get_game
from sim.pool import pool_size, start_pool, worker_count, worker_limit
from sim.runner.backends import run_dask, run_local
from sim.runner.batch_folder import check_run_dir, finished_shard_records, prepare_run_dir
from sim.runner.shards import shard_games, shard_tasks
from sim.signals import stop_handlers_installed, stop_signals_held
from sim.store import (
    DEAL_SUMS_DIR,
    NOTABLE_DIR,
    SHARD_FILES,
    adopt_recorded_shards,
    file_record,
    manifest_stamp,
    read_manifest,
    remove_temporary_files,
    shard_dir,
    write_manifest,
    write_shard,
)

# Called with the path of a shard's result file once it is written, before the shard's other
# files and its manifest record (``set_between_shard_files``); None calls nothing.
BetweenShardFiles = Callable[[Path], None]
_between_shard_files: BetweenShardFiles | None = None


def set_between_shard_files(hook: BetweenShardFiles | None) -> BetweenShardFiles | None:
    """Make every run of this process call ``hook(result_path)`` right after writing a shard's
    result file and before its notable-games and deal-sums files and its manifest record (with
    stop signals held back, like the writes around it); None removes it. Returns the hook it
    replaces. Tests use it to stop a run exactly between the files of one shard."""
    global _between_shard_files
    previous, _between_shard_files = _between_shard_files, hook
    return previous


def _pending_shards(config: BatchConfig, done: dict[int, Any]) -> Iterator[int]:
    """The indices of the shards not in ``done``, in order (lazily: a huge batch is never
    listed)."""
    return (index for index in range(config.shards) if index not in done)


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
    between_shard_files = _between_shard_files
    tasks = shard_tasks(config, data, pending)
    outputs = run_local(tasks, workers, pool) if backend == "local" else \
        run_dask(tasks, workers, scheduler)
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
                if between_shard_files is not None:
                    between_shard_files(path)
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
