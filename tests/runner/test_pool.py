"""The worker pool started by the ``sim`` entry point before the command line loads: which
command lines start one, that the run then uses it, and that the command behaves as before."""

import os
import subprocess
import sys

import pytest

from sim import pool as pool_module
from sim.config import load_config
from sim.runner import run_batch
from sim.store import read_manifest
from tests.runner.test_runner import write_config

CORES = os.cpu_count() or 1


@pytest.mark.parametrize(("arguments", "processes"), [
    (["run", "batch.toml", "--workers", "2"], 1),
    (["run", "batch.toml", "--workers=3"], 2),
    (["run", "batch.toml", "--workers", "4", "--workers", "2"], 1),  # the last one wins
    (["run", "batch.toml"], CORES - 1),  # 0, the default: every core
    (["run", "batch.toml", "--workers", "0"], CORES - 1),
    (["sweep", "sweep.toml", "--workers", "2"], 1),
    (["run", "batch.toml", "--workers", "1"], 0),
    (["run", "batch.toml", "--workers", "2", "--backend", "dask"], 0),
    (["run", "batch.toml", "--workers", "2", "--backend=dask"], 0),
    (["run", "batch.toml", "--workers", "2", "--help"], 0),
    (["run", "batch.toml", "--workers", "two"], 0),  # the parser reports it
    (["run", "batch.toml", "--workers", "-3"], 0),
    (["run", "batch.toml", "--workers"], CORES - 1),  # no value: the parser reports it
    (["bench", "--workers", "2"], 0),
    (["tournament", "--workers", "2"], 0),
    ([], 0),
])
def test_only_a_local_multi_worker_batch_command_starts_a_pool_early(arguments, processes):
    assert pool_module.pool_processes_for_arguments(arguments) == processes


def test_a_pool_started_for_the_command_line_is_the_one_the_run_uses(tmp_path, monkeypatch):
    monkeypatch.setattr(pool_module, "_POOLS", {})
    started = []
    real_start = pool_module.start_pool
    monkeypatch.setattr(pool_module, "start_pool",
                        lambda *arguments: started.append(arguments) or real_start(*arguments))
    config_path = write_config(tmp_path)
    try:
        pool_module.start_pool_for_arguments(["run", str(config_path), "--workers", "2"])
        assert started == [(1,)]
        early = pool_module._POOLS[1]
        config = load_config(config_path, {"output": str(tmp_path / "run"), "games": 200})
        summary = run_batch(config, workers=2)
        assert summary.complete
        assert pool_module._POOLS[1] is early  # kept and reused, not a second pool
    finally:
        pool_module.discard_pools()


def test_no_pool_is_started_for_other_command_lines(monkeypatch):
    monkeypatch.setattr(pool_module, "_POOLS", {})
    for arguments in (["bench"], ["run", "x.toml", "--workers", "1"], ["run", "--help"]):
        pool_module.start_pool_for_arguments(arguments)
    assert pool_module._POOLS == {}


def test_the_entry_point_runs_a_batch_on_two_workers_like_one(tmp_path):
    config_path = write_config(tmp_path)
    manifests = {}
    for workers in (1, 2):
        out = tmp_path / f"workers-{workers}"
        result = subprocess.run(
            [sys.executable, "-m", "sim", "run", str(config_path), "--out", str(out),
             "--workers", str(workers), "--quiet"],
            capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        manifests[workers] = read_manifest(out)
    assert manifests[1]["shard_files"] == manifests[2]["shard_files"]  # same bytes, same hashes


def test_the_entry_point_still_reports_bad_input_in_one_line(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "sim", "run", str(tmp_path / "missing.toml"), "--workers", "2"],
        capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "missing.toml" in lines[0], result.stderr
