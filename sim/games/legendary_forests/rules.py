"""Legendary Forests rules and state: every rule of RULES.md as a compiled step function.

The state of a table is a flat set of numpy arrays (``Table``), one row per player. Each planet is a
square grid with tile 1 in the centre; cells are numbered ``y * grid_side + x``. Zones are kept
incrementally with union-find over *nodes*: one node per area of a placed tile. A zone's totals
(full runes, open half-runes, trees) live on its root node.

Rules by name (each is one function below):
- ``deal``: the Architect's shuffle of tiles 2..N, ``removed_tiles`` taken out unseen.
- ``placement_is_legal`` / ``legal_placements``: adjacency, colour match on every touching side,
  four rotations; a player with no legal placement discards (``place_tile`` is not called).
- ``place_tile``: areas join zones; two touching leaf sides make one full rune.
- ``legal_tree_choices`` / ``apply_tree``: trees of a colour still in supply, into a zone of that
  colour; several trees may share a zone.
- ``tree_phase_seat`` / ``pass_construction_token``: the tree phase goes from the
  construction-token holder in seat order; the token then passes.
- ``zone_points`` / ``planet_score``: closed zone 2 x full runes, open zone 1 x, only with a tree.

Nothing here knows about strategies, storage or plots. Strategies read a ``Table`` (all public);
the deal (draw order, removed tiles) is never stored in it.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.legendary_forests.data import GRASS, TileSet
from sim.jit import compiled, inlined
from sim.rng import seed_state, shuffle_in_place

LEAF_COLOURS = 3
NO_NODE = -1
EMPTY = -1

# Indices into Table.status (one small int array, so the state stays a tuple of arrays).
STATUS_TURN = 0  # turns completed so far
STATUS_TOKEN_HOLDER = 1  # seat holding the construction token
STATUS_PLAYERS = 2
STATUS_LIGHT_DRAWN = 3  # light tiles drawn so far
STATUS_GRID_SIDE = 4
STATUS_SIZE = 5

TileArrays = namedtuple(
    "TileArrays",
    [
        "light",  # bool[N]
        "side_colour",  # int8[N, 4] colour per listed side (0=N, 1=E, 2=S, 3=W)
        "side_area",  # int8[N, 4] local area per listed side
        "area_count",  # int8[N]
        "area_colour",  # int8[N, 4]
        "area_half_runes",  # int8[N, 4] half-runes of each local area (its leaf sides)
        "rotation_is_distinct",  # bool[N, 4] False when an earlier rotation looks the same
        "rotation_pattern",  # uint8[N, 4] colours shown at N, E, S, W, 2 bits each, per rotation
    ],
)

Table = namedtuple(
    "Table",
    [
        "status",  # int32[STATUS_SIZE]
        "supply",  # int16[3] trees left per leaf colour (pink, red, yellow)
        "tile_drawn",  # bool[N] tiles revealed so far (tile 1 counts as drawn)
        "cell_tile",  # int16[P, C] tile index on each cell, -1 when empty
        "cell_rotation",  # int8[P, C]
        "cell_side_colour",  # int8[P, C, 4] colour shown at each board direction, -1 when empty
        "cell_side_node",  # int16[P, C, 4] node of the leaf area at each board side, -1 otherwise
        "frontier_cells",  # int16[P, C] empty cells next to the planet (first frontier_count)
        "frontier_position",  # int16[P, C] index into frontier_cells, -1 when not a frontier cell
        "frontier_count",  # int32[P]
        "cell_need_mask",  # uint8[P, C] 2-bit slots of the board sides that touch a tile
        "cell_need_colours",  # uint8[P, C] colours those touching sides must show
        "placed_cells",  # int16[P, M] cells in placement order
        "placed_count",  # int32[P]
        "node_parent",  # int16[P, Z] union-find parent
        "node_colour",  # int8[P, Z]
        "node_cell",  # int16[P, Z] cell of the area
        "node_side",  # int8[P, Z] one board side that the area reaches
        "zone_full_runes",  # int16[P, Z] (valid on roots)
        "zone_open_half_runes",  # int16[P, Z] (valid on roots)
        "zone_trees",  # int16[P, Z] (valid on roots)
        "node_count",  # int32[P]
        "tree_cell",  # int16[P, T] trees in the order placed
        "tree_side",  # int8[P, T]
        "tree_colour",  # int8[P, T] leaf colour code 1..3
        "tree_count",  # int32[P]
        "discards",  # int16[P]
    ],
)


def max_planet_tiles(tile_count: int, removed_tiles: int) -> int:
    """Most tiles a planet can hold: tile 1 plus every drawn tile."""
    return tile_count - removed_tiles


def grid_side_for(planet_tiles: int) -> int:
    """A grid wide enough that no planet of ``planet_tiles`` tiles, started in the centre, ever
    has a frontier cell whose neighbour falls off the grid."""
    return 2 * planet_tiles + 3


def tile_arrays(tileset: TileSet) -> TileArrays:
    """The compiled-code view of a tile set, with the per-rotation lookups precomputed."""
    size = tileset.size
    half_runes = np.zeros((size, 4), dtype=np.int8)
    for index in range(size):
        for side in range(4):
            if tileset.side_colour[index, side] != GRASS:
                half_runes[index, tileset.side_area[index, side]] += 1
    distinct = np.ones((size, 4), dtype=np.bool_)
    pattern = np.zeros((size, 4), dtype=np.uint8)
    for index in range(size):
        seen = set()
        for rotation in range(4):
            # What the board sees at direction d is listed side (d - rotation) mod 4; two
            # rotations are the same placement when colours and area grouping coincide.
            shown = [(d - rotation) % 4 for d in range(4)]
            colours = tuple(int(tileset.side_colour[index, s]) for s in shown)
            relabel: dict[int, int] = {}
            grouping = tuple(
                relabel.setdefault(int(tileset.side_area[index, s]), len(relabel)) for s in shown
            )
            key = (colours, grouping)
            pattern[index, rotation] = sum(colour << (2 * d) for d, colour in enumerate(colours))
            distinct[index, rotation] = key not in seen
            seen.add(key)
    return TileArrays(
        light=np.ascontiguousarray(tileset.light, dtype=np.bool_),
        side_colour=np.ascontiguousarray(tileset.side_colour, dtype=np.int8),
        side_area=np.ascontiguousarray(tileset.side_area, dtype=np.int8),
        area_count=np.ascontiguousarray(tileset.area_count, dtype=np.int8),
        area_colour=np.ascontiguousarray(tileset.area_colour, dtype=np.int8),
        area_half_runes=half_runes,
        rotation_is_distinct=distinct,
        rotation_pattern=pattern,
    )


def new_table(tile_count: int, players: int, removed_tiles: int) -> Table:
    """Allocate an empty table for ``players`` planets (call ``reset_table`` before a game)."""
    planet_tiles = max_planet_tiles(tile_count, removed_tiles)
    side = grid_side_for(planet_tiles)
    cells = side * side
    nodes = 4 * planet_tiles
    turns = planet_tiles - 1
    # The same field list as the strategies' scratch tables, run as plain Python so the arrays
    # the game loop works on are ordinary numpy allocations.
    table = empty_table.py_func(players, cells, planet_tiles, nodes, max(turns, 1),
                                np.zeros(STATUS_SIZE, dtype=np.int32),
                                np.zeros(LEAF_COLOURS, dtype=np.int16),
                                np.zeros(tile_count, dtype=np.bool_))
    table.status[STATUS_PLAYERS] = players
    table.status[STATUS_GRID_SIDE] = side
    return table


@inlined
def neighbour_cell(table, cell, direction):
    """The cell next to ``cell`` in board direction 0=N, 1=E, 2=S, 3=W."""
    side = table.status[STATUS_GRID_SIDE]
    if direction == 0:
        return cell - side
    if direction == 1:
        return cell + 1
    if direction == 2:
        return cell + side
    return cell - 1


@inlined
def centre_cell(table):
    """The cell of tile 1."""
    side = table.status[STATUS_GRID_SIDE]
    return (side // 2) * side + side // 2


@inlined
def shown_side(direction, rotation):
    """Rotation mapping: at board direction d a tile turned r quarter turns clockwise shows the
    side it lists at index (d - r) mod 4."""
    return (direction - rotation) & 3


@inlined
def find_zone(table, player, node):
    """Root node of the zone containing ``node`` (union-find with path halving)."""
    parent = table.node_parent
    while parent[player, node] != node:
        grandparent = parent[player, parent[player, node]]
        parent[player, node] = grandparent
        node = grandparent
    return node


@inlined
def zone_is_closed(table, player, root):
    """A zone is closed when no half-rune of it is left without a neighbour."""
    return table.zone_open_half_runes[player, root] == 0


@inlined
def zone_points(full_runes, open_half_runes, trees):
    """Points of one zone: with a tree, 2 x full runes when closed, 1 x when open; several
    trees score once; without a tree, nothing."""
    if trees <= 0:
        return 0
    if open_half_runes == 0:
        return 2 * full_runes
    return full_runes


@inlined
def _add_frontier(table, player, cell):
    if table.cell_tile[player, cell] != EMPTY or table.frontier_position[player, cell] >= 0:
        return
    count = table.frontier_count[player]
    table.frontier_cells[player, count] = cell
    table.frontier_position[player, cell] = count
    table.frontier_count[player] = count + 1


@inlined
def _remove_frontier(table, player, cell):
    position = table.frontier_position[player, cell]
    if position < 0:
        return
    last = table.frontier_count[player] - 1
    moved = table.frontier_cells[player, last]
    table.frontier_cells[player, position] = moved
    table.frontier_position[player, moved] = position
    table.frontier_position[player, cell] = -1
    table.frontier_count[player] = last


@inlined
def _clear_cell(table, player, cell):
    table.cell_tile[player, cell] = EMPTY
    table.cell_rotation[player, cell] = 0
    table.frontier_position[player, cell] = -1
    table.cell_need_mask[player, cell] = 0
    table.cell_need_colours[player, cell] = 0
    for direction in range(4):
        table.cell_side_colour[player, cell, direction] = EMPTY
        table.cell_side_node[player, cell, direction] = NO_NODE


@compiled(always_inline=True)
def place_tile(tiles, table, player, tile, cell, rotation):
    """Put ``tile`` on ``cell`` with ``rotation`` and update zones, runes and the frontier.

    Legality is the caller's business (see ``placement_is_legal``); this is also used for tile 1.
    """
    table.cell_tile[player, cell] = tile
    table.cell_rotation[player, cell] = rotation
    base = table.node_count[player]
    for area in range(tiles.area_count[tile]):
        node = base + area
        table.node_parent[player, node] = node
        table.node_colour[player, node] = tiles.area_colour[tile, area]
        table.node_cell[player, node] = cell
        table.node_side[player, node] = -1
        table.zone_full_runes[player, node] = 0
        table.zone_open_half_runes[player, node] = tiles.area_half_runes[tile, area]
        table.zone_trees[player, node] = 0
    table.node_count[player] = base + tiles.area_count[tile]
    for direction in range(4):
        listed = shown_side(direction, rotation)
        colour = tiles.side_colour[tile, listed]
        table.cell_side_colour[player, cell, direction] = colour
        if colour == GRASS:
            table.cell_side_node[player, cell, direction] = NO_NODE
        else:
            node = base + tiles.side_area[tile, listed]
            table.cell_side_node[player, cell, direction] = node
            if table.node_side[player, node] < 0:
                table.node_side[player, node] = direction
    # Touching leaf sides: each pair of half-runes becomes one full rune of the joined zone.
    for direction in range(4):
        node = table.cell_side_node[player, cell, direction]
        if node == NO_NODE:
            continue
        other_cell = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other_cell] == EMPTY:
            continue
        other_node = table.cell_side_node[player, other_cell, (direction + 2) & 3]
        root = find_zone(table, player, node)
        other_root = find_zone(table, player, other_node)
        if root != other_root:
            # The older root stays the root, so a zone's representative area never moves.
            if other_root > root:
                root, other_root = other_root, root
            table.node_parent[player, other_root] = root
            table.zone_full_runes[player, root] += table.zone_full_runes[player, other_root]
            table.zone_open_half_runes[player, root] += table.zone_open_half_runes[
                player, other_root
            ]
            table.zone_trees[player, root] += table.zone_trees[player, other_root]
        table.zone_full_runes[player, root] += 1
        table.zone_open_half_runes[player, root] -= 2
    _remove_frontier(table, player, cell)
    for direction in range(4):
        other_cell = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other_cell] != EMPTY:
            continue
        _add_frontier(table, player, other_cell)
        # The empty neighbour's facing side must from now on show this side's colour.
        slot = np.uint8(2 * ((direction + 2) & 3))
        table.cell_need_mask[player, other_cell] |= np.uint8(3) << slot
        table.cell_need_colours[player, other_cell] |= (
            np.uint8(table.cell_side_colour[player, cell, direction]) << slot
        )
    count = table.placed_count[player]
    table.placed_cells[player, count] = cell
    table.placed_count[player] = count + 1


@compiled
def clear_planet(table, player):
    """Empty one planet completely (no tile 1 either); only touched cells are cleared."""
    for index in range(table.placed_count[player]):
        _clear_cell(table, player, table.placed_cells[player, index])
    for index in range(table.frontier_count[player]):
        _clear_cell(table, player, table.frontier_cells[player, index])
    table.placed_count[player] = 0
    table.frontier_count[player] = 0
    table.node_count[player] = 0
    table.tree_count[player] = 0
    table.discards[player] = 0


@compiled
def reset_table(tiles, table, trees_per_colour_per_player):
    """Clear a table for a new game: every planet holds tile 1 in the centre, the token is with
    seat 0 (the Architect), and the supply has ``trees_per_colour_per_player`` x players trees of
    each leaf colour. Only cells touched by the previous game are cleared, to keep it cheap."""
    players = table.status[STATUS_PLAYERS]
    for player in range(players):
        clear_planet(table, player)
    table.status[STATUS_TURN] = 0
    table.status[STATUS_TOKEN_HOLDER] = 0
    table.status[STATUS_LIGHT_DRAWN] = 0
    for colour in range(LEAF_COLOURS):
        table.supply[colour] = trees_per_colour_per_player * players
    table.tile_drawn[:] = False
    table.tile_drawn[0] = True
    start = centre_cell(table)
    for player in range(players):
        place_tile(tiles, table, player, 0, start, 0)


@compiled(refcounts=True)
def deal(deal_rng, tile_count, removed_tiles, draw_order, removed):
    """The Architect's shuffle: tiles 2..N (indices 1..N-1) shuffled with the deal generator; the
    first ``removed_tiles`` go back to the box unseen, the rest is the draw pile, top first.
    Tile 1 is never shuffled nor removed. Depends on the deal generator only, so every player
    count and every lineup can be played on the same deals."""
    pile = np.arange(1, tile_count, dtype=np.int16)
    shuffle_in_place(deal_rng, pile)
    for index in range(removed_tiles):
        removed[index] = pile[index]
    for index in range(tile_count - 1 - removed_tiles):
        draw_order[index] = pile[removed_tiles + index]


@compiled
def placement_is_legal(tiles, table, player, tile, cell, rotation):
    """Adjacency and colour match: ``cell`` is empty and touches the planet, and every side that
    touches a placed tile shows that tile's colour."""
    if table.cell_tile[player, cell] != EMPTY:
        return False
    touches = False
    for direction in range(4):
        other = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other] == EMPTY:
            continue
        touches = True
        mine = tiles.side_colour[tile, shown_side(direction, rotation)]
        if mine != table.cell_side_colour[player, other, (direction + 2) & 3]:
            return False
    return touches


@compiled(always_inline=True)
def legal_placements(tiles, table, player, tile, out_cells, out_rotations):
    """Fill ``out_cells``/``out_rotations`` with every legal placement of ``tile`` (one per
    distinct-looking rotation) and return how many there are; 0 means the tile is discarded.

    Same answer as ``placement_is_legal`` over the frontier, but fast: each frontier cell keeps
    the colours its touching sides must show, packed 2 bits per side, so a rotation is checked
    with one mask and compare."""
    count = 0
    for index in range(table.frontier_count[player]):
        cell = table.frontier_cells[player, index]
        need_mask = table.cell_need_mask[player, cell]
        need_colours = table.cell_need_colours[player, cell]
        for rotation in range(4):
            if not tiles.rotation_is_distinct[tile, rotation]:
                continue
            if (tiles.rotation_pattern[tile, rotation] & need_mask) == need_colours:
                out_cells[count] = cell
                out_rotations[count] = rotation
                count += 1
    return count


@compiled(always_inline=True)
def legal_tree_choices(table, player, out_colours, out_zones):
    """Every (leaf colour 1..3, zone root) a tree may go to now: the colour is still in the
    supply and the zone has that colour. Returns the count; 0 means the player takes no tree."""
    count = 0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node:
            continue
        colour = table.node_colour[player, node]
        if colour == GRASS or table.supply[colour - 1] <= 0:
            continue
        out_colours[count] = colour
        out_zones[count] = node
        count += 1
    return count


@compiled(always_inline=True)
def apply_tree(table, player, colour, zone):
    """Take a tree of ``colour`` from the supply and put it in ``zone`` (a root of that colour)."""
    root = find_zone(table, player, zone)
    table.supply[colour - 1] -= 1
    table.zone_trees[player, root] += 1
    index = table.tree_count[player]
    table.tree_cell[player, index] = table.node_cell[player, root]
    table.tree_side[player, index] = table.node_side[player, root]
    table.tree_colour[player, index] = colour
    table.tree_count[player] = index + 1


@inlined
def tree_phase_seat(table, position):
    """Seat that takes the ``position``-th tree of a tree phase: clockwise from the holder of the
    construction token."""
    players = table.status[STATUS_PLAYERS]
    return (table.status[STATUS_TOKEN_HOLDER] + position) % players


@inlined
def pass_construction_token(table):
    """After a tree phase the construction token passes to the next seat."""
    players = table.status[STATUS_PLAYERS]
    table.status[STATUS_TOKEN_HOLDER] = (table.status[STATUS_TOKEN_HOLDER] + 1) % players


@compiled(always_inline=True)
def planet_score(table, player):
    """Final score of a planet, read off the zone table."""
    total = 0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node or table.node_colour[player, node] == GRASS:
            continue
        total += zone_points(
            table.zone_full_runes[player, node],
            table.zone_open_half_runes[player, node],
            table.zone_trees[player, node],
        )
    return total


@compiled(always_inline=True)
def planet_zone_counts(table, player, out):
    """Summary of a planet's leaf zones into ``out`` (int64[4]): zones, closed zones, full runes,
    zones holding a tree."""
    out[:] = 0
    for node in range(table.node_count[player]):
        if table.node_parent[player, node] != node or table.node_colour[player, node] == GRASS:
            continue
        out[0] += 1
        if table.zone_open_half_runes[player, node] == 0:
            out[1] += 1
        out[2] += table.zone_full_runes[player, node]
        if table.zone_trees[player, node] > 0:
            out[3] += 1


def new_deal_rng(deal_seed: int) -> np.ndarray:
    """A generator for the deal, from the game's deal seed (stream 0)."""
    state = np.zeros(4, dtype=np.uint64)
    seed_state(state, np.uint64(deal_seed), 0)
    return state


# Indices into the output of ``preview_placement``.
PREVIEW_SCORE_CHANGE = 0  # change of the planet's current score (zones with trees)
PREVIEW_FULL_RUNES = 1  # full runes the placement creates
PREVIEW_ZONES_CLOSED = 2  # zones (after joining) that the placement closes
PREVIEW_TREED_ZONES_CLOSED = 3  # of those, zones holding a tree
PREVIEW_SIZE = 4

# Columns of the ``groups`` array filled by ``placement_groups``: one row per zone after the move.
GROUP_COLOUR = 0
GROUP_FULL_RUNES = 1
GROUP_OPEN_HALF_RUNES = 2
GROUP_TREES = 3
GROUP_COLUMNS = 4
MAX_GROUPS = 8

@compiled(refcounts=True)
def new_groups():
    """An empty ``groups`` array for ``placement_groups``."""
    return np.zeros((MAX_GROUPS, GROUP_COLUMNS), dtype=np.int32)


@inlined
def _join_new_tile(tiles, table, player, tile, cell, rotation, scratch):
    """The joining step of a placement preview, without changing the table: the roots of the
    neighbouring zones the tile's leaf sides touch go to ``scratch[0:4]``, each touching pair
    (tile area, neighbour root) to ``scratch[16:24]``, and a union-find over the tile's areas and
    those roots (areas first) to ``scratch[8:16]``. Returns (root count, link count)."""
    area_count = tiles.area_count[tile]
    root_count = 0
    link_count = 0
    for direction in range(4):
        listed = shown_side(direction, rotation)
        if tiles.side_colour[tile, listed] == GRASS:
            continue
        other = neighbour_cell(table, cell, direction)
        if table.cell_tile[player, other] == EMPTY:
            continue
        root = find_zone(table, player, table.cell_side_node[player, other, (direction + 2) & 3])
        found = -1
        for k in range(root_count):
            if scratch[k] == root:
                found = k
        if found < 0:
            scratch[root_count] = root
            found = root_count
            root_count += 1
        scratch[16 + link_count] = tiles.side_area[tile, listed]
        scratch[20 + link_count] = found
        link_count += 1
    items = area_count + root_count
    for item in range(items):
        scratch[8 + item] = item
    for link in range(link_count):
        a = _preview_root(scratch, scratch[16 + link])
        b = _preview_root(scratch, area_count + scratch[20 + link])
        if a != b:
            scratch[8 + b] = a
    return root_count, link_count


@inlined
def _preview_root(scratch, item):
    """The representative of ``item`` in the preview's union-find (``scratch[8:16]``)."""
    while scratch[8 + item] != item:
        item = scratch[8 + item]
    return item


@inlined
def _preview_group(tiles, table, player, tile, scratch, area_count, items, link_count, group):
    """Totals of the preview group whose representative is ``group``: (colour, full runes,
    open half-runes, trees), its touching leaf sides already counted as full runes; the colour
    is GRASS when the group holds no leaf area and no neighbouring zone."""
    colour = GRASS
    full_runes = 0
    open_half_runes = 0
    trees = 0
    for item in range(items):
        if _preview_root(scratch, item) != group:
            continue
        if item < area_count:
            if tiles.area_colour[tile, item] != GRASS:
                colour = tiles.area_colour[tile, item]
            open_half_runes += tiles.area_half_runes[tile, item]
        else:
            root = scratch[item - area_count]
            colour = table.node_colour[player, root]
            full_runes += table.zone_full_runes[player, root]
            open_half_runes += table.zone_open_half_runes[player, root]
            trees += table.zone_trees[player, root]
    if colour != GRASS:
        for link in range(link_count):
            if _preview_root(scratch, scratch[16 + link]) == group:
                full_runes += 1
                open_half_runes -= 2
    return colour, full_runes, open_half_runes, trees


@compiled(always_inline=True)
def placement_groups(tiles, table, player, tile, cell, rotation, scratch, groups):
    """The leaf zones a legal placement would leave where it lands, without changing the table.

    Fills ``groups`` rows (colour, full runes, open half-runes, trees) for every leaf zone that
    contains an area of the new tile, after joining it with the neighbouring zones it touches,
    and puts the roots of those neighbouring zones (as they are now) in ``scratch[0:4]``.
    Returns ``(group count, neighbour root count)``. ``scratch`` is int32[>= 48]. The joining is
    the same as ``place_tile``'s: every pair of touching leaf sides becomes one full rune.
    """
    area_count = tiles.area_count[tile]
    root_count, link_count = _join_new_tile(tiles, table, player, tile, cell, rotation, scratch)
    items = area_count + root_count
    group_count = 0
    for group in range(items):
        if _preview_root(scratch, group) != group:
            continue
        colour, full_runes, open_half_runes, trees = _preview_group(
            tiles, table, player, tile, scratch, area_count, items, link_count, group)
        if colour == GRASS:
            continue
        groups[group_count, GROUP_COLOUR] = colour
        groups[group_count, GROUP_FULL_RUNES] = full_runes
        groups[group_count, GROUP_OPEN_HALF_RUNES] = open_half_runes
        groups[group_count, GROUP_TREES] = trees
        group_count += 1
    return group_count, root_count


@compiled(always_inline=True)
def preview_placement(tiles, table, player, tile, cell, rotation, scratch, out):
    """What a legal placement would change, without changing the table: fills ``out``
    (int32[PREVIEW_SIZE]); ``scratch`` is int32[>= 48]. Zones are joined the same way as
    ``place_tile`` does it (``_join_new_tile``); this is the hot path of most strategies, so it
    sums the joined zones directly instead of listing them like ``placement_groups``."""
    area_count = tiles.area_count[tile]
    root_count, link_count = _join_new_tile(tiles, table, player, tile, cell, rotation, scratch)
    items = area_count + root_count
    old_score = 0
    for k in range(root_count):
        root = scratch[k]
        old_score += zone_points(
            table.zone_full_runes[player, root],
            table.zone_open_half_runes[player, root],
            table.zone_trees[player, root],
        )
    zones_closed = 0
    treed_zones_closed = 0
    new_score = 0
    for group in range(items):
        # Evaluate each group once, at its representative.
        if _preview_root(scratch, group) != group:
            continue
        colour, full_runes, open_half_runes, trees = _preview_group(
            tiles, table, player, tile, scratch, area_count, items, link_count, group)
        if colour == GRASS:
            continue
        new_score += zone_points(full_runes, open_half_runes, trees)
        if open_half_runes == 0:
            zones_closed += 1
            if trees > 0:
                treed_zones_closed += 1
    out[PREVIEW_SCORE_CHANGE] = new_score - old_score
    out[PREVIEW_FULL_RUNES] = link_count
    out[PREVIEW_ZONES_CLOSED] = zones_closed
    out[PREVIEW_TREED_ZONES_CLOSED] = treed_zones_closed


# ---------------------------------------------------------------------------------------------
# Pure helpers for strategies (queries and copies; no rule is changed by them).


@inlined
def total_turns(table):
    """Turns in a game on this table: every drawn tile is one turn. The table is sized for tile 1
    plus every drawn tile, so this is public (it follows from the rules parameters)."""
    return table.placed_cells.shape[1] - 1


@compiled
def copy_planet(source, source_player, target, target_player):
    """Copy one planet (tiles, frontier, zones, trees, discards) from ``source`` to a planet of
    ``target``, a table of the same tile count and removed tiles; e.g. into a one-player scratch
    table for a rollout. The target planet is cleared first; only touched cells are copied, so
    this costs about as much as the planet is big. Supply and status are not copied."""
    clear_planet(target, target_player)
    for index in range(source.placed_count[source_player]):
        cell = source.placed_cells[source_player, index]
        target.placed_cells[target_player, index] = cell
        target.cell_tile[target_player, cell] = source.cell_tile[source_player, cell]
        target.cell_rotation[target_player, cell] = source.cell_rotation[source_player, cell]
        for direction in range(4):
            target.cell_side_colour[target_player, cell, direction] = source.cell_side_colour[
                source_player, cell, direction]
            target.cell_side_node[target_player, cell, direction] = source.cell_side_node[
                source_player, cell, direction]
    target.placed_count[target_player] = source.placed_count[source_player]
    for index in range(source.frontier_count[source_player]):
        cell = source.frontier_cells[source_player, index]
        target.frontier_cells[target_player, index] = cell
        target.frontier_position[target_player, cell] = index
        target.cell_need_mask[target_player, cell] = source.cell_need_mask[source_player, cell]
        target.cell_need_colours[target_player, cell] = source.cell_need_colours[
            source_player, cell]
    target.frontier_count[target_player] = source.frontier_count[source_player]
    for node in range(source.node_count[source_player]):
        target.node_parent[target_player, node] = source.node_parent[source_player, node]
        target.node_colour[target_player, node] = source.node_colour[source_player, node]
        target.node_cell[target_player, node] = source.node_cell[source_player, node]
        target.node_side[target_player, node] = source.node_side[source_player, node]
        target.zone_full_runes[target_player, node] = source.zone_full_runes[source_player, node]
        target.zone_open_half_runes[target_player, node] = source.zone_open_half_runes[
            source_player, node]
        target.zone_trees[target_player, node] = source.zone_trees[source_player, node]
    target.node_count[target_player] = source.node_count[source_player]
    for index in range(source.tree_count[source_player]):
        target.tree_cell[target_player, index] = source.tree_cell[source_player, index]
        target.tree_side[target_player, index] = source.tree_side[source_player, index]
        target.tree_colour[target_player, index] = source.tree_colour[source_player, index]
    target.tree_count[target_player] = source.tree_count[source_player]
    target.discards[target_player] = source.discards[source_player]


@compiled(refcounts=True)
def empty_table(players, cells, planet_tiles, nodes, tree_slots, status, supply, tile_drawn):
    """A ``Table`` with ``players`` empty planets of the given sizes around the given status,
    supply and drawn-tile flags: the one place that lists every field's shape and fill value
    (``new_table`` and ``new_scratch_table`` both build their tables here)."""
    return Table(
        status,
        supply,
        tile_drawn,
        np.full((players, cells), EMPTY, dtype=np.int16),
        np.zeros((players, cells), dtype=np.int8),
        np.full((players, cells, 4), EMPTY, dtype=np.int8),
        np.full((players, cells, 4), NO_NODE, dtype=np.int16),
        np.zeros((players, cells), dtype=np.int16),
        np.full((players, cells), -1, dtype=np.int16),
        np.zeros(players, dtype=np.int32),
        np.zeros((players, cells), dtype=np.uint8),
        np.zeros((players, cells), dtype=np.uint8),
        np.zeros((players, planet_tiles), dtype=np.int16),
        np.zeros(players, dtype=np.int32),
        np.zeros((players, nodes), dtype=np.int16),
        np.zeros((players, nodes), dtype=np.int8),
        np.zeros((players, nodes), dtype=np.int16),
        np.zeros((players, nodes), dtype=np.int8),
        np.zeros((players, nodes), dtype=np.int16),
        np.zeros((players, nodes), dtype=np.int16),
        np.zeros((players, nodes), dtype=np.int16),
        np.zeros(players, dtype=np.int32),
        np.zeros((players, tree_slots), dtype=np.int16),
        np.zeros((players, tree_slots), dtype=np.int8),
        np.zeros((players, tree_slots), dtype=np.int8),
        np.zeros(players, dtype=np.int32),
        np.zeros(players, dtype=np.int16),
    )


@compiled(refcounts=True)
def new_scratch_table(like, players):
    """A table shaped like ``like`` but with ``players`` planets, allocated in compiled code
    (for strategies that try moves out on a copy). Status and tile flags are copied from
    ``like``; the planets are empty (fill them with ``copy_planet``)."""
    status = like.status.copy()
    status[STATUS_PLAYERS] = players
    return empty_table(players, like.cell_tile.shape[1], like.placed_cells.shape[1],
                       like.node_parent.shape[1], like.tree_cell.shape[1], status,
                       like.supply.copy(), like.tile_drawn.copy())
