"""Score distributions and win rates, from a histogram that both stores provide.

The rows store is first counted into the summary store's form: one row per (players, rules,
strategy, seat, score) with ``count``, ``win_sum`` and ``shared_wins``. Means, SDs, quantiles,
histograms, win rates and tie rates all follow exactly from those counts, so the two stores give
the same numbers for the same games.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.stats.batch import Batch, collect_streaming
from sim.stats.clustered import WIN_SCALE, grouped_ratio_table
from sim.stats.intervals import proportion_interval

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)
HISTOGRAM_KEYS = ["players", "rules", "strategy", "seat", "score"]


def score_histogram(batch: Batch, rows: pl.LazyFrame | None = None) -> pl.DataFrame:
    """Counts per (players, rules, strategy, seat, score): ``count``, ``win_sum``,
    ``shared_wins``. ``rows`` may be a frame already read from the rows store (to read once)."""
    if batch.is_rows:
        source = rows if rows is not None else batch.scan(["players", "rules", "strategy",
                                                            "seat", "score", "win"])
        counted = source.group_by(HISTOGRAM_KEYS).agg(
            count=pl.len().cast(pl.Int64),
            win_sum=pl.col("win").cast(pl.Float64).sum(),
            shared_wins=((pl.col("win") > 0) & (pl.col("win") < 1)).sum().cast(pl.Int64),
        )
    else:
        counted = batch.scan([*HISTOGRAM_KEYS, "count", "win_sum", "shared_wins"]).group_by(
            HISTOGRAM_KEYS).agg(pl.col("count").sum(), pl.col("win_sum").sum(),
                                pl.col("shared_wins").sum())
    counted = (counted.with_columns(pl.col("players").cast(pl.Int64),
                                    pl.col("seat").cast(pl.Int64), pl.col("score").cast(pl.Int64),
                                    pl.col("strategy").cast(pl.String))
               .sort(HISTOGRAM_KEYS))
    # The rows are streamed from the shards (never held); the summary store is small already.
    return collect_streaming(counted) if batch.is_rows else counted.collect()


def _quantile_expression(q: float) -> pl.Expr:
    """Inverse of the empirical distribution function: the smallest score whose cumulative
    count reaches q * n (scores sorted ascending within the group)."""
    cumulative = pl.col("count").cum_sum()
    return pl.col("score").filter(cumulative >= q * pl.col("count").sum()).first()


def distribution_table(histogram: pl.DataFrame, units: pl.DataFrame,
                       by: list[str]) -> pl.DataFrame:
    """Per group of ``by``: player-games, mean score with CI, SD, quantiles, win rate with CI
    and tie rate (share of player-games won in a tie) with CI.

    The mean, the win rate and the tie rate are ratio means over player-games with
    cluster-robust standard errors over the batch's independent units (``units``: deals, or
    shards for an old summary store; see ``sim.stats.clustered``), so the correlation of the
    seats of a game and of the replays of a deal is counted. The mean has a t interval; the two
    rates are proportions and get ``proportion_interval`` (Wilson at the effective sample size),
    which stays inside [0, 1] and is one-sided at 0% or 100%. Bounds are null where no interval
    exists (fewer than 2 clusters); ``win_rate_se`` and ``tie_rate_se`` are the standard
    errors behind them. A strategy that fills every seat of every game of its (players, rules)
    has a win rate fixed by construction (1 / players): ``win_rate_fixed`` is then true and it
    has no interval.
    """
    weighted = pl.col("count").cast(pl.Float64)
    table = (histogram.sort([*by, "score"]).group_by(by, maintain_order=True).agg(
        player_games=pl.col("count").sum(),
        mean=(weighted * pl.col("score")).sum() / weighted.sum(),
        sum_squares=(weighted * pl.col("score").cast(pl.Float64) ** 2).sum(),
        wins=pl.col("win_sum").sum(),
        shared_wins=pl.col("shared_wins").sum(),
        **{f"q{round(q * 100):02d}": _quantile_expression(q) for q in QUANTILES},
    ).sort(by))
    n = table["player_games"].to_numpy().astype(float)
    mean = table["mean"].to_numpy()
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (table["sum_squares"].to_numpy() - n * mean ** 2) / (n - 1)
    sd = np.sqrt(np.maximum(variance, 0.0))
    intervals = grouped_ratio_table(units, by, "player_games",
                                    {"mean": "score_sum", "win_rate": "win_units",
                                     "tie_rate": "shared_wins"})
    table = (table.drop("sum_squares").with_columns(sd=pl.Series(sd))
             .join(intervals.select(*by, "mean_low", "mean_high", "mean_clusters",
                                    (pl.col("win_rate", "win_rate_se") / WIN_SCALE),
                                    "tie_rate_se", "tie_rate_clusters"),
                   on=by, how="left", nulls_equal=True))
    fixed = _win_rate_fixed(units, by)
    table = table.join(fixed, on=by, how="left", nulls_equal=True).with_columns(
        pl.col("win_rate_fixed").fill_null(False),
        tie_rate=pl.col("shared_wins") / pl.col("player_games"))
    n = table["player_games"].to_numpy()
    clusters = table["mean_clusters"].fill_null(0).to_numpy()
    bounds = {}
    for rate in ("win_rate", "tie_rate"):
        low, high = proportion_interval(table[rate].to_numpy(), table[f"{rate}_se"].to_numpy(),
                                        clusters, n)
        bounds[f"{rate}_low"] = pl.Series(low).fill_nan(None)
        bounds[f"{rate}_high"] = pl.Series(high).fill_nan(None)
    fixed_rate = pl.col("win_rate_fixed")
    return table.with_columns(**bounds).with_columns(
        win_rate=pl.when(fixed_rate).then(1.0 / pl.col("players").cast(pl.Float64))
        .otherwise(pl.col("win_rate")),
        win_rate_low=pl.when(fixed_rate).then(None).otherwise(pl.col("win_rate_low")),
        win_rate_high=pl.when(fixed_rate).then(None).otherwise(pl.col("win_rate_high")),
        win_rate_se=pl.when(fixed_rate).then(None).otherwise(pl.col("win_rate_se")),
    ).drop("tie_rate_clusters").rename({"mean_clusters": "clusters"})


def _win_rate_fixed(units: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    """True for groups pooled over seats whose strategy is the only one in its (players,
    rules): every game's single win then falls to it, so its win rate is exactly 1 / players."""
    if "seat" in by or "strategy" not in by:
        return units.select(by).unique().with_columns(win_rate_fixed=pl.lit(False))
    panel = [c for c in by if c != "strategy"]
    alone = units.group_by(panel).agg(strategies=pl.col("strategy").n_unique())
    return (units.select(by).unique().join(alone, on=panel, how="left", nulls_equal=True)
            .select(*by, win_rate_fixed=pl.col("strategies") == 1))


def distributions(histogram: pl.DataFrame, units: pl.DataFrame) -> pl.DataFrame:
    """``distribution_table`` per (players, rules, strategy, seat), plus one row per
    (players, rules, strategy) pooled over seats with ``seat`` null."""
    per_seat = distribution_table(histogram, units, ["players", "rules", "strategy", "seat"])
    pooled = distribution_table(histogram, units, ["players", "rules", "strategy"]).with_columns(
        seat=pl.lit(None, dtype=pl.Int64))
    return pl.concat([per_seat, pooled.select(per_seat.columns)]).sort(
        ["players", "rules", "strategy", "seat"], nulls_last=True)


def pooled_histogram(histogram: pl.DataFrame) -> pl.DataFrame:
    """Counts per (players, rules, strategy, score), summed over seats (for plotting)."""
    return (histogram.group_by(["players", "rules", "strategy", "score"])
            .agg(pl.col("count").sum()).sort(["players", "rules", "strategy", "score"]))
