"""The runner's overlap of play and encoding: a shard encoded in a helper thread (one worker)
or played beside a pool (several) is written, recorded and reported like any other; an error
while encoding shard k reaches the user and shard k is never marked done."""

import os
import threading
import time

import pytest
from typer.testing import CliRunner

from sim import pool as pool_module
from sim import runner
from sim.cli import app
from sim.config import load_config
from sim.errors import InputError
from sim.runner import backends
from sim.store import read_manifest
from tests.runner.test_runner import all_rows, write_config

FAILING_SHARD = 2


def run_helpers_left(seconds: float = 10.0) -> list:
    """The run's helper threads still alive after up to ``seconds``: a run stopped by an error
    does not wait for a fill-in thread to finish the shard its kernel is playing, but the
    thread takes no other shard and ends with it (the signal watcher of ``sim.signals`` lives
    as long as the process and is not one of them)."""
    deadline = time.monotonic() + seconds
    while True:
        left = [t for t in threading.enumerate()
                if t.name.startswith("sim-") and t.name != "sim-stop-watcher"]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def failing_encoder(monkeypatch, error: BaseException, threads: list):
    """Make ``encode_shard``, as the backends call it, raise ``error`` for shard
    ``FAILING_SHARD`` (and note the threads it runs in)."""
    encode = runner.encode_shard

    def encode_or_fail(played):
        threads.append(threading.current_thread())
        if played.task.index == FAILING_SHARD:
            raise error
        return encode(played)

    monkeypatch.setattr(backends, "encode_shard", encode_or_fail)


def test_an_encoding_error_reaches_the_user_and_its_shard_is_not_done(tmp_path, monkeypatch):
    threads: list = []
    failing_encoder(monkeypatch, InputError("disk says no (shard 2)"), threads)
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(app, ["run", str(write_config(tmp_path)), "--out", str(run_dir),
                                      "--workers", "1", "--quiet"])
    assert result.exit_code == 2, result.output
    assert result.output.strip() == "error: disk says no (shard 2)"
    # Encoding ran beside the kernel, not in the main thread.
    assert threads and all(thread is not threading.main_thread() for thread in threads)
    manifest = read_manifest(run_dir)
    assert manifest["shards_done"] == [0, 1]
    assert manifest["status"] != "complete"
    assert not (run_dir / "shards" / "shard-000002.parquet").exists()
    assert not list(run_dir.rglob("*.tmp"))
    # The resume plays the failed shard and what followed it, and the batch is whole.
    monkeypatch.undo()
    config = load_config(write_config(tmp_path), {"output": str(run_dir)})
    summary = runner.run_batch(config, workers=1, resume=True)
    assert summary.complete and summary.games_played == 400
    assert all_rows(run_dir)["game_id"].n_unique() == 600


def test_an_unexpected_encoding_error_keeps_its_type(tmp_path, monkeypatch):
    failing_encoder(monkeypatch, MemoryError("no room for shard 2"), [])
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run")})
    with pytest.raises(MemoryError, match="no room for shard 2"):
        runner.run_batch(config, workers=1)
    assert read_manifest(tmp_path / "run")["shards_done"] == [0, 1]
    # The helper thread is gone with the run.
    assert not [t for t in threading.enumerate() if t.name.startswith("sim-encode")]


def test_with_two_workers_this_process_its_fill_in_thread_and_the_pool_all_play(tmp_path,
                                                                               monkeypatch):
    played_here: list[tuple[str, int]] = []
    play = runner.play_shard_task

    def play_slowly_and_note(task):
        # Slow here (not in the pool): the pool's process, started cold or warm, gets shards.
        time.sleep(0.25)
        played_here.append((threading.current_thread().name, task.index))
        return play(task)

    # Only this process sees the patch: the pool's processes play the other shards.
    monkeypatch.setattr(backends, "play_shard_task", play_slowly_and_note)
    monkeypatch.setattr(pool_module, "_POOLS", {})  # a cold pool, as in a first run
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "shard_size": 25})
    try:
        summary = runner.run_batch(config, workers=2)
    finally:
        pool_module.discard_pools()
    assert summary.complete
    assert set(read_manifest(tmp_path / "run")["shards_done"]) == set(range(24))
    threads = {name for name, _ in played_here}
    # The main thread plays throughout; a helper thread plays while the pool starts.
    assert threads == {"MainThread", "sim-fill_in"}
    assert len(played_here) < 24
    assert all_rows(tmp_path / "run")["game_id"].n_unique() == 600
    assert not run_helpers_left()


def failing_player(monkeypatch, fails) -> None:
    """Make this process's ``play_shard_task`` raise a MemoryError naming the shard (and
    whether the task is a piece of it) for the tasks where ``fails(task)``."""
    play = runner.play_shard_task

    def play_or_fail(task):
        if fails(task):
            piece = "a piece of " if task.pieces > 1 else ""
            raise MemoryError(f"no room for {piece}shard {task.index}")
        return play(task)

    monkeypatch.setattr(backends, "play_shard_task", play_or_fail)


def test_an_error_in_a_fill_in_thread_reaches_the_user(tmp_path, monkeypatch):
    failing_player(monkeypatch, lambda task: threading.current_thread().name == "sim-fill_in")
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "shard_size": 50})
    with pytest.raises(MemoryError, match="no room for (a piece of )?shard"):
        runner.run_batch(config, workers=2)
    manifest = read_manifest(tmp_path / "run")
    assert manifest["status"] != "complete" and len(manifest["shards_done"]) < 12
    assert not run_helpers_left()


_KEPT: list = []


def _grow_and_keep(megabytes: int) -> int:
    """A task that leaves its process ``megabytes`` larger (as loading kernels does)."""
    _KEPT.append(b"\x01" * (megabytes << 20))
    return os.getpid()


_FULL_COLLECTIONS: list = []


def _count_full_collections() -> None:
    """Count, from now on, this process's full (generation 2) garbage collections."""
    import gc

    def count(phase, info):
        if phase == "start" and info["generation"] == 2:
            _FULL_COLLECTIONS.append(1)

    gc.callbacks.append(count)


def _full_collections() -> int:
    return len(_FULL_COLLECTIONS)


def test_a_pool_worker_that_grows_is_kept_and_not_collected_between_shards(monkeypatch):
    # loky restarts a worker whose memory grew 300 MB since its first task, checking at most
    # once a second after a task; a kernel's compile or load grows a worker that much. With
    # that check off it runs gc.collect() instead, after a task once a second has passed
    # since the last one: about 75 ms of every other 0.8 s shard.
    monkeypatch.setattr(pool_module, "_POOLS", {})
    pool = pool_module.start_pool(1, "harmonies")
    try:
        pool.submit(_count_full_collections).result()
        grown = pool.submit(_grow_and_keep, 400).result()
        pids = []
        for _ in range(2):
            time.sleep(1.2)
            pids.append(pool.submit(os.getpid).result())
        assert pids == [grown, grown]
        assert pool.submit(_full_collections).result() == 0
    finally:
        pool_module.discard_pools()


def test_only_the_last_shards_are_cut_into_pieces_one_per_worker_each_and_they_cover_them():
    tasks = [runner.ShardTask(index, index * 10, 10 if index < 4 else 3, None, None)
             for index in range(5)]
    cut = list(runner.split_tail(iter(tasks), 2))
    assert cut[:3] == tasks[:3]
    # Shard 3 (10 games) in 4 pieces, shard 4 (3 games) in 3: never an empty piece.
    assert [(t.index, t.first_game, t.games, t.pieces) for t in cut[3:]] == [
        (3, 30, 2, 4), (3, 32, 3, 4), (3, 35, 2, 4), (3, 37, 3, 4),
        (4, 40, 1, 3), (4, 41, 1, 3), (4, 42, 1, 3)]
    # Fewer shards than workers: every one is cut; a one-game shard stays whole.
    single = [runner.ShardTask(0, 0, 1, None, None)]
    assert list(runner.split_tail(single, 4)) == single
    assert len(list(runner.split_tail(tasks[:1], 3))) == 6


def test_with_two_workers_the_last_shards_are_played_in_pieces(tmp_path, monkeypatch):
    pieces_here: list[tuple[int, int]] = []
    play = runner.play_shard_task

    def play_and_note(task):
        pieces_here.append((task.index, task.pieces))
        return play(task)

    monkeypatch.setattr(backends, "play_shard_task", play_and_note)
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "shard_size": 100})
    summary = runner.run_batch(config, workers=2)
    assert summary.complete
    # This process played at least one piece of the last two shards (the pool the rest).
    assert all(pieces == 1 for index, pieces in pieces_here if index < 4)
    assert all(pieces == 4 for index, pieces in pieces_here if index >= 4)
    assert any(index >= 4 for index, _ in pieces_here)
    assert set(read_manifest(tmp_path / "run")["shards_done"]) == set(range(6))
    assert all_rows(tmp_path / "run")["game_id"].n_unique() == 600


def test_an_error_in_a_piece_keeps_its_shard_undone_and_a_resume_completes_it(tmp_path,
                                                                             monkeypatch):
    failing_player(monkeypatch, lambda task: task.pieces > 1)
    config = load_config(write_config(tmp_path), {"output": str(tmp_path / "run"),
                                                  "shard_size": 100})
    with pytest.raises(MemoryError, match="a piece of shard [45]"):
        runner.run_batch(config, workers=2)
    assert not run_helpers_left()
    done = read_manifest(tmp_path / "run")["shards_done"]
    assert 4 not in done or 5 not in done
    monkeypatch.undo()
    summary = runner.run_batch(config, workers=2, resume=True)
    assert summary.complete
    assert all_rows(tmp_path / "run")["game_id"].n_unique() == 600
