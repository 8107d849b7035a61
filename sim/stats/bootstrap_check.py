"""Check the reported standard errors of a real batch against an independent deal bootstrap.

``python -m sim.stats.bootstrap_check RUN_DIR [--resamples 200]`` resamples the batch's deals
with replacement (each drawn deal keeps all its replays and seats), recomputes the point
estimates with the same functions the report uses, and prints, per quantity, the standard error
behind the reported interval, the bootstrap's standard deviation and their ratio. A ratio near 1
says the interval counts the design's correlation as a brute-force resampling does; the
coverage tests (``tests/stats/test_coverage.py``) check the same on synthetic data with known
truth. Rows store only.
"""

from __future__ import annotations

import argparse
import sys
from types import SimpleNamespace

import numpy as np
import polars as pl

from sim.games.base import (
    GameAnalysis,
    RandomisedCountEffect,
    RemovedItemsEffect,
    RotatingRoleAssociation,
)
from sim.games.registry import get_game
from sim.stats.batch import open_batch
from sim.stats.clustered import t_critical
from sim.stats.rotating_role import role_turn_effect
from sim.stats.scores import distributions, score_histogram
from sim.stats.seats import seat_gap_family, strategy_mix_is_balanced
from sim.stats.strategies import head_to_head, strategy_gaps
from sim.stats.units import cluster_units
from sim.stats.variance import count_effect, removed_item_effect

COLUMNS = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "rank", "win"]
ROWS = SimpleNamespace(is_rows=True)


def _half_to_se(low: np.ndarray, high: np.ndarray, clusters: int) -> np.ndarray:
    return (np.asarray(high) - np.asarray(low)) / (2.0 * t_critical(clusters))


def _first(analyses: tuple[GameAnalysis, ...], kind: type):
    return next((a for a in analyses if isinstance(a, kind)), None)


def analysis_columns(analyses: tuple[GameAnalysis, ...]) -> list[str]:
    """The rows-store columns the game's declared analyses read, each once."""
    columns = [column for a in analyses
               for column in (a.column, getattr(a, "count_column", a.column))]
    return list(dict.fromkeys(columns))


def estimates(rows: pl.DataFrame, analyses: tuple[GameAnalysis, ...] = ()
              ) -> dict[str, tuple[float, float]]:
    """Every checked quantity of ``rows``: name -> (estimate, reported standard error), with
    those of the game's declared ``analyses`` (``Game.analyses``) whose columns it has."""
    lazy = rows.lazy()
    units = cluster_units(ROWS, lazy)
    histogram = score_histogram(ROWS, lazy)
    clusters = int(rows["deal_id"].n_unique())
    found: dict[str, tuple[float, float]] = {}
    table = distributions(histogram, units)
    for row in table.iter_rows(named=True):
        where = f"seat {row['seat'] + 1}" if row["seat"] is not None else "all seats"
        label = f"{row['strategy']}, {where}"
        se = _half_to_se(row["mean_low"], row["mean_high"], clusters)
        found[f"mean score: {label}"] = (row["mean"], float(se))
        if not row["win_rate_fixed"]:
            found[f"win rate: {label}"] = (row["win_rate"], float(row["win_rate_se"]))
    family = seat_gap_family(units)
    seats, pairs, win, score = family.seats, family.pairs, family.win, family.score
    for k, (i, j) in enumerate(pairs):
        pair = f"seat {seats[i] + 1} - seat {seats[j] + 1}"
        found[f"win-rate gap: {pair}"] = (win.estimates[k], win.standard_errors[k])
        found[f"score gap: {pair}"] = (score.estimates[k], score.standard_errors[k])
    gaps = strategy_gaps(units, strategy_mix_is_balanced(histogram))
    for row in gaps.iter_rows(named=True):
        se = _half_to_se(row["score_gap_low"], row["score_gap_high"], clusters)
        found[f"strategy gap: {row['best']} - {row['worst']}"] = (row["score_gap"], float(se))
    matrix = head_to_head(lazy)
    for row in matrix.iter_rows(named=True) if not matrix.is_empty() else []:
        found[f"head-to-head: {row['strategy']} over {row['opponent']}"] = (
            row["ahead_rate"], float(row["ahead_rate_se"]))
    role = _first(analyses, RotatingRoleAssociation)
    if role is not None and role.column in rows.columns:
        for row in role_turn_effect(lazy, role_column=role.column).iter_rows(named=True):
            se = _half_to_se(row["score_gap_low"], row["score_gap_high"], clusters)
            found[f"{role.noun}: points per extra {role.turn} led"] = (row["score_gap"],
                                                                       float(se))
            se = _half_to_se(row["win_gap_low"], row["win_gap_high"], clusters)
            found[f"{role.noun}: win chance per extra {role.turn} led"] = (row["win_gap"],
                                                                           float(se))
    count = _first(analyses, RandomisedCountEffect)
    if count is not None and count.column in rows.columns:
        table, _ = count_effect(lazy, count_column=count.column)
        for row in table.filter(pl.col("deals") >= 100).iter_rows(named=True):
            se = _half_to_se(row["mean_low"], row["mean_high"], row["deals"])
            found[f"mean score at {row[count.column]} {count.item}s"] = (row["mean"],
                                                                         float(se))
    removed = _first(analyses, RemovedItemsEffect)
    if removed is not None and removed.column in rows.columns:
        for row in removed_item_effect(lazy, mask_column=removed.column).iter_rows(named=True):
            found[f"{removed.noun} {row['tile']} removed"] = (row["effect"], row["effect_se"])
    return found


def bootstrap(rows: pl.DataFrame, resamples: int, seed: int = 1,
              analyses: tuple[GameAnalysis, ...] = ()) -> pl.DataFrame:
    """Reported SE, bootstrap SD and their ratio for every quantity of ``estimates``."""
    reported = estimates(rows, analyses)
    rows = rows.sort(["deal_id", "game_id", "seat"])
    deal_ids = rows["deal_id"].to_numpy()
    deals, starts, sizes = np.unique(deal_ids, return_index=True, return_counts=True)
    games_per_deal = rows.group_by("deal_id").agg(pl.col("game_id").n_unique()).sort(
        "deal_id")["game_id"].to_numpy()
    generator = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {name: [] for name in reported}
    for resample in range(resamples):
        chosen = generator.integers(0, deals.size, deals.size)
        # Row indices of every drawn deal, in draw order; a deal drawn twice is two units.
        lengths = sizes[chosen]
        offsets = np.repeat(starts[chosen] - np.cumsum(lengths) + lengths, lengths)
        index = offsets + np.arange(lengths.sum())
        new_deal = np.repeat(np.arange(deals.size), lengths)
        first_game = rows["game_id"].to_numpy()[starts[chosen]]
        game_shift = np.repeat(np.cumsum(games_per_deal[chosen]) - games_per_deal[chosen]
                               - first_game, lengths)
        sample = rows[index].with_columns(
            deal_id=pl.Series(new_deal, dtype=pl.Int64),
            game_id=pl.col("game_id") + pl.Series(game_shift, dtype=pl.Int64))
        values = estimates(sample, analyses)
        for name in draws:
            if name in values:
                draws[name].append(values[name][0])
        print(f"\r  resample {resample + 1}/{resamples}", end="", file=sys.stderr)
    print(file=sys.stderr)
    records = []
    for name, (estimate, se) in reported.items():
        spread = float(np.std(draws[name], ddof=1)) if len(draws[name]) > 1 else float("nan")
        records.append({"quantity": name, "estimate": estimate, "reported_se": se,
                        "bootstrap_se": spread, "ratio": se / spread if spread > 0 else None})
    return pl.DataFrame(records)


def main(argv: list[str] | None = None) -> None:
    """Command line: print the comparison table for a batch folder."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir")
    parser.add_argument("--resamples", type=int, default=200)
    arguments = parser.parse_args(argv)
    batch = open_batch(arguments.run_dir)
    analyses = get_game(batch.game).analyses()
    columns = COLUMNS + [c for c in analysis_columns(analyses) if batch.has_columns(c)]
    rows = batch.scan(columns).with_columns(pl.col("players").cast(pl.Int64)).collect()
    table = bootstrap(rows, arguments.resamples, analyses=analyses)
    with pl.Config(tbl_rows=-1, tbl_width_chars=160, fmt_str_lengths=60):
        print(table)
    ratios = table["ratio"].drop_nulls()
    print(f"ratio of reported to bootstrap SE: median {ratios.median():.3f}, "
          f"range {ratios.min():.3f} to {ratios.max():.3f}, {ratios.len()} quantities")


if __name__ == "__main__":
    main()
