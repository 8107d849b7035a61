"""``sim bench --suite`` (``make bench``) on the toy game with a tiny ``--games-scale``: one table
row per (game, built-in strategy, player count), the JSON holds the table's numbers, Ctrl-C keeps
what was measured, and bad options are one-line errors with exit code 2."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

import sim.bench_suite as bench_suite
from sim.bench_suite import (
    SUITE_PLAYER_COUNTS,
    builtin_strategies,
    format_rate,
    suite_cases,
    suite_player_counts,
)
from sim.cli import app
from sim.games.registry import games, get_game
from sim.games.strategy import KIND_BUILTIN, KIND_COMPILED, KIND_PYTHON

runner = CliRunner()
TINY = ["--games-scale", "0.001"]  # a few games per timed call: the whole suite in about 1 s


def table_rows(stdout: str) -> list[list[str]]:
    """The cells of the Markdown table's body rows."""
    rows = [line.strip("|").split("|") for line in stdout.splitlines()
            if line.startswith("|")]
    return [[cell.strip() for cell in row] for row in rows[2:]]


def test_the_suite_has_one_row_per_builtin_strategy_and_player_count_and_the_json_equals_it(
        tmp_path):
    path = tmp_path / "bench" / "suite.json"
    result = runner.invoke(app, ["bench", "--suite", "--game", "pick-two", *TINY,
                                 "--json", str(path)])
    assert result.exit_code == 0, result.output
    rows = table_rows(result.stdout)
    toy = get_game("pick-two")
    assert [(title, strategy, players) for title, strategy, players, _, _ in rows] == [
        (toy.title, f"`{name}`", "2") for name in ("random", "greedy", "search")]
    assert "best of 3" in result.stdout.splitlines()[0]
    assert any(line.startswith("Machine: ") and " cores; sim " in line
               for line in result.stdout.splitlines())
    document = json.loads(path.read_text())
    assert document["complete"] is True and document["games_scale"] == 0.001
    assert [[row["title"], f"`{row['strategy']}`", str(row["players"]), f"{row['games']:,}",
             format_rate(row["games_per_second"])] for row in document["rows"]] == rows
    for row in document["rows"]:
        assert len(row["seconds"]) == 3
        assert row["games_per_second"] == row["games"] / min(row["seconds"])
    # One status line per case on stderr (not a terminal), nothing else.
    assert result.stderr.splitlines() == ["[1/3] pick-two random, 2 players",
                                          "[2/3] pick-two greedy, 2 players",
                                          "[3/3] pick-two search, 2 players"]


def test_without_game_the_suite_measures_every_registered_game(monkeypatch):
    toy = get_game("pick-two")
    monkeypatch.setattr(bench_suite, "games", lambda: {toy.name: toy})
    result = runner.invoke(app, ["bench", "--suite", *TINY])
    assert result.exit_code == 0, result.output
    assert [row[:3] for row in table_rows(result.stdout)] == [
        [toy.title, "`random`", "2"], [toy.title, "`greedy`", "2"],
        [toy.title, "`search`", "2"]]


def test_the_cases_are_every_registered_game_builtin_strategy_and_player_count():
    cases = suite_cases()
    expected = set()
    for game in games().values():
        registry = game.strategies()
        counts = {min(max(count, game.min_players), game.max_players)
                  for count in SUITE_PLAYER_COUNTS}
        expected |= {(game.name, name, players) for name in registry for players in counts
                     if registry.strategy_class(name).kind() == KIND_BUILTIN}
    assert len(cases) == len(expected)
    assert {(case.game, case.strategy, case.players) for case in cases} == expected
    assert {case.game for case in cases} == set(games())


@pytest.mark.parametrize(("low", "high", "counts"),
                         [(1, 5, (2, 4)), (2, 2, (2,)), (1, 1, (1,)), (3, 6, (3, 4)),
                          (1, 3, (2, 3)), (5, 8, (5,))])
def test_player_counts_are_two_and_four_clipped_to_the_game(low, high, counts):
    game = SimpleNamespace(min_players=low, max_players=high)
    assert suite_player_counts(game) == counts


def test_only_builtin_strategies_are_measured():
    def kind_class(kind):
        return SimpleNamespace(kind=lambda: kind)

    class Registry(dict):
        def strategy_class(self, name):
            return self[name]

    registry = Registry(random=kind_class(KIND_BUILTIN), mine=kind_class(KIND_COMPILED),
                        slow=kind_class(KIND_PYTHON), greedy=kind_class(KIND_BUILTIN))
    assert builtin_strategies(SimpleNamespace(strategies=lambda: registry)) == [
        "random", "greedy"]
    # A registry that cannot tell: every strategy it lists.
    assert builtin_strategies(SimpleNamespace(strategies=lambda: {"a": None, "b": None})) == [
        "a", "b"]


def test_ctrl_c_prints_the_cases_measured_so_far_and_exits_130(tmp_path, monkeypatch):
    measure = bench_suite.measure_case
    calls = []

    def interrupted_second(case, **options):
        calls.append(case)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return measure(case, **options)

    monkeypatch.setattr(bench_suite, "measure_case", interrupted_second)
    path = tmp_path / "suite.json"
    result = runner.invoke(app, ["bench", "--suite", "--game", "pick-two", *TINY,
                                 "--json", str(path)])
    assert result.exit_code == 130, result.output
    assert [row[1] for row in table_rows(result.stdout)] == ["`random`"]
    assert "interrupted: 1 of 3 cases measured" in result.stderr
    document = json.loads(path.read_text())
    assert document["complete"] is False and len(document["rows"]) == 1


@pytest.mark.parametrize(("arguments", "named"), [
    (["--suite", "--games-scale", "0"], "--games-scale"),
    (["--suite", "--games-scale", "-1"], "--games-scale"),
    (["--suite", "--games-scale", "nan"], "--games-scale"),
    (["--suite", "--games-scale", "inf"], "--games-scale"),
    (["--suite", "--games-scale", "lots"], "--games-scale"),
    (["--games-scale", "2"], "only with --suite"),
    (["--json", "bench.json"], "only with --suite"),
    (["--suite", "--strategy", "random"], "--strategy"),
    (["--suite", "--players", "2"], "--players"),
    (["--suite", "--games", "10"], "--games"),
    (["--suite", "--profile"], "--profile"),
    (["--suite", "--tiles", "tiles.toml"], "--tiles"),
    (["--suite", "--game", "no-such-game"], "no-such-game"),
    (["--suite", "--game", "pick-two", "--json", "."], "folder"),
])
def test_bad_options_are_one_line_errors_with_exit_code_2(arguments, named):
    result = runner.invoke(app, ["bench", *arguments])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and named in lines[0], result.stderr
    assert result.stdout == ""
