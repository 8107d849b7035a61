"""``sim tune-rules``: any registered game's integer rules parameter tuned by the same machinery
as the tree supply (fair, keeps skill, the game's own criteria), on the toy game (no edit
outside its folder), on Harmonies, and as the tree-supply preset (``sim tune-trees`` is its
short name); bad input is one line; the generic module names no game."""

import json
import re
from pathlib import Path

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.registry import games

runner = CliRunner()
QUICK = ["--workers", "1", "--quiet", "--no-point-reports"]


def tune(tmp_path: Path, *arguments: str):
    return runner.invoke(app, ["tune-rules", *arguments, "--out", str(tmp_path / "sweep"),
                               "--report-dir", str(tmp_path / "report"), *QUICK])


def test_the_toy_game_tunes_its_pair_bonus_with_generic_words(tmp_path):
    result = tune(tmp_path, "pick-two", "--parameter", "pair_bonus", "--values", "0,10",
                  "--strategies", "random,greedy", "--games", "60", "--shard-size", "60")
    assert result.exit_code == 0, result.output
    assert "Recommendation across fields:" in result.output
    assert "2 players, strong field: " in result.output
    assert "2 players, mixed field: " in result.output
    assert "240 games in all, 60 per grid point in each field." in result.output
    report = (tmp_path / "report" / "report.md").read_text()
    assert report.startswith("# Pick Two rules tuning: pair bonus")
    assert "## Recommendation: pair bonus" in report
    assert "| Players | Field | Pair bonus | Why |" in report
    assert "### Metrics per pair bonus" in report
    assert "starv" not in report.lower() and "tree" not in report.lower()
    metrics = pl.read_parquet(tmp_path / "report" / "tune-rules.parquet")
    assert metrics.select("field", "players", "pair_bonus").rows() == [
        ("strong", 2, 0), ("strong", 2, 10), ("mixed", 2, 0), ("mixed", 2, 10)]
    # greedy beats random: the skill exists where they meet, and is below one half
    assert (metrics.filter(field="mixed")["skill"] < 0.5).all()
    assert metrics.filter(field="strong")["skill"].is_nan().all()
    assert (tmp_path / "report" / "figures" / "tune-rules-skill.png").stat().st_size > 1000
    preset = json.loads((tmp_path / "sweep" / "tune-rules.json").read_text())
    assert preset["preset"] == "tune-rules" and preset["parameter"] == "pair_bonus"
    # `sim report` on the sweep writes the same report from the preset file.
    again = runner.invoke(app, ["report", str(tmp_path / "sweep"), "--out",
                                str(tmp_path / "report"), "--no-point-reports", "-q"])
    assert again.exit_code == 0, again.output
    assert (tmp_path / "report" / "report.md").read_text() == report


def test_harmonies_tunes_a_rules_parameter(tmp_path):
    result = tune(tmp_path, "harmonies", "--parameter", "side", "--values", "0-1", "--players",
                  "2", "--strategies", "random,greedy", "--games", "30", "--shard-size", "30")
    assert result.exit_code == 0, result.output
    assert "2 players, mixed field: " in result.output
    report = (tmp_path / "report" / "report.md").read_text()
    assert report.startswith("# Harmonies rules tuning: side")
    metrics = pl.read_parquet(tmp_path / "report" / "tune-rules.parquet")
    assert metrics["side"].to_list() == [0, 1, 0, 1] and (metrics["games"] == 30).all()


def test_the_tree_supply_preset_is_tune_rules_of_its_parameter(tmp_path):
    common = ["--players", "2", "--strategies", "random,greedy", "--games", "40",
              "--shard-size", "40", *QUICK]
    preset = runner.invoke(app, ["tune-trees", "--supply", "1,3", *common, "--out",
                                 str(tmp_path / "a" / "sweep"), "--report-dir",
                                 str(tmp_path / "a" / "report")])
    assert preset.exit_code == 0, preset.output
    generic = runner.invoke(app, ["tune-rules", "legendary-forests", "--parameter",
                                  "trees_per_colour_per_player", "--values", "1,3", *common,
                                  "--out", str(tmp_path / "b" / "sweep"), "--report-dir",
                                  str(tmp_path / "b" / "report")])
    assert generic.exit_code == 0, generic.output
    for name in ("report/tune-trees.parquet", "report/report.md", "sweep/tune-trees.json"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert "starvation" in (tmp_path / "b" / "report" / "report.md").read_text()


@pytest.mark.parametrize(("arguments", "says"), [
    (["pick-two", "--parameter", "nope"], "--parameter: 'nope' is not a rules parameter of Pick "
                                          "Two; its parameters: rounds, pair_bonus"),
    (["no-such-game", "--parameter", "rounds"], "unknown game 'no-such-game'"),
    (["pick-two", "--parameter", "pair_bonus", "--values", "0-99"],
     "--values: values must lie in 0..50, got '0-99'"),
    (["pick-two", "--parameter", "pair_bonus", "--values", "a-b"], "--values: expected a range"),
    (["pick-two", "--parameter", "pair_bonus", "--players", "3"],
     "--players: values must lie in 2..2, got '3'"),
])
def test_a_bad_game_parameter_or_range_is_one_line(tmp_path, arguments, says):
    result = tune(tmp_path, *arguments, "--strategies", "random,greedy")
    assert result.exit_code == 2, result.output
    assert says in result.stderr and result.stderr.count("\n") == 1
    assert not (tmp_path / "sweep").exists()


def test_the_generic_module_names_no_game():
    """No registered game's name or title, nor any column it declares (its rows' own columns,
    its rules parameters, what its tunings sum), appears in ``sim/tune_rules.py``: a column
    named in words joined by ``_`` nowhere, a one-word column (``pairs``, ``turns``, also plain
    English) not as a string."""
    source = (Path(__file__).parents[2] / "sim" / "tune_rules.py").read_text()
    assert len(games()) >= 3  # the toy game too
    for game in games().values():
        names = {game.name, game.title}
        columns = {*game.column_docs(), *(p.name for p in game.rules_parameters)}
        for tuning in game.rules_tunings:
            columns.add(tuning.parameter)
            for share in tuning.shares:
                columns.update((share.name, share.numerator, share.denominator))
        for name in names:
            assert name.lower() not in source.lower(), name
        for column in columns:
            pattern = (rf"\b{re.escape(column)}\b" if "_" in column
                       else rf"[\"']{re.escape(column)}[\"']")
            assert not re.search(pattern, source), column


def test_every_declared_tuning_names_its_games_parameter_and_columns():
    declared = 0
    for game in games().values():
        parameters = {p.name for p in game.rules_parameters}
        columns = set(game.column_docs())
        for tuning in game.rules_tunings:
            declared += 1
            assert tuning.parameter in parameters, (game.name, tuning.parameter)
            shares = {share.name for share in tuning.shares}
            for share in tuning.shares:
                assert {share.numerator, share.denominator} <= columns, share
            for criterion in tuning.criteria:
                assert criterion.share in shares and 0 < criterion.maximum < 1, criterion
                assert "{maximum}" in criterion.failure + criterion.rule + criterion.relax
            # the filled-in tuning keeps the game's words
            assert game.rules_tuning(tuning.parameter).label == (
                tuning.label or tuning.parameter.replace("_", " "))
    assert declared >= 1
