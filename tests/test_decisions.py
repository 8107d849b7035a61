"""The decision interface (``sim.games.decisions``) every game implements, and the search
strategy written once on it (``sim.search.ismcts``), for every registered game that has one
(the toy game of ``tests/toy_game`` included): random games through the interface keep the
contract and score as the game's own scorer; ``search`` is registered with the shared defaults,
is a pure function of its seeds and, given a larger budget, beats ``random``."""

from __future__ import annotations

import importlib

import numpy as np
import polars as pl
import pytest
from scipy import stats

from sim.games.base import StrategySpec
from sim.games.decisions import DecisionFunctions, check_decisions
from sim.games.registry import games, get_game
from sim.search.ismcts import DEFAULT_EXPLORATION, DEFAULT_PLAYOUTS


def decisions_of(game) -> DecisionFunctions | None:
    """The game's ``DECISIONS``: the ``decisions`` module beside its ``Game`` class."""
    package = type(game).__module__.rsplit(".", 1)[0]
    try:
        module = importlib.import_module(f"{package}.decisions")
    except ModuleNotFoundError:
        return None
    return module.DECISIONS


GAMES = [name for name in games() if decisions_of(get_game(name)) is not None]


def test_every_game_has_the_interface():
    assert {"pick-two", "legendary-forests"} <= set(GAMES)


@pytest.mark.parametrize("name", GAMES)
def test_random_games_keep_the_contract_and_score_as_the_game_does(name):
    game = get_game(name)
    functions = decisions_of(game)
    data, rules = game.load_data(None), game.default_rules()
    for players in sorted({max(game.min_players, 2), min(game.max_players, 4)}):
        for seed in range(3):
            assert check_decisions(functions, data, players, rules, seed) > 0


@pytest.mark.parametrize("name", GAMES)
def test_search_is_registered_with_the_shared_defaults(name):
    info = get_game(name).strategies()["search"]
    defaults = {parameter.name: parameter.default for parameter in info.parameters}
    assert defaults == {"playouts": DEFAULT_PLAYOUTS, "exploration": DEFAULT_EXPLORATION}


@pytest.mark.parametrize("name", GAMES)
def test_search_with_a_fixed_seed_plays_the_same_game(name):
    game = get_game(name)
    players = max(game.min_players, 2)
    lineup = [StrategySpec("search", {"playouts": 8}), StrategySpec("greedy")]
    seats = np.array([[0, 1] + [1] * (players - 2)], dtype=np.int64)
    deals = np.array([5], dtype=np.uint64)
    shard = (game.load_data(None), players, game.default_rules(), lineup, seats, deals,
             deals + np.uint64(1))
    first, second = game.play_shard(*shard), game.play_shard(*shard)
    assert all(same_column(first[column], second[column]) for column in first)
    other = game.play_shard(*shard[:5], np.array([6], dtype=np.uint64), deals + np.uint64(1))
    assert not all(same_column(first[column], other[column]) for column in first)


def same_column(first, second) -> bool:
    """Two result columns are equal: numpy arrays, or list columns (polars Series)."""
    if isinstance(first, pl.Series):
        return isinstance(second, pl.Series) and first.equals(second)
    return np.array_equal(first, second)


def test_search_with_a_larger_budget_beats_random_in_the_toy_game():
    """300 deals, each played twice with the seats swapped; the deal is the cluster. The
    one-sided 99.9999% lower bound of search's mean win share (t over the deals' means) must
    clear one half, which a strategy no better than random passes with chance 1e-6."""
    game = get_game("pick-two")
    deals = 300
    lineup = [StrategySpec("search", {"playouts": 200}), StrategySpec("random")]
    seats = np.tile(np.array([[0, 1], [1, 0]], dtype=np.int64), (deals, 1))
    deal_seeds = np.repeat(np.arange(deals, dtype=np.uint64), 2)
    strategy_seeds = np.arange(2 * deals, dtype=np.uint64) + np.uint64(10_000)
    columns = game.play_shard(game.load_data(None), 2, game.default_rules(), lineup, seats,
                              deal_seeds, strategy_seeds)
    wins = np.asarray(columns["win"], dtype=np.float64).reshape(2 * deals, 2)
    search_share = np.where(seats == 0, wins, 0.0).sum(axis=1).reshape(deals, 2).mean(axis=1)
    mean, error = search_share.mean(), stats.sem(search_share)
    lower = mean - stats.t.ppf(1 - 1e-6, deals - 1) * error
    assert lower > 0.5, (mean, lower)
