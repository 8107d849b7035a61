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
  5. ``"differs between fields"``: none of the above, yet some paired difference between
     two fields excludes 0 (e.g. the finding holds in one field and the other's interval
     neither excludes 0 nor lies inside the margin): where the finding holds is unsettled,
     that it is not the same for every field is settled; ``reason`` says which part is which;
  6. ``"undecided"``: anything else, with ``reason`` saying what is missing. An interval that
     neither excludes 0 nor lies inside the band says nothing either way: absence of evidence
     is never read as evidence of absence.

Below ``MIN_VERDICT_CLUSTERS`` deals the verdict is ``"undecided"`` ("fewer than N deals"), the
intervals are still given (t on deals - 1 degrees of freedom, simultaneous by the seeded
Monte Carlo of ``sim.stats.clustered``). A field is chosen by the design, so a difference between
fields may be called an effect of the field on the finding; what the finding itself may be
called depends on what it measures (the caller's noun).

Generalisations (``judge_across_fields`` keeps its behaviour when none is asked for):

- *A contrast per field* (``field_contrast``, a (fields x K) matrix over K ratio means): field
  f's estimate is ``field_contrast[f] @ means``. "The mean score in deals with tile 7 removed
  minus the other deals" is two ratio means per field (with, without) and the contrast [1, -1];
  the two means of one field and those of the other fields are all over the same deals, so one
  joint covariance still serves every interval.
- *A level* (``kind="level"``: a game length, a deal share) is not judged against 0, only
  between fields, by the paired differences: ``"differs between fields"`` when some pair's
  interval excludes 0, else ``"the same in every field"`` when every pair's interval lies inside
  (-margin, +margin), else ``"undecided"`` (with the reason; also below
  ``MIN_VERDICT_CLUSTERS`` deals). A difference smaller than the margin that the data still
  detect is "differs" (the sentence adds that every difference lies within the margin).
- *Any estimate with a deal-level covariance* (``judge_estimates``): a statistic that is not a
  ratio of sums (the deal's share of the score variance) comes as a ``RatioMeans`` whose
  covariance was resampled over deals, the same deals left out of (or drawn for) every field so
  that the pairing survives.
- *A family* (``judge_family``): several findings of one kind (every seat's gap) whose
  intervals are simultaneous over every finding and every field of the family, because a
  verdict (fairness) reads them all at once and the largest is the one a reader looks at.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sim.errors import InputError
from sim.stats.clustered import (
    CONFIDENCE,
    MIN_VERDICT_CLUSTERS,
    ContrastIntervals,
    RatioMeans,
    contrast_intervals,
    pairwise_contrasts,
    ratio_means,
)

# The kinds of finding: an effect is judged against 0 in every field, a level only between
# fields (by the paired differences).
KIND_EFFECT = "effect"
KIND_LEVEL = "level"
KINDS = (KIND_EFFECT, KIND_LEVEL)

# Verdicts of an effect.
DIFFERS_IN_SIGN = "differs in sign between fields"
HOLDS_EVERYWHERE = "holds in every field"
NO_EFFECT = "no effect in any field"
# Verdicts of a level.
DIFFERS_BETWEEN = "differs between fields"
SAME_EVERYWHERE = "the same in every field"
# Either kind.
UNDECIDED = "undecided"


def holds_only_verdict(fields: list[str]) -> str:
    """The verdict ``"holds in strong only"`` / ``"holds in strong and style only"``."""
    return f"holds in {join_names(fields)} only"


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
    excludes 0 (on either side; always empty for a level); ``direction`` is +1 or -1 for
    "holds in every field" and "holds in ... only" (the holding side), 0 otherwise. ``reason``
    says why the verdict is "undecided" (empty otherwise). ``kind`` is ``KIND_EFFECT`` or
    ``KIND_LEVEL``; ``family`` the number of findings the intervals are simultaneous over (1:
    over this finding's fields, and its pairs, only).
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
    kind: str = KIND_EFFECT
    family: int = 1

    def sentence(self, noun: str, unit: str, scale: float = 1.0, digits: int = 1) -> str:
        """One plain-English line: the verdict, every field's value with its interval, and
        every paired difference, e.g. "seat 1's win-rate advantage holds in every field:
        strong +4.1 (+1.2 to +7.0), style +3.8 (+0.9 to +6.7) percentage points; strong minus
        style +0.3 (-1.1 to +1.7)". A level's values are unsigned ("game length is the same
        in every field (every paired difference within ±0.5 turns): strong 31.20 (31.05 to
        31.35), ..."). ``scale`` multiplies every number (100 turns a proportion into
        percentage points), ``digits`` the decimals shown."""

        def value(estimate: float, low: float, high: float, signed: bool = True) -> str:
            number = signed_text if signed else _number
            shown = number(scale * estimate, digits)
            if not (math.isfinite(low) and math.isfinite(high)):
                return f"{shown} (no interval)"
            return f"{shown} ({number(scale * low, digits)} to {number(scale * high, digits)})"

        band = f"within ±{_number(scale * self.margin, digits)} {unit}"
        level = self.kind == KIND_LEVEL
        if level and self.verdict == SAME_EVERYWHERE:
            head = f"{noun} is {SAME_EVERYWHERE} (every paired difference {band})"
        elif level and self.verdict == DIFFERS_BETWEEN:
            inside = bool(len(self.pair_lows)) and bool(
                ((self.pair_lows > -self.margin) & (self.pair_highs < self.margin)).all())
            # Detected, yet smaller than what counts as a difference: say both.
            head = f"{noun} {DIFFERS_BETWEEN}" + (
                f" (every paired difference {band})" if inside else "")
        elif self.verdict == DIFFERS_BETWEEN:
            head = f"{noun} {DIFFERS_BETWEEN} ({self.reason})"
        elif self.verdict == NO_EFFECT:
            head = f"{noun} shows {NO_EFFECT} (every field {band})"
        elif self.verdict == UNDECIDED:
            head = f"{noun} is undecided across fields ({self.reason})"
        elif self.verdict.startswith("holds in") and self.verdict != HOLDS_EVERYWHERE:
            others = [name for name in self.fields if name not in self.holding_fields]
            head = f"{noun} {self.verdict} ({join_names(others)} {band})"
        else:
            head = f"{noun} {self.verdict}"
        per_field = ", ".join(
            f"{name} {value(e, lo, hi, signed=not level)}" for name, e, lo, hi in zip(
                self.fields, self.estimates, self.lows, self.highs, strict=True))
        per_pair = ", ".join(
            f"{self.fields[i]} minus {self.fields[j]} {value(e, lo, hi)}"
            for (i, j), e, lo, hi in zip(self.pairs, self.pair_estimates, self.pair_lows,
                                         self.pair_highs, strict=True))
        return f"{head}: {per_field} {unit}; {per_pair}"


def judge_across_fields(values, counts, field_names: list[str], margin: float,
                        confidence: float = CONFIDENCE,
                        value_range: tuple[float, float] | None = None,
                        kind: str = KIND_EFFECT, field_contrast=None) -> FieldJudgement:
    """Judge one finding across fields from per-deal sums ``values`` and counts ``counts``,
    both (deals, K) arrays; see the module docstring.

    Without ``field_contrast`` column f belongs to ``field_names[f]`` (K = fields). With it,
    a (fields x K) matrix, field f's estimate is ``field_contrast[f] @`` the K ratio means
    (e.g. two columns per field, with and without an item, and the rows [1, -1, 0, 0] and
    [0, 0, 1, -1]). ``kind`` is ``KIND_EFFECT`` (judged against 0) or ``KIND_LEVEL`` (judged
    by the paired differences only). ``margin`` (>= 0) is the practically-zero band, in the
    finding's own units. ``value_range`` (low, high), when the finding has one (a win-rate gap
    lies in [-1, 1]), keeps every field's interval inside it (and every pair's inside
    [low - high, high - low]). Deals with no count in any column are left out (they carry no
    information). Raises ``InputError`` on bad input.
    """
    values, counts, field_contrast = _checked(values, counts, field_names, margin, confidence,
                                              field_contrast, kind)
    played = counts.sum(axis=1) > 0
    means = ratio_means(values[played], counts[played])
    return judge_estimates(means, field_names, margin, kind=kind, field_contrast=field_contrast,
                           value_range=value_range, confidence=confidence)


def judge_estimates(means: RatioMeans, field_names: list[str], margin: float,
                    kind: str = KIND_EFFECT, field_contrast=None,
                    value_range: tuple[float, float] | None = None,
                    confidence: float = CONFIDENCE) -> FieldJudgement:
    """Judge one finding across fields from any estimates over common deals with their
    deal-level covariance: ``means.means`` (K,), ``means.covariance`` (K, K) and
    ``means.clusters`` (the deals, which set the t degrees of freedom). A ratio mean comes
    from ``ratio_means``; a statistic that is not a ratio of sums (a deal share) with a
    covariance resampled over deals, the same deals for every field. Arguments and verdicts
    as ``judge_across_fields``; the estimates are clipped into ``value_range`` as well (a
    share estimated below 0 is shown as 0, as its one-field report does)."""
    return judge_family(means, field_names, [field_contrast], margin, kind=kind,
                        value_range=value_range, confidence=confidence)[0]


def judge_family(means: RatioMeans, field_names: list[str], field_contrasts: Sequence,
                 margin: float, kind: str = KIND_EFFECT,
                 value_range: tuple[float, float] | None = None,
                 confidence: float = CONFIDENCE) -> list[FieldJudgement]:
    """Judge several findings of one kind at once (e.g. every seat's win-share gap), one
    ``FieldJudgement`` per entry of ``field_contrasts`` (each a (fields x K) matrix over
    ``means``, or None for the identity when K = fields). The fields' intervals are
    simultaneous over every finding and every field of the family, the pairs' over every
    finding and every pair, so a verdict that reads the whole family (fairness: every seat in
    every field) holds at the stated confidence. Raises ``InputError`` on bad input."""
    names = list(field_names)
    if kind not in KINDS:
        raise InputError(f"fields: the kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if len(names) < 2 or len(set(names)) != len(names):
        raise InputError(f"fields: a finding is judged across at least 2 distinct fields, got "
                         f"{names}")
    _check_margin_and_confidence(margin, confidence)
    if not field_contrasts:
        raise InputError("fields: a family needs at least one finding")
    estimates_count = np.asarray(means.means).size
    contrasts = [_contrast_matrix(contrast, len(names), estimates_count)
                 for contrast in field_contrasts]
    pair_matrix, pairs = pairwise_contrasts(len(names))
    estimable = bool(np.isfinite(means.means).all() and np.isfinite(means.covariance).all())
    per_field = _intervals(means, np.vstack(contrasts), confidence, estimable)
    per_pair = _intervals(means, np.vstack([pair_matrix @ c for c in contrasts]), confidence,
                          estimable)
    fields_count, pairs_count = len(names), len(pairs)
    judgements = []
    for member in range(len(contrasts)):
        rows = slice(member * fields_count, (member + 1) * fields_count)
        pair_rows = slice(member * pairs_count, (member + 1) * pairs_count)
        estimates = per_field.estimates[rows]
        lows, highs = per_field.low[rows], per_field.high[rows]
        pair_lows, pair_highs = per_pair.low[pair_rows], per_pair.high[pair_rows]
        if value_range is not None:
            bottom, top = value_range
            estimates = np.clip(estimates, bottom, top)
            lows, highs = np.clip(lows, bottom, top), np.clip(highs, bottom, top)
            pair_lows = np.clip(pair_lows, bottom - top, top - bottom)
            pair_highs = np.clip(pair_highs, bottom - top, top - bottom)
        if kind == KIND_LEVEL:
            verdict, direction, reason = _level_verdict(pairs, pair_lows, pair_highs, names,
                                                        margin, means.clusters)
            holding = []
        else:
            verdict, direction, reason = _verdict(lows, highs, pairs, pair_lows, pair_highs,
                                                  names, margin, means.clusters)
            holding = [name for name, low, high in zip(names, lows, highs, strict=True)
                       if low > 0 or high < 0]
        if not estimable and means.clusters >= MIN_VERDICT_CLUSTERS:
            reason = "no interval (the estimates or their covariance over deals are undefined)"
        judgements.append(FieldJudgement(
            fields=names, estimates=estimates,
            standard_errors=per_field.standard_errors[rows], lows=lows, highs=highs,
            pairs=pairs, pair_estimates=per_pair.estimates[pair_rows],
            pair_standard_errors=per_pair.standard_errors[pair_rows], pair_lows=pair_lows,
            pair_highs=pair_highs, verdict=verdict, direction=direction, holding_fields=holding,
            clusters=int(means.clusters), margin=float(margin), confidence=float(confidence),
            reason=reason, kind=kind, family=len(contrasts)))
    return judgements


def _intervals(means: RatioMeans, matrix: np.ndarray, confidence: float,
               estimable: bool) -> ContrastIntervals:
    """``contrast_intervals`` simultaneous over the rows, or no interval (NaN) when the
    estimates or their covariance are undefined (a share with no degrees of freedom)."""
    if estimable:
        return contrast_intervals(means, matrix, confidence, simultaneous=True)
    estimates = matrix @ np.nan_to_num(means.means)
    estimates = np.where(np.isfinite(matrix @ means.means), estimates, np.nan)
    nothing = np.full(estimates.shape, np.nan)
    return ContrastIntervals(estimates, nothing, nothing.copy(), nothing.copy(), float("nan"))


def _contrast_matrix(contrast, fields_count: int, estimates_count: int) -> np.ndarray:
    """The (fields x K) matrix of one finding (the identity for None), checked."""
    if contrast is None:
        if estimates_count != fields_count:
            raise InputError(f"fields: {estimates_count} estimates for {fields_count} fields "
                             "need a field contrast (fields x estimates)")
        return np.eye(fields_count)
    matrix = np.asarray(contrast, dtype=float)
    if matrix.shape != (fields_count, estimates_count) or not np.isfinite(matrix).all():
        raise InputError(f"fields: the field contrast must be a finite ({fields_count} fields x "
                         f"{estimates_count} estimates) matrix, got shape {matrix.shape}")
    return matrix


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
    values, counts, _ = _checked(values, counts, ["a", "b"], 0.0, confidence)
    played = counts.sum(axis=1) > 0
    means = ratio_means(values[played], counts[played])
    interval = contrast_intervals(means, np.array([[1.0, -1.0]]), confidence, simultaneous=False)
    return PairedDifference(float(interval.estimates[0]), float(interval.standard_errors[0]),
                            float(interval.low[0]), float(interval.high[0]), means.clusters)


def _checked(values, counts, field_names, margin, confidence, field_contrast=None,
             kind: str = KIND_EFFECT) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The inputs as float arrays (and the contrast, or None), or ``InputError`` with a
    one-line message."""
    values = np.asarray(values, dtype=float)
    counts = np.asarray(counts, dtype=float)
    if values.ndim != 2 or values.shape != counts.shape:
        raise InputError(f"fields: values {values.shape} and counts {counts.shape} must both be "
                         "(deals, fields) arrays of the same shape")
    names = list(field_names)
    if field_contrast is None and values.shape[1] < 2:
        raise InputError(f"fields: a finding is judged across at least 2 fields, got "
                         f"{values.shape[1]}")
    if len(names) < 2 or len(set(names)) != len(names) or (
            field_contrast is None and len(names) != values.shape[1]):
        raise InputError(f"fields: {len(names)} field names {names} for {values.shape[1]} "
                         "columns (one distinct name per column, at least 2)")
    if kind not in KINDS:
        raise InputError(f"fields: the kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if field_contrast is not None:
        field_contrast = _contrast_matrix(field_contrast, len(names), values.shape[1])
    if not (np.isfinite(values).all() and np.isfinite(counts).all()):
        raise InputError("fields: values and counts must be finite numbers")
    if (counts < 0).any():
        raise InputError("fields: counts must not be negative")
    totals = counts.sum(axis=0)
    if field_contrast is None:
        empty = [name for name, total in zip(names, totals, strict=True) if total <= 0]
        if empty:
            raise InputError(f"fields: no count in field {join_names(empty)} (nothing to estimate)")
    else:
        for column in np.flatnonzero(totals <= 0):
            users = [names[f] for f in np.flatnonzero(field_contrast[:, column] != 0)]
            if users:
                raise InputError(f"fields: no count in column {column} (used by field "
                                 f"{join_names(users)}; nothing to estimate)")
    _check_margin_and_confidence(margin, confidence)
    return values, counts, field_contrast


def _check_margin_and_confidence(margin: float, confidence: float) -> None:
    """``InputError`` with a one-line message unless the margin is a number >= 0 and the
    confidence lies between 0 and 1."""
    if not (math.isfinite(margin) and margin >= 0):
        raise InputError(f"fields: the margin must be a number >= 0, got {margin}")
    if not 0 < confidence < 1:
        raise InputError(f"fields: the confidence must lie between 0 and 1, got {confidence}")


def _no_verdict_reason(clusters: int, lows, highs, intervals: str) -> str | None:
    """Why no verdict can be given, None when one can: fewer than ``MIN_VERDICT_CLUSTERS``
    deals, or no simultaneous interval (``lows``/``highs`` NaN) for the ``intervals`` named."""
    if clusters < MIN_VERDICT_CLUSTERS:
        return f"fewer than {MIN_VERDICT_CLUSTERS} deals"
    if np.isnan(lows).any() or np.isnan(highs).any():
        return f"no simultaneous interval from {clusters} deals for {intervals}"
    return None


def _level_verdict(pairs, pair_lows, pair_highs, names: list[str], margin: float,
                   clusters: int) -> tuple[str, int, str]:
    """(verdict, 0, reason) of a level: by the paired differences only (module docstring)."""
    reason = _no_verdict_reason(clusters, pair_lows, pair_highs, f"{len(pairs)} pairs of fields")
    if reason is not None:
        return UNDECIDED, 0, reason
    if ((pair_lows > 0) | (pair_highs < 0)).any():
        return DIFFERS_BETWEEN, 0, ""
    inside = (pair_lows > -margin) & (pair_highs < margin)
    if inside.all():
        return SAME_EVERYWHERE, 0, ""
    unclear = [f"{names[i]} minus {names[j]}"
               for (i, j), within in zip(pairs, inside, strict=True) if not within]
    one = len(unclear) == 1
    return UNDECIDED, 0, (f"{join_names(unclear)} neither {'excludes' if one else 'exclude'} 0 nor "
                          f"{'lies' if one else 'lie'} within the margin")


def _verdict(lows, highs, pairs, pair_lows, pair_highs, names: list[str], margin: float,
             clusters: int) -> tuple[str, int, str]:
    """(verdict, direction, reason) by the precedence of the module docstring."""
    reason = _no_verdict_reason(clusters, lows, highs, f"{len(names)} fields")
    if reason is not None:
        return UNDECIDED, 0, reason
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
            state = (f"{join_names(held)} {_plural(len(held), 'holds', 'hold')}, "
                     f"{_neither(unclear)}")
            apart = _apart_pairs(pairs, pair_lows, pair_highs, names)
            if apart:
                # Where the finding holds is not settled, but that the fields differ is.
                return DIFFERS_BETWEEN, 0, f"{state}; {apart}"
            return UNDECIDED, 0, state
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
    apart = _apart_pairs(pairs, pair_lows, pair_highs, names)
    if apart:
        return DIFFERS_BETWEEN, 0, f"{_neither(unclear)}; {apart}"
    return UNDECIDED, 0, _neither(unclear)


def _apart_pairs(pairs, pair_lows, pair_highs, names: list[str]) -> str:
    """The pairs of fields whose paired difference excludes 0, in words ("" when none)."""
    apart = [f"{names[i]} − {names[j]}" for row, (i, j) in enumerate(pairs)
             if pair_lows[row] > 0 or pair_highs[row] < 0]
    if not apart:
        return ""
    if len(apart) == 1:
        return f"the paired difference {apart[0]} excludes 0"
    return f"the paired differences {join_names(apart)} exclude 0"


def _neither(names: list[str]) -> str:
    """The reason for fields whose interval neither excludes 0 nor lies inside the margin."""
    one = len(names) == 1
    return (f"{join_names(names)} neither {'holds' if one else 'hold'} nor "
            f"{'lies' if one else 'lie'} within the margin")


def _plural(count: int, one: str, many: str) -> str:
    """``one`` for a count of 1, ``many`` otherwise."""
    return one if count == 1 else many


def join_names(names) -> str:
    """``a``, ``a and b``, ``a, b and c``; "" for no names."""
    names = list(names)
    if not names:
        return ""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def signed_text(value: float, digits: int) -> str:
    """``+1.2`` / ``-0.4`` with ``digits`` decimals; a dash for a missing value; never ``-0.0``."""
    if not math.isfinite(value):
        return "–"
    # Adding 0.0 turns a value that rounds to -0 into +0 ("+0.0", not "-0.0").
    return f"{round(value, digits) + 0.0:+,.{digits}f}"


def _number(value: float, digits: int) -> str:
    """``1.2``; a dash for a missing value."""
    return "–" if not math.isfinite(value) else f"{value:,.{digits}f}"
