"""The report's "how much skill matters" section: the strategies' ladder and how the score's
variance splits between strategy, seat and deal. Statistics: ``sim.stats.skill``."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.report import plots
from sim.report.document import Block, Figure, Heading, Paragraph, Table
from sim.report.numbers import count, percent_ci, with_ci
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis

COMPONENT_WORDS = {"strategy": "the strategy", "seat": "the seat", "deal": "the deal",
                   "rest": "the rest (play and each game's own luck)"}
COMPONENT_COLOURS = {"strategy": "#d62728", "seat": "#ff7f0e", "deal": "#1f77b4",
                     "rest": "#c7c7c7"}


def variance_chart(split: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """One stacked bar: each component's share of the variance of a player's score."""
    if split is None:
        return None
    panel = split.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    if panel.is_empty():
        return None
    with plots._figure(1, "What a player's score depends on (share of its variance)") as (
            figure, axes):
        axis = axes[0]
        left = 0.0
        for row in panel.iter_rows(named=True):
            share = 100 * max(row["share"], 0.0)
            axis.barh([0], [share], left=left, color=COMPONENT_COLOURS[row["component"]],
                      label=f"{COMPONENT_WORDS[row['component']]}: {share:.1f}%")
            left += share
        axis.set_xlim(0, 100)
        axis.set_yticks([])
        axis.set_xlabel("Share of the variance of a player's score (%)")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.25), ncol=2)
        return plots._png(figure)


def skill_figures(analysis: BatchAnalysis, panel: tuple[int, str]) -> dict[str, bytes]:
    """The variance split of the main panel."""
    png = variance_chart(analysis.variance_split, *panel)
    return {"skill": png} if png is not None else {}


def split_sentence(panel: pl.DataFrame) -> str:
    """The variance split of one panel in plain words."""
    rows = {r["component"]: r for r in panel.iter_rows(named=True)}
    parts = [f"{COMPONENT_WORDS[name]} {percent_ci(max(r['share'], 0.0), max(r['share_low'], 0.0), r['share_high'])}"  # noqa: E501
             for name, r in rows.items()]
    first = panel.row(0, named=True)
    return (f"{first['players']} players: of the variance of a player's score "
            f"(SD {np.sqrt(first['variance']):.1f} points), " + ", ".join(parts)
            + f" ({count(first['deals'])} deals, {first['games_per_deal']:.3g} games each).")


def skill_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """The ladder and the variance split (only for batches with several strategies)."""
    if analysis.ladder is None and analysis.variance_split is None:
        return []
    blocks: list[Block] = [Heading("How much skill matters")]
    if analysis.ladder is not None:
        blocks.append(Paragraph(
            "The ladder, weakest to strongest: mean score and win rate with 95% intervals from "
            "per-deal means, and a Bradley-Terry rating on the Elo scale (mean 0) from every "
            "pair of seats within a game (ties half), with a 95% interval from 1,000 "
            "resamples of the deals. A rating gap of 100 means the stronger strategy finishes "
            "ahead of the weaker about 64% of the time."))
        blocks.append(Table(
            ("Players", "Rules", "Place", "Strategy", "Seat-games", "Mean score (95% CI)",
             "Win rate (95% CI)", "Rating (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—", str(r["place"]), r["strategy"],
                   count(r["seat_games"]), with_ci(r["mean"], r["mean_low"], r["mean_high"]),
                   percent_ci(r["win_rate"], r["win_rate_low"], r["win_rate_high"]),
                   with_ci(r["rating"], r["rating_low"], r["rating_high"], 0))
                  for r in analysis.ladder.iter_rows(named=True))))
    if analysis.variance_split is not None:
        blocks.append(Paragraph(
            "How the variance of a player's score splits: the strategy's and the seat's "
            "effects (fitted within deals, so neither is credited with the deals it met), the "
            "deal's share (the between-deal variance of what is left, one-way ANOVA), and the "
            "rest: the play and each game's own luck. 95% intervals from 1,000 resamples of "
            "the deals. With one game per deal, the deal's share also holds what the seats of "
            "one game share beyond the deal."))
        if "skill" in figures:
            blocks.append(Figure("skill", figures["skill"],
                                 "Shares of the variance of a player's score."))
        for _, panel in analysis.variance_split.group_by(["players", "rules"],
                                                         maintain_order=True):
            blocks.append(Paragraph(split_sentence(panel)))
        blocks.append(Table(
            ("Players", "Rules", "Component", "Share of the variance (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—", COMPONENT_WORDS[r["component"]],
                   percent_ci(r["share"], r["share_low"], r["share_high"]))
                  for r in analysis.variance_split.iter_rows(named=True))))
    return blocks


def skill_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The ladder and the variance split in ``summary.parquet``'s long schema."""
    return [long_rows("skill", analysis.ladder, ["place", "seat_games", "mean", "win_rate",
                                                 "rating"]),
            long_rows("skill", analysis.variance_split, ["share"], ["component"])]
