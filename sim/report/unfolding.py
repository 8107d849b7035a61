"""The report's "how games unfold" section (batches with the score trace) and game length;
a step is what the game calls it (``Game.trace_step``: a round, a turn). Statistics:
``sim.stats.unfolding``."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.registry import get_game
from sim.report import plots
from sim.report.document import Block, Figure, Heading, Paragraph, Table
from sim.report.numbers import count, half_width, number, percent, percent_ci, with_ci
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis
from sim.stats.unfolding import MAX_CHANGES_SHOWN


def _panel(frame: pl.DataFrame | None, players: int, rules: str) -> pl.DataFrame | None:
    if frame is None or frame.is_empty():
        return None
    selected = frame.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    return selected if not selected.is_empty() else None


def leader_chart(leader: pl.DataFrame | None, players: int, rules: str,
                 step: str) -> bytes | None:
    """The sole leader's win probability after each step, with its 95% band and the share a
    seat wins by chance."""
    panel = _panel(leader, players, rules)
    if panel is None:
        return None
    panel = panel.sort("step")
    steps = panel["step"].to_numpy()
    rate = 100 * panel["leader_win_rate"].to_numpy()
    with plots._figure(1, f"How often the leader after each {step} wins") as (figure, axes):
        axis = axes[0]
        axis.plot(steps, rate, marker="o", linewidth=2, color=plots.NEUTRAL,
                  label=f"the sole leader after that {step}")
        axis.fill_between(steps, 100 * panel["leader_win_rate_low"].to_numpy(),
                          100 * panel["leader_win_rate_high"].to_numpy(), color=plots.NEUTRAL,
                          alpha=0.2, label="95% interval")
        axis.axhline(100 / players, color="black", linestyle="--", linewidth=1.2,
                     label=f"a seat's chance with no information ({100 / players:.0f}%)")
        axis.set_ylim(0, 100)
        axis.set_xticks(steps)
        axis.set_xlabel(f"{step.capitalize()} completed")
        axis.set_ylabel("Leader goes on to win (% of games)")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(loc="lower right")
        return plots._png(figure)


def comeback_chart(comeback: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """Win rate by the deficit to the leader at halfway, with 95% intervals."""
    panel = _panel(comeback, players, rules)
    if panel is None:
        return None
    panel = panel.sort("bin")
    rate = 100 * panel["win_rate"].to_numpy()
    error = np.vstack([rate - 100 * panel["win_rate_low"].to_numpy(),
                       100 * panel["win_rate_high"].to_numpy() - rate])
    positions = np.arange(panel.height)
    with plots._figure(1, "Comeback odds: win rate by the deficit at halfway") as (figure, axes):
        axis = axes[0]
        axis.bar(positions, rate, color=plots.NEUTRAL, alpha=0.85)
        axis.errorbar(positions, rate, yerr=np.maximum(error, 0), fmt="none", ecolor="black",
                      capsize=5)
        axis.axhline(100 / players, color="black", linestyle="--", linewidth=1.2,
                     label=f"a seat's chance with no information ({100 / players:.0f}%)")
        labels = [f"{d}\n(n = {n:,})" for d, n in zip(panel["deficit"], panel["player_games"],
                                                      strict=True)]
        axis.set_xticks(positions, labels, fontsize=11)
        axis.set_xlabel("Points behind the leader at halfway")
        axis.set_ylabel("Goes on to win (% of player-games)")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(loc="upper right")
        return plots._png(figure)


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
        parts.append(f"the leader at halfway goes on to win "
                     f"{percent_ci(row['halfway_leader_win_rate'], row['halfway_leader_win_rate_low'], row['halfway_leader_win_rate_high'])}"  # noqa: E501
                     f" of the games (a seat wins {100 / players:.0f}% with no information);")
    if row.get("decisive_step") is not None:
        parts.append(f"the winner takes the lead for good after {step} "
                     f"{number(row['decisive_step'], 1)} on average "
                     f"({percent(row['decisive_share'], 0)} of the way through the game).")
    return " ".join(parts)


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
        f"is {step} ceil(length / 2); the winner takes the lead for good after the first "
        f"{step} from which no seat is ahead of them to the end (games won in a tie left out). "
        f"Rates are cluster-robust over deals (95% intervals)."))
    blocks += [Paragraph(summary_sentence(r, step))
               for r in tables["summary"].iter_rows(named=True)]
    for name, caption in (("leader", f"How often the sole leader after each {step} goes on to "
                                     f"win, with its 95% interval."),
                          ("comeback", "Win rate of the seats that were that many points "
                                       "behind the leader at halfway, with 95% intervals.")):
        if name in figures:
            blocks.append(Figure(name, figures[name], caption))
    if not tables["leader"].is_empty():
        blocks.append(Table(
            ("Players", "Rules", step.capitalize(), "Games played that far",
             "Games with a sole leader", "Leader goes on to win (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—", str(r["step"]),
                   count(r["games_played"]), count(r["games_led"]),
                   percent_ci(r["leader_win_rate"], r["leader_win_rate_low"],
                              r["leader_win_rate_high"]))
                  for r in tables["leader"].iter_rows(named=True))))
    if not tables["comeback"].is_empty():
        blocks.append(Table(
            ("Players", "Rules", "Behind the leader at halfway (points)", "Player-games",
             "Mean deficit", "Goes on to win (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—", r["deficit"], count(r["player_games"]),
                   number(r["mean_deficit"], 1),
                   percent_ci(r["win_rate"], r["win_rate_low"], r["win_rate_high"]))
                  for r in tables["comeback"].iter_rows(named=True))))
    for (players, rules), part in tables["changes"].group_by(["players", "rules"],
                                                             maintain_order=True):
        shares = ", ".join(
            f"{'none' if r['lead_changes'] == 0 else r['lead_changes']}"
            f"{' or more' if r['lead_changes'] == MAX_CHANGES_SHOWN else ''} in "
            f"{percent(r['share'])}" for r in part.sort("lead_changes").iter_rows(named=True))
        where = f"{players} players" + (f", {rules}" if rules else "")
        blocks.append(Paragraph(f"{where}, lead changes per game: {shares} of the games."))
    for (players, rules), part in tables["decided"].group_by(["players", "rules"],
                                                             maintain_order=True):
        shares = ", ".join(f"after {step} {r['step']}: {percent(r['share_decided'], 0)}"
                           for r in part.sort("step").iter_rows(named=True))
        where = f"{players} players" + (f", {rules}" if rules else "")
        blocks.append(Paragraph(f"{where}, games whose winner already has the lead for good "
                                f"(games with a single winner): {shares}."))
    return blocks + _length_blocks(analysis)


def unfolding_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The unfolding numbers in ``summary.parquet``'s long schema."""
    tables = analysis.unfolding or {}
    return [
        long_rows("unfolding", tables.get("summary"),
                  ["games", "steps_mean", "lead_changes", "no_lead_change",
                   "halfway_leader_win_rate", "decisive_step", "decisive_share"]),
        long_rows("unfolding", tables.get("leader"), ["games_led", "leader_win_rate"],
                  ["step"]),
        long_rows("unfolding", tables.get("comeback"), ["player_games", "win_rate"],
                  ["deficit"]),
        long_rows("unfolding", tables.get("changes"), ["share"], ["lead_changes"]),
        long_rows("unfolding", tables.get("decided"), ["share_decided"], ["step"]),
        long_rows("game length", analysis.game_length, ["games", "mean", "sd", "minimum",
                                                        "median", "maximum"]),
    ]
