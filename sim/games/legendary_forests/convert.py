"""Conversions between a compiled table and the planet-file form (``planet.Planet``)."""

from __future__ import annotations

from collections import deque

from sim.games.legendary_forests.data import TileSet
from sim.games.legendary_forests.position import DIRECTION_OFFSETS, PlacedTile, Planet, Tree
from sim.games.legendary_forests.rules import (
    STATUS_GRID_SIDE,
    apply_tree,
    clear_planet,
    find_zone,
    new_table,
    place_tile,
    reset_table,
)


def cell_to_xy(table, cell: int) -> tuple[int, int]:
    """Planet coordinates (tile 1 at (0, 0)) of a grid cell."""
    side = int(table.status[STATUS_GRID_SIDE])
    return cell % side - side // 2, cell // side - side // 2


def xy_to_cell(table, x: int, y: int) -> int:
    """Grid cell of planet coordinates (x, y)."""
    side = int(table.status[STATUS_GRID_SIDE])
    return (y + side // 2) * side + (x + side // 2)


def planet_of(tileset: TileSet, table, player: int) -> Planet:
    """The planet of ``player`` on a compiled table, in the planet-file form."""
    planet = Planet()
    for index in range(int(table.placed_count[player])):
        cell = int(table.placed_cells[player, index])
        x, y = cell_to_xy(table, cell)
        planet.tiles.append(PlacedTile(number=int(table.cell_tile[player, cell]) + 1, x=x, y=y,
                                       rotation=int(table.cell_rotation[player, cell])))
    for index in range(int(table.tree_count[player])):
        x, y = cell_to_xy(table, int(table.tree_cell[player, index]))
        planet.trees.append(Tree(x=x, y=y, side=int(table.tree_side[player, index]),
                                 colour=int(table.tree_colour[player, index])))
    return planet


def table_from_planet(tiles, tileset: TileSet, planet: Planet, supply_per_colour: int = 99):
    """A one-player table holding ``planet`` (assumed valid), built with the engine's own step
    functions: tiles go down in breadth-first order from tile 1, then the trees. Used to check
    the engine against hand-built positions and the reference scorer."""
    removed = max(0, tileset.size - len(planet.tiles))
    table = new_table(tileset.size, 1, removed)
    reset_table(tiles, table, supply_per_colour)
    by_xy = {(t.x, t.y): t for t in planet.tiles}
    origin = next(t for t in planet.tiles if t.number == 1)
    start = (origin.x, origin.y)
    # Tile 1 goes in the centre cell with its own rotation; everything is shifted with it.
    clear_planet(table, 0)

    def cell_of(x: int, y: int) -> int:
        return xy_to_cell(table, x - origin.x, y - origin.y)

    place_tile(tiles, table, 0, 0, cell_of(*start), origin.rotation)
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for dx, dy in DIRECTION_OFFSETS:
            neighbour = (x + dx, y + dy)
            if neighbour in by_xy and neighbour not in seen:
                seen.add(neighbour)
                tile = by_xy[neighbour]
                place_tile(tiles, table, 0, tile.number - 1, cell_of(*neighbour), tile.rotation)
                queue.append(neighbour)
    for tree in planet.trees:
        node = table.cell_side_node[0, cell_of(tree.x, tree.y), tree.side]
        apply_tree(table, 0, tree.colour, find_zone(table, 0, node))
    return table
