"""Strategy against strategy: head-to-head results and the gaps between strategies' means."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import polars as pl

from sim.stats.clustered import (
    WIN_SCALE,
    contrast_intervals,
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


# A game's pair outcome is a multiple of 1 / (2 a b) for a seats of one strategy and b of the
# other (a + b <= 5 players, so a b <= 6): times 120, the lcm of 2, 4, ..., 12, an integer.
AHEAD_SCALE = 120


def head_to_head(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, strategy, opponent): how often a seat of ``strategy`` finishes ahead
    of a seat of ``opponent`` in games where both play (a tie counts one half).

    Within a game every pair of seats of the two strategies is compared and the outcomes
    averaged into one value per game (``pair_outcomes``). The rate is the mean over games; its
    interval is cluster-robust over deals (the replays of a deal share it): the clustered Wilson
    interval (``sim.stats.intervals.proportion_interval``), t on deals - 1 degrees of freedom,
    inside 0-100%. Empty when no game mixes strategies.

    The rows are read in chunks of whole deals; each chunk leaves, per (players, rules,
    strategy, opponent), exact integer sums over its deals of the games, the outcomes (times
    ``AHEAD_SCALE``) and their squares and products, so memory does not grow with the games and
    the result does not depend on the chunks.
    """
    from sim.stats.variance import exact_ratio_intervals, summarise_whole_deals

    keys = [*PANEL, "strategy", "opponent"]
    sums = ("clusters", "games", "total", "games_squares", "cross", "total_squares")

    def summarise(chunk: pl.DataFrame) -> pl.DataFrame:
        per_deal = (pair_outcomes(chunk.lazy(), PANEL)
                    .with_columns(pl.col("players").cast(pl.Int64),
                                  scaled=(pl.col("ahead") * AHEAD_SCALE).round().cast(pl.Int64))
                    .group_by([*keys, "deal_id"])
                    .agg(n=pl.len().cast(pl.Int64), y=pl.col("scaled").sum()))
        return (per_deal.group_by(keys)
                .agg(clusters=pl.len().cast(pl.Int64), games=pl.col("n").sum(),
                     total=pl.col("y").sum(), games_squares=(pl.col("n") * pl.col("n")).sum(),
                     cross=(pl.col("n") * pl.col("y")).sum(),
                     total_squares=(pl.col("y") * pl.col("y")).sum())
                .collect())

    parts = [part for part in summarise_whole_deals(
        rows, ["game_id", "deal_id", *PANEL, "strategy", "rank"], summarise) if part.height]
    if not parts:
        return pl.DataFrame()
    # A deal lies in one chunk, so the chunks' sums (and cluster counts) add up.
    table = (pl.concat(parts).group_by(keys).agg(pl.col(name).sum() for name in sums)
             .sort(keys))
    scale = AHEAD_SCALE
    fitted = exact_ratio_intervals(
        table["clusters"].to_list(), table["games"].to_list(),
        [Fraction(value, scale) for value in table["total"].to_list()],
        table["games_squares"].to_list(),
        [Fraction(value, scale) for value in table["cross"].to_list()],
        [Fraction(value, scale * scale) for value in table["total_squares"].to_list()],
        confidence)
    games = table["games"].to_numpy()
    clusters = table["clusters"].to_numpy()
    # A share: the clustered Wilson interval stays inside 0-100% (a strategy that is always
    # ahead gets a one-sided interval, not "100% +- 0").
    low, high = proportion_interval(fitted["mean"], fitted["se"], clusters, games, confidence)
    return table.select(*keys, pl.col("games").cast(pl.UInt32)).with_columns(
        ahead_rate=pl.Series(fitted["mean"]), ahead_rate_se=pl.Series(fitted["se"]),
        ahead_rate_low=pl.Series(low), ahead_rate_high=pl.Series(high),
        ahead_rate_clusters=pl.Series(clusters))


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
