"""Every headline judged across fields (``sim.stats.field_findings``) on synthetic rows with
known truth.

The synthetic fields run: D deals shared by every field (common random numbers), each played
``replicates`` times per field by ``players`` seats, one strategy per field (a balanced design).
Per deal, shared by every field: a win term u_d ~ Uniform(-s, s) that moves the win
probability from the last seat to seat 1, a score term z_d ~ N(0, 1), and a random set of
``removed`` of the items 1..``items`` (the deal-set mask). Per field f: seat win effects a_fs
(summing to 0), so each game's winner is seat s with probability 1/n + a_fs + u_d w_s
(w = +1 for seat 1, -1 for the last seat), and the win-share gap truth of seat s is exactly
a_fs; a score of base + c_f z_d + seat offset + item effects + N(0, noise^2), rounded. The
truth of an item's with-minus-without difference is its effect minus the mean of the other
items' effects (exactly ``removed`` items of ``items`` are removed: ``item_truth``).

Bands: coverage 95 +- 2.5% over 400 replications (standard error of a measured rate 1.1%);
claims under the null at most 5% + 2.5%. Measured (these seeds) in the docstrings of the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl
import pytest

from sim.errors import InputError
from sim.games.base import (
    COVARIATE_COUNT,
    COVARIATE_IDS,
    COVARIATE_MASK,
    CardColumns,
    DealCovariate,
    DraftColumns,
)
from sim.stats.clustered import MIN_VERDICT_CLUSTERS
from sim.stats.field_findings import (
    DEAL_SET_EFFECTS,
    DEAL_SHARE,
    FAIR_EVERYWHERE,
    FRAME_SCHEMA,
    GAME_LENGTH,
    HEADLINES,
    HELD_CARDS,
    MIN_HOLDERS,
    SEAT_GAPS,
    SEAT_SCORES,
    UNFAIR_EVERYWHERE,
    deal_share_estimates,
    fairness_across_fields,
    findings_frame,
    judge_findings,
    unfair_only_verdict,
)
from sim.stats.fields import (
    DIFFERS_BETWEEN,
    DIFFERS_IN_SIGN,
    HOLDS_EVERYWHERE,
    KIND_LEVEL,
    NO_EFFECT,
    SAME_EVERYWHERE,
    UNDECIDED,
    holds_only_verdict,
    judge_estimates,
)
from sim.stats.variance import deal_variance

MASK = DealCovariate("removed_mask", "item {n} removed", COVARIATE_MASK)
COUNT = DealCovariate("light", "lights", COVARIATE_COUNT)
OPENING = DealCovariate("opening", "card {n} face up", COVARIATE_IDS)
CARDS = CardColumns(noun="card", cards="taken", rounds="r", offers="o", completed="c",
                    points="p")
DRAFT = DraftColumns(noun="spirit", dealt="d", kept="kept", bonus="b")


@dataclass
class SyntheticGame:
    """The few declarations ``judge_findings`` reads from a game."""

    length_column: str = "turns"
    covariates: tuple = (MASK,)
    cards: CardColumns | None = None
    draft: DraftColumns | None = None
    rules_parameters: tuple = ()

    def deal_covariates(self):
        return self.covariates

    def card_columns(self):
        return self.cards

    def draft_columns(self):
        return self.draft


@dataclass
class Field:
    """One field's truth (see the module docstring)."""

    name: str
    seat_wins: tuple = ()  # a_fs, one per seat (0 everywhere when empty)
    seat_scores: tuple = ()  # score offset per seat
    deal_scale: float = 5.0  # c_f
    item_effects: dict | None = None  # item -> points added in deals with it removed
    length: float = 20.0  # mean game length
    holder_bonus: float = 0.0  # points for a player-game that took card 1
    strategies: tuple = ("x",)  # per seat, or one for every seat


def synthetic_rows(rng: np.random.Generator, deals: int, fields: list[Field], players: int = 2,
                   replicates: int = 1, spread: float = 0.1, noise: float = 8.0,
                   items: int = 6, removed: int = 2, base: float = 60.0) -> pl.LazyFrame:
    """Rows of a fields run on common deals with the truth of ``fields``."""
    win_term = rng.uniform(-spread, spread, deals)
    score_term = rng.standard_normal(deals)
    present = np.zeros((deals, items), dtype=bool)
    for deal in range(deals):
        present[deal, rng.choice(items, removed, replace=False)] = True
    masks = (present * (1 << np.arange(items))[None, :]).sum(axis=1).astype(np.int64)
    lights = rng.integers(3, 9, deals)
    weights = np.zeros(players)
    weights[0], weights[-1] = 1.0, -1.0
    games = deals * replicates
    deal = np.arange(games) // replicates
    frames = []
    for field in fields:
        seat_wins = np.asarray(field.seat_wins or np.zeros(players), dtype=float)
        chances = 1.0 / players + seat_wins[None, :] + win_term[deal, None] * weights[None, :]
        assert (chances > 0).all() and abs(seat_wins.sum()) < 1e-12
        winner = (rng.uniform(size=(games, 1)) > np.cumsum(chances, axis=1)).sum(axis=1)
        winner = np.minimum(winner, players - 1)
        offsets = np.asarray(field.seat_scores or np.zeros(players), dtype=float)
        effects = np.zeros(items)
        for item, effect in (field.item_effects or {}).items():
            effects[item - 1] = effect
        taken = rng.integers(1, 5, (games, players))
        score = (base + field.deal_scale * score_term[deal, None] + offsets[None, :]
                 + (present[deal] @ effects)[:, None] + field.holder_bonus * (taken == 1)
                 + rng.normal(0.0, noise, (games, players)))
        length = np.round(field.length + rng.normal(0.0, 1.0, games))
        strategies = (field.strategies * players)[:players] if len(field.strategies) == 1 \
            else field.strategies
        frames.append(pl.DataFrame({
            "field": field.name,
            "deal_id": np.repeat(deal, players),
            "game_id": np.repeat(np.arange(games), players),
            "deal_seed": np.repeat(deal * 7919 + 13, players).astype(np.uint64),
            "seat": np.tile(np.arange(players), games).astype(np.int8),
            "players": np.full(games * players, players, dtype=np.int8),
            "strategy": np.tile(np.asarray(strategies), games),
            "score": np.round(score).ravel().astype(np.int16),
            "win": (np.arange(players)[None, :] == winner[:, None]).ravel().astype(np.float32),
            "turns": np.repeat(length, players).astype(np.int8),
            "removed_mask": np.repeat(masks[deal], players),
            "light": np.repeat(lights[deal], players).astype(np.int8),
            # Two ids per deal, from 1..5 and 10..12, fixed by the deal's mask.
            "opening": _list_column(np.repeat(np.column_stack([masks % 5 + 1, masks % 3 + 10])
                                              [deal], players, axis=0)),
            "taken": _list_column(taken.reshape(-1, 1)),
            "kept": taken.ravel().astype(np.int16),
        }))
    return pl.concat(frames).lazy()


def _list_column(ids: np.ndarray) -> pl.Series:
    """A list column of 16-bit ids from a (rows, length) array (built in polars, not Python)."""
    return pl.Series(ids.astype(np.int16)).cast(pl.List(pl.Int16))


def item_truth(effects: dict, item: int, items: int) -> float:
    """With exactly k of M items removed, the mean score with item i removed minus without is
    beta_i - sum_{j != i} beta_j / (M - 1)."""
    others = sum(effect for other, effect in effects.items() if other != item)
    return effects.get(item, 0.0) - others / (items - 1)


def _by_key(findings):
    return {finding.key: finding for finding in findings}


# ---------------------------------------------------------------- verdicts on known truth


def test_seat_effect_in_one_field_only():
    """Seat 1 wins 6 points more often than 1/2 with strong, exactly 1/2 with style."""
    rows = synthetic_rows(np.random.default_rng(1), 6000, [
        Field("strong", seat_wins=(0.06, -0.06)), Field("style")], replicates=2)
    findings = _by_key(judge_findings(rows, ["strong", "style"], SyntheticGame()))
    gap = findings["seat_win_gap/1"].judgement
    assert gap.verdict in (holds_only_verdict(["strong"]), DIFFERS_IN_SIGN)
    assert gap.verdict == "holds in strong only" and gap.direction == 1
    assert findings["seat_win_gap/2"].judgement.verdict == "holds in strong only"
    assert findings["seat_win_gap/2"].judgement.direction == -1
    # The family of seat gaps is judged at once, over both seats and both fields.
    assert gap.family == 2
    assert findings["seat_win_gap/1"].causal
    fairness = fairness_across_fields(list(findings.values()), ["strong", "style"])
    assert fairness.per_field == ["unfair", "fair"]
    assert fairness.verdict == unfair_only_verdict(["strong"]) == "unfair in strong only"
    assert fairness.sentence().startswith("The seats are unfair in strong only (strong unfair, "
                                          "style fair; margin ±2.0 percentage points)")


def test_opposite_seat_effects_differ_in_sign():
    rows = synthetic_rows(np.random.default_rng(2), 1500, [
        Field("strong", seat_wins=(0.08, -0.08)), Field("style", seat_wins=(-0.08, 0.08))])
    findings = _by_key(judge_findings(rows, ["strong", "style"], SyntheticGame()))
    assert findings["seat_win_gap/1"].judgement.verdict == DIFFERS_IN_SIGN
    assert fairness_across_fields(list(findings.values()),
                                  ["strong", "style"]).verdict == UNFAIR_EVERYWHERE


def test_the_same_seat_effect_everywhere_holds_in_every_field():
    """Four seats, three fields, the same gaps (+8, 0, 0, -8 points) in each."""
    wins = (0.08, 0.0, 0.0, -0.08)
    rows = synthetic_rows(np.random.default_rng(3), 2500, [
        Field(name, seat_wins=wins) for name in ("strong", "style", "casual")], players=4)
    findings = _by_key(judge_findings(rows, ["strong", "style", "casual"], SyntheticGame()))
    assert (findings["seat_win_gap/1"].judgement.verdict,
            findings["seat_win_gap/1"].judgement.direction) == (HOLDS_EVERYWHERE, 1)
    assert (findings["seat_win_gap/4"].judgement.verdict,
            findings["seat_win_gap/4"].judgement.direction) == (HOLDS_EVERYWHERE, -1)
    assert findings["seat_win_gap/1"].judgement.family == 4
    assert fairness_across_fields(list(findings.values()), ["strong", "style", "casual"]
                                  ).verdict == UNFAIR_EVERYWHERE


def test_score_gaps_and_no_seat_effect_anywhere():
    """Seat 1 scores 3 points above seat 2 in every field (its gap to the table mean +1.5),
    and no seat wins more often than another: fair in every field."""
    rows = synthetic_rows(np.random.default_rng(4), 8000, [
        Field(name, seat_scores=(3.0, 0.0)) for name in ("strong", "casual")], spread=0.0)
    findings = judge_findings(rows, ["strong", "casual"], SyntheticGame())
    by_key = _by_key(findings)
    score = by_key["seat_score_gap/1"].judgement
    assert score.verdict == HOLDS_EVERYWHERE and score.direction == 1
    np.testing.assert_allclose(score.estimates, [1.5, 1.5], atol=0.3)
    assert by_key["seat_win_gap/1"].judgement.verdict == NO_EFFECT
    assert fairness_across_fields(findings, ["strong", "casual"]).verdict == FAIR_EVERYWHERE
    assert [f.headline for f in findings][:4] == [SEAT_GAPS, SEAT_GAPS, SEAT_SCORES,
                                                  SEAT_SCORES]


@pytest.mark.slow
def test_no_effect_anywhere_is_rarely_claimed():
    """No seat effect and no item effect in any of three fields, 200 replications of 1,000
    deals played 8 times: a "holds" or "differs" verdict on seat 1's gap or on item 1 in at
    most 7.5% (measured: 0.5% and 0%), and item 1 shown to be practically zero ("no effect in
    any field") in most (measured 97.5%; seat 1's gap 28.5%, its margin being narrower)."""
    rng = np.random.default_rng(5)
    claims, nothing = np.zeros(2), np.zeros(2)
    replications = 200
    names = ["strong", "style", "casual"]
    for _ in range(replications):
        rows = synthetic_rows(rng, 1000, [Field(name, deal_scale=1.0) for name in names],
                              items=2, removed=1, replicates=8, noise=3.0)
        findings = _by_key(judge_findings(rows, names, SyntheticGame(length_column="")))
        for k, key in enumerate(("seat_win_gap/1", "removed_mask/1")):
            verdict = findings[key].judgement.verdict
            claims[k] += verdict == DIFFERS_IN_SIGN or verdict.startswith("holds")
            nothing[k] += verdict == NO_EFFECT
    assert (claims / replications <= 0.075).all(), claims
    assert nothing[1] / replications >= 0.8, nothing


# ---------------------------------------------------------------- coverage


@pytest.mark.slow
def test_paired_differences_cover_the_true_differences():
    """400 replications of 250 deals, three fields with seat 1 gaps of +6, 0 and -3 points,
    item 1 (of 3, one removed per deal) worth +4, 0 and +2 points: the simultaneous intervals
    of the seat family's pairs, of the item family's pairs and of its fields (all three items
    at once, as they are judged) cover the truth at 95 +- 2.5%. The pairing narrows item 1's
    paired interval (its standard error 0.75 of the unpaired one on average). Seat 1's gaps
    hardly gain: the deal term moves few wins when each deal is played once (paired 0.99 of
    unpaired)."""
    rng = np.random.default_rng(6)
    fields = [Field("strong", seat_wins=(0.06, -0.06), item_effects={1: 4.0}),
              Field("style", item_effects={}),
              Field("casual", seat_wins=(-0.03, 0.03), item_effects={1: 2.0})]
    names = [field.name for field in fields]
    seat_truth = np.array([0.06, 0.0, -0.03])
    # Per item (rows) and field (columns): the family of the three items is judged at once.
    item_field_truth = np.array([[item_truth(f.item_effects, item, 3) for f in fields]
                                 for item in (1, 2, 3)])
    hits, ratios = np.zeros(3), []
    replications = 400
    for _ in range(replications):
        rows = synthetic_rows(rng, 250, fields, items=3, removed=1)
        findings = _by_key(judge_findings(rows, names, SyntheticGame(length_column="")))
        seat = findings["seat_win_gap/1"].judgement
        items = [findings[f"removed_mask/{k}"].judgement for k in (1, 2, 3)]
        item = items[0]
        pair_truth = np.array([seat_truth[i] - seat_truth[j] for i, j in seat.pairs])
        # The seat family: both seats' pairs at once (seat 2's are the mirror image).
        mirrored = findings["seat_win_gap/2"].judgement
        hits[0] += bool(((seat.pair_lows <= pair_truth) & (pair_truth <= seat.pair_highs)).all()
                        and ((mirrored.pair_lows <= -pair_truth)
                             & (-pair_truth <= mirrored.pair_highs)).all())
        covered_pairs, covered_fields = True, True
        for judged, truth in zip(items, item_field_truth, strict=True):
            pairs = np.array([truth[i] - truth[j] for i, j in judged.pairs])
            covered_pairs &= bool(((judged.pair_lows <= pairs)
                                   & (pairs <= judged.pair_highs)).all())
            covered_fields &= bool(((judged.lows <= truth) & (truth <= judged.highs)).all())
        hits[1] += covered_pairs
        hits[2] += covered_fields
        # Paired against as if the two fields had played different deals.
        ratios.append(item.pair_standard_errors[0] / np.hypot(*item.standard_errors[:2]))
    coverage = hits / replications
    assert ((0.925 <= coverage) & (coverage <= 0.975)).all(), coverage
    # The deal's score term (variance 25 against 32 for a deal's mean noise) cancels from the
    # paired difference of an item's effect.
    assert np.mean(ratios) < 0.8, np.mean(ratios)


def _icc_rows(rng, deals, scales, replicates=2, noise=1.0):
    """Two seats, ``replicates`` replays per deal; score = 10 (c_f z_d + N(0, noise^2)) + 50,
    rounded: the truth of field f's deal share is 100 c_f^2 / (100 c_f^2 + 100 noise^2 + 1/12)
    (rounding adds 1/12 within a deal)."""
    return synthetic_rows(rng, deals, [Field(f"f{k}", deal_scale=10.0 * scale)
                                       for k, scale in enumerate(scales)],
                          replicates=replicates, noise=10.0 * noise, spread=0.0, base=50.0)


def _icc_truth(scales, noise=1.0):
    scales = np.asarray(scales, dtype=float)
    return 100 * scales ** 2 / (100 * scales ** 2 + 100 * noise ** 2 + 1 / 12)


def test_deal_share_equals_deal_variance_pooled_icc():
    """The point estimate is ``deal_variance``'s pooled ICC in every field, a pool rotating
    over the replays included (scores centred on each strategy's seat mean)."""
    rng = np.random.default_rng(7)
    rows = _icc_rows(rng, 120, [0.8, 0.4], replicates=3).collect()
    # A second strategy in field f1 on the third replay, one point stronger.
    rows = rows.with_columns(
        strategy=pl.when((pl.col("field") == "f1") & (pl.col("game_id") % 3 == 2))
        .then(pl.lit("y")).otherwise(pl.col("strategy")),
        score=pl.when((pl.col("field") == "f1") & (pl.col("game_id") % 3 == 2))
        .then(pl.col("score") + 1).otherwise(pl.col("score")))
    means = deal_share_estimates(rows.lazy(), ["f0", "f1"])
    assert means.clusters == 120
    for k, name in enumerate(["f0", "f1"]):
        table = deal_variance(rows.filter(pl.col("field") == name)
                              .with_columns(rules=pl.lit("r")).lazy())
        pooled = table.filter(pl.col("seat").is_null()).row(0, named=True)
        assert means.means[k] == pytest.approx(pooled["icc"], abs=1e-12)
    # No replayed deal: no deal share.
    assert deal_share_estimates(_icc_rows(rng, 50, [0.8, 0.4], replicates=1), ["f0", "f1"]) \
        is None


def test_deal_share_level_is_judged_between_fields():
    rng = np.random.default_rng(8)
    findings = _by_key(judge_findings(_icc_rows(rng, 3000, [1.0, 1.0]), ["f0", "f1"],
                                      SyntheticGame(length_column="", covariates=())))
    share = findings["deal_share"]
    assert (share.headline, share.kind, share.judgement.kind) == (DEAL_SHARE, KIND_LEVEL,
                                                                   KIND_LEVEL)
    assert share.judgement.verdict == SAME_EVERYWHERE
    np.testing.assert_allclose(share.judgement.estimates, _icc_truth([1.0, 1.0]), atol=0.04)
    findings = _by_key(judge_findings(_icc_rows(rng, 3000, [1.0, 0.5]), ["f0", "f1"],
                                      SyntheticGame(length_column="", covariates=())))
    assert findings["deal_share"].judgement.verdict == DIFFERS_BETWEEN
    sentence = findings["deal_share"].judgement.sentence("the deal's share", "percentage points",
                                                         100)
    assert sentence.startswith("the deal's share differs between fields: f0 ")
    assert " f0 minus f1 +" in sentence


def test_deal_share_paired_difference_covers():
    """300 replications of 300 deals played twice, deal shares 49.9% and 20.0%: the field
    intervals and the paired difference cover the truth at 95 +- 2.5% (measured: 97.0% and
    95.7%; the jackknife errs on the wide side). The jackknife covariance is over deals, the
    same deal left out of both fields."""
    rng = np.random.default_rng(9)
    scales = [1.0, 0.5]
    truth = _icc_truth(scales)
    field_hits = pair_hits = 0
    replications = 300
    for _ in range(replications):
        means = deal_share_estimates(_icc_rows(rng, 300, scales), ["f0", "f1"])
        judgement = judge_estimates(means, ["f0", "f1"], 0.05, kind=KIND_LEVEL,
                                    value_range=(0.0, 1.0))
        field_hits += bool(((judgement.lows <= truth) & (truth <= judgement.highs)).all())
        pair_hits += judgement.pair_lows[0] <= truth[0] - truth[1] <= judgement.pair_highs[0]
    assert 0.925 <= field_hits / replications <= 0.975, field_hits
    assert 0.925 <= pair_hits / replications <= 0.975, pair_hits


# ---------------------------------------------------------------- the other headlines


def test_game_length_same_and_different():
    rng = np.random.default_rng(10)
    same = _by_key(judge_findings(synthetic_rows(rng, 400, [Field("a"), Field("b")]),
                                  ["a", "b"], SyntheticGame()))["game_length"]
    assert (same.headline, same.kind, same.unit) == (GAME_LENGTH, KIND_LEVEL, "turns")
    assert same.judgement.verdict == SAME_EVERYWHERE
    longer = _by_key(judge_findings(synthetic_rows(rng, 400, [Field("a"), Field("b", length=21)]),
                                    ["a", "b"], SyntheticGame()))["game_length"]
    assert longer.judgement.verdict == DIFFERS_BETWEEN
    np.testing.assert_allclose(longer.judgement.pair_estimates, [-1.0], atol=0.2)


def test_deal_set_effect_through_the_contrast():
    """Item 1 removed adds 4 points with strong, nothing with casual: its with-minus-without
    difference holds in strong only; the mask's other items, the count and the id list are
    judged too."""
    rng = np.random.default_rng(11)
    rows = synthetic_rows(rng, 3000, [Field("strong", item_effects={1: 4.0}, deal_scale=1.0),
                                      Field("casual", deal_scale=1.0)], noise=4.0)
    game = SyntheticGame(covariates=(MASK, COUNT, OPENING))
    findings = judge_findings(rows, ["strong", "casual"], game)
    by_key = _by_key(findings)
    item = by_key["removed_mask/1"]
    assert (item.headline, item.causal, item.unit) == (DEAL_SET_EFFECTS, True, "points")
    assert item.judgement.verdict == holds_only_verdict(["strong"])
    np.testing.assert_allclose(item.judgement.estimates, [item_truth({1: 4.0}, 1, 6), 0.0],
                               atol=0.6)
    assert item.noun == ("the score difference of deals with item 1 removed over the other "
                         "deals (mean per player)")
    # Every mask item 1..6, the count above its median, the opening ids 1..5 and 10..12.
    effect_keys = [f.key for f in findings if f.headline == DEAL_SET_EFFECTS]
    assert effect_keys == ([f"removed_mask/{n}" for n in range(1, 7)] + ["light/above_median"]
                           + [f"opening/{n}" for n in (1, 2, 3, 4, 5, 10, 11, 12)])
    assert by_key["light/above_median"].noun.startswith("the score difference of deals with "
                                                        "more than ")


def test_held_cards_are_associations_and_rare_ids_are_left_out():
    """Players who took card 1 score 3 points more with strong (they chose it): an association.
    A card held fewer than MIN_HOLDERS times in a field is left out."""
    rng = np.random.default_rng(12)
    rows = synthetic_rows(rng, 1500, [Field("strong", holder_bonus=3.0), Field("casual")])
    # Card 9: held by a handful of player-games only.
    rows = rows.with_columns(taken=pl.when(pl.col("game_id") < MIN_HOLDERS // 4)
                             .then(pl.concat_list("taken", pl.lit(9, dtype=pl.Int16)))
                             .otherwise(pl.col("taken")))
    findings = judge_findings(rows, ["strong", "casual"],
                              SyntheticGame(cards=CARDS, draft=DRAFT, covariates=()))
    held = [f for f in findings if f.headline == HELD_CARDS]
    assert [f.key for f in held] == ["taken/1", "taken/2", "taken/3", "taken/4",
                                     "kept/1", "kept/2", "kept/3", "kept/4"]
    assert not any(f.causal for f in held)
    card = _by_key(held)["taken/1"]
    # Judged with the other cards as one family (wider intervals): strong holds and the
    # difference from casual is settled; casual may not be shown within the margin.
    assert card.judgement.verdict in (holds_only_verdict(["strong"]), DIFFERS_BETWEEN)
    assert card.judgement.lows[0] > 0 and card.judgement.pair_lows[0] > 0
    # Holders of card 1 score 3 more than the others, who hold one of three other cards.
    np.testing.assert_allclose(card.judgement.estimates, [3.0, 0.0], atol=0.6)
    assert card.noun == ("the score difference of players who took card 1 over those who did "
                         "not (mean per player-game)")
    assert _by_key(held)["kept/1"].noun.startswith("the score difference of players who kept "
                                                   "spirit 1 over")


def test_seats_tied_to_strategies_are_associations():
    rows = synthetic_rows(np.random.default_rng(13), 200, [
        Field("strong", strategies=("a", "b")), Field("casual")])
    findings = judge_findings(rows, ["strong", "casual"], SyntheticGame())
    assert not any(f.causal for f in findings if f.headline in (SEAT_GAPS, SEAT_SCORES))
    fairness = fairness_across_fields(findings, ["strong", "casual"])
    assert fairness.per_field == [UNDECIDED, UNDECIDED] and fairness.verdict == UNDECIDED
    assert "unevenly" in fairness.reason
    rotating = synthetic_rows(np.random.default_rng(13), 200, [Field("strong"), Field("casual")])
    assert all(f.causal for f in judge_findings(rotating, ["strong", "casual"], SyntheticGame())
               if f.headline in (SEAT_GAPS, SEAT_SCORES))


def test_fewer_than_ten_deals_are_undecided():
    rows = synthetic_rows(np.random.default_rng(14), MIN_VERDICT_CLUSTERS - 1, [
        Field("strong", seat_wins=(0.2, -0.2)), Field("casual")], replicates=3)
    findings = judge_findings(rows, ["strong", "casual"],
                              SyntheticGame(covariates=(), cards=CARDS))
    assert findings and {f.judgement.verdict for f in findings} == {UNDECIDED}
    assert {f.judgement.reason for f in findings} == {
        f"fewer than {MIN_VERDICT_CLUSTERS} deals"}
    assert {f.headline for f in findings} == {SEAT_GAPS, SEAT_SCORES, DEAL_SHARE, GAME_LENGTH}
    fairness = fairness_across_fields(findings, ["strong", "casual"])
    assert fairness.verdict == UNDECIDED
    assert fairness.reason == f"fewer than {MIN_VERDICT_CLUSTERS} deals"


def test_findings_are_in_headline_order_and_the_frame_is_deterministic():
    rng = np.random.default_rng(15)
    rows = synthetic_rows(rng, 300, [Field("a"), Field("b"), Field("c")], replicates=2)
    game = SyntheticGame(covariates=(MASK, COUNT), cards=CARDS, draft=DRAFT)
    findings = judge_findings(rows, ["a", "b", "c"], game)
    order = [HEADLINES.index(f.headline) for f in findings]
    # Every headline but game flow (these rows keep no score trace).
    assert order == sorted(order)
    assert {HEADLINES[k] for k in order} == set(HEADLINES) - {"game flow"}
    frame = findings_frame(findings)
    assert frame.schema == pl.Schema(FRAME_SCHEMA)
    # Three fields and three pairs per finding, fields first.
    assert frame.height == 6 * len(findings)
    first = frame.head(6)
    assert first["row"].to_list() == ["field"] * 3 + ["pair"] * 3
    assert first["field"].to_list() == ["a", "b", "c", None, None, None]
    assert first["pair"].to_list()[3:] == ["a minus b", "a minus c", "b minus c"]
    again = findings_frame(judge_findings(rows, ["a", "b", "c"], game))
    assert frame.equals(again)
    # The fields' order is the one asked for.
    reordered = judge_findings(rows, ["c", "a", "b"], game)
    assert reordered[0].judgement.fields == ["c", "a", "b"]
    assert reordered[0].judgement.estimates[1] == findings[0].judgement.estimates[0]
    assert findings_frame([]).schema == pl.Schema(FRAME_SCHEMA)


# ---------------------------------------------------------------- bad input


def test_rows_that_cannot_be_judged_are_one_line_errors():
    rng = np.random.default_rng(16)
    rows = synthetic_rows(rng, 30, [Field("a"), Field("b")]).collect()
    cases = [
        (rows.lazy(), ["a"], "at least 2 distinct fields"),
        (rows.drop("win").lazy(), ["a", "b"], "lack the column win"),
        (rows.lazy(), ["a", "z"], "no rows for field z"),
        (pl.concat([rows, rows.with_columns(pl.lit(3, dtype=pl.Int8).alias("players"))]).lazy(),
         ["a", "b"], "several player counts"),
        (rows.with_columns(pl.when(pl.col("field") == "b").then(pl.col("removed_mask") + 1)
                           .otherwise(pl.col("removed_mask")).alias("removed_mask")).lazy(),
         ["a", "b"], "did not play the same deals"),
        (rows.with_columns(pl.when(pl.col("seat") == 1).then(pl.col("removed_mask") + 1)
                           .otherwise(pl.col("removed_mask")).alias("removed_mask")).lazy(),
         ["a", "b"], "not set by the deal alone"),
    ]
    for frame, fields, message in cases:
        with pytest.raises(InputError, match=message) as error:
            judge_findings(frame, fields, SyntheticGame())
        assert "\n" not in str(error.value)


def test_lead_changes_from_the_score_trace_are_a_level_judged_between_fields():
    """With the score trace: field steady never changes leader (seat 1 leads from the first
    step), field swings changes it twice in about half its games (mean about 1 per game)."""
    rng = np.random.default_rng(4)
    rows = synthetic_rows(rng, 200, [Field("steady"), Field("swings")]).collect()
    steady, swings = [[1, 0], [2, 0], [3, 0]], [[1, 0], [1, 2], [3, 2]]
    swing = rng.uniform(size=rows.height // 2) < 0.5  # one draw per game (2 seats)
    traces = []
    for index, (field, seat) in enumerate(zip(rows["field"], rows["seat"], strict=True)):
        pattern = swings if field == "swings" and swing[index // 2 % swing.size] else steady
        traces.append([step[seat] for step in pattern])
    rows = rows.with_columns(pl.Series("score_trace", traces, dtype=pl.List(pl.Int16)),
                             rank=(pl.col("seat") + 1).cast(pl.Int8))
    findings = _by_key(judge_findings(rows.lazy(), ["steady", "swings"],
                                      SyntheticGame(length_column="")))
    flow = findings["lead_changes"]
    assert flow.headline == "game flow" and flow.kind == KIND_LEVEL
    assert flow.judgement.estimates[0] == 0.0 and 0.8 < flow.judgement.estimates[1] < 1.2
    assert flow.judgement.verdict == DIFFERS_BETWEEN
    # Without the trace column there is no flow finding.
    assert "lead_changes" not in _by_key(judge_findings(
        synthetic_rows(rng, 50, [Field("steady"), Field("swings")]), ["steady", "swings"],
        SyntheticGame(length_column="")))
