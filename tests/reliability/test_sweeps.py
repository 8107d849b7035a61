"""Sweep folders are self-contained like batch folders: every path in `sweep.json` is relative to
the folder and every point's batch folder exists from the start, so a sweep killed at any moment,
moved or copied, is finished by `sim sweep --resume DIR` where it is now, from any working
directory, with the bytes of an uninterrupted sweep; the reports and tree tuning read only the
shards each point's manifest records."""

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
from sim.sweep import load_sweep, run_sweep, sweep_rows
from tests.reliability.helpers import REPO, result_files, sim_pausing_command, write_config

runner = CliRunner()

SWEEP = """
game = "legendary-forests"
players = 2
strategies = ["greedy"]
games = 30
seed = 9
shard_size = 10
[sweep]
players = [2, 3]
"""
LABELS = ("players=2", "players=3")


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> Path:
    """An uninterrupted sweep: the bytes every resumed sweep must end with."""
    folder = tmp_path_factory.mktemp("sweep-reference")
    sweep_file = write_config(folder, SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(folder / "sweep")}), workers=1)
    return folder / "sweep"


def point_files(sweep_dir: Path) -> dict[str, dict[str, str]]:
    return {label: result_files(sweep_dir / "points" / label) for label in LABELS}


def interrupt(sweep_dir: Path, keep: int) -> None:
    """Make ``sweep_dir`` look killed after each point's first ``keep`` shards: the later shards
    unrecorded and their files gone."""
    for label in LABELS:
        run_dir = sweep_dir / "points" / label
        manifest = json.loads((run_dir / "manifest.json").read_text())
        for index in list(manifest["shard_files"]):
            if int(index) >= keep:
                for record in manifest["shard_files"].pop(index):
                    (run_dir / record["path"]).unlink()
        manifest["shards_done"] = list(range(keep))
        manifest["status"] = "interrupted"
        (run_dir / "manifest.json").write_text(json.dumps(manifest))


def test_every_path_in_a_sweep_folder_is_relative_to_it(reference):
    manifest = json.loads((reference / "sweep.json").read_text())
    assert manifest["source"] == "grid.toml"
    assert [point["run_dir"] for point in manifest["points"]] == [f"points/{label}"
                                                                 for label in LABELS]
    for label in LABELS:
        stored = json.loads((reference / "points" / label / "manifest.json").read_text())
        assert stored["config"]["output"] == "."


def sim(*args: str):
    """`sim` in this process (the commands are plain functions; no start-up cost)."""
    result = runner.invoke(app, [*args, "--workers", "1", "--quiet"] if args[0] == "sweep"
                           else list(args))
    assert result.exit_code == 0, (result.output, result.exception)
    return result


def test_a_moved_sweep_resumes_in_its_new_folder_from_another_directory(tmp_path, reference,
                                                                        monkeypatch):
    (tmp_path / "first").mkdir()
    sweep_file = write_config(tmp_path / "first", SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(tmp_path / "first" / "sweep")}), workers=1)
    interrupt(tmp_path / "first" / "sweep", keep=1)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(tmp_path / "first" / "sweep"), moved)
    shutil.rmtree(tmp_path / "first")  # the sweep file is gone too: the folder is enough
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    sim("sweep", "--resume", "../elsewhere/moved")
    assert not (tmp_path / "first").exists(), "nothing is written where the sweep used to be"
    assert not any((tmp_path / "cwd").iterdir()), "nothing is written in the working directory"
    assert point_files(moved) == point_files(reference)
    assert sim("runs", str(moved)).output.count("complete") == 2


def test_a_copied_sweep_resumes_into_the_copy_only(tmp_path, reference):
    sweep_file = write_config(tmp_path, SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(tmp_path / "sweep")}), workers=1)
    interrupt(tmp_path / "sweep", keep=2)
    before = point_files(tmp_path / "sweep")
    shutil.copytree(tmp_path / "sweep", tmp_path / "copy")
    sim("sweep", "--resume", str(tmp_path / "copy"))
    assert point_files(tmp_path / "sweep") == before
    assert point_files(tmp_path / "copy") == point_files(reference)


def test_a_moved_sweep_resumes_with_its_file_and_out(tmp_path, reference):
    sweep_file = write_config(tmp_path, SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(tmp_path / "sweep")}), workers=1)
    interrupt(tmp_path / "sweep", keep=1)
    shutil.move(str(tmp_path / "sweep"), tmp_path / "moved")
    sim("sweep", str(sweep_file), "--resume", "--out", str(tmp_path / "moved"))
    assert point_files(tmp_path / "moved") == point_files(reference)


def test_a_sweep_killed_between_the_files_of_a_shard_resumes_after_a_move(tmp_path, reference,
                                                                          monkeypatch):
    sweep_file = write_config(tmp_path, SWEEP, "grid.toml")
    marker = tmp_path / "paused"
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    process = subprocess.Popen(sim_pausing_command(marker, "sweep", str(sweep_file), "--out",
                                                   str(tmp_path / "sweep"), "--workers", "1",
                                                   "--quiet"),
                               cwd=REPO, env=environment, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 240
    while not marker.exists() and time.time() < deadline and process.poll() is None:
        time.sleep(0.02)
    assert marker.exists(), "the sweep never reached the pause between a shard's files"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    # Every point's folder was made when the sweep started, so the folder alone resumes.
    assert all((tmp_path / "sweep" / "points" / label / "manifest.json").is_file()
               for label in LABELS)
    shutil.move(str(tmp_path / "sweep"), tmp_path / "moved")
    monkeypatch.chdir(tmp_path)
    sim("sweep", "--resume", "moved")
    assert point_files(tmp_path / "moved") == point_files(reference)


def test_sweep_rows_reads_only_recorded_shards(tmp_path, reference):
    copy = tmp_path / "sweep"
    shutil.copytree(reference, copy)
    shards = copy / "points" / "players=2" / "shards"
    shutil.copy(shards / "shard-000000.parquet", shards / "shard-000007.parquet")
    damaged = copy / "points" / "players=3" / "shards" / "shard-000001.parquet"
    damaged.write_bytes(damaged.read_bytes()[:-4])
    rows = sweep_rows(copy).collect()
    # 30 games at 2 players (the stray copy not counted), 20 at 3 (the damaged shard left out).
    assert rows.filter(rows["players"] == 2).height == 30 * 2
    assert rows.filter(rows["players"] == 3).height == 20 * 3
