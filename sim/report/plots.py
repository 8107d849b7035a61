"""The report's figures: matplotlib (Agg), one style, PNG (with SVG beside it) for a slide.

Each function takes the statistics' tables and returns a ``FigureImage`` (PNG bytes that also
carry the SVG of the same figure), or None when there is nothing to draw. Titles say what is
shown, axes carry units, intervals are drawn as bars or bands.

Legibility rule (one for every figure): a figure is shown at most as wide as a phone's page
(``PHONE_PAGE_PX``), and there its smallest text must still be ``MIN_TEXT_PX`` high. Text of
``p`` points on a figure ``w`` inches wide shown ``d`` pixels wide is ``p / 72 * d / w`` pixels
high whatever the resolution, so the smallest font is ``MIN_TEXT_PX * 72 * w / d`` points
(``smallest_font_points``): 14.2 points on the standard ``FIGURE_WIDTH`` of 7.5 inches.
``styled_figure`` sets its fonts from it and ``png_bytes`` raises any text drawn smaller.
"""

from __future__ import annotations

import io
import math
import textwrap
from contextlib import contextmanager
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from sim.games.base import RandomisedCountEffect  # noqa: E402
from sim.stats.variance import worded_count  # noqa: E402

# A 390 px phone less the report page's side margins (1.5em each at 16 px): the width a figure
# is shown at on a phone.
PHONE_PAGE_PX = 390 - 2 * 24
MIN_TEXT_PX = 9.0
FIGURE_WIDTH = 7.5  # inches; 16:9 with FIGURE_HEIGHT, 1200 px wide at SAVE_DPI
FIGURE_HEIGHT = 4.2
SAVE_DPI = 160


def smallest_font_points(width_inches: float) -> float:
    """The smallest font (points) legible on a figure ``width_inches`` wide: ``MIN_TEXT_PX``
    high when the figure is shown ``PHONE_PAGE_PX`` wide (see the module docstring)."""
    return MIN_TEXT_PX * 72.0 * width_inches / PHONE_PAGE_PX


SMALLEST_FONT = math.ceil(smallest_font_points(FIGURE_WIDTH))  # 15 points
STYLE = {
    "figure.figsize": (FIGURE_WIDTH, FIGURE_HEIGHT),
    "figure.dpi": 100,
    "savefig.dpi": SAVE_DPI,
    "font.size": SMALLEST_FONT,
    "axes.titlesize": SMALLEST_FONT + 2,
    "axes.titleweight": "bold",
    "axes.labelsize": SMALLEST_FONT + 1,
    "xtick.labelsize": SMALLEST_FONT,
    "ytick.labelsize": SMALLEST_FONT,
    "legend.fontsize": SMALLEST_FONT,
    "legend.title_fontsize": SMALLEST_FONT,
    "figure.titlesize": SMALLEST_FONT + 3,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728",
                                                "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]),
    # The same SVG bytes for the same figure: element ids from a fixed salt, not a random one.
    "svg.hashsalt": "sim-report",
}
NEUTRAL = "#1f77b4"
# The removed-tile chart: neither colour reads as "good" or "bad" (a tile whose removal raises
# scores is not a good tile, nor a bad one); the chart's legend says what each colour means.
SCORE_UP, SCORE_DOWN = "#e08214", "#5e3c99"
MAX_PANELS = 4
# Beyond this many panels side by side they are laid out in rows (a phone shows two at most).
MAX_COLUMNS = 2
# Relative luminance below which white text reads better than black (the point where the
# contrast ratios of the two are equal, WCAG 2).
DARK_LUMINANCE = 0.179


class FigureImage(bytes):
    """A figure's PNG bytes (use them as any bytes) that also carry the same figure as SVG
    (``svg``; empty when not drawn)."""

    svg: bytes

    def __new__(cls, png: bytes, svg: bytes = b""):
        image = super().__new__(cls, png)
        image.svg = svg
        return image


def wrap_title(text: str, font_points: float, width_inches: float = FIGURE_WIDTH) -> str:
    """``text`` broken into lines that fit a figure ``width_inches`` wide at ``font_points``
    (an average bold glyph is taken as 0.62 em wide)."""
    characters = max(16, int(width_inches * 72 / (0.62 * font_points)))
    return "\n".join(textwrap.fill(line, characters, break_on_hyphens=False)
                     for line in text.split("\n"))


def wrap_titles(figure) -> None:
    """Break the figure's title and every panel's title into lines that fit their width (a
    panel's subtitle such as "4 players; unfair within ±5 pp; p = ..." runs past a narrow
    panel)."""
    width = figure.get_size_inches()[0]
    titles = [(figure._suptitle, width)] if figure._suptitle is not None else []
    titles += [(axis.title, axis.get_position().width * width) for axis in figure.axes]
    for title, inches in titles:
        if title.get_text():
            title.set_text(wrap_title(title.get_text(), title.get_fontsize(), inches))


# A chart with one row per item (a card, a tile, named on the y axis): the height of a row and
# what the title, the axis label and the legend take besides (inches).
ITEM_ROW_HEIGHT = 0.34
ITEM_CHART_EXTRA = 2.4


def item_chart_height(items: int) -> float:
    """The height (inches) of a chart with one row per item: at least ``FIGURE_HEIGHT``, and
    room for every item's name on the y axis at the figures' font size."""
    return max(FIGURE_HEIGHT, ITEM_ROW_HEIGHT * items + ITEM_CHART_EXTRA)


@contextmanager
def styled_figure(panels: int = 1, title: str = "", columns: int = MAX_COLUMNS,
                  height: float | None = None):
    """A styled figure ``FIGURE_WIDTH`` wide with ``panels`` axes, at most ``columns`` side by
    side and the rest in rows below (each row as tall as a one-row figure, or ``height``
    inches in all); yields (figure, axes list in reading order). Fonts follow the legibility
    rule (module docstring)."""
    columns = max(1, min(panels, columns))
    rows = math.ceil(panels / columns)
    with plt.rc_context(STYLE):
        figure, axes = plt.subplots(rows, columns, squeeze=False,
                                    figsize=(FIGURE_WIDTH, height or FIGURE_HEIGHT * rows))
        flat = list(axes.flat)
        for spare in flat[panels:]:
            spare.remove()
        if title:
            figure.suptitle(wrap_title(title, STYLE["figure.titlesize"]),
                            fontweight="bold")
        try:
            yield figure, flat[:panels]
        finally:
            plt.close(figure)


def raise_small_text(figure) -> None:
    """Raise every text of ``figure`` smaller than the legibility rule allows for its width
    (explicit small sizes included) to that size."""
    smallest = smallest_font_points(figure.get_size_inches()[0])
    for text in figure.findobj(Text):
        if text.get_text() and text.get_fontsize() < smallest:
            text.set_fontsize(smallest)


# The PNG text chunk that records a figure's smallest font (points), so that a check of the
# page (the browser test) can tell how high its text is shown: points / 72 * SAVE_DPI pixels
# of the PNG, scaled by the width shown over the PNG's width.
SMALLEST_FONT_KEY = "sim-smallest-font-points"


def smallest_text_points(figure) -> float:
    """The smallest font size (points) of any text the figure shows."""
    sizes = [text.get_fontsize() for text in figure.findobj(Text)
             if text.get_text() and text.get_visible()]
    return float(min(sizes)) if sizes else 0.0


def png_bytes(figure) -> FigureImage:
    """The figure laid out tight, as PNG bytes carrying its SVG (the same bytes for the same
    figure: no date in the SVG, a fixed id salt, and Agg writes no timestamp)."""
    raise_small_text(figure)
    wrap_titles(figure)
    if figure.get_layout_engine() is None:
        # A figure with its own layout (constrained: a colour bar shared by panels) keeps it.
        figure.tight_layout()
    png, svg = io.BytesIO(), io.BytesIO()
    with plt.rc_context({"svg.hashsalt": STYLE["svg.hashsalt"]}):
        figure.savefig(png, format="png", dpi=SAVE_DPI,
                       metadata={SMALLEST_FONT_KEY: f"{smallest_text_points(figure):.2f}"})
        figure.savefig(svg, format="svg", metadata={"Date": None})
    return FigureImage(png.getvalue(), svg.getvalue())


def write_figure_files(folder: Path, name: str, image: bytes) -> list[Path]:
    """Write ``image`` as ``folder/name.png`` and, when it carries one, its SVG as
    ``folder/name.svg`` beside it; the paths written."""
    from sim.files import write_bytes_atomic

    paths = [Path(folder) / f"{name}.png"]
    write_bytes_atomic(paths[0], bytes(image))
    svg = getattr(image, "svg", b"")
    if svg:
        paths.append(Path(folder) / f"{name}.svg")
        write_bytes_atomic(paths[1], svg)
    return paths


def relative_luminance(rgba) -> float:
    """The WCAG relative luminance of a colour (RGB(A) in 0..1)."""
    channels = np.asarray(rgba[:3], dtype=float)
    linear = np.where(channels <= 0.04045, channels / 12.92, ((channels + 0.055) / 1.055) ** 2.4)
    return float(linear @ np.array([0.2126, 0.7152, 0.0722]))


def text_colour_on(rgba) -> str:
    """White on a dark background colour, black on a light one (by relative luminance)."""
    return "white" if relative_luminance(rgba) < DARK_LUMINANCE else "black"


def _panel_title(players: int, rules: str) -> str:
    return f"{players} players" + (f", {rules}" if rules else "")


def _panels(frame: pl.DataFrame) -> list[tuple[tuple[int, str], pl.DataFrame]]:
    """(players, rules) groups of ``frame`` in order, at most ``MAX_PANELS``."""
    groups = sorted(frame.group_by(["players", "rules"]), key=lambda item: item[0])
    return groups[:MAX_PANELS]


def score_distributions(pooled_histogram: pl.DataFrame) -> bytes | None:
    """Share of player-games at each score, one line per strategy, one panel per player
    count."""
    panels = _panels(pooled_histogram)
    if not panels:
        return None
    with styled_figure(len(panels), "Final score distribution by strategy") as (figure, axes):
        for axis, ((players, rules), panel) in zip(axes, panels, strict=False):
            for strategy, part in sorted(panel.group_by("strategy"), key=lambda item: item[0]):
                part = part.sort("score")
                share = 100 * part["count"] / part["count"].sum()
                axis.step(part["score"], share, where="mid", linewidth=2,
                          label=f"{strategy[0]} (n = {part['count'].sum():,})")
            axis.set_title(_panel_title(players, rules))
            axis.set_xlabel("Final score (points)")
            axis.set_ylabel("Share of player-games (%)")
            axis.legend(loc="upper left")
        return png_bytes(figure)


def seat_win_rates(seats: pl.DataFrame, tests: pl.DataFrame) -> bytes | None:
    """Win rate by seat (seats counted from 1) with 95% cluster-robust intervals and the
    equal-share line."""
    panels = _panels(seats)
    if not panels:
        return None
    with styled_figure(len(panels), "Win rate by seat (95% intervals)") as (figure, axes):
        for axis, ((players, rules), panel) in zip(axes, panels, strict=False):
            panel = panel.sort("seat")
            rate = 100 * panel["win_rate"].to_numpy()
            error = np.vstack([rate - 100 * panel["win_rate_low"].to_numpy(),
                               100 * panel["win_rate_high"].to_numpy() - rate])
            axis.bar(panel["seat"].to_numpy() + 1, rate, color=NEUTRAL, alpha=0.8)
            axis.errorbar(panel["seat"].to_numpy() + 1, rate, yerr=error, fmt="none",
                          ecolor="black", capsize=6, linewidth=1.5)
            axis.axhline(100 / players, color="black", linestyle="--", linewidth=1.2,
                         label=f"equal share ({100 / players:.1f}%)")
            test = tests.filter((pl.col("players") == players) & (pl.col("rules") == rules))
            subtitle = _panel_title(players, rules)
            if not test.is_empty() and test["verdict"][0] is not None:
                subtitle += f"; {test['verdict'][0]} within ±{100 * test['fair_margin'][0]:g} pp"
            if not test.is_empty() and test["p_value"][0] is not None:
                p_value = test["p_value"][0]
                subtitle += "; equal seats: " + ("p < 1e-300" if p_value < 1e-300
                                                 else f"p = {p_value:.2g}")
            axis.set_title(subtitle)
            axis.set_xticks(panel["seat"].to_numpy() + 1)
            axis.set_xlabel("Seat (1 = first player)")
            axis.set_ylabel("Win rate (% of games)")
            axis.legend(loc="best")  # clear of the bars, whichever seat is low
        return png_bytes(figure)


def win_matrix(matrix: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """Heat map: how often the row strategy finishes ahead of the column strategy."""
    if matrix is None:
        return None
    panel = matrix.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    names = sorted(set(panel["strategy"]) | set(panel["opponent"]))
    grid = np.full((len(names), len(names)), np.nan)
    for row in panel.iter_rows(named=True):
        grid[names.index(row["strategy"]), names.index(row["opponent"])] = 100 * row["ahead_rate"]
    with styled_figure(1, "Head to head: row finishes ahead of column") as (figure, axes):
        axis = axes[0]
        image = axis.imshow(grid, cmap="RdBu", vmin=0, vmax=100)
        axis.grid(False)
        for (i, j), value in np.ndenumerate(grid):
            if i == j:
                # A strategy does not meet itself: a dash says so (a blank cell reads as lost).
                axis.text(j, i, "\u2014", ha="center", va="center", color="black")
            elif not np.isnan(value):
                colour = text_colour_on(image.cmap(image.norm(value)))
                axis.text(j, i, f"{value:.1f}%", ha="center", va="center", color=colour)
        axis.set_xticks(range(len(names)), names, rotation=20, ha="right")
        axis.set_yticks(range(len(names)), names)
        axis.set_xlabel("Opponent strategy")
        axis.set_ylabel("Strategy")
        axis.set_title(_panel_title(players, rules))
        figure.colorbar(image, ax=axis, label="Finishes ahead (% of meetings)")
        return png_bytes(figure)


def tile_impact(impact: pl.DataFrame | None, players: int, rules: str,
                labels: dict[int, str] | None = None) -> bytes | None:
    """Bar per tile: change in mean score when the tile is removed unseen, with 95% CIs. The
    tiles are rows named by ``labels`` (tile number -> "5 grass meadow"; the number alone
    without), ordered by their effect, largest at the top."""
    if impact is None:
        return None
    panel = impact.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    panel = panel.sort(["effect", "tile"], descending=[False, True])
    effect = panel["effect"].to_numpy()
    error = np.vstack([effect - panel["effect_low"].to_numpy(),
                       panel["effect_high"].to_numpy() - effect])
    colours = [SCORE_UP if e > 0 else SCORE_DOWN for e in effect]
    labels = labels or {}
    names = [labels.get(int(tile), str(int(tile))) for tile in panel["tile"]]
    positions = np.arange(panel.height)
    with styled_figure(1, "Effect of a tile being removed unseen (95% CIs)",
                       height=item_chart_height(panel.height)) as (figure, axes):
        axis = axes[0]
        axis.barh(positions, effect, color=colours, alpha=0.85)
        axis.errorbar(effect, positions, xerr=error, fmt="none", ecolor="black", capsize=3)
        axis.axvline(0, color="black", linewidth=1)
        axis.set_yticks(positions, names)
        axis.set_ylim(-0.7, panel.height - 0.3)
        axis.grid(axis="y", visible=False)
        # The tick labels name the tiles (number and name): no y label, so that they have room.
        axis.set_xlabel("Mean score change when removed\n(points per player)", loc="right")
        axis.set_title(_panel_title(players, rules))
        legend_below(axis, [Patch(color=SCORE_UP, alpha=0.85,
                                  label="scores higher when this tile is removed"),
                            Patch(color=SCORE_DOWN, alpha=0.85,
                                  label="scores lower when this tile is removed")])
        return png_bytes(figure)


def legend_below(axis, handles: list) -> None:
    """The legend under the axes (and their x label), one entry a line: over a chart with one
    row per item it would hide the items at one end."""
    # Centred on the figure (the item names take the axes' left), anchored at the axes' bottom
    # edge and padded (in font sizes) past the tick labels and the x label beneath it.
    from matplotlib.transforms import blended_transform_factory

    lines = axis.get_xlabel().count("\n") + 1
    axis.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                bbox_transform=blended_transform_factory(axis.figure.transFigure,
                                                         axis.transAxes),
                ncol=1, frameon=False, borderaxespad=2.2 + 1.3 * lines)


def variance_decomposition(variance: pl.DataFrame | None, players: int,
                           rules: str) -> bytes | None:
    """Stacked bars: share of score variance between deals and within a deal, per seat and
    pooled, with the intraclass correlation's 95% CI."""
    if variance is None:
        return None
    panel = variance.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    labels, share, low, high = [], [], [], []
    for row in panel.iter_rows(named=True):
        labels.append("all seats" if row["seat"] is None else f"seat {row['seat'] + 1}")
        share.append(100 * max(row["icc"], 0.0))
        low.append(100 * max(row["icc_low"], 0.0))
        high.append(100 * min(row["icc_high"], 1.0))
    position = np.arange(len(labels))[::-1]
    share = np.array(share)
    title = "How much of a player's score variance the deal decides"
    with styled_figure(1, title) as (figure, axes):
        axis = axes[0]
        axis.barh(position, share, color=NEUTRAL, label="between deals (the deal)")
        axis.barh(position, 100 - share, left=share, color="#c7c7c7",
                  label="within a deal (the play)")
        axis.errorbar(share, position, xerr=np.vstack([share - low, np.array(high) - share]),
                      fmt="none", ecolor="black", capsize=5, label="95% CI of the deal's share")
        axis.set_yticks(position, labels)
        axis.set_xlim(0, 100)
        axis.set_xlabel("Share of score variance (%)")
        axis.set_title(_panel_title(players, rules))
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, frameon=False)
        return png_bytes(figure)


def light_tiles(table: pl.DataFrame | None, token: pl.DataFrame | None, players: int,
                rules: str, count: RandomisedCountEffect | None = None) -> bytes | None:
    """Mean score by a count the deal randomises (``count``, the game's declaration; None:
    worded by the table's count column): all players (95% CIs) and, when the rotating role's
    ``token`` table is known, per seat."""
    if table is None:
        return None
    count = count or worded_count(table)
    panel = table.filter((pl.col("players") == players) & (pl.col("rules") == rules)
                         & (pl.col("deals") >= 2)).sort(count.column)
    if panel.is_empty():
        return None
    with styled_figure(1, f"Mean score by number of {count.noun}") as (figure, axes):
        axis = axes[0]
        x = panel[count.column].to_numpy()
        axis.fill_between(x, panel["mean_low"].to_numpy(), panel["mean_high"].to_numpy(),
                          color="black", alpha=0.15, label="all players, 95% CI")
        axis.plot(x, panel["mean"].to_numpy(), color="black", linewidth=2.5, marker="o",
                  label="all players")
        if token is not None:
            seats = token.filter((pl.col("players") == players) & (pl.col("rules") == rules)
                                 & pl.col(count.column).is_in(list(x)))
            for seat, part in sorted(seats.group_by("seat"), key=lambda item: item[0]):
                part = part.sort(count.column)
                axis.plot(part[count.column].to_numpy(), part["mean"].to_numpy(),
                          marker=".", linewidth=1.5, label=f"seat {seat[0] + 1}")
        axis.set_xticks(x)
        axis.set_xlabel(count.axis_label)
        axis.set_ylabel("Mean score (points per player)")
        axis.set_title(_panel_title(players, rules))
        axis.legend(loc="best", ncol=2)
        return png_bytes(figure)


def _fit_band(axis, low: np.ndarray, high: np.ndarray, value: np.ndarray,
              limits: tuple[float, float] | None = None) -> None:
    """Y limits that show the whole band (its finite part) with a margin, so that neither end
    is cut off, and room at the top for the legend; never beyond ``limits`` when given."""
    ends = np.concatenate([low, high, value])
    ends = ends[np.isfinite(ends)]
    if ends.size == 0:
        return
    bottom, top = float(ends.min()), float(ends.max())
    span = top - bottom if top > bottom else max(abs(top), 1.0)
    bottom, top = bottom - 0.05 * span, top + 0.35 * span
    if limits is not None:
        bottom, top = max(bottom, limits[0]), min(top, limits[1])
    axis.set_ylim(bottom, top)


def convergence(running: pl.DataFrame, players: int, rules: str) -> bytes | None:
    """Running mean score and the first seat's win rate with 95% bands against games played."""
    panel = running.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    metrics = (("mean_score", "Mean score (points)", 1.0, ""),
               ("seat_0_win_rate", "Seat 1 win rate (%)", 100.0, "%"))
    with styled_figure(2, "Convergence: estimate and 95% CI as games accumulate",
                       columns=1) as (figure, axes):
        for axis, (metric, label, scale, unit) in zip(axes, metrics, strict=True):
            part = panel.filter(pl.col("metric") == metric).sort("games")
            games = part["games"].to_numpy()
            low, high = scale * part["ci_low"].to_numpy(), scale * part["ci_high"].to_numpy()
            if metric == "seat_0_win_rate":
                # A win rate lies in 0..100%; the first units' t intervals run far beyond.
                low, high = np.clip(low, 0.0, 100.0), np.clip(high, 0.0, 100.0)
            axis.fill_between(games, low, high, alpha=0.25, color=NEUTRAL, label="95% CI")
            _fit_band(axis, low, high, scale * part["value"].to_numpy(),
                      (0.0, 100.0) if metric == "seat_0_win_rate" else None)
            axis.plot(games, scale * part["value"].to_numpy(), color=NEUTRAL, linewidth=2,
                      label="running estimate")
            final = scale * part["value"][-1]
            axis.axhline(final, color="black", linestyle=":", linewidth=1,
                         label=f"final: {final:.2f}{unit}")
            axis.set_xscale("log")
            axis.set_xlabel("Games played (log scale)")
            axis.set_ylabel(label)
            axis.set_title(_panel_title(players, rules))
            axis.legend(loc="upper right")
        return png_bytes(figure)


def category_points(categories: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """Mean points per scoring category, one group of bars per category and one bar per
    strategy, with 95% CI whiskers (games with ``points_*`` columns)."""
    if categories is None or categories.is_empty():
        return None
    panel = categories.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    names = list(dict.fromkeys(panel["category"].to_list()))
    strategies = sorted(set(panel["strategy"].to_list()))
    width = 0.8 / len(strategies)
    with styled_figure(1, "Mean points by scoring category") as (figure, (axes,)):
        for index, strategy in enumerate(strategies):
            rows = panel.filter(pl.col("strategy") == strategy)
            by_name = {r["category"]: r for r in rows.iter_rows(named=True)}
            means = np.array([by_name[n]["mean"] if n in by_name else np.nan for n in names])
            lows = np.array([by_name[n]["mean_low"] if n in by_name else np.nan for n in names])
            highs = np.array([by_name[n]["mean_high"] if n in by_name else np.nan
                              for n in names])
            positions = np.arange(len(names)) + (index - (len(strategies) - 1) / 2) * width
            axes.bar(positions, means, width, label=strategy,
                     yerr=[means - lows, highs - means], capsize=3)
        axes.set_xticks(np.arange(len(names)), names)
        axes.set_ylabel("mean points per player")
        axes.set_title(_panel_title(players, rules), fontweight="normal")
        axes.legend(title="strategy")
        return png_bytes(figure)


def useful_range(values: np.ndarray, lows: np.ndarray, highs: np.ndarray,
                 min_spread: float = 0.0) -> tuple[float, float, np.ndarray]:
    """An axis range that shows most entries well: the entries whose value lies within three
    interquartile ranges (at least ``min_spread``) of the quartiles are kept whole (value and
    interval, with a margin); the others are off the scale. Returns (left, right, mask of the
    entries off the scale); with fewer than four entries none is."""
    values = np.asarray(values, dtype=float)
    off = np.zeros(values.size, dtype=bool)
    if values.size >= 4:
        first, third = np.percentile(values, [25, 75])
        reach = 3.0 * max(third - first, min_spread)
        off = (values < first - reach) | (values > third + reach)
    kept = ~off
    ends = np.concatenate([np.asarray(lows, dtype=float)[kept],
                           np.asarray(highs, dtype=float)[kept], values[kept]])
    ends = ends[np.isfinite(ends)]
    if ends.size == 0:
        return -1.0, 1.0, off
    left, right = float(ends.min()), float(ends.max())
    pad = 0.08 * (right - left) if right > left else max(abs(right), 1.0)
    return left - pad, right + pad, off
