"""Strategy against strategy: head-to-head results and the gaps between strategies' means."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.clustered import (
    WIN_SCALE,
    contrast_intervals,
    grouped_ratio_intervals,
    pairwise_contrasts,
)
from sim.stats.intervals import proportion_interval
from sim.stats.units import SUM_COLUMNS, ClusterMoments

PANEL = ["players", "rules"]


def pair_outcomes(rows: pl.LazyFrame, keys: list[str]) -> pl.LazyFrame:
    """Per game and (strategy, opponent) of two different strategies seated in it: the share of
    their seat pairs in which the strategy's seat finished ahead of the opponent's (a tie counts
    one half; tied seats share a rank).

    ``rows`` holds one row per player-game with ``game_id``, ``deal_id``, ``keys``, ``strategy``
    and ``rank``; games are told apart by ``game_id`` within ``keys``. The result has
    ``game_id``, ``deal_id``, ``keys``, ``strategy``, ``opponent`` and ``ahead``.
    """
    game = ["game_id", *keys]
    seats = (rows.select("game_id", "deal_id", *keys, "strategy", "rank")
             .filter(pl.col("strategy").n_unique().over(game) > 1))
    pairs = (seats.join(seats.select(*game, pl.col("strategy").alias("opponent"),
                                     pl.col("rank").alias("opponent_rank")), on=game)
             .filter(pl.col("strategy") != pl.col("opponent"))
             .with_columns(ahead=(pl.col("rank") < pl.col("opponent_rank")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("opponent_rank")).cast(pl.Float64)))
    return pairs.group_by([*game, "deal_id", "strategy", "opponent"]).agg(pl.col("ahead").mean())


def head_to_head(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, strategy, opponent): how often a seat of ``strategy`` finishes ahead
    of a seat of ``opponent`` in games where both play (a tie counts one half).

    Within a game every pair of seats of the two strategies is compared and the outcomes
    averaged into one value per game (``pair_outcomes``). The rate is the mean over games; its
    interval is cluster-robust over deals (the replays of a deal share it): the clustered Wilson
    interval (``sim.stats.intervals.proportion_interval``), t on deals - 1 degrees of freedom,
    inside 0-100%. Empty when no game mixes strategies.
    """
    # Pair outcomes per game are multiples of 1/(2 * pairs); sums of them over a deal are
    # formed in a fixed order below, so the result does not depend on threads.
    per_game = (pair_outcomes(rows, PANEL)
                .with_columns(pl.col("players").cast(pl.Int64), games=pl.lit(1, pl.Int64))
                .rename({"deal_id": "cluster"})
                .sort(["players", "rules", "strategy", "opponent", "cluster", "game_id"])
                .collect())
    if per_game.is_empty():
        return pl.DataFrame()
    keys = [*PANEL, "strategy", "opponent"]
    intervals = grouped_ratio_intervals(per_game, keys, "ahead", "games", "ahead_rate",
                                        confidence=confidence)
    games = per_game.group_by(keys).agg(games=pl.len())
    table = intervals.join(games, on=keys).sort(keys)
    # A share: the clustered Wilson interval stays inside 0-100% (a strategy that is always
    # ahead gets a one-sided interval, not "100% +- 0").
    low, high = proportion_interval(table["ahead_rate"].to_numpy(),
                                    table["ahead_rate_se"].to_numpy(),
                                    table["ahead_rate_clusters"].to_numpy(),
                                    table["games"].to_numpy(), confidence)
    return table.with_columns(ahead_rate_low=pl.Series(low), ahead_rate_high=pl.Series(high)
                              ).select(*keys, "games", "ahead_rate", "ahead_rate_se",
                                       "ahead_rate_low", "ahead_rate_high",
                                       "ahead_rate_clusters")


GAP_METHOD = {
    True: "seat-standardised means (each seat weighted equally), cluster-robust, max-|t| "
          "simultaneous intervals over all strategy pairs",
    False: "pooled means (the strategies do not sit equally in every seat, so seat and strategy "
           "are mixed), cluster-robust, max-|t| simultaneous intervals over all strategy pairs",
}


def strategy_gaps(units: pl.DataFrame | ClusterMoments, balance: pl.DataFrame,
                  confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules) with several strategies: the gap in mean score between the strategies
    with the highest and the lowest mean, with its simultaneous interval over all pairs.

    When every seat sees the same mix of strategies (``balance``), each strategy's mean is
    standardised over seats (the average of its per-seat means), which holds the seat fixed; the
    covariance comes from the per-cluster sums of every (strategy, seat) (``units``:
    ``cluster_units`` or its ``ClusterMoments``), so strategies that share games are compared
    with their shared luck taken out.
    """
    if not isinstance(units, ClusterMoments):
        units = ClusterMoments.from_units(units)
    results = []
    for (players, rules), panel in units.panels.items():
        strategies = panel.strategies
        if len(strategies) < 2:
            continue
        balanced = bool(balance.filter((pl.col("players") == players)
                                       & (pl.col("rules") == rules))["balanced"][0])
        cells = np.eye(len(panel.cells), dtype=np.int64)
        means = panel.ratio_means("score_sum", cells)
        weights = np.zeros((len(strategies), len(panel.cells)))
        for k, (strategy, _) in enumerate(panel.cells):
            weights[strategies.index(strategy), k] = 1.0
        if balanced:
            weights /= weights.sum(axis=1, keepdims=True)
        else:
            weights *= means.counts[None, :]
            weights /= weights.sum(axis=1, keepdims=True)
        strategy_means = weights @ means.means
        pair_matrix, pairs = pairwise_contrasts(len(strategies))
        intervals = contrast_intervals(means, pair_matrix @ weights, confidence)
        best, worst = int(np.argmax(strategy_means)), int(np.argmin(strategy_means))
        row = pairs.index((min(best, worst), max(best, worst)))
        sign = 1.0 if best < worst else -1.0
        low, high = ((intervals.low[row], intervals.high[row]) if sign > 0
                     else (-intervals.high[row], -intervals.low[row]))
        wins = panel.totals[SUM_COLUMNS.index("win_units")].astype(float)
        games = panel.totals[SUM_COLUMNS.index("player_games")].astype(float)
        win_rates = (wins @ (weights > 0).T / (games @ (weights > 0).T)) / WIN_SCALE
        results.append({"players": int(players), "rules": rules, "best": strategies[best],
                        "worst": strategies[worst],
                        "score_gap": float(sign * intervals.estimates[row]),
                        "score_gap_low": float(low), "score_gap_high": float(high),
                        "score_gap_bound": float(np.max(np.maximum(np.abs(intervals.low),
                                                                   np.abs(intervals.high)))),
                        "best_win_rate": float(win_rates[best]),
                        "worst_win_rate": float(win_rates[worst]),
                        "method": GAP_METHOD[balanced]})
    return pl.DataFrame(results)
