"""Card and kept-card (spirit) statistics on synthetic batches with known truth: a planted strong
card and a planted strong spirit are found, with the right sign, their true effects inside the
intervals; with nothing planted, no card or spirit is called out of line more often than the
stated 5% (simultaneous intervals over the cards), even with no margin at all."""

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from sim.games.base import CardColumns, DraftColumns
from sim.stats.cards import (
    card_descriptives,
    card_effects,
    compare_settings,
    draft_descriptives,
    draft_effects,
    margin_verdict,
    settings_comparison,
)
from sim.stats.synthetic_cards import (
    CardDesign,
    generate_card_rows,
    true_card_gap,
    true_draft_gap,
)

CARDS = CardColumns(noun="card", cards="cards_taken", rounds="card_rounds",
                    offers="card_offers", completed="card_completed", points="card_points",
                    progress="card_cubes", progress_noun="cube")
DRAFT = DraftColumns(noun="spirit", dealt="spirits_dealt", kept="spirit_kept",
                     bonus="points_spirit")
PLANTED = CardDesign(deals=500, card_extra={7: 5.0}, take_weights={7: 3.0},
                     draft_extra={35: 5.0}, keep_weights={35: 3.0}, seat_points=(1.0,),
                     strategy_points={"a": 2.0})


def rows(design: CardDesign, label: str = "") -> pl.DataFrame:
    return generate_card_rows(design, CARDS, DRAFT).with_columns(
        pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64), rules=pl.lit(label))


def stacked(design: CardDesign, seeds) -> pl.DataFrame:
    """Batches of ``design`` as one frame, each its own panel (``rules`` label)."""
    parts = []
    for index, seed in enumerate(seeds):
        part = rows(replace(design, seed=seed), f"batch={index:04d}")
        offset = index * design.games
        parts.append(part.with_columns(pl.col("game_id") + offset, pl.col("deal_id") + offset))
    return pl.concat(parts)


def test_margin_verdict_reads_the_interval_against_the_margin():
    assert margin_verdict(2.5, 4.0, 2.0) == "strong"
    assert margin_verdict(-4.0, -2.0, 2.0) == "weak"
    assert margin_verdict(-1.0, 1.5, 2.0) == "fair"
    assert margin_verdict(1.0, 3.0, 2.0) == "undecided"
    assert margin_verdict(float("nan"), 1.0, 2.0) == "undecided"


def test_a_planted_strong_card_and_spirit_are_found_inside_their_intervals():
    frame = rows(PLANTED)
    effects = card_effects(frame, CARDS).sort("score_vs_average", descending=True)
    top = effects.row(0, named=True)
    assert top["card"] == 7 and top["verdict"] == "strong"
    assert top["score_effect_low"] <= PLANTED.card_points + 5.0 <= top["score_effect_high"]
    truth = true_card_gap(PLANTED, 7)
    assert top["score_vs_average_low"] <= truth <= top["score_vs_average_high"]
    assert top["win_vs_average_low"] > 0
    assert set(effects.filter(pl.col("verdict").is_in(["strong", "weak"]))["card"]) == {7}
    descriptives = card_descriptives(frame, CARDS).sort("take_rate", descending=True)
    assert descriptives["card"][0] == 7 and descriptives["take_rate_low"][0] > 0.2
    assert np.allclose(descriptives["take_rate_random"], 1 / PLANTED.row)
    assert (descriptives["taken"] <= descriptives["offered"]).all()

    spirits = draft_effects(frame, DRAFT).sort("score_effect", descending=True)
    best = spirits.row(0, named=True)
    assert best["card"] == 35 and best["verdict"] == "strong"
    truth = true_draft_gap(PLANTED, 35)
    assert best["score_effect_low"] <= truth <= best["score_effect_high"]
    kept = draft_descriptives(frame, DRAFT).sort("keep_rate", descending=True)
    assert kept["card"][0] == 35 and kept["keep_rate_low"][0] > 0.5
    assert kept.filter(pl.col("card") == 35)["score_gap_low"][0] > 0


# Many small batches (16 cards, so that the simultaneous intervals' Monte Carlo stays quick).
NULL_BATCHES, PLANTED_BATCHES = 100, 60
SCORE_ONLY = ("score",)


@pytest.fixture(scope="module")
def null_batches():
    return stacked(CardDesign(deals=120, cards=16, noise_sd=5.0), range(1, NULL_BATCHES + 1))


@pytest.fixture(scope="module")
def planted_batches():
    return stacked(replace(PLANTED, deals=150, cards=16),
                   range(1001, 1001 + PLANTED_BATCHES))


@pytest.mark.slow
def test_no_false_alarm_above_the_stated_rate_when_nothing_is_planted(null_batches):
    # Margin 0: any card whose gap to the average is "shown" non-zero is called out. The
    # simultaneous intervals keep the chance of calling out any card of a batch at 5%.
    for table in (card_effects(null_batches, CARDS, margin=0.0, outcomes=SCORE_ONLY),
                  draft_effects(null_batches, DRAFT, margin=0.0, outcomes=SCORE_ONLY)):
        batches = table["rules"].n_unique()
        alarms = table.group_by("rules").agg(
            alarm=pl.col("verdict").is_in(["strong", "weak"]).any())["alarm"].mean()
        assert batches == NULL_BATCHES
        assert alarms <= 0.05 + 2 * np.sqrt(0.05 * 0.95 / batches), alarms


@pytest.mark.slow
def test_planted_effects_are_covered_and_found_in_most_batches(planted_batches):
    design = replace(PLANTED, cards=16)
    cards = card_effects(planted_batches, CARDS, outcomes=SCORE_ONLY).filter(
        pl.col("card") == 7)
    truth = true_card_gap(design, 7)
    covered = ((cards["score_vs_average_low"] <= truth)
               & (truth <= cards["score_vs_average_high"])).mean()
    assert covered >= 0.93, covered
    assert (cards["score_vs_average"] > 0).all()
    assert (cards["score_vs_average_low"] > 0).mean() >= 0.9
    spirits = draft_effects(planted_batches, DRAFT, outcomes=SCORE_ONLY).filter(
        pl.col("card") == 35)
    truth = true_draft_gap(design, 35)
    covered = ((spirits["score_effect_low"] <= truth)
               & (truth <= spirits["score_effect_high"])).mean()
    assert covered >= 0.93, covered
    assert (spirits["score_effect_low"] > 0).mean() >= 0.9


def test_rules_settings_are_compared_card_by_card():
    # Two points of a sweep over the board side, numbered alike as a sweep's points are: card 7
    # and spirit 35 lose their planted points under side 1.
    side_a = rows(replace(PLANTED, deals=200, seed=5)).with_columns(side=pl.lit(0, pl.Int16))
    side_b = rows(replace(PLANTED, deals=200, seed=6, card_extra={}, draft_extra={}))
    side_b = side_b.with_columns(side=pl.lit(1, pl.Int16))
    both = pl.concat([side_a, side_b]).drop("rules").with_columns(spirits=pl.lit(1, pl.Int16))
    tables = settings_comparison(both.lazy(), CARDS, DRAFT, ("side", "spirits"))
    # A card's holder effect loses the 5 points; a spirit's edge over the average spirit loses
    # its gap to the average (5 points less their mean over the 10 spirits).
    for key, card, truth in (("card_settings", 7, -5.0),
                             ("draft_settings", 35, -true_draft_gap(PLANTED, 35))):
        row = tables[key].filter(pl.col("card") == card).row(0, named=True)
        assert row["setting"] == "side=0" and row["other_setting"] == "side=1"
        assert row["difference_high"] < 0, key
        assert row["difference_low"] <= truth <= row["difference_high"], key
    assert set(tables["cards"]["rules"]) == {"side=0", "side=1"}
    direct = compare_settings(tables["cards"], "score_effect")
    assert direct.equals(tables["card_settings"])
