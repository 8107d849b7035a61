"""Tile-set variance: the ICC, tile effects and light tiles recover their true values."""

import math

import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals, true_tile_effect
from sim.stats.batch import open_batch
from sim.stats.synthetic import SyntheticDesign, true_icc
from sim.stats.variance import count_effect, deal_variance, removed_item_effect

NOISE_SD = 7.0
# Deal SD for an ICC of exactly 0.3, counting the 1/12 that rounding adds within a deal.
DEAL_SD = math.sqrt(0.3 / 0.7 * (NOISE_SD ** 2 + 1 / 12))


def _rows(write_batch, design):
    return open_batch(write_batch(design)).scan().collect().lazy()


def test_icc_of_point_three_is_recovered_inside_its_interval(write_batch):
    design = SyntheticDesign(name="icc", deals=500, replicates=4, games_per_shard=500,
                             deal_sd=DEAL_SD, noise_sd=NOISE_SD, seed=3,
                             deal_model=ForestDeals())
    assert true_icc(design) == pytest.approx(0.3)
    table = deal_variance(_rows(write_batch, design))
    pooled = table.filter(pl.col("seat").is_null()).row(0, named=True)
    assert pooled["icc_low"] < 0.3 < pooled["icc_high"]
    assert pooled["icc"] == pytest.approx(0.3, abs=0.04)
    assert pooled["games_per_deal"] == pytest.approx(4.0) and pooled["balanced"]
    assert pooled["between_deal_variance"] == pytest.approx(DEAL_SD ** 2, rel=0.2)
    assert pooled["within_deal_variance"] == pytest.approx(NOISE_SD ** 2, rel=0.05)
    per_seat = table.filter(pl.col("seat").is_not_null())
    assert per_seat.height == 4
    assert per_seat.select(((pl.col("icc_low") < 0.3) & (pl.col("icc_high") > 0.3)).sum()
                           ).item() >= 3
    seat_width = (per_seat["icc_high"] - per_seat["icc_low"]).mean()
    # The pooled interval (deal bootstrap over every seat) is narrower than one seat's.
    assert pooled["icc_high"] - pooled["icc_low"] < seat_width


def test_no_deal_effect_gives_an_icc_near_zero(write_batch):
    design = SyntheticDesign(name="icc-zero", deals=400, replicates=3, games_per_shard=400,
                             deal_model=ForestDeals())
    pooled = deal_variance(_rows(write_batch, design)).filter(
        pl.col("seat").is_null()).row(0, named=True)
    assert pooled["icc_low"] <= 0.0 < pooled["icc_high"]
    assert abs(pooled["icc"]) < 0.05


def test_unbalanced_replicates_use_n0(write_batch):
    design = SyntheticDesign(name="icc-unbalanced", deals=400, replicates=3,
                             games_per_shard=300, deal_sd=DEAL_SD, noise_sd=NOISE_SD,
                             deal_model=ForestDeals())
    rows = _rows(write_batch, design).filter(~((pl.col("deal_id") % 2 == 0)
                                               & (pl.col("replicate") == 2)))
    pooled = deal_variance(rows).filter(pl.col("seat").is_null()).row(0, named=True)
    assert not pooled["balanced"]
    # Per seat: 200 deals seen twice and 200 three times, N = 1000.
    assert pooled["games_per_deal"] == pytest.approx((1000 - (200 * 4 + 200 * 9) / 1000) / 399)
    assert pooled["icc_low"] < 0.3 < pooled["icc_high"]


def test_no_replicates_means_no_decomposition(write_batch):
    design = SyntheticDesign(name="icc-none", deals=100, games_per_shard=100,
                             deal_model=ForestDeals())
    assert deal_variance(_rows(write_batch, design)).is_empty()


def test_tile_effects_are_recovered(write_batch):
    points = {3: 4.0, 7: -3.0, 12: 2.0}
    design = SyntheticDesign(name="tiles", deals=3000, games_per_shard=1000, noise_sd=6.0,
                             deal_model=ForestDeals(tile_points=points))
    impact = removed_item_effect(_rows(write_batch, design))
    assert sorted(impact["tile"]) == list(range(2, 26))  # tile 1 is never removed
    truth = pl.Series([true_tile_effect(design, t) for t in impact["tile"]])
    covered = (impact["effect_low"] < truth) & (truth < impact["effect_high"])
    assert covered.sum() >= 21  # 95% intervals: about 23 of 24 cover
    se = (impact["effect_high"] - impact["effect_low"]) / (2 * 1.96)
    assert ((impact["effect"] - truth).abs() < 4 * se).all()
    strongest = impact.sort(pl.col("effect").abs(), descending=True)["tile"][0]
    assert strongest == 3


def test_light_tile_slope_is_recovered(write_batch):
    design = SyntheticDesign(name="light", deals=3000, games_per_shard=1000,
                             deal_model=ForestDeals(light_tile_points=1.5, token_points=1.0))
    table, slope = count_effect(_rows(write_batch, design))
    row = slope.row(0, named=True)
    # Per player, a light tile adds its own points plus a quarter of a token phase.
    assert row["slope_low"] < 1.5 + 1.0 / 4 < row["slope_high"]
    assert table["deals"].sum() == 3000
    enough = table.filter(pl.col("deals") >= 50).sort("light_tiles_drawn")
    assert enough["mean"][-1] - enough["mean"][0] > 1.5 * (enough.height - 1) / 2
    assert row["linear"]  # a straight line is not rejected when the truth is one


def test_light_tile_curve_names_its_peak(write_batch):
    """Means that rise to 6 light tiles and fall after (as when the tree supply runs out): the
    line is rejected and the finding names the peak, not a slope."""
    from types import SimpleNamespace

    from sim.report.findings import light_finding

    design = SyntheticDesign(name="light-curve", deals=4000, games_per_shard=1000,
                             deal_model=ForestDeals(light_tile_curve={
                                 3: -7.0, 4: -4.0, 5: -1.5, 6: 0.0, 7: -0.5, 8: -1.5}))
    table, fit = count_effect(_rows(write_batch, design))
    row = fit.row(0, named=True)
    assert not row["linear"] and row["lack_of_fit_p"] < 1e-6
    assert row["peak_count"] == 6 and row["common_count"] in (6, 7)
    analysis = SimpleNamespace(count_fit=fit, count_table=table)
    text = light_finding(analysis, 4, "")
    assert "do not add points at a constant rate" in text and "peak" in text and "with 6" in text


def test_lineup_rotated_over_replays_still_gives_the_icc(write_batch):
    # Each seat alternates greedy / random between the two replays of a deal: the strategies'
    # 6-point gap must not count as variance within the deal.
    design = SyntheticDesign(name="icc-rotated", deals=600, replicates=2, games_per_shard=400,
                             lineup=("greedy", "random", "greedy", "random"),
                             rotate_lineup=True, strategy_points={"greedy": 6.0},
                             deal_sd=DEAL_SD, noise_sd=NOISE_SD, seed=4,
                             deal_model=ForestDeals())
    pooled = deal_variance(_rows(write_batch, design)).filter(
        pl.col("seat").is_null()).row(0, named=True)
    assert pooled["games_per_deal"] == pytest.approx(2.0)
    assert pooled["icc_low"] < 0.3 < pooled["icc_high"]


# --- shares inside [0, 1], and what the report says about them ----------------------------

# No seat effect and a tiny deal effect: the shares that are near 0 must not get negative bounds.
NEAR_ZERO = SyntheticDesign(name="near-zero", deals=120, replicates=3, games_per_shard=360,
                            lineup=("a", "b", "c", "d"), rotate_lineup=True,
                            strategy_points={"a": 4.0, "b": 1.0}, deal_sd=0.3, seed=5,
                            deal_model=ForestDeals())


def test_icc_intervals_stay_inside_zero_and_one_when_the_deal_barely_matters(write_batch):
    from sim.stats.intervals import one_way_random_effects
    from sim.stats.variance import _cell_sums, _per_deal_sums

    rows = _rows(write_batch, NEAR_ZERO)
    table = deal_variance(rows)
    assert table.height == 5  # four seats and the pooled row
    assert (table["icc"] >= 0).all()
    assert (table["icc_low"] >= 0).all() and (table["icc_high"] <= 1).all()
    assert (table["icc_low"] <= table["icc"]).all() and (table["icc"] <= table["icc_high"]).all()
    assert (table["icc_high"] > table["icc_low"]).all()  # never a zero-width interval
    assert (table["icc_low"] == 0).any()
    # The F-based interval these data used to get reaches below 0 for some seat.
    sums = _cell_sums(_per_deal_sums(rows), rows).row(0, named=True)
    fit = one_way_random_effects(sums["ss_between"], sums["df_between"], sums["ss_within"],
                                 sums["df_within"],
                                 sums["n0_times_df"] / (sums["groups"] - 1))
    assert fit.icc_low < 0


def test_variance_split_shares_stay_inside_zero_and_one_near_zero(write_batch):
    from sim.stats.skill import read_skill_rows, variance_split

    rows = read_skill_rows(_rows(write_batch, NEAR_ZERO))
    split = variance_split(rows)
    assert set(split["field"]) == {"this field", "strongest"}
    assert (split["share_low"] >= 0).all() and (split["share_high"] <= 1).all()
    assert ((split["share_low"] <= split["share"]) & (split["share"] <= split["share_high"])).all()
    seat = split.filter((pl.col("field") == "this field") & (pl.col("component") == "seat"))
    assert seat["share"][0] < 0.02 and seat["share_low"][0] >= 0
    strongest = split.filter(pl.col("field") == "strongest")
    assert set(strongest["field_strategy"]) == {"a"}
    assert set(strongest["component"]) == {"seat", "deal", "rest"}
    for field, part in split.group_by("field"):
        assert abs(part["share"].sum() - 1.0) < 1e-9 or part["share"].sum() <= 1.0, field


def _analysis(write_batch):
    from types import SimpleNamespace

    from sim.stats.skill import ladder, read_skill_rows, variance_split

    lazy = _rows(write_batch, NEAR_ZERO)
    skill_rows = read_skill_rows(lazy)
    return SimpleNamespace(deal_variance=deal_variance(lazy), variance_split=variance_split(
        skill_rows), ladder=ladder(skill_rows), removed_items=None, count_table=None,
        count_fit=None)


def test_the_deal_share_and_the_split_say_what_they_are(write_batch):
    from sim.report.build import _tile_set_blocks
    from sim.report.document import Paragraph, Table
    from sim.report.findings import deal_finding, skill_finding
    from sim.report.skill import skill_blocks

    analysis = _analysis(write_batch)
    deal = deal_finding(analysis, 4, "")
    assert "with the strategy and the seat fixed" in deal
    assert ("the rest varies between replays of the same deal (the strategies' random "
            "choices and tie-breaks)") in deal
    assert "own choices" not in deal
    skill = skill_finding(analysis, 4, "")
    assert skill.startswith("Skill, for this field of players:")
    assert "the deal" not in skill  # one deal share: the deal finding's
    assert "by rank (the game's tie-break)" in skill
    text = " ".join(block.text for block in _tile_set_blocks(analysis, {})
                    if isinstance(block, Paragraph))
    assert "percentile bootstrap over deals" in text and "conservative" not in text
    assert "the report's one deal share" in text
    blocks = skill_blocks(analysis, {})
    words = " ".join(block.text for block in blocks if isinstance(block, Paragraph))
    assert "for this field of players" in words
    assert "Over a's own" in words and "needs a batch of its own" in words
    assert "judged on win rates" in words
    assert "the deal (of the whole variance, strategy differences included)" in words
    assert "The report's deal share is the one in" in words
    split_table = [b for b in blocks if isinstance(b, Table)][-1]
    assert any(row[2] == "a's own (the strongest)" for row in split_table.rows)
    assert all("-" not in row[-1].split("(")[1] for row in split_table.rows)  # no negative bound
