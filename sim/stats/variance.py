"""Tile-set variance: how much of the score the deal decides (rows store only).

- ``deal_variance``: one-way random-effects decomposition of a seat's score over deals, from
  games that replay the same deal (``replicate`` 0..R-1 of a ``deal_id``);
- ``tile_impact``: the effect on the mean score of a tile removed unseen, holding the other
  removed tiles fixed (Legendary Forests, ``removed_tiles_mask``);
- ``light_tile_effect``: mean score by the number of light tiles drawn, and whether a line
  fits it (lack-of-fit test), its peak and the step from the most common count.

The unit for the last two is the deal (mean score of its rows): deals are independent, the
games of one deal are not.
"""

from __future__ import annotations

import numpy as np
import polars as pl
from scipy import stats

from sim.stats.batch import collect_streaming
from sim.stats.clustered import grouped_ratio_intervals, t_critical
from sim.stats.intervals import one_way_random_effects

PANEL = ["players", "rules"]
CELL = ["players", "rules", "seat"]


def _per_deal_sums(rows: pl.LazyFrame) -> pl.DataFrame:
    """Per (players, rules, seat, deal): ``n`` player-games, ``total`` and ``squares`` of the
    score centred on its (strategy, seat) mean, sorted by (players, rules, seat, deal).

    Centring removes a lineup rotated over the replays of a deal, which would otherwise add
    spurious within-deal variance. Polars forms exact integer sums per (cell, strategy, deal);
    the centring and the sums over strategies run in numpy in sorted order, so the bits never
    depend on thread scheduling.
    """
    exact = (rows.group_by([*CELL, "strategy", "deal_id"])
             .agg(n=pl.len().cast(pl.Int64), s=pl.col("score").cast(pl.Int64).sum(),
                  q=(pl.col("score").cast(pl.Int64) ** 2).sum())
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64)))
    exact = collect_streaming(exact)
    keys = exact.select(*CELL, "strategy").unique().sort([*CELL, "strategy"])
    exact = exact.join(keys.with_row_index("_stratum"), on=[*CELL, "strategy"],
                       maintain_order="left")
    order = np.lexsort((exact["deal_id"].to_numpy(), exact["_stratum"].to_numpy()))
    exact = exact[order]
    stratum = exact["_stratum"].to_numpy().astype(np.int64)
    n, total, squares = (exact[c].to_numpy().astype(float) for c in ("n", "s", "q"))
    mean = (np.bincount(stratum, weights=total, minlength=keys.height)
            / np.bincount(stratum, weights=n, minlength=keys.height))[stratum]
    centred_total = total - n * mean
    centred_squares = squares - 2.0 * mean * total + n * mean ** 2
    cells = exact.select(*CELL, "deal_id").with_columns(
        n=pl.Series(n), total=pl.Series(centred_total), squares=pl.Series(centred_squares))
    # Sum over the strategies of a (cell, deal), in a fixed order.
    cell_keys = cells.select(*CELL, "deal_id").unique().sort([*CELL, "deal_id"])
    index = (cells.select(*CELL, "deal_id")
             .join(cell_keys.with_row_index("_cell"), on=[*CELL, "deal_id"],
                   maintain_order="left")["_cell"].to_numpy().astype(np.int64))
    return cell_keys.with_columns(**{
        name: pl.Series(np.bincount(index, weights=cells[name].to_numpy(),
                                    minlength=cell_keys.height))
        for name in ("n", "total", "squares")})


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


def _deal_means(rows: pl.LazyFrame, extra: list[str]) -> pl.LazyFrame:
    """Mean score per (players, rules, deal) with the deal-level columns ``extra``."""
    return rows.group_by([*PANEL, "deal_id"]).agg(
        pl.col("score").cast(pl.Float64).mean(), *[pl.col(c).first() for c in extra])


TILE_METHOD = ("least squares of the deal's mean score on one indicator per tile removed "
               "(no intercept: exactly k tiles are removed), so each tile's effect holds the "
               "other removed tiles fixed; deals are the independent units (HC1 robust errors)")


def tile_impact(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, tile): mean score per player of deals with the tile removed unseen
    and without it, and the tile's effect holding the other removed tiles fixed, with a 95%
    interval.

    Model (statsmodels OLS over deals, the independent units): deal mean = sum_n beta_n
    removed_n + error. Since every deal removes the same number of tiles, only differences of
    the beta are defined; a tile's effect is beta_n minus the average beta of the other tiles,
    the change in the mean score when tile n is removed instead of a tile taken at random from
    the others. A tile never removed (tile 1, the start) or always removed is left out.
    """
    import statsmodels.api as sm

    deals = collect_streaming(_deal_means(rows, ["removed_tiles_mask"])
                              .sort([*PANEL, "deal_id"]))
    results = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        mask = panel["removed_tiles_mask"].to_numpy().astype(np.int64)
        score = panel["score"].to_numpy()
        bits = int(np.max(mask)).bit_length() if mask.size else 0
        removed = np.column_stack([(mask >> bit) & 1 for bit in range(bits)]).astype(float) \
            if bits else np.zeros((mask.size, 0))
        counts = removed.sum(axis=0)
        tiles = [bit for bit in range(bits) if 2 <= counts[bit] <= mask.size - 2]
        if len(tiles) < 2:
            continue
        design = removed[:, tiles]
        if np.linalg.matrix_rank(design) < len(tiles):
            continue
        fit = sm.OLS(score, design).fit(method="qr", cov_type="HC1")
        critical = t_critical(mask.size, confidence)
        others = (np.ones((len(tiles), len(tiles))) - np.eye(len(tiles))) / (len(tiles) - 1)
        contrasts = np.eye(len(tiles)) - others
        effects = contrasts @ fit.params
        errors = np.sqrt(np.diag(contrasts @ fit.cov_params() @ contrasts.T))
        for k, bit in enumerate(tiles):
            with_tile = score[removed[:, bit] == 1]
            without = score[removed[:, bit] == 0]
            results.append({
                "players": int(players), "rules": rules, "tile": bit + 1,
                "deals_removed": int(with_tile.size), "deals_kept": int(without.size),
                "mean_removed": float(with_tile.mean()), "mean_kept": float(without.mean()),
                "effect": float(effects[k]), "effect_se": float(errors[k]),
                "effect_low": float(effects[k] - critical * errors[k]),
                "effect_high": float(effects[k] + critical * errors[k]),
            })
    return pl.DataFrame(results)


def light_tile_effect(rows: pl.LazyFrame, confidence: float = 0.95
                      ) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Mean score per player by the number of light tiles drawn, and whether a straight line
    describes it.

    Returns (table per (players, rules, light_tiles_drawn): deals, mean with a 95% t interval
    over deals; fit per (players, rules)). The fit row holds the least-squares slope (points per
    extra light tile, HC1 interval), the lack-of-fit F test of the line against one mean per
    count (statsmodels ``anova_lm``; ``linear`` is true when it does not reject at 5%), the
    count where the mean peaks, the most common count, and the change from that count to the
    next (difference of the two means, with its interval).
    """
    import statsmodels.api as sm
    from statsmodels.stats.anova import anova_lm

    deals = (_deal_means(rows, ["light_tiles_drawn"])
             .with_columns(pl.col("light_tiles_drawn").cast(pl.Int64),
                           pl.col("players").cast(pl.Int64), one=pl.lit(1, pl.Int64))
             .sort([*PANEL, "deal_id"]))
    deals = collect_streaming(deals)
    keys = [*PANEL, "light_tiles_drawn"]
    table = (grouped_ratio_intervals(deals.rename({"deal_id": "cluster"}), keys, "score",
                                     "one", "mean", confidence=confidence)
             .rename({"mean_clusters": "deals"}).drop("mean_se").sort(keys))
    fits = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        x = panel["light_tiles_drawn"].to_numpy().astype(float)
        y = panel["score"].to_numpy()
        counts = np.unique(x)
        if x.size < 4 or counts.size < 2:
            continue
        line = sm.OLS(y, sm.add_constant(x)).fit()
        slope, slope_se = float(line.params[1]), float(np.sqrt(line.cov_HC1[1, 1]))
        critical = t_critical(x.size, confidence)
        record = {"players": int(players), "rules": rules, "deals": int(x.size),
                  "slope": slope, "slope_low": slope - critical * slope_se,
                  "slope_high": slope + critical * slope_se,
                  "lack_of_fit_f": float("nan"), "lack_of_fit_p": float("nan"), "linear": True}
        if counts.size >= 3:
            categories = sm.OLS(y, (x[:, None] == counts[None, :]).astype(float)).fit()
            comparison = anova_lm(line, categories)
            record["lack_of_fit_f"] = float(comparison["F"].iloc[1])
            record["lack_of_fit_p"] = float(comparison["Pr(>F)"].iloc[1])
            record["linear"] = bool(record["lack_of_fit_p"] >= 1.0 - confidence)
        panel_table = table.filter((pl.col("players") == players) & (pl.col("rules") == rules))
        record.update(_curve_facts(panel_table, x, y, confidence))
        fits.append(record)
    return table, pl.DataFrame(fits)


def _curve_facts(table: pl.DataFrame, x: np.ndarray, y: np.ndarray,
                 confidence: float) -> dict:
    """The peak of the mean curve (among counts seen in at least 1% of deals), the most common
    count and the change of the mean from it to the next count, with a Welch interval."""
    frequent = table.filter(pl.col("deals") >= max(2, 0.01 * x.size))
    peak = frequent.sort(["mean", "light_tiles_drawn"], descending=[True, False]).row(
        0, named=True)
    common = table.sort(["deals", "light_tiles_drawn"], descending=[True, False]).row(
        0, named=True)
    facts = {"peak_count": peak["light_tiles_drawn"], "peak_mean": peak["mean"],
             "peak_low": peak["mean_low"], "peak_high": peak["mean_high"],
             "common_count": common["light_tiles_drawn"], "step": float("nan"),
             "step_low": float("nan"), "step_high": float("nan")}
    here, after = y[x == common["light_tiles_drawn"]], y[x == common["light_tiles_drawn"] + 1]
    if here.size >= 2 and after.size >= 2:
        step = float(after.mean() - here.mean())
        variances = here.var(ddof=1) / here.size, after.var(ddof=1) / after.size
        se = float(np.sqrt(sum(variances)))
        # Welch-Satterthwaite degrees of freedom for the two independent groups of deals.
        df = sum(variances) ** 2 / (variances[0] ** 2 / (here.size - 1)
                                    + variances[1] ** 2 / (after.size - 1))
        critical = float(stats.t.ppf(0.5 + confidence / 2.0, df))
        facts.update(step=step, step_low=step - critical * se, step_high=step + critical * se)
    return facts
