"""How games unfold, from the score trace (every seat's score after each step, ``score_trace``;
a step is a round or a turn, as the game says): lead changes, how often the leader after each
step wins against what its strategy at its seat predicts, comeback odds by the deficit at
halfway, the step after which the winner never loses the lead, and game length.

Definitions (the tests pin them on hand-made traces):

- the *leader* after a step is the seat with the highest score then, when it is alone there (a
  tie at the top has no sole leader);
- a *lead change* is a step whose sole leader differs from the last sole leader before it (a
  tie keeps the last leader; the first sole leader is no change);
- the winner *holds the lead* after a step when no seat has more points then (ties allowed);
  the game is *decided* after the first step from which the winner holds the lead to the end
  (games won in a tie have no single winner and are left out);
- *halfway* in a game of L steps is after step ceil(L / 2) (step 5 of 9, 4 of 8); a seat's
  *deficit* there is the leader's score minus its own (0 for the leader and for seats tied
  with it);
- a seat's *expected* win rate is the win rate of its strategy at its seat over the whole
  panel (a shared win counting 1/k): what knowing who sits there predicts before any step is
  played. The *information gained* by a lead is the leader's win rate minus the mean expected
  win rate of the same leaders; it is the baseline a designer should compare with, not 1 /
  players (the strongest strategy leads most often and wins most often anyway).

The per-step table is split by the game's length (the number of steps the game had), so a row
never mixes games that end at that step with games that go on, and it stops before the last
step: after the last step the sole leader has won by definition. Only the commonest lengths are
shown (``LENGTH_SHARE_SHOWN``, at most ``LENGTHS_SHOWN``); the rest are counted.

Means and rates are ratio means with cluster-robust standard errors over deals
(``sim.stats.clustered``): the seats of a game and the replays of a deal are correlated. A win
rate's 95% interval is a Wilson interval at the effective sample size n* = p (1 - p) / se^2
(the clustered standard error's), with Student's t on the deals' degrees of freedom, so it
stays inside [0, 1]; at a rate of 0 or 1 (se 0) n* is the number of games. The expected win
rates are treated as known (they come from the whole panel, many more games than any row).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

import numpy as np
import polars as pl

from sim.games.columns import TRACE_COLUMN
from sim.stats.clustered import CONFIDENCE, grouped_ratio_table
from sim.stats.intervals import proportion_interval
from sim.stats.units import exact_sd
from sim.stats.variance import exact_ratio_intervals

PANEL = ["players", "rules"]
NO_LEADER = -1
# The per-step table shows a game length only when at least this share of the panel's games has
# it, and at most this many lengths (the commonest first).
LENGTH_SHARE_SHOWN = 0.05
LENGTHS_SHOWN = 3
PAST_END = -2
# Deficit bins at halfway, in points: [low, high) with their labels.
DEFICIT_BINS = ((0, 1, "0 (leading or tied)"), (1, 3, "1-2"), (3, 6, "3-5"), (6, 11, "6-10"),
                (11, 21, "11-20"), (21, 41, "21-40"), (41, 10**9, "41 or more"))
MAX_CHANGES_SHOWN = 5  # lead changes of this many or more are counted together


# --- ratio means from exact sums over clusters ----------------------------------------------------
# A section that reads its rows in chunks of whole deals forms, per chunk, one row per (group,
# cluster) of integer components and keeps only their sums and the sums of their products per
# group (``cluster_gram``, added over the chunks by ``add_cluster_grams``). A ratio mean whose
# count and value are fixed rational combinations of the components then has its cluster-robust
# interval from those sums alone, exactly (``gram_ratio_table``): the numbers of
# ``grouped_ratio_table`` on the per-cluster rows, without holding them.

Combination = Mapping[str, Fraction | int]


def _product(first: str, second: str) -> str:
    return f"{first}*{second}"


def cluster_gram(units: pl.DataFrame, keys: list[str], components: list[str]) -> pl.DataFrame:
    """Per group of ``keys`` of ``units`` (one row per group and cluster, every cluster whole):
    ``clusters`` (its rows), the sum of each integer component and of each product of two,
    as exact Int64 sums."""
    values = {name: pl.col(name).cast(pl.Int64) for name in components}
    return units.group_by(keys).agg(
        pl.len().cast(pl.Int64).alias("clusters"),
        *[values[name].sum().alias(name) for name in components],
        *[(values[first] * values[second]).sum().alias(_product(first, second))
          for k, first in enumerate(components) for second in components[k:]])


def add_cluster_grams(parts: list[pl.DataFrame], keys: list[str]) -> pl.DataFrame:
    """The ``cluster_gram`` sums of several chunks added per group (a group's clusters fall in
    one chunk or several; each cluster in one)."""
    parts = [part for part in parts if part.height]
    if not parts:
        return pl.DataFrame()
    return pl.concat(parts, how="diagonal").group_by(keys).agg(pl.all().fill_null(0).sum())


def gram_ratio_table(sums: pl.DataFrame, keys: list[str], count: Combination,
                     values: Mapping[str, Combination],
                     confidence: float = CONFIDENCE) -> pl.DataFrame:
    """``grouped_ratio_table`` from ``add_cluster_grams`` sums: per group of ``keys`` the ratio
    mean of each value over the count (both rational combinations of the components, e.g.
    ``{"wins": Fraction(1, WIN_SCALE)}``) with its cluster-robust t interval, columns
    ``{prefix}``, ``_se``, ``_low``, ``_high`` and ``_clusters``, sorted by ``keys``. Every sum is
    exact; each number is rounded once."""
    sums = sums.sort(keys, nulls_last=True)
    rows = sums.to_dicts()

    def linear(row: dict, weights: Combination) -> Fraction:
        return sum((Fraction(w) * row[name] for name, w in weights.items()), Fraction(0))

    def bilinear(row: dict, left: Combination, right: Combination) -> Fraction:
        total = Fraction(0)
        for a, u in left.items():
            for b, v in right.items():
                total += Fraction(u) * Fraction(v) * row.get(_product(a, b),
                                                             row.get(_product(b, a)))
        return total

    clusters = [row["clusters"] for row in rows]
    x = [linear(row, count) for row in rows]
    xx = [bilinear(row, count, count) for row in rows]
    columns = {}
    for prefix, weights in values.items():
        y = [linear(row, weights) for row in rows]
        found = exact_ratio_intervals(clusters, x, y, xx,
                                      [bilinear(row, count, weights) for row in rows],
                                      [bilinear(row, weights, weights) for row in rows],
                                      confidence)
        # A group that counts nothing: the float division's inf or NaN, as before.
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where([value == 0 for value in x],
                            np.array([float(value) for value in y]) / 0.0, found["mean"])
        columns.update({prefix: pl.Series(mean, dtype=pl.Float64),
                        f"{prefix}_se": pl.Series(found["se"], dtype=pl.Float64),
                        f"{prefix}_low": pl.Series(found["low"], dtype=pl.Float64),
                        f"{prefix}_high": pl.Series(found["high"], dtype=pl.Float64),
                        f"{prefix}_clusters": pl.Series(clusters, dtype=pl.Int64)})
    return sums.select(keys).with_columns(**columns)


# --- the definitions, on arrays ------------------------------------------------------------------

def sole_leaders(trace: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """int[G, L]: the seat leading alone after each step, NO_LEADER on a tie at the top,
    PAST_END after the game's last step. ``trace`` is [G, L, P], ``lengths`` [G]."""
    trace = np.asarray(trace, dtype=float)
    games, steps, _ = trace.shape
    top = trace.max(axis=2, keepdims=True)
    at_top = trace == top
    leader = np.where(at_top.sum(axis=2) == 1, at_top.argmax(axis=2), NO_LEADER)
    past = np.arange(steps)[None, :] >= np.asarray(lengths)[:, None]
    return np.where(past, PAST_END, leader)


def lead_changes(trace: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """int[G]: lead changes of each game (see the module docstring)."""
    leaders = sole_leaders(trace, lengths)
    games, steps = leaders.shape
    current = np.full(games, NO_LEADER)
    changes = np.zeros(games, dtype=np.int64)
    for step in range(steps):
        leader = leaders[:, step]
        sole = leader >= 0
        changes += sole & (current >= 0) & (leader != current)
        current = np.where(sole, leader, current)
    return changes


def decisive_steps(trace: np.ndarray, lengths: np.ndarray, winners: np.ndarray) -> np.ndarray:
    """int[G]: the step (1-based) after which the winner holds the lead to the end, or -1 for a
    game without a single winner (``winners[g]`` is the seat, or -1)."""
    trace = np.asarray(trace, dtype=float)
    lengths = np.asarray(lengths)
    winners = np.asarray(winners)
    games, steps, _ = trace.shape
    seat = np.maximum(winners, 0)
    own = trace[np.arange(games), :, seat]  # [G, L]
    holds = own >= trace.max(axis=2)
    past = np.arange(steps)[None, :] >= lengths[:, None]
    holds |= past
    # From the end backwards: the winner holds the lead at this step and at every later one.
    from_here = np.flip(np.logical_and.accumulate(np.flip(holds, axis=1), axis=1), axis=1)
    first = np.where(from_here.any(axis=1), from_here.argmax(axis=1) + 1, lengths)
    return np.where(winners >= 0, first, -1)


def halfway_steps(lengths: np.ndarray) -> np.ndarray:
    """int[G]: the halfway step of each game, 1-based: ceil(length / 2), so after step 5 of a
    game of 9 steps and after step 4 of a game of 8."""
    return (np.asarray(lengths) + 1) // 2


def halfway_deficits(trace: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """float[G, P]: each seat's deficit to the leader at halfway."""
    trace = np.asarray(trace, dtype=float)
    games = trace.shape[0]
    at_half = trace[np.arange(games), halfway_steps(lengths) - 1, :]
    return at_half.max(axis=1, keepdims=True) - at_half


def deficit_bin(deficits: np.ndarray) -> np.ndarray:
    """The index into DEFICIT_BINS of each deficit."""
    lows = np.array([low for low, _, _ in DEFICIT_BINS])
    return np.searchsorted(lows, np.asarray(deficits), side="right") - 1


# --- from the rows store -------------------------------------------------------------------------

def read_trace_rows(batch) -> pl.DataFrame | None:
    """The rows the unfolding statistics need, or None for a batch without the score trace."""
    if not batch.is_rows or not batch.has_columns(TRACE_COLUMN):
        return None
    frame = batch.scan(["game_id", "deal_id", "players", "rules", "seat", "strategy", "win",
                        "rank", TRACE_COLUMN]).collect()
    return (frame.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
            .sort(["game_id", "seat"]))


def panel_arrays(panel: pl.DataFrame):
    """The games of one (players, rules) panel as arrays: (trace [G, L, P], lengths [G],
    wins [G, P], winners [G], deals [G]); rows sorted by (game, seat), every game whole."""
    players = int(panel["players"][0])
    games = panel.height // players
    lengths_per_row = panel[TRACE_COLUMN].list.len().to_numpy().astype(np.int64)
    steps = int(lengths_per_row.max()) if lengths_per_row.size else 0
    flat = panel[TRACE_COLUMN].explode().to_numpy().astype(float)
    rows = np.repeat(np.arange(panel.height), lengths_per_row)
    offsets = np.concatenate([[0], np.cumsum(lengths_per_row)[:-1]])
    columns = np.arange(flat.size) - np.repeat(offsets, lengths_per_row)
    padded = np.zeros((panel.height, max(steps, 1)))
    padded[rows, columns] = flat
    # Past its end a game keeps its final scores (they are never read as steps of the game).
    last = np.maximum(lengths_per_row - 1, 0)
    final = padded[np.arange(panel.height), last]
    beyond = np.arange(padded.shape[1])[None, :] >= lengths_per_row[:, None]
    padded = np.where(beyond, final[:, None], padded)
    trace = padded.reshape(games, players, -1).transpose(0, 2, 1)
    lengths = lengths_per_row.reshape(games, players)[:, 0]
    wins = panel["win"].to_numpy().astype(float).reshape(games, players)
    ranks = panel["rank"].to_numpy().reshape(games, players)
    single = (ranks == 1).sum(axis=1) == 1
    winners = np.where(single, (ranks == 1).argmax(axis=1), -1)
    deals = panel["deal_id"].to_numpy().reshape(games, players)[:, 0]
    return trace, lengths, wins, winners, deals


def expected_win_rates(wins: np.ndarray, seat_strategy: np.ndarray) -> np.ndarray:
    """float[G, P]: each seat's expected win rate, the win rate of its strategy at its seat
    over all ``G`` games (``seat_strategy`` int[G, P] codes the strategies)."""
    players = wins.shape[1]
    cell = seat_strategy * players + np.arange(players)[None, :]
    rate = (np.bincount(cell.ravel(), weights=wins.ravel())
            / np.maximum(np.bincount(cell.ravel()), 1))
    return rate[cell]


def shown_lengths(lengths: np.ndarray) -> list[int]:
    """The game lengths the per-step table shows: those of at least ``LENGTH_SHARE_SHOWN`` of
    the games, commonest first (ties: the shorter), at most ``LENGTHS_SHOWN``."""
    values, counts = np.unique(np.asarray(lengths), return_counts=True)
    order = sorted(range(values.size), key=lambda k: (-counts[k], values[k]))
    return [int(values[k]) for k in order
            if counts[k] >= LENGTH_SHARE_SHOWN * lengths.size][:LENGTHS_SHOWN]


def _intervals(units: pl.DataFrame, keys: list[str], count: str, values: dict[str, str],
               rates: tuple[str, ...] = ()) -> pl.DataFrame:
    """Ratio means of ``values`` over ``count`` per group of ``keys`` with cluster-robust t
    intervals; the names in ``rates`` (proportions) get clustered Wilson intervals instead."""
    table = grouped_ratio_table(units.sort([*keys, "cluster"]), keys, count, values)
    if table.is_empty():
        return table
    counts = (units.group_by(keys).agg(pl.col(count).sum().alias("_count"))
              .join(table.select(keys), on=keys, how="right").sort(keys))
    table = table.sort(keys)
    for name in rates:
        low, high = proportion_interval(table[name].to_numpy(), table[f"{name}_se"].to_numpy(),
                                        table[f"{name}_clusters"].to_numpy(),
                                        counts["_count"].to_numpy())
        table = table.with_columns(pl.Series(f"{name}_low", low), pl.Series(f"{name}_high", high))
    return table


def _cell_sums(frame: pl.DataFrame, keys: list[str], columns: list[str],
               constants: dict) -> pl.DataFrame:
    """Per distinct integer ``keys`` (sorted): the sums of ``columns``, reduced in numpy in the
    frame's row order (a polars group-by may add floats in any order, and a report must be
    byte-reproducible), with the ``constants`` (players, rules) as columns."""
    codes, index = np.unique(np.column_stack([frame[k].to_numpy().astype(np.int64)
                                              for k in keys]), axis=0, return_inverse=True)
    index = index.ravel()
    sums = {name: np.bincount(index, weights=frame[name].to_numpy().astype(float),
                              minlength=codes.shape[0]) for name in columns}
    return pl.DataFrame({**{k: codes[:, j] for j, k in enumerate(keys)}, **sums}).with_columns(
        **{k: pl.lit(v) for k, v in constants.items()})


def _strategy_codes(panel: pl.DataFrame, games: int, players: int) -> np.ndarray:
    """int[G, P]: each seat's strategy as a code (0 everywhere without a strategy column)."""
    if "strategy" not in panel.columns:
        return np.zeros((games, players), dtype=np.int64)
    _, codes = np.unique(panel["strategy"].to_numpy().astype(str), return_inverse=True)
    return codes.reshape(games, players)


def unfolding_tables(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The unfolding statistics of every (players, rules) panel with two or more seats:

    - ``summary``: games, lengths, mean lead changes, share of games without one, the halfway
      leader's win rate, its expected win rate and the information gained, the mean decisive
      step and its share of the game length (95% intervals);
    - ``lengths``: the games of each length and whether the per-step tables show it;
    - ``leader``: per shown length and step before the last, the sole leader's win rate then,
      its expected win rate and the information gained (games with a sole leader);
    - ``comeback``: per deficit bin at halfway, the win rate of the seats that far behind and
      their expected win rate;
    - ``changes``: the share of games with 0, 1, ... lead changes;
    - ``decided``: per shown length and step before the last, the share of games (with a
      single winner) decided by then.
    """
    summary, lengths_table, leader, comeback, changes, decided = [], [], [], [], [], []
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        if players < 2:
            continue
        trace, lengths, wins, winners, deals = panel_arrays(panel)
        games = lengths.size
        expected = expected_win_rates(wins, _strategy_codes(panel, games, int(players)))
        key = {"players": int(players), "rules": rules}
        counts = lead_changes(trace, lengths)
        decisive = decisive_steps(trace, lengths, winners)
        leaders = sole_leaders(trace, lengths)
        half = halfway_steps(lengths) - 1
        half_leader = leaders[np.arange(games), half]
        half_led = half_leader >= 0
        half_seat = np.maximum(half_leader, 0)
        half_win = np.where(half_led, wins[np.arange(games), half_seat], 0.0)
        half_expected = np.where(half_led, expected[np.arange(games), half_seat], 0.0)
        single = winners >= 0
        per_game = pl.DataFrame({
            "cluster": deals, "games": np.ones(games), "changes": counts.astype(float),
            "no_change": (counts == 0).astype(float),
            "half_led": half_led.astype(float), "half_win": half_win,
            "half_expected": half_expected, "half_information": half_win - half_expected,
            "single": single.astype(float),
            "decisive": np.where(single, decisive, 0).astype(float),
            "decisive_share": np.where(single, decisive / np.maximum(lengths, 1), 0.0),
        })
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
            units = _cell_sums(per_game, ["cluster"], [count, *values.values()], key)
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

        # Per step before the last of each shown length: the leader's win against expectation.
        steps = leaders.shape[1]
        step_number = np.arange(1, steps + 1)[None, :]
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
        if by_step.height:
            units = _cell_sums(by_step, ["length", "step", "cluster"],
                               ["led", "win", "expected", "information"], key)
            led_units = units.filter(pl.col("led") > 0)
            if led_units.height:
                table = _intervals(led_units, [*PANEL, "length", "step"], "led",
                                   {"leader_win_rate": "win", "expected_win_rate": "expected",
                                    "information": "information"}, ("leader_win_rate",))
                totals = units.group_by(["length", "step"]).agg(
                    games_led=pl.col("led").sum().cast(pl.Int64))
                of_length = pl.DataFrame({"length": values.astype(np.int64),
                                          "length_games": frequency.astype(np.int64)})
                leader.append(table.join(totals, on=["length", "step"])
                              .join(of_length, on="length")
                              .drop("expected_win_rate_low", "expected_win_rate_high")
                              .sort(["length", "step"]))

        deficit = halfway_deficits(trace, lengths)
        bins = deficit_bin(deficit).ravel()
        by_seat = pl.DataFrame({"cluster": np.repeat(deals, players), "bin": bins,
                                "count": np.ones(bins.size), "win": wins.ravel(),
                                "expected": expected.ravel(), "deficit": deficit.ravel()})
        units = _cell_sums(by_seat, ["bin", "cluster"], ["count", "win", "expected", "deficit"],
                           key)
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

    def joined(parts: list[pl.DataFrame]) -> pl.DataFrame:
        return pl.concat(parts, how="diagonal") if parts else pl.DataFrame()

    return {"summary": pl.DataFrame(summary) if summary else pl.DataFrame(),
            "lengths": joined(lengths_table), "leader": joined(leader),
            "comeback": joined(comeback), "changes": joined(changes),
            "decided": joined(decided)}

def game_lengths(batch, column: str) -> tuple[pl.DataFrame, pl.DataFrame] | None:
    """Game length in turns per player: (per (players, rules): games, mean with a
    cluster-robust interval, SD, min, the 5/50/95% quantiles and max of ``column``, one value
    per game; and the number of games of each length), or None when the batch has no such
    column."""
    if not batch.is_rows or not column or not batch.has_columns(column):
        return None
    per_game = (batch.scan(["game_id", "deal_id", "players", "rules", column])
                .group_by(["game_id", "deal_id", "players", "rules"])
                .agg(pl.col(column).first().cast(pl.Float64).alias("length"))
                .with_columns(pl.col("players").cast(pl.Int64), games=pl.lit(1.0))
                .rename({"deal_id": "cluster"}).collect())
    units = per_game.group_by([*PANEL, "cluster"]).agg(pl.col("games").sum(),
                                                       pl.col("length").sum())
    means = _intervals(units, PANEL, "games", {"mean": "length"})
    spread = per_game.group_by(PANEL).agg(
        games=pl.len().cast(pl.Int64), sd=exact_sd("length"),
        minimum=pl.col("length").min(), q05=pl.col("length").quantile(0.05, "lower"),
        median=pl.col("length").quantile(0.5, "lower"),
        q95=pl.col("length").quantile(0.95, "lower"), maximum=pl.col("length").max())
    counts = (per_game.group_by([*PANEL, "length"]).agg(games=pl.len().cast(pl.Int64))
              .sort([*PANEL, "length"]))
    table = spread.join(means.select(*PANEL, "mean", "mean_low", "mean_high"), on=PANEL)
    return table.sort(PANEL), counts
