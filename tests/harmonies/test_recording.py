"""A game played turn by turn with a log is the very game the batch kernel plays."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.tables import build_tables
from sim.loops.harmonies.driver import play_recorded_game
from sim.loops.harmonies.loop import play_games
from sim.strategy_spec import parse_strategy
from strategies.harmonies import REGISTRY
from strategies.harmonies.ids import PARAMETER_SLOTS, POLICY_IDS


@pytest.mark.parametrize("players,side,spirits,lineup", [
    (4, "A", False, ["planner", "greedy", "animals", "random"]),
    (3, "B", True, ["landscape", "planner", "greedy"]),
    (1, "A", True, ["random"]),
    (2, "B", False, ["animals:cards=0.5", "greedy"]),
])
def test_recorded_game_equals_the_kernels_game(data, players, side, spirits, lineup):
    tables = build_tables(data, HarmoniesRules(players=players, side=side, spirits=spirits))
    specs = [parse_strategy(text, REGISTRY, "test") for text in lineup]
    ids = np.array([POLICY_IDS[spec.name] for spec in specs], dtype=np.int8)
    parameters = np.array([REGISTRY.strategy_class(spec.name).parameter_row(spec.parameters,
                                                                        PARAMETER_SLOTS)
                           for spec in specs])
    positions = data.sides[side].hexes
    for deal_seed in (3, 8):
        recorded = play_recorded_game(tables, positions, ids, deal_seed, deal_seed + 50,
                                      parameters)
        batch = play_games(tables, ids, [deal_seed], [deal_seed + 50],
                           parameters=parameters[None])
        for field in ("category_points", "total", "rank", "win", "cubes_placed",
                      "cards_completed", "turns"):
            assert np.array_equal(getattr(recorded.results, field), getattr(batch, field)), \
                field
        assert len(recorded.turns) == players * int(batch.turns[0, 0])
        tokens_taken = sum(len(turn.taken) for turn in recorded.turns)
        tokens_placed = int(recorded.public.heights.sum())
        boxed = sum(1 for turn in recorded.turns for _, where in turn.tokens if where is None)
        assert tokens_taken == tokens_placed + boxed
