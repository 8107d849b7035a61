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


# What the loop calls through its table of compiled functions (``dispatch.strategy_table``):
# a strategy to play, and each function with whether that strategy needs it compiled.
TABLE_STRATEGIES = {
    "legendary-forests": ("expert", [
        ("sim.loops.legendary_forests.dispatch:planner_placement_entry", False),
        ("sim.loops.legendary_forests.dispatch:rollout_placement_entry", False),
        ("sim.loops.legendary_forests.dispatch:rollout_tree_entry", False),
        ("sim.loops.legendary_forests.dispatch:expert_placement_entry", True),
        ("sim.loops.legendary_forests.dispatch:counted_expert_tree", True)]),
    "harmonies": ("planner", [
        ("sim.loops.harmonies.dispatch:counted_expert_turn", False),
        ("sim.loops.harmonies.dispatch:valued_policy_turn", True),
        ("sim.loops.harmonies.dispatch:counted_expert_choose_spirit", False)]),
}

# In a fresh process (nothing compiled in memory; the loop itself loads from the disk cache).
_LAZY_CHECK = """
import importlib, sys
import numpy as np
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy
name, strategy, functions = sys.argv[1], sys.argv[2], sys.argv[3:]
game = get_game(name)
def compiled_now():
    found = []
    for path in functions:
        module, attribute = path.split(":")
        found.append(len(getattr(importlib.import_module(module), attribute).overloads) > 0)
    return found
lineup = [parse_strategy(text, game.strategies(), "--strategy") for text in ("greedy", strategy)]
seeds = np.arange(2, dtype=np.uint64)
game.play_shard(game.load_data(None), 2, game.default_rules(), lineup[:1],
                np.zeros((2, 2), dtype=np.int64), seeds, seeds)
print(compiled_now())
game.play_shard(game.load_data(None), 2, game.default_rules(), lineup,
                np.array([[0, 1], [1, 0]]), seeds, seeds)
print(compiled_now())
"""


@pytest.mark.parametrize("name", sorted(TABLE_STRATEGIES))
def test_the_big_strategies_are_compiled_only_when_a_lineup_plays_them(name):
    import subprocess
    import sys

    strategy, functions = TABLE_STRATEGIES[name]
    result = subprocess.run([sys.executable, "-c", _LAZY_CHECK, name, strategy,
                             *(path for path, _ in functions)],
                            capture_output=True, text=True, check=True)
    before, after = result.stdout.split("\n")[:2]
    # A greedy shard runs the loop alone; a shard with the strategy adds only its functions.
    assert before == str([False] * len(functions))
    assert after == str([needed for _, needed in functions])


_PURE_PYTHON_SCORES = """
import sys
import numpy as np
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy
name, players, texts = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
game = get_game(name)
lineup = [parse_strategy(text, game.strategies(), "--strategy") for text in texts]
seats = np.array([[(g + s) % len(texts) for s in range(players)] for g in range(len(texts))])
seeds = np.arange(len(texts), dtype=np.uint64)
columns = game.play_shard(game.load_data(None), players, game.default_rules(), lineup, seats,
                          seeds, seeds + 3)
print(columns["score"].tolist())
"""


@pytest.mark.parametrize("name", sorted(POOLS))
def test_the_same_code_runs_in_plain_python_with_the_same_games(name):
    # NUMBA_DISABLE_JIT=1 (for cProfile on a few games) must run every built-in, through the
    # strategy table too, and play exactly the compiled games.
    import os
    import subprocess
    import sys

    texts, players, _ = POOLS[name]
    result = subprocess.run([sys.executable, "-c", _PURE_PYTHON_SCORES, name, "2", *texts],
                            capture_output=True, text=True, check=True,
                            env={**os.environ, "NUMBA_DISABLE_JIT": "1"})
    game = get_game(name)
    lineup = [parse_strategy(text, game.strategies(), "--strategy") for text in texts]
    seats = np.array([[(g + s) % len(texts) for s in range(2)] for g in range(len(texts))])
    seeds = np.arange(len(texts), dtype=np.uint64)
    compiled = game.play_shard(game.load_data(None), 2, game.default_rules(), lineup, seats,
                               seeds, seeds + 3)
    assert result.stdout.strip() == str(compiled["score"].tolist())


_LINKED_MODULE = '''
from sim.jit import compiled, entry


@compiled
def add_squares(a, b):
    return a * a + b * b


@entry
def first(values):
    total = 0
    for value in values:
        total += add_squares(value, value)
    return total


@entry
def second(values):
    total = 0
    for value in values:
        total += add_squares(value, value) + 1
    return total
'''

_LINKED_CHECK = """
import sys
import numpy as np
sys.path.insert(0, sys.argv[1])
import linked_module
entry = getattr(linked_module, sys.argv[2])
print(entry(np.arange(5)))
(result,) = linked_module.add_squares.overloads.values()
print(type(result.library).__name__, result.library.get_pointer_to_function("anything"),
      sum(linked_module.add_squares.stats.cache_hits.values()))
"""


def test_a_function_only_compiled_code_calls_is_linked_not_built(tmp_path):
    # Its library stops at LLVM (no machine code of its own), is cached as bitcode, and a
    # caller compiled in another process later links it from that cache.
    import os
    import subprocess
    import sys

    (tmp_path / "linked_module.py").write_text(_LINKED_MODULE)
    environment = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}

    def run(entry_name):
        result = subprocess.run([sys.executable, "-c", _LINKED_CHECK, str(tmp_path), entry_name],
                                capture_output=True, text=True, check=True, env=environment)
        return result.stdout.split("\n")[:2]

    # Twice the squares of 0..4 is 60; the second adds 1 for each of the 5 values.
    assert run("first") == ["60", "LinkingOnlyLibrary 0 0"]  # compiled, then cached
    assert run("second") == ["65", "LinkingOnlyLibrary 0 1"]  # loaded from the cache
