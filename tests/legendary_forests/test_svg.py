"""Legendary Forests names and SVG drawings: tile names unique and stable, a tile and a planet
drawn with every piece in its colour, and what reaches the user: `sim play --svg` (seats from 1,
a bad path refused with exit code 2 before any game) and the notable games' ``svg`` column."""

import re
import xml.etree.ElementTree as ElementTree

import polars as pl
import pytest
from typer.testing import CliRunner

from sim.cli import app
from sim.games.legendary_forests.data import COLOUR_NAMES, load_tileset
from sim.games.legendary_forests.position import PlacedTile, Planet, Tree, score_planet
from sim.games.legendary_forests.svg import PALETTE, planet_svg, tile_names, tile_svg
from sim.games.registry import get_game

SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


@pytest.fixture(scope="module")
def tiles():
    return load_tileset()


def parse(text: str) -> ElementTree.Element:
    """The document's root, after the checks every drawing passes: an <svg> with a viewBox and
    no pixel size (it scales), a <title>, no text under 9 units."""
    root = ElementTree.fromstring(text)
    assert root.tag == f"{SVG}svg"
    assert re.fullmatch(r"0 0 [0-9.]+ [0-9.]+", root.get("viewBox"))
    assert root.get("width") is None and root.get("height") is None
    assert root.find(f"{SVG}title").text
    sizes = [float(node.get("font-size")) for node in root.iter(f"{SVG}text")]
    assert sizes and min(sizes) >= 9
    return root


def test_tile_names_describe_the_areas_and_are_unique_and_stable(tiles):
    names = tile_names(tiles)
    assert sorted(names) == list(range(1, tiles.size + 1))
    assert len(set(names.values())) == tiles.size
    assert names[5] == "grass meadow"
    assert names[2] == "pink forest (light)"
    assert names[6] == "grass strip / pink"
    assert names[12] == "pink / red diagonal (light)"
    assert names[21] == "pink band / red, yellow"
    assert names[22] == "grass corner / red, yellow (light)"
    assert names[1] == "four areas p/r/y/p"
    assert tile_names(load_tileset()) == names  # a fresh load names them the same


def test_two_tiles_of_one_shape_are_told_apart_by_number(tileset_from_toml):
    text = "".join(f'[[tiles]]\nnumber = {n}\nlight = false\nsides = ["red", "red", "grass", '
                   f'"grass"]\nareas = [[0, 1], [2, 3]]\n' for n in (1, 2))
    text += '[[tiles]]\nnumber = 3\nlight = true\nsides = ["grass", "red", "red", "grass"]\n' \
            'areas = [[0, 3], [1, 2]]\n'
    assert tile_names(tileset_from_toml(text)) == {
        1: "grass / red diagonal #1", 2: "grass / red diagonal #2",
        3: "grass / red diagonal (light)"}


def test_every_tile_draws_its_areas_in_their_colours_with_number_and_name(tiles):
    names = tile_names(tiles)
    for number in range(1, tiles.size + 1):
        text = tile_svg(tiles, number, names)
        root = parse(text)
        areas = root.findall(f".//{SVG}polygon[@class='area']")
        index = number - 1
        assert len(areas) == int(tiles.area_count[index]) or tiles.area_count[index] == 4
        expected = {COLOUR_NAMES[int(c)] for c in tiles.side_colour[index]}
        assert {area.get("data-colour") for area in areas} == expected
        assert all(area.get("fill") == PALETTE[area.get("data-colour")] for area in areas)
        words = [node.text for node in root.iter(f"{SVG}text")]
        assert str(number) in words and names[number] in words
        assert text == tile_svg(tiles, number, names)  # byte-identical


def hand_made_planet() -> Planet:
    """Tile 1 (p/r/y/p) with the all-pink tile 2 on its north side and the all-red tile 3 on
    its east; a pink tree on tile 2 and a red one on tile 3."""
    return Planet(tiles=[PlacedTile(1, 0, 0, 0), PlacedTile(2, 0, -1, 0), PlacedTile(3, 1, 0, 1)],
                  trees=[Tree(0, -1, 0, 1), Tree(1, 0, 1, 2)])


def test_a_planet_shows_its_tiles_turned_as_placed_its_trees_and_its_score(tiles):
    planet = hand_made_planet()
    text = planet_svg(planet, tiles, "Seat 2 (greedy): 6 points")
    root = parse(text)
    groups = {g.get("data-tile"): g for g in root.iter(f"{SVG}g") if g.get("class") == "tile"}
    assert set(groups) == {"1", "2", "3"}
    assert groups["3"].get("data-rotation") == "1" and "rotate(90 " in groups["3"].get(
        "transform")

    def colours(group):
        return {area.get("data-colour")
                for area in group.findall(f"{SVG}polygon[@class='area']")}

    assert colours(groups["1"]) == {"pink", "red", "yellow"}
    assert colours(groups["2"]) == {"pink"} and colours(groups["3"]) == {"red"}
    trees = [g for g in root.iter(f"{SVG}g") if g.get("class") == "tree"]
    assert sorted(t.get("data-colour") for t in trees) == ["pink", "red"]
    words = [node.text for node in root.iter(f"{SVG}text")]
    assert "Seat 2 (greedy): 6 points" in words
    assert planet_svg(planet, tiles) == planet_svg(planet, tiles)
    assert f"{score_planet(planet, tiles).total} points" in planet_svg(planet, tiles)


def test_the_game_names_and_draws_tiles_under_the_noun_of_its_reports(tiles):
    game = get_game("legendary-forests")
    (removed, _) = game.deal_covariates()
    assert removed.item == "tile"
    names = game.item_names(tiles)
    assert set(names) == {"tile"} and names["tile"] == tile_names(tiles)
    parse(game.item_svg("tile", 7, tiles))
    assert game.item_svg("tile", 0, tiles) is None
    assert game.item_svg("animal card", 7, tiles) is None


def test_play_writes_every_seat_side_by_side_counting_seats_from_1(tmp_path):
    out = tmp_path / "game.svg"
    result = runner.invoke(app, ["play", "-p", "3", "--seed", "4", "--svg", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith(f"wrote {out}")
    assert "trees (token with seat 1)" in result.output
    assert not re.search(r"\bseat 0\b", result.output)
    root = parse(out.read_text())
    seats = root.findall(f"{SVG}svg")
    assert len(seats) == 3
    headings = [seat.find(f"{SVG}text").text for seat in seats]
    assert [h.split(" (")[0] for h in headings] == ["Seat 1", "Seat 2", "Seat 3"]
    printed = re.findall(r"^seat (\d) \(.*?\): (\d+) points", result.output, flags=re.M)
    assert [f"Seat {s} (greedy): {p} points" for s, p in printed] == headings


@pytest.mark.parametrize("bad", ["folder", "under-a-file"])
def test_play_refuses_a_bad_svg_path_in_one_line_before_playing(tmp_path, bad):
    (tmp_path / "file").write_text("x")
    path = tmp_path if bad == "folder" else tmp_path / "file" / "game.svg"
    result = runner.invoke(app, ["play", "-p", "2", "--svg", str(path)])
    assert result.exit_code == 2
    assert result.output.count("\n") == 1 and "--svg" in result.output
    assert "turn" not in result.output  # refused before the game


def test_notable_games_carry_an_svg_of_each_seat(tmp_path):
    out = tmp_path / "run"
    config = tmp_path / "small.toml"
    config.write_text('players = 2\nstrategies = ["greedy"]\ngames = 20\nseed = 2\n'
                      'shard_size = 20\n')
    result = runner.invoke(app, ["run", str(config), "--out", str(out), "--workers", "1"])
    assert result.exit_code == 0, result.output
    notable = pl.read_parquet(sorted((out / "notable").glob("*.parquet"))[0])
    assert notable["svg"].null_count() == 0 and notable.height == 4
    for row in notable.iter_rows(named=True):
        root = parse(row["svg"])
        assert root.find(f"{SVG}text").text == (f"Seat {row['seat'] + 1} ({row['strategy']}): "
                                               f"{row['score']} points")
