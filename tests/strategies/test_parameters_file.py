"""Parameters files: ``name@file.toml`` in every place a strategy is named (command line,
configs), one-line errors for a bad file, and labels that spell the values out, so results and
manifests do not depend on the file (checked on the toy game, whose kernel the suite builds
anyway)."""

import json

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.config import load_config
from sim.errors import InputError
from sim.games.base import StrategyParameter
from sim.games.registry import get_game
from sim.strategy_spec import format_parameters_file, parse_strategy, read_parameters_file

runner = CliRunner()
GAME = get_game("pick-two")


def registry():
    return GAME.strategies()


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_a_parameters_file_gives_its_values_and_settings_after_it_override_them(tmp_path):
    write(tmp_path / "tuned.toml", 'strategy = "greedy"\n[parameters]\npatience = 0.25\n'
                                   '[tuning]\ncommand = "sim tune-strategy greedy"\n')
    spec = parse_strategy(f"greedy@{tmp_path / 'tuned.toml'}", registry(), "test")
    assert spec.name == "greedy" and spec.parameters == {"patience": 0.25}
    assert spec.label() == "greedy:patience=0.25"
    assert parse_strategy(spec.label(), registry(), "test") == spec  # the label round-trips
    override = parse_strategy(f"greedy@{tmp_path / 'tuned.toml'}:patience=0.5", registry(), "t")
    assert override.parameters == {"patience": 0.5}
    relative = parse_strategy("greedy@tuned.toml", registry(), "test", base_dir=tmp_path)
    assert relative == spec


def test_written_files_read_back_to_the_same_values(tmp_path):
    values = {"patience": 0.123456789012345}
    text = format_parameters_file("greedy", values, {"seed": 3, "command": 'a "quoted" one'},
                                  comment="two\nlines")
    path = write(tmp_path / "p.toml", text)
    assert read_parameters_file(path, registry()["greedy"], "test") == values


@pytest.mark.parametrize("content, reason", [
    (None, "file not found"),
    ("[parameters\n", "not valid TOML"),
    ("speed = 1\n", "unknown field 'speed'"),
    ('strategy = "random"\n', "holds parameters of strategy 'random', not 'greedy'"),
    ("[parameters]\npatienc = 0.1\n", "has no parameter 'patienc' (did you mean 'patience'?)"),
    ("[parameters]\npatience = 2.0\n", "patience' = 2 is out of range 0..1"),
    ('[parameters]\npatience = "high"\n', "must be a number"),
    ("parameters = 3\n", "expected a table"),
])
def test_a_bad_parameters_file_is_a_one_line_error_naming_it(tmp_path, content, reason):
    path = tmp_path / "bad.toml"
    if content is not None:
        write(path, content)
    with pytest.raises(InputError) as error:
        parse_strategy(f"greedy@{path}", registry(), "--strategy")
    message = str(error.value)
    assert reason in message and str(path) in message and "\n" not in message
    result = runner.invoke(app, ["tournament", "--game", "pick-two", "--players", "2",
                                 "--strategies", f"greedy@{path},random", "--games", "4"])
    assert result.exit_code == 2 and reason in result.output


def test_settings_are_checked_against_the_declared_bounds():
    with pytest.raises(InputError, match="out of range 0..1"):
        parse_strategy("greedy:patience=1.5", registry(), "test")
    whole = StrategyParameter("rollouts", 8, "playouts", minimum=0, integer=True)
    with pytest.raises(InputError, match="must be a whole number"):
        whole.check(2.5, "test", "x")
    assert StrategyParameter("a", 2.0, "", log=True).search_range() == (0.5, 8.0)
    assert StrategyParameter("b", 0.0, "").search_range() == (0.0, 1.0)
    assert StrategyParameter("c", 0.3, "", minimum=0.0, maximum=0.5).search_range() == (0.0, 0.5)


def test_a_config_names_a_parameters_file_in_its_own_folder(tmp_path, monkeypatch):
    folder = tmp_path / "study"
    folder.mkdir()
    write(folder / "tuned.toml", "[parameters]\npatience = 0.5\n")
    write(folder / "batch.toml", 'game = "pick-two"\nplayers = 2\n'
                                 'pool = ["greedy@tuned.toml", "random"]\ngames = 40\nseed = 2\n'
                                 'shard_size = 20\n')
    monkeypatch.chdir(tmp_path)  # not the config's folder: the file is found beside the config
    config = load_config(folder / "batch.toml")
    assert config.lineup == ("greedy:patience=0.5", "random")
    out = tmp_path / "run"
    result = runner.invoke(app, ["run", str(folder / "batch.toml"), "--out", str(out),
                                 "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
    labels = set(pl.read_parquet(out / "shards")["strategy"].to_list())
    assert labels == {"greedy:patience=0.5", "random"}
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["config"]["lineup"] == ["greedy:patience=0.5", "random"]
    (folder / "tuned.toml").unlink()  # the batch no longer needs the file
    result = runner.invoke(app, ["run", "--resume", str(out), "--workers", "1", "--quiet"])
    assert result.exit_code == 0, result.output
