"""``summary.parquet``: every number of the report in one long table.

Columns: ``section``, ``metric``, the group columns ``players``, ``rules``, ``strategy``,
``seat`` (null when a number is not split that way), ``key`` (any other grouping, e.g.
``tile=7`` or ``score=61``), ``value``, ``ci_low``, ``ci_high`` (null without an interval).
"""

from __future__ import annotations

import polars as pl

from sim.games.base import RotatingRoleAssociation
from sim.report.findings import count_effect_of, declared
from sim.stats.analysis import BatchAnalysis

SCHEMA = {"section": pl.String, "metric": pl.String, "players": pl.Int64, "rules": pl.String,
          "strategy": pl.String, "seat": pl.Int64, "key": pl.String, "value": pl.Float64,
          "ci_low": pl.Float64, "ci_high": pl.Float64}
GROUPS = ("players", "rules", "strategy", "seat")


def long_rows(section: str, frame: pl.DataFrame | None, metrics: list[str],
              keys: list[str] = ()) -> pl.DataFrame:
    """Melt ``frame`` into the long schema: one row per (row of ``frame``, metric).

    A metric ``m`` takes its interval from columns ``m_low`` / ``m_high`` when they exist;
    ``keys`` are further grouping columns folded into ``key`` as ``name=value, ...``.
    """
    if frame is None or frame.is_empty():
        return pl.DataFrame(schema=SCHEMA)
    group_exprs = [pl.col(g).cast(SCHEMA[g]) if g in frame.columns
                   else pl.lit(None, dtype=SCHEMA[g]).alias(g) for g in GROUPS]
    key_expr = (pl.concat_str([pl.format(f"{k}={{}}", pl.col(k)) for k in keys], separator=", ")
                if keys else pl.lit(None, dtype=pl.String)).alias("key")
    parts = []
    for metric in metrics:
        if metric not in frame.columns:
            continue
        low, high = f"{metric}_low", f"{metric}_high"
        parts.append(frame.select(
            pl.lit(section).alias("section"), pl.lit(metric).alias("metric"), *group_exprs,
            key_expr, pl.col(metric).cast(pl.Float64).alias("value"),
            (pl.col(low) if low in frame.columns else pl.lit(None)).cast(pl.Float64)
            .alias("ci_low"),
            (pl.col(high) if high in frame.columns else pl.lit(None)).cast(pl.Float64)
            .alias("ci_high"),
        ))
    return pl.concat(parts) if parts else pl.DataFrame(schema=SCHEMA)


DISTRIBUTION_METRICS = ["player_games", "mean", "sd", "q05", "q25", "q50", "q75", "q95",
                        "win_rate", "tie_rate"]


def summary_table(analysis: BatchAnalysis) -> pl.DataFrame:
    """Every number the report shows, in the long schema."""
    seat_tests = analysis.seat_tests.with_columns(balanced=pl.col("balanced").cast(pl.Float64))
    # The game's own analyses name their sections and key columns (``Game.analyses``).
    role = (declared(analysis, RotatingRoleAssociation) if analysis.role_table is not None
            else None)
    count = count_effect_of(analysis) if analysis.count_table is not None else None
    parts = [
        long_rows("scores", analysis.distributions, DISTRIBUTION_METRICS),
        long_rows("scores", analysis.histogram.rename({"count": "player_games"}),
                  ["player_games"], ["score"]).with_columns(metric=pl.lit("histogram")),
        long_rows("seats", analysis.seats, ["player_games", "mean", "sd", "win_rate",
                                            "tie_rate"]),
        long_rows("seats", seat_tests, ["games", "clusters", "balanced", "wald_f",
                                        "numerator_df", "denominator_df", "p_value",
                                        "best_seat", "worst_seat", "win_gap", "win_gap_bound",
                                        "high_score_seat", "low_score_seat", "score_gap",
                                        "score_gap_bound"]),
        long_rows("seats", seat_tests.filter(pl.col("verdict").is_not_null()), ["fair_margin"],
                  ["verdict"]),
        long_rows("seat gaps", analysis.seat_gaps, ["win_gap", "score_gap"], ["other_seat"]),
        long_rows("categories", analysis.categories, ["player_games", "mean", "sd"],
                  ["category"]),
        long_rows("strategies", analysis.strategy_gaps, ["score_gap"], ["best", "worst"]),
        long_rows("strategies", analysis.head_to_head, ["games", "ahead_rate"], ["opponent"]),
        long_rows(role.section if role else "", analysis.role_table,
                  ["player_games", "first_picks", "mean_position", "mean", "win_rate"],
                  [role.count_column] if role else []),
        long_rows(role.section if role else "", analysis.role_effect,
                  ["games", "score_gap", "win_gap"]),
        long_rows("deal variance", analysis.deal_variance,
                  ["deals", "player_games", "games_per_deal", "between_deal_variance",
                   "within_deal_variance", "icc"]),
        long_rows("tile impact", analysis.removed_items,
                  ["deals_removed", "deals_kept", "mean_removed", "mean_kept", "effect"],
                  ["tile"]),
        long_rows(count.section if count else "", analysis.count_table, ["deals", "mean"],
                  [count.column] if count else []),
        long_rows(count.section if count else "", analysis.count_fit,
                  ["deals", "slope", "lack_of_fit_f", "lack_of_fit_p", "peak_count",
                   "peak_mean", "common_count", "step"]),
        long_rows("convergence", analysis.running.rename({"ci_low": "value_low",
                                                          "ci_high": "value_high"})
                  if not analysis.running.is_empty() else None, ["value", "half_width"],
                  ["metric", "games"]),
        long_rows("convergence", analysis.games_needed.rename({"metric": "estimate"})
                  if not analysis.games_needed.is_empty() else None,
                  ["games_needed"], ["estimate", "precision"]),
    ]
    return pl.concat([p.select(list(SCHEMA)) for p in parts])
