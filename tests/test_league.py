"""``sim league`` (``sim.league``): members, the rank outcomes, the win-share interval's
coverage, the league on the toy game (known order of strength), byte-identical results for any
number of workers, the mixed field, and the command's errors (the check on hand-made documents
is in ``test_league_results.py``)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.cli.league import league_command
from sim.games.registry import get_game
from sim.games.strategy import StrategyRegistry
from sim.league import (
    KIND_DEFAULT,
    KIND_OTHER,
    KIND_PREVIOUS,
    KIND_VARIANT,
    _mixed_rows,
    _share_interval,
    choose_members,
    default_members,
    league_json,
    rank_outcomes,
    run_league,
)
from sim.tournament import RotationGames
from tests.toy_game.strategies import BUILTIN_CLASSES, GreedyStrategy, Strategy

runner = CliRunner()
TOY = "pick-two"


@pytest.fixture
def toy():
    game = get_game(TOY)
    return game, game.load_data(None), game.resolve_rules({}, "test")


@pytest.fixture
def greedy_is_strongest(monkeypatch):
    """The toy game's greedy as the game's strongest strategy, with one documented variant."""
    monkeypatch.setattr(GreedyStrategy, "strongest", True)
    monkeypatch.setattr(GreedyStrategy, "variants", ("patience=0.5",))


def toy_registry_with_defaults(tmp_path) -> StrategyRegistry:
    """The toy strategies in a package folder holding one previous default of greedy."""
    (tmp_path / "defaults").mkdir()
    (tmp_path / "defaults" / "greedy-2026-01-01.toml").write_text(
        'strategy = "greedy"\n[parameters]\npatience = 0.25\n')
    return StrategyRegistry(Strategy, "toy_with_defaults", [str(tmp_path)],
                            lambda: BUILTIN_CLASSES)


def test_previous_defaults_are_found_through_the_registry(tmp_path, greedy_is_strongest):
    registry = toy_registry_with_defaults(tmp_path)
    info = registry["greedy"]
    assert info.previous_defaults == (("greedy-2026-01-01",
                                       str(tmp_path / "defaults" / "greedy-2026-01-01.toml")),)
    assert info.strongest and info.variants == ("patience=0.5",)
    assert registry["random"].previous_defaults == () and not registry["random"].strongest
    members = default_members(registry)
    assert [(m.name, m.kind, m.strongest) for m in members] == [
        ("random", KIND_DEFAULT, False), ("greedy", KIND_DEFAULT, True),
        ("greedy-2026-01-01", KIND_PREVIOUS, False),
        ("greedy:patience=0.5", KIND_VARIANT, False)]
    assert members[2].label == "greedy:patience=0.25"
    assert members[1].label == "greedy:patience=0"  # every parameter spelled out


def test_choose_members_replaces_excludes_adds_and_drops_twins(tmp_path, greedy_is_strongest):
    registry = toy_registry_with_defaults(tmp_path)
    members, notes = choose_members(registry, ["greedy", "greedy:patience=0.9"],
                                    add=["random", "greedy:patience=0"])
    assert [(m.name, m.kind) for m in members] == [
        ("greedy", KIND_DEFAULT), ("greedy:patience=0.9", KIND_OTHER), ("random", KIND_DEFAULT)]
    assert notes == ["greedy:patience=0 (plays exactly as greedy)"]
    members, _ = choose_members(registry, exclude=["greedy-2026-01-01"])
    assert "greedy-2026-01-01" not in [m.name for m in members]


@pytest.mark.parametrize("kwargs, message", [
    ({"members": ["greedy"]}, "at least two members"),
    ({"members": ["greedy", "nobody"]}, "unknown strategy 'nobody'"),
    ({"members": ["greedy", "greedy"]}, "twice"),
    ({"exclude": ["nobody"]}, "--exclude: 'nobody' is not in the league"),
])
def test_bad_members_are_input_errors(kwargs, message):
    from sim.errors import InputError

    with pytest.raises(InputError, match=message):
        choose_members(get_game(TOY).strategies(), **kwargs)


def test_rank_outcomes_put_a_win_before_any_score_and_split_shared_wins():
    scores = np.array([[10, 12, 12, 3]])
    # Seat 0 won on a tie-break despite a lower score; seats 1 and 2 are tied, seat 3 last.
    wins = np.array([[1.0, 0.0, 0.0, 0.0]])
    outcome = rank_outcomes(scores, wins)[0]
    assert outcome[0, 1] == 1 and outcome[1, 0] == 0
    assert outcome[1, 2] == outcome[2, 1] == 0.5
    assert outcome[1, 3] == 1 and outcome[3, 0] == 0
    assert np.all(np.diag(outcome) == 0)
    shared = rank_outcomes(np.array([[5, 5, 1]]), np.array([[0.5, 0.5, 0.0]]))[0]
    assert shared[0, 1] == 0.5 and shared[0, 2] == 1
    # Every pair's outcomes sum to 1 and positions are 1 + the seats ranked above.
    off = ~np.eye(4, dtype=bool)
    assert np.allclose((outcome + outcome.T)[off], 1.0)
    assert list((1 - outcome).sum(axis=1)) == [1.0, 2.5, 2.5, 4.0]


def test_mixed_field_positions_and_win_rates_on_known_games():
    """Three strategies rotated over three seats; strategy 0 always wins (on a tie-break in
    one game), 1 is second, 2 last: mean positions 1, 2, 3 and win rates 1, 0, 0."""
    seat_strategy = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]] * 4)
    deal_of_game = np.repeat(np.arange(4), 3)
    scores = np.where(seat_strategy == 0, 30, np.where(seat_strategy == 1, 20, 10))
    scores[0] = [20, 20, 10]  # strategy 0 won the tie-break
    wins = (seat_strategy == 0).astype(float)
    rows = _mixed_rows(["a", "b", "c"], RotationGames(seat_strategy, deal_of_game, scores,
                                                       wins, 4, 0.0, []))
    assert [row.mean_rank for row in rows] == [1.0, 2.0, 3.0]
    assert [row.win_rate for row in rows] == [1.0, 0.0, 0.0]
    assert rows[0].win_low < 1.0 and rows[0].win_high == 1.0 and rows[1].win_low == 0.0
    assert [row.seat_games for row in rows] == [12, 12, 12]


def test_a_real_three_player_league_has_a_mixed_field(tmp_path):
    """Legendary Forests at 3 players: the mixed field's mean positions average (N + 1) / 2
    (every member has as many seats) and greedy outranks random."""
    game = get_game("legendary-forests")
    members, _ = choose_members(game.strategies(), ["random", "greedy", "rune-hunter"])
    result = run_league(game, game.load_data(None), 3, game.resolve_rules({}, "test"), members,
                        40, 60, 2)
    assert result.mixed_games == 60 and result.pair_games == 40
    assert np.mean([row.mean_rank for row in result.mixed]) == pytest.approx(2.0)
    by_name = {row.name: row for row in result.mixed}
    assert by_name["greedy"].mean_rank < by_name["random"].mean_rank
    assert all(row.mean_rank_low <= row.mean_rank <= row.mean_rank_high for row in result.mixed)
    assert result.ratings[-1].name == "random"
    assert result.played.seat_strategy.shape == (3 * 40 + 60, 3)
    # Every game of both designs, with how each seat played, for "What the bots play like".
    assert set(result.played.profile) == set(game.profile_columns)
    assert all(len(column) == 3 * 40 + 60 for column in result.played.profile.values())


def test_win_share_interval_covers_the_true_share():
    """Clustered Wilson intervals of a share from deals with a deal effect (each deal's win
    chance drawn from a Beta around 0.62, four games a deal): 2,000 replicates in one call
    (replicates as columns), coverage of the known 0.62 within 93.5-96.5% (measured 95.7%;
    an interval that ignores the deals covers 89.9% here)."""
    generator = np.random.default_rng(37)
    deals, games, replicates, truth = 60, 4, 2000, 0.62
    chance = generator.beta(truth * 6, (1 - truth) * 6, size=(deals, replicates))
    won = generator.binomial(games, chance)
    _, low, high = _share_interval(won.astype(float), np.full((deals, replicates), games, float))
    coverage = np.mean((low <= truth) & (truth <= high))
    assert 0.935 <= coverage <= 0.965, coverage


def test_the_toy_league_finds_the_known_order(toy, greedy_is_strongest):
    """greedy > greedy:patience=0.5 (half its picks at random) > random, by rating and head to
    head; the matrix has no diagonal and each pair's shares sum to 1."""
    game, data, rules = toy
    members, _ = choose_members(game.strategies(), ["random", "greedy:patience=0.5", "greedy"])
    result = run_league(game, data, 2, rules, members, 400, 400, 5)
    assert [row.name for row in result.ratings] == ["greedy", "greedy:patience=0.5", "random"]
    assert all(row.low <= row.rating <= row.high for row in result.ratings)
    names = [m.name for m in members]
    assert all((a, a) not in result.head_to_head for a in names)
    for a in names:
        for b in names:
            if a != b:
                cell, other = result.head_to_head[(a, b)], result.head_to_head[(b, a)]
                assert cell.point + other.point == pytest.approx(1.0)
                assert 0 <= cell.low <= cell.point <= cell.high <= 1
                assert cell.games == 400
    assert result.head_to_head[("greedy", "random")].low > 0.5
    assert result.head_to_head[("greedy:patience=0.5", "random")].low > 0.5
    assert result.mixed == []  # two seats: no mixed field
    document = json.loads(league_json(result))
    assert document["check"]["on_top"] and document["check"]["strongest"] == "greedy"
    assert document["check"]["worst"] == "greedy:patience=0.5"  # the variant: bound counts


def test_league_json_is_the_same_for_one_and_two_workers(toy, greedy_is_strongest):
    game, data, rules = toy
    members, _ = choose_members(game.strategies(), ["random", "greedy:patience=0.5", "greedy"])
    one = league_json(run_league(game, data, 2, rules, members, 60, 60, 9, workers=1))
    two = league_json(run_league(game, data, 2, rules, members, 60, 60, 9, workers=2))
    assert one == two


@pytest.mark.parametrize("arguments, message", [
    (["--members", "greedy"], "at least two members"),
    (["--members", "greedy,nobody"], "unknown strategy 'nobody'"),
    (["--games", "0"], "--games: must be at least 1"),
    (["--mixed-games", "0"], "--mixed-games: must be at least 1"),
    (["--players", "3"], "--players"),
    (["--workers", "-1"], "--workers"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, arguments, message):
    result = runner.invoke(app, ["league", "--game", TOY, "--players", "2", "--quiet",
                                 "--out", str(tmp_path), *arguments])
    assert result.exit_code == 2, result.output
    assert result.output.count("\n") == 1 and message in result.output, result.output


def test_the_command_writes_its_files_and_checks_them(tmp_path, greedy_is_strongest):
    out = tmp_path / "league"
    # The toy's search strategy (a generic player every game gets) beats its greedy: this test
    # is about the command's files, on the toy's hand-written members.
    result = runner.invoke(app, ["league", "--game", TOY, "--players", "2", "--games", "200",
                                 "--seed", "5", "--quiet", "--out", str(out),
                                 "--exclude", "search"])
    assert result.exit_code == 0, result.output
    assert "shipped default on top: yes" in result.output
    markdown = (out / "league.md").read_text()
    assert "win share of the row against the column" in markdown.lower()
    # The command that plays it again is in the file (the workers: as played, 0 = all cores).
    assert (f"Played by: `sim league --game {TOY} --players 2 --exclude search --games 200 "
            f"--mixed-games 200 --seed 5 --workers ") in markdown
    assert (out / "league.png").read_bytes().startswith(b"\x89PNG")
    assert b"<svg" in (out / "league.svg").read_bytes()
    document = json.loads((out / "league.json").read_text())
    assert [m["name"] for m in document["members"]] == ["random", "greedy",
                                                         "greedy:patience=0.5"]
    assert "seconds" not in (out / "league.json").read_text()
    check = runner.invoke(app, ["league", "--check", str(out / "league.json")])
    assert check.exit_code == 0 and check.output.startswith("shipped default on top: yes")


def test_mixed_field_rank_intervals_stay_inside_one_to_the_players():
    """Two deals with very different outcomes: the t interval of a mean position (t with 1
    degree of freedom is 12.7) would reach below 1 and above 3; it is cut to 1..3."""
    seat_strategy = np.array([[0, 1, 2], [1, 2, 0], [2, 0, 1]] * 2)
    deal_of_game = np.repeat(np.arange(2), 3)
    scores = np.where(seat_strategy == 0, 30, np.where(seat_strategy == 1, 20, 10))
    scores[3:] = np.where(seat_strategy[3:] == 2, 30, np.where(seat_strategy[3:] == 1, 20, 10))
    wins = (scores == scores.max(axis=1, keepdims=True)).astype(float)
    rows = _mixed_rows(["a", "b", "c"], RotationGames(seat_strategy, deal_of_game, scores,
                                                       wins, 2, 0.0, []))
    for row in rows:
        assert 1.0 <= row.mean_rank_low <= row.mean_rank <= row.mean_rank_high <= 3.0
    assert rows[0].mean_rank_low == 1.0 and rows[0].mean_rank_high == 3.0


def test_league_command_quotes_and_orders_the_options(tmp_path):
    """The command written into league.md: the rules in the order given, members quoted for
    the shell, data and workers only when given."""
    command = league_command("harmonies", 2, 400, 400, 37, Path("reports/league/h 2p"),
                             rules=["spirits=true"], members="expert,search:playouts=20",
                             add="planner", workers=2)
    assert command == ("sim league --game harmonies --players 2 --rule spirits=true --members "
                       "expert,search:playouts=20 --add planner --games 400 --mixed-games 400 "
                       "--seed 37 --workers 2 --out 'reports/league/h 2p'")
    assert shlex.split(command)[-1] == "reports/league/h 2p"
    assert league_command("legendary-forests", 4, 600, 300, 1, tmp_path,
                          data=tmp_path / "tiles.toml") == (
        f"sim league --game legendary-forests --players 4 --data {tmp_path / 'tiles.toml'} "
        f"--games 600 --mixed-games 300 --seed 1 --out {tmp_path}")
