"""The construction token, light tiles, tile impact and deal variance in bounded memory (issue
39): computed from sufficient statistics over chunks of whole deals, they give the numbers of
the row-level fits they replace (kept here as plain statsmodels / polars references), whatever
the chunking, the rows' order or the shard a deal's replays fall in, and never collect a
per-row frame."""

from fractions import Fraction

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats import variance
from sim.stats.analysis import _read_rows
from sim.stats.batch import open_batch
from sim.stats.clustered import grouped_ratio_intervals, t_critical
from sim.stats.rotating_role import mean_order_position, role_table, role_turn_effect
from sim.stats.synthetic import SyntheticDesign
from sim.stats.variance import (
    count_effect,
    deal_variance,
    exact_integer_solve,
    exact_solve,
    removed_item_effect,
    summarise_whole_deals,
)

PANEL = ["players", "rules"]
# Three replays per deal and 100 games per shard: deals 33, 66 and 99 have replays in two
# shards. Tile, light-tile and token effects and a deal effect are built in.
# Ten tiles of which three are removed: 84 possible sets, fewer than the deals.
SPLIT = SyntheticDesign(name="bounded-split", deals=300, replicates=3, games_per_shard=100,
                        deal_sd=3.0, noise_sd=5.0, seat_points=(1.0, 0.0, 0.5, -0.5), seed=21,
                        deal_model=ForestDeals(token_points=1.5, tile_points={3: 2.0, 7: -2.0},
                                               light_tile_points=0.5, tile_count=10,
                                               removed_tiles=3))
# A rotating pool with one game per deal in some shards' cuts (deals 0..), ties now and then.
POOL = SyntheticDesign(name="bounded-rotation", deals=240, replicates=2, games_per_shard=90,
                       lineup=("a", "b", "c", "d"), rotate_lineup=True,
                       strategy_points={"a": 2.0, "c": -1.0}, deal_sd=2.0, noise_sd=3.0, seed=22,
                       deal_model=ForestDeals(token_points=0.5, light_tile_points=-0.5))
SECTIONS = ("role_table", "role_turn_effect", "count_table", "count_fit", "removed_item_effect",
            "deal_variance")


# --- the row-level computations these sections replaced (references) -------------------------

def reference_token_table(rows: pl.LazyFrame) -> pl.DataFrame:
    keys = [*PANEL, "light_tiles_drawn", "seat"]
    table = (rows.group_by(keys).agg(
        player_games=pl.len(),
        first_picks=pl.col("tree_phases_as_token_holder").cast(pl.Float64).mean(),
        mean=pl.col("score").cast(pl.Float64).mean(),
        win_rate=pl.col("win").cast(pl.Float64).mean(),
    ).with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                   pl.col("light_tiles_drawn").cast(pl.Int64)).sort(keys)).collect()
    units = (rows.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                               pl.col("light_tiles_drawn").cast(pl.Int64))
             .group_by([*keys, pl.col("deal_id").alias("cluster")])
             .agg(score_sum=pl.col("score").cast(pl.Int64).sum(),
                  player_games=pl.len().cast(pl.Int64))).collect()
    intervals = grouped_ratio_intervals(units, keys, "score_sum", "player_games", "mean")
    positions = [mean_order_position(p, light, s) for p, light, s in
                 table.select("players", "light_tiles_drawn", "seat").iter_rows()]
    return table.with_columns(mean_position=pl.Series(positions, dtype=pl.Float64)).join(
        intervals.select(*keys, "mean_low", "mean_high"), on=keys, how="left")


def reference_token_effect(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    import statsmodels.api as sm

    frame = (rows.select("game_id", "deal_id", *PANEL, "seat", "score", "win",
                         "tree_phases_as_token_holder")
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
             .sort(["game_id", "seat"]).collect())
    results = []
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        centred = panel.with_columns(
            [(pl.col(c).cast(pl.Float64) - pl.col(c).cast(pl.Float64).mean().over("game_id"))
             .alias(f"{c}_within") for c in ("score", "win", "tree_phases_as_token_holder")])
        token = centred["tree_phases_as_token_holder_within"].to_numpy()
        seat = panel["seat"].to_numpy()
        design = np.column_stack([token, *[(seat == s).astype(float) - 1.0 / players
                                           for s in range(1, players)]])
        deals = panel["deal_id"].to_numpy()
        clusters = int(np.unique(deals).size)
        critical = t_critical(clusters, confidence)
        record = {"players": int(players), "rules": rules,
                  "games": int(panel["game_id"].n_unique()), "clusters": clusters}
        for outcome, name in (("score_within", "score_gap"), ("win_within", "win_gap")):
            fit = sm.OLS(centred[outcome].to_numpy(), design).fit(
                method="qr", cov_type="cluster", cov_kwds={"groups": deals})
            estimate, se = float(fit.params[0]), float(fit.bse[0])
            record.update({name: estimate, f"{name}_low": estimate - critical * se,
                           f"{name}_high": estimate + critical * se})
        results.append(record)
    return pl.DataFrame(results)


def _reference_deal_means(rows: pl.LazyFrame, extra: str) -> pl.DataFrame:
    return (rows.group_by([*PANEL, "deal_id"]).agg(pl.col("score").cast(pl.Float64).mean(),
                                                   pl.col(extra).first())
            .with_columns(pl.col("players").cast(pl.Int64)).sort([*PANEL, "deal_id"]).collect())


def reference_tile_impact(rows: pl.LazyFrame, confidence: float = 0.95) -> pl.DataFrame:
    import statsmodels.api as sm

    deals = _reference_deal_means(rows, "removed_tiles_mask")
    results = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        mask = panel["removed_tiles_mask"].to_numpy().astype(np.int64)
        score = panel["score"].to_numpy()
        bits = int(np.max(mask)).bit_length()
        removed = np.column_stack([(mask >> bit) & 1 for bit in range(bits)]).astype(float)
        counts = removed.sum(axis=0)
        tiles = [bit for bit in range(bits) if 2 <= counts[bit] <= mask.size - 2]
        design = removed[:, tiles]
        fit = sm.OLS(score, design).fit(method="qr", cov_type="HC1")
        critical = t_critical(mask.size, confidence)
        others = (np.ones((len(tiles), len(tiles))) - np.eye(len(tiles))) / (len(tiles) - 1)
        contrasts = np.eye(len(tiles)) - others
        effects = contrasts @ fit.params
        errors = np.sqrt(np.diag(contrasts @ fit.cov_params() @ contrasts.T))
        for k, bit in enumerate(tiles):
            with_tile, without = score[removed[:, bit] == 1], score[removed[:, bit] == 0]
            results.append({
                "players": int(players), "rules": rules, "tile": bit + 1,
                "deals_removed": int(with_tile.size), "deals_kept": int(without.size),
                "mean_removed": float(with_tile.mean()), "mean_kept": float(without.mean()),
                "effect": float(effects[k]), "effect_se": float(errors[k]),
                "effect_low": float(effects[k] - critical * errors[k]),
                "effect_high": float(effects[k] + critical * errors[k]),
            })
    return pl.DataFrame(results)


def reference_light_tile_effect(rows: pl.LazyFrame, confidence: float = 0.95
                                ) -> tuple[pl.DataFrame, pl.DataFrame]:
    import statsmodels.api as sm
    from statsmodels.stats.anova import anova_lm

    deals = _reference_deal_means(rows, "light_tiles_drawn").with_columns(
        pl.col("light_tiles_drawn").cast(pl.Int64), one=pl.lit(1, pl.Int64))
    keys = [*PANEL, "light_tiles_drawn"]
    table = (grouped_ratio_intervals(deals.rename({"deal_id": "cluster"}), keys, "score",
                                     "one", "mean", confidence=confidence)
             .rename({"mean_clusters": "deals"}).drop("mean_se").sort(keys))
    fits = []
    for (players, rules), panel in deals.group_by(PANEL, maintain_order=True):
        x = panel["light_tiles_drawn"].to_numpy().astype(float)
        y = panel["score"].to_numpy()
        counts = np.unique(x)
        line = sm.OLS(y, sm.add_constant(x)).fit()
        slope, slope_se = float(line.params[1]), float(np.sqrt(line.cov_HC1[1, 1]))
        critical = t_critical(x.size, confidence)
        categories = sm.OLS(y, (x[:, None] == counts[None, :]).astype(float)).fit()
        comparison = anova_lm(line, categories)
        p_value = float(comparison["Pr(>F)"].iloc[1])
        panel_table = table.filter((pl.col("players") == players) & (pl.col("rules") == rules))
        frequent = panel_table.filter(pl.col("deals") >= max(2, 0.01 * x.size))
        peak = frequent.sort(["mean", "light_tiles_drawn"], descending=[True, False]).row(
            0, named=True)
        common = panel_table.sort(["deals", "light_tiles_drawn"],
                                  descending=[True, False]).row(0, named=True)
        here = y[x == common["light_tiles_drawn"]]
        after = y[x == common["light_tiles_drawn"] + 1]
        step = float(after.mean() - here.mean())
        variances = here.var(ddof=1) / here.size, after.var(ddof=1) / after.size
        se = float(np.sqrt(sum(variances)))
        df = sum(variances) ** 2 / (variances[0] ** 2 / (here.size - 1)
                                    + variances[1] ** 2 / (after.size - 1))
        from scipy import stats

        step_critical = float(stats.t.ppf(0.5 + confidence / 2.0, df))
        fits.append({
            "players": int(players), "rules": rules, "deals": int(x.size), "slope": slope,
            "slope_low": slope - critical * slope_se, "slope_high": slope + critical * slope_se,
            "lack_of_fit_f": float(comparison["F"].iloc[1]), "lack_of_fit_p": p_value,
            "linear": bool(p_value >= 1.0 - confidence),
            "peak_count": peak["light_tiles_drawn"], "peak_mean": peak["mean"],
            "peak_low": peak["mean_low"], "peak_high": peak["mean_high"],
            "common_count": common["light_tiles_drawn"], "step": step,
            "step_low": step - step_critical * se, "step_high": step + step_critical * se})
    return table, pl.DataFrame(fits)


def reference_per_deal_sums(rows: pl.LazyFrame) -> pl.DataFrame:
    """The per-deal sums of ``deal_variance`` from one group-by over every row."""
    cell = ["players", "rules", "seat"]
    exact = (rows.group_by([*cell, "strategy", "deal_id"])
             .agg(n=pl.len().cast(pl.Int64), s=pl.col("score").cast(pl.Int64).sum(),
                  q=(pl.col("score").cast(pl.Int64) ** 2).sum())
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
             .collect())
    keys = exact.select(*cell, "strategy").unique().sort([*cell, "strategy"])
    exact = exact.join(keys.with_row_index("_stratum"), on=[*cell, "strategy"],
                       maintain_order="left")
    exact = exact[np.lexsort((exact["deal_id"].to_numpy(), exact["_stratum"].to_numpy()))]
    stratum = exact["_stratum"].to_numpy().astype(np.int64)
    n, total, squares = (exact[c].to_numpy().astype(float) for c in ("n", "s", "q"))
    mean = (np.bincount(stratum, weights=total) / np.bincount(stratum, weights=n))[stratum]
    cells = exact.select(*cell, "deal_id").with_columns(
        n=pl.Series(n), total=pl.Series(total - n * mean),
        squares=pl.Series(squares - 2.0 * mean * total + n * mean ** 2))
    cell_keys = cells.select(*cell, "deal_id").unique().sort([*cell, "deal_id"])
    index = (cells.select(*cell, "deal_id")
             .join(cell_keys.with_row_index("_cell"), on=[*cell, "deal_id"],
                   maintain_order="left")["_cell"].to_numpy().astype(np.int64))
    return cell_keys.with_columns(**{
        name: pl.Series(np.bincount(index, weights=cells[name].to_numpy(),
                                    minlength=cell_keys.height))
        for name in ("n", "total", "squares")})


# --- helpers ----------------------------------------------------------------------------------

def _sections(rows: pl.LazyFrame) -> dict[str, pl.DataFrame]:
    count_table, count_fit = count_effect(rows)
    return {"role_table": role_table(rows), "role_turn_effect": role_turn_effect(rows),
            "count_table": count_table, "count_fit": count_fit,
            "removed_item_effect": removed_item_effect(rows), "deal_variance": deal_variance(rows)}


def _references(rows: pl.LazyFrame, monkeypatch) -> dict[str, pl.DataFrame]:
    light_table, light_fit = reference_light_tile_effect(rows)
    with monkeypatch.context() as patch:
        patch.setattr(variance, "_per_deal_sums", reference_per_deal_sums)
        variances = deal_variance(rows)
    return {"role_table": reference_token_table(rows),
            "role_turn_effect": reference_token_effect(rows), "count_table": light_table,
            "count_fit": light_fit, "removed_item_effect": reference_tile_impact(rows),
            "deal_variance": variances}


def _close(new: pl.DataFrame, old: pl.DataFrame, scale: pl.DataFrame | None = None) -> None:
    """Equal columns, types and keys; floats within 1e-12 relative (sums in another order), or
    within 1e-12 of the value's standard error where one is given (a bound near 0)."""
    assert new.columns == old.columns and new.schema == old.schema and new.height == old.height
    for column in new.columns:
        if not new[column].dtype.is_float():
            assert new[column].equals(old[column]), column
            continue
        a, b = new[column].to_numpy(), old[column].to_numpy()
        assert np.array_equal(np.isnan(a), np.isnan(b)), column
        tolerance = 1e-12 * np.abs(b)
        if scale is not None:
            tolerance = np.maximum(tolerance, 1e-12 * scale.to_numpy())
        assert np.all(np.abs(a - b)[~np.isnan(b)] <= tolerance[~np.isnan(b)]), column


@pytest.fixture(scope="module")
def batches(write_batch):
    return {design.name: open_batch(write_batch(design)) for design in (SPLIT, POOL)}


# --- tests ------------------------------------------------------------------------------------

@pytest.mark.parametrize("design", [SPLIT, POOL], ids=["split-deals", "rotation"])
def test_sections_equal_the_row_level_fits(batches, design, monkeypatch):
    rows = _read_rows(batches[design.name])
    new, old = _sections(rows), _references(rows, monkeypatch)
    # Integer sums and exact rationals: the same to the last bit or one rounding.
    assert_frame_equal(new["deal_variance"], old["deal_variance"], check_exact=True)
    assert not new["deal_variance"].is_empty()
    for name in ("role_table", "count_table", "count_fit", "role_turn_effect"):
        _close(new[name], old[name])
    # The reference's effect is beta_n minus the others' mean, which loses digits to
    # cancellation: compare to the effect's standard error.
    removed = "removed_item_effect"
    _close(new[removed], old[removed], scale=old[removed]["effect_se"])


def test_chunks_cutting_deals_and_shuffled_rows_change_nothing(batches, monkeypatch):
    """Chunks of 37 rows cut through games, deals and shards; shuffled rows in memory are put
    back in deal order. Every exact section gives the same bits; the token regression's
    covariance (sums of floats in another order) the same to 1e-12."""
    rows = _read_rows(batches[SPLIT.name])
    expected = _sections(rows)
    monkeypatch.setattr(variance, "DEAL_CHUNK_ROWS", 37)
    shuffled = rows.collect().sample(fraction=1.0, shuffle=True, seed=3).lazy()
    for frame in (rows, shuffled):
        found = _sections(frame)
        for name in SECTIONS:
            if name == "role_turn_effect":
                _close(found[name], expected[name])
            else:
                assert_frame_equal(found[name], expected[name], check_exact=True)


def test_whole_deal_chunks_keep_a_deal_split_across_shards_together(batches):
    rows = _read_rows(batches[SPLIT.name])
    chunks = summarise_whole_deals(rows, ["deal_id", "game_id"], lambda chunk: chunk,
                                   chunk_rows=50)
    deal_ids = [set(chunk["deal_id"].to_list()) for chunk in chunks]
    assert all(not a & b for a, b in zip(deal_ids, deal_ids[1:], strict=False))
    assert sum(chunk.height for chunk in chunks) == SPLIT.deals * SPLIT.replicates * 4
    # Deal 33's replays are games 99 (shard 0) and 100, 101 (shard 1): one chunk holds them.
    holding = [chunk for chunk in chunks if 33 in chunk["deal_id"]]
    assert len(holding) == 1
    assert set(holding[0].filter(pl.col("deal_id") == 33)["game_id"]) == {99, 100, 101}


def test_sections_never_collect_a_per_row_frame(batches, monkeypatch):
    """With chunks of at most 120 rows (3,600 rows, 300 deals in the batch), what streams in is
    never more than a chunk; the token, light-tile and tile sections collect nothing larger
    than a chunk (tile impact keeps sums per set of removed tiles: at most 84 here, fewer than
    the deals), and deal variance nothing larger than its per-(seat, deal) sums (1,200 rows),
    which its bootstrap over deals needs."""
    batch = batches[SPLIT.name]
    player_rows = SPLIT.deals * SPLIT.replicates * 4
    chunk_rows, deal_rows, seat_deals = 120, SPLIT.replicates * 4, SPLIT.deals * 4
    monkeypatch.setattr(variance, "DEAL_CHUNK_ROWS", chunk_rows)
    collect_batches = pl.LazyFrame.collect_batches
    limit = {"rows": chunk_rows}
    largest = {"collected": 0, "streamed": 0}

    def bounded(method):
        def collect(self, *args, **kwargs):
            frame = method(self, *args, **kwargs)
            if isinstance(frame, pl.DataFrame):
                largest["collected"] = max(largest["collected"], frame.height)
                assert frame.height <= limit["rows"], f"collected {frame.height} rows"
            return frame
        return collect

    def bounded_batches(self, *args, **kwargs):
        for chunk in collect_batches(self, *args, **kwargs):
            largest["streamed"] = max(largest["streamed"], chunk.height)
            assert chunk.height <= chunk_rows
            yield chunk

    monkeypatch.setattr(pl.LazyFrame, "collect", bounded(pl.LazyFrame.collect))
    # Eager DataFrame operations (group-bys, joins, sorts) run through this one.
    monkeypatch.setattr(pl.LazyFrame, "_collect_eager", bounded(pl.LazyFrame._collect_eager))
    monkeypatch.setattr(pl.LazyFrame, "collect_batches", bounded_batches)
    rows = _read_rows(batch)
    found = [role_table(rows), role_turn_effect(rows), *count_effect(rows),
             removed_item_effect(rows)]
    assert 0 < largest["collected"] <= chunk_rows
    limit["rows"] = seat_deals
    found.append(deal_variance(rows))
    assert all(not frame.is_empty() for frame in found)
    assert 0 < largest["collected"] <= seat_deals < player_rows
    assert 0 < largest["streamed"] <= chunk_rows
    chunks = summarise_whole_deals(rows, ["deal_id"], len)
    assert max(chunks) <= chunk_rows + deal_rows and sum(chunks) == player_rows


def test_token_effect_refuses_incomplete_games(batches):
    rows = _read_rows(batches[SPLIT.name]).filter(~((pl.col("game_id") == 5)
                                                    & (pl.col("seat") == 2)))
    with pytest.raises(ValueError, match="whole games"):
        role_turn_effect(rows)


def test_exact_linear_algebra():
    inverse, (solution,) = exact_solve([[2, 1], [1, 3]], [[3, 5]])
    assert solution == [Fraction(4, 5), Fraction(7, 5)]
    assert inverse == [[Fraction(3, 5), Fraction(-1, 5)], [Fraction(-1, 5), Fraction(2, 5)]]
    assert exact_integer_solve([[2, 1], [1, 3]], [3, 5]) == solution
    assert exact_integer_solve([[0, 2], [3, 1]], [4, 5]) == [1, 2]  # a row swap
    # Two tiles always removed together: a singular co-removal matrix, caught exactly.
    assert exact_integer_solve([[5, 5, 2], [5, 5, 2], [2, 2, 4]], [1, 1, 1]) is None
