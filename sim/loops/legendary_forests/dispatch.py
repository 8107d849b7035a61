"""Dispatch of the built-in Legendary Forests strategies by id, inside compiled code.

The game loop calls ``choose_placement`` and ``choose_tree`` with a seat's policy id and its row
of float parameters; one cached loop then serves every lineup of built-ins without recompiling
(a compiled function passed as an argument would be specialised per lineup and could not be
cached on disk). A built-in class of ``strategies.legendary_forests.catalogue`` gets its id here
by its name (``POLICY_IDS``); its parameters fill the slots of its row in the order it declares
them (``Strategy.parameter_row``).
"""

from __future__ import annotations

from sim.jit import compiled, inlined
from strategies.legendary_forests.baseline import (
    greedy_placement,
    greedy_tree,
    random_placement,
    random_tree,
)
from strategies.legendary_forests.expert import expert_placement, expert_tree
from strategies.legendary_forests.planner import denier_tree, planner_placement, planner_tree
from strategies.legendary_forests.rollout import rollout_placement, rollout_tree
from strategies.legendary_forests.shapers import (
    closer_placement,
    closer_tree,
    rune_hunter_placement,
    rune_hunter_tree,
)

RANDOM = 0
GREEDY = 1
RUNE_HUNTER = 2
CLOSER = 3
PLANNER = 4
DENIER = 5
ROLLOUT = 6
EXPERT = 7
POLICY_IDS = {"random": RANDOM, "greedy": GREEDY, "rune-hunter": RUNE_HUNTER, "closer": CLOSER,
              "planner": PLANNER, "denier": DENIER, "rollout": ROLLOUT, "expert": EXPERT}
PARAMETER_SLOTS = 8  # float parameters a strategy may read, per seat
USER_POLICY_BASE = 64  # ids from here on are compiled user strategies (see loop.compiled_variant)


# ``expert`` allocates its work arrays: called from the loop (compiled without reference
# counting, see ``sim.jit``) it needs a caller that counts, which its own functions inherit.
@compiled(refcounts=True)
def counted_expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                             move_count, rng, scratch, preview):
    """``expert_placement`` with reference counting."""
    return expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                            move_count, rng, scratch, preview)


@compiled(refcounts=True)
def counted_expert_tree(params, tiles, table, player, choice_colours, choice_zones,
                        choice_count, rng):
    """``expert_tree`` with reference counting."""
    return expert_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                       rng)


@inlined
def choose_placement(policy, params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """Index of the chosen legal placement for ``policy``."""
    if policy == RANDOM:
        return random_placement(move_count, rng)
    if policy == GREEDY:
        return greedy_placement(tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview)
    if policy == RUNE_HUNTER:
        return rune_hunter_placement(tiles, table, player, tile, move_cells, move_rotations,
                                     move_count, rng, scratch)
    if policy == CLOSER:
        return closer_placement(tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, params[0])
    if policy == PLANNER:
        return planner_placement(tiles, table, player, tile, move_cells, move_rotations,
                                 move_count, rng, scratch, params[0], params[1], params[2])
    if policy == DENIER:
        return greedy_placement(tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview)
    if policy == ROLLOUT:
        return rollout_placement(tiles, table, player, tile, move_cells, move_rotations,
                                 move_count, rng, scratch, preview, params[0], params[1])
    if policy == EXPERT:
        return counted_expert_placement(params, tiles, table, player, tile, move_cells,
                                        move_rotations, move_count, rng, scratch, preview)
    return random_placement(move_count, rng)


@inlined
def choose_tree(policy, params, tiles, table, player, choice_colours, choice_zones,
                choice_count, rng):
    """Index of the chosen legal (colour, zone) tree choice for ``policy``."""
    if policy == RANDOM:
        return random_tree(choice_count, rng)
    if policy == GREEDY:
        return greedy_tree(table, player, choice_colours, choice_zones, choice_count, rng)
    if policy == RUNE_HUNTER:
        return rune_hunter_tree(table, player, choice_zones, choice_count, rng)
    if policy == CLOSER:
        return closer_tree(table, player, choice_zones, choice_count, rng)
    if policy == PLANNER:
        return planner_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                            params[0], params[1], params[2], params[3])
    if policy == DENIER:
        return denier_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                           params[0])
    if policy == ROLLOUT:
        return rollout_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng,
                            params[0], params[1])
    if policy == EXPERT:
        return counted_expert_tree(params, tiles, table, player, choice_colours, choice_zones,
                                   choice_count, rng)
    return random_tree(choice_count, rng)
