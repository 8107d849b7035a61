"""Folders from someone else (issue 42, "Untrusted folders"): the user is told which strategy
file runs before it runs; no strategy code runs before every other option and field is checked;
a batch never runs code outside itself; only the data files a game declares are copied into a
batch, special and oversized files refused; `sweep.json` only ever advances; a sweep report
names a partial point in its header. Each case: exit code, one line, no traceback, no marker
file where code must not run, nothing changed outside the batch."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.errors import InputError
from sim.games.base import MAX_DATA_FILE_BYTES
from sim.runner import prepare_run_dir, run_batch
from sim.sweep import _write_manifest, load_sweep, run_sweep
from tests.reliability.helpers import TINY_CONFIG, fingerprint, write_config

runner = CliRunner()

# A strategy file that says on stderr when it is imported and leaves a marker file behind.
MARKED_STRATEGY = '''
import sys
from pathlib import Path

from strategies.legendary_forests.base import Strategy

print("IMPORTED {name}", file=sys.stderr)
Path({marker!r}).write_text("ran")


class First(Strategy):
    name = "first"
    description = "always the first legal option"

    def choose_placement(self, observation, placements):
        return 0

    def choose_tree(self, observation, choices):
        return 0
'''
FILE_CONFIG = TINY_CONFIG.replace('["greedy", "random"]', '["mine.py:First", "greedy"]'
                                  ).replace("games = 40", "games = 20")


def marked_strategy(path: Path, marker: Path) -> Path:
    """Write a strategy file at ``path`` that leaves ``marker`` behind when imported."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(MARKED_STRATEGY.format(name=path.name, marker=str(marker)))
    return path


def config_beside_strategy(folder: Path, marker: Path, text: str = FILE_CONFIG) -> Path:
    """``folder/configs/tiny.toml`` naming ``mine.py:First`` beside it (which marks ``marker``)."""
    marked_strategy(folder / "configs" / "mine.py", marker)
    return write_config(folder / "configs", text)


def one_error_line(result) -> str:
    """The CLI ended with exit 2 after exactly one line (``error: ...``), no traceback."""
    assert result.exit_code == 2, (result.output, result.exception)
    assert "Traceback" not in result.output
    lines = result.output.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    return lines[0]


# --- 1. the user is told which strategy file runs, before it runs -------------------------------

def test_a_strategy_file_beside_the_config_is_announced_once_before_it_runs(tmp_path,
                                                                             monkeypatch, capsys):
    marker = tmp_path / "ran"
    config_beside_strategy(tmp_path, marker)
    write_config(tmp_path / "configs", FILE_CONFIG.replace("games = 20", "games = 10")
                 + "[sweep]\nremoved_tiles = [0, 1]\n", "grid.toml")
    monkeypatch.chdir(tmp_path)
    note = ("note: running strategy code from configs/mine.py (beside the config); it runs "
            "with your permissions")
    result = runner.invoke(app, ["run", "configs/tiny.toml", "--out", "batch", "--workers", "1",
                                 "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    lines = result.stderr.splitlines()
    assert lines.count(note) == 1, result.stderr
    assert lines.index(note) < lines.index("IMPORTED mine.py"), "told before it runs"
    assert marker.exists()
    # A sweep loads the file for every point: said once (as in a process of its own).
    monkeypatch.setattr("sim.config._SAID", set())
    capsys.readouterr()
    load_sweep(tmp_path / "configs" / "grid.toml", {"output": "sweep"})
    assert capsys.readouterr().err.splitlines() == [note]


# --- 2. no strategy code before every option is checked -----------------------------------------

def test_no_strategy_code_runs_before_every_other_option_and_field_is_checked(tmp_path):
    marker = tmp_path / "ran"
    config = config_beside_strategy(tmp_path, marker)
    bad_seed = write_config(tmp_path / "configs", FILE_CONFIG.replace("seed = 5", "seed = -1"),
                            "bad_seed.toml")
    bad_store = write_config(tmp_path / "configs", FILE_CONFIG.replace('"rows"', '"rowz"'),
                             "bad_store.toml")
    sweep = write_config(tmp_path / "configs", FILE_CONFIG + "[sweep]\nremoved_tiles = [0, 1]\n"
                         "[adaptive]\nhalf_width = -1\n", "grid.toml")
    tune = write_config(tmp_path / "configs", FILE_CONFIG + "[sweep]\n"
                        "trees_per_colour_per_player = [1]\n", "tune.toml")
    (tmp_path / "a-file").write_text("mine")
    other = tmp_path / "other-batch"
    run_batch(load_config(write_config(tmp_path, TINY_CONFIG.replace("games = 40", "games = 10")),
                          {"output": str(other)}), workers=1)
    out = str(tmp_path / "batch")
    cases = {
        "workers": (["run", str(config), "--out", out, "--workers", "10000"], "--workers"),
        "backend": (["run", str(config), "--out", out, "--backend", "spark"], "--backend"),
        "out a file": (["run", str(config), "--out", str(tmp_path / "a-file")], "a file"),
        "out a control character": (["run", str(config), "--out", str(tmp_path / "b\x1bc")],
                                    "control character"),
        "out another batch": (["run", str(config), "--out", str(other)], "another config"),
        "resume nothing": (["run", str(config), "--resume", str(tmp_path / "configs")],
                           "manifest"),
        "a bad seed": (["run", str(bad_seed), "--out", out], "field 'seed'"),
        "a bad store": (["run", str(bad_store), "--out", out], "field 'store'"),
        "sweep workers": (["sweep", str(sweep), "--workers", "10000"], "--workers"),
        "sweep adaptive": (["sweep", str(sweep), "--out", out], "adaptive.half_width"),
        "tune-trees report dir": (["tune-trees", "--config", str(tune), "--out", out,
                                   "--report-dir", str(tmp_path / "a-file")], "--report-dir"),
    }
    for name, (arguments, reason) in cases.items():
        line = one_error_line(runner.invoke(app, arguments))
        assert reason in line, (name, line)
        assert not marker.exists(), f"{name}: the strategy file ran before the error"
    assert not Path(out).exists()


def test_a_resume_checks_its_options_before_the_batchs_own_copy_runs(tmp_path, monkeypatch):
    marker = tmp_path / "ran"
    config = config_beside_strategy(tmp_path, marker)
    run_batch(load_config(config, {"output": str(tmp_path / "batch")}), workers=1,
              stop_after_shards=1)
    marker.unlink()
    before = fingerprint(tmp_path / "batch")
    monkeypatch.setattr("sim.config._SAID", set())
    for arguments, reason in ((["--backend", "spark"], "--backend"),
                              (["--workers", "10000"], "--workers")):
        line = one_error_line(runner.invoke(app, ["run", "--resume", str(tmp_path / "batch"),
                                                  *arguments]))
        assert reason in line
        assert not marker.exists()
    assert fingerprint(tmp_path / "batch") == before
    # With good options it runs the batch's own copy, and says so first.
    result = runner.invoke(app, ["run", "--resume", str(tmp_path / "batch"), "--workers", "1",
                                 "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    copy = tmp_path / "batch" / "input" / "strategies" / "mine.py"
    assert result.stderr.splitlines()[0] == (
        f"note: running strategy code from {copy} (the batch's own copy); it runs with your "
        f"permissions")


# --- 3. a batch never runs code outside itself --------------------------------------------------

@pytest.fixture
def stopped_batch(tmp_path) -> tuple[Path, Path, Path]:
    """A batch of a strategy file, stopped after one shard; an outside folder holding a file
    of the same name that marks ``tmp_path/ran`` when imported. (batch, outside, marker)"""
    config = config_beside_strategy(tmp_path, tmp_path / "not-this-one")
    run_batch(load_config(config, {"output": str(tmp_path / "batch")}), workers=1,
              stop_after_shards=1)
    marker = tmp_path / "ran"
    marked_strategy(tmp_path / "outside" / "mine.py", marker)
    return tmp_path / "batch", tmp_path / "outside", marker


def refused_resume(batch: Path, outside: Path, marker: Path, *options: str) -> str:
    """Resume ``batch``: one line, the outside file never ran, nothing changed outside."""
    before = fingerprint(outside)
    line = one_error_line(runner.invoke(app, ["run", "--resume", str(batch), "--workers", "1",
                                              "--quiet", *options]))
    assert not marker.exists(), "a file outside the batch ran"
    assert fingerprint(outside) == before
    return line


def test_a_strategy_copy_that_is_a_link_is_refused_on_resume(stopped_batch):
    batch, outside, marker = stopped_batch
    copy = batch / "input" / "strategies" / "mine.py"
    copy.unlink()
    copy.symlink_to(outside / "mine.py")
    for options in ((), ("--allow-code",)):
        line = refused_resume(batch, outside, marker, *options)
        assert "input/strategies/mine.py" in line and "link" in line and "refused" in line


def test_a_strategies_folder_that_is_a_link_is_refused_on_resume(stopped_batch):
    batch, outside, marker = stopped_batch
    shutil.rmtree(batch / "input" / "strategies")
    (batch / "input" / "strategies").symlink_to(outside, target_is_directory=True)
    line = refused_resume(batch, outside, marker)
    assert "the link input/strategies" in line


def test_a_manifest_naming_a_file_outside_the_batch_is_refused_on_resume(stopped_batch):
    batch, outside, marker = stopped_batch
    manifest = json.loads((batch / "manifest.json").read_text())
    manifest["config"]["strategy_files"]["mine.py"] = str(outside / "mine.py")
    (batch / "manifest.json").write_text(json.dumps(manifest))
    line = refused_resume(batch, outside, marker)
    assert "outside the batch folder" in line


# --- 4. only the data files a game declares are copied --------------------------------------------

HARMONIES_CONFIG = 'game = "harmonies"\nplayers = 2\nstrategies = ["random"]\ngames = 4\n'
SHIPPED_HARMONIES = Path(__file__).resolve().parents[2] / "sim" / "games" / "harmonies" / "data"


@pytest.fixture
def data_folder(tmp_path) -> Path:
    """A Harmonies data folder with one data file and two others (a key and notes)."""
    folder = tmp_path / "data"
    folder.mkdir()
    shutil.copy(SHIPPED_HARMONIES / "bag.toml", folder / "bag.toml")
    (folder / "id_rsa").write_text("-----BEGIN PRIVATE KEY-----\n")
    (folder / "notes.txt").write_text("my notes\n")
    return folder


def test_only_the_declared_data_files_are_copied_and_the_others_named_once(tmp_path,
                                                                         data_folder, capsys):
    config_file = write_config(tmp_path, HARMONIES_CONFIG, "h.toml")
    config = load_config(config_file, {"data_file": str(data_folder),
                                       "output": str(tmp_path / "batch")})
    note = capsys.readouterr().err.splitlines()
    assert len(note) == 1 and note[0].startswith(f"note: {data_folder}: ignoring id_rsa, "
                                                 f"notes.txt (not Harmonies data files"), note
    prepare_run_dir(config, resume=False)
    kept = tmp_path / "batch" / "input" / "data"
    assert sorted(p.name for p in kept.iterdir()) == ["bag.toml"]
    assert (kept / "bag.toml").read_bytes() == (data_folder / "bag.toml").read_bytes()


@pytest.mark.timeout(60)
def test_special_and_oversized_data_files_are_refused_in_one_line(tmp_path, data_folder):
    config_file = write_config(tmp_path, HARMONIES_CONFIG, "h.toml")
    os.mkfifo(data_folder / "setup.toml")  # a declared name: it would block the reader
    out = tmp_path / "batch"
    line = one_error_line(runner.invoke(app, ["run", str(config_file), "--data",
                                              str(data_folder), "--out", str(out)]))
    assert line == (f"error: --data: {data_folder / 'setup.toml'} is a named pipe (fifo), not "
                    f"a regular file; refused")
    (data_folder / "setup.toml").unlink()
    with open(data_folder / "animals.toml", "wb") as big:  # sparse: no disk used
        big.truncate(MAX_DATA_FILE_BYTES + 1)
    line = one_error_line(runner.invoke(app, ["run", str(config_file), "--data",
                                              str(data_folder), "--out", str(out)]))
    assert f"{data_folder / 'animals.toml'} has {MAX_DATA_FILE_BYTES + 1:,} bytes" in line
    line = one_error_line(runner.invoke(app, ["run", str(config_file), "--data", "/proc/self",
                                              "--out", str(out)]))
    assert line.startswith("error: --data: /proc/self is on /proc")
    tiles = write_config(tmp_path, TINY_CONFIG, "lf.toml")
    for special in ("/dev/zero", "/proc/self/environ"):
        line = one_error_line(runner.invoke(app, ["run", str(tiles), "--tiles", special,
                                                  "--out", str(out)]))
        assert "--tiles" in line and special in line
    os.mkfifo(tmp_path / "tiles.toml")
    line = one_error_line(runner.invoke(app, ["run", str(tiles), "--tiles",
                                              str(tmp_path / "tiles.toml"), "--out", str(out)]))
    assert "named pipe (fifo)" in line
    assert not out.exists(), "refused before anything was created"


def test_a_data_file_named_in_a_config_is_checked_too(tmp_path):
    os.mkfifo(tmp_path / "tiles.toml")
    config = write_config(tmp_path, TINY_CONFIG + 'tiles = "tiles.toml"\n')
    with pytest.raises(InputError, match=r"tiny.toml: field 'tiles': .*tiles.toml is a named "
                                         r"pipe \(fifo\)"):
        load_config(config)


# --- 5. sweep.json only advances ------------------------------------------------------------------

SWEEP = TINY_CONFIG.replace("games = 40", "games = 20").replace('["greedy", "random"]',
                                                                '["greedy"]') \
    + "[sweep]\nremoved_tiles = [0, 1]\n"


@pytest.fixture(scope="module")
def finished_sweep(tmp_path_factory) -> Path:
    """A tiny finished sweep (two points of 20 games), with its sweep file beside it."""
    folder = tmp_path_factory.mktemp("sweep")
    sweep_file = write_config(folder, SWEEP, "grid.toml")
    run_sweep(load_sweep(sweep_file, {"output": str(folder / "sweep")}), workers=1)
    return folder


def test_a_stale_sweep_writer_cannot_mark_finished_points_unfinished(finished_sweep, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(finished_sweep, folder)
    sweep = load_sweep(folder / "grid.toml", {"output": str(folder / "sweep")})
    finished = json.loads((folder / "sweep" / "sweep.json").read_text())
    assert [p["state"] for p in finished["points"]] == ["complete", "complete"]
    # A writer whose view is from before the points finished (no state known).
    status: dict[int, str] = {}
    _write_manifest(sweep, status)
    after = json.loads((folder / "sweep" / "sweep.json").read_text())
    assert after == finished
    assert status == {0: "complete", 1: "complete"}, "the stale writer adopts what it lacked"
    # Even with a point's shards gone, the games it recorded are not taken back.
    shutil.rmtree(folder / "sweep" / "points" / "removed_tiles=1" / "shards")
    _write_manifest(sweep, {})
    after = json.loads((folder / "sweep" / "sweep.json").read_text())
    assert after["points"][1]["games_played"] == 20 and after["points"][1]["state"] == "complete"


# --- 6. a sweep report names a partial point in its header ---------------------------------------

def test_a_sweep_report_names_a_partial_point_in_its_header(finished_sweep, tmp_path):
    from sim.report.sweep import build_sweep_report

    folder = tmp_path / "copy"
    shutil.copytree(finished_sweep / "sweep", folder)
    shard = folder / "points" / "removed_tiles=1" / "shards" / "shard-000001.parquet"
    shard.write_bytes(shard.read_bytes()[:-10])  # damaged after the manifest recorded it
    build_sweep_report(folder, tmp_path / "report", point_reports=False)
    for page in ("report.md", "report.html"):
        text = (tmp_path / "report" / page).read_text(encoding="utf-8")
        assert "PARTIAL REPORT" in text, page
        assert "point removed_tiles=1: 1 of 2 finished shards left out" in text, page
    markdown = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert markdown.index("PARTIAL REPORT") < markdown.index("| Grid"), "the header's first row"
    whole = tmp_path / "whole"
    build_sweep_report(finished_sweep / "sweep", whole, point_reports=False)
    assert "PARTIAL" not in (whole / "report.md").read_text(encoding="utf-8")
