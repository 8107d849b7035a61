"""Strategy against strategy: head-to-head results and the gap between the best and worst."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.intervals import bonferroni_z, mean_interval

PANEL = ["players", "rules"]


def head_to_head(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, strategy, opponent): how often a seat of ``strategy`` finishes ahead
    of a seat of ``opponent`` in games where both play (a tie counts one half).

    Within a game every pair of seats of the two strategies is compared and the outcomes
    averaged, so each game is one independent observation; the interval is mean +- z SD / sqrt(n)
    over games. Empty when no game mixes strategies.
    """
    seats = (rows.select("game_id", *PANEL, "strategy", "rank")
             .filter(pl.col("strategy").n_unique().over("game_id") > 1))
    pairs = (seats.join(seats.select("game_id", pl.col("strategy").alias("opponent"),
                                     pl.col("rank").alias("opponent_rank")), on="game_id")
             .filter(pl.col("strategy") != pl.col("opponent"))
             .with_columns(ahead=(pl.col("rank") < pl.col("opponent_rank")).cast(pl.Float64)
                           + 0.5 * (pl.col("rank") == pl.col("opponent_rank")).cast(pl.Float64)))
    per_game = pairs.group_by(["game_id", *PANEL, "strategy", "opponent"]).agg(
        pl.col("ahead").mean())
    table = (per_game.group_by([*PANEL, "strategy", "opponent"])
             .agg(games=pl.len(), ahead_rate=pl.col("ahead").mean(), sd=pl.col("ahead").std())
             .with_columns(pl.col("players").cast(pl.Int64))
             .sort([*PANEL, "strategy", "opponent"]).collect())
    if table.is_empty():
        return table
    low, high = mean_interval(table["ahead_rate"].to_numpy(),
                              table["sd"].fill_null(0.0).to_numpy(), table["games"].to_numpy(),
                              confidence)
    return table.drop("sd").with_columns(ahead_rate_low=pl.Series(np.clip(low, 0.0, 1.0)),
                                         ahead_rate_high=pl.Series(np.clip(high, 0.0, 1.0)))


def strategy_gaps(pooled: pl.DataFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules) with several strategies: the gap in mean score between the strategies
    with the highest and lowest mean, with a Bonferroni interval over all strategy pairs.

    ``pooled`` is the distribution table pooled over seats. The standard error treats the two
    strategies' player-games as independent: exact when they play in different games, and an
    upper bound when they share games whose scores rise and fall together.
    """
    results = []
    for (players, rules), panel in pooled.group_by(PANEL, maintain_order=True):
        if panel.height < 2:
            continue
        panel = panel.sort("mean", descending=True)
        best, worst = panel.row(0, named=True), panel.row(panel.height - 1, named=True)
        z = bonferroni_z(panel.height * (panel.height - 1) // 2, confidence)
        gap = best["mean"] - worst["mean"]
        se = np.sqrt(best["sd"] ** 2 / best["player_games"]
                     + worst["sd"] ** 2 / worst["player_games"])
        results.append({"players": players, "rules": rules, "best": best["strategy"],
                        "worst": worst["strategy"], "score_gap": gap,
                        "score_gap_low": gap - z * se, "score_gap_high": gap + z * se,
                        "best_win_rate": best["win_rate"], "worst_win_rate": worst["win_rate"]})
    return pl.DataFrame(results)
