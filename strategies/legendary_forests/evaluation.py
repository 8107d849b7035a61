"""Compiled building blocks shared by the heuristic strategies: what a placement does to the
zones it touches, the public game context (turns left, tree phases to come, supply), and a
static estimate of what a zone will be worth at the end.

Everything here reads only the public ``Table``: every planet, the supply, the token holder, the
turn and the set of tiles drawn so far. The tiles not yet seen (the draw pile and the removed
tiles together, since nobody can tell them apart) are the complement of ``tile_drawn``.
"""

from __future__ import annotations

from sim.games.legendary_forests.rules import (
    GRASS,
    GROUP_COLOUR,
    GROUP_FULL_RUNES,
    GROUP_OPEN_HALF_RUNES,
    GROUP_TREES,
    LEAF_COLOURS,
    STATUS_PLAYERS,
    STATUS_TOKEN_HOLDER,
    STATUS_TURN,
    find_zone,
    placement_groups,
    total_turns,
)
from sim.jit import compiled, inlined
from sim.rng import next_below

# Indices into the context array filled by ``game_context``.
CONTEXT_TURNS_LEFT = 0  # tiles still to be drawn after the current one
CONTEXT_GAME_LEFT = 1  # turns left as a share of the game (0..1)
CONTEXT_TREE_PHASES_LEFT = 2  # expected tree phases after the current turn
CONTEXT_PLAYERS = 3
CONTEXT_SUPPLY = 4  # 3 slots: trees left per leaf colour
CONTEXT_SIZE = 7


@compiled(always_inline=True)
def game_context(tiles, table, tree_phase_pending, context):
    """Public facts a plan needs, into ``context`` (float64[CONTEXT_SIZE]).

    Turns left count the tiles still to be drawn after the current one. Expected tree phases
    left use the tiles not yet seen: each future draw is light with probability (light tiles
    unseen) / (tiles unseen); the removed tiles are among the unseen since nobody knows them.
    ``tree_phase_pending`` adds the current turn's tree phase when it is still to come.
    """
    turns = total_turns(table)
    turns_left = turns - table.status[STATUS_TURN] - 1
    if turns_left < 0:
        turns_left = 0
    unseen = 0
    light_unseen = 0
    for tile in range(tiles.light.shape[0]):
        if not table.tile_drawn[tile]:
            unseen += 1
            if tiles.light[tile]:
                light_unseen += 1
    phases = 0.0
    if unseen > 0:
        phases = turns_left * light_unseen / unseen
    if tree_phase_pending:
        phases += 1.0
    context[CONTEXT_TURNS_LEFT] = turns_left
    context[CONTEXT_GAME_LEFT] = turns_left / max(turns, 1)
    context[CONTEXT_TREE_PHASES_LEFT] = phases
    context[CONTEXT_PLAYERS] = table.status[STATUS_PLAYERS]
    for colour in range(LEAF_COLOURS):
        context[CONTEXT_SUPPLY + colour] = table.supply[colour]


@inlined
def expected_zone_points(full_runes, open_half_runes, context, growth, closing):
    """Expected final points of a zone that holds a tree: closed zones keep 2 x full runes; open
    zones are expected to grow by ``growth`` runes per open half-rune (as long as tiles remain)
    and to close with a chance that falls with the open half-runes and the game left."""
    if open_half_runes == 0:
        return 2.0 * full_runes
    game_left = context[CONTEXT_GAME_LEFT]
    turns_left = context[CONTEXT_TURNS_LEFT]
    reach = min(float(open_half_runes), turns_left)
    expected_runes = full_runes + growth * reach * game_left
    close_chance = min(0.9, closing * game_left / open_half_runes)
    return expected_runes * (1.0 + close_chance)


@inlined
def tree_hope(colour, context, hope):
    """Chance-like weight that a zone without a tree of ``colour`` still gets one: grows with the
    tree phases to come, shrinks when the colour's supply is short for the table."""
    phases = context[CONTEXT_TREE_PHASES_LEFT]
    players = context[CONTEXT_PLAYERS]
    supply = context[CONTEXT_SUPPLY + colour - 1]
    if phases <= 0.0 or supply <= 0.0:
        return 0.0
    return hope * min(1.0, phases / 2.0) * min(1.0, supply / players)


@inlined
def zone_value(colour, full_runes, open_half_runes, trees, context, growth, closing, hope):
    """Static estimate of a zone's final points: with a tree, ``expected_zone_points``; without
    one, that discounted by the hope of a tree of its colour."""
    points = expected_zone_points(full_runes, open_half_runes, context, growth, closing)
    if trees > 0:
        return points
    return points * tree_hope(colour, context, hope)


@compiled(always_inline=True)
def placement_value(tiles, table, player, tile, cell, rotation, scratch, groups, context, growth,
                    closing, hope):
    """Change of the planet's static value (sum of ``zone_value`` over its zones) if the tile
    went here: zones after the move minus the zones it joins as they are now."""
    group_count, root_count = placement_groups(tiles, table, player, tile, cell, rotation,
                                               scratch, groups)
    value = 0.0
    for group in range(group_count):
        value += zone_value(groups[group, GROUP_COLOUR], groups[group, GROUP_FULL_RUNES],
                            groups[group, GROUP_OPEN_HALF_RUNES], groups[group, GROUP_TREES],
                            context, growth, closing, hope)
    for k in range(root_count):
        root = scratch[k]
        value -= zone_value(table.node_colour[player, root], table.zone_full_runes[player, root],
                            table.zone_open_half_runes[player, root],
                            table.zone_trees[player, root], context, growth, closing, hope)
    return value


@compiled(always_inline=True)
def tree_marginal_value(table, player, zone, context, growth, closing, hope):
    """What a tree adds to a zone's static value: all of it for a zone without a tree (minus the
    hope it already had), nothing for a zone that holds one already."""
    root = find_zone(table, player, zone)
    if table.zone_trees[player, root] > 0:
        return 0.0
    colour = table.node_colour[player, root]
    full_runes = table.zone_full_runes[player, root]
    open_half_runes = table.zone_open_half_runes[player, root]
    with_tree = expected_zone_points(full_runes, open_half_runes, context, growth, closing)
    return with_tree * (1.0 - tree_hope(colour, context, hope))


@compiled(always_inline=True)
def best_tree_value_per_colour(table, player, context, growth, closing, out):
    """For each leaf colour, the most a tree of that colour would add to ``player``'s planet now
    (expected final points of their best zone of that colour without a tree) into ``out``
    (float64[3]); 0 when they have no such zone."""
    out[:] = 0.0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node:
            continue
        colour = table.node_colour[player, node]
        if colour == GRASS or table.zone_trees[player, node] > 0:
            continue
        value = expected_zone_points(table.zone_full_runes[player, node],
                                     table.zone_open_half_runes[player, node], context, growth,
                                     closing)
        if value > out[colour - 1]:
            out[colour - 1] = value


@inlined
def picks_before_next_turn(table, player):
    """Seats (with repeats) that pick a tree after ``player`` in this tree phase and before
    ``player`` in the next one, in order, as a count: the token holder picks first and the token
    passes after every phase. Returns (picks after me now, picks before me next phase)."""
    players = table.status[STATUS_PLAYERS]
    holder = table.status[STATUS_TOKEN_HOLDER]
    position_now = (player - holder) % players
    position_next = (player - holder - 1) % players
    return players - 1 - position_now, position_next


@compiled
def pick_best(values, count, rng):
    """Index of the largest of ``values[:count]``; values within 1e-9 of each other count as
    tied and a tie is broken uniformly at random with ``rng`` (reservoir sampling, one pass)."""
    best = 0
    ties = 1
    for index in range(1, count):
        if values[index] > values[best] + 1e-9:
            best = index
            ties = 1
        elif values[index] > values[best] - 1e-9:
            ties += 1
            if next_below(rng, ties) == 0:
                best = index
    return best


@compiled
def pick_near_best(values, count, spread, rng):
    """Index of one of ``values[:count]`` within ``spread`` of the largest, uniformly at random
    with ``rng`` (``pick_best`` when ``spread`` is 0, with its stream of draws). Copies of one
    strategy at a table draw the same tiles; a choice among near-equal options keeps their
    planets apart, as different players' are."""
    if spread <= 0.0:
        return pick_best(values, count, rng)
    largest = values[0]
    for index in range(1, count):
        if values[index] > largest:
            largest = values[index]
    floor = largest - spread - 1e-9
    chosen = 0
    near = 0
    for index in range(count):
        if values[index] >= floor:
            near += 1
            if near == 1 or next_below(rng, near) == 0:
                chosen = index
    return chosen
