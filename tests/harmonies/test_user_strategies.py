"""Harmonies user strategies, in the one strategy model: a compiled strategy in a temporary
module, loaded by ``module:Class``, plays in a loop variant and gives exactly the games of the
built-in it wraps; ``sim strategies`` lists it; a class with nothing to play gets one line."""

import numpy as np
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.errors import InputError
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

GAME = get_game("harmonies")
runner = CliRunner()

COMPILED_RANDOM = '''
from numba import njit

from sim.games.base import StrategyParameter
from strategies.harmonies.base import Strategy
from strategies.harmonies.random_play import random_turn


@njit
def turn(params, tables, public, player, generator, work):
    return random_turn(tables, public, player, generator, work)


class CompiledRandom(Strategy):
    name = "compiled-random"
    description = "random, as a compiled user strategy"
    parameters = (StrategyParameter("cost", 3.0, "a parameter, to check its slot"),)
    compiled_turn = turn
'''


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    (tmp_path / "harmonies_bots.py").write_text(COMPILED_RANDOM)
    (tmp_path / "harmonies_empty.py").write_text(
        "from strategies.harmonies.base import Strategy\n"
        "class Nothing(Strategy):\n    name = 'nothing'\n")
    return tmp_path


def test_a_compiled_user_strategy_plays_the_games_of_the_builtin_it_wraps(user_module):
    registry = GAME.strategies()
    user = parse_strategy("harmonies_bots:CompiledRandom", registry, "test")
    assert registry.strategy_class(user.name).kind() == "compiled"
    row = registry.strategy_class(user.name).parameter_row({}, 6)
    assert row.tolist() == [0.0, 0.0, 0.0, 0.0, 3.0, 0.0]  # "cost" goes to the cost slot
    data, rules = GAME.load_data(None), GAME.default_rules()
    seats = np.array([[0, 1, 0], [1, 0, 1]])
    deals = np.array([11, 12], dtype=np.uint64)
    with_user = GAME.play_shard(data, 3, rules, [user, parse_strategy("greedy", registry, "t")],
                                seats, deals, deals + np.uint64(5))
    builtin = GAME.play_shard(data, 3, rules, [parse_strategy("random", registry, "t"),
                                               parse_strategy("greedy", registry, "t")],
                              seats, deals, deals + np.uint64(5))
    for column in builtin:
        if hasattr(builtin[column], "equals"):  # a list column
            assert with_user[column].equals(builtin[column]), column
        else:
            np.testing.assert_array_equal(with_user[column], builtin[column], err_msg=column)
    assert any(seconds is not None for seconds in GAME.variant_compile_seconds().values())
    played = GAME.play_one(data, 2, rules, [user, user], 4)
    reference = GAME.play_one(data, 2, rules, [parse_strategy("random", registry, "t")] * 2, 4)
    assert played.scores == reference.scores
    result = runner.invoke(app, ["strategies", "--game", "harmonies",
                                 "harmonies_bots:CompiledRandom"])
    assert result.exit_code == 0 and "[compiled]" in result.output and "cost=3" in result.output


def test_a_class_with_nothing_to_play_is_a_one_line_error(user_module):
    with pytest.raises(InputError, match="neither compiled functions"):
        parse_strategy("harmonies_empty:Nothing", GAME.strategies(), "test")
