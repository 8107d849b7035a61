"""``build_report``: a batch folder in, ``report.html``, ``report.md`` and ``summary.parquet`` out.

The statistics come from ``sim.stats.analysis``; this module lays them out as sections of
blocks (``sim.report.document``), draws the figures and writes every file atomically.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from sim.errors import InputError
from sim.files import (
    check_output_folder,
    replace_folder_whole,
    write_bytes_atomic,
    write_text_atomic,
)
from sim.games.base import RemovedItemsEffect, RotatingRoleAssociation
from sim.games.registry import get_game
from sim.report import numbers, plots
from sim.report.cards import card_blocks, card_figures, card_summary_rows, draft_blocks
from sim.report.document import (
    Block,
    Bullets,
    Heading,
    Monospace,
    Paragraph,
    Picture,
    Table,
    figure_if_drawn,
    render_html,
    render_markdown,
)
from sim.report.findings import (
    choose_findings,
    count_effect_of,
    declared,
    findings_rule,
    format_p_value,
    verdict_text,
)
from sim.report.names import NO_NAMES, ItemNames, names_of_batch, ranked_ends
from sim.report.skill import skill_blocks, skill_figures, skill_summary_rows
from sim.report.summary_table import summary_table
from sim.report.unfolding import unfolding_blocks, unfolding_figures, unfolding_summary_rows
from sim.stats.analysis import BatchAnalysis, analyse_batch
from sim.stats.batch import open_batch
from sim.stats.cards import CARD_MARGIN
from sim.stats.clustered import MIN_VERDICT_CLUSTERS
from sim.stats.seats import FAIR_MARGIN

FIGURE_DIR = "figures"
CONFIG_FILE = "config.toml"
# Who the report folder belongs to: a report of another batch is never overwritten.
IDENTITY_FILE = "batch.json"


@dataclass(frozen=True)
class ReportResult:
    """What ``build_report`` wrote and found."""

    html: Path
    markdown: Path
    summary_parquet: Path
    findings: list[str]
    seconds: float
    ignored_note: str | None = None  # the batch's files left out (stray or damaged), one line
    # Shards manifest.json records as finished but missing or damaged, left out (one line).
    partial_note: str | None = None


# --- number formatting -------------------------------------------------------------------------

# The shared formatters (sim.report.numbers), under the short names used below.
_number, _count, _with_ci = numbers.number, numbers.count, numbers.with_ci


def _percent_ci(value, low, high, digits: int = 1,
                reason: str = numbers.NO_INTERVAL_REASON) -> str:
    """A proportion with its interval, or "no interval: <reason>" where a bound is missing."""
    return numbers.percent_ci(value, low, high, digits, reason)


def _show_rules(frame: pl.DataFrame) -> bool:
    return "rules" in frame.columns and bool((frame["rules"] != "").any())


def _group_cells(row: dict, show_rules: bool) -> list[str]:
    cells = [str(row["players"])]
    if show_rules:
        cells.append(row["rules"])
    return cells


def _group_header(show_rules: bool) -> list[str]:
    return ["Players", "Rules"] if show_rules else ["Players"]


# --- sections ------------------------------------------------------------------------------------

def _toml_value(value) -> str:
    """A TOML literal for the config values a batch records (strings, integers, lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    return json.dumps(str(value))  # a JSON string is a valid TOML basic string


def reproducing_output(config: dict) -> str:
    """The output folder of the reproducing config: the recorded one, or, for a batch whose
    manifest keeps its output relative to itself (``.``), the default ``runs/<name>``."""
    output = str(config.get("output", "."))
    return output if output not in (".", "") else f"runs/{config.get('name', 'batch')}"


def reproducing_config(manifest: dict) -> str | None:
    """The TOML config that makes ``sim run`` play the same games as the batch (the same
    fields, so the same config hash and seeds), or None when the manifest records no
    ``sim run`` config (e.g. a synthetic batch)."""
    config = manifest.get("config") or {}
    needed = ("name", "game", "players", "lineup", "rotate", "deals", "replicates_per_deal",
              "seed", "shard_size", "output", "store")
    if not all(key in config for key in needed):
        return None
    game = get_game(config["game"])
    lines = []
    kept = dict(config.get("strategy_files") or {})
    if kept:
        # Strategy files are named as written; the batch keeps the code it played.
        copies = ", ".join(f"{written} -> {copy}" for written, copy in sorted(kept.items()))
        lines.append(f"# strategy files (the batch folder's copies): {copies}")
    lines += [f"name = {_toml_value(config['name'])}",
             f"game = {_toml_value(config['game'])}",
             f"players = {config['players']}",
             lineup_toml(config),
             f"deals = {config['deals']}",
             f"replicates_per_deal = {config['replicates_per_deal']}",
             f"seed = {config['seed']}",
             f"shard_size = {config['shard_size']}",
             f"output = {_toml_value(reproducing_output(config))}",
             f"store = {_toml_value(config['store'])}"]
    if config.get("trace"):
        lines.append("trace = true")
    if config.get("data_file") and game.data_option:
        if not Path(config["data_file"]).is_absolute():
            lines.append("# relative to the batch folder, which keeps a copy of the data played")
        lines.append(f"{game.data_option} = {_toml_value(config['data_file'])}")
    rules = config.get("rules") or {}
    if rules:
        lines += ["", "[rules]"] + [f"{name} = {value}" for name, value in rules.items()]
    return "\n".join(lines) + "\n"


def lineup_toml(config: dict) -> str:
    """The config line of the lineup a run config records: ``pool = [...]`` when it rotates,
    else ``strategies = [...]`` (one strategy when every seat plays the same)."""
    lineup = list(config["lineup"])
    if not config["rotate"] and len(set(lineup)) == 1:
        lineup = lineup[:1]
    return f"{'pool' if config['rotate'] else 'strategies'} = {_toml_value(lineup)}"


def _rules_rows(game, rules: dict) -> list[tuple[str, str]]:
    """One row per rules parameter of the game: its value (and the value's name) and what it
    does, marked when it is the default."""
    rows = []
    for parameter in game.rules_parameters:
        value = rules.get(parameter.name, parameter.default)
        names = {number: name for name, number in parameter.choices}
        shown = f"{names[value]} ({value})" if value in names else f"{value}"
        default = " (default)" if value == parameter.default else ""
        rows.append((f"Rules: {parameter.name}", f"{shown}{default}: {parameter.help}"))
    return rows


def _lineup_text(config: dict, players: int) -> str:
    lineup = [str(label) for label in config.get("lineup", ())]
    if not lineup:
        return "not recorded"
    rotating = config.get("rotate", config.get("rotate_lineup", False))
    if rotating:
        return (f"pool {', '.join(lineup)}, rotating through the seats (each strategy sits in "
                f"every seat equally often)")
    if len(set(lineup)) == 1:
        return f"{lineup[0]} in every seat"
    return "; ".join(f"seat {seat + 1}: {label}" for seat, label in enumerate(lineup))


def _heading_blocks(analysis: BatchAnalysis) -> list[Block]:
    """The header: what was played (game, rules, lineup, players, data, design) and how to
    play it again."""
    batch = analysis.batch
    manifest = batch.manifest
    config = manifest.get("config") or {}
    game = get_game(batch.game)
    player_counts = sorted({int(p) for p in analysis.seats["players"]}) or [config.get("players")]
    deals, replicates = config.get("deals"), config.get("replicates_per_deal",
                                                        config.get("replicates"))
    design = f"{analysis.games:,} games reported"
    if deals is not None and replicates is not None:
        design += (f"; design {int(deals):,} deals x {int(replicates):,} "
                   f"{'replicate' if int(replicates) == 1 else 'replicates'} per deal")
    if "seed" in config:
        design += f"; master seed {config['seed']}"
    data = data_text(game, config.get("data_file"))
    rows = [("Game", f"{game.title} ({game.name})"),
            ("Players", ", ".join(str(p) for p in player_counts)
             + f" (the game allows {game.min_players} to {game.max_players})"),
            ("Lineup", _lineup_text(config, player_counts[0])),
            *_rules_rows(game, config.get("rules") or {}),
            ("Data", f"{data}; digest {manifest.get('data_digest', '?')}"),
            ("Games", design),
            ("Batch", f"{batch.name}: {batch.store} store, {len(batch.shard_files)} shards, "
                      f"status {batch.status}, config hash "
                      f"{str(manifest.get('config_hash', '?'))[:12]}, written by sim "
                      f"{manifest.get('sim_version', '?')}")]
    tags = config.get("tags") or {}
    if tags:
        rows.append(("Sweep point", ", ".join(f"{k} = {v}" for k, v in sorted(tags.items()))))
    return what_was_played(
        rows, batch.partial_note, reproducing_config(manifest),
        f"sim run {CONFIG_FILE} (the config below, written beside this report as "
        f"{CONFIG_FILE}); then sim report {reproducing_output(config)}",
        "not possible with sim run: the manifest records no sim run config (a synthetic batch)",
        f"{CONFIG_FILE}: the config that plays these games again")


def data_text(game, data_file) -> str:
    """The game data played, for a report's header: the data file given, else the shipped
    data (with the game's note on it)."""
    if data_file:
        return str(data_file)
    return "the shipped data" + (f" ({game.data_help})" if game.data_help else "")


def what_was_played(rows: list[tuple[str, str]], partial_note: str | None, toml: str | None,
                    reproduce: str, not_reproducible: str, listing: str) -> list[Block]:
    """A report's header: the table "What was played" of ``rows`` (led by a "PARTIAL REPORT"
    row when there is a ``partial_note``), ending with how to play the games again:
    ``reproduce``, with the config ``toml`` below it under the caption ``listing``; or
    ``not_reproducible`` when there is no config."""
    if partial_note:
        rows = [("PARTIAL REPORT", partial_note), *rows]
    if toml is None:
        return [Table(("What was played", ""), (*rows, ("Reproduce", not_reproducible)))]
    return [Table(("What was played", ""), (*rows, ("Reproduce", reproduce))),
            Monospace(listing, toml)]


def _summary_blocks(findings: list[str], game: str) -> list[Block]:
    return [Heading("Summary: the findings that matter"), Bullets(tuple(findings), ordered=True),
            Paragraph(findings_rule(set(get_game(game).column_docs()), get_game(game)))]


def _win_rate_cell(row: dict) -> str:
    if row.get("win_rate_fixed"):
        return f"{100 * row['win_rate']:.1f}% (fixed: it plays every seat)"
    return _percent_ci(row["win_rate"], row["win_rate_low"], row["win_rate_high"],
                       reason=_no_interval_reason(row))


def _tie_rate_cell(row: dict) -> str:
    return _percent_ci(row["tie_rate"], row.get("tie_rate_low"), row.get("tie_rate_high"),
                       reason=_no_interval_reason(row))


def _no_interval_reason(row: dict) -> str:
    """Why a table row's proportion has no interval (its cluster count says)."""
    clusters = row.get("clusters")
    if clusters is not None and clusters < 2:
        return f"{clusters} independent unit{'s' if clusters != 1 else ''}"
    return numbers.NO_INTERVAL_REASON


def _distribution_row(row: dict, show_rules: bool, with_seat: bool) -> tuple[str, ...]:
    cells = _group_cells(row, show_rules) + [row["strategy"]]
    if with_seat:
        cells.append(str(row["seat"] + 1))
    cells += [_count(row["player_games"]),
              _with_ci(row["mean"], row["mean_low"], row["mean_high"]),
              _number(row["sd"]),
              *[str(row[q]) for q in ("q05", "q25", "q50", "q75", "q95")],
              _win_rate_cell(row),
              _tie_rate_cell(row)]
    return tuple(cells)


def _score_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    table = analysis.distributions
    show_rules = _show_rules(table)
    header = (*_group_header(show_rules), "Strategy", "Player-games", "Mean score (95% CI)", "SD",
              "5%", "25%", "50%", "75%", "95%", "Win rate (95% CI)", "Won in a tie (95% CI)")
    pooled = table.filter(pl.col("seat").is_null())
    blocks: list[Block] = [Heading("Scores and win rates by strategy")]
    blocks += figure_if_drawn(figures, "scores",
                              "Share of player-games at each final score, by strategy.")
    blocks.append(Table(header, tuple(_distribution_row(r, show_rules, False)
                                      for r in pooled.iter_rows(named=True))))
    per_seat = table.filter(pl.col("seat").is_not_null())
    seat_header = (*header[:len(header) - 10], "Seat", *header[len(header) - 10:])
    blocks += [Paragraph("The same by seat:"),
               Table(seat_header, tuple(_distribution_row(r, show_rules, True)
                                        for r in per_seat.iter_rows(named=True))),
               Paragraph("Quantiles are scores (points): the q-quantile is the lowest score s "
                         "such that at least a share q of player-games scored s or less (so the "
                         "5% quantile is a low score, the 95% quantile a high one). A shared win "
                         "counts as a fraction of a win; 'won in a tie' is the share of "
                         "player-games won jointly.")]
    return blocks


# What a seat verdict rests on (``sim.stats.seats``: ``method`` and ``design``).
_SEAT_BASIS = {
    "balanced": "every combination of strategies in every seat order",
    "every-order": "every ordered lineup of the pool",
    "mirror": "the same strategy in every seat",
    "repeated": "the pool rotates through every seat",
    None: "one strategy in every seat",
}


def _seat_basis(row: dict) -> str:
    """The design or model the seat gaps rest on, in words."""
    if row.get("method") == "lineup model":
        return ("lineup held fixed by a model with a term for the strategy in each seat "
                "(for each set of strategies at the table; game fixed effects)")
    return f"balanced by construction: {_SEAT_BASIS.get(row.get('design'), _SEAT_BASIS[None])}"


def _seat_test_text(row: dict) -> str:
    where = f"{row['players']} players" + (f", {row['rules']}" if row["rules"] else "")
    if row["best_seat"] is None:
        return f"{where}: a single seat, nothing to compare."
    if row.get("method") is None and row.get("reason"):
        # Seat and strategy mixed: a gap would describe who sat there, not the seat.
        return f"{where}: no test of equal seats and no seat verdict: {row['reason']}."
    if row.get("reason"):
        test = f"no test of equal seats and no seat verdict: {row['reason']}"
    else:
        test = (f"test of equal win rates (cluster-robust, small-sample F): "
                f"F = {row['wald_f']:.2f} on {row['numerator_df']} and "
                f"{row['denominator_df']:,} degrees of freedom, "
                f"{format_p_value(row['p_value'])}; seats are "
                f"{verdict_text(row['verdict'], row['fair_margin'])}")
    if numbers.has_interval(row["win_gap_low"], row["win_gap_high"]):
        win_interval = (f"(simultaneous 95% CI {100 * row['win_gap_low']:.1f} to "
                        f"{100 * row['win_gap_high']:.1f}; the data rule out a gap above "
                        f"{100 * row['win_gap_bound']:.1f} points between any two seats)")
        score_interval = f"({row['score_gap_low']:.2f} to {row['score_gap_high']:.2f})"
    else:
        win_interval = score_interval = (f"(no interval: {row['clusters']} independent units "
                                         f"cannot estimate the spread of every seat gap)")
    return (f"{where} ({_seat_basis(row)}): {test}. Largest win-rate gap: seat "
            f"{row['best_seat'] + 1} minus seat "
            f"{row['worst_seat'] + 1} = {100 * row['win_gap']:.1f} percentage points "
            f"{win_interval}. Largest mean-score gap: seat "
            f"{row['high_score_seat'] + 1} minus seat {row['low_score_seat'] + 1} = "
            f"{row['score_gap']:.2f} points {score_interval}; {row['gap_method']}.")



def _seat_blocks(analysis: BatchAnalysis, figures: dict[str, bytes],
                 panel: tuple[int, str]) -> list[Block]:
    seats = analysis.seats
    show_rules = _show_rules(seats)
    blocks: list[Block] = [Heading("Seat advantage")]
    blocks += figure_if_drawn(figures, "seats",
                              "Win rate by seat, all strategies together, with 95% intervals "
                              "(cluster-robust); the dashed line is the share every seat would "
                              "have if seats were equal.")
    blocks.append(Table(
        (*_group_header(show_rules), "Seat", "Games", "Mean score (95% CI)",
         "Win rate (95% CI)", "Won in a tie"),
        tuple((*_group_cells(r, show_rules), str(r["seat"] + 1), _count(r["player_games"]),
               _with_ci(r["mean"], r["mean_low"], r["mean_high"]),
               _percent_ci(r["win_rate"], r["win_rate_low"], r["win_rate_high"]),
               f"{100 * r['tie_rate']:.1f}%") for r in seats.iter_rows(named=True))))
    blocks += [Paragraph(_seat_test_text(r)) for r in analysis.seat_tests.iter_rows(named=True)]
    # Gaps only where seat can be told from strategy (the others' lines say why not).
    separable = analysis.seat_tests.filter(pl.col("method").is_not_null()).select(
        "players", "rules")
    seat_gaps = analysis.seat_gaps.join(separable, on=["players", "rules"], how="semi")
    if not seat_gaps.is_empty():
        blocks.append(Table(
            (*_group_header(show_rules), "Seat", "Other seat", "Win-rate gap, pp (simultaneous "
             "95% CI)", "Mean-score gap (simultaneous 95% CI)"),
            tuple((*_group_cells(r, show_rules), str(r["seat"] + 1), str(r["other_seat"] + 1),
                   _with_ci(100 * r["win_gap"], 100 * r["win_gap_low"], 100 * r["win_gap_high"],
                            1),
                   _with_ci(r["score_gap"], r["score_gap_low"], r["score_gap_high"]))
                  for r in seat_gaps.iter_rows(named=True))))
    blocks += _token_blocks(analysis, figures, panel)
    return blocks


def _token_blocks(analysis: BatchAnalysis, figures: dict[str, bytes],
                  panel: tuple[int, str]) -> list[Block]:
    if analysis.role_table is None:
        return []
    players, rules = panel
    # The game's words for its rotating role and the count that sets its turns.
    role = declared(analysis, RotatingRoleAssociation)
    count = count_effect_of(analysis)
    blocks: list[Block] = [Heading(role.heading, 3), Paragraph(role.explanation)]
    if analysis.role_effect is not None:
        for row in analysis.role_effect.iter_rows(named=True):
            blocks.append(Paragraph(
                f"{row['players']} players: leading one more {role.turn} than the others is "
                f"worth {_with_ci(row['score_gap'], row['score_gap_low'], row['score_gap_high'])}"
                f" points and {_with_ci(100 * row['win_gap'], 100 * row['win_gap_low'], 100 * row['win_gap_high'], 1)}"  # noqa: E501
                f" percentage points of win chance (95% CIs; regression within each game with "
                f"the seat held fixed, cluster-robust over {row['clusters']:,} deals, "
                f"{row['games']:,} games)."))
    blocks += figure_if_drawn(figures, "light",
                              f"Mean score by {count.noun}: all players with its 95% CI, and "
                              f"each seat (the seats that lead more {role.turn}s rise above).")
    table = analysis.role_table.filter((pl.col("players") == players)
                                       & (pl.col("rules") == rules))
    blocks.append(Table(
        (count.noun.capitalize(), "Seat", role.held_header, role.position_header,
         "Player-games", "Mean score (95% CI)", "Win rate"),
        tuple((str(r[role.count_column]), str(r["seat"] + 1), _number(r["first_picks"], 0),
               _number(r["mean_position"]), _count(r["player_games"]),
               _with_ci(r["mean"], r["mean_low"], r["mean_high"]),
               f"{100 * r['win_rate']:.1f}%") for r in table.iter_rows(named=True))))
    return blocks


def _strategy_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    blocks: list[Block] = [Heading("Strategy against strategy")]
    if analysis.head_to_head is not None:
        blocks += figure_if_drawn(figures, "matrix",
                                  "Share of meetings at the same table in which the row strategy "
                                  "finishes ahead of the column strategy (ties count one half).")
        blocks.append(Table(
            ("Players", "Strategy", "Opponent", "Games together", "Finishes ahead (95% CI)"),
            tuple((str(r["players"]), r["strategy"], r["opponent"], _count(r["games"]),
                   _percent_ci(r["ahead_rate"], r["ahead_rate_low"], r["ahead_rate_high"]))
                  for r in analysis.head_to_head.iter_rows(named=True))))
    if analysis.strategy_gaps.is_empty():
        strategies = sorted(set(analysis.distributions["strategy"]))
        blocks.append(Paragraph(f"Only one strategy played ({', '.join(strategies)}): there is "
                                f"nothing to compare."))
        return blocks
    for row in analysis.strategy_gaps.iter_rows(named=True):
        blocks.append(Paragraph(
            f"{row['players']} players: {row['best']} scores "
            f"{_with_ci(row['score_gap'], row['score_gap_low'], row['score_gap_high'])} points "
            f"more than {row['worst']} on average ({row['method']}; win rates "
            f"{100 * row['best_win_rate']:.1f}% and {100 * row['worst_win_rate']:.1f}%)."))
    return blocks


def _category_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    """Where the points come from (games whose results carry ``points_*`` columns)."""
    if analysis.categories is None or analysis.categories.is_empty():
        return []
    blocks: list[Block] = [Heading("Points by scoring category")]
    blocks += figure_if_drawn(figures, "categories",
                              "Mean points per player in each scoring category, by strategy, "
                              "with 95% confidence intervals.")
    blocks.append(Table(
        ("Players", "Rules", "Strategy", "Category", "Player-games", "Mean points (95% CI)",
         "SD"),
        tuple((str(r["players"]), r["rules"] or "—", r["strategy"], r["category"],
               _count(r["player_games"]), _with_ci(r["mean"], r["mean_low"], r["mean_high"]),
               _number(r["sd"])) for r in analysis.categories.iter_rows(named=True))))
    return blocks


def _variance_label(row: dict) -> str:
    """The row's seat; the pooled row is the report's one deal share."""
    return "all seats (the deal share)" if row["seat"] is None else f"seat {row['seat'] + 1}"


def tile_noun(game) -> str:
    """What the game calls the items of its removed-items column (the ``DealCovariate.item`` of
    its ``RemovedItemsEffect`` column), the noun its item names are keyed by; the declared noun
    when no covariate says."""
    removed = game.analysis(RemovedItemsEffect)
    for covariate in game.deal_covariates():
        if removed is not None and covariate.column == removed.column and covariate.item:
            return covariate.item
    return removed.noun if removed is not None else "item"


def _tile_labels(analysis: BatchAnalysis, names: ItemNames) -> dict[int, str]:
    """Tile number -> "5 grass meadow" for the tiles of the tile impact table."""
    if analysis.removed_items is None:
        return {}
    noun = tile_noun(get_game(analysis.batch.game))
    return {int(tile): names.label(noun, tile)
            for tile in analysis.removed_items["tile"].unique().to_list()}


def _tile_pictures(analysis: BatchAnalysis, panel: tuple[int, str],
                   names: ItemNames) -> list[Block]:
    """The drawings of the tile whose removal raises the mean score most and the one whose
    removal lowers it most (main panel), captioned with the effect; nothing when the game
    draws no tile."""
    players, rules = panel
    impact = analysis.removed_items.filter((pl.col("players") == players)
                                           & (pl.col("rules") == rules))
    if impact.is_empty():
        return []
    noun = tile_noun(get_game(analysis.batch.game))
    ranked = impact.sort(["effect", "tile"], descending=[True, False])
    pictures: list[Block] = []
    for row, verb in ranked_ends(ranked, "raises", "lowers"):
        if (verb == "raises") != (row["effect"] > 0):
            continue  # no tile moves the score that way
        picture = names.picture(
            noun, row["tile"],
            f"The {noun} whose removal {verb} the mean score most: "
            f"{names.mention(noun, row['tile'])}: removing it unseen changes a player's mean "
            f"score by {row['effect']:+.2f} points (95% CI {row['effect_low']:+.2f} to "
            f"{row['effect_high']:+.2f}, not adjusted for picking the largest of "
            f"{impact.height}).")
        if picture is not None:
            pictures.append(picture)
    return pictures


def _tile_set_blocks(analysis: BatchAnalysis, figures: dict[str, bytes],
                     names: ItemNames = NO_NAMES, panel: tuple[int, str] | None = None
                     ) -> list[Block]:
    blocks: list[Block] = [Heading("Deal variance: what the deal decides")]
    if analysis.deal_variance is not None:
        blocks += figure_if_drawn(figures, "variance",
                                  "Share of a player's score variance between deals (what the "
                                  "deal decides) and within a deal (what varies between "
                                  "replays: the strategies' random choices and tie-breaks).")
        blocks.append(Table(
            ("Players", "Seat", "Deals", "Games per deal", "Between-deal variance",
             "Within-deal variance", "Deal's share of a seat's score variance: ICC (95% CI)"),
            tuple((str(r["players"]), _variance_label(r), _count(r["deals"]),
                   _number(r["games_per_deal"], 1), _number(r["between_deal_variance"]),
                   _number(r["within_deal_variance"]),
                   _percent_ci(r["icc"], r["icc_low"], r["icc_high"]))
                  for r in analysis.deal_variance.iter_rows(named=True))))
        blocks.append(Paragraph(
            "One-way random-effects model per seat: score = strategy's mean + deal effect + "
            "the rest, which varies between replays of the same deal (the strategies' random "
            "choices and tie-breaks). The deal's share (ICC) is of a seat's score variance with "
            "the strategy fixed; the pooled row (all seats) adds the seats' sums of squares "
            "(seat and strategy means removed) and is the report's one deal share (the skill "
            "section's split, whose deal share is of the whole variance with strategy "
            "differences included, refers to it). Every interval is a percentile bootstrap over "
            "deals (1,000 resamples, fixed seed; the seats of a deal are drawn together, so the "
            "pooled interval counts their correlation) of the estimate truncated at 0, so it "
            "stays inside 0-100%. With unequal replicates per deal, games per deal is the "
            "ANOVA's n0."))
    if analysis.removed_items is not None:
        blocks += figure_if_drawn(figures, "tiles",
                                  "Change in a player's mean score when the tile is removed "
                                  "unseen, the other removed tiles held fixed (95% CIs, deals "
                                  "as units), one row per tile (number and name), largest "
                                  "increase at the top.")
        blocks += _tile_pictures(analysis, panel or analysis.main_panel(), names)
        labels = _tile_labels(analysis, names)
        blocks.append(Table(
            ("Players", "Tile", "Deals removed", "Deals kept", "Mean removed", "Mean kept",
             "Effect (95% CI)"),
            tuple((str(r["players"]), labels.get(int(r["tile"]), str(r["tile"])),
                   _count(r["deals_removed"]),
                   _count(r["deals_kept"]), _number(r["mean_removed"]), _number(r["mean_kept"]),
                   _with_ci(r["effect"], r["effect_low"], r["effect_high"]))
                  for r in analysis.removed_items.iter_rows(named=True))))
        blocks.append(Paragraph(
            "With many tiles compared, about 1 in 20 intervals misses zero by chance alone; the "
            "summary only names a tile whose effect survives a Bonferroni correction."))
    if analysis.count_table is not None:
        count = count_effect_of(analysis)
        blocks.append(Heading(count.noun.capitalize(), 3))
        blocks.append(Table(
            ("Players", count.noun.capitalize(), "Deals", "Mean score (95% CI)"),
            tuple((str(r["players"]), str(r[count.column]), _count(r["deals"]),
                   _with_ci(r["mean"], r["mean_low"], r["mean_high"]))
                  for r in analysis.count_table.iter_rows(named=True))))
        if analysis.count_fit is not None:
            for row in analysis.count_fit.iter_rows(named=True):
                line = (f"least-squares slope {_with_ci(row['slope'], row['slope_low'], row['slope_high'])} "  # noqa: E501
                        f"points per extra {count.item} over {row['deals']:,} deals")
                if row["lack_of_fit_p"] == row["lack_of_fit_p"]:
                    line += (f"; lack-of-fit test of the line against one mean per count: "
                             f"F = {row['lack_of_fit_f']:.1f}, "
                             f"{format_p_value(row['lack_of_fit_p'])}, so the line "
                             + ("describes the curve" if row["linear"]
                                else "does not describe the curve and the slope should not be "
                                     f"read as the worth of one more {count.item}"))
                blocks.append(Paragraph(
                    f"{row['players']} players: the mean peaks at {row['peak_count']} "
                    f"{count.item}s: {_number(row['peak_mean'])} points, 95% CI "
                    f"{_number(row['peak_low'])} to {_number(row['peak_high'])}; "
                    f"{line}."))
    if len(blocks) == 1:
        if not analysis.batch.is_rows:
            reason = ("this batch kept the summary store; the deal's share of the variance needs "
                      "the rows store and several games per deal (replicates_per_deal of 2 or "
                      "more)")
        else:
            reason = ("no deal was replayed (replicates_per_deal = 1), so the deal's share of "
                      "the variance cannot be told apart from play; run a deals x replicates "
                      "design (replicates_per_deal of 2 or more)")
        blocks.append(Paragraph(f"Not shown: {reason}."))
    return blocks


def _convergence_blocks(analysis: BatchAnalysis, figures: dict[str, bytes]) -> list[Block]:
    blocks: list[Block] = [Heading("Convergence: how many games are enough")]
    blocks += figure_if_drawn(figures, "convergence",
                              "Running estimates with their 95% intervals as games accumulate "
                              "(in the order played).")
    if not analysis.games_needed.is_empty():
        names = {"mean_score": "mean score (points)",
                 "seat_0_win_rate": "seat 1 (first player) win rate"}
        blocks.append(Table(
            ("Players", "Estimate", "Precision wanted (±)", "Precision now (±)", "Games played",
             "Games needed"),
            tuple((str(r["players"]), names[r["metric"]],
                   f"{r['precision']:g}" if r["metric"] == "mean_score"
                   else f"{100 * r['precision']:g} pp",
                   _number(r["half_width_now"], 3) if r["metric"] == "mean_score"
                   else f"{100 * r['half_width_now']:.2f} pp",
                   _count(r["games_played"]), _count(r["games_needed"]))
                  for r in analysis.games_needed.iter_rows(named=True))))
        unit = analysis.batch.cluster_unit
        blocks.append(Paragraph(
            f"Each {unit} is one independent unit; the interval is the ratio estimator's, so it "
            f"counts any correlation inside a {unit}. Games needed = (1.96 sigma / precision)^2 "
            f"with sigma^2 the variance per game measured on the whole batch."))
    blocks += [Paragraph(line) for line in _few_units_warnings(analysis)]
    return blocks


def _few_units_warnings(analysis: BatchAnalysis) -> list[str]:
    """One line per panel whose tests and verdicts rest on fewer than MIN_VERDICT_CLUSTERS
    independent units."""
    table = analysis.distributions
    if table.is_empty() or "clusters" not in table.columns:
        return []
    # A panel's units: the most any of its strategies was seen in (every deal seats someone).
    panels = (table.group_by(["players", "rules"]).agg(pl.col("clusters").max())
              .sort(["players", "rules"]))
    lines = []
    for row in panels.iter_rows(named=True):
        where = f"{row['players']} players" + (f", {row['rules']}" if row["rules"] else "")
        line = numbers.few_units_warning(where, int(row["clusters"] or 0),
                                         analysis.batch.cluster_unit, MIN_VERDICT_CLUSTERS)
        if line is not None:
            lines.append(line)
    return lines


# The notable games' column holding an SVG of each seat's final position (runners from issue
# 40 on write it; older batches lack it).
NOTABLE_SVG_COLUMN = "svg"
SAMPLE_POSITION = "sample-position"


def sample_position(analysis: BatchAnalysis) -> Picture | None:
    """The SVG of the highest-scoring notable game's winner's final position (the seat with
    the best score, the first such seat on a tie), from the notable files' ``svg`` column;
    None when the batch's notable files have no such column or no drawing for it."""
    notable = analysis.notable
    if notable is None or notable.is_empty():
        return None
    files = [path for path in analysis.batch.notable_files
             if NOTABLE_SVG_COLUMN in pl.read_parquet_schema(path)]
    if not files:
        return None
    best = notable.filter(pl.col("kind") == "highest").sort(
        ["score", "game_id", "seat"], descending=[True, False, False])
    if best.is_empty():
        return None
    row = best.row(0, named=True)
    drawn = (pl.scan_parquet(files)
             .filter((pl.col("kind") == "highest") & (pl.col("game_id") == row["game_id"])
                     & (pl.col("seat") == row["seat"]))
             .select(NOTABLE_SVG_COLUMN).collect()[NOTABLE_SVG_COLUMN].drop_nulls())
    if drawn.is_empty():
        return None
    return Picture(SAMPLE_POSITION, drawn[0],
                   f"A sample final position: the winner's in game {row['game_id']}, the "
                   f"highest-scoring game of the batch: seat {row['seat'] + 1} "
                   f"({row['strategy']}), {row['score']} points.")


def _notable_blocks(analysis: BatchAnalysis, picture: Picture | None = None) -> list[Block]:
    notable = analysis.notable
    if notable is None or notable.is_empty():
        return []
    best = notable.group_by(["kind", "game_id"]).agg(pl.col("score").max().alias("best"))
    blocks: list[Block] = [Heading("Highest- and lowest-scoring games")]
    if picture is not None:
        blocks.append(picture)
    legend = get_game(analysis.batch.game).drawing_legend()
    if legend:
        blocks.append(Paragraph(f"How to read the drawings: {legend}"))
    for kind, descending in (("highest", True), ("lowest", False)):
        candidates = best.filter(pl.col("kind") == kind).sort(["best", "game_id"],
                                                              descending=[descending, False])
        if candidates.is_empty():
            continue
        game_id, top = candidates["game_id"][0], candidates["best"][0]
        blocks.append(Heading(f"The {kind}-scoring game: game {game_id} (best score {top})", 3))
        seats = notable.filter((pl.col("kind") == kind) & (pl.col("game_id") == game_id))
        for row in seats.sort("seat").iter_rows(named=True):
            blocks.append(Monospace(f"Seat {row['seat'] + 1} ({row['strategy']}): {row['score']} "
                                    f"points", row["drawing"]))
    return blocks


def _notes_blocks(analysis: BatchAnalysis, names: ItemNames = NO_NAMES) -> list[Block]:
    methods = [
        *get_game(analysis.batch.game).report_notes(),
        "Intervals are 95% and cluster-robust: the independent unit is the deal (the seats of "
        "a game and the replays of a deal are correlated), read in the summary store from its "
        "per-deal sums" + ("; this summary batch predates them, so its units are its shards"
                           if analysis.batch.cluster_unit == "shard" else "") + ". Means are "
        "ratio means with the sandwich variance over units and a t interval on units - 1 "
        "degrees of freedom. Win and tie rates are proportions: Wilson score intervals at the "
        "effective sample size (the design effect folded in) with t on units - 1 degrees of "
        "freedom, which stay within 0-100% and are one-sided at 0% or 100%. A win shared by k "
        "seats counts 1/k. A strategy that plays every seat wins 1/players of the games by "
        "construction: that rate is shown as fixed, without an interval.",
        "Test of equal seats: Wald test of the seats' win rates with their cluster-robust "
        "covariance (valid with shared wins), in the small-sample (Hotelling) F form on "
        "(q, units - q) degrees of freedom, which holds its level with few units; no test or "
        f"verdict with fewer than {MIN_VERDICT_CLUSTERS} units. Gaps between seats or "
        "strategies use simultaneous (max-|t|) 95% intervals over all pairs, with the "
        "critical value for a covariance estimated from that many units, since the largest "
        "gap is picked after looking.",
        f"Fairness is an equivalence question: seats are fair only when every seat gap's "
        f"simultaneous interval lies within the stated margin (here "
        f"±{100 * analysis.seat_tests['fair_margin'][0]:g} percentage points), unfair when one "
        f"lies wholly outside it, and undecided otherwise. 'No significant difference' is "
        f"never taken to mean 'no difference'." if not analysis.seat_tests.is_empty() else
        "Fairness needs two or more seats.",
        "Strategy gaps are estimated on seat-standardised means, so a strategy is not credited "
        "with the seats it happened to sit in.",
    ]
    if not analysis.batch.is_rows:
        methods.append(
            "Needs the rows store: head-to-head results and the deal's share of the variance "
            "(also needs replays of each deal), and the sections particular to the game. "
            "The summary store gives distributions, win rates, the seat tables and convergence "
            f"by {analysis.batch.cluster_unit}.")
    names_note = [names.note] if names.note else []
    return [Heading("Notes and methods"),
            Bullets(tuple(_few_units_warnings(analysis) + analysis.notes + names_note
                          + methods))]


# --- the entry point -----------------------------------------------------------------------------

def _draw_figures(analysis: BatchAnalysis, panel: tuple[int, str],
                  names: ItemNames = NO_NAMES) -> dict[str, bytes]:
    players, rules = panel
    drawn = {
        "scores": plots.score_distributions(analysis.pooled_histogram),
        "seats": plots.seat_win_rates(analysis.seats, analysis.seat_tests),
        "matrix": plots.win_matrix(analysis.head_to_head, players, rules),
        "variance": plots.variance_decomposition(analysis.deal_variance, players, rules),
        "tiles": plots.tile_impact(analysis.removed_items, players, rules,
                                   _tile_labels(analysis, names)),
        "light": plots.light_tiles(analysis.count_table, analysis.role_table, players, rules,
                                   count_effect_of(analysis)
                                   if analysis.count_table is not None else None),
        "convergence": plots.convergence(analysis.running, players, rules),
        "categories": plots.category_points(analysis.categories, players, rules),
    }
    drawn.update(card_figures(analysis, panel, names))
    drawn.update(unfolding_figures(analysis, panel))
    drawn.update(skill_figures(analysis, panel))
    return {name: png for name, png in drawn.items() if png is not None}


def default_report_dir(run_dir: Path) -> Path:
    """``reports/<batch folder name>``: two batches in two folders get two report folders."""
    return Path("reports") / Path(run_dir).resolve().name


def batch_identity(batch) -> dict:
    """What tells one batch from another: name, game, the output folder its config names, the
    config hash and the data digest (no absolute paths, so the file is the same on every run of
    the same batch)."""
    manifest = batch.manifest
    config = manifest.get("config") or {}
    return {"name": batch.name, "game": batch.game,
            "output": str(config.get("output", Path(batch.run_dir).name)),
            "config_hash": str(manifest.get("config_hash", "")),
            "data_digest": str(manifest.get("data_digest", ""))}


def refuse_other_owner(out_dir: Path, identity: dict, record_name: str, kind: str,
                       option: str = "--out") -> bool:
    """Whether ``out_dir`` holds the report of ``identity`` (its record file ``record_name`` says
    so); raise ``InputError`` when the record names another ``kind`` (batch or sweep) or cannot
    be read (naming ``option``, the one that picks the folder); False when there is no
    record."""
    recorded_path = out_dir / record_name
    if not recorded_path.is_file():
        return False
    try:
        recorded = json.loads(recorded_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        recorded = None
    if recorded == identity:
        return True
    other = (f"{kind} '{recorded.get('name')}' from {recorded.get('output')}"
             if isinstance(recorded, dict) else f"an unreadable {kind} record")
    raise InputError(f"{out_dir}: holds the report of {other}, not of this {kind} "
                     f"({identity['output']}); give another folder with {option}, or delete it")


# The files a batch report writes at the top of its folder (figures go in FIGURE_DIR); any other
# file in a report folder is the user's, and the folder is then never replaced.
REPORT_FILES = ("report.html", "report.md", "summary.md", "summary.parquet", IDENTITY_FILE,
                CONFIG_FILE)
FIGURE_SUFFIXES = (".png", ".svg")


def is_report_file(relative: str) -> bool:
    """Whether ``relative`` (a path inside a report folder, ``/``-separated) is a file a batch
    report writes: one of ``REPORT_FILES``, or a figure in ``figures/``."""
    parts = relative.split("/")
    if len(parts) == 1:
        return parts[0] in REPORT_FILES
    return len(parts) == 2 and parts[0] == FIGURE_DIR and parts[1].endswith(FIGURE_SUFFIXES)


def check_report_dir(out_dir: Path, identity: dict) -> None:
    """Refuse (``InputError``) a report folder that is a link or a file, holds files a report
    does not write (the user's own: the folder is replaced whole), or holds another batch's
    report: one whose ``batch.json`` names another batch, or a report without ``batch.json``."""
    # Links and files first (nothing is read through a link), the user's files last.
    check_output_folder(out_dir, lambda relative: True, "report")
    if not refuse_other_owner(out_dir, identity, IDENTITY_FILE, "batch") and (
            (out_dir / "report.html").exists() or (out_dir / "report.md").exists()):
        raise InputError(f"{out_dir}: holds a report that does not say which batch it belongs "
                         f"to (no {IDENTITY_FILE}); give another folder with --out, or delete it")
    check_output_folder(out_dir, is_report_file, "report")


def write_pictures(folder: Path, blocks: list[Block]) -> list[Path]:
    """Write every picture of ``blocks`` as ``folder/<name>.svg`` (atomically, in the order
    the report shows them); the paths written."""
    paths = []
    for block in blocks:
        if isinstance(block, Picture):
            path = Path(folder) / f"{block.name}.svg"
            write_text_atomic(path, block.svg)
            paths.append(path)
    return paths


def _write_summary_page(out_dir: Path, title: str, blocks: list[Block], findings: list[str],
                        figures: dict[str, bytes], batch, toml: str | None,
                        picture: Picture | None = None) -> None:
    """``summary.md`` beside the report: the design, the findings the report leads with, the
    seat win rates and score distributions figures, the sample final position (when drawn),
    the files and how to reproduce."""
    from sim.report.summary_page import (
        SummaryPage,
        design_sentence,
        pick_figures,
        reproduce_command,
        what_was_played_rows,
        write_summary,
    )

    config = batch.manifest.get("config") or {}
    reproduce = (reproduce_command("sim run", CONFIG_FILE, reproducing_output(config))
                 if toml is not None else None)
    write_summary(out_dir, SummaryPage(
        title=f"{title}: summary",
        design=design_sentence(what_was_played_rows(blocks), get_game(batch.game)),
        findings=findings,
        figures=pick_figures(blocks, set(figures), ["seats", "scores"]),
        files=["summary.parquet"], config_file=CONFIG_FILE if toml is not None else None,
        reproduce=reproduce, figure_dir=FIGURE_DIR,
        pictures=[picture] if picture is not None else []))


def build_report(run_dir: Path, out_dir: Path | None = None,
                 progress: Callable[[str], None] | None = None,
                 fair_margin: float = FAIR_MARGIN,
                 card_margin: float = CARD_MARGIN) -> ReportResult:
    """Build the report of the batch in ``run_dir``.

    Writes ``report.html`` (self-contained, figures embedded), ``report.md`` (figures in
    ``figures/``), ``summary.md`` (the one-page summary, ``sim.report.summary_page``) and
    ``summary.parquet`` (every number, long format) to ``out_dir``, by default
    ``reports/<name of the batch folder>`` under the current directory. The report folder
    records which batch it belongs to (``batch.json``); a folder holding another batch's report
    is refused (``InputError``), never overwritten. ``progress`` receives one short
    message per step. Raises ``sim.errors.InputError`` for a missing or invalid batch folder,
    manifest or shard. ``fair_margin`` (a proportion) is the margin of the seats' fairness
    verdict, ``card_margin`` (points) that of the cards' verdicts.
    """
    start = time.perf_counter()

    def step(message: str) -> None:
        if progress is not None:
            progress(message)

    batch = open_batch(run_dir)
    out_dir = Path(out_dir) if out_dir is not None else default_report_dir(batch.run_dir)
    identity = batch_identity(batch)
    check_report_dir(out_dir, identity)
    analysis = analyse_batch(batch, step, fair_margin, card_margin)
    panel = analysis.main_panel()
    # Cards, spirits and tiles by number and name, from the data the batch was played with.
    names = names_of_batch(batch)
    findings = [names.annotate(finding) for finding in choose_findings(analysis)]

    step("figures")
    figures = _draw_figures(analysis, panel, names)
    picture = sample_position(analysis)
    blocks = (_heading_blocks(analysis) + _summary_blocks(findings, batch.game)
              + _score_blocks(analysis, figures) + _seat_blocks(analysis, figures, panel)
              + _category_blocks(analysis, figures)
              + card_blocks(analysis, figures, names) + draft_blocks(analysis, figures, names)
              + _strategy_blocks(analysis, figures) + skill_blocks(analysis, figures)
              + unfolding_blocks(analysis, figures)
              + _tile_set_blocks(analysis, figures, names, panel)
              + _convergence_blocks(analysis, figures) + _notable_blocks(analysis, picture)
              + _notes_blocks(analysis, names))
    title = f"Balance report: {batch.name}"

    step("writing")
    buffer = io.BytesIO()
    summary = summary_table(analysis)
    sections = [*card_summary_rows(analysis), *unfolding_summary_rows(analysis),
                *skill_summary_rows(analysis)]
    pl.concat([summary, *(part.select(summary.columns) for part in sections)]).write_parquet(
        buffer)
    toml = reproducing_config(batch.manifest)
    # All or nothing: every file goes into a staging folder beside out_dir, swapped in whole at
    # the end; a failure or Ctrl-C before then leaves the previous report as it was.
    with replace_folder_whole(out_dir, is_report_file, "report") as staging:
        write_text_atomic(staging / IDENTITY_FILE, json.dumps(identity, indent=1) + "\n")
        if toml is not None:
            write_text_atomic(staging / CONFIG_FILE, toml)
        write_text_atomic(staging / "report.html", render_html(title, blocks,
                                                               svg_dir=FIGURE_DIR))
        for name, image in figures.items():
            # The PNG and, beside it, the same figure as SVG (for slides and print).
            plots.write_figure_files(staging / FIGURE_DIR, name, image)
        write_pictures(staging / FIGURE_DIR, blocks)
        write_text_atomic(staging / "report.md", render_markdown(title, blocks, FIGURE_DIR,
                                                                 svg_links=True))
        _write_summary_page(staging, title, blocks, findings, figures, batch, toml, picture)
        write_bytes_atomic(staging / "summary.parquet", buffer.getvalue())
    html_path, markdown_path = out_dir / "report.html", out_dir / "report.md"
    parquet_path = out_dir / "summary.parquet"
    return ReportResult(html=html_path, markdown=markdown_path, summary_parquet=parquet_path,
                        findings=findings, seconds=time.perf_counter() - start,
                        ignored_note=batch.ignored_note, partial_note=batch.partial_note)
