"""ASCII drawings of Legendary Forests planets, for ``sim play`` and reports.

Each tile is a block of 3 lines x 5 characters::

     .P.       north side colour in the middle of the top line
    Y07^R      west side, tile number, ``^`` when a tree stands on the tile, east side
     .g.       south side

Side letters: P pink, R red, Y yellow, ``.`` grass. Empty cells are blank.
"""

from __future__ import annotations

from sim.games.legendary_forests.data import TileSet
from sim.games.legendary_forests.position import Planet

SIDE_LETTERS = (".", "P", "R", "Y")


def draw_planet(planet: Planet, tileset: TileSet) -> str:
    """The planet as text, one 3 x 5 block per cell, north up."""
    if not planet.tiles:
        return ""
    xs = [t.x for t in planet.tiles]
    ys = [t.y for t in planet.tiles]
    min_x, max_x, min_y, max_y = min(xs), max(xs), min(ys), max(ys)
    width = (max_x - min_x + 1) * 5
    lines = [[" "] * width for _ in range((max_y - min_y + 1) * 3)]
    treed = {(tree.x, tree.y) for tree in planet.trees}
    for tile in planet.tiles:
        index = tile.number - 1

        def letter(direction: int, index=index, rotation=tile.rotation) -> str:
            return SIDE_LETTERS[int(tileset.side_colour[index, (direction - rotation) % 4])]

        left = (tile.x - min_x) * 5
        top = (tile.y - min_y) * 3
        lines[top][left + 1:left + 4] = [" ", letter(0), " "]
        middle = f"{letter(3)}{tile.number:02d}{'^' if (tile.x, tile.y) in treed else ' '}"
        middle += letter(1)
        lines[top + 1][left:left + 5] = list(middle)
        lines[top + 2][left + 1:left + 4] = [" ", letter(2), " "]
    return "\n".join("".join(row).rstrip() for row in lines)
