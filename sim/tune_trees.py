"""Tree supply tuning: how many trees of each colour per player should the box give?

A preset of ``sim sweep`` over (players x ``trees_per_colour_per_player``) played by two or
more *fields* of players (``sim.fields``), every field on the same deals (common random
numbers): by default ``strong`` (the strongest candidate in every seat) and ``mixed`` (the
strongest candidate and ``greedy`` rotating through the seats). A recommendation made with one
set of bots is a statement about those bots, so every metric and the recommendation are per
field, and one line per player count says whether the pick holds for every field. Per grid
point and field it measures, every interval 95% and cluster-robust over deals
(``sim.stats.clustered``):

- seat advantage: every gap between two seats' win rates with simultaneous (max-|t|) intervals;
  shown is the largest gap as observed (best seat minus worst) with that pair's simultaneous
  interval, which goes below zero when the two seats cannot be told apart (the observed
  largest gap is the largest of several noisy ones: 3.6 pp on average with no seat effect at
  800 games), and the fairness verdict: **fair** when every gap's interval lies within
  +-``fair_margin`` (2 percentage points by default), **unfair** when one lies wholly outside
  it, **undecided** otherwise;
- colour starvation: the share of tree phases in which a colour the player had a zone of was
  already gone from the supply (``tree_picks_constrained``), and the share in which the player
  could place no tree at all (``tree_phases_without_tree``);
- score mean and SD, and the tie rate (share of games whose win is shared);
- skill expression: how often the strongest strategy finishes ahead of ``greedy`` at the same
  table (ties count half), and its difference from the best supply's (``skill_gap_to_best``).
  It exists only in a field where the two share tables (``mixed``); elsewhere it is NaN.

Recommendation rule, per player count (2 or more). Each supply is judged on three criteria, each
``yes``, ``no`` or ``undecided`` from its interval:

- fair: the fairness verdict above;
- unstarved: constrained tree phases below ``max_starvation`` (10%): yes when the interval's
  upper end is below it, no when its lower end is at or above it;
- keeps skill: the strongest strategy's edge within ``skill_tolerance`` (2 points) of the best
  supply's. Which supply is best is not known: the largest of several noisy estimates is
  biased upwards, and taking it as a fixed reference ignores its own uncertainty. So each
  supply's edge is compared with every other supply's, the differences with simultaneous
  (max-|t|) intervals on the same deals, and its distance from the best is the smallest of
  them (multiple comparisons with the best): yes when that interval's lower end reaches
  -tolerance (within tolerance of every supply, so of the best), no when its upper end falls
  short of it (shown to lie more than the tolerance below some supply). In a field where the
  strongest and greedy never share a table it cannot be measured: it is ``n/a``, not counted,
  and the sentence says so (never a silent yes).

The pick is the smallest supply meeting all three, or the two counted (every extra tree is a
component in the box), provided every smaller supply is decided to fail one of them; if a
smaller supply is still undecided, the answer is **undecided: play more games**, naming the
supply and the criterion.
When every supply fails, no supply is recommended and the sentence names what fails where.
Seat spread and skill need two or more players, so 1 player gets metrics but no pick.

Across fields (``across_fields``), per player count: **holds** for every field when every field
picks the same supply (or every field rules every supply out), **depends on the players** when
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

SUPPLY = "trees_per_colour_per_player"
# The one field of a sweep played before fields (no ``field`` column in its rows).
SINGLE_FIELD = "single"
KEYS = [FIELD_AXIS, "players", SUPPLY]
GAP_TO_BEST = ("skill_gap_to_best", "skill_gap_to_best_low", "skill_gap_to_best_high")
BASELINE = "greedy"

METRICS = {
    "seat_gap": "seat advantage: the largest gap between two seats' win rates, best seat minus "
                "worst, with that pair's simultaneous 95% interval (percentage points)",
    "starvation_constrained": "tree phases with a colour of one's zones already gone (%)",
    "starvation_no_tree": "tree phases with no tree possible (%)",
    "score_mean": "mean score (points)",
    "score_sd": "score standard deviation (points)",
    "tie_rate": "games whose win is shared (%)",
    "skill": "strongest strategy finishes ahead of greedy (%); NaN (n/a) in a field where the "
             "two never share a table",
    "skill_gap_to_best": "skill minus the best supply's, with a simultaneous 95% interval that "
                         "carries the best supply's own uncertainty (percentage points)",
}


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


def tune_trees_document(players: list[int], supplies: list[int], strongest: str, games: int,
                        seed: int, shard_size: int, output: str, half_width: float | None,
                        adaptive: bool = False, fair_margin: float = FAIR_MARGIN,
                        fields: list[str] | None = None) -> dict[str, Any]:
    """The sweep document of the preset (what ``configs/tune-trees.toml`` spells out).

    ``fields`` (``NAME=LINEUP`` or a name the game declares, at least two) defaults to
    ``default_fields(strongest)``; every field plays the same deals. ``adaptive`` plays each
    point until its fairness verdict is decided (or ``games`` is reached); ``half_width``
    instead stops a point once every seat's win rate is that precise.
    """
    document: dict[str, Any] = {
        "name": "tune-trees",
        "game": "legendary-forests",
        "fields": list(fields) if fields else default_fields(strongest),
        "games": games,
        "seed": seed,
        "shard_size": shard_size,
        "output": output,
        "sweep": {"players": players, SUPPLY: supplies},
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


def _skill_units(rows: pl.LazyFrame, strongest: str) -> pl.DataFrame:
    """Per (field, players, supply, game): the share of (strongest, greedy) seat pairs in which
    the strongest finished ahead (ties half), with the game's deal as its cluster. A field in
    which the two never share a table has no units."""
    return (pair_outcomes(rows, KEYS)
            .filter((pl.col("strategy") == strongest) & (pl.col("opponent") == BASELINE))
            .drop("strategy", "opponent")
            .with_columns(pl.col("players").cast(pl.Int64), games=pl.lit(1, pl.Int64))
            .rename({"deal_id": "cluster"}).sort([*KEYS, "game_id"]).collect())


def skill_gap_to_best(units: pl.DataFrame) -> pl.DataFrame:
    """Per (field, players, supply): the skill (``_skill_units``) minus the best supply's in
    that field at that player count, with a simultaneous 95% interval that carries the best
    supply's uncertainty (``units`` without a ``field`` column: per (players, supply)).

    The supplies' skills are ratio means over the same clusters (deals, common to every point
    of the sweep), every pairwise difference gets a simultaneous (max-|t|) interval, and the
    distance to the best, s - max_j s_j = min_j (s - s_j), lies between the smallest lower end
    and the smallest upper end over j (0 for j itself) whenever all those intervals hold:
    Hsu's multiple comparisons with the best. Columns ``skill_gap_to_best`` and its ``_low``,
    ``_high`` (all at most 0); a single supply is its own best (0, 0 to 0)."""
    groups = [c for c in (FIELD_AXIS, "players") if c in units.columns]
    records = []
    for key, part in sorted(units.partition_by(groups, as_dict=True).items()):
        supplies, sums = cluster_matrix(part, SUPPLY, ("ahead", "games"))
        means = ratio_means(sums["ahead"], sums["games"])
        gaps = np.zeros((len(supplies), 3))  # estimate, low, high against the best
        if len(supplies) > 1:
            matrix, pairs = pairwise_contrasts(len(supplies))
            intervals = contrast_intervals(means, matrix, simultaneous=True)
            for row, (i, j) in enumerate(pairs):
                estimate, low, high = (intervals.estimates[row], intervals.low[row],
                                       intervals.high[row])
                # row is s_i - s_j; for supply j the difference s_j - s_i is its negative
                gaps[i] = np.minimum(gaps[i], (estimate, low, high))
                gaps[j] = np.minimum(gaps[j], (-estimate, -high, -low))
        group_values = dict(zip(groups, key, strict=True))
        group_values["players"] = int(group_values["players"])
        for supply, (estimate, low, high) in zip(supplies, gaps, strict=True):
            records.append({**group_values, SUPPLY: int(supply),
                            "skill_gap_to_best": float(estimate),
                            "skill_gap_to_best_low": float(low),
                            "skill_gap_to_best_high": float(high)})
    schema = {**({FIELD_AXIS: pl.String} if FIELD_AXIS in groups else {}),
              "players": pl.Int64, SUPPLY: pl.Int64, "skill_gap_to_best": pl.Float64,
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


def tree_supply_metrics(rows: pl.LazyFrame, strongest: str,
                        fair_margin: float = FAIR_MARGIN) -> pl.DataFrame:
    """Every metric of the module docstring per (field, players, supply), with cluster-robust
    95% CIs and the fairness verdict, from the rows of a tune-trees sweep; sorted by field (in
    the order given), players and supply. Rows without a ``field`` column (a sweep played
    before fields) are the one field ``SINGLE_FIELD``. Skill is NaN where the strongest and
    greedy never share a table (one player, or a field without greedy)."""
    keys = KEYS
    rows = with_field(rows).with_columns(pl.col("players").cast(pl.Int64),
                                         pl.col(SUPPLY).cast(pl.Int64))
    fields = field_order(rows)
    per_player = rows.group_by(keys).agg(
        player_games=pl.len(),
        score_mean=pl.col("score").cast(pl.Float64).mean(),
        score_sd=exact_sd("score"),
    ).collect()
    per_deal = rows.group_by([*keys, pl.col("deal_id").alias("cluster")]).agg(
        constrained=pl.col("tree_picks_constrained").cast(pl.Int64).sum(),
        no_tree=pl.col("tree_phases_without_tree").cast(pl.Int64).sum(),
        phases=pl.col("light_tiles_drawn").cast(pl.Int64).sum(),
        games=pl.col("game_id").n_unique().cast(pl.Int64),
    ).collect()
    shared = (rows.group_by([*keys, "game_id", pl.col("deal_id").alias("cluster")])
              .agg(shared=((pl.col("win") > 0) & (pl.col("win") < 1)).any().cast(pl.Int64))
              .group_by([*keys, "cluster"]).agg(pl.col("shared").sum()).collect())
    per_deal = per_deal.join(shared, on=[*keys, "cluster"])
    starvation = _share(per_deal, keys, "constrained", "phases", "starvation_constrained")
    no_tree = _share(per_deal, keys, "no_tree", "phases", "starvation_no_tree")
    ties = grouped_ratio_intervals(per_deal, keys, "shared", "games", "tie_rate")
    games = per_deal.group_by(keys).agg(pl.col("games").sum())
    skill_units = _skill_units(rows, strongest)
    skill = _share(skill_units, keys, "ahead", "games", "skill").join(
        skill_gap_to_best(skill_units), on=keys, how="left")
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
    for (field, players, supply), units in sorted(
            seat_units.partition_by(keys, as_dict=True).items()):
        record: dict[str, Any] = {FIELD_AXIS: field, "players": players, SUPPLY: supply}
        family = None
        if players >= 2 and seat_rows is not None:
            # The same seat model as the batch and sweep reports: the lineup held fixed.
            fitted = lineup_model_family(
                seat_rows.filter((pl.col(FIELD_AXIS) == field) & (pl.col("players") == players)
                                 & (pl.col(SUPPLY) == supply)),
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
    table = (per_player.join(games, on=keys)
             .join(starvation.drop("starvation_constrained_se",
                                   "starvation_constrained_clusters"), on=keys)
             .join(no_tree.select(*keys, "starvation_no_tree", "starvation_no_tree_low",
                                  "starvation_no_tree_high"), on=keys)
             .join(ties.select(*keys, "tie_rate"), on=keys)
             .join(skill.select(*keys, "skill", "skill_low", "skill_high", *GAP_TO_BEST),
                   on=keys, how="left")
             .join(pl.DataFrame(seat_records), on=keys)
             .with_columns(fair_margin=pl.lit(fair_margin), strongest=pl.lit(strongest))
             .with_columns([pl.when(pl.col("players") < 2).then(None).otherwise(pl.col(c))
                            .alias(c) for c in ("skill", "skill_low", "skill_high",
                                                *GAP_TO_BEST)])
             .drop("player_games")
             .sort(pl.col(FIELD_AXIS).cast(pl.Enum(fields)), "players", SUPPLY))
    return table.with_columns(pl.col(c).fill_null(math.nan) for c in
                              ("skill", "skill_low", "skill_high", *GAP_TO_BEST))


@dataclass(frozen=True)
class Recommendation:
    """The answer for one field and player count: the supply picked (None when undecided or
    when no supply qualifies), whether it is decided, and why (the sentence names the field
    when the sweep has several)."""

    players: int
    supply: int | None
    decided: bool
    sentence: str
    field: str = SINGLE_FIELD


NOT_MEASURED = "n/a"


def _criteria(row: dict, max_starvation: float, skill_tolerance: float) -> dict[str, str]:
    """Each criterion of the rule for one supply: ``yes``, ``no`` or ``undecided``; skill is
    ``n/a`` where the strongest and greedy never share a table (nothing to measure)."""
    fair = {"fair": "yes", "unfair": "no"}.get(row["fairness"], "undecided")
    if row["starvation_constrained_high"] < max_starvation:
        starved = "yes"
    elif row["starvation_constrained_low"] >= max_starvation:
        starved = "no"
    else:
        starved = "undecided"
    # The distance to the best supply with an interval that carries the best's uncertainty
    # (``skill_gap_to_best``), not a distance to the largest of several noisy estimates.
    if math.isnan(row["skill_gap_to_best"]):
        skill = NOT_MEASURED
    elif row["skill_gap_to_best_low"] >= -skill_tolerance:
        skill = "yes"
    elif row["skill_gap_to_best_high"] < -skill_tolerance:
        skill = "no"
    else:
        skill = "undecided"
    return {"fair": fair, "unstarved": starved, "keeps skill": skill}


def recommend(metrics: pl.DataFrame, max_starvation: float = 0.10,
              skill_tolerance: float = 0.02) -> list[Recommendation]:
    """Apply the recommendation rule of the module docstring to each field and player count
    >= 2, ordered by players, then field (in the metrics' order). Metrics without a ``field``
    column are one field, ``SINGLE_FIELD``."""
    metrics = with_field(metrics)
    fields = field_order(metrics)
    picks = []
    for players in sorted(set(metrics["players"].to_list())):
        if players < 2:
            continue
        for field in fields:
            options = metrics.filter((pl.col(FIELD_AXIS) == field)
                                     & (pl.col("players") == players)).sort(SUPPLY)
            if options.is_empty():
                continue
            judged = [(row, _criteria(row, max_starvation, skill_tolerance))
                      for row in options.iter_rows(named=True)]
            head = f"{players} players, {field} field" if len(fields) > 1 else f"{players} players"
            picks.append(_decide(players, judged, skill_tolerance, max_starvation, field, head))
    return picks


CRITERION_NAMES = {"fair": "fairness", "unstarved": "starvation", "keeps skill": "skill"}


def _failure(criterion: str, row: dict, max_starvation: float, skill_tolerance: float) -> str:
    """Why a supply fails ``criterion``, in words."""
    if criterion == "fair":
        return f"unfair (a seat gap shown above {100 * row['fair_margin']:g} pp)"
    if criterion == "unstarved":
        return (f"starved (constrained tree phases shown at or above "
                f"{100 * max_starvation:.0f}%)")
    return (f"losing skill ({_strongest(row)}'s edge over {BASELINE} shown to be more than "
            f"{100 * skill_tolerance:g} pp below the best supply's: "
            f"{_signed_pp(row['skill_gap_to_best'])} ({_signed_pp(row['skill_gap_to_best_low'])} "
            f"to {_signed_pp(row['skill_gap_to_best_high'])}))")


def _skill_not_measured(row: dict) -> str:
    return (f"keeps skill is n/a: {_strongest(row)} and {BASELINE} never share a table in this "
            f"field, so it is not measured and not counted")


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


def _decide(players: int, judged: list[tuple[dict, dict[str, str]]], skill_tolerance: float,
            max_starvation: float, field: str = SINGLE_FIELD,
            head: str | None = None) -> Recommendation:
    """The pick for one field and player count from its supplies' criteria (smallest first);
    ``head`` starts every sentence (``2 players``, or ``2 players, strong field``)."""
    head = head or f"{players} players"
    failures = []
    for row, criteria in judged:
        supply = int(row[SUPPLY])
        if all(v in ("yes", NOT_MEASURED) for v in criteria.values()):
            return Recommendation(players, supply, True, _pick_sentence(
                head, row, failures, max_starvation, skill_tolerance,
                criteria["keeps skill"] == NOT_MEASURED), field)
        failed = [name for name, value in criteria.items() if value == "no"]
        if failed:
            failures.append((supply, failed, row))
            continue
        open_criteria = [CRITERION_NAMES[name] for name, value in criteria.items()
                         if value == "undecided"]
        larger = [str(int(other[SUPPLY])) for other, _ in judged if int(other[SUPPLY]) > supply]
        then = ("play more games at this point: until it is decided, no larger supply ("
                + ", ".join(larger) + ") can be recommended" if larger
                else "play more games at this point")
        ruled_out = ""
        if failures:
            ruled_out = " Smaller supplies are ruled out: " + "; ".join(
                f"{smaller} as " + " and ".join(
                    _failure(name, small_row, max_starvation, skill_tolerance) for name in failed)
                for smaller, failed, small_row in failures) + "."
        not_measured = (f" ({_upper_first(_skill_not_measured(row))}.)"
                        if criteria["keeps skill"] == NOT_MEASURED else "")
        return Recommendation(players, None, False, (
            f"{head}: undecided. Supply {supply} is still undecided on "
            f"{' and '.join(open_criteria)} after {row['games']:,} games "
            f"({_facts(row)}); {then}.{ruled_out}{not_measured}"), field)
    reasons = "; ".join(
        f"{supply}: " + " and ".join(_failure(name, row, max_starvation, skill_tolerance)
                                     for name in failed)
        for supply, failed, row in failures)
    if all(criteria["keeps skill"] == NOT_MEASURED for _, criteria in judged):
        return Recommendation(players, None, True, (
            f"{head}: no supply tried meets both criteria counted here, fairness and starvation "
            f"({reasons}; {_skill_not_measured(judged[0][0])}); try more supplies or relax a "
            f"threshold (starvation below {100 * max_starvation:.0f}%)."), field)
    return Recommendation(players, None, True, (
        f"{head}: no supply tried meets all three criteria ({reasons}); try more "
        f"supplies or relax a threshold (starvation below {100 * max_starvation:.0f}%, skill "
        f"within {100 * skill_tolerance:g} pp of the best supply's)."), field)


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


def _facts(row: dict) -> str:
    text = (f"largest seat gap {seat_gap_text(row)}, simultaneous 95% CI; "
            f"colour starvation {_percent(row['starvation_constrained'])} of tree phases "
            f"({_percent(row['starvation_constrained_low'])}–"
            f"{_percent(row['starvation_constrained_high'])})")
    if not math.isnan(row["skill"]):
        text += (f"; {_strongest(row)} ahead of {BASELINE} in {_percent(row['skill'])} of "
                 f"their meetings ({_percent(row['skill_low'])}–{_percent(row['skill_high'])}), "
                 f"{_signed_pp(row['skill_gap_to_best'])} from the best supply's "
                 f"({_signed_pp(row['skill_gap_to_best_low'])} to "
                 f"{_signed_pp(row['skill_gap_to_best_high'])}, simultaneous)")
    return text


def _pick_sentence(head: str, row: dict, failures: list, max_starvation: float,
                   skill_tolerance: float, skill_not_measured: bool = False) -> str:
    supply = int(row[SUPPLY])
    if skill_not_measured:
        text = (f"{head}: {supply} trees per colour per player — decided: fair within "
                f"±{100 * row['fair_margin']:g} pp and unstarved ({_facts(row)}; "
                f"{_skill_not_measured(row)})")
    else:
        text = (f"{head}: {supply} trees per colour per player — decided: fair within "
                f"±{100 * row['fair_margin']:g} pp, unstarved and keeping {_strongest(row)}'s "
                f"edge over {BASELINE} ({_facts(row)})")
    if failures:
        ruled_out = "; ".join(
            f"{smaller} was ruled out as "
            + " and ".join(_failure(name, small_row, max_starvation, skill_tolerance)
                           for name in failed)
            for smaller, failed, small_row in failures)
        text += f"; {ruled_out}"
    else:
        text += "; it is the smallest supply tried"
    return text + "."


@dataclass(frozen=True)
class AcrossFields:
    """Per player count, whether the fields' picks agree: ``verdict`` is ``holds`` (every field
    picks ``supply``, or every field rules every supply out, ``supply`` None), ``depends on the
    players`` (decided picks differ) or ``undecided`` (a field is undecided or has no pick);
    ``picks`` is each field's (in the fields' order) and ``sentence`` the one line."""

    players: int
    verdict: str
    supply: int | None
    picks: tuple[Recommendation, ...]
    sentence: str


HOLDS, DEPENDS, UNDECIDED = "holds", "depends on the players", "undecided"


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _answer(pick: Recommendation) -> str:
    """A pick in one word: the supply, ``undecided`` or ``none``."""
    if pick.supply is not None:
        return str(pick.supply)
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
        supplies = {pick.supply for pick in mine}
        if len(supplies) == 1:
            (supply,) = supplies
            what = (f"{supply} trees per colour per player" if supply is not None
                    else "no supply tried meets the criteria")
            verdicts.append(AcrossFields(players, HOLDS, supply, mine,
                                         f"{head}: holds for {_names(list(fields))}: {what}"))
        else:
            shown = ", ".join(f"{pick.field} {_answer(pick)}" for pick in mine)
            verdicts.append(AcrossFields(players, DEPENDS, None, mine,
                                         f"{head}: depends on the players: {shown}"))
    return verdicts


def _percent(value: float) -> str:
    return f"{100 * value:.1f}%"


# The figures of the tree-supply section (the largest seat gap, scores and shared wins have theirs
# in the sweep report's own sections): metric -> (title, unit, scale, digits).
FIGURES = {
    "starvation_constrained": ("Colour starvation", "tree phases (%)", 100.0, 1,
                               "Share of tree phases in which a colour the player had a zone of "
                               "was already gone from the supply"),
    "starvation_no_tree": ("No tree possible", "tree phases (%)", 100.0, 1,
                           "Share of tree phases in which the player could place no tree"),
    "skill": ("Skill: the strongest strategy ahead of greedy", "meetings won (%)", 100.0, 1,
              "How often the strongest strategy finishes ahead of greedy at the same table "
              "(ties count half)"),
}
PRESET_FILE = "tune-trees.json"


def write_preset(sweep_dir: Path, strongest: str, fair_margin: float) -> None:
    """Record in the sweep folder that it is a tune-trees sweep (and with which strongest
    strategy and margin), so ``sim report`` on it writes the tune-trees report."""
    write_text_atomic(Path(sweep_dir) / PRESET_FILE, json.dumps(
        {"preset": "tune-trees", "strongest": strongest, "fair_margin": fair_margin},
        indent=1) + "\n")


def read_preset(sweep_dir: Path) -> dict | None:
    """The tune-trees record of a sweep folder (``write_preset``), or None."""
    path = Path(sweep_dir) / PRESET_FILE
    try:
        preset = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(preset, dict) or preset.get("preset") != "tune-trees":
        return None
    return preset


def _figures(metrics: pl.DataFrame, strongest: str) -> list:
    """The tree-supply figures as report blocks (heatmaps over players x supply, a panel per
    field on the same axes, or lines, one per field, when one of the two axes has a single
    value; ``sim.report.sweep_plots``)."""
    from sim.report.document import Figure
    from sim.report.sweep_plots import MAX_PANELS, Cell, Series, metric_figure

    metrics = with_field(metrics)
    fields = field_order(metrics)
    axes = {"players": sorted(set(metrics["players"].to_list())),
            SUPPLY: sorted(set(metrics[SUPPLY].to_list()))}
    blocks = []
    for metric, (title, unit, scale, digits, caption) in FIGURES.items():
        series = []
        for field in fields:
            cells = {}
            for row in metrics.filter(pl.col(FIELD_AXIS) == field).iter_rows(named=True):
                low, high = row.get(f"{metric}_low"), row.get(f"{metric}_high")
                cells[(row["players"], row[SUPPLY])] = Cell(
                    float(row[metric]), math.nan if low is None else float(low),
                    math.nan if high is None else float(high))
            series.append(Series(field if len(fields) > 1 else "", cells))
        shown = title.replace("the strongest strategy", strongest)
        # Shares: the colours span 0-100%, not the grid's own values (noise is not news).
        png = metric_figure(shown, unit, axes, series, scale=scale, digits=digits,
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
            blocks.append(Figure(f"tune-trees-{metric.replace('_', '-')}", png,
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


def tuning_blocks(metrics: pl.DataFrame, picks: list[Recommendation], strongest: str,
                  games_note: str, lineups: dict[str, str] | None = None) -> list:
    """The tune-trees sections of the sweep report: the recommendation (with several fields:
    whether it holds across them, per player count, then each field's pick and why), its
    rule, every tree-supply metric per point and field, and their figures. ``lineups`` is
    each field's lineup in words (``field_lineups``)."""
    from sim.report.document import Heading, Paragraph, Table

    metrics = with_field(metrics)
    fields = field_order(metrics)
    several = len(fields) > 1
    lineups = lineups or {}
    margin = 100 * float(metrics["fair_margin"][0]) if metrics.height else 100 * FAIR_MARGIN

    def pct(value):
        return "–" if value is None or math.isnan(value) else f"{100 * value:.1f}%"

    rows = []
    ordered = metrics.sort("players", SUPPLY, pl.col(FIELD_AXIS).cast(pl.Enum(fields)))
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
        rows.append((str(row["players"]), str(row[SUPPLY]),
                     *((row[FIELD_AXIS],) if several else ()), f"{row['games']:,}", spread,
                     row["fairness"] or "–", equal,
                     f"{pct(row['starvation_constrained'])} "
                     f"({pct(row['starvation_constrained_low'])}–"
                     f"{pct(row['starvation_constrained_high'])})",
                     f"{pct(row['starvation_no_tree'])} ({pct(row['starvation_no_tree_low'])}–"
                     f"{pct(row['starvation_no_tree_high'])})", f"{row['score_mean']:.2f}",
                     f"{row['score_sd']:.2f}", pct(row["tie_rate"]), skill))

    rule = (f"Rule: per player count{' and field' if several else ''}, the smallest supply "
            f"that is fair (every gap between two seats' win rates has its simultaneous 95% "
            f"interval within ±{margin:g} percentage points), unstarved (constrained tree "
            f"phases below 10%, the interval's upper end) and keeps skill ({strongest}'s edge "
            f"over {BASELINE} within 2 percentage points of the best supply's), once every "
            f"smaller supply is decided to fail a criterion; a criterion whose interval "
            f"straddles its threshold is undecided, and then so is the answer. Which supply has "
            f"the most skill is itself uncertain, and the largest of several noisy estimates "
            f"is biased upwards, so no estimate is taken as the reference: each supply's edge "
            f"is compared with every other's on the same deals, the differences with "
            f"simultaneous 95% intervals, and its distance from the best is the smallest of "
            f"them, an interval that carries the best supply's own uncertainty (multiple "
            f"comparisons with the best); it keeps skill when that interval's lower end is "
            f"within 2 points. Intervals are cluster-robust over deals. One player has no seats "
            f"to compare and no opponent: its metrics are shown, with no pick.")
    if several:
        rule += (f" Skill can be measured only where {strongest} and {BASELINE} share tables: "
                 f"in a field where they never do it is n/a, not counted (the pick rests on "
                 f"fairness and starvation alone there, and its sentence says so). Across "
                 f"fields, per player count: it holds when every field picks the same supply, "
                 f"depends on the players when decided picks differ, and is undecided while "
                 f"any field is.")
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
    blocks: list = [Heading("Recommendation: trees per colour per player"), Paragraph(played)]
    if several:
        verdicts = across_fields(picks, fields)
        blocks.append(Table(
            ("Players", "Across fields", *fields),
            tuple((str(verdict.players), verdict.sentence.split(": ", 1)[1],
                   *(next((_answer(pick) for pick in verdict.picks if pick.field == field),
                          "no games") for field in fields))
                  for verdict in verdicts)))
        blocks.append(Table(("Players", "Field", "Trees per colour per player", "Why"),
                            tuple((str(pick.players), pick.field, _answer(pick), pick.sentence)
                                  for pick in picks)))
    else:
        blocks.append(Table(("Players", "Trees per colour per player", "Why"),
                            tuple((str(pick.players), _answer(pick), pick.sentence)
                                  for pick in picks)))
    return [
        *blocks,
        Paragraph(rule),
        Heading("Tree supply metrics", 3),
        Table(("Players", "Supply", *(("Field",) if several else ()), "Games",
               "Largest seat gap (simultaneous 95% CI)",
               f"Fairness (±{margin:g} pp)", "Equal seats p", "Constrained picks (95% CI)",
               "No tree possible (95% CI)", "Score mean", "Score SD",
               "Games with a shared win",
               f"{strongest} ahead of {BASELINE} (95% CI); minus the best supply's "
               f"(simultaneous 95% CI)"), tuple(rows)),
        Paragraph("Largest seat gap: the best seat's win rate minus the worst's as observed, "
                  "with that pair's interval from the simultaneous (max-|t|) family of every "
                  "pair of seats. Picked after looking, the observed gap is the largest of "
                  "several noisy ones and is never zero even with no seat effect (about 3.6 pp "
                  "at 800 games); the interval holds for the pair picked and goes below zero "
                  "when the two seats cannot be told apart. Constrained picks: tree phases in "
                  "which a colour the player had a zone of was already gone from the supply. "
                  "Games with a shared win counts games, not player-games (unlike 'Shared "
                  "wins' below)."
                  + (f" n/a: {strongest} and {BASELINE} never share a table in that field."
                     if several else "")),
        *_figures(metrics, strongest),
    ]


def write_tuning_report(sweep_dir: Path, out_dir: Path, strongest: str, fair_margin: float,
                        games_note: str | None = None, point_reports: bool = True,
                        progress=None):
    """The sweep report of a tune-trees sweep (``sim.report.sweep``) with the recommendation
    (across fields, then per field) and the tree-supply metrics as its first sections, and
    ``tune-trees.parquet`` (the metrics, one row per point and field, with a ``field``
    column) beside it. Returns the report's result, the recommendations (``recommend``; pass
    them to ``across_fields`` for the verdict per player count) and the games note
    (``games_text``)."""
    from sim.report.sweep import SweepReportExtras, build_sweep_report
    from sim.stats.sweep import open_sweep, sweep_rows

    metrics = tree_supply_metrics(sweep_rows(open_sweep(sweep_dir)), strongest, fair_margin)
    picks = recommend(metrics)
    if games_note is None:
        games_note = games_text(metrics)
    buffer = io.BytesIO()
    metrics.write_parquet(buffer)
    extras = SweepReportExtras(tuning_blocks(metrics, picks, strongest, games_note,
                                             field_lineups(sweep_dir)),
                               {"tune-trees.parquet": buffer.getvalue()})
    result = build_sweep_report(sweep_dir, out_dir, progress=progress, fair_margin=fair_margin,
                                point_reports=point_reports, extras=extras,
                                title="Tree supply tuning")
    return result, picks, games_note


def games_text(metrics: pl.DataFrame) -> str:
    """``N games in all, M per grid point`` (or ``A to B per grid point`` when they differ;
    ``per grid point in each field`` with several fields)."""
    total = int(metrics["games"].sum())
    fewest, most = int(metrics["games"].min()), int(metrics["games"].max())
    per_point = f"{fewest:,}" if fewest == most else f"{fewest:,} to {most:,}"
    each = " in each field" if len(field_order(metrics)) > 1 else ""
    return f"{total:,} games in all, {per_point} per grid point{each}."
