"""How games unfold, from the score trace (every seat's score after each step, ``score_trace``;
a step is a round or a turn, as the game says): lead changes, how often the leader after each
step wins, comeback odds by the deficit at halfway, the step after which the winner never
loses the lead, and game length.

Definitions (the tests pin them on hand-made traces):

- the *leader* after a step is the seat with the highest score then, when it is alone there (a
  tie at the top has no sole leader);
- a *lead change* is a step whose sole leader differs from the last sole leader before it (a
  tie keeps the last leader; the first sole leader is no change);
- the winner *holds the lead* after a step when no seat has more points then (ties allowed);
  the game is *decided* after the first step from which the winner holds the lead to the end
  (games won in a tie have no single winner and are left out);
- *halfway* is the step ceil(length / 2); a seat's *deficit* there is the leader's score minus
  its own (0 for the leader and for seats tied with it).

Means and rates are ratio means with cluster-robust intervals over deals
(``sim.stats.clustered``): the seats of a game and the replays of a deal are correlated.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.columns import TRACE_COLUMN
from sim.stats.clustered import grouped_ratio_table

PANEL = ["players", "rules"]
NO_LEADER = -1
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
    """int[G]: the halfway step of each game, 1-based (ceil(length / 2))."""
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
    frame = batch.scan(["game_id", "deal_id", "players", "rules", "seat", "win", "rank",
                        TRACE_COLUMN]).collect()
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


def _clipped(name: str) -> list[pl.Expr]:
    """A rate's interval ends kept within [0, 1]."""
    return [pl.col(f"{name}_low").clip(0.0, 1.0), pl.col(f"{name}_high").clip(0.0, 1.0)]


def _intervals(units: pl.DataFrame, keys: list[str], count: str,
               values: dict[str, str]) -> pl.DataFrame:
    return grouped_ratio_table(units.sort([*keys, "cluster"]), keys, count, values)


def unfolding_tables(frame: pl.DataFrame) -> dict[str, pl.DataFrame]:
    """The unfolding statistics of every (players, rules) panel with two or more seats:

    - ``summary``: games, mean lead changes, share of games without one, the halfway leader's
      win rate, the mean decisive step and its share of the game length (95% intervals);
    - ``leader``: per step, the sole leader's win rate then (games with a sole leader);
    - ``comeback``: per deficit bin at halfway, the win rate of the seats that far behind;
    - ``changes``: the share of games with 0, 1, ... lead changes;
    - ``decided``: per step, the share of games (with a single winner) decided by then.
    """
    summary, leader, comeback, changes, decided = [], [], [], [], []
    for (players, rules), panel in frame.group_by(PANEL, maintain_order=True):
        if players < 2:
            continue
        trace, lengths, wins, winners, deals = panel_arrays(panel)
        games = lengths.size
        key = {"players": int(players), "rules": rules}
        counts = lead_changes(trace, lengths)
        decisive = decisive_steps(trace, lengths, winners)
        leaders = sole_leaders(trace, lengths)
        half = halfway_steps(lengths) - 1
        half_leader = leaders[np.arange(games), half]
        half_win = np.where(half_leader >= 0, wins[np.arange(games), np.maximum(half_leader, 0)],
                            0.0)
        single = winners >= 0
        per_game = pl.DataFrame({
            "cluster": deals, "games": np.ones(games), "changes": counts.astype(float),
            "no_change": (counts == 0).astype(float),
            "half_led": (half_leader >= 0).astype(float), "half_win": half_win,
            "single": single.astype(float),
            "decisive": np.where(single, decisive, 0).astype(float),
            "decisive_share": np.where(single, decisive / np.maximum(lengths, 1), 0.0),
        }).with_columns(**{k: pl.lit(v) for k, v in key.items()})
        row = dict(key, games=games, steps_mean=float(lengths.mean()),
                   steps_min=int(lengths.min()), steps_max=int(lengths.max()))
        for table, count, values in (
                (per_game, "games", {"lead_changes": "changes", "no_lead_change": "no_change"}),
                (per_game, "half_led", {"halfway_leader_win_rate": "half_win"}),
                (per_game, "single", {"decisive_step": "decisive",
                                      "decisive_share": "decisive_share"})):
            units = table.group_by([*PANEL, "cluster"]).agg(pl.col(count).sum(),
                                                           *[pl.col(v).sum()
                                                             for v in values.values()])
            if units[count].sum() == 0:
                continue
            intervals = _intervals(units, PANEL, count, values).row(0, named=True)
            for name in values:
                low, high = intervals[f"{name}_low"], intervals[f"{name}_high"]
                if name in ("no_lead_change", "halfway_leader_win_rate"):
                    low, high = max(low, 0.0), min(high, 1.0)
                row.update({name: intervals[name], f"{name}_low": low, f"{name}_high": high})
        summary.append(row)

        steps = leaders.shape[1]
        step_index = np.tile(np.arange(1, steps + 1), games)
        led = (leaders >= 0).ravel()
        leader_win = np.take_along_axis(wins, np.maximum(leaders, 0), axis=1).ravel()
        by_step = pl.DataFrame({"cluster": np.repeat(deals, steps), "step": step_index,
                                "led": led.astype(float),
                                "win": np.where(led, leader_win, 0.0),
                                "played": (leaders != PAST_END).ravel().astype(float)})
        units = (by_step.filter(pl.col("played") > 0).group_by(["step", "cluster"])
                 .agg(pl.col("led").sum(), pl.col("win").sum(), pl.col("played").sum())
                 .with_columns(**{k: pl.lit(v) for k, v in key.items()}))
        totals = units.group_by("step").agg(games_led=pl.col("led").sum().cast(pl.Int64),
                                            games_played=pl.col("played").sum().cast(pl.Int64))
        table = _intervals(units.filter(pl.col("led") > 0), [*PANEL, "step"], "led",
                           {"leader_win_rate": "win"})
        leader.append(table.join(totals, on="step").with_columns(
            _clipped("leader_win_rate"), baseline=pl.lit(1.0 / players)).sort("step"))

        deficit = halfway_deficits(trace, lengths)
        bins = deficit_bin(deficit).ravel()
        by_seat = pl.DataFrame({"cluster": np.repeat(deals, players), "bin": bins,
                                "count": np.ones(bins.size), "win": wins.ravel(),
                                "deficit": deficit.ravel()})
        units = (by_seat.group_by(["bin", "cluster"])
                 .agg(pl.col("count").sum(), pl.col("win").sum(), pl.col("deficit").sum())
                 .with_columns(**{k: pl.lit(v) for k, v in key.items()}))
        table = _intervals(units, [*PANEL, "bin"], "count", {"win_rate": "win",
                                                             "mean_deficit": "deficit"})
        sizes = units.group_by("bin").agg(player_games=pl.col("count").sum().cast(pl.Int64))
        comeback.append(table.join(sizes, on="bin").with_columns(
            _clipped("win_rate"), deficit=pl.col("bin").replace_strict(
                {k: label for k, (_, _, label) in enumerate(DEFICIT_BINS)},
                return_dtype=pl.String)).sort("bin"))

        shown = np.minimum(counts, MAX_CHANGES_SHOWN)
        values, frequency = np.unique(shown, return_counts=True)
        changes.append(pl.DataFrame({**{k: [v] * values.size for k, v in key.items()},
                                     "lead_changes": values.astype(np.int64),
                                     "games": frequency.astype(np.int64),
                                     "share": frequency / games}))
        if single.any():
            steps_all = np.arange(1, steps + 1)
            share = (decisive[single][None, :] <= steps_all[:, None]).mean(axis=1)
            decided.append(pl.DataFrame({**{k: [v] * steps for k, v in key.items()},
                                         "step": steps_all, "share_decided": share}))
    return {"summary": pl.DataFrame(summary) if summary else pl.DataFrame(),
            "leader": pl.concat(leader, how="diagonal") if leader else pl.DataFrame(),
            "comeback": pl.concat(comeback, how="diagonal") if comeback else pl.DataFrame(),
            "changes": pl.concat(changes) if changes else pl.DataFrame(),
            "decided": pl.concat(decided) if decided else pl.DataFrame()}


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
        games=pl.len().cast(pl.Int64), sd=pl.col("length").std(),
        minimum=pl.col("length").min(), q05=pl.col("length").quantile(0.05, "lower"),
        median=pl.col("length").quantile(0.5, "lower"),
        q95=pl.col("length").quantile(0.95, "lower"), maximum=pl.col("length").max())
    counts = (per_game.group_by([*PANEL, "length"]).agg(games=pl.len().cast(pl.Int64))
              .sort([*PANEL, "length"]))
    table = spread.join(means.select(*PANEL, "mean", "mean_low", "mean_high"), on=PANEL)
    return table.sort(PANEL), counts
