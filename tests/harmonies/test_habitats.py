"""Cube placement: habitats under the 6 rotations, never mirrored; the cube's hex rules."""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.harmonies.data import DEFAULT_PATHS, load_game_data
from sim.games.harmonies.habitats import cube_placement_is_legal, list_cube_placements
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.position import public_state_from_board
from sim.games.harmonies.tables import build_tables
from sim.games.harmonies.turn import place_cube

from .conftest import make_board


def hex_index(data, side: str, position: tuple[int, int]) -> int:
    """Index of an axial position in the side's hex list."""
    return [tuple(int(v) for v in row) for row in data.sides[side].hexes].index(position)


def placements(board, tables, data) -> set[tuple[int, tuple[int, int]]]:
    """Legal (card id, cube hex) pairs of the board's cards."""
    public = public_state_from_board(board, tables, data)
    size = tables.max_cards_per_player * tables.hex_count
    slots, hexes = np.zeros(size, np.int16), np.zeros(size, np.int16)
    count = list_cube_placements(tables, public, 0, slots, hexes)
    shape = data.sides[board.side].hexes
    return {(board.cards[int(slots[i])][0], (int(shape[hexes[i], 0]), int(shape[hexes[i], 1])))
            for i in range(count)}


def test_pattern_as_printed(data, tables_a):
    # Bear: ★ green; (1, 0) gray×2; (0, 1) gray×2.
    board = make_board("A", {(2, 1): "green", (3, 1): "gray+gray", (2, 2): "gray+gray"},
                       cards=[(14, 0)])
    assert placements(board, tables_a, data) == {(14, (2, 1))}


def test_pattern_matched_only_after_rotation(data, tables_a):
    # One sixth turn maps (1, 0) to (0, 1) and (0, 1) to (-1, 1).
    board = make_board("A", {(2, 1): "green", (2, 2): "gray+gray", (1, 2): "gray+gray"},
                       cards=[(14, 0)])
    assert placements(board, tables_a, data) == {(14, (2, 1))}
    public = public_state_from_board(board, tables_a, data)
    assert cube_placement_is_legal(tables_a, public, 0, 0, hex_index(data, "A", (2, 1)))
    assert not cube_placement_is_legal(tables_a, public, 0, 0, hex_index(data, "A", (2, 2)))
    # every rotation around (2, 1) also matches
    for first, second in [((3, 0), (3, 1)), ((2, 0), (3, 0)), ((1, 1), (2, 0)),
                          ((1, 2), (1, 1)), ((2, 2), (1, 2))]:
        turned = make_board("A", {(2, 1): "green", first: "gray+gray", second: "gray+gray"},
                            cards=[(14, 0)])
        assert placements(turned, tables_a, data) == {(14, (2, 1))}, (first, second)


def test_heights_must_match_exactly(data, tables_a):
    taller = make_board("A", {(2, 1): "green", (3, 1): "gray+gray+gray", (2, 2): "gray+gray"},
                        cards=[(14, 0)])
    assert placements(taller, tables_a, data) == set()
    tree_too_tall = make_board("A", {(2, 1): "brown+green", (3, 1): "gray+gray",
                                     (2, 2): "gray+gray"}, cards=[(14, 0)])
    assert placements(tree_too_tall, tables_a, data) == set()


def test_any_building_counts_as_a_building(data, tables_a):
    # Duck: ★ blue; (1, 0) BLD.
    for base in ("brown", "gray", "red"):
        board = make_board("A", {(2, 1): "blue", (3, 1): f"{base}+red"}, cards=[(6, 0)])
        assert placements(board, tables_a, data) == {(6, (2, 1))}, base
    lone_red = make_board("A", {(2, 1): "blue", (3, 1): "red"}, cards=[(6, 0)])
    assert placements(lone_red, tables_a, data) == set()


def test_pattern_off_the_board_does_not_match(data, tables_a):
    # Alligator: ★ blue; (1, 0) blue; (2, 0) tree of 3 — from (2, 2) the third hex is (4, 2),
    # but from (3, 2) it would be (5, 2), off the board in every rotation that fits blue.
    board = make_board("A", {(4, 2): "blue", (4, 1): "blue"}, cards=[(1, 0)])
    assert placements(board, tables_a, data) == set()


def test_cube_hex_needs_a_token_and_no_cube_and_blocks_tokens(data, tables_a):
    board = make_board("A", {(0, 0): "yellow", (1, 0): "green", (0, 1): "yellow",
                             (1, 1): "green"}, cards=[(31, 0)])  # ladybug ★ yellow; (1,0) green
    assert placements(board, tables_a, data) == {(31, (0, 0)), (31, (0, 1))}
    public = public_state_from_board(board, tables_a, data)
    corner = hex_index(data, "A", (0, 0))
    place_cube(tables_a, public, 0, 0, corner)
    assert public.cubes_placed[0, 0] == 1
    with pytest.raises(ValueError):
        place_cube(tables_a, public, 0, 0, corner)  # already holds a cube
    size = tables_a.max_cards_per_player * tables_a.hex_count
    slots, hexes = np.zeros(size, np.int16), np.zeros(size, np.int16)
    assert list_cube_placements(tables_a, public, 0, slots, hexes) == 1
    # The other habitat cell may be shared: the green at (1, 0) serves (0, 1)'s habitat too.


def test_completed_card_takes_no_more_cubes(data, tables_a):
    board = make_board("A", {(0, 0): "gray", (1, 0): "yellow"}, cubes=[(0, 0)],
                       cards=[(25, 0), (26, 1)])
    # falcon needs gray×3; meerkat (★ gray; (1,0) yellow) has 1 of 4 placed, (0, 0) is taken.
    assert placements(board, tables_a, data) == set()


def test_mirrored_pattern_never_matches(tmp_path):
    """No shipped card is chiral, so a user card file adds one: ★ blue, yellow to the
    south-east, gray to the south. Its mirror image must not match in any rotation."""
    shipped = DEFAULT_PATHS["animals"].read_text(encoding="utf-8")
    path = tmp_path / "animals.toml"
    path.write_text(shipped + """
[[cards]]
id = 77
name = "chiral test animal"
points = [1]
habitat = [
    { at = [0, 0], stack = "blue" },
    { at = [1, 0], stack = "yellow" },
    { at = [0, 1], stack = "gray" },
]
""", encoding="utf-8")
    data = load_game_data(animals=path)
    tables = build_tables(data, HarmoniesRules(side="A"))
    neighbours_of_centre = [(3, 1), (3, 0), (2, 0), (1, 1), (1, 2), (2, 2)]  # around (2, 1)
    for turn in range(6):
        yellow_at = neighbours_of_centre[turn]
        next_clockwise = neighbours_of_centre[(turn - 1) % 6]
        next_counter = neighbours_of_centre[(turn + 1) % 6]
        as_printed_or_turned = make_board(
            "A", {(2, 1): "blue", yellow_at: "yellow", next_clockwise: "gray"}, cards=[(77, 0)])
        mirrored = make_board(
            "A", {(2, 1): "blue", yellow_at: "yellow", next_counter: "gray"}, cards=[(77, 0)])
        assert placements(as_printed_or_turned, tables, data) == {(77, (2, 1))}, turn
        assert placements(mirrored, tables, data) == set(), turn
