"""Tile-set loading: the shipped default set and every validation error of the TOML format."""

import numpy as np
import pytest

from sim.errors import InputError
from sim.games.legendary_forests.data import (
    DEFAULT_TILES_PATH,
    GRASS,
    PINK,
    RED,
    YELLOW,
    load_tileset,
)

GOOD_TILE_1 = """
[[tiles]]
number = 1
light = false
sides = ["pink", "red", "yellow", "pink"]
areas = [[0], [1], [2], [3]]
"""


def tile_block(number, sides, areas, light="false"):
    quoted = ", ".join(f'"{colour}"' for colour in sides)
    return f"\n[[tiles]]\nnumber = {number}\nlight = {light}\nsides = [{quoted}]\nareas = {areas}\n"


def test_default_set_loads_with_25_tiles():
    tileset = load_tileset()
    assert tileset.size == 25
    assert load_tileset(DEFAULT_TILES_PATH).digest() == tileset.digest()


def test_default_set_design_properties():
    tileset = load_tileset()
    counts = np.bincount(tileset.side_colour.ravel(), minlength=4)
    # Leaf colours balanced, grass on about a quarter of all sides.
    assert counts[PINK] == counts[RED] == counts[YELLOW] == 25
    assert counts[GRASS] == 25
    # About 8 light tiles among the drawable tiles 2..25 (19 x 8/24 = 6.3 expected light draws).
    assert int(tileset.light[1:].sum()) == 8
    # Tile 1 is a good start: no grass, every leaf colour present.
    assert GRASS not in tileset.side_colour[0]
    assert {PINK, RED, YELLOW} <= set(tileset.side_colour[0].tolist())
    # Shape mix: one-, two-, three- and four-area tiles all present.
    assert set(tileset.area_count.tolist()) == {1, 2, 3, 4}
    shapes = set()
    for index in range(tileset.size):
        areas = [
            tuple(side for side in range(4) if tileset.side_area[index, side] == area)
            for area in range(tileset.area_count[index])
        ]
        # Geometrically plausible: no area {N, S} together with an area {E, W}.
        assert not ((0, 2) in areas and (1, 3) in areas), index + 1
        sizes = sorted(len(area) for area in areas)
        if sizes == [2, 2]:
            assert sorted(areas) in ([(0, 1), (2, 3)], [(0, 3), (1, 2)])
            shapes.add("corner split")
        elif sizes == [1, 3]:
            shapes.add("straight split")
    assert shapes == {"corner split", "straight split"}
    # Two same-coloured areas on one tile occur (a grass road between them).
    assert any(
        len(set(tileset.area_colour[index, : tileset.area_count[index]].tolist()))
        < tileset.area_count[index]
        for index in range(tileset.size)
    )


def write(tmp_path, text, name="bad_tiles.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            GOOD_TILE_1 + tile_block(3, ["pink"] * 4, "[[0, 1, 2, 3]]"),
            "tile 2: missing",
        ),
        (
            GOOD_TILE_1
            + tile_block(2, ["pink"] * 4, "[[0, 1, 2, 3]]")
            + tile_block(2, ["red"] * 4, "[[0, 1, 2, 3]]"),
            "tile 2: duplicate tile number",
        ),
        (
            GOOD_TILE_1 + tile_block(2, ["pink", "blue", "pink", "pink"], "[[0, 1, 2, 3]]"),
            "tile 2: side E has colour 'blue', not one of grass, pink, red, yellow",
        ),
        (
            GOOD_TILE_1 + tile_block(2, ["pink"] * 4, "[[0, 1, 2], [2, 3]]"),
            "tile 2: side S is in two areas",
        ),
        (
            GOOD_TILE_1 + tile_block(2, ["pink"] * 4, "[[0, 1, 2]]"),
            "tile 2: side W is in no area",
        ),
        (
            GOOD_TILE_1 + tile_block(2, ["pink", "red", "red", "red"], "[[0, 1], [2, 3]]"),
            "tile 2: area 0 mixes colours pink, red",
        ),
        (
            tile_block(2, ["pink"] * 4, "[[0, 1, 2, 3]]"),
            "tile 1: absent",
        ),
    ],
    ids=["missing", "duplicate", "colour", "two-areas", "no-area", "mixed-area", "no-tile-1"],
)
def test_tileset_violations_name_file_tile_and_reason(tmp_path, text, expected):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as caught:
        load_tileset(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ")
    assert expected in message
    assert "\n" not in message


def test_bad_toml(tmp_path):
    path = write(tmp_path, "[[tiles]\nnumber = ")
    with pytest.raises(InputError, match=r"bad_tiles\.toml: tile set file is not valid TOML"):
        load_tileset(path)


def test_missing_file(tmp_path):
    path = tmp_path / "nowhere.toml"
    with pytest.raises(InputError, match=r"nowhere\.toml: tile set file not found"):
        load_tileset(path)


def test_valid_small_set_arrays(tmp_path):
    path = write(
        tmp_path,
        GOOD_TILE_1
        + tile_block(2, ["grass", "pink", "grass", "pink"], "[[0, 2], [1], [3]]", "true"),
        "small.toml",
    )
    tileset = load_tileset(path)
    assert tileset.size == 2
    assert tileset.light.tolist() == [False, True]
    assert tileset.side_colour[1].tolist() == [GRASS, PINK, GRASS, PINK]
    assert tileset.side_area[1].tolist() == [0, 1, 0, 2]
    assert tileset.area_colour[1, :3].tolist() == [GRASS, PINK, PINK]
