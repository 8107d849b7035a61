"""The strong, fast Legendary Forests strategy ``expert``.

It values a planet by the expected final points of its zones, like ``planner``, but it knows
where each zone is open and how many trees it can still expect.

Open cells. Every open half-rune faces an empty cell of the planet, and that cell can only be
filled by an unseen tile that fits every side touching it (the colours the cell's neighbours
show). For every such cell it counts the unseen tiles (the draw pile and the removed tiles
together: public) that fit, and among them the ones that *seal* it (a rotation that fits and
shows grass on every side facing an empty cell, so it opens no new half-rune); each count turns
into the chance that at least one such tile is drawn in the turns left (hypergeometric: the tiles
left to draw are a uniform sample of the unseen ones). That is the shallow expectation over the
public unseen tiles: a zone's expected new runes are ``fill`` x the sum of the fill chances of
its open half-runes, and its chance to close is the product over the cells it faces of (seal
chance + ``unsealed`` x the chance of a fill that opens new half-runes). A half-rune facing a
cell no unseen tile fits is dead: its zone can never close and is valued so.

Trees. A zone without a tree is worth nothing unless one of its owner's picks still to come goes
to it, and picks are few: the zones without a tree are ranked by their expected points (times
the chance their colour is still in the supply for a pick) and the r-th best counts with the
chance that at least r own picks are still to come (the light tiles among the draws left,
hypergeometric over the unseen tiles) times ``hope``; the pick that follows a light tile's
placement is sure and counts ``now``. A tree pick is worth what it adds to its zone plus what the
other zones without a tree are then worth with the picks left, plus ``denial`` x the opponents'
expected need of the colour before its next pick (token order).

Bordered cells. A placement's sides that face empty cells of the frontier change which unseen
tiles can fill those cells: every zone already facing such a cell gets the cell's new fill
chance and closing factor (a grass side counts too: it can leave no unseen tile that fits, and
the half-runes facing the cell are then dead).

Shape. Two terms fitted to what ``rollout``'s playouts reward (catalogue, ``ExpertStrategy``):
each empty cell a placement adds to the planet's edge costs ``compact`` x the share of the game
left (a sprawling planet ends lower than its zones' chances say), and the r-th best zone without
a tree counts ``decay`` ^ r on top of its pick chance (the first picks go to the best zones;
the later ones are less sure than their count says).
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
    CONTEXT_GAME_LEFT,
    CONTEXT_PLAYERS,
    CONTEXT_SIZE,
    CONTEXT_SUPPLY,
    CONTEXT_TURNS_LEFT,
    game_context,
    pick_best,
    pick_near_best,
)
from strategies.legendary_forests.planner import opponent_colour_demand

# Slots of the parameter row (the order of ``ExpertStrategy.parameters`` in the catalogue).
P_FILL = 0
P_UNSEALED = 1
P_NOW = 2
P_HOPE = 3
P_DENIAL = 4
P_COMPACT = 5
P_DECAY = 6
P_SPREAD = 7

# Own picks still to come that the ranking of zones without a tree looks at.
RANKED_PICKS = 12


@njit(cache=True)
def _unseen(tiles, table, out):
    """The tiles not drawn yet (the pile and the removed tiles: nobody can tell them apart)
    into ``out``; returns (how many, how many of them are light)."""
    count = 0
    light = 0
    for tile in range(table.tile_drawn.shape[0]):
        if not table.tile_drawn[tile]:
            out[count] = tile
            count += 1
            if tiles.light[tile]:
                light += 1
    return count, light


@njit(cache=True)
def fitting_tiles(tiles, unseen, unseen_count, mask, colours):
    """Unseen tiles that fit a cell whose touching sides need ``colours`` under ``mask`` (2-bit
    slots N, E, S, W), and how many of them can also seal it: a fitting rotation that shows
    grass on every side facing no tile. Returns (fitting, sealing)."""
    fitting = 0
    sealing = 0
    free = np.uint8(~mask)
    for k in range(unseen_count):
        tile = unseen[k]
        fits = False
        seals = False
        for rotation in range(4):
            pattern = tiles.rotation_pattern[tile, rotation]
            if (pattern & mask) == colours:
                fits = True
                # Grass is colour 0: a side facing no tile opens nothing when its slot is 0.
                if (pattern & free) == 0:
                    seals = True
        if fits:
            fitting += 1
        if seals:
            sealing += 1
    return fitting, sealing


@njit(cache=True)
def fill_chances(unseen_count, turns_left, out):
    """``out[f]``: the chance that at least one of ``f`` given tiles among the unseen ones is
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
def pick_chances(unseen_count, light_unseen, turns_left, sure, out):
    """``out[r]``: the chance of at least r + 1 own tree picks still to come: ``sure`` picks
    (1 when a tree phase follows this placement) plus one per light tile among the
    ``turns_left`` draws left, a hypergeometric count (``light_unseen`` of the ``unseen_count``
    unseen tiles are light)."""
    out[:] = 0.0
    draws = min(turns_left, unseen_count)
    dark_unseen = unseen_count - light_unseen
    log_all = (math.lgamma(unseen_count + 1) - math.lgamma(draws + 1)
               - math.lgamma(unseen_count - draws + 1))
    for light in range(min(draws, light_unseen) + 1):
        dark = draws - light
        if dark > dark_unseen:
            continue
        log_ways = (math.lgamma(light_unseen + 1) - math.lgamma(light + 1)
                    - math.lgamma(light_unseen - light + 1)
                    + math.lgamma(dark_unseen + 1) - math.lgamma(dark + 1)
                    - math.lgamma(dark_unseen - dark + 1))
        chance = math.exp(log_ways - log_all)
        # This many picks or more: every rank up to it gains the chance.
        for rank in range(min(light + sure, out.shape[0])):
            out[rank] += chance


@njit(cache=True)
def _close_factor(chances, fitting, sealing, params):
    """A cell's share of its zone's closing chance: a sealing tile drawn closes it whole; a tile
    that fits but opens new half-runes counts ``unsealed``."""
    seal = chances[sealing]
    return seal + params[P_UNSEALED] * (chances[fitting] - seal)


@njit(cache=True)
def _prepare(tiles, table, player, unseen, chances, root_sum, root_log, cell_fill, cell_close,
             cell_roots, cell_root_count, single_fill, single_close, turns_left, params):
    """Per decision: the fill chance and closing factor of every frontier cell (``cell_fill``,
    ``cell_close`` by frontier index), and per zone root the sum of the fill chances and the
    log-product of the closing factors of the cells its open half-runes face (``root_sum``,
    ``root_log``); ``cell_roots[i, :cell_root_count[i]]``: the (root, half-runes) pairs that
    face frontier cell i; ``single_*[c]``: a fresh cell that needs colour c on one side.
    Returns (unseen count, light unseen count)."""
    unseen_count, light_unseen = _unseen(tiles, table, unseen)
    fill_chances(unseen_count, turns_left, chances)
    for colour in range(4):
        fitting, sealing = fitting_tiles(tiles, unseen, unseen_count, np.uint8(3),
                                         np.uint8(colour))
        single_fill[colour] = chances[fitting]
        single_close[colour] = _close_factor(chances, fitting, sealing, params)
    for node in range(table.node_count[player]):
        root_sum[node] = 0.0
        root_log[node] = 0.0
    for index in range(table.frontier_count[player]):
        cell = table.frontier_cells[player, index]
        colours = table.cell_need_colours[player, cell]
        cell_root_count[index] = 0
        if colours == 0:
            cell_fill[index] = 1.0
            cell_close[index] = 1.0
            continue
        fitting, sealing = fitting_tiles(tiles, unseen, unseen_count,
                                         table.cell_need_mask[player, cell], colours)
        chance = chances[fitting]
        cell_fill[index] = chance
        close = _close_factor(chances, fitting, sealing, params)
        cell_close[index] = close
        log_close = math.log(max(close, 1e-3))
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
            listed = -1
            for k in range(cell_root_count[index]):
                if cell_roots[index, k, 0] == root:
                    listed = k
            if listed < 0:
                listed = cell_root_count[index]
                cell_roots[index, listed, 0] = root
                cell_roots[index, listed, 1] = 0
                cell_root_count[index] += 1
            cell_roots[index, listed, 1] += 1
            # One tile fills the cell: the zone's closing needs it once, however many of its
            # half-runes face it.
            if root != seen0 and root != seen1 and root != seen2:
                root_log[root] += log_close
            if seen0 < 0:
                seen0 = root
            elif seen1 < 0:
                seen1 = root
            else:
                seen2 = root
    return unseen_count, light_unseen


@njit(cache=True)
def _points(full_runes, open_half_runes, chance_sum, close_log, params):
    """Expected final points of a zone with a tree: a closed zone keeps 2 x its full runes; an
    open one expects ``fill`` new runes per open half-rune times the chance its cell is filled
    (``chance_sum``), and closes with the product of its cells' closing factors
    (``exp(close_log)``)."""
    if open_half_runes <= 0:
        return 2.0 * full_runes
    runes = full_runes + params[P_FILL] * chance_sum
    return runes * (1.0 + min(1.0, math.exp(close_log)))


@njit(cache=True)
def _availability(colour, context):
    """How likely a tree of ``colour`` is still in the supply at one's pick: whole while the
    supply covers a round of picks, less below."""
    supply = context[CONTEXT_SUPPLY + colour - 1]
    if supply <= 0.0:
        return 0.0
    return min(1.0, supply / context[CONTEXT_PLAYERS])


@njit(cache=True)
def _zones_without_tree(table, player, root_sum, root_log, context, params, roots, values):
    """The player's zones without a tree, best first: ``roots`` and ``values`` (expected points
    with a tree x the chance their colour is still there for a pick); returns how many."""
    count = 0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node:
            continue
        colour = table.node_colour[player, node]
        if colour == GRASS or table.zone_trees[player, node] > 0:
            continue
        value = (_points(table.zone_full_runes[player, node],
                         table.zone_open_half_runes[player, node], root_sum[node],
                         root_log[node], params) * _availability(colour, context))
        slot = count - 1
        while slot >= 0 and values[slot] < value:
            values[slot + 1] = values[slot]
            roots[slot + 1] = roots[slot]
            slot -= 1
        values[slot + 1] = value
        roots[slot + 1] = node
        count += 1
    return count


@njit(cache=True)
def ranked_hope(values, count, fresh, fresh_count, skip, skip_count, weights):
    """What zones without a tree are worth with the picks to come: the r-th best of
    ``values[:count]`` (best first) without the entries ``skip[:skip_count]`` (indices into
    ``values``), merged with ``fresh[:fresh_count]`` (best first too), times ``weights[r]``."""
    total = 0.0
    rank = 0
    base = 0
    new = 0
    while rank < weights.shape[0]:
        while base < count:
            left_out = False
            for k in range(skip_count):
                if skip[k] == base:
                    left_out = True
            if not left_out:
                break
            base += 1
        if base < count and (new >= fresh_count or values[base] >= fresh[new]):
            total += weights[rank] * values[base]
            base += 1
        elif new < fresh_count:
            total += weights[rank] * fresh[new]
            new += 1
        else:
            break
        rank += 1
    return total


@njit(cache=True)
def _root_item(table, player, items, areas, count, root, root_sum, root_log):
    """The row of zone ``root`` in ``items`` (added, as it is now, when missing); returns (row,
    rows used)."""
    for k in range(areas, count):
        if items[k, 7] == root:
            return k, count
    items[count, 0] = count
    items[count, 1] = table.node_colour[player, root]
    items[count, 2] = table.zone_full_runes[player, root]
    items[count, 3] = table.zone_open_half_runes[player, root]
    items[count, 4] = table.zone_trees[player, root]
    items[count, 5] = root_sum[root]
    items[count, 6] = root_log[root]
    items[count, 7] = root
    items[count, 8] = 0.0
    return count, count + 1


@njit(cache=True)
def _placement_value(tiles, table, player, tile, cell, rotation, root_sum, root_log,
                     cell_fill, cell_close, cell_roots, cell_root_count, single_fill,
                     single_close, unseen, unseen_count, chances, memo, items, context, params,
                     roots, values, count_without, index_of, weights, fresh, skip):
    """The planet's value if ``tile`` went to ``cell`` with ``rotation``, up to a constant: the
    change of the zones with a tree it touches or whose open cells it borders, plus the ranked
    hope of every zone without a tree afterwards."""
    areas = tiles.area_count[tile]
    # items[k]: 0 parent, 1 colour, 2 full runes, 3 open half-runes, 4 trees, 5 fill chance sum,
    # 6 closing log, 7 root node (-1 for an area of the new tile), 8 joined to the new tile (a
    # root); areas first, then roots.
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
    here_fill = cell_fill[position] if position >= 0 else 1.0
    here_log = math.log(max(cell_close[position] if position >= 0 else 1.0, 1e-3))
    # Empty cells the tile adds to the frontier.
    new_cells = 0
    for direction in range(4):
        listed = shown_side(direction, rotation)
        colour = tiles.side_colour[tile, listed]
        other = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other] == EMPTY:
            back = (direction + 2) & 3
            slot = 2 * back
            other_position = table.frontier_position[player, other]
            if other_position < 0:
                new_cells += 1
                if colour == GRASS:
                    continue
                fill = single_fill[colour]
                close = single_close[colour]
            else:
                # The tiles that can fill ``other`` once this side (grass too) borders it.
                key = (other_position * 4 + back) * 4 + colour
                fill = memo[key, 0]
                close = memo[key, 1]
                if fill < 0.0:
                    mask = table.cell_need_mask[player, other] | np.uint8(3 << slot)
                    need = table.cell_need_colours[player, other] | np.uint8(colour << slot)
                    fitting, sealing = fitting_tiles(tiles, unseen, unseen_count, mask, need)
                    fill = chances[fitting]
                    close = _close_factor(chances, fitting, sealing, params)
                    memo[key, 0] = fill
                    memo[key, 1] = close
                # The zones already facing ``other`` see its chances change: a side that no
                # unseen tile can match next to theirs kills their half-runes there.
                change_fill = fill - cell_fill[other_position]
                change_log = (math.log(max(close, 1e-3))
                              - math.log(max(cell_close[other_position], 1e-3)))
                for k in range(cell_root_count[other_position]):
                    found, count = _root_item(table, player, items, areas, count,
                                              cell_roots[other_position, k, 0], root_sum,
                                              root_log)
                    items[found, 5] += cell_roots[other_position, k, 1] * change_fill
                    items[found, 6] += change_log
            if colour == GRASS:
                continue
            # A new open half-rune, facing ``other``: its chances once this tile is there.
            area = tiles.side_area[tile, listed]
            items[area, 5] += fill
            items[area, 6] += math.log(max(close, 1e-3))
            continue
        if colour == GRASS:
            continue
        area = tiles.side_area[tile, listed]
        root = find_zone(table, player, table.cell_side_node[player, other, (direction + 2) & 3])
        found, count = _root_item(table, player, items, areas, count, root, root_sum, root_log)
        if items[found, 8] == 0.0:
            # This cell, which the root's closing needed once, is filled now.
            items[found, 8] = 1.0
            items[found, 6] -= here_log
        # The pair becomes a full rune: the root's half-rune facing this cell is closed.
        items[found, 2] += 1.0
        items[found, 3] -= 2.0
        items[found, 5] -= here_fill
        a = area
        while items[a, 0] != a:
            a = int(items[a, 0])
        b = found
        while items[b, 0] != b:
            b = int(items[b, 0])
        if a != b:
            items[b, 0] = a
    value = 0.0
    fresh_count = 0
    for k in range(count):
        if items[k, 0] != k:
            continue
        colour = 0
        full_runes = 0.0
        open_half_runes = 0.0
        trees = 0.0
        chance_sum = 0.0
        close_log = 0.0
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
            close_log += items[j, 6]
        if colour == GRASS:
            continue
        points = _points(full_runes, open_half_runes, chance_sum, close_log, params)
        if trees > 0:
            value += points
        else:
            # Best first, for the ranking.
            points *= _availability(colour, context)
            slot = fresh_count - 1
            while slot >= 0 and fresh[slot] < points:
                fresh[slot + 1] = fresh[slot]
                slot -= 1
            fresh[slot + 1] = points
            fresh_count += 1
    # A sprawling planet (more empty cells around it) fares worse than its zones' chances say,
    # the more so the more of the game is left.
    value -= params[P_COMPACT] * context[CONTEXT_GAME_LEFT] * new_cells
    skip_count = 0
    for k in range(areas, count):
        root = int(items[k, 7])
        if table.zone_trees[player, root] > 0:
            value -= _points(table.zone_full_runes[player, root],
                             table.zone_open_half_runes[player, root], root_sum[root],
                             root_log[root], params)
        else:
            skip[skip_count] = index_of[root]
            skip_count += 1
    return value + ranked_hope(values, count_without, fresh, fresh_count, skip, skip_count,
                               weights)


@njit(cache=True)
def _hope_weights(unseen_count, light_unseen, turns_left, sure, params, weights):
    """Weight of the r-th best zone without a tree: ``hope`` x the chance of r + 1 picks to
    come, the sure pick after a light tile's placement ``now``."""
    pick_chances(unseen_count, light_unseen, turns_left, sure, weights)
    for rank in range(weights.shape[0]):
        weights[rank] *= params[P_HOPE] * params[P_DECAY] ** rank
    if sure > 0:
        weights[0] = params[P_NOW]


@njit(cache=True)
def placement_values(params, tiles, table, player, tile, move_cells, move_rotations, move_count):
    """The value of every legal placement (``_placement_value``: the planet's expected final
    value after it, up to a constant shared by all of them)."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, tiles.light[tile], context)
    tile_count = tiles.light.shape[0]
    unseen = np.empty(tile_count, dtype=np.int64)
    chances = np.empty(tile_count + 1, dtype=np.float64)
    nodes = table.node_parent.shape[1]
    root_sum = np.empty(nodes, dtype=np.float64)
    root_log = np.empty(nodes, dtype=np.float64)
    frontier = table.frontier_cells.shape[1]
    cell_fill = np.empty(frontier, dtype=np.float64)
    cell_close = np.empty(frontier, dtype=np.float64)
    cell_roots = np.empty((frontier, 4, 2), dtype=np.int64)
    cell_root_count = np.empty(frontier, dtype=np.int64)
    single_fill = np.empty(4, dtype=np.float64)
    single_close = np.empty(4, dtype=np.float64)
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    unseen_count, light_unseen = _prepare(tiles, table, player, unseen, chances, root_sum,
                                          root_log, cell_fill, cell_close, cell_roots,
                                          cell_root_count, single_fill, single_close,
                                          turns_left, params)
    weights = np.empty(RANKED_PICKS, dtype=np.float64)
    _hope_weights(unseen_count, light_unseen, turns_left, 1 if tiles.light[tile] else 0, params,
                  weights)
    node_count = table.node_count[player]
    roots = np.empty(node_count + 1, dtype=np.int64)
    values = np.empty(node_count + 1, dtype=np.float64)
    count_without = _zones_without_tree(table, player, root_sum, root_log, context, params,
                                        roots, values)
    index_of = np.full(node_count + 1, -1, dtype=np.int64)
    for k in range(count_without):
        index_of[roots[k]] = k
    memo = np.full((table.frontier_count[player] * 16, 2), -1.0)
    # Rows: the tile's areas (4 at most), the zones it joins (4) and the zones facing its empty
    # neighbours (3 cells x 3 other sides).
    items = np.empty((20, 9), dtype=np.float64)
    fresh = np.empty(20, dtype=np.float64)
    skip = np.empty(20, dtype=np.int64)
    moves = np.empty(move_count, dtype=np.float64)
    for index in range(move_count):
        moves[index] = _placement_value(tiles, table, player, tile, move_cells[index],
                                        move_rotations[index], root_sum, root_log, cell_fill,
                                        cell_close, cell_roots, cell_root_count, single_fill,
                                        single_close, unseen,
                                        unseen_count, chances, memo, items, context, params,
                                        roots, values, count_without, index_of, weights, fresh,
                                        skip)
    return moves


@njit(cache=True)
def expert_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                     move_count, rng, scratch, preview):
    """``expert``: the placement that most raises the planet's expected final value (one at
    random among those within ``spread`` points of it)."""
    moves = placement_values(params, tiles, table, player, tile, move_cells, move_rotations,
                             move_count)
    return pick_near_best(moves, move_count, params[P_SPREAD], rng)


@njit(cache=True)
def expert_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count, rng):
    """``expert``: what the tree adds to its zone, plus what the other zones without a tree are
    worth with the picks left, plus a little denial of the colours the opponents need before
    its next pick."""
    context = np.empty(CONTEXT_SIZE, dtype=np.float64)
    game_context(tiles, table, False, context)
    tile_count = tiles.light.shape[0]
    unseen = np.empty(tile_count, dtype=np.int64)
    chances = np.empty(tile_count + 1, dtype=np.float64)
    nodes = table.node_parent.shape[1]
    root_sum = np.empty(nodes, dtype=np.float64)
    root_log = np.empty(nodes, dtype=np.float64)
    frontier = table.frontier_cells.shape[1]
    cell_fill = np.empty(frontier, dtype=np.float64)
    cell_close = np.empty(frontier, dtype=np.float64)
    cell_roots = np.empty((frontier, 4, 2), dtype=np.int64)
    cell_root_count = np.empty(frontier, dtype=np.int64)
    single_fill = np.empty(4, dtype=np.float64)
    single_close = np.empty(4, dtype=np.float64)
    turns_left = int(context[CONTEXT_TURNS_LEFT])
    unseen_count, light_unseen = _prepare(tiles, table, player, unseen, chances, root_sum,
                                          root_log, cell_fill, cell_close, cell_roots,
                                          cell_root_count, single_fill, single_close,
                                          turns_left, params)
    weights = np.empty(RANKED_PICKS, dtype=np.float64)
    _hope_weights(unseen_count, light_unseen, turns_left, 0, params, weights)
    node_count = table.node_count[player]
    roots = np.empty(node_count + 1, dtype=np.int64)
    values = np.empty(node_count + 1, dtype=np.float64)
    count_without = _zones_without_tree(table, player, root_sum, root_log, context, params,
                                        roots, values)
    demand = np.empty(LEAF_COLOURS, dtype=np.float64)
    opponent_colour_demand(tiles, table, player, context, 0.5, 2.0, demand)
    players = table.status[STATUS_PLAYERS]
    fresh = np.empty(1, dtype=np.float64)
    skip = np.empty(1, dtype=np.int64)
    choices = np.empty(choice_count, dtype=np.float64)
    for index in range(choice_count):
        colour = choice_colours[index]
        root = find_zone(table, player, choice_zones[index])
        gain = 0.0
        skip_count = 0
        if table.zone_trees[player, root] == 0:
            gain = _points(table.zone_full_runes[player, root],
                           table.zone_open_half_runes[player, root], root_sum[root],
                           root_log[root], params)
            for k in range(count_without):
                if roots[k] == root:
                    skip[0] = k
                    skip_count = 1
        choices[index] = (gain + ranked_hope(values, count_without, fresh, 0, skip, skip_count,
                                             weights)
                          + params[P_DENIAL] * demand[colour - 1]
                          / max(1.0, float(table.supply[colour - 1])) / players)
    return pick_best(choices, choice_count, rng)

