"""The report's card sections: cards taken from a face-up offer (e.g. a row of
animal cards to pick from) and cards dealt face down and kept (e.g. two dealt, one kept), in the
words the game gives them
(``Game.card_columns`` / ``Game.draft_columns``). Statistics: ``sim.stats.cards``."""

from __future__ import annotations

import re

import numpy as np
import polars as pl

from sim.games.registry import get_game
from sim.report import plots
from sim.report.document import Block, Heading, Paragraph, Picture, Table, figure_if_drawn
from sim.report.findings import panel_rows, pooled_estimates
from sim.report.names import NO_NAMES, ItemNames, ranked_ends
from sim.report.numbers import (
    article,
    count,
    half_width,
    has_interval,
    number,
    percent,
    percent_ci,
    setting_text,
    signed,
    with_ci,
)
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis
from sim.stats.cards import CARD_MARGIN, KEEP_TOLERANCE, keep_choice, settings_comparison

STRONG, WEAK, OTHER = "#e08214", "#5e3c99", "#9ab7d3"
VERDICT_COLOURS = {"strong": STRONG, "weak": WEAK}


def _plural(noun: str) -> str:
    return noun + "s"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def item_pictures(effects: pl.DataFrame | None, noun: str, names: ItemNames,
                  draft: bool = False) -> list[Picture]:
    """The drawings of the strongest and the weakest card of a panel (by the effect per card
    held, or kept, ``pooled_estimates`` rows), each captioned with its estimate and interval;
    nothing when the game draws no such card or the panel has no estimate."""
    if effects is None or effects.is_empty():
        return []
    # Only estimates with an interval: a card the deal barely moves has a point estimate that
    # can lie anywhere, and drawing it as "the strongest" would claim what is not known.
    ranked = effects.filter(pl.col("score_per_card_low").is_finite()
                            & pl.col("score_per_card_high").is_finite()).sort(
        ["score_per_card", "card"], descending=[True, False])
    if ranked.is_empty():
        return []
    per = "kept" if draft else "held"
    pictures = []
    for row, which in ranked_ends(ranked, "strongest", "weakest"):
        picture = names.picture(
            noun, row["card"],
            f"The {which} {noun} by its estimate (of the {ranked.height} with an interval): "
            f"{names.mention(noun, row['card'])}, {per_card_text(row, draft)} points per "
            f"{noun} {per} against the average (simultaneous 95% interval; verdict: "
            f"{_verdict_text(row)}).")
        if picture is not None:
            pictures.append(picture)
    return pictures


def _where(players: int, rules: str, game) -> str:
    return f"{players} players" + (f", {setting_text(game, rules)}" if rules else "")


def _verdict_words(verdict: str, margin: float, noun: str) -> str:
    return {
        "strong": f"too strong: its whole interval lies more than {margin:g} points above the "
                  f"average {noun}",
        "weak": f"too weak: its whole interval lies more than {margin:g} points below the "
                f"average {noun}",
        "fair": f"fair: shown to lie within ±{margin:g} points of the average {noun}",
        "undecided": f"undecided against the ±{margin:g}-point margin (its interval straddles "
                     f"it: play more games)",
    }[verdict]


def _named_list(cards: list[int], noun: str, names: ItemNames) -> str:
    return ", ".join(names.label(noun, card) for card in cards) if cards else "none"


# --- the randomised estimates in words ----------------------------------------------------------

def per_card_text(row: dict, draft: bool = False) -> str:
    """The effect per card held (kept) with its simultaneous interval, or why there is none."""
    if row.get("score_per_card") is None:
        return "–"
    low, high = row["score_per_card_low"], row["score_per_card_high"]
    if not has_interval(low, high):
        if not has_interval(row.get("first_stage_f"), row.get("first_stage_f")):
            # No variation at all: these players never keep (hold) the card, dealt or not.
            return "no interval: " + ("never kept" if draft else "never held")
        cause = "the deal barely changes who keeps it" if draft else \
            "the opening row barely changes who holds it"
        return (f"no interval: {cause} (first-stage F = "
                f"{number(row['first_stage_f'], 1)})")
    return f"{signed(row['score_per_card'])} ({signed(low)} to {signed(high)})"


def _verdict_text(row: dict) -> str:
    if row.get("verdict") is None:
        return row.get("verdict_reason") or "–"
    return row["verdict"]


def _ranked_sentences(effects: pl.DataFrame, noun: str, margin: float, draft: bool,
                      names: ItemNames = NO_NAMES) -> list[str]:
    """The strongest and weakest card per card held (kept), and the verdicts."""
    verb = "keeping" if draft else "holding"
    source = ("being dealt it" if draft else
              "its lying in the opening face-up row (which the deal sets)")
    ranked = effects.sort(["score_per_card", "card"], descending=[True, False])
    sentences = []
    for row, which in ((ranked.row(0, named=True), "the strongest"),
                       (ranked.row(ranked.height - 1, named=True), "the weakest")):
        itt_half = half_width(row["score_effect"], row["score_effect_low"],
                              row["score_effect_high"])
        verdict = (_verdict_words(row["verdict"], margin, noun) if row["verdict"]
                   else row["verdict_reason"])
        sentences.append(
            f"{_capitalised(names.mention(noun, row['card']))}, {which} estimate: {verb} it "
            f"is worth "
            f"{per_card_text(row, draft)} points against the average {noun} (per {noun} "
            f"{'kept' if draft else 'held'}; simultaneous 95% interval), estimated through "
            f"{source}, which changes the "
            f"player's score by {signed(row['score_effect'])} (±{number(itt_half, 1)}) and the "
            f"chance that the player {'keeps' if draft else 'holds'} it by "
            f"{signed(100 * row['first_stage'])} percentage points; it is {verdict}.")
    if ranked["verdict"].is_null().all():
        sentences.append(f"No verdict: {ranked['verdict_reason'][0]}.")
        return sentences
    strong = sorted(effects.filter(pl.col("verdict") == "strong")["card"].to_list())
    weak = sorted(effects.filter(pl.col("verdict") == "weak")["card"].to_list())
    fair = effects.filter(pl.col("verdict") == "fair").height
    undecided = effects.filter(pl.col("verdict") == "undecided").height
    unbounded = sum(1 for r in effects.iter_rows(named=True)
                    if not has_interval(r["score_per_card_low"], r["score_per_card_high"]))
    sentences.append(f"Shown too strong: {_named_list(strong, noun, names)}. Shown too weak: "
                     f"{_named_list(weak, noun, names)}. Shown fair (within ±{margin:g} points "
                     f"of the average {noun}): {fair} of {effects.height}; undecided: {undecided}"
                     + (f" ({unbounded} with no interval)" if unbounded else "") + ".")
    return sentences


# --- cards taken from the offer ------------------------------------------------------------------

def card_sentences(effects: pl.DataFrame, descriptives: pl.DataFrame | None, noun: str,
                   margin: float, names: ItemNames = NO_NAMES) -> list[str]:
    """The outliers of one panel in plain words: the strongest and the weakest card per card
    held with their intervals and verdicts, the verdicts, the holder association (worded as
    one) and the card most taken; cards by number and name (``names``)."""
    sentences = _ranked_sentences(effects, noun, margin, draft=False, names=names)
    holders = effects.filter(pl.col("holder_score").is_not_null())
    if not holders.is_empty():
        sentences.append(
            f"For comparison, not an effect: holders of {article(noun)} score "
            f"{number(holders['holder_score'].min(), 1)} to "
            f"{number(holders['holder_score'].max(), 1)} points more than players without "
            f"it, other things equal. Players hold cards because their game goes well (a "
            f"player must hold few unfinished cards to take one), so that gap measures the "
            f"holders as much as the {noun}.")
    if descriptives is not None and descriptives["take_rate"].is_not_null().any():
        taken = descriptives.filter(pl.col("take_rate").is_not_null())
        top = taken.sort(["take_rate", "card"], descending=[True, False]).row(0, named=True)
        low = taken.sort(["take_rate", "card"]).row(0, named=True)
        sentences.append(
            f"Players take {names.mention(noun, top['card'])} most readily: "
            f"{percent_ci(top['take_rate'], top['take_rate_low'], top['take_rate_high'])} of the "
            f"takes made while it lay face up (a random pick would take it "
            f"{percent(top['take_rate_random'])}); {names.mention(noun, low['card'])} least: "
            f"{percent_ci(low['take_rate'], low['take_rate_low'], low['take_rate_high'])}.")
    return sentences


def _per_card_bars(effects: pl.DataFrame | None, players: int, rules: str):
    """The panel's pooled cards sorted by their effect per card held, the effects and the error
    bars of their intervals (0 where there is no interval); None when the panel has none."""
    panel = pooled_estimates(panel_rows(effects, players, rules))
    if panel is None:
        return None
    panel = panel.sort(["score_per_card", "card"])
    effect = panel["score_per_card"].to_numpy()
    low = panel["score_per_card_low"].to_numpy()
    high = panel["score_per_card_high"].to_numpy()
    bounded = np.isfinite(low) & np.isfinite(high)
    error = np.vstack([np.where(bounded, effect - low, 0.0), np.where(bounded, high - effect,
                                                                      0.0)])
    return panel, effect, error, bounded


def _per_card_chart(effects, players: int, rules: str, noun: str, margin: float, title: str,
                    label: str, names: ItemNames = NO_NAMES) -> bytes | None:
    """One row per card (named: "31 ladybug"), weakest at the bottom, strongest at the top: its
    effect as a point, its interval as a bar, the margin band around 0."""
    bars = _per_card_bars(effects, players, rules)
    if bars is None:
        return None
    panel, effect, error, bounded = bars
    colours = [VERDICT_COLOURS.get(v, OTHER) if b else "white"
               for v, b in zip(panel["verdict"], bounded, strict=True)]
    positions = np.arange(panel.height)
    with plots.styled_figure(1, title, height=plots.item_chart_height(panel.height)) \
            as (figure, axes):
        axis = axes[0]
        axis.errorbar(effect, positions, xerr=error, fmt="none", ecolor="black", capsize=3,
                      linewidth=1.2)
        axis.scatter(effect, positions, c=colours, s=70, zorder=3, edgecolors="black",
                     linewidths=0.5)
        axis.axvspan(-margin, margin, color="grey", alpha=0.15)
        axis.axvline(0, color="black", linestyle="--", linewidth=1.2)
        # A rarely taken card's interval can span tens of points: the axis shows the
        # estimates and the usual intervals, and an arrow marks a bar that runs past it.
        widths = error[0] + error[1]
        typical = bounded & (widths <= 3.0 * np.median(widths[bounded])) if bounded.any() \
            else bounded
        ends = np.concatenate([effect - error[0], effect + error[1]])[np.tile(typical, 2)]
        limit = max(2.5 * margin, 1.15 * float(np.max(np.abs(effect))),
                    1.05 * float(np.max(np.abs(ends))) if ends.size else 0.0)
        axis.set_xlim(-limit, limit)
        for position, value, below, above, has in zip(positions, effect, error[0], error[1],
                                                      bounded, strict=True):
            if has and value + above > limit:
                axis.plot(limit, position, marker=">", color="black", clip_on=False)
            if has and value - below < -limit:
                axis.plot(-limit, position, marker="<", color="black", clip_on=False)
        # Every card named on its own row (number and name), so each stays legible.
        axis.set_yticks(positions, [names.label(noun, c) for c in panel["card"]])
        axis.set_ylim(-0.7, panel.height - 0.3)
        axis.grid(axis="y", visible=False)
        axis.set_xlabel(label, loc="right")
        axis.set_title(plots._panel_title(players, rules))
        # The legend lists only what the chart draws (no "too strong" when no card is).
        drawn = {v if b else "" for v, b in zip(panel["verdict"], bounded, strict=True)}
        handles = []
        if "strong" in drawn:
            handles.append(plots.Patch(color=STRONG, label="too strong"))
        if "weak" in drawn:
            handles.append(plots.Patch(color=WEAK, label="too weak"))
        if drawn - {"strong", "weak", ""}:
            handles.append(plots.Patch(color=OTHER, label="fair or undecided"))
        if "" in drawn:
            handles.append(plots.Patch(facecolor="white", edgecolor="black",
                                       label="no interval (weak first stage)"))
        handles.append(plots.Patch(color="grey", alpha=0.3,
                                   label=f"average {noun} ± {margin:g} points"))
        plots.legend_below(axis, handles)
        return plots.png_bytes(figure)


def card_chart(effects: pl.DataFrame | None, players: int, rules: str, noun: str,
               margin: float, names: ItemNames = NO_NAMES) -> bytes | None:
    """The cards ranked by their effect per card held against the average card (from the
    opening row), with simultaneous 95% intervals and the margin band; one row per card, by
    number and name."""
    return _per_card_chart(effects, players, rules, noun, margin,
                           f"Points per {noun} held (through the opening row)",
                           f"Points per {noun} held, against the average", names)


def _card_table(descriptives: pl.DataFrame | None, effects: pl.DataFrame | None,
                progress_noun: str, noun: str, names: ItemNames) -> Table:
    keys = ["card"]
    frame = descriptives if descriptives is not None else effects.select("card")
    if effects is not None:
        frame = frame.join(effects.drop("players", "rules", "strategy", "seat"), on=keys,
                           how="left")
    if "score_per_card" in frame.columns:
        frame = frame.sort(["score_per_card", "card"], descending=[True, False],
                           nulls_last=True)
    piece = progress_noun or "piece"
    header = ("Card", "Face up at a take", "Taken", "Take rate (95% CI)", "Random pick",
              "Completed (95% CI)", "Mean points (95% CI)", f"Points per {piece} (95% CI)",
              "In the opening row: score (95% CI)", "In the opening row: holds it, pp (95% CI)",
              "Per card held (simultaneous 95% CI)", "Verdict",
              "Holders score more (association, 95% CI)")
    rows = []
    for row in frame.iter_rows(named=True):
        def get(name, row=row):
            return row.get(name)

        rows.append((
            names.label(noun, row["card"]), count(get("offered")), count(get("taken")),
            percent_ci(get("take_rate"), get("take_rate_low"), get("take_rate_high")),
            percent(get("take_rate_random")),
            percent_ci(get("completion_rate"), get("completion_rate_low"),
                       get("completion_rate_high")),
            with_ci(get("mean_points"), get("mean_points_low"), get("mean_points_high")),
            with_ci(get("points_per_piece"), get("points_per_piece_low"),
                    get("points_per_piece_high")),
            with_ci(get("score_effect"), get("score_effect_low"), get("score_effect_high")),
            with_ci(*(100 * v if v is not None else None for v in (
                get("first_stage"), get("first_stage_low"), get("first_stage_high"))), 1),
            per_card_text(row), _verdict_text(row) if get("score_per_card") is not None
            else "–",
            with_ci(get("holder_score"), get("holder_score_low"), get("holder_score_high"))))
    return Table(header, tuple(rows))


def _strategy_table(effects: pl.DataFrame, noun: str, draft: bool,
                    names: ItemNames = NO_NAMES) -> Table | None:
    """Per card: the randomised effect (ITT) and the effect per card held (kept) for seat 1
    alone and for each strategy alone."""
    groups = effects.filter(pl.col("strategy").is_not_null() | pl.col("seat").is_not_null())
    if groups.is_empty():
        return None
    labels = []
    for strategy, seat in groups.select("strategy", "seat").unique().sort(
            ["strategy", "seat"], nulls_last=False).iter_rows():
        labels.append((strategy, seat, f"seat {seat}" if strategy is None else strategy))
    cards = sorted(set(groups["card"].to_list()))
    index = {(r["strategy"], r["seat"], r["card"]): r for r in groups.iter_rows(named=True)}
    rows = []
    for card in cards:
        cells = [names.label(noun, card)]
        for strategy, seat, _ in labels:
            row = index.get((strategy, seat, card))
            cells.append("–" if row is None else
                         f"{signed(row['score_effect'])} (±"
                         f"{number(half_width(row['score_effect'], row['score_effect_low'], row['score_effect_high']), 1)}); "  # noqa: E501
                         f"{per_card_text(row, draft)}")
        rows.append(tuple(cells))
    return Table((noun.capitalize(), *[label for _, _, label in labels]), tuple(rows))


def _settings_blocks(settings: pl.DataFrame | None, noun: str, game,
                     names: ItemNames = NO_NAMES) -> list[Block]:
    if settings is None:
        return []
    blocks: list[Block] = []
    for (players, setting, other), part in settings.group_by(
            ["players", "setting", "other_setting"], maintain_order=True):
        first, second = setting_text(game, setting), setting_text(game, other)
        part = part.sort("difference", descending=True)
        blocks.append(Paragraph(
            f"{players} players, {first} against {second}: the effect on a player's score of "
            f"each {noun} lying in the opening row (being dealt it) under each setting and the "
            f"difference (95% intervals; "
            f"the settings are taken as independent, which is conservative when they were "
            f"played on the same deals)."))
        blocks.append(Table(
            ("Card", first, second, "Difference (95% CI)"),
            tuple((names.label(noun, r["card"]), number(r["value"]), number(r["other_value"]),
                   with_ci(r["difference"], r["difference_low"], r["difference_high"]))
                  for r in part.iter_rows(named=True))))
    return blocks


def card_blocks(analysis: BatchAnalysis, figures: dict[str, bytes],
                names: ItemNames = NO_NAMES) -> list[Block]:
    """The card balance section (nothing for a game or batch without cards); cards by number
    and name (``names``), the strongest and the weakest drawn when the game draws them."""
    game = get_game(analysis.batch.game)
    spec = game.card_columns()
    if spec is None or (analysis.cards is None and analysis.card_effects is None):
        return []
    noun, margin = spec.noun, analysis.card_margin
    blocks: list[Block] = [Heading(f"Card balance: {_plural(noun)}")]
    blocks.append(Paragraph(
        f"Players choose which {_plural(noun)} they hold, and holding follows doing well, so "
        f"the holders' scores measure the holders. What the deal randomises is which "
        f"{_plural(noun)} lie in the opening face-up row (seat 1 always chooses from it). "
        f"Effect of the opening row: a regression over player-games of the score (and win "
        f"share) on which {_plural(noun)} lay in it (each against the average {noun}), seat and "
        f"strategy, cluster-robust by deal; the same regression of holding the {noun} at the "
        f"end gives how much the opening row changes who holds it (the first stage). Their "
        f"ratio is the effect per {noun} held (instrumental variables), with a Fieller "
        f"interval that holds together over all {_plural(noun)} (simultaneous 95%) and is "
        f"honest however weakly the row moves holding: when it cannot be told from no "
        f"change there is no interval. The opening-row effect needs no assumption; the effect "
        f"per {noun} held assumes the row changes a player's score only through the "
        f"{_plural(noun)} that player ends up holding, and since {article(noun)} in the row "
        f"takes another's place, it is the worth of holding it instead of the average {noun}. "
        f"Verdicts read only that interval against ±{margin:g} "
        f"points (sim report --card-margin): too strong or too weak only when the whole "
        f"interval lies beyond the margin, fair when it lies within, undecided otherwise. "
        f"Take rate: of the takes made while {article(noun)} lay face up, the share that "
        f"chose it (a random pick is shown beside it); completion, mean points and points per "
        f"{spec.progress_noun or 'piece'} are over the times it was taken."))
    players, rules = analysis.main_panel()
    for panel_players, panel_rules, everything, effects, descriptives in _panel_tables(
            analysis.cards, analysis.card_effects):
        blocks.append(Heading(_where(panel_players, panel_rules, game), 3))
        if effects is not None:
            blocks += [Paragraph(text) for text in card_sentences(effects, descriptives, noun,
                                                                  margin, names)]
        else:
            blocks.append(Paragraph(f"No randomised estimate for the {_plural(noun)}: the "
                                    f"batch records no opening row, or too few deals."))
        if (panel_players, panel_rules) == (players, rules):
            blocks += figure_if_drawn(
                figures, "cards",
                f"Each {noun}'s effect per card held, from the opening row, with its "
                f"simultaneous 95% interval, weakest to strongest; the band is ±{margin:g} "
                f"points around the average {noun}.")
            blocks += item_pictures(effects, noun, names)
        blocks.append(_card_table(descriptives, effects, spec.progress_noun, noun, names))
        strategy_table = _strategy_table(everything, noun, False, names) \
            if everything is not None else None
        if strategy_table is not None:
            blocks.append(Paragraph(
                f"By seat 1 alone and by strategy (the design places strategies at seats, so "
                f"each subset keeps the deal's randomisation): the opening-row effect on the "
                f"score (±95%) and the effect per {noun} held (simultaneous 95% interval). No "
                f"verdict is read from these."))
            blocks.append(strategy_table)
        if effects is not None and effects["round_slope"].is_not_null().any():
            slope = effects["round_slope"].drop_nulls()[0]
            blocks.append(Paragraph(
                f"Methods: {effects['method'][0]}; {effects['clusters'][0]:,} deals. The "
                f"holder association holds the round each {noun} was taken fixed (each round "
                f"later goes with {signed(slope, 2)} points)."))
    blocks += _settings_blocks(analysis.card_settings, noun, game, names)
    return blocks


def _panel_tables(descriptives: pl.DataFrame | None, effects: pl.DataFrame | None):
    """Per (players, rules) panel of either table, in order: (players, rules, the panel's
    effects rows, those pooled over strategies and seats, the panel's descriptives rows), each
    table None where the panel has no rows."""
    keys = set()
    for frame in (descriptives, effects):
        if frame is not None and not frame.is_empty():
            keys |= set(frame.select("players", "rules").unique().iter_rows())
    for players, rules in sorted(keys):
        everything = panel_rows(effects, players, rules)
        yield (players, rules, everything, pooled_estimates(everything),
               panel_rows(descriptives, players, rules))


# --- cards dealt and kept ------------------------------------------------------------------------

def draft_sentences(effects: pl.DataFrame, descriptives: pl.DataFrame | None, noun: str,
                    margin: float, choices: pl.DataFrame | None = None,
                    names: ItemNames = NO_NAMES) -> list[str]:
    """The strongest and weakest kept card per card kept in plain words, the verdicts and how
    each strategy chooses (at random or not); cards by number and name (``names``)."""
    sentences = _ranked_sentences(effects, noun, margin, draft=True, names=names)
    if choices is not None and not choices.is_empty():
        words = []
        for row in choices.iter_rows(named=True):
            gap = f"{number(100 * row['largest_gap'], 1)} pp"
            words.append({
                "random": f"{row['strategy']} keeps at random (every {noun} kept within "
                          f"{100 * KEEP_TOLERANCE:g} pp of the {percent(row['random'], 0)} of "
                          f"a coin flip; largest gap {gap})",
                "chooses": f"{row['strategy']} chooses (some {noun} is kept more or less often "
                           f"than a coin flip would; largest gap {gap})",
                "undecided": f"{row['strategy']}: cannot tell yet whether it keeps at random "
                             f"(largest gap {gap})",
            }[row["choice"]])
        sentences.append("Keeping, against a random choice between the two dealt: "
                         + "; ".join(words) + ".")
    return sentences


def draft_chart(effects: pl.DataFrame | None, players: int, rules: str, noun: str,
                margin: float, names: ItemNames = NO_NAMES) -> bytes | None:
    """Each kept card's effect per card kept against the average one (through being dealt
    it), with simultaneous 95% intervals and the margin band; one row per card, by number and
    name."""
    return _per_card_chart(effects, players, rules, noun, margin,
                           f"Points per {noun} kept (through the deal)",
                           f"Points against the average {noun}", names)


def draft_figure_name(noun: str) -> str:
    """The file stem of the kept cards' chart: the game's noun in the plural, slugged
    ("nature spirit" -> "nature-spirits")."""
    return re.sub(r"[^a-z0-9]+", "-", _plural(noun).lower()).strip("-") or "drafts"


def draft_blocks(analysis: BatchAnalysis, figures: dict[str, bytes],
                 names: ItemNames = NO_NAMES) -> list[Block]:
    """The section of the cards dealt and kept (nothing when none was kept); cards by number
    and name (``names``), the strongest and the weakest drawn when the game draws them."""
    game = get_game(analysis.batch.game)
    spec = game.draft_columns()
    if spec is None or (analysis.drafts is None and analysis.draft_effects is None):
        return []
    noun, margin = spec.noun, analysis.card_margin
    blocks: list[Block] = [Heading(f"{_plural(noun).capitalize()}: dealt, kept and what they "
                                   f"give")]
    blocks.append(Paragraph(
        f"Each player is dealt {noun}s face down at random and keeps one. Effect of being "
        f"dealt {article(noun)}: a regression within each game (game fixed effects) of the "
        f"player's score on the {noun}s dealt (each against the average {noun}), seat and "
        f"strategy, cluster-robust by deal; the same regression of keeping it gives the first "
        f"stage, and their ratio the effect per {noun} kept, with a Fieller interval "
        f"simultaneous over the {noun}s (it assumes a {noun} dealt but not kept changes "
        f"nothing: the dealt effect itself needs no assumption). The verdict reads that "
        f"interval against ±{margin:g} "
        f"points. Keep rate: the share of the times {article(noun)} was dealt that it was "
        f"kept, beside a random choice between the two dealt; the keeper's score against the "
        f"others at the table is an association (players choose what they keep)."))
    players, rules = analysis.main_panel()
    for panel_players, panel_rules, everything, effects, descriptives in _panel_tables(
            analysis.drafts, analysis.draft_effects):
        blocks.append(Heading(_where(panel_players, panel_rules, game), 3))
        if effects is not None:
            choices = keep_choice(everything)
            blocks += [Paragraph(t) for t in draft_sentences(effects, descriptives, noun,
                                                             margin, choices, names)]
        if (panel_players, panel_rules) == (players, rules):
            blocks += figure_if_drawn(
                figures, draft_figure_name(noun),
                f"What keeping each {noun} is worth against the average one, through being "
                f"dealt it, with simultaneous 95% intervals; the band is ±{margin:g} points.")
            blocks += item_pictures(effects, noun, names, draft=True)
        frame = descriptives if descriptives is not None else effects.select("card")
        if effects is not None:
            frame = frame.join(effects.drop("players", "rules", "strategy", "seat",
                                            "keep_rate", "keep_rate_low", "keep_rate_high"),
                               on="card", how="left")
        rows = []
        for r in frame.sort("card").iter_rows(named=True):
            def get(name, row=r):
                return row.get(name)

            rows.append((
                names.label(noun, r["card"]), count(get("dealt")),
                percent_ci(get("keep_rate"), get("keep_rate_low"), get("keep_rate_high")),
                percent(get("keep_rate_random")),
                with_ci(get("mean_bonus"), get("mean_bonus_low"), get("mean_bonus_high"), 1),
                with_ci(get("score_gap"), get("score_gap_low"), get("score_gap_high"), 1),
                with_ci(get("score_effect"), get("score_effect_low"), get("score_effect_high"),
                        1),
                with_ci(*(100 * v if v is not None else None for v in (
                    get("first_stage"), get("first_stage_low"), get("first_stage_high"))), 1),
                per_card_text(r, draft=True),
                _verdict_text(r) if get("score_per_card") is not None else "–"))
        blocks.append(Table(
            (noun.capitalize(), "Dealt", "Keep rate (95% CI)", "Random choice",
             "Mean bonus (95% CI)", "Keeper minus others at the table (association, 95% CI)",
             "Dealt it: score (95% CI)", "Dealt it: keeps it, pp (95% CI)",
             f"Per {noun} kept (simultaneous 95% CI)", "Verdict"), tuple(rows)))
        strategy_table = _strategy_table(everything, noun, True, names) \
            if everything is not None else None
        if strategy_table is not None:
            blocks.append(Paragraph(
                f"By strategy (no game fixed effects: a strategy may sit once per game): the "
                f"effect of being dealt each {noun} on the score (±95%) and per {noun} kept "
                f"(simultaneous 95% interval). No verdict is read from these."))
            blocks.append(strategy_table)
    blocks += _settings_blocks(analysis.draft_settings, noun, game, names)
    return blocks


def card_figures(analysis: BatchAnalysis, panel: tuple[int, str],
                 names: ItemNames = NO_NAMES) -> dict[str, bytes]:
    """The card and draft charts of the main panel, cards by number and name."""
    game = get_game(analysis.batch.game)
    players, rules = panel
    drawn = {}
    if game.card_columns() is not None:
        drawn["cards"] = card_chart(analysis.card_effects, players, rules,
                                    game.card_columns().noun, analysis.card_margin, names)
    if game.draft_columns() is not None:
        noun = game.draft_columns().noun
        drawn[draft_figure_name(noun)] = draft_chart(analysis.draft_effects, players, rules,
                                                     noun, analysis.card_margin, names)
    return {name: png for name, png in drawn.items() if png is not None}


def card_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The card numbers in ``summary.parquet``'s long schema (``key`` names the card; the
    randomised estimates pooled over strategies)."""
    effects = ["shown", "chosen", "score_effect", "win_effect", "first_stage",
               "first_stage_f", "score_per_card"]
    card_effects = pooled_estimates(analysis.card_effects)
    draft_effects = pooled_estimates(analysis.draft_effects)
    return [
        long_rows("cards", analysis.cards,
                  ["offered", "taken", "take_rate", "take_rate_random", "completion_rate",
                   "mean_points", "points_per_piece", "mean_round"], ["card"]),
        long_rows("cards", card_effects,
                  [*effects, "holders", "holder_score", "holder_win"], ["card", "verdict"]),
        long_rows("drafts", analysis.drafts,
                  ["dealt", "kept", "keep_rate", "mean_bonus", "keeper_score", "others_score",
                   "score_gap", "keeper_win_rate", "others_win_rate", "win_gap"], ["card"]),
        long_rows("drafts", draft_effects, [*effects, "keep_rate_random"],
                  ["card", "verdict"]),
    ]


def settings_blocks(game, tables: dict[str, pl.DataFrame],
                    names: ItemNames = NO_NAMES) -> list[Block]:
    """The card and kept-card comparisons of several rules settings (e.g. board side A
    against side B over the points of a sweep; ``sim.stats.cards.settings_comparison``), for a
    report that covers them all; cards by number and name."""
    blocks: list[Block] = []
    for spec, key in ((game.card_columns(), "card_settings"),
                      (game.draft_columns(), "draft_settings")):
        table = tables.get(key)
        if spec is None or table is None or table.is_empty():
            continue
        blocks.append(Heading(f"{_plural(spec.noun).capitalize()} under each rules setting", 3))
        blocks += _settings_blocks(table, spec.noun, game, names)
    return blocks


def sweep_card_blocks(sweep, game, margin: float = CARD_MARGIN,
                      names: ItemNames = NO_NAMES) -> list[Block]:
    """The sweep report's comparison of the cards under each rules setting of its grid (e.g.
    side A against side B), cards by number and name: nothing for a game without cards or a
    sweep without such an axis."""
    from sim.errors import InputError
    from sim.stats.sweep import sweep_rows

    if game.card_columns() is None and game.draft_columns() is None:
        return []
    try:
        rows = sweep_rows(sweep)
    except InputError:
        return []
    tables = settings_comparison(rows, game.card_columns(), game.draft_columns(),
                                 tuple(p.name for p in game.rules_parameters), margin)
    blocks = settings_blocks(game, tables, names)
    if not blocks:
        return []
    return [Heading("Cards under each rules setting"),
            Paragraph("The effect of each card lying in the opening face-up row (and of being "
                      "dealt each card kept), against the average one, under each rules "
                      "setting of the grid, every setting against the first, per player "
                      "count; the models are the batch report's (its card sections).")] + blocks
