"""The skill ladder: every strategy of a game rated in one rotated tournament on common deals.

Strategies are rated with the tournament's Bradley-Terry model (``sim.tournament``: pairwise
outcomes within games, ties half, Elo scale, mean 0, a 95% deal-bootstrap interval) and shown
weakest to strongest with their mean score and win rate (95% CIs by deal). Tiers split the
ladder where two neighbours' rating intervals do not overlap: the lowest tier is the "casual"
field, the highest the "expert" one (a designer picks a field for a balance question from them).

Slow strategies (e.g. a Monte-Carlo player) may be left out, or play fewer games: they then
meet every other strategy in a second rotated tournament of ``slow_games`` games on the first
deals of the same seed, and one Bradley-Terry model is fitted to the pairwise outcomes of both
tournaments together (the deals they share are one cluster in the bootstrap), so every rating is
on one scale. Their mean score and win rate come from the second tournament (another field) and
say so.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sim.distributed import backend_session, check_backend
from sim.errors import InputError
from sim.games.base import Game, StrategySpec
from sim.profile import profile_markdown
from sim.tournament import (
    TournamentResult,
    analyse,
    bradley_terry,
    elo_ratings,
    lineup_count,
    pair_outcomes,
    play_rotations,
    rating_intervals,
)

TIER_NAMES = ("casual", "intermediate", "expert")


@dataclass
class LadderRow:
    """One strategy's rung."""

    label: str
    rating: float
    rating_low: float
    rating_high: float
    score_mean: float
    score_ci: float
    win_rate: float
    win_ci: float
    seat_games: int
    slow: bool = False
    tier: int = 0
    hint: str = ""


@dataclass
class LadderResult:
    """The ladder, weakest first, with the tournaments it came from."""

    game_title: str
    players: int
    rules: dict[str, int]
    seed: int
    rows: list[LadderRow]
    tiers: int
    main: TournamentResult
    slow_games: int = 0
    slow_seconds: float = 0.0
    excluded: list[str] = field(default_factory=list)
    # "What the bots play like" for the main tournament (``sim.profile.profile_markdown``).
    profile: str = ""
    # Seconds this process took, before the main tournament, to compile the kernels (or load
    # them from numba's cache): kept out of the tournament's time and games/s.
    warmup_seconds: float = 0.0

    def table(self) -> str:
        """The printed ladder."""
        width = max(8, *(len(row.label) for row in self.rows))
        rules = ", ".join(f"{k}={v}" for k, v in self.rules.items()) or "defaults"
        lines = [f"{self.game_title} skill ladder: {self.players} players, rules {rules}, "
                 f"seed {self.seed}",
                 f"main tournament: {self.main.games:,} games = {self.main.deals:,} deals x "
                 f"{lineup_count(len(self.main.labels), self.players)} seat rotations "
                 f"({self.main.seconds:.1f} s, "
                 f"{self.main.games / max(self.main.seconds, 1e-9):,.0f} games/s; compiling "
                 f"or loading the kernels first took {self.warmup_seconds:.1f} s, not counted)"]
        if any(row.slow for row in self.rows):
            slow = [row.label for row in self.rows if row.slow]
            lines.append(f"slow strategies ({', '.join(slow)}): {self.slow_games:,} games in a "
                         f"second rotated tournament with every strategy on the first deals "
                         f"({self.slow_seconds:.1f} s); ratings from one Bradley-Terry fit of "
                         f"both, their score and win rate from the second (another field: *)")
        if self.excluded:
            lines.append(f"left out: {', '.join(self.excluded)}")
        lines.append("rating: Bradley-Terry on pairwise outcomes within games (ties half), Elo "
                     "scale, mean 0, 95% deal-bootstrap interval; score and win rate 95% CIs "
                     "from per-deal means")
        lines.append("tiers: a new tier starts where two neighbours' rating intervals do not "
                     "overlap")
        lines.append("")
        lines.append(f"{'rung':>4s}  {'strategy':{width}s}  {'rating (95% CI)':>19s}  "
                     f"{'mean score (95% CI)':>19s}  {'win rate (95% CI)':>17s}  tier")
        for rung, row in enumerate(self.rows, start=1):
            star = "*" if row.slow else " "
            lines.append(f"{rung:4d}  {row.label:{width}s}  {row.rating:6.0f} "
                         f"({row.rating_low:5.0f} to {row.rating_high:5.0f})  "
                         f"{row.score_mean:8.2f} ± {row.score_ci:5.2f}{star}   "
                         f"{100 * row.win_rate:5.1f}% ± {100 * _nan0(row.win_ci):4.1f}%{star} "
                         f" {row.tier + 1} {row.hint}")
        lines.append("")
        lines.append(self.hint_text())
        return "\n".join(lines)

    def hint_text(self) -> str:
        """Which strategies make a casual and an expert field."""
        if self.tiers == 1:
            return ("one tier: the rating intervals of neighbours overlap all the way up; play "
                    "more games to separate them")
        casual = [row.label for row in self.rows if row.tier == 0]
        expert = [row.label for row in self.rows if row.tier == self.tiers - 1]
        return (f"casual field: {', '.join(casual)}; expert field: {', '.join(expert)} "
                f"({self.tiers} tiers)")

    def markdown(self) -> str:
        """The ladder as a markdown document (with the main tournament's full table)."""
        lines = [f"# {self.game_title} skill ladder, {self.players} players", "",
                 "```", self.table(), "```", "", "![ladder](ladder.png)", "",
                 "## The main tournament", "", "```", self.main.table(), "```", ""]
        if self.profile:
            lines.append(self.profile)
        return "\n".join(lines)


def _nan0(value: float) -> float:
    return 0.0 if math.isnan(value) else value


def assign_tiers(rows: list[LadderRow]) -> int:
    """Give every row (sorted weakest first) its tier and hint; returns the number of tiers."""
    tier = 0
    for index, row in enumerate(rows):
        if index > 0 and row.rating_low > rows[index - 1].rating_high:
            tier += 1
        row.tier = tier
    tiers = tier + 1
    for row in rows:
        if tiers == 1:
            row.hint = ""
        elif row.tier == 0:
            row.hint = TIER_NAMES[0]
        elif row.tier == tiers - 1:
            row.hint = TIER_NAMES[2]
        else:
            row.hint = TIER_NAMES[1]
    return tiers


def warm_up(game: Game, data, players: int, rules: dict[str, int],
            lineup: list[StrategySpec]) -> float:
    """Compile the kernels ``lineup``'s games run (or load them from numba's on-disk cache) in
    this process, by playing every strategy of it in one seat of a few games whose results are
    thrown away; returns the seconds it took. Worker processes then load the compiled kernels
    from the cache instead of compiling them while the tournament's clock runs."""
    tables = math.ceil(len(lineup) / players)
    seats = (np.arange(tables * players) % len(lineup)).reshape(tables, players)
    seeds = np.arange(tables, dtype=np.uint64)
    started = time.perf_counter()
    game.play_shard(data, players, rules, lineup, seats.astype(np.int64), seeds, seeds)
    return time.perf_counter() - started


def run_ladder(game: Game, data, players: int, rules: dict[str, int],
               lineup: list[StrategySpec], games: int, seed: int, workers: int = 1,
               slow: list[str] | None = None, slow_games: int = 0,
               progress: Callable[[int, int], None] | None = None, backend: str = "local",
               scheduler: str | None = None) -> LadderResult:
    """Play the ladder (module docstring). ``slow`` names lineup labels that play only the
    ``slow_games`` of the second tournament. Both tournaments play on ``workers`` local
    processes or on one dask cluster (``backend``, ``scheduler``: ``play_rotations``); the
    ladder does not depend on where it was played. The kernels are compiled first
    (``warm_up``), so the main tournament's games/s is the games' alone."""
    check_backend(backend, scheduler)
    labels = [spec.label() for spec in lineup]
    if len(set(labels)) != len(labels):
        raise InputError(f"--strategies: a strategy is listed twice ({', '.join(labels)})")
    slow = list(dict.fromkeys(slow or []))
    for name in slow:
        if name not in labels:
            raise InputError(f"--slow: '{name}' is not in the ladder ({', '.join(labels)})")
    fast = [spec for spec in lineup if spec.label() not in slow]
    if len(fast) < 2:
        raise InputError("--strategies: the ladder needs at least two strategies that are not "
                         "--slow")
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    if slow and slow_games < 1:
        raise InputError(f"--slow-games: must be at least 1, got {slow_games}")
    with backend_session(backend, workers, scheduler):
        return _play_ladder(game, data, players, rules, lineup, fast, games, seed, workers,
                            slow, slow_games, progress, backend, scheduler)


def _play_ladder(game: Game, data, players: int, rules: dict[str, int],
                 lineup: list[StrategySpec], fast: list[StrategySpec], games: int, seed: int,
                 workers: int, slow: list[str], slow_games: int,
                 progress: Callable[[int, int], None] | None, backend: str,
                 scheduler: str | None) -> LadderResult:
    """``run_ladder`` once its inputs are checked; ``fast`` is the lineup without ``slow``."""
    labels = [spec.label() for spec in lineup]
    fast_labels = [spec.label() for spec in fast]
    main_lineups = lineup_count(len(fast), players)
    slow_lineups = lineup_count(len(lineup), players)
    main_deals = max(2, math.ceil(games / main_lineups))
    slow_deals = max(2, math.ceil(slow_games / slow_lineups)) if slow else 0
    main_total = main_deals * main_lineups
    total = main_total + slow_deals * slow_lineups

    def main_progress(done: int, _total: int) -> None:
        if progress is not None:
            progress(done, total)

    # Compiled before the clock starts; the slow strategies compile in their own tournament
    # (its time is shown, not a rate), so a slow player's few games do not hold this up.
    warmup_seconds = warm_up(game, data, players, rules, fast)
    played = play_rotations(game, data, players, rules, fast, main_deals, seed, workers,
                            progress=main_progress, backend=backend, scheduler=scheduler)
    rows, head, head_ci = analyse(fast_labels, played.seat_strategy, played.deal_of_game,
                                  played.scores, played.wins, main_deals)
    main = TournamentResult(game.title, players, fast_labels, main_deals, main_total, seed,
                            played.workers, played.seconds, rows, head, head_ci,
                            played.compile_seconds,
                            profile_markdown(game, fast_labels, played, players, rules),
                            played.backend)
    order = fast_labels + [label for label in labels if label in slow]
    s = len(order)
    deals = max(main_deals, slow_deals)
    pair_sum = np.zeros((deals, s, s))
    pair_count = np.zeros((deals, s, s))
    main_sum, main_count = pair_outcomes(len(fast), played.seat_strategy, played.deal_of_game,
                                         played.scores, main_deals)
    pair_sum[:main_deals, :len(fast), :len(fast)] += main_sum
    pair_count[:main_deals, :len(fast), :len(fast)] += main_count
    by_label = {row.label: row for row in rows}
    slow_seconds = 0.0
    if slow:
        slow_lineup = [lineup[labels.index(label)] for label in order]

        def slow_progress(done: int, _total: int) -> None:
            if progress is not None:
                progress(main_total + done, total)

        second = play_rotations(game, data, players, rules, slow_lineup, slow_deals, seed,
                                workers, progress=slow_progress, backend=backend,
                                scheduler=scheduler)
        slow_seconds = second.seconds
        second_rows, _, _ = analyse(order, second.seat_strategy, second.deal_of_game,
                                    second.scores, second.wins, slow_deals)
        for row in second_rows:
            if row.label in slow:
                by_label[row.label] = row
        second_sum, second_count = pair_outcomes(s, second.seat_strategy,
                                                 second.deal_of_game, second.scores,
                                                 slow_deals)
        pair_sum[:slow_deals] += second_sum
        pair_count[:slow_deals] += second_count
    ratings = elo_ratings(bradley_terry(pair_sum.sum(axis=0), pair_count.sum(axis=0)))
    low, high = rating_intervals(pair_sum, pair_count)
    ladder = []
    for index, label in enumerate(order):
        row = by_label[label]
        ladder.append(LadderRow(label, float(ratings[index]), float(low[index]),
                                float(high[index]), row.score_mean, row.score_ci, row.win_rate,
                                row.win_ci, row.seat_games, slow=label in slow))
    ladder.sort(key=lambda r: (r.rating, r.label))
    tiers = assign_tiers(ladder)
    return LadderResult(game.title, players, dict(rules), seed, ladder, tiers, main,
                        slow_deals * slow_lineups, slow_seconds, profile=main.profile,
                        warmup_seconds=warmup_seconds)


def ladder_plot(result: LadderResult) -> bytes:
    """PNG (carrying its SVG): each strategy's rating with its 95% interval, weakest at the
    bottom, by tier. A rating far from the rest (``random`` at about -1100) would squeeze the
    others together: the axis covers the rest, and an arrow at its edge with the rating and
    interval written beside it marks the entry off the scale."""
    import matplotlib.pyplot as plt
    import numpy as np

    from sim.report.plots import png_bytes, styled_figure, useful_range

    colours = ["#1f77b4", "#2ca02c", "#ff7f0e", "#d62728", "#9467bd", "#8c564b"]
    ratings = np.array([row.rating for row in result.rows])
    lows = np.array([row.rating_low for row in result.rows])
    highs = np.array([row.rating_high for row in result.rows])
    # Ratings are Elo points: a spread under 100 is no reason to call anything far out.
    left, right, off = useful_range(ratings, lows, highs, min_spread=100.0)
    with styled_figure(1) as (figure, (axis,)):
        for index, row in enumerate(result.rows):
            colour = colours[row.tier % len(colours)]
            if off[index]:
                edge, marker, side = (left, "<", "left") if row.rating < left else (
                    right, ">", "right")
                axis.plot([edge], [index], marker=marker, markersize=12, color=colour,
                          clip_on=False)
                axis.annotate(f"{row.rating:.0f} ({row.rating_low:.0f} to "
                              f"{row.rating_high:.0f}), off the scale", (edge, index),
                              xytext=(12 if side == "left" else -12, 0),
                              textcoords="offset points", va="center",
                              ha="left" if side == "left" else "right", color=colour)
                continue
            axis.errorbar([row.rating], [index],
                          xerr=[[row.rating - row.rating_low], [row.rating_high - row.rating]],
                          fmt="o", color=colour, capsize=4)
        axis.set_xlim(left, right)
        axis.set_yticks(range(len(result.rows)))
        axis.set_yticklabels([f"{row.label} ({row.score_mean:.1f})" + (" *" if row.slow
                                                                       else "")
                              for row in result.rows])
        axis.set_xlabel("Bradley-Terry rating, Elo scale (95% interval)")
        axis.set_title(f"{result.game_title} skill ladder, {result.players} players "
                       f"(mean score in brackets)")
        handles = [plt.Line2D([], [], marker="o", linestyle="", color=colours[t % 6],
                              label=f"tier {t + 1}" + (
                                  f" ({TIER_NAMES[0]})" if t == 0 and result.tiers > 1 else
                                  f" ({TIER_NAMES[2]})" if t == result.tiers - 1
                                  and result.tiers > 1 else ""))
                   for t in range(result.tiers)]
        axis.legend(handles=handles, loc="upper left")
        return png_bytes(figure)
