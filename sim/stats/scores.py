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
from sim.stats.clustered import WIN_SCALE, t_critical
from sim.stats.intervals import proportion_interval
from sim.stats.units import ClusterMoments

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


def distribution_table(histogram: pl.DataFrame, units: pl.DataFrame | ClusterMoments,
                       by: list[str]) -> pl.DataFrame:
    """Per group of ``by``: player-games, mean score with CI, SD, quantiles, win rate with CI
    and tie rate (share of player-games won in a tie) with CI.

    The mean, the win rate and the tie rate are ratio means over player-games with
    cluster-robust standard errors over the batch's independent units (``units``: deals, or
    shards for an old summary store; see ``sim.stats.clustered``; their per-cluster sums or, in
    bounded memory, their ``ClusterMoments``), so the correlation of the
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
    moments = units if isinstance(units, ClusterMoments) else ClusterMoments.from_units(units)
    intervals = _moment_intervals(moments, by)
    table = (table.drop("sum_squares").with_columns(sd=pl.Series(sd))
             .join(intervals, on=by, how="left", nulls_equal=True))
    fixed = _win_rate_fixed(moments, by)
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


def _moment_intervals(moments: ClusterMoments, by: list[str],
                      confidence: float = 0.95) -> pl.DataFrame:
    """Per group of ``by`` (``players`` and ``rules`` and any of ``strategy``, ``seat``): the
    clustered intervals ``distribution_table`` joins, as ``grouped_ratio_table`` gives them
    (ratio means, CR1 over the clusters the group appears in, t on clusters - 1), from exact
    moments: the mean score's bounds and clusters, the win rate and its SE (per win), the tie
    rate's SE."""
    if by[:2] != ["players", "rules"]:
        raise ValueError(f"groups must start with players and rules, not {by}")
    cell_fields = by[2:]
    records: dict[str, list] = {name: [] for name in by}
    estimates: dict[str, list] = {name: [] for name in (
        "mean", "mean_se", "mean_clusters", "win_rate", "win_rate_se", "tie_rate_se")}
    for (players, rules), panel in moments.panels.items():
        keys, groups = panel.groups(cell_fields)
        clusters = panel.group_clusters(groups)
        for key in keys:
            for name, value in zip(by, (players, rules, *key), strict=True):
                records[name].append(value)
        estimates["mean_clusters"] += clusters.tolist()
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(clusters >= 2, clusters / (clusters - 1.0), np.nan)
        for prefix, value in (("mean", "score_sum"), ("win_rate", "win_units"),
                              ("tie_rate", "shared_wins")):
            y_total, x_total, numerators = panel.ratio_numerators(value, groups)
            squares = np.array([numerators[g, g] / x_total[g] ** 4 if x_total[g] else np.nan
                                for g in range(len(keys))])
            estimates[f"{prefix}_se"] += np.sqrt(factor * squares).tolist()
            if prefix != "tie_rate":
                estimates[prefix] += [y / x if x else np.nan
                                      for y, x in zip(y_total, x_total, strict=True)]
    clusters = np.array(estimates["mean_clusters"], dtype=np.int64)
    mean, se = np.array(estimates["mean"], dtype=float), np.array(estimates["mean_se"], float)
    critical = t_critical(clusters.astype(float), confidence)
    schema = {"players": pl.Int64, "rules": pl.String, "strategy": pl.String, "seat": pl.Int64}
    return pl.DataFrame(records, schema={name: schema[name] for name in by}).with_columns(
        mean_low=pl.Series(mean - critical * se), mean_high=pl.Series(mean + critical * se),
        mean_clusters=pl.Series(clusters),
        # In win units (exact integers) until here, as the per-cluster sums are.
        win_rate=pl.Series(np.array(estimates["win_rate"], dtype=float)) / WIN_SCALE,
        win_rate_se=pl.Series(np.array(estimates["win_rate_se"], dtype=float)) / WIN_SCALE,
        tie_rate_se=pl.Series(np.array(estimates["tie_rate_se"], dtype=float)),
        tie_rate_clusters=pl.Series(clusters))


def _win_rate_fixed(moments: ClusterMoments, by: list[str]) -> pl.DataFrame:
    """True for groups pooled over seats whose strategy is the only one in its (players,
    rules): every game's single win then falls to it, so its win rate is exactly 1 / players."""
    pooled = "seat" not in by and "strategy" in by
    records = []
    for (players, rules), panel in moments.panels.items():
        keys, _ = panel.groups(by[2:])
        alone = pooled and len(panel.strategies) == 1
        records += [(players, rules, *key, alone) for key in keys]
    schema = {"players": pl.Int64, "rules": pl.String, "strategy": pl.String, "seat": pl.Int64}
    return pl.DataFrame(records, schema={**{name: schema[name] for name in by},
                                         "win_rate_fixed": pl.Boolean}, orient="row")


def distributions(histogram: pl.DataFrame, units: pl.DataFrame | ClusterMoments) -> pl.DataFrame:
    """``distribution_table`` per (players, rules, strategy, seat), plus one row per
    (players, rules, strategy) pooled over seats with ``seat`` null."""
    if not isinstance(units, ClusterMoments):
        units = ClusterMoments.from_units(units)
    per_seat = distribution_table(histogram, units, ["players", "rules", "strategy", "seat"])
    pooled = distribution_table(histogram, units, ["players", "rules", "strategy"]).with_columns(
        seat=pl.lit(None, dtype=pl.Int64))
    return pl.concat([per_seat, pooled.select(per_seat.columns)]).sort(
        ["players", "rules", "strategy", "seat"], nulls_last=True)


def pooled_histogram(histogram: pl.DataFrame) -> pl.DataFrame:
    """Counts per (players, rules, strategy, score), summed over seats (for plotting)."""
    return (histogram.group_by(["players", "rules", "strategy", "score"])
            .agg(pl.col("count").sum()).sort(["players", "rules", "strategy", "score"]))
