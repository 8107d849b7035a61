"""The sweep report's figures: one metric over the grid, in the batch report's style.

How a metric is drawn depends on how many axes of the grid vary (have two or more values):

- one axis: a line per series over the axis with its 95% interval as a band (points with
  interval bars when the axis values are not numbers, e.g. a board side or a tile set);
- two axes: a heatmap per series (at most ``MAX_PANELS``), each cell with its value and
  interval written in;
- three or more: small multiples, one heatmap of the first two varying axes per value of the
  others (one series, at most ``MAX_SMALL_MULTIPLES`` panels);

otherwise (a single point, too many panels) nothing is drawn and the tables carry the numbers.
"""

from __future__ import annotations

import io
import itertools
import math
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402 - the backend must be chosen first
import numpy as np  # noqa: E402

from sim.report.plots import STYLE  # noqa: E402

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


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.tight_layout()
    figure.savefig(buffer, format="png")
    return buffer.getvalue()


def _key(point_values: dict[str, Any], axes: dict[str, list[Any]],
         fixed: dict[str, Any]) -> tuple:
    return tuple(fixed.get(name, point_values.get(name)) for name in axes)


def metric_figure(title: str, unit: str, axes: dict[str, list[Any]], series: list[Series],
                  scale: float = 1.0, digits: int = 2,
                  reference: tuple[float, str] | None = None) -> bytes | None:
    """The figure of one metric over the grid (see the module docstring), or None.

    ``scale`` multiplies every value shown (100 for shares shown in %), ``digits`` is the
    precision written in heatmap cells, ``reference`` an optional (value, label) line drawn in
    line plots (e.g. the fairness margin)."""
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
        return _heatmaps(title, unit, axes, varying[:2], fixed, panels, scale, digits)


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
    plot.set_title(title + (f" ({fixed_text})" if fixed_text else ""))
    if plot.get_legend_handles_labels()[0]:
        plot.legend(loc="best")
    try:
        return _png(figure)
    finally:
        plt.close(figure)


def _heatmaps(title, unit, axes, pair, fixed, panels, scale, digits) -> bytes:
    rows_axis, columns_axis = pair
    row_values, column_values = axes[rows_axis], axes[columns_axis]
    count = len(panels)
    grid_columns = min(count, 3 if count > 4 else 2) if count > 1 else 1
    grid_rows = math.ceil(count / grid_columns)
    width, height = STYLE["figure.figsize"]
    figure, grid = plt.subplots(grid_rows, grid_columns, squeeze=False,
                                figsize=(width, max(height, 4.6 * grid_rows)))
    text_size = 12 if len(row_values) * len(column_values) <= 16 and count <= 2 else 9
    # Small multiples of one series share one colour scale, so panels compare at a glance.
    shared = len({id(line) for _, line, _ in panels}) == 1 and count > 1
    everything = [scale * c.value for _, line, _ in panels for c in line.cells.values()
                  if not math.isnan(c.value)]
    limits = (min(everything), max(everything)) if shared and everything else (None, None)
    for index, (panel_title, line, extra) in enumerate(panels):
        plot = grid[index // grid_columns][index % grid_columns]
        values = np.full((len(row_values), len(column_values)), np.nan)
        labels = [["" for _ in column_values] for _ in row_values]
        for i, row_value in enumerate(row_values):
            for j, column_value in enumerate(column_values):
                point = {rows_axis: row_value, columns_axis: column_value, **extra}
                cell = line.cells.get(_key(point, axes, fixed))
                if cell is None:
                    continue
                if math.isnan(cell.value):
                    labels[i][j] = "–"
                    continue
                values[i, j] = scale * cell.value
                text = _text(cell.value, scale, digits)
                if not math.isnan(cell.low):
                    low, high = _text(cell.low, scale, digits), _text(cell.high, scale, digits)
                    text += f"\n({low}–{high})"
                if cell.verdict:
                    text += f"\n{cell.verdict}"
                labels[i][j] = text
        image = plot.imshow(values, cmap="viridis", aspect="auto", origin="lower",
                            vmin=limits[0], vmax=limits[1])
        finite = values[np.isfinite(values)]
        middle = float((finite.min() + finite.max()) / 2) if finite.size else 0.0
        if limits[0] is not None:
            middle = (limits[0] + limits[1]) / 2
        for i in range(len(row_values)):
            for j in range(len(column_values)):
                if labels[i][j]:
                    dark = np.isfinite(values[i, j]) and values[i, j] < middle
                    plot.text(j, i, labels[i][j], ha="center", va="center", fontsize=text_size,
                              color="white" if dark else "black")
        plot.set_xticks(range(len(column_values)), [str(v) for v in column_values])
        plot.set_yticks(range(len(row_values)), [str(v) for v in row_values])
        plot.set_xlabel(columns_axis.replace("_", " "))
        plot.set_ylabel(rows_axis.replace("_", " "))
        plot.grid(False)
        if panel_title:
            plot.set_title(panel_title, fontsize=14)
        figure.colorbar(image, ax=plot, label=unit)
    for index in range(count, grid_rows * grid_columns):
        grid[index // grid_columns][index % grid_columns].axis("off")
    fixed_text = ", ".join(f"{n} = {v}" for n, v in fixed.items())
    figure.suptitle(title + (f" ({fixed_text})" if fixed_text else ""), fontsize=17,
                    fontweight="bold")
    try:
        return _png(figure)
    finally:
        plt.close(figure)
