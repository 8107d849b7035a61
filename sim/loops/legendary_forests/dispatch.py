"""Dispatch of the built-in Legendary Forests strategies by id, inside compiled code.

The game loop calls ``choose_placement`` and ``choose_tree`` with a seat's policy id and its row
of float parameters; one cached loop then serves every lineup of built-ins without recompiling
(a compiled function passed as an argument would be specialised per lineup and could not be
cached on disk). Only ``random`` and ``greedy`` are pasted into the loop; the others are called
through a table of compiled functions (``strategy_table``) and compiled only when a lineup
plays them.
A built-in class of ``strategies.legendary_forests.catalogue`` gets its id by its name
(``POLICY_IDS``, in ``strategies.legendary_forests.ids`` as every game keeps them); its
parameters fill the slots of its row in the order it declares them (``Strategy.parameter_row``).
"""

from __future__ import annotations

import numpy as np
from numba import types

from sim.games.legendary_forests.rules import new_table
from sim.jit import compiled, compiled_function, inlined, typeof_cached
from sim.loops.legendary_forests.decisions import search_placement, search_tree
from strategies.legendary_forests.baseline import (
    greedy_placement,
    greedy_tree,
    random_placement,
    random_tree,
)
from strategies.legendary_forests.expert import (
    allocating_expert_placement,
    expert_placement,
    expert_tree,
    fits_scratch,
    scratch_slots,
)
from strategies.legendary_forests.ids import (
    CLOSER,
    DENIER,
    EXPERT,
    GREEDY,
    PARAMETER_SLOTS,
    PLANNER,
    POLICY_COUNT,
    POLICY_IDS,
    RANDOM,
    ROLLOUT,
    RUNE_HUNTER,
    SEARCH,
)
from strategies.legendary_forests.planner import denier_tree, planner_placement, planner_tree
from strategies.legendary_forests.rollout import rollout_placement, rollout_tree
from strategies.legendary_forests.shapers import (
    closer_placement,
    closer_tree,
    rune_hunter_placement,
    rune_hunter_tree,
)

USER_POLICY_BASE = 64  # ids from here on are compiled user strategies (see loop.compiled_variant)


# Only ``random`` and ``greedy`` (whose placements ``denier`` plays too) are pasted into the
# loop: they are fast, and a call would cost them more than they spend. Every other built-in is
# called through a table of compiled functions (``strategy_table``, see ``sim.jit``), so a cold
# loop compiles without them and each is compiled, or loaded from the cache, only when a lineup
# plays it; each of their decisions costs well over the call.


@compiled(c_callable=True)
def rune_hunter_placement_entry(params, tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview):
    """``rune_hunter_placement`` with the table's signature."""
    return rune_hunter_placement(tiles, table, player, tile, move_cells, move_rotations,
                                 move_count, rng, scratch)


@compiled(c_callable=True)
def closer_placement_entry(params, tiles, table, player, tile, move_cells, move_rotations,
                           move_count, rng, scratch, preview):
    """``closer_placement`` with the table's signature."""
    return closer_placement(tiles, table, player, tile, move_cells, move_rotations, move_count,
                            rng, scratch, params[0])


@compiled(c_callable=True)
def planner_placement_entry(params, tiles, table, player, tile, move_cells, move_rotations,
                            move_count, rng, scratch, preview):
    """``planner_placement`` with the table's signature."""
    return planner_placement(tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, scratch, params[0], params[1], params[2])


@compiled(c_callable=True)
def rune_hunter_tree_entry(params, tiles, table, player, choice_colours, choice_zones,
                           choice_count, rng):
    """``rune_hunter_tree`` with the table's signature."""
    return rune_hunter_tree(table, player, choice_zones, choice_count, rng)


@compiled(c_callable=True)
def closer_tree_entry(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                      rng):
    """``closer_tree`` with the table's signature."""
    return closer_tree(table, player, choice_zones, choice_count, rng)


@compiled(c_callable=True)
def planner_tree_entry(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                       rng):
    """``planner_tree`` with the table's signature."""
    return planner_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                        params[0], params[1], params[2], params[3])


@compiled(c_callable=True)
def denier_tree_entry(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                      rng):
    """``denier_tree`` with the table's signature."""
    return denier_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                       params[0])


@compiled(c_callable=True)
def rollout_placement_entry(params, tiles, table, player, tile, move_cells, move_rotations,
                            move_count, rng, scratch, preview):
    """``rollout_placement`` with the table's signature."""
    return rollout_placement(tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, scratch, preview, params[0], params[1])


@compiled(c_callable=True)
def rollout_tree_entry(params, tiles, table, player, choice_colours, choice_zones,
                       choice_count, rng):
    """``rollout_tree`` with the table's signature."""
    return rollout_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                        params[0], params[1])


# ``expert`` places in the loop's scratch (``scratch_size``): without an allocation per decision
# it needs no reference counting, which cost it one atomic release per array of the tables
# after every decision. A smaller scratch (a caller other than the loop) gets the allocating
# variant, whose caller must count.
@compiled(refcounts=True)
def counted_expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, scratch, preview):
    """``allocating_expert_placement`` with reference counting."""
    return allocating_expert_placement(params, tiles, table, player, tile, move_cells,
                                       move_rotations, move_count, rng, scratch, preview)


@compiled(c_callable=True)
def expert_placement_entry(params, tiles, table, player, tile, move_cells, move_rotations,
                           move_count, rng, scratch, preview):
    """``expert_placement`` in ``scratch``, or ``counted_expert_placement`` when ``scratch`` is
    too small for its work (the same choice)."""
    if fits_scratch(tiles, table, move_count, scratch):
        return expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview)
    return counted_expert_placement(params, tiles, table, player, tile, move_cells,
                                    move_rotations, move_count, rng, scratch, preview)


@compiled(refcounts=True, c_callable=True)
def counted_expert_tree(params, tiles, table, player, choice_colours, choice_zones,
                        choice_count, rng):
    """``expert_tree`` with reference counting."""
    return expert_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                       rng)


@compiled(c_callable=True)
def unplayed_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                       move_count, rng, scratch, preview):
    """What the table holds for a placement slot no seat of the shard plays (never called:
    the loop calls a slot only for a seat playing its strategy)."""
    return 0


@compiled(c_callable=True)
def unplayed_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                  rng):
    """What the table holds for a tree slot no seat of the shard plays (never called)."""
    return 0


# What the table holds for each policy id (the ids the loop plays itself hold a placeholder).
PLACEMENT_FUNCTIONS = {RUNE_HUNTER: rune_hunter_placement_entry,
                       CLOSER: closer_placement_entry, PLANNER: planner_placement_entry,
                       ROLLOUT: rollout_placement_entry, EXPERT: expert_placement_entry,
                       SEARCH: search_placement}
TREE_FUNCTIONS = {RUNE_HUNTER: rune_hunter_tree_entry, CLOSER: closer_tree_entry,
                  PLANNER: planner_tree_entry, DENIER: denier_tree_entry,
                  ROLLOUT: rollout_tree_entry, EXPERT: counted_expert_tree,
                  SEARCH: search_tree}
# The compiled functions of each strategy in the table, by name (compiled when first played).
TABLE_FUNCTIONS = {
    name: tuple(functions[policy] for functions in (PLACEMENT_FUNCTIONS, TREE_FUNCTIONS)
                if policy in functions)
    for name, policy in POLICY_IDS.items()
    if policy in PLACEMENT_FUNCTIONS or policy in TREE_FUNCTIONS}


def scratch_size(tile_count: int, players: int, removed_tiles: int, moves: int) -> int:
    """int32 slots of the scratch array the loop passes the placement strategies
    (``loop.new_work``): enough for ``expert`` to work in it (``scratch_slots``) when a decision
    has up to ``moves`` legal placements."""
    table = new_table(tile_count, players, removed_tiles)
    return scratch_slots(tile_count, table.node_parent.shape[1], table.frontier_cells.shape[1],
                         moves)


def strategy_table(policies: np.ndarray, tiles, table, work, instrument=None):
    """The loop's table of compiled strategies for games whose seats play the policy ids in
    ``policies``: (placement functions, tree functions), one per policy id, the real function
    for an id a seat plays and a placeholder otherwise. The signatures are those of the
    arrays given (the loop's own). ``instrument`` (the profiler's) rebuilds each real one."""
    played = {int(policy) for policy in np.unique(policies)}
    real = instrument or (lambda function: function)
    common = (typeof_cached(np.zeros(PARAMETER_SLOTS)), typeof_cached(tiles),
              typeof_cached(table), types.int64)
    rng = typeof_cached(work.seat_rng[0])
    placement = types.int64(*common, types.int64, typeof_cached(work.move_cells),
                            typeof_cached(work.move_rotations), types.int64, rng,
                            typeof_cached(work.scratch), typeof_cached(work.preview))
    tree = types.int64(*common, typeof_cached(work.choice_colours),
                       typeof_cached(work.choice_zones), types.int64, rng)

    def slots(functions, placeholder, signature):
        return tuple(
            compiled_function(real(functions[policy]) if policy in played and policy in functions
                              else placeholder, signature)
            for policy in range(POLICY_COUNT))

    return (slots(PLACEMENT_FUNCTIONS, unplayed_placement, placement),
            slots(TREE_FUNCTIONS, unplayed_tree, tree))


@inlined
def choose_placement(policy, strategies, params, tiles, table, player, tile, move_cells,
                     move_rotations, move_count, rng, scratch, preview):
    """Index of the chosen legal placement for ``policy`` (``strategies``: the table of
    ``strategy_table``)."""
    if policy == RANDOM:
        return random_placement(move_count, rng)
    if policy == GREEDY or policy == DENIER:
        return greedy_placement(tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview)
    if policy < POLICY_COUNT:
        return strategies[0][policy](params, tiles, table, np.int64(player), np.int64(tile),
                                     move_cells, move_rotations, np.int64(move_count), rng,
                                     scratch, preview)
    return random_placement(move_count, rng)


@inlined
def choose_tree(policy, strategies, params, tiles, table, player, choice_colours, choice_zones,
                choice_count, rng):
    """Index of the chosen legal (colour, zone) tree choice for ``policy`` (``strategies``:
    the table of ``strategy_table``)."""
    if policy == RANDOM:
        return random_tree(choice_count, rng)
    if policy == GREEDY:
        return greedy_tree(table, player, choice_colours, choice_zones, choice_count, rng)
    if policy < POLICY_COUNT:
        return strategies[1][policy](params, tiles, table, np.int64(player), choice_colours,
                                     choice_zones, np.int64(choice_count), rng)
    return random_tree(choice_count, rng)
