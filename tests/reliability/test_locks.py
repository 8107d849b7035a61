"""One writer per batch and per sweep: a second `sim run`, `sim run --resume` or `sim sweep` on a
folder another process is writing gets one line naming the holder, exit code 2, and touches
nothing; a lock left by a killed process is taken over; a writer deletes only its own or a dead
process's temporary files; a manifest is only ever advanced."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.files import LOCK_FILE, hold_writer_lock, host_tag
from sim.runner import run_batch
from sim.store import read_manifest
from tests.reliability.helpers import (
    REPO,
    assert_one_error_line,
    fingerprint,
    result_files,
    run_sim,
    sim_command,
    write_config,
)

# Many small shards of fast strategies: a run lasts long enough to be caught part-way.
LOCK_CONFIG = """
game = "legendary-forests"
players = 2
strategies = ["greedy", "random"]
games = 150
seed = 21
shard_size = 5
store = "rows"
"""

SWEEP_CONFIG = LOCK_CONFIG.replace("games = 150", "games = 20").replace(
    'strategies = ["greedy", "random"]', 'strategies = ["greedy"]') + "[sweep]\nplayers = [2, 3]\n"


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """The batch written alone, in this process."""
    folder = tmp_path_factory.mktemp("lock-reference")
    config = load_config(write_config(folder, LOCK_CONFIG), {"output": str(folder / "batch")})
    run_batch(config, workers=1)
    return folder / "batch"


def start_run(config_path: Path, run_dir: Path) -> subprocess.Popen:
    """`sim run` in a process group of its own (killing the group takes every worker)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(sim_command("run", str(config_path), "--out", str(run_dir),
                                        "--workers", "1", "--quiet"),
                            cwd=REPO, env=environment, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def wait_for_first_shard(process: subprocess.Popen, run_dir: Path) -> None:
    """Wait until the run has recorded a shard in its manifest (it holds the lock by then)."""
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            if read_manifest(run_dir).get("shard_files"):
                return
        except Exception:  # noqa: BLE001 - not written yet
            pass
        assert process.poll() is None, process.communicate()
        time.sleep(0.01)
    raise AssertionError("the run recorded no shard within two minutes")


def planted_temporary(run_dir: Path, pid: int) -> Path:
    """A temporary shard file as process ``pid`` of this host would name it mid-write."""
    path = run_dir / "shards" / f".shard-000029.parquet.{pid}-{host_tag()}.abcd1234.tmp"
    path.write_bytes(b"half a shard")
    return path


def test_a_second_writer_is_refused_and_the_first_finishes_unharmed(tmp_path, reference):
    config_path = write_config(tmp_path, LOCK_CONFIG)
    run_dir = tmp_path / "batch"
    first = start_run(config_path, run_dir)
    try:
        wait_for_first_shard(first, run_dir)
        # Held still (as by Ctrl-Z) while the second one tries: it keeps its lock.
        os.killpg(first.pid, signal.SIGSTOP)
        assert read_manifest(run_dir)["status"] == "running", "the run must be caught part-way"
        in_flight = planted_temporary(run_dir, first.pid)
        before = fingerprint(run_dir)
        second = run_sim("run", "--resume", str(run_dir), "--workers", "1", "--quiet")
        line = assert_one_error_line(second)
        assert f"{run_dir}: another sim (pid {first.pid} on host " in line, line
        assert "is writing this batch; wait for it or stop it" in line
        # A fresh run into the folder (in this process: quicker) is told the same.
        fresh = CliRunner().invoke(app, ["run", str(config_path), "--out", str(run_dir),
                                         "--workers", "1", "--quiet"])
        assert fresh.exit_code == 2 and len(fresh.output.strip().splitlines()) == 1
        assert f"another sim (pid {first.pid} on host " in fresh.output, fresh.output
        assert fingerprint(run_dir) == before  # nothing touched, not even the first's .tmp
        assert in_flight.exists()
        in_flight.unlink()
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    stdout, stderr = first.communicate(timeout=300)
    assert first.returncode == 0, stderr
    assert read_manifest(run_dir)["status"] == "complete"
    assert result_files(run_dir) == result_files(reference)
    assert not (run_dir / LOCK_FILE).exists()


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path, reference):
    config_path = write_config(tmp_path, LOCK_CONFIG)
    run_dir = tmp_path / "batch"
    first = start_run(config_path, run_dir)
    wait_for_first_shard(first, run_dir)
    os.killpg(first.pid, signal.SIGKILL)
    first.communicate()
    assert json.loads((run_dir / LOCK_FILE).read_text())["pid"] == first.pid  # left behind
    dead = planted_temporary(run_dir, first.pid)
    # Another live process of this host (it could be writing that file right now).
    other = subprocess.Popen(["sleep", "60"])
    alive = planted_temporary(run_dir, other.pid).rename(
        run_dir / "shards" / f".shard-000028.parquet.{other.pid}-{host_tag()}.efgh5678.tmp")
    # The resume in this process (quicker than another one; the same command).
    result = CliRunner().invoke(app, ["run", "--resume", str(run_dir), "--workers", "1",
                                      "--quiet"])
    assert result.exit_code == 0, result.output
    assert not dead.exists()  # a dead process's leftover: removed
    assert alive.exists()  # a live process's: not the resume's to delete
    other.kill()
    other.wait()
    alive.unlink()
    assert result_files(run_dir) == result_files(reference)
    assert not (run_dir / LOCK_FILE).exists()


def test_a_sweep_and_a_fields_run_take_the_lock_too(tmp_path):
    runner = CliRunner()
    sweep_file = write_config(tmp_path, SWEEP_CONFIG, "grid.toml")
    out = tmp_path / "grid"
    assert runner.invoke(app, ["sweep", str(sweep_file), "--out", str(out), "--workers", "1",
                               "--quiet"]).exit_code == 0
    fields_file = write_config(tmp_path, LOCK_CONFIG.replace("games = 150", "games = 10")
                               .replace('strategies = ["greedy", "random"]\n', "")
                               + 'fields = ["a=greedy", "b=random"]\n', "fields.toml")
    fields_out = tmp_path / "fields"
    assert runner.invoke(app, ["run", str(fields_file), "--out", str(fields_out),
                               "--workers", "1", "--quiet"]).exit_code == 0
    cases = [(out, ["sweep", "--resume", str(out), "--workers", "1", "--quiet"], "sweep"),
             (out, ["sweep", str(sweep_file), "--resume", "--out", str(out), "--quiet"],
              "sweep"),
             (fields_out, ["run", "--resume", str(fields_out), "--quiet"], "sweep"),
             # A point's batch on its own, while a sweep would write it.
             (out / "points" / "players=2", ["run", "--resume", str(out / "points" /
                                                                  "players=2"), "--quiet"],
              "batch")]
    for folder, arguments, what in cases:
        before = fingerprint(folder)
        # flock locks belong to an open file: a second one in this process is refused too.
        with hold_writer_lock(folder, what):
            result = runner.invoke(app, arguments)
            assert result.exit_code == 2, result.output
            lines = result.output.strip().splitlines()
            assert len(lines) == 1 and "Traceback" not in result.output, result.output
            assert f"another sim (pid {os.getpid()} on host " in lines[0]
            assert f"is writing this {what}" in lines[0]
        assert fingerprint(folder) == before


def test_the_manifest_is_only_ever_advanced(tmp_path, reference):
    """A writer that finds the manifest rewritten by someone else (a lock file removed by hand)
    adopts the finished shards recorded there instead of writing a manifest with fewer."""
    config = load_config(write_config(tmp_path, LOCK_CONFIG), {"output": str(tmp_path / "b")})
    run_batch(config, workers=1, stop_after_shards=2)
    run_dir = tmp_path / "b"
    theirs = read_manifest(reference)
    calls = []

    def another_writer_finishes(done: int, total: int) -> None:
        if not calls:  # once, while this resume plays its first shard
            for folder in ("shards", "notable"):
                shutil.rmtree(run_dir / folder)
                shutil.copytree(reference / folder, run_dir / folder)
            manifest = read_manifest(run_dir)
            manifest["shard_files"] = theirs["shard_files"]
            manifest["shards_done"] = theirs["shards_done"]
            (run_dir / "manifest.json").write_text(json.dumps(manifest))
        calls.append(done)

    run_batch(config, workers=1, resume=True, stop_after_shards=1,
              progress=another_writer_finishes)
    manifest = read_manifest(run_dir)
    assert len(manifest["shard_files"]) == config.shards
    assert manifest["status"] == "complete"
    assert result_files(run_dir) == result_files(reference)
