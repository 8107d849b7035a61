"""SIGKILL of the whole process group at any moment, including exactly between the files of one
shard: `--resume` always ends with the bytes of an uninterrupted batch."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from sim.config import load_config
from sim.runner import run_batch
from tests.reliability.helpers import (
    REPO,
    result_files,
    run_sim,
    sim_command,
    sim_pausing_command,
    write_config,
)

CRASH_CONFIG = """
game = "legendary-forests"
players = 2
strategies = ["greedy", "random"]
games = 120
seed = 11
shard_size = 10
store = "rows"
"""


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("crash-reference")
    config = load_config(write_config(folder, CRASH_CONFIG), {"output": str(folder / "batch")})
    run_batch(config, workers=1)
    return folder / "batch"


def start_run(config_path: Path, run_dir: Path, pause_marker: Path | None = None
              ) -> subprocess.Popen:
    """Start `sim run` in a process group of its own (so the kill takes every worker too); with
    ``pause_marker``, through the launcher that creates it and pauses between the files of
    every shard (``sim_pausing_command``)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    arguments = ("run", str(config_path), "--out", str(run_dir), "--workers", "1", "--quiet")
    command = sim_command(*arguments) if pause_marker is None else \
        sim_pausing_command(pause_marker, *arguments)
    return subprocess.Popen(command, cwd=REPO, env=environment, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()


def resume_and_compare(run_dir: Path, reference: Path) -> None:
    result = run_sim("run", "--resume", str(run_dir), "--workers", "1", "--quiet")
    assert result.returncode == 0, result.stderr
    assert result_files(run_dir) == result_files(reference)


def test_kill_exactly_between_the_files_of_one_shard(tmp_path, reference):
    config_path = write_config(tmp_path, CRASH_CONFIG)
    marker = tmp_path / "paused"
    run_dir = tmp_path / "batch"
    process = start_run(config_path, run_dir, marker)
    deadline = time.time() + 240
    while not marker.exists() and time.time() < deadline and process.poll() is None:
        time.sleep(0.02)
    assert marker.exists(), "the run never reached the pause between a shard's files"
    kill_group(process)
    assert (run_dir / "shards" / "shard-000000.parquet").exists()
    assert not (run_dir / "notable" / "shard-000000.parquet").exists()
    resume_and_compare(run_dir, reference)


@pytest.mark.slow
@pytest.mark.parametrize("trial", range(20))
def test_sigkill_at_a_random_moment_then_resume_is_byte_identical(tmp_path, reference, trial):
    chooser = random.Random(trial)
    config_path = write_config(tmp_path, CRASH_CONFIG)
    run_dir = tmp_path / "batch"
    # Every fourth trial kills exactly between a shard's result and notable files.
    marker = tmp_path / "paused" if trial % 4 == 0 else None
    process = start_run(config_path, run_dir, marker)
    if marker is not None:
        deadline = time.time() + 240
        while not marker.exists() and time.time() < deadline:
            time.sleep(0.02)
    else:
        # From the start-up to the end of the run: before the folder, mid-shard, after.
        shards = run_dir / "shards"
        wanted = chooser.randint(0, 12)
        deadline = time.time() + 240
        while time.time() < deadline and process.poll() is None:
            if shards.is_dir() and len(list(shards.glob("shard-*.parquet"))) >= wanted:
                break
            time.sleep(0.005)
        time.sleep(chooser.uniform(0, 0.3))
    kill_group(process)
    if not (run_dir / "manifest.json").exists():
        # Killed before the batch began: a fresh run must work in the same place.
        result = run_sim("run", str(config_path), "--out", str(run_dir), "--workers", "1",
                         "--quiet")
        assert result.returncode == 0, result.stderr
        assert result_files(run_dir) == result_files(reference)
        return
    resume_and_compare(run_dir, reference)
