"""Shared by the reliability tests: a tiny batch config, running `sim` in a subprocess, and
fingerprints of a folder's files."""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# Two players, tiny shards: quick to play, several shards, notable-games files for each.
TINY_CONFIG = """
game = "legendary-forests"
players = 2
strategies = ["greedy", "random"]
games = 40
seed = 5
shard_size = 10
store = "rows"
"""


def write_config(folder: Path, text: str = TINY_CONFIG, name: str = "tiny.toml") -> Path:
    """Write a config file into ``folder`` and return its path."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def sim_command(*args: str) -> list[str]:
    """The command line of ``sim`` with ``args`` in this interpreter."""
    return [sys.executable, "-m", "sim", *args]


def sim_pausing_command(marker: Path, *args: str) -> list[str]:
    """The command line of ``sim`` with ``args`` in this interpreter, through the launcher that
    creates ``marker`` and pauses once a shard's result file is written, before its other files
    (``tests/reliability/sim_pausing_between_shard_files.py``): a test kills it there."""
    return [sys.executable, "-m", "tests.reliability.sim_pausing_between_shard_files",
            str(marker), *args]


def run_sim(*args: str, cwd: Path | None = None, env: dict | None = None,
            timeout: float = 300, preexec_fn=None) -> subprocess.CompletedProcess:
    """Run ``sim`` to the end in a subprocess (text output captured), in a session of its own;
    ``preexec_fn`` runs in the child before ``sim`` starts (e.g. to set a resource limit).
    Checks that no process of it is left behind (its workers included)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    process = subprocess.Popen(sim_command(*args), cwd=cwd or REPO, env=environment,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=preexec_fn)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise
    assert_no_process_left(process.pid)
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def assert_no_process_left(group: int, wait: float = 10.0) -> None:
    """Check that the process group ``group`` (a ``sim`` started in a session of its own) has
    no process left: no orphan worker (they get a few seconds to end on their own)."""
    deadline = time.time() + wait
    while True:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return
        if time.time() > deadline:
            os.killpg(group, signal.SIGKILL)
            raise AssertionError(f"processes of group {group} were left running")
        time.sleep(0.05)


def fingerprint(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` by relative path (names in ``skip`` left out)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in skip}


def result_files(run_dir: Path) -> dict[str, str]:
    """Fingerprints of a batch's result and notable files (not the manifest, whose timings and
    times differ between sessions)."""
    return {name: digest for name, digest in fingerprint(run_dir).items()
            if name.startswith(("shards/", "summary/", "summary_deals/", "notable/"))}


def assert_one_error_line(result: subprocess.CompletedProcess, code: int = 2) -> str:
    """Check that a finished ``sim`` exited with ``code`` after exactly one line of output (on
    stderr, beginning ``error:``; nothing on stdout) and no traceback; returns the line."""
    output = result.stdout + result.stderr
    assert result.returncode == code, output
    assert "Traceback" not in output, output
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and not result.stdout.strip(), output
    assert lines[0].startswith("error: "), lines[0]
    return lines[0]


def tiny_batch(folder: Path, name: str = "batch") -> Path:
    """Play the tiny batch (``TINY_CONFIG``: 4 shards of 10 two-player games) in this process
    into ``folder/name``; returns the batch folder."""
    from sim.config import load_config
    from sim.runner import run_batch

    config = load_config(write_config(folder), {"output": str(folder / name)})
    run_batch(config, workers=1)
    return folder / name


def replace_shard(run_dir: Path, index: int, frame) -> Path:
    """Tamper with a batch as a careful hand would: write ``frame`` (polars) as the result file
    of shard ``index`` and record its new size and SHA-256 in manifest.json, so the hashes
    match and only the contents can tell. Returns the shard's path."""
    import json

    from sim.store import parquet_bytes, shard_name

    path = run_dir / "shards" / shard_name(index)
    data = parquet_bytes(frame)
    path.write_bytes(data)
    manifest_path = run_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    for record in manifest["shard_files"][str(index)]:
        if record["path"] == f"shards/{shard_name(index)}":
            record["bytes"] = len(data)
            record["sha256"] = hashlib.sha256(data).hexdigest()
    manifest_path.write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return path
