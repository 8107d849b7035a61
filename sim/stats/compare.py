"""Is variant B better than A? Two sets of games on the same deals, every metric paired.

A *comparison* puts the games of a baseline A (a sweep's baseline point, or ``sim compare``'s
RUN_A) beside those of a variant B (another point, RUN_B) played on the SAME deals: the same
master seed and deal ids, so deal d is the same shuffle in both (common random numbers). Every
metric is then estimated in both from per-deal sums, and its difference B minus A is paired on
the common deals: a deal that makes every score high does so under both rules and cancels from
the difference, whose interval is therefore much narrower than two separate intervals suggest.

The machinery is that of fields of players (``sim.stats.field_findings``): the rows of A and of
B get a ``field`` column (their names) and ``judge_findings`` judges every headline across these
two "fields" (seat gaps, seat scores, deal share when a deal is replayed, game length, game
flow, the game's deal covariates, held cards). This module adds the mean score per player (a
level, margin ``SCORE_MARGIN``: one point) and reads every finding as a comparison:

- A's and B's values with their intervals (95%, simultaneous over the two and over the members
  of a family read at once, such as every seat's gap);
- the paired difference B minus A with its interval (simultaneous over a family's members);
- a verdict on the difference, against the finding's margin (seat win-share gaps: the fair
  margin; scores: one point; ``sim.stats.field_findings`` for the rest): ``"B higher"`` /
  ``"B lower"`` when the interval excludes 0 (``", by less than the margin"`` added when it
  also lies inside the margin), ``"the same within the margin"`` when it lies inside
  (-margin, +margin) (an equivalence shown, never read from an interval that merely includes
  0), else ``"undecided"`` with the reason; ``"undecided"`` too below ``MIN_VERDICT_CLUSTERS``
  common deals.

What may be called an effect: the rules (or tile set, or lineup) of A and B are set by the
design and both play the same deals, so a difference of a metric the design randomises (the
mean score, a seat's gap with balanced seating, a deal covariate's effect) is an effect of the
change. A held card is a player's choice: its finding is an association in A and in B, and so
is the difference between them (``causal`` False).

A rules change may change what the deal sets (another supply removes other tiles): a deal
covariate whose value differs between A and B on some common deal cannot be judged as one
effect of the deal, so its findings are left out and a note says so. Deals only one side
played are left out and counted in a note; no common deal at all, or a common deal with
another deal seed, is an ``InputError`` (one line).

Sweeps: ``baseline_values`` reads the baseline point from ``sweep.json`` (the first point for
a sweep written before baselines), ``baseline_pairs`` pairs every other played point with the
baseline of its own table setting: the point with the baseline's values on every axis except
``players`` and ``field`` (``SETTING_AXES``), which keep the point's own, since a 3-player game
and another field of players are other games, not a variant of the baseline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.games.base import Game
from sim.games.registry import get_game
from sim.stats.batch import Batch, open_batch
from sim.stats.clustered import MIN_VERDICT_CLUSTERS
from sim.stats.field_findings import (
    SCORE_MARGIN,
    FieldFinding,
    fairness_across_fields,
    judge_findings,
)
from sim.stats.fields import KIND_LEVEL, judge_across_fields

# The axes that make another table setting, not a variant: a point is compared with the
# baseline that shares its values on these.
SETTING_AXES = ("players", "field")
MEAN_SCORE = "mean score"
MEAN_SCORE_KEY = "score_mean"

HIGHER = "B higher"
LOWER = "B lower"
WITHIN = ", by less than the margin"
SAME = "the same within the margin"
UNDECIDED = "undecided"
VERDICTS = (HIGHER, HIGHER + WITHIN, LOWER, LOWER + WITHIN, SAME, UNDECIDED)


@dataclass(frozen=True)
class PairedComparison:
    """B against A on their common deals.

    ``baseline`` and ``variant``: the names A and B go by (two distinct strings); ``findings``:
    every metric judged across the two (``FieldFinding``, fields ``[baseline, variant]``), the
    mean score first, then in ``sim.stats.field_findings.HEADLINES`` order; ``deals``: the
    common deals compared on; ``notes``: one line each on what was left out and why.
    ``setting`` ("players 3"; "" when there is one) and the points' indices (None outside a
    sweep) place it in a sweep."""

    baseline: str
    variant: str
    deals: int
    findings: list[FieldFinding]
    notes: list[str] = field(default_factory=list)
    setting: str = ""
    baseline_point: int | None = None
    variant_point: int | None = None


@dataclass(frozen=True)
class MetricDifference:
    """One metric of a comparison: A's and B's values (in the finding's own units; ``scale``
    of ``finding`` turns them into the shown unit) with their intervals, the paired difference
    B minus A with its standard error and interval, and the verdict on it."""

    finding: FieldFinding
    baseline: float
    baseline_low: float
    baseline_high: float
    variant: float
    variant_low: float
    variant_high: float
    difference: float
    standard_error: float
    low: float
    high: float
    verdict: str
    reason: str = ""


def differences(comparison: PairedComparison) -> list[MetricDifference]:
    """Every finding of ``comparison`` as a ``MetricDifference``, in its order."""
    return [metric_difference(finding) for finding in comparison.findings]


def metric_difference(finding: FieldFinding) -> MetricDifference:
    """One finding judged across [A, B] read as B minus A, with its verdict (module
    docstring)."""
    judgement = finding.judgement
    if len(judgement.fields) != 2 or judgement.pairs != [(0, 1)]:
        raise InputError(f"compare: {finding.noun} is judged across {len(judgement.fields)} "
                         "fields, not a baseline and a variant")
    # The pair is A minus B; B minus A turns it round.
    difference = -float(judgement.pair_estimates[0])
    low, high = -float(judgement.pair_highs[0]), -float(judgement.pair_lows[0])
    verdict, reason = difference_verdict(low, high, judgement.margin, judgement.clusters)
    return MetricDifference(
        finding, float(judgement.estimates[0]), float(judgement.lows[0]),
        float(judgement.highs[0]), float(judgement.estimates[1]), float(judgement.lows[1]),
        float(judgement.highs[1]), difference, float(judgement.pair_standard_errors[0]), low,
        high, verdict, reason)


def difference_verdict(low: float, high: float, margin: float, deals: int) -> tuple[str, str]:
    """(verdict, reason) of a difference B minus A with the interval ``low``..``high`` against
    the practically-zero band (-``margin``, +``margin``); see the module docstring."""
    if deals < MIN_VERDICT_CLUSTERS:
        return UNDECIDED, f"fewer than {MIN_VERDICT_CLUSTERS} common deals"
    if not (math.isfinite(low) and math.isfinite(high)):
        return UNDECIDED, "no interval"
    inside = low > -margin and high < margin
    if low > 0:
        return HIGHER + (WITHIN if inside else ""), ""
    if high < 0:
        return LOWER + (WITHIN if inside else ""), ""
    if inside:
        return SAME, ""
    # Absence of evidence is not evidence of absence: an interval that includes 0 and reaches
    # past the margin decides nothing.
    return UNDECIDED, "the interval includes 0 and reaches past the margin"


def seat_fairness(comparison: PairedComparison) -> tuple[list[str], str]:
    """The seats' fairness in A and in B (``"fair"``, ``"unfair"``, ``"undecided"``, in that
    order; ``sim.stats.field_findings.fairness_across_fields``) and the reason when undecided
    for both; ``([], "")`` without seat gaps (one player)."""
    if not any(f.key.startswith("seat_win_gap/") for f in comparison.findings):
        return [], ""
    fairness = fairness_across_fields(comparison.findings,
                                      [comparison.baseline, comparison.variant])
    return list(fairness.per_field), fairness.reason


class _ComparedGame:
    """The game as ``judge_findings`` sees a comparison: the rules may differ between A and B
    (that is the comparison), so no rules parameter must be constant, and only the deal
    covariates that A and B agree on are judged."""

    rules_parameters = ()

    def __init__(self, game: Game, covariates: tuple) -> None:
        self._game = game
        self._covariates = covariates

    def deal_covariates(self) -> tuple:
        """The deal covariates judged (those with one value per deal in A and B alike)."""
        return self._covariates

    def __getattr__(self, name: str) -> Any:
        return getattr(self._game, name)


def compare_rows(rows: pl.LazyFrame, baseline: str, variant: str, game: Game,
                 sources: tuple[str, str] = ("A", "B"), setting: str = "",
                 points: tuple[int | None, int | None] = (None, None)) -> PairedComparison:
    """B against A from ``rows``: every row of both with a ``field`` column holding
    ``baseline`` or ``variant`` (one player count), the columns of a rows store. ``sources``
    name A and B in error messages and notes (their folders). Raises ``InputError`` (one line)
    when the two share no deal or a common deal has another deal seed."""
    if baseline == variant:
        raise InputError(f"compare: the baseline and the variant need two names, got "
                         f"{baseline!r} twice")
    names = [baseline, variant]
    rows = rows.filter(pl.col("field").is_in(names))
    schema = rows.collect_schema()
    covariates = [c for c in game.deal_covariates() if c.column in schema]
    deal_columns = [c.column for c in covariates] + (
        ["deal_seed"] if "deal_seed" in schema else [])
    per_deal = (rows.group_by("field", "deal_id")
                .agg(pl.len().cast(pl.Int64).alias("_n"),
                     pl.col("score").cast(pl.Int64).sum().alias("_s"),
                     *[pl.col(c).first() for c in deal_columns])
                .collect())
    sides = [per_deal.filter(pl.col("field") == name).drop("field") for name in names]
    for side, source in zip(sides, sources, strict=True):
        if side.is_empty():
            raise InputError(f"{source}: no games to compare")
    joined = sides[0].join(sides[1], on="deal_id", how="inner", suffix="_b").sort("deal_id")
    counts = [side.height for side in sides]
    if joined.is_empty():
        raise InputError(f"{sources[1]}: not played on {sources[0]}'s deals (no deal id in "
                         f"common: {_deal_range(sides[0])} vs {_deal_range(sides[1])})")
    if "deal_seed" in deal_columns:
        other = joined.filter(pl.col("deal_seed").ne_missing(pl.col("deal_seed_b")))
        if other.height:
            raise InputError(f"{sources[1]}: not played on {sources[0]}'s deals ({other.height:,} "
                             f"of the {joined.height:,} common deal ids have another deal seed, "
                             f"e.g. deal {other['deal_id'][0]})")
    notes = []
    common = joined.height
    if common < max(counts):
        notes.append(f"Compared on the {common:,} deals both played ({sources[0]} played "
                     f"{counts[0]:,}, {sources[1]} {counts[1]:,}); the other deals are left out.")
    kept, dropped = [], []
    for covariate in covariates:
        column = covariate.column
        differs = joined.select(pl.col(column).ne_missing(pl.col(f"{column}_b")).any()).item()
        (dropped if differs else kept).append(covariate)
    if dropped:
        what = ", ".join(c.column for c in dropped)
        notes.append(f"Not compared: the effects of {what}, which differ between A and B on the "
                     f"same deal (the change alters what the deal sets).")
    rows = rows.filter(pl.col("deal_id").is_in(joined["deal_id"].implode()))
    findings = judge_findings(rows, names, _ComparedGame(game, tuple(kept)))
    values = joined.select("_s", "_s_b").to_numpy().astype(float)
    player_games = joined.select("_n", "_n_b").to_numpy().astype(float)
    mean = judge_across_fields(values, player_games, names, SCORE_MARGIN, kind=KIND_LEVEL)
    findings.insert(0, FieldFinding(MEAN_SCORE, MEAN_SCORE_KEY, "mean score per player",
                                    "points", 1.0, 2, KIND_LEVEL, True, mean))
    return PairedComparison(baseline, variant, common, findings, notes, setting, *points)


def _deal_range(side: pl.DataFrame) -> str:
    """``deals 0–999`` of one side's per-deal table."""
    ids = side["deal_id"]
    return f"deals {ids.min():,}–{ids.max():,}"


# ------------------------------------------------------------------------------ two batches


def batch_rows(batch: Batch) -> pl.LazyFrame:
    """The rows of a batch's finished shards (checked files only), as written."""
    return pl.scan_parquet([str(path) for path in batch.shard_files])


def _two_sources(first: pl.LazyFrame, second: pl.LazyFrame, names: list[str]) -> pl.LazyFrame:
    """The rows of A and B as one frame with a ``field`` column: only the columns both have (a
    metric is compared only when both record it), each cast to one type."""
    schema_a, schema_b = first.collect_schema(), second.collect_schema()
    columns = [c for c in schema_a if c in schema_b and c != "field"]
    return pl.concat([frame.select(columns).with_columns(pl.lit(name).alias("field"))
                      for frame, name in zip((first, second), names, strict=True)],
                     how="vertical_relaxed")


def _names(run_a: Path, run_b: Path) -> tuple[str, str]:
    """What A and B are called: their folders' names, or ``A`` and ``B`` when these agree."""
    a, b = run_a.resolve().name, run_b.resolve().name
    return (a, b) if a != b else ("A", "B")


def compare_batches(run_a: str | Path, run_b: str | Path) -> PairedComparison:
    """B (``run_b``) against A (``run_a``): two batch folders (``sim run``, or two points of a
    sweep) of one game and player count, played on the same deals. Raises ``InputError`` (one
    line) when they cannot be compared: not batch folders, another game, another player count,
    the summary store, another master seed, no common deal, a common deal with another seed."""
    run_a, run_b = Path(run_a), Path(run_b)
    for run in (run_a, run_b):
        if (run / "sweep.json").is_file() and not (run / "manifest.json").is_file():
            raise InputError(f"{run}: a sweep folder, not a batch; compare two of its points "
                             f"(sim compare {run}/points/LABEL_A {run}/points/LABEL_B), or see "
                             f"the report's 'Against the baseline' (sim report {run})")
    if run_a.resolve() == run_b.resolve():
        raise InputError(f"{run_b}: the same batch as {run_a}; compare two batches")
    batches = [open_batch(run_a), open_batch(run_b)]
    for batch, run in zip(batches, (run_a, run_b), strict=True):
        if not batch.is_rows:
            raise InputError(f"{run}: played into the summary store, which keeps no per-deal "
                             "rows to pair; play it again with store = \"rows\"")
    first, second = batches
    if first.game != second.game:
        raise InputError(f"{run_b}: a {second.game} batch, {run_a} a {first.game} one; compare "
                         f"batches of one game")
    config_a = first.manifest.get("config") or {}
    config_b = second.manifest.get("config") or {}
    players_a, players_b = config_a.get("players"), config_b.get("players")
    if players_a != players_b:
        raise InputError(f"{run_b}: {players_b} players, {run_a} {players_a}; compare batches of "
                         f"one player count")
    seed_a, seed_b = config_a.get("seed"), config_b.get("seed")
    if seed_a != seed_b:
        raise InputError(f"{run_b}: not played on {run_a}'s deals (master seed {seed_a} vs "
                         f"{seed_b})")
    names = list(_names(run_a, run_b))
    rows = _two_sources(batch_rows(first), batch_rows(second), names)
    return compare_rows(rows, names[0], names[1], get_game(first.game),
                        sources=(str(run_a), str(run_b)))


# ------------------------------------------------------------------------------ sweeps


@dataclass(frozen=True)
class BaselinePair:
    """A point of a sweep and the baseline it is compared with (``sim.stats.sweep``'s
    ``SweepPointFolder`` objects), in the table setting ``setting`` ("players 3")."""

    setting: str
    baseline: Any
    variant: Any


def baseline_values(sweep) -> dict[str, Any]:
    """The baseline point's axis values of a ``sim.stats.sweep.SweepFolder``: ``baseline`` in
    ``sweep.json`` when it names a point, else the first point's (a sweep from before
    baselines)."""
    stored = sweep.manifest.get("baseline")
    if isinstance(stored, dict) and any(_same_values(point.values, stored)
                                        for point in sweep.points):
        return dict(stored)
    return dict(sweep.points[0].values)


def _same_values(values: dict[str, Any], other: dict[str, Any]) -> bool:
    return set(values) == set(other) and all(str(values[k]) == str(other[k]) for k in values)


def _axis_text(value: Any) -> str:
    return Path(value).stem if isinstance(value, str) and value.endswith((".toml", "/")) \
        else str(value)


def point_name(values: dict[str, Any], axes: list[str]) -> str:
    """A point by its values on ``axes``: ``side=B`` (``all points`` with no axis)."""
    return ",".join(f"{axis}={_axis_text(values[axis])}" for axis in axes) or "all points"


def baseline_pairs(sweep, played: set[int]) -> tuple[list[BaselinePair], list[str]]:
    """Every played point of ``sweep`` (indices in ``played``) but a baseline, with the baseline
    of its table setting (module docstring), in the sweep's order; and one note per setting
    whose baseline has no results. Empty when no axis but the setting axes varies."""
    base = baseline_values(sweep)
    setting_axes = [axis for axis in sweep.axes if axis in SETTING_AXES]
    pairs, notes, missing = [], [], []
    for point in sweep.points:
        if point.index not in played:
            continue
        home = {**base, **{axis: point.values.get(axis) for axis in setting_axes}}
        if _same_values(point.values, home):
            continue
        baseline = next((p for p in sweep.points if _same_values(p.values, home)), None)
        setting = ", ".join(f"{axis} {_axis_text(point.values[axis])}" for axis in setting_axes)
        if baseline is None or baseline.index not in played:
            label = point_name(home, list(sweep.axes))
            if label not in missing:
                missing.append(label)
                notes.append(f"No comparison{' at ' + setting if setting else ''}: its baseline "
                             f"{label} has no results yet.")
            continue
        pairs.append(BaselinePair(setting, baseline, point))
    return pairs, notes


def compare_sweep_points(sweep, pair: BaselinePair, game: Game) -> PairedComparison:
    """One ``BaselinePair`` of a sweep compared (``compare_rows``), A and B named by their values
    on the axes other than the setting axes (``side=A``)."""
    axes = [axis for axis in sweep.axes if axis not in SETTING_AXES]
    names = [point_name(pair.baseline.values, axes), point_name(pair.variant.values, axes)]
    rows = _two_sources(batch_rows(open_batch(pair.baseline.run_dir)),
                        batch_rows(open_batch(pair.variant.run_dir)), names)
    return compare_rows(rows, names[0], names[1], game,
                        sources=(pair.baseline.label, pair.variant.label), setting=pair.setting,
                        points=(pair.baseline.index, pair.variant.index))


# ------------------------------------------------------------------------------ the frame


FRAME_SCHEMA = {
    "setting": pl.String, "baseline_point": pl.Int64, "variant_point": pl.Int64,
    "baseline": pl.String, "variant": pl.String, "headline": pl.String, "key": pl.String,
    "noun": pl.String, "unit": pl.String, "kind": pl.String, "causal": pl.Boolean,
    "scale": pl.Float64, "digits": pl.Int64, "baseline_estimate": pl.Float64,
    "baseline_low": pl.Float64, "baseline_high": pl.Float64, "variant_estimate": pl.Float64,
    "variant_low": pl.Float64, "variant_high": pl.Float64, "difference": pl.Float64,
    "difference_standard_error": pl.Float64, "difference_low": pl.Float64,
    "difference_high": pl.Float64, "verdict": pl.String, "reason": pl.String,
    "margin": pl.Float64, "deals": pl.Int64, "confidence": pl.Float64, "family": pl.Int64,
}


def comparison_frame(comparisons: list[PairedComparison]) -> pl.DataFrame:
    """One row per comparison and metric (``FRAME_SCHEMA``), numbers in the metric's own units
    (shown = ``scale`` × number): ``against-baseline.parquet`` and ``compare.parquet``."""
    records = []
    for comparison in comparisons:
        for item in differences(comparison):
            finding, judgement = item.finding, item.finding.judgement
            records.append({
                "setting": comparison.setting, "baseline_point": comparison.baseline_point,
                "variant_point": comparison.variant_point, "baseline": comparison.baseline,
                "variant": comparison.variant, "headline": finding.headline,
                "key": finding.key, "noun": finding.noun, "unit": finding.unit,
                "kind": finding.kind, "causal": finding.causal, "scale": float(finding.scale),
                "digits": int(finding.digits), "baseline_estimate": item.baseline,
                "baseline_low": item.baseline_low, "baseline_high": item.baseline_high,
                "variant_estimate": item.variant, "variant_low": item.variant_low,
                "variant_high": item.variant_high, "difference": item.difference,
                "difference_standard_error": item.standard_error, "difference_low": item.low,
                "difference_high": item.high, "verdict": item.verdict, "reason": item.reason,
                "margin": float(judgement.margin), "deals": int(judgement.clusters),
                "confidence": float(judgement.confidence), "family": int(judgement.family)})
    return pl.DataFrame(records, schema=FRAME_SCHEMA)


def unpaired_difference(comparison: PairedComparison, key: str = MEAN_SCORE_KEY
                        ) -> tuple[float, float]:
    """The standard error B minus A of one metric would have if A and B had been played on
    other deals (the two estimates' standard errors added in quadrature), and the paired one:
    (unpaired, paired), to show what the common deals bought."""
    finding = next(f for f in comparison.findings if f.key == key)
    errors = np.asarray(finding.judgement.standard_errors, dtype=float)
    return float(np.sqrt((errors ** 2).sum())), float(finding.judgement.pair_standard_errors[0])
