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
from sim.stats.clustered import (
    WIN_SCALE,
    add_cluster_grams,
    cluster_gram,
    gram_ratio_table,
    grouped_ratio_table,
)
from sim.stats.intervals import proportion_interval
from sim.stats.units import exact_sd, win_units
from sim.stats.variance import chunk_panels, summarise_whole_deals

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

def scan_trace_rows(batch) -> pl.LazyFrame | None:
    """A lazy scan of the rows the unfolding statistics need (``unfolding_tables`` streams it
    in chunks of whole deals), or None for a batch without the score trace."""
    if not batch.is_rows or not batch.has_columns(TRACE_COLUMN):
        return None
    return batch.scan(["game_id", "deal_id", "players", "rules", "seat", "strategy", "win",
                       "rank", TRACE_COLUMN])


def read_trace_rows(batch) -> pl.DataFrame | None:
    """The rows the unfolding statistics need, read whole and in (game, seat) order, or None
    for a batch without the score trace."""
    rows = scan_trace_rows(batch)
    if rows is None:
        return None
    frame = rows.collect()
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
    return _shown_lengths(dict(zip(values.tolist(), counts.tolist(), strict=True)))


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


def _strategy_names(panel: pl.DataFrame) -> np.ndarray:
    """Each row's strategy as a string ("" everywhere without a strategy column)."""
    if "strategy" not in panel.columns:
        return np.full(panel.height, "", dtype=object)
    return panel["strategy"].cast(pl.String).fill_null("").to_numpy().astype(str)


def _trace_chunk_panels(chunk: pl.DataFrame):
    """((players, rules), rows) of each panel of two or more seats in a chunk of whole deals,
    typed and in (game, seat) order."""
    chunk = chunk.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64))
    for players, rules, panel in chunk_panels(chunk):
        if players >= 2:
            yield (players, rules), panel.sort(["game_id", "seat"])


def _per_deal(index: np.ndarray, deals: int, values: np.ndarray) -> np.ndarray:
    """int64[deals]: the integer ``values`` added per deal (``index`` each value's deal)."""
    return np.rint(np.bincount(index, weights=np.asarray(values, dtype=float),
                               minlength=deals)).astype(np.int64)


def _cell_name(cell: int) -> str:
    return f"cell_{cell}"


def _decisive_name(length: int) -> str:
    return f"decisive_{length}"


class _PanelUnfolding:
    """One (players, rules) panel's unfolding statistics as exact integer sums. Pass 1 counts
    the win units and player-games of each (strategy, seat) cell (the expected win rates) and
    the games of each length (the lengths shown); pass 2 reduces each chunk's games to per-deal
    integer pieces (counts, win units, how many of the seats counted sit in each cell, for the
    expected rates; decisive steps per length, for the decisive share) and keeps their
    ``cluster_gram`` sums, so that every mean is a ratio of rational combinations of them."""

    def __init__(self, players: int):
        self.players = players
        self.cells: dict[tuple[str, int], list[int]] = {}  # -> [win units, player-games]
        self.length_counts: dict[int, int] = {}
        self.parts: dict[str, list[pl.DataFrame]] = {"games": [], "half": [], "single": [],
                                                     "leader": [], "comeback": []}
        self.change_counts: dict[int, int] = {}
        self.decisive_counts: dict[tuple[int, int], int] = {}  # (length, step) -> games

    # --- pass 1 ---

    def count(self, panel: pl.DataFrame) -> None:
        """Pass 1: win units and player-games per (strategy, seat); games per length."""
        players = self.players
        names = _strategy_names(panel)
        strategies, codes = np.unique(names, return_inverse=True)
        cells = codes.reshape(-1, players) * players + np.arange(players)[None, :]
        units = panel.select(win_units())["win"].to_numpy().astype(float)
        wins = np.rint(np.bincount(cells.ravel(), weights=units)).astype(np.int64)
        sizes = np.bincount(cells.ravel())
        for cell in np.flatnonzero(sizes):
            key = (str(strategies[cell // players]), int(cell % players))
            total = self.cells.setdefault(key, [0, 0])
            total[0] += int(wins[cell])
            total[1] += int(sizes[cell])
        lengths = panel["_length"].to_numpy().reshape(-1, players)[:, 0]
        for length, games in zip(*np.unique(lengths, return_counts=True), strict=True):
            self.length_counts[int(length)] = self.length_counts.get(int(length), 0) + int(games)

    def prepare(self) -> None:
        """Between the passes: the cells' codes and expected win rates, the lengths shown."""
        names = sorted({name for name, _ in self.cells})
        self.strategy_codes = {name: code for code, name in enumerate(names)}
        self.expected = {code * self.players + seat: Fraction(wins, games * WIN_SCALE)
                         for (name, seat), (wins, games) in self.cells.items()
                         for code in [self.strategy_codes[name]]}
        self.cell_names = [_cell_name(cell) for cell in sorted(self.expected)]
        self.lengths = sorted(self.length_counts)
        self.games = sum(self.length_counts.values())
        self.shown = _shown_lengths(self.length_counts)

    def _expected(self, sign: int = 1) -> dict[str, Fraction]:
        """The weights of the expected win rate on the cell counts (times ``sign``)."""
        return {_cell_name(cell): sign * rate for cell, rate in sorted(self.expected.items())}

    # --- pass 2 ---

    def add(self, panel: pl.DataFrame) -> None:
        """Pass 2: one chunk's games of the panel reduced to per-deal integer sums."""
        players = self.players
        trace, lengths, _, winners, deals = panel_arrays(panel)
        games = lengths.size
        rows = np.arange(games)
        units = panel.select(win_units())["win"].to_numpy().astype(np.int64).reshape(games,
                                                                                    players)
        codes = np.array([self.strategy_codes[name] for name in _strategy_names(panel)],
                         dtype=np.int64).reshape(games, players)
        cells = codes * players + np.arange(players)[None, :]
        deal_ids, deal_index = np.unique(deals, return_inverse=True)
        count = deal_ids.size
        rules = panel["rules"][0]

        def deal_frame(columns: dict[str, np.ndarray]) -> pl.DataFrame:
            """One row per deal of the chunk (deals that count nothing included)."""
            return pl.DataFrame({"cluster": deal_ids, **columns}).with_columns(
                players=pl.lit(players, dtype=pl.Int64), rules=pl.lit(rules, dtype=pl.String))

        def cell_counts(index: np.ndarray, cell: np.ndarray, size: int,
                        keep: np.ndarray) -> dict[str, np.ndarray]:
            """Per ``index`` group: how many of the kept entries sit in each cell."""
            found = {}
            for name, code in zip(self.cell_names, sorted(self.expected), strict=True):
                found[name] = _per_deal(index, size, keep & (cell == code))
            return found

        changes = lead_changes(trace, lengths)
        decisive = decisive_steps(trace, lengths, winners)
        leaders = sole_leaders(trace, lengths)
        half_leader = leaders[rows, halfway_steps(lengths) - 1]
        half_led = half_leader >= 0
        half_seat = np.maximum(half_leader, 0)
        single = winners >= 0
        self.parts["games"].append(cluster_gram(deal_frame({
            "games": _per_deal(deal_index, count, np.ones(games)),
            "changes": _per_deal(deal_index, count, changes),
            "no_change": _per_deal(deal_index, count, changes == 0)}),
            PANEL, ["games", "changes", "no_change"]))
        self.parts["half"].append(cluster_gram(deal_frame({
            "half_led": _per_deal(deal_index, count, half_led),
            "half_win": _per_deal(deal_index, count,
                                  np.where(half_led, units[rows, half_seat], 0)),
            **cell_counts(deal_index, cells[rows, half_seat], count, half_led)}),
            PANEL, ["half_led", "half_win", *self.cell_names]))
        self.parts["single"].append(cluster_gram(deal_frame({
            "single": _per_deal(deal_index, count, single),
            "decisive": _per_deal(deal_index, count, np.where(single, decisive, 0)),
            **{_decisive_name(length): _per_deal(deal_index, count,
                                                 np.where(single & (lengths == length),
                                                          decisive, 0))
               for length in self.lengths}}),
            PANEL, ["single", "decisive", *[_decisive_name(n) for n in self.lengths]]))

        # Per step before the last of each shown length: the sole leader's win and cell.
        step_number = np.arange(1, leaders.shape[1] + 1)[None, :]
        before_end = (step_number < lengths[:, None]) & np.isin(lengths, self.shown)[:, None]
        game, step = np.nonzero(before_end)
        if game.size:
            led = leaders[game, step] >= 0
            seat = np.maximum(leaders[game, step], 0)
            keys = np.column_stack([lengths[game], step + 1, deal_index[game]])
            groups, index = np.unique(keys, axis=0, return_inverse=True)
            index = index.ravel()
            by_step = pl.DataFrame({
                "length": groups[:, 0].astype(np.int64), "step": groups[:, 1].astype(np.int64),
                "cluster": deal_ids[groups[:, 2]],
                "led": _per_deal(index, groups.shape[0], led),
                "win": _per_deal(index, groups.shape[0], np.where(led, units[game, seat], 0)),
                **cell_counts(index, cells[game, seat], groups.shape[0], led)})
            # A step's table counts the deals whose games had a sole leader then.
            self.parts["leader"].append(cluster_gram(by_step.filter(pl.col("led") > 0),
                                                     ["length", "step"],
                                                     ["led", "win", *self.cell_names]))

        deficit = np.rint(halfway_deficits(trace, lengths)).astype(np.int64)
        bins = deficit_bin(deficit).ravel()
        seat_deals = np.repeat(deal_index, players)
        groups, index = np.unique(np.column_stack([bins, seat_deals]), axis=0,
                                  return_inverse=True)
        index = index.ravel()
        everyone = np.ones(bins.size, dtype=bool)
        by_seat = pl.DataFrame({
            "bin": groups[:, 0].astype(np.int64), "cluster": deal_ids[groups[:, 1]],
            "count": _per_deal(index, groups.shape[0], everyone),
            "win": _per_deal(index, groups.shape[0], units.ravel()),
            "deficit": _per_deal(index, groups.shape[0], deficit.ravel()),
            **cell_counts(index, cells.ravel(), groups.shape[0], everyone)})
        self.parts["comeback"].append(cluster_gram(by_seat, ["bin"],
                                                   ["count", "win", "deficit",
                                                    *self.cell_names]))

        for value, games_with in zip(*np.unique(np.minimum(changes, MAX_CHANGES_SHOWN),
                                                return_counts=True), strict=True):
            self.change_counts[int(value)] = self.change_counts.get(int(value), 0) \
                + int(games_with)
        pairs, games_with = np.unique(np.column_stack([lengths[single], decisive[single]]),
                                      axis=0, return_counts=True)
        for (length, step), number in zip(pairs.tolist(), games_with.tolist(), strict=True):
            key = (int(length), int(step))
            self.decisive_counts[key] = self.decisive_counts.get(key, 0) + int(number)

    # --- the tables ---

    def tables(self, rules: str) -> dict[str, pl.DataFrame | dict]:
        """This panel's summary row and its parts of the other tables."""
        players, games = self.players, self.games
        key = {"players": players, "rules": rules}
        win = {"half_win": Fraction(1, WIN_SCALE)}
        row = dict(key, games=games,
                   steps_mean=sum(n * c for n, c in self.length_counts.items()) / games,
                   steps_min=min(self.lengths), steps_max=max(self.lengths))
        for part, count, values, rates in (
                ("games", "games", {"lead_changes": {"changes": 1},
                                    "no_lead_change": {"no_change": 1}}, ("no_lead_change",)),
                ("half", "half_led", {"halfway_leader_win_rate": win,
                                      "halfway_leader_expected": self._expected(),
                                      "halfway_information": {**win, **self._expected(-1)}},
                 ("halfway_leader_win_rate",)),
                ("single", "single", {"decisive_step": {"decisive": 1}, "decisive_share": {
                    _decisive_name(n): Fraction(1, max(n, 1)) for n in self.lengths}}, ())):
            sums = add_cluster_grams(self.parts[part], PANEL)
            if sums.is_empty() or sums[count].sum() == 0:
                continue
            intervals = _gram_intervals(sums, PANEL, count, values, rates).row(0, named=True)
            for name in values:
                row.update({name: intervals[name], f"{name}_low": intervals[f"{name}_low"],
                            f"{name}_high": intervals[f"{name}_high"]})

        values = np.array(self.lengths, dtype=np.int64)
        frequency = np.array([self.length_counts[n] for n in self.lengths], dtype=np.int64)
        lengths = pl.DataFrame({
            **{k: [v] * values.size for k, v in key.items()}, "length": values,
            "games": frequency, "share": frequency / games,
            "shown": np.isin(values, self.shown)})

        # The leader and comeback tables carry players as Int32 (as they always have).
        typed = {"players": pl.lit(players, dtype=pl.Int32), "rules": pl.lit(rules)}
        leader = None
        sums = add_cluster_grams(self.parts["leader"], ["length", "step"])
        if not sums.is_empty():
            win_units_step = {"win": Fraction(1, WIN_SCALE)}
            table = _gram_intervals(sums, ["length", "step"], "led", {
                "leader_win_rate": win_units_step, "expected_win_rate": self._expected(),
                "information": {**win_units_step, **self._expected(-1)}},
                ("leader_win_rate",))
            of_length = pl.DataFrame({"length": values, "length_games": frequency})
            leader = (table.with_columns(games_led=sums.sort(["length", "step"])["led"])
                      .join(of_length, on="length")
                      .drop("expected_win_rate_low", "expected_win_rate_high")
                      .with_columns(**typed).select("players", "rules", pl.exclude(PANEL))
                      .sort(["length", "step"]))

        sums = add_cluster_grams(self.parts["comeback"], ["bin"])
        table = _gram_intervals(sums, ["bin"], "count", {
            "win_rate": {"win": Fraction(1, WIN_SCALE)}, "expected_win_rate": self._expected(),
            "mean_deficit": {"deficit": 1}}, ("win_rate",))
        comeback = (table.with_columns(player_games=sums.sort("bin")["count"], deficit=pl.col(
            "bin").replace_strict({k: label for k, (_, _, label) in enumerate(DEFICIT_BINS)},
                                  return_dtype=pl.String))
            .with_columns(**typed).select("players", "rules", pl.exclude(PANEL)).sort("bin"))

        change_values = np.array(sorted(self.change_counts), dtype=np.int64)
        change_frequency = np.array([self.change_counts[n] for n in change_values],
                                    dtype=np.int64)
        changes = pl.DataFrame({**{k: [v] * change_values.size for k, v in key.items()},
                                "lead_changes": change_values, "games": change_frequency,
                                "share": change_frequency / games})
        decided = []
        for length in sorted(self.shown):
            counts = {step: n for (size, step), n in self.decisive_counts.items()
                      if size == length}
            chosen = sum(counts.values())
            if not chosen or length < 2:
                continue
            steps_before = np.arange(1, length)
            by_then = np.array([sum(n for step, n in counts.items() if step <= before)
                                for before in steps_before])
            decided.append(pl.DataFrame({
                **{k: [v] * steps_before.size for k, v in key.items()},
                "length": np.full(steps_before.size, length, dtype=np.int64),
                "games": np.full(steps_before.size, chosen, dtype=np.int64),
                "step": steps_before.astype(np.int64), "share_decided": by_then / chosen}))
        return {"summary": row, "lengths": lengths, "leader": leader, "comeback": comeback,
                "changes": changes, "decided": decided}


def _shown_lengths(counts: Mapping[int, int]) -> list[int]:
    """``shown_lengths`` from the number of games of each length."""
    total = sum(counts.values())
    order = sorted(counts, key=lambda length: (-counts[length], length))
    return [int(length) for length in order
            if counts[length] >= LENGTH_SHARE_SHOWN * total][:LENGTHS_SHOWN]


def _gram_intervals(sums: pl.DataFrame, keys: list[str], count: str,
                    values: Mapping[str, Mapping[str, Fraction | int]],
                    rates: tuple[str, ...] = ()) -> pl.DataFrame:
    """``_intervals`` from ``add_cluster_grams`` sums: ratio means of rational combinations of
    the components over ``count`` per group of ``keys``; the names in ``rates`` (proportions)
    get clustered Wilson intervals."""
    table = gram_ratio_table(sums, keys, {count: 1}, values)
    counts = sums.sort(keys, nulls_last=True)[count].to_numpy()
    for name in rates:
        low, high = proportion_interval(table[name].to_numpy(), table[f"{name}_se"].to_numpy(),
                                        table[f"{name}_clusters"].to_numpy(), counts)
        table = table.with_columns(pl.Series(f"{name}_low", low), pl.Series(f"{name}_high", high))
    return table


# Rows per chunk of the unfolding tables: a chunk's traces are padded into arrays of games x
# steps x seats, a few of them at once; 2^16 player-games keep them to tens of MB.
_TRACE_CHUNK_ROWS = 1 << 16


def unfolding_tables(frame: pl.DataFrame | pl.LazyFrame) -> dict[str, pl.DataFrame]:
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

    ``frame`` (every game whole) may be a lazy scan of a batch (``scan_trace_rows``): it is
    read twice in chunks of whole deals (the expected win rates and lengths; the per-deal
    integer sums), so memory does not grow with the number of games. Win shares are summed
    exactly (units of 1 / WIN_SCALE) and the expected rates are exact fractions.
    """
    rows = frame.lazy()
    names = rows.collect_schema().names()
    columns = ["game_id", "deal_id", "players", "rules", "seat", "win", "rank",
               *(["strategy"] if "strategy" in names else [])]
    panels: dict[tuple[int, str], _PanelUnfolding] = {}

    def count(chunk: pl.DataFrame) -> None:
        for key, panel in _trace_chunk_panels(chunk):
            panels.setdefault(key, _PanelUnfolding(key[0])).count(panel)

    def add(chunk: pl.DataFrame) -> None:
        for key, panel in _trace_chunk_panels(chunk):
            panels[key].add(panel)

    summarise_whole_deals(rows.with_columns(pl.col(TRACE_COLUMN).list.len().alias("_length")),
                          [*columns, "_length"], count, _TRACE_CHUNK_ROWS)
    for panel in panels.values():
        panel.prepare()
    summarise_whole_deals(rows, [*columns, TRACE_COLUMN], add, _TRACE_CHUNK_ROWS)
    summary, lengths_table, leader, comeback, changes, decided = [], [], [], [], [], []
    for (_, rules), panel in panels.items():
        found = panel.tables(rules)
        summary.append(found["summary"])
        lengths_table.append(found["lengths"])
        if found["leader"] is not None:
            leader.append(found["leader"])
        comeback.append(found["comeback"])
        changes.append(found["changes"])
        decided += found["decided"]

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
