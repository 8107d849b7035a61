"""Cards, spirits and tiles by number and name in the reports, and the game's drawings of them
(issue 40): the labels and sentences, the fall-back to numbers with one note, the pictures of the
strongest and weakest items and of a sample final position, determinism."""

from types import SimpleNamespace

import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.games.registry import get_game
from sim.report import build_report
from sim.report.build import sample_position
from sim.report.document import Picture, picture_width, render_html, render_markdown
from sim.report.field_plots import named_member_labels
from sim.report.names import ItemNames, batch_item_names, item_slug, merged_names
from sim.stats.synthetic import SyntheticDesign, write_synthetic_batch
from tests.report.conftest import record_data_digest, shipped_digest

HARMONIES = get_game("harmonies")
FOREST = get_game("legendary-forests")
SVG = ('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 240 120"><title>x</title>'
       '<text x="10" y="20" font-size="12">seat</text></svg>')


@pytest.fixture(scope="module")
def named_card_report(named_card_dir, tmp_path_factory):
    return build_report(named_card_dir, tmp_path_factory.mktemp("named-cards-report"))


def test_labels_sentences_and_annotations_keep_the_number():
    names = ItemNames(None, {"tile": {2: "pink forest (light)", 5: "grass meadow"},
                             "animal card": {31: "ladybug"}})
    assert names.label("animal card", 31) == "31 ladybug"
    assert names.label("animal card", 7) == "7"  # unnamed: the number alone
    assert names.mention("tile", 2) == "tile 2 (pink forest, light)"  # no nested parentheses
    text = ("Removing tile 2 unseen; tile 5.5 points; tiles 5; Animal card 31 is too strong; "
            "animal card 31 (ladybug) again; tile 7")
    assert names.annotate(text) == (
        "Removing tile 2 (pink forest, light) unseen; tile 5.5 points; tiles 5; Animal card 31 "
        "(ladybug) is too strong; animal card 31 (ladybug) again; tile 7")
    assert item_slug("nature spirit", 34) == "nature-spirit-34"


def test_names_come_from_the_data_played_or_fall_back_to_numbers_with_one_note(tmp_path):
    manifest = {"config": {"data_file": None}, "data_digest": shipped_digest(FOREST)}
    names = batch_item_names("legendary-forests", manifest, tmp_path)
    assert names.note is None and names.name("tile", 5)
    other = batch_item_names("legendary-forests", {**manifest, "data_digest": "synthetic"},
                             tmp_path)
    assert other.names == {} and "not the data the batch was played with" in other.note
    missing = batch_item_names("legendary-forests", {"config": {"data_file": "input/gone.toml"},
                                                     "data_digest": "x"}, tmp_path)
    assert missing.names == {} and "could not be loaded" in missing.note
    # A game that names nothing gets no note.
    assert batch_item_names("pick-two", {"config": {}}, tmp_path).note is None
    # Several batches: a name only where they agree.
    merged = merged_names([ItemNames(None, {"tile": {1: "a", 2: "b"}}),
                           ItemNames(None, {"tile": {1: "a", 2: "c"}})])
    assert merged.names == {"tile": {1: "a"}} and "different names" in merged.note


def test_the_card_sections_name_every_card_and_draw_the_strongest_and_weakest(
        named_card_report):
    markdown = named_card_report.markdown.read_text()
    spirits = HARMONIES.item_names(HARMONIES.load_data(None))["nature spirit"]
    cards = HARMONIES.item_names(HARMONIES.load_data(None))["animal card"]
    assert f"Nature spirit 35 ({spirits[35]}), the strongest estimate" in markdown
    assert "Shown too strong: " in markdown
    assert f"| 7 {cards[7]} |" in markdown  # the card table: number and name
    figures = named_card_report.markdown.parent / "figures"
    drawn = sorted(path.name for path in figures.glob("*-*.svg")
                   if path.name.startswith(("animal-card-", "nature-spirit-")))
    assert "nature-spirit-35.svg" in drawn and len(drawn) == 4  # two cards, two spirits
    for name in drawn:
        assert f"(figures/{name})" in markdown
    html = named_card_report.html.read_text()
    assert html.count("data:image/svg+xml;base64,") >= 5  # the four items and the position
    assert "Items are shown by number only" not in markdown


def test_the_sample_position_is_the_best_games_winner_and_summary_links_it(named_card_report):
    folder = named_card_report.markdown.parent
    position = (folder / "figures" / "sample-position.svg").read_text()
    markdown = named_card_report.markdown.read_text()
    assert "(figures/sample-position.svg)" in markdown
    assert "(figures/sample-position.svg)" in (folder / "summary.md").read_text()
    game = int(position.split("<title>game ")[1].split(" ")[0])
    assert f"the winner's in game {game}, the highest-scoring game" in markdown


def test_reporting_the_same_batch_twice_gives_the_same_files(named_card_dir, named_card_report,
                                                             tmp_path):
    build_report(named_card_dir, tmp_path / "again")
    first = named_card_report.markdown.parent
    names = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert names == sorted(p.relative_to(tmp_path / "again")
                           for p in (tmp_path / "again").rglob("*") if p.is_file())
    for name in names:
        assert (first / name).read_bytes() == (tmp_path / "again" / name).read_bytes(), name


def test_sample_position_needs_the_svg_column(tmp_path):
    notable = pl.DataFrame({"game_id": [3, 3, 8, 8], "kind": ["highest"] * 2 + ["lowest"] * 2,
                            "seat": [0, 1, 0, 1], "strategy": ["a", "b", "a", "b"],
                            "score": [50, 61, 10, 12], "drawing": ["x"] * 4})
    old = tmp_path / "old.parquet"
    notable.write_parquet(old)
    analysis = SimpleNamespace(notable=notable, batch=SimpleNamespace(notable_files=(old,)))
    assert sample_position(analysis) is None  # a batch from before the column
    new = tmp_path / "new.parquet"
    notable.with_columns(svg=pl.format("<svg>{}-{}</svg>", "game_id", "seat")).write_parquet(new)
    analysis.batch.notable_files = (new,)
    picture = sample_position(analysis)
    assert picture.svg == "<svg>3-1</svg>" and "seat 2 (b), 61 points" in picture.caption


def test_a_picture_is_shown_at_its_own_width_and_linked_as_svg():
    assert picture_width(SVG) == 240 and picture_width("<svg></svg>") == 320
    blocks = [Picture("tile-5", SVG, "Tile 5"), Picture("tile-7", SVG, "Tile 7")]
    html = render_html("t", blocks, svg_dir="figures")
    assert html.count('<div class="pictures">') == 1 and 'width="240"' in html
    assert 'href="figures/tile-5.svg"' in html
    assert "![Tile 5](figures/tile-5.svg)" in render_markdown("t", blocks, "figures")


def test_the_tile_impact_names_the_tiles_and_draws_the_extremes(forest_rows, tmp_path):
    run_dir = tmp_path / "forest"
    write_synthetic_batch(run_dir, SyntheticDesign(
        name="forest", deals=300, replicates=2, games_per_shard=100,
        lineup=("greedy", "random", "greedy", "random"), rotate_lineup=True,
        deal_model=ForestDeals(tile_points={5: 3.0})), forest_rows)
    record_data_digest(run_dir, shipped_digest(FOREST))
    result = build_report(run_dir, tmp_path / "report")
    markdown = result.markdown.read_text()
    tiles = FOREST.item_names(FOREST.load_data(None))["tile"]
    assert f"| 5 {tiles[5]} |" in markdown
    drawn = sorted((tmp_path / "report" / "figures").glob("tile-*.svg"))
    assert 1 <= len(drawn) <= 2
    assert all(f"(figures/{path.name})" in markdown for path in drawn)


def test_field_figures_name_the_item_a_finding_is_about():
    finding = SimpleNamespace(noun="the score difference of deals with tile 5 removed unseen",
                              key="removed_tiles_mask/5")
    other = SimpleNamespace(noun="the score difference of deals with tile 9 removed unseen",
                            key="removed_tiles_mask/9")
    names = ItemNames(FOREST, {"tile": {5: "grass meadow"}})
    assert named_member_labels([finding, other], names) == ["tile 5 grass meadow", "tile 9"]
    assert named_member_labels([finding, other]) == ["tile 5", "tile 9"]
