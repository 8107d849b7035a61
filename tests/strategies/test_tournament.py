"""Tournaments: the seat schedule, Bradley-Terry, determinism whatever the worker count, and the
`sim tournament` / `sim strategies` commands."""

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from sim.cli.options import user_errors
from sim.cli.strategies import strategies
from sim.cli.tournament import tournament
from sim.errors import InputError
from sim.games.base import StrategySpec
from sim.tournament import bradley_terry, parse_strategy_list, run_tournament, seat_schedule

runner = CliRunner()


def cli() -> typer.Typer:
    """An app with the two commands registered the way ``sim.cli`` registers them."""
    app = typer.Typer()
    app.command()(user_errors(tournament))
    app.command()(user_errors(strategies))
    return app


def test_seat_schedule_puts_every_strategy_in_every_seat_equally_often():
    for count, players, copies in ((2, 4, 1), (3, 4, 1), (7, 4, 2), (5, 5, 1), (4, 1, 1),
                                   (3, 2, 2), (2, 2, 1)):
        schedule = seat_schedule(count, players)
        assert schedule.shape == (copies * count, players)
        for seat in range(players):
            assert sorted(schedule[:, seat]) == sorted(list(range(count)) * copies)


def test_seat_schedule_seats_every_pair_in_both_orders_when_strategies_outnumber_seats():
    for count, players in ((3, 2), (6, 2), (7, 4), (5, 3)):
        schedule = seat_schedule(count, players)
        ahead = np.zeros((count, count), dtype=int)  # ahead[a, b]: games a sits before b
        for lineup in schedule:
            for i in range(players):
                for j in range(i + 1, players):
                    ahead[lineup[i], lineup[j]] += 1
        np.testing.assert_array_equal(ahead, ahead.T)
        # and on the same seats: a's seats against b are b's seats against a
        for a in range(count):
            for b in range(count):
                if a == b:
                    continue
                seats_a = sorted(int(np.nonzero(lineup == a)[0][0]) for lineup in schedule
                                 if a in lineup and b in lineup)
                seats_b = sorted(int(np.nonzero(lineup == b)[0][0]) for lineup in schedule
                                 if a in lineup and b in lineup)
                assert seats_a == seats_b


def test_head_to_head_of_equal_strategies_is_even_whatever_the_seat_advantage():
    """Known truth: three identical strategies at two seats, the first seat always winning.
    Every pair must come out at 50% (the cyclic lineups alone gave 100% and 0%)."""
    from sim.tournament import analyse

    deals = 5
    schedule = seat_schedule(3, 2)
    seat_strategy = np.tile(schedule, (deals, 1))
    deal_of_game = np.repeat(np.arange(deals), len(schedule))
    scores = np.tile(np.array([[60, 50]]), (len(seat_strategy), 1))
    wins = np.tile(np.array([[1.0, 0.0]]), (len(seat_strategy), 1))
    rows, head, _ = analyse(["a", "b", "c"], seat_strategy, deal_of_game, scores, wins, deals)
    off_diagonal = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose(head[off_diagonal], 0.5)
    assert [row.win_rate for row in rows] == [0.5, 0.5, 0.5]
    assert len({round(row.rating, 9) for row in rows}) == 1


def test_parse_strategy_list_keeps_parameters_with_their_strategy():
    assert parse_strategy_list("random, planner:hope=0.5,growth=1,greedy") == [
        "random", "planner:hope=0.5,growth=1", "greedy"]


def test_bradley_terry_recovers_known_strengths():
    truth = np.array([1.0, 2.0, 4.0])
    comparisons = np.full((3, 3), 30000.0) - np.diag([30000.0] * 3)
    wins = comparisons * truth[:, None] / (truth[:, None] + truth[None, :])
    strength = bradley_terry(wins, comparisons)
    np.testing.assert_allclose(strength / strength[0], truth, rtol=1e-3)


def test_tournament_is_deterministic_and_independent_of_workers(game, tileset, rules):
    lineup = [StrategySpec("random"), StrategySpec("greedy"), StrategySpec("rune-hunter")]
    one = run_tournament(game, tileset, 4, rules, lineup, 60, 7, workers=1, chunk_deals=3)
    two = run_tournament(game, tileset, 4, rules, lineup, 60, 7, workers=2, chunk_deals=7)
    assert one.games == 60 and one.deals == 20
    assert [vars(r) for r in one.rows] == [vars(r) for r in two.rows]
    np.testing.assert_array_equal(one.head_to_head, two.head_to_head)
    other = run_tournament(game, tileset, 4, rules, lineup, 60, 8, workers=1)
    assert [r.score_mean for r in other.rows] != [r.score_mean for r in one.rows]
    rows = {row.label: row for row in one.rows}
    assert rows["greedy"].rating > rows["random"].rating
    assert one.head_to_head[1, 0] > 0.9
    off_diagonal = ~np.eye(3, dtype=bool)
    np.testing.assert_allclose((one.head_to_head + one.head_to_head.T)[off_diagonal], 1.0,
                               atol=1e-12)


def test_tournament_needs_two_distinct_strategies(game, tileset, rules):
    with pytest.raises(InputError, match="at least two"):
        run_tournament(game, tileset, 4, rules, [StrategySpec("greedy")], 10, 1)
    with pytest.raises(InputError, match="twice"):
        run_tournament(game, tileset, 4, rules, [StrategySpec("greedy")] * 2, 10, 1)


def test_tournament_command_prints_the_table():
    result = runner.invoke(cli(), ["tournament", "--players", "3", "--strategies",
                                   "random,greedy", "--games", "20", "--seed", "3",
                                   "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "20 games = 10 deals x 2 seat rotations, seed 3" in result.output
    assert "Bradley-Terry" in result.output
    lines = [line for line in result.output.splitlines()
             if line.startswith(("greedy ", "random "))]
    assert len(lines) == 4
    bad = runner.invoke(cli(), ["tournament", "--strategies", "random,gredy"])
    assert bad.exit_code == 2 and "did you mean 'greedy'" in bad.output


def test_strategies_command_lists_every_builtin_with_parameters():
    result = runner.invoke(cli(), ["strategies"])
    assert result.exit_code == 0, result.output
    for name in ("random", "greedy", "rune-hunter", "closer", "planner", "denier", "rollout"):
        assert f"\n{name} [built-in]: " in "\n" + result.output
    assert "    rollouts=8: " in result.output


def test_win_rate_without_an_interval_says_why():
    from sim.tournament import _rate_with_ci

    assert _rate_with_ci(0.0, 0.0) == "0.0% (no CI: same in every deal)"
    assert _rate_with_ci(0.25, float("nan")) == "25.0% (1 deal, no CI)"
    assert _rate_with_ci(0.253, 0.012) == "25.3% ±  1.2%"
