"""What the deal decides: how much of the score, and the effects of what it randomises (rows
store only).

- ``deal_variance``: one-way random-effects decomposition of a seat's score over deals, from
  games that replay the same deal (``replicate`` 0..R-1 of a ``deal_id``);
- ``removed_item_effect``: the effect on the mean score of an item the deal removes unseen,
  holding the other removed items fixed (the deal's bit mask, ``RemovedItemsEffect``);
- ``count_effect``: mean score by a count the deal randomises (``RandomisedCountEffect``), and
  whether a line fits it (lack-of-fit test), its peak and the step from the most common count.

The unit for the last two is the deal (mean score of its rows): deals are independent, the
games of one deal are not.

Memory: every section reads the rows in chunks of whole deals (``summarise_whole_deals``) and
keeps only sums per cell, or per distinct set of removed items; the least-squares fits run on
those sufficient statistics, in exact integer and rational arithmetic where the sums are
integers, so the numbers depend neither on the number of games held at once nor on how the rows
are chunked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from typing import TypeVar

import numpy as np
import polars as pl
from scipy import stats

from sim.games.base import GameAnalysis, RandomisedCountEffect, RemovedItemsEffect
from sim.stats.batch import collect_streaming
from sim.stats.clustered import exact_ratio_intervals, t_critical  # noqa: F401 - re-exported
from sim.stats.intervals import one_way_random_effects

PANEL = ["players", "rules"]
CELL = ["players", "rules", "seat"]

# Rows read at once by the sections that stream whole deals: about 40 MB of narrow columns, so a
# section's memory stays flat however many games the batch holds.
DEAL_CHUNK_ROWS = 1 << 20

Summary = TypeVar("Summary")


class _DealsOutOfOrderError(Exception):
    """The rows do not come in ascending deal order (a deal's rows together)."""


def _whole_deal_chunks(rows: pl.LazyFrame, chunk_rows: int) -> Iterator[pl.DataFrame]:
    """The rows in their order, in chunks of about ``chunk_rows`` that each end with a whole
    deal: the rows of the last deal of a chunk are held back and handed out with the next one.
    Raises ``_DealsOutOfOrderError`` when a deal id is lower than one already seen."""
    carry: pl.DataFrame | None = None
    finished = None  # the highest deal id handed out
    for chunk in rows.collect_batches(chunk_size=chunk_rows):
        if chunk.height == 0:
            continue
        if carry is not None:
            chunk = pl.concat([carry, chunk], how="vertical")
        deals = chunk["deal_id"].to_numpy()
        if (finished is not None and deals[0] <= finished) or np.any(deals[1:] < deals[:-1]):
            raise _DealsOutOfOrderError
        split = int(np.searchsorted(deals, deals[-1], side="left"))
        if split:
            finished = deals[split - 1]
            yield chunk.slice(0, split)
        carry = chunk.slice(split)
    if carry is not None and carry.height:
        yield carry


def summarise_whole_deals(rows: pl.LazyFrame, columns: list[str],
                          summarise: Callable[[pl.DataFrame], Summary],
                          chunk_rows: int | None = None) -> list[Summary]:
    """``summarise(chunk)`` for every chunk of the ``columns`` of ``rows`` (``deal_id`` among
    them), each chunk holding whole deals (every row of each of its deals) and about
    ``chunk_rows`` rows (default ``DEAL_CHUNK_ROWS``): a deal whose games fall in two shards is
    still one cluster.

    A batch's shards come in game order, so its deals come in ascending order and are cut at
    their boundaries as they stream; only the chunks and what ``summarise`` returns are held.
    Rows in another order (a frame assembled in memory) are sorted by deal first (stable, so
    the rows of a deal keep their order).
    """
    frame = rows.select(columns)
    chunk_rows = chunk_rows or DEAL_CHUNK_ROWS
    try:
        return [summarise(chunk) for chunk in _whole_deal_chunks(frame, chunk_rows)]
    except _DealsOutOfOrderError:
        ordered = frame.sort("deal_id", maintain_order=True)
        return [summarise(chunk) for chunk in _whole_deal_chunks(ordered, chunk_rows)]


def chunk_panels(chunk: pl.DataFrame) -> Iterator[tuple[int, str, pl.DataFrame]]:
    """(players, rules, rows) of each (players, rules) in a chunk of whole deals, the rows in
    the chunk's order (so a deal's rows stay together)."""
    if chunk.height and chunk.select((pl.col(c) == pl.col(c).first()).all()
                                     for c in PANEL).row(0) == (True, True):
        # One (players, rules), as in every batch: no copy.
        yield int(chunk["players"][0]), chunk["rules"][0], chunk
        return
    for (players, rules), panel in chunk.partition_by(PANEL, as_dict=True,
                                                      maintain_order=True).items():
        yield int(players), rules, panel


def run_starts(values: np.ndarray) -> np.ndarray:
    """Indices where a run of equal consecutive ``values`` begins (the first is 0)."""
    return np.flatnonzero(np.r_[True, values[1:] != values[:-1]]) if values.size else \
        np.zeros(0, dtype=np.int64)


def unique_keys(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(keys, return_inverse=True)`` for integer keys that come nearly sorted (a
    chunk's deals in order): a stable sort runs through sorted stretches in linear time."""
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.r_[True, ordered[1:] != ordered[:-1]] if keys.size else np.zeros(0, dtype=bool)
    inverse = np.empty(keys.size, dtype=np.int64)
    inverse[order] = np.cumsum(first) - 1
    return ordered[first], inverse


def integer_codes(values: np.ndarray) -> tuple[np.ndarray, int, int]:
    """Integer ``values`` as codes 0.. (offset by their minimum), with that minimum and the
    number of codes."""
    if values.size == 0:
        return values.astype(np.int64), 0, 1
    low = int(values.min())
    return values.astype(np.int64) - low, low, int(values.max()) - low + 1


def exact_products(columns: np.ndarray, targets: np.ndarray) -> list[list[int]]:
    """``columns.T @ targets`` of two integer arrays ((rows, k) and (rows, m)) as Python
    integers, exact: the rows are taken in blocks small enough for every partial sum to be an
    integer below 2^53, so the float product (BLAS) is exact whatever order it adds in."""
    columns = np.asarray(columns, dtype=np.int64)
    targets = np.asarray(targets, dtype=np.int64)
    total = [[0] * targets.shape[1] for _ in range(columns.shape[1])]
    if columns.shape[0] == 0:
        return total
    largest = max(1, int(np.abs(columns).max())) * max(1, int(np.abs(targets).max()))
    block = max(1, (1 << 53) // largest)
    for start in range(0, columns.shape[0], block):
        part = (columns[start:start + block].astype(float).T
                @ targets[start:start + block].astype(float))
        total = [[a + int(b) for a, b in zip(row, new, strict=True)]
                 for row, new in zip(total, part.tolist(), strict=True)]
    return total


def exact_solve(matrix: Sequence[Sequence[Fraction | int]],
                vectors: Sequence[Sequence[Fraction | int]]
                ) -> tuple[list[list[Fraction]], list[list[Fraction]]]:
    """The exact inverse of a small non-singular rational ``matrix`` and its solution for each
    right-hand side of ``vectors`` (Gauss-Jordan on fractions)."""
    size = len(matrix)
    work = [[Fraction(v) for v in row] + [Fraction(int(i == j)) for j in range(size)]
            + [Fraction(vector[i]) for vector in vectors] for i, row in enumerate(matrix)]
    for column in range(size):
        pivot = next(r for r in range(column, size) if work[r][column] != 0)
        work[column], work[pivot] = work[pivot], work[column]
        scale = work[column][column]
        work[column] = [v / scale for v in work[column]]
        for r in range(size):
            if r != column and work[r][column] != 0:
                factor = work[r][column]
                work[r] = [a - factor * b for a, b in zip(work[r], work[column], strict=True)]
    inverse = [row[size:2 * size] for row in work]
    solutions = [[work[i][2 * size + k] for i in range(size)] for k in range(len(vectors))]
    return inverse, solutions


def exact_integer_solve(matrix: Sequence[Sequence[int]],
                        vector: Sequence[int]) -> list[Fraction] | None:
    """The exact solution of ``matrix @ x = vector`` for a square integer matrix and integer
    vector, or None when the matrix is singular: fraction-free (Bareiss) elimination in
    integers, then back substitution in fractions. No tolerance decides the rank."""
    size = len(matrix)
    work = [[int(v) for v in row] + [int(b)] for row, b in zip(matrix, vector, strict=True)]
    previous = 1
    for k in range(size):
        pivot = next((r for r in range(k, size) if work[r][k] != 0), None)
        if pivot is None:
            return None
        work[k], work[pivot] = work[pivot], work[k]
        for i in range(k + 1, size):
            for j in range(k + 1, size + 1):
                # Exact division: Bareiss' pivots divide these products.
                work[i][j] = (work[i][j] * work[k][k] - work[i][k] * work[k][j]) // previous
            work[i][k] = 0
        previous = work[k][k]
    solution = [Fraction(0)] * size
    for i in reversed(range(size)):
        rest = sum((work[i][j] * solution[j] for j in range(i + 1, size)), Fraction(0))
        solution[i] = (work[i][size] - rest) / work[i][i]
    return solution


def _per_deal_sums(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, seat, deal): ``n`` player-games, ``total`` and ``squares`` of the
    score centred on its (strategy, seat) mean, sorted by (players, rules, seat, deal).

    Centring removes a lineup rotated over the replays of a deal, which would otherwise add
    spurious within-deal variance. Two passes over the rows in chunks of whole deals: the first
    sums each (cell, strategy) exactly (its mean: the integer total over the integer count);
    the second forms exact integer sums per (cell, strategy, deal), centres them on that mean
    and sums the strategies of a (cell, deal) in sorted strategy order, so the bits depend
    neither on thread scheduling nor on the chunks. Only a chunk and the per-deal sums are
    held, never one row per (cell, strategy, deal) of the whole batch.
    """
    strata = [*CELL, "strategy"]
    columns = [*CELL, "strategy", "deal_id", "score"]

    def exact_sums(chunk: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
        return (chunk.group_by(keys)
                .agg(n=pl.len().cast(pl.Int64), s=pl.col("score").cast(pl.Int64).sum(),
                     q=(pl.col("score").cast(pl.Int64) ** 2).sum())
                .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64)))

    parts = summarise_whole_deals(rows, columns, lambda chunk: exact_sums(chunk, strata))
    schema = {"players": pl.Int64, "rules": pl.String, "seat": pl.Int64, "deal_id": pl.Int64,
              "n": pl.Float64, "total": pl.Float64, "squares": pl.Float64}
    if not parts:
        return pl.DataFrame(schema=schema)
    means = (pl.concat(parts).group_by(strata).agg(pl.col("n", "s").sum())
             .select(*strata, mean=pl.col("s").cast(pl.Float64) / pl.col("n").cast(pl.Float64)))

    def centred(chunk: pl.DataFrame) -> pl.DataFrame:
        frames = []
        for players, rules, panel in chunk_panels(chunk):
            stratum = means.filter((pl.col("players") == players) & (pl.col("rules") == rules))
            names = sorted(stratum["strategy"].unique().to_list())
            codes = {name: k for k, name in enumerate(names)}
            seat, low_seat, seats = integer_codes(panel["seat"].to_numpy())
            deal, low_deal, _ = integer_codes(panel["deal_id"].to_numpy())
            strategy = panel["strategy"].replace_strict(codes, return_dtype=pl.Int64).to_numpy()
            # One key per (deal, seat, strategy), sorted in that order; integer sums per key.
            keys, index = unique_keys((deal * seats + seat) * len(names) + strategy)
            score = panel["score"].to_numpy().astype(np.int64)
            n = np.bincount(index).astype(float)
            total = np.bincount(index, weights=score)
            squares = np.bincount(index, weights=score * score)
            table = np.full((seats, len(names)), np.nan)
            for row_seat, name, value in stratum.select("seat", "strategy", "mean").iter_rows():
                table[row_seat - low_seat, codes[name]] = value
            cell = keys // len(names)
            mean = table[cell % seats, keys % len(names)]
            values = {"n": n, "total": total - n * mean,
                      "squares": squares - 2.0 * mean * total + n * mean ** 2}
            # Sum over the strategies of a (seat, deal) in sorted strategy order (bincount adds
            # in array order).
            first = run_starts(cell)
            group = np.cumsum(np.r_[True, cell[1:] != cell[:-1]]) - 1
            frames.append(pl.DataFrame({
                "players": pl.Series([players] * first.size, dtype=pl.Int64),
                "rules": pl.Series([rules] * first.size, dtype=pl.String),
                "seat": pl.Series(cell[first] % seats + low_seat, dtype=pl.Int64),
                "deal_id": pl.Series(cell[first] // seats + low_deal, dtype=pl.Int64),
                **{name: pl.Series(np.bincount(group, weights=value), dtype=pl.Float64)
                   for name, value in values.items()}}))
        return pl.concat(frames)

    return pl.concat(summarise_whole_deals(rows, columns, centred)).select(list(schema)).sort(
        [*CELL, "deal_id"])


def _cell_sums(per_deal: pl.DataFrame, rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, seat): the sums one-way ANOVA over deals needs, from
    ``_per_deal_sums`` (reduced in numpy over its sorted rows)."""
    cell_keys = per_deal.select(CELL).unique(maintain_order=True)
    index = (per_deal.select(CELL).join(cell_keys.with_row_index("_cell"), on=CELL,
                                        maintain_order="left")["_cell"].to_numpy()
             .astype(np.int64))
    n, total, squares = (per_deal[c].to_numpy() for c in ("n", "total", "squares"))
    size = cell_keys.height

    def summed(values: np.ndarray) -> pl.Series:
        return pl.Series(np.bincount(index, weights=values, minlength=size))

    largest = np.zeros(size)
    np.maximum.at(largest, index, n)
    strategies = _strategies_per_cell(rows)
    with np.errstate(invalid="ignore", divide="ignore"):
        between_raw = np.where(n > 0, total ** 2 / n, 0.0)
    sums = cell_keys.with_columns(
        groups=summed(np.ones_like(n)), observations=summed(n), sum_n_squared=summed(n ** 2),
        largest_group=pl.Series(largest), grand_total=summed(total),
        between_raw=summed(between_raw), squares=summed(squares))
    return sums.with_columns(
        ss_between=pl.col("between_raw") - pl.col("grand_total") ** 2 / pl.col("observations"),
        ss_within=pl.col("squares") - pl.col("between_raw"),
        df_within=pl.col("observations") - pl.col("groups"),
        n0_times_df=pl.col("observations") - pl.col("sum_n_squared") / pl.col("observations"),
    ).join(strategies, on=CELL).with_columns(
        # Each strategy's mean removed within the seat costs one degree of freedom between deals.
        df_between=pl.col("groups") - pl.col("strategies"),
    ).sort(CELL)


def _strategies_per_cell(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, seat): the number of strategies that sat there."""
    return collect_streaming(rows.group_by(CELL).agg(strategies=pl.col("strategy").n_unique())
                             .with_columns(pl.col("players").cast(pl.Int64),
                                           pl.col("seat").cast(pl.Int64)))


BOOTSTRAP_RESAMPLES = 1000
_BOOTSTRAP_SEED = 20261201


def _icc_bootstrap(per_deal: pl.DataFrame, rows: pl.LazyFrame, confidence: float) -> dict:
    """Per (players, rules, seat) and per (players, rules, None) pooled over the seats: the
    percentile interval of the ICC over deals resampled with replacement (weights drawn once
    per resample; the sums of squares are linear in them; the seats of a deal are drawn
    together). Each resample's ICC is truncated at 0, as the estimate is: a share of variance
    is never negative, so the interval stays inside [0, 1]."""
    strategies = _strategies_per_cell(rows)
    generator = np.random.default_rng(_BOOTSTRAP_SEED)
    alpha = 1.0 - confidence
    intervals = {}
    for (players, rules), panel in per_deal.group_by(PANEL, maintain_order=True):
        deals = np.unique(panel["deal_id"].to_numpy())
        seats = np.unique(panel["seat"].to_numpy())
        if deals.size < 2:
            continue
        row = np.searchsorted(deals, panel["deal_id"].to_numpy())
        column = np.searchsorted(seats, panel["seat"].to_numpy())

        def matrix(values: np.ndarray, row=row, column=column,
                   shape=(deals.size, seats.size)) -> np.ndarray:
            out = np.zeros(shape)
            out[row, column] = values
            return out

        n, total = matrix(panel["n"].to_numpy()), matrix(panel["total"].to_numpy())
        with np.errstate(invalid="ignore", divide="ignore"):
            between = np.where(n > 0, total ** 2 / n, 0.0)
        stacked = np.stack([total, n, between, matrix(panel["squares"].to_numpy()), n ** 2])
        counts = strategies.filter((pl.col("players") == players) & (pl.col("rules") == rules))
        per_seat_strategies = (counts.sort("seat")["strategies"].to_numpy()
                               .astype(float)[None, :])
        estimates, seat_estimates = [], []
        chunk = max(1, min(BOOTSTRAP_RESAMPLES, 20_000_000 // deals.size))
        for start in range(0, BOOTSTRAP_RESAMPLES, chunk):
            size = min(chunk, BOOTSTRAP_RESAMPLES - start)
            weights = generator.multinomial(deals.size, np.full(deals.size, 1.0 / deals.size),
                                            size=size).astype(float)
            grand, observations, between_raw, squares, n_squared = (
                weights @ part for part in stacked)  # each (resamples, seats)
            # Integer counts: exact, so a product gives the bits of the sum without its
            # (resamples x deals x seats) temporary.
            groups = weights @ (n > 0).astype(float)
            # Per seat (resamples, seats), then pooled over the seats (summed sums of squares).
            ss_between = between_raw - grand ** 2 / observations
            ss_within = squares - between_raw
            df_between = groups - per_seat_strategies
            df_within = observations - groups
            n0_times_df = observations - n_squared / observations
            with np.errstate(invalid="ignore", divide="ignore"):
                seat_estimates.append(_icc(ss_between, df_between, ss_within, df_within,
                                           n0_times_df / (groups - 1.0)))
                estimates.append(_icc(ss_between.sum(axis=1), df_between.sum(axis=1),
                                      ss_within.sum(axis=1), df_within.sum(axis=1),
                                      n0_times_df.sum(axis=1) / (groups - 1.0).sum(axis=1)))
        key = (int(players), rules)
        values = np.maximum(np.concatenate(estimates), 0.0)
        intervals[(*key, None)] = (float(np.quantile(values, alpha / 2.0)),
                                   float(np.quantile(values, 1.0 - alpha / 2.0)))
        per_seat = np.maximum(np.concatenate(seat_estimates), 0.0)
        for k, seat in enumerate(seats):
            intervals[(*key, int(seat))] = (float(np.quantile(per_seat[:, k], alpha / 2.0)),
                                            float(np.quantile(per_seat[:, k],
                                                              1.0 - alpha / 2.0)))
    return intervals


def _icc(ss_between, df_between, ss_within, df_within, n0):
    """ICC(1) = (MSB - MSW) / (MSB + (n0 - 1) MSW) of the one-way model, elementwise."""
    ms_between, ms_within = ss_between / df_between, ss_within / df_within
    return (ms_between - ms_within) / (ms_between + (n0 - 1.0) * ms_within)


def _decompose(sums: pl.DataFrame, level: list[str], confidence: float) -> list[dict]:
    """ANOVA per group of ``level``, pooling the sums of squares of the cells inside it. The
    F-based ICC interval it computes is replaced by the deal bootstrap (``deal_variance``)."""
    results = []
    for keys, cells in sums.group_by(level, maintain_order=True):
        cells = cells.filter(pl.col("df_within") > 0)
        if cells.is_empty() or cells["df_between"].sum() <= 0:
            continue
        df_between = float(cells["df_between"].sum())
        df_within = float(cells["df_within"].sum())
        n0 = float(cells["n0_times_df"].sum()) / float((cells["groups"] - 1).sum())
        interval_df = (float(cells["df_between"].mean()), float(cells["df_within"].mean()))
        fit = one_way_random_effects(float(cells["ss_between"].sum()), df_between,
                                     float(cells["ss_within"].sum()), df_within, n0,
                                     confidence, interval_df)
        total = max(fit.between, 0.0) + fit.within
        results.append({
            **dict(zip(level, keys, strict=True)),
            "deals": int(cells["groups"].max()),
            "player_games": int(cells["observations"].sum()),
            "games_per_deal": n0,
            "balanced": bool((cells["sum_n_squared"] == cells["largest_group"] ** 2
                              * cells["groups"]).all()),
            "between_deal_variance": fit.between,
            "within_deal_variance": fit.within,
            "between_share": max(fit.between, 0.0) / total if total > 0 else float("nan"),
            # The ANOVA estimate truncated at 0 (it is negative when replays of a deal differ
            # more than deals do, by chance): a share of variance is never negative.
            "icc": max(fit.icc, 0.0), "icc_low": fit.icc_low, "icc_high": fit.icc_high,
        })
    return results


def deal_variance(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Between-deal and within-deal variance of the score and the intraclass correlation.

    Model, per (players, rules, seat): score = mu_strategy + a_deal + e, a_deal ~ (0, sb^2),
    e ~ (0, sw^2); ICC = sb^2 / (sb^2 + sw^2) is the share of a seat's score variance that the
    deal decides once the strategy is fixed (the rest varies between replays of the same deal:
    the strategies' random choices and tie-breaks). One row per seat and one pooled over seats
    (``seat`` null, seat means removed): the report's one deal share. Empty when no deal is
    replayed. The estimate is truncated at 0.

    Intervals: a percentile bootstrap over deals of the truncated estimate, 1,000 resamples
    with a fixed seed, for every row (the seats of a deal are drawn together, so the pooled
    row counts their correlation); they stay inside [0, 1]. (The F-based interval of the
    one-way model reaches below 0 when the deal matters little, e.g. -3.4% to 14.4%.)
    """
    # A deal replayed has a replicate above 0 (a game is a (deal, replicate)): without one,
    # no deal has two games and there is nothing to split, which a pass over one column tells
    # before any per-deal sums are formed.
    if "replicate" in rows.collect_schema().names():
        replayed = collect_streaming(rows.select(pl.col("replicate").max())).item()
        if replayed is None or replayed < 1:
            return pl.DataFrame()
    per_deal = _per_deal_sums(rows)
    if per_deal.is_empty() or float(per_deal["n"].max()) < 2:
        return pl.DataFrame()
    sums = _cell_sums(per_deal, rows)
    intervals = _icc_bootstrap(per_deal, rows, confidence)
    records = _decompose(sums, CELL, confidence) + _decompose(sums, PANEL, confidence)
    for record in records:
        record["icc_low"], record["icc_high"] = intervals.get(
            (record["players"], record["rules"], record.get("seat")),
            (float("nan"), float("nan")))
    if not records:
        return pl.DataFrame()
    return pl.DataFrame(records).with_columns(pl.col("seat").cast(pl.Int64)).select(
        *CELL, pl.exclude(CELL)).sort(CELL, nulls_last=True)


def _deal_score_sums(rows: pl.LazyFrame, extra: str) -> pl.DataFrame:
    """Per (players, rules, ``extra``, n): the number of deals whose ``n`` player-games have
    that value of the deal-level column ``extra`` (its first row's), the sum of their score
    totals and of the squares of those totals, exact integers, sorted. A deal's mean score is
    its total / n; these sums give every deal-level least-squares fit exactly, and there are
    no more of them than distinct values of ``extra`` (not one per deal)."""
    keys = [*PANEL, extra, "n"]

    def summarise(chunk: pl.DataFrame) -> pl.DataFrame:
        frames = []
        for players, rules, panel in chunk_panels(chunk):
            # A chunk's deals come in order, each deal's rows together: sums over runs.
            starts = run_starts(panel["deal_id"].to_numpy())
            score = panel["score"].to_numpy().astype(np.int64)
            deals = pl.DataFrame({
                extra: pl.Series(panel[extra].to_numpy()[starts], dtype=pl.Int64),
                "n": pl.Series(np.diff(np.r_[starts, score.size]), dtype=pl.Int64),
                "total": pl.Series(np.add.reduceat(score, starts) if score.size else score,
                                   dtype=pl.Int64)})
            frames.append(deals.group_by(extra, "n").agg(
                deals=pl.len().cast(pl.Int64), total=pl.col("total").sum(),
                squares=(pl.col("total") ** 2).sum()).with_columns(
                players=pl.lit(players, pl.Int64), rules=pl.lit(rules, pl.String)))
        return pl.concat(frames)

    parts = summarise_whole_deals(rows, [*PANEL, "deal_id", "score", extra], summarise)
    schema = {"players": pl.Int64, "rules": pl.String, extra: pl.Int64, "n": pl.Int64,
              "deals": pl.Int64, "total": pl.Int64, "squares": pl.Int64}
    if not parts:
        return pl.DataFrame(schema=schema)
    return (pl.concat(parts, how="diagonal").group_by(keys)
            .agg(pl.col("deals", "total", "squares").sum()).select(list(schema)).sort(keys))


def _by_count(panel: pl.DataFrame, column: str) -> dict[int, tuple[int, Fraction, Fraction]]:
    """Per value of ``column`` in a panel of ``_deal_score_sums``: the number of deals, the sum
    of their mean scores and the sum of its squares, exact."""
    groups: dict[int, tuple[int, Fraction, Fraction]] = {}
    for value, n, deals, total, squares in panel.select(
            column, "n", "deals", "total", "squares").iter_rows():
        count, sum_y, sum_yy = groups.get(value, (0, Fraction(0), Fraction(0)))
        groups[value] = (count + deals, sum_y + Fraction(total, n),
                         sum_yy + Fraction(squares, n * n))
    return groups


def declared_for(rows: pl.LazyFrame, kind: type) -> GameAnalysis:
    """The analysis of ``kind`` that a registered game declares (``Game.analyses``) and whose
    columns ``rows`` hold: what the functions here read when called without their columns (the
    report passes its batch's game's). A ValueError when no game's fits."""
    from sim.games.registry import games  # every game is loaded only when no column is given

    names = set(rows.collect_schema().names())
    for game in games().values():
        found = game.analysis(kind)
        if found is not None and {found.column, getattr(found, "count_column", found.column)
                                  } <= names:
            return found
    raise ValueError(f"no registered game declares a {kind.__name__} with these columns")


def removed_item_effect(rows: pl.LazyFrame, confidence: float = 0.95,
                        mask_column: str | None = None) -> pl.DataFrame:
    """Per (players, rules, item; the item's number is in the column ``tile``): mean score per
    player of deals with the item removed unseen and without it, and the item's effect holding
    the other removed items fixed, with a 95% interval.

    Model (least squares over deals, the independent units): deal mean = sum_n beta_n
    removed_n + error. Since every deal removes the same number of items, only differences of
    the beta are defined; an item's effect is beta_n minus the average beta of the other items,
    the change in the mean score when item n is removed instead of an item taken at random from
    the others. An item never removed (e.g. one every game starts with) or always removed is
    left out.

    Fitted from sufficient statistics: per distinct set of removed items (bits of
    ``mask_column``) the deals and their score sums, so X'X is the integer co-removal
    counts and X'y the per-item sums of deal means; beta, the effects and the means are exact
    rationals rounded once. The HC1 covariance sums each deal's squared residual as the
    within-set sum of squares plus the set's deals times its mean's squared residual.
    """
    mask_column = mask_column or declared_for(rows, RemovedItemsEffect).column
    sums = _deal_score_sums(rows, mask_column)
    results = []
    for (players, rules), panel in sums.group_by(PANEL, maintain_order=True):
        mask = panel[mask_column].to_numpy().astype(np.int64)
        deals = panel["deals"].to_numpy().astype(np.int64)
        n = panel["n"].to_numpy().astype(np.int64)
        totals = panel["total"].to_numpy().astype(np.int64)
        deal_count = int(deals.sum())
        bits = int(np.max(mask)).bit_length() if mask.size else 0
        removed = ((mask[:, None] >> np.arange(bits)[None, :]) & 1).astype(np.int64)
        counts = [row[0] for row in exact_products(removed, deals[:, None])]
        items = [bit for bit in range(bits) if 2 <= counts[bit] <= deal_count - 2]
        if len(items) < 2:
            continue
        design = removed[:, items]
        gram = exact_products(design * deals[:, None], design)  # co-removal counts
        # X'y: per item the sum of the mean scores (total / n) of the deals that removed it,
        # exact: integer sums over a common denominator of the n.
        denominator = math.lcm(*(int(k) for k in np.unique(n)))
        scaled_sums = [row[0] for row in exact_products(
            design, (totals * (denominator // n))[:, None])]
        beta = exact_integer_solve(gram, scaled_sums)
        if beta is None:
            continue  # collinear removals (two items always removed together): no effects
        beta = [value / denominator for value in beta]
        removed_sums = [Fraction(value, denominator) for value in scaled_sums]
        score_sum = Fraction(int((totals * (denominator // n)).sum()), denominator)
        size = len(items)
        # Residual sums of squares per row of sets: within the set plus its mean's residual.
        squares = panel["squares"].to_numpy().astype(object)
        within = np.array([float(Fraction(int(c) * int(q) - int(t) * int(t), int(c) * int(k) ** 2))
                           for c, q, t, k in zip(deals, squares, totals, n, strict=True)])
        set_means = np.array([float(Fraction(int(t), int(c) * int(k)))
                              for t, c, k in zip(totals, deals, n, strict=True)])
        fitted = design.astype(float) @ np.array([float(b) for b in beta])
        residual_squares = within + deals * (set_means - fitted) ** 2
        meat = (design * residual_squares[:, None]).T @ design
        bread = np.linalg.inv(np.array(gram, dtype=float))
        covariance = deal_count / (deal_count - size) * (bread @ meat @ bread)
        critical = t_critical(deal_count, confidence)
        others = (np.ones((size, size)) - np.eye(size)) / (size - 1)
        contrasts = np.eye(size) - others
        errors = np.sqrt(np.diag(contrasts @ covariance @ contrasts.T))
        beta_total = sum(beta, Fraction(0))
        for k, bit in enumerate(items):
            effect = float(beta[k] - (beta_total - beta[k]) / (size - 1))
            kept = deal_count - counts[bit]
            results.append({
                "players": int(players), "rules": rules, "tile": bit + 1,
                "deals_removed": int(counts[bit]), "deals_kept": int(kept),
                "mean_removed": float(removed_sums[k] / counts[bit]),
                "mean_kept": float((score_sum - removed_sums[k]) / kept),
                "effect": effect, "effect_se": float(errors[k]),
                "effect_low": float(effect - critical * errors[k]),
                "effect_high": float(effect + critical * errors[k]),
            })
    return pl.DataFrame(results)


def count_effect(rows: pl.LazyFrame, confidence: float = 0.95,
                 count_column: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Mean score per player by a count the deal randomises (``count_column``), and whether a
    straight line describes it.

    Returns (table per (players, rules, ``count_column``): deals, mean with a 95% t interval
    over deals; fit per (players, rules)). The fit row holds the least-squares slope (points per
    one more of the count, HC1 interval), the lack-of-fit F test of the line against one mean per
    count (as statsmodels ``anova_lm`` gives it; ``linear`` is true when it does not reject at
    5%), the count where the mean peaks, the most common count, and the change from that count
    to the next (difference of the two means, with its interval).

    Every number comes from per-count sufficient statistics (deals, sum and sum of squares of
    the deal means), exact rationals rounded once: the line, its residuals and the one-mean-
    per-count model all depend on the deals only through them.
    """
    count_column = count_column or declared_for(rows, RandomisedCountEffect).column
    sums = _deal_score_sums(rows, count_column)
    keys = [*PANEL, count_column]
    tables, fits = [], []
    for (players, rules), panel in sums.group_by(PANEL, maintain_order=True):
        groups = _by_count(panel, count_column)
        counts = sorted(groups)
        deals = [groups[x][0] for x in counts]
        sum_y = [groups[x][1] for x in counts]
        intervals = exact_ratio_intervals(deals, deals, sum_y, deals, sum_y,
                                          [groups[x][2] for x in counts], confidence)
        table = pl.DataFrame({
            "players": pl.Series([int(players)] * len(counts), dtype=pl.Int64),
            "rules": pl.Series([rules] * len(counts), dtype=pl.String),
            count_column: pl.Series(counts, dtype=pl.Int64),
            "mean": intervals["mean"], "mean_low": intervals["low"],
            "mean_high": intervals["high"], "deals": pl.Series(deals, dtype=pl.Int64)})
        tables.append(table)
        total = sum(deals)
        if total < 4 or len(counts) < 2:
            continue
        fits.append({"players": int(players), "rules": rules, "deals": int(total),
                     **_line_fit(groups, total, confidence),
                     **_curve_facts(table, groups, total, confidence, count_column)})
    table = (pl.concat(tables) if tables else pl.DataFrame(schema={
        "players": pl.Int64, "rules": pl.String, count_column: pl.Int64,
        "mean": pl.Float64, "mean_low": pl.Float64, "mean_high": pl.Float64,
        "deals": pl.Int64})).sort(keys)
    return table, pl.DataFrame(fits)


def worded_count(table: pl.DataFrame) -> RandomisedCountEffect:
    """The count of a ``count_effect`` table, worded by its column's name: for a table
    whose game's declaration (``Game.analyses``) is not at hand."""
    column = next(c for c in table.columns
                  if c not in ("players", "rules", "mean", "mean_low", "mean_high", "deals"))
    words = column.replace("_", " ")
    return RandomisedCountEffect(column, words, words, words, words, words.capitalize(), words)


def _line_fit(groups: dict[int, tuple[int, Fraction, Fraction]], total: int,
              confidence: float) -> dict:
    """The least-squares line of the deal means on the count (slope with its HC1 interval) and
    the lack-of-fit F test against one mean per count, from the per-count sums of
    ``_by_count``, exact. Any deal's residual enters only through its count's sums."""
    n = Fraction(total)
    sum_x = sum(Fraction(x * c) for x, (c, _, _) in groups.items())
    sum_xx = sum(Fraction(x * x * c) for x, (c, _, _) in groups.items())
    sum_y = sum(y for _, y, _ in groups.values())
    sum_xy = sum(x * y for x, (_, y, _) in groups.items())
    determinant = n * sum_xx - sum_x ** 2
    slope = (n * sum_xy - sum_x * sum_y) / determinant
    intercept = (sum_y - slope * sum_x) / n
    line_squares = {x: yy - 2 * (intercept + slope * x) * y + c * (intercept + slope * x) ** 2
                    for x, (c, y, yy) in groups.items()}
    # HC1: n / (n - 2) * (X'X)^-1 (sum of e^2 x x') (X'X)^-1, its slope entry.
    slope_variance = (n / (n - 2) * sum(line_squares[x] * (n * x - sum_x) ** 2
                                        for x in groups) / determinant ** 2)
    slope_value, slope_se = float(slope), float(np.sqrt(float(slope_variance)))
    critical = t_critical(total, confidence)
    record = {"slope": slope_value, "slope_low": slope_value - critical * slope_se,
              "slope_high": slope_value + critical * slope_se,
              "lack_of_fit_f": float("nan"), "lack_of_fit_p": float("nan"), "linear": True}
    if len(groups) >= 3:
        category_squares = sum(yy - y * y / c for c, y, yy in groups.values())
        line_total = sum(line_squares.values())
        extra_df, residual_df = len(groups) - 2, total - len(groups)
        with np.errstate(invalid="ignore", divide="ignore"):
            statistic = (float((line_total - category_squares) / extra_df)
                         / np.float64(float(category_squares / residual_df)))
        record["lack_of_fit_f"] = float(statistic)
        record["lack_of_fit_p"] = float(stats.f.sf(statistic, extra_df, residual_df))
        record["linear"] = bool(record["lack_of_fit_p"] >= 1.0 - confidence)
    return record


def _curve_facts(table: pl.DataFrame, groups: dict[int, tuple[int, Fraction, Fraction]],
                 total: int, confidence: float, count_column: str) -> dict:
    """The peak of the mean curve (among counts seen in at least 1% of deals), the most common
    count and the change of the mean from it to the next count, with a Welch interval."""
    frequent = table.filter(pl.col("deals") >= max(2, 0.01 * total))
    peak = frequent.sort(["mean", count_column], descending=[True, False]).row(0, named=True)
    common = table.sort(["deals", count_column], descending=[True, False]).row(0, named=True)
    facts = {"peak_count": peak[count_column], "peak_mean": peak["mean"],
             "peak_low": peak["mean_low"], "peak_high": peak["mean_high"],
             "common_count": common[count_column], "step": float("nan"),
             "step_low": float("nan"), "step_high": float("nan")}
    empty = (0, Fraction(0), Fraction(0))
    here = groups.get(common[count_column], empty)
    after = groups.get(common[count_column] + 1, empty)
    if here[0] >= 2 and after[0] >= 2:
        step = float(after[1] / after[0]) - float(here[1] / here[0])
        # Each count's variance of the deal means (ddof 1) over its deals.
        variances = tuple(float((yy - y * y / c) / (c - 1)) / c for c, y, yy in (here, after))
        se = float(np.sqrt(sum(variances)))
        # Welch-Satterthwaite degrees of freedom for the two independent groups of deals.
        df = sum(variances) ** 2 / (variances[0] ** 2 / (here[0] - 1)
                                    + variances[1] ** 2 / (after[0] - 1))
        critical = float(stats.t.ppf(0.5 + confidence / 2.0, df))
        facts.update(step=step, step_low=step - critical * se, step_high=step + critical * se)
    return facts
