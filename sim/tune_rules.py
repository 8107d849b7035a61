"""Rules tuning: which value of a game's integer rules parameter should the box use?

A preset of ``sim sweep`` over (players x the parameter) for any registered game and any of its
integer rules parameters (``Game.rules_parameters``), played by two or more *fields* of players
(``sim.fields``), every field on the same deals (common random numbers): by default ``strong``
(the strongest candidate in every seat) and ``mixed`` (the strongest candidate and ``greedy``
rotating through the seats). A recommendation made with one set of bots is a statement about
those bots, so every metric and the recommendation are per field, and one line per player count
says whether the pick holds for every field. How the parameter is written about, and what the
game measures and judges besides fairness and skill, is the game's declaration
(``Game.rules_tuning``: a ``RulesTuning`` with its ``TuningShare`` and ``TuningCriterion``
entries); a parameter the game declares nothing for gets generic words and no extra criterion.
Per grid point and field it measures, every interval 95% and cluster-robust over deals
(``sim.stats.clustered``):

- seat advantage: every gap between two seats' win rates with simultaneous (max-|t|) intervals;
  shown is the largest gap as observed (best seat minus worst) with that pair's simultaneous
  interval, which goes below zero when the two seats cannot be told apart (the observed
  largest gap is the largest of several noisy ones: 3.6 pp on average with no seat effect at
  800 games), and the fairness verdict: **fair** when every gap's interval lies within
  +-``fair_margin`` (2 percentage points by default), **unfair** when one lies wholly outside
  it, **undecided** otherwise;
- every share the game declares (``TuningShare``: one rows column summed over another), its
  interval the clustered Wilson one;
- score mean and SD, and the tie rate (share of games whose win is shared);
- skill expression: how often the strongest strategy finishes ahead of ``greedy`` at the same
  table (ties count half), and its difference from the best value's (``skill_gap_to_best``).
  It exists only in a field where the two share tables (``mixed``); elsewhere it is NaN.

Recommendation rule, per player count (2 or more). Each value is judged on each criterion,
``yes``, ``no`` or ``undecided`` from its interval:

- fair: the fairness verdict above;
- each criterion the game declares (``TuningCriterion``): its share below a maximum, yes when
  the interval's upper end is below it, no when its lower end is at or above it;
- keeps skill: the strongest strategy's edge within ``skill_tolerance`` (2 points) of the best
  value's. Which value is best is not known: the largest of several noisy estimates is biased
  upwards, and taking it as a fixed reference ignores its own uncertainty. So each value's edge
  is compared with every other value's, the differences with simultaneous (max-|t|) intervals
  on the same deals, and its distance from the best is the smallest of them (multiple
  comparisons with the best): yes when that interval's lower end reaches -tolerance (within
  tolerance of every value, so of the best), no when its upper end falls short of it (shown to
  lie more than the tolerance below some value). In a field where the strongest and greedy
  never share a table it cannot be measured: it is ``n/a``, not counted, and the sentence says
  so (never a silent yes).

The pick is the smallest value meeting every criterion counted (a rule is best kept small: one
component fewer in the box, one turn fewer at the table), provided every smaller value is
decided to fail one of them; if a smaller value is still undecided, the answer is **undecided:
play more games**, naming the value and the criterion. When every value fails, none is
recommended and the sentence names what fails where. Seat spread and skill need two or more
players, so 1 player gets metrics but no pick.

Across fields (``across_fields``), per player count: **holds** for every field when every field
picks the same value (or every field rules every value out), **depends on the players** when
decided picks differ, **undecided** when a field is still undecided (or has no games yet). A
sweep folder played before fields has no ``field`` column: it is one implicit field
(``SINGLE_FIELD``) and reports as before, with no across-fields line.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.fields import FIELD_AXIS
from sim.files import write_text_atomic
from sim.games.base import GENERIC_TUNING, Game, RulesTuning, TuningCriterion
from sim.stats.clustered import (
    MIN_VERDICT_CLUSTERS,
    cluster_matrix,
    contrast_intervals,
    grouped_ratio_intervals,
    pairwise_contrasts,
    ratio_means,
)
from sim.stats.intervals import proportion_interval
from sim.stats.seats import (
    FAIR_MARGIN,
    equivalence_verdict,
    lineup_model_family,
    seat_gap_family,
)
from sim.stats.strategies import pair_outcomes
from sim.stats.sweep import largest_seat_gap
from sim.stats.units import exact_sd, win_units

# The one field of a sweep played before fields (no ``field`` column in its rows).
SINGLE_FIELD = "single"
GAP_TO_BEST = ("skill_gap_to_best", "skill_gap_to_best_low", "skill_gap_to_best_high")
BASELINE = "greedy"
SKILL_TOLERANCE = 0.02
# The columns of skill units and of the metrics that are not the tuned parameter.
_NOT_THE_PARAMETER = {FIELD_AXIS, "players", "cluster", "ahead", "games", "game_id",
                      *GAP_TO_BEST}


def parse_range(text: str, option: str, low: int, high: int) -> list[int]:
    """``"1-5"``, ``"2,3,4"`` or ``"3"`` as a sorted list of integers in low..high."""
    values: set[int] = set()
    try:
        for part in text.split(","):
            part = part.strip()
            if "-" in part:
                first, last = (int(v) for v in part.split("-", 1))
                values.update(range(first, last + 1))
            elif part:
                values.add(int(part))
    except ValueError:
        raise InputError(f"{option}: expected a range like 1-5 or a list like 2,3,4, "
                         f"got '{text}'") from None
    if not values or min(values) < low or max(values) > high:
        raise InputError(f"{option}: values must lie in {low}..{high}, got '{text}'")
    return sorted(values)


def default_fields(strongest: str) -> list[str]:
    """The preset's fields as ``NAME=LINEUP``: ``strong``, the strongest candidate in every
    seat, and ``mixed``, it and greedy rotating through the seats (the only one of the two where
    the strongest's edge over greedy, the skill criterion, can be measured)."""
    return [f"strong={strongest}", f"mixed=pool:{strongest}+{BASELINE}"]


def tuning_document(game: str, tuning: RulesTuning, players: list[int], values: list[int],
                    strongest: str, games: int, seed: int, shard_size: int, output: str,
                    half_width: float | None, adaptive: bool = False,
                    fair_margin: float = FAIR_MARGIN,
                    fields: list[str] | None = None) -> dict[str, Any]:
    """The sweep document of a rules tuning of ``game``: players x ``tuning.parameter``, named
    ``tuning.name``.

    ``fields`` (``NAME=LINEUP`` or a name the game declares, at least two) defaults to
    ``default_fields(strongest)``; every field plays the same deals. ``adaptive`` plays each
    point until its fairness verdict is decided (or ``games`` is reached); ``half_width``
    instead stops a point once every seat's win rate is that precise.
    """
    document: dict[str, Any] = {
        "name": tuning.name,
        "game": game,
        "fields": list(fields) if fields else default_fields(strongest),
        "games": games,
        "seed": seed,
        "shard_size": shard_size,
        "output": output,
        "sweep": {"players": players, tuning.parameter: values},
    }
    if adaptive:
        document["adaptive"] = {"metric": "seat_verdict", "fair_margin": fair_margin,
                                "min_games": min(games, 2 * shard_size)}
    elif half_width is not None:
        document["adaptive"] = {"metric": "seat_win_rate", "half_width": half_width,
                                "min_games": min(games, 5 * shard_size)}
    return document


def with_field(frame: pl.LazyFrame | pl.DataFrame) -> pl.LazyFrame | pl.DataFrame:
    """``frame`` with a string ``field`` column: its own, or ``SINGLE_FIELD`` for rows (or
    metrics) of a sweep played before fields."""
    names = frame.collect_schema().names()
    if FIELD_AXIS in names:
        return frame.with_columns(pl.col(FIELD_AXIS).cast(pl.String))
    return frame.with_columns(pl.lit(SINGLE_FIELD, dtype=pl.String).alias(FIELD_AXIS))


def field_order(frame: pl.LazyFrame | pl.DataFrame) -> list[str]:
    """The fields of ``frame`` in the order they first appear (a sweep's rows come point by
    point, and ``field`` is the sweep's last axis, so this is the order the fields were
    given)."""
    column = with_field(frame).select(pl.col(FIELD_AXIS).unique(maintain_order=True))
    if isinstance(column, pl.LazyFrame):
        column = column.collect()
    return column[FIELD_AXIS].to_list()


def _skill_units(rows: pl.LazyFrame, keys: list[str], strongest: str) -> pl.DataFrame:
    """Per (field, players, value, game): the share of (strongest, greedy) seat pairs in which
    the strongest finished ahead (ties half), with the game's deal as its cluster. A field in
    which the two never share a table has no units."""
    return (pair_outcomes(rows, keys)
            .filter((pl.col("strategy") == strongest) & (pl.col("opponent") == BASELINE))
            .drop("strategy", "opponent")
            .with_columns(pl.col("players").cast(pl.Int64), games=pl.lit(1, pl.Int64))
            .rename({"deal_id": "cluster"}).sort([*keys, "game_id"]).collect())


def skill_gap_to_best(units: pl.DataFrame, parameter: str | None = None) -> pl.DataFrame:
    """Per (field, players, value): the skill (``_skill_units``) minus the best value's in
    that field at that player count, with a simultaneous 95% interval that carries the best
    value's uncertainty (``units`` without a ``field`` column: per (players, value)).
    ``parameter`` is the column of the tuned values; by default the one column of ``units``
    that is none of field, players, cluster, ahead, games and game_id.

    The values' skills are ratio means over the same clusters (deals, common to every point
    of the sweep), every pairwise difference gets a simultaneous (max-|t|) interval, and the
    distance to the best, s - max_j s_j = min_j (s - s_j), lies between the smallest lower end
    and the smallest upper end over j (0 for j itself) whenever all those intervals hold:
    Hsu's multiple comparisons with the best. Columns ``skill_gap_to_best`` and its ``_low``,
    ``_high`` (all at most 0); a single value is its own best (0, 0 to 0)."""
    if parameter is None:
        (parameter,) = [c for c in units.columns if c not in _NOT_THE_PARAMETER]
    groups = [c for c in (FIELD_AXIS, "players") if c in units.columns]
    records = []
    for key, part in sorted(units.partition_by(groups, as_dict=True).items()):
        values, sums = cluster_matrix(part, parameter, ("ahead", "games"))
        means = ratio_means(sums["ahead"], sums["games"])
        gaps = np.zeros((len(values), 3))  # estimate, low, high against the best
        if len(values) > 1:
            matrix, pairs = pairwise_contrasts(len(values))
            intervals = contrast_intervals(means, matrix, simultaneous=True)
            for row, (i, j) in enumerate(pairs):
                estimate, low, high = (intervals.estimates[row], intervals.low[row],
                                       intervals.high[row])
                # row is s_i - s_j; for value j the difference s_j - s_i is its negative
                gaps[i] = np.minimum(gaps[i], (estimate, low, high))
                gaps[j] = np.minimum(gaps[j], (-estimate, -high, -low))
        group_values = dict(zip(groups, key, strict=True))
        group_values["players"] = int(group_values["players"])
        for value, (estimate, low, high) in zip(values, gaps, strict=True):
            records.append({**group_values, parameter: int(value),
                            "skill_gap_to_best": float(estimate),
                            "skill_gap_to_best_low": float(low),
                            "skill_gap_to_best_high": float(high)})
    schema = {**({FIELD_AXIS: pl.String} if FIELD_AXIS in groups else {}),
              "players": pl.Int64, parameter: pl.Int64, "skill_gap_to_best": pl.Float64,
              "skill_gap_to_best_low": pl.Float64, "skill_gap_to_best_high": pl.Float64}
    return pl.DataFrame(records, schema=schema)


def _share(units: pl.DataFrame, keys: list[str], value: str, count: str,
           prefix: str) -> pl.DataFrame:
    """``grouped_ratio_intervals`` of a share, its interval the clustered Wilson one
    (``proportion_interval``), which stays inside 0-100%."""
    table = grouped_ratio_intervals(units, keys, value, count, prefix).join(
        units.group_by(keys).agg(pl.col(count).sum().alias("_count")), on=keys)
    low, high = proportion_interval(table[prefix].to_numpy(), table[f"{prefix}_se"].to_numpy(),
                                    table[f"{prefix}_clusters"].to_numpy(),
                                    table["_count"].to_numpy())
    return table.with_columns(pl.Series(f"{prefix}_low", low),
                              pl.Series(f"{prefix}_high", high)).drop("_count")


def rules_metrics(rows: pl.LazyFrame, tuning: RulesTuning, strongest: str,
                  fair_margin: float = FAIR_MARGIN) -> pl.DataFrame:
    """Every metric of the module docstring per (field, players, value of
    ``tuning.parameter``), with cluster-robust 95% CIs and the fairness verdict, from the rows
    of a rules-tuning sweep; sorted by field (in the order given), players and value. The
    game's shares (``tuning.shares``) come after ``games``, each with its ``_low`` and
    ``_high``. Rows without a ``field`` column (a sweep played before fields) are the one field
    ``SINGLE_FIELD``. Skill is NaN where the strongest and greedy never share a table (one
    player, or a field without greedy)."""
    parameter = tuning.parameter
    keys = [FIELD_AXIS, "players", parameter]
    rows = with_field(rows).with_columns(pl.col("players").cast(pl.Int64),
                                         pl.col(parameter).cast(pl.Int64))
    fields = field_order(rows)
    per_player = rows.group_by(keys).agg(
        player_games=pl.len(),
        score_mean=pl.col("score").cast(pl.Float64).mean(),
        score_sd=exact_sd("score"),
    ).collect()
    # Every rows column a share sums, once, under a name of its own (two shares may share a
    # denominator).
    sums: dict[str, str] = {}
    for share in tuning.shares:
        for column in (share.numerator, share.denominator):
            sums.setdefault(column, f"_sum_{len(sums)}")
    per_deal = rows.group_by([*keys, pl.col("deal_id").alias("cluster")]).agg(
        *(pl.col(column).cast(pl.Int64).sum().alias(name) for column, name in sums.items()),
        games=pl.col("game_id").n_unique().cast(pl.Int64),
    ).collect()
    shared = (rows.group_by([*keys, "game_id", pl.col("deal_id").alias("cluster")])
              .agg(shared=((pl.col("win") > 0) & (pl.col("win") < 1)).any().cast(pl.Int64))
              .group_by([*keys, "cluster"]).agg(pl.col("shared").sum()).collect())
    per_deal = per_deal.join(shared, on=[*keys, "cluster"])
    shares = [_share(per_deal, keys, sums[share.numerator], sums[share.denominator],
                     share.name).select(*keys, share.name, f"{share.name}_low",
                                        f"{share.name}_high")
              for share in tuning.shares]
    ties = grouped_ratio_intervals(per_deal, keys, "shared", "games", "tie_rate")
    games = per_deal.group_by(keys).agg(pl.col("games").sum())
    skill_units = _skill_units(rows, keys, strongest)
    skill = _share(skill_units, keys, "ahead", "games", "skill").join(
        skill_gap_to_best(skill_units, parameter), on=keys, how="left")
    seat_units = (rows.group_by([*keys, "seat", pl.col("deal_id").alias("cluster")])
                  .agg(win_units=win_units().sum(),
                       score_sum=pl.col("score").cast(pl.Int64).sum(),
                       player_games=pl.len().cast(pl.Int64))
                  .with_columns(pl.col("seat").cast(pl.Int64)).sort([*keys, "seat", "cluster"])
                  .collect())
    # Rows for the lineup model only when some point mixes strategies: with one strategy it
    # gives the raw seat means' gaps, which seat_gap_family computes from the units alone.
    several = rows.select(pl.col("strategy").n_unique()).collect().item() > 1
    seat_rows = (rows.select(*keys, "game_id", "deal_id", "seat", "strategy", "score", "win")
                 .with_columns(pl.col("seat").cast(pl.Int64), pl.col("strategy").cast(pl.String))
                 .collect() if several else None)
    seat_records = []
    for (field, players, value), units in sorted(
            seat_units.partition_by(keys, as_dict=True).items()):
        record: dict[str, Any] = {FIELD_AXIS: field, "players": players, parameter: value}
        family = None
        if players >= 2 and seat_rows is not None:
            # The same seat model as the batch and sweep reports: the lineup held fixed.
            fitted = lineup_model_family(
                seat_rows.filter((pl.col(FIELD_AXIS) == field) & (pl.col("players") == players)
                                 & (pl.col(parameter) == value)),
                int(players))
            family = None if isinstance(fitted, str) else fitted
        if players >= 2 and family is None:
            family = seat_gap_family(units)
        if family is not None:
            win, wald = family.win, family.wald
            decided = family.clusters >= MIN_VERDICT_CLUSTERS
            # The largest gap as observed, with its pair's simultaneous interval (signed: it
            # holds zero when the two seats cannot be told apart).
            best, worst, gap, low, high = largest_seat_gap(family.win_rates, family.pairs, win)
            record.update(seat_gap=gap, seat_gap_low=max(low, -1.0),
                          seat_gap_high=min(high, 1.0),
                          seat_gap_bound=min(float(np.max(np.maximum(np.abs(win.low),
                                                                     np.abs(win.high)))), 1.0),
                          seat_best=int(family.seats[best]), seat_worst=int(family.seats[worst]),
                          seat_equal_p=wald.p_value if decided else math.nan,
                          # Too few deals for a verdict: left empty, as the seat sections do.
                          fairness=equivalence_verdict(win.low, win.high, fair_margin)
                          if decided else "")
        else:
            record.update(seat_gap=math.nan, seat_gap_low=math.nan, seat_gap_high=math.nan,
                          seat_gap_bound=math.nan, seat_best=-1, seat_worst=-1,
                          seat_equal_p=math.nan, fairness="")
        seat_records.append(record)
    table = per_player.join(games, on=keys)
    for share in shares:
        table = table.join(share, on=keys)
    table = (table.join(ties.select(*keys, "tie_rate"), on=keys)
             .join(skill.select(*keys, "skill", "skill_low", "skill_high", *GAP_TO_BEST),
                   on=keys, how="left")
             .join(pl.DataFrame(seat_records), on=keys)
             .with_columns(fair_margin=pl.lit(fair_margin), strongest=pl.lit(strongest))
             .with_columns([pl.when(pl.col("players") < 2).then(None).otherwise(pl.col(c))
                            .alias(c) for c in ("skill", "skill_low", "skill_high",
                                                *GAP_TO_BEST)])
             .drop("player_games")
             .sort(pl.col(FIELD_AXIS).cast(pl.Enum(fields)), "players", parameter))
    return table.with_columns(pl.col(c).fill_null(math.nan) for c in
                              ("skill", "skill_low", "skill_high", *GAP_TO_BEST))


@dataclass(frozen=True)
class Recommendation:
    """The answer for one field and player count: the ``value`` picked (None when undecided or
    when no value qualifies), whether it is decided, and why (the sentence names the field
    when the sweep has several). ``label`` and ``noun`` are the tuning's words for a value
    (``RulesTuning``), for the line across fields."""

    players: int
    value: int | None
    decided: bool
    sentence: str
    field: str = SINGLE_FIELD
    label: str = ""
    noun: str = "value"

    @property
    def supply(self) -> int | None:
        """``value`` under the name the tree-supply tuning gave it first (its callers)."""
        return self.value


NOT_MEASURED = "n/a"
FAIR, KEEPS_SKILL = "fair", "keeps skill"


def _threshold(maximum: float) -> str:
    """A criterion's maximum in words: ``10%``."""
    return f"{100 * maximum:g}%"


def _criteria(row: dict, criteria: list[tuple[TuningCriterion, float]],
              skill_tolerance: float) -> dict[str, str]:
    """Each criterion of the rule for one value: ``yes``, ``no`` or ``undecided`` (fair, the
    game's criteria by adjective, keeps skill); skill is ``n/a`` where the strongest and greedy
    never share a table (nothing to measure)."""
    judged = {FAIR: {"fair": "yes", "unfair": "no"}.get(row["fairness"], "undecided")}
    for criterion, maximum in criteria:
        if row[f"{criterion.share}_high"] < maximum:
            judged[criterion.adjective] = "yes"
        elif row[f"{criterion.share}_low"] >= maximum:
            judged[criterion.adjective] = "no"
        else:
            judged[criterion.adjective] = "undecided"
    # The distance to the best value with an interval that carries the best's uncertainty
    # (``skill_gap_to_best``), not a distance to the largest of several noisy estimates.
    if math.isnan(row["skill_gap_to_best"]):
        judged[KEEPS_SKILL] = NOT_MEASURED
    elif row["skill_gap_to_best_low"] >= -skill_tolerance:
        judged[KEEPS_SKILL] = "yes"
    elif row["skill_gap_to_best_high"] < -skill_tolerance:
        judged[KEEPS_SKILL] = "no"
    else:
        judged[KEEPS_SKILL] = "undecided"
    return judged


@dataclass(frozen=True)
class _Rule:
    """What a recommendation is judged by: the tuning's words, its criteria with their
    maxima (after any override) and the skill tolerance."""

    tuning: RulesTuning
    criteria: list[tuple[TuningCriterion, float]]
    skill_tolerance: float

    def noun_of(self, criterion: str) -> str:
        """What a criterion judges, in a sentence ("fairness", "skill", the game's noun)."""
        names = {FAIR: "fairness", KEEPS_SKILL: "skill"}
        names.update((c.adjective, c.noun) for c, _ in self.criteria)
        return names[criterion]


def recommend(metrics: pl.DataFrame, tuning: RulesTuning,
              skill_tolerance: float = SKILL_TOLERANCE,
              maximums: dict[str, float] | None = None) -> list[Recommendation]:
    """Apply the recommendation rule of the module docstring to each field and player count
    >= 2, ordered by players, then field (in the metrics' order). ``maximums`` overrides a
    criterion's maximum, by its share's name. Metrics without a ``field`` column are one
    field, ``SINGLE_FIELD``."""
    maximums = maximums or {}
    rule = _Rule(tuning, [(c, maximums.get(c.share, c.maximum)) for c in tuning.criteria],
                 skill_tolerance)
    metrics = with_field(metrics)
    fields = field_order(metrics)
    picks = []
    for players in sorted(set(metrics["players"].to_list())):
        if players < 2:
            continue
        for field in fields:
            options = metrics.filter((pl.col(FIELD_AXIS) == field)
                                     & (pl.col("players") == players)).sort(tuning.parameter)
            if options.is_empty():
                continue
            judged = [(row, _criteria(row, rule.criteria, skill_tolerance))
                      for row in options.iter_rows(named=True)]
            head = f"{players} players, {field} field" if len(fields) > 1 else f"{players} players"
            picks.append(_decide(players, judged, rule, field, head))
    return picks


def _failure(criterion: str, row: dict, rule: _Rule) -> str:
    """Why a value fails ``criterion``, in words."""
    if criterion == FAIR:
        return f"unfair (a seat gap shown above {100 * row['fair_margin']:g} pp)"
    for declared, maximum in rule.criteria:
        if declared.adjective == criterion:
            return declared.failure.format(maximum=_threshold(maximum))
    return (f"losing skill ({_strongest(row)}'s edge over {BASELINE} shown to be more than "
            f"{100 * rule.skill_tolerance:g} pp below the best {rule.tuning.noun}'s: "
            f"{_signed_pp(row['skill_gap_to_best'])} ({_signed_pp(row['skill_gap_to_best_low'])} "
            f"to {_signed_pp(row['skill_gap_to_best_high'])}))")


def _skill_not_measured(row: dict) -> str:
    return (f"keeps skill is n/a: {_strongest(row)} and {BASELINE} never share a table in this "
            f"field, so it is not measured and not counted")


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


NUMBER_WORDS = {2: "both", 3: "all three", 4: "all four", 5: "all five", 6: "all six"}


def _how_many(count: int) -> str:
    """``the one criterion``, ``both criteria``, ``all three criteria``."""
    if count == 1:
        return "the one criterion"
    return f"{NUMBER_WORDS.get(count, f'all {count}')} criteria"


def _try_more(rule: _Rule, thresholds: list[str]) -> str:
    """What to do when no value qualifies: try more, or relax one of ``thresholds``."""
    if not thresholds:
        return f"try more {rule.tuning.plural}."
    return f"try more {rule.tuning.plural} or relax a threshold ({', '.join(thresholds)})."


def _decide(players: int, judged: list[tuple[dict, dict[str, str]]], rule: _Rule,
            field: str = SINGLE_FIELD, head: str | None = None) -> Recommendation:
    """The pick for one field and player count from its values' criteria (smallest first);
    ``head`` starts every sentence (``2 players``, or ``2 players, strong field``)."""
    tuning = rule.tuning
    head = head or f"{players} players"
    words = {"label": tuning.label, "noun": tuning.noun}
    failures = []
    for row, criteria in judged:
        value = int(row[tuning.parameter])
        if all(v in ("yes", NOT_MEASURED) for v in criteria.values()):
            return Recommendation(players, value, True, _pick_sentence(
                head, row, failures, rule, criteria[KEEPS_SKILL] == NOT_MEASURED), field,
                **words)
        failed = [name for name, verdict in criteria.items() if verdict == "no"]
        if failed:
            failures.append((value, failed, row))
            continue
        open_criteria = [rule.noun_of(name) for name, verdict in criteria.items()
                         if verdict == "undecided"]
        larger = [str(int(other[tuning.parameter])) for other, _ in judged
                  if int(other[tuning.parameter]) > value]
        then = (f"play more games at this point: until it is decided, no larger {tuning.noun} ("
                + ", ".join(larger) + ") can be recommended" if larger
                else "play more games at this point")
        ruled_out = ""
        if failures:
            ruled_out = f" Smaller {tuning.plural} are ruled out: " + "; ".join(
                f"{smaller} as " + " and ".join(
                    _failure(name, small_row, rule) for name in failed)
                for smaller, failed, small_row in failures) + "."
        not_measured = (f" ({_upper_first(_skill_not_measured(row))}.)"
                        if criteria[KEEPS_SKILL] == NOT_MEASURED else "")
        return Recommendation(players, None, False, (
            f"{head}: undecided. {_upper_first(tuning.noun)} {value} is still undecided on "
            f"{' and '.join(open_criteria)} after {row['games']:,} games "
            f"({_facts(row, rule)}); {then}.{ruled_out}{not_measured}"), field, **words)
    reasons = "; ".join(
        f"{value}: " + " and ".join(_failure(name, row, rule) for name in failed)
        for value, failed, row in failures)
    thresholds = [c.relax.format(maximum=_threshold(maximum)) for c, maximum in rule.criteria]
    if all(criteria[KEEPS_SKILL] == NOT_MEASURED for _, criteria in judged):
        counted = ["fairness", *(c.noun for c, _ in rule.criteria)]
        return Recommendation(players, None, True, (
            f"{head}: no {tuning.noun} tried meets {_how_many(len(counted))} counted here, "
            f"{_names(counted)} ({reasons}; {_skill_not_measured(judged[0][0])}); "
            f"{_try_more(rule, thresholds)}"), field, **words)
    skill = f"skill within {100 * rule.skill_tolerance:g} pp of the best {tuning.noun}'s"
    return Recommendation(players, None, True, (
        f"{head}: no {tuning.noun} tried meets {_how_many(2 + len(rule.criteria))} "
        f"({reasons}); {_try_more(rule, [*thresholds, skill])}"), field, **words)


def _strongest(row: dict) -> str:
    return str(row.get("strongest") or "the strongest strategy")


def _signed_pp(value: float) -> str:
    return f"{100 * value:+.1f} pp"


def seat_gap_text(row: dict) -> str:
    """The largest seat gap as observed, the two seats named (counted from 1), with that
    pair's simultaneous 95% interval: ``seat 2 − seat 1 +3.6 pp (−1.2 to +8.4)``."""
    if math.isnan(row["seat_gap"]):
        return "–"
    return (f"seat {int(row['seat_best']) + 1} − seat {int(row['seat_worst']) + 1} "
            f"{100 * row['seat_gap']:+.1f} pp ({100 * row['seat_gap_low']:+.1f} to "
            f"{100 * row['seat_gap_high']:+.1f})")


def _facts(row: dict, rule: _Rule) -> str:
    text = f"largest seat gap {seat_gap_text(row)}, simultaneous 95% CI"
    for criterion, _ in rule.criteria:
        share = criterion.share
        text += "; " + criterion.fact.format(value=_percent(row[share]),
                                             low=_percent(row[f"{share}_low"]),
                                             high=_percent(row[f"{share}_high"]))
    if not math.isnan(row["skill"]):
        text += (f"; {_strongest(row)} ahead of {BASELINE} in {_percent(row['skill'])} of "
                 f"their meetings ({_percent(row['skill_low'])}–{_percent(row['skill_high'])}), "
                 f"{_signed_pp(row['skill_gap_to_best'])} from the best {rule.tuning.noun}'s "
                 f"({_signed_pp(row['skill_gap_to_best_low'])} to "
                 f"{_signed_pp(row['skill_gap_to_best_high'])}, simultaneous)")
    return text


def _pick_sentence(head: str, row: dict, failures: list, rule: _Rule,
                   skill_not_measured: bool = False) -> str:
    tuning = rule.tuning
    value = int(row[tuning.parameter])
    met = [f"fair within ±{100 * row['fair_margin']:g} pp",
           *(criterion.adjective for criterion, _ in rule.criteria)]
    if skill_not_measured:
        text = (f"{head}: {value} {tuning.label} — decided: {_names(met)} ({_facts(row, rule)}; "
                f"{_skill_not_measured(row)})")
    else:
        met.append(f"keeping {_strongest(row)}'s edge over {BASELINE}")
        text = f"{head}: {value} {tuning.label} — decided: {_names(met)} ({_facts(row, rule)})"
    if failures:
        ruled_out = "; ".join(
            f"{smaller} was ruled out as "
            + " and ".join(_failure(name, small_row, rule) for name in failed)
            for smaller, failed, small_row in failures)
        text += f"; {ruled_out}"
    else:
        text += f"; it is the smallest {tuning.noun} tried"
    return text + "."


@dataclass(frozen=True)
class AcrossFields:
    """Per player count, whether the fields' picks agree: ``verdict`` is ``holds`` (every field
    picks ``value``, or every field rules every value out, ``value`` None), ``depends on the
    players`` (decided picks differ) or ``undecided`` (a field is undecided or has no pick);
    ``picks`` is each field's (in the fields' order) and ``sentence`` the one line."""

    players: int
    verdict: str
    value: int | None
    picks: tuple[Recommendation, ...]
    sentence: str

    @property
    def supply(self) -> int | None:
        """``value`` under the name the tree-supply tuning gave it first (its callers)."""
        return self.value


HOLDS, DEPENDS, UNDECIDED = "holds", "depends on the players", "undecided"


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _answer(pick: Recommendation) -> str:
    """A pick in one word: the value, ``undecided`` or ``none``."""
    if pick.value is not None:
        return str(pick.value)
    return "undecided" if not pick.decided else "none"


def across_fields(picks: list[Recommendation],
                  fields: list[str] | None = None) -> list[AcrossFields]:
    """One verdict per player count on whether the recommendation holds across ``fields``
    (default: the fields of ``picks``, in their order); see the module docstring."""
    if fields is None:
        fields = list(dict.fromkeys(pick.field for pick in picks))
    verdicts = []
    for players in sorted({pick.players for pick in picks}):
        by_field = {pick.field: pick for pick in picks if pick.players == players}
        mine = tuple(by_field[field] for field in fields if field in by_field)
        missing = [field for field in fields if field not in by_field]
        open_fields = [pick.field for pick in mine if not pick.decided]
        head = f"{players} players"
        if open_fields or missing:
            parts = []
            if open_fields:
                parts.append(f"{_names(open_fields)} {'is' if len(open_fields) == 1 else 'are'} "
                             f"still undecided (play more games)")
            if missing:
                parts.append(f"{_names(missing)} {'has' if len(missing) == 1 else 'have'} no "
                             f"games at {players} players yet")
            decided = [f"{pick.field} {_answer(pick)}" for pick in mine if pick.decided]
            if decided:
                parts.append("decided: " + ", ".join(decided))
            verdicts.append(AcrossFields(players, UNDECIDED, None, mine,
                                         f"{head}: undecided: {'; '.join(parts)}"))
            continue
        values = {pick.value for pick in mine}
        if len(values) == 1:
            (value,) = values
            what = (f"{value} {mine[0].label}".rstrip() if value is not None
                    else f"no {mine[0].noun} tried meets the criteria")
            verdicts.append(AcrossFields(players, HOLDS, value, mine,
                                         f"{head}: holds for {_names(list(fields))}: {what}"))
        else:
            shown = ", ".join(f"{pick.field} {_answer(pick)}" for pick in mine)
            verdicts.append(AcrossFields(players, DEPENDS, None, mine,
                                         f"{head}: depends on the players: {shown}"))
    return verdicts


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


# The skill figure, after the game's shares (the largest seat gap, scores and shared wins have
# theirs in the sweep report's own sections): (title, unit, caption).
SKILL_FIGURE = ("Skill: the strongest strategy ahead of greedy", "meetings won (%)",
                "How often the strongest strategy finishes ahead of greedy at the same table "
                "(ties count half)")


@dataclass(frozen=True)
class TuningPreset:
    """What the preset file of a rules-tuning sweep records (``write_preset``), with the game
    and tuning it names resolved."""

    game: Game
    tuning: RulesTuning
    strongest: str
    fair_margin: float


def preset_file(tuning: RulesTuning) -> str:
    """The preset file's name in the sweep folder: ``<tuning name>.json``."""
    return f"{tuning.name}.json"


def write_preset(sweep_dir: Path, tuning: RulesTuning, strongest: str,
                 fair_margin: float) -> None:
    """Record in the sweep folder that it is a rules-tuning sweep (and with which strongest
    strategy and margin), so ``sim report`` on it writes the tuning report. A tuning the game
    names (``RulesTuning.name``) is found again by its name; the generic one records its
    parameter."""
    document: dict[str, Any] = {"preset": tuning.name, "strongest": strongest,
                                "fair_margin": fair_margin}
    if tuning.name == GENERIC_TUNING:
        document["parameter"] = tuning.parameter
    write_text_atomic(Path(sweep_dir) / preset_file(tuning),
                      json.dumps(document, indent=1) + "\n")


def _sweep_game(sweep_dir: Path) -> Game | None:
    """The game a sweep folder's points played (the first point with a manifest)."""
    from sim.games.registry import get_game
    from sim.stats.sweep import open_sweep
    from sim.store import read_manifest

    for point in open_sweep(sweep_dir).points:
        try:
            config = read_manifest(point.run_dir).get("config") or {}
        except InputError:
            continue  # not started yet: another point may say
        if config.get("game"):
            return get_game(str(config["game"]))
    return None


def read_preset(sweep_dir: Path) -> TuningPreset | None:
    """The rules-tuning record of a sweep folder (``write_preset``; also a tree-supply sweep
    written before the tuning was generic), with its game and tuning, or None for a sweep of
    no preset. A record naming a tuning its game does not declare is a one-line InputError."""
    from sim.sweep import SWEEP_MANIFEST

    for path in sorted(Path(sweep_dir).glob("*.json")):
        if path.name == SWEEP_MANIFEST:
            continue
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if not isinstance(record, dict) or record.get("preset") != path.stem \
                or "strongest" not in record:
            continue
        game = _sweep_game(sweep_dir)
        if game is None:
            return None
        if "parameter" in record:
            tuning = game.rules_tuning(str(record["parameter"]))
        else:
            declared = next((t for t in game.rules_tunings if t.name == path.stem), None)
            if declared is None:
                raise InputError(f"{path}: {game.title or game.name} declares no rules tuning "
                                 f"named '{path.stem}'")
            tuning = game.rules_tuning(declared.parameter)
        return TuningPreset(game, tuning, str(record["strongest"]),
                            float(record.get("fair_margin", FAIR_MARGIN)))
    return None


def _figures(metrics: pl.DataFrame, tuning: RulesTuning, strongest: str) -> list:
    """The tuning's figures (the game's shares, then skill) as report blocks (heatmaps over
    players x value, a panel per field on the same axes, or lines, one per field, when one of
    the two axes has a single value; ``sim.report.sweep_plots``)."""
    from sim.report.document import Figure
    from sim.report.sweep_plots import MAX_PANELS, Cell, Series, metric_figure

    parameter = tuning.parameter
    metrics = with_field(metrics)
    fields = field_order(metrics)
    axes = {"players": sorted(set(metrics["players"].to_list())),
            parameter: sorted(set(metrics[parameter].to_list()))}
    figures = [(share.name, share.figure_title, share.figure_unit, share.figure_caption)
               for share in tuning.shares]
    figures.append(("skill", *SKILL_FIGURE))
    blocks = []
    for metric, title, unit, caption in figures:
        series = []
        for field in fields:
            cells = {}
            for row in metrics.filter(pl.col(FIELD_AXIS) == field).iter_rows(named=True):
                low, high = row.get(f"{metric}_low"), row.get(f"{metric}_high")
                cells[(row["players"], row[parameter])] = Cell(
                    float(row[metric]), math.nan if low is None else float(low),
                    math.nan if high is None else float(high))
            series.append(Series(field if len(fields) > 1 else "", cells))
        shown = title.replace("the strongest strategy", strongest)
        # Shares: the colours span 0-100%, not the grid's own values (noise is not news).
        png = metric_figure(shown, unit, axes, series, scale=100.0, digits=1,
                            colour_range=(0.0, 100.0))
        if png is not None:
            # A field without a value anywhere (skill where greedy never plays) has no panel.
            drawn = [s.name for s in series
                     if any(not math.isnan(c.value) for c in s.cells.values())]
            fields_note = ""
            if len(fields) > 1:
                fields_note = f" Fields shown: {', '.join(drawn[:MAX_PANELS])}"
                missing = [field for field in fields if field not in drawn]
                if missing:
                    fields_note += f" ({_names(missing)}: not measured)"
                fields_note += "."
            blocks.append(Figure(f"{tuning.name}-{metric.replace('_', '-')}", png,
                                 f"{caption.replace('the strongest strategy', strongest)}, "
                                 f"with its 95% interval (cluster-robust over deals)."
                                 f"{fields_note}"))
    return blocks


def field_lineups(sweep_dir: Path) -> dict[str, str]:
    """Each field of a sweep folder and its lineup in words (``FieldSpec.lineup_text``), from
    the first point of the field that has a manifest; a sweep without fields is
    ``SINGLE_FIELD``."""
    from sim.fields import field_from_config
    from sim.stats.sweep import open_sweep
    from sim.store import read_manifest

    lineups: dict[str, str] = {}
    for point in open_sweep(sweep_dir).points:
        name = str(point.values.get(FIELD_AXIS, SINGLE_FIELD))
        if name in lineups:
            continue
        try:
            config = read_manifest(point.run_dir).get("config") or {}
        except InputError:
            continue  # not started yet: another point of the field may say
        lineups[name] = field_from_config(name, config).lineup_text()
    return lineups


def tuning_blocks(metrics: pl.DataFrame, picks: list[Recommendation], tuning: RulesTuning,
                  strongest: str, games_note: str,
                  lineups: dict[str, str] | None = None) -> list:
    """The tuning sections of the sweep report: the recommendation (with several fields:
    whether it holds across them, per player count, then each field's pick and why), its
    rule, every metric per point and field, and their figures. ``lineups`` is each field's
    lineup in words (``field_lineups``)."""
    from sim.report.document import Heading, Paragraph, Table

    parameter, noun = tuning.parameter, tuning.noun
    metrics = with_field(metrics)
    fields = field_order(metrics)
    several = len(fields) > 1
    lineups = lineups or {}
    margin = 100 * float(metrics["fair_margin"][0]) if metrics.height else 100 * FAIR_MARGIN

    def pct(value):
        return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}%"

    rows = []
    ordered = metrics.sort("players", parameter, pl.col(FIELD_AXIS).cast(pl.Enum(fields)))
    for row in ordered.iter_rows(named=True):
        spread = seat_gap_text(row)
        if math.isnan(row["skill"]):
            # n/a: two or more players, but the strongest and greedy never share a table
            skill = "–" if row["players"] < 2 else NOT_MEASURED
        else:
            skill = (f"{pct(row['skill'])} ({pct(row['skill_low'])}–{pct(row['skill_high'])}); "
                     f"{_signed_pp(row['skill_gap_to_best'])} "
                     f"({_signed_pp(row['skill_gap_to_best_low'])} to "
                     f"{_signed_pp(row['skill_gap_to_best_high'])})")
        equal = "–" if math.isnan(row["seat_equal_p"]) else f"{row['seat_equal_p']:.2g}"
        shares = tuple(f"{pct(row[share.name])} ({pct(row[f'{share.name}_low'])}–"
                       f"{pct(row[f'{share.name}_high'])})" for share in tuning.shares)
        rows.append((str(row["players"]), str(row[parameter]),
                     *((row[FIELD_AXIS],) if several else ()), f"{row['games']:,}", spread,
                     row["fairness"] or "–", equal, *shares, f"{row['score_mean']:.2f}",
                     f"{row['score_sd']:.2f}", pct(row["tie_rate"]), skill))

    judged = _names([
        f"fair (every gap between two seats' win rates has its simultaneous 95% interval "
        f"within ±{margin:g} percentage points)",
        *(criterion.rule.format(maximum=_threshold(criterion.maximum))
          for criterion in tuning.criteria),
        f"keeps skill ({strongest}'s edge over {BASELINE} within 2 percentage points of the "
        f"best {noun}'s)"])
    rule = (f"Rule: per player count{' and field' if several else ''}, the smallest {noun} "
            f"that is {judged}, once every smaller {noun} is decided to fail a criterion; a "
            f"criterion whose interval straddles its threshold is undecided, and then so is "
            f"the answer. Which {noun} has the most skill is itself uncertain, and the largest "
            f"of several noisy estimates is biased upwards, so no estimate is taken as the "
            f"reference: each {noun}'s edge is compared with every other's on the same deals, "
            f"the differences with simultaneous 95% intervals, and its distance from the best "
            f"is the smallest of them, an interval that carries the best {noun}'s own "
            f"uncertainty (multiple comparisons with the best); it keeps skill when that "
            f"interval's lower end is within 2 points. Intervals are cluster-robust over "
            f"deals. One player has no seats to compare and no opponent: its metrics are "
            f"shown, with no pick.")
    if several:
        counted = _names(["fairness", *(criterion.noun for criterion in tuning.criteria)])
        rule += (f" Skill can be measured only where {strongest} and {BASELINE} share tables: "
                 f"in a field where they never do it is n/a, not counted (the pick rests on "
                 f"{counted} alone there, and its sentence says so). Across fields, per player "
                 f"count: it holds when every field picks the same {noun}, depends on the "
                 f"players when decided picks differ, and is undecided while any field is.")
    described = "; ".join(f"{name}: {lineups[name]}" if name in lineups else name
                          for name in fields)
    if several:
        played = (f"Fields: {described} — every field plays the same deals (common random "
                  f"numbers), at every grid point. {games_note}")
    elif fields and fields[0] in lineups:
        played = f"Lineup: {described.split(': ', 1)[1]}, every grid point on the same deals. " \
                 f"{games_note}"
    else:
        played = (f"Pool: {strongest} and {BASELINE} rotating through the seats, every grid "
                  f"point on the same deals. {games_note}")
    blocks: list = [Heading(f"Recommendation: {tuning.label}"), Paragraph(played)]
    if several:
        verdicts = across_fields(picks, fields)
        blocks.append(Table(
            ("Players", "Across fields", *fields),
            tuple((str(verdict.players), verdict.sentence.split(": ", 1)[1],
                   *(next((_answer(pick) for pick in verdict.picks if pick.field == field),
                          "no games") for field in fields))
                  for verdict in verdicts)))
        blocks.append(Table(("Players", "Field", _upper_first(tuning.label), "Why"),
                            tuple((str(pick.players), pick.field, _answer(pick), pick.sentence)
                                  for pick in picks)))
    else:
        blocks.append(Table(("Players", _upper_first(tuning.label), "Why"),
                            tuple((str(pick.players), _answer(pick), pick.sentence)
                                  for pick in picks)))
    explained = " ".join([
        "Largest seat gap: the best seat's win rate minus the worst's as observed, with that "
        "pair's interval from the simultaneous (max-|t|) family of every pair of seats. Picked "
        "after looking, the observed gap is the largest of several noisy ones and is never "
        "zero even with no seat effect (about 3.6 pp at 800 games); the interval holds for the "
        "pair picked and goes below zero when the two seats cannot be told apart.",
        *(share.note for share in tuning.shares if share.note),
        "Games with a shared win counts games, not player-games (unlike 'Shared wins' below)."])
    return [
        *blocks,
        Paragraph(rule),
        Heading(tuning.metrics_heading, 3),
        Table(("Players", tuning.column, *(("Field",) if several else ()), "Games",
               "Largest seat gap (simultaneous 95% CI)",
               f"Fairness (±{margin:g} pp)", "Equal seats p",
               *(share.header for share in tuning.shares), "Score mean", "Score SD",
               "Games with a shared win",
               f"{strongest} ahead of {BASELINE} (95% CI); minus the best {noun}'s "
               f"(simultaneous 95% CI)"), tuple(rows)),
        Paragraph(explained
                  + (f" n/a: {strongest} and {BASELINE} never share a table in that field."
                     if several else "")),
        *_figures(metrics, tuning, strongest),
    ]


def write_tuning_report(sweep_dir: Path, out_dir: Path, tuning: RulesTuning, strongest: str,
                        fair_margin: float, games_note: str | None = None,
                        point_reports: bool = True, progress=None):
    """The sweep report of a rules-tuning sweep (``sim.report.sweep``) with the recommendation
    (across fields, then per field) and the tuning's metrics as its first sections, and
    ``<tuning name>.parquet`` (the metrics, one row per point and field, with a ``field``
    column) beside it. Returns the report's result, the recommendations (``recommend``; pass
    them to ``across_fields`` for the verdict per player count) and the games note
    (``games_text``)."""
    from sim.report.sweep import SweepReportExtras, build_sweep_report
    from sim.stats.sweep import open_sweep, sweep_rows

    metrics = rules_metrics(sweep_rows(open_sweep(sweep_dir)), tuning, strongest, fair_margin)
    picks = recommend(metrics, tuning)
    if games_note is None:
        games_note = games_text(metrics)
    buffer = io.BytesIO()
    metrics.write_parquet(buffer)
    extras = SweepReportExtras(tuning_blocks(metrics, picks, tuning, strongest, games_note,
                                             field_lineups(sweep_dir)),
                               {f"{tuning.name}.parquet": buffer.getvalue()})
    result = build_sweep_report(sweep_dir, out_dir, progress=progress, fair_margin=fair_margin,
                                point_reports=point_reports, extras=extras, title=tuning.title)
    return result, picks, games_note


def games_text(metrics: pl.DataFrame) -> str:
    """``N games in all, M per grid point`` (or ``A to B per grid point`` when they differ;
    ``per grid point in each field`` with several fields)."""
    total = int(metrics["games"].sum())
    fewest, most = int(metrics["games"].min()), int(metrics["games"].max())
    per_point = f"{fewest:,}" if fewest == most else f"{fewest:,} to {most:,}"
    each = " in each field" if len(field_order(metrics)) > 1 else ""
    return f"{total:,} games in all, {per_point} per grid point{each}."
