"""Seat advantage: win rate and mean score by seat, a test of "all seats equal", every gap
between two seats with simultaneous intervals, a fairness verdict against a stated margin, and
(Legendary Forests) the worth of holding the construction token.

A seat effect can only be told from a strategy effect when every seat sees the same mix of
strategies (a mirror lineup, or lineups rotated over the seats). The test and the verdict are
given only then; ``balanced`` says whether they were.

Seats are 0-based here and in Parquet (seat 0 plays first); texts a person reads add 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from sim.stats.clustered import (
    WIN_SCALE,
    ContrastIntervals,
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
# The design margin of "fair": every seat's win rate within this many percentage points of
# every other's (as a proportion).
FAIR_MARGIN = 0.02

SEAT_TEST_SCHEMA = {
    "players": pl.Int64, "rules": pl.String, "games": pl.Int64, "clusters": pl.Int64,
    "balanced": pl.Boolean, "wald_f": pl.Float64, "numerator_df": pl.Int64,
    "denominator_df": pl.Int64, "p_value": pl.Float64,
    "best_seat": pl.Int64, "worst_seat": pl.Int64, "win_gap": pl.Float64,
    "win_gap_low": pl.Float64, "win_gap_high": pl.Float64, "win_gap_bound": pl.Float64,
    "high_score_seat": pl.Int64, "low_score_seat": pl.Int64, "score_gap": pl.Float64,
    "score_gap_low": pl.Float64, "score_gap_high": pl.Float64, "score_gap_bound": pl.Float64,
    "fair_margin": pl.Float64, "verdict": pl.String, "gap_method": pl.String,
}
SEAT_GAP_SCHEMA = {
    "players": pl.Int64, "rules": pl.String, "seat": pl.Int64, "other_seat": pl.Int64,
    "win_gap": pl.Float64, "win_gap_low": pl.Float64, "win_gap_high": pl.Float64,
    "score_gap": pl.Float64, "score_gap_low": pl.Float64, "score_gap_high": pl.Float64,
}
GAP_METHOD = ("cluster-robust over {unit}s, max-|t| simultaneous intervals over all "
              "{pairs} seat pairs")


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


def seat_tests(histogram: pl.DataFrame, units: pl.DataFrame, unit_name: str = "deal",
               confidence: float = 0.95,
               fair_margin: float = FAIR_MARGIN) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Per (players, rules): the Wald test of equal win rates over seats, the largest gaps in
    win rate and in mean score with their simultaneous intervals, the largest gap the data
    allow (``*_gap_bound``: the widest end of any pair's interval), and the fairness verdict
    (``fair`` / ``unfair`` / ``undecided`` against +-``fair_margin`` on every win-rate gap).

    Returns (tests, every pairwise gap). The gaps come from per-cluster sums of each seat
    (``units``), so the pairing of seats in a game and of games in a deal is kept. The Wald
    test uses the cluster-robust covariance of the seats' win shares, which is valid with
    shared wins (fractional counts), unlike a Pearson test on win counts.
    """
    balance = strategy_mix_is_balanced(histogram)
    tests, gaps = [], []
    for (players, rules), panel_units in sorted(units.partition_by(PANEL, as_dict=True).items()):
        games = int(panel_units.filter(pl.col("seat") == 0)["player_games"].sum())
        balanced = bool(balance.filter((pl.col("players") == players)
                                       & (pl.col("rules") == rules))["balanced"][0])
        family = seat_gap_family(panel_units, confidence)
        seats, pairs, win, score = family.seats, family.pairs, family.win, family.score
        wald, clusters = family.wald, family.clusters
        if len(seats) < 2:  # solo games: no seat to compare with
            tests.append({"players": players, "rules": rules, "games": games,
                          "clusters": clusters, "balanced": balanced,
                          "gap_method": "one seat", "fair_margin": fair_margin})
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
            "balanced": balanced,
            "wald_f": wald.statistic if balanced else None,
            "numerator_df": wald.numerator_df if balanced else None,
            "denominator_df": wald.denominator_df if balanced else None,
            "p_value": wald.p_value if balanced else None,
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
            "verdict": equivalence_verdict(win.low, win.high, fair_margin) if balanced else None,
            "gap_method": GAP_METHOD.format(unit=unit_name, pairs=len(pairs)),
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
                   pl.col("light_tiles_drawn").cast(pl.Int64)).sort(keys).collect())
    units = (rows.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                               pl.col("light_tiles_drawn").cast(pl.Int64))
             .group_by([*keys, pl.col("deal_id").alias("cluster")])
             .agg(score_sum=pl.col("score").cast(pl.Int64).sum(),
                  player_games=pl.len().cast(pl.Int64)).collect())
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
