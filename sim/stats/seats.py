"""Seat advantage: win rate and mean score by seat, a test of "all seats equal", every gap
between two seats with simultaneous intervals, a fairness verdict against a stated margin, and
(Legendary Forests) the worth of holding the construction token.

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
from sim.stats.batch import collect_streaming
from sim.stats.clustered import (
    MIN_VERDICT_CLUSTERS,
    WIN_SCALE,
    ContrastIntervals,
    RatioMeans,
    WaldTest,
    cluster_matrix,
    contrast_intervals,
    equal_means_test,
    grouped_ratio_intervals,
    pairwise_contrasts,
    ratio_means,
    t_critical,
)
from sim.stats.scores import distribution_table

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


def seat_table(histogram: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
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


def seat_gap_family(units: pl.DataFrame, confidence: float = 0.95) -> SeatGaps:
    """For one (players, rules): the seats, the seat pairs and the simultaneous intervals of
    every pairwise gap in win rate and in mean score, plus the Wald test of equal win rates."""
    seats, sums = cluster_matrix(units, "seat", ("win_units", "score_sum", "player_games"))
    win = ratio_means(sums["win_units"] / WIN_SCALE, sums["player_games"])
    score = ratio_means(sums["score_sum"], sums["player_games"])
    matrix, pairs = pairwise_contrasts(len(seats))
    # The sums are of integers, so these point estimates are exact whatever the cluster order.
    games = sums["player_games"].sum(axis=0)
    return SeatGaps(seats, pairs, sums["win_units"].sum(axis=0) / WIN_SCALE / games,
                    sums["score_sum"].sum(axis=0) / games,
                    contrast_intervals(win, matrix, confidence),
                    contrast_intervals(score, matrix, confidence), equal_means_test(win),
                    win.clusters)


def lineup_model_family(panel: pl.DataFrame, players: int,
                        confidence: float = 0.95) -> SeatGaps | str:
    """The seats of one (players, rules) compared holding the lineup fixed, from its rows
    (``game_id``, ``deal_id``, ``seat``, ``strategy``, ``score``, ``win``; one row per seat of
    every game); or, when the design cannot separate seat from strategy, a one-line reason.

    Model (one per outcome, win share and score): y_gp = game effect_g + alpha_p
    + gamma(strategy in seat p, strategies of game g) + error, alpha_0 = 0. The strategy term
    is one per strategy *and set of strategies at the table* (a multiset): a strategy's result
    depends on whom it faces (a win share is its strength over the table's), so seat effects
    are learnt only by comparing the same set of strategies seated in different orders. A
    rotation of the whole pool ties each seat to particular opponents; a single strategy
    effect would leave that in the seat effects. The game effects are removed by centring
    within the game; the strategy terms by Frisch-Waugh-Lovell within each set (least squares of
    the centred seat indicators and outcomes on the set's centred strategy indicators). Every
    game of one lineup has the same design rows, so all sums run over (deal, lineup) cells: the
    memory is a few arrays of the games, whatever the number of rows.

    Covariance: the CR1 sandwich by deal, C / (C - 1) B^-1 (sum_c s_c s_c') B^-1 with
    B = X~'X~ and s_c the deal's sum of X~'e (no (N - 1) / (N - K) factor, as in
    ``sim.stats.clustered``: with one strategy the gaps and their covariance are exactly those
    of the raw seat means). The seat coefficients (seat 0 = 0) and their covariance go through
    the same simultaneous intervals and test of equal seats as raw means. The seat gaps are
    identified when B has full rank P - 1; otherwise seat and strategy cannot be told apart.
    """
    panel = panel.sort(["game_id", "seat"])
    labels = sorted(panel["strategy"].unique().to_list())
    games = panel.height // players
    seat = panel["seat"].to_numpy().reshape(games, players)
    if panel.height != games * players or not (seat == np.arange(players)[None, :]).all():
        return "the rows do not hold every seat of every game, so no lineup can be held fixed"
    codes = (panel["strategy"].replace_strict({label: k for k, label in enumerate(labels)},
                                              return_dtype=pl.Int64)
             .to_numpy().reshape(games, players))
    outcomes = np.stack([panel["win"].cast(pl.Float64).to_numpy().reshape(games, players),
                         panel["score"].cast(pl.Float64).to_numpy().reshape(games, players)],
                        axis=1)  # (games, 2 outcomes, seats)
    outcomes -= outcomes.mean(axis=2, keepdims=True)  # within-game centring
    deal_ids, cluster = np.unique(panel["deal_id"].to_numpy()[::players], return_inverse=True)
    clusters = deal_ids.size
    lineups, lineup = np.unique(codes, axis=0, return_inverse=True)
    lineup = lineup.ravel()
    _, table_set = np.unique(np.sort(lineups, axis=1), axis=0, return_inverse=True)
    table_set = table_set.ravel()
    # Games and centred outcome sums per lineup, and per (deal, lineup) cell.
    per_lineup = np.bincount(lineup, minlength=len(lineups)).astype(float)
    cells, cell = np.unique(cluster * len(lineups) + lineup, return_inverse=True)
    cell_lineup, cell_cluster = cells % len(lineups), cells // len(lineups)
    cell_games = np.bincount(cell, minlength=cells.size).astype(float)
    flat = outcomes.reshape(games, -1)
    cell_sums = np.stack([np.bincount(cell, weights=flat[:, j], minlength=cells.size)
                          for j in range(flat.shape[1])], axis=1).reshape(cells.size, 2, players)
    lineup_sums = np.zeros((len(lineups), 2, players))
    np.add.at(lineup_sums, cell_lineup, cell_sums)

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
        return _confounded_reason(codes, labels)
    bread = np.linalg.inv(bread_inverse)
    coefficients = bread @ np.einsum("lpi,lop->io", partialled, lineup_sums)  # (P - 1, 2)
    # Each cell's residual sum, then its share of the deal's score sum X~'e.
    prediction = fitted[cell_lineup] + np.einsum("lpi,io->lop", partialled[cell_lineup],
                                                 coefficients)
    residual = cell_sums - cell_games[:, None, None] * prediction
    cell_scores = np.einsum("cpi,cop->coi", partialled[cell_lineup], residual)
    scores = np.stack([np.stack([np.bincount(cell_cluster, weights=cell_scores[:, o, i],
                                             minlength=clusters)
                                 for i in range(players - 1)], axis=1) for o in range(2)])
    matrix, pairs = pairwise_contrasts(players)
    counts = np.full(players, float(games))
    families = []
    for outcome in range(2):
        seat_effects = np.concatenate([[0.0], coefficients[:, outcome]])
        covariance = np.full((players, players), np.nan)
        if clusters >= 2:
            meat = clusters / (clusters - 1.0) * scores[outcome].T @ scores[outcome]
            covariance = np.zeros((players, players))
            covariance[1:, 1:] = bread @ meat @ bread
        families.append(RatioMeans(seat_effects, covariance, counts, clusters))
    win, score = families
    # Each seat's result with the strategies held at the batch's mix: overall mean plus the
    # seat's effect relative to the average seat (the raw means when one strategy plays).
    overall = [panel["win"].cast(pl.Float64).mean(), panel["score"].cast(pl.Float64).mean()]
    adjusted = [overall[k] + fam.means - fam.means.mean() for k, fam in enumerate(families)]
    return SeatGaps(list(range(players)), pairs, adjusted[0], adjusted[1],
                    contrast_intervals(win, matrix, confidence),
                    contrast_intervals(score, matrix, confidence), equal_means_test(win),
                    clusters)


def _groups(index: np.ndarray) -> list[np.ndarray]:
    """The positions of each value of ``index`` (0 .. n - 1), value by value."""
    order = np.argsort(index, kind="stable")
    bounds = np.flatnonzero(np.diff(index[order])) + 1
    return np.split(order, bounds)


def _confounded_reason(codes: np.ndarray, labels: list[str]) -> str:
    """One line saying why seat and strategy cannot be told apart (seats counted from 1)."""
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


def seat_tests(units: pl.DataFrame, unit_name: str = "deal",
               confidence: float = 0.95, fair_margin: float = FAIR_MARGIN,
               rows: pl.LazyFrame | None = None,
               design: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per (players, rules): the test of equal win rates over seats, the largest gaps in
    win rate and in mean score with their simultaneous intervals, the largest gap the data
    allow (``*_gap_bound``: the widest end of any pair's interval), and the fairness verdict
    (``fair`` / ``unfair`` / ``undecided`` against +-``fair_margin`` on every win-rate gap).

    Returns (tests, every pairwise gap). With ``rows`` (rows store) and several strategies in
    a panel, the gaps come from the lineup model (``lineup_model_family``); otherwise from the
    per-cluster sums of each seat (``units``), which keep the pairing of seats in a game and of
    games in a deal, and the test and verdict are given only when ``design`` (``Batch.
    pool_design``) is balanced by construction (or one strategy plays every seat). Below
    ``MIN_VERDICT_CLUSTERS`` clusters, and where seat and strategy cannot be told apart, the
    test and verdict are left empty and ``reason`` says why (module docstring); the gaps are
    still given, as descriptions.
    """
    tests, gaps = [], []
    for (players, rules), panel_units in sorted(units.partition_by(PANEL, as_dict=True).items()):
        games = int(panel_units.filter(pl.col("seat") == 0)["player_games"].sum())
        single_strategy = panel_units["strategy"].n_unique() == 1
        reason, method = None, METHOD_DESIGN
        family = None
        if rows is not None and not single_strategy and players >= 2:
            method = METHOD_MODEL
            # The lineup model needs the games of this panel (only panels with several
            # strategies read them; a panel of one strategy works from ``units``).
            panel_rows = (rows.select("game_id", "deal_id", *PANEL, "seat", "strategy", "score",
                                      "win")
                          .with_columns(pl.col("players").cast(pl.Int64),
                                        pl.col("seat").cast(pl.Int64))
                          .filter((pl.col("players") == players) & (pl.col("rules") == rules))
                          .collect())
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


def mean_pick_position(players: int, light_tiles: int, seat: int) -> float:
    """The seat's average place in the tree-pick order over the game's tree phases (0 = first).

    Tree phase k (k = 0 .. light_tiles - 1) is led by seat k mod players, so seat s picks at
    position (s - k) mod players.
    """
    if light_tiles <= 0:
        return float("nan")
    k = np.arange(light_tiles)
    return float(((seat - k) % players).mean())


def token_table(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, light tiles drawn, seat): tree phases as first picker, mean pick
    position, mean score and win rate, the mean with a cluster-robust (by deal) interval
    (Legendary Forests rows store)."""
    keys = [*PANEL, "light_tiles_drawn", "seat"]
    table = (rows.group_by(keys).agg(
        player_games=pl.len(),
        first_picks=pl.col("tree_phases_as_token_holder").cast(pl.Float64).mean(),
        mean=pl.col("score").cast(pl.Float64).mean(),
        win_rate=pl.col("win").cast(pl.Float64).mean(),
    ).with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                   pl.col("light_tiles_drawn").cast(pl.Int64)).sort(keys))
    units = (rows.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                               pl.col("light_tiles_drawn").cast(pl.Int64))
             .group_by([*keys, pl.col("deal_id").alias("cluster")])
             .agg(score_sum=pl.col("score").cast(pl.Int64).sum(),
                  player_games=pl.len().cast(pl.Int64)))
    # Both are aggregates streamed from the shards: the rows are never held.
    table, units = collect_streaming(table), collect_streaming(units)
    intervals = grouped_ratio_intervals(units, keys, "score_sum", "player_games", "mean")
    positions = [mean_pick_position(p, light, s) for p, light, s in
                 table.select("players", "light_tiles_drawn", "seat").iter_rows()]
    return table.with_columns(mean_position=pl.Series(positions, dtype=pl.Float64)).join(
        intervals.select(*keys, "mean_low", "mean_high"), on=keys, how="left")


TOKEN_EFFECT_METHOD = ("regression on the tree phases led, within each game (game fixed "
                       "effects) with seat fixed effects, cluster-robust by deal")


def extra_token_effect(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules): what leading one more tree phase is worth, in points and in win
    chance, holding the game and the seat fixed, with 95% intervals.

    Model (statsmodels OLS, one per outcome): outcome = game effect + seat effect
    + beta * tree phases led + error. The game effects are removed by centring every variable
    within its game (the within estimator), the seat effects are centred seat indicators, and
    the covariance is cluster-robust by deal (games of a deal share it); the interval uses t on
    deals - 1 degrees of freedom. Seat and token are tied together (the first seats lead the
    extra phases), so leaving the seat out would credit the token with the seat's advantage.
    """
    import statsmodels.api as sm

    frame = (rows.select("game_id", "deal_id", *PANEL, "seat", "score", "win",
                         "tree_phases_as_token_holder")
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
             .sort(["game_id", "seat"]).collect())
    results = []
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        if players < 2:
            continue
        centred = panel.with_columns(
            [(pl.col(c).cast(pl.Float64) - pl.col(c).cast(pl.Float64).mean().over("game_id"))
             .alias(f"{c}_within") for c in ("score", "win", "tree_phases_as_token_holder")])
        token = centred["tree_phases_as_token_holder_within"].to_numpy()
        if not np.any(np.abs(token) > 1e-12):
            continue  # every seat led as many phases in every game: nothing to estimate
        seat = panel["seat"].to_numpy()
        seat_columns = [(seat == s).astype(float) - 1.0 / players for s in range(1, players)]
        design = np.column_stack([token, *seat_columns])
        deals = panel["deal_id"].to_numpy()
        clusters = int(np.unique(deals).size)
        critical = t_critical(clusters, confidence)
        record = {"players": int(players), "rules": rules,
                  "games": int(panel["game_id"].n_unique()), "clusters": clusters}
        for outcome, name in (("score_within", "score_gap"), ("win_within", "win_gap")):
            fit = sm.OLS(centred[outcome].to_numpy(), design).fit(
                method="qr", cov_type="cluster", cov_kwds={"groups": deals})
            estimate, se = float(fit.params[0]), float(fit.bse[0])
            record.update({name: estimate, f"{name}_low": estimate - critical * se,
                           f"{name}_high": estimate + critical * se})
        results.append(record)
    return pl.DataFrame(results)
