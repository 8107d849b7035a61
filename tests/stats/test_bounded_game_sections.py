"""The card and kept-card descriptives, the kept cards' effects and how games unfold, read in
chunks of whole deals (issue 39): the same numbers as the computation on every row at once
(kept here as it was), whatever the chunk size, a deal's rows cut across the reader's batches
included, and no per-row frame of the whole batch is ever collected."""

from fractions import Fraction

import numpy as np
import polars as pl
import pytest

import sim.stats.cards as cards_module
import sim.stats.unfolding as unfolding_module
from sim.games.base import CardColumns, DraftColumns
from sim.stats.cards import (
    _ORDER,
    DRAFT_METHOD,
    DRAFT_SCHEMA,
    PANEL,
    _as_list,
    _fit_records,
    _membership,
    _share_intervals,
    _subsets,
    _verdict,
    card_descriptives,
    draft_descriptives,
    draft_effects,
    randomised_fit,
)
from sim.stats.clustered import (
    WIN_SCALE,
    add_cluster_grams,
    cluster_gram,
    gram_ratio_table,
    grouped_ratio_table,
)
from sim.stats.intervals import proportion_interval
from sim.stats.synthetic_cards import CardDesign, generate_card_rows
from sim.stats.unfolding import (
    DEFICIT_BINS,
    MAX_CHANGES_SHOWN,
    _intervals,
    decisive_steps,
    deficit_bin,
    expected_win_rates,
    halfway_deficits,
    halfway_steps,
    lead_changes,
    panel_arrays,
    shown_lengths,
    sole_leaders,
    unfolding_tables,
)
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


def old_draft_effects(frame: pl.DataFrame, draft: DraftColumns, margin: float = 2.0,
                      confidence: float = 0.95, outcomes: tuple[str, ...] = ("score", "win"),
                      subsets: bool = True) -> pl.DataFrame:
    results = []
    kept = frame.lazy().select(
        "game_id", "deal_id", *PANEL, "strategy", "seat", "score", "win", draft.dealt,
        draft.kept).filter(pl.col(draft.kept) > 0).filter(
        pl.len().over("game_id") == pl.col("players")).collect()
    for (players, rules), panel in kept.sort("game_id", "seat").group_by(PANEL,
                                                                       maintain_order=True):
        for row in _old_panel_draft_effects(panel, draft, margin, confidence, outcomes, subsets):
            results.append({"players": int(players), "rules": rules, **row})
    return pl.DataFrame(results, schema=DRAFT_SCHEMA).sort(_ORDER, nulls_last=False)


def _old_panel_draft_effects(panel, draft, margin, confidence, outcomes, subsets):
    panel = panel.with_row_index("_row").with_columns(_as_list(panel, draft.dealt)
                                                      .alias("_dealt"))
    dealt_lists = panel["_dealt"].list.eval(pl.element().filter(pl.element() > 0))
    ids = np.unique(dealt_lists.explode().drop_nulls().to_numpy().astype(np.int64))
    if ids.size < 2:
        return []
    dealt = _membership(dealt_lists, ids)
    kept = (panel[draft.kept].to_numpy().astype(np.int64)[:, None] == ids[None, :]).astype(float)
    per_player = float(np.median(dealt.sum(axis=1)))
    within = panel["players"][0] > 1
    records = []
    for strategy, _, subset, controls in _subsets(panel, False, subsets):
        rows = subset["_row"].to_numpy()
        present = dealt[rows].sum(axis=0) > 0
        found = _old_randomised_records(subset, dealt[np.ix_(rows, present)], ids[present],
                                        kept[np.ix_(rows, present)], controls,
                                        within and strategy is None, outcomes, confidence)
        method = DRAFT_METHOD.format(cards=int(present.sum()))
        if strategy is not None or not within:
            method = method.replace("within each game (game fixed effects) ", "")
        rates = _old_keep_rates(subset, dealt[rows], kept[rows], ids, confidence, len(found))
        for record in found:
            record.update({"strategy": strategy, "seat": None, "margin": margin,
                           "method": method, "keep_rate_random": 1.0 / per_player,
                           **rates.get(record["card"], {})})
            if strategy is None:
                record["verdict"], record["verdict_reason"] = _verdict(
                    record, margin, "the deal barely changes who keeps it")
        records += found
    return records


def _old_dummies(values: np.ndarray) -> np.ndarray:
    levels = np.unique(values)
    return (values[:, None] == levels[None, 1:]).astype(float)


def _old_randomised_records(panel, shown, ids, chosen, controls, games, outcomes, confidence):
    deals = panel["deal_id"].to_numpy()
    clusters = int(np.unique(deals).size)
    shown_deals = np.array([np.unique(deals[shown[:, k] > 0]).size for k in range(ids.size)])
    if clusters < 3 or ids.size < 2:
        return []
    control = [_old_dummies(panel[name].to_numpy()) for name in controls]
    control_matrix = np.column_stack(control) if control else np.zeros((panel.height, 0))
    columns = np.column_stack([panel[name].to_numpy().astype(float) for name in outcomes]
                              + [chosen])
    fit = randomised_fit(columns, shown, control_matrix, deals,
                         panel["game_id"].to_numpy() if games else None)
    return _fit_records(fit, ids, shown.sum(axis=0), chosen.sum(axis=0), shown_deals,
                        clusters, outcomes, confidence)


def _old_keep_rates(subset, dealt, kept, ids, confidence, cards):
    deals = subset["deal_id"].to_numpy()
    rows, columns = np.nonzero(dealt)
    units = (pl.DataFrame({"card": ids[columns], "cluster": deals[rows],
                           "dealt": np.ones(rows.size, dtype=np.int64),
                           "kept": kept[rows, columns].astype(np.int64)})
             .group_by(["card", "cluster"]).agg(pl.col("dealt").sum(), pl.col("kept").sum())
             .sort(["card", "cluster"]))
    if units.is_empty():
        return {}
    family = 1.0 - (1.0 - confidence) / max(cards, 1)
    table = grouped_ratio_table(units, ["card"], "dealt", {"keep_rate": "kept"},
                                confidence=family).join(
        units.group_by("card").agg(pl.col("dealt").sum()), on="card")
    low, high = proportion_interval(table["keep_rate"].to_numpy(),
                                    table["keep_rate_se"].to_numpy(),
                                    table["keep_rate_clusters"].to_numpy(),
                                    table["dealt"].to_numpy(), family)
    return {int(card): {"keep_rate": rate, "keep_rate_low": float(lower),
                        "keep_rate_high": float(upper)}
            for card, rate, lower, upper in zip(table["card"], table["keep_rate"], low, high,
                                                strict=True)}


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


def exact_shares(frame: pl.DataFrame) -> pl.DataFrame:
    """The frame with its win shares stored exactly (float64 thirds instead of float32's)."""
    return frame.with_columns((win_units().cast(pl.Float64) / WIN_SCALE).alias("win"))


@pytest.mark.parametrize("chunk_rows", [16, 1 << 16])
def test_draft_effects_in_chunks_equal_the_old_computation(frame, monkeypatch, chunk_rows):
    # 16 rows cut most deals (9 player-games each) across the reader's batches; the pooled rows
    # (game fixed effects), each strategy's and the keep rates are all compared.
    monkeypatch.setattr(cards_module, "_CARD_CHUNK_ROWS", chunk_rows)
    exact = exact_shares(frame)
    old, new = old_draft_effects(exact, DRAFT), draft_effects(exact.lazy(), DRAFT)
    assert new["strategy"].null_count() and new["strategy"].drop_nulls().n_unique() == 2
    assert_close(old, new)
    old, new = (old_draft_effects(exact, DRAFT, outcomes=("score",), subsets=False),
                draft_effects(exact.lazy(), DRAFT, outcomes=("score",), subsets=False))
    assert_close(old, new)


def test_draft_effects_use_exact_win_shares(frame):
    # The old regression summed the stored float32 shares (a third is 0.33333334); the new one
    # sums exact shares, so on stored shares only the win columns move, by about 1e-8.
    old, new = old_draft_effects(frame, DRAFT), draft_effects(frame.lazy(), DRAFT)
    assert new.equals(draft_effects(exact_shares(frame).lazy(), DRAFT))
    inexact = [c for c in old.columns if c.startswith("win_")]
    assert_close(old.drop(inexact), new.drop(inexact))
    assert_close(old.select(inexact), new.select(inexact), relative=1e-6)


def test_draft_effects_never_collect_a_per_row_frame(frame, monkeypatch):
    monkeypatch.setattr(cards_module, "_CARD_CHUNK_ROWS", 20)
    monkeypatch.setattr(pl.LazyFrame, "collect", lambda *a, **k: pytest.fail("collected"))
    heights = []
    original = cards_module._draft_chunk_panels

    def recording(chunk, *args):
        heights.append(chunk.height)
        return original(chunk, *args)

    monkeypatch.setattr(cards_module, "_draft_chunk_panels", recording)
    assert not draft_effects(frame.lazy(), DRAFT).is_empty()
    # Three passes, each chunk at most the chunk's rows and the last deal's.
    assert heights and max(heights) <= 20 + DESIGN.players * DESIGN.replicates
    assert sum(heights) == 3 * frame.height


# --- how games unfold: the old computation on every row at once ---------------------------------

def _old_cell_sums(frame, keys, columns, constants):
    codes, index = np.unique(np.column_stack([frame[k].to_numpy().astype(np.int64)
                                              for k in keys]), axis=0, return_inverse=True)
    index = index.ravel()
    sums = {name: np.bincount(index, weights=frame[name].to_numpy().astype(float),
                              minlength=codes.shape[0]) for name in columns}
    return pl.DataFrame({**{k: codes[:, j] for j, k in enumerate(keys)}, **sums}).with_columns(
        **{k: pl.lit(v) for k, v in constants.items()})


def old_unfolding_tables(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    summary, lengths_table, leader, comeback, changes, decided = [], [], [], [], [], []
    frame = frame.sort(["game_id", "seat"])
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        trace, lengths, wins, winners, deals = panel_arrays(panel)
        games = lengths.size
        _, codes = np.unique(panel["strategy"].to_numpy().astype(str), return_inverse=True)
        expected = expected_win_rates(wins, codes.reshape(games, int(players)))
        key = {"players": int(players), "rules": rules}
        counts = lead_changes(trace, lengths)
        decisive = decisive_steps(trace, lengths, winners)
        leaders = sole_leaders(trace, lengths)
        half_leader = leaders[np.arange(games), halfway_steps(lengths) - 1]
        half_led = half_leader >= 0
        half_seat = np.maximum(half_leader, 0)
        half_win = np.where(half_led, wins[np.arange(games), half_seat], 0.0)
        half_expected = np.where(half_led, expected[np.arange(games), half_seat], 0.0)
        single = winners >= 0
        per_game = pl.DataFrame({
            "cluster": deals, "games": np.ones(games), "changes": counts.astype(float),
            "no_change": (counts == 0).astype(float), "half_led": half_led.astype(float),
            "half_win": half_win, "half_expected": half_expected,
            "half_information": half_win - half_expected, "single": single.astype(float),
            "decisive": np.where(single, decisive, 0).astype(float),
            "decisive_share": np.where(single, decisive / np.maximum(lengths, 1), 0.0)})
        row = dict(key, games=games, steps_mean=float(lengths.mean()),
                   steps_min=int(lengths.min()), steps_max=int(lengths.max()))
        for count, values, rates in (
                ("games", {"lead_changes": "changes", "no_lead_change": "no_change"},
                 ("no_lead_change",)),
                ("half_led", {"halfway_leader_win_rate": "half_win",
                              "halfway_leader_expected": "half_expected",
                              "halfway_information": "half_information"},
                 ("halfway_leader_win_rate",)),
                ("single", {"decisive_step": "decisive", "decisive_share": "decisive_share"},
                 ())):
            units = _old_cell_sums(per_game, ["cluster"], [count, *values.values()], key)
            if units[count].sum() == 0:
                continue
            intervals = _intervals(units, PANEL, count, values, rates).row(0, named=True)
            for name in values:
                row.update({name: intervals[name], f"{name}_low": intervals[f"{name}_low"],
                            f"{name}_high": intervals[f"{name}_high"]})
        summary.append(row)
        shown = shown_lengths(lengths)
        values, frequency = np.unique(lengths, return_counts=True)
        lengths_table.append(pl.DataFrame({
            **{k: [v] * values.size for k, v in key.items()},
            "length": values.astype(np.int64), "games": frequency.astype(np.int64),
            "share": frequency / games, "shown": np.isin(values, shown)}))
        step_number = np.arange(1, leaders.shape[1] + 1)[None, :]
        before_end = (step_number < lengths[:, None]) & np.isin(lengths, shown)[:, None]
        seat = np.maximum(leaders, 0)
        led = leaders >= 0
        win = np.where(led, np.take_along_axis(wins, seat, axis=1), 0.0)
        seat_expected = np.where(led, np.take_along_axis(expected, seat, axis=1), 0.0)
        cells = np.nonzero(before_end)
        by_step = pl.DataFrame({
            "cluster": deals[cells[0]], "length": lengths[cells[0]].astype(np.int64),
            "step": (cells[1] + 1).astype(np.int64), "led": led[cells].astype(float),
            "win": win[cells], "expected": seat_expected[cells],
            "information": win[cells] - seat_expected[cells]})
        units = _old_cell_sums(by_step, ["length", "step", "cluster"],
                               ["led", "win", "expected", "information"], key)
        led_units = units.filter(pl.col("led") > 0)
        table = _intervals(led_units, [*PANEL, "length", "step"], "led",
                           {"leader_win_rate": "win", "expected_win_rate": "expected",
                            "information": "information"}, ("leader_win_rate",))
        totals = units.group_by(["length", "step"]).agg(
            games_led=pl.col("led").sum().cast(pl.Int64))
        of_length = pl.DataFrame({"length": values.astype(np.int64),
                                  "length_games": frequency.astype(np.int64)})
        leader.append(table.join(totals, on=["length", "step"]).join(of_length, on="length")
                      .drop("expected_win_rate_low", "expected_win_rate_high")
                      .sort(["length", "step"]))
        deficit = halfway_deficits(trace, lengths)
        bins = deficit_bin(deficit).ravel()
        by_seat = pl.DataFrame({"cluster": np.repeat(deals, players), "bin": bins,
                                "count": np.ones(bins.size), "win": wins.ravel(),
                                "expected": expected.ravel(), "deficit": deficit.ravel()})
        units = _old_cell_sums(by_seat, ["bin", "cluster"],
                               ["count", "win", "expected", "deficit"], key)
        table = _intervals(units, [*PANEL, "bin"], "count",
                           {"win_rate": "win", "expected_win_rate": "expected",
                            "mean_deficit": "deficit"}, ("win_rate",))
        sizes = units.group_by("bin").agg(player_games=pl.col("count").sum().cast(pl.Int64))
        comeback.append(table.join(sizes, on="bin").with_columns(
            deficit=pl.col("bin").replace_strict(
                {k: label for k, (_, _, label) in enumerate(DEFICIT_BINS)},
                return_dtype=pl.String)).sort("bin"))
        capped = np.minimum(counts, MAX_CHANGES_SHOWN)
        change_values, change_frequency = np.unique(capped, return_counts=True)
        changes.append(pl.DataFrame({**{k: [v] * change_values.size for k, v in key.items()},
                                     "lead_changes": change_values.astype(np.int64),
                                     "games": change_frequency.astype(np.int64),
                                     "share": change_frequency / games}))
        for length in sorted(shown):
            chosen = single & (lengths == length)
            if not chosen.any() or length < 2:
                continue
            steps_before = np.arange(1, length)
            share = (decisive[chosen][None, :] <= steps_before[:, None]).mean(axis=1)
            decided.append(pl.DataFrame({
                **{k: [v] * steps_before.size for k, v in key.items()},
                "length": np.full(steps_before.size, length, dtype=np.int64),
                "games": np.full(steps_before.size, int(chosen.sum()), dtype=np.int64),
                "step": steps_before.astype(np.int64), "share_decided": share}))
    return {"summary": pl.DataFrame(summary), "lengths": pl.concat(lengths_table),
            "leader": pl.concat(leader), "comeback": pl.concat(comeback),
            "changes": pl.concat(changes), "decided": pl.concat(decided)}


def traced_rows(deals: int = 60, replicates: int = 2, players: int = 3,
                seed: int = 11) -> pl.DataFrame:
    """A traced rows frame: games of 4 to 6 steps (5 commonest), scores climbing by 0-4 a step
    (ties at the top and shared wins happen), two strategies at random seats, float32 shares."""
    generator = np.random.default_rng(seed)
    rows = []
    for game in range(deals * replicates):
        length = int(generator.choice([4, 5, 5, 5, 6]))
        trace = np.cumsum(generator.integers(0, 5, (length, players)), axis=0)
        final = trace[-1]
        top = final == final.max()
        for seat in range(players):
            rows.append({"game_id": game, "deal_id": game // replicates, "players": players,
                         "rules": "", "seat": seat,
                         "strategy": "ab"[int(generator.integers(0, 2))],
                         "win": float(top[seat]) / int(top.sum()),
                         "rank": 1 if top[seat] else 2,
                         "score_trace": trace[:, seat].tolist()})
    return pl.DataFrame(rows, schema_overrides={"win": pl.Float32,
                                                "score_trace": pl.List(pl.Int16)})


def assert_tables_close(old: dict, new: dict, relative: float = 1e-12) -> None:
    assert old.keys() == new.keys()
    for name in old:
        assert_close(old[name], new[name], relative)


@pytest.mark.parametrize("chunk_rows", [10, 1 << 16])
def test_unfolding_in_chunks_equals_the_old_computation(monkeypatch, chunk_rows):
    # 10 rows cut most deals (6 player-games each) across the reader's batches.
    monkeypatch.setattr(unfolding_module, "_TRACE_CHUNK_ROWS", chunk_rows)
    rows = exact_shares(traced_rows())
    old, new = old_unfolding_tables(rows), unfolding_tables(rows.lazy())
    assert new["leader"].height and new["comeback"].height and new["decided"].height
    assert_tables_close(old, new)


def test_unfolding_uses_exact_win_shares():
    # On stored float32 shares (a third is 0.33333334) the old sums carried their error; the
    # new ones are exact, so the numbers equal those of exact shares and move by about 1e-8.
    rows = traced_rows()
    new = unfolding_tables(rows.lazy())
    assert_tables_close(unfolding_tables(exact_shares(rows).lazy()), new, 0.0)
    assert_tables_close(old_unfolding_tables(rows), new, 1e-6)


def test_unfolding_never_collects_a_per_row_frame(monkeypatch):
    monkeypatch.setattr(unfolding_module, "_TRACE_CHUNK_ROWS", 20)
    monkeypatch.setattr(pl.LazyFrame, "collect", lambda *a, **k: pytest.fail("collected"))
    heights = []
    original = unfolding_module._trace_chunk_panels

    def recording(chunk):
        heights.append(chunk.height)
        return original(chunk)

    monkeypatch.setattr(unfolding_module, "_trace_chunk_panels", recording)
    rows = traced_rows()
    assert not unfolding_tables(rows.lazy())["summary"].is_empty()
    # Two passes, each chunk at most the chunk's rows and the last deal's (6 player-games).
    assert heights and max(heights) <= 20 + 6
    assert sum(heights) == 2 * rows.height
