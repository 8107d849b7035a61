"""Ctrl-C and SIGTERM at seeded random moments of `sim run` and `sim sweep` on two workers: the
command ends within seconds with exit code 130 / 143, exactly one line on stderr, no traceback,
no process of its group left, and the batch then resumes to the bytes of an uninterrupted run.

A Ctrl-C is sent to the whole process group, as a terminal does (the workers get it too), a
SIGTERM to the `sim` process alone, as `kill PID` does. The moments: "start-up" counts from when
`sim` has its handlers in place (the interpreter's own start before that is no code of sim's),
through loading the command line, the config checks and the pool's start; "play" from the first
shard on disk; "end" from the last shard but one on disk, through the last shards, the manifest
and the final lines."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from sim.config import load_config
from sim.runner import run_batch
from sim.sweep import load_sweep, run_sweep
from tests.reliability.helpers import (
    REPO,
    assert_no_process_left,
    result_files,
    run_sim,
    sim_command,
    write_config,
)

BATCH = """
game = "legendary-forests"
players = 2
strategies = ["random"]
games = 16000
seed = 21
shard_size = 2000
store = "rows"
"""
SWEEP = """
game = "legendary-forests"
players = 2
strategies = ["random"]
games = 8000
seed = 23
shard_size = 2000
[sweep]
players = [2, 3]
"""
LABELS = ("players=2", "players=3")
SHARDS = 8  # of the batch, and of the sweep's two points together

# How long a signalled command may take to end: the test fails past this, and kills the group.
WATCHDOG_SECONDS = 10.0
# The random delay after each moment begins, in seconds.
DELAYS = {"start-up": (0.0, 1.5), "play": (0.0, 0.8), "end": (0.0, 0.3)}
MOMENTS = tuple(DELAYS)
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_generator = np.random.default_rng(42)
TRIALS = [(command, moment, number, float(_generator.uniform(*DELAYS[moment])))
          for command in ("run", "sweep") for moment in MOMENTS for number in SIGNALS]
# A few in the default suite, one per command, signal and phase; the rest with the slow tests.
QUICK = {("run", "start-up", signal.SIGINT), ("run", "play", signal.SIGTERM),
         ("sweep", "start-up", signal.SIGTERM), ("sweep", "play", signal.SIGINT)}
PARAMS = [pytest.param(*trial, id=f"{trial[0]}-{trial[1]}-{signal.Signals(trial[2]).name}",
                       marks=() if trial[:3] in QUICK else pytest.mark.slow)
          for trial in TRIALS]


@pytest.fixture(scope="module")
def references(tmp_path_factory) -> dict[str, Path]:
    """Uninterrupted runs of the batch and of the sweep (played here, which also leaves the
    kernels compiled on disk for the commands under test)."""
    folder = tmp_path_factory.mktemp("signal-references")
    config = load_config(write_config(folder, BATCH), {"output": str(folder / "batch")})
    run_batch(config, workers=1)
    sweep_file = write_config(folder, SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(folder / "sweep")}), workers=1)
    return {"run": folder / "batch", "sweep": folder / "sweep"}


def handlers_installed(pid: int) -> bool:
    """Whether process ``pid`` catches SIGTERM (sim's handlers are in place; Python alone
    catches only SIGINT)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    caught = next(line for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught.split()[1], 16) & (1 << (signal.SIGTERM - 1)))


def shards_on_disk(out: Path) -> int:
    return len(list(out.rglob("shards/shard-*.parquet"))) if out.exists() else 0


def moment_reached(moment: str, process: subprocess.Popen, out: Path) -> bool:
    if moment == "start-up":
        return handlers_installed(process.pid)
    return shards_on_disk(out) >= (1 if moment == "play" else SHARDS - 1)


def batch_files(command: str, out: Path) -> dict:
    if command == "run":
        return result_files(out)
    return {label: result_files(out / "points" / label) for label in LABELS}


@pytest.mark.parametrize(("command", "moment", "number", "delay"), PARAMS)
def test_a_signal_at_a_random_moment_ends_in_one_line_and_resumes_identical(
        tmp_path, references, command, moment, number, delay):
    config = write_config(tmp_path, BATCH if command == "run" else SWEEP)
    out = tmp_path / "out"
    arguments = (command, str(config), "--out", str(out), "--workers", "2", "--quiet")
    errors = tmp_path / "stderr.txt"
    with errors.open("w") as stderr:
        process = subprocess.Popen(sim_command(*arguments), cwd=REPO,
                                   env={**os.environ, "PYTHONPATH": str(REPO)},
                                   stdout=subprocess.DEVNULL, stderr=stderr,
                                   start_new_session=True)
    try:
        deadline = time.time() + 180  # a loaded machine may take long to start it
        while not moment_reached(moment, process, out) and process.poll() is None:
            assert time.time() < deadline, f"the {moment} moment never came"
            time.sleep(0.01)
        time.sleep(delay)
        finished_first = process.poll() is not None
        if not finished_first:
            if number == signal.SIGINT:
                os.killpg(process.pid, signal.SIGINT)  # a terminal's Ctrl-C
            else:
                process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=WATCHDOG_SECONDS)
        except subprocess.TimeoutExpired:
            pytest.fail(f"still running {WATCHDOG_SECONDS} s after {signal.Signals(number).name}")
        assert_no_process_left(process.pid)
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait()
    text = errors.read_text()
    assert "Traceback" not in text, text
    if finished_first:  # the batch ended before the signal: an ordinary run
        assert process.returncode == 0, text
    else:
        assert process.returncode == 128 + number, text
        lines = text.splitlines()
        assert len(lines) == 1 and lines[0].startswith("interrupted"), text
    started = (out / "manifest.json").exists() or (out / "sweep.json").exists()
    if started:
        finish = ("run", "--resume", str(out)) if command == "run" else \
            ("sweep", str(out), "--resume")
        result = run_sim(*finish, "--workers", "1", "--quiet")
    else:
        result = run_sim(*arguments)
    assert result.returncode == 0, result.stderr
    assert batch_files(command, out) == batch_files(command, references[command])
    assert not (out / "writer.lock").exists()
