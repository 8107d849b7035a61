"""Every headline of a batch judged across fields of players (issue 38).

A fields run plays every field (a named lineup: ``strong``, ``style``, ``mixed``, ``casual``)
on the SAME deals: deal ``d`` is the same shuffle in every field (common random numbers). The
rows of all fields come as one frame with a ``field`` column; ``judge_findings`` turns the rows
of one table setting (one player count, one set of rules) into the report's headlines, each
judged in every field and between every pair of fields by ``sim.stats.fields``.

Why paired: a deal that favours seat 1, or makes every score high, does so whoever plays it.
Every estimate here is built from per-deal sums (polars ``group_by(field, deal_id)``), and the
deals are the clusters of one joint covariance over all fields, so the deal's luck cancels from
a difference between two fields: its interval is much narrower than two separate intervals
would suggest, and is the one a "does it hold for other players?" question needs.

The findings, each only when its columns are in the rows (``FieldFinding.headline`` in
``HEADLINES`` order; seats counted from 1 in every text):

- **seat gaps**: seat s's win-share gap, the mean of (win - 1/players) over seat s's
  player-games (a shared win counts 1/k). Margin ``FAIR_MARGIN``; inside [-1/n, 1 - 1/n].
- **seat scores**: seat s's score gap, its score minus the mean score of its own game's table.
  Margin ``SCORE_MARGIN``. Both seat families are judged with intervals simultaneous over every
  seat and every field (``judge_family``): the fairness verdict (``fairness_across_fields``)
  reads them all at once, and the largest gap is the one a reader looks at.
- **deal share**: the share of the score variance the deal decides (the intraclass correlation
  of ``sim.stats.variance.deal_variance``, pooled over the seats: scores centred on each
  (strategy, seat) mean, one-way ANOVA over deals), only when some deal is replayed. A level:
  judged between fields only. Its covariance is the delete-one-deal jackknife, the same deal
  left out of every field at once, so the pairing survives; margin ``DEAL_SHARE_MARGIN``.
- **game length**: the mean of ``Game.length_column`` per player-game (the game's length when
  every seat plays as long), a level; margin ``LENGTH_MARGIN`` in the column's unit.
- **game flow**: with the score trace (``trace = true``), the mean number of lead changes per
  game (``sim.stats.unfolding``), a level; margin ``LEAD_CHANGE_MARGIN``.
- **deal-set effects**: per ``Game.deal_covariates()`` column. A mask or a list of ids: per
  item n, the mean score per player in deals with the item minus the other deals. A count: the
  mean score in deals whose count is above the median over the deals minus the other deals.
  Margin ``SCORE_MARGIN``; an item in (or out of) fewer than ``MIN_DEALS_PER_SIDE`` deals is
  left out.
- **held cards**: per card id of ``Game.card_columns()``, the mean score of the player-games
  that took it minus those that did not; the same for the id kept of ``Game.draft_columns()``.
  Margin ``SCORE_MARGIN``; an id held in fewer than ``MIN_HOLDERS`` player-games in some field
  is left out.

Which may be called effects (``FieldFinding.causal``): what the design randomises. The deal is
a seeded shuffle, so the deal share and the deal-set effects are effects of the deal. A seat
gap is an effect of the seat when every field seats its strategies in a balanced way (one
strategy everywhere, or a pool rotating so that each strategy has the same share of every
seat); a field that fixes strategies to seats mixes the seat with who sits there, and then the
seat findings are marked associations. A card taken or a card kept from a deal is a player's choice
(strong players may take the cards that fit boards already doing well): an association, never
"the card adds N points". The field itself is chosen by the design, so a difference between
fields, of any finding, may be called an effect of the field.

Families are judged at once: every item of one deal covariate (every removed tile, say), and
every id of one card column, share one ratio-means model and intervals simultaneous over every
member and field (``judge_family``), as the seat families do. A reader scans the whole list and
the top of the report picks the most striking member, so one-at-a-time intervals would call
about one in twenty of many null items an effect somewhere; the simultaneous ones keep the
chance of any false claim in the family at 5%, at the price of wider intervals.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from sim.errors import InputError
from sim.games.base import COVARIATE_COUNT, COVARIATE_IDS, COVARIATE_MASK, DealCovariate, Game
from sim.games.columns import TRACE_COLUMN
from sim.stats.clustered import MIN_VERDICT_CLUSTERS, WIN_SCALE, RatioMeans, ratio_means
from sim.stats.fields import (
    KIND_EFFECT,
    KIND_LEVEL,
    UNDECIDED,
    FieldJudgement,
    judge_estimates,
    judge_family,
)
from sim.stats.margins import FAIR_MARGIN
from sim.stats.seats import BALANCE_TOLERANCE
from sim.stats.unfolding import lead_changes, panel_arrays

SEAT_GAPS = "seat gaps"
SEAT_SCORES = "seat scores"
DEAL_SHARE = "deal share"
GAME_LENGTH = "game length"
GAME_FLOW = "game flow"
DEAL_SET_EFFECTS = "deal-set effects"
HELD_CARDS = "held cards"
# The report's groups, in the order it shows them.
HEADLINES = (SEAT_GAPS, SEAT_SCORES, DEAL_SHARE, GAME_LENGTH, GAME_FLOW, DEAL_SET_EFFECTS,
             HELD_CARDS)

# One point of score per player is about the smallest difference a designer acts on: scores
# run in the tens to a hundred or so, and a point is the game's own unit.
SCORE_MARGIN = 1.0
# Five percentage points of the score variance: shares are estimated to a few points with a
# few thousand deals, and a smaller change would not alter how a table of players feels.
DEAL_SHARE_MARGIN = 0.05
# Half a turn (or round) per game: shorter than one turn of play for anybody at the table.
LENGTH_MARGIN = 0.5
# A quarter of a lead change per game: one game in four with one more change of leader, about
# the least a table would notice over an evening of games.
LEAD_CHANGE_MARGIN = 0.25
# A card held fewer times in a field gives an estimate too noisy to read.
MIN_HOLDERS = 30
# An item present in (or absent from) fewer deals leaves its side's covariance estimated from a
# handful of deals, too few for a t interval on all the deals' degrees of freedom to hold.
MIN_DEALS_PER_SIDE = MIN_VERDICT_CLUSTERS

REQUIRED_COLUMNS = ("field", "deal_id", "game_id", "seat", "score", "win", "players")

FAIR = "fair"
UNFAIR = "unfair"
FAIR_EVERYWHERE = "fair in every field"
UNFAIR_EVERYWHERE = "unfair in every field"

_SEAT_WIN_KEY = "seat_win_gap"
_SEAT_SCORE_KEY = "seat_score_gap"


@dataclass(frozen=True)
class FieldFinding:
    """One headline finding judged across fields (see the module docstring)."""

    headline: str
    key: str
    noun: str
    unit: str
    scale: float
    digits: int
    kind: str  # "effect" | "level"
    causal: bool
    judgement: FieldJudgement


def unfair_only_verdict(fields: list[str]) -> str:
    """The verdict ``"unfair in casual only"`` / ``"unfair in casual and mixed only"``."""
    return f"unfair in {_join(fields)} only"


@dataclass(frozen=True)
class FieldFairness:
    """The seats' fairness in every field and one verdict across them.

    ``per_field`` (in ``fields`` order): ``"fair"`` when every seat's win-share gap lies
    inside (-margin, +margin), else ``"unfair"`` when some seat's gap excludes 0, else
    ``"undecided"`` (also below ``MIN_VERDICT_CLUSTERS`` deals). A gap the data detect but
    smaller than the margin is fair: the margin says what counts. The intervals are
    simultaneous over every seat and field. ``verdict``: ``"fair in every field"``,
    ``"unfair in every field"``, ``"unfair in X only"`` (every other field fair) or
    ``"undecided"``, with ``reason`` saying why (empty otherwise). No verdict at all when some
    field seats its strategies unevenly (the seat findings are then associations).
    """

    fields: list[str]
    per_field: list[str]
    verdict: str
    reason: str
    margin: float

    def sentence(self) -> str:
        """One plain line, e.g. "The seats are unfair in casual only (strong fair, mixed
        fair; margin ±2.0 percentage points)"."""
        each = ", ".join(f"{name} {verdict}" for name, verdict in
                         zip(self.fields, self.per_field, strict=True))
        band = f"margin ±{100 * self.margin:.1f} percentage points"
        if self.verdict == UNDECIDED:
            return f"Seat fairness is undecided across fields ({self.reason}; {each}; {band})"
        return f"The seats are {self.verdict} ({each}; {band})"


# ------------------------------------------------------------------------------ per-deal sums


@dataclass(frozen=True)
class _DealTable:
    """The per-deal sums every finding is built from, as dense arrays over the common deals
    (D, sorted by deal id), the fields (F, in the order asked) and the seats (S = players)."""

    fields: list[str]
    deal_ids: np.ndarray  # (D,)
    players: int
    # Per (deal, field, seat, strategy of the field): player-games, score sum, sum of squares.
    strata_n: np.ndarray
    strata_score: np.ndarray
    strata_squares: np.ndarray
    win_units: np.ndarray  # (D, F, S): sum of win * WIN_SCALE (exact)
    games: np.ndarray  # (D, F): games played
    length: np.ndarray | None  # (D, F): sum of the length column over player-games
    covariates: dict  # column -> per-deal values (D,) (a list per deal for ids)

    @property
    def n(self) -> np.ndarray:
        """(D, F, S) player-games."""
        return self.strata_n.sum(axis=3)

    @property
    def score(self) -> np.ndarray:
        """(D, F, S) score sums."""
        return self.strata_score.sum(axis=3)


def _deal_table(rows: pl.LazyFrame, fields: list[str], game: Game | None) -> _DealTable:
    """Per-deal sums of ``rows`` (checked: one player count, one rules setting, the same deals
    in every field), from three polars queries run together."""
    fields = list(fields)
    if len(fields) < 2 or len(set(fields)) != len(fields):
        raise InputError(f"fields: findings are judged across at least 2 distinct fields, got "
                         f"{fields}")
    schema = rows.collect_schema()
    missing = [name for name in REQUIRED_COLUMNS if name not in schema]
    if missing:
        raise InputError(f"fields: the rows lack the column{'s' if len(missing) > 1 else ''} "
                         f"{', '.join(missing)} (a rows-store fields run has them)")
    rows = rows.filter(pl.col("field").is_in(fields))
    strategy = pl.col("strategy") if "strategy" in schema else pl.lit("", dtype=pl.String)
    length_column = game.length_column if game is not None else ""
    sums = [pl.len().cast(pl.Int64).alias("n"),
            pl.col("score").cast(pl.Int64).sum().alias("s"),
            (pl.col("score").cast(pl.Int64) ** 2).sum().alias("q"),
            # Win shares in exact integer units (a win shared by k seats is WIN_SCALE / k), so
            # the sums never depend on the order polars adds them in.
            (pl.col("win").cast(pl.Float64) * WIN_SCALE).round().cast(pl.Int64).sum()
            .alias("w")]
    if length_column and length_column in schema:
        dtype = schema[length_column]
        sums.append(pl.col(length_column).cast(pl.Int64 if dtype.is_integer() else pl.Float64)
                    .sum().alias("length"))
    else:
        length_column = ""
    covariates = [c for c in (game.deal_covariates() if game is not None else ())
                  if c.column in schema]
    deal_columns = [c.column for c in covariates] + (
        ["deal_seed"] if "deal_seed" in schema else [])
    rules = [p.name for p in (game.rules_parameters if game is not None else ())
             if p.name in schema]
    cells_query = (rows.with_columns(strategy.alias("_strategy"))
                   .group_by("field", "deal_id", "seat", "_strategy").agg(sums))
    deals_query = rows.group_by("field", "deal_id").agg(
        pl.col("game_id").n_unique().alias("_games"),
        *[pl.col(c).first() for c in deal_columns],
        *[pl.col(c).n_unique().alias(f"_{c}_values") for c in deal_columns])
    setting_query = rows.select(pl.col("players").n_unique().alias("_players_values"),
                                pl.col("players").first().alias("_players"),
                                *[pl.col(r).n_unique().alias(r) for r in rules])
    cells, deals, setting = pl.collect_all([cells_query, deals_query, setting_query])
    if cells.is_empty():
        raise InputError(f"fields: no rows for the fields {_join(fields)}")
    present = set(cells["field"].unique().to_list())
    absent = [name for name in fields if name not in present]
    if absent:
        raise InputError(f"fields: no rows for field {_join(absent)}")
    if setting["_players_values"][0] != 1:
        raise InputError("fields: the rows hold several player counts; judge one table "
                         "setting at a time")
    several = [r for r in rules if setting[r][0] != 1]
    if several:
        raise InputError(f"fields: the rows hold several values of {', '.join(several)}; judge "
                         "one table setting at a time")
    players = int(setting["_players"][0])
    for column in deal_columns:
        if (deals[f"_{column}_values"] > 1).any():
            raise InputError(f"fields: column {column} differs between games of one deal in "
                             "one field; it is not set by the deal alone")
    agreement = deals.group_by("deal_id").agg(pl.col(c).n_unique() for c in deal_columns)
    for column in deal_columns:
        if (agreement[column] > 1).any():
            raise InputError(f"fields: the fields did not play the same deals ({column} "
                             "differs between fields for one deal_id)")

    deal_ids = np.unique(deals["deal_id"].to_numpy())
    field_index = {name: k for k, name in enumerate(fields)}
    strategy_index, strategies = {}, 0
    for name in fields:
        labels = sorted(cells.filter(pl.col("field") == name)["_strategy"].unique().to_list())
        strategy_index.update({(name, label): k for k, label in enumerate(labels)})
        strategies = max(strategies, len(labels))
    seats = cells["seat"].to_numpy().astype(np.int64)
    if seats.min() < 0 or seats.max() >= players:
        raise InputError(f"fields: seats must lie in 0..{players - 1} for {players} players")
    d = np.searchsorted(deal_ids, cells["deal_id"].to_numpy())
    f = np.array([field_index[name] for name in cells["field"].to_list()])
    k = np.array([strategy_index[key] for key in zip(cells["field"].to_list(),
                                                     cells["_strategy"].to_list(), strict=True)])
    shape = (deal_ids.size, len(fields), players, strategies)

    def dense(column: str) -> np.ndarray:
        # Each (deal, field, seat, strategy) is one row of ``cells``: plain assignment.
        out = np.zeros(shape)
        out[d, f, seats, k] = cells[column].to_numpy().astype(float)
        return out

    win_units = dense("w").sum(axis=3)
    length = None
    if length_column:
        length = dense("length").sum(axis=(2, 3))
    dd = np.searchsorted(deal_ids, deals["deal_id"].to_numpy())
    ff = np.array([field_index[name] for name in deals["field"].to_list()])
    games = np.zeros((deal_ids.size, len(fields)))
    games[dd, ff] = deals["_games"].to_numpy()
    # One value per deal (the fields agree, checked above).
    first = deals.sort("deal_id").unique("deal_id", keep="first", maintain_order=True)
    values = {c.column: first[c.column].to_list() if c.kind == COVARIATE_IDS
              else first[c.column].to_numpy() for c in covariates}
    return _DealTable(fields, deal_ids, players, dense("n"), dense("s"), dense("q"), win_units,
                      games, length, values)


# ------------------------------------------------------------------------------ the findings


def judge_findings(rows: pl.LazyFrame, fields: list[str], game: Game) -> list[FieldFinding]:
    """Every headline of one table setting judged across ``fields`` (module docstring).

    ``rows``: the rows store of a fields run (one row per player per game), every field's rows
    with a ``field`` column, one player count and one rules setting (the caller filters),
    columns at least ``REQUIRED_COLUMNS`` plus those the game declares. Findings in
    ``HEADLINES`` order, within one by seat or item number. Raises ``InputError`` when the rows
    cannot be judged (a missing column, fewer than two fields, several table settings, fields
    that did not play the same deals)."""
    table = _deal_table(rows, fields, game)
    return [*_seat_findings(table), *_deal_share_findings(table), *_length_findings(table, game),
            *_flow_findings(rows, table), *_deal_set_findings(table, game),
            *_held_card_findings(rows, table, game)]


def _seat_findings(table: _DealTable) -> list[FieldFinding]:
    """Every seat's win-share gap and score gap, each family simultaneous over seats and
    fields."""
    players = table.players
    if players < 2:
        return []
    n, score = table.n, table.score
    deals, fields_count, seats = n.shape
    counts = n.reshape(deals, fields_count * seats)
    # WIN_SCALE is divisible by every player count up to 12: the expected share is exact.
    win_values = (table.win_units - n * (WIN_SCALE // players)) / WIN_SCALE
    # Each player-game's score minus its table's mean: summed over a deal, the seat's score sum
    # minus 1/players of every seat's score sum (every game seats every player).
    score_values = (players * score - score.sum(axis=2, keepdims=True)) / players
    contrasts = []
    for seat in range(seats):
        matrix = np.zeros((fields_count, fields_count * seats))
        matrix[np.arange(fields_count), np.arange(fields_count) * seats + seat] = 1.0
        contrasts.append(matrix)
    causal = _balanced_seating(table)
    wins = judge_family(ratio_means(win_values.reshape(deals, -1), counts), table.fields,
                        contrasts, FAIR_MARGIN, kind=KIND_EFFECT,
                        value_range=(-1.0 / players, 1.0 - 1.0 / players))
    scores = judge_family(ratio_means(score_values.reshape(deals, -1), counts), table.fields,
                          contrasts, SCORE_MARGIN, kind=KIND_EFFECT)
    findings = [FieldFinding(SEAT_GAPS, f"{_SEAT_WIN_KEY}/{seat + 1}",
                             f"seat {seat + 1}'s win-share gap (win share minus 1/{players})",
                             "percentage points", 100.0, 1, KIND_EFFECT, causal, judgement)
                for seat, judgement in enumerate(wins)]
    findings += [FieldFinding(SEAT_SCORES, f"{_SEAT_SCORE_KEY}/{seat + 1}",
                              f"seat {seat + 1}'s score gap (to its table's mean score)",
                              "points", 1.0, 2, KIND_EFFECT, causal, judgement)
                 for seat, judgement in enumerate(scores)]
    return findings


def _balanced_seating(table: _DealTable) -> bool:
    """True when in every field each strategy has the same share of every seat's player-games
    (within ``BALANCE_TOLERANCE``): the seat is then assigned by the design, not chosen."""
    per_seat = table.strata_n.sum(axis=0)  # (F, S, K)
    with np.errstate(invalid="ignore", divide="ignore"):
        shares = per_seat / per_seat.sum(axis=2, keepdims=True)
    if not np.isfinite(shares).all():
        return False
    return bool((shares.max(axis=1) - shares.min(axis=1) <= BALANCE_TOLERANCE).all())


def deal_share_estimates(rows: pl.LazyFrame, fields: list[str]) -> RatioMeans | None:
    """The deal's share of the score variance in every field (``deal_variance``'s pooled
    intraclass correlation, not truncated at 0) with its delete-one-deal jackknife covariance
    over the common deals, as ``RatioMeans`` (``counts``: player-games per field, ``clusters``:
    deals) for ``sim.stats.fields.judge_estimates``; None when no deal is replayed. ``rows``
    as for ``judge_findings`` (``strategy`` used when present)."""
    return _deal_share_means(_deal_table(rows, fields, None))


def _deal_share_means(table: _DealTable) -> RatioMeans | None:
    """``deal_share_estimates`` from the per-deal sums.

    Scores are first centred on their (field, seat, strategy) mean over every deal (the ICC is
    unchanged by such a shift, and the sums then stay small). Per (field, seat), with n_dk, a_dk
    the player-games and centred score sum of strategy k in deal d, t_d = sum_k a_dk and
    m_k = sum_d a_dk / sum_d n_dk the strategy's mean:

        SS_between = sum_d (t_d - sum_k n_dk m_k)^2 / n_d
                   = A - 2 sum_k m_k B_k + sum_kl m_k m_l C_kl,
        A = sum_d t_d^2 / n_d,  B_k = sum_d t_d n_dk / n_d,  C_kl = sum_d n_dk n_dl / n_d,

    all sums over deals, so leaving deal i out is a subtraction and the D leave-one-out
    estimates cost one pass over the arrays."""
    if table.games.max() < 2:
        return None
    n = table.strata_n
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(n.sum(axis=0) > 0, table.strata_score.sum(axis=0) / n.sum(axis=0), 0.0)
    centred = table.strata_score - n * means[None]
    squares = table.strata_squares - 2.0 * means[None] * table.strata_score + n * means[None] ** 2
    per_deal = _icc_terms(n, centred, squares)
    totals = {name: value.sum(axis=0) for name, value in per_deal.items()}
    full = _pooled_icc(totals)
    cells = full.pop("cells")
    deals = table.deal_ids.size
    left_out = _pooled_icc({name: totals[name][None] - value
                            for name, value in per_deal.items()}, cells)["icc"]
    spread = left_out - left_out.mean(axis=0, keepdims=True)
    covariance = (deals - 1.0) / deals * (spread.T @ spread)
    return RatioMeans(full["icc"], covariance, n.sum(axis=(0, 2, 3)), deals)


def _icc_terms(n: np.ndarray, centred: np.ndarray, squares: np.ndarray) -> dict:
    """Per deal, field and seat (and strategy k, l): the additive terms of the one-way ANOVA
    (``_deal_share_means``)."""
    total_n = n.sum(axis=3)
    total = centred.sum(axis=3)
    with np.errstate(invalid="ignore", divide="ignore"):
        inverse = np.where(total_n > 0, 1.0 / total_n, 0.0)
    return {"A": total ** 2 * inverse, "B": total[..., None] * n * inverse[..., None],
            "C": n[..., :, None] * n[..., None, :] * inverse[..., None, None],
            "Q": squares.sum(axis=3), "N_k": n, "S_k": centred, "G": (total_n > 0) * 1.0,
            "N": total_n, "N2": total_n ** 2}


def _pooled_icc(sums: dict, cells: np.ndarray | None = None) -> dict:
    """ICC(1) pooled over the seats, as ``deal_variance`` pools it, from summed ANOVA terms with
    any leading shape (..., F, S[, K[, K]]); seat cells with no within-deal degrees of freedom
    are left out (``cells``: the full sample's choice, kept for its leave-one-out copies)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        strategy_means = np.where(sums["N_k"] > 0, sums["S_k"] / sums["N_k"], 0.0)
        between = (sums["A"] - 2.0 * (strategy_means * sums["B"]).sum(axis=-1)
                   + np.einsum("...k,...kl,...l->...", strategy_means, sums["C"],
                               strategy_means))
        within = sums["Q"] - (sums["S_k"] * strategy_means).sum(axis=-1) - between
        df_between = sums["G"] - (sums["N_k"] > 0).sum(axis=-1)
        df_within = sums["N"] - sums["G"]
        n0_times_df = sums["N"] - sums["N2"] / sums["N"]
        if cells is None:
            cells = df_within > 0
        keep = np.broadcast_to(cells, between.shape)

        def pooled(values):
            return np.where(keep, values, 0.0).sum(axis=-1)

        ms_between = pooled(between) / pooled(df_between)
        ms_within = pooled(within) / pooled(df_within)
        n0 = pooled(n0_times_df) / pooled(sums["G"] - 1.0)
        icc = (ms_between - ms_within) / (ms_between + (n0 - 1.0) * ms_within)
    return {"icc": icc, "cells": cells}


def _deal_share_findings(table: _DealTable) -> list[FieldFinding]:
    """The deal's share of the score variance, a level (only when some deal is replayed)."""
    means = _deal_share_means(table)
    if means is None:
        return []
    judgement = judge_estimates(means, table.fields, DEAL_SHARE_MARGIN, kind=KIND_LEVEL,
                                value_range=(0.0, 1.0))
    return [FieldFinding(DEAL_SHARE, "deal_share", "the deal's share of the score variance",
                         "percentage points", 100.0, 1, KIND_LEVEL, True, judgement)]


def _length_findings(table: _DealTable, game: Game) -> list[FieldFinding]:
    """The mean game length (``Game.length_column``), a level."""
    if table.length is None:
        return []
    counts = table.n.sum(axis=2)
    judgement = judge_estimates(ratio_means(table.length, counts), table.fields, LENGTH_MARGIN,
                                kind=KIND_LEVEL)
    unit = game.length_column.replace("_", " ")
    return [FieldFinding(GAME_LENGTH, "game_length", f"game length ({unit} per player-game)",
                         unit, 1.0, 2, KIND_LEVEL, True, judgement)]


def _flow_findings(rows: pl.LazyFrame, table: _DealTable) -> list[FieldFinding]:
    """How a game unfolds, from the score trace when the rows keep it (``trace = true``): the
    mean number of lead changes per game (``sim.stats.unfolding.lead_changes``), a level."""
    if TRACE_COLUMN not in rows.collect_schema():
        return []
    frame = (rows.filter(pl.col("field").is_in(table.fields))
             .select("field", "game_id", "deal_id", "players", "seat", "win", "rank",
                     TRACE_COLUMN)
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
             .collect().sort("field", "game_id", "seat"))
    values = np.zeros((table.deal_ids.size, len(table.fields)))
    counts = np.zeros_like(values)
    for index, name in enumerate(table.fields):
        panel = frame.filter(pl.col("field") == name)
        if panel.is_empty():
            continue
        trace, lengths, _, _, deals = panel_arrays(panel)
        where = np.searchsorted(table.deal_ids, deals)
        np.add.at(values[:, index], where, lead_changes(trace, lengths))
        np.add.at(counts[:, index], where, 1.0)
    if (counts.sum(axis=0) == 0).any():
        return []
    judgement = judge_estimates(ratio_means(values, counts), table.fields, LEAD_CHANGE_MARGIN,
                                kind=KIND_LEVEL)
    return [FieldFinding(GAME_FLOW, "lead_changes", "lead changes per game (the sole leader "
                         "changing from one step to the next)", "lead changes", 1.0, 2,
                         KIND_LEVEL, True, judgement)]


def _split_family(fields: list[str], splits: list[tuple[np.ndarray, np.ndarray,
                                                            np.ndarray, np.ndarray]]
                  ) -> list[FieldJudgement]:
    """Every member of a family (the items of one covariate, the ids of one card column) as
    "inside minus outside" per field, judged at once: from per member the (D, F) sums and
    counts of the inside and of the outside. One ratio-means model holds every column, so
    the intervals are simultaneous over every member and field (a reader scans the whole
    list and the top of the report picks from it)."""
    fields_count = len(fields)
    width = 2 * fields_count
    values = np.concatenate([np.concatenate([v_in, v_out], axis=1)
                             for v_in, c_in, v_out, c_out in splits], axis=1)
    counts = np.concatenate([np.concatenate([c_in, c_out], axis=1)
                             for v_in, c_in, v_out, c_out in splits], axis=1)
    contrasts = []
    for member in range(len(splits)):
        contrast = np.zeros((fields_count, width * len(splits)))
        columns = member * width + np.arange(fields_count)
        contrast[np.arange(fields_count), columns] = 1.0
        contrast[np.arange(fields_count), columns + fields_count] = -1.0
        contrasts.append(contrast)
    return judge_family(ratio_means(values, counts), fields, contrasts, SCORE_MARGIN,
                        kind=KIND_EFFECT)


def _deal_set_findings(table: _DealTable, game: Game) -> list[FieldFinding]:
    """Per deal covariate: each item's (or the above-median count's) effect on the score,
    every item of a covariate judged as one family."""
    values, counts = table.score.sum(axis=2), table.n.sum(axis=2)
    findings = []
    for covariate in game.deal_covariates():
        if covariate.column not in table.covariates:
            continue
        members, splits = [], []
        for key, noun, present in _covariate_sides(covariate,
                                                   table.covariates[covariate.column]):
            if min(present.sum(), (~present).sum()) < MIN_DEALS_PER_SIDE:
                continue
            inside = np.repeat(present[:, None], len(table.fields), axis=1)
            members.append((key, noun))
            splits.append((np.where(inside, values, 0.0), np.where(inside, counts, 0.0),
                           np.where(inside, 0.0, values), np.where(inside, 0.0, counts)))
        if not members:
            continue
        for (key, noun), judgement in zip(members, _split_family(table.fields, splits),
                                          strict=True):
            findings.append(FieldFinding(DEAL_SET_EFFECTS, key, noun, "points", 1.0, 1,
                                         KIND_EFFECT, True, judgement))
    return findings


def _covariate_sides(covariate: DealCovariate, per_deal) -> list[tuple[str, str, np.ndarray]]:
    """(key, noun, deals on the "with" side) for each item of a covariate, by item number."""
    column = covariate.column
    if covariate.kind == COVARIATE_COUNT:
        counts = np.asarray(per_deal, dtype=float)
        median = float(np.median(counts))
        return [(f"{column}/above_median",
                 f"the score difference of deals with more than {median:g} {covariate.noun} "
                 f"over the other deals (mean per player)", counts > median)]
    if covariate.kind == COVARIATE_MASK:
        masks = np.asarray(per_deal, dtype=np.int64)
        bits = int(np.bitwise_or.reduce(masks)).bit_length() if masks.size else 0
        items = {bit + 1: ((masks >> bit) & 1).astype(bool) for bit in range(bits)}
    elif covariate.kind == COVARIATE_IDS:
        items = {}
        for deal, ids in enumerate(per_deal):
            for item in ids or ():
                items.setdefault(int(item), np.zeros(len(per_deal), dtype=bool))[deal] = True
    else:
        raise InputError(f"{column}: a deal covariate's kind must be one of mask, ids, count; "
                         f"got {covariate.kind!r}")
    return [(f"{column}/{item}",
             f"the score difference of deals with {covariate.noun.format(n=item)} over the "
             f"other deals (mean per player)", present)
            for item, present in sorted(items.items())]


def _held_card_findings(rows: pl.LazyFrame, table: _DealTable,
                        game: Game) -> list[FieldFinding]:
    """Per card id taken and per id kept: the holders' mean score minus the others'
    (associations)."""
    schema = rows.collect_schema()
    cards, draft = game.card_columns(), game.draft_columns()
    rows = rows.filter(pl.col("field").is_in(table.fields))
    queries, verbs = [], []
    if cards is not None and cards.cards in schema:
        # A card counted once per player-game, however the list holds it.
        queries.append(rows.select("field", "deal_id", "score",
                                   pl.col(cards.cards).list.unique().alias("_id"))
                       .explode("_id").drop_nulls("_id"))
        verbs.append((cards.cards, f"took {cards.noun}"))
    if draft is not None and draft.kept in schema:
        # 0: no card kept (the variant off).
        queries.append(rows.select("field", "deal_id", "score", pl.col(draft.kept).alias("_id"))
                       .filter(pl.col("_id") != 0))
        verbs.append((draft.kept, f"kept {draft.noun}"))
    if not queries:
        return []
    frames = pl.collect_all([
        query.group_by("field", "deal_id", "_id").agg(
            pl.len().cast(pl.Int64).alias("n"), pl.col("score").cast(pl.Int64).sum().alias("s"))
        for query in queries])
    values, counts = table.score.sum(axis=2), table.n.sum(axis=2)
    field_index = {name: k for k, name in enumerate(table.fields)}
    findings = []
    for frame, (column, verb) in zip(frames, verbs, strict=True):
        frame = frame.with_columns(pl.col("_id").cast(pl.Int64))
        held = frame.group_by("_id", "field").agg(pl.col("n").sum())
        enough = held.group_by("_id").agg(
            (pl.col("n").min() >= MIN_HOLDERS) & (pl.col("field").n_unique() == len(field_index))
        ).filter(pl.col("n"))["_id"].sort().to_list()
        splits = []
        for item in enough:
            part = frame.filter(pl.col("_id") == item)
            d = np.searchsorted(table.deal_ids, part["deal_id"].to_numpy())
            f = np.array([field_index[name] for name in part["field"].to_list()])
            held_values = np.zeros(values.shape)
            held_counts = np.zeros(values.shape)
            held_values[d, f] = part["s"].to_numpy()
            held_counts[d, f] = part["n"].to_numpy()
            splits.append((held_values, held_counts, values - held_values,
                           counts - held_counts))
        if not splits:
            continue
        for item, judgement in zip(enough, _split_family(table.fields, splits), strict=True):
            findings.append(FieldFinding(
                HELD_CARDS, f"{column}/{item}",
                f"the score difference of players who {verb} {item} over those who did not "
                f"(mean per player-game)",
                "points", 1.0, 1, KIND_EFFECT, False, judgement))
    return findings


# ------------------------------------------------------------------------------ fairness and frame


def fairness_across_fields(findings: list[FieldFinding], fields: list[str]) -> FieldFairness:
    """The seats' fairness per field and across fields, from the seat win-share gaps among
    ``findings`` (``FieldFairness``; the margin is theirs, ``FAIR_MARGIN``)."""
    seat_findings = [finding for finding in findings if finding.headline == SEAT_GAPS
                     and finding.key.startswith(f"{_SEAT_WIN_KEY}/")]
    gaps = [finding.judgement for finding in seat_findings]
    fields = list(fields)
    if not gaps:
        return FieldFairness(fields, [UNDECIDED] * len(fields), UNDECIDED,
                             "no seat gaps (one player, or no rows)", FAIR_MARGIN)
    margin = gaps[0].margin
    if not all(finding.causal for finding in seat_findings):
        # As sim.stats.seats does: with strategies tied to seats a gap is no seat's own.
        return FieldFairness(fields, [UNDECIDED] * len(fields), UNDECIDED,
                             "a field seats its strategies unevenly, so a seat's gap mixes the "
                             "seat with who sits there", margin)
    per_field = []
    for name in fields:
        if name not in gaps[0].fields:
            raise InputError(f"fields: no seat gaps for field {name}")
        column = gaps[0].fields.index(name)
        lows = np.array([g.lows[column] for g in gaps])
        highs = np.array([g.highs[column] for g in gaps])
        if gaps[0].clusters < MIN_VERDICT_CLUSTERS or np.isnan(lows).any() or \
                np.isnan(highs).any():
            per_field.append(UNDECIDED)
        elif ((lows > -margin) & (highs < margin)).all():
            per_field.append(FAIR)
        elif ((lows > 0) | (highs < 0)).any():
            per_field.append(UNFAIR)
        else:
            per_field.append(UNDECIDED)
    unfair = [name for name, verdict in zip(fields, per_field, strict=True) if verdict == UNFAIR]
    undecided = [name for name, verdict in zip(fields, per_field, strict=True)
                 if verdict == UNDECIDED]
    if not undecided and not unfair:
        return FieldFairness(fields, per_field, FAIR_EVERYWHERE, "", margin)
    if not undecided and len(unfair) == len(fields):
        return FieldFairness(fields, per_field, UNFAIR_EVERYWHERE, "", margin)
    if not undecided:
        return FieldFairness(fields, per_field, unfair_only_verdict(unfair), "", margin)
    if gaps[0].clusters < MIN_VERDICT_CLUSTERS:
        reason = f"fewer than {MIN_VERDICT_CLUSTERS} deals"
    elif any(np.isnan(g.lows).any() or np.isnan(g.highs).any() for g in gaps):
        reason = f"no simultaneous interval from {gaps[0].clusters} deals"
    else:
        reason = (f"in {_join(undecided)} a seat gap neither lies within the margin nor "
                  f"excludes 0")
    return FieldFairness(fields, per_field, UNDECIDED, reason, margin)


FRAME_SCHEMA = {
    "headline": pl.String, "key": pl.String, "noun": pl.String, "unit": pl.String,
    "kind": pl.String, "causal": pl.Boolean, "scale": pl.Float64, "digits": pl.Int64,
    "row": pl.String, "field": pl.String, "pair": pl.String, "estimate": pl.Float64,
    "standard_error": pl.Float64, "low": pl.Float64, "high": pl.Float64, "verdict": pl.String,
    "reason": pl.String, "clusters": pl.Int64, "margin": pl.Float64, "confidence": pl.Float64,
    "family": pl.Int64,
}


def findings_frame(findings: list[FieldFinding]) -> pl.DataFrame:
    """One row per finding and field (``row`` "field", ``field`` its name) and per finding and
    pair (``row`` "pair", ``pair`` "A minus B"), in the findings' order, then the fields', then
    the pairs'; plain columns (``FRAME_SCHEMA``) for Parquet. Numbers in the finding's own
    units (``scale`` turns them into the shown unit); the verdict repeated on every row."""
    records = []
    for finding in findings:
        judgement = finding.judgement
        common = {"headline": finding.headline, "key": finding.key, "noun": finding.noun,
                  "unit": finding.unit, "kind": finding.kind, "causal": finding.causal,
                  "scale": float(finding.scale), "digits": int(finding.digits),
                  "verdict": judgement.verdict, "reason": judgement.reason,
                  "clusters": int(judgement.clusters), "margin": float(judgement.margin),
                  "confidence": float(judgement.confidence), "family": int(judgement.family)}
        for k, name in enumerate(judgement.fields):
            records.append({**common, "row": "field", "field": name, "pair": None,
                            "estimate": float(judgement.estimates[k]),
                            "standard_error": float(judgement.standard_errors[k]),
                            "low": float(judgement.lows[k]), "high": float(judgement.highs[k])})
        for k, (i, j) in enumerate(judgement.pairs):
            records.append({**common, "row": "pair", "field": None,
                            "pair": f"{judgement.fields[i]} minus {judgement.fields[j]}",
                            "estimate": float(judgement.pair_estimates[k]),
                            "standard_error": float(judgement.pair_standard_errors[k]),
                            "low": float(judgement.pair_lows[k]),
                            "high": float(judgement.pair_highs[k])})
    return pl.DataFrame(records, schema=FRAME_SCHEMA).select(list(FRAME_SCHEMA))


def _join(names) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]

