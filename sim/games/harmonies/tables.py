"""The read-only tables that compiled code uses: game data and rules options turned into small
integer arrays, plus the board geometry worked out once (neighbours, and for every card, rotation
and cube hex, the hexes its habitat covers).

:func:`build_tables` is the only way to make an :class:`EngineTables`; it validates the rules
options first.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.data import AXIAL_DIRECTIONS, BONUS_KINDS, GameData
from sim.games.harmonies.options import HarmoniesRules, resolve_mountain_points, validate_rules

ROTATIONS = 6
MAX_TRACK = 8  # longest points track (and spirit bonus table) a card file may give
MAX_HABITAT_CELLS = 7

BONUS_FIELD_GROUPS, BONUS_WATER_GROUPS, BONUS_BUILDING_GROUPS = 0, 1, 2
BONUS_TREES, BONUS_MOUNTAINS, BONUS_BLUE_TOKENS = 3, 4, 5
NO_BONUS = -1
BONUS_CODES = {name: code for code, name in enumerate(BONUS_KINDS)}
assert BONUS_CODES["blue_tokens"] == BONUS_BLUE_TOKENS

EngineTables = namedtuple(
    "EngineTables",
    [
        # set-up
        "players",  # number of seats
        "central_spaces",  # spaces on the central board
        "tokens_per_space",
        "card_row",  # face-up cards
        "solo_rules",  # 1: solo end of turn
        "card_limit",  # uncompleted cards a player may hold before taking another
        "end_when_empty_hexes_at_most",
        "spirits_enabled",  # 1: nature spirit variant
        "water_is_river",  # 1: side A (best river), 0: side B (islands)
        "bag",  # int16[COLOUR_COUNT] tokens per colour at the start
        "bag_total",
        # board geometry
        "hex_count",
        "neighbours",  # int16[H, 6] neighbour hex index per direction, -1 off the board
        # cards: index 0..C-1 over animals then spirits
        "card_ids",  # int16[C]
        "card_is_spirit",  # int8[C]
        "card_cube_count",  # int8[C]
        "card_points",  # int16[C, MAX_TRACK] points with k cubes placed at [k - 1]
        "card_cell_count",  # int8[C] habitat cells, the cube's hex first
        "card_requirement",  # int16[C, MAX_HABITAT_CELLS] stack code or BUILDING_REQUIREMENT
        "card_cells",  # int16[C, 6, H, MAX_HABITAT_CELLS] hex per rotation, cube hex, cell
        "card_fits",  # int8[C, 6, H] 1 when every habitat cell lies on the board
        "bonus_kind",  # int8[C] spirit bonus code, NO_BONUS for animals
        "bonus_points",  # int16[C, MAX_TRACK]
        "bonus_points_count",  # int8[C]
        "animal_cards",  # int16[A] card indices of the animal deck
        "spirit_cards",  # int16[S] card indices of the spirit deck
        "max_cards_per_player",  # capacity of a player's card list
        # scoring
        "tree_points",  # int16[3]
        "mountain_points",  # int16[3]
        "field_group_points",
        "field_min_group",
        "building_points",
        "building_min_colours",
        "river_points",  # int16[n] river of length 1..n
        "river_points_per_extra_token",
        "island_points",
    ],
)


def rotate_clockwise(dq: int, dr: int, turns: int) -> tuple[int, int]:
    """An axial offset turned ``turns`` times 60 degrees clockwise (north goes to north-east)."""
    for _ in range(turns % ROTATIONS):
        dq, dr = -dr, dq + dr
    return dq, dr


def build_tables(data: GameData, rules: HarmoniesRules) -> EngineTables:
    """Validate ``rules`` against ``data`` and build the tables for compiled code."""
    validate_rules(rules, data)
    setup = data.player_counts[rules.players]
    shape = data.sides[rules.side]
    hexes = [tuple(int(v) for v in row) for row in shape.hexes]
    index_of = {position: index for index, position in enumerate(hexes)}
    hex_count = len(hexes)

    neighbours = np.full((hex_count, 6), -1, dtype=np.int16)
    for index, (q, r) in enumerate(hexes):
        for direction, (dq, dr) in enumerate(AXIAL_DIRECTIONS):
            neighbours[index, direction] = index_of.get((q + dq, r + dr), -1)

    cards = (*data.animals, *data.spirits)
    card_total = len(cards)
    card_ids = np.array([card.id for card in cards], dtype=np.int16)
    card_is_spirit = np.array([card.is_spirit for card in cards], dtype=np.int8)
    card_cube_count = np.array([card.cube_count for card in cards], dtype=np.int8)
    card_points = np.zeros((card_total, MAX_TRACK), dtype=np.int16)
    card_cell_count = np.zeros(card_total, dtype=np.int8)
    card_requirement = np.zeros((card_total, MAX_HABITAT_CELLS), dtype=np.int16)
    card_cells = np.full((card_total, ROTATIONS, hex_count, MAX_HABITAT_CELLS), -1, np.int16)
    card_fits = np.zeros((card_total, ROTATIONS, hex_count), dtype=np.int8)
    bonus_kind = np.full(card_total, -1, dtype=np.int8)
    bonus_points = np.zeros((card_total, MAX_TRACK), dtype=np.int16)
    bonus_points_count = np.zeros(card_total, dtype=np.int8)
    for card_index, card in enumerate(cards):
        card_points[card_index, : len(card.points)] = card.points
        card_cell_count[card_index] = len(card.habitat)
        for cell_index, cell in enumerate(card.habitat):
            card_requirement[card_index, cell_index] = cell.requirement
        for rotation in range(ROTATIONS):
            turned = [rotate_clockwise(cell.dq, cell.dr, rotation) for cell in card.habitat]
            for anchor, (q, r) in enumerate(hexes):
                covered = [index_of.get((q + dq, r + dr), -1) for dq, dr in turned]
                card_cells[card_index, rotation, anchor, : len(covered)] = covered
                card_fits[card_index, rotation, anchor] = all(c >= 0 for c in covered)
        if card.is_spirit:
            bonus_kind[card_index] = BONUS_CODES[card.bonus_kind]
            bonus_points[card_index, : len(card.bonus_points)] = card.bonus_points
            bonus_points_count[card_index] = len(card.bonus_points)

    scoring = data.scoring
    animal_count = len(data.animals)
    return EngineTables(
        players=rules.players,
        central_spaces=setup.central_spaces,
        tokens_per_space=data.tokens_per_space,
        card_row=setup.card_row,
        solo_rules=int(setup.solo_rules),
        card_limit=data.card_limit,
        end_when_empty_hexes_at_most=data.end_when_empty_hexes_at_most,
        spirits_enabled=int(rules.spirits),
        water_is_river=int(shape.water == "river"),
        bag=data.bag.astype(np.int16).copy(),
        bag_total=int(data.bag.sum()),
        hex_count=hex_count,
        neighbours=neighbours,
        card_ids=card_ids,
        card_is_spirit=card_is_spirit,
        card_cube_count=card_cube_count,
        card_points=card_points,
        card_cell_count=card_cell_count,
        card_requirement=card_requirement,
        card_cells=card_cells,
        card_fits=card_fits,
        bonus_kind=bonus_kind,
        bonus_points=bonus_points,
        bonus_points_count=bonus_points_count,
        animal_cards=np.arange(animal_count, dtype=np.int16),
        spirit_cards=np.arange(animal_count, card_total, dtype=np.int16),
        max_cards_per_player=animal_count + 1,
        tree_points=np.array(scoring.tree_points, dtype=np.int16),
        mountain_points=np.array(resolve_mountain_points(rules, data), dtype=np.int16),
        field_group_points=scoring.field_group_points,
        field_min_group=scoring.field_min_group,
        building_points=scoring.building_points,
        building_min_colours=scoring.building_min_colours,
        river_points=np.array(scoring.river_points, dtype=np.int16),
        river_points_per_extra_token=scoring.river_points_per_extra_token,
        island_points=scoring.island_points,
    )

