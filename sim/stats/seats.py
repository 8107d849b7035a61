"""Seat advantage: win rate and mean score by seat, a test of "all seats equal", every gap
between two seats with simultaneous intervals and a fairness verdict against a stated margin.

A seat's raw results mix what the seat is worth with who sits there and whom it faces. Two
ways keep them apart, and every seat test and verdict rests on one of them (``method``):

- *a design balanced by construction* (``"balanced design"``): one strategy in every seat, a
  pool no larger than the table rotated through it, or a larger pool seated by
  ``sim.seating.pool_lineups`` (every combination of strategies in every seat rotation). With no
  seat effect every seat then expects the same result, and the raw seat means are compared.
  Rotating the whole of a larger pool (``pool_design = "rotation"``, batches before pool
  designs) is not such a design: each seat is tied to particular opponents.
- *a model holding the lineup fixed* (``"lineup model"``, rows store): each player-game's
  outcome = game effect + seat effect + a term for the strategy sitting there and the set of
  strategies at its table (``lineup_model_family``), the game effects removed by centring within
  the game, cluster-robust (CR1) by deal; the seat gaps are differences of seat coefficients.
  Used for every rows-store batch with several strategies.

Where neither applies (the seat cannot be told from the strategy sitting there, or the summary
store of a design not balanced by construction), or there are fewer than
``MIN_VERDICT_CLUSTERS`` clusters, no test and no verdict are given and ``reason`` says why in
one line; ``balanced`` is True exactly when a test and a verdict were given.

Seats are 0-based here and in Parquet (seat 0 plays first); texts a person reads add 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from sim.stats import margins
from sim.stats.clustered import (
    MIN_VERDICT_CLUSTERS,
    WIN_SCALE,
    ContrastIntervals,
    RatioMeans,
    WaldTest,
    contrast_intervals,
    equal_means_test,
    pairwise_contrasts,
)
from sim.stats.scores import distribution_table
from sim.stats.units import SUM_COLUMNS, ClusterMoments, PanelMoments, edges_in_order

PANEL = ["players", "rules"]
# Largest difference in a strategy's share of a seat's player-games across seats that still
# counts as "the same mix at every seat".
BALANCE_TOLERANCE = 0.01
# The design margin of "fair" (sim.stats.margins): every seat's win rate within it of every
# other's.
FAIR_MARGIN = margins.FAIR_MARGIN

SEAT_TEST_SCHEMA = {
    "players": pl.Int64, "rules": pl.String, "games": pl.Int64, "clusters": pl.Int64,
    "balanced": pl.Boolean, "wald_f": pl.Float64, "numerator_df": pl.Int64,
    "denominator_df": pl.Int64, "p_value": pl.Float64,
    "best_seat": pl.Int64, "worst_seat": pl.Int64, "win_gap": pl.Float64,
    "win_gap_low": pl.Float64, "win_gap_high": pl.Float64, "win_gap_bound": pl.Float64,
    "high_score_seat": pl.Int64, "low_score_seat": pl.Int64, "score_gap": pl.Float64,
    "score_gap_low": pl.Float64, "score_gap_high": pl.Float64, "score_gap_bound": pl.Float64,
    "fair_margin": pl.Float64, "verdict": pl.String, "gap_method": pl.String,
    # What the gaps and the verdict rest on (METHOD_*), how the batch seated its strategies
    # (``Batch.pool_design``, or None when unknown), and why no test/verdict was given.
    "method": pl.String, "design": pl.String, "reason": pl.String,
}
SEAT_GAP_SCHEMA = {
    "players": pl.Int64, "rules": pl.String, "seat": pl.Int64, "other_seat": pl.Int64,
    "win_gap": pl.Float64, "win_gap_low": pl.Float64, "win_gap_high": pl.Float64,
    "score_gap": pl.Float64, "score_gap_low": pl.Float64, "score_gap_high": pl.Float64,
}
GAP_METHOD = ("cluster-robust over {unit}s, max-|t| simultaneous intervals over all "
              "{pairs} seat pairs")
METHOD_DESIGN = "balanced design"
METHOD_MODEL = "lineup model"
# Seating designs in which, with no seat effect, every seat expects the same result
# (``Batch.pool_design``): raw seat means can be compared.
BALANCED_DESIGNS = ("mirror", "repeated", "balanced", "every-order")
# Relative size below which a singular value of the normal equations counts as zero.
_RANK_TOLERANCE = 1e-9


def seat_table(histogram: pl.DataFrame, units: pl.DataFrame | ClusterMoments) -> pl.DataFrame:
    """Per (players, rules, seat), pooled over strategies: mean score and win rate with CIs."""
    return distribution_table(histogram, units, [*PANEL, "seat"])


def strategy_mix_is_balanced(histogram: pl.DataFrame) -> pl.DataFrame:
    """Per (players, rules): ``balanced`` is True when each strategy's share of the player-games
    differs by at most ``BALANCE_TOLERANCE`` between seats."""
    occupancy = histogram.group_by([*PANEL, "strategy", "seat"]).agg(pl.col("count").sum())
    shares = occupancy.with_columns(
        share=pl.col("count") / pl.col("count").sum().over([*PANEL, "seat"]))
    # A strategy missing from a seat has share 0 there: count seats to catch that case.
    spread = shares.group_by([*PANEL, "strategy"]).agg(
        spread=pl.col("share").max() - pl.col("share").min(), seats=pl.col("seat").n_unique())
    seats = histogram.group_by(PANEL).agg(all_seats=pl.col("seat").n_unique())
    return (spread.join(seats, on=PANEL).group_by(PANEL).agg(
        balanced=((pl.col("spread") <= BALANCE_TOLERANCE)
                  & (pl.col("seats") == pl.col("all_seats"))).all()).sort(PANEL))


def equivalence_verdict(low, high, margin: float) -> str:
    """``fair`` when every interval lies inside (-margin, margin), ``unfair`` when one lies
    wholly outside it, ``undecided`` otherwise (the data cannot yet tell)."""
    low, high = np.atleast_1d(np.asarray(low, float)), np.atleast_1d(np.asarray(high, float))
    if low.size == 0 or np.isnan(low).any() or np.isnan(high).any():
        return "undecided"
    if (low >= margin).any() or (high <= -margin).any():
        return "unfair"
    if (low > -margin).all() and (high < margin).all():
        return "fair"
    return "undecided"


@dataclass(frozen=True)
class SeatGaps:
    """One (players, rules)'s seats compared: each seat's win rate and mean score (point
    estimates), every pairwise gap with simultaneous intervals, and the Wald test of equal win
    rates."""

    seats: list
    pairs: list[tuple[int, int]]
    win_rates: np.ndarray
    mean_scores: np.ndarray
    win: ContrastIntervals
    score: ContrastIntervals
    wald: WaldTest
    clusters: int


def seat_gap_family(units: pl.DataFrame | PanelMoments, confidence: float = 0.95) -> SeatGaps:
    """For one (players, rules): the seats, the seat pairs and the simultaneous intervals of
    every pairwise gap in win rate and in mean score, plus the Wald test of equal win rates.
    ``units`` are the panel's per-(seat, cluster) sums (``cluster_units``' columns) or their
    ``PanelMoments``."""
    if isinstance(units, pl.DataFrame):
        moments = ClusterMoments.from_units(units)
        if len(moments.panels) != 1:
            raise ValueError("seat_gap_family takes the cluster sums of one (players, rules)")
        units = next(iter(moments.panels.values()))
    keys, groups = units.groups(["seat"])
    seats = [key[0] for key in keys]
    win = units.ratio_means("win_units", groups, scale=WIN_SCALE)
    score = units.ratio_means("score_sum", groups)
    matrix, pairs = pairwise_contrasts(len(seats))
    # The sums are of integers, so these point estimates are exact whatever the cluster order.
    games = (groups @ units.totals[SUM_COLUMNS.index("player_games")]).astype(float)
    wins = (groups @ units.totals[SUM_COLUMNS.index("win_units")]).astype(float)
    points = (groups @ units.totals[SUM_COLUMNS.index("score_sum")]).astype(float)
    return SeatGaps(seats, pairs, wins / WIN_SCALE / games, points / games,
                    contrast_intervals(win, matrix, confidence),
                    contrast_intervals(score, matrix, confidence), equal_means_test(win),
                    win.clusters)


LINEUP_COLUMNS = ["game_id", "deal_id", "seat", "strategy", "score", "win"]


@dataclass
class _LineupSums:
    """Pass 1 of the lineup model over a panel's chunks: per lineup (the strategy codes seated
    in order, numbered as they first appear) its games and the sums of the outcomes centred
    within the game."""

    players: int
    labels: dict[str, int]
    lineups: dict[tuple[int, ...], int]
    games: list[int]
    sums: list[np.ndarray]  # per lineup: (2 outcomes, players)
    total_games: int = 0
    wins: float = 0.0
    points: int = 0
    clusters: int = 0


def _chunk_games(chunk: pl.LazyFrame, players: int,
                 labels: dict[str, int]) -> tuple[np.ndarray, ...] | str:
    """One chunk of a panel's rows as per-game arrays: deal ids, strategy codes (games,
    players; new strategies numbered into ``labels``), the outcomes (games, 2, players: win
    share as stored, score) and the same centred within the game; or a reason."""
    frame = chunk.sort(["game_id", "seat"]).collect()
    games = frame.height // players
    seat = frame["seat"].to_numpy()
    if frame.height != games * players or not (
            seat.reshape(games, players) == np.arange(players)[None, :]).all():
        return "the rows do not hold every seat of every game, so no lineup can be held fixed"
    for label in sorted(set(frame["strategy"].unique().to_list()) - set(labels)):
        labels[label] = len(labels)
    codes = (frame["strategy"].replace_strict(labels, return_dtype=pl.Int64)
             .to_numpy().reshape(games, players))
    # The win share as stored (float32 in the rows store: 1/3 is 0.3333333433), as this model
    # has always read it; the raw seat means count exact shares (win units).
    outcomes = np.stack([frame["win"].cast(pl.Float64).to_numpy().reshape(games, players),
                         frame["score"].cast(pl.Float64).to_numpy().reshape(games, players)],
                        axis=1)  # (games, 2 outcomes, seats)
    centred = outcomes - outcomes.mean(axis=2, keepdims=True)  # within-game centring
    return frame["deal_id"].to_numpy()[::players], codes, outcomes, centred


def _lineup_index(codes: np.ndarray, lineups: dict[tuple[int, ...], int],
                  grow: bool) -> np.ndarray:
    """Each game's lineup number (``lineups``, new lineups added when ``grow``)."""
    present, inverse = np.unique(codes, axis=0, return_inverse=True)
    numbers = []
    for lineup in map(tuple, present.tolist()):
        if lineup not in lineups and grow:
            lineups[lineup] = len(lineups)
        numbers.append(lineups[lineup])
    return np.asarray(numbers, dtype=np.int64)[inverse.ravel()]


def _sums_by(index: np.ndarray, values: np.ndarray, size: int) -> np.ndarray:
    """Sums of the rows of ``values`` (n, ...) by ``index`` (0 .. size - 1)."""
    flat = values.reshape(values.shape[0], -1)
    sums = np.stack([np.bincount(index, weights=flat[:, j], minlength=size)
                     for j in range(flat.shape[1])], axis=1)
    return sums.reshape(size, *values.shape[1:])


def _lineup_sums(chunks: list[pl.LazyFrame], players: int) -> _LineupSums | str:
    """Pass 1 of the lineup model (``_LineupSums``), or a reason it cannot be fitted."""
    sums = _LineupSums(players, {}, {}, [], [])
    spans, edges = [], set()
    for chunk in chunks:
        read = _chunk_games(chunk, players, sums.labels)
        if isinstance(read, str):
            return read
        deals, codes, outcomes, centred = read
        if deals.size == 0:
            continue
        lineup = _lineup_index(codes, sums.lineups, grow=True)
        added = len(sums.lineups) - len(sums.games)
        sums.games += [0] * added
        sums.sums += [np.zeros((2, players)) for _ in range(added)]
        counts = np.bincount(lineup, minlength=len(sums.lineups))
        totals = _sums_by(lineup, centred, len(sums.lineups))
        for number in np.flatnonzero(counts):
            sums.games[number] += int(counts[number])
            sums.sums[number] += totals[number]
        sums.total_games += deals.size
        sums.wins += float(outcomes[:, 0].sum())
        sums.points += int(outcomes[:, 1].sum())
        # Deals at a chunk's edges may continue in the next chunk: count them once at the end.
        first, last = int(deals.min()), int(deals.max())
        spans.append((first, last))
        inner = np.unique(deals)
        sums.clusters += int(((inner != first) & (inner != last)).sum())
        edges |= {first, last}
    if not edges_in_order(spans):
        raise ValueError("the chunks' deals are not in order: the lineup model needs the "
                         "games of a deal in one chunk or at the edge of two")
    sums.clusters += len(edges)
    return sums


def _lineup_model(chunks: list[pl.LazyFrame], players: int,
                  confidence: float = 0.95) -> SeatGaps | str:
    """``lineup_model_family`` over a panel's rows read chunk by chunk (each a lazy frame of
    ``LINEUP_COLUMNS``; a deal's games in one chunk or at the edge of two consecutive ones) in
    two passes: the lineups' sums, then each deal's score contributions."""
    first = _lineup_sums(chunks, players)
    if isinstance(first, str):
        return first
    # Lineups sorted by their strategies' names, seat by seat (the order of the arrays below).
    labels = sorted(first.labels)
    rename = np.array([labels.index(label) for label in
                       sorted(first.labels, key=first.labels.__getitem__)], dtype=np.int64)
    seen = list(first.lineups)
    named = np.array([rename[list(lineup)] for lineup in seen]).reshape(len(seen), players)
    order = np.lexsort(named.T[::-1])
    position = np.empty(len(seen), dtype=np.int64)
    position[order] = np.arange(len(seen))
    lineups = named[order]
    games = first.total_games
    per_lineup = np.array(first.games, dtype=float)[order]
    lineup_sums = np.stack(first.sums)[order]
    _, table_set = np.unique(np.sort(lineups, axis=1), axis=0, return_inverse=True)
    table_set = table_set.ravel()

    # Design rows of each lineup: centred seat indicators (seat 0 out), then partialled on
    # the centred indicators of the strategies of its set (Frisch-Waugh-Lovell, per set).
    seat_rows = np.eye(players)[:, 1:] - 1.0 / players
    partialled = np.repeat(seat_rows[None], len(lineups), axis=0)  # (lineups, P, P - 1)
    fitted = np.zeros((len(lineups), 2, players))  # strategy terms' fit of the outcomes
    for members in _groups(table_set):
        present = np.unique(lineups[members])
        if present.size < 2:
            continue  # one strategy at the table: its term is the game effect
        z = (lineups[members][:, :, None] == present[None, None, 1:]).astype(float)
        z -= z.mean(axis=1, keepdims=True)  # (lineups of the set, P, m)
        weights = per_lineup[members][:, None, None]
        zz = np.einsum("lpi,lpj->ij", z * weights, z)
        zd = np.einsum("lpi,pj->ij", z * weights, seat_rows)
        zy = np.einsum("lpi,lop->io", z, lineup_sums[members])
        inverse = np.linalg.pinv(zz, rcond=_RANK_TOLERANCE)
        partialled[members] = seat_rows[None] - z @ (inverse @ zd)
        fitted[members] = np.einsum("lpi,io->lop", z, inverse @ zy)
    bread_inverse = np.einsum("lpi,lpj->ij", partialled * per_lineup[:, None, None], partialled)
    singular = np.linalg.svd(bread_inverse, compute_uv=False)
    if singular.min() <= _RANK_TOLERANCE * games:
        return _confounded_reason(lineups, labels)
    bread = np.linalg.inv(bread_inverse)
    coefficients = bread @ np.einsum("lpi,lop->io", partialled, lineup_sums)  # (P - 1, 2)
    prediction = fitted + np.einsum("lpi,io->lop", partialled, coefficients)

    # Pass 2: each (deal, lineup) cell's residual sum, its share of the deal's score sum X~'e,
    # and the deals' outer products (a deal at a chunk's edge once all its games are in).
    meat = np.zeros((2, players - 1, players - 1))
    held: dict[int, np.ndarray] = {}
    codes_of = {lineup: int(position[number]) for lineup, number in first.lineups.items()}
    for chunk in chunks:
        deals, codes, _, centred = _chunk_games(chunk, players, dict(first.labels))
        if deals.size == 0:
            continue
        lineup = _lineup_index(codes, codes_of, grow=False)
        deal_ids, deal = np.unique(deals, return_inverse=True)
        cells, cell = np.unique(deal.ravel() * len(lineups) + lineup, return_inverse=True)
        cell_lineup, cell_deal = cells % len(lineups), cells // len(lineups)
        cell_games = np.bincount(cell.ravel(), minlength=cells.size).astype(float)
        cell_sums = _sums_by(cell.ravel(), centred, cells.size)
        residual = cell_sums - cell_games[:, None, None] * prediction[cell_lineup]
        cell_scores = np.einsum("cpi,cop->coi", partialled[cell_lineup], residual)
        scores = np.stack([np.stack([np.bincount(cell_deal, weights=cell_scores[:, o, i],
                                                 minlength=deal_ids.size)
                                     for i in range(players - 1)], axis=1) for o in range(2)])
        edge = (deal_ids == deal_ids[0]) | (deal_ids == deal_ids[-1])
        for number in np.flatnonzero(edge):
            key = int(deal_ids[number])
            held[key] = held.get(key, 0.0) + scores[:, number]
        inner = scores[:, ~edge]
        meat += np.einsum("oci,ocj->oij", inner, inner)
    if held:
        edges = np.stack(list(held.values()), axis=1)
        meat += np.einsum("oci,ocj->oij", edges, edges)
    clusters = first.clusters
    matrix, pairs = pairwise_contrasts(players)
    counts = np.full(players, float(games))
    families = []
    for outcome in range(2):
        seat_effects = np.concatenate([[0.0], coefficients[:, outcome]])
        covariance = np.full((players, players), np.nan)
        if clusters >= 2:
            covariance = np.zeros((players, players))
            covariance[1:, 1:] = bread @ (clusters / (clusters - 1.0) * meat[outcome]) @ bread
        families.append(RatioMeans(seat_effects, covariance, counts, clusters))
    win, score = families
    # Each seat's result with the strategies held at the batch's mix: overall mean plus the
    # seat's effect relative to the average seat (the raw means when one strategy plays).
    rows = games * players
    overall = [first.wins / rows, first.points / rows]
    adjusted = [overall[k] + fam.means - fam.means.mean() for k, fam in enumerate(families)]
    return SeatGaps(list(range(players)), pairs, adjusted[0], adjusted[1],
                    contrast_intervals(win, matrix, confidence),
                    contrast_intervals(score, matrix, confidence), equal_means_test(win),
                    clusters)


def lineup_model_family(panel: pl.DataFrame | pl.LazyFrame | list[pl.LazyFrame], players: int,
                        confidence: float = 0.95) -> SeatGaps | str:
    """The seats of one (players, rules) compared holding the lineup fixed, from its rows
    (``game_id``, ``deal_id``, ``seat``, ``strategy``, ``score``, ``win``; one row per seat of
    every game; a frame, or a list of lazy frames read one at a time, each holding whole games,
    a deal's games in one of them or at the edge of two consecutive ones); or, when the design
    cannot separate seat from strategy, a one-line reason.

    Model (one per outcome, win share and score): y_gp = game effect_g + alpha_p
    + gamma(strategy in seat p, strategies of game g) + error, alpha_0 = 0. The strategy term
    is one per strategy *and set of strategies at the table* (a multiset): a strategy's result
    depends on whom it faces (a win share is its strength over the table's), so seat effects
    are learnt only by comparing the same set of strategies seated in different orders. A
    rotation of the whole pool ties each seat to particular opponents; a single strategy
    effect would leave that in the seat effects. The game effects are removed by centring
    within the game; the strategy terms by Frisch-Waugh-Lovell within each set (least squares of
    the centred seat indicators and outcomes on the set's centred strategy indicators). Every
    game of one lineup has the same design rows, so all sums run over lineups and (deal,
    lineup) cells, in two passes over the rows (the lineups' exact integer sums, then each
    deal's score contributions): the memory is one chunk's games, whatever the number of rows.

    Covariance: the CR1 sandwich by deal, C / (C - 1) B^-1 (sum_c s_c s_c') B^-1 with
    B = X~'X~ and s_c the deal's sum of X~'e (no (N - 1) / (N - K) factor, as in
    ``sim.stats.clustered``: with one strategy the gaps and their covariance are exactly those
    of the raw seat means). The seat coefficients (seat 0 = 0) and their covariance go through
    the same simultaneous intervals and test of equal seats as raw means. The seat gaps are
    identified when B has full rank P - 1; otherwise seat and strategy cannot be told apart.
    """
    if isinstance(panel, pl.DataFrame):
        chunks = [panel.lazy()]
    elif isinstance(panel, pl.LazyFrame):
        chunks = [panel]
    else:
        chunks = list(panel)
    return _lineup_model([chunk.select(LINEUP_COLUMNS) for chunk in chunks], players,
                         confidence)


def _groups(index: np.ndarray) -> list[np.ndarray]:
    """The positions of each value of ``index`` (0 .. n - 1), value by value."""
    order = np.argsort(index, kind="stable")
    bounds = np.flatnonzero(np.diff(index[order])) + 1
    return np.split(order, bounds)


def _confounded_reason(codes: np.ndarray, labels: list[str]) -> str:
    """One line saying why seat and strategy cannot be told apart (seats counted from 1);
    ``codes`` are the strategies seated in every lineup played (lineups, seats)."""
    fixed = []
    for seat in range(codes.shape[1]):
        present = np.unique(codes[:, seat])
        if present.size == 1:
            # A strategy that sits in few seats is what a seat is mistaken for.
            elsewhere = int((codes == present[0]).any(axis=0).sum())
            fixed.append((elsewhere, seat, labels[int(present[0])]))
    if fixed:
        _, seat, label = min(fixed)
        return (f"seat and strategy cannot be told apart: seat {seat + 1} always plays "
                f"{label}; use a pool")
    return ("seat and strategy cannot be told apart: each set of strategies sat in too few "
            "seat orders to tell a seat from whom it faces; use pool_design \"balanced\"")


DESIGN_REASONS = {
    "fixed": "seat and strategy cannot be told apart: each seat always plays the same "
             "strategy; use a pool",
    "rotation": "this batch rotated the whole pool through the seats (pool_design "
                "\"rotation\"), which ties each seat to particular opponents, and the summary "
                "store keeps no games to hold the lineup fixed; play pool_design \"balanced\" "
                "or the rows store",
    None: "the batch records no seating design, and the summary store keeps no games to hold "
          "the lineup fixed",
}


def seat_tests(units: pl.DataFrame | ClusterMoments, unit_name: str = "deal",
               confidence: float = 0.95, fair_margin: float = FAIR_MARGIN,
               rows: pl.LazyFrame | list[pl.LazyFrame] | None = None,
               design: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per (players, rules): the test of equal win rates over seats, the largest gaps in
    win rate and in mean score with their simultaneous intervals, the largest gap the data
    allow (``*_gap_bound``: the widest end of any pair's interval), and the fairness verdict
    (``fair`` / ``unfair`` / ``undecided`` against +-``fair_margin`` on every win-rate gap).

    Returns (tests, every pairwise gap). With ``rows`` (rows store: one lazy frame, or the
    batch's chunks, ``Batch.chunks``, one lazy frame each) and several strategies in a panel,
    the gaps come from the lineup model (``lineup_model_family``); otherwise from the
    per-cluster sums of each seat (``units``: ``cluster_units`` or its ``ClusterMoments``),
    which keep the pairing of seats in a game and of games in a deal, and the test and verdict
    are given only when ``design`` (``Batch.pool_design``) is balanced by construction (or one
    strategy plays every seat). Below ``MIN_VERDICT_CLUSTERS`` clusters, and where seat and
    strategy cannot be told apart, the test and verdict are left empty and ``reason`` says why
    (module docstring); the gaps are still given, as descriptions.
    """
    if not isinstance(units, ClusterMoments):
        units = ClusterMoments.from_units(units)
    chunks = [rows] if isinstance(rows, pl.LazyFrame) else rows
    tests, gaps = [], []
    for (players, rules), panel_units in units.panels.items():
        seat_0 = np.array([seat == 0 for _, seat in panel_units.cells], dtype=np.int64)
        games = int(seat_0 @ panel_units.totals[SUM_COLUMNS.index("player_games")])
        single_strategy = len(panel_units.strategies) == 1
        reason, method = None, METHOD_DESIGN
        family = None
        if chunks is not None and not single_strategy and players >= 2:
            method = METHOD_MODEL
            # The lineup model reads the games of this panel, chunk by chunk (only panels with
            # several strategies read them; a panel of one strategy works from ``units``).
            panel_rows = [chunk.select(*LINEUP_COLUMNS, *PANEL)
                          .with_columns(pl.col("players").cast(pl.Int64),
                                        pl.col("seat").cast(pl.Int64))
                          .filter((pl.col("players") == players) & (pl.col("rules") == rules))
                          for chunk in chunks]
            fitted = lineup_model_family(panel_rows, int(players), confidence)
            if isinstance(fitted, str):
                reason, method = fitted, None
            else:
                family = fitted
        elif not single_strategy and design not in BALANCED_DESIGNS:
            reason = DESIGN_REASONS.get(design, DESIGN_REASONS[None])
            method = None
        if family is None:  # raw seat means (balanced design, or descriptions only)
            family = seat_gap_family(panel_units, confidence)
        seats, pairs, win, score = family.seats, family.pairs, family.win, family.score
        wald, clusters = family.wald, family.clusters
        if reason is None and clusters < MIN_VERDICT_CLUSTERS:
            reason = (f"only {clusters} {unit_name}{'s' if clusters != 1 else ''}: a seat "
                      f"verdict needs at least {MIN_VERDICT_CLUSTERS}")
        given = reason is None
        if len(seats) < 2:  # solo games: no seat to compare with
            tests.append({"players": players, "rules": rules, "games": games,
                          "clusters": clusters, "balanced": False,
                          "gap_method": "one seat", "fair_margin": fair_margin,
                          "design": design})
            continue
        rates, means = family.win_rates, family.mean_scores
        best, worst = int(np.argmax(rates)), int(np.argmin(rates))
        high, low = int(np.argmax(means)), int(np.argmin(means))
        win_row, win_sign = _pair_row(pairs, best, worst)
        score_row, score_sign = _pair_row(pairs, high, low)
        for row, (i, j) in enumerate(pairs):
            gaps.append({"players": players, "rules": rules, "seat": seats[i],
                         "other_seat": seats[j], "win_gap": win.estimates[row],
                         "win_gap_low": win.low[row], "win_gap_high": win.high[row],
                         "score_gap": score.estimates[row], "score_gap_low": score.low[row],
                         "score_gap_high": score.high[row]})
        tests.append({
            "players": players, "rules": rules, "games": games, "clusters": clusters,
            "balanced": given,
            "wald_f": wald.statistic if given else None,
            "numerator_df": wald.numerator_df if given else None,
            "denominator_df": wald.denominator_df if given else None,
            "p_value": wald.p_value if given else None,
            "best_seat": seats[best], "worst_seat": seats[worst],
            "win_gap": win_sign * win.estimates[win_row],
            "win_gap_low": _signed_low(win, win_row, win_sign),
            "win_gap_high": _signed_high(win, win_row, win_sign),
            "win_gap_bound": float(np.max(np.maximum(np.abs(win.low), np.abs(win.high)))),
            "high_score_seat": seats[high], "low_score_seat": seats[low],
            "score_gap": score_sign * score.estimates[score_row],
            "score_gap_low": _signed_low(score, score_row, score_sign),
            "score_gap_high": _signed_high(score, score_row, score_sign),
            "score_gap_bound": float(np.max(np.maximum(np.abs(score.low),
                                                       np.abs(score.high)))),
            "fair_margin": fair_margin,
            "verdict": equivalence_verdict(win.low, win.high, fair_margin) if given else None,
            "gap_method": GAP_METHOD.format(unit=unit_name, pairs=len(pairs)),
            "method": method, "design": design, "reason": reason,
        })
    return (pl.DataFrame(tests, schema=SEAT_TEST_SCHEMA),
            pl.DataFrame(gaps, schema=SEAT_GAP_SCHEMA))


def _pair_row(pairs: list[tuple[int, int]], first: int, second: int) -> tuple[int, float]:
    """The row of (first, second) among ``pairs`` (i < j) and the sign turning it into
    first - second."""
    if first == second:  # every seat equal: any pair, gap 0
        return 0, 1.0
    if first < second:
        return pairs.index((first, second)), 1.0
    return pairs.index((second, first)), -1.0


def _signed_low(intervals, row: int, sign: float) -> float:
    return float(intervals.low[row] if sign > 0 else -intervals.high[row])


def _signed_high(intervals, row: int, sign: float) -> float:
    return float(intervals.high[row] if sign > 0 else -intervals.low[row])
