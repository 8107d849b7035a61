"""The report's "how games unfold" section (batches with the score trace) and game length;
a step is what the game calls it (``Game.trace_step``: a round, a turn). Statistics:
``sim.stats.unfolding``."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.registry import get_game
from sim.report import plots
from sim.report.document import Block, Heading, Paragraph, Table, figure_if_drawn
from sim.report.findings import panel_rows
from sim.report.numbers import (
    count,
    half_width,
    number,
    percent,
    percent_ci,
    signed,
    with_ci,
)
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis
from sim.stats.unfolding import LENGTH_SHARE_SHOWN, LENGTHS_SHOWN, MAX_CHANGES_SHOWN


def leader_chart(leader: pl.DataFrame | None, players: int, rules: str,
                 step: str) -> bytes | None:
    """For the games of the commonest length: the sole leader's win rate after each step before
    the last, with its 95% band, against what the leader's strategy at its seat wins anyway."""
    panel = panel_rows(leader, players, rules)
    if panel is None:
        return None
    commonest = panel.sort(["length_games", "length"], descending=[True, False])["length"][0]
    panel = panel.filter(pl.col("length") == commonest).sort("step")
    steps = panel["step"].to_numpy()
    rate = 100 * panel["leader_win_rate"].to_numpy()
    title = f"How often the leader after each {step} wins (games of {commonest} {step}s)"
    with plots.styled_figure(1, title) as (figure, axes):
        axis = axes[0]
        axis.plot(steps, rate, marker="o", linewidth=2, color=plots.NEUTRAL,
                  label=f"the sole leader after that {step}")
        axis.fill_between(steps, 100 * panel["leader_win_rate_low"].to_numpy(),
                          100 * panel["leader_win_rate_high"].to_numpy(), color=plots.NEUTRAL,
                          alpha=0.2, label="95% interval")
        axis.plot(steps, 100 * panel["expected_win_rate"].to_numpy(), color="black",
                  linestyle="--", linewidth=1.2, marker="x",
                  label="what the leader's strategy at its seat wins anyway")
        axis.set_ylim(0, 100)
        axis.set_xticks(steps)
        axis.set_xlabel(f"{step.capitalize()} completed (of {commonest})")
        axis.set_ylabel("Leader goes on to win (% of games)")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(loc="lower right")
        return plots.png_bytes(figure)


def comeback_chart(comeback: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """Win rate by the deficit to the leader at halfway, with 95% intervals."""
    panel = panel_rows(comeback, players, rules)
    if panel is None:
        return None
    panel = panel.sort("bin")
    rate = 100 * panel["win_rate"].to_numpy()
    error = np.vstack([rate - 100 * panel["win_rate_low"].to_numpy(),
                       100 * panel["win_rate_high"].to_numpy() - rate])
    positions = np.arange(panel.height)
    title = "Comeback odds: win rate by the deficit at halfway"
    with plots.styled_figure(1, title) as (figure, axes):
        axis = axes[0]
        axis.bar(positions, rate, color=plots.NEUTRAL, alpha=0.85)
        axis.errorbar(positions, rate, yerr=np.maximum(error, 0), fmt="none", ecolor="black",
                      capsize=5)
        axis.plot(positions, 100 * panel["expected_win_rate"].to_numpy(), color="#d62728",
                  linestyle="none", marker="D", markersize=8,
                  label="what their strategies at their seats win anyway")
        labels = [f"{d}\n(n = {n:,})" for d, n in zip(panel["deficit"], panel["player_games"],
                                                      strict=True)]
        axis.set_xticks(positions, labels, fontsize=11)
        axis.set_xlabel("Points behind the leader at halfway")
        axis.set_ylabel("Goes on to win (% of player-games)")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(loc="upper right")
        return plots.png_bytes(figure)


def unfolding_figures(analysis: BatchAnalysis, panel: tuple[int, str]) -> dict[str, bytes]:
    """The two unfolding charts of the main panel."""
    if analysis.unfolding is None:
        return {}
    step = get_game(analysis.batch.game).trace_step
    players, rules = panel
    drawn = {"leader": leader_chart(analysis.unfolding["leader"], players, rules, step),
             "comeback": comeback_chart(analysis.unfolding["comeback"], players, rules)}
    return {name: png for name, png in drawn.items() if png is not None}


def summary_sentence(row: dict, step: str) -> str:
    """The panel's unfolding in plain words."""
    players = row["players"]
    parts = [f"{players} players, {row['games']:,} games of "
             + (f"{row['steps_min']} {step}s" if row["steps_min"] == row["steps_max"] else
                f"{row['steps_min']} to {row['steps_max']} {step}s (mean "
                f"{number(row['steps_mean'], 1)})") + ":"]
    if row.get("lead_changes") is not None:
        parts.append(f"the lead changes hands {number(row['lead_changes'], 2)} times per game "
                     f"(±{number(half_width(row['lead_changes'], row['lead_changes_low'], row['lead_changes_high']), 2)}),"  # noqa: E501
                     f" and {percent(row['no_lead_change'])} of games never see a change of "
                     f"leader;")
    if row.get("halfway_leader_win_rate") is not None:
        parts.append(f"the leader at halfway (after {step} ceil(L/2) of a game of L {step}s) "
                     f"goes on to win "
                     f"{percent_ci(row['halfway_leader_win_rate'], row['halfway_leader_win_rate_low'], row['halfway_leader_win_rate_high'])}"  # noqa: E501
                     f" of the games, where its strategy at its seat wins "
                     f"{percent(row['halfway_leader_expected'])} of all its games: "
                     f"{information_text(row, 'halfway_information')};")
    if row.get("decisive_step") is not None:
        parts.append(f"the winner takes the lead for good after {step} "
                     f"{number(row['decisive_step'], 1)} on average "
                     f"({percent(row['decisive_share'], 0)} of the way through the game).")
    return " ".join(parts)


def information_text(row: dict, name: str) -> str:
    """The information gained by a lead in percentage points with its interval, and whether
    the interval excludes zero."""
    value, low, high = row[name], row[f"{name}_low"], row[f"{name}_high"]
    if low is None or np.isnan(low):
        return f"the lead goes with {signed(100 * value)} percentage points (one deal, no interval)"
    shown = f"95% CI {signed(100 * low)} to {signed(100 * high)}"
    if low > 0 or high < 0:
        return (f"the lead goes with {abs(100 * value):.1f} percentage points "
                f"{'more' if value > 0 else 'fewer'} wins than that ({shown})")
    return f"the lead gives no detectable information beyond that ({shown})"


def _lengths_paragraph(tables: dict, step: str) -> Paragraph | None:
    """Which game lengths the per-step tables show, and how many games each."""
    lengths = tables.get("lengths")
    if lengths is None or lengths.is_empty():
        return None
    parts = []
    for (players, rules), part in lengths.group_by(["players", "rules"], maintain_order=True):
        shown = part.filter(pl.col("shown")).sort(["games", "length"], descending=[True, False])
        hidden = part.filter(~pl.col("shown"))
        where = f"{players} players" + (f", {rules}" if rules else "")
        text = f"{where}: " + ", ".join(
            f"{r['length']} {step}s ({count(r['games'])} games, {percent(r['share'])})"
            for r in shown.iter_rows(named=True))
        if not hidden.is_empty():
            text += (f"; {count(hidden['games'].sum())} games of other lengths "
                     f"({percent(hidden['share'].sum())}) are left out of them")
        parts.append(text)
    return Paragraph(
        f"The per-{step} tables keep games of different lengths apart (a game of L {step}s "
        f"is only compared with games of L {step}s) and stop before the last {step}, after "
        f"which the leader has won by definition. They show the lengths of at least "
        f"{LENGTH_SHARE_SHOWN:.0%} of the games, at most {LENGTHS_SHOWN}: "
        + "; ".join(parts) + ".")


def _length_blocks(analysis: BatchAnalysis) -> list[Block]:
    if analysis.game_length is None:
        return []
    blocks: list[Block] = [Heading("Game length", 3)]
    blocks.append(Table(
        ("Players", "Rules", "Games", "Turns per player: mean (95% CI)", "SD", "Min", "5%",
         "Median", "95%", "Max"),
        tuple((str(r["players"]), r["rules"] or "—", count(r["games"]),
               with_ci(r["mean"], r["mean_low"], r["mean_high"]), number(r["sd"]),
               number(r["minimum"], 0), number(r["q05"], 0), number(r["median"], 0),
               number(r["q95"], 0), number(r["maximum"], 0))
              for r in analysis.game_length.iter_rows(named=True))))
    counts = analysis.game_length_counts
    if counts is not None and not counts.is_empty():
        totals = counts.group_by(["players", "rules"]).agg(total=pl.col("games").sum())
        shares = counts.join(totals, on=["players", "rules"])
        blocks.append(Paragraph("Games by length: " + "; ".join(
            f"{r['players']} players{', ' + r['rules'] if r['rules'] else ''}, "
            f"{int(r['length'])} turns: {percent(r['games'] / r['total'])}"
            for r in shares.iter_rows(named=True)) + "."))
    return blocks


def unfolding_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """The "how games unfold" section: with the score trace, lead changes, the leader's
    chances, comebacks and decisiveness; game length when the game's games vary."""
    game = get_game(analysis.batch.game)
    if analysis.unfolding is None and analysis.game_length is None:
        return []
    step = game.trace_step
    blocks: list[Block] = [Heading("How games unfold")]
    if analysis.unfolding is None:
        blocks.append(Paragraph(f"Lead changes, the leader's chances and comebacks need every "
                                f"seat's score after each {step}: run the batch with --trace."))
        return blocks + _length_blocks(analysis)
    tables = analysis.unfolding
    blocks.append(Paragraph(
        f"From every seat's score after each {step} (the score trace). The leader is the seat "
        f"ahead alone (a tie at the top has none); a lead change is a new sole leader; halfway "
        f"in a game of L {step}s is after {step} ceil(L/2) (after {step} 5 of 9, 4 of 8); the "
        f"winner takes the lead for good after the first {step} from which no seat is ahead of "
        f"them to the end (games won in a tie left out). A leader's chance is compared with "
        f"what its strategy at its seat wins over the whole batch (its expected win rate; a "
        f"strong strategy leads often and wins often anyway), not with one over the number "
        f"of players: the difference is the information the lead gives. Rates "
        f"are cluster-robust over deals (95% intervals; win rates Wilson intervals at the "
        f"clustered effective sample size, inside 0-100%)."))
    blocks += [Paragraph(summary_sentence(r, step))
               for r in tables["summary"].iter_rows(named=True)]
    lengths_note = _lengths_paragraph(tables, step)
    if lengths_note is not None:
        blocks.append(lengths_note)
    for name, caption in (("leader", f"How often the sole leader after each {step} goes on to "
                                     f"win, with its 95% interval, in the games of the "
                                     f"commonest length, against what the leader's strategy "
                                     f"at its seat wins anyway."),
                          ("comeback", "Win rate of the seats that were that many points "
                                       "behind the leader at halfway, with 95% intervals, "
                                       "and what their strategies at their seats win "
                                       "anyway.")):
        blocks += figure_if_drawn(figures, name, caption)
    if not tables["leader"].is_empty():
        blocks.append(Table(
            ("Players", "Rules", f"Game length ({step}s)", step.capitalize(),
             "Games with a sole leader", "Leader goes on to win (95% CI)",
             "Its strategy at its seat wins", "Information gained (pp, 95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—",
                   f"{r['length']} ({count(r['length_games'])} games)", str(r["step"]),
                   count(r["games_led"]),
                   percent_ci(r["leader_win_rate"], r["leader_win_rate_low"],
                              r["leader_win_rate_high"]),
                   percent(r["expected_win_rate"]),
                   with_ci(100 * r["information"], 100 * r["information_low"],
                           100 * r["information_high"], 1))
                  for r in tables["leader"].iter_rows(named=True))))
    if not tables["comeback"].is_empty():
        blocks.append(Table(
            ("Players", "Rules", "Behind the leader at halfway (points)", "Player-games",
             "Mean deficit", "Goes on to win (95% CI)", "Their strategies at their seats win"),
            tuple((str(r["players"]), r["rules"] or "—", r["deficit"], count(r["player_games"]),
                   number(r["mean_deficit"], 1),
                   percent_ci(r["win_rate"], r["win_rate_low"], r["win_rate_high"]),
                   percent(r["expected_win_rate"]))
                  for r in tables["comeback"].iter_rows(named=True))))
    for (players, rules), part in tables["changes"].group_by(["players", "rules"],
                                                             maintain_order=True):
        shares = ", ".join(
            f"{'none' if r['lead_changes'] == 0 else r['lead_changes']}"
            f"{' or more' if r['lead_changes'] == MAX_CHANGES_SHOWN else ''} in "
            f"{percent(r['share'])}" for r in part.sort("lead_changes").iter_rows(named=True))
        where = f"{players} players" + (f", {rules}" if rules else "")
        blocks.append(Paragraph(f"{where}, lead changes per game: {shares} of the games."))
    for (players, rules, length), part in tables["decided"].group_by(
            ["players", "rules", "length"], maintain_order=True):
        shares = ", ".join(f"after {step} {r['step']}: {percent(r['share_decided'], 0)}"
                           for r in part.sort("step").iter_rows(named=True))
        where = f"{players} players" + (f", {rules}" if rules else "")
        blocks.append(Paragraph(
            f"{where}, games of {length} {step}s ({count(part['games'][0])} with a single "
            f"winner), games whose winner already has the lead for good: {shares}."))
    return blocks + _length_blocks(analysis)


def unfolding_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The unfolding numbers in ``summary.parquet``'s long schema."""
    tables = analysis.unfolding or {}
    return [
        long_rows("unfolding", tables.get("summary"),
                  ["games", "steps_mean", "lead_changes", "no_lead_change",
                   "halfway_leader_win_rate", "halfway_leader_expected", "halfway_information",
                   "decisive_step", "decisive_share"]),
        long_rows("unfolding", tables.get("lengths"), ["games", "share"], ["length"]),
        long_rows("unfolding", tables.get("leader"),
                  ["games_led", "leader_win_rate", "expected_win_rate", "information"],
                  ["length", "step"]),
        long_rows("unfolding", tables.get("comeback"),
                  ["player_games", "win_rate", "expected_win_rate"], ["deficit"]),
        long_rows("unfolding", tables.get("changes"), ["share"], ["lead_changes"]),
        long_rows("unfolding", tables.get("decided"), ["share_decided"], ["length", "step"]),
        long_rows("game length", analysis.game_length, ["games", "mean", "sd", "minimum",
                                                        "median", "maximum"]),
    ]
