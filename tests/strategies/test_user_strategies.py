"""User strategies: a Python one and a compiled one in a temporary module, loaded by
``module:Class``, play full games; the README example is the code tested here."""

import re
from pathlib import Path

import numpy as np
import pytest

from sim.errors import InputError
from sim.games.base import StrategySpec
from sim.strategy_spec import parse_strategy

README = Path(__file__).resolve().parents[2] / "README.md"

COMPILED_GREEDY = '''
from numba import njit

from sim.games.base import StrategyParameter
from strategies.legendary_forests.base import Strategy
from strategies.legendary_forests.baseline import greedy_placement, greedy_tree


@njit
def place(params, tiles, table, player, tile, cells, rotations, count, rng, scratch, preview):
    return greedy_placement(tiles, table, player, tile, cells, rotations, count, rng, scratch,
                            preview)


@njit
def tree(params, tiles, table, player, colours, zones, count, rng):
    return greedy_tree(table, player, colours, zones, count, rng)


class CompiledGreedy(Strategy):
    name = "compiled-greedy"
    description = "greedy, as a compiled user strategy"
    parameters = (StrategyParameter("unused", 1.0, "a parameter, to check the slots"),)
    compiled_placement = place
    compiled_tree = tree
'''


def readme_example() -> str:
    """The Python code block of the README section 'Write your own strategy'."""
    text = README.read_text()
    section = text[text.index("## Write your own strategy"):]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    """Write modules into a temporary directory on sys.path."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def write(name: str, code: str) -> Path:
        path = tmp_path / f"{name}.py"
        path.write_text(code)
        return path

    return write


def test_readme_python_strategy_loads_by_module_and_class_and_plays(game, tileset, rules,
                                                                    user_module):
    user_module("my_bots", readme_example())
    registry = game.strategies()
    spec = parse_strategy("my_bots:Cautious:caution=2", registry, "test")
    assert spec == StrategySpec("my_bots:Cautious", {"caution": 2.0})
    played = game.play_one(tileset, 3, rules, [spec, StrategySpec("greedy"),
                                               StrategySpec("random")], 4)
    assert "turn 19: tile" in played.text
    assert played.document["strategies"][0] == "my_bots:Cautious:caution=2"
    games = 4
    seats = np.array([[0, 1, 1]] * games)
    deals = np.arange(games, dtype=np.uint64)
    columns = game.play_shard(tileset, 3, rules, [spec, StrategySpec("random")], seats, deals,
                              deals + np.uint64(9))
    scores = columns["score"].reshape(games, 3)
    # The cautious player outscores two random players on every one of these deals.
    assert (scores[:, 0] > scores[:, 1:].max(axis=1)).all()


def test_a_file_path_names_a_strategy_too(game, tileset, rules, user_module):
    path = user_module("bots_by_path", readme_example())
    by_path = parse_strategy(f"{path}:Cautious", game.strategies(), "test")
    by_module = parse_strategy("bots_by_path:Cautious", game.strategies(), "test")
    first = game.play_one(tileset, 2, rules, [by_path, StrategySpec("greedy")], 1)
    second = game.play_one(tileset, 2, rules, [by_module, StrategySpec("greedy")], 1)
    assert "turn 19: tile" in first.text
    assert first.scores == second.scores


def test_compiled_user_strategy_plays_exactly_like_the_builtin_it_wraps(game, tileset, rules,
                                                                        user_module):
    user_module("compiled_bots", COMPILED_GREEDY)
    registry = game.strategies()
    user = parse_strategy("compiled_bots:CompiledGreedy:unused=3", registry, "test")
    assert game.lineup_kind([user]) == "compiled"
    games = 5
    seats = np.array([[0, 1, 0, 1]] * games)
    deals = np.arange(games, dtype=np.uint64) + np.uint64(50)
    with_user = game.play_shard(tileset, 4, rules, [user, StrategySpec("planner")], seats,
                                deals, deals + np.uint64(1))
    builtin = game.play_shard(tileset, 4, rules, [StrategySpec("greedy"),
                                                  StrategySpec("planner")], seats, deals,
                              deals + np.uint64(1))
    for column in ("score", "full_runes", "closed_zones", "trees_pink", "win"):
        np.testing.assert_array_equal(with_user[column], builtin[column], err_msg=column)
    assert any(seconds is not None for seconds in game.variant_compile_seconds().values())
    # sim play takes the compiled variant too.
    played = game.play_one(tileset, 2, rules, [user, StrategySpec("greedy")], 3)
    reference = game.play_one(tileset, 2, rules, [StrategySpec("greedy")] * 2, 3)
    assert played.scores == reference.scores


def test_bad_user_strategies_give_one_line_errors(game, user_module):
    user_module("broken_bots", "import nonexistent_module_xyz\n")
    user_module("empty_bots", "from strategies.legendary_forests.base import Strategy\n"
                              "class Nothing(Strategy):\n    name = 'nothing'\n")
    registry = game.strategies()
    cases = [("broken_bots:Bot", "nonexistent_module_xyz"), ("empty_bots:Missing", "no 'Missing'"),
             ("empty_bots:Nothing", "neither compiled functions nor Python methods"),
             ("no_such_module_abc:Bot", "cannot be imported"),
             ("greedy:depth=2", "no parameter 'depth'")]
    for text, reason in cases:
        with pytest.raises(InputError, match=reason):
            parse_strategy(text, registry, "test")


def test_a_python_strategy_returning_an_illegal_index_fails_loudly(game, tileset, rules,
                                                                   user_module):
    user_module("illegal_bots", "from strategies.legendary_forests.base import Strategy\n"
                                "class TooFar(Strategy):\n    name = 'too-far'\n"
                                "    def choose_placement(self, observation, placements):\n"
                                "        return len(placements)\n"
                                "    def choose_tree(self, observation, choices):\n"
                                "        return 0\n")
    spec = parse_strategy("illegal_bots:TooFar", game.strategies(), "test")
    with pytest.raises(InputError, match="only .* legal options"):
        game.play_one(tileset, 2, rules, [spec, spec], 1)
