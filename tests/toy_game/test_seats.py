"""The glue every game loop shares, on the toy game's strategies: the seat arrays of a lineup
(``sim.loops.seats``), the rows-store layout, and a game's ``DecisionFunctions`` gathered from
its decisions module (``sim.games.decisions.decision_functions``)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from sim.games.base import StrategySpec
from sim.games.decisions import DecisionFunctions, decision_functions
from sim.loops.seats import (
    compiled_hooks,
    only_compiled_hook,
    per_game_rows,
    per_seat_rows,
    seat_arrays,
    seat_column,
)
from tests.toy_game import decisions
from tests.toy_game.dispatch import PARAMETER_SLOTS, POLICY_IDS, USER_POLICY_BASE
from tests.toy_game.strategies import REGISTRY, Strategy


@njit
def first_pick(params, public, seat, pair_bonus, rng):
    return 0


@njit
def second_pick(params, public, seat, pair_bonus, rng):
    return 1


class FirstPick(Strategy):
    name = "first-pick"
    compiled_pick = first_pick


class SecondPick(Strategy):
    name = "second-pick"
    compiled_pick = second_pick


class PythonPick(Strategy):
    name = "python-pick"

    def choose(self, observation):
        return 0


@pytest.fixture
def registry(monkeypatch):
    """The toy registry with three user strategies registered under their names."""
    extra = {cls.name: cls for cls in (FirstPick, SecondPick, PythonPick)}
    real = REGISTRY.strategy_class
    monkeypatch.setattr(REGISTRY, "strategy_class",
                        lambda name: extra[name] if name in extra else real(name))
    return REGISTRY


def test_seat_arrays_number_compiled_strategies_from_the_base_in_order_of_appearance(registry):
    lineup = [StrategySpec("second-pick"), StrategySpec("greedy", {"patience": 0.25}),
              StrategySpec("first-pick"), StrategySpec("python-pick"),
              StrategySpec("second-pick"), StrategySpec("search", {"playouts": 7})]
    seats = seat_arrays(registry, lineup, POLICY_IDS, PARAMETER_SLOTS, USER_POLICY_BASE,
                        user_function=only_compiled_hook)
    assert seats.policies.dtype == np.int8 and seats.parameters.dtype == np.float64
    assert seats.policies.tolist() == [USER_POLICY_BASE, POLICY_IDS["greedy"],
                                       USER_POLICY_BASE + 1, 0, USER_POLICY_BASE,
                                       POLICY_IDS["search"]]
    # One variant slot per strategy, however many seats play it.
    assert seats.user_functions == [second_pick, first_pick]
    assert seats.python_strategies == [None, None, None, (PythonPick, {}), None, None]
    assert seats.parameters.shape == (6, PARAMETER_SLOTS)
    assert seats.parameters[1, 0] == 0.25
    assert seats.parameters[5].tolist() == [7.0, 0.7]
    # A game with several hooks gets each strategy's hooks as one tuple.
    hooks = seat_arrays(registry, lineup, POLICY_IDS, PARAMETER_SLOTS, USER_POLICY_BASE,
                        user_function=compiled_hooks)
    assert hooks.user_functions == [(second_pick,), (first_pick,)]


def test_rows_are_game_major_one_per_game_and_seat():
    by_seat = np.arange(6, dtype=np.int16).reshape(3, 2)
    assert seat_column(3, 2).tolist() == [0, 1, 0, 1, 0, 1]
    assert seat_column(3, 2).dtype == np.int8
    assert per_seat_rows(by_seat).tolist() == [0, 1, 2, 3, 4, 5]
    # A strided slice (one colour of a [games, players, colours] array) and a dtype.
    colours = np.arange(12).reshape(3, 2, 2)
    sliced = per_seat_rows(colours[:, :, 1], np.int8)
    assert sliced.tolist() == [1, 3, 5, 7, 9, 11] and sliced.dtype == np.int8
    by_game = np.array([[1, 2], [3, 4], [5, 6]])
    assert per_game_rows(by_game, 2).tolist() == [[1, 2], [1, 2], [3, 4], [3, 4], [5, 6], [5, 6]]


def test_decision_functions_gathers_a_module_by_member_name():
    gathered = decision_functions("pick-two", vars(decisions), score_scale=60.0)
    assert isinstance(gathered, DecisionFunctions)
    assert gathered == decisions.DECISIONS
    assert gathered.apply_decision is decisions.apply_decision
    namespace = dict(vars(decisions))
    del namespace["determinise"], namespace["new_game"]
    with pytest.raises(TypeError, match="determinise, new_game"):
        decision_functions("pick-two", namespace, score_scale=60.0)
