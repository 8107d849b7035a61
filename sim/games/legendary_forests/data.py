"""Tile sets for Legendary Forests: the TOML format of RULES.md, validated into numpy arrays.

A tile set lists tiles numbered 1..N without gaps. Each tile has four sides listed clockwise from
north (index 0 = N, 1 = E, 2 = S, 3 = W), a light/dark background, and areas: groups of side
indices that form one connected region of one colour inside the tile.

The arrays use tile *indices* (number - 1) and colour codes (``GRASS``, ``PINK``, ``RED``,
``YELLOW``); leaf colours are 1..3 and a tree colour index is ``colour - 1``.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from sim.errors import InputError
from sim.files import read_user_toml

GRASS, PINK, RED, YELLOW = 0, 1, 2, 3
COLOUR_NAMES = ("grass", "pink", "red", "yellow")
LEAF_COLOUR_NAMES = COLOUR_NAMES[1:]
COLOUR_CODES = {name: code for code, name in enumerate(COLOUR_NAMES)}
SIDE_NAMES = ("N", "E", "S", "W")

DEFAULT_TILES_PATH = Path(
    str(resources.files("sim.games.legendary_forests") / "data" / "tiles.toml")
)


@dataclass(frozen=True, eq=False)
class TileSet:
    """A validated tile set as plain arrays, indexed by tile index (tile number - 1).

    ``side_colour[i, s]`` is the colour code of side ``s`` (0=N, 1=E, 2=S, 3=W) of tile ``i``;
    ``side_area[i, s]`` is the local area of that side (0..``area_count[i]``-1);
    ``area_colour[i, a]`` is the colour of local area ``a`` (-1 past ``area_count[i]``).
    """

    path: str
    light: np.ndarray  # bool[N]
    side_colour: np.ndarray  # int8[N, 4]
    side_area: np.ndarray  # int8[N, 4]
    area_count: np.ndarray  # int8[N]
    area_colour: np.ndarray  # int8[N, 4]

    @property
    def size(self) -> int:
        """Number of tiles N in the set."""
        return int(self.light.shape[0])

    def digest(self) -> str:
        """A short content hash, so results can name the exact tile set they used."""
        import hashlib

        h = hashlib.sha256()
        for array in (self.light, self.side_colour, self.side_area):
            h.update(np.ascontiguousarray(array).tobytes())
        return h.hexdigest()[:16]


def load_tileset(path: str | Path | None = None) -> TileSet:
    """Load and validate a tile-set TOML file; ``None`` gives the shipped default set.

    Raises :class:`sim.errors.InputError` with a one-line message naming the file, the tile and
    the reason on any violation of the format.
    """
    path = Path(path) if path is not None else DEFAULT_TILES_PATH
    return parse_tileset(read_user_toml(path, "tile set file"), str(path))


def parse_tileset(document: dict, source: str) -> TileSet:
    """Validate a parsed tile-set document (see :func:`load_tileset`)."""
    tiles = document.get("tiles")
    if not isinstance(tiles, list) or not tiles:
        raise InputError(f"{source}: field 'tiles': expected a non-empty array of [[tiles]] tables")
    unknown_top = set(document) - {"tiles"}
    if unknown_top:
        raise InputError(f"{source}: unknown top-level field '{sorted(unknown_top)[0]}'")

    by_number: dict[int, dict] = {}
    for position, tile in enumerate(tiles):
        where = f"{source}: tile #{position + 1} in file"
        if not isinstance(tile, dict):
            raise InputError(f"{where}: expected a table")
        number = tile.get("number")
        if not isinstance(number, int) or isinstance(number, bool):
            raise InputError(f"{where}: field 'number' must be an integer")
        if number < 1:
            raise InputError(f"{source}: tile {number}: number must be 1 or more")
        if number in by_number:
            raise InputError(f"{source}: tile {number}: duplicate tile number")
        by_number[number] = tile

    if 1 not in by_number:
        raise InputError(f"{source}: tile 1: absent (tile 1 starts every planet)")
    size = max(by_number)
    missing = [n for n in range(1, size + 1) if n not in by_number]
    if missing:
        raise InputError(f"{source}: tile {missing[0]}: missing (numbers must run 1..{size})")

    light = np.zeros(size, dtype=np.bool_)
    side_colour = np.zeros((size, 4), dtype=np.int8)
    side_area = np.full((size, 4), -1, dtype=np.int8)
    area_count = np.zeros(size, dtype=np.int8)
    area_colour = np.full((size, 4), -1, dtype=np.int8)
    for number in range(1, size + 1):
        index = number - 1
        tile = by_number[number]
        where = f"{source}: tile {number}"
        unknown = set(tile) - {"number", "light", "sides", "areas"}
        if unknown:
            raise InputError(f"{where}: unknown field '{sorted(unknown)[0]}'")
        tile_light = tile.get("light")
        if not isinstance(tile_light, bool):
            raise InputError(f"{where}: field 'light' must be true or false")
        light[index] = tile_light
        sides = tile.get("sides")
        if not isinstance(sides, list) or len(sides) != 4:
            raise InputError(f"{where}: field 'sides' must list 4 colours (N, E, S, W)")
        for s, colour in enumerate(sides):
            if colour not in COLOUR_CODES:
                raise InputError(
                    f"{where}: side {SIDE_NAMES[s]} has colour {colour!r}, "
                    f"not one of {', '.join(COLOUR_NAMES)}"
                )
            side_colour[index, s] = COLOUR_CODES[colour]
        areas = tile.get("areas")
        if not isinstance(areas, list) or not areas:
            raise InputError(f"{where}: field 'areas' must be a non-empty list of side lists")
        for a, area in enumerate(areas):
            if not isinstance(area, list) or not area:
                raise InputError(f"{where}: area {a} must be a non-empty list of side indices")
            for s in area:
                if not isinstance(s, int) or isinstance(s, bool) or not 0 <= s <= 3:
                    raise InputError(f"{where}: area {a} lists side {s!r}, not an index 0..3")
                if side_area[index, s] != -1:
                    raise InputError(f"{where}: side {SIDE_NAMES[s]} is in two areas")
                side_area[index, s] = a
            colours = {sides[s] for s in area}
            if len(colours) > 1:
                raise InputError(
                    f"{where}: area {a} mixes colours {', '.join(sorted(colours))}"
                )
            area_colour[index, a] = COLOUR_CODES[sides[area[0]]]
        for s in range(4):
            if side_area[index, s] == -1:
                raise InputError(f"{where}: side {SIDE_NAMES[s]} is in no area")
        area_count[index] = len(areas)
    return TileSet(
        path=source,
        light=light,
        side_colour=side_colour,
        side_area=side_area,
        area_count=area_count,
        area_colour=area_colour,
    )
