"""Harmonies names and SVG drawings: cards and spirits named uniquely under the nouns of the
reports, a hand-made board drawn token by token with its cubes, animal cards and spirits drawn
with their habitat, track or bonus, and `sim play --svg` for Harmonies."""

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import replace

from typer.testing import CliRunner

from sim.cli import app
from sim.games.harmonies.svg import (
    PALETTE,
    board_svg,
    card_names,
    card_svg,
    spirit_bonus_text,
)
from sim.games.registry import get_game

from .conftest import make_board

SVG = "{http://www.w3.org/2000/svg}"
runner = CliRunner()


def parse(text: str) -> ElementTree.Element:
    """The root, after the checks every drawing passes: a viewBox and no pixel size, a <title>,
    no text under 9 units."""
    root = ElementTree.fromstring(text)
    assert re.fullmatch(r"0 0 [0-9.]+ [0-9.]+", root.get("viewBox"))
    assert root.get("width") is None and root.find(f"{SVG}title").text
    assert min(float(node.get("font-size")) for node in root.iter(f"{SVG}text")) >= 9
    return root


def words(root) -> list[str]:
    return [node.text for node in root.iter(f"{SVG}text")]


def test_cards_by_animal_spirits_by_bonus_unique_under_the_reports_nouns(data):
    game = get_game("harmonies")
    names = game.item_names(data)
    assert set(names) == {game.card_columns().noun, game.draft_columns().noun}
    assert game.deal_covariates()[0].item == game.card_columns().noun
    animals, spirits = names["animal card"], names["nature spirit"]
    assert animals[1] == "alligator" and len(animals) == len(data.animals)
    assert spirits[33] == "field groups 2/2/10" and spirits[42] == "blue tokens 2"
    every = [*animals.values(), *spirits.values()]
    assert len(set(every)) == len(every)
    assert game.item_names(data) == names  # stable


def test_a_spirit_keeps_a_name_the_data_gives_and_shared_names_get_the_id(data):
    named = replace(data.spirits[0], name="sun")
    twin = replace(data.animals[1], id=99)
    names = card_names((data.animals[0], data.animals[1], twin, named))
    assert names[named.id] == "sun"
    assert names[data.animals[1].id] == f"ray #{data.animals[1].id}" and names[99] == "ray #99"


def test_spirit_bonus_in_words(data):
    by_id = {card.id: card for card in data.spirits}
    assert spirit_bonus_text(by_id[33]) == ("2 per field group of size 1-2; "
                                            "10 per field group of size 3+")
    assert spirit_bonus_text(by_id[35]) == "4 per tree of height 2-3"
    assert spirit_bonus_text(by_id[42]) == "2 per blue token"


def test_a_board_shows_every_hex_each_token_by_height_and_the_cubes(data):
    board = make_board("A", {(0, 0): "brown+brown+green", (1, 0): "blue", (2, 1): "gray+red"},
                         cubes=[(0, 0)])
    text = board_svg(board, data, "Seat 1 (greedy): 12 points", "trees 7, water 5")
    root = parse(text)
    hexes = root.findall(f".//{SVG}polygon[@class='hex']")
    assert len(hexes) == data.sides["A"].hex_count
    tokens = [(t.get("data-colour"), t.get("data-level"), t.get("fill"))
              for t in root.iter(f"{SVG}rect") if t.get("class") == "token"]
    # The legend draws one token of each colour after the board's.
    assert tokens[:6] == [("brown", "0", PALETTE["brown"]), ("brown", "1", PALETTE["brown"]),
                          ("green", "2", PALETTE["green"]), ("blue", "0", PALETTE["blue"]),
                          ("gray", "0", PALETTE["gray"]), ("red", "1", PALETTE["red"])]
    cubes = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "cube"]
    assert len(cubes) == 1 + 1  # the board's and the legend's
    assert "Seat 1 (greedy): 12 points" in words(root) and "trees 7, water 5" in words(root)
    assert text == board_svg(board, data, "Seat 1 (greedy): 12 points", "trees 7, water 5")


def test_an_animal_card_shows_its_habitat_and_points_track(data):
    card = data.animals[0]
    root = parse(card_svg(card))
    assert len(root.findall(f".//{SVG}polygon[@class='hex']")) == len(card.habitat)
    assert "animal card 1: alligator" in words(root)
    assert [w for w in words(root) if w.isdigit()] == [str(p) for p in card.points]
    assert sum(1 for r in root.iter(f"{SVG}rect") if r.get("class") == "cube") == 1


def test_a_building_in_a_habitat_is_red_on_any_base(data):
    card = next(c for c in data.animals if any(h.text == "BLD" for h in c.habitat))
    root = parse(card_svg(card))
    colours = [t.get("data-colour") for t in root.iter(f"{SVG}rect") if t.get("class") == "token"]
    assert "any" in colours and "red" in colours


def test_a_spirit_shows_its_name_habitat_and_bonus(data):
    game = get_game("harmonies")
    root = parse(game.item_svg("nature spirit", 35, data))
    assert "nature spirit 35: trees 0/4/4" in words(root)
    assert any("4 per tree of height 2-3" in w for w in words(root))
    assert game.item_svg("nature spirit", 1, data) is None
    assert game.item_svg("tile", 35, data) is None


def test_play_svg_draws_every_board_with_seats_from_1(tmp_path):
    out = tmp_path / "boards.svg"
    result = runner.invoke(app, ["play", "--game", "harmonies", "-p", "2", "--seed", "6",
                                 "--svg", str(out)])
    assert result.exit_code == 0, result.output
    assert not re.search(r"\bseat 0\b", result.output)
    seats = parse(out.read_text()).findall(f"{SVG}svg")
    printed = re.findall(r"^seat (\d) \(greedy\): (\d+) points", result.output, flags=re.M)
    assert [seat.find(f"{SVG}text").text for seat in seats] == \
        [f"Seat {s} (greedy): {p} points" for s, p in printed]
