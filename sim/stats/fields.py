"""A finding judged across fields of players: does it hold for other players?

A *field* is a named set of lineups (``strong``: the strongest strategy in every seat, ``style``:
a documented variant of it, ``mixed``, ``casual``) that all play the SAME deals (common random
numbers). A *finding* is one scalar a report states (a seat's win-rate gap, a deal share, a card
effect), estimated in every field as the ratio mean sum_d Y_df / sum_d X_df over the deals d,
from per-deal sums ``values[d, f]`` and counts ``counts[d, f]``.

The deals are the clusters and every field plays all of them, so the fields' estimates are
correlated (a deal that favours seat 1 does so whatever the lineup). ``ratio_means`` over the
field columns gives their joint cluster-robust (CR1) covariance from the per-deal scores, and
with it:

- per field: the estimate, its standard error and an interval *simultaneous over the fields*
  (max-|t| with the estimated correlation), because the verdict reads every field at once;
- every paired difference between two fields, simultaneous over the pairs. On common deals
  the shared deal term cancels from the difference, so these intervals are much narrower than
  the difference of two separate intervals;
- one verdict, from this fixed list in this order of precedence (``margin`` is the band of
  practically zero, e.g. 2 percentage points for a seat gap):

  1. ``"differs in sign between fields"``: one field's interval lies wholly above 0 and
     another's wholly below;
  2. ``"holds in every field"``: every field's interval excludes 0 on the same side
     (``direction`` +1 or -1);
  3. ``"holds in A only"`` (``"holds in A and B only"``...): the intervals of the fields named
     exclude 0 on one side, every other field's interval lies inside (-margin, +margin) (shown
     to be practically zero: an equivalence statement), and the paired difference between
     every holding and every other field excludes 0 on the holding side;
  4. ``"no effect in any field"``: every field's interval lies inside (-margin, +margin);
  5. ``"undecided"``: anything else, with ``reason`` saying what is missing. An interval that
     neither excludes 0 nor lies inside the band says nothing either way: absence of evidence
     is never read as evidence of absence.

Below ``MIN_VERDICT_CLUSTERS`` deals the verdict is ``"undecided"`` ("fewer than N deals"), the
intervals are still given (t on deals - 1 degrees of freedom, simultaneous by the seeded
Monte Carlo of ``sim.stats.clustered``). A field is chosen by the design, so a difference between
fields may be called an effect of the field on the finding; what the finding itself may be
called depends on what it measures (the caller's noun).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.errors import InputError
from sim.stats.clustered import (
    CONFIDENCE,
    MIN_VERDICT_CLUSTERS,
    contrast_intervals,
    pairwise_contrasts,
    ratio_means,
)

DIFFERS_IN_SIGN = "differs in sign between fields"
HOLDS_EVERYWHERE = "holds in every field"
NO_EFFECT = "no effect in any field"
UNDECIDED = "undecided"


def holds_only_verdict(fields: list[str]) -> str:
    """The verdict ``"holds in strong only"`` / ``"holds in strong and style only"``."""
    return f"holds in {_join(fields)} only"


@dataclass(frozen=True)
class PairedDifference:
    """The difference of one finding between two fields on common deals, with its t interval."""

    estimate: float
    standard_error: float
    low: float
    high: float
    clusters: int


@dataclass(frozen=True)
class FieldJudgement:
    """One finding judged across fields (see the module docstring).

    Per field (in ``fields`` order): ``estimates``, ``standard_errors`` and the simultaneous
    interval ``lows``..``highs``. Per pair (i, j) of ``pairs`` (i < j): the paired difference
    field i minus field j, ``pair_estimates``, ``pair_standard_errors`` and the simultaneous
    interval ``pair_lows``..``pair_highs``. ``holding_fields`` are the fields whose interval
    excludes 0 (on either side); ``direction`` is +1 or -1 for "holds in every field" and
    "holds in ... only" (the holding side), 0 otherwise. ``reason`` says why the verdict is
    "undecided" (empty otherwise).
    """

    fields: list[str]
    estimates: np.ndarray
    standard_errors: np.ndarray
    lows: np.ndarray
    highs: np.ndarray
    pairs: list[tuple[int, int]]
    pair_estimates: np.ndarray
    pair_standard_errors: np.ndarray
    pair_lows: np.ndarray
    pair_highs: np.ndarray
    verdict: str
    direction: int
    holding_fields: list[str]
    clusters: int
    margin: float
    confidence: float
    reason: str = ""

    def sentence(self, noun: str, unit: str, scale: float = 1.0, digits: int = 1) -> str:
        """One plain-English line: the verdict, every field's value with its interval, and
        every paired difference, e.g. "seat 1's win-rate advantage holds in every field:
        strong +4.1 (+1.2 to +7.0), style +3.8 (+0.9 to +6.7) percentage points; strong minus
        style +0.3 (-1.1 to +1.7)". ``scale`` multiplies every number (100 turns a proportion
        into percentage points), ``digits`` the decimals shown."""

        def value(estimate: float, low: float, high: float) -> str:
            shown = _signed(scale * estimate, digits)
            if not (math.isfinite(low) and math.isfinite(high)):
                return f"{shown} (no interval)"
            return f"{shown} ({_signed(scale * low, digits)} to {_signed(scale * high, digits)})"

        band = f"within ±{_number(scale * self.margin, digits)} {unit}"
        if self.verdict == NO_EFFECT:
            head = f"{noun} shows {NO_EFFECT} (every field {band})"
        elif self.verdict == UNDECIDED:
            head = f"{noun} is undecided across fields ({self.reason})"
        elif self.verdict.startswith("holds in") and self.verdict != HOLDS_EVERYWHERE:
            others = [name for name in self.fields if name not in self.holding_fields]
            head = f"{noun} {self.verdict} ({_join(others)} {band})"
        else:
            head = f"{noun} {self.verdict}"
        per_field = ", ".join(
            f"{name} {value(e, lo, hi)}" for name, e, lo, hi in zip(
                self.fields, self.estimates, self.lows, self.highs, strict=True))
        per_pair = ", ".join(
            f"{self.fields[i]} minus {self.fields[j]} {value(e, lo, hi)}"
            for (i, j), e, lo, hi in zip(self.pairs, self.pair_estimates, self.pair_lows,
                                         self.pair_highs, strict=True))
        return f"{head}: {per_field} {unit}; {per_pair}"


def judge_across_fields(values, counts, field_names: list[str], margin: float,
                        confidence: float = CONFIDENCE,
                        value_range: tuple[float, float] | None = None) -> FieldJudgement:
    """Judge one finding across fields from per-deal sums ``values`` and counts ``counts``,
    both (deals, fields), column f belonging to ``field_names[f]``; see the module docstring.

    ``margin`` (>= 0) is the practically-zero band, in the finding's own units. ``value_range``
    (low, high), when the finding has one (a win-rate gap lies in [-1, 1]), keeps every field's
    interval inside it (and every pair's inside [low - high, high - low]). Deals with no count
    in any field are left out (they carry no information). Raises ``InputError`` on bad input.
    """
    values, counts = _checked(values, counts, field_names, margin, confidence)
    played = counts.sum(axis=1) > 0
    values, counts = values[played], counts[played]
    means = ratio_means(values, counts)
    fields_count = len(field_names)
    per_field = contrast_intervals(means, np.eye(fields_count), confidence, simultaneous=True)
    matrix, pairs = pairwise_contrasts(fields_count)
    per_pair = contrast_intervals(means, matrix, confidence, simultaneous=True)
    lows, highs = per_field.low, per_field.high
    pair_lows, pair_highs = per_pair.low, per_pair.high
    if value_range is not None:
        bottom, top = value_range
        lows, highs = np.clip(lows, bottom, top), np.clip(highs, bottom, top)
        pair_lows = np.clip(pair_lows, bottom - top, top - bottom)
        pair_highs = np.clip(pair_highs, bottom - top, top - bottom)
    verdict, direction, reason = _verdict(lows, highs, pairs, pair_lows, pair_highs,
                                          list(field_names), margin, means.clusters)
    above, below = lows > 0, highs < 0
    holding = [name for name, a, b in zip(field_names, above, below, strict=True) if a or b]
    return FieldJudgement(
        fields=list(field_names), estimates=per_field.estimates,
        standard_errors=per_field.standard_errors, lows=lows, highs=highs, pairs=pairs,
        pair_estimates=per_pair.estimates, pair_standard_errors=per_pair.standard_errors,
        pair_lows=pair_lows, pair_highs=pair_highs, verdict=verdict, direction=direction,
        holding_fields=holding, clusters=means.clusters, margin=float(margin),
        confidence=float(confidence), reason=reason)


def paired_difference(values_a, counts_a, values_b, counts_b,
                      confidence: float = CONFIDENCE) -> PairedDifference:
    """The difference field a minus field b of one finding on common deals: per-deal sums and
    counts of each field (1-D, one entry per deal, in the same deal order). Its standard error
    is cluster-robust over the deals (the shared deal term cancels) and its interval is t on
    deals - 1 degrees of freedom. Raises ``InputError`` on bad input."""
    columns = [np.asarray(a, dtype=float) for a in (values_a, counts_a, values_b, counts_b)]
    if any(column.ndim != 1 for column in columns) or len({c.size for c in columns}) != 1:
        raise InputError("paired difference: values and counts of both fields must be 1-D "
                         "arrays with one entry per deal, the same deals for both")
    values = np.column_stack([columns[0], columns[2]])
    counts = np.column_stack([columns[1], columns[3]])
    values, counts = _checked(values, counts, ["a", "b"], 0.0, confidence)
    played = counts.sum(axis=1) > 0
    means = ratio_means(values[played], counts[played])
    interval = contrast_intervals(means, np.array([[1.0, -1.0]]), confidence, simultaneous=False)
    return PairedDifference(float(interval.estimates[0]), float(interval.standard_errors[0]),
                            float(interval.low[0]), float(interval.high[0]), means.clusters)


def _checked(values, counts, field_names, margin, confidence) -> tuple[np.ndarray, np.ndarray]:
    """The inputs as float arrays, or ``InputError`` with a one-line message."""
    values = np.asarray(values, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if values.ndim != 2 or values.shape != counts.shape:
        raise InputError(f"fields: values {values.shape} and counts {counts.shape} must both be "
                         "(deals, fields) arrays of the same shape")
    names = list(field_names)
    if values.shape[1] < 2:
        raise InputError(f"fields: a finding is judged across at least 2 fields, got "
                         f"{values.shape[1]}")
    if len(names) != values.shape[1] or len(set(names)) != len(names):
        raise InputError(f"fields: {len(names)} field names {names} for {values.shape[1]} "
                         "columns (one distinct name per column)")
    if not (np.isfinite(values).all() and np.isfinite(counts).all()):
        raise InputError("fields: values and counts must be finite numbers")
    if (counts < 0).any():
        raise InputError("fields: counts must not be negative")
    empty = [name for name, total in zip(names, counts.sum(axis=0), strict=True) if total <= 0]
    if empty:
        raise InputError(f"fields: no count in field {_join(empty)} (nothing to estimate)")
    if not (math.isfinite(margin) and margin >= 0):
        raise InputError(f"fields: the margin must be a number >= 0, got {margin}")
    if not 0 < confidence < 1:
        raise InputError(f"fields: the confidence must lie between 0 and 1, got {confidence}")
    return values, counts


def _verdict(lows, highs, pairs, pair_lows, pair_highs, names: list[str], margin: float,
             clusters: int) -> tuple[str, int, str]:
    """(verdict, direction, reason) by the precedence of the module docstring."""
    if clusters < MIN_VERDICT_CLUSTERS:
        return UNDECIDED, 0, f"fewer than {MIN_VERDICT_CLUSTERS} deals"
    if np.isnan(lows).any() or np.isnan(highs).any():
        return UNDECIDED, 0, (f"no simultaneous interval from {clusters} deals for "
                              f"{len(names)} fields")
    above, below = lows > 0, highs < 0
    inside = (lows > -margin) & (highs < margin)
    if above.any() and below.any():
        return DIFFERS_IN_SIGN, 0, ""
    if above.all():
        return HOLDS_EVERYWHERE, 1, ""
    if below.all():
        return HOLDS_EVERYWHERE, -1, ""
    holding = above | below
    if holding.any():
        direction = 1 if above.any() else -1
        unclear = [name for name, h, i in zip(names, holding, inside, strict=True)
                   if not (h or i)]
        if unclear:
            held = [names[k] for k in np.flatnonzero(holding)]
            return UNDECIDED, 0, (f"{_join(held)} {_plural(len(held), 'holds', 'hold')}, "
                                  f"{_neither(unclear)}")
        for row, (i, j) in enumerate(pairs):
            if holding[i] == holding[j]:
                continue
            # The difference holding minus non-holding must exclude 0 on the holding side.
            sign = direction if holding[i] else -direction
            apart = pair_lows[row] > 0 if sign > 0 else pair_highs[row] < 0
            if not apart:
                return UNDECIDED, 0, (f"{names[i]} and {names[j]} cannot be told apart "
                                      "(their paired difference includes 0)")
        return holds_only_verdict([names[k] for k in np.flatnonzero(holding)]), direction, ""
    if inside.all():
        return NO_EFFECT, 0, ""
    unclear = [name for name, i in zip(names, inside, strict=True) if not i]
    return UNDECIDED, 0, _neither(unclear)


def _neither(names: list[str]) -> str:
    """The reason for fields whose interval neither excludes 0 nor lies inside the margin."""
    one = len(names) == 1
    return (f"{_join(names)} neither {'holds' if one else 'hold'} nor "
            f"{'lies' if one else 'lie'} within the margin")


def _plural(count: int, one: str, many: str) -> str:
    """``one`` for a count of 1, ``many`` otherwise."""
    return one if count == 1 else many


def _join(names) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _signed(value: float, digits: int) -> str:
    """``+1.2`` / ``-0.4``; a dash for a missing value."""
    if not math.isfinite(value):
        return "–"
    # Adding 0.0 turns a value that rounds to -0 into +0 ("+0.0", not "-0.0").
    return f"{round(value, digits) + 0.0:+,.{digits}f}"


def _number(value: float, digits: int) -> str:
    """``1.2``; a dash for a missing value."""
    return "–" if not math.isfinite(value) else f"{value:,.{digits}f}"
