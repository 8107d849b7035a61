"""Names and SVG drawings of Harmonies boards, animal cards and nature spirits.

Animal cards are named by their animal (``Card.name``). Nature spirits carry a name only when
the data gives one; otherwise (the shipped ``spirits.toml``) a spirit is named by its end bonus,
"field groups 2/2/10" (what it counts, then the points by size or height), which tells the ten
apart. A name two cards would share gets " #id" on both (``card_names``).

The drawings are pure functions returning standalone SVG text: a ``viewBox`` and no pixel size
(they scale), a ``<title>``, deterministic output. A hex shows its stack as one bar per token,
bottom token lowest, each bar in its colour with the colour's letter of the text drawing
(``drawing.LETTERS``: b blue, s gray (stone), t brown (trunk), g green, y yellow, r red), so the
colours can be told apart without seeing them; an animal cube is a small black square.
"""

from __future__ import annotations

import math

from sim.games.harmonies.colours import (
    BUILDING_REQUIREMENT,
    COLOUR_NAMES,
    RED,
    stack_from_code,
)
from sim.games.harmonies.data import Card, GameData
from sim.games.harmonies.drawing import LETTERS
from sim.games.harmonies.position import Board
from sim.games.svg import document as _document
from sim.games.svg import number as _n
from sim.games.svg import text_element as _text
from sim.games.svg import text_width as _text_width
from sim.games.svg import unique_names

# The tokens' own colours, picked from the Okabe-Ito set where one fits (blue, bluish green,
# yellow, vermillion) so they stay apart under the common colour-vision deficiencies; the
# letters on the tokens carry the colour too.
PALETTE = {"blue": "#0072B2", "gray": "#A0A0A0", "brown": "#8C5A2B", "green": "#009E73",
           "yellow": "#F0E442", "red": "#D55E00"}
TOKEN_FILLS = tuple(PALETTE[name] for name in COLOUR_NAMES)
# Letters drawn white on the dark tokens, black on the light ones.
DARK_TOKENS = frozenset({"blue", "brown", "green", "red"})
OUTLINE = "#333333"
EMPTY_HEX = "#F3EFE4"
HEADING_FONT, DETAIL_FONT = 14.0, 11.0
HEX = 34.0  # a board hex's circumradius, in user units
SQRT3 = math.sqrt(3.0)
# What a spirit's bonus counts (``Card.bonus_kind``), in words, and what sets the points.
BONUS_WORDS = {"field_groups": ("field group", "size"), "water_groups": ("water group", "size"),
               "building_groups": ("building group", "size"), "trees": ("tree", "height"),
               "mountains": ("mountain", "height"), "blue_tokens": ("blue token", "")}
HEIGHT_MAX = 3  # trees and mountains are at most three tokens high


# --------------------------------------------------------------------------- names


def spirit_bonus_name(card: Card) -> str:
    """A spirit named by its bonus: what it counts (plural) and the points, e.g. "trees
    0/4/4"."""
    noun, _ = BONUS_WORDS.get(card.bonus_kind, (card.bonus_kind.replace("_", " "), ""))
    return f"{noun}s {'/'.join(str(p) for p in card.bonus_points)}"


def spirit_bonus_text(card: Card) -> str:
    """The spirit's bonus in words: "10 per field group of size 3+; 2 per field group of size
    1-2" (the points for each size or height, runs of equal points joined, nothing for 0)."""
    noun, measure = BONUS_WORDS.get(card.bonus_kind, (card.bonus_kind.replace("_", " "), ""))
    points = card.bonus_points
    if not measure or len(set(points)) == 1:
        return f"{points[0]} per {noun}" if points else "no bonus"
    runs: list[tuple[int, int, int]] = []  # (first, last, points), sizes from 1
    for size, value in enumerate(points, start=1):
        if runs and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], size, value)
        else:
            runs.append((size, size, value))
    parts = []
    for number, (first, last, value) in enumerate(runs):
        if value == 0:
            continue
        open_ended = number == len(runs) - 1 and not (measure == "height" and last >= HEIGHT_MAX)
        if open_ended:
            span = f"{first}+"
        else:
            span = str(first) if first == last else f"{first}-{last}"
        parts.append(f"{value} per {noun} of {measure} {span}")
    return "; ".join(parts) or "no bonus"


def card_names(cards: tuple[Card, ...]) -> dict[int, str]:
    """Card id -> name: the data's name, or for a spirit without one its bonus name; unique
    among ``cards`` (a shared name gets " #id")."""
    names = {}
    for card in cards:
        default = card.is_spirit and card.name == f"nature spirit {card.id}"
        names[card.id] = spirit_bonus_name(card) if default else card.name
    return unique_names(names)


# --------------------------------------------------------------------------- SVG pieces








def _wrap(text: str, separator: str, width: float, size: float) -> list[str]:
    """``text`` in lines no wider than ``width`` (as estimated), broken after ``separator``."""
    lines: list[str] = []
    for part in text.split(separator):
        candidate = f"{lines[-1]}{separator}{part}" if lines else part
        if lines and _text_width(candidate, size) <= width:
            lines[-1] = candidate
        else:
            lines.append(part)
    return [line + separator.rstrip() if k < len(lines) - 1 else line
            for k, line in enumerate(lines)]




def hex_centre(q: int, r: int, radius: float) -> tuple[float, float]:
    """Centre of flat-top hex (q, r) in axial coordinates (q to the south-east, r south)."""
    return 1.5 * radius * q, SQRT3 * radius * (r + q / 2)


def _hexagon(cx: float, cy: float, radius: float) -> str:
    corners = ((cx + radius * math.cos(math.pi / 3 * k), cy + radius * math.sin(math.pi / 3 * k))
               for k in range(6))
    return " ".join(f"{_n(x)},{_n(y)}" for x, y in corners)


def _token(cx: float, cy: float, radius: float, colour: int | None, level: int,
           height: int) -> list[str]:
    """Token ``level`` (0 = bottom) of a stack ``height`` high, centred on (cx, cy); ``colour``
    None draws the "any base" of a building requirement (hatched grey, letter "?")."""
    bar_width, bar_height = radius * 1.15, radius * 0.36
    top = cy + bar_height * height / 2 - bar_height * (level + 1)
    if colour is None:
        fill, letter, ink, name = "#DDDDDD", "?", "#111111", "any"
    else:
        name = COLOUR_NAMES[colour]
        fill, letter = TOKEN_FILLS[colour], LETTERS[colour]
        ink = "#ffffff" if name in DARK_TOKENS else "#111111"
    font = max(9.0, bar_height * 0.82)
    return [f'<rect class="token" data-colour="{name}" data-level="{level}" '
            f'x="{_n(cx - bar_width / 2)}" y="{_n(top)}" width="{_n(bar_width)}" '
            f'height="{_n(bar_height)}" rx="{_n(bar_height * 0.25)}" fill="{fill}" '
            f'stroke="{OUTLINE}" stroke-width="{_n(radius * 0.03)}"/>',
            _text(cx, top + bar_height / 2 + font * 0.36, letter, font, weight="bold", fill=ink)]


def _stack(cx: float, cy: float, radius: float, colours: list[int | None]) -> list[str]:
    parts = []
    for level, colour in enumerate(colours):
        parts.extend(_token(cx, cy, radius, colour, level, len(colours)))
    return parts


def _cube(cx: float, cy: float, radius: float) -> str:
    """An animal cube at the hex's right, beside its stack."""
    side = radius * 0.24
    x, y = cx + radius * 0.6, cy - side / 2
    return (f'<rect class="cube" x="{_n(x)}" y="{_n(y)}" width="{_n(side)}" height="{_n(side)}" '
            f'fill="#111111" stroke="#ffffff" stroke-width="{_n(radius * 0.05)}"/>')


def _requirement_colours(requirement: int) -> list[int | None]:
    """The tokens a habitat cell asks for, bottom to top; a building is "any base" then red."""
    if requirement == BUILDING_REQUIREMENT:
        return [None, RED]
    return list(stack_from_code(requirement))


def _legend(x: float, y: float) -> list[str]:
    """The token colours in two rows of three, each a token with its letter and name, then
    the cube; (x, y) is the top left."""
    parts = []
    for colour, name in enumerate(COLOUR_NAMES):
        left = x + (colour % 3) * LEGEND_COLUMN
        middle = y + 10 + (colour // 3) * 20
        parts.extend(_token(left + 16, middle, 28, colour, 0, 1))
        parts.append(_text(left + 36, middle + 4, name, DETAIL_FONT, anchor="start",
                           fill="#333333"))
    middle = y + 50
    parts.append(_cube(x + 16 - 28 * 0.6 - 28 * 0.14, middle, 28))
    parts.append(_text(x + 36, middle + 4, "animal cube; tokens bottom to top", DETAIL_FONT,
                       anchor="start", fill="#333333"))
    return parts


LEGEND_COLUMN = 92.0
LEGEND_WIDTH = 3 * LEGEND_COLUMN
LEGEND_HEIGHT = 62.0
CARD_TEXT_WIDTH = 240.0  # a card's text wraps to this width (or the habitat's, if wider)
# A card or spirit is at most about 320 units wide, so that a phone page (about 330 px of
# text width) shows it at full size: its 9-unit text stays 9 px.
MAX_HABITAT_WIDTH = 290.0


# --------------------------------------------------------------------------- documents


def board_svg(board: Board, data: GameData, heading: str = "",
              detail: str = "") -> str:
    """A personal board: every hex of its side with its stack (one bar per token, bottom
    lowest) and its cube, under a heading (e.g. "Seat 1 (expert): 65 points") and a detail line
    (e.g. the points by category), with a colour legend below."""
    hexes = [(int(q), int(r)) for q, r in data.sides[board.side].hexes]
    centres = {position: hex_centre(*position, HEX) for position in hexes}
    xs = [x for x, _ in centres.values()]
    ys = [y for _, y in centres.values()]
    grid_width = max(xs) - min(xs) + 2 * HEX
    grid_height = max(ys) - min(ys) + SQRT3 * HEX
    margin = 10.0
    inner = max(grid_width, LEGEND_WIDTH)
    # The detail wraps to the board's width (at its commas) rather than widening the drawing.
    details = _wrap(detail, ", ", inner, DETAIL_FONT) if detail else []
    width = max(inner, _text_width(heading, HEADING_FONT)) + 2 * margin
    body = []
    y = margin
    if heading:
        y += 18
        body.append(_text(width / 2, y, heading, HEADING_FONT, weight="bold"))
    for line in details:
        y += 15
        body.append(_text(width / 2, y, line, DETAIL_FONT, fill="#333333"))
    top = y + 8
    dx = (width - grid_width) / 2 - min(xs) + HEX
    dy = top - min(ys) + SQRT3 * HEX / 2
    # Every hex first, then what stands on them, so no hex covers a neighbour's cube.
    for position in sorted(hexes):
        cx, cy = centres[position][0] + dx, centres[position][1] + dy
        body.append(f'<polygon class="hex" data-q="{position[0]}" data-r="{position[1]}" '
                    f'points="{_hexagon(cx, cy, HEX * 0.97)}" fill="{EMPTY_HEX}" '
                    f'stroke="#8A8577" stroke-width="1.2"/>')
    for position in sorted(hexes):
        cx, cy = centres[position][0] + dx, centres[position][1] + dy
        body.extend(_stack(cx, cy, HEX, list(board.stacks.get(position, ()))))
        if position in board.cubes:
            body.append(_cube(cx, cy, HEX))
    legend_y = top + grid_height + 8
    body.extend(_legend((width - LEGEND_WIDTH) / 2, legend_y))
    tokens = sum(len(stack) for stack in board.stacks.values())
    title = (f"Harmonies board, side {board.side}"
             + (f": {heading}" if heading else "")
             + (f" ({detail})" if detail else "")
             + f"; {tokens} tokens, {len(board.cubes)} cubes")
    return _document(width, legend_y + LEGEND_HEIGHT, title, body)


def _habitat(card: Card, left: float, top: float, radius: float) -> tuple[list[str], float, float]:
    """The card's habitat as small hexes (the cube's hex marked with a cube), its top-left at
    (left, top); returns the parts, the width and the height used."""
    centres = [hex_centre(cell.dq, cell.dr, radius) for cell in card.habitat]
    xs = [x for x, _ in centres]
    ys = [y for _, y in centres]
    dx = left - min(xs) + radius
    dy = top - min(ys) + SQRT3 * radius / 2
    parts = []
    for cell, (x, y) in zip(card.habitat, centres, strict=True):
        cx, cy = x + dx, y + dy
        parts.append(f'<polygon class="hex" data-q="{cell.dq}" data-r="{cell.dr}" '
                     f'points="{_hexagon(cx, cy, radius * 0.97)}" fill="{EMPTY_HEX}" '
                     f'stroke="#8A8577" stroke-width="1.2"/>')
        parts.extend(_stack(cx, cy, radius, _requirement_colours(cell.requirement)))
        if (cell.dq, cell.dr) == (0, 0):
            parts.append(_cube(cx, cy, radius))
    return parts, max(xs) - min(xs) + 2 * radius, max(ys) - min(ys) + SQRT3 * radius


def card_svg(card: Card, name: str = "") -> str:
    """An animal card (its name, habitat and points track) or a nature spirit (its name,
    habitat and end bonus). The habitat may be turned any way on the board, never mirrored;
    the cube goes on the hex marked with one."""
    name = name or card.name
    kind = "nature spirit" if card.is_spirit else "animal card"
    heading = f"{kind} {card.id}: {name}"
    if card.is_spirit:
        footer = [f"bonus: {spirit_bonus_text(card)}"]
    else:
        footer = ["points by cubes placed: " + ", ".join(
            f"{cubes}: {points}" for cubes, points in enumerate(card.points, start=1))]
    footer.append("the habitat: the cube goes on the marked hex; turn it any way")
    if any(cell.requirement == BUILDING_REQUIREMENT for cell in card.habitat):
        footer.append("r on ?: a building; ? is one brown, gray or red")
    radius = 30.0
    _, habitat_width, habitat_height = _habitat(card, 0, 0, radius)
    if habitat_width > MAX_HABITAT_WIDTH:  # a wide habitat is drawn smaller, not the page wider
        radius *= MAX_HABITAT_WIDTH / habitat_width
        _, habitat_width, habitat_height = _habitat(card, 0, 0, radius)
    margin = 12.0
    sentences = list(footer)
    inner = max(habitat_width, CARD_TEXT_WIDTH)
    # Wrapped between words, so that a card stays narrow enough to be shown
    # at full size on a phone (text no smaller than the drawing says).
    footer = [line for text in footer
              for line in _wrap(text, " ", max(inner, MAX_HABITAT_WIDTH), DETAIL_FONT)]
    heading_lines = _wrap(heading, ": ", max(inner, MAX_HABITAT_WIDTH), HEADING_FONT)
    width = max(inner, *(_text_width(line, HEADING_FONT) for line in heading_lines),
                *(_text_width(line, DETAIL_FONT) for line in footer)) + 2 * margin
    top = margin + 6 + 18 * len(heading_lines)
    parts, _, _ = _habitat(card, (width - habitat_width) / 2, top, radius)
    body = [*(_text(width / 2, margin + 14 + 18 * row, line, HEADING_FONT, weight="bold")
              for row, line in enumerate(heading_lines)), *parts]
    y = top + habitat_height + 10
    if not card.is_spirit:
        # The track as boxes, bottom of the card's track on the left.
        box = 30.0
        track_left = (width - box * len(card.points)) / 2
        for step, points in enumerate(card.points):
            x = track_left + step * box
            body.append(f'<rect class="track" x="{_n(x)}" y="{_n(y)}" width="{_n(box - 3)}" '
                        f'height="{_n(box - 3)}" rx="4" fill="#FFF8D6" stroke="{OUTLINE}" '
                        f'stroke-width="1"/>')
            body.append(_text(x + (box - 3) / 2, y + box / 2 + 3, str(points), 12,
                              weight="bold"))
        y += box + 4
    for line in footer:
        y += 15
        body.append(_text(width / 2, y, line, DETAIL_FONT, fill="#333333"))
    title = f"Harmonies {heading}; {'; '.join(sentences)}"
    return _document(width, y + margin, title, body)
