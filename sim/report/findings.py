"""The three findings the report opens with, chosen by a fixed rule and phrased for a designer.

Rule: the questions below are asked in order, about the player count (and rules setting) with the
most games, and the first three that the batch can answer are reported, whether the answer is
"yes, by this much" or "no detectable effect":

1. Is any seat favoured? (largest win-rate gap between seats, simultaneous interval, fairness
   verdict against a stated margin)
2. Is a card out of line? (a card taken from the offer shown too strong or too weak against
   the card margin; asked only when one is)
3. Is a card kept out of line? (e.g. a nature spirit shown too strong or too weak; the same)
4. Does one strategy beat another? (head-to-head in shared games, else the mean-score gap)
5. How much of a player's score does the deal decide? (intraclass correlation over replays)
6. How much does skill matter? (the strategy's share of the score's variance, the ladder)
7. Does the early leader just win? (the halfway leader's win rate, lead changes; traced
   batches)
8. Which removed item moves the score most? (Bonferroni-significant item effects; games that
   declare a ``RemovedItemsEffect``)
9. What is one more of a count the deal randomises worth? (the mean curve by the count; a slope
   only when a straight line fits; games that declare a ``RandomisedCountEffect``)
10. What is one more turn in a rotating role worth? (game and seat held fixed; games that
    declare a ``RotatingRoleAssociation``)
11. Which cards are strongest and weakest, when none is out of line? (the same for cards kept)
12. How precise is the mean score, and how many games would +-0.1 point need?

A finding claims a difference only when its interval (simultaneous where the difference was
picked as the largest of several) excludes zero; otherwise it says that no difference is
detectable and how large a difference the data rule out. Seats are counted from 1 (the first
player) in every sentence.
"""

from __future__ import annotations

import polars as pl
from scipy import stats

from sim.games.base import RandomisedCountEffect, RemovedItemsEffect, RotatingRoleAssociation
from sim.games.registry import get_game
from sim.report.numbers import shown_half
from sim.stats.analysis import BatchAnalysis
from sim.stats.cards import pooled as pooled_rows
from sim.stats.clustered import MIN_VERDICT_CLUSTERS
from sim.stats.intervals import proportion_interval
from sim.stats.variance import worded_count


def findings_rule(columns: set[str], game=None) -> str:
    """The rule that chose the findings, in words, naming only the questions a game with these
    result ``columns`` (and the card, trace and analysis hooks of ``game``) can ask (no removed
    items, count or rotating role for a game that declares none)."""
    cards = game.card_columns() if game is not None else None
    draft = game.draft_columns() if game is not None else None
    questions = ["is a seat favoured"]
    if cards is not None:
        questions.append(f"is an {cards.noun} out of line" if cards.noun[0] in "aeiou"
                         else f"is a {cards.noun} out of line")
    if draft is not None:
        questions.append(f"is a {draft.noun} out of line")
    questions += ["does one strategy beat another", "how much of a score the deal decides",
                  "how much skill matters"]
    if game is not None and game.supports_trace:
        questions.append("does the early leader just win (batches with the score trace)")
    removed, count, role = (game.analysis(kind) if game is not None else None
                            for kind in (RemovedItemsEffect, RandomisedCountEffect,
                                         RotatingRoleAssociation))
    if removed is not None and removed.column in columns:
        questions.append(f"which removed {removed.noun} matters most")
    if count is not None and count.column in columns:
        questions.append(f"what a {count.item} is worth")
    if role is not None and role.column in columns:
        questions.append(f"what an extra turn with the {role.noun} is worth")
    for spec in (cards, draft):
        if spec is not None:
            questions.append(f"which {spec.noun}s are strongest and weakest")
    questions.append("how precise the mean score is")
    return (
        "The summary answers, in this order, the first three of these questions that the batch "
        f"can answer, for the player count with the most games: {'; '.join(questions)}. "
        "Intervals are 95% and count the correlation of the seats of a game and "
        "of the replays of a deal; a gap chosen as the largest of several uses a simultaneous "
        "interval. A difference is claimed only when its interval excludes zero; otherwise the "
        "finding says how large a difference the data rule out. Seats are counted from 1, the "
        "first player."
    )


def simultaneous_z(comparisons: int, confidence: float = 0.95) -> float:
    """Bonferroni normal critical value for ``comparisons`` two-sided intervals at once."""
    return float(stats.norm.ppf(1.0 - (1.0 - confidence) / (2.0 * max(comparisons, 1))))


def format_p_value(p_value: float | None) -> str:
    """``p = 0.0029``, ``p < 1e-300`` when the p-value underflows, or "no p-value" when there
    is no test (too few independent units for the number of restrictions)."""
    if p_value is None or p_value != p_value:
        return "no p-value (too few independent units for this test)"
    return "p < 1e-300" if p_value < 1e-300 else f"p = {p_value:.2g}"


def percent_range(low: float | None, high: float | None) -> str:
    """``26–31%``, with one decimal when the two would otherwise round together; "no interval"
    when a bound is missing. The bounds are proportions (callers give intervals that stay
    within 0-1, e.g. ``sim.stats.intervals.proportion_interval``)."""
    if low is None or high is None or low != low or high != high:
        return "no interval"
    digits = 0 if 100 * (high - low) >= 2 else 1
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}%"


def declared(analysis: BatchAnalysis, kind: type):
    """The analysis of ``kind`` that the batch's game declares (``Game.analysis``), or None
    (also for an analysis without a batch, as tests build)."""
    batch = getattr(analysis, "batch", None)
    return get_game(batch.game).analysis(kind) if batch is not None else None


def count_effect_of(analysis: BatchAnalysis) -> RandomisedCountEffect:
    """The randomised count of the analysis's count table: its game's declaration, else one
    worded by the table's count column."""
    return declared(analysis, RandomisedCountEffect) or worded_count(analysis.count_table)


def panel_rows(frame: pl.DataFrame | None, players: int, rules: str) -> pl.DataFrame | None:
    """The rows of a (players, rules) panel of a table, None when it has none."""
    if frame is None or frame.is_empty():
        return None
    selected = frame.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    return selected if not selected.is_empty() else None


def pooled_estimates(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    """The rows of a card or draft effects table pooled over strategies and seats that have an
    estimate per card (the verdict rows), None when there are none."""
    if frame is None:
        return None
    frame = pooled_rows(frame).filter(pl.col("score_per_card").is_not_null()) \
        if "score_per_card" in frame.columns else frame
    return frame if not frame.is_empty() else None


def _players_text(players: int, rules: str) -> str:
    return f"{players}-player games" + (f" with {rules}" if rules else "")


VERDICT_WORDS = {
    "fair": "fair: every gap between two seats' win rates is shown to lie within "
            "±{margin:g} percentage points",
    "unfair": "unfair: a gap between two seats' win rates is shown to exceed {margin:g} "
              "percentage points",
    "undecided": "undecided: the data cannot yet tell whether every gap between two seats' "
                 "win rates lies within ±{margin:g} percentage points (play more games)",
}


def verdict_text(verdict: str, margin: float) -> str:
    """The fairness verdict in words, with the margin in percentage points."""
    return VERDICT_WORDS[verdict].format(margin=100 * margin)


def seat_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Largest seat gap in win rate, with the test of equal seats and the fairness verdict."""
    tests = panel_rows(analysis.seat_tests, players, rules)
    if tests is None or players < 2:
        return None
    row = tests.row(0, named=True)
    if row["best_seat"] is None:
        return None
    if row.get("reason"):
        return (f"No seat verdict for {_players_text(players, rules)}: {row['reason']}.")
    basis = ("with the lineup held fixed by a model with a term for the strategy in each seat"
             if row.get("method") == "lineup model" else
             "in a design balanced by construction (every seat faces the same strategies)")
    seats = panel_rows(analysis.seats, players, rules)
    rate = dict(zip(seats["seat"], seats["win_rate"], strict=True))
    gap = 100 * row["win_gap"]
    half = 100 * (row["win_gap_high"] - row["win_gap"])
    where = f"{row['games']:,} {_players_text(players, rules)}"
    verdict = verdict_text(row["verdict"], row["fair_margin"])
    best, worst = row["best_seat"] + 1, row["worst_seat"] + 1
    if row["win_gap_low"] > 0:
        return (f"Seat {best} wins {gap:.1f} percentage points (±{shown_half(half, 1)}"
                f") more often than "
                f"seat {worst}: {100 * rate[row['best_seat']]:.1f}% against "
                f"{100 * rate[row['worst_seat']]:.1f}% over {where} (test of equal seats: "
                f"{format_p_value(row['p_value'])}; {basis}). Seats are {verdict}.")
    return (f"No seat is detectably favoured over {where}: the largest gap, seat {best} over "
            f"seat {worst}, is {gap:.1f} (±{shown_half(half, 1)}"
            f") percentage points, and the data rule out "
            f"a gap larger than {100 * row['win_gap_bound']:.1f} points between any two seats "
            f"(test of equal seats: {format_p_value(row['p_value'])}; {basis}). Seats are "
            f"{verdict}.")


def strategy_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Best head-to-head record (simultaneous over the pairs), or the mean-score gap."""
    matrix = panel_rows(analysis.head_to_head, players, rules)
    if matrix is not None:
        pairs = max(matrix.height // 2, 1)
        row = matrix.sort(["ahead_rate", "strategy"], descending=[True, False]).row(0, named=True)
        # The best record is picked after looking: a Bonferroni level over the pairs, and the
        # clustered Wilson interval, which stays inside 0-100%.
        family = 1.0 - 2.0 * float(stats.norm.sf(simultaneous_z(pairs)))
        low, high = (100 * float(bound) for bound in proportion_interval(
            row["ahead_rate"], row["ahead_rate_se"], row["ahead_rate_clusters"], row["games"],
            family))
        rate = 100 * row["ahead_rate"]
        where = f"{row['games']:,} {_players_text(players, rules)}"
        if low > 50.0:
            return (f"{row['strategy']} finishes ahead of {row['opponent']} in {rate:.1f}% "
                    f"({low:.1f}–{high:.1f}%, simultaneous over the pairs) of their meetings at "
                    f"the same table ({where}).")
        return (f"Neither strategy is shown to be stronger: {row['strategy']} finishes ahead of "
                f"{row['opponent']} in {rate:.1f}% ({low:.1f}–{high:.1f}%) of their meetings "
                f"({where}); the data rule out a record better than {high:.1f}%.")
    gaps = panel_rows(analysis.strategy_gaps, players, rules)
    if gaps is None:
        return None
    row = gaps.row(0, named=True)
    half = row["score_gap_high"] - row["score_gap"]
    if row["score_gap_low"] > 0:
        return (f"{row['best']} scores {row['score_gap']:.1f} points (±{shown_half(half, 1)}"
                f") more on "
                f"average than {row['worst']}, in {_players_text(players, rules)}.")
    return (f"No strategy scores detectably more than another in "
            f"{_players_text(players, rules)}: the largest gap, {row['best']} over "
            f"{row['worst']}, is {row['score_gap']:.1f} points (±{shown_half(half, 1)}"
            f"); the data rule out "
            f"a gap larger than {row['score_gap_bound']:.1f} points between any two.")


def deal_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Share of a player's score variance decided by the deal."""
    variance = panel_rows(analysis.deal_variance, players, rules)
    if variance is None:
        return None
    pooled = variance.filter(pl.col("seat").is_null())
    if pooled.is_empty():
        return None
    row = pooled.row(0, named=True)
    low, high = max(row["icc_low"], 0.0), min(row["icc_high"], 1.0)
    digits = 0 if 100 * (high - low) >= 2 else 1
    return (f"The deal decides {100 * max(row['icc'], 0.0):.{digits}f}% (95% CI "
            f"{percent_range(low, high)}) of the variance of a player's score with the "
            f"strategy and the seat fixed; the rest varies between replays of the same deal "
            f"(the strategies' random choices and tie-breaks) ({row['deals']:,} deals, each "
            f"played {row['games_per_deal']:.3g} times).")


def tile_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """The removed item with the largest effect that survives a Bonferroni correction."""
    impact = panel_rows(analysis.removed_items, players, rules)
    if impact is None:
        return None
    noun = (declared(analysis, RemovedItemsEffect) or RemovedItemsEffect("", "item")).noun
    critical = simultaneous_z(impact.height)
    impact = impact.with_columns(z_score=(pl.col("effect") / pl.col("effect_se")).abs())
    significant = impact.filter(pl.col("z_score") > critical)
    if significant.is_empty():
        bound = float((impact["effect"].abs() + critical * impact["effect_se"]).max())
        row = impact.sort("z_score", descending=True).row(0, named=True)
        return (f"No single {noun} removed unseen moves the mean score detectably once all "
                f"{impact.height} {noun}s are compared (largest: {noun} {row['tile']}, "
                f"{row['effect']:+.2f} points); the data rule out an effect larger than "
                f"{bound:.2f} points for any {noun}.")
    row = significant.sort(pl.col("effect").abs(), descending=True).row(0, named=True)
    half = critical * row["effect_se"]
    return (f"Removing {noun} {row['tile']} unseen changes a player's mean score by "
            f"{row['effect']:+.2f} points (±{shown_half(half, 2)}"
            f", simultaneous over all {impact.height} "
            f"{noun}s, holding the other removed {noun}s fixed); it is the largest of the "
            f"{noun} "
            f"effects that stand out.")


def light_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """What one more of the randomised count is worth: a slope when a line fits, else the
    curve's shape."""
    fit = panel_rows(analysis.count_fit, players, rules)
    if fit is None:
        return None
    row = fit.row(0, named=True)
    count = count_effect_of(analysis)
    if row["linear"]:
        half = row["slope_high"] - row["slope"]
        claim = ("changes" if row["slope_low"] > 0 or row["slope_high"] < 0
                 else "does not detectably change")
        return (f"Each extra {count.singular} {claim} a player's mean score: "
                f"{row['slope']:+.2f} points (±{shown_half(half, 2)}"
                f") per {count.unit}, over {row['deals']:,} deals "
                f"(a straight line fits the means by count: lack-of-fit "
                f"{format_p_value(row['lack_of_fit_p'])}).")
    table = panel_rows(analysis.count_table, players, rules).sort(count.column)
    first, last = table.row(0, named=True), table.row(table.height - 1, named=True)
    peak_half = row["peak_high"] - row["peak_mean"]
    text = (f"{count.noun.capitalize()} do not add points at a constant rate (lack-of-fit "
            f"F = {row['lack_of_fit_f']:.0f}, {format_p_value(row['lack_of_fit_p'])}): the mean "
            f"score goes from {first['mean']:.1f} with {first[count.column]} {count.item}s "
            f"to a peak of {row['peak_mean']:.1f} (±{shown_half(peak_half, 2)}"
            f") with {row['peak_count']}, "
            f"and is {last['mean']:.1f} with {last[count.column]}")
    if row["step"] == row["step"]:  # not NaN
        step_half = row["step_high"] - row["step"]
        moves = ("changes it by" if row["step_low"] > 0 or row["step_high"] < 0
                 else "does not detectably change it:")
        text += (f"; at the most common count, {row['common_count']}, one more {count.item} "
                 f"{moves} {row['step']:+.2f} points (±{shown_half(step_half, 2)})")
    return text + "."


def token_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Worth of one more turn in the rotating role, with the game and the seat held fixed."""
    effect = panel_rows(analysis.role_effect, players, rules)
    if effect is None:
        return None
    row = effect.row(0, named=True)
    role = declared(analysis, RotatingRoleAssociation)
    score_half = row["score_gap_high"] - row["score_gap"]
    win_half = 100 * (row["win_gap_high"] - row["win_gap"])
    if row["score_gap_low"] > 0 or row["score_gap_high"] < 0:
        return (f"Holding the {role.noun} for one more {role.turn} is worth "
                f"{row['score_gap']:+.2f} points (±{shown_half(score_half, 2)}) and "
                f"{100 * row['win_gap']:+.1f} percentage points of win chance "
                f"(±{shown_half(win_half, 1)}), "
                f"with the game and the seat held fixed.")
    bound = max(abs(row["score_gap_low"]), abs(row["score_gap_high"]))
    return (f"Leading one more {role.turn} with the {role.noun} has no detectable effect "
            f"once the seat is held fixed: {row['score_gap']:+.2f} points "
            f"(±{shown_half(score_half, 2)}); "
            f"the data rule out an effect larger than {bound:.2f} points.")


def precision_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """How precise the mean score is and what a tighter interval would cost."""
    needed = panel_rows(analysis.games_needed, players, rules)
    if needed is None:
        return None
    score = needed.filter(pl.col("metric") == "mean_score").sort("precision")
    row = score.row(0, named=True)
    text = (f"The mean score is known to ±{shown_half(row['half_width_now'], 2)} points after "
            f"{row['games_played']:,} games; ±{row['precision']:g} points would need about "
            f"{row['games_needed']:,} games.")
    running = panel_rows(analysis.running, players, rules)
    units = int(running["units"].max()) if running is not None else 0
    if units < MIN_VERDICT_CLUSTERS:
        unit = analysis.batch.cluster_unit
        text += (f" Both rest on only {units} {unit}{'s' if units != 1 else ''} as independent "
                 f"units (fewer than {MIN_VERDICT_CLUSTERS}), so they are rough.")
    return text


def _card_noun(analysis: BatchAnalysis, draft: bool) -> str:
    game = get_game(analysis.batch.game)
    spec = game.draft_columns() if draft else game.card_columns()
    return spec.noun if spec is not None else "card"


def _card_sentence(row: dict, noun: str, flagged: bool, draft: bool = False) -> str:
    """A card's randomised estimate in words: what holding (keeping) it is worth per card, from
    what the deal randomises (the opening face-up row; the cards dealt)."""
    verb, chooser = ("keeping", "keeps") if draft else ("holding", "holds")
    source = "being dealt it" if draft else "its lying in the opening face-up row"
    words = {"strong": " is too strong", "weak": " is too weak"}.get(row["verdict"] or "", "")
    head = (f"{noun.capitalize()} {row['card']}{words}: " if flagged
            else f"{noun.capitalize()} {row['card']}: ")
    low, high = row["score_per_card_low"], row["score_per_card_high"]
    if low is not None and high is not None and float("-inf") < low and high < float("inf"):
        value = (f"{verb} it is worth {row['score_per_card']:+.1f} points against the average "
                 f"{noun} (simultaneous 95% interval {low:+.1f} to {high:+.1f})")
    else:
        value = (f"no interval for {verb} it (the deal barely changes who {chooser} it: "
                 f"first-stage F = {row['first_stage_f']:.1f})")
    itt_half = max(row["score_effect_high"] - row["score_effect"],
                   row["score_effect"] - row["score_effect_low"])
    return (head + value + f", estimated through {source} ({row['score_effect']:+.1f} points "
            f"±{shown_half(itt_half, 1)} to the player)")


def _verdict_rows(analysis: BatchAnalysis, players: int, rules: str,
                  draft: bool) -> tuple[pl.DataFrame | None, str]:
    """The panel's rows of the card effects (``draft``: of the kept cards' effects) pooled over
    strategies and seats (the verdict rows; None when there are none), and the game's noun
    for those cards."""
    effects = panel_rows(analysis.draft_effects if draft else analysis.card_effects, players,
                         rules)
    return pooled_estimates(effects), _card_noun(analysis, draft)


def card_alarm_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """A card taken from the offer shown too strong or too weak (the largest effect per card
    held), from the opening face-up row the deal lays out."""
    return _alarm(analysis, players, rules, draft=False)


def draft_alarm_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """A card kept (e.g. a nature spirit) shown too strong or too weak, through the deal."""
    return _alarm(analysis, players, rules, draft=True)


def _alarm(analysis: BatchAnalysis, players: int, rules: str, draft: bool) -> str | None:
    effects, noun = _verdict_rows(analysis, players, rules, draft)
    if effects is None:
        return None
    flagged = effects.filter(pl.col("verdict").is_in(["strong", "weak"]))
    if flagged.is_empty():
        return None
    row = flagged.sort(pl.col("score_per_card").abs(), descending=True).row(0, named=True)
    others = flagged.height - 1
    return (_card_sentence(row, noun, True, draft)
            + f" (beyond the ±{row['margin']:g}-point margin)"
            + (f"; {others} more {noun}{'s are' if others > 1 else ' is'} out of line"
               if others else "") + ".")


def skill_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """The strategy's share of the score's variance, and the ladder's ends."""
    split = panel_rows(analysis.variance_split, players, rules)
    if split is None:
        return None
    field = split.filter(pl.col("field") == "this field")
    if field.is_empty():
        return None
    rows = {r["component"]: r for r in field.iter_rows(named=True)}
    strategy = rows["strategy"]
    # The deal's share is left to the deal finding (the ICC): one deal share in the report.
    text = (f"Skill, for this field of players: the choice of strategy accounts for "
            f"{100 * strategy['share']:.1f}% (95% CI "
            f"{percent_range(strategy['share_low'], strategy['share_high'])}) of the "
            f"variance of a player's score in {_players_text(players, rules)} (these bots, "
            f"not the game: another field splits differently)")
    own = {r["component"]: r for r in split.filter(pl.col("field") == "strongest")
           .iter_rows(named=True)}
    if own:
        name = own["rest"]["field_strategy"]
        text += (f"; over {name}'s own player-games (the strongest, strategy fixed) "
                 f"{100 * own['rest']['share']:.0f}% of its score's variance varies between "
                 f"replays of the same deal")
    ladder = panel_rows(analysis.ladder, players, rules)
    if ladder is not None:
        ladder = ladder.sort("place")
        weakest, strongest = ladder.row(0, named=True), ladder.row(ladder.height - 1, named=True)
        text += (f"; on the ladder by rank (the game's tie-break) {strongest['strategy']} is "
                 f"rated {strongest['rating'] - weakest['rating']:.0f} Elo points above "
                 f"{weakest['strategy']}")
    return text + "."


def unfolding_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """How often the halfway leader wins, and how often the lead changes."""
    if analysis.unfolding is None:
        return None
    summary = panel_rows(analysis.unfolding["summary"], players, rules)
    if summary is None or summary["halfway_leader_win_rate"][0] is None:
        return None
    row = summary.row(0, named=True)
    step = get_game(analysis.batch.game).trace_step
    rate, low, high = (row["halfway_leader_win_rate"], row["halfway_leader_win_rate_low"],
                       row["halfway_leader_win_rate_high"])
    gained, gained_low, gained_high = (100 * row["halfway_information"],
                                       100 * row["halfway_information_low"],
                                       100 * row["halfway_information_high"])
    if gained_low != gained_low:  # NaN: a single deal, no interval
        return None
    interval = f"95% CI {gained_low:+.1f} to {gained_high:+.1f}"
    if gained_low > 0 or gained_high < 0:
        information = (f"the lead goes with {abs(gained):.1f} percentage points "
                       f"{'more' if gained > 0 else 'fewer'} wins ({interval}) than its "
                       f"strategy at its seat predicts")
    else:
        information = (f"the lead gives no detectable information beyond its strategy at its "
                       f"seat ({gained:+.1f} percentage points, {interval})")
    return (f"The leader at halfway (after {step} ceil(L/2) of a game of L {step}s) goes on to "
            f"win {100 * rate:.1f}% (95% CI {percent_range(low, high)}) of "
            f"{_players_text(players, rules)}, where the leader's strategy at its seat wins "
            f"{100 * row['halfway_leader_expected']:.1f}% of its games anyway: {information}; "
            f"the lead changes {row['lead_changes']:.2f} times per game and the winner takes "
            f"the lead for good after {step} {row['decisive_step']:.1f} on average (of "
            f"{row['steps_mean']:.1f}).")


def card_overview_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """The strongest and weakest card per card held when none is out of line."""
    return _overview(analysis, players, rules, draft=False)


def draft_overview_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """The strongest and weakest card kept when none is out of line."""
    return _overview(analysis, players, rules, draft=True)


def _overview(analysis: BatchAnalysis, players: int, rules: str, draft: bool) -> str | None:
    effects, noun = _verdict_rows(analysis, players, rules, draft)
    if effects is None:
        return None
    ranked = effects.sort(["score_per_card", "card"], descending=[True, False])
    margin = ranked["margin"][0]
    if ranked["verdict"].is_null().all():
        return (f"No verdict on the {noun}s: {ranked['verdict_reason'][0]}.")
    undecided = ranked.filter(pl.col("verdict") == "undecided").height
    return (f"No {noun} is shown out of line against ±{margin:g} points "
            f"({undecided} of {ranked.height} undecided): the strongest, "
            + _card_sentence(ranked.row(0, named=True), noun, False, draft)
            + "; the weakest, " + _card_sentence(ranked.row(ranked.height - 1, named=True),
                                                  noun, False, draft) + ".")


QUESTIONS = (seat_finding, card_alarm_finding, draft_alarm_finding, strategy_finding,
             deal_finding, skill_finding, unfolding_finding, tile_finding, light_finding,
             token_finding, card_overview_finding, draft_overview_finding, precision_finding)


def choose_findings(analysis: BatchAnalysis, count: int = 3) -> list[str]:
    """The first ``count`` answers to ``QUESTIONS`` that the batch supports."""
    players, rules = analysis.main_panel()
    findings = []
    for question in QUESTIONS:
        answer = question(analysis, players, rules)
        if answer is not None:
            findings.append(answer)
        if len(findings) == count:
            break
    return findings
