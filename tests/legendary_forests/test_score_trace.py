"""The Legendary Forests score trace: every seat's score after each turn, ending on the final
score; tracing changes no other result."""

from __future__ import annotations

import numpy as np

from sim.games.base import StrategySpec
from sim.games.registry import get_game


def test_score_trace_ends_on_the_final_score_and_changes_nothing_else():
    game = get_game("legendary-forests")
    data, rules = game.load_data(None), game.default_rules()
    for players in (1, 3, 5):
        lineup = [StrategySpec("greedy"), StrategySpec("random")]
        seats = np.array([[(g + s) % 2 for s in range(players)] for g in range(6)])
        deals = np.arange(6, dtype=np.uint64) + np.uint64(40)
        arguments = (data, players, rules, lineup, seats, deals, deals + np.uint64(9))
        plain = game.play_shard(*arguments)
        traced = game.play_shard(*arguments, trace=True)
        assert set(traced) == set(plain) | {"score_trace"}
        for column, values in plain.items():
            assert np.array_equal(values, traced[column]), column
        traces = traced["score_trace"].to_list()
        turns = traced["draw_order"].shape[1]
        assert all(len(trace) == turns for trace in traces)
        assert [trace[-1] for trace in traces] == traced["score"].tolist()
        assert all(min(trace) >= 0 for trace in traces)
