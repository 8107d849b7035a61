"""The three findings the report opens with, chosen by a fixed rule and phrased for a designer.

Rule: the questions below are asked in order, about the player count (and rules setting) with the
most games, and the first three that the batch can answer are reported, whether the answer is
"yes, by this much" or "no detectable effect":

1. Is any seat favoured? (largest win-rate gap between seats, chi-square test of equal seats)
2. Does one strategy beat another? (head-to-head in shared games, else the mean-score gap)
3. How much of a player's score does the deal decide? (intraclass correlation over replays)
4. Which removed tile moves the score most? (Bonferroni-significant tile effects)
5. What is a light tile drawn worth? (slope of mean score on light tiles drawn)
6. What is holding the construction token once more worth?
7. How precise is the mean score, and how many games would +-0.1 point need?
"""

from __future__ import annotations

import polars as pl

from sim.stats.analysis import BatchAnalysis
from sim.stats.intervals import bonferroni_z

FINDINGS_RULE = (
    "The summary answers, in this order, the first three of these questions that the batch "
    "can answer, for the player count with the most games: is a seat favoured; does one strategy "
    "beat another; how much of a score the deal decides; which removed tile matters most; what a "
    "light tile is worth; what an extra turn with the construction token is worth; how precise "
    "the mean score is. Intervals are 95%; a gap chosen as the largest of several uses a "
    "simultaneous (Bonferroni) interval."
)


def format_p_value(p_value: float) -> str:
    """``p = 0.0029``, or ``p < 1e-300`` when the p-value underflows."""
    return "p < 1e-300" if p_value < 1e-300 else f"p = {p_value:.2g}"


def percent_range(low: float, high: float) -> str:
    """``26–31%``, with one decimal when the two would otherwise round together."""
    digits = 0 if 100 * (high - low) >= 2 else 1
    return f"{100 * low:.{digits}f}–{100 * high:.{digits}f}%"


def _panel(frame: pl.DataFrame | None, players: int, rules: str) -> pl.DataFrame | None:
    if frame is None or frame.is_empty():
        return None
    selected = frame.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    return selected if not selected.is_empty() else None


def _players_text(players: int, rules: str) -> str:
    return f"{players}-player games" + (f" with {rules}" if rules else "")


def seat_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Largest seat gap in win rate, with the test of equal seats."""
    tests = _panel(analysis.seat_tests, players, rules)
    if tests is None or players < 2:
        return None
    row = tests.row(0, named=True)
    if not row["balanced"]:
        return None
    seats = _panel(analysis.seats, players, rules)
    rate = dict(zip(seats["seat"], seats["win_rate"], strict=True))
    gap = 100 * row["win_gap"]
    half = 100 * (row["win_gap_high"] - row["win_gap"])
    where = f"{row['games']:,} {_players_text(players, rules)}"
    if row["p_value"] < 0.05:
        return (f"Seat {row['best_seat']} wins {gap:.1f} percentage points (±{half:.1f}) more "
                f"often than seat {row['worst_seat']}: {100 * rate[row['best_seat']]:.1f}% "
                f"against {100 * rate[row['worst_seat']]:.1f}% over {where} (test of equal "
                f"seats: {format_p_value(row['p_value'])}).")
    return (f"No seat is detectably favoured: the best seat ({row['best_seat']}) wins "
            f"{gap:.1f} (±{half:.1f}) percentage points more often than the worst "
            f"({row['worst_seat']}) over {where}, within chance "
            f"({format_p_value(row['p_value'])}).")


def strategy_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Best head-to-head record, or the mean-score gap between strategies."""
    matrix = _panel(analysis.head_to_head, players, rules)
    if matrix is not None:
        row = matrix.sort("ahead_rate", descending=True).row(0, named=True)
        half = 100 * max(row["ahead_rate_high"] - row["ahead_rate"],
                         row["ahead_rate"] - row["ahead_rate_low"])
        rate = 100 * row["ahead_rate"]
        if row["ahead_rate_low"] > 0.5:
            return (f"{row['strategy']} finishes ahead of {row['opponent']} in {rate:.1f}% "
                    f"(±{half:.1f}) of their meetings at the same table "
                    f"({row['games']:,} {_players_text(players, rules)}).")
        return (f"Neither strategy is detectably stronger: {row['strategy']} finishes ahead of "
                f"{row['opponent']} in {rate:.1f}% (±{half:.1f}) of their meetings.")
    gaps = _panel(analysis.strategy_gaps, players, rules)
    if gaps is None:
        return None
    row = gaps.row(0, named=True)
    half = row["score_gap_high"] - row["score_gap"]
    verdict = "" if row["score_gap_low"] > 0 else " (not a detectable difference)"
    return (f"{row['best']} scores {row['score_gap']:.1f} points (±{half:.1f}) more on average "
            f"than {row['worst']}{verdict}, in {_players_text(players, rules)}.")


def deal_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Share of a player's score variance decided by the deal."""
    variance = _panel(analysis.deal_variance, players, rules)
    if variance is None:
        return None
    pooled = variance.filter(pl.col("seat").is_null())
    if pooled.is_empty():
        return None
    row = pooled.row(0, named=True)
    low, high = max(row["icc_low"], 0.0), min(row["icc_high"], 1.0)
    digits = 0 if 100 * (high - low) >= 2 else 1
    return (f"The deal decides {100 * max(row['icc'], 0.0):.{digits}f}% (95% CI "
            f"{percent_range(low, high)}) of the variance of a player's score; the rest comes "
            f"from the players' own choices ({row['deals']:,} deals, each played "
            f"{row['games_per_deal']:.3g} times).")


def tile_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """The removed tile with the largest effect that survives a Bonferroni correction."""
    impact = _panel(analysis.tile_impact, players, rules)
    if impact is None:
        return None
    z_single = (impact["effect_high"] - impact["effect"]) / bonferroni_z(1)
    impact = impact.with_columns(z_score=(pl.col("effect") / z_single).abs())
    significant = impact.filter(pl.col("z_score") > bonferroni_z(impact.height))
    if significant.is_empty():
        row = impact.sort("z_score", descending=True).row(0, named=True)
        return (f"No single tile removed unseen moves the mean score detectably once all "
                f"{impact.height} tiles are compared (largest: tile {row['tile']}, "
                f"{row['effect']:+.2f} points).")
    row = significant.sort(pl.col("effect").abs(), descending=True).row(0, named=True)
    half = row["effect_high"] - row["effect"]
    return (f"Removing tile {row['tile']} unseen changes a player's mean score by "
            f"{row['effect']:+.2f} points (±{half:.2f}); it is the largest of the tile effects "
            f"that stand out among all {impact.height} tiles.")


def light_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Points per extra light tile drawn."""
    slope = _panel(analysis.light_slope, players, rules)
    if slope is None:
        return None
    row = slope.row(0, named=True)
    half = row["slope_high"] - row["slope"]
    return (f"Each extra light tile drawn changes a player's mean score by {row['slope']:+.2f} "
            f"points (±{half:.2f}), over {row['deals']:,} deals.")


def token_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """Worth of leading one more tree phase."""
    effect = _panel(analysis.token_effect, players, rules)
    if effect is None:
        return None
    row = effect.row(0, named=True)
    return (f"Holding the construction token for one more tree phase than the others is worth "
            f"{row['score_gap']:+.2f} points (±{row['score_gap_high'] - row['score_gap']:.2f}) "
            f"and {100 * row['win_gap']:+.1f} percentage points of win chance "
            f"(±{100 * (row['win_gap_high'] - row['win_gap']):.1f}).")


def precision_finding(analysis: BatchAnalysis, players: int, rules: str) -> str | None:
    """How precise the mean score is and what a tighter interval would cost."""
    needed = _panel(analysis.games_needed, players, rules)
    if needed is None:
        return None
    score = needed.filter(pl.col("metric") == "mean_score").sort("precision")
    row = score.row(0, named=True)
    return (f"The mean score is known to ±{row['half_width_now']:.2f} points after "
            f"{row['games_played']:,} games; ±{row['precision']:g} points would need about "
            f"{row['games_needed']:,} games.")


QUESTIONS = (seat_finding, strategy_finding, deal_finding, tile_finding, light_finding,
             token_finding, precision_finding)


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
