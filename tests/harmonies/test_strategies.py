"""The Harmonies strategies: legal play under the engine's audit, public information only,
parameters that reach the compiled kernel, and measurable differences in play and strength."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.state import DRAW_BAG, DRAW_DECK, deal, new_state
from sim.games.harmonies.tables import build_tables
from sim.games.registry import get_game
from sim.loops.harmonies.dispatch import default_parameter_table, strategy_table
from sim.loops.harmonies.loop import play_games, play_turn
from sim.rng import seed_state
from sim.strategy_spec import parse_strategy
from strategies.harmonies.common import new_workspace
from strategies.harmonies.ids import POLICY_IDS

NEW_STRATEGIES = ("landscape", "animals", "planner", "expert")
GAME = get_game("harmonies")


@pytest.mark.parametrize("players,side,spirits", [(4, "A", False), (3, "B", True),
                                                  (2, "A", True), (1, "B", False)])
def test_new_strategies_play_legally_under_the_audit(data, players, side, spirits):
    tables = build_tables(data, HarmoniesRules(players=players, side=side, spirits=spirits))
    games = 12
    names = [*NEW_STRATEGIES, "greedy", "random"]
    lineups = np.array([[POLICY_IDS[names[(g + s) % len(names)]] for s in range(players)]
                        for g in range(games)], dtype=np.int8)
    seeds = np.arange(games) + 500 * players
    # audit=True checks every invariant after every turn; an illegal action raises inside.
    results = play_games(tables, lineups, seeds, seeds + 1, audit=True)
    assert (results.turns > 0).all()
    assert np.allclose(results.win.sum(axis=1), 1.0)


def _copy(state):
    """A deep copy of a state or workspace (nested named tuples of arrays)."""
    return type(state)(*[_copy(part) if isinstance(part, tuple) else part.copy()
                         for part in state])


@pytest.mark.parametrize("name", sorted(POLICY_IDS))
def test_a_policy_sees_only_public_information(data, name):
    # Two states equal in everything public but with the bag and the deck in another order:
    # a turn played through the engine's entry point must give the same decisions.
    tables = build_tables(data, HarmoniesRules(players=3))
    public, hidden = new_state(tables)
    work = new_workspace(tables)
    deal(tables, public, hidden, np.uint64(9))
    lineup = np.full(3, POLICY_IDS[name], dtype=np.int8)
    work.parameters[:] = default_parameter_table()[lineup]
    for seat in range(3):
        seed_state(work.generators[seat], np.uint64(17), seat)
    strategies = strategy_table(lineup, tables, public, work, hidden)
    for _ in range(2):
        for seat in range(3):
            play_turn(tables, public, hidden, work, lineup, seat, strategies)
    shuffled = _copy(hidden)
    rng = np.random.default_rng(3)
    rng.shuffle(shuffled.bag_order[shuffled.draw_positions[DRAW_BAG]:])
    rng.shuffle(shuffled.deck_order[shuffled.draw_positions[DRAW_DECK]:])
    assert not np.array_equal(shuffled.bag_order, hidden.bag_order)
    outcomes = []
    for secret in (hidden, shuffled):
        state, scratch_work = _copy(public), _copy(work)
        play_turn(tables, state, _copy(secret), scratch_work, lineup, 0, strategies)
        outcomes.append(state)
    first, second = outcomes
    for field in ("stacks", "heights", "cube_heights", "held_cards", "cubes_placed",
                  "held_count"):
        assert np.array_equal(getattr(first, field)[0], getattr(second, field)[0]), field
    assert np.array_equal(first.box_counts, second.box_counts)


def play_mixed(lineup: list[str], games: int, seed: int = 0) -> dict[str, np.ndarray]:
    """Columns of ``games`` 4-player games seating ``lineup`` rotated over the seats."""
    seats = np.array([np.roll(np.arange(4), g) for g in range(games)])
    specs = [parse_strategy(text, GAME.strategies(), "test") for text in lineup]
    seeds = np.arange(games, dtype=np.uint64) + np.uint64(seed)
    columns = GAME.play_shard(GAME.load_data(None), 4, GAME.default_rules(), specs, seats,
                              seeds, seeds + np.uint64(99))
    columns["entry"] = seats.reshape(-1)
    return columns


def test_strategies_differ_in_play_and_in_strength():
    lineup = ["planner", "animals", "greedy", "landscape"]
    columns = play_mixed(lineup, 80)

    def mean(column, entry):
        return columns[column][columns["entry"] == entry].astype(float).mean()

    planner, animals, greedy, landscape = range(4)
    assert mean("points_animals", landscape) == 0 and mean("cubes_placed", landscape) == 0
    assert mean("points_animals", animals) > mean("points_animals", greedy) + 8
    assert mean("points_animals", planner) > mean("points_animals", greedy) + 8
    # landscape builds landscapes better than greedy, which grabs cards
    landscape_points = [mean(c, landscape) - mean(c, greedy) for c in
                        ("points_trees", "points_fields", "points_buildings")]
    assert sum(landscape_points) > 0
    assert mean("score", planner) > mean("score", greedy) + 8
    assert mean("score", animals) > mean("score", greedy) + 5
    random = play_mixed(["random", "greedy", "landscape", "planner"], 20)
    assert random["score"][random["entry"] == 0].mean() + 15 < \
        random["score"][random["entry"] == 1].mean()


def test_parameters_reach_the_kernel():
    lineup = ["planner", "planner:threshold=1000", "animals", "animals:cards=0,chance=0.3"]
    columns = play_mixed(lineup, 16, seed=40)
    cubes = [columns["cubes_placed"][columns["entry"] == k].sum() for k in range(4)]
    assert cubes[0] > 0 and cubes[1] == 0  # a threshold no card reaches: no card taken
    scores = [columns["score"][columns["entry"] == k].mean() for k in range(4)]
    assert scores[2] != scores[3]
