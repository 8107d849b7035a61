"""Seat advantage: win rate and mean score by seat, a test of "all seats equal", the largest gap
with its interval, and (Legendary Forests) the worth of holding the construction token.

A seat effect can only be told from a strategy effect when every seat sees the same mix of
strategies (a mirror lineup, or lineups rotated over the seats). The test is run only then;
``balanced`` says whether it was.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.intervals import (
    bonferroni_z,
    equal_shares_test,
    mean_interval,
    multinomial_difference_se,
)
from sim.stats.scores import distribution_table

PANEL = ["players", "rules"]
# Largest difference in a strategy's share of a seat's player-games across seats that still
# counts as "the same mix at every seat".
BALANCE_TOLERANCE = 0.01


SEAT_TEST_SCHEMA = {
    "players": pl.Int64, "rules": pl.String, "games": pl.Int64, "balanced": pl.Boolean,
    "chi_square": pl.Float64, "degrees_of_freedom": pl.Int64, "p_value": pl.Float64,
    "best_seat": pl.Int64, "worst_seat": pl.Int64, "win_gap": pl.Float64,
    "win_gap_low": pl.Float64, "win_gap_high": pl.Float64, "high_score_seat": pl.Int64,
    "low_score_seat": pl.Int64, "score_gap": pl.Float64, "score_gap_low": pl.Float64,
    "score_gap_high": pl.Float64, "gap_method": pl.String,
}


def seat_table(histogram: pl.DataFrame) -> pl.DataFrame:
    """Per (players, rules, seat), pooled over strategies: mean score and win rate with CIs."""
    return distribution_table(histogram, [*PANEL, "seat"])


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


def _paired_gaps(rows: pl.LazyFrame, players: int, rules: str, first: int, second: int,
                 value: str) -> tuple[float, float, int]:
    """Mean and SE of (value at seat ``first`` - value at seat ``second``) over games."""
    sign = pl.when(pl.col("seat") == first).then(1.0).otherwise(-1.0)
    per_game = (rows.filter((pl.col("players") == players) & (pl.col("rules") == rules)
                            & pl.col("seat").is_in([first, second]))
                .group_by("game_id").agg(difference=(sign * pl.col(value).cast(pl.Float64)).sum())
                .select(mean=pl.col("difference").mean(), sd=pl.col("difference").std(),
                        n=pl.len()).collect())
    mean, sd, n = per_game.row(0)
    return mean, sd / np.sqrt(n), n


def seat_tests(histogram: pl.DataFrame, rows: pl.LazyFrame | None = None,
               confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules): the chi-square test of equal win shares over seats and the largest
    gaps in win rate and in mean score between two seats, with simultaneous intervals.

    The gap is between the best and worst seat, chosen after seeing the data, so its interval
    uses the Bonferroni z over all P(P-1)/2 seat pairs. With ``rows`` (rows store) the gaps'
    standard errors come from per-game differences between the two seats (exact pairing);
    from the summary store the win gap uses the multinomial variance (p_i + p_j - (p_i - p_j)^2)
    / n and the score gap treats the two seats' scores as independent.
    """
    table = seat_table(histogram)
    balance = strategy_mix_is_balanced(histogram)
    results = []
    for (players, rules), panel in table.group_by(PANEL, maintain_order=True):
        panel = panel.sort("seat")
        seats = panel["seat"].to_numpy()
        games = int(panel["player_games"].min())
        wins = panel["wins"].to_numpy()
        balanced = bool(balance.filter((pl.col("players") == players)
                                       & (pl.col("rules") == rules))["balanced"][0])
        if seats.size < 2:  # solo games: no seat to compare with
            results.append({"players": players, "rules": rules, "games": games,
                            "balanced": balanced, "gap_method": "one seat"})
            continue
        test = equal_shares_test(wins) if balanced else None
        z = bonferroni_z(seats.size * (seats.size - 1) // 2, confidence)
        rate, mean, sd = (panel["win_rate"].to_numpy(), panel["mean"].to_numpy(),
                          panel["sd"].to_numpy())
        best, worst = int(np.argmax(rate)), int(np.argmin(rate))
        high, low = int(np.argmax(mean)), int(np.argmin(mean))
        if rows is not None:
            win_gap, win_se, _ = _paired_gaps(rows, players, rules, int(seats[best]),
                                              int(seats[worst]), "win")
            score_gap, score_se, _ = _paired_gaps(rows, players, rules, int(seats[high]),
                                                  int(seats[low]), "score")
            method = "paired by game"
        else:
            win_gap = rate[best] - rate[worst]
            win_se = float(multinomial_difference_se(rate[best], rate[worst], games))
            score_gap = mean[high] - mean[low]
            score_se = float(np.sqrt((sd[high] ** 2 + sd[low] ** 2) / games))
            method = "summary store: multinomial (win), independent seats (score)"
        results.append({
            "players": players, "rules": rules, "games": games, "balanced": balanced,
            "chi_square": test.statistic if test else None,
            "degrees_of_freedom": test.degrees_of_freedom if test else None,
            "p_value": test.p_value if test else None,
            "best_seat": int(seats[best]), "worst_seat": int(seats[worst]),
            "win_gap": win_gap, "win_gap_low": win_gap - z * win_se,
            "win_gap_high": win_gap + z * win_se,
            "high_score_seat": int(seats[high]), "low_score_seat": int(seats[low]),
            "score_gap": score_gap, "score_gap_low": score_gap - z * score_se,
            "score_gap_high": score_gap + z * score_se,
            "gap_method": method,
        })
    return pl.DataFrame(results, schema=SEAT_TEST_SCHEMA)


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
    position, mean score and win rate with intervals (Legendary Forests rows store)."""
    keys = [*PANEL, "light_tiles_drawn", "seat"]
    table = (rows.group_by(keys).agg(
        player_games=pl.len(),
        first_picks=pl.col("tree_phases_as_token_holder").cast(pl.Float64).mean(),
        mean=pl.col("score").cast(pl.Float64).mean(),
        sd=pl.col("score").cast(pl.Float64).std(),
        win_rate=pl.col("win").cast(pl.Float64).mean(),
    ).with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                   pl.col("light_tiles_drawn").cast(pl.Int64)).sort(keys).collect())
    positions = [mean_pick_position(p, light, s) for p, light, s in
                 table.select("players", "light_tiles_drawn", "seat").iter_rows()]
    low, high = mean_interval(table["mean"].to_numpy(), table["sd"].fill_null(np.nan).to_numpy(),
                              table["player_games"].to_numpy())
    return table.with_columns(mean_position=pl.Series(positions, dtype=pl.Float64),
                              mean_low=pl.Series(low), mean_high=pl.Series(high))


def extra_token_effect(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules): how much more the seats that held the construction token one more
    time than the others score and win, with intervals.

    When the light tiles drawn are not a multiple of the player count, the first seats lead one
    tree phase more. Within each such game the difference d = mean(score of those seats) -
    mean(score of the others) is taken; games are independent, so the interval is
    mean(d) +- z SD(d) / sqrt(games).
    """
    holder = pl.col("tree_phases_as_token_holder").cast(pl.Int64)
    extra = holder > holder.min().over("game_id")
    per_game = (rows.with_columns(extra=extra)
                .group_by(["game_id", *PANEL])
                .agg(score_gap=(pl.col("score").filter(pl.col("extra")).cast(pl.Float64).mean()
                                - pl.col("score").filter(~pl.col("extra")).cast(pl.Float64)
                                .mean()),
                     win_gap=(pl.col("win").filter(pl.col("extra")).cast(pl.Float64).mean()
                              - pl.col("win").filter(~pl.col("extra")).cast(pl.Float64).mean()))
                .drop_nulls(["score_gap"]))
    summary = per_game.group_by(PANEL).agg(
        games=pl.len(),
        score_gap=pl.col("score_gap").mean(), score_sd=pl.col("score_gap").std(),
        win_gap=pl.col("win_gap").mean(), win_sd=pl.col("win_gap").std(),
    ).with_columns(pl.col("players").cast(pl.Int64)).sort(PANEL).collect()
    if summary.is_empty():
        return summary
    score_low, score_high = mean_interval(summary["score_gap"].to_numpy(),
                                          summary["score_sd"].to_numpy(),
                                          summary["games"].to_numpy())
    win_low, win_high = mean_interval(summary["win_gap"].to_numpy(),
                                      summary["win_sd"].to_numpy(), summary["games"].to_numpy())
    return summary.drop("score_sd", "win_sd").with_columns(
        score_gap_low=pl.Series(score_low), score_gap_high=pl.Series(score_high),
        win_gap_low=pl.Series(win_low), win_gap_high=pl.Series(win_high))
