"""The fairness margin, declared once: seats are fair when every seat's win rate lies within
``FAIR_MARGIN`` of every other's (a proportion: 0.02 is 2 percentage points). Users give it in
percentage points (``--fair-margin 2``); configs and sweep files as a proportion. This module
imports nothing, so the command line can read it without loading the statistics."""

FAIR_MARGIN = 0.02
# The same margin in percentage points, as the command-line options take it.
FAIR_MARGIN_POINTS = 100 * FAIR_MARGIN


def margin_from_points(points: float | None) -> float:
    """A margin given in percentage points as a proportion (the default margin for None)."""
    return FAIR_MARGIN if points is None else points / 100.0
