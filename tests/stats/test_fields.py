"""A finding judged across fields (``sim.stats.fields``) on synthetic batches with known truth.

The synthetic batch: D deals shared by every field (common random numbers). Deal d has a term
u_d ~ Uniform(-s, s) on the win probability that every field shares (the deal favours seat 1
whoever plays it, which makes the fields' estimates correlated), and field f a seat effect e_f
on the seat-1-minus-seat-2 win difference. Each of the G games of deal d in field f is won by
seat 1 with probability 1/2 + e_f / 2 + u_d (no ties), so its win difference (+1 or -1) has
mean e_f + 2 u_d, and the finding's truth in field f is exactly e_f. The probabilities stay
inside (0, 1) by construction (no clipping, which would move the truth).

Bands: coverage 95 +- 2.5% over 1,000 replications (standard error of a measured rate 0.7%),
wrong verdicts under the null at most 5% + 2.5% over 400 replications (standard error 1.1%).
Measured (these seeds): family coverage of the fields' intervals 94.9% at 400 deals, 94.3% at
60, 94.1% at 6; of the pairs' 94.5%, 94.6%, 95.7%; the paired interval about half as wide as
two independent ones (mean ratio 0.50); under the null 0.75% "holds"/"differs" verdicts and
94.75% "no effect in any field"; the same +5 points everywhere "holds in every field" in 100%.
"""

import numpy as np
import pytest
from scipy import stats

from sim.errors import InputError
from sim.stats.clustered import MIN_VERDICT_CLUSTERS, RatioMeans, ratio_means
from sim.stats.fields import (
    DIFFERS_BETWEEN,
    DIFFERS_IN_SIGN,
    HOLDS_EVERYWHERE,
    KIND_EFFECT,
    KIND_LEVEL,
    NO_EFFECT,
    SAME_EVERYWHERE,
    UNDECIDED,
    _level_verdict,
    _verdict,
    judge_across_fields,
    judge_estimates,
    judge_family,
    paired_difference,
)

MARGIN = 0.02  # two percentage points of win difference: practically zero
THREE_FIELDS = ["strong", "style", "casual"]
COVERAGE_REPLICATIONS = 1000


def synthetic_fields(rng: np.random.Generator, deals: int, effects, games: int = 50,
                     deal_spread: float = 0.1, unequal: bool = False):
    """Per-deal sums of the win difference and per-deal game counts, both (deals, fields), for
    the seat effects ``effects`` (one per field); see the module docstring. ``unequal`` draws
    each deal's number of games (the same in every field) from G/2 to 3G/2."""
    effects = np.asarray(effects, dtype=float)
    if unequal:
        per_deal = rng.integers(games // 2, 3 * games // 2 + 1, deals)
    else:
        per_deal = np.full(deals, games)
    deal_term = rng.uniform(-deal_spread, deal_spread, deals)
    chance = 0.5 + effects[None, :] / 2.0 + deal_term[:, None]
    assert (chance > 0).all() and (chance < 1).all()
    wins = rng.binomial(np.repeat(per_deal[:, None], effects.size, axis=1), chance)
    counts = np.repeat(per_deal[:, None], effects.size, axis=1).astype(float)
    return (2.0 * wins - counts), counts


# ---------------------------------------------------------------- hand-computed small case


def test_three_deals_two_fields_equal_hand_values():
    """strong: (2, 0, 1) over 2 games per deal, mean 3/6 = 0.5; style: (1, 0, -1), mean 0.
    Residuals (Y - R X) / X: strong (1, -1, 0) / 6, style (1, 0, -1) / 6, their difference
    (0, -1, 1) / 6. CR1: var = 3/2 * sum of squares = 3/2 * 2/36 = 1/12 for each field and for
    the difference (cov = 3/2 * 1/36 = 1/24, 1/12 + 1/12 - 2/24 = 1/12). One pair: t(2)."""
    values = np.array([[2.0, 1.0], [0.0, 0.0], [1.0, -1.0]])
    counts = np.full((3, 2), 2.0)
    judgement = judge_across_fields(values, counts, ["strong", "style"], MARGIN)
    se = np.sqrt(1.0 / 12.0)
    np.testing.assert_allclose(judgement.estimates, [0.5, 0.0])
    np.testing.assert_allclose(judgement.standard_errors, [se, se])
    assert judgement.pairs == [(0, 1)]
    np.testing.assert_allclose(judgement.pair_estimates, [0.5])
    np.testing.assert_allclose(judgement.pair_standard_errors, [se])
    half = stats.t.ppf(0.975, 2) * se  # 4.303 * 0.2887 = 1.242
    np.testing.assert_allclose(judgement.pair_lows, [0.5 - half])
    np.testing.assert_allclose(judgement.pair_highs, [0.5 + half])
    # Simultaneous over the two fields: wider than one field's own t interval.
    assert (judgement.highs - judgement.estimates > half).all()
    assert judgement.clusters == 3
    assert judgement.verdict == UNDECIDED
    assert judgement.reason == f"fewer than {MIN_VERDICT_CLUSTERS} deals"

    single = paired_difference(values[:, 0], counts[:, 0], values[:, 1], counts[:, 1])
    assert single.clusters == 3
    np.testing.assert_allclose([single.estimate, single.standard_error, single.low, single.high],
                               [0.5, se, 0.5 - half, 0.5 + half])


def test_estimates_are_ratio_means_over_unequal_counts():
    """(3 + 0 + 1) / (1 + 2 + 1) = 1, and (0 + 2 + 2) / (2 + 2 + 4) = 0.5: sums over sums, not
    a mean of per-deal means (which would be 4/3 for a)."""
    values = np.array([[3.0, 0.0], [0.0, 2.0], [1.0, 2.0]])
    counts = np.array([[1.0, 2.0], [2.0, 2.0], [1.0, 4.0]])
    judgement = judge_across_fields(values, counts, ["a", "b"], MARGIN)
    np.testing.assert_allclose(judgement.estimates, [1.0, 0.5])
    np.testing.assert_allclose(judgement.pair_estimates, [0.5])


def test_deals_with_no_game_in_any_field_are_left_out():
    rng = np.random.default_rng(1)
    values, counts = synthetic_fields(rng, 40, [0.0, 0.0])
    padded_values = np.vstack([values, np.zeros((5, 2))])
    padded_counts = np.vstack([counts, np.zeros((5, 2))])
    plain = judge_across_fields(values, counts, ["a", "b"], MARGIN)
    padded = judge_across_fields(padded_values, padded_counts, ["a", "b"], MARGIN)
    assert padded.clusters == plain.clusters == 40
    np.testing.assert_array_equal(padded.lows, plain.lows)
    np.testing.assert_array_equal(padded.pair_highs, plain.pair_highs)


def test_value_range_keeps_intervals_inside():
    values = np.array([[2.0, 2.0], [2.0, 1.0], [0.0, 2.0], [2.0, 2.0]] * 3)
    counts = np.full(values.shape, 2.0)
    judgement = judge_across_fields(values, counts, ["a", "b"], MARGIN, value_range=(-1.0, 1.0))
    assert (judgement.highs <= 1.0).all() and (judgement.lows >= -1.0).all()
    assert (judgement.pair_highs <= 2.0).all() and (judgement.pair_lows >= -2.0).all()


# ---------------------------------------------------------------- the verdict's logic


def _judge(lows, highs, pair_lows=None, pair_highs=None, clusters=100):
    """The verdict on hand-made intervals (fields a, b, c... and all their pairs)."""
    names = [chr(ord("a") + k) for k in range(len(lows))]
    pairs = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))]
    pair_lows = np.full(len(pairs), 0.5) if pair_lows is None else np.asarray(pair_lows, float)
    pair_highs = np.full(len(pairs), 1.0) if pair_highs is None else np.asarray(pair_highs, float)
    return _verdict(np.asarray(lows, float), np.asarray(highs, float), pairs, pair_lows,
                    pair_highs, names, MARGIN, clusters)


def test_verdicts_follow_their_precedence():
    assert _judge([0.01, -0.05], [0.05, -0.01])[:2] == (DIFFERS_IN_SIGN, 0)
    # Differs in sign wins over everything, even with a third field undecided.
    assert _judge([0.01, -0.05, -0.1], [0.05, -0.01, 0.1])[0] == DIFFERS_IN_SIGN
    assert _judge([0.01, 0.02], [0.05, 0.06])[:2] == (HOLDS_EVERYWHERE, 1)
    assert _judge([-0.05, -0.06], [-0.01, -0.02])[:2] == (HOLDS_EVERYWHERE, -1)
    # a holds (+), b is practically zero and a - b excludes 0 on the holding side.
    assert _judge([0.03, -0.01], [0.09, 0.01], [0.01], [0.08])[:2] == ("holds in a only", 1)
    # b holds (-), a is practically zero: a - b must lie above 0.
    assert _judge([-0.01, -0.09], [0.01, -0.03], [0.01], [0.08])[:2] == ("holds in b only", -1)
    assert _judge([0.03, 0.02, -0.01], [0.09, 0.08, 0.01], [-0.1, 0.01, 0.01],
                  [0.1, 0.08, 0.08])[0] == "holds in a and b only"
    assert _judge([-0.01, -0.015], [0.01, 0.019])[:2] == (NO_EFFECT, 0)


def test_absence_of_evidence_is_undecided():
    # b neither excludes 0 nor lies inside the margin, and a - b may be 0.
    verdict, direction, reason = _judge([0.03, -0.04], [0.09, 0.04], [-0.01], [0.08])
    assert (verdict, direction) == (UNDECIDED, 0)
    assert reason == "a holds, b neither holds nor lies within the margin"
    # b practically zero but a - b not shown to differ from 0.
    verdict, _, reason = _judge([0.03, -0.01], [0.09, 0.01], [-0.01], [0.08])
    assert verdict == UNDECIDED and "cannot be told apart" in reason
    # Nothing holds and one interval is too wide to call zero.
    verdict, _, reason = _judge([-0.01, -0.03], [0.01, 0.03], [-0.02], [0.02])
    assert verdict == UNDECIDED and reason == "b neither holds nor lies within the margin"
    # The band is open: an interval touching the margin is not inside it.
    assert _judge([-0.01, -0.02], [0.01, 0.01], [-0.02], [0.02])[0] == UNDECIDED


def test_a_settled_difference_between_fields_is_said_even_where_each_field_is_unsettled():
    # a holds, b is unsettled, but a - b excludes 0: the fields differ, where it holds is open.
    verdict, direction, reason = _judge([0.03, -0.04], [0.09, 0.04], [0.01], [0.08])
    assert (verdict, direction) == (DIFFERS_BETWEEN, 0)
    assert reason == ("a holds, b neither holds nor lies within the margin; the paired "
                      "difference a − b excludes 0")
    # Neither holds, yet they differ from each other.
    verdict, _, reason = _judge([-0.01, -0.03], [0.03, 0.01], [0.005], [0.05])
    assert verdict == DIFFERS_BETWEEN and reason.endswith("difference a − b excludes 0")
    # Too few deals: no verdict whatever the intervals say.
    assert _judge([0.01, 0.02], [0.05, 0.06], clusters=MIN_VERDICT_CLUSTERS - 1)[0] == UNDECIDED


# ---------------------------------------------------------------- synthetic scenarios


def test_effect_in_one_field_only():
    """+6 points of win difference for strong, none for style: "holds in strong only"."""
    values, counts = synthetic_fields(np.random.default_rng(11), 2000, [0.06, 0.0])
    judgement = judge_across_fields(values, counts, ["strong", "style"], MARGIN)
    assert judgement.verdict == "holds in strong only"
    assert judgement.direction == 1 and judgement.holding_fields == ["strong"]
    sentence = judgement.sentence("seat 1's win-rate advantage", "percentage points", 100)
    assert sentence.startswith("seat 1's win-rate advantage holds in strong only (style within "
                               "±2.0 percentage points): strong +")
    assert "; strong minus style +" in sentence


def test_effect_in_one_field_with_fewer_deals_is_never_every_field():
    values, counts = synthetic_fields(np.random.default_rng(12), 400, [0.06, 0.0])
    judgement = judge_across_fields(values, counts, ["strong", "style"], MARGIN)
    assert judgement.verdict in ("holds in strong only", DIFFERS_BETWEEN, UNDECIDED)


def test_opposite_effects_differ_in_sign():
    values, counts = synthetic_fields(np.random.default_rng(13), 400, [0.06, -0.06])
    judgement = judge_across_fields(values, counts, ["strong", "style"], MARGIN)
    assert judgement.verdict == DIFFERS_IN_SIGN and judgement.direction == 0
    assert judgement.holding_fields == ["strong", "style"]
    sentence = judgement.sentence("seat 1's win-rate advantage", "percentage points", 100)
    assert sentence.startswith("seat 1's win-rate advantage differs in sign between fields: ")


def test_the_same_effect_everywhere_holds_in_every_field():
    rng = np.random.default_rng(14)
    verdicts = []
    for _ in range(200):
        values, counts = synthetic_fields(rng, 400, [0.05, 0.05, 0.05])
        judgement = judge_across_fields(values, counts, THREE_FIELDS, MARGIN)
        verdicts.append((judgement.verdict, judgement.direction))
    share = np.mean([v == (HOLDS_EVERYWHERE, 1) for v in verdicts])
    assert share >= 0.90, share


def test_no_effect_anywhere_is_rarely_called_an_effect():
    """Under the null no "holds" or "differs" verdict beyond the nominal 5% (+ 2.5% tolerance),
    and with 2,000 deals "no effect in any field" in most replications."""
    rng = np.random.default_rng(15)
    verdicts = []
    for _ in range(400):
        values, counts = synthetic_fields(rng, 2000, [0.0, 0.0, 0.0])
        verdicts.append(judge_across_fields(values, counts, THREE_FIELDS, MARGIN).verdict)
    verdicts = np.array(verdicts)
    claimed = np.mean([v == DIFFERS_IN_SIGN or v.startswith("holds") for v in verdicts])
    assert claimed <= 0.075, claimed
    assert np.mean(verdicts == NO_EFFECT) >= 0.8, np.mean(verdicts == NO_EFFECT)


# ---------------------------------------------------------------- coverage


def _coverage(deals: int, effects, replications: int, seed: int, unequal: bool = False):
    """Family-wise coverage of the per-field and the pairwise intervals, the single paired
    difference's coverage and the mean ratio of its width to that of the unpaired difference
    (two independent intervals), over seeded replications."""
    rng = np.random.default_rng(seed)
    effects = np.asarray(effects, dtype=float)
    names = [f"f{k}" for k in range(effects.size)]
    field_hits = pair_hits = single_hits = 0
    width_ratios, verdicts = [], []
    for _ in range(replications):
        values, counts = synthetic_fields(rng, deals, effects, deal_spread=0.2, unequal=unequal)
        judgement = judge_across_fields(values, counts, names, MARGIN)
        verdicts.append(judgement.verdict)
        field_hits += bool(((judgement.lows <= effects) & (effects <= judgement.highs)).all())
        truth = np.array([effects[i] - effects[j] for i, j in judgement.pairs])
        pair_hits += bool(((judgement.pair_lows <= truth) & (truth <= judgement.pair_highs)).all())
        single = paired_difference(values[:, 0], counts[:, 0], values[:, 1], counts[:, 1])
        single_hits += single.low <= effects[0] - effects[1] <= single.high
        unpaired = np.hypot(*judgement.standard_errors[:2])  # as if the fields were independent
        width_ratios.append(single.standard_error / unpaired)
    return (field_hits / replications, pair_hits / replications, single_hits / replications,
            float(np.mean(width_ratios)), float(np.max(width_ratios)), verdicts)


def test_intervals_cover_at_the_nominal_rate_and_pairing_narrows_them():
    """400 deals (normal max-|Z| quantile path), three fields, unequal games per deal."""
    field, pair, single, mean_ratio, max_ratio, _ = _coverage(
        400, [0.04, 0.0, -0.02], COVERAGE_REPLICATIONS, seed=16, unequal=True)
    assert 0.925 <= field <= 0.975, field
    assert 0.925 <= pair <= 0.975, pair
    assert 0.925 <= single <= 0.975, single
    # The shared deal term (variance 0.053 per deal against 0.02 from the games) cancels from
    # the paired difference: about half the width of two independent intervals.
    assert mean_ratio < 0.7, mean_ratio
    assert max_ratio < 1.0, max_ratio


@pytest.mark.slow
def test_intervals_cover_with_sixty_deals():
    """60 deals: the simulated max-|t| critical value (estimated covariance)."""
    field, pair, single, mean_ratio, _, _ = _coverage(
        60, [0.04, 0.0, -0.02], COVERAGE_REPLICATIONS, seed=17)
    assert 0.925 <= field <= 0.975, field
    assert 0.925 <= pair <= 0.975, pair
    assert 0.925 <= single <= 0.975, single
    assert mean_ratio < 0.7, mean_ratio


def test_few_deals_are_undecided_but_the_intervals_still_cover():
    """6 deals: no verdict, and the t-based intervals (5 degrees of freedom) still cover."""
    field, pair, single, _, _, verdicts = _coverage(
        6, [0.04, 0.0], COVERAGE_REPLICATIONS, seed=18)
    assert set(verdicts) == {UNDECIDED}
    assert field >= 0.925, field
    assert pair >= 0.925, pair
    assert single >= 0.925, single


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(("values", "counts", "names", "margin", "message"), [
    (np.zeros((5, 2)), np.ones((5, 3)), ["a", "b"], 0.02, "same shape"),
    (np.zeros(5), np.ones(5), ["a"], 0.02, "same shape"),
    (np.zeros((5, 1)), np.ones((5, 1)), ["a"], 0.02, "at least 2 fields"),
    (np.zeros((5, 2)), np.ones((5, 2)), ["a"], 0.02, "field names"),
    (np.zeros((5, 2)), np.ones((5, 2)), ["a", "a"], 0.02, "field names"),
    (np.zeros((5, 2)), np.column_stack([np.ones(5), np.zeros(5)]), ["a", "b"], 0.02,
     "no count in field b"),
    (np.zeros((5, 2)), -np.ones((5, 2)), ["a", "b"], 0.02, "negative"),
    (np.full((5, 2), np.nan), np.ones((5, 2)), ["a", "b"], 0.02, "finite"),
    (np.zeros((5, 2)), np.ones((5, 2)), ["a", "b"], -0.01, "margin"),
])
def test_bad_input_is_a_one_line_input_error(values, counts, names, margin, message):
    with pytest.raises(InputError, match=message) as error:
        judge_across_fields(values, counts, names, margin)
    assert "\n" not in str(error.value)


def test_paired_difference_rejects_mismatched_deals():
    with pytest.raises(InputError, match="same deals"):
        paired_difference(np.zeros(5), np.ones(5), np.zeros(4), np.ones(4))
    with pytest.raises(InputError, match="no count in field b"):
        paired_difference(np.zeros(5), np.ones(5), np.zeros(5), np.zeros(5))


def test_sentence_prints_no_negative_zero():
    values = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, 1.0]] * 4)
    values[0, 1] -= 0.001  # style a hair below strong
    counts = np.full(values.shape, 2.0)
    sentence = judge_across_fields(values, counts, ["strong", "style"], MARGIN).sentence(
        "the gap", "points", 100)
    assert "-0.0 " not in sentence and "strong minus style +0.0 (" in sentence


# ---------------------------------------------------------------- contrasts, levels, families


def test_field_contrast_with_minus_without_by_hand():
    """Two columns per field (deals with an item, deals without) and the contrast [1, -1]:
    field a (3 + 1) / 2 - (2 + 0) / 2 = 1, field b (1 + 1) / 2 - (0 + 2) / 2 = 0. The estimate
    equals the contrast of the ratio means, and the standard error its linearised CR1 one."""
    # Deals 1 and 3 have the item, 2 and 4 do not; one player-game per deal and column used.
    values = np.array([[3.0, 0.0, 1.0, 0.0], [0.0, 2.0, 0.0, 0.0],
                       [1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 2.0]])
    counts = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0],
                       [1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 0.0, 1.0]])
    contrast = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    judgement = judge_across_fields(values, counts, ["a", "b"], 1.0, field_contrast=contrast)
    np.testing.assert_allclose(judgement.estimates, [1.0, 0.0])
    np.testing.assert_allclose(judgement.pair_estimates, [1.0])
    means = ratio_means(values, counts)
    expected = contrast @ means.covariance @ contrast.T
    np.testing.assert_allclose(judgement.standard_errors, np.sqrt(np.diag(expected)))
    pair = np.array([1.0, -1.0]) @ contrast
    np.testing.assert_allclose(judgement.pair_standard_errors,
                               [np.sqrt(pair @ means.covariance @ pair)])
    assert judgement.clusters == 4 and judgement.kind == KIND_EFFECT


def test_contrast_path_recovers_a_deal_set_effect():
    """Per deal, the item is present with probability 1/3; field a's score is +0.5 in deals
    with it, field b's unchanged, and a deal term shared by both fields: "holds in a only"
    (b within the margin of 0.2)."""
    rng = np.random.default_rng(21)
    deals = 3000
    present = rng.uniform(size=deals) < 1 / 3
    deal_term = rng.normal(0.0, 1.0, deals)
    games = 4
    sums = [games * (deal_term + effect * present) + rng.normal(0.0, 1.0, (deals,)) * 2
            for effect in (0.5, 0.0)]
    values = np.column_stack([np.where(present, sums[0], 0), np.where(present, 0, sums[0]),
                              np.where(present, sums[1], 0), np.where(present, 0, sums[1])])
    counts = np.column_stack([present * games, ~present * games] * 2).astype(float)
    contrast = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    judgement = judge_across_fields(values, counts, ["a", "b"], 0.2, field_contrast=contrast)
    assert judgement.verdict == "holds in a only"
    # The deal term is shared and cancels from the paired difference: about half the standard
    # error of the difference of two independent fields' estimates.
    assert judgement.pair_standard_errors[0] < 0.6 * np.hypot(*judgement.standard_errors)


def _level_values(rng, deals, levels, games=4, deal_sd=1.0, noise=1.0):
    """Per-deal sums of a level (e.g. a game length) in each field, sharing a deal term."""
    deal_term = rng.normal(0.0, deal_sd, deals)
    values = np.column_stack([games * (level + deal_term)
                              + rng.normal(0.0, noise * np.sqrt(games), deals)
                              for level in levels])
    return values, np.full(values.shape, float(games))


def test_level_kind_same_differs_and_undecided():
    rng = np.random.default_rng(22)
    values, counts = _level_values(rng, 2000, [20.0, 20.0, 20.0])
    same = judge_across_fields(values, counts, THREE_FIELDS, 0.5, kind=KIND_LEVEL)
    assert (same.verdict, same.kind, same.direction, same.holding_fields) == (
        SAME_EVERYWHERE, KIND_LEVEL, 0, [])
    assert same.sentence("game length", "turns", digits=2).startswith(
        "game length is the same in every field (every paired difference within ±0.50 "
        "turns): strong 20.")
    values, counts = _level_values(rng, 2000, [20.0, 20.0, 21.0])
    differs = judge_across_fields(values, counts, THREE_FIELDS, 0.5, kind=KIND_LEVEL)
    assert differs.verdict == DIFFERS_BETWEEN
    # Level values are unsigned, differences signed.
    sentence = differs.sentence("game length", "turns", digits=1)
    assert sentence.startswith("game length differs between fields: strong 20.")
    assert "strong minus casual -1.0 (" in sentence
    # A detected difference smaller than the margin says both.
    values, counts = _level_values(rng, 4000, [20.0, 20.2], deal_sd=1.0, noise=0.5)
    small = judge_across_fields(values, counts, ["a", "b"], 0.5, kind=KIND_LEVEL)
    assert small.verdict == DIFFERS_BETWEEN
    assert small.sentence("length", "turns").startswith(
        "length differs between fields (every paired difference within ±0.5 turns)")
    # Too few deals to call the pair either way.
    values, counts = _level_values(rng, 40, [20.0, 20.0], noise=3.0)
    unclear = judge_across_fields(values, counts, ["a", "b"], 0.1, kind=KIND_LEVEL)
    assert unclear.verdict == UNDECIDED
    assert unclear.reason == "a minus b neither excludes 0 nor lies within the margin"
    values, counts = _level_values(rng, MIN_VERDICT_CLUSTERS - 1, [20.0, 25.0])
    few = judge_across_fields(values, counts, ["a", "b"], 0.5, kind=KIND_LEVEL)
    assert (few.verdict, few.reason) == (UNDECIDED, f"fewer than {MIN_VERDICT_CLUSTERS} deals")


def test_level_verdict_precedence_on_hand_made_intervals():
    pairs = [(0, 1), (0, 2), (1, 2)]
    names = ["a", "b", "c"]

    def judge(lows, highs, clusters=100):
        return _level_verdict(pairs, np.asarray(lows, float), np.asarray(highs, float), names,
                              0.5, clusters)

    assert judge([0.1, -0.2, -0.2], [0.3, 0.2, 0.2])[0] == DIFFERS_BETWEEN
    assert judge([-0.4, -0.2, -0.2], [0.3, 0.2, 0.2])[0] == SAME_EVERYWHERE
    # The band is open: touching the margin is not inside it.
    verdict, _, reason = judge([-0.5, -0.2, -0.2], [0.3, 0.2, 0.2])
    assert verdict == UNDECIDED and reason == ("a minus b neither excludes 0 nor lies within "
                                               "the margin")
    verdict, _, reason = judge([-0.9, -0.9, -0.2], [0.3, 0.2, 0.2])
    assert reason == "a minus b and a minus c neither exclude 0 nor lie within the margin"
    assert judge([0.1, 0.1, 0.1], [0.3, 0.3, 0.3], clusters=MIN_VERDICT_CLUSTERS - 1)[0] == \
        UNDECIDED


def test_level_coverage_of_the_paired_differences():
    """1,000 replications of 100 deals (simulated max-|t| path), three fields, levels 20, 20
    and 20.5: the pairs' family covers at 95 +- 2.5% (measured 93.9%)."""
    rng = np.random.default_rng(23)
    levels = np.array([20.0, 20.0, 20.5])
    hits = 0
    for _ in range(COVERAGE_REPLICATIONS):
        values, counts = _level_values(rng, 100, levels, deal_sd=2.0)
        judgement = judge_across_fields(values, counts, THREE_FIELDS, 0.5, kind=KIND_LEVEL)
        truth = np.array([levels[i] - levels[j] for i, j in judgement.pairs])
        hits += bool(((judgement.pair_lows <= truth) & (truth <= judgement.pair_highs)).all())
    assert 0.925 <= hits / COVERAGE_REPLICATIONS <= 0.975, hits


def test_judge_estimates_takes_any_covariance_and_clips_into_the_range():
    """A share estimated below 0 in one field is shown as 0 (its interval clipped at 0); the
    verdict and the intervals come from the given covariance and deal count."""
    covariance = np.array([[0.0004, 0.0003], [0.0003, 0.0004]])
    means = RatioMeans(np.array([-0.01, 0.2]), covariance, np.array([100.0, 100.0]), 400)
    judgement = judge_estimates(means, ["a", "b"], 0.05, kind=KIND_LEVEL,
                                value_range=(0.0, 1.0))
    np.testing.assert_allclose(judgement.estimates, [0.0, 0.2])
    assert judgement.lows[0] == 0.0 and judgement.highs[0] > 0.0
    # var(a - b) = 0.0004 + 0.0004 - 2 * 0.0003 = 0.0002; one pair: t on 399 df.
    np.testing.assert_allclose(judgement.pair_standard_errors, [np.sqrt(0.0002)])
    half = stats.t.ppf(0.975, 399) * np.sqrt(0.0002)
    np.testing.assert_allclose([judgement.pair_lows[0], judgement.pair_highs[0]],
                               [-0.21 - half, -0.21 + half])
    assert judgement.verdict == DIFFERS_BETWEEN and judgement.clusters == 400


def test_a_family_is_simultaneous_over_its_members():
    """Two findings judged as a family get wider intervals than each alone; a family of one is
    ``judge_estimates``."""
    rng = np.random.default_rng(24)
    values, counts = synthetic_fields(rng, 400, [0.02, 0.0, -0.01])
    other_values, _ = synthetic_fields(rng, 400, [0.0, 0.03, 0.0])
    means = ratio_means(np.column_stack([values, other_values]),
                        np.column_stack([counts, counts]))
    first = np.hstack([np.eye(3), np.zeros((3, 3))])
    second = np.hstack([np.zeros((3, 3)), np.eye(3)])
    family = judge_family(means, THREE_FIELDS, [first, second], MARGIN)
    alone = judge_estimates(means, THREE_FIELDS, MARGIN, field_contrast=first)
    assert [j.family for j in family] == [2, 2] and alone.family == 1
    np.testing.assert_allclose(family[0].estimates, alone.estimates)
    assert (family[0].highs - family[0].lows > alone.highs - alone.lows).all()
    assert (family[0].pair_highs - family[0].pair_lows
            > alone.pair_highs - alone.pair_lows).all()
    plain = judge_across_fields(values, counts, THREE_FIELDS, MARGIN)
    np.testing.assert_allclose(alone.lows, plain.lows)
    np.testing.assert_allclose(alone.pair_highs, plain.pair_highs)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"kind": "trend"}, "kind must be one of effect, level"),
    ({"field_contrast": np.ones((3, 4))}, "field contrast must be a finite"),
    ({"field_contrast": np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, np.nan]])},
     "field contrast must be a finite"),
])
def test_bad_contrast_or_kind_is_a_one_line_input_error(kwargs, message):
    columns = 4 if "field_contrast" in kwargs else 2
    values, counts = np.zeros((5, columns)), np.ones((5, columns))
    with pytest.raises(InputError, match=message) as error:
        judge_across_fields(values, counts, ["a", "b"], 0.02, **kwargs)
    assert "\n" not in str(error.value)


def test_an_empty_column_used_by_a_field_is_named():
    values, counts = np.zeros((5, 4)), np.ones((5, 4))
    counts[:, 3] = 0.0
    contrast = np.array([[1.0, -1.0, 0.0, 0.0], [0.0, 0.0, 1.0, -1.0]])
    with pytest.raises(InputError, match=r"no count in column 3 \(used by field b"):
        judge_across_fields(values, counts, ["a", "b"], 0.02, field_contrast=contrast)
    with pytest.raises(InputError, match="need a field contrast"):
        judge_estimates(ratio_means(values, np.ones((5, 4))), ["a", "b"], 0.02)


def test_undefined_estimates_or_covariance_give_no_interval():
    means = RatioMeans(np.array([0.1, 0.2]), np.full((2, 2), np.nan), np.ones(2), 50)
    judgement = judge_estimates(means, ["a", "b"], 0.05, kind=KIND_LEVEL)
    np.testing.assert_allclose(judgement.estimates, [0.1, 0.2])
    assert np.isnan(judgement.lows).all() and np.isnan(judgement.pair_highs).all()
    assert judgement.verdict == UNDECIDED and judgement.reason.startswith("no interval")
    assert "(no interval)" in judgement.sentence("the share", "percentage points", 100)
