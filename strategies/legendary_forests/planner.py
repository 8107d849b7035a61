"""Legendary Forests strategies that look ahead with the public information: ``planner`` and
``denier``.

``planner`` values a planet by the expected final points of its zones (``evaluation.zone_value``),
using the tiles not yet seen to estimate how many turns and tree phases are left, and picks its
trees with a two-pick plan against the supply and the token order. ``denier`` places like
``greedy`` but in tree phases takes the colours its opponents need most.
"""

from __future__ import annotations

import numpy as np

from sim.games.legendary_forests.rules import (
    GRASS,
    LEAF_COLOURS,
    STATUS_PLAYERS,
    STATUS_TOKEN_HOLDER,
    find_zone,
    new_groups,
)
from sim.jit import compiled
from strategies.legendary_forests.evaluation import (
    CONTEXT_SIZE,
    CONTEXT_TREE_PHASES_LEFT,
    best_tree_value_per_colour,
    expected_zone_points,
    game_context,
    pick_best,
    picks_before_next_turn,
    placement_value,
    tree_marginal_value,
)


@compiled(refcounts=True)
def planner_placement(tiles, table, player, tile, move_cells, move_rotations, move_count, rng,
                      scratch, growth, closing, hope):
    """``planner``: the placement that most raises the planet's expected final score, where a
    zone is worth its expected final points (growth and closing chances from the turns left)
    times the hope of a tree (from the tree phases the unseen tiles promise and the supply)."""
    # One allocation for the context and the values (views of it).
    floats = np.empty(CONTEXT_SIZE + move_count, dtype=np.float64)
    context = floats[:CONTEXT_SIZE]
    values = floats[CONTEXT_SIZE:]
    game_context(tiles, table, tiles.light[tile], context)
    groups = new_groups()
    for index in range(move_count):
        values[index] = placement_value(tiles, table, player, tile, move_cells[index],
                                        move_rotations[index], scratch, groups, context, growth,
                                        closing, hope)
    return pick_best(values, move_count, rng)


# Seats whose picked colours ``opponent_colour_demand`` keeps in one int64 (4 bits a seat).
DEMAND_MEMO_SEATS = 16
# A seat's 4 bits: the colours it is assumed to pick (bits 0-2) and "worked out" (bit 3).
DEMAND_KNOWN = 8


@compiled(always_inline=True)
def _best_tree_values(table, seat, context, growth, closing):
    """``best_tree_value_per_colour`` of ``seat`` as three numbers (no array to allocate)."""
    best0 = 0.0
    best1 = 0.0
    best2 = 0.0
    for node in range(table.node_count[seat]):
        if table.node_parent[seat, node] != node:
            continue
        colour = table.node_colour[seat, node]
        if colour == GRASS or table.zone_trees[seat, node] > 0:
            continue
        value = expected_zone_points(table.zone_full_runes[seat, node],
                                     table.zone_open_half_runes[seat, node], context, growth,
                                     closing)
        if colour == 1:
            if value > best0:
                best0 = value
        elif colour == 2:
            if value > best1:
                best1 = value
        elif value > best2:
            best2 = value
    return best0, best1, best2


@compiled(always_inline=True)
def _wanted_colours(table, seat, context, growth, closing):
    """The leaf colours (bit c for colour c + 1) ``seat`` is assumed to pick: those of its best
    zone without a tree among the colours in the supply, all of them when several are equal
    (within 1e-9) or none is useful; 0 when the supply is empty."""
    best = _best_tree_values(table, seat, context, growth, closing)
    top = -1.0
    for colour in range(LEAF_COLOURS):
        if table.supply[colour] > 0 and best[colour] > top:
            top = best[colour]
    wanted = 0
    if top < 0.0:
        return wanted
    for colour in range(LEAF_COLOURS):
        if table.supply[colour] > 0 and best[colour] >= top - 1e-9:
            wanted |= 1 << colour
    return wanted


@compiled
def opponent_colour_demand(tiles, table, player, context, growth, closing, out):
    """Expected opponent picks of each leaf colour (``out``, float64[3]) between ``player``'s
    pick now and their next one: the seats after them in this tree phase and the seats before
    them in the next. Each opponent is assumed to want the colour of their best zone without a
    tree among the colours left (a split pick when several are equal or none is useful)."""
    out[:] = 0.0
    players = table.status[STATUS_PLAYERS]
    holder = table.status[STATUS_TOKEN_HOLDER]
    after_now, before_next = picks_before_next_turn(table, player)
    position_now = (player - holder) % players
    # The token holder's opponents pick twice before its next pick: each seat's colours are
    # worked out once (4 bits a seat in ``memo``), and added in pick order as before.
    memo = 0
    for k in range(after_now + before_next):
        if k < after_now:
            seat = (holder + position_now + 1 + k) % players
        else:
            seat = (holder + 1 + (k - after_now)) % players
        if seat < DEMAND_MEMO_SEATS and (memo >> (4 * seat)) & DEMAND_KNOWN:
            wanted = (memo >> (4 * seat)) & (DEMAND_KNOWN - 1)
        else:
            wanted = _wanted_colours(table, seat, context, growth, closing)
            if seat < DEMAND_MEMO_SEATS:
                memo |= (wanted | DEMAND_KNOWN) << (4 * seat)
        if wanted == 0:
            continue
        tied = (wanted & 1) + ((wanted >> 1) & 1) + ((wanted >> 2) & 1)
        for colour in range(LEAF_COLOURS):
            if (wanted >> colour) & 1:
                out[colour] += 1.0 / tied


@compiled(refcounts=True)
def planner_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng, growth,
                 closing, hope, lookahead):
    """``planner``: a two-pick plan. Each (colour, zone) is worth what the tree adds now plus,
    weighted by the chance of another tree phase and ``lookahead``, the best tree it leaves for
    the next pick: a colour counts as still there only if the supply left after this pick
    exceeds the opponents' expected picks of it before then (token order)."""
    # One allocation for every work array (views of it).
    floats = np.empty(CONTEXT_SIZE + LEAF_COLOURS + 2 * choice_count, dtype=np.float64)
    context = floats[:CONTEXT_SIZE]
    demand = floats[CONTEXT_SIZE:CONTEXT_SIZE + LEAF_COLOURS]
    marginal = floats[CONTEXT_SIZE + LEAF_COLOURS:CONTEXT_SIZE + LEAF_COLOURS + choice_count]
    values = floats[CONTEXT_SIZE + LEAF_COLOURS + choice_count:]
    game_context(tiles, table, False, context)
    opponent_colour_demand(tiles, table, player, context, growth, closing, demand)
    for index in range(choice_count):
        marginal[index] = tree_marginal_value(table, player, choice_zones[index], context, growth,
                                              closing, 0.0)
    next_phase = min(1.0, context[CONTEXT_TREE_PHASES_LEFT])
    for index in range(choice_count):
        colour = choice_colours[index]
        root = find_zone(table, player, choice_zones[index])
        follow_up = 0.0
        for other in range(choice_count):
            other_colour = choice_colours[other]
            if find_zone(table, player, choice_zones[other]) == root:
                continue
            left = table.supply[other_colour - 1] - (1 if other_colour == colour else 0)
            available = min(1.0, max(0.0, left - demand[other_colour - 1]))
            value = marginal[other] * available
            if value > follow_up:
                follow_up = value
        values[index] = marginal[index] + lookahead * next_phase * follow_up
    return pick_best(values, choice_count, rng)


@compiled(refcounts=True)
def denier_tree(tiles, table, player, choice_colours, choice_zones, choice_count, rng, denial):
    """``denier``: each (colour, zone) is worth what the tree adds to its own planet now plus
    ``denial`` x what a tree of that colour is worth to all its opponents together (their best
    zone of that colour without a tree), divided by the trees of that colour left: taking a scarce
    colour the others need is what it plays for."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, False, context)
    need = np.zeros(LEAF_COLOURS, dtype=np.float64)
    best = np.empty(LEAF_COLOURS, dtype=np.float64)
    for seat in range(table.status[STATUS_PLAYERS]):
        if seat == player:
            continue
        best_tree_value_per_colour(table, seat, context, 0.5, 1.0, best)
        for colour in range(LEAF_COLOURS):
            need[colour] += best[colour]
    values = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        colour = choice_colours[index]
        own = tree_marginal_value(table, player, choice_zones[index], context, 0.5, 1.0, 0.0)
        values[index] = own + denial * need[colour - 1] / max(1, table.supply[colour - 1])
    return pick_best(values, choice_count, rng)
