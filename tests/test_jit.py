"""``sim.jit``: code compiled without reference counting must not leak what it is handed, and
its functions still answer when Python calls them."""

from __future__ import annotations

import numpy as np
import pytest
from numba.core.runtime import _nrt_python, rtsys

from sim.games.registry import get_game
from sim.jit import CompiledOnlyDispatcher
from sim.strategy_spec import parse_strategy

# Every built-in of both games, in one pool, so every compiled path of each loop allocates and
# frees at least once (rollout plays out a few games only: it is slow).
POOLS = {
    "legendary-forests": (["random", "greedy", "rune-hunter", "closer", "planner", "denier",
                           "expert", "rollout:rollouts=2,candidates=2"], 4, 8),
    "harmonies": (["random", "greedy", "landscape", "animals", "planner", "expert"], 4, 6),
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_a_shard_frees_every_array_it_allocates(name):
    game = get_game(name)
    names, players, games = POOLS[name]
    data = game.load_data(None)
    lineup = [parse_strategy(text, game.strategies(), "--strategy") for text in names]
    seats = np.array([[(g + s) % len(names) for s in range(players)] for g in range(games)])
    seeds = np.arange(games, dtype=np.uint64)
    game.play_shard(data, players, game.default_rules(), lineup, seats, seeds, seeds)  # compile
    _nrt_python.memsys_enable_stats()
    try:
        before = rtsys.get_allocation_stats()
        game.play_shard(data, players, game.default_rules(), lineup, seats, seeds + 7, seeds)
        after = rtsys.get_allocation_stats()
    finally:
        _nrt_python.memsys_disable_stats()
    allocated = after.alloc - before.alloc
    freed = after.free - before.free
    assert allocated > 0  # the stats are on and the pool allocates somewhere
    # The result arrays are numpy's, made in Python: whatever compiled code allocates, it frees.
    assert allocated == freed, (allocated, freed)


def test_compiled_functions_answer_python_calls():
    from sim.games.legendary_forests.data import load_tileset
    from sim.games.legendary_forests.rules import (
        new_table,
        planet_score,
        reset_table,
        tile_arrays,
    )

    assert isinstance(planet_score, CompiledOnlyDispatcher)
    tileset = load_tileset(None)
    table = new_table(tileset.size, 2, 5)
    reset_table(tile_arrays(tileset), table, 2)
    assert planet_score(table, 0) == 0
    assert table.placed_count.tolist() == [1, 1]
