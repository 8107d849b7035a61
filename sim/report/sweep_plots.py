"""The sweep report's figures: one metric over the grid, in the batch report's style.

How a metric is drawn depends on how many axes of the grid vary (have two or more values):

- one axis: a line per series over the axis with its 95% interval as a band (points with
  interval bars when the axis values are not numbers, e.g. a board side or a tile set);
- two axes: a heatmap per series (at most ``MAX_PANELS``), each cell with its value and
  interval written in;
- three or more: small multiples, one heatmap of the first two varying axes per value of the
  others (one series, at most ``MAX_SMALL_MULTIPLES`` panels);

otherwise (a single point, too many panels) nothing is drawn and the tables carry the numbers.

A heatmap's colours are anchored to a range that means something (``colour_scale``), never
stretched over the grid's own values (that makes noise look dramatic): shares 0-100%; a gap
judged against a margin from 0 (or symmetric around 0) to at least twice the margin, the
margin marked on the colour bar as a dashed line; only a metric without a natural range (a
mean score) uses the grid's range, and its colour bar says so. Every panel shares one scale.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402

from sim.report.plots import (  # noqa: E402
    FIGURE_HEIGHT,
    FIGURE_WIDTH,
    STYLE,
    png_bytes,
    smallest_font_points,
    text_colour_on,
    wrap_title,
)

MAX_PANELS = 4
MAX_SMALL_MULTIPLES = 6
VERDICT_MARKERS = {"fair": ("o", "fair"), "unfair": ("X", "unfair"),
                   "undecided": ("s", "undecided")}


@dataclass(frozen=True)
class Cell:
    """One number of one point: value, 95% interval (NaN when none) and verdict ("" if none)."""

    value: float
    low: float = math.nan
    high: float = math.nan
    verdict: str = ""


@dataclass(frozen=True)
class Series:
    """One line or heatmap: a name and a cell per point (keyed by the point's axis values, in
    axis order)."""

    name: str
    cells: dict[tuple, Cell]


def varying_axes(axes: dict[str, list[Any]]) -> list[str]:
    """The axes with two or more values."""
    return [name for name, values in axes.items() if len(values) > 1]


def _is_numeric(values: list[Any]) -> bool:
    return all(isinstance(v, int | float) and not isinstance(v, bool) for v in values)


def _text(value: float, scale: float, digits: int) -> str:
    return "–" if value is None or math.isnan(value) else f"{scale * value:.{digits}f}"


def _key(point_values: dict[str, Any], axes: dict[str, list[Any]],
         fixed: dict[str, Any]) -> tuple:
    return tuple(fixed.get(name, point_values.get(name)) for name in axes)


@dataclass(frozen=True)
class ColourScale:
    """How a heatmap maps values (as shown, i.e. after ``scale``) to colours: the range, the
    colour map, a note for the colour bar (empty when the range needs none) and values marked
    on the colour bar as dashed lines (a margin)."""

    low: float
    high: float
    cmap: str = "viridis"
    note: str = ""
    marks: tuple[float, ...] = ()


def colour_scale(values: list[float], unit: str, scale: float,
                 reference: tuple[float, str] | None = None,
                 colour_range: tuple[float, float] | None = None) -> ColourScale:
    """The colour scale of a heatmap of ``values`` (as shown): ``colour_range`` when given (a
    diverging map when it is symmetric around 0); with a ``reference`` margin m (as stored,
    shown ``scale * m``) from 0 to at least 2m, or from -R to R with R at least m when a value
    is negative, m marked; a share (``scale`` 100 and a % unit) 0-100%; otherwise the values'
    own range, noted as such."""
    finite = [v for v in values if math.isfinite(v)]
    if colour_range is not None:
        low, high = colour_range
        symmetric = low < 0 < high and math.isclose(-low, high)
        return ColourScale(low, high, "RdBu_r" if symmetric else "viridis")
    if reference is not None:
        margin = abs(scale * reference[0])
        if finite and min(finite) < 0:
            reach = max([margin] + [abs(v) for v in finite])
            return ColourScale(-reach, reach, "RdBu_r", marks=(-margin, margin))
        return ColourScale(0.0, max([2 * margin] + finite), "Reds", marks=(margin,))
    if scale == 100.0 and "%" in unit:
        return ColourScale(0.0, 100.0)
    if not finite:
        return ColourScale(0.0, 1.0)
    low, high = min(finite), max(finite)
    if low == high:
        low, high = low - 1.0, high + 1.0
    return ColourScale(low, high, note="colours span this grid's values")


def metric_figure(title: str, unit: str, axes: dict[str, list[Any]], series: list[Series],
                  scale: float = 1.0, digits: int = 2,
                  reference: tuple[float, str] | None = None,
                  colour_range: tuple[float, float] | None = None) -> bytes | None:
    """The figure of one metric over the grid (see the module docstring), or None.

    ``scale`` multiplies every value shown (100 for shares shown in %), ``digits`` is the
    precision written in heatmap cells, ``reference`` an optional (value, label) margin: a
    dashed line in line plots and on a heatmap's colour bar, whose range it anchors.
    ``colour_range`` (as shown) fixes a heatmap's colour range instead (``colour_scale``)."""
    series = [s for s in series if any(not math.isnan(c.value) for c in s.cells.values())]
    varying = varying_axes(axes)
    if not series or not varying:
        return None
    fixed = {name: values[0] for name, values in axes.items() if name not in varying}
    with plt.rc_context(STYLE):
        if len(varying) == 1:
            return _lines(title, unit, axes, varying[0], fixed, series, scale, reference)
        if len(varying) == 2:
            shown = series[:MAX_PANELS]
            panels = [(s.name if len(shown) > 1 else "", s, {}) for s in shown]
        else:
            if len(series) > 1:
                series = series[:1]
            others = varying[2:]
            combos = list(itertools.product(*(axes[name] for name in others)))
            if len(combos) > MAX_SMALL_MULTIPLES:
                return None
            panels = [(", ".join(f"{n} = {v}" for n, v in zip(others, combo, strict=True)),
                       series[0], dict(zip(others, combo, strict=True))) for combo in combos]
        values = [scale * c.value for _, line, _ in panels for c in line.cells.values()]
        colours = colour_scale(values, unit, scale, reference, colour_range)
        return _heatmaps(title, unit, axes, varying[:2], fixed, panels, scale, digits, colours)


def _lines(title, unit, axes, axis, fixed, series, scale, reference) -> bytes:
    values = axes[axis]
    numeric = _is_numeric(values)
    positions = np.array(values, dtype=float) if numeric else np.arange(len(values), dtype=float)
    figure, plot = plt.subplots()
    verdicts_seen: set[str] = set()
    count = len(series)
    for number, line in enumerate(series):
        cells = [line.cells.get(_key({axis: v}, axes, fixed)) for v in values]
        value = np.array([scale * c.value if c else np.nan for c in cells])
        low = np.array([scale * c.low if c else np.nan for c in cells])
        high = np.array([scale * c.high if c else np.nan for c in cells])
        colour = STYLE["axes.prop_cycle"].by_key()["color"][number % 8]
        label = line.name or None
        if numeric:
            plot.plot(positions, value, marker="o", linewidth=2.2, color=colour, label=label)
            plot.fill_between(positions, low, high, color=colour, alpha=0.2, linewidth=0)
        else:
            shift = (number - (count - 1) / 2) * 0.12
            error = np.vstack([value - low, high - value])
            plot.errorbar(positions + shift, value, yerr=np.where(np.isnan(error), 0, error),
                          fmt="o", markersize=8, capsize=6, linewidth=1.8, color=colour,
                          label=label)
        for x, y, cell in zip(positions, value, cells, strict=True):
            if cell and cell.verdict in VERDICT_MARKERS and not math.isnan(y):
                marker, _ = VERDICT_MARKERS[cell.verdict]
                plot.scatter([x], [y], marker=marker, s=110, color="black", zorder=5)
                verdicts_seen.add(cell.verdict)
    if reference is not None:
        plot.axhline(scale * reference[0], color="black", linestyle="--", linewidth=1.2,
                     label=reference[1])
    for verdict in sorted(verdicts_seen):
        marker, text = VERDICT_MARKERS[verdict]
        plot.scatter([], [], marker=marker, s=110, color="black", label=f"verdict: {text}")
    if not numeric:
        plot.set_xticks(positions, [str(v) for v in values])
        plot.set_xlim(-0.6, len(values) - 0.4)
    elif all(float(v).is_integer() for v in values):
        plot.set_xticks(positions, [str(v) for v in values])
    plot.set_xlabel(axis.replace("_", " "))
    plot.set_ylabel(unit)
    fixed_text = ", ".join(f"{n} = {v}" for n, v in fixed.items())
    plot.set_title(wrap_title(title + (f" ({fixed_text})" if fixed_text else ""),
                              STYLE["axes.titlesize"]))
    if plot.get_legend_handles_labels()[0]:
        plot.legend(loc="best")
    try:
        return png_bytes(figure)
    finally:
        plt.close(figure)


def _cell_label(cell: Cell, scale: float, digits: int, full: bool) -> str:
    """A heatmap cell's text: the value, and when ``full`` its interval and verdict."""
    text = _text(cell.value, scale, digits)
    if full and not math.isnan(cell.low):
        text += f"\n({_text(cell.low, scale, digits)}–{_text(cell.high, scale, digits)})"
    if full and cell.verdict:
        text += f"\n{cell.verdict}"
    return text


def _fit_texts(figure, placed: list, scale: float, digits: int, across: int,
               down: int) -> None:
    """Size the cell labels so that none leaves its cell (measured once drawn): the largest
    size that fits, at most the style's; when even the smallest legible size does not fit,
    the value alone (the table beside the figure gives the intervals)."""
    smallest = smallest_font_points(figure.get_size_inches()[0])
    for full in (True, False):
        if not full:
            for _, texts in placed:
                for text, cell in texts:
                    text.set_text(_cell_label(cell, scale, digits, False))
        figure.canvas.draw()
        renderer = figure.canvas.get_renderer()
        worst = 0.0
        for plot, texts in placed:
            box = plot.get_window_extent(renderer)
            width, height = box.width / across, box.height / down
            for text, _ in texts:
                extent = text.get_window_extent(renderer)
                worst = max(worst, extent.width / (0.92 * width),
                            extent.height / (0.92 * height))
        size = STYLE["font.size"] / worst if worst > 1 else STYLE["font.size"]
        if size >= smallest or not full:
            for _, texts in placed:
                for text, _ in texts:
                    text.set_fontsize(max(size, smallest))
            return


def _heatmaps(title, unit, axes, pair, fixed, panels, scale, digits,
              colours: ColourScale) -> bytes:
    rows_axis, columns_axis = pair
    row_values, column_values = axes[rows_axis], axes[columns_axis]
    count = len(panels)
    # Two panels across at most: a phone shows no more legibly.
    grid_columns = 1 if count == 1 else 2
    grid_rows = math.ceil(count / grid_columns)
    figure, grid = plt.subplots(grid_rows, grid_columns, squeeze=False, layout="constrained",
                                figsize=(FIGURE_WIDTH, FIGURE_HEIGHT * max(grid_rows, 1.25)))
    placed = []
    image = None
    for index, (panel_title, line, extra) in enumerate(panels):
        plot = grid[index // grid_columns][index % grid_columns]
        values = np.full((len(row_values), len(column_values)), np.nan)
        shown: list[tuple[int, int, Cell]] = []
        for i, row_value in enumerate(row_values):
            for j, column_value in enumerate(column_values):
                point = {rows_axis: row_value, columns_axis: column_value, **extra}
                cell = line.cells.get(_key(point, axes, fixed))
                if cell is None:
                    continue
                if not math.isnan(cell.value):
                    values[i, j] = scale * cell.value
                shown.append((i, j, cell))
        image = plot.imshow(values, cmap=colours.cmap, aspect="auto", origin="lower",
                            vmin=colours.low, vmax=colours.high)
        texts = []
        for i, j, cell in shown:
            if math.isnan(cell.value):
                plot.text(j, i, "–", ha="center", va="center", color="black")
                continue
            # The text's colour from the cell's own colour: white on dark, black on light.
            colour = text_colour_on(image.cmap(image.norm(values[i, j])))
            texts.append((plot.text(j, i, _cell_label(cell, scale, digits, True),
                                    ha="center", va="center", color=colour), cell))
        placed.append((plot, texts))
        plot.set_xticks(range(len(column_values)), [str(v) for v in column_values])
        plot.set_yticks(range(len(row_values)), [str(v) for v in row_values])
        plot.set_xlabel(columns_axis.replace("_", " "))
        plot.set_ylabel(rows_axis.replace("_", " "))
        plot.grid(False)
        if panel_title:
            plot.set_title(panel_title)
    for index in range(count, grid_rows * grid_columns):
        grid[index // grid_columns][index % grid_columns].axis("off")
    # One colour bar for every panel: they share the scale.
    label = unit + (f"\n({colours.note})" if colours.note else "")
    bar = figure.colorbar(image, ax=[grid[i // grid_columns][i % grid_columns]
                                     for i in range(count)], label=label)
    for mark in colours.marks:
        bar.ax.axhline(mark, color="black", linestyle="--", linewidth=2)
    fixed_text = ", ".join(f"{n} = {v}" for n, v in fixed.items())
    figure.suptitle(wrap_title(title + (f" ({fixed_text})" if fixed_text else ""),
                               STYLE["figure.titlesize"]), fontweight="bold")
    _fit_texts(figure, placed, scale, digits, len(column_values), len(row_values))
    try:
        return png_bytes(figure)
    finally:
        plt.close(figure)
