"""The Board JSON format of RULES.md, and a from-scratch reference scorer.

A board file holds one personal board: its side, its stacks (colours bottom to top), its cubes
and its cards (id and cubes placed). :func:`load_board` validates it with one-line InputErrors;
:func:`score_board` scores it in plain Python, written straight from the rules text and sharing
no scoring code with the compiled engine, so property tests can check one against the other.
:func:`board_from_state` exports a player's board from a game state, and
:func:`score_board_compiled` scores a board with the compiled engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sim.errors import InputError
from sim.files import read_user_json
from sim.games.harmonies.colours import (
    BLUE,
    BUILDING_BASE_COLOURS,
    COLOUR_CODES,
    COLOUR_NAMES,
    GRAY,
    GREEN,
    RED,
    YELLOW,
    stack_name,
)
from sim.games.harmonies.data import AXIAL_DIRECTIONS, Card, GameData
from sim.games.harmonies.options import HarmoniesRules, resolve_mountain_points
from sim.games.harmonies.stacking import is_legal_stack

Position = tuple[int, int]


@dataclass
class Board:
    """One personal board: ``stacks`` maps (q, r) to colour codes bottom to top (hexes not
    listed are empty), ``cubes`` the hexes holding a cube, ``cards`` (id, cubes placed).
    ``mountain_points``: the mountain table the board was played with when it is not the data's
    default (an optional field beyond RULES.md, so a board from a game with the seed-text table
    scores as it did in the game)."""

    side: str
    stacks: dict[Position, tuple[int, ...]] = field(default_factory=dict)
    cubes: set[Position] = field(default_factory=set)
    cards: list[tuple[int, int]] = field(default_factory=list)
    mountain_points: tuple[int, int, int] | None = None

    def to_json(self) -> dict:
        """The board as a JSON document of the RULES.md format."""
        document = {
            "game": "harmonies",
            "side": self.side,
            "cells": [
                {"q": q, "r": r, "stack": [COLOUR_NAMES[c] for c in stack]}
                for (q, r), stack in sorted(self.stacks.items())
                if stack
            ],
            "cubes": [{"q": q, "r": r} for q, r in sorted(self.cubes)],
            "cards": [{"id": card_id, "placed": placed} for card_id, placed in self.cards],
        }
        if self.mountain_points is not None:
            document["mountain_points"] = list(self.mountain_points)
        return document


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _position(entry: dict, where: str, shape: set[Position], side: str) -> Position:
    q, r = entry.get("q"), entry.get("r")
    if not _is_int(q) or not _is_int(r):
        raise InputError(f"{where}: fields 'q' and 'r' must be integers")
    if (q, r) not in shape:
        raise InputError(f"{where}: ({q}, {r}) is not a hex of side {side}")
    return q, r


def parse_board(document: object, source: str, data: GameData) -> Board:
    """Validate a parsed board document (see :func:`load_board`)."""
    if not isinstance(document, dict):
        raise InputError(f"{source}: expected a JSON object")
    unknown = set(document) - {"game", "side", "cells", "cubes", "cards", "mountain_points"}
    if unknown:
        raise InputError(f"{source}: unknown field '{sorted(unknown)[0]}'")
    if document.get("game") != "harmonies":
        raise InputError(f"{source}: field 'game' must be \"harmonies\"")
    side = document.get("side")
    if side not in data.sides:
        raise InputError(f"{source}: field 'side' must be \"A\" or \"B\"")
    shape = {(int(q), int(r)) for q, r in data.sides[side].hexes}
    board = Board(side=side)
    if "mountain_points" in document:
        table = document["mountain_points"]
        if not isinstance(table, list) or len(table) != 3 or not all(
                _is_int(v) and v >= 0 for v in table):
            raise InputError(f"{source}: field 'mountain_points' must list 3 integers >= 0 "
                             f"(points of a mountain of height 1, 2, 3)")
        board.mountain_points = tuple(table)

    cells = document.get("cells", [])
    if not isinstance(cells, list):
        raise InputError(f"{source}: field 'cells' must be a list")
    for position, cell in enumerate(cells):
        where = f"{source}: cells #{position + 1}"
        if not isinstance(cell, dict):
            raise InputError(f"{where}: expected {{q, r, stack}}")
        unknown_fields = sorted(set(cell) - {"q", "r", "stack"})
        if unknown_fields:
            raise InputError(f"{where}: unknown field '{unknown_fields[0]}'")
        hex_position = _position(cell, where, shape, side)
        if hex_position in board.stacks:
            raise InputError(f"{where}: field 'q'/'r': hex {hex_position} is listed twice")
        stack = cell.get("stack")
        if not isinstance(stack, list):
            raise InputError(
                f"{where}: field 'stack' must list colours ({', '.join(COLOUR_NAMES)})"
            )
        for name in stack:
            if name not in COLOUR_CODES:
                raise InputError(f"{where}: field 'stack': unknown colour {name!r} (colours: "
                                 f"{', '.join(COLOUR_NAMES)})")
        colours = tuple(COLOUR_CODES[name] for name in stack)
        if not is_legal_stack(colours):
            raise InputError(f"{where}: field 'stack': {'+'.join(stack)} breaks the stacking "
                             f"rules")
        board.stacks[hex_position] = colours

    cubes = document.get("cubes", [])
    if not isinstance(cubes, list):
        raise InputError(f"{source}: field 'cubes' must be a list")
    for position, cube in enumerate(cubes):
        where = f"{source}: cubes #{position + 1}"
        if not isinstance(cube, dict) or set(cube) - {"q", "r"}:
            raise InputError(f"{where}: expected {{q, r}}")
        hex_position = _position(cube, where, shape, side)
        if hex_position in board.cubes:
            raise InputError(f"{where}: hex {hex_position} already holds a cube")
        if not board.stacks.get(hex_position):
            raise InputError(f"{where}: hex {hex_position} holds no token (a cube needs one)")
        board.cubes.add(hex_position)

    cards = document.get("cards", [])
    if not isinstance(cards, list):
        raise InputError(f"{source}: field 'cards' must be a list")
    known_cards = data.card_by_id()
    seen: set[int] = set()
    for position, entry in enumerate(cards):
        where = f"{source}: cards #{position + 1}"
        if not isinstance(entry, dict) or set(entry) - {"id", "placed"}:
            raise InputError(f"{where}: expected {{id, placed}}")
        card_id, placed = entry.get("id"), entry.get("placed", 0)
        if not _is_int(card_id) or card_id not in known_cards:
            raise InputError(f"{where}: field 'id': {card_id!r} is not a known card id")
        if card_id in seen:
            raise InputError(f"{where}: field 'id': card {card_id} is listed twice")
        seen.add(card_id)
        cube_count = known_cards[card_id].cube_count
        if not _is_int(placed) or not 0 <= placed <= cube_count:
            raise InputError(f"{where}: field 'placed': {placed!r} is not 0..{cube_count} "
                             f"(card {card_id} holds {cube_count} cubes)")
        board.cards.append((card_id, placed))
    placed_total = sum(placed for _, placed in board.cards)
    if placed_total != len(board.cubes):
        raise InputError(f"{source}: field 'cubes': {len(board.cubes)} cubes on the board but "
                         f"the cards say {placed_total} placed")
    return board


def load_board(path: str | Path, data: GameData) -> Board:
    """Load and validate a board JSON file; one-line InputError on any fault."""
    return parse_board(read_user_json(path, "board file"), str(path), data)


# --------------------------------------------------------------------------------------------
# Reference scorer, from the rules text.


def _neighbours(position: Position, shape: set[Position]) -> list[Position]:
    q, r = position
    return [(q + dq, r + dr) for dq, dr in AXIAL_DIRECTIONS if (q + dq, r + dr) in shape]


def _groups(members: set[Position], shape: set[Position]) -> list[set[Position]]:
    """Connected groups (by hex adjacency) of ``members``."""
    groups, left = [], set(members)
    while left:
        start = left.pop()
        group, frontier = {start}, [start]
        while frontier:
            for neighbour in _neighbours(frontier.pop(), shape):
                if neighbour in left:
                    left.remove(neighbour)
                    group.add(neighbour)
                    frontier.append(neighbour)
        groups.append(group)
    return groups


def _diameter_in_tokens(group: set[Position], shape: set[Position]) -> int:
    """Longest shortest path between two hexes of the group, counting both ends."""
    longest = 0
    for start in group:
        distance = {start: 0}
        frontier = [start]
        while frontier:
            following = []
            for current in frontier:
                for neighbour in _neighbours(current, shape):
                    if neighbour in group and neighbour not in distance:
                        distance[neighbour] = distance[current] + 1
                        following.append(neighbour)
            frontier = following
        longest = max(longest, max(distance.values()))
    return longest + 1


def _by_size(points: tuple[int, ...], size: int) -> int:
    return points[min(size, len(points)) - 1]


def _spirit_bonus(card: Card, tops: dict[Position, int], heights: dict[Position, int],
                  buildings: set[Position], shape: set[Position]) -> int:
    kind, points = card.bonus_kind, card.bonus_points
    if kind in ("field_groups", "water_groups"):
        colour = YELLOW if kind == "field_groups" else BLUE
        hexes = {p for p, top in tops.items() if top == colour}
        return sum(_by_size(points, len(g)) for g in _groups(hexes, shape))
    if kind == "building_groups":
        return sum(_by_size(points, len(g)) for g in _groups(buildings, shape))
    if kind in ("trees", "mountains"):
        colour = GREEN if kind == "trees" else GRAY
        return sum(_by_size(points, heights[p]) for p, top in tops.items() if top == colour)
    if kind == "blue_tokens":
        return points[0] * sum(1 for top in tops.values() if top == BLUE)
    raise ValueError(f"unknown bonus kind {kind}")


def score_board(board: Board, data: GameData, rules: HarmoniesRules | None = None) -> dict:
    """Score a board from scratch: points per category (trees, mountains, fields, buildings,
    water, animals, spirit) and ``total``. ``rules`` gives the mountain points option (default:
    the board's own ``mountain_points``, else the data's table; the board's own side decides
    river or islands)."""
    rules = rules or HarmoniesRules(side=board.side, mountain_points=board.mountain_points)
    scoring = data.scoring
    shape = {(int(q), int(r)) for q, r in data.sides[board.side].hexes}
    stacks = {p: s for p, s in board.stacks.items() if s}
    tops = {p: s[-1] for p, s in stacks.items()}
    heights = {p: len(s) for p, s in stacks.items()}

    trees = sum(scoring.tree_points[heights[p] - 1] for p, top in tops.items() if top == GREEN)

    mountain_table = resolve_mountain_points(rules, data)
    mountains = 0
    for p, top in tops.items():
        if top == GRAY and any(tops.get(n) == GRAY for n in _neighbours(p, shape)):
            mountains += mountain_table[heights[p] - 1]

    yellow = {p for p, top in tops.items() if top == YELLOW}
    fields = scoring.field_group_points * sum(
        1 for group in _groups(yellow, shape) if len(group) >= scoring.field_min_group
    )

    buildings_hexes = {
        p for p, s in stacks.items() if len(s) == 2 and s[1] == RED and s[0] in
        BUILDING_BASE_COLOURS
    }
    buildings = 0
    for p in buildings_hexes:
        around = {tops[n] for n in _neighbours(p, shape) if n in tops}
        if len(around) >= scoring.building_min_colours:
            buildings += scoring.building_points

    blue = {p for p, top in tops.items() if top == BLUE}
    if data.sides[board.side].water == "river":
        length = max((_diameter_in_tokens(g, shape) for g in _groups(blue, shape)), default=0)
        table = scoring.river_points
        if length == 0:
            water = 0
        elif length <= len(table):
            water = table[length - 1]
        else:
            water = table[-1] + scoring.river_points_per_extra_token * (length - len(table))
    else:
        water = scoring.island_points * len(_groups(shape - blue, shape))

    cards = data.card_by_id()
    animals = 0
    spirit = 0
    for card_id, placed in board.cards:
        card = cards[card_id]
        if placed == 0:
            continue
        if card.is_spirit:
            spirit += _spirit_bonus(card, tops, heights, buildings_hexes, shape)
        else:
            animals += card.points[placed - 1]

    result = {
        "trees": trees,
        "mountains": mountains,
        "fields": fields,
        "buildings": buildings,
        "water": water,
        "animals": animals,
        "spirit": spirit,
    }
    result["total"] = sum(result.values())
    return result


# --------------------------------------------------------------------------------------------
# Bridges to the compiled engine.


def board_from_state(public, tables, data: GameData, player: int, side: str) -> Board:
    """Export ``player``'s board from a game state (arrays of ``state.PublicState``)."""
    hexes = data.sides[side].hexes
    board = Board(side=side)
    for index in range(tables.hex_count):
        height = int(public.heights[player, index])
        position = (int(hexes[index, 0]), int(hexes[index, 1]))
        if height:
            board.stacks[position] = tuple(int(c) for c in public.stacks[player, index, :height])
        if public.cube_heights[player, index] > 0:
            board.cubes.add(position)
    for slot in range(int(public.held_count[player])):
        card = int(public.held_cards[player, slot])
        board.cards.append((int(tables.card_ids[card]), int(public.cubes_placed[player, slot])))
    return board


def public_state_from_board(board: Board, tables, data: GameData):
    """A ``state.PublicState`` whose seat 0 holds ``board`` (its stacks, cubes and cards), for
    calling compiled functions on a hand-built board; ``tables`` must be for the board's side."""
    from sim.games.harmonies.state import new_state

    public, _ = new_state(tables)
    hexes = data.sides[board.side].hexes
    if hexes.shape[0] != tables.hex_count:
        raise ValueError("public_state_from_board: tables were built for the other side")
    index_of = {(int(q), int(r)): i for i, (q, r) in enumerate(hexes)}
    for position, stack in board.stacks.items():
        index = index_of[position]
        public.heights[0, index] = len(stack)
        public.stacks[0, index, : len(stack)] = stack
    for position in board.cubes:
        public.cube_heights[0, index_of[position]] = len(board.stacks[position])
    card_index = {int(card_id): index for index, card_id in enumerate(tables.card_ids)}
    for slot, (card_id, placed) in enumerate(board.cards):
        public.held_cards[0, slot] = card_index[card_id]
        public.cubes_placed[0, slot] = placed
    public.held_count[0] = len(board.cards)
    return public


def score_board_compiled(board: Board, tables, data: GameData) -> dict:
    """Score a board with the compiled engine (``tables`` built for the board's side); same
    keys as :func:`score_board`."""
    from sim.games.harmonies.scoring import CATEGORY_NAMES, new_scratch, score_player

    public = public_state_from_board(board, tables, data)
    out = np.zeros(len(CATEGORY_NAMES), dtype=np.int32)
    total = score_player(tables, public, 0, new_scratch(tables.hex_count), out)
    result = {name: int(out[i]) for i, name in enumerate(CATEGORY_NAMES)}
    result["total"] = int(total)
    return result


def describe_board(board: Board) -> str:
    """A short human-readable listing of a board's stacks (for test failure messages)."""
    return ", ".join(f"{p}: {stack_name(s)}" for p, s in sorted(board.stacks.items()))
