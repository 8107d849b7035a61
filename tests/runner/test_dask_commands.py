"""Every command that plays games gives the same results on a dask cluster as on local workers:
``play_rotations`` and through it ``sim tournament``, ``sim ladder``, ``sim tune-strategy`` and
``sim league``, and ``sim tune-trees`` through the batch runner. One LocalCluster of 2 workers
serves the whole file (its address passed as ``--scheduler``); one test starts an external
``dask scheduler`` and ``dask worker`` processes. Bad backends and unreachable schedulers are
one-line errors."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import optuna
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy
from sim.tournament import play_rotations

runner = CliRunner()
TOY = ["--game", "pick-two", "--players", "2"]
ROOT = Path(__file__).resolve().parents[2]
DASK = Path(sys.executable).with_name("dask")


@pytest.fixture(scope="module")
def scheduler():
    """The address of one LocalCluster of 2 single-threaded worker processes for the file."""
    from dask.distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None)
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()


def invoke(arguments: list[str]) -> str:
    """The output of a command line that must succeed."""
    result = runner.invoke(app, arguments)
    assert result.exit_code == 0, result.output
    return result.output


def untimed(output: str) -> list[str]:
    """The lines of a command's output without those that say how long it took or name the
    file it wrote (the only lines that may differ between two runs of the same games)."""
    return [line for line in output.splitlines()
            if not re.search(r"\d s\b|games/s|^\s*wrote ", line)]


def test_rotations_on_dask_equal_local_chunk_by_chunk_in_order(scheduler):
    game = get_game("pick-two")
    data, rules = game.load_data(None), game.resolve_rules({}, "test")
    lineup = [parse_strategy(text, game.strategies(), "test")
              for text in ("random", "greedy", "greedy:patience=0.5")]
    local = play_rotations(game, data, 2, rules, lineup, 7, 11, workers=1)
    seen: list[tuple[int, int]] = []
    # 4 chunks of unequal size: 2, 2, 2 and 1 deals
    remote = play_rotations(game, data, 2, rules, lineup, 7, 11, workers=2, chunk_deals=2,
                            progress=lambda done, total: seen.append((done, total)),
                            backend="dask", scheduler=scheduler)
    for name in ("seat_strategy", "deal_of_game", "scores", "wins"):
        np.testing.assert_array_equal(getattr(remote, name), getattr(local, name), name)
        assert getattr(remote, name).dtype == getattr(local, name).dtype, name
    assert set(remote.profile) == set(local.profile)
    for name, column in local.profile.items():
        np.testing.assert_array_equal(remote.profile[name], column, name)
    assert (remote.backend, remote.workers) == ("dask", 2)
    # progress as chunks finish: 4 calls, rising, ending at every game
    totals = [done for done, _ in seen]
    assert len(seen) == 4 and totals == sorted(totals) and seen[-1] == (42, 42)


def test_tournament_on_dask_writes_the_same_json(scheduler, tmp_path):
    command = ["tournament", *TOY, "--strategies", "random,greedy,greedy:patience=0.5",
               "--games", "120", "--seed", "3", "--workers", "1"]
    local = invoke([*command, "--json", str(tmp_path / "local.json")])
    remote = invoke([*command, "--json", str(tmp_path / "dask.json"), "--backend", "dask",
                     "--scheduler", scheduler])
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert untimed(remote) == untimed(local)
    assert "with 2 dask worker(s)" in remote


def test_ladder_on_dask_is_the_same_ladder(scheduler, tmp_path):
    # --slow: a second tournament on the same client
    command = ["ladder", *TOY, "--strategies", "random,greedy,greedy:patience=0.5", "--slow",
               "greedy:patience=0.5", "--slow-games", "40", "--games", "80", "--quiet"]
    local = invoke([*command, "--out", str(tmp_path / "local")])
    remote = invoke([*command, "--out", str(tmp_path / "dask"), "--backend", "dask",
                     "--scheduler", scheduler])
    assert untimed(remote) == untimed(local)
    assert "slow strategies (greedy:patience=0.5)" in remote


def test_tune_strategy_on_dask_plays_the_same_trials_and_writes_the_same_files(
        scheduler, tmp_path, monkeypatch):
    import dask.distributed

    command = ["tune-strategy", "greedy:patience=0.8", *TOY, "--field", "random,greedy",
               "--games", "60", "--trials", "2", "--reevaluate", "1", "--reevaluate-games",
               "60", "--final-games", "60", "--seed", "4", "--quiet"]
    invoke([*command, "--out", str(tmp_path / "local")])
    opened = []

    class CountedClient(dask.distributed.Client):
        def __init__(self, *arguments, **options):
            opened.append(arguments)
            super().__init__(*arguments, **options)

    monkeypatch.setattr(dask.distributed, "Client", CountedClient)
    invoke([*command, "--out", str(tmp_path / "dask"), "--backend", "dask", "--scheduler",
            scheduler])
    # every trial against both members, the re-evaluation and the final: one client
    assert opened == [(scheduler,)]

    def trials(folder: Path) -> list:
        study = optuna.load_study(study_name="tune-strategy",
                                  storage=f"sqlite:///{folder / 'study.sqlite3'}")
        return [(t.number, t.params, t.value, t.user_attrs) for t in study.trials]

    assert trials(tmp_path / "dask") == trials(tmp_path / "local")
    assert len(trials(tmp_path / "local")) == 2
    written = sorted(path.name for path in (tmp_path / "local").iterdir()
                     if path.suffix in (".json", ".toml"))
    assert "reevaluation.json" in written and "final.json" in written
    for name in written:
        assert (tmp_path / "dask" / name).read_bytes() == \
            (tmp_path / "local" / name).read_bytes(), name


def test_league_on_dask_writes_the_same_json(scheduler, tmp_path):
    command = ["league", *TOY, "--members", "random,greedy,greedy:patience=0.5", "--games",
               "40", "--seed", "5", "--quiet"]
    invoke([*command, "--out", str(tmp_path / "local")])
    invoke([*command, "--out", str(tmp_path / "dask"), "--backend", "dask", "--scheduler",
            scheduler])
    assert (tmp_path / "dask" / "league.json").read_bytes() == \
        (tmp_path / "local" / "league.json").read_bytes()


def test_tune_trees_on_dask_writes_the_same_parquet(scheduler, tmp_path):
    command = ["tune-trees", "--players", "2", "--supply", "1", "--strategies",
               "random,greedy", "--games", "40", "--shard-size", "20", "--workers", "1",
               "--quiet", "--no-point-reports"]
    outputs = {}
    for label, extra in (("local", []), ("dask", ["--backend", "dask", "--scheduler",
                                                  scheduler])):
        outputs[label] = invoke([*command, "--out", str(tmp_path / label / "sweep"),
                                 "--report-dir", str(tmp_path / label / "report"), *extra])
    local_files = sorted(path.relative_to(tmp_path / "local")
                         for path in (tmp_path / "local").rglob("*.parquet"))
    # 2 fields, 2 shards each, and the metrics
    assert sum("shards" in path.parts for path in local_files) == 4
    assert Path("report/tune-trees.parquet") in local_files
    assert sorted(path.relative_to(tmp_path / "dask")
                  for path in (tmp_path / "dask").rglob("*.parquet")) == local_files
    for path in local_files:
        assert (tmp_path / "dask" / path).read_bytes() == \
            (tmp_path / "local" / path).read_bytes(), path
    # the last line names the report, in each run's own folder
    assert untimed(outputs["dask"].replace(str(tmp_path / "dask"), "OUT")) == \
        untimed(outputs["local"].replace(str(tmp_path / "local"), "OUT"))


def free_port() -> int:
    """A TCP port nothing listens on (just released by the operating system)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_tournament_on_an_external_scheduler_and_workers_equals_local(tmp_path):
    """``dask scheduler`` and ``dask worker`` processes started here, ``sim tournament --backend
    dask --scheduler ADDRESS`` run on them: the same JSON as on local workers."""
    command = ["tournament", *TOY, "--strategies", "random,greedy", "--games", "80", "--seed",
               "8", "--workers", "1"]
    local = invoke([*command, "--json", str(tmp_path / "local.json")])
    # the workers unpickle the toy game, which lives in this repository's tests package
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    # port 0: the scheduler takes a free port and writes its address into this file
    scheduler_file = tmp_path / "scheduler.json"
    processes = []
    try:
        processes.append(subprocess.Popen(
            [str(DASK), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", str(scheduler_file)], env=environment, cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        processes.append(subprocess.Popen(
            [str(DASK), "worker", "--scheduler-file", str(scheduler_file), "--nworkers", "2",
             "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1", "--local-directory",
             str(tmp_path / "workers")], env=environment, cwd=tmp_path,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
        address = None
        deadline = time.monotonic() + 60
        while address is None:
            assert processes[0].poll() is None, "the dask scheduler stopped"
            assert time.monotonic() < deadline, "the dask scheduler did not start in 60 s"
            try:
                address = json.loads(scheduler_file.read_text())["address"]
            except (OSError, ValueError, KeyError):  # not written yet, or not whole yet
                time.sleep(0.1)
        from dask.distributed import Client

        with Client(address, timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        remote = invoke([*command, "--json", str(tmp_path / "dask.json"), "--backend", "dask",
                         "--scheduler", address])
    finally:
        # the workers first, while their scheduler is still there to leave
        for process in reversed(processes):
            process.terminate()
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "local.json").read_bytes()
    assert untimed(remote) == untimed(local)
    assert "with 2 dask worker(s)" in remote


# Each command with the option naming what it writes, "OUT" standing for the path.
COMMANDS = [
    ["tournament", *TOY, "--strategies", "random,greedy", "--games", "20", "--json", "OUT"],
    ["ladder", *TOY, "--strategies", "random,greedy", "--games", "20", "--quiet", "--out",
     "OUT"],
    ["tune-strategy", "greedy", *TOY, "--games", "20", "--trials", "2", "--quiet", "--out",
     "OUT"],
    ["league", *TOY, "--members", "random,greedy", "--games", "20", "--quiet", "--out", "OUT"],
    ["tune-trees", "--players", "2", "--supply", "1", "--games", "20", "--quiet", "--out",
     "OUT", "--report-dir", "OUT"],
]


@pytest.mark.parametrize("command", COMMANDS, ids=[command[0] for command in COMMANDS])
def test_a_bad_backend_or_scheduler_is_one_line_and_exit_2(command, tmp_path):
    closed = f"tcp://127.0.0.1:{free_port()}"
    out = tmp_path / "out"
    command = [str(out) if argument == "OUT" else argument for argument in command]
    for extra, message in (
        (["--backend", "spark"], "--backend: 'spark' is not one of local, dask"),
        (["--scheduler", closed], "--scheduler: only with --backend dask"),
        (["--backend", "dask", "--scheduler", closed],
         f"--scheduler: cannot reach a dask scheduler at {closed}"),
    ):
        started = time.perf_counter()
        result = runner.invoke(app, [*command, *extra])
        assert result.exit_code == 2, result.output
        assert result.output.count("\n") == 1 and message in result.output, result.output
        assert time.perf_counter() - started < 10  # refused at once, not after dask's timeout
    assert not out.exists()  # nothing played, nothing written
