"""What the bots play like: each strategy's points by category, cubes, cards and game length,
beside the same figures for recorded human games when the game ships some.

The figures are the game's ``profile_columns`` (``sim.games.base.Game``) and the final score,
per player and game, from a rotated tournament's games (``sim.tournament.RotationGames``).

Intervals (95%, Student t) are clustered by the unit that is independent: for a strategy the
deal (every game of a deal shares its luck), for the recorded games the recorded game (its
players share a board state and a table). Each is the cluster-robust ratio mean of
``sim.stats.clustered.ratio_means``: with the same number of seats per cluster, as in a
rotated tournament and in two-player recordings, it is the mean of the per-cluster means and
the t interval across clusters (C - 1 degrees of freedom). The columns are counts and points,
never negative, so a lower bound below 0 is cut at 0 (a t interval of a few skewed values may
reach below it).

The comparison with people is a description, not a verdict: a column where a strategy's
interval and the recorded players' do not overlap is named ("`greedy` has more points from
buildings than these recorded players"); where they overlap nothing is claimed, since a
handful of recorded games cannot show that two means are equal.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.games.base import Game, ReferencePlay
from sim.stats.clustered import ratio_means, t_critical

SCORE_COLUMN = "score"
MISSING = "—"  # a column the recorded games do not have


@dataclass(frozen=True)
class MeanInterval:
    """A mean per player and game with its 95% interval (NaN bounds: fewer than 2 clusters)."""

    mean: float
    low: float
    high: float


@dataclass
class ProfileRow:
    """One line of the profile table: a strategy, or the recorded human games."""

    label: str
    player_games: int  # seat-games of the strategy, or boards recorded
    clusters: int  # deals, or recorded games
    values: dict[str, MeanInterval]  # by column (profile columns, then "score"); NaN: missing


def profile_columns(game: Game, played: Any = None) -> list[str]:
    """The columns the profile shows: the game's ``profile_columns`` (those ``played`` kept,
    when given), then the score."""
    names = [name for name in game.profile_columns
             if played is None or name in getattr(played, "profile", {})]
    return names + [SCORE_COLUMN]


def cluster_intervals(sums: np.ndarray, counts: np.ndarray,
                      nonnegative: np.ndarray) -> list[MeanInterval]:
    """Mean of each figure with its 95% t interval from per-cluster sums ``sums`` (C clusters x
    K figures) over ``counts`` player-games (C,) per cluster (see the module docstring);
    ``nonnegative[k]``: figure k is never below 0, so its lower bound is cut there."""
    figures = sums.shape[1]
    means = ratio_means(sums, np.repeat(counts[:, None], figures, axis=1))
    if means.clusters >= 2:
        half = t_critical(means.clusters) * means.standard_errors
    else:
        half = np.full(figures, math.nan)
    result = []
    for k in range(figures):
        low, high = means.means[k] - half[k], means.means[k] + half[k]
        if nonnegative[k] and not math.isnan(low):
            low = max(low, 0.0)  # counts and points: the range starts at 0
        result.append(MeanInterval(float(means.means[k]), float(low), float(high)))
    return result


def clustered_means(values: np.ndarray, cluster: np.ndarray) -> list[MeanInterval]:
    """Mean of each column of ``values`` (rows: player-games, columns: figures) with its 95%
    t interval clustered by ``cluster`` (an id per row; see the module docstring)."""
    values = np.asarray(values, dtype=np.float64)
    ids, index = np.unique(np.asarray(cluster), return_inverse=True)
    sums = np.zeros((ids.size, values.shape[1]))
    np.add.at(sums, index, values)
    counts = np.bincount(index, minlength=ids.size).astype(float)
    nonnegative = (values.min(axis=0) >= 0) if values.size else np.ones(values.shape[1], bool)
    return cluster_intervals(sums, counts, nonnegative)


def strategy_profiles(game: Game, labels: list[str], played: Any) -> list[ProfileRow]:
    """Each strategy's mean per profile column and mean score per player and game, with 95%
    intervals clustered by deal, in the order of ``labels``.

    ``played`` is a ``sim.tournament.RotationGames`` (``seat_strategy``, ``deal_of_game``,
    ``deals``, ``scores`` and ``profile``)."""
    names = profile_columns(game, played)
    seat_strategy = np.asarray(played.seat_strategy)
    players = seat_strategy.shape[1]
    deal_of_game = np.asarray(played.deal_of_game)
    deals = int(max(played.deals, deal_of_game.max() + 1 if deal_of_game.size else 0))
    strategies = len(labels)
    # One cell per (strategy, deal), over the seats flattened game-major: one pass per figure
    # with bincount (no (seats x figures) copy: a long tournament has millions of seats).
    cell = (seat_strategy.reshape(-1).astype(np.int64) * deals
            + np.repeat(deal_of_game.astype(np.int64), players))
    counts = np.bincount(cell, minlength=strategies * deals).reshape(strategies, deals)
    sums = np.zeros((strategies, deals, len(names)))
    nonnegative = np.ones(len(names), dtype=bool)
    for k, name in enumerate(names):
        figure = played.scores if name == SCORE_COLUMN else played.profile[name]
        figure = np.asarray(figure).reshape(-1)
        sums[:, :, k] = np.bincount(cell, weights=figure.astype(np.float64),
                                    minlength=strategies * deals).reshape(strategies, deals)
        nonnegative[k] = figure.size == 0 or figure.min() >= 0
    rows = []
    for index, label in enumerate(labels):
        played_in = counts[index] > 0  # a deal the strategy sat out is no cluster of its
        seats = int(counts[index].sum())
        if seats == 0:
            nothing = MeanInterval(math.nan, math.nan, math.nan)
            rows.append(ProfileRow(label, 0, 0, {name: nothing for name in names}))
            continue
        intervals = cluster_intervals(sums[index][played_in],
                                      counts[index][played_in].astype(float), nonnegative)
        rows.append(ProfileRow(label, seats, int(played_in.sum()),
                               dict(zip(names, intervals, strict=True))))
    return rows


def reference_profile(reference: ReferencePlay, names: list[str]) -> ProfileRow:
    """The recorded games' means per column with 95% intervals clustered by recorded game
    (the frame's ``game`` column); a column the frame lacks is NaN (shown as "—")."""
    frame = reference.frame.sort(["game", *[c for c in ("player",) if c in
                                            reference.frame.columns]])
    present = [name for name in names if name in frame.columns]
    cluster = np.unique(frame["game"].to_numpy(), return_inverse=True)[1]
    intervals = clustered_means(frame.select(present).to_numpy().astype(np.float64), cluster)
    by_name = dict(zip(present, intervals, strict=True))
    missing = MeanInterval(math.nan, math.nan, math.nan)
    values = {name: by_name.get(name, missing) for name in names}
    return ProfileRow(f"recorded human games ({frame.height} boards)", frame.height,
                      int(cluster.max()) + 1 if frame.height else 0, values)


def _decimals(interval: MeanInterval) -> int:
    half = (interval.high - interval.low) / 2.0
    return 2 if 0 < half < 0.1 else 1


def format_interval(interval: MeanInterval) -> str:
    """``12.3 ± 0.4``; ``0.4 (0.0–1.1)`` when the lower bound was cut at 0; the mean alone
    without an interval; "—" when not recorded."""
    if math.isnan(interval.mean):
        return MISSING
    if math.isnan(interval.low):
        return f"{interval.mean:.1f}"
    places = _decimals(interval)
    half = interval.high - interval.mean
    if interval.mean - interval.low < half - 1e-12:
        return f"{interval.mean:.{places}f} ({interval.low:.{places}f}–{interval.high:.{places}f})"
    return f"{interval.mean:.{places}f} ± {half:.{places}f}"


def _figure_name(game: Game, name: str) -> str:
    """What a column counts, in words: ``points_roads`` -> "points from roads", else
    the column's description up to its first bracket."""
    if name == SCORE_COLUMN:
        return "points in total"
    if name.startswith("points_"):
        return "points from " + name.removeprefix("points_").replace("_", " ")
    doc = game.column_docs().get(name, name.replace("_", " "))
    return doc.split(" (")[0].split(";")[0].strip()


def differences(game: Game, rows: list[ProfileRow], reference: ProfileRow) -> str:
    """One sentence on where the strategies differ from the recorded players: every column
    where a strategy's interval and theirs do not overlap, worded as a description."""
    parts = []
    for row in rows:
        found = []
        for name, value in row.values.items():
            theirs = reference.values.get(name)
            if theirs is None or any(math.isnan(v) for v in (value.low, value.high, theirs.low,
                                                              theirs.high)):
                continue
            if value.low > theirs.high or value.high < theirs.low:
                word = "more" if value.mean > theirs.mean else "fewer"
                places = max(_decimals(value), _decimals(theirs))
                found.append(f"{word} {_figure_name(game, name)} ({value.mean:.{places}f} "
                             f"against {theirs.mean:.{places}f})")
        if found:
            listed = found[0] if len(found) == 1 else ", ".join(found[:-1]) + " and " + found[-1]
            parts.append(f"`{row.label}` has {listed} than these recorded players")
    boards = reference.player_games
    if not parts:
        return (f"Every strategy's interval overlaps the recorded players' in every column; "
                f"with {boards} boards that leaves the comparison undecided, it does not show "
                f"that the bots play like them.")
    return ("Where the intervals do not overlap: " + "; ".join(parts)
            + f". Elsewhere the intervals overlap, which with {boards} boards leaves the "
            f"comparison undecided (not a match).")


def profile_markdown(game: Game, labels: list[str], played: Any, players: int | None = None,
                     rules: dict[str, int] | None = None) -> str:
    """The markdown section "What the bots play like": one row per strategy (means per player
    and game of the game's profile columns and the score, 95% CIs clustered by deal) and, when
    ``game.reference_play(players, rules)`` has recorded games, their row, a line on where they
    come from and a sentence on where the strategies differ from them. ``players`` and
    ``rules`` default to those ``played`` carries (its seat count and rules)."""
    if players is None:
        players = getattr(played, "players", 0) or np.asarray(played.seat_strategy).shape[1]
    if rules is None:
        rules = dict(getattr(played, "rules", {}) or {})
    names = profile_columns(game, played)
    rows = strategy_profiles(game, labels, played)
    reference = game.reference_play(players, rules)
    reference_row = reference_profile(reference, names) if reference is not None else None
    lines = ["## What the bots play like", "",
             f"Means per player and game of each strategy's seats in this tournament's games "
             f"({players} players, against this field): "
             + ", ".join(f"`{name}`" for name in names)
             + ". 95% CIs: t over per-deal means (the deal is the independent unit)"
             + ("; for the recorded games, t over per-game means (the recorded game is the "
                "unit)." if reference_row else "."), ""]
    header = ["strategy", "seat-games", *names]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| --- | " + " | ".join("---:" for _ in header[1:]) + " |")
    for row in [*rows, *([reference_row] if reference_row else [])]:
        cells = [row.label, f"{row.player_games:,}",
                 *(format_interval(row.values[name]) for name in names)]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    if reference is None:
        lines.append("No recorded human games for these players and rules: the bots are not "
                     "compared with people here.")
    else:
        lines.append(f"Recorded human games: {reference.description} Source: "
                     f"{reference.source}.")
        lines.append("")
        lines.append(differences(game, rows, reference_row))
    lines.append("")
    return "\n".join(lines)
