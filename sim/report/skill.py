"""The report's "how much skill matters" section: the strategies' ladder and how the score's
variance splits between strategy, seat and deal. Statistics: ``sim.stats.skill``."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.report import plots
from sim.report.document import Block, Heading, Paragraph, Table, figure_if_drawn
from sim.report.numbers import count, percent_ci, with_ci
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis
from sim.stats.skill import FIELD, STRONGEST

COMPONENT_WORDS = {"strategy": "the strategy", "seat": "the seat", "deal": "the deal",
                   "rest": "the rest (between replays of a deal)"}
# In the field's split the deal's share is of the whole variance, strategy differences
# included: not the report's deal share (the ICC), so it says so where it appears.
FIELD_DEAL_WORDS = "the deal (of the whole variance, strategy differences included)"


def component_words(component: str, field: str) -> str:
    """A component's name in the split of ``field``."""
    if component == "deal" and field == FIELD:
        return FIELD_DEAL_WORDS
    return COMPONENT_WORDS[component]
COMPONENT_COLOURS = {"strategy": "#d62728", "seat": "#ff7f0e", "deal": "#1f77b4",
                     "rest": "#c7c7c7"}


def variance_chart(split: pl.DataFrame | None, players: int, rules: str) -> bytes | None:
    """One stacked bar: each component's share of the variance of a player's score."""
    if split is None:
        return None
    panel = split.filter((pl.col("players") == players) & (pl.col("rules") == rules)
                         & (pl.col("field") == FIELD))
    if panel.is_empty():
        return None
    with plots.styled_figure(1, "What a player's score depends on, for this field of players "
                                "(share of its variance)") as (
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
        return plots.png_bytes(figure)


def skill_figures(analysis: BatchAnalysis, panel: tuple[int, str]) -> dict[str, bytes]:
    """The variance split of the main panel."""
    png = variance_chart(analysis.variance_split, *panel)
    return {"skill": png} if png is not None else {}


def _shares_text(panel: pl.DataFrame) -> str:
    return ", ".join(f"{component_words(r['component'], r['field'])} "
                     f"{percent_ci(r['share'], r['share_low'], r['share_high'])}"
                     for r in panel.iter_rows(named=True))


def split_sentence(panel: pl.DataFrame) -> str:
    """The variance split of one panel in plain words: for this field of players, and over the
    strongest strategy's own player-games."""
    field = panel.filter(pl.col("field") == FIELD)
    first = field.row(0, named=True)
    text = (f"{first['players']} players, for this field of players: of the variance of a "
            f"player's score (SD {np.sqrt(first['variance']):.1f} points), "
            + _shares_text(field)
            + f" ({count(first['deals'])} deals, {first['games_per_deal']:.3g} games each).")
    own = panel.filter(pl.col("field") == STRONGEST)
    if not own.is_empty():
        row = own.row(0, named=True)
        name = row["field_strategy"]
        text += (f" Over {name}'s own {count(row['player_games'])} player-games (the strongest "
                 f"by win rate; its seats and deals only, so the strategy is fixed: what is "
                 f"left when every seat plays like {name}, against this batch's opponents), "
                 f"of the variance of its score (SD {np.sqrt(row['variance']):.1f} points): "
                 + _shares_text(own) + ".")
    return text


def _deal_share_reference(analysis: BatchAnalysis) -> str:
    """Where the report's one deal share is, with its value when the batch has it."""
    variance = analysis.deal_variance
    pooled = (variance.filter(pl.col("seat").is_null()) if variance is not None
              else pl.DataFrame())
    if pooled.is_empty():
        return ("The deal's share here is of the whole variance, strategy differences "
                "included (no deal is replayed, so the report has no share of a seat's "
                "variance with the strategy fixed).")
    values = "; ".join(
        f"{r['players']} players{', ' + r['rules'] if r['rules'] else ''}: "
        f"{percent_ci(r['icc'], r['icc_low'], r['icc_high'])}"
        for r in pooled.iter_rows(named=True))
    return ("The deal's share here is of the whole variance, strategy differences included. "
            "The report's deal share is the one in \"Deal variance: what the deal decides\" "
            f"(all seats): the share of a seat's score variance with the strategy fixed, "
            f"{values}.")


def skill_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """The ladder and the variance split (only for batches with several strategies)."""
    if analysis.ladder is None and analysis.variance_split is None:
        return []
    blocks: list[Block] = [Heading("How much skill matters")]
    if analysis.ladder is not None:
        blocks.append(Paragraph(
            "The ladder, weakest to strongest: mean score and win rate with 95% intervals from "
            "per-deal means, and a Bradley-Terry rating on the Elo scale (mean 0) by rank "
            "(the game's tie-break): every pair of seats of a game is a comparison, the seat "
            "the game ranks higher wins it (ties on points decided as the game decides them; "
            "a place the game leaves shared counts half each), with a 95% interval from 1,000 "
            "resamples of the deals. A rating gap of 100 means the stronger strategy finishes "
            "ahead of the weaker about 64% of the time."))
        blocks.append(Table(
            ("Players", "Rules", "Place", "Strategy", "Seat-games", "Mean score (95% CI)",
             "Win rate (95% CI)", "Rating by rank (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—", str(r["place"]), r["strategy"],
                   count(r["seat_games"]), with_ci(r["mean"], r["mean_low"], r["mean_high"]),
                   percent_ci(r["win_rate"], r["win_rate_low"], r["win_rate_high"]),
                   with_ci(r["rating"], r["rating_low"], r["rating_high"], 0))
                  for r in analysis.ladder.iter_rows(named=True))))
    if analysis.variance_split is not None:
        blocks.append(Paragraph(
            "How the variance of a player's score splits, for this field of players (the "
            "strategies chosen for this batch: another field splits differently, so the "
            "strategy's share describes these bots, not the game): the strategy's and the "
            "seat's effects (fitted within deals, so neither is credited with the deals it "
            "met), the deal's share (the between-deal variance of what is left, one-way "
            "ANOVA), and the rest, which varies between replays of the same deal (the "
            "strategies' random choices and tie-breaks). Beside it, the same split over the "
            "strongest strategy's own player-games (its seats and deals only); a field where "
            "every seat is the strongest strategy needs a batch of its own. 95% intervals from "
            "1,000 resamples of the deals, inside 0-100%. With one game per deal, the deal's "
            "share also holds what the seats of one game share beyond the deal."))
        blocks.append(Paragraph(
            "The seat's share is of score variance (how far the seats' mean scores differ, "
            "squared, against the spread of all scores), so it is tiny even when the seats' "
            "win rates differ by a few percentage points; whether seats are fair is judged on "
            "win rates, in the seat section. " + _deal_share_reference(analysis)))
        blocks += figure_if_drawn(figures, "skill",
                                  "Shares of the variance of a player's score.")
        for _, panel in analysis.variance_split.group_by(["players", "rules"],
                                                         maintain_order=True):
            blocks.append(Paragraph(split_sentence(panel)))
        blocks.append(Table(
            ("Players", "Rules", "Player-games", "Component", "Share of the variance (95% CI)"),
            tuple((str(r["players"]), r["rules"] or "—",
                   "this field" if r["field"] == FIELD
                   else f"{r['field_strategy']}'s own (the strongest)",
                   component_words(r["component"], r["field"]),
                   percent_ci(r["share"], r["share_low"], r["share_high"]))
                  for r in analysis.variance_split.iter_rows(named=True))))
    return blocks


def skill_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The ladder and the variance split in ``summary.parquet``'s long schema."""
    return [long_rows("skill", analysis.ladder, ["place", "seat_games", "mean", "win_rate",
                                                 "rating"]),
            long_rows("skill", analysis.variance_split, ["share"], ["field", "component"])]
