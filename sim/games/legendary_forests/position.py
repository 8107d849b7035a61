"""Planets for Legendary Forests: the JSON format of RULES.md and a from-scratch reference scorer.

A planet is one player's grid of placed tiles plus the trees standing on them. This module reads,
validates and writes the planet JSON format, and scores a planet from scratch with a plain
union-find over (placed tile, area) nodes. It deliberately shares no code with the compiled
engine: it is the reference against which the engine's incremental zones are checked.

Conventions (RULES.md): x grows to the east, y grows to the south, so the north neighbour of
(x, y) is (x, y - 1). Board directions are 0 = N, 1 = E, 2 = S, 3 = W. A tile placed with
``rotation = r`` shows at board direction d the side it lists at index (d - r) mod 4.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from sim.errors import InputError
from sim.files import read_user_json
from sim.games.legendary_forests.data import (
    COLOUR_CODES,
    COLOUR_NAMES,
    GRASS,
    LEAF_COLOUR_NAMES,
    SIDE_NAMES,
    TileSet,
)

GAME_NAME = "legendary-forests"

# (dx, dy) of the neighbour in each board direction 0 = N, 1 = E, 2 = S, 3 = W.
DIRECTION_OFFSETS = ((0, -1), (1, 0), (0, 1), (-1, 0))
SIDE_CODES = {name: direction for direction, name in enumerate(SIDE_NAMES)}


@dataclass
class PlacedTile:
    """Tile ``number`` of the set on cell (x, y), turned ``rotation`` quarter turns clockwise."""

    number: int
    x: int
    y: int
    rotation: int


@dataclass
class Tree:
    """A tree standing in the area of the tile on (x, y) that reaches board direction ``side``."""

    x: int
    y: int
    side: int  # board direction 0=N 1=E 2=S 3=W
    colour: int  # 1..3 (pink, red, yellow)


@dataclass
class Planet:
    """One player's planet: the placed tiles and the trees on them."""

    tiles: list[PlacedTile] = field(default_factory=list)
    trees: list[Tree] = field(default_factory=list)


@dataclass
class ZoneScore:
    """One leaf zone of a planet and what it scores.

    ``full_runes`` counts touching pairs of half-runes inside the zone (each pair once);
    ``open_half_runes`` counts the zone's leaf sides that have no neighbouring tile;
    ``closed`` is true when there is no open half-rune; ``cells`` lists the cells of the tiles
    that hold an area of the zone, sorted.
    """

    colour: int
    full_runes: int
    open_half_runes: int
    closed: bool
    trees: int
    points: int
    cells: list[tuple[int, int]]


@dataclass
class PlanetScore:
    """Every leaf zone of a planet (treed or not) and the planet's total points."""

    zones: list[ZoneScore]
    total: int


# --------------------------------------------------------------------------- geometry


def tile_side_index(rotation: int, direction: int) -> int:
    """Index in the tile's side list that a tile with ``rotation`` shows at board ``direction``."""
    return (direction - rotation) % 4


def board_side_colour(tileset: TileSet, tile: PlacedTile, direction: int) -> int:
    """Colour code that the placed ``tile`` shows at board ``direction`` (0=N 1=E 2=S 3=W)."""
    return int(tileset.side_colour[tile.number - 1, tile_side_index(tile.rotation, direction)])


def board_side_area(tileset: TileSet, tile: PlacedTile, direction: int) -> int:
    """Local area index of the placed ``tile`` that reaches board ``direction``."""
    return int(tileset.side_area[tile.number - 1, tile_side_index(tile.rotation, direction)])


def neighbour_cell(x: int, y: int, direction: int) -> tuple[int, int]:
    """The cell next to (x, y) in board ``direction``."""
    dx, dy = DIRECTION_OFFSETS[direction]
    return x + dx, y + dy


# --------------------------------------------------------------------------- reading


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _require_fields(
    entry: object, where: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
) -> dict:
    if not isinstance(entry, dict):
        raise InputError(f"{where}: expected an object")
    for name in required:
        if name not in entry:
            raise InputError(f"{where}: missing field '{name}'")
    unknown = sorted(set(entry) - set(required) - set(optional))
    if unknown:
        raise InputError(f"{where}: unknown field '{unknown[0]}'")
    return entry


def _require_integer(entry: dict, name: str, where: str) -> int:
    value = entry[name]
    if not _is_integer(value):
        raise InputError(f"{where}.{name}: expected an integer, got {value!r}")
    return value


def planet_from_json(obj: object, tileset: TileSet, source: str) -> Planet:
    """Build a :class:`Planet` from a parsed planet JSON document and validate it fully.

    ``source`` names the file in error messages. Raises :class:`sim.errors.InputError` with a
    one-line message naming the source, the field (e.g. ``tiles[3]``, ``trees[0].side``) and the
    reason on any violation of the format or of the placement rules (see
    :func:`validate_planet`). A missing ``trees`` field means no trees.
    """
    document = _require_fields(obj, f"{source}: planet", ("game", "tiles"), ("trees",))
    if document["game"] != GAME_NAME:
        raise InputError(f"{source}: game: expected {GAME_NAME!r}, got {document['game']!r}")
    tile_entries = document["tiles"]
    if not isinstance(tile_entries, list):
        raise InputError(f"{source}: tiles: expected a list of tile objects")
    tree_entries = document.get("trees", [])
    if not isinstance(tree_entries, list):
        raise InputError(f"{source}: trees: expected a list of tree objects")

    tiles = []
    for position, entry in enumerate(tile_entries):
        where = f"{source}: tiles[{position}]"
        entry = _require_fields(entry, where, ("number", "x", "y", "rotation"))
        tiles.append(
            PlacedTile(
                number=_require_integer(entry, "number", where),
                x=_require_integer(entry, "x", where),
                y=_require_integer(entry, "y", where),
                rotation=_require_integer(entry, "rotation", where),
            )
        )

    trees = []
    for position, entry in enumerate(tree_entries):
        where = f"{source}: trees[{position}]"
        entry = _require_fields(entry, where, ("x", "y", "side", "color"))
        x = _require_integer(entry, "x", where)
        y = _require_integer(entry, "y", where)
        side = entry["side"]
        if side not in SIDE_CODES:
            raise InputError(f"{where}.side: expected one of N, E, S, W, got {side!r}")
        colour = entry["color"]
        if colour not in LEAF_COLOUR_NAMES:
            raise InputError(
                f"{where}.color: expected one of {', '.join(LEAF_COLOUR_NAMES)}, got {colour!r}"
            )
        trees.append(Tree(x=x, y=y, side=SIDE_CODES[side], colour=COLOUR_CODES[colour]))

    planet = Planet(tiles=tiles, trees=trees)
    validate_planet(planet, tileset, source)
    return planet


def validate_planet(planet: Planet, tileset: TileSet, source: str) -> None:
    """Check a planet against the tile set and the placement rules.

    Checks: tile numbers unique and in 1..N, tile 1 present, at most one tile per cell, rotation
    in 0..3, every touching pair of sides of one colour, every tile connected to tile 1 through
    orthogonal neighbours, every tree on a placed tile, with a side in 0..3 whose area has
    exactly the tree's leaf colour. Raises :class:`sim.errors.InputError` naming ``source``, the
    field and the reason.
    """
    positions_by_number: dict[int, int] = {}
    positions_by_cell: dict[tuple[int, int], int] = {}
    for position, tile in enumerate(planet.tiles):
        where = f"{source}: tiles[{position}]"
        if not 1 <= tile.number <= tileset.size:
            raise InputError(
                f"{where}.number: tile {tile.number} is not in the tile set "
                f"(numbers 1..{tileset.size})"
            )
        if tile.number in positions_by_number:
            raise InputError(
                f"{where}.number: tile {tile.number} is placed twice "
                f"(also tiles[{positions_by_number[tile.number]}])"
            )
        positions_by_number[tile.number] = position
        if not 0 <= tile.rotation <= 3:
            raise InputError(f"{where}.rotation: expected 0..3, got {tile.rotation}")
        cell = (tile.x, tile.y)
        if cell in positions_by_cell:
            raise InputError(
                f"{where}: cell ({tile.x}, {tile.y}) already holds tiles[{positions_by_cell[cell]}]"
            )
        positions_by_cell[cell] = position
    if 1 not in positions_by_number:
        raise InputError(f"{source}: tiles: tile 1 is missing (it starts every planet)")

    # Touching sides: check each pair once, from the west or north tile of the pair.
    for position, tile in enumerate(planet.tiles):
        for direction in (1, 2):
            other_position = positions_by_cell.get(neighbour_cell(tile.x, tile.y, direction))
            if other_position is None:
                continue
            other = planet.tiles[other_position]
            opposite = (direction + 2) % 4
            colour = board_side_colour(tileset, tile, direction)
            other_colour = board_side_colour(tileset, other, opposite)
            if colour != other_colour:
                raise InputError(
                    f"{source}: tiles[{position}]: side {SIDE_NAMES[direction]} of tile "
                    f"{tile.number} is {COLOUR_NAMES[colour]} but touches side "
                    f"{SIDE_NAMES[opposite]} of tiles[{other_position}] (tile {other.number}), "
                    f"which is {COLOUR_NAMES[other_colour]}"
                )

    # Connectivity: flood fill from tile 1.
    start = planet.tiles[positions_by_number[1]]
    reached = {(start.x, start.y)}
    frontier = [(start.x, start.y)]
    while frontier:
        x, y = frontier.pop()
        for direction in range(4):
            cell = neighbour_cell(x, y, direction)
            if cell in positions_by_cell and cell not in reached:
                reached.add(cell)
                frontier.append(cell)
    for position, tile in enumerate(planet.tiles):
        if (tile.x, tile.y) not in reached:
            raise InputError(
                f"{source}: tiles[{position}]: tile {tile.number} at ({tile.x}, {tile.y}) is "
                f"not connected to tile 1"
            )

    for position, tree in enumerate(planet.trees):
        where = f"{source}: trees[{position}]"
        tile_position = positions_by_cell.get((tree.x, tree.y))
        if tile_position is None:
            raise InputError(f"{where}: no tile on cell ({tree.x}, {tree.y})")
        if not 0 <= tree.side <= 3:
            raise InputError(f"{where}.side: expected a board direction 0..3, got {tree.side}")
        if tree.colour not in (1, 2, 3):
            raise InputError(f"{where}.color: expected a leaf colour code 1..3, got {tree.colour}")
        tile = planet.tiles[tile_position]
        area_colour = board_side_colour(tileset, tile, tree.side)
        side_name = SIDE_NAMES[tree.side]
        if area_colour == GRASS:
            raise InputError(
                f"{where}.side: side {side_name} of tile {tile.number} at ({tree.x}, {tree.y}) "
                f"is grass; trees stand only in leaf areas"
            )
        if area_colour != tree.colour:
            raise InputError(
                f"{where}.color: tree is {COLOUR_NAMES[tree.colour]} but side {side_name} of "
                f"tile {tile.number} at ({tree.x}, {tree.y}) is {COLOUR_NAMES[area_colour]}"
            )


def load_planet(path: str | Path, tileset: TileSet) -> Planet:
    """Read, parse and validate a planet JSON file (see :func:`planet_from_json`).

    A missing or unreadable file and malformed JSON also raise a one-line
    :class:`sim.errors.InputError`.
    """
    return planet_from_json(read_user_json(path, "planet file"), tileset, str(path))


def planet_to_json(planet: Planet) -> dict:
    """The planet as a JSON-ready dict in the RULES.md format (``game`` first, sides as letters,
    colours as names)."""
    return {
        "game": GAME_NAME,
        "tiles": [
            {"number": tile.number, "x": tile.x, "y": tile.y, "rotation": tile.rotation}
            for tile in planet.tiles
        ],
        "trees": [
            {
                "x": tree.x,
                "y": tree.y,
                "side": SIDE_NAMES[tree.side],
                "color": COLOUR_NAMES[tree.colour],
            }
            for tree in planet.trees
        ],
    }


# --------------------------------------------------------------------------- scoring


class _UnionFind:
    """Disjoint sets over hashable nodes, with path halving."""

    def __init__(self) -> None:
        self.parent: dict = {}

    def add(self, node) -> None:
        self.parent.setdefault(node, node)

    def find(self, node):
        parent = self.parent
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    def union(self, first, second) -> None:
        first_root, second_root = self.find(first), self.find(second)
        if first_root != second_root:
            self.parent[second_root] = first_root


def score_planet(planet: Planet, tileset: TileSet) -> PlanetScore:
    """Score a (valid) planet from scratch.

    Nodes are (position in ``planet.tiles``, local area) for every leaf area; two nodes join when
    their areas reach touching sides (which share a colour on a valid planet). Each touching pair
    of leaf sides is one full rune of its zone; each leaf side with no neighbouring tile is an
    open half-rune. A zone with at least one tree scores 2 x full runes when closed and
    1 x full runes when open; more trees add nothing. Grass never forms zones.

    Zones are listed in order of first appearance: by position in ``planet.tiles``, then by local
    area index.
    """
    positions_by_cell = {(tile.x, tile.y): position for position, tile in enumerate(planet.tiles)}
    union_find = _UnionFind()
    for position, tile in enumerate(planet.tiles):
        index = tile.number - 1
        for area in range(int(tileset.area_count[index])):
            if tileset.area_colour[index, area] != GRASS:
                union_find.add((position, area))

    # Join across touching leaf sides; each pair is seen from both tiles.
    for position, tile in enumerate(planet.tiles):
        for direction in range(4):
            if board_side_colour(tileset, tile, direction) == GRASS:
                continue
            other_position = positions_by_cell.get(neighbour_cell(tile.x, tile.y, direction))
            if other_position is None:
                continue
            other = planet.tiles[other_position]
            opposite = (direction + 2) % 4
            if board_side_colour(tileset, other, opposite) != board_side_colour(
                tileset, tile, direction
            ):
                continue  # not a legal touch; an invalid planet is scored as if apart
            union_find.union(
                (position, board_side_area(tileset, tile, direction)),
                (other_position, board_side_area(tileset, other, opposite)),
            )

    zone_of_root: dict = {}
    zones: list[ZoneScore] = []
    zone_cells: list[set[tuple[int, int]]] = []
    half_rune_pairs = []  # touching leaf half-runes seen per zone; each rune is seen twice
    for position, tile in enumerate(planet.tiles):
        index = tile.number - 1
        for area in range(int(tileset.area_count[index])):
            colour = int(tileset.area_colour[index, area])
            if colour == GRASS:
                continue
            root = union_find.find((position, area))
            if root not in zone_of_root:
                zone_of_root[root] = len(zones)
                zones.append(
                    ZoneScore(
                        colour=colour,
                        full_runes=0,
                        open_half_runes=0,
                        closed=True,
                        trees=0,
                        points=0,
                        cells=[],
                    )
                )
                zone_cells.append(set())
                half_rune_pairs.append(0)
            zone_cells[zone_of_root[root]].add((tile.x, tile.y))

    for position, tile in enumerate(planet.tiles):
        for direction in range(4):
            colour = board_side_colour(tileset, tile, direction)
            if colour == GRASS:
                continue
            zone_number = zone_of_root[
                union_find.find((position, board_side_area(tileset, tile, direction)))
            ]
            other_position = positions_by_cell.get(neighbour_cell(tile.x, tile.y, direction))
            if other_position is None:
                zones[zone_number].open_half_runes += 1
                continue
            other = planet.tiles[other_position]
            if board_side_colour(tileset, other, (direction + 2) % 4) == colour:
                half_rune_pairs[zone_number] += 1

    for tree in planet.trees:
        position = positions_by_cell[(tree.x, tree.y)]
        tile = planet.tiles[position]
        if board_side_colour(tileset, tile, tree.side) == GRASS:
            continue
        root = union_find.find((position, board_side_area(tileset, tile, tree.side)))
        zones[zone_of_root[root]].trees += 1

    total = 0
    for zone_number, zone in enumerate(zones):
        zone.full_runes = half_rune_pairs[zone_number] // 2
        zone.closed = zone.open_half_runes == 0
        zone.cells = sorted(zone_cells[zone_number])
        if zone.trees >= 1:
            zone.points = (2 if zone.closed else 1) * zone.full_runes
        total += zone.points
    return PlanetScore(zones=zones, total=total)
