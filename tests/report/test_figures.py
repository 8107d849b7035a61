"""Figures fit for a slide (issue 40): anchored colour scales, legible text on every cell, the
ladder's axis clipped with the far entry annotated, SVG beside PNG with the same bytes for the
same batch, the kept cards' figure named after the game's noun, text legible at phone width."""

import math

import numpy as np
import polars as pl
import pytest

from sim.ladder import LadderResult, LadderRow, ladder_plot
from sim.report import build_report, plots, sweep_plots
from sim.report.build import _draw_figures
from sim.report.cards import draft_figure_name
from sim.report.sweep_plots import Cell, Series, colour_scale, metric_figure
from sim.stats.analysis import analyse_batch
from sim.stats.batch import open_batch
from sim.stats.cards import CARD_MARGIN
from sim.stats.seats import FAIR_MARGIN


@pytest.fixture
def drawn(monkeypatch):
    """Every figure encoded while the test runs, as seen once laid out: a list of dicts with
    the figure's width (inches), its texts (text, colour, size in points) and first axes'
    x limits."""
    seen = []
    real = plots.png_bytes

    def capture(figure):
        image = real(figure)
        texts = [(t.get_text(), t.get_color(), t.get_fontsize())
                 for t in figure.findobj(plots.Text) if t.get_text()]
        seen.append({"width": figure.get_size_inches()[0], "texts": texts,
                     "xlim": figure.axes[0].get_xlim()})
        return image

    monkeypatch.setattr(plots, "png_bytes", capture)
    monkeypatch.setattr(sweep_plots, "png_bytes", capture)
    return seen


GRID = {"players": [2, 3, 4], "supply": [2, 3, 4, 5]}


def _cells(value, low=math.nan, high=math.nan, verdict=""):
    return {(p, s): Cell(value(p, s), low, high, verdict)
            for p in GRID["players"] for s in GRID["supply"]}


def test_heatmap_colours_are_anchored_not_stretched_over_the_data():
    # Skill of 57-61%: on a 0-100% scale, not 57-61%.
    shares = [57.0, 59.0, 61.0]
    assert (colour_scale(shares, "meetings won (%)", 100.0).low,
            colour_scale(shares, "meetings won (%)", 100.0).high) == (0.0, 100.0)
    # A gap judged against a 5-point margin: from 0 to at least twice the margin, marked.
    gap = colour_scale([1.0, 2.0], "largest seat gap (percentage points)", 100.0,
                       reference=(0.05, "fairness margin"))
    assert (gap.low, gap.high, gap.marks) == (0.0, 10.0, (5.0,))
    # A signed gap: symmetric around 0, at least the margin either side.
    signed = colour_scale([-1.0, 2.0], "gap (pp)", 100.0, reference=(0.05, "margin"))
    assert (signed.low, signed.high, signed.marks) == (-5.0, 5.0, (-5.0, 5.0))
    # A mean score has no natural range: the grid's own, and the colour bar says so.
    scores = colour_scale([41.0, 44.0], "mean score (points)", 1.0)
    assert (scores.low, scores.high) == (41.0, 44.0) and "this grid" in scores.note
    assert colour_scale([1.0], "x", 1.0, colour_range=(-3.0, 3.0)).cmap == "RdBu_r"


def test_heatmap_cells_fit_and_read_on_their_colour(drawn):
    cells = _cells(lambda p, s: 0.02 * (p + s), 0.0, 0.15, "undecided")
    series = [Series(name, cells) for name in ("one field", "another")]
    assert metric_figure("Largest seat gap", "gap (pp)", GRID, series, scale=100.0,
                         digits=1, reference=(0.05, "margin")) is not None
    (figure,) = drawn
    smallest = plots.smallest_font_points(figure["width"])
    assert all(size >= smallest - 1e-9 for _, _, size in figure["texts"])
    # 14% on a 0-10 scale of reds is dark: white text; 8% is lighter than 14%.
    colours = {text.split("\n")[0]: colour for text, colour, _ in figure["texts"]}
    assert colours["14.0"] == "white" and colours["8.0"] == "black"


def test_text_colour_follows_the_cell_luminance():
    assert plots.text_colour_on((0.0, 0.0, 0.5, 1.0)) == "white"  # navy
    assert plots.text_colour_on((0.55, 0.0, 0.0, 1.0)) == "white"  # dark red
    assert plots.text_colour_on((0.97, 0.97, 0.97, 1.0)) == "black"  # near white
    assert plots.text_colour_on((0.99, 0.9, 0.15, 1.0)) == "black"  # yellow


def test_head_to_head_text_colours_and_diagonal(drawn):
    matrix = pl.DataFrame({
        "players": [2] * 6, "rules": [""] * 6,
        "strategy": ["a", "a", "b", "b", "c", "c"], "opponent": ["b", "c", "a", "c", "a", "b"],
        "ahead_rate": [0.95, 0.5, 0.05, 0.3, 0.5, 0.7]})
    assert plots.win_matrix(matrix, 2, "") is not None
    colours = {text: colour for text, colour, _ in drawn[0]["texts"]}
    assert colours["95.0%"] == "white" and colours["5.0%"] == "white"  # navy, dark red
    assert colours["50.0%"] == "black"
    assert [text for text, _, _ in drawn[0]["texts"]].count("\u2014") == 3


def _row(label, rating, tier=0):
    return LadderRow(label, rating, rating - 60.0, rating + 60.0, 40.0, 1.0, 0.25, 0.02, 1000,
                     tier=tier)


def test_ladder_axis_is_clipped_and_the_far_entry_annotated(drawn):
    rows = [_row("random", -1100.0), _row("greedy", -80.0, 1), _row("cautious", 0.0, 1),
            _row("expert", 90.0, 1), _row("planner", 150.0, 1)]
    ladder_plot(LadderResult("Game", 2, {}, 1, rows, 2, main=None))
    (figure,) = drawn
    left, right = figure["xlim"]
    assert -300 < left < -140 and 210 < right < 300
    assert any("-1100 (-1160 to -1040), off the scale" in text
               for text, _, _ in figure["texts"])
    # Without a far entry nothing is clipped.
    assert not plots.useful_range(np.array([-80.0, 0.0, 90.0, 150.0]),
                                  np.array([-140.0, -60.0, 30.0, 90.0]),
                                  np.array([-20.0, 60.0, 150.0, 210.0]), 100.0)[2].any()


def test_every_text_is_legible_at_phone_width(drawn):
    with plots.styled_figure(1, "A title") as (figure, (axis,)):
        axis.plot([0, 1], [0, 1])
        axis.set_xticks([0, 1], ["a", "b"], fontsize=6)
        axis.text(0.5, 0.5, "small", fontsize=5)
        plots.png_bytes(figure)
    (figure,) = drawn
    # Shown on a phone's page (342 px), every text is at least 9 px high.
    shown = plots.PHONE_PAGE_PX / (figure["width"] * 72.0)
    assert min(size for _, _, size in figure["texts"]) * shown >= plots.MIN_TEXT_PX - 1e-9


def test_kept_cards_figure_is_named_after_the_noun():
    assert draft_figure_name("nature spirit") == "nature-spirits"
    assert draft_figure_name("animal card") == "animal-cards"


def test_svg_beside_png_with_the_same_bytes_for_the_same_batch(forest_dir, tmp_path):
    report = build_report(forest_dir, tmp_path / "report")
    folder = tmp_path / "report" / "figures"
    pngs = sorted(folder.glob("*.png"))
    assert pngs and all(path.with_suffix(".svg").is_file() for path in pngs)
    # Drawn again from the same batch: the same bytes, PNG and SVG.
    analysis = analyse_batch(open_batch(forest_dir), None, FAIR_MARGIN, CARD_MARGIN)
    again = _draw_figures(analysis, analysis.main_panel())
    assert sorted(again) == [path.stem for path in pngs]
    for name, image in again.items():
        assert bytes(image) == (folder / f"{name}.png").read_bytes()
        assert image.svg == (folder / f"{name}.svg").read_bytes()
    assert "<dc:date>" not in pngs[0].with_suffix(".svg").read_text()
    html = report.html.read_text()
    assert html.count('">SVG</a>') == len(pngs)
    assert f'href="figures/{pngs[0].stem}.svg"' in html
    assert f"([SVG](figures/{pngs[0].stem}.svg))" in report.markdown.read_text()
