"""Text drawings of a Harmonies board: the hex grid with every stack and cube.

Flat-top hexes in axial (q, r): column q is drawn at x = 7q, and a hex sits on text line
2r + q, so neighbouring columns interleave by half a hex. A hex is ``[ttg*]``: its tokens bottom
to top, one letter each (:data:`LETTERS`), then ``*`` when a cube stands on it; an empty hex is
``[    ]``.
"""

from __future__ import annotations

from sim.games.harmonies.colours import BLUE, BROWN, GRAY, GREEN, RED, YELLOW
from sim.games.harmonies.data import GameData
from sim.games.harmonies.position import Board

LETTERS = {BLUE: "b", GRAY: "s", BROWN: "t", GREEN: "g", YELLOW: "y", RED: "r"}
LEGEND = ("b blue, s gray (stone), t brown (trunk), g green, y yellow, r red; "
          "bottom to top; * cube")
COLUMN_WIDTH = 7


def hex_label(stack: tuple[int, ...], cube: bool) -> str:
    """The 6-character drawing of one hex."""
    letters = "".join(LETTERS[c] for c in stack)
    return f"[{letters:<3}{'*' if cube else ' '}]"


def draw_board(board: Board, data: GameData) -> str:
    """The board as text lines (hex grid, then the legend)."""
    hexes = [(int(q), int(r)) for q, r in data.sides[board.side].hexes]
    lines_of = {position: 2 * position[1] + position[0] for position in hexes}
    top = min(lines_of.values())
    first_column = min(q for q, _ in hexes)
    height = max(lines_of.values()) - top + 1
    width = (max(q for q, _ in hexes) - first_column) * COLUMN_WIDTH + 6
    canvas = [[" "] * width for _ in range(height)]
    for position in hexes:
        label = hex_label(board.stacks.get(position, ()), position in board.cubes)
        x = (position[0] - first_column) * COLUMN_WIDTH
        canvas[lines_of[position] - top][x:x + len(label)] = label
    rows = ["".join(row).rstrip() for row in canvas]
    return "\n".join([*rows, LEGEND])
