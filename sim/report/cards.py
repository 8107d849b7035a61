"""The report's card sections: cards taken from a face-up offer (e.g. Harmonies' animal cards)
and cards dealt face down and kept (its nature spirits), in the words the game gives them
(``Game.card_columns`` / ``Game.draft_columns``). Statistics: ``sim.stats.cards``."""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.registry import get_game
from sim.report import plots
from sim.report.document import Block, Figure, Heading, Paragraph, Table
from sim.report.numbers import (
    article,
    count,
    half_width,
    number,
    percent,
    percent_ci,
    setting_text,
    signed,
    with_ci,
)
from sim.report.summary_table import long_rows
from sim.stats.analysis import BatchAnalysis
from sim.stats.cards import CARD_MARGIN, MIN_TAKES, settings_comparison

STRONG, WEAK, OTHER = "#e08214", "#5e3c99", "#9ab7d3"
VERDICT_COLOURS = {"strong": STRONG, "weak": WEAK}


def _panel(frame: pl.DataFrame | None, players: int, rules: str) -> pl.DataFrame | None:
    if frame is None or frame.is_empty():
        return None
    selected = frame.filter((pl.col("players") == players) & (pl.col("rules") == rules))
    return selected if not selected.is_empty() else None


def _plural(noun: str) -> str:
    return noun + "s"


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


def _named_list(cards: list[int]) -> str:
    return ", ".join(str(card) for card in cards) if cards else "none"


# --- cards taken from the offer ------------------------------------------------------------------

def card_sentences(effects: pl.DataFrame, descriptives: pl.DataFrame | None, noun: str,
                   margin: float) -> list[str]:
    """The outliers of one panel in plain words: the strongest and the weakest card with their
    intervals and verdicts, the cards shown too strong or too weak, and the card most taken."""
    ranked = effects.sort(["score_vs_average", "card"], descending=[True, False])
    sentences = []
    for row, which in ((ranked.row(0, named=True), "the strongest"),
                       (ranked.row(ranked.height - 1, named=True), "the weakest")):
        gap = row["score_vs_average"]
        gap_half = half_width(gap, row["score_vs_average_low"], row["score_vs_average_high"])
        effect_half = half_width(row["score_effect"], row["score_effect_low"],
                                 row["score_effect_high"])
        relation = "more" if gap >= 0 else "less"
        sentences.append(
            f"Card {row['card']} adds {number(row['score_effect'], 1)} points "
            f"(±{number(effect_half, 1)}) to its holder, {number(abs(gap), 1)} "
            f"(±{number(gap_half, 1)}) {relation} than the average {noun}: {which}; it is "
            f"{_verdict_words(row['verdict'], margin, noun)}. Its holder's chance to win is "
            f"{signed(100 * row['win_vs_average'])} percentage points "
            f"(±{number(100 * half_width(row['win_vs_average'], row['win_vs_average_low'], row['win_vs_average_high']), 1)})"  # noqa: E501
            f" against holding the average {noun}.")
    strong = sorted(effects.filter(pl.col("verdict") == "strong")["card"].to_list())
    weak = sorted(effects.filter(pl.col("verdict") == "weak")["card"].to_list())
    fair = effects.filter(pl.col("verdict") == "fair").height
    undecided = effects.filter(pl.col("verdict") == "undecided").height
    sentences.append(f"Shown too strong: {_named_list(strong)}. Shown too weak: "
                     f"{_named_list(weak)}. Shown fair (within ±{margin:g} points of the average "
                     f"{noun}): {fair} of {effects.height}; undecided: {undecided}.")
    if descriptives is not None and descriptives["take_rate"].is_not_null().any():
        taken = descriptives.filter(pl.col("take_rate").is_not_null())
        top = taken.sort(["take_rate", "card"], descending=[True, False]).row(0, named=True)
        low = taken.sort(["take_rate", "card"]).row(0, named=True)
        sentences.append(
            f"Players take card {top['card']} most readily: "
            f"{percent_ci(top['take_rate'], top['take_rate_low'], top['take_rate_high'])} of the "
            f"takes made while it lay face up (a random pick would take it "
            f"{percent(top['take_rate_random'])}); card {low['card']} least: "
            f"{percent_ci(low['take_rate'], low['take_rate_low'], low['take_rate_high'])}.")
    return sentences


def _effect_bars(effects: pl.DataFrame | None, players: int, rules: str):
    """The panel's cards sorted by effect, their effects and the error bars of their intervals;
    None when the panel has none."""
    panel = _panel(effects, players, rules)
    if panel is None:
        return None
    panel = panel.sort(["score_effect", "card"])
    effect = panel["score_effect"].to_numpy()
    error = np.vstack([effect - panel["score_effect_low"].to_numpy(),
                       panel["score_effect_high"].to_numpy() - effect])
    return panel, effect, error


def card_chart(effects: pl.DataFrame | None, players: int, rules: str, noun: str,
               margin: float) -> bytes | None:
    """The cards ranked by what they add to their holder's score, with 95% intervals; the
    average card and the margin around it; cards shown too strong or too weak coloured."""
    bars = _effect_bars(effects, players, rules)
    if bars is None:
        return None
    panel, effect, error = bars
    average = float(np.mean(effect))
    colours = [VERDICT_COLOURS.get(v, OTHER) for v in panel["verdict"]]
    positions = np.arange(panel.height)
    with plots.styled_figure(1, f"What each {noun} adds to its holder's score (95% intervals)") as (
            figure, axes):
        axis = axes[0]
        axis.errorbar(positions, effect, yerr=error, fmt="none", ecolor="black", capsize=3,
                      linewidth=1.2)
        axis.scatter(positions, effect, c=colours, s=70, zorder=3, edgecolors="black",
                     linewidths=0.5)
        axis.axhspan(average - margin, average + margin, color="grey", alpha=0.15)
        axis.axhline(average, color="black", linestyle="--", linewidth=1.2)
        axis.set_xticks(positions, [str(c) for c in panel["card"]], fontsize=10)
        axis.set_xlabel(f"{noun.capitalize()} (id), weakest to strongest")
        axis.set_ylabel("Points added to the holder's score")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(handles=[plots.Patch(color=STRONG, label="too strong"),
                             plots.Patch(color=WEAK, label="too weak"),
                             plots.Patch(color=OTHER, label="fair or undecided"),
                             plots.Patch(color="grey", alpha=0.3,
                                         label=f"average {noun} ± {margin:g} points")],
                    loc="upper left")
        return plots.png_bytes(figure)


def _card_table(descriptives: pl.DataFrame | None, effects: pl.DataFrame | None,
                progress_noun: str) -> Table:
    keys = ["card"]
    frame = descriptives if descriptives is not None else effects.select("card")
    if effects is not None:
        frame = frame.join(effects.drop("players", "rules"), on=keys, how="left")
    if "score_effect" in frame.columns:
        frame = frame.sort(["score_effect", "card"], descending=[True, False], nulls_last=True)
    piece = progress_noun or "piece"
    header = ("Card", "Face up at a take", "Taken", "Take rate (95% CI)", "Random pick",
              "Completed (95% CI)", "Mean points (95% CI)", f"Points per {piece} (95% CI)",
              "Adds to holder's score (95% CI)", "Against the average (simultaneous 95% CI)",
              "Adds to win chance, pp (95% CI)", "Verdict")
    rows = []
    for row in frame.iter_rows(named=True):
        def get(name, row=row):
            return row.get(name)

        rows.append((
            str(row["card"]), count(get("offered")), count(get("taken")),
            percent_ci(get("take_rate"), get("take_rate_low"), get("take_rate_high")),
            percent(get("take_rate_random")),
            percent_ci(get("completion_rate"), get("completion_rate_low"),
                       get("completion_rate_high")),
            with_ci(get("mean_points"), get("mean_points_low"), get("mean_points_high")),
            with_ci(get("points_per_piece"), get("points_per_piece_low"),
                    get("points_per_piece_high")),
            with_ci(get("score_effect"), get("score_effect_low"), get("score_effect_high")),
            with_ci(get("score_vs_average"), get("score_vs_average_low"),
                    get("score_vs_average_high")),
            with_ci(*(100 * v if v is not None else None for v in (
                get("win_effect"), get("win_effect_low"), get("win_effect_high"))), 1),
            get("verdict") or "–"))
    return Table(header, tuple(rows))


def _settings_blocks(settings: pl.DataFrame | None, noun: str, game) -> list[Block]:
    if settings is None:
        return []
    blocks: list[Block] = []
    for (players, setting, other), part in settings.group_by(
            ["players", "setting", "other_setting"], maintain_order=True):
        first, second = setting_text(game, setting), setting_text(game, other)
        part = part.sort("difference", descending=True)
        blocks.append(Paragraph(
            f"{players} players, {first} against {second}: what each {noun} adds to its "
            f"holder's (keeper's) score under each setting and the difference (95% intervals; "
            f"the settings are taken as independent, which is conservative when they were "
            f"played on the same deals)."))
        blocks.append(Table(
            ("Card", first, second, "Difference (95% CI)"),
            tuple((str(r["card"]), number(r["value"]), number(r["other_value"]),
                   with_ci(r["difference"], r["difference_low"], r["difference_high"]))
                  for r in part.iter_rows(named=True))))
    return blocks


def card_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """The card balance section (nothing for a game or batch without cards)."""
    game = get_game(analysis.batch.game)
    spec = game.card_columns()
    if spec is None or (analysis.cards is None and analysis.card_effects is None):
        return []
    noun, margin = spec.noun, analysis.card_margin
    blocks: list[Block] = [Heading(f"Card balance: {_plural(noun)}")]
    blocks.append(Paragraph(
        f"Take rate: of the takes made while {article(noun)} lay face up, the share that "
        f"chose it "
        f"(a random pick among the face-up cards is shown beside it). Completion, mean points "
        f"and points per {spec.progress_noun or 'piece'} are over the times it was taken. What "
        f"{article(noun)} adds to its holder comes from one regression over player-games of "
        f"the score "
        f"(and of the win share) on the {_plural(noun)} held, the round each was taken, the "
        f"seat and the strategy, cluster-robust by deal; its gap to the average {noun} has a "
        f"simultaneous 95% interval over all {_plural(noun)}, and the verdict reads that "
        f"interval against a margin of ±{margin:g} points (sim report --card-margin): too "
        f"strong or too weak only when the whole interval lies beyond the margin, fair when it "
        f"lies within, undecided otherwise."))
    players, rules = analysis.main_panel()
    for (panel_players, panel_rules) in _panels(analysis.cards, analysis.card_effects):
        effects = _panel(analysis.card_effects, panel_players, panel_rules)
        descriptives = _panel(analysis.cards, panel_players, panel_rules)
        blocks.append(Heading(_where(panel_players, panel_rules, game), 3))
        if effects is not None:
            blocks += [Paragraph(text) for text in card_sentences(effects, descriptives, noun,
                                                                  margin)]
        else:
            blocks.append(Paragraph(f"Too few {_plural(noun)} were taken for the regression "
                                    f"(each needs {MIN_TAKES} takes over two deals or more)."))
        if (panel_players, panel_rules) == (players, rules) and "cards" in figures:
            blocks.append(Figure("cards", figures["cards"],
                                 f"Each {noun}'s effect on its holder's score with its 95% "
                                 f"interval, weakest to strongest; the dashed line is the "
                                 f"average {noun}, the band ±{margin:g} points around it."))
        blocks.append(_card_table(descriptives, effects, spec.progress_noun))
        if effects is not None:
            slope = effects["round_slope"][0]
            blocks.append(Paragraph(
                f"Timing held fixed: each round later {article(noun)} is taken changes its "
                f"holder's "
                f"score by {signed(slope, 2)} points ({effects['method'][0]}; "
                f"{effects['clusters'][0]:,} deals)."))
    blocks += _settings_blocks(analysis.card_settings, noun, game)
    return blocks


def _panels(*frames: pl.DataFrame | None) -> list[tuple[int, str]]:
    keys = set()
    for frame in frames:
        if frame is not None and not frame.is_empty():
            keys |= set(frame.select("players", "rules").unique().iter_rows())
    return sorted(keys)


# --- cards dealt and kept ------------------------------------------------------------------------

def draft_sentences(effects: pl.DataFrame, descriptives: pl.DataFrame | None, noun: str,
                    margin: float) -> list[str]:
    """The strongest and weakest kept card in plain words, and the verdicts."""
    ranked = effects.sort(["score_effect", "card"], descending=[True, False])
    sentences = []
    facts = {} if descriptives is None else {r["card"]: r for r in
                                             descriptives.iter_rows(named=True)}
    for row, which in ((ranked.row(0, named=True), "the strongest"),
                       (ranked.row(ranked.height - 1, named=True), "the weakest")):
        effect = row["score_effect"]
        effect_half = half_width(effect, row["score_effect_low"], row["score_effect_high"])
        relation = "more" if effect >= 0 else "fewer"
        text = (f"The keeper of {noun} {row['card']} scores {number(abs(effect), 1)} points "
                f"(±{number(effect_half, 1)}) {relation} than with the average {noun}, against "
                f"the others at the table, seat and strategy held fixed: {which}; it is "
                f"{_verdict_words(row['verdict'], margin, noun)}.")
        fact = facts.get(row["card"])
        if fact is not None and fact.get("keep_rate") is not None:
            text += (f" Players keep it {percent_ci(fact['keep_rate'], fact['keep_rate_low'], fact['keep_rate_high'])}"  # noqa: E501
                     f" of the times it is dealt; its bonus averages "
                     f"{number(fact['mean_bonus'], 1)} points.")
        sentences.append(text)
    strong = sorted(effects.filter(pl.col("verdict") == "strong")["card"].to_list())
    weak = sorted(effects.filter(pl.col("verdict") == "weak")["card"].to_list())
    fair = effects.filter(pl.col("verdict") == "fair").height
    sentences.append(f"Shown too strong: {_named_list(strong)}. Shown too weak: "
                     f"{_named_list(weak)}. Shown fair: {fair} of {effects.height}; undecided: "
                     f"{effects.filter(pl.col('verdict') == 'undecided').height}.")
    return sentences


def draft_chart(effects: pl.DataFrame | None, players: int, rules: str, noun: str,
                margin: float) -> bytes | None:
    """Each kept card's effect against the average one, with simultaneous 95% intervals and
    the margin band."""
    bars = _effect_bars(effects, players, rules)
    if bars is None:
        return None
    panel, effect, error = bars
    colours = [VERDICT_COLOURS.get(v, OTHER) for v in panel["verdict"]]
    positions = np.arange(panel.height)
    title = f"The keeper's edge from each {noun} (simultaneous 95% intervals)"
    with plots.styled_figure(1, title) as (figure, axes):
        axis = axes[0]
        axis.errorbar(positions, effect, yerr=error, fmt="none", ecolor="black", capsize=4,
                      linewidth=1.2)
        axis.scatter(positions, effect, c=colours, s=90, zorder=3, edgecolors="black",
                     linewidths=0.5)
        axis.axhspan(-margin, margin, color="grey", alpha=0.15)
        axis.axhline(0, color="black", linewidth=1)
        axis.set_xticks(positions, [str(c) for c in panel["card"]])
        axis.set_xlabel(f"{noun.capitalize()} kept (id)")
        axis.set_ylabel(f"Points against the average {noun}")
        axis.set_title(plots._panel_title(players, rules))
        axis.legend(handles=[plots.Patch(color=STRONG, label="too strong"),
                             plots.Patch(color=WEAK, label="too weak"),
                             plots.Patch(color=OTHER, label="fair or undecided"),
                             plots.Patch(color="grey", alpha=0.3, label=f"± {margin:g} points")],
                    loc="upper left")
        return plots.png_bytes(figure)


def draft_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """The section of the cards dealt and kept (nothing when none was kept)."""
    game = get_game(analysis.batch.game)
    spec = game.draft_columns()
    if spec is None or (analysis.drafts is None and analysis.draft_effects is None):
        return []
    noun, margin = spec.noun, analysis.card_margin
    blocks: list[Block] = [Heading(f"{_plural(noun).capitalize()}: dealt, kept and what they "
                                   f"give")]
    blocks.append(Paragraph(
        f"Each player is dealt {noun}s face down and keeps one. Keep rate: the share of the "
        f"times {article(noun)} was dealt that it was kept. The keeper's score and win rate are "
        f"compared with the others at the same table; the effect is a regression within each "
        f"game (the others at the table are the reference) of the score on the {noun} kept "
        f"(each against the average {noun}), seat and strategy, cluster-robust by deal, with "
        f"simultaneous 95% intervals over the {noun}s; the verdict reads them against "
        f"±{margin:g} points."))
    players, rules = analysis.main_panel()
    for panel_players, panel_rules in _panels(analysis.drafts, analysis.draft_effects):
        effects = _panel(analysis.draft_effects, panel_players, panel_rules)
        descriptives = _panel(analysis.drafts, panel_players, panel_rules)
        blocks.append(Heading(_where(panel_players, panel_rules, game), 3))
        if effects is not None:
            blocks += [Paragraph(t) for t in draft_sentences(effects, descriptives, noun,
                                                             margin)]
        if (panel_players, panel_rules) == (players, rules) and "drafts" in figures:
            blocks.append(Figure("drafts", figures["drafts"],
                                 f"What keeping each {noun} is worth against the average one "
                                 f"(the others at the table as reference), with simultaneous "
                                 f"95% intervals; the band is ±{margin:g} points."))
        frame = descriptives if descriptives is not None else effects.select("card")
        if effects is not None:
            frame = frame.join(effects.drop("players", "rules"), on="card", how="left")
        rows = []
        for r in frame.sort("card").iter_rows(named=True):
            def get(name, row=r):
                return row.get(name)

            rows.append((
                str(r["card"]), count(get("dealt")),
                percent_ci(get("keep_rate"), get("keep_rate_low"), get("keep_rate_high")),
                with_ci(get("mean_bonus"), get("mean_bonus_low"), get("mean_bonus_high"), 1),
                with_ci(get("keeper_score"), get("keeper_score_low"), get("keeper_score_high"),
                        1),
                number(get("others_score"), 1),
                with_ci(get("score_gap"), get("score_gap_low"), get("score_gap_high"), 1),
                percent_ci(get("keeper_win_rate"), get("keeper_win_rate_low"),
                           get("keeper_win_rate_high")),
                percent(get("others_win_rate")),
                with_ci(get("score_effect"), get("score_effect_low"), get("score_effect_high"),
                        1),
                with_ci(*(100 * v if v is not None else None for v in (
                    get("win_effect"), get("win_effect_low"), get("win_effect_high"))), 1),
                get("verdict") or "–"))
        blocks.append(Table(
            (noun.capitalize(), "Dealt", "Keep rate (95% CI)", "Mean bonus (95% CI)",
             "Keeper's mean score (95% CI)", "Others at the table", "Keeper minus others "
             "(95% CI)", "Keeper's win rate (95% CI)", "Others' win rate",
             "Against the average (simultaneous 95% CI)", "Win chance against the average, pp",
             "Verdict"), tuple(rows)))
    blocks += _settings_blocks(analysis.draft_settings, noun, game)
    return blocks


def card_figures(analysis: BatchAnalysis, panel: tuple[int, str]) -> dict[str, bytes]:
    """The card and draft charts of the main panel."""
    game = get_game(analysis.batch.game)
    players, rules = panel
    drawn = {}
    if game.card_columns() is not None:
        drawn["cards"] = card_chart(analysis.card_effects, players, rules,
                                    game.card_columns().noun, analysis.card_margin)
    if game.draft_columns() is not None:
        drawn["drafts"] = draft_chart(analysis.draft_effects, players, rules,
                                      game.draft_columns().noun, analysis.card_margin)
    return {name: png for name, png in drawn.items() if png is not None}


def card_summary_rows(analysis: BatchAnalysis) -> list[pl.DataFrame]:
    """The card numbers in ``summary.parquet``'s long schema (``key`` names the card)."""
    return [
        long_rows("cards", analysis.cards,
                  ["offered", "taken", "take_rate", "take_rate_random", "completion_rate",
                   "mean_points", "points_per_piece", "mean_round"], ["card"]),
        long_rows("cards", analysis.card_effects,
                  ["holders", "score_effect", "score_vs_average", "win_effect",
                   "win_vs_average"], ["card", "verdict"]),
        long_rows("drafts", analysis.drafts,
                  ["dealt", "kept", "keep_rate", "mean_bonus", "keeper_score", "others_score",
                   "score_gap", "keeper_win_rate", "others_win_rate", "win_gap"], ["card"]),
        long_rows("drafts", analysis.draft_effects, ["keepers", "score_effect", "win_effect"],
                  ["card", "verdict"]),
    ]


def settings_blocks(game, tables: dict[str, pl.DataFrame]) -> list[Block]:
    """The card and kept-card comparisons of several rules settings (e.g. board side A
    against side B over the points of a sweep; ``sim.stats.cards.settings_comparison``), for a
    report that covers them all."""
    blocks: list[Block] = []
    for spec, key in ((game.card_columns(), "card_settings"),
                      (game.draft_columns(), "draft_settings")):
        table = tables.get(key)
        if spec is None or table is None or table.is_empty():
            continue
        blocks.append(Heading(f"{_plural(spec.noun).capitalize()} under each rules setting", 3))
        blocks += _settings_blocks(table, spec.noun, game)
    return blocks


def sweep_card_blocks(sweep, game, margin: float = CARD_MARGIN) -> list[Block]:
    """The sweep report's comparison of the cards under each rules setting of its grid (e.g.
    side A against side B): nothing for a game without cards or a sweep without such an axis."""
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
    blocks = settings_blocks(game, tables)
    if not blocks:
        return []
    return [Heading("Cards under each rules setting"),
            Paragraph("What each card adds to its holder (and each card kept to its keeper, "
                      "against the average one) under each rules setting of the grid, every "
                      "setting against the first, per player count; the models are the batch "
                      "report's (its card sections).")] + blocks
