"""A config runs no code the user did not ask for: strategy modules and files outside the
config's folder need --allow-code on the command line; drop-in files load only when needed,
and a broken one is a one-line error naming it that does not break the built-ins."""

from __future__ import annotations

import sys

import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.errors import InputError
from sim.games.strategy import StrategyRegistry
from strategies.legendary_forests import REGISTRY
from tests.reliability.helpers import TINY_CONFIG, write_config

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
