"""Shared by the reliability tests: a tiny batch config, running `sim` in a subprocess, and
fingerprints of a folder's files."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
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


def run_sim(*args: str, cwd: Path | None = None, env: dict | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``sim`` to the end in a subprocess (text output captured)."""
    environment = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    return subprocess.run(sim_command(*args), cwd=cwd or REPO, env=environment,
                          capture_output=True, text=True, timeout=timeout)


def fingerprint(folder: Path, skip: tuple[str, ...] = ()) -> dict[str, str]:
    """SHA-256 of every file under ``folder`` by relative path (names in ``skip`` left out)."""
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name not in skip}


def result_files(run_dir: Path) -> dict[str, str]:
    """Fingerprints of a batch's result and notable files (not the manifest, whose timings and
    times differ between sessions)."""
    return {name: digest for name, digest in fingerprint(run_dir).items()
            if name.startswith(("shards/", "summary/", "summary_deals/", "notable/"))}
