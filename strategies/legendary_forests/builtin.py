"""Dispatch of the built-in Legendary Forests strategies by id, inside compiled code.

The game kernel calls ``choose_placement`` and ``choose_tree`` with a seat's policy id; one cached
kernel then serves every lineup of built-ins without recompiling (a compiled function passed as an
argument would be specialised per lineup and could not be cached on disk).
"""

from __future__ import annotations

from numba import njit

from strategies.legendary_forests.baseline import (
    greedy_placement,
    greedy_tree,
    random_placement,
    random_tree,
)

RANDOM = 0
GREEDY = 1
POLICY_IDS = {"random": RANDOM, "greedy": GREEDY}
PARAMETER_SLOTS = 8  # float parameters a built-in may read, per seat


@njit(cache=True)
def choose_placement(policy, params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """Index of the chosen legal placement for ``policy``."""
    if policy == GREEDY:
        return greedy_placement(tiles, table, player, tile, move_cells, move_rotations,
                                move_count, rng, scratch, preview)
    return random_placement(move_count, rng)


@njit(cache=True)
def choose_tree(policy, params, tiles, table, player, choice_colours, choice_zones,
                choice_count, rng):
    """Index of the chosen legal (colour, zone) tree choice for ``policy``."""
    if policy == GREEDY:
        return greedy_tree(table, player, choice_colours, choice_zones, choice_count, rng)
    return random_tree(choice_count, rng)
