"""Names and SVG drawings of Legendary Forests tiles and planets, for reports and ``sim play``.

The printed tiles carry only a number, so each tile is named from its areas (``tile_names``):
"grass meadow", "pink forest" (one area), "grass strip / pink" (a strip along one side cut off
the rest), "pink / red diagonal" (two corner halves), "grass band / pink, pink" (a band between
two opposite sides with an area on each side of it), "grass corner / red, yellow" (two adjacent
sides joined, the other two apart), "four areas p/r/y/p" (every side its own area, the first
letters of its colours clockwise from north, g for grass); "(light)" marks a tile on a light
background. A name that two tiles of the set would share gets " #n" (the tile number) on both,
so names are unique per tile set.

The drawings are pure functions returning standalone SVG text: a ``viewBox`` and no pixel size
(they scale), a ``<title>``, text of at least 11 user units where a report shows one drawing at
or above its natural size, deterministic (byte-identical for the same input). Every area is one
polygon of its colour outlined in dark grey, so two areas of the same colour stay apart; a leaf
side shows its half-rune as a small white half-disc; a tile's number sits on a white label on a
light tile and a black label on a dark one, as printed.
"""

from __future__ import annotations

from collections import Counter

from sim.games.legendary_forests.data import COLOUR_NAMES, GRASS, SIDE_NAMES, TileSet
from sim.games.legendary_forests.position import Planet, score_planet
from sim.games.svg import document as _document
from sim.games.svg import number as _n
from sim.games.svg import text_element as _text
from sim.games.svg import text_width as _text_width
from sim.games.svg import unique_names

# Okabe-Ito colours (distinguishable under the common colour-vision deficiencies), by colour
# code: grass (bluish green), pink (reddish purple), red (vermillion), yellow.
PALETTE = {"grass": "#009E73", "pink": "#CC79A7", "red": "#D55E00", "yellow": "#F0E442"}
COLOUR_FILLS = tuple(PALETTE[name] for name in COLOUR_NAMES)
OUTLINE = "#333333"
TILE = 64  # the side of a tile on a planet, in user units
STRIP = 0.3  # depth of a strip along one side, as a share of the tile's side
BAND = 0.36  # width of a band between two opposite sides, as a share of the tile's side


# --------------------------------------------------------------------------- names


def _area_sides(tileset: TileSet, index: int) -> list[list[int]]:
    """The sides (0=N .. 3=W) of each area of tile ``index``, in area order."""
    areas: list[list[int]] = [[] for _ in range(int(tileset.area_count[index]))]
    for side in range(4):
        areas[int(tileset.side_area[index, side])].append(side)
    return areas


def _colour(tileset: TileSet, index: int, side: int) -> str:
    return COLOUR_NAMES[int(tileset.side_colour[index, side])]


def _shape_name(tileset: TileSet, index: int) -> str:
    """The tile's name from its areas, before the light mark and any number to tell it apart."""
    areas = _area_sides(tileset, index)
    sizes = sorted((len(sides) for sides in areas), reverse=True)

    def colour_of(sides: list[int]) -> str:
        return _colour(tileset, index, sides[0])

    def others(excluded: list[int]) -> str:
        # The areas besides ``excluded``, in colour-code order so a turned tile reads the same.
        rest = [colour_of(s) for s in areas if s is not excluded]
        return ", ".join(sorted(rest, key=COLOUR_NAMES.index))

    if sizes == [4]:
        name = colour_of(areas[0])
        return f"{name} meadow" if name == "grass" else f"{name} forest"
    if sizes == [3, 1]:
        strip = next(s for s in areas if len(s) == 1)
        rest = next(s for s in areas if len(s) == 3)
        return f"{colour_of(strip)} strip / {colour_of(rest)}"
    if sizes == [2, 2]:
        first, second = sorted((colour_of(s) for s in areas), key=COLOUR_NAMES.index)
        joined = "crossing" if abs(areas[0][1] - areas[0][0]) == 2 else "diagonal"
        return f"{first} / {second} {joined}"
    if sizes == [2, 1, 1]:
        pair = next(s for s in areas if len(s) == 2)
        shape = "band" if abs(pair[1] - pair[0]) == 2 else "corner"
        return f"{colour_of(pair)} {shape} / {others(pair)}"
    letters = "/".join(_colour(tileset, index, s)[0] for s in range(4))
    return f"four areas {letters}"


def tile_names(tileset: TileSet) -> dict[int, str]:
    """Tile number -> a short name from its areas (see the module docstring), unique within
    the set and the same on every call for the same tile set."""
    names = {}
    for index in range(tileset.size):
        name = _shape_name(tileset, index)
        if tileset.light[index]:
            name += " (light)"
        names[index + 1] = name
    return unique_names(names)


# --------------------------------------------------------------------------- SVG pieces




def _points(points: list[tuple[float, float]]) -> str:
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in points)








def _corner(size: float, k: int) -> tuple[float, float]:
    """Corner k of a tile of side ``size`` at the origin: 0 NW, 1 NE, 2 SE, 3 SW (corner k
    ends side k - 1 and starts side k when going clockwise; side s runs corner s to s + 1)."""
    return ((0.0, 0.0), (size, 0.0), (size, size), (0.0, size))[k % 4]


def _strip(size: float, side: int, depth: float) -> list[tuple[float, float]]:
    """The rectangle of depth ``depth`` along ``side`` (0=N .. 3=W)."""
    d = depth
    return ([(0, 0), (size, 0), (size, d), (0, d)],
            [(size - d, 0), (size, 0), (size, size), (size - d, size)],
            [(0, size - d), (size, size - d), (size, size), (0, size)],
            [(0, 0), (d, 0), (d, size), (0, size)])[side]


def area_polygons(tileset: TileSet, index: int,
                  size: float) -> list[tuple[int, list[tuple[float, float]]]]:
    """(colour code, polygon) of every area of tile ``index`` unturned, on a square of side
    ``size`` at the origin: one square, a strip and the rest, two corner halves, a band between
    two side areas, a corner half and two triangles, or four triangles (one per side)."""
    areas = _area_sides(tileset, index)
    centre = (size / 2, size / 2)

    def colour_of(sides: list[int]) -> int:
        return int(tileset.side_colour[index, sides[0]])

    def triangle(side: int) -> list[tuple[float, float]]:
        return [_corner(size, side), _corner(size, side + 1), centre]

    sizes = sorted(len(sides) for sides in areas)
    if sizes == [4]:
        return [(colour_of(areas[0]), _strip(size, 0, size))]
    if sizes == [1, 3]:
        strip = next(s for s in areas if len(s) == 1)
        rest = next(s for s in areas if len(s) == 3)
        opposite = (strip[0] + 2) % 4
        return [(colour_of(rest), _strip(size, opposite, size * (1 - STRIP))),
                (colour_of(strip), _strip(size, strip[0], size * STRIP))]
    pairs = [s for s in areas if len(s) == 2]
    if sizes == [1, 1, 2] and abs(pairs[0][1] - pairs[0][0]) == 2:
        # A band from side b to side b + 2; the two single sides are the strips either side.
        band = pairs[0]
        depth = size * (1 - BAND) / 2
        shapes = [(colour_of([s]), _strip(size, s, depth)) for s in range(4) if s not in band]
        low, high = depth, size - depth
        if band[0] % 2 == 0:  # north to south: a column
            box = [(low, 0.0), (high, 0.0), (high, size), (low, size)]
        else:  # east to west: a row
            box = [(0.0, low), (size, low), (size, high), (0.0, high)]
        return [(colour_of(band), box), *shapes]
    polygons = []
    for sides in areas:
        if len(sides) == 2 and (sides[1] - sides[0]) % 4 in (1, 3):
            # Two adjacent sides: the half square they span (its diagonal passes the centre).
            first = sides[0] if (sides[1] - sides[0]) % 4 == 1 else sides[1]
            polygons.append((colour_of(sides), [_corner(size, first),
                                                _corner(size, first + 1),
                                                _corner(size, first + 2)]))
        else:
            # One side, or an area the shapes above do not cover: a triangle per side.
            polygons.extend((colour_of(sides), triangle(side)) for side in sides)
    return polygons


def _half_runes(tileset: TileSet, index: int, size: float) -> list[str]:
    """A white half-disc at the middle of every leaf side (its half-rune), unturned."""
    radius = size * 0.07
    marks = []
    for side in range(4):
        if int(tileset.side_colour[index, side]) == GRASS:
            continue
        start, end = _corner(size, side), _corner(size, side + 1)
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        # The arc bulges into the tile: from one end of the diameter along the side to the other.
        dx, dy = (end[0] - start[0]) / size * radius, (end[1] - start[1]) / size * radius
        marks.append(f'<path d="M {_n(mx - dx)} {_n(my - dy)} A {_n(radius)} {_n(radius)} 0 0 0 '
                     f'{_n(mx + dx)} {_n(my + dy)} Z" fill="#ffffff" stroke="{OUTLINE}" '
                     f'stroke-width="{_n(size * 0.015)}"/>')
    return marks


def _tile_group(tileset: TileSet, number: int, x: float, y: float, size: float,
                rotation: int) -> list[str]:
    """A tile's areas, half-runes and number label, its top-left corner at (x, y), turned
    ``rotation`` quarter turns clockwise (the label stays upright)."""
    index = number - 1
    stroke = _n(size * 0.02)
    centre = size / 2
    parts = [f'<g class="tile" data-tile="{number}" data-rotation="{rotation}" '
             f'transform="translate({_n(x)} {_n(y)}) rotate({90 * rotation} {_n(centre)} '
             f'{_n(centre)})">']
    for colour, polygon in area_polygons(tileset, index, size):
        parts.append(f'<polygon class="area" data-colour="{COLOUR_NAMES[colour]}" '
                     f'points="{_points(polygon)}" fill="{COLOUR_FILLS[colour]}" '
                     f'stroke="{OUTLINE}" stroke-width="{stroke}" stroke-linejoin="round"/>')
    parts.extend(_half_runes(tileset, index, size))
    parts.append("</g>")
    light = bool(tileset.light[index])
    label = size * 0.34
    font = max(11.0, size * 0.2)
    parts.append(f'<rect x="{_n(x + centre - label / 2)}" y="{_n(y + centre - label * 0.4)}" '
                 f'width="{_n(label)}" height="{_n(label * 0.8)}" rx="{_n(label * 0.15)}" '
                 f'fill="{"#ffffff" if light else "#111111"}" stroke="{OUTLINE}" '
                 f'stroke-width="{_n(size * 0.01)}"/>')
    parts.append(_text(x + centre, y + centre + font * 0.36, str(number), font, weight="bold",
                       fill="#111111" if light else "#ffffff"))
    return parts


def _tree(cx: float, cy: float, size: float, colour: int, kind: str = "tree") -> str:
    """A tree: a canopy triangle of its leaf colour with a dark outline and trunk (``kind``:
    its class, "tree" on a planet)."""
    half = size * 0.11
    canopy = [(cx, cy - half * 1.1), (cx + half, cy + half * 0.5), (cx - half, cy + half * 0.5)]
    trunk = (f'<rect x="{_n(cx - half * 0.25)}" y="{_n(cy + half * 0.5)}" '
             f'width="{_n(half * 0.5)}" height="{_n(half * 0.55)}" fill="{OUTLINE}"/>')
    return (f'<g class="{kind}" data-colour="{COLOUR_NAMES[colour]}">{trunk}'
            f'<polygon points="{_points(canopy)}" fill="{COLOUR_FILLS[colour]}" '
            f'stroke="#000000" stroke-width="{_n(size * 0.025)}" stroke-linejoin="round"/></g>')


# --------------------------------------------------------------------------- documents


def tile_svg(tileset: TileSet, number: int, names: dict[int, str] | None = None) -> str:
    """One tile, unturned (north up), with its number, its name and the colour of each side."""
    names = names if names is not None else tile_names(tileset)
    index = number - 1
    size = 120.0
    name = names[number]
    sides = ", ".join(f"{SIDE_NAMES[s]} {_colour(tileset, index, s)}" for s in range(4))
    width = max(size + 40, _text_width(name, 13) + 20, _text_width(sides, 11) + 20)
    left = (width - size) / 2
    top = 30.0
    body = [_text(width / 2, 20, f"tile {number}", 14, weight="bold"),
            *_tile_group(tileset, number, left, top, size, 0),
            _text(width / 2, top + size + 20, name, 13),
            _text(width / 2, top + size + 38, sides, 11, fill="#444444")]
    light = "light" if tileset.light[index] else "dark"
    return _document(width, top + size + 48,
                     f"Legendary Forests tile {number} ({light}): {name}; sides {sides}", body)


def planet_svg(planet: Planet, tileset: TileSet, heading: str = "") -> str:
    """A planet: every placed tile turned as placed (north up), the trees on it, and a heading
    (e.g. "Seat 1 (expert): 42 points"; by default the planet's score)."""
    score = score_planet(planet, tileset).total
    heading = heading or f"{score} points"
    if not planet.tiles:
        return _document(200, 40, f"Legendary Forests planet: {heading}",
                         [_text(100, 24, heading, 13, weight="bold")])
    xs = [t.x for t in planet.tiles]
    ys = [t.y for t in planet.tiles]
    min_x, min_y = min(xs), min(ys)
    grid_width = (max(xs) - min_x + 1) * TILE
    grid_height = (max(ys) - min_y + 1) * TILE
    margin, top = 8.0, 30.0
    width = max(grid_width, LEGEND_WIDTH, _text_width(heading, 14)) + 2 * margin
    left = (width - grid_width) / 2
    body = [_text(width / 2, 20, heading, 14, weight="bold")]
    for tile in sorted(planet.tiles, key=lambda t: (t.y, t.x)):
        body.extend(_tile_group(tileset, tile.number, left + (tile.x - min_x) * TILE,
                                top + (tile.y - min_y) * TILE, TILE, tile.rotation))
    # A tree stands in its area, a third of a tile in from the middle of the board side it
    # names: inside a side's triangle, strip or band, clear of the number label; a second tree
    # in the same place goes beside the first.
    inside = TILE * 0.33
    offsets = ((0, -1), (1, 0), (0, 1), (-1, 0))
    seen: Counter = Counter()
    for tree in planet.trees:
        key = (tree.x, tree.y, tree.side)
        shift = seen[key] * TILE * 0.2 * (-1) ** seen[key]
        seen[key] += 1
        dx, dy = offsets[tree.side]
        cx = left + (tree.x - min_x) * TILE + TILE / 2 + dx * inside + shift * abs(dy)
        cy = top + (tree.y - min_y) * TILE + TILE / 2 + dy * inside + shift * abs(dx)
        body.append(_tree(cx, cy, TILE, tree.colour))
    legend_top = top + grid_height + 10
    body.extend(_legend((width - LEGEND_WIDTH) / 2, legend_top))
    trees = Counter(COLOUR_NAMES[t.colour] for t in planet.trees)
    tree_text = ", ".join(f"{trees[c]} {c}" for c in COLOUR_NAMES[1:] if trees[c]) or "none"
    title = (f"Legendary Forests planet: {heading}; {len(planet.tiles)} tiles, trees: "
             f"{tree_text}")
    return _document(width, legend_top + LEGEND_HEIGHT, title, body)


def _legend(x: float, y: float) -> list[str]:
    """The four colours as swatches with their names, then what the marks mean; (x, y) is the
    top left."""
    parts = []
    for colour, name in enumerate(COLOUR_NAMES):
        left = x + colour * LEGEND_COLUMN
        parts.append(f'<rect x="{_n(left)}" y="{_n(y)}" width="14" height="14" '
                     f'fill="{COLOUR_FILLS[colour]}" stroke="{OUTLINE}" stroke-width="1"/>')
        parts.append(_text(left + 18, y + 11.5, name, 11, anchor="start", fill="#333333"))
    parts.append(_tree(x + 7, y + 30, TILE, 1, "legend"))
    parts.append(_text(x + 18, y + 34, "tree; white number: light tile; o half-rune", 11,
                       anchor="start", fill="#333333"))
    return parts


LEGEND_COLUMN = 64.0
LEGEND_WIDTH = 4 * LEGEND_COLUMN
LEGEND_HEIGHT = 44.0
