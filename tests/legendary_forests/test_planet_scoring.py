"""The planet format, its validation and the from-scratch reference scorer (RULES.md examples)."""

import json
import re

import pytest

from sim.errors import InputError
from sim.games.legendary_forests.data import GRASS, PINK, RED, YELLOW
from sim.games.legendary_forests.position import (
    PlacedTile,
    Planet,
    Tree,
    board_side_colour,
    load_planet,
    planet_from_json,
    planet_to_json,
    score_planet,
)
from tests.legendary_forests.examples import EXAMPLE_TILES, example_planet

N, E, S, W = 0, 1, 2, 3

@pytest.fixture
def example_tiles(tileset_from_toml):
    return tileset_from_toml(EXAMPLE_TILES)


def test_example_planet_is_valid(example_tiles):
    planet = example_planet()
    assert planet_from_json(planet_to_json(planet), example_tiles, "example.json") == planet


def test_closed_l_shaped_pink_zone_with_four_runes_scores_8(example_tiles):
    planet = example_planet()
    planet.trees = [Tree(0, 0, S, PINK)]
    score = score_planet(planet, example_tiles)
    l_zone = score.zones[0]
    assert l_zone.colour == PINK
    assert l_zone.cells == [(0, 0), (0, 1), (0, 2), (1, 2), (2, 2)]
    assert l_zone.full_runes == 4  # one rune per touching pair, not per half-rune
    assert l_zone.open_half_runes == 0
    assert l_zone.closed
    assert l_zone.trees == 1
    assert l_zone.points == 8  # closed doubles
    assert score.total == 8


def test_open_pink_zone_with_no_runes_scores_0(example_tiles):
    planet = example_planet()
    planet.trees = [Tree(2, 2, E, PINK)]
    score = score_planet(planet, example_tiles)
    lone = score.zones[1]
    assert (lone.colour, lone.cells, lone.full_runes) == (PINK, [(2, 2)], 0)
    assert (lone.open_half_runes, lone.closed, lone.trees, lone.points) == (1, False, 1, 0)
    assert score.zones[0].trees == 0  # the other pink area of tile 5 is another zone
    assert score.total == 0


def test_two_yellow_trees_in_one_open_zone_with_two_runes_score_2(example_tiles):
    planet = example_planet()
    planet.trees = [Tree(1, 0, E, YELLOW), Tree(3, 0, W, YELLOW)]
    score = score_planet(planet, example_tiles)
    yellow = score.zones[2]
    assert yellow.colour == YELLOW
    assert yellow.cells == [(1, 0), (2, 0), (3, 0)]
    assert (yellow.full_runes, yellow.open_half_runes, yellow.closed) == (2, 1, False)
    assert yellow.trees == 2
    assert yellow.points == 2  # open: 1 x runes, and the second tree adds nothing
    assert score.total == 2


def test_example_planet_totals_10(example_tiles):
    score = score_planet(example_planet(), example_tiles)
    assert [zone.points for zone in score.zones] == [8, 0, 2]
    assert score.total == 10
    # Grass never forms zones, even where grass touches grass ((0,0)-(1,0)).
    assert len(score.zones) == 3
    assert all(zone.colour != GRASS for zone in score.zones)


def test_zone_without_tree_scores_nothing(example_tiles):
    planet = example_planet()
    planet.trees = []
    score = score_planet(planet, example_tiles)
    assert [zone.full_runes for zone in score.zones] == [4, 0, 2]
    assert score.total == 0


Y_TILES = """
tiles = [
  {number=1, light=false, sides=["pink","pink","grass","pink"], areas=[[0,1,3],[2]]},
  {number=2, light=false, sides=["pink","grass","grass","grass"], areas=[[0],[1,2,3]]},
  {number=3, light=false, sides=["pink","grass","pink","grass"], areas=[[0,2],[1],[3]]},
  {number=4, light=false, sides=["pink","grass","grass","grass"], areas=[[0],[1,2,3]]},
  {number=5, light=false, sides=["pink","grass","pink","grass"], areas=[[0,2],[1],[3]]},
]
"""


def test_open_y_shaped_pink_zone_with_four_runes_scores_4(tileset_from_toml):
    # Junction (0,0) pink N+E+W; west arm cap (-1,0); east arm band (1,0) + cap (2,0);
    # north arm band (0,-1) whose north side is left open.
    tileset = tileset_from_toml(Y_TILES)
    planet = Planet(
        tiles=[
            PlacedTile(1, 0, 0, 0),
            PlacedTile(2, -1, 0, 1),
            PlacedTile(3, 1, 0, 1),
            PlacedTile(4, 2, 0, 3),
            PlacedTile(5, 0, -1, 0),
        ],
        trees=[Tree(0, 0, N, PINK)],
    )
    planet_from_json(planet_to_json(planet), tileset, "y.json")  # valid
    score = score_planet(planet, tileset)
    assert len(score.zones) == 1
    zone = score.zones[0]
    assert zone.cells == [(-1, 0), (0, -1), (0, 0), (1, 0), (2, 0)]
    assert (zone.full_runes, zone.open_half_runes, zone.closed) == (4, 1, False)
    assert zone.points == 4
    assert score.total == 4


RING_TILES = """
tiles = [
  {number=1, light=false, sides=["grass","pink","grass","pink"], areas=[[0,2],[1],[3]]},
  {number=2, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=3, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=4, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=5, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=6, light=false, sides=["pink","grass","pink","grass"], areas=[[0,2],[1],[3]]},
]
"""


def test_two_areas_of_one_tile_join_only_through_other_tiles(tileset_from_toml):
    tileset = tileset_from_toml(RING_TILES)
    alone = Planet(tiles=[PlacedTile(1, 0, 0, 0)], trees=[Tree(0, 0, E, PINK)])
    score = score_planet(alone, tileset)
    assert [(zone.cells, zone.open_half_runes) for zone in score.zones] == [
        ([(0, 0)], 1),
        ([(0, 0)], 1),
    ]
    assert [zone.trees for zone in score.zones] == [1, 0]
    assert score.total == 0

    # A ring of 6 tiles joins tile 1's east and west pink areas into one closed zone.
    ring = Planet(
        tiles=[
            PlacedTile(1, 0, 0, 0),
            PlacedTile(2, -1, 0, 1),
            PlacedTile(3, -1, 1, 0),
            PlacedTile(6, 0, 1, 1),
            PlacedTile(4, 1, 1, 3),
            PlacedTile(5, 1, 0, 2),
        ],
        trees=[Tree(0, 0, E, PINK), Tree(0, 0, W, PINK)],
    )
    planet_from_json(planet_to_json(ring), tileset, "ring.json")  # valid
    score = score_planet(ring, tileset)
    assert len(score.zones) == 1
    zone = score.zones[0]
    assert (zone.full_runes, zone.closed, zone.trees, zone.points) == (6, True, 2, 12)
    assert score.total == 12


def test_grass_only_planet_has_no_zones(tileset_from_toml):
    tileset = tileset_from_toml(
        'tiles = [{number = 1, light = false, sides = ["grass", "grass", "grass", "grass"], '
        "areas = [[0, 1, 2, 3]]},"
        '{number = 2, light = false, sides = ["grass", "grass", "grass", "grass"], '
        "areas = [[0, 1, 2, 3]]}]"
    )
    score = score_planet(Planet(tiles=[PlacedTile(1, 0, 0, 0), PlacedTile(2, 1, 0, 0)]), tileset)
    assert score.zones == []
    assert score.total == 0


# --------------------------------------------------------------------------- rotation

ROTATION_TILES = """
tiles = [
  {number=1, light=false, sides=["pink","red","yellow","grass"], areas=[[0],[1],[2],[3]]},
  {number=2, light=false, sides=["pink","grass","red","yellow"], areas=[[0],[1],[2],[3]]},
]
"""


@pytest.mark.parametrize(
    ("rotation", "expected"),
    [
        (0, [PINK, RED, YELLOW, GRASS]),
        (1, [GRASS, PINK, RED, YELLOW]),
        (2, [YELLOW, GRASS, PINK, RED]),
        (3, [RED, YELLOW, GRASS, PINK]),
    ],
)
def test_rotation_shows_expected_colour_per_board_direction(tileset_from_toml, rotation, expected):
    tileset = tileset_from_toml(ROTATION_TILES)
    tile = PlacedTile(1, 0, 0, rotation)
    assert [board_side_colour(tileset, tile, direction) for direction in range(4)] == expected


def rotation_planet(rotation, tree_colour="yellow"):
    # Tile 1 shows red at E. Tile 2 lists red at index 2: with rotation 1 the correct mapping
    # (d - r) mod 4 shows index 2 at W; the wrong mapping (d + r) mod 4 would need rotation 3.
    return {
        "game": "legendary-forests",
        "tiles": [
            {"number": 1, "x": 0, "y": 0, "rotation": 0},
            {"number": 2, "x": 1, "y": 0, "rotation": rotation},
        ],
        "trees": [{"x": 1, "y": 0, "side": "N", "color": tree_colour}],
    }


def test_planet_matching_only_under_correct_rotation_mapping(tileset_from_toml):
    tileset = tileset_from_toml(ROTATION_TILES)
    planet = planet_from_json(rotation_planet(1), tileset, "good.json")
    assert planet.tiles[1] == PlacedTile(2, 1, 0, 1)
    assert planet.trees == [Tree(1, 0, N, YELLOW)]  # N of tile 2 shows index 3: yellow
    with pytest.raises(
        InputError,
        match=r"^bad\.json: tiles\[0\]: side E of tile 1 is red but "
        r"touches side W of tiles\[1\] \(tile 2\), which is pink$",
    ):
        planet_from_json(rotation_planet(3), tileset, "bad.json")
    with pytest.raises(InputError, match=r"trees\[0\]\.color: tree is pink but side N of tile 2"):
        planet_from_json(rotation_planet(1, "pink"), tileset, "bad.json")


# --------------------------------------------------------------------------- validation

VALIDATION_TILES = """
tiles = [
  {number=1, light=false, sides=["pink","pink","grass","grass"], areas=[[0,1],[2,3]]},
  {number=2, light=false, sides=["pink","pink","pink","pink"], areas=[[0,1,2,3]]},
  {number=3, light=false, sides=["grass","grass","grass","grass"], areas=[[0,1,2,3]]},
]
"""


def valid_document():
    return {
        "game": "legendary-forests",
        "tiles": [
            {"number": 1, "x": 0, "y": 0, "rotation": 0},
            {"number": 2, "x": 1, "y": 0, "rotation": 0},
            {"number": 3, "x": 0, "y": 1, "rotation": 0},
        ],
        "trees": [{"x": 1, "y": 0, "side": "N", "color": "pink"}],
    }


def set_tile(index, **fields):
    def change(document):
        document["tiles"][index].update(fields)

    return change


def set_tree(**fields):
    def change(document):
        document["trees"][0].update(fields)

    return change


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (set_tile(2, number=2), r"tiles\[2\]\.number: tile 2 is placed twice \(also tiles\[1\]\)"),
        (
            set_tile(2, number=9),
            r"tiles\[2\]\.number: tile 9 is not in the tile set \(numbers 1\.\.3\)",
        ),
        (set_tile(2, number=0), r"tiles\[2\]\.number: tile 0 is not in the tile set"),
        (lambda d: d["tiles"].pop(0), r"tiles: tile 1 is missing"),
        (set_tile(2, x=5, y=5), r"tiles\[2\]: tile 3 at \(5, 5\) is not connected to tile 1"),
        (
            set_tile(2, x=0, y=-1),
            r"tiles\[2\]: side S of tile 3 is grass but touches side N of tiles\[0\] \(tile 1\), "
            r"which is pink",
        ),
        (set_tile(2, x=1, y=0), r"tiles\[2\]: cell \(1, 0\) already holds tiles\[1\]"),
        (set_tile(1, rotation=4), r"tiles\[1\]\.rotation: expected 0\.\.3, got 4"),
        (set_tile(1, x="1"), r"tiles\[1\]\.x: expected an integer, got '1'"),
        (set_tile(1, y=True), r"tiles\[1\]\.y: expected an integer, got True"),
        (lambda d: d["tiles"][1].pop("rotation"), r"tiles\[1\]: missing field 'rotation'"),
        (set_tile(1, flipped=True), r"tiles\[1\]: unknown field 'flipped'"),
        (lambda d: d["tiles"].append(3), r"tiles\[3\]: expected an object"),
        (
            set_tree(x=0, y=1, side="E", color="pink"),
            r"trees\[0\]\.side: side E of tile 3 at \(0, 1\) is grass; trees stand only in leaf",
        ),
        (set_tree(x=0, y=0, side="S"), r"trees\[0\]\.side: side S of tile 1 at \(0, 0\) is grass"),
        (
            set_tree(color="red"),
            r"trees\[0\]\.color: tree is red but side N of tile 2 at \(1, 0\) is pink",
        ),
        (set_tree(x=3, y=3), r"trees\[0\]: no tile on cell \(3, 3\)"),
        (set_tree(side="X"), r"trees\[0\]\.side: expected one of N, E, S, W, got 'X'"),
        (set_tree(side=0), r"trees\[0\]\.side: expected one of N, E, S, W, got 0"),
        (set_tree(color="grass"), r"trees\[0\]\.color: expected one of pink, red, yellow, got"),
        (lambda d: d["trees"][0].pop("color"), r"trees\[0\]: missing field 'color'"),
        (lambda d: d.update(game="harmonies"), r"game: expected 'legendary-forests', got"),
        (lambda d: d.pop("tiles"), r"planet: missing field 'tiles'"),
        (lambda d: d.update(tiles={}), r"tiles: expected a list of tile objects"),
        (lambda d: d.update(trees="none"), r"trees: expected a list of tree objects"),
        (lambda d: d.update(extra=1), r"planet: unknown field 'extra'"),
    ],
)
def test_planet_validation_errors(tileset_from_toml, change, expected):
    tileset = tileset_from_toml(VALIDATION_TILES)
    document = valid_document()
    planet_from_json(document, tileset, "planet.json")  # the unchanged document is valid
    change(document)
    with pytest.raises(InputError) as caught:
        planet_from_json(document, tileset, "planet.json")
    message = str(caught.value)
    assert message.startswith("planet.json: ")
    assert "\n" not in message
    assert re.search(expected, message), message


def test_planet_not_an_object(tileset_from_toml):
    tileset = tileset_from_toml(VALIDATION_TILES)
    with pytest.raises(InputError, match=r"^p\.json: planet: expected an object$"):
        planet_from_json([1, 2], tileset, "p.json")


def test_trees_field_may_be_omitted(tileset_from_toml):
    tileset = tileset_from_toml(VALIDATION_TILES)
    document = valid_document()
    del document["trees"]
    assert planet_from_json(document, tileset, "planet.json").trees == []


def test_bad_json_file(tmp_path, tileset_from_toml):
    tileset = tileset_from_toml(VALIDATION_TILES)
    path = tmp_path / "broken.json"
    path.write_text('{"game": "legendary-forests", "tiles": [', encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_planet(path, tileset)
    message = str(caught.value)
    assert message.startswith(f"{path}: planet file is not valid JSON (")
    assert message.endswith("at line 1, column 41)")
    assert "\n" not in message


def test_missing_planet_file(tmp_path, tileset_from_toml):
    tileset = tileset_from_toml(VALIDATION_TILES)
    with pytest.raises(InputError, match=r"absent\.json: planet file not found"):
        load_planet(tmp_path / "absent.json", tileset)


def test_load_planet_errors_name_the_file(tmp_path, tileset_from_toml):
    tileset = tileset_from_toml(VALIDATION_TILES)
    document = valid_document()
    document["trees"][0]["side"] = "Q"
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InputError, match=r"mine\.json: trees\[0\]\.side: expected one of"):
        load_planet(path, tileset)


# --------------------------------------------------------------------------- round trip


def test_round_trip_through_json(tmp_path, example_tiles):
    planet = example_planet()
    document = planet_to_json(planet)
    assert list(document) == ["game", "tiles", "trees"]
    assert document["trees"][0] == {"x": 0, "y": 0, "side": "S", "color": "pink"}
    assert document["tiles"][3] == {"number": 4, "x": 1, "y": 2, "rotation": 1}
    assert planet_from_json(document, example_tiles, "memory") == planet
    path = tmp_path / "planet.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    assert load_planet(path, example_tiles) == planet
