"""Card balance: which cards taken from a face-up offer, and which cards dealt face down and
kept, are too strong or too weak (rows store; the columns come from the game:
``Game.card_columns`` and ``Game.draft_columns``).

Players choose which cards they hold, and holding follows doing well (a game may let a
player take a card only while holding fewer than 4 unfinished ones), so comparing holders with
the others measures success, not the card: every card "adds" points that way. The effects
here come only from what the deal randomises.

Cards taken from the offer (``CardColumns.opening``: the face-up row the deal lays out, the
same for every seat of a game and every replicate of a deal):

- descriptives per card: take rate (of the takes made while it lay face up, the share that
  chose it, beside the 1/k of a random pick), completion rate, mean points, points per piece;
  ratio means with cluster-robust intervals over deals (``sim.stats.clustered``);
- intent to treat (ITT): per (players, rules) and card c, the effect on a player-game's score
  (and win share) of c being in the opening row. OLS of the outcome on the opening-row
  indicators of every card in effects coding (each card against the average card: the
  indicators sum to the row length in every game, so only gaps between cards are defined) plus
  seat and strategy fixed effects (pre-treatment: the design places strategies); no game fixed
  effects (the row is the same for the whole table). Pooled over strategies, per strategy
  (the design sets the strategy at a seat, so a subset by strategy stays randomised) and for
  seat 1 alone (it always chooses from the opening row);
- first stage: the same regression with "the player holds c at the end" as the outcome;
- per card held (instrumental variables, just identified per card): theta_c = ITT_c / FS_c.
  Its interval is Fieller's (the Anderson-Rubin set of a single instrument), from the joint
  cluster-robust covariance of (ITT_c, FS_c): with a = ITT_c, b = FS_c, variances v_aa, v_bb,
  covariance v_ab and critical value q, theta belongs to the set when
  (a - theta b)^2 <= q^2 (v_aa - 2 theta v_ab + theta^2 v_bb), i.e.
  A theta^2 - 2 B theta + C <= 0 with A = b^2 - q^2 v_bb, B = a b - q^2 v_ab,
  C = a^2 - q^2 v_aa. When A > 0 (the first stage is told from zero at q) the set is the
  interval (B -+ sqrt(B^2 - A C)) / A; otherwise it is unbounded and no interval is given ("the
  opening row barely changes who holds it", with the first-stage F = (b / se_b)^2). q is the
  simultaneous max-|t| value over the cards (``simultaneous_critical`` on the correlation of
  the ITT gaps, t on deals - 1): the intervals hold together for every card of the panel. The
  interval is honest whatever the first stage's strength: at theta = 0 it is the ITT's test.
- verdicts (``strong`` / ``weak`` / ``fair`` / ``undecided`` against ``margin`` points) come only
  from the per-card-held interval pooled over strategies; below ``MIN_VERDICT_CLUSTERS`` deals
  there is none (``verdict`` null, ``verdict_reason`` says why);
- the holder association (a description, never a verdict): OLS of the outcome on one indicator
  per card held, the round each was taken, seat and strategy; "holders score N more, other
  things equal", which includes whatever made them able to hold it.

Cards dealt face down and kept (``DraftColumns``, e.g. 2 of 10 dealt,
1 kept): the dealt effect (ITT of being dealt c: own score on the dealt indicators, effects
coded, seat and strategy fixed effects and, since here the deal varies within a game, game
fixed effects by within-game centring) and the kept effect through it (ITT / first stage of
keeping c, Fieller interval as above); the verdict from the kept-through-dealt estimate. Keep
rates per strategy are shown beside a random choice between the cards dealt (1/2).

Every covariance is cluster-robust by deal (CR1: G / (G - 1) (N - 1) / (N - p), as statsmodels),
t on deals - 1 degrees of freedom. The joint covariance of the ITT and first-stage coefficients
stacks the per-deal score contributions of both regressions (they share one design).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import polars as pl
from scipy import sparse

from sim.games.base import CardColumns, DraftColumns
from sim.stats.batch import Batch
from sim.stats.clustered import (
    MIN_VERDICT_CLUSTERS,
    WIN_SCALE,
    add_cluster_grams,
    cluster_gram,
    covariance_critical,
    gram_ratio_table,
    t_critical,
)
from sim.stats.intervals import proportion_interval
from sim.stats.units import win_units
from sim.stats.variance import chunk_panels, summarise_whole_deals

PANEL = ["players", "rules"]
# The default margin of a card verdict: a card is fair when its effect per card held, against
# the average card, is shown to lie within this many points.
CARD_MARGIN = 2.0
# A card needs this many takes (and two deals) to get its own holder coefficient; rarer ones are
# reported with their descriptive rates only.
MIN_TAKES = 10
# A card needs to be dealt face up (or dealt face down) in this many deals for an estimate.
MIN_SHOWN_DEALS = 2
# A strategy keeps at random when every card's keep rate is shown within this of 1/2.
KEEP_TOLERANCE = 0.1
VERDICTS = ("strong", "weak", "fair", "undecided")
OUTCOMES = ("score", "win")
EFFECT_METHOD = ("OLS over player-games of the outcome on the opening-row indicators of the "
                 "{cards} cards (each against the average card), seat and strategy; "
                 "cluster-robust by deal; per card held = opening-row effect / first stage "
                 "with Fieller intervals at the max-|t| value over the cards")
HOLDER_METHOD = ("OLS over player-games of the outcome on the cards held, the round each was "
                 "taken, seat and strategy; cluster-robust by deal (an association: players "
                 "choose what they hold)")
DRAFT_METHOD = ("OLS within each game (game fixed effects) of the outcome on the {cards} cards "
                "dealt (each against the average card), seat and strategy; cluster-robust by "
                "deal; per card kept = dealt effect / first stage with Fieller intervals at the "
                "max-|t| value over the cards")
NO_OPENING = "no opening row recorded: no randomised estimate, no verdict"


def margin_verdict(low: float, high: float, margin: float) -> str:
    """``strong`` when [low, high] lies wholly above +margin, ``weak`` wholly below -margin,
    ``fair`` wholly within (-margin, margin), ``undecided`` otherwise (the interval straddles a
    bound: the data cannot tell yet). The same equivalence reading as the seats' verdict."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "undecided"
    if low >= margin:
        return "strong"
    if high <= -margin:
        return "weak"
    if low > -margin and high < margin:
        return "fair"
    return "undecided"


def _as_list(frame: pl.DataFrame, column: str) -> pl.Expr:
    """The column as a list (a fixed-size array column read back may be either)."""
    dtype = frame.schema[column]
    return pl.col(column).arr.to_list() if isinstance(dtype, pl.Array) else pl.col(column)


def read_card_rows(batch: Batch, cards: CardColumns | None,
                   draft: DraftColumns | None) -> pl.DataFrame | None:
    """The rows the card statistics need (one per player-game), or None when the batch has
    none of the game's card columns."""
    rows = card_rows(batch, cards, draft)
    return rows.collect() if rows is not None else None


def card_rows(batch: Batch, cards: CardColumns | None,
              draft: DraftColumns | None) -> pl.LazyFrame | None:
    """A lazy scan of the rows the card statistics need (``read_card_rows`` without reading
    them: the descriptives stream it in chunks of whole deals), or None when the batch has none
    of the game's card columns."""
    wanted = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "win"]
    extra = []
    if cards is not None and batch.has_columns(cards.cards, cards.rounds, cards.offers,
                                               cards.completed, cards.points):
        extra += [cards.cards, cards.rounds, cards.offers, cards.completed, cards.points]
        if cards.progress and batch.has_columns(cards.progress):
            extra.append(cards.progress)
        if cards.opening and batch.has_columns(cards.opening):
            extra.append(cards.opening)
    if draft is not None and batch.has_columns(draft.dealt, draft.kept, draft.bonus):
        extra += [draft.dealt, draft.kept, draft.bonus]
    if not extra:
        return None
    return batch.scan(wanted + extra).with_columns(
        pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
        pl.col("strategy").cast(pl.String))


def scan_card_rows(batch: Batch, cards: CardColumns) -> pl.LazyFrame:
    """A lazy scan of the columns ``card_effects`` reads (it streams them in chunks of whole
    deals)."""
    wanted = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "win",
              cards.cards, cards.rounds]
    if cards.opening and batch.has_columns(cards.opening):
        wanted.append(cards.opening)
    return batch.scan(wanted)


def _share_intervals(table: pl.DataFrame, shares: dict[str, str]) -> pl.DataFrame:
    """Replace the t intervals of the ``shares`` (each mapped to the column counting its
    observations) by clustered Wilson intervals (``proportion_interval``), which stay inside
    0-100%; drops the helper columns ``{share}_se`` and ``{share}_clusters``."""
    columns = []
    for share, count in shares.items():
        low, high = proportion_interval(
            table[share].to_numpy(), table[f"{share}_se"].to_numpy(),
            table[f"{share}_clusters"].fill_null(0).to_numpy(),
            table[count].fill_null(0).to_numpy())
        columns += [pl.Series(f"{share}_low", low), pl.Series(f"{share}_high", high)]
    return table.with_columns(columns).drop(
        [f"{share}{end}" for share in shares for end in ("_se", "_clusters")])


# --- cards taken from the offer ------------------------------------------------------------------

def card_descriptives(frame: pl.DataFrame | pl.LazyFrame, cards: CardColumns,
                      confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, card): times offered at a take, times taken, take rate (and the
    rate of a random choice), completion rate, mean points, points per piece placed, mean
    round taken; rates with cluster-robust intervals over deals.

    ``frame`` may be a lazy scan of a batch: it is read once in chunks of whole deals, each
    reduced to exact integer sums per card (``cluster_gram``), so memory does not grow with
    the number of games."""
    rows = frame.lazy()
    names = rows.collect_schema().names()
    progress = cards.progress if cards.progress and cards.progress in names else None
    columns = [*PANEL, "deal_id", cards.cards, cards.rounds, cards.completed, cards.points,
               cards.offers, *([progress] if progress else [])]
    keys = [*PANEL, "card"]
    taken_values = ["taken", "completed", "points", "rounds", *(["progress"] if progress else [])]
    parts: dict[str, list[pl.DataFrame]] = {"taken": [], "offered": [], "random": [],
                                            "taken_counts": [], "offered_counts": []}

    def summarise(chunk: pl.DataFrame) -> None:
        taken, offered, random = _card_units(chunk, cards, progress)
        parts["taken"].append(cluster_gram(taken, keys, taken_values))
        parts["offered"].append(cluster_gram(offered, keys, ["offered", "chosen"]))
        parts["random"].append(random)

    summarise_whole_deals(rows, columns, summarise, _DESCRIPTIVE_CHUNK_ROWS)
    taken = add_cluster_grams(parts["taken"], keys)
    offered = add_cluster_grams(parts["offered"], keys)
    if taken.is_empty() and offered.is_empty():
        return pl.DataFrame()
    values = {"completion_rate": {"completed": 1}, "mean_points": {"points": 1},
              "mean_round": {"rounds": 1}}
    outcomes = gram_ratio_table(taken, keys, {"taken": 1}, values, confidence)
    per_piece = (gram_ratio_table(taken, keys, {"progress": 1}, {"points_per_piece": {"points": 1}},
                                  confidence) if progress else
                 _empty_ratio_table(taken, keys, ["points_per_piece"]))
    rates = gram_ratio_table(offered, keys, {"offered": 1}, {"take_rate": {"chosen": 1}},
                             confidence).join(_random_take_rates(parts["random"], offered, keys),
                                              on=keys, how="left", nulls_equal=True)
    # The counts as the per-deal rows gave them: pieces are 0 without a progress column and
    # missing for a card offered but never taken.
    counts = (taken.select(*keys, "taken", (pl.col("progress") if progress else
                                            pl.lit(0, dtype=pl.Int64)).alias("progress"))
              .join(offered.select(*keys, "offered"), on=keys, how="full", coalesce=True))
    table = (counts.join(rates.select(*keys, "take_rate", "take_rate_low", "take_rate_high",
                                      "take_rate_se", "take_rate_clusters",
                                      "take_rate_random"), on=keys, how="left")
             .join(outcomes.select(*keys, "completion_rate", "completion_rate_low",
                                   "completion_rate_high", "completion_rate_se",
                                   "completion_rate_clusters", "mean_points", "mean_points_low",
                                   "mean_points_high", "mean_round"), on=keys, how="left")
             .join(per_piece.select(*keys, "points_per_piece", "points_per_piece_low",
                                    "points_per_piece_high"), on=keys, how="left"))
    table = table.with_columns(pl.col("taken").fill_null(0), pl.col("offered").fill_null(0),
                               pl.col("card").cast(pl.Int64),
                               pl.col("mean_points_low").clip(lower_bound=0.0))
    return (_share_intervals(table, {"take_rate": "offered", "completion_rate": "taken"})
            .rename({"progress": "pieces"}).sort(keys))


# Rows per chunk of the card and draft descriptives: their list columns explode to about ten
# rows per player-game, so a chunk of 2^18 player-games stays within a few hundred MB.
_DESCRIPTIVE_CHUNK_ROWS = 1 << 18


def _card_units(chunk: pl.DataFrame, cards: CardColumns, progress: str | None
                ) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    """One chunk of whole deals as per-(players, rules, card, deal) integer sums: the takes
    (taken, completed, points, rounds[, progress]), the offers at a take (offered, chosen) and,
    per offer size, the offers of each card (for the rate of a random choice)."""
    chunk = chunk.with_columns(pl.col("players").cast(pl.Int64))
    columns = [cards.cards, cards.rounds, cards.completed, cards.points,
               *([progress] if progress else [])]
    takes = (chunk.select(*PANEL, "deal_id", *columns).explode(columns)
             .drop_nulls(cards.cards)
             .rename({cards.cards: "card", "deal_id": "cluster"}))
    taken = takes.group_by([*PANEL, "card", "cluster"]).agg(
        taken=pl.len().cast(pl.Int64),
        completed=pl.col(cards.completed).cast(pl.Int64).sum(),
        points=pl.col(cards.points).cast(pl.Int64).sum(),
        rounds=pl.col(cards.rounds).cast(pl.Int64).sum(),
        **({"progress": pl.col(progress).cast(pl.Int64).sum()} if progress else {}))
    offers = (chunk.select(*PANEL, "deal_id", pl.col(cards.cards).alias("taken"),
                           pl.col(cards.offers).alias("offer"))
              .explode(["taken", "offer"]).drop_nulls("taken")
              .with_columns(size=pl.col("offer").list.len().cast(pl.Int64))
              .explode("offer")
              .rename({"deal_id": "cluster", "offer": "card"}))
    offered = (offers.group_by([*PANEL, "card", "cluster"])
               .agg(offered=pl.len().cast(pl.Int64),
                    chosen=(pl.col("card") == pl.col("taken")).cast(pl.Int64).sum()))
    random = offers.group_by([*PANEL, "card", "size"]).agg(offers=pl.len().cast(pl.Int64))
    return taken, offered, random


def _random_take_rates(parts: list[pl.DataFrame], offered: pl.DataFrame,
                       keys: list[str]) -> pl.DataFrame:
    """Per card: the take rate of a random choice, the mean over its offers of 1 / the offer's
    size, summed exactly (offers counted per size)."""
    sizes = pl.concat(parts).group_by([*keys, "size"]).agg(pl.col("offers").sum())
    totals: dict[tuple, Fraction] = {}
    for *key, size, count in sizes.iter_rows():
        totals[tuple(key)] = totals.get(tuple(key), Fraction(0)) + Fraction(count, size)
    offers = {tuple(key): count for *key, count in offered.select(*keys, "offered").iter_rows()}
    found = list(totals)
    return pl.DataFrame([list(column) for column in zip(*found, strict=True)] if found else
                        [[] for _ in keys], schema=offered.select(keys).schema,
                        orient="col").with_columns(take_rate_random=pl.Series(
                            [float(totals[key] / offers[key]) for key in found],
                            dtype=pl.Float64))


def _empty_ratio_table(sums: pl.DataFrame, keys: list[str], prefixes: list[str]) -> pl.DataFrame:
    """The columns of a ratio table with no group (``grouped_ratio_table`` of no rows)."""
    return sums.select(keys).clear().with_columns(**{
        name: pl.lit(None, dtype=pl.Float64) for prefix in prefixes
        for name in (prefix, f"{prefix}_se", f"{prefix}_low", f"{prefix}_high")},
        **{f"{prefix}_clusters": pl.lit(None, dtype=pl.Int64) for prefix in prefixes})


# --- randomised estimates: intent to treat, first stage, per card held ---------------------------

def fieller_interval(numerator: float, denominator: float, var_numerator: float,
                     var_denominator: float, covariance: float,
                     critical: float) -> tuple[float, float]:
    """Fieller's interval for numerator / denominator (the Anderson-Rubin set of one
    instrument): the theta with (a - theta b)^2 <= q^2 (v_aa - 2 theta v_ab + theta^2 v_bb).
    Rearranged: A theta^2 - 2 B theta + C <= 0 with A = b^2 - q^2 v_bb, B = a b - q^2 v_ab,
    C = a^2 - q^2 v_aa. A bounded interval (B -+ sqrt(B^2 - A C)) / A when A > 0 (the
    denominator differs from 0 at q); (-inf, inf) otherwise (the set is the whole line or two
    rays: no interval can be given)."""
    q2 = critical * critical
    a_coef = denominator * denominator - q2 * var_denominator
    if not (np.isfinite(a_coef) and a_coef > 0):
        return -np.inf, np.inf
    b_coef = numerator * denominator - q2 * covariance
    c_coef = numerator * numerator - q2 * var_numerator
    # The point estimate satisfies the inequality, so the discriminant is >= 0 up to rounding.
    root = np.sqrt(max(b_coef * b_coef - a_coef * c_coef, 0.0))
    return (b_coef - root) / a_coef, (b_coef + root) / a_coef


@dataclass(frozen=True)
class RandomisedFit:
    """The effects-coded coefficients of K randomised indicators on several outcomes, and the
    per-deal contributions that give their joint cluster-robust covariance."""

    estimates: np.ndarray  # [K, outcomes]: each indicator's coefficient, against the average
    contributions: np.ndarray  # [deals, K, outcomes]: per-deal score contributions
    factor: float  # CR1: G / (G - 1) (N - 1) / (N - p)
    clusters: int

    def covariance(self, left: int, right: int) -> np.ndarray:
        """[K, K] cluster-robust covariance of the coefficients on outcome ``left`` with those on
        outcome ``right``."""
        return self.factor * self.contributions[:, :, left].T @ self.contributions[:, :, right]

    def paired_covariance(self, left: int, rights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each indicator k: cov(its coefficient on ``left``, its coefficient on outcome
        ``rights[k]``) and the variance of the latter."""
        cross = self.contributions[:, np.arange(rights.size), rights]
        own = self.contributions[:, :, left]
        return (self.factor * (own * cross).sum(axis=0),
                self.factor * (cross * cross).sum(axis=0))


def randomised_fit(outcomes: np.ndarray, indicators: np.ndarray, controls: np.ndarray,
                   clusters: np.ndarray, games: np.ndarray | None = None) -> RandomisedFit:
    """OLS of every column of ``outcomes`` [N, m] on the randomised ``indicators`` [N, K]
    (effects coded: column k minus column K, the last indicator's coefficient minus the sum of
    the others), an intercept and ``controls``; with ``games``, game fixed effects by centring
    everything within each game instead of the intercept. Cluster-robust by ``clusters``."""
    rows, cards = indicators.shape
    coded = indicators[:, :-1] - indicators[:, -1:]
    outcomes = np.asarray(outcomes, dtype=float).reshape(rows, -1)
    if games is None:
        design = np.column_stack([coded, np.ones(rows), controls])
    else:
        design = _within_game(np.column_stack([coded, controls]), games)
        outcomes = _within_game(outcomes, games)
    bread = np.linalg.pinv(design.T @ design)
    coefficients = bread @ (design.T @ outcomes)
    residuals = outcomes - design @ coefficients
    expand = np.vstack([np.eye(cards - 1), -np.ones((1, cards - 1))])
    # Row i's weight in each indicator's coefficient: estimates = weights' outcomes.
    weights = design @ bread[:, :cards - 1] @ expand.T
    _, index = np.unique(clusters, return_inverse=True)
    groups = int(index.max()) + 1
    summing = sparse.csr_matrix((np.ones(rows), (index, np.arange(rows))), shape=(groups, rows))
    contributions = np.stack([summing @ (weights * residuals[:, [j]])
                              for j in range(outcomes.shape[1])], axis=2)
    rank = int(np.linalg.matrix_rank(design.T @ design))
    factor = (groups / (groups - 1) * (rows - 1) / max(rows - rank, 1)) if groups > 1 \
        else np.nan
    return RandomisedFit(expand @ coefficients[:cards - 1], contributions, float(factor),
                         groups)


def _within_game(values: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``values`` (rows x columns) minus their mean over the rows of the same game."""
    _, index, sizes = np.unique(games, return_inverse=True, return_counts=True)
    values = np.asarray(values, dtype=float).reshape(len(games), -1)
    sums = np.zeros((sizes.size, values.shape[1]))
    np.add.at(sums, index, values)
    return values - (sums / sizes[:, None])[index]


def _membership(lists: pl.Series, ids: np.ndarray) -> np.ndarray:
    """[rows, len(ids)]: 1 where row i's list holds ids[k]."""
    exploded = (pl.DataFrame({"ids": lists}).with_row_index("_row").explode("ids")
                .drop_nulls("ids"))
    rows = exploded["_row"].to_numpy().astype(np.int64)
    values = exploded["ids"].to_numpy().astype(np.int64)
    position = np.searchsorted(ids, values)
    known = (position < ids.size) & (ids[np.minimum(position, ids.size - 1)] == values)
    matrix = np.zeros((len(lists), ids.size))
    matrix[rows[known], position[known]] = 1.0
    return matrix


def _fit_records(fit, ids: np.ndarray, shown: np.ndarray, chosen: np.ndarray,
                 shown_deals: np.ndarray, clusters: int, outcomes: tuple[str, ...],
                 confidence: float) -> list[dict]:
    """The per-card records of a randomised fit (a ``RandomisedFit`` or ``_SummedFit``):
    ``shown`` and ``chosen`` count the rows of each card, ``shown_deals`` its deals."""
    reported = np.flatnonzero(shown_deals >= MIN_SHOWN_DEALS)
    pointwise = t_critical(clusters, confidence)
    first_stage = fit.estimates[np.arange(ids.size), len(outcomes) + np.arange(ids.size)]
    chosen_columns = len(outcomes) + np.arange(ids.size)
    records = [{"card": int(ids[k]), "shown": int(shown[k]), "chosen": int(chosen[k]),
                "clusters": clusters}
               for k in reported]
    for position, name in enumerate(outcomes):
        covariance = fit.covariance(position, position)[np.ix_(reported, reported)]
        se = np.sqrt(np.maximum(np.diag(covariance), 0.0))
        critical = covariance_critical(covariance, clusters, confidence)
        cross, var_chosen = fit.paired_covariance(position, chosen_columns)
        for record, k, error in zip(records, reported, se, strict=True):
            itt = float(fit.estimates[k, position])
            low, high = fieller_interval(itt, float(first_stage[k]), float(error) ** 2,
                                         float(var_chosen[k]), float(cross[k]), critical)
            record.update({
                f"{name}_effect": itt, f"{name}_effect_se": float(error),
                f"{name}_effect_low": itt - pointwise * float(error),
                f"{name}_effect_high": itt + pointwise * float(error),
                f"{name}_per_card": (itt / float(first_stage[k]) if first_stage[k] != 0
                                     else np.nan),
                f"{name}_per_card_low": float(low), f"{name}_per_card_high": float(high),
                f"{name}_critical": float(critical)})
    _, var_chosen = fit.paired_covariance(0, chosen_columns)
    for record, k in zip(records, reported, strict=True):
        estimate, error = float(first_stage[k]), float(np.sqrt(max(var_chosen[k], 0.0)))
        record.update({
            "first_stage": estimate, "first_stage_se": error,
            "first_stage_low": estimate - pointwise * error,
            "first_stage_high": estimate + pointwise * error,
            "first_stage_f": (estimate / error) ** 2 if error > 0 else np.nan})
    return records


def _verdict(record: dict, margin: float, cause: str) -> tuple[str | None, str | None]:
    """The verdict of a pooled per-card estimate and, when there is none or no interval, why
    (``cause``: the weak first stage in words, e.g. "the deal barely changes who keeps it")."""
    if record["clusters"] < MIN_VERDICT_CLUSTERS:
        return None, (f"{record['clusters']} deals: below {MIN_VERDICT_CLUSTERS} no verdict is "
                      f"given")
    low, high = record["score_per_card_low"], record["score_per_card_high"]
    if not (np.isfinite(low) and np.isfinite(high)):
        return "undecided", (f"no interval: {cause} "
                             f"(first-stage F = {record['first_stage_f']:.1f})")
    return margin_verdict(low, high, margin), None


def _effect_schema(extra: dict) -> dict:
    names = {"players": pl.Int64, "rules": pl.String, "strategy": pl.String, "seat": pl.Int64,
             "card": pl.Int64, "shown": pl.Int64, "chosen": pl.Int64}
    for name in OUTCOMES:
        for suffix in ("_effect", "_effect_se", "_effect_low", "_effect_high", "_per_card",
                       "_per_card_low", "_per_card_high", "_critical"):
            names[f"{name}{suffix}"] = pl.Float64
    for suffix in ("", "_se", "_low", "_high", "_f"):
        names[f"first_stage{suffix}"] = pl.Float64
    return {**names, **extra, "verdict": pl.String, "verdict_reason": pl.String,
            "margin": pl.Float64, "clusters": pl.Int64, "method": pl.String}


def _subsets(panel: pl.DataFrame, seat_one: bool, split: bool = True):
    """(strategy, seat, rows, fixed effects) of the estimates of a panel: pooled over strategies
    (seat and strategy fixed) and, with ``split``, seat 1 alone (when ``seat_one``) and each
    strategy alone."""
    yield None, None, panel, ["seat", "strategy"]
    if not split:
        return
    if seat_one:
        yield None, 1, panel.filter(pl.col("seat") == 0), ["strategy"]
    strategies = sorted(set(panel["strategy"].to_list()))
    if len(strategies) > 1:
        for name in strategies:
            yield name, None, panel.filter(pl.col("strategy") == name), ["seat"]


CARD_SCHEMA = _effect_schema({
    "holders": pl.Int64,
    **{f"holder_{name}{suffix}": pl.Float64 for name in OUTCOMES
       for suffix in ("", "_se", "_low", "_high")},
    "round_slope": pl.Float64})
_ORDER = ["players", "rules", "strategy", "seat", "card"]


def card_effects(frame: pl.DataFrame | pl.LazyFrame, cards: CardColumns,
                 margin: float = CARD_MARGIN, confidence: float = 0.95,
                 outcomes: tuple[str, ...] = OUTCOMES, subsets: bool = True) -> pl.DataFrame:
    """Per (players, rules, card), pooled over strategies (``strategy`` and ``seat`` null): the
    opening-row effect (ITT) on score and win share, the first stage, the effect per card held
    (Fieller interval) and the verdict against ``margin`` points, beside the holder association
    (``holder_*``, a description). Rows with ``seat`` 1: seat 1's estimates alone; rows with a
    ``strategy``: that strategy's (no verdict). See the module docstring for the models.
    ``outcomes`` may leave out ``win`` (its columns are then null); ``subsets`` False leaves
    out seat 1's and the strategies' rows.

    ``frame`` may be a lazy scan of a batch: it is read three times in chunks of whole deals
    (the levels and counts; the sums of products of the design; the per-deal score
    contributions), so memory does not grow with the number of games."""
    rows = frame.lazy()
    names = rows.collect_schema().names()
    columns = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "win",
               cards.cards, cards.rounds]
    opening = cards.opening if cards.opening and cards.opening in names else ""
    if opening:
        columns.append(opening)
    return _streamed_effects(rows.select(columns), columns, _card_chunk_panels,
                             lambda: _PanelCardSums(cards, opening, subsets), CARD_SCHEMA,
                             margin, confidence, outcomes)


def _streamed_effects(rows: pl.LazyFrame, columns: list[str], chunk_panels_of, new_sums,
                      schema: dict, margin: float, confidence: float,
                      outcomes: tuple[str, ...]) -> pl.DataFrame:
    """The effects table of ``card_effects`` or ``draft_effects``: ``rows`` read three times in
    chunks of whole deals, each pass (``count``, ``gram``, ``meat``) feeding every
    ((players, rules), panel) that ``chunk_panels_of`` cuts from a chunk into that key's sums
    (made by ``new_sums``), which then ``solve`` what the pass allows; the panels' ``records``
    in (players, rules) order."""
    panels: dict[tuple[int, str], _PanelCardSums | _PanelDraftSums] = {}
    for step in ("count", "gram", "meat"):
        # Each chunk is reduced into the panels' sums as it streams: nothing of it is kept.
        def summarise(chunk: pl.DataFrame, step=step) -> None:
            for key, panel in chunk_panels_of(chunk):
                sums = panels.get(key)
                if sums is None:
                    sums = panels[key] = new_sums()
                getattr(sums, step)(panel)
        summarise_whole_deals(rows, columns, summarise, _CARD_CHUNK_ROWS)
        for sums in panels.values():
            sums.solve(step, outcomes)
    results = []
    for (players, rules), panel in sorted(panels.items()):
        for row in panel.records(margin, confidence, outcomes):
            results.append({"players": players, "rules": rules, **row})
    return pl.DataFrame(results, schema=schema).sort(_ORDER, nulls_last=False)


# Rows per chunk of the card effects. Every sum of products of one chunk (at most WIN_SCALE^2
# per row) must stay below 2^53, where float64 sums of integers are exact (2^18 rows would);
# the chunk's dense design matrices set the peak memory (about 0.5 GB over the rest at 2^16
# rows of the shipped card game, 1.4 GB at 2^18).
_CARD_CHUNK_ROWS = 1 << 16


def _card_chunk_panels(chunk: pl.DataFrame):
    """((players, rules), rows) of a chunk of whole deals, typed and in (game, seat) order."""
    chunk = chunk.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                               pl.col("strategy").cast(pl.String))
    for players, rules, panel in chunk_panels(chunk):
        yield (players, rules), panel.sort("game_id", "seat")


def _exact_gram(matrix: np.ndarray) -> np.ndarray:
    """matrix' matrix of an integer-valued float matrix as int64: exact while every sum stays
    below 2^53 (``_CARD_CHUNK_ROWS`` sees to it)."""
    return np.rint(matrix.T @ matrix).astype(np.int64)


def _rational_floats(integers: np.ndarray, divisor: int) -> np.ndarray:
    """The float nearest each exact integer of ``integers`` (an object array) over
    ``divisor``, rounded once."""
    return np.array([[float(Fraction(int(value), divisor)) for value in row]
                     for row in integers], dtype=float).reshape(integers.shape)


def _summing(keys: np.ndarray):
    """A sparse [distinct keys, rows] matrix adding the rows of each key (in sorted key
    order): ``_summing(deals) @ values`` are the per-deal sums."""
    _, index = np.unique(keys, return_inverse=True)
    return sparse.csr_matrix((np.ones(index.size), (index, np.arange(index.size))),
                             shape=(int(index.max()) + 1 if index.size else 0, index.size))


def _randomised_maps(totals: np.ndarray, cards: int, seats: int, strategies: int,
                     controls: list[str], intercept: bool, outcomes: tuple[str, ...]):
    """(present card positions, design map [raw, p], outcome map [raw, m]) of a randomised
    fit on the raw columns [shown K, 1, seat S, strategy T, score, win, chosen K], ``totals``
    their sums over the fit's rows: the shown cards present, effects coded against the last;
    the intercept (left out under game fixed effects); the ``controls``' levels present but the
    first; the outcomes, then each present card's chosen column."""
    size = totals.size
    present = np.flatnonzero(totals[:cards] > 0)
    seat_start = cards + 1
    strategy_start = seat_start + seats
    score_column = strategy_start + strategies
    chosen_start = score_column + 2
    columns = []
    last = present[-1] if present.size else 0
    for k in present[:-1]:
        column = np.zeros(size)
        column[k], column[last] = 1.0, -1.0
        columns.append(column)
    if intercept:
        column = np.zeros(size)
        column[cards] = 1.0
        columns.append(column)
    for name, start, count in (("seat", seat_start, seats),
                               ("strategy", strategy_start, strategies)):
        if name not in controls:
            continue
        levels = [start + j for j in range(count) if totals[start + j] > 0]
        for position in levels[1:]:
            column = np.zeros(size)
            column[position] = 1.0
            columns.append(column)
    outcome_columns = []
    for name in outcomes:
        column = np.zeros(size)
        column[score_column + (0 if name == "score" else 1)] = 1.0
        outcome_columns.append(column)
    for k in present:
        column = np.zeros(size)
        column[chosen_start + k] = 1.0
        outcome_columns.append(column)
    design = np.column_stack(columns) if columns else np.zeros((size, 0))
    return present, design, np.column_stack(outcome_columns)


def _one_hot(values: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """[N, len(levels)]: 1 where values[i] == levels[k]."""
    return (values[:, None] == levels[None, :]).astype(float)


def _expansion(cards: int) -> np.ndarray:
    """[cards, cards - 1]: the effects-coded coefficients (each card against the last) to every
    card's effect against the average card (the last one's is minus the sum of the others)."""
    return np.vstack([np.eye(cards - 1), -np.ones((1, cards - 1))])


def _subset_solutions(subsets: list[_Subset], maps, outcomes: tuple[str, ...],
                      divisor=lambda subset: 1) -> list:
    """Per subset, its solved randomised fit (``_PanelCardSums._solve``, with ``maps(subset,
    outcomes)`` its design and outcome maps and ``divisor(subset)`` the factor its sums carry),
    None where none can be made: fewer than 3 deals, or fewer than 2 cards present."""
    solutions = []
    for subset in subsets:
        if subset.gram is None or subset.clusters < 3:
            solutions.append(None)
            continue
        present, design, outcome_map = maps(subset, outcomes)
        if present.size < 2:
            solutions.append(None)
            continue
        solutions.append(_PanelCardSums._solve(subset.gram, design, outcome_map, outcomes,
                                               present.size - 1, divisor(subset)))
    return solutions


def _add_deal_contributions(subsets: list[_Subset], solutions: list, maps,
                            outcomes: tuple[str, ...], matrix: np.ndarray,
                            panel: pl.DataFrame) -> None:
    """Pass 3 of the randomised fits: for each subset with a solution (``_subset_solutions``),
    the per-deal score contributions (design row times residual, through the bread and the
    effects expansion) of every card's effect on every outcome column, added to the subset's
    sums (``_Subset.add``). ``matrix``: the raw columns of the panel's rows; a subset fitted
    within games (``_Subset.within``) centres its design and outcomes within each game."""
    deals = panel["deal_id"].to_numpy()
    games = panel["game_id"].to_numpy()
    for subset, solution in zip(subsets, solutions, strict=True):
        keep = subset.mask(panel)
        if solution is None or not keep.any():
            continue
        design_map, bread, coefficients, _, _ = solution
        present, _, outcome_map = maps(subset, outcomes)
        values = matrix[keep]
        design, observed = values @ design_map, values @ outcome_map
        if subset.within:
            design = _within_game(design, games[keep])
            observed = _within_game(observed, games[keep])
        cards = present.size
        residuals = observed - design @ coefficients
        weights = design @ bread[:, :cards - 1] @ _expansion(cards).T
        summing = _summing(deals[keep])
        contributions = np.stack([summing @ (weights * residuals[:, [j]])
                                  for j in range(observed.shape[1])], axis=2)
        subset.add(contributions, len(outcomes))


def _summed_fits(subsets: list[_Subset], solutions: list, maps, outcomes: tuple[str, ...]):
    """After pass 3, per subset with a solution and its sums: (subset, present card positions,
    its ``_SummedFit`` with the CR1 cluster-robust factor), ``maps(subset, outcomes)`` giving
    the cards present."""
    for subset, solution in zip(subsets, solutions, strict=True):
        if solution is None or subset.sums is None:
            continue
        present, _, _ = maps(subset, outcomes)
        cards = present.size
        _, _, coefficients, rank, _ = solution
        groups, rows = subset.clusters, subset.rows
        factor = (groups / (groups - 1) * (rows - 1) / max(rows - rank, 1)) if groups > 1 \
            else np.nan
        yield subset, present, _SummedFit(_expansion(cards) @ coefficients[:cards - 1],
                                          *subset.sums, float(factor), groups)


@dataclass
class _SummedFit:
    """A ``RandomisedFit`` whose per-deal contributions were reduced chunk by chunk to the sums
    of products the covariances need (``RandomisedFit.covariance`` of each outcome with itself
    and ``paired_covariance``)."""

    estimates: np.ndarray
    own: list[np.ndarray]  # per outcome: [K, K] sum over deals of c c'
    cross: list[np.ndarray]  # per outcome: [K] sum of c_k(outcome) c_k(chosen k)
    chosen_squares: np.ndarray  # [K] sum of c_k(chosen k)^2
    factor: float
    clusters: int

    def covariance(self, left: int, right: int) -> np.ndarray:
        """[K, K] cluster-robust covariance of the coefficients on outcome ``left`` (only the
        covariance of an outcome with itself is kept: ``right`` must equal ``left``)."""
        if left != right:
            raise ValueError("only an outcome's own covariance is summed")
        return self.factor * self.own[left]

    def paired_covariance(self, left: int, rights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """As ``RandomisedFit.paired_covariance`` for ``rights`` the chosen columns."""
        return self.factor * self.cross[left], self.factor * self.chosen_squares


class _Subset:
    """One set of rows of a panel's randomised estimates (pooled, seat 1 or one strategy):
    which rows, the fixed effects, and the sums gathered over the passes."""

    def __init__(self, strategy: str | None, seat: int | None, controls: list[str]):
        self.strategy, self.seat, self.controls = strategy, seat, controls
        self.rows = 0
        self.clusters = 0
        self.shown_deals: np.ndarray | None = None
        self.gram: np.ndarray | None = None
        self.sums: list | None = None
        # The draft effects' pooled fit centres within games (game fixed effects), and keeps
        # the raw column sums (its gram is of the centred columns) and the keep rates' sums.
        self.within = False
        self.totals: np.ndarray | None = None
        self.keep_sums: np.ndarray | None = None

    def add(self, contributions: np.ndarray, outcomes: int) -> None:
        """Add one chunk's per-deal contributions [deals, K, outcomes + K] to the sums."""
        cards = contributions.shape[1]
        chosen = contributions[:, np.arange(cards), outcomes + np.arange(cards)]
        own = [contributions[:, :, j].T @ contributions[:, :, j] for j in range(outcomes)]
        cross = [(contributions[:, :, j] * chosen).sum(axis=0) for j in range(outcomes)]
        squares = (chosen * chosen).sum(axis=0)
        if self.sums is None:
            self.sums = [own, cross, squares]
        else:
            self.sums = [[a + b for a, b in zip(self.sums[0], own, strict=True)],
                         [a + b for a, b in zip(self.sums[1], cross, strict=True)],
                         self.sums[2] + squares]

    def mask(self, panel: pl.DataFrame) -> np.ndarray:
        """The panel rows that belong to this subset."""
        keep = np.ones(panel.height, dtype=bool)
        if self.seat is not None:
            keep &= panel["seat"].to_numpy() == self.seat - 1
        if self.strategy is not None:
            keep &= panel["strategy"].to_numpy().astype(str) == self.strategy
        return keep


class _PanelCardSums:
    """The sums of one (players, rules) panel that the card effects are computed from."""

    def __init__(self, cards: CardColumns, opening: str, split: bool):
        self.cards, self.opening, self.split = cards, opening, split
        self.ids: set[int] = set()
        self.seats: set[int] = set()
        self.strategies: set[str] = set()
        self.players = 0
        # Holder association: per card taken, its takes, deals and the sum of its rounds.
        self.takes: dict[int, list[int]] = {}
        self.rows = 0
        self.clusters = 0
        self.subsets: list[_Subset] = []
        self.holder_gram: np.ndarray | None = None
        self.holder: dict | None = None

    # --- pass 1: levels and counts ---

    def count(self, panel: pl.DataFrame) -> None:
        """Pass 1: the card ids, seats, strategies, takes of each card and deals."""
        self.players = int(panel["players"][0])
        deals = panel["deal_id"].to_numpy()
        self.rows += panel.height
        self.clusters += int(np.unique(deals).size)
        self.seats.update(int(v) for v in panel["seat"].unique())
        self.strategies.update(str(v) for v in panel["strategy"].unique())
        if self.opening:
            self.ids.update(int(v) for v in panel[self.opening].explode().drop_nulls().unique())
        takes = (panel.select(pl.col("deal_id"), pl.col(self.cards.cards).alias("card"),
                              pl.col(self.cards.rounds).alias("round"))
                 .explode(["card", "round"]).drop_nulls("card")
                 .group_by("card").agg(n=pl.len(), deals=pl.col("deal_id").n_unique(),
                                       rounds=pl.col("round").cast(pl.Int64).sum()))
        for card, n, card_deals, rounds in takes.iter_rows():
            total = self.takes.setdefault(int(card), [0, 0, 0])
            total[0] += int(n)
            total[1] += int(card_deals)
            total[2] += int(rounds)

    # --- the raw integer columns of a chunk ---

    def _raw(self, panel: pl.DataFrame) -> dict[str, np.ndarray]:
        ids = self.id_array
        raw = {"ones": np.ones((panel.height, 1)),
               "seat": _one_hot(panel["seat"].to_numpy(), self.seat_levels),
               "strategy": _one_hot(panel["strategy"].to_numpy().astype(str),
                                    self.strategy_levels),
               "score": panel["score"].to_numpy().astype(float)[:, None],
               "win": (panel.select(win_units())["win"].to_numpy().astype(float)[:, None]),
               "win_share": panel["win"].to_numpy().astype(float)[:, None]}
        if self.opening:
            raw["shown"] = _membership(panel[self.opening], ids)
            raw["held"] = _membership(panel[self.cards.cards], ids)
        taken = self.taken_ids
        if taken.size:
            takes = (panel.with_row_index("_row").select("_row", self.cards.cards,
                                                         self.cards.rounds)
                     .explode([self.cards.cards, self.cards.rounds])
                     .drop_nulls(self.cards.cards))
            row = takes["_row"].to_numpy().astype(np.int64)
            column = np.searchsorted(taken, takes[self.cards.cards].to_numpy().astype(np.int64))
            raw["holds"] = np.zeros((panel.height, taken.size))
            raw["holds"][row, column] = 1.0
            raw["rounds"] = np.zeros((panel.height, taken.size))
            np.add.at(raw["rounds"], (row, column),
                      takes[self.cards.rounds].to_numpy().astype(float))
        return raw

    def _prepare(self) -> None:
        self.id_array = np.array(sorted(self.ids), dtype=np.int64)
        self.seat_levels = np.array(sorted(self.seats), dtype=np.int64)
        self.strategy_levels = np.array(sorted(self.strategies), dtype=str)
        self.taken_ids = np.array(sorted(self.takes), dtype=np.int64)
        if not self.opening or self.id_array.size < 2:
            return
        self.subsets = [_Subset(None, None, ["seat", "strategy"])]
        if self.split:
            if self.players > 1:
                self.subsets.append(_Subset(None, 1, ["strategy"]))
            if self.strategy_levels.size > 1:
                self.subsets += [_Subset(str(name), None, ["seat"])
                                 for name in self.strategy_levels]

    # --- pass 2: sums of products of the raw columns ---

    def gram(self, panel: pl.DataFrame) -> None:
        """Pass 2: the exact integer sums of products of every raw column, per subset, and the
        deals each card was shown in."""
        if not hasattr(self, "id_array"):
            self._prepare()
        raw = self._raw(panel)
        deals = panel["deal_id"].to_numpy()
        if self.subsets:
            matrix = np.column_stack([raw["shown"], raw["ones"], raw["seat"], raw["strategy"],
                                      raw["score"], raw["win"], raw["held"]])
            for subset in self.subsets:
                keep = subset.mask(panel)
                if not keep.any():
                    continue
                gram = _exact_gram(matrix[keep])
                subset.gram = gram if subset.gram is None else subset.gram + gram
                subset.rows += int(keep.sum())
                subset.clusters += int(np.unique(deals[keep]).size)
                shown = raw["shown"][keep]
                found = np.array([np.unique(deals[keep][shown[:, k] > 0]).size
                                  for k in range(shown.shape[1])], dtype=np.int64)
                subset.shown_deals = found if subset.shown_deals is None \
                    else subset.shown_deals + found
        if "holds" in raw:
            matrix = np.column_stack([raw["ones"], raw["holds"], raw["rounds"], raw["seat"],
                                      raw["strategy"], raw["score"], raw["win"]])
            gram = _exact_gram(matrix)
            self.holder_gram = gram if self.holder_gram is None else self.holder_gram + gram

    # --- the designs as linear maps of the raw columns ---

    def _subset_maps(self, subset: _Subset, outcomes: tuple[str, ...]):
        """(present card positions, design map [raw, p], outcome map [raw, m])."""
        return _randomised_maps(np.diag(subset.gram), self.id_array.size, self.seat_levels.size,
                                self.strategy_levels.size, subset.controls, True, outcomes)

    def _holder_maps(self, outcomes: tuple[str, ...]):
        """(modelled card positions, design map, outcome maps) of the holder association."""
        taken, seats = self.taken_ids.size, self.seat_levels.size
        counts = [self.takes[int(card)] for card in self.taken_ids]
        modelled = np.array([k for k, (n, deals, _) in enumerate(counts)
                             if n >= MIN_TAKES and deals >= 2], dtype=np.int64)
        size = self.holder_gram.shape[0]
        diagonal = np.diag(self.holder_gram)
        rounds_start, seat_start = 1 + taken, 1 + 2 * taken
        strategy_start = seat_start + seats
        score_column = strategy_start + self.strategy_levels.size
        takes = sum(counts[k][0] for k in modelled)
        mean_round = sum(counts[k][2] for k in modelled) / takes if takes else 0.0
        columns = [np.eye(size)[0]]
        for k in modelled:
            columns.append(np.eye(size)[1 + k])
        offset = np.zeros(size)
        offset[rounds_start + modelled] = 1.0
        offset[1 + modelled] = -mean_round
        columns.append(offset)
        for start, count in ((seat_start, seats),
                             (strategy_start, self.strategy_levels.size)):
            levels = [start + j for j in range(count) if diagonal[start + j] > 0]
            columns += [np.eye(size)[position] for position in levels[1:]]
        outcome_columns = [np.eye(size)[score_column + (0 if name == "score" else 1)]
                           for name in outcomes]
        return modelled, np.column_stack(columns), np.column_stack(outcome_columns)

    def solve(self, step: str, outcomes: tuple[str, ...]) -> None:
        """After pass 2, the coefficients; after pass 3, nothing left to solve."""
        if step != "gram":
            return
        self._outcomes = outcomes
        self.solutions = _subset_solutions(self.subsets, self._subset_maps, outcomes)
        self.holder_solution = None
        if self.holder_gram is not None:
            modelled, design, outcome_map = self._holder_maps(outcomes)
            if modelled.size >= 2 and self.clusters >= 3:
                self.holder_solution = (modelled, *self._solve(self.holder_gram, design,
                                                               outcome_map, outcomes, None))
                parameters = design.shape[1]
                self.holder_meat = [np.zeros((parameters, parameters)) for _ in outcomes]

    @staticmethod
    def _solve(gram: np.ndarray, design: np.ndarray, outcome_map: np.ndarray,
               outcomes: tuple[str, ...], coded: int | None, divisor: int = 1):
        """(design map, bread, coefficients, rank) from the raw sums of products: design'
        design and design' outcomes are linear maps of them (exact in integers for the
        randomised designs, whose maps are integer; ``divisor`` times the true sums, as the
        draft's centred sums are, is divided out after); the win share's column is in units of
        1 / WIN_SCALE and scaled back here."""
        scale = np.ones(outcome_map.shape[1])
        scale[[j for j, name in enumerate(outcomes) if name == "win"]] = 1.0 / WIN_SCALE
        if coded is not None:
            exact = gram.astype(object)
            xtx = _rational_floats(design.astype(np.int64).T.astype(object) @ exact
                                   @ design.astype(np.int64).astype(object), divisor)
            xty = _rational_floats(design.astype(np.int64).T.astype(object) @ exact
                                   @ outcome_map.astype(np.int64).astype(object),
                                   divisor) * scale
        else:
            as_float = gram.astype(float)
            xtx = design.T @ as_float @ design
            xty = (design.T @ as_float @ outcome_map) * scale
        bread = np.linalg.pinv(xtx)
        coefficients = bread @ xty
        return design, bread, coefficients, int(np.linalg.matrix_rank(xtx)), scale

    # --- pass 3: the per-deal score contributions ---

    def meat(self, panel: pl.DataFrame) -> None:
        """Pass 3: the per-deal contributions of each fit, reduced to their sums of products."""
        raw = self._raw(panel)
        if self.subsets:
            matrix = np.column_stack([raw["shown"], raw["ones"], raw["seat"], raw["strategy"],
                                      raw["score"], raw["win_share"], raw["held"]])
            _add_deal_contributions(self.subsets, self.solutions, self._subset_maps,
                                    self._outcomes, matrix, panel)
        if self.holder_solution is not None:
            modelled, design_map, bread, coefficients, _, scale = self.holder_solution
            matrix = np.column_stack([raw["ones"], raw["holds"], raw["rounds"], raw["seat"],
                                      raw["strategy"], raw["score"], raw["win_share"]])
            _, _, outcome_map = self._holder_maps(self._outcomes)
            design = matrix @ design_map
            residuals = matrix @ outcome_map - design @ coefficients
            summing = _summing(panel["deal_id"].to_numpy())
            for j in range(residuals.shape[1]):
                scores = summing @ (design * residuals[:, [j]])
                self.holder_meat[j] += scores.T @ scores

    # --- the tables ---

    def records(self, margin: float, confidence: float,
                outcomes: tuple[str, ...]) -> list[dict]:
        """The rows of ``card_effects`` for this panel."""
        holders = self._holder_records(confidence, outcomes)
        if not self.opening:
            return [{"card": card, **values, "verdict": None, "verdict_reason": NO_OPENING,
                     "margin": margin, "method": HOLDER_METHOD}
                    for card, values in sorted(holders.items())]
        results = []
        for subset, present, fit in _summed_fits(self.subsets, self.solutions,
                                                 self._subset_maps, outcomes):
            cards, groups = present.size, subset.clusters
            diagonal = np.diag(subset.gram)
            held_start = self.id_array.size + 1 + self.seat_levels.size \
                + self.strategy_levels.size + 2
            found = _fit_records(fit, self.id_array[present], diagonal[present],
                                 diagonal[held_start + present], subset.shown_deals[present],
                                 groups, outcomes, confidence)
            method = EFFECT_METHOD.format(cards=int(cards))
            for record in found:
                record.update({"strategy": subset.strategy, "seat": subset.seat,
                               "margin": margin, "method": method})
                if subset.strategy is None and subset.seat is None:
                    record.update(holders.get(record["card"], {}))
                    record["verdict"], record["verdict_reason"] = _verdict(
                        record, margin, "the opening row barely changes who holds it")
            results += found
        return results

    def _holder_records(self, confidence: float, outcomes: tuple[str, ...]) -> dict[int, dict]:
        """Per modelled card: the holder association (``_panel_holder_association`` of the
        module before it read in chunks; statsmodels' CR1 cluster covariance)."""
        if self.holder_solution is None:
            return {}
        modelled, design, bread, coefficients, _, _ = self.holder_solution
        parameters = design.shape[1]
        groups, rows = self.clusters, self.rows
        factor = groups / (groups - 1.0) * ((rows - 1.0) / float(rows - parameters))
        critical = t_critical(groups, confidence)
        size = modelled.size
        diagonal = np.diag(self.holder_gram)
        result = {int(self.taken_ids[k]): {"holders": int(diagonal[1 + k]), "clusters": groups}
                  for k in modelled}
        for j, name in enumerate(outcomes):
            covariance = factor * bread @ self.holder_meat[j] @ bread
            se = np.sqrt(np.maximum(np.diag(covariance)[1:1 + size], 0.0))
            for position, k in enumerate(modelled):
                card = int(self.taken_ids[k])
                beta = float(coefficients[1 + position, j])
                result[card].update({
                    f"holder_{name}": beta, f"holder_{name}_se": float(se[position]),
                    f"holder_{name}_low": beta - critical * float(se[position]),
                    f"holder_{name}_high": beta + critical * float(se[position])})
                if name == "score":
                    result[card]["round_slope"] = float(coefficients[1 + size, j])
        return result


def pooled(effects: pl.DataFrame) -> pl.DataFrame:
    """The rows of a card or draft effects table pooled over strategies and seats (the verdict
    rows)."""
    if effects.is_empty() or "strategy" not in effects.columns:
        return effects
    return effects.filter(pl.col("strategy").is_null() & pl.col("seat").is_null())


# --- cards dealt and kept ------------------------------------------------------------------------

def draft_descriptives(frame: pl.DataFrame | pl.LazyFrame, draft: DraftColumns,
                       confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, card): times dealt and kept, keep rate, mean bonus, the keepers'
    mean score and win rate and those of the others at their tables, and the gaps; ratio means
    with cluster-robust intervals over deals.

    ``frame`` may be a lazy scan of a batch: it is read once in chunks of whole deals, each
    reduced to exact integer sums per card (``cluster_gram``), so memory does not grow with the
    number of games."""
    keys = [*PANEL, "card"]
    columns = ["game_id", "deal_id", *PANEL, "score", "win", draft.dealt, draft.kept, draft.bonus]
    parts: dict[str, list[pl.DataFrame]] = {"dealt": [], "means": [], "gaps": []}
    scales: dict[tuple[int, str], int] = {}

    def summarise(chunk: pl.DataFrame) -> None:
        dealt, units = _draft_units(chunk, draft, scales)
        parts["dealt"].append(cluster_gram(dealt, keys, ["dealt", "kept"]))
        parts["means"].append(cluster_gram(units, keys, ["keeps", "bonus", "score", "wins"]))
        parts["gaps"].append(cluster_gram(units.filter(pl.col("others") > 0), keys,
                                          ["others", "score", "wins", "others_score",
                                           "others_win"]))

    summarise_whole_deals(frame.lazy(), columns, summarise, _DESCRIPTIVE_CHUNK_ROWS)
    dealt = add_cluster_grams(parts["dealt"], keys)
    if dealt.is_empty():
        return pl.DataFrame()
    keep_rate = gram_ratio_table(dealt, keys, {"dealt": 1}, {"keep_rate": {"kept": 1}},
                                 confidence)
    means_sums = add_cluster_grams(parts["means"], keys)
    win = {"wins": Fraction(1, WIN_SCALE)}
    means = gram_ratio_table(means_sums, keys, {"keeps": 1},
                             {"mean_bonus": {"bonus": 1}, "keeper_score": {"score": 1},
                              "keeper_win_rate": win}, confidence)
    gap_sums = add_cluster_grams(parts["gaps"], keys)
    gaps = pl.DataFrame()
    if not gap_sums.is_empty():
        # The others' means were summed in units of 1 / (scale) points and 1 / (scale WIN_SCALE)
        # wins, the scale a multiple of every table's number of others in the panel.
        sums = []
        for (players, rules), group in gap_sums.group_by(PANEL, maintain_order=True):
            scale = scales[(int(players), rules)]
            others_score = {"others_score": Fraction(1, scale)}
            others_win = {"others_win": Fraction(1, scale * WIN_SCALE)}
            sums.append(gram_ratio_table(group, keys, {"others": 1}, {
                "others_score": others_score, "others_win_rate": others_win,
                "score_gap": {"score": 1, "others_score": -Fraction(1, scale)},
                "win_gap": {**win, "others_win": -Fraction(1, scale * WIN_SCALE)}}, confidence))
        gaps = pl.concat(sums).sort(keys)
    counts = dealt.select(*keys, "dealt", "kept")

    def interval(name: str) -> list[str]:
        return [name, f"{name}_low", f"{name}_high"]

    def helpers(name: str) -> list[str]:
        return [f"{name}_se", f"{name}_clusters"]

    keeps = means_sums.select(*keys, "keeps")
    table = (counts.join(keep_rate.select(*keys, *interval("keep_rate"), *helpers("keep_rate")),
                         on=keys, how="left")
             .join(means.select(*keys, *interval("mean_bonus"), *interval("keeper_score"),
                                *interval("keeper_win_rate"), *helpers("keeper_win_rate")),
                   on=keys, how="left")
             .join(keeps, on=keys, how="left"))
    if not gaps.is_empty():
        table = table.join(gaps.select(*keys, "others_score", "others_win_rate",
                                       *interval("score_gap"), *interval("win_gap")),
                           on=keys, how="left")
    table = _share_intervals(table, {"keep_rate": "dealt", "keeper_win_rate": "keeps"})
    return table.drop("keeps").with_columns(
        pl.col("mean_bonus_low").clip(lower_bound=0.0)).sort(keys)


def _draft_units(chunk: pl.DataFrame, draft: DraftColumns,
                 scales: dict[tuple[int, str], int]) -> tuple[pl.DataFrame, pl.DataFrame]:
    """One chunk of whole deals as per-(players, rules, card, deal) integer sums: the cards
    dealt to a player who kept one (dealt, kept) and the keepers (keeps, bonus, score, win
    units, and the others at their tables: ``others`` keepers with any, the sums of the others'
    mean score and win units times the panel's scale in ``scales``, a multiple of every number
    of others, so that they are integers)."""
    chunk = chunk.with_columns(pl.col("players").cast(pl.Int64))
    keys = [*PANEL, "card"]
    dealt = (chunk.filter(pl.col(draft.kept) > 0)
             .select(*PANEL, pl.col("deal_id").alias("cluster"), draft.kept,
                     _as_list(chunk, draft.dealt).alias("card"))
             .explode("card").filter(pl.col("card") > 0)
             .group_by([*keys, "cluster"])
             .agg(dealt=pl.len().cast(pl.Int64),
                  kept=(pl.col("card") == pl.col(draft.kept)).cast(pl.Int64).sum())
             .with_columns(pl.col("card").cast(pl.Int64)))
    others = pl.len().over("game_id") - 1
    keepers = (chunk.with_columns(win_units=win_units(), others=others.cast(pl.Int64))
               .with_columns(table_score=pl.col("score").cast(pl.Int64).sum().over("game_id"),
                             table_win=pl.col("win_units").sum().over("game_id"))
               .filter(pl.col(draft.kept) > 0))
    for (players, rules), group in keepers.group_by(PANEL):
        sizes = [int(size) for size in group["others"].unique() if size > 0]
        scale = scales.setdefault((int(players), rules), math.lcm(*range(1, int(players))))
        if any(scale % size for size in sizes):  # tables larger than the player count
            raise ValueError(f"tables of {max(sizes) + 1} seats in a {players}-player panel")
    panel_scales = pl.DataFrame([[players for players, _ in scales],
                                 [rules for _, rules in scales], list(scales.values())],
                                schema={"players": pl.Int64, "rules": pl.String,
                                        "scale": pl.Int64}, orient="col")
    multiplier = pl.when(pl.col("others") > 0).then(pl.col("scale") // pl.col("others"))
    units = (keepers.join(panel_scales, on=PANEL, how="left", nulls_equal=True)
             .with_columns(multiplier=multiplier.otherwise(0))
             .group_by([*PANEL, pl.col(draft.kept).cast(pl.Int64).alias("card"),
                        pl.col("deal_id").alias("cluster")])
             .agg(keeps=pl.len().cast(pl.Int64),
                  bonus=pl.col(draft.bonus).cast(pl.Int64).sum(),
                  score=pl.col("score").cast(pl.Int64).sum(),
                  wins=pl.col("win_units").sum(),
                  others_score=((pl.col("table_score") - pl.col("score").cast(pl.Int64))
                                * pl.col("multiplier")).sum(),
                  others_win=((pl.col("table_win") - pl.col("win_units"))
                              * pl.col("multiplier")).sum(),
                  others=(pl.col("others") > 0).cast(pl.Int64).sum()))
    return dealt, units


DRAFT_SCHEMA = _effect_schema({"keep_rate": pl.Float64, "keep_rate_low": pl.Float64,
                               "keep_rate_high": pl.Float64, "keep_rate_random": pl.Float64})


def draft_effects(frame: pl.DataFrame | pl.LazyFrame, draft: DraftColumns,
                  margin: float = CARD_MARGIN,
                  confidence: float = 0.95, outcomes: tuple[str, ...] = OUTCOMES,
                  subsets: bool = True) -> pl.DataFrame:
    """Per (players, rules, card), pooled over strategies (``strategy`` null): the effect of
    being dealt the card (ITT, game fixed effects) on the player's score and win share, the first
    stage (dealt -> kept), the effect per card kept through it (Fieller interval), the verdict
    against ``margin`` points, the keep rate when dealt beside a random choice between the cards
    dealt. Rows with a ``strategy``: that strategy alone (no game fixed effects: a strategy may
    sit once per game; no verdict). ``outcomes`` may leave out ``win``; ``subsets`` False
    leaves out the strategies' rows. Only whole tables of player-games that kept a card count.

    ``frame`` may be a lazy scan of a batch: it is read three times in chunks of whole deals
    (the levels and counts; the exact sums of products of the design, within each game for the
    game fixed effects; the per-deal score contributions), so memory does not grow with the
    number of games."""
    rows = frame.lazy()
    columns = ["game_id", "deal_id", *PANEL, "strategy", "seat", "score", "win", draft.dealt,
               draft.kept]
    return _streamed_effects(rows, columns, lambda chunk: _draft_chunk_panels(chunk, draft),
                             lambda: _PanelDraftSums(draft, subsets), DRAFT_SCHEMA, margin,
                             confidence, outcomes)


def _draft_chunk_panels(chunk: pl.DataFrame, draft: DraftColumns):
    """((players, rules), rows) of a chunk of whole deals: the player-games that kept a card, of
    tables where every seat did (the within-game comparison needs every seat of a game), typed,
    with the cards dealt as ``_dealt`` (a list), in (game, seat) order."""
    chunk = (chunk.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                                pl.col("strategy").cast(pl.String))
             .filter(pl.col(draft.kept) > 0)
             .filter(pl.len().over("game_id") == pl.col("players")))
    chunk = chunk.with_columns(_as_list(chunk, draft.dealt).list.eval(
        pl.element().filter(pl.element() > 0)).alias("_dealt"))
    for players, rules, panel in chunk_panels(chunk):
        yield (players, rules), panel.sort("game_id", "seat")


def _median_of_counts(counts: dict[int, int]) -> float:
    """``np.median`` of the values that ``counts`` counts (value -> how many), without them."""
    values = sorted(counts)
    total = sum(counts.values())
    ends = np.cumsum([counts[value] for value in values])

    def at(position: int) -> int:  # the value at a 0-based position of the sorted values
        return values[int(np.searchsorted(ends, position, side="right"))]

    middle = total // 2
    return float(at(middle)) if total % 2 else (at(middle - 1) + at(middle)) / 2.0


class _PanelDraftSums:
    """The sums of one (players, rules) panel that the draft effects are computed from. The
    raw columns of a player-game are [dealt K, 1, seat S, strategy T, score, win units, kept K]
    (the card effects' layout); the pooled fit's game fixed effects centre them within each
    game, which stays in integers as P X'X - s s' summed over games (P seats, s a game's column
    sums): P times the centred sums of products."""

    def __init__(self, draft: DraftColumns, split: bool):
        self.draft, self.split = draft, split
        self.players = 0
        self.ids: set[int] = set()
        self.seats: set[int] = set()
        self.strategies: set[str] = set()
        self.dealt_counts: dict[int, int] = {}  # cards dealt to a player-game -> player-games
        self.subsets: list[_Subset] = []
        self.solutions: list = []

    # --- pass 1: levels and counts ---

    def count(self, panel: pl.DataFrame) -> None:
        """Pass 1: the cards dealt, seats, strategies and how many cards each row was dealt."""
        self.players = int(panel["players"][0])
        self.ids.update(int(v) for v in panel["_dealt"].explode().drop_nulls().unique())
        self.seats.update(int(v) for v in panel["seat"].unique())
        self.strategies.update(str(v) for v in panel["strategy"].unique())
        for size, rows in panel["_dealt"].list.n_unique().value_counts().iter_rows():
            self.dealt_counts[int(size)] = self.dealt_counts.get(int(size), 0) + int(rows)

    def _prepare(self) -> None:
        self.id_array = np.array(sorted(self.ids), dtype=np.int64)
        self.seat_levels = np.array(sorted(self.seats), dtype=np.int64)
        self.strategy_levels = np.array(sorted(self.strategies), dtype=str)
        if self.id_array.size < 2:
            return
        self.subsets = [_Subset(None, None, ["seat", "strategy"])]
        if self.split and self.strategy_levels.size > 1:
            self.subsets += [_Subset(str(name), None, ["seat"]) for name in self.strategy_levels]
        for subset in self.subsets:
            # Game fixed effects for the pooled rows only (a strategy may sit once per game).
            subset.within = subset.strategy is None and self.players > 1

    def _matrix(self, panel: pl.DataFrame, exact_sums: bool) -> np.ndarray:
        """The raw columns of the panel's rows: for the exact sums of products the win in
        units of 1 / WIN_SCALE, otherwise its share (the exact one: a stored share of 1/3 is a
        float32's 0.33333334)."""
        units = panel.select(win_units())["win"].to_numpy().astype(float)
        return np.column_stack([
            _membership(panel["_dealt"], self.id_array), np.ones(panel.height),
            _one_hot(panel["seat"].to_numpy(), self.seat_levels),
            _one_hot(panel["strategy"].to_numpy().astype(str), self.strategy_levels),
            panel["score"].to_numpy().astype(float),
            units if exact_sums else units / WIN_SCALE,
            _one_hot(panel[self.draft.kept].to_numpy().astype(np.int64), self.id_array)])

    # --- pass 2: exact sums of products ---

    def gram(self, panel: pl.DataFrame) -> None:
        """Pass 2: per subset, the exact integer sums of products of the raw columns (centred
        within games, times P, for the game fixed effects), the column sums, the deals each card
        was dealt in and the per-deal keep counts' sums (for the keep rates)."""
        if not hasattr(self, "id_array"):
            self._prepare()
        if not self.subsets:
            return
        matrix = self._matrix(panel, exact_sums=True)
        deals = panel["deal_id"].to_numpy()
        games = panel["game_id"].to_numpy()
        cards = self.id_array.size
        for subset in self.subsets:
            keep = subset.mask(panel)
            if not keep.any():
                continue
            values = matrix[keep]
            gram = _exact_gram(values)
            if subset.within:
                game_sums = _summing(games[keep]) @ values
                gram = self.players * gram - _exact_gram(game_sums)
            totals = np.rint(values.sum(axis=0)).astype(np.int64)
            deal_sums = _summing(deals[keep]) @ values
            dealt_per_deal = np.rint(deal_sums[:, :cards]).astype(np.int64)
            # Keeps counted where the card was dealt (a deal's keep rate is of its deals).
            kept_per_deal = np.rint(_summing(deals[keep]) @ (values[:, :cards]
                                                             * values[:, -cards:])
                                    ).astype(np.int64)
            keep_sums = np.stack([(dealt_per_deal > 0).sum(axis=0), dealt_per_deal.sum(axis=0),
                                  kept_per_deal.sum(axis=0),
                                  (dealt_per_deal * dealt_per_deal).sum(axis=0),
                                  (dealt_per_deal * kept_per_deal).sum(axis=0),
                                  (kept_per_deal * kept_per_deal).sum(axis=0)])
            if subset.gram is None:
                subset.gram, subset.totals, subset.keep_sums = gram, totals, keep_sums
            else:
                subset.gram = subset.gram + gram
                subset.totals = subset.totals + totals
                subset.keep_sums = subset.keep_sums + keep_sums
            subset.rows += int(keep.sum())
            subset.clusters += int(np.unique(deals[keep]).size)

    def _maps(self, subset: _Subset, outcomes: tuple[str, ...]):
        return _randomised_maps(subset.totals, self.id_array.size, self.seat_levels.size,
                                self.strategy_levels.size, subset.controls,
                                not subset.within, outcomes)

    def solve(self, step: str, outcomes: tuple[str, ...]) -> None:
        """After pass 2, the coefficients of each subset's fit (None where none can be made)."""
        if step != "gram":
            return
        self._outcomes = outcomes
        # The within-game sums are P times the centred ones (the class docstring).
        self.solutions = _subset_solutions(
            self.subsets, self._maps, outcomes,
            lambda subset: self.players if subset.within else 1)

    # --- pass 3: the per-deal score contributions ---

    def meat(self, panel: pl.DataFrame) -> None:
        """Pass 3: the per-deal contributions of each fit, reduced to their sums of products."""
        if not any(solution is not None for solution in self.solutions):
            return
        _add_deal_contributions(self.subsets, self.solutions, self._maps, self._outcomes,
                                self._matrix(panel, exact_sums=False), panel)

    # --- the table ---

    def records(self, margin: float, confidence: float,
                outcomes: tuple[str, ...]) -> list[dict]:
        """The rows of ``draft_effects`` for this panel."""
        if not self.dealt_counts:
            return []
        random_rate = 1.0 / _median_of_counts(self.dealt_counts)
        cards = self.id_array.size
        kept_start = cards + 1 + self.seat_levels.size + self.strategy_levels.size + 2
        results = []
        for subset, present, fit in _summed_fits(self.subsets, self.solutions, self._maps,
                                                 outcomes):
            size, groups = present.size, subset.clusters
            found = _fit_records(fit, self.id_array[present], subset.totals[present],
                                 subset.totals[kept_start + present],
                                 subset.keep_sums[0][present], groups, outcomes, confidence)
            method = DRAFT_METHOD.format(cards=int(size))
            if not subset.within:
                method = method.replace("within each game (game fixed effects) ", "")
            rates = self._keep_rates(subset, confidence, len(found))
            for record in found:
                record.update({"strategy": subset.strategy, "seat": None, "margin": margin,
                               "method": method, "keep_rate_random": random_rate,
                               **rates.get(record["card"], {})})
                if subset.strategy is None:
                    record["verdict"], record["verdict_reason"] = _verdict(
                        record, margin, "the deal barely changes who keeps it")
            results += found
        return results

    def _keep_rates(self, subset: _Subset, confidence: float, cards: int) -> dict[int, dict]:
        """Per card dealt in the subset: the share of the times it was dealt that it was kept,
        with a cluster-robust interval over deals, Bonferroni-widened over the ``cards`` cards
        so that a strategy's intervals hold together (for ``keep_choice``)."""
        dealt = np.flatnonzero(subset.keep_sums[1] > 0)
        if not dealt.size:
            return {}
        clusters, count, kept, count_count, count_kept, kept_kept = subset.keep_sums[:, dealt]
        sums = pl.DataFrame({"card": self.id_array[dealt], "clusters": clusters, "dealt": count,
                             "kept": kept, "dealt*dealt": count_count, "dealt*kept": count_kept,
                             "kept*kept": kept_kept})
        family = 1.0 - (1.0 - confidence) / max(cards, 1)
        table = gram_ratio_table(sums, ["card"], {"dealt": 1}, {"keep_rate": {"kept": 1}},
                                 family).join(sums.select("card", "dealt"), on="card")
        # A share: the clustered Wilson interval, inside 0-100% (not a t interval cut there).
        low, high = proportion_interval(table["keep_rate"].to_numpy(),
                                        table["keep_rate_se"].to_numpy(),
                                        table["keep_rate_clusters"].to_numpy(),
                                        table["dealt"].to_numpy(), family)
        return {int(card): {"keep_rate": rate, "keep_rate_low": float(lower),
                            "keep_rate_high": float(upper)}
                for card, rate, lower, upper in zip(table["card"], table["keep_rate"], low,
                                                    high, strict=True)}


def keep_choice(effects: pl.DataFrame, tolerance: float = KEEP_TOLERANCE) -> pl.DataFrame:
    """Per (players, rules, strategy) of a draft effects table: ``random`` when every card's keep
    rate (intervals held together over the cards) lies within ``tolerance`` of the random
    choice, ``chooses`` when some card's interval excludes it, ``undecided`` otherwise; with the
    largest distance of a keep rate from the random one."""
    rows = effects.filter(pl.col("strategy").is_not_null() & pl.col("keep_rate").is_not_null())
    if rows.is_empty():
        return pl.DataFrame(schema={"players": pl.Int64, "rules": pl.String,
                                    "strategy": pl.String, "choice": pl.String,
                                    "largest_gap": pl.Float64, "random": pl.Float64})
    random = pl.col("keep_rate_random")
    return (rows.group_by(["players", "rules", "strategy"])
            .agg(excluded=((pl.col("keep_rate_low") > random)
                           | (pl.col("keep_rate_high") < random)).any(),
                 within=((pl.col("keep_rate_low") >= random - tolerance)
                         & (pl.col("keep_rate_high") <= random + tolerance)).all(),
                 largest_gap=(pl.col("keep_rate") - random).abs().max(),
                 random=random.first())
            .with_columns(choice=pl.when(pl.col("excluded")).then(pl.lit("chooses"))
                          .when(pl.col("within")).then(pl.lit("random"))
                          .otherwise(pl.lit("undecided")))
            .select("players", "rules", "strategy", "choice", "largest_gap", "random")
            .sort(["players", "rules", "strategy"]))


# --- rules settings side by side -----------------------------------------------------------------

def compare_settings(effects: pl.DataFrame, value: str, key: str = "card") -> pl.DataFrame:
    """For a player count played under several rules settings (e.g. board side A and side B):
    each ``key``'s ``value`` under every setting against the first one (sorted), with the
    difference and its 95% interval. The settings' estimates are taken as independent, which
    is conservative when they were played on common deals (a sweep)."""
    effects = pooled(effects)
    if effects.is_empty() or value not in effects.columns:
        return pl.DataFrame()
    effects = effects.filter(pl.col(value).is_not_null())
    results = []
    for players, panel in effects.group_by("players", maintain_order=True):
        settings = sorted(set(panel["rules"].to_list()))
        if len(settings) < 2:
            continue
        reference = panel.filter(pl.col("rules") == settings[0])
        for other in settings[1:]:
            joined = reference.join(panel.filter(pl.col("rules") == other), on=key,
                                    suffix="_other")
            for row in joined.iter_rows(named=True):
                difference = row[f"{value}_other"] - row[value]
                se = float(np.hypot(row[f"{value}_se"], row[f"{value}_se_other"]))
                critical = t_critical(min(row["clusters"], row["clusters_other"]))
                results.append({"players": int(players[0]), "setting": settings[0],
                                "other_setting": other, key: row[key], "value": row[value],
                                "other_value": row[f"{value}_other"], "difference": difference,
                                "difference_low": difference - critical * se,
                                "difference_high": difference + critical * se})
    return pl.DataFrame(results)


def settings_comparison(rows: pl.LazyFrame, cards: CardColumns | None,
                        draft: DraftColumns | None, rules_parameters: tuple[str, ...],
                        margin: float = CARD_MARGIN) -> dict[str, pl.DataFrame]:
    """Card and kept-card effects under every rules setting of a dataset that holds several
    (e.g. every point of a sweep over the board side: ``sim.sweep.sweep_rows``), and each
    setting against the first: ``cards``, ``card_settings``, ``drafts``, ``draft_settings``
    (empty frames where the data have none). Settings are told apart by the rules parameters
    that vary (the ``rules`` label, as in a batch)."""
    from sim.stats.batch import rules_label

    names = rows.collect_schema().names()
    present = [name for name in rules_parameters if name in names]
    counts = rows.select([pl.col(c).n_unique() for c in present]).collect().row(0) \
        if present else ()
    varying = tuple(name for name, n in zip(present, counts, strict=True) if n > 1)
    wanted = ["game_id", "deal_id", "players", "strategy", "seat", "score", "win", *varying]
    if cards is not None and cards.cards in names:
        wanted += [cards.cards, cards.rounds, cards.offers, cards.completed, cards.points]
        if cards.opening and cards.opening in names:
            wanted.append(cards.opening)
    if draft is not None and draft.kept in names:
        wanted += [draft.dealt, draft.kept, draft.bonus]
    frame = (rows.select(wanted).with_columns(rules_label(varying)).collect()
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                           pl.col("strategy").cast(pl.String)))
    # Points of a sweep number their games alike: keep each setting's games apart.
    frame = frame.with_columns(pl.concat_str(["rules", pl.col("game_id").cast(pl.String)],
                                             separator="#").alias("game_id"))
    empty = pl.DataFrame()
    tables = {"cards": empty, "card_settings": empty, "drafts": empty,
              "draft_settings": empty}
    if cards is not None and cards.cards in frame.columns:
        tables["cards"] = card_effects(frame, cards, margin)
        tables["card_settings"] = compare_settings(tables["cards"], "score_effect")
    if draft is not None and draft.kept in frame.columns and (frame[draft.kept] > 0).any():
        tables["drafts"] = draft_effects(frame, draft, margin)
        tables["draft_settings"] = compare_settings(tables["drafts"], "score_effect")
    return tables
