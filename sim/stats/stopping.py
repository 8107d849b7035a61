"""When an adaptive sweep point has played enough: the statistics of its stopping rules, on the
rows played so far (``sim.sweep`` asks them after every round; the sweep report states them).

``metric_half_width`` is the rule "until a metric is known to a half-width"; ``seat_verdict`` the
rule "until the seats are decided fair or unfair". Both compute as the batch report does, so a
point stops on the same verdict its report will show.
"""

from __future__ import annotations

import polars as pl


def metric_half_width(rows: pl.LazyFrame, metric: str) -> float:
    """The adaptive metric's largest 95% CI half-width on the rows so far, cluster-robust over
    deals (``sim.stats.clustered``)."""
    # scipy's statistics load when a sweep needs them, not with every command's import.
    from sim.stats.clustered import WIN_SCALE, grouped_ratio_intervals
    from sim.stats.units import win_units

    group = {"seat_win_rate": "seat", "strategy_win_rate": "strategy", "score_mean": "seat"}[metric]
    value = (pl.col("score").cast(pl.Int64) if metric == "score_mean" else win_units())
    units = (rows.group_by(group, pl.col("deal_id").alias("cluster"))
             .agg(value=value.sum(), count=pl.len().cast(pl.Int64)).collect())
    if units.height == 0:
        return float("inf")
    table = grouped_ratio_intervals(units, [group], "value", "count", "estimate")
    half = (table["estimate_high"] - table["estimate"]).max()
    if half is None or half != half:
        return float("inf")
    return float(half) / (1.0 if metric == "score_mean" else WIN_SCALE)


def seat_verdict(rows: pl.LazyFrame, fair_margin: float) -> str:
    """The fairness verdict of the seats on the rows so far, made as the batch report makes it
    (``sim.stats.seats``): with several strategies from the model that holds the lineup fixed;
    ``undecided`` below ``MIN_VERDICT_CLUSTERS`` deals or where the design cannot tell a seat
    from whom it faces (the point then plays on to its cap)."""
    from sim.stats.clustered import MIN_VERDICT_CLUSTERS
    from sim.stats.seats import equivalence_verdict, lineup_model_family, seat_gap_family
    from sim.stats.units import win_units

    units = (rows.group_by("seat", pl.col("deal_id").alias("cluster"))
             .agg(win_units=win_units().sum(), score_sum=pl.col("score").cast(pl.Int64).sum(),
                  player_games=pl.len().cast(pl.Int64))
             .with_columns(pl.col("seat").cast(pl.Int64)).sort(["seat", "cluster"]).collect())
    if units["seat"].n_unique() < 2:
        return "fair"
    family = seat_gap_family(units)
    several = rows.select(pl.col("strategy").n_unique()).collect().item() > 1
    if several:
        fitted = lineup_model_family(
            rows.select("game_id", "deal_id", "seat", "strategy", "score", "win")
            .with_columns(pl.col("seat").cast(pl.Int64), pl.col("strategy").cast(pl.String))
            .collect(), int(units["seat"].n_unique()))
        if isinstance(fitted, str):
            return "undecided"
        family = fitted
    if family.clusters < MIN_VERDICT_CLUSTERS:
        return "undecided"
    return equivalence_verdict(family.win.low, family.win.high, fair_margin)
