"""The card and kept-card descriptives read in chunks of whole deals (issue 39): the same
numbers as the computation on every row at once (kept here as it was), whatever the chunk size,
a deal's rows cut across the reader's batches included, and no per-row frame of the whole
batch is ever collected."""

from fractions import Fraction

import numpy as np
import polars as pl
import pytest

import sim.stats.cards as cards_module
from sim.games.base import CardColumns, DraftColumns
from sim.stats.cards import (
    PANEL,
    _as_list,
    _share_intervals,
    card_descriptives,
    draft_descriptives,
)
from sim.stats.clustered import WIN_SCALE, grouped_ratio_table
from sim.stats.synthetic_cards import CardDesign, generate_card_rows
from sim.stats.unfolding import add_cluster_grams, cluster_gram, gram_ratio_table
from sim.stats.units import win_units

CARDS = CardColumns(noun="card", cards="cards_taken", rounds="card_rounds",
                    offers="card_offers", completed="card_completed", points="card_points",
                    progress="card_cubes", progress_noun="cube", opening="card_opening_row")
DRAFT = DraftColumns(noun="spirit", dealt="spirits_dealt", kept="spirit_kept",
                     bonus="points_spirit")
# Three seats (the others' means are thirds and halves of a point), replays of each deal.
DESIGN = CardDesign(players=3, deals=40, replicates=3, draft_extra={35: 4.0})


@pytest.fixture(scope="module")
def frame() -> pl.DataFrame:
    return generate_card_rows(DESIGN, CARDS, DRAFT).with_columns(
        pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64), rules=pl.lit(""))


# --- the computation on every row at once, as it was before the sections read in chunks ---------

def old_card_descriptives(frame: pl.DataFrame, cards: CardColumns) -> pl.DataFrame:
    columns = [cards.cards, cards.rounds, cards.completed, cards.points, cards.progress]
    takes = (frame.select(*PANEL, "deal_id", *columns).explode(columns)
             .drop_nulls(cards.cards).rename({cards.cards: "card", "deal_id": "cluster"}))
    taken = takes.group_by([*PANEL, "card", "cluster"]).agg(
        taken=pl.len().cast(pl.Int64),
        completed=pl.col(cards.completed).cast(pl.Int64).sum(),
        points=pl.col(cards.points).cast(pl.Int64).sum(),
        rounds=pl.col(cards.rounds).cast(pl.Int64).sum(),
        progress=pl.col(cards.progress).cast(pl.Int64).sum())
    offers = (frame.select(*PANEL, "deal_id", pl.col(cards.cards).alias("taken"),
                           pl.col(cards.offers).alias("offer"))
              .explode(["taken", "offer"]).drop_nulls("taken")
              .with_columns(random=1.0 / pl.col("offer").list.len().cast(pl.Float64))
              .explode("offer").rename({"deal_id": "cluster"}))
    offered = (offers.group_by([*PANEL, pl.col("offer").alias("card"), "cluster"])
               .agg(offered=pl.len().cast(pl.Int64),
                    chosen=(pl.col("offer") == pl.col("taken")).cast(pl.Int64).sum(),
                    random=pl.col("random").sum()))
    keys = [*PANEL, "card"]
    rates = grouped_ratio_table(offered.sort([*keys, "cluster"]), keys, "offered",
                                {"take_rate": "chosen", "take_rate_random": "random"})
    outcomes = grouped_ratio_table(taken.sort([*keys, "cluster"]), keys, "taken",
                                   {"completion_rate": "completed", "mean_points": "points",
                                    "mean_round": "rounds"})
    per_piece = grouped_ratio_table(taken.sort([*keys, "cluster"]), keys, "progress",
                                    {"points_per_piece": "points"})
    counts = (taken.group_by(keys).agg(pl.col("taken").sum(), pl.col("progress").sum())
              .join(offered.group_by(keys).agg(pl.col("offered").sum()), on=keys, how="full",
                    coalesce=True))
    table = (counts.join(rates.select(*keys, "take_rate", "take_rate_low", "take_rate_high",
                                      "take_rate_se", "take_rate_clusters",
                                      "take_rate_random"), on=keys, how="left")
             .join(outcomes.select(*keys, "completion_rate", "completion_rate_low",
                                   "completion_rate_high", "completion_rate_se",
                                   "completion_rate_clusters", "mean_points", "mean_points_low",
                                   "mean_points_high", "mean_round"), on=keys, how="left")
             .join(per_piece.select(*keys, "points_per_piece", "points_per_piece_low",
                                    "points_per_piece_high"), on=keys, how="left"))
    table = table.with_columns(pl.col("taken").fill_null(0), pl.col("offered").fill_null(0),
                               pl.col("card").cast(pl.Int64),
                               pl.col("mean_points_low").clip(lower_bound=0.0))
    return (_share_intervals(table, {"take_rate": "offered", "completion_rate": "taken"})
            .rename({"progress": "pieces"}).sort(keys))


def old_draft_descriptives(frame: pl.DataFrame, draft: DraftColumns) -> pl.DataFrame:
    keys = [*PANEL, "card"]
    dealt = (frame.filter(pl.col(draft.kept) > 0)
             .select(*PANEL, pl.col("deal_id").alias("cluster"), draft.kept,
                     _as_list(frame, draft.dealt).alias("card"))
             .explode("card").filter(pl.col("card") > 0)
             .group_by([*keys, "cluster"])
             .agg(dealt=pl.len().cast(pl.Int64),
                  kept=(pl.col("card") == pl.col(draft.kept)).cast(pl.Int64).sum())
             .with_columns(pl.col("card").cast(pl.Int64)).sort([*keys, "cluster"]))
    table = frame.with_columns(
        table_score=pl.col("score").cast(pl.Float64).sum().over("game_id"),
        table_win=pl.col("win").cast(pl.Float64).sum().over("game_id"),
        table_size=pl.len().over("game_id").cast(pl.Float64))
    others = pl.col("table_size") - 1.0
    keepers = table.filter(pl.col(draft.kept) > 0).with_columns(
        others_score=pl.when(others > 0).then(
            (pl.col("table_score") - pl.col("score").cast(pl.Float64)) / others),
        others_win=pl.when(others > 0).then(
            (pl.col("table_win") - pl.col("win").cast(pl.Float64)) / others))
    units = (keepers.group_by([*PANEL, pl.col(draft.kept).cast(pl.Int64).alias("card"),
                               pl.col("deal_id").alias("cluster")])
             .agg(keeps=pl.len().cast(pl.Int64),
                  bonus=pl.col(draft.bonus).cast(pl.Int64).sum(),
                  score=pl.col("score").cast(pl.Int64).sum(),
                  wins=win_units().sum(),
                  others_score=pl.col("others_score").sum(),
                  others_win=pl.col("others_win").sum(),
                  others=pl.col("others_score").is_not_null().cast(pl.Int64).sum())
             .with_columns(win=pl.col("wins") / WIN_SCALE,
                           score_gap=pl.col("score") - pl.col("others_score"),
                           win_gap=pl.col("wins") / WIN_SCALE - pl.col("others_win"))
             .sort([*keys, "cluster"]))
    keep_rate = grouped_ratio_table(dealt, keys, "dealt", {"keep_rate": "kept"})
    means = grouped_ratio_table(units, keys, "keeps", {"mean_bonus": "bonus",
                                                       "keeper_score": "score",
                                                       "keeper_win_rate": "win"})
    gaps = grouped_ratio_table(units.filter(pl.col("others") > 0), keys, "others",
                               {"others_score": "others_score", "others_win_rate": "others_win",
                                "score_gap": "score_gap", "win_gap": "win_gap"})
    counts = dealt.group_by(keys).agg(pl.col("dealt").sum(), pl.col("kept").sum())

    def interval(name: str) -> list[str]:
        return [name, f"{name}_low", f"{name}_high"]

    helpers = ["keep_rate_se", "keep_rate_clusters"]
    table = (counts.join(keep_rate.select(*keys, *interval("keep_rate"), *helpers), on=keys,
                         how="left")
             .join(means.select(*keys, *interval("mean_bonus"), *interval("keeper_score"),
                                *interval("keeper_win_rate"), "keeper_win_rate_se",
                                "keeper_win_rate_clusters"), on=keys, how="left")
             .join(units.group_by(keys).agg(pl.col("keeps").sum()), on=keys, how="left")
             .join(gaps.select(*keys, "others_score", "others_win_rate", *interval("score_gap"),
                               *interval("win_gap")), on=keys, how="left"))
    table = _share_intervals(table, {"keep_rate": "dealt", "keeper_win_rate": "keeps"})
    return table.drop("keeps").with_columns(
        pl.col("mean_bonus_low").clip(lower_bound=0.0)).sort(keys)


def assert_close(old: pl.DataFrame, new: pl.DataFrame, relative: float = 1e-12) -> None:
    """The same columns, types, rows and integers; floats within ``relative`` (NaN alike)."""
    assert old.schema == new.schema
    assert old.height == new.height
    for name in old.columns:
        if old.schema[name] == pl.Float64:
            np.testing.assert_allclose(new[name].to_numpy(), old[name].to_numpy(),
                                       rtol=relative, atol=0.0, equal_nan=True, err_msg=name)
        else:
            assert new[name].equals(old[name], null_equal=True), name


# --- the tests -----------------------------------------------------------------------------------

@pytest.mark.parametrize("chunk_rows", [7, 1 << 18])
def test_card_descriptives_in_chunks_equal_the_old_computation(frame, monkeypatch, chunk_rows):
    # 7 rows cut most deals (9 player-games each) across the reader's batches.
    monkeypatch.setattr(cards_module, "_DESCRIPTIVE_CHUNK_ROWS", chunk_rows)
    assert_close(old_card_descriptives(frame, CARDS), card_descriptives(frame.lazy(), CARDS))


@pytest.mark.parametrize("chunk_rows", [7, 1 << 18])
def test_draft_descriptives_in_chunks_equal_the_old_computation(frame, monkeypatch, chunk_rows):
    monkeypatch.setattr(cards_module, "_DESCRIPTIVE_CHUNK_ROWS", chunk_rows)
    old, new = old_draft_descriptives(frame, DRAFT), draft_descriptives(frame.lazy(), DRAFT)
    # The old sums of the others' win shares added the stored (float32) shares, 1/3 and 1/2 a
    # little off; the new ones add exact shares (units of 1 / WIN_SCALE), so those columns
    # agree only to about 1e-8 (the gaps, near 0, relatively less).
    inexact = [c for c in old.columns if c.startswith(("others_win", "win_gap"))]
    assert_close(old.drop(inexact), new.drop(inexact))
    assert_close(old.select(inexact), new.select(inexact), relative=1e-5)


def test_the_others_win_share_is_the_exact_mean(frame):
    # The new number is the exact rational mean rounded once (checked here with fractions).
    keepers = frame.with_columns(units=win_units()).with_columns(
        table=pl.col("units").sum().over("game_id"), size=pl.len().over("game_id")).filter(
        pl.col(DRAFT.kept) == 35)
    exact = sum((Fraction(int(table - units), int(size - 1) * WIN_SCALE)
                 for table, units, size in keepers.select("table", "units", "size").iter_rows()),
                Fraction(0)) / keepers.height
    new = draft_descriptives(frame.lazy(), DRAFT).filter(pl.col("card") == 35)
    assert new["others_win_rate"][0] == float(exact)


def test_chunk_sizes_give_the_same_bits(frame, monkeypatch):
    tables = []
    for chunk_rows in (5, 64, 1 << 18):
        monkeypatch.setattr(cards_module, "_DESCRIPTIVE_CHUNK_ROWS", chunk_rows)
        tables.append((card_descriptives(frame.lazy(), CARDS),
                       draft_descriptives(frame.lazy(), DRAFT)))
    for cards, drafts in tables[1:]:
        assert cards.equals(tables[0][0]) and drafts.equals(tables[0][1])


def test_no_per_row_frame_is_collected(frame, monkeypatch):
    # A lazy input is never collected whole; each chunk holds at most the chunk's rows and the
    # last deal's (9 player-games).
    monkeypatch.setattr(cards_module, "_DESCRIPTIVE_CHUNK_ROWS", 20)
    monkeypatch.setattr(pl.LazyFrame, "collect", lambda *a, **k: pytest.fail("collected"))
    heights = []
    for name in ("_card_units", "_draft_units"):
        original = getattr(cards_module, name)

        def recording(chunk, *args, original=original):
            heights.append(chunk.height)
            return original(chunk, *args)

        monkeypatch.setattr(cards_module, name, recording)
    card_descriptives(frame.lazy(), CARDS)
    draft_descriptives(frame.lazy(), DRAFT)
    assert heights and max(heights) <= 20 + DESIGN.players * DESIGN.replicates
    assert sum(heights) == 2 * frame.height


def test_gram_ratio_table_equals_grouped_ratio_table_on_the_cluster_rows():
    generator = np.random.default_rng(5)
    units = pl.DataFrame({"group": generator.integers(0, 3, 200),
                          "cluster": generator.integers(0, 40, 200),
                          "count": generator.integers(1, 6, 200),
                          "value": generator.integers(-20, 50, 200)})
    units = units.group_by(["group", "cluster"]).agg(pl.col("count", "value").sum())
    old = grouped_ratio_table(units.sort(["group", "cluster"]), ["group"], "count",
                              {"mean": "value"})
    halves = [cluster_gram(units.filter(low), ["group"], ["count", "value"])
              for low in (pl.col("cluster") < 20, pl.col("cluster") >= 20)]
    new = gram_ratio_table(add_cluster_grams(halves, ["group"]), ["group"], {"count": 1},
                           {"mean": {"value": 1}})
    assert_close(old, new)
