"""A config runs no code the user did not ask for: strategy modules and files outside the
config's folder need --allow-code on the command line (`sim run`, `sim sweep`, `sim tune-trees`);
drop-in files load only when needed, and a broken one is a one-line error naming it that does not
break the built-ins. A strategy file keeps the label the user wrote (relative to the config) in
results and manifests; the batch keeps a copy of it, so a moved batch resumes."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.errors import InputError
from sim.games.strategy import StrategyRegistry
from sim.runner import run_batch
from sim.store import read_manifest
from strategies.legendary_forests import REGISTRY
from tests.reliability.helpers import TINY_CONFIG, result_files, write_config

runner = CliRunner()


def config_naming(strategy: str) -> str:
    return TINY_CONFIG.replace('strategies = ["greedy", "random"]', f'strategies = ["{strategy}"]')


def marker_module(path, marker) -> None:
    """A module that leaves ``marker`` behind when it runs."""
    path.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n")


def test_a_config_cannot_import_an_arbitrary_module(tmp_path):
    config = write_config(tmp_path, config_naming("this:X"))
    result = runner.invoke(app, ["run", str(config), "--out", str(tmp_path / "b")])
    assert result.exit_code == 2
    assert "--allow-code" in result.stderr and result.stderr.count("\n") == 1
    assert "Beautiful is better" not in result.output
    assert not (tmp_path / "b").exists()


def test_a_config_cannot_run_a_file_outside_its_folder(tmp_path):
    (tmp_path / "configs").mkdir()
    marker = tmp_path / "ran"
    marker_module(tmp_path / "evil.py", marker)
    config = write_config(tmp_path / "configs", config_naming("../evil.py:X"))
    with pytest.raises(InputError, match="outside the config's folder; add --allow-code"):
        load_config(config)
    assert not marker.exists()
    with pytest.raises(InputError, match="has no 'X'"):
        load_config(config, allow_code=True)
    assert marker.exists(), "--allow-code lets the user run it"


def test_allow_code_cannot_be_set_in_the_file(tmp_path):
    config = write_config(tmp_path, "allow_code = true\n" + config_naming("this:X"))
    with pytest.raises(InputError, match="unknown field 'allow_code'"):
        load_config(config)


def test_a_strategy_file_beside_the_config_resolves_from_the_config(tmp_path, monkeypatch):
    (tmp_path / "configs").mkdir()
    marker = tmp_path / "ran"
    marker_module(tmp_path / "configs" / "mine.py", marker)
    config = write_config(tmp_path / "configs", config_naming("mine.py:X"))
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    with pytest.raises(InputError, match="has no 'X'"):
        load_config(config)
    assert marker.exists()


def test_command_line_strategies_are_the_users_request(tmp_path):
    config = write_config(tmp_path)
    with pytest.raises(InputError, match="has no 'X'"):
        load_config(config, {"strategies": ["this:X"]})


@pytest.fixture
def broken_drop_in(tmp_path, monkeypatch):
    package = tmp_path / "dropins_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "broken.py").write_text("raise RuntimeError('half-written strategy')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield StrategyRegistry(REGISTRY.base, "dropins_pkg", [str(package)], REGISTRY._builtins)
    sys.modules.pop("dropins_pkg", None)


def test_a_broken_drop_in_does_not_break_the_built_ins(broken_drop_in):
    assert "greedy" in broken_drop_in
    assert broken_drop_in.strategy_class("greedy").name == "greedy"
    assert "dropins_pkg.broken" not in sys.modules


def test_a_broken_drop_in_is_one_line_naming_it_when_listed(broken_drop_in):
    with pytest.raises(InputError, match="dropins_pkg.broken.*half-written strategy"):
        list(broken_drop_in)


FIRST_OPTION = '''
from strategies.legendary_forests.base import Strategy


class First(Strategy):
    name = "first"
    description = "always the first legal option"

    def choose_placement(self, observation, placements):
        return 0

    def choose_tree(self, observation, choices):
        return 0
'''
FILE_STRATEGY_CONFIG = TINY_CONFIG.replace('["greedy", "random"]', '["mine.py:First", "greedy"]'
                                           ).replace("games = 40", "games = 20")


def test_tune_trees_takes_allow_code_for_its_config_file(tmp_path):
    (tmp_path / "configs").mkdir()
    (tmp_path / "other").mkdir()
    marker = tmp_path / "ran"
    marker_module(tmp_path / "other" / "marker.py", marker)
    config = write_config(tmp_path / "configs", TINY_CONFIG.replace(
        'strategies = ["greedy", "random"]', 'pool = ["../other/marker.py:X", "greedy"]')
        + "\n[sweep]\ntrees_per_colour_per_player = [1]\n", "tune.toml")
    arguments = ["tune-trees", "--config", str(config), "--out", str(tmp_path / "sweep"),
                 "--report-dir", str(tmp_path / "report")]
    refused = runner.invoke(app, arguments)
    assert refused.exit_code == 2 and "--allow-code" in refused.stderr
    assert refused.stderr.count("\n") == 1 and not marker.exists()
    allowed = runner.invoke(app, [*arguments, "--allow-code"])
    assert allowed.exit_code == 2 and "has no 'X'" in allowed.stderr
    assert marker.exists(), "--allow-code lets the user run it"


def test_tune_trees_strategies_option_is_the_users_request(tmp_path):
    result = runner.invoke(app, ["tune-trees", "--strategies", "this:X,greedy", "--games", "10",
                                 "--out", str(tmp_path / "sweep")])
    assert result.exit_code == 2 and "has no 'X'" in result.stderr
    assert "--allow-code" not in result.stderr


def file_strategy_batch(folder: Path, **run) -> Path:
    """A batch whose config names a strategy file beside it (``mine.py:First``)."""
    (folder / "configs").mkdir(parents=True)
    (folder / "configs" / "mine.py").write_text(FIRST_OPTION)
    config = write_config(folder / "configs", FILE_STRATEGY_CONFIG)
    run_batch(load_config(config, {"output": str(folder / "batch")}), workers=1, **run)
    return folder / "batch"


def test_a_strategy_file_label_stays_as_written_and_a_moved_batch_resumes(tmp_path, monkeypatch):
    reference = file_strategy_batch(tmp_path / "reference")
    manifest = read_manifest(reference)
    assert manifest["config"]["lineup"] == ["mine.py:First", "greedy"]
    assert manifest["config"]["strategy_files"] == {"mine.py": "input/strategies/mine.py"}
    assert (reference / "input" / "strategies" / "mine.py").read_text() == FIRST_OPTION
    rows = pl.read_parquet(reference / "shards" / "shard-000000.parquet")
    assert sorted(rows["strategy"].unique()) == ["greedy", "mine.py:First"]
    notable = pl.read_parquet(reference / "notable" / "shard-000000.parquet")
    assert sorted(notable["strategy"].unique()) == ["greedy", "mine.py:First"]
    # Started elsewhere, stopped after one shard, moved, its config folder deleted: it resumes
    # from another directory with the batch's own copy, without --allow-code.
    run_dir = file_strategy_batch(tmp_path / "first", stop_after_shards=1)
    moved = tmp_path / "elsewhere" / "moved"
    moved.parent.mkdir()
    shutil.move(str(run_dir), moved)
    shutil.rmtree(tmp_path / "first")
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    result = runner.invoke(app, ["run", "--resume", "../elsewhere/moved", "--workers", "1",
                                 "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert result_files(moved) == result_files(reference)


def test_resuming_with_a_config_whose_strategy_file_changed_is_refused(tmp_path):
    run_dir = file_strategy_batch(tmp_path, stop_after_shards=1)
    mine = tmp_path / "configs" / "mine.py"
    mine.write_text(FIRST_OPTION.replace("return 0\n\n    def choose_tree", "return -1 + 1\n\n"
                                         "    def choose_tree"))
    config = load_config(tmp_path / "configs" / "tiny.toml", {"output": str(run_dir)})
    with pytest.raises(InputError, match="strategy file 'mine.py' changed since this batch"):
        run_batch(config, workers=1, resume=True)


def test_a_command_line_strategy_file_is_kept_as_typed(tmp_path, monkeypatch):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(FIRST_OPTION)
    config = write_config(tmp_path, TINY_CONFIG.replace("games = 40", "games = 10"))
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["run", str(config), "--strategy", "bots/mine.py:First",
                                 "--strategy", "greedy", "--out", "batch", "--workers", "1",
                                 "--quiet"])
    assert result.exit_code == 0, (result.output, result.exception)
    manifest = read_manifest(tmp_path / "batch")
    assert manifest["config"]["lineup"] == ["bots/mine.py:First", "greedy"]
    assert manifest["config"]["strategy_files"] == {"bots/mine.py": "input/strategies/mine.py"}
