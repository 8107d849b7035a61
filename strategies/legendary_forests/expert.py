"""The strong, fast Legendary Forests strategy ``expert``.

It values a planet by the expected final points of its zones, like ``planner``, but it knows
where each zone is open: every open half-rune faces an empty cell of the planet, and that cell
can only be filled by an unseen tile that fits every side touching it (the colours the cell's
neighbours show). For every such cell it counts the unseen tiles (the draw pile and the removed
tiles together: public) that fit, and turns the count into the chance that at least one of them
is drawn in the turns left (hypergeometric: the tiles left to draw are a uniform sample of the
unseen ones). That is the shallow expectation over the public unseen tiles: a zone's expected
new runes are the sum of those fill chances over its open half-runes, and its chance to close is
their product (times a factor per open half-rune for the tile that fills a cell opening new ones).
A half-rune facing a cell no unseen tile fits is dead: its zone can never close and is valued so.

Trees: a tree is worth what it turns a zone's value from "hoped for" into "counted"; the plan
adds, as ``planner`` does, the best tree left for the next pick given the opponents' expected
picks in token order, and a small weight for taking the colour the opponents need most.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from sim.games.legendary_forests.rules import (
    EMPTY,
    GRASS,
    LEAF_COLOURS,
    STATUS_PLAYERS,
    find_zone,
    neighbour_cell,
    shown_side,
)
from strategies.legendary_forests.evaluation import (
    CONTEXT_PLAYERS,
    CONTEXT_SIZE,
    CONTEXT_SUPPLY,
    CONTEXT_TREE_PHASES_LEFT,
    CONTEXT_TURNS_LEFT,
    game_context,
    pick_best,
)
from strategies.legendary_forests.planner import opponent_colour_demand

# Slots of the parameter row (the order of ``ExpertStrategy.parameters`` in the catalogue).
P_FILL = 0
P_CAP = 1
P_HOPE = 2
P_PHASES = 3
P_LOOKAHEAD = 4
P_DENIAL = 5


@njit(cache=True)
def _unseen(table, out):
    """The tiles not drawn yet (the pile and the removed tiles: nobody can tell them apart)
    into ``out``; returns how many."""
    count = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            out[count] = tile
            count += 1
    return count


@njit(cache=True)
def _fits(tiles, unseen, unseen_count, mask, colours):
    """Unseen tiles that fit a cell whose touching sides need ``colours`` under ``mask``."""
    count = 0
    for k in range(unseen_count):
        tile = unseen[k]
        for rotation in range(4):
            if (tiles.rotation_pattern[tile, rotation] & mask) == colours:
                count += 1
                break
    return count


@njit(cache=True)
def _fill_chances(unseen_count, turns_left, out):
    """``out[f]``: the chance that at least one of ``f`` fitting tiles among the unseen ones is
    drawn in the ``turns_left`` draws left (a uniform sample of the unseen tiles)."""
    for fitting in range(unseen_count + 1):
        none = 1.0
        for i in range(turns_left):
            left = unseen_count - i
            if left <= 0:
                break
            none *= max(0.0, (unseen_count - fitting - i) / left)
        out[fitting] = 1.0 - none




@njit(cache=True)
def _prepare(tiles, table, player, unseen, chances, root_sum, root_log, cell_chance,
             single_chance, turns_left):
    """Per decision: the fill chance of every frontier cell (``cell_chance`` by frontier
    index), and per zone root the sum and the log-product of the fill chances of the cells its
    open half-runes face (``root_sum``, ``root_log``); ``single_chance[c]``: a fresh cell that
    needs colour c on one side. Returns the unseen count."""
    unseen_count = _unseen(table, unseen)
    _fill_chances(unseen_count, turns_left, chances)
    for colour in range(4):
        fitting = 0
        for k in range(unseen_count):
            tile = unseen[k]
            for side in range(4):
                if tiles.side_colour[tile, side] == colour:
                    fitting += 1
                    break
        single_chance[colour] = chances[fitting]
    for node in range(table.node_count[player]):
        root_sum[node] = 0.0
        root_log[node] = 0.0
    for index in range(table.frontier_count[player]):
        cell = table.frontier_cells[player, index]
        colours = table.cell_need_colours[player, cell]
        if colours == 0:
            cell_chance[index] = 1.0
            continue
        fitting = _fits(tiles, unseen, unseen_count, table.cell_need_mask[player, cell], colours)
        chance = chances[fitting]
        cell_chance[index] = chance
        log_chance = math.log(max(chance, 1e-3))
        seen0 = -1
        seen1 = -1
        seen2 = -1
        for direction in range(4):
            other = neighbour_cell(table, cell, direction)
            if table.cell_tile[player, other] == EMPTY:
                continue
            back = (direction + 2) & 3
            if table.cell_side_colour[player, other, back] == GRASS:
                continue
            root = find_zone(table, player, table.cell_side_node[player, other, back])
            root_sum[root] += chance
            # One tile fills the cell: the zone's closing needs it once, however many of its
            # half-runes face it.
            if root != seen0 and root != seen1 and root != seen2:
                root_log[root] += log_chance
            if seen0 < 0:
                seen0 = root
            elif seen1 < 0:
                seen1 = root
            else:
                seen2 = root
    return unseen_count


@njit(cache=True)
def _hope(colour, context, params):
    """Chance-like weight that a zone without a tree of ``colour`` still gets one: whole from
    ``phases`` expected tree phases on, less with fewer, and less when the colour's supply is
    short for the table."""
    phases = context[CONTEXT_TREE_PHASES_LEFT]
    supply = context[CONTEXT_SUPPLY + colour - 1]
    if phases <= 0.0 or supply <= 0.0:
        return 0.0
    return (params[P_HOPE] * min(1.0, phases / max(params[P_PHASES], 1e-6))
            * min(1.0, supply / context[CONTEXT_PLAYERS]))


@njit(cache=True)
def _points(full_runes, open_half_runes, chance_sum, chance_log, context, params):
    """Expected final points of a zone with a tree: a closed zone keeps 2 x its full runes; an
    open one expects ``fill`` new runes per open half-rune times the chance its cell is filled
    (``chance_sum``), and closes with the chance that every cell it faces is filled
    (``exp(chance_log)``) times ``cap`` per open half-rune (the filling tile may open more)."""
    if open_half_runes <= 0:
        return 2.0 * full_runes
    runes = full_runes + params[P_FILL] * chance_sum
    close = math.exp(chance_log) * params[P_CAP] ** open_half_runes
    return runes * (1.0 + min(1.0, close))


@njit(cache=True)
def _zone_value(colour, full_runes, open_half_runes, trees, chance_sum, chance_log, context,
                params):
    """A zone's expected final points, discounted by the hope of a tree when it has none."""
    points = _points(full_runes, open_half_runes, chance_sum, chance_log, context, params)
    if trees > 0:
        return points
    return points * _hope(colour, context, params)


@njit(cache=True)
def _placement_value(tiles, table, player, tile, cell, rotation, root_sum, root_log,
                     cell_chance, single_chance, unseen, unseen_count, chances, memo, items,
                     context, params):
    """Change of the planet's value if ``tile`` went to ``cell`` with ``rotation``."""
    areas = tiles.area_count[tile]
    # items[k]: 0 parent, 1 colour, 2 full runes, 3 open half-runes, 4 trees, 5 chance sum,
    # 6 chance log, 7 root node (-1 for an area of the new tile); areas first, then roots.
    count = areas
    for area in range(areas):
        items[area, 0] = area
        items[area, 1] = tiles.area_colour[tile, area]
        items[area, 2] = 0.0
        items[area, 3] = tiles.area_half_runes[tile, area]
        items[area, 4] = 0.0
        items[area, 5] = 0.0
        items[area, 6] = 0.0
        items[area, 7] = -1.0
    position = table.frontier_position[player, cell]
    here = cell_chance[position] if position >= 0 else 1.0
    here_log = math.log(max(here, 1e-3))
    for direction in range(4):
        listed = shown_side(direction, rotation)
        colour = tiles.side_colour[tile, listed]
        if colour == GRASS:
            continue
        area = tiles.side_area[tile, listed]
        other = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other] == EMPTY:
            # A new open half-rune, facing ``other``: its fill chance once this tile is there.
            back = (direction + 2) & 3
            slot = 2 * back
            other_position = table.frontier_position[player, other]
            if other_position < 0:
                chance = single_chance[colour]
            else:
                key = (other_position * 4 + back) * 4 + colour
                chance = memo[key]
                if chance < 0.0:
                    mask = table.cell_need_mask[player, other] | np.uint8(3 << slot)
                    need = table.cell_need_colours[player, other] | np.uint8(colour << slot)
                    chance = chances[_fits(tiles, unseen, unseen_count, mask, need)]
                    memo[key] = chance
            items[area, 5] += chance
            items[area, 6] += math.log(max(chance, 1e-3))
            continue
        root = find_zone(table, player, table.cell_side_node[player, other, (direction + 2) & 3])
        found = -1
        for k in range(areas, count):
            if items[k, 7] == root:
                found = k
        if found < 0:
            found = count
            items[found, 0] = found
            items[found, 1] = table.node_colour[player, root]
            items[found, 2] = table.zone_full_runes[player, root]
            items[found, 3] = table.zone_open_half_runes[player, root]
            items[found, 4] = table.zone_trees[player, root]
            items[found, 5] = root_sum[root]
            items[found, 6] = root_log[root]
            items[found, 7] = root
            # This cell, which the root's closing needed once, is filled now.
            items[found, 6] -= here_log
            count += 1
        # The pair becomes a full rune: the root's half-rune facing this cell is closed.
        items[found, 2] += 1.0
        items[found, 3] -= 2.0
        items[found, 5] -= here
        a = area
        while items[a, 0] != a:
            a = int(items[a, 0])
        b = found
        while items[b, 0] != b:
            b = int(items[b, 0])
        if a != b:
            items[b, 0] = a
    value = 0.0
    for k in range(count):
        if items[k, 0] != k:
            continue
        colour = 0
        full_runes = 0.0
        open_half_runes = 0.0
        trees = 0.0
        chance_sum = 0.0
        chance_log = 0.0
        for j in range(count):
            top = j
            while items[top, 0] != top:
                top = int(items[top, 0])
            if top != k:
                continue
            if items[j, 1] != GRASS:
                colour = int(items[j, 1])
            full_runes += items[j, 2]
            open_half_runes += items[j, 3]
            trees += items[j, 4]
            chance_sum += items[j, 5]
            chance_log += items[j, 6]
        if colour == GRASS:
            continue
        value += _zone_value(colour, full_runes, open_half_runes, trees, chance_sum,
                             chance_log, context, params)
    for k in range(areas, count):
        root = int(items[k, 7])
        value -= _zone_value(table.node_colour[player, root], table.zone_full_runes[player, root],
                             table.zone_open_half_runes[player, root],
                             table.zone_trees[player, root], root_sum[root], root_log[root],
                             context, params)
    return value


@njit(cache=True)
def expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """``expert``: the placement that most raises the planet's expected final value."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, tiles.light[tile], context)
    tile_count = tiles.light.shape[0]
    unseen = np.empty(tile_count, dtype=np.int64)
    chances = np.empty(tile_count + 1, dtype=np.float64)
    nodes = table.node_parent.shape[1]
    root_sum = np.empty(nodes, dtype=np.float64)
    root_log = np.empty(nodes, dtype=np.float64)
    frontier = table.frontier_cells.shape[1]
    cell_chance = np.empty(frontier, dtype=np.float64)
    single_chance = np.empty(4, dtype=np.float64)
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    unseen_count = _prepare(tiles, table, player, unseen, chances, root_sum, root_log,
                            cell_chance, single_chance, turns_left)
    memo = np.full(table.frontier_count[player] * 16, -1.0)
    items = np.empty((8, 8), dtype=np.float64)
    values = np.empty(move_count, dtype=np.float64)
    for index in range(move_count):
        values[index] = _placement_value(tiles, table, player, tile, move_cells[index],
                                         move_rotations[index], root_sum, root_log,
                                         cell_chance, single_chance, unseen, unseen_count,
                                         chances, memo, items, context, params)
    return pick_best(values, move_count, rng)


@njit(cache=True)
def expert_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count, rng):
    """``expert``: what the tree adds to its zone's expected value, plus the best tree left for
    the next pick (opponents' expected picks in token order) and a little denial."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, False, context)
    tile_count = tiles.light.shape[0]
    unseen = np.empty(tile_count, dtype=np.int64)
    chances = np.empty(tile_count + 1, dtype=np.float64)
    nodes = table.node_parent.shape[1]
    root_sum = np.empty(nodes, dtype=np.float64)
    root_log = np.empty(nodes, dtype=np.float64)
    cell_chance = np.empty(table.frontier_cells.shape[1], dtype=np.float64)
    single_chance = np.empty(4, dtype=np.float64)
    _prepare(tiles, table, player, unseen, chances, root_sum, root_log, cell_chance,
             single_chance, int(context[CONTEXT_TURNS_LEFT]))
    demand = np.empty(LEAF_COLOURS, dtype=np.float64)
    opponent_colour_demand(tiles, table, player, context, 0.5, 2.0, demand)
    marginal = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        root = find_zone(table, player, choice_zones[index])
        if table.zone_trees[player, root] > 0:
            marginal[index] = 0.0
            continue
        colour = choice_colours[index]
        points = _points(table.zone_full_runes[player, root],
                         table.zone_open_half_runes[player, root], root_sum[root],
                         root_log[root], context, params)
        marginal[index] = points * (1.0 - _hope(colour, context, params))
    next_phase = min(1.0, context[CONTEXT_TREE_PHASES_LEFT])
    values = np.empty(choice_count, dtype=np.float64)
    players = table.status[STATUS_PLAYERS]
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
        values[index] = (marginal[index] + params[P_LOOKAHEAD] * next_phase * follow_up
                         + params[P_DENIAL] * demand[colour - 1]
                         / max(1.0, float(table.supply[colour - 1])) / players)
    return pick_best(values, choice_count, rng)
