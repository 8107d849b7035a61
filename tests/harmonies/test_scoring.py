"""Final scoring on hand-built boards with hand-computed answers; every board is scored by the
reference scorer and by the compiled engine, which must agree."""

from __future__ import annotations

import pytest

from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.tables import build_tables

from .conftest import make_board, scores

# A chordless path of 8 hexes on side A: every prefix of length k is a river of length k.
RIVER_PATH = [(0, 0), (0, 1), (0, 2), (0, 3), (1, 3), (2, 3), (3, 2), (4, 1)]


@pytest.mark.parametrize(("stack", "points"), [
    ("green", 1), ("brown+green", 3), ("brown+brown+green", 7), ("brown", 0), ("brown+brown", 0),
])
def test_trees_by_height_and_trunks_alone(data, tables_a, stack, points):
    board = make_board("A", {(2, 1): stack})
    assert scores(board, data, tables_a)["trees"] == points


def test_isolated_mountain_scores_nothing(data, tables_a):
    board = make_board("A", {(2, 1): "gray+gray+gray", (4, 1): "gray+gray"})
    assert scores(board, data, tables_a)["mountains"] == 0


def test_adjacent_mountains_score_by_height_in_both_tables(data, tables_a):
    # (2, 1) and (3, 1) touch, (2, 2) touches (2, 1); (0, 4) is alone.
    board = make_board("A", {(2, 1): "gray+gray+gray", (3, 1): "gray", (2, 2): "gray+gray",
                             (0, 4): "gray+gray"})
    assert scores(board, data, tables_a)["mountains"] == 7 + 1 + 3
    seed_rules = HarmoniesRules(side="A", mountain_points="seed-text")
    seed_tables = build_tables(data, seed_rules)
    assert scores(board, data, seed_tables, seed_rules)["mountains"] == 3 + 1 + 2


def test_a_red_on_gray_is_no_mountain(data, tables_a):
    board = make_board("A", {(2, 1): "gray+red", (3, 1): "gray"})
    result = scores(board, data, tables_a)
    assert result["mountains"] == 0


def test_fields(data, tables_a):
    lone = make_board("A", {(2, 1): "yellow"})
    assert scores(lone, data, tables_a)["fields"] == 0
    four = make_board("A", {(2, 1): "yellow", (2, 2): "yellow", (3, 1): "yellow",
                            (3, 0): "yellow"})
    assert scores(four, data, tables_a)["fields"] == 5
    two_groups = make_board("A", {(0, 0): "yellow", (0, 1): "yellow", (4, 1): "yellow",
                                  (4, 2): "yellow", (2, 1): "yellow"})
    assert scores(two_groups, data, tables_a)["fields"] == 10


def test_building_needs_three_neighbour_colours(data, tables_a):
    # Around (2, 1): (3, 1) (3, 0) (2, 0) (1, 1) (1, 2) (2, 2).
    two = make_board("A", {(2, 1): "brown+red", (3, 1): "yellow", (3, 0): "blue",
                           (2, 0): "yellow"})
    assert scores(two, data, tables_a)["buildings"] == 0
    three = make_board("A", {(2, 1): "gray+red", (3, 1): "yellow", (3, 0): "blue",
                             (2, 0): "brown+green"})
    assert scores(three, data, tables_a)["buildings"] == 5
    red_counts = make_board("A", {(2, 1): "red+red", (3, 1): "yellow", (3, 0): "blue",
                                  (2, 0): "red"})
    assert scores(red_counts, data, tables_a)["buildings"] == 5
    lone_red = make_board("A", {(2, 1): "red", (3, 1): "yellow", (3, 0): "blue",
                                (2, 0): "green"})
    assert scores(lone_red, data, tables_a)["buildings"] == 0


@pytest.mark.parametrize(("length", "points"),
                         [(1, 0), (2, 2), (3, 5), (4, 8), (5, 11), (6, 15), (7, 19), (8, 23)])
def test_river_lengths(data, tables_a, length, points):
    board = make_board("A", {position: "blue" for position in RIVER_PATH[:length]})
    assert scores(board, data, tables_a)["water"] == points


def test_only_the_best_river_counts(data, tables_a):
    stacks = {position: "blue" for position in RIVER_PATH[:3]}
    stacks.update({(4, -2): "blue", (4, -1): "blue"})
    assert scores(make_board("A", stacks), data, tables_a)["water"] == 5


def test_branched_river_is_measured_by_its_diameter(data, tables_a):
    # A Y with arms of 2 around (2, 1): 7 tokens, longest shortest path 5 tokens.
    arms = [(2, 1), (2, 0), (2, -1), (1, 2), (0, 3), (3, 1), (4, 1)]
    assert scores(make_board("A", dict.fromkeys(arms, "blue")), data, tables_a)["water"] == 11
    # A ring of 6 around an empty (2, 1): a path around it is 6 long, but the diameter is 4.
    ring = [(3, 1), (3, 0), (2, 0), (1, 1), (1, 2), (2, 2)]
    assert scores(make_board("A", dict.fromkeys(ring, "blue")), data, tables_a)["water"] == 8


def test_islands_on_side_b(data, tables_b):
    assert scores(make_board("B", {}), data, tables_b)["water"] == 5
    # Column q = 3 cuts the board in two; blue at (1, 0) and (0, 1) cuts off the corner (0, 0).
    wall = {(3, -1): "blue", (3, 0): "blue", (3, 1): "blue"}
    assert scores(make_board("B", wall), data, tables_b)["water"] == 10
    corner = {**wall, (1, 0): "blue", (0, 1): "blue"}
    assert scores(make_board("B", corner), data, tables_b)["water"] == 15
    # Tokens of other colours are land like empty hexes.
    assert scores(make_board("B", {**corner, (0, 0): "gray"}), data, tables_b)["water"] == 15


def test_animal_cards_score_by_cubes_placed(data, tables_a):
    stacks = {(0, 0): "blue", (0, 1): "blue", (0, 2): "blue", (0, 3): "blue"}
    for placed, points in [(0, 0), (1, 3), (2, 6), (3, 10), (4, 15)]:
        cubes = RIVER_PATH[:placed]
        board = make_board("A", stacks, cubes=cubes, cards=[(18, placed)])  # koala 3 6 10 15
        assert scores(board, data, tables_a)["animals"] == points
    two_cards = make_board("A", stacks, cubes=RIVER_PATH[:3], cards=[(13, 2), (25, 1)])
    assert scores(two_cards, data, tables_a)["animals"] == 18 + 5


def test_spirits_score_only_when_placed(data, tables_a):
    stacks = {(0, 0): "yellow", (0, 1): "yellow", (0, 2): "yellow", (2, 1): "yellow",
              (4, 1): "yellow", (4, 2): "yellow"}
    unplaced = make_board("A", stacks, cards=[(33, 0)])
    assert scores(unplaced, data, tables_a)["spirit"] == 0
    placed = make_board("A", stacks, cubes=[(0, 0)], cards=[(33, 1)])
    # Groups of 3, 1 and 2: 10 + 2 + 2.
    assert scores(placed, data, tables_a)["spirit"] == 14
    per_group = make_board("A", stacks, cubes=[(0, 0)], cards=[(34, 1)])
    assert scores(per_group, data, tables_a)["spirit"] == 15


def test_every_spirit_bonus(data, tables_a):
    stacks = {
        (0, 0): "green", (0, 1): "brown+green", (0, 2): "brown+brown+green",
        (1, 0): "gray", (2, -1): "gray+gray", (3, -1): "gray+gray+gray",
        (4, -2): "brown+red", (4, -1): "gray+red", (4, 1): "red+red",
        (2, 2): "blue", (2, 3): "blue", (3, 2): "blue", (0, 4): "blue",
    }
    expected = {
        35: 4 + 4,  # trees of height 2 and 3
        36: 3 + 3 + 1,  # heights 1 and 2: 3 each; height 3: 1
        37: 4 * 2,  # building groups {(4,-2), (4,-1)} and {(4, 1)}
        38: 6,  # one group of 2 or more
        39: 4 + 4,  # mountains of height 2 and 3 (isolated or not)
        40: 3 + 3 + 1,
        41: 7,  # water groups: {(2,2), (2,3), (3,2)} and {(0,4)}
        42: 2 * 4,
    }
    for card_id, points in expected.items():
        board = make_board("A", stacks, cubes=[(0, 0)], cards=[(card_id, 1)])
        assert scores(board, data, tables_a)["spirit"] == points, card_id


def test_rulebook_totals(data, tables_a):
    """A full board counted by hand: trees 4 + mountains 10 + fields 10 + buildings 10 +
    river 19 (7 long) = 53, animals 63, total 116."""
    river = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (4, 2)]  # chordless, 7 long
    stacks = dict.fromkeys(river, "blue")
    stacks.update({
        (2, 0): "brown+green", (0, 4): "green",  # trees 3 + 1
        (3, -1): "gray+gray+gray", (4, -2): "gray+gray",  # touching mountains 7 + 3
        (4, -1): "yellow", (4, 0): "yellow", (1, 0): "yellow", (1, 1): "yellow",  # 2 fields
        (3, 0): "gray+red",  # sees yellow, gray (3,-1), green (2,0)
        (2, -1): "brown+red",  # sees gray (3,-1), yellow (1,0), green (2,0)
    })
    cards = [(13, 2), (20, 3), (29, 3), (4, 2)]  # bee 18, kingfisher 18, arctic fox 17, otter 10
    cubes = [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (2, 0), (0, 4), (3, -1)]
    board = make_board("A", stacks, cubes=cubes, cards=cards)
    result = scores(board, data, tables_a)
    assert result == {"trees": 4, "mountains": 10, "fields": 10, "buildings": 10, "water": 19,
                      "animals": 63, "spirit": 0, "total": 116}
