"""Loading and validating the data files."""

from __future__ import annotations

from pathlib import Path

import pytest

from sim.errors import InputError
from sim.games.harmonies.colours import BROWN, BUILDING_REQUIREMENT, GRAY, GREEN, stack_code
from sim.games.harmonies.data import DEFAULT_PATHS, load_game_data, parse_stack_requirement
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.tables import build_tables, rotate_clockwise


def test_shipped_files_hold_the_rules_numbers(data):
    assert dict(zip(("blue", "gray", "brown", "green", "yellow", "red"), data.bag.tolist(),
                    strict=True)) == {"blue": 23, "gray": 23, "brown": 21, "green": 19,
                                      "yellow": 19, "red": 15}
    assert int(data.bag.sum()) == 120
    assert {p: (s.central_spaces, s.card_row) for p, s in data.player_counts.items()} == {
        1: (3, 3), 2: (5, 5), 3: (5, 5), 4: (5, 5)}
    assert data.sides["A"].hex_count == 23 and data.sides["A"].water == "river"
    assert data.sides["B"].hex_count == 25 and data.sides["B"].water == "islands"
    assert len(data.animals) == 32 and len(data.spirits) == 10
    assert data.scoring.river_points == (0, 2, 5, 8, 11, 15)
    assert data.scoring.mountain_points_presets["seed-text"] == (1, 2, 3)


def test_cards_match_the_rules_table(data):
    cards = data.card_by_id()
    bee = cards[13]
    assert bee.name == "bee" and bee.points == (8, 18) and bee.cube_count == 2
    assert [(c.dq, c.dr, c.text) for c in bee.habitat] == [
        (0, 0, "brown+green"), (0, 1, "yellow"), (-1, 1, "yellow"), (-1, 0, "yellow")]
    assert cards[25].habitat[0].requirement == stack_code((GRAY, GRAY, GRAY))
    assert cards[6].habitat[1].requirement == BUILDING_REQUIREMENT
    # Track lengths of the 32 cards of RULES.md, added up by hand: 34 + 28 + 27 + 7.
    assert sum(card.cube_count for card in data.animals) == 96
    assert cards[42].is_spirit and cards[42].bonus_kind == "blue_tokens"
    assert cards[33].bonus_points == (2, 2, 10)


def test_stack_requirements():
    assert parse_stack_requirement("gray×2", "x") == stack_code((GRAY, GRAY))
    assert parse_stack_requirement("grayx3", "x") == stack_code((GRAY, GRAY, GRAY))
    assert parse_stack_requirement("brown+brown+green", "x") == stack_code((BROWN, BROWN, GREEN))
    assert parse_stack_requirement("BLD", "x") == BUILDING_REQUIREMENT
    with pytest.raises(InputError, match="can never be built"):
        parse_stack_requirement("green+brown", "f: card 1")
    with pytest.raises(InputError, match="write a building as"):
        parse_stack_requirement("gray+red", "f: card 1")
    with pytest.raises(InputError, match="not one of"):
        parse_stack_requirement("purple", "f: card 1")


def test_rotation_is_a_sixth_turn():
    assert rotate_clockwise(0, -1, 1) == (1, -1)  # north -> north-east
    assert rotate_clockwise(1, 0, 1) == (0, 1)  # south-east -> south
    assert rotate_clockwise(2, -1, 6) == (2, -1)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[bag]\nblue = 23\n", "field 'bag.gray' is missing"),
        ("[bag]\nblue=1\ngray=1\nbrown=1\ngreen=1\nyellow=1\nred=-1\n", "field 'red' is -1"),
        ("[bag]\nblue=1\ngray=1\nbrown=1\ngreen=1\nyellow=1\nred=1\npink=2\n",
         "unknown field 'pink'"),
        ("[bag\n", "not valid TOML"),
    ],
)
def test_bad_bag_files_give_one_line_errors(tmp_path, text, message):
    path = _write(tmp_path, "bag.toml", text)
    with pytest.raises(InputError, match=message) as error:
        load_game_data(bag=path)
    assert "\n" not in str(error.value) and str(path) in str(error.value)


@pytest.mark.parametrize(
    ("card", "message"),
    [
        ('id = 1\nname = "x"\npoints = [1]\nhabitat = [{ at = [0, 0], stack = "blue" }]',
         "card 1: field 'id': duplicate id"),
        ('id = 99\nname = "x"\npoints = [1]\nhabitat = [{ at = [1, 0], stack = "blue" }]',
         "card 99: field 'habitat': no cell at \\[0, 0\\]"),
        ('id = 99\nname = "x"\npoints = [1]\nhabitat = [{ at = [0, 0], stack = "blue+blue" }]',
         "card 99: habitat #1: field 'stack'"),
        ('id = 99\nname = "x"\nhabitat = [{ at = [0, 0], stack = "blue" }]',
         "card 99: field 'points' must be"),
        ('id = 99\nname = "x"\npoints = [1]\ncolour = 2\n'
         'habitat = [{ at = [0, 0], stack = "blue" }]', "card 99: unknown field 'colour'"),
    ],
)
def test_bad_cards_give_one_line_errors(tmp_path, card, message):
    shipped = DEFAULT_PATHS["animals"].read_text(encoding="utf-8")
    path = _write(tmp_path, "animals.toml", shipped + "\n[[cards]]\n" + card + "\n")
    with pytest.raises(InputError, match=message) as error:
        load_game_data(animals=path)
    assert "\n" not in str(error.value)


def test_a_user_card_and_a_variant_bag_load(tmp_path):
    shipped = DEFAULT_PATHS["animals"].read_text(encoding="utf-8")
    animals = _write(tmp_path, "animals.toml", shipped + """
[[cards]]
id = 50
name = "heron"
points = [3, 7]
habitat = [{ at = [0, 0], stack = "blue" }, { at = [0, -1], stack = "brown+green" }]
""")
    bag = _write(tmp_path, "bag.toml",
                 "[bag]\nblue=30\ngray=20\nbrown=20\ngreen=20\nyellow=20\nred=10\n")
    data = load_game_data(animals=animals, bag=bag)
    assert data.card_by_id()[50].points == (3, 7)
    assert int(data.bag.sum()) == 120 and int(data.bag[0]) == 30
    tables = build_tables(data, HarmoniesRules(players=2))
    assert tables.animal_cards.shape[0] == 33


def test_rules_options_are_checked(data):
    with pytest.raises(InputError, match="rules option 'players'"):
        build_tables(data, HarmoniesRules(players=5))
    with pytest.raises(InputError, match="rules option 'side'"):
        build_tables(data, HarmoniesRules(side="C"))
    with pytest.raises(InputError, match="rules option 'mountain_points'"):
        build_tables(data, HarmoniesRules(mountain_points="steep"))
    with pytest.raises(InputError, match="rules option 'mountain_points'"):
        build_tables(data, HarmoniesRules(mountain_points=[1, 2]))
    seed_text = build_tables(data, HarmoniesRules(mountain_points="seed-text"))
    assert seed_text.mountain_points.tolist() == [1, 2, 3]
    custom = build_tables(data, HarmoniesRules(mountain_points=[2, 4, 8]))
    assert custom.mountain_points.tolist() == [2, 4, 8]
