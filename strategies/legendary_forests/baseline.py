"""Baseline Legendary Forests strategies: ``random`` and ``greedy``.

A strategy makes two decisions, each as a compiled function that returns the index of its pick
among legal options the engine lists: where to put the revealed tile, and which tree to take in a
tree phase. It reads only the public ``Table`` (every planet, the supply, the token holder, the
tiles drawn so far); the deal is not passed to it.
"""

from __future__ import annotations

from sim.games.legendary_forests.rules import (
    PREVIEW_FULL_RUNES,
    PREVIEW_SCORE_CHANGE,
    PREVIEW_TREED_ZONES_CLOSED,
    find_zone,
    preview_placement,
    zone_points,
)
from sim.jit import compiled, inlined
from sim.rng import next_below


@inlined
def random_placement(move_count, rng):
    """``random``: uniform over the legal placements (distinct-looking rotations)."""
    return next_below(rng, move_count)


@inlined
def random_tree(choice_count, rng):
    """``random``: uniform over the legal (colour, zone) tree choices."""
    return next_below(rng, choice_count)


@compiled
def greedy_placement(tiles, table, player, tile, move_cells, move_rotations, move_count, rng,
                     scratch, preview):
    """``greedy``: the placement with the best immediate gain. Points gained now (zones that hold
    trees growing or closing) weigh most, then closing a zone that holds a tree, then new full
    runes; ties are broken uniformly at random."""
    best_value = -1 << 30
    best_index = 0
    ties = 0
    for index in range(move_count):
        preview_placement(tiles, table, player, tile, move_cells[index], move_rotations[index],
                          scratch, preview)
        value = (
            8 * preview[PREVIEW_SCORE_CHANGE]
            + 4 * preview[PREVIEW_TREED_ZONES_CLOSED]
            + preview[PREVIEW_FULL_RUNES]
        )
        if value > best_value:
            best_value = value
            best_index = index
            ties = 1
        elif value == best_value:
            # Reservoir sampling keeps a uniform pick among equal values in one pass.
            ties += 1
            if next_below(rng, ties) == 0:
                best_index = index
    return best_index


@compiled
def greedy_tree(table, player, choice_colours, choice_zones, choice_count, rng):
    """``greedy``: the tree worth most now (a zone without a tree gains its current points),
    then the zone with most full runes; ties uniformly at random."""
    best_value = -1 << 30
    best_index = 0
    ties = 0
    for index in range(choice_count):
        root = find_zone(table, player, choice_zones[index])
        full_runes = table.zone_full_runes[player, root]
        open_half_runes = table.zone_open_half_runes[player, root]
        trees = table.zone_trees[player, root]
        gain = zone_points(full_runes, open_half_runes, trees + 1) - zone_points(
            full_runes, open_half_runes, trees
        )
        value = 1000 * gain + full_runes
        if value > best_value:
            best_value = value
            best_index = index
            ties = 1
        elif value == best_value:
            ties += 1
            if next_below(rng, ties) == 0:
                best_index = index
    return best_index


