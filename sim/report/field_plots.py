"""Small-multiple figures of findings judged across fields of players (``sim.report.fields``).

One figure per headline (seat gaps, deal-set effects, ...): one panel per field, side by side,
every panel on the SAME y axis so that a finding's value can be compared between fields by eye.
On the x axis the headline's members (seat 1..n, or the findings' nouns shortened to what tells
them apart); each member is a point (the field's estimate) with its interval as a bar (95%,
simultaneous over the fields, as ``sim.stats.fields`` gives it). An effect (judged against 0)
gets a zero line and a shaded band of ±margin, the range the verdict reads as practically zero;
a level (judged by paired differences only) gets neither.

``headline_figure`` yields the matplotlib figure before it is encoded (for tests and for callers
that want to inspect it); ``headline_png`` returns its PNG bytes, the same bytes for the same
findings (Agg writes no timestamp).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

import numpy as np

from sim.report.plots import NEUTRAL, png_bytes, styled_figure
from sim.stats.fields import KIND_EFFECT

if TYPE_CHECKING:
    from sim.stats.field_findings import FieldFinding

# Beyond this many members a panel's x labels no longer fit: the table carries the numbers.
MAX_FIGURE_MEMBERS = 30
# An x label longer than this is cut (with an ellipsis): the table gives the full noun.
LABEL_WIDTH = 22
BAND_COLOUR = "#bdbdbd"
# Above this many members per panel the x labels are turned to stay legible.
UPRIGHT_LABELS = 6
# A label longer than this (characters) is turned too, and its panels go one to a row.
UPRIGHT_LABEL_LENGTH = 12
# Labels that name an item ("tile 5 grass meadow") are cut only beyond this.
NAMED_LABEL_WIDTH = 34


def member_labels(nouns: list[str], width: int = LABEL_WIDTH) -> list[str]:
    """Short x labels for a headline's members: the words all nouns share at the end are
    dropped, and of the words they share at the start only the last is kept, so "seat 1's
    win-share gap", "seat 2's win-share gap" become "seat 1", "seat 2". A possessive "'s" left
    at the end is dropped. Labels longer than ``width`` are cut with an ellipsis. The full
    nouns come back when shortening would make two labels the same."""
    words = [noun.split() for noun in nouns]
    if len(words) > 1 and all(words):
        shortest = min(len(w) for w in words)
        prefix = 0
        while prefix < shortest and len({w[prefix] for w in words}) == 1:
            prefix += 1
        suffix = 0
        while suffix < shortest - prefix and len({w[-1 - suffix] for w in words}) == 1:
            suffix += 1
        # Keep the last shared opening word: "seat" in "seat 1", "card" in "card 12".
        start = max(prefix - 1, 0)
        trimmed = [" ".join(w[start:len(w) - suffix]) for w in words]
    else:
        trimmed = list(nouns)
    labels = [_cut(_drop_possessive(label), width) for label in trimmed]
    if len(set(labels)) < len(labels) or not all(labels):
        labels = [_cut(noun, width) for noun in nouns]
    return labels


def named_member_labels(findings: list[FieldFinding], names=None) -> list[str]:
    """``member_labels`` of the findings' nouns, each followed by the name of the item its
    finding is about when ``names`` (``sim.report.names.ItemNames``) has one: "tile 5" ->
    "tile 5 grass meadow"."""
    labels = member_labels([f.noun for f in findings])
    if names is None:
        return labels
    named = []
    for label, finding in zip(labels, findings, strict=True):
        item = names.finding_item(finding.key)
        name = names.name(*item) if item is not None else None
        named.append(_cut(f"{label} {name}", NAMED_LABEL_WIDTH) if name else label)
    return named


def _drop_possessive(label: str) -> str:
    for ending in ("'s", "\u2019s"):
        if label.endswith(ending):
            return label[:-len(ending)]
    return label


def _cut(label: str, width: int) -> str:
    return label if len(label) <= width else label[:width - 1].rstrip() + "\u2026"


def _unit_label(findings: list[FieldFinding]) -> str:
    """The y axis label: the members' unit, or every unit named when they differ."""
    units = list(dict.fromkeys(finding.unit for finding in findings))
    return " / ".join(units)


def _shared_limits(findings: list[FieldFinding]) -> tuple[float, float]:
    """One y range for every panel: every shown estimate and finite interval end, 0 and the
    ±margin band of the effects, with a little room around them."""
    ends = [0.0] if any(f.kind == KIND_EFFECT for f in findings) else []
    for finding in findings:
        judgement = finding.judgement
        for array in (judgement.estimates, judgement.lows, judgement.highs):
            ends += [finding.scale * float(v) for v in array if math.isfinite(float(v))]
        if finding.kind == KIND_EFFECT:
            ends += [finding.scale * judgement.margin, -finding.scale * judgement.margin]
    if not ends:
        return -1.0, 1.0
    bottom, top = min(ends), max(ends)
    span = top - bottom if top > bottom else max(abs(top), 1.0)
    return bottom - 0.08 * span, top + 0.08 * span


@contextmanager
def headline_figure(title: str, findings: list[FieldFinding],
                    labels: list[str] | None = None) -> Iterator:
    """The small multiple of one headline's ``findings`` (all judged over the same fields, in
    the same order): yields the matplotlib figure, one panel per field titled by the field's
    name, the panels sharing their y axis; closed on exit. ``labels`` name the members on the
    x axis (default ``member_labels`` of their nouns). See the module docstring."""
    if not findings:
        raise ValueError("a headline figure needs at least one finding")
    names = list(findings[0].judgement.fields)
    if any(list(f.judgement.fields) != names for f in findings):
        raise ValueError("every finding of a headline figure must be judged over the same "
                         f"fields in the same order ({names})")
    labels = labels or member_labels([f.noun for f in findings])
    positions = np.arange(len(findings), dtype=float)
    limits = _shared_limits(findings)
    margins = {f.scale * f.judgement.margin for f in findings if f.kind == KIND_EFFECT}
    one_band = len(margins) == 1 and all(f.kind == KIND_EFFECT for f in findings)
    # Two fields side by side while their members' labels fit, one a row beyond (a phone
    # shows a figure ``FIGURE_WIDTH`` wide; see ``sim.report.plots``).
    long_labels = max(len(label) for label in labels) > UPRIGHT_LABEL_LENGTH
    columns = 2 if len(findings) <= UPRIGHT_LABELS and not long_labels else 1
    with styled_figure(len(names), title, columns=columns) as (figure, axes):
        for column, (axis, name) in enumerate(zip(axes, names, strict=True)):
            if column:
                axis.sharey(axes[0])
            if column % columns:
                axis.tick_params(labelleft=False)
            if any(f.kind == KIND_EFFECT for f in findings):
                axis.axhline(0.0, color="black", linewidth=1.0)
            if one_band:
                margin = next(iter(margins))
                axis.axhspan(-margin, margin, color=BAND_COLOUR, alpha=0.35, linewidth=0)
            else:
                # Members with their own margin: a band behind each effect member only.
                for position, finding in zip(positions, findings, strict=True):
                    if finding.kind == KIND_EFFECT:
                        margin = finding.scale * finding.judgement.margin
                        axis.bar(position, 2 * margin, bottom=-margin, width=0.8,
                                 color=BAND_COLOUR, alpha=0.35, linewidth=0)
            value = np.array([f.scale * f.judgement.estimates[column] for f in findings])
            low = np.array([f.scale * f.judgement.lows[column] for f in findings])
            high = np.array([f.scale * f.judgement.highs[column] for f in findings])
            drawn = np.isfinite(low) & np.isfinite(high)
            if drawn.any():
                error = np.vstack([value[drawn] - low[drawn], high[drawn] - value[drawn]])
                axis.errorbar(positions[drawn], value[drawn], yerr=error, fmt="none",
                              ecolor="black", capsize=5, linewidth=1.5)
            axis.plot(positions, value, linestyle="none", marker="o", markersize=8,
                      color=NEUTRAL)
            axis.set_title(name)
            turned = len(findings) > UPRIGHT_LABELS or long_labels
            axis.set_xticks(positions, labels, rotation=45 if turned else 0,
                            ha="right" if turned else "center",
                            rotation_mode="anchor" if turned else "default")
            axis.set_xlim(-0.6, len(findings) - 0.4)
        axes[0].set_ylim(*limits)
        for axis in axes[::columns]:
            axis.set_ylabel(_unit_label(findings))
        yield figure


def headline_png(title: str, findings: list[FieldFinding],
                 labels: list[str] | None = None) -> bytes | None:
    """PNG bytes of ``headline_figure``; None when there is nothing to draw (no finding, or
    more than ``MAX_FIGURE_MEMBERS`` members)."""
    if not findings or len(findings) > MAX_FIGURE_MEMBERS:
        return None
    with headline_figure(title, findings, labels) as figure:
        return png_bytes(figure)
