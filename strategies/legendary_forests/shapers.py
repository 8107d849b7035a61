"""Two single-minded Legendary Forests strategies: ``rune-hunter`` and ``closer``.

Both read only the public table and choose among the legal options the engine lists; ties are
broken uniformly at random with the seat's own generator.
"""

from __future__ import annotations

import numpy as np

from sim.games.legendary_forests.rules import (
    GROUP_FULL_RUNES,
    GROUP_OPEN_HALF_RUNES,
    GROUP_TREES,
    find_zone,
    new_groups,
    placement_groups,
)
from sim.jit import compiled, inlined
from strategies.legendary_forests.evaluation import pick_best


@compiled(refcounts=True)
def rune_hunter_placement(tiles, table, player, tile, move_cells, move_rotations, move_count,
                          rng, scratch):
    """``rune-hunter``: the placement that makes the most full runes, then the one that leaves
    the biggest zone (in full runes) where it lands. Whether zones close is ignored."""
    groups = new_groups()
    values = np.empty(move_count, dtype=np.float64)
    for index in range(move_count):
        group_count, root_count = placement_groups(tiles, table, player, tile, move_cells[index],
                                                   move_rotations[index], scratch, groups)
        created = 0
        biggest = 0
        for group in range(group_count):
            if groups[group, GROUP_FULL_RUNES] > biggest:
                biggest = groups[group, GROUP_FULL_RUNES]
        for k in range(root_count):
            created -= table.zone_full_runes[player, scratch[k]]
        for group in range(group_count):
            created += groups[group, GROUP_FULL_RUNES]
        values[index] = 100.0 * created + biggest
    return pick_best(values, move_count, rng)


@compiled(refcounts=True)
def rune_hunter_tree(table, player, choice_zones, choice_count, rng):
    """``rune-hunter``: the tree goes to the zone with the most full runes that has no tree yet
    (a zone that already holds one only when nothing else is left)."""
    values = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        root = find_zone(table, player, choice_zones[index])
        values[index] = table.zone_full_runes[player, root]
        if table.zone_trees[player, root] > 0:
            values[index] -= 1000.0
    return pick_best(values, choice_count, rng)


@inlined
def _closer_zone_value(full_runes, open_half_runes, trees, open_penalty):
    # A zone with a tree is worth its runes, doubled when closed, and loses value with every open
    # half-rune (at most what closing would add); a zone without a tree counts half, as it may
    # still get one.
    if open_half_runes == 0:
        value = 2.0 * full_runes
    else:
        value = full_runes - open_penalty * min(open_half_runes, full_runes)
    if trees == 0:
        value *= 0.5
    return value


@compiled(refcounts=True)
def closer_placement(tiles, table, player, tile, move_cells, move_rotations, move_count, rng,
                     scratch, open_penalty):
    """``closer``: the placement that most improves the zones it touches when closing is what
    counts: a zone holding a tree is worth 2 x runes once closed and loses ``open_penalty`` per
    open half-rune before; zones without a tree (that will hold one) count half."""
    groups = new_groups()
    values = np.empty(move_count, dtype=np.float64)
    for index in range(move_count):
        group_count, root_count = placement_groups(tiles, table, player, tile, move_cells[index],
                                                   move_rotations[index], scratch, groups)
        value = 0.0
        for group in range(group_count):
            value += _closer_zone_value(groups[group, GROUP_FULL_RUNES],
                                        groups[group, GROUP_OPEN_HALF_RUNES],
                                        groups[group, GROUP_TREES], open_penalty)
        for k in range(root_count):
            root = scratch[k]
            value -= _closer_zone_value(table.zone_full_runes[player, root],
                                        table.zone_open_half_runes[player, root],
                                        table.zone_trees[player, root], open_penalty)
        values[index] = value
    return pick_best(values, move_count, rng)


@compiled(refcounts=True)
def closer_tree(table, player, choice_zones, choice_count, rng):
    """``closer``: the zone that scores most once closed, counting a closed zone at 2 x its runes
    and an open one at 2 x its runes discounted by how far it is from closing (1 / (1 + open
    half-runes / 2)); zones that hold a tree already come last."""
    values = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        root = find_zone(table, player, choice_zones[index])
        full_runes = table.zone_full_runes[player, root]
        open_half_runes = table.zone_open_half_runes[player, root]
        value = 2.0 * full_runes / (1.0 + 0.5 * open_half_runes)
        if table.zone_trees[player, root] > 0:
            value -= 10000.0
        values[index] = value
    return pick_best(values, choice_count, rng)
