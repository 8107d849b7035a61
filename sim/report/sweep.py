"""``build_sweep_report``: a sweep folder in, ``report.html``, ``report.md`` and
``summary.parquet`` out, with each grid point's own batch report under ``points/``.

The same look and rules as the batch report (``sim.report.build``): one self-contained HTML
page, Markdown with its figures beside it, every number in a Parquet file, files written
atomically, the same bytes for the same sweep. The statistics come from ``sim.stats.sweep``;
the figures from ``sim.report.sweep_plots``. ``results_table`` is also what ``sim sweep`` prints
at the end.
"""

from __future__ import annotations

import io
import json
import math
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import polars as pl

from sim.errors import InputError
from sim.fields import FIELD_AXIS, field_from_config
from sim.files import (
    check_output_folder,
    replace_folder_whole,
    write_bytes_atomic,
    write_text_atomic,
)
from sim.games.registry import get_game
from sim.report.build import (
    FIGURE_DIR,
    FIGURE_SUFFIXES,
    IDENTITY_FILE,
    _lineup_text,
    _toml_value,
    build_report,
    data_text,
    is_report_file,
    lineup_toml,
    refuse_other_owner,
    what_was_played,
)
from sim.report.cards import sweep_card_blocks
from sim.report.document import (
    Block,
    Bullets,
    Figure,
    Heading,
    Links,
    Paragraph,
    Table,
    render_html,
    render_markdown,
)
from sim.report.findings import format_p_value
from sim.report.names import NO_NAMES, ItemNames, merged_names, names_of_batch
from sim.report.plots import write_figure_files
from sim.report.sweep_plots import Cell, Series, metric_figure, varying_axes
from sim.stats.seats import FAIR_MARGIN
from sim.stats.sweep import (
    STATES,
    SweepFolder,
    SweepResults,
    open_sweep,
    sweep_results,
    sweep_rows,
)

SWEEP_CONFIG_FILE = "sweep.toml"
# Who the report folder belongs to (a report of another sweep or batch is never overwritten).
SWEEP_IDENTITY_FILE = "sweep-report.json"
POINTS_DIR = "points"
# Every finding judged across fields (one row per finding and field, and per pair of fields).
FIELDS_PARQUET = "fields.parquet"


@dataclass(frozen=True)
class SweepReportExtras:
    """What a sweep preset adds to the report: ``blocks`` shown after the header (figures in
    them are written beside the Markdown like the others) and ``files`` written into the
    report folder (name -> bytes)."""

    blocks: list[Block] = field(default_factory=list)
    files: dict[str, bytes] = field(default_factory=dict)


@dataclass(frozen=True)
class SweepReportResult:
    """What ``build_sweep_report`` wrote."""

    html: Path
    markdown: Path
    summary_parquet: Path
    point_reports: list[Path]
    results: SweepResults
    seconds: float
    findings: list[str] = field(default_factory=list)  # the findings across fields, if any
    # One line per comparison with the baseline ("Against the baseline"), if any.
    baseline_findings: list[str] = field(default_factory=list)


# --- number formatting ---------------------------------------------------------------------------

def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _number(value, digits: int = 2, scale: float = 1.0) -> str:
    return "–" if _missing(value) else f"{scale * value:,.{digits}f}"


def points_text(row: dict | None) -> str:
    """A mean in points with its 95% interval."""
    if row is None or _missing(row["value"]):
        return "–"
    if _missing(row["ci_low"]):
        return _number(row["value"])
    return f"{_number(row['value'])} ({_number(row['ci_low'])} to {_number(row['ci_high'])})"


def share_text(row: dict | None) -> str:
    """A share in % with its 95% interval ("fixed" when it has none by construction)."""
    if row is None or _missing(row["value"]):
        return "–"
    if _missing(row["ci_low"]):
        return f"{_number(row['value'], 1, 100)}% (fixed)"
    return (f"{_number(row['value'], 1, 100)}% ({_number(row['ci_low'], 1, 100)}–"
            f"{_number(row['ci_high'], 1, 100)}%)")


def seat_gap_text(row: dict | None) -> str:
    """The largest seat gap as observed, the two seats named (counted from 1), in percentage
    points with that pair's simultaneous 95% interval: ``seat 2 − seat 1 +3.6 pp (−1.2 to
    +8.4)``."""
    if row is None or _missing(row["value"]):
        return "–"
    pair = ("every seat equal " if row.get("seat") is None or row.get("other_seat") is None
            else f"seat {int(row['seat']) + 1} − seat {int(row['other_seat']) + 1} ")
    return (f"{pair}{100 * row['value']:+.1f} pp ({100 * row['ci_low']:+.1f} to "
            f"{100 * row['ci_high']:+.1f})")


def _seat_gap_row(results: SweepResults, point: int) -> dict | None:
    """The largest seat gap's row of a point (it names its two seats, so it is not found by
    seat like the other numbers)."""
    rows = results.table.filter((pl.col("point") == point) & (pl.col("metric") == "seat_gap"))
    return rows.row(0, named=True) if rows.height else None


def _games_text(results: SweepResults, point: int) -> str:
    played = results.value(point, "games_played")
    cap = results.value(point, "games_cap")
    games = int(played["value"]) if played else 0
    if cap and int(cap["value"]) != games:
        return f"{games:,} of {int(cap['value']):,}"
    return f"{games:,}"


def _axis_text(value) -> str:
    return Path(value).stem if isinstance(value, str) and value.endswith((".toml", "/")) \
        else str(value)


# --- the table of every point ---------------------------------------------------------------------

def results_table(results: SweepResults) -> tuple[tuple[str, ...], list[tuple[str, ...]]]:
    """Header and rows of the compact table of every metric per grid point (``sim sweep``
    prints it; the report opens with it): the axis values, games, why the point stopped, the
    mean score, each strategy's win rate, the largest seat gap with the fairness verdict and the
    share of player-games won in a tie, each with its 95% interval."""
    sweep = results.sweep
    strategies = results.strategies()
    margin = 100 * results.fair_margin
    header = (*sweep.axes, "Games", "Stopped", "Mean score (95% CI)",
              *[f"Win rate {s} (95% CI)" for s in strategies],
              "Largest seat gap (simultaneous 95% CI)", f"Seats (±{margin:g} pp)",
              "Won in a tie (95% CI)")
    rows = []
    for point in results.played_points():
        index = point.index
        spread = _seat_gap_row(results, index)
        state = results.value(index, "state")
        rows.append((
            *[_axis_text(point.values.get(axis)) for axis in sweep.axes],
            _games_text(results, index), state["verdict"] if state else "–",
            points_text(results.value(index, "score_mean")),
            *[share_text(results.value(index, "win_rate", s)) for s in strategies],
            seat_gap_text(spread), (spread or {}).get("verdict") or "–",
            share_text(results.value(index, "won_in_tie"))))
    return header, rows


def format_results_table(results: SweepResults) -> list[str]:
    """``results_table`` as aligned plain-text lines, with a line saying how to read it."""
    header, rows = results_table(results)
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows,
                                                                       strict=True)]
    axes = len(results.sweep.axes)

    def line(cells) -> str:
        parts = [str(c).ljust(w) if i < axes + 2 else str(c).rjust(w)
                 for i, (c, w) in enumerate(zip(cells, widths, strict=True))]
        return "  ".join(parts).rstrip()

    lines = [line(header), line(["-" * w for w in widths]), *[line(r) for r in rows]]
    unit = "deals" if all(b.cluster_unit == "deal" for b in results.batches.values()) else \
        "deals (shards for points of a summary store from before per-deal sums were kept)"
    lines.append(f"95% intervals, cluster-robust over {unit}; the largest seat gap is the best "
                 f"seat's win rate minus the worst's as observed, with that pair's simultaneous "
                 f"interval (below zero when the two seats cannot be told apart); seats are "
                 f"fair when every gap is shown to lie within ±{100 * results.fair_margin:g} "
                 f"pp.")
    if results.missing:
        lines.append(f"No results yet at: {', '.join(results.missing)}.")
    return lines


# --- header -------------------------------------------------------------------------------------

def _first_config(results: SweepResults) -> tuple[dict, dict]:
    point = results.played_points()[0]
    manifest = results.batches[point.index].manifest
    return manifest, manifest.get("config") or {}


def _adaptive_text(adaptive: dict | None) -> str:
    if adaptive is None:
        return "none: every point plays all its games"
    metric = adaptive.get("metric")
    start = (f"after at least {int(adaptive.get('min_games', 0)):,} games, in steps of "
             f"{int(adaptive.get('step_games', 0)):,}")
    if metric == "seat_verdict":
        return (f"a point stops once its seats' fairness verdict (±"
                f"{100 * float(adaptive.get('fair_margin', FAIR_MARGIN)):g} pp) is decided, "
                f"{start}")
    half = float(adaptive.get("half_width", 0))
    what = {"seat_win_rate": "every seat's win rate", "strategy_win_rate":
            "every strategy's win rate", "score_mean": "every seat's mean score"}.get(
        str(metric), str(metric))
    precision = f"{half:g} points" if metric == "score_mean" else f"{100 * half:g} pp"
    return f"a point stops once {what} has a 95% CI half-width of at most {precision}, {start}"


def _point_data_path(results: SweepResults, index: int, out_dir: Path) -> str | None:
    """The data a point played (its batch's kept copy), relative to the report folder."""
    config = results.batches[index].manifest.get("config") or {}
    data = config.get("data_file")
    if not data:
        return None
    path = Path(data)
    if not path.is_absolute():
        path = results.batches[index].run_dir / path
    return Path(os.path.relpath(path, out_dir)).as_posix()


def _field_configs(results: SweepResults) -> dict[str, dict]:
    """Each field's batch config (the first played point of the field)."""
    configs: dict[str, dict] = {}
    for point in results.played_points():
        name = point.values.get(FIELD_AXIS)
        if name is not None and name not in configs:
            configs[name] = results.batches[point.index].manifest.get("config") or {}
    return configs


def _field_texts(results: SweepResults) -> list[str]:
    """Every field as ``NAME=LINEUP`` (what ``fields = [...]`` takes), in the sweep's order."""
    configs = _field_configs(results)
    return [f"{spec.name}={spec.lineup}" for spec in (
        field_from_config(name, configs.get(name, {})) for name in results.sweep.axes[FIELD_AXIS])]


def reproducing_sweep(results: SweepResults, out_dir: Path) -> str | None:
    """The sweep file that plays the same games again (``sim sweep``), written beside the
    report; None when the points record no ``sim run`` config."""
    sweep = results.sweep
    manifest, config = _first_config(results)
    needed = ("game", "players", "lineup", "rotate", "deals", "replicates_per_deal", "seed",
              "shard_size", "store")
    if not all(key in config for key in needed):
        return None
    game = get_game(config["game"])
    lines = [f"name = {_toml_value(sweep.name)}", f"game = {_toml_value(config['game'])}"]
    if "players" not in sweep.axes:
        lines.append(f"players = {config['players']}")
    if FIELD_AXIS in sweep.axes:
        lines.append(f"fields = {_toml_value(_field_texts(results))}")
    else:
        lines.append(lineup_toml(config))
    lines += [f"deals = {config['deals']}",
              f"replicates_per_deal = {config['replicates_per_deal']}",
              f"seed = {config['seed']}", f"shard_size = {config['shard_size']}",
              f"output = {_toml_value(sweep.output_as_configured)}",
              f"store = {_toml_value(config['store'])}"]
    first = results.played_points()[0].index
    data_axis = game.data_option if game.data_option in sweep.axes else None
    if game.data_option and not data_axis:
        data = _point_data_path(results, first, out_dir)
        if data:
            lines.append(f"{game.data_option} = {_toml_value(data)}")
    rules = {k: v for k, v in (config.get("rules") or {}).items() if k not in sweep.axes}
    if rules:
        lines += ["", "[rules]"] + [f"{name} = {value}" for name, value in rules.items()]
    grid = {axis: values for axis, values in sweep.axes.items() if axis != FIELD_AXIS}
    if grid:
        lines += ["", "[sweep]"]
    for axis, values in grid.items():
        if axis == data_axis:
            paths = []
            for value in values:
                point = next((p for p in results.played_points() if p.values.get(axis) == value),
                             None)
                path = _point_data_path(results, point.index, out_dir) if point else None
                paths.append(path or str(value))
            values = paths
        lines.append(f"{axis} = {_toml_value(values)}")
    stored_baseline = sweep.manifest.get("baseline")
    if grid and isinstance(stored_baseline, dict):
        # The baseline the report compared against (a data axis is named by its point's path
        # above, so its baseline is left to the default, the first value).
        named = {axis: value for axis, value in stored_baseline.items()
                 if axis in grid and axis != data_axis}
        if named:
            pairs = ", ".join(f"{axis} = {_toml_value(value)}" for axis, value in named.items())
            lines.append(f"baseline = {{{pairs}}}")
    if sweep.adaptive:
        lines += ["", "[adaptive]"]
        for key in ("metric", "half_width", "min_games", "step_games", "fair_margin"):
            if key in sweep.adaptive:
                value = sweep.adaptive[key]
                shown = repr(value) if isinstance(value, float) else _toml_value(value)
                lines.append(f"{key} = {shown}")
    return "\n".join(lines) + "\n"


def _lineup_row(results: SweepResults, config: dict, players: int) -> tuple[str, str]:
    """The lineup, or with fields every field's lineup (they all play the same deals)."""
    if FIELD_AXIS not in results.sweep.axes:
        return ("Lineup", _lineup_text(config, players))
    configs = _field_configs(results)
    texts = [f"{name}: {field_from_config(name, configs[name]).lineup_text()}"
             for name in results.sweep.axes[FIELD_AXIS] if name in configs]
    return ("Fields", "; ".join(texts) + " — every field plays the same deals (common random "
                                         "numbers), so the paired differences between fields "
                                         "leave the luck of the deal out")


def partial_points_note(results: SweepResults) -> str | None:
    """One line naming the grid points whose batch report is partial (shards their manifest
    records as finished are missing or damaged, left out: ``Batch.partial_note``) and how to
    play them again; None when every point with results is whole."""
    partial = [(point, results.batches[point.index]) for point in results.played_points()
               if results.batches[point.index].partial_note]
    if not partial:
        return None
    named = "; ".join(f"point {point.label}: {len(batch.damaged_shards)} of "
                      f"{len(batch.damaged_shards) + len(batch.shard_files)} finished shards "
                      f"left out" for point, batch in partial)
    folder = results.sweep.folder / "points"
    return (f"PARTIAL: {len(partial)} of the {len(results.played_points())} points with results "
            f"{'is' if len(partial) == 1 else 'are'} partial ({named}): the report covers only "
            f"the shards that are whole; `sim run --resume {folder}/LABEL` plays a point's "
            f"missing shards again")


def _header_blocks(results: SweepResults, out_dir: Path) -> list[Block]:
    """What was played: game, grid, rules, lineup, players, data, design, stopping, and the
    sweep file that plays it again."""
    sweep = results.sweep
    manifest, config = _first_config(results)
    game = get_game(config.get("game", manifest.get("game")))
    grid = " × ".join(f"{axis} = {', '.join(_axis_text(v) for v in values)}"
                      for axis, values in sweep.axes.items())
    played = results.played_points()
    players = sweep.axes.get("players") or [config.get("players")]
    rows = [("Game", f"{game.title} ({game.name})"),
            ("Grid", f"{grid}: {len(sweep.points)} points, every point played on the same "
                     f"deals (the same master seed), so points differ by their settings, not by "
                     f"the luck of the deal"),
            ("Players", ", ".join(str(p) for p in players)
             + (" (an axis)" if "players" in sweep.axes else "")
             + f"; the game allows {game.min_players} to {game.max_players}"),
            _lineup_row(results, config, int(players[0] or 0))]
    rules = config.get("rules") or {}
    for parameter in game.rules_parameters:
        if parameter.name in sweep.axes:
            shown = "an axis: " + ", ".join(str(v) for v in sweep.axes[parameter.name])
        else:
            value = rules.get(parameter.name, parameter.default)
            names = {number: name for name, number in parameter.choices}
            shown = f"{names[value]} ({value})" if value in names else str(value)
            if value == parameter.default:
                shown += " (default)"
        rows.append((f"Rules: {parameter.name}", f"{shown}: {parameter.help}"))
    digests = sorted({str(results.batches[p.index].manifest.get("data_digest", "?"))
                      for p in played})
    if game.data_option and game.data_option in sweep.axes:
        data = "an axis: " + ", ".join(_axis_text(v) for v in sweep.axes[game.data_option])
    else:
        data = data_text(game, config.get("data_file"))
    rows.append(("Data", f"{data}; digest {', '.join(digests)}"))
    caps = sorted({p.games_cap for p in sweep.points if p.games_cap})
    games_total = sum(int(results.value(p.index, "games_played")["value"]) for p in played)
    cap_text = f"{caps[0]:,}" if len(caps) == 1 else ", ".join(f"{c:,}" for c in caps)
    rows.append(("Games", f"{games_total:,} games reported; {cap_text} per point at most; design "
                          f"{int(config.get('deals', 0)):,} deals x "
                          f"{int(config.get('replicates_per_deal', 1)):,} replicates per deal; "
                          f"master seed {config.get('seed', '?')}; {config.get('store', '?')} "
                          f"store"))
    rows.append(("Stopping", _adaptive_text(sweep.adaptive)))
    states: dict[str, int] = {}
    for point in sweep.points:
        states[point.state] = states.get(point.state, 0) + 1
    state_text = ", ".join(f"{count} {state}" for state, count in sorted(states.items()))
    rows.append(("Sweep", f"{sweep.name}: {len(played)} of {len(sweep.points)} points with "
                          f"results ({state_text}); sweep digest {sweep.digest[:12]}; written "
                          f"by sim {manifest.get('sim_version', '?')}"))
    return what_was_played(
        rows, partial_points_note(results), reproducing_sweep(results, out_dir),
        f"sim sweep {SWEEP_CONFIG_FILE} (the sweep file below, written beside this report); "
        f"then sim report {sweep.output_as_configured}",
        "not possible with sim sweep: the points record no sim run config",
        f"{SWEEP_CONFIG_FILE}: the sweep file that plays these games again")


# --- sections ------------------------------------------------------------------------------------

def _point_cells(results: SweepResults, metric: str, strategy: str | None = None,
                 seat: int | None = None) -> dict[tuple, Cell]:
    cells = {}
    for point in results.played_points():
        row = (_seat_gap_row(results, point.index) if metric == "seat_gap"
               else results.value(point.index, metric, strategy, seat))
        if row is None:
            continue
        key = tuple(point.values.get(axis) for axis in results.sweep.axes)

        def number(value):
            return math.nan if _missing(value) else float(value)

        cells[key] = Cell(number(row["value"]), number(row["ci_low"]), number(row["ci_high"]),
                          row["verdict"] or "" if metric == "seat_gap" else "")
    return cells


def _axis_cells(point, axes) -> list[str]:
    return [_axis_text(point.values.get(axis)) for axis in axes]


def _figure_block(name: str, png: bytes | None, caption: str) -> list[Block]:
    return [Figure(name, png, caption)] if png is not None else []


def _overview_blocks(results: SweepResults) -> list[Block]:
    header, rows = results_table(results)
    blocks: list[Block] = [
        Heading("Every grid point"),
        Table(header, tuple(rows)),
        Paragraph("Each number is the point's own estimate with its 95% interval, "
                  "cluster-robust over deals (the seats of a game and the replays of a deal "
                  "are correlated). The largest seat gap is the best seat's win rate minus the "
                  "worst's as observed, with that pair's interval from the simultaneous family "
                  "of every pair of seats. 'Stopped' says why the point has the games it has "
                  "(see 'Games played and stopping').")]
    if results.missing:
        blocks.append(Paragraph(f"No results yet at: {', '.join(results.missing)} (no finished "
                                f"shard)."))
    return blocks


def _stopping_blocks(results: SweepResults) -> list[Block]:
    sweep = results.sweep
    adaptive = sweep.adaptive
    header = [*sweep.axes, "Games played", "Games cap", "State"]
    if adaptive and adaptive.get("metric") == "seat_verdict":
        header.append("Fairness verdict now")
    elif adaptive:
        header.append("Stopping metric's 95% CI half-width now")
    rows = []
    for point in sweep.points:
        played = results.value(point.index, "games_played")
        cells = [*_axis_cells(point, sweep.axes),
                 f"{int(played['value']):,}" if played else "0",
                 f"{point.games_cap:,}" if point.games_cap else "–", point.state]
        if adaptive and adaptive.get("metric") == "seat_verdict":
            row = results.value(point.index, "stop_verdict")
            cells.append(row["verdict"] if row else "–")
        elif adaptive:
            row = results.value(point.index, "stop_half_width")
            unit = "points" if adaptive.get("metric") == "score_mean" else "pp"
            scale = 1.0 if unit == "points" else 100.0
            cells.append(f"{_number(row['value'], 3 if unit == 'points' else 2, scale)} {unit}"
                         if row else "–")
        rows.append(tuple(cells))
    seen = sorted({point.state for point in sweep.points})
    return [Heading("Games played and stopping"),
            Paragraph(f"Stopping rule: {_adaptive_text(adaptive)}."),
            Table(tuple(header), tuple(rows)),
            Bullets(tuple(f"{state}: {STATES.get(state, state)}" for state in seen))]


def _score_blocks(results: SweepResults, figures: dict[str, bytes]) -> list[Block]:
    sweep = results.sweep
    strategies = results.strategies()
    series = [Series("all strategies" if strategies else "", _point_cells(results,
                                                                          "score_mean"))]
    series += [Series(s, _point_cells(results, "score_mean", s)) for s in strategies]
    png = metric_figure("Mean score (95% intervals)", "mean score (points)", sweep.axes, series)
    if png:
        figures["score-mean"] = png
    rows = []
    for point in results.played_points():
        rows.append((*_axis_cells(point, sweep.axes),
                     points_text(results.value(point.index, "score_mean")),
                     _number((results.value(point.index, "score_sd") or {}).get("value")),
                     *[points_text(results.value(point.index, "score_mean", s))
                       for s in strategies]))
    return [Heading("Mean score"),
            *_figure_block("score-mean", png, "Mean score per player-game at each grid point, "
                                              "with its 95% interval (cluster-robust over "
                                              "deals)."),
            Table((*sweep.axes, "All strategies (95% CI)", "SD",
                   *[f"{s} (95% CI)" for s in strategies]), tuple(rows))]


def _win_rate_blocks(results: SweepResults, figures: dict[str, bytes]) -> list[Block]:
    strategies = results.strategies()
    if not strategies:
        return []
    sweep = results.sweep
    series = [Series(s, _point_cells(results, "win_rate", s)) for s in strategies]
    png = metric_figure("Win rate by strategy (95% intervals)", "win rate (%)", sweep.axes,
                        series, scale=100.0, digits=1)
    if png:
        figures["win-rate"] = png
    rows = [(*_axis_cells(point, sweep.axes),
             *[share_text(results.value(point.index, "win_rate", s)) for s in strategies])
            for point in results.played_points()]
    return [Heading("Win rate by strategy"),
            *_figure_block("win-rate", png, "Each strategy's share of the wins (a win shared "
                                            "by k seats counts 1/k), with 95% intervals."),
            Table((*sweep.axes, *[f"{s} (95% CI)" for s in strategies]), tuple(rows))]


def _seat_blocks(results: SweepResults, figures: dict[str, bytes]) -> list[Block]:
    sweep = results.sweep
    margin = results.fair_margin
    png = metric_figure("Largest seat gap: best seat's win rate minus the worst's",
                        "largest seat gap (percentage points)", sweep.axes,
                        [Series("", _point_cells(results, "seat_gap"))], scale=100.0,
                        digits=1, reference=(margin, f"fairness margin ({100 * margin:g} pp)"))
    if png:
        figures["seat-gap"] = png
    seats = sorted({int(s) for s in results.table.filter(pl.col("metric") == "seat_win_rate")
                    ["seat"].drop_nulls().to_list()})
    rows = []
    for point in results.played_points():
        spread = _seat_gap_row(results, point.index)
        equal = results.value(point.index, "seat_equal_p")
        rows.append((*_axis_cells(point, sweep.axes), seat_gap_text(spread),
                     (spread or {}).get("verdict") or "–",
                     format_p_value(equal["value"]) if equal and not _missing(equal["value"])
                     else "–",
                     *[share_text(results.value(point.index, "seat_win_rate", seat=s))
                       for s in seats]))
    return [Heading("Seat advantage"),
            *_figure_block("seat-gap", png,
                           f"The largest seat gap at each grid point (the best seat's win rate "
                           f"minus the worst's, as observed) with that pair's simultaneous 95% "
                           f"interval; the dashed line is the fairness margin "
                           f"({100 * margin:g} percentage points). The marker gives the "
                           f"verdict: fair when every gap between two seats is shown to lie "
                           f"within the margin, unfair when one is shown to exceed it, "
                           f"undecided otherwise."),
            Table((*sweep.axes, "Largest seat gap (simultaneous 95% CI)",
                   f"Seats (±{100 * margin:g} pp)", "Equal seats (Wald test)",
                   *[f"Seat {s + 1} win rate (95% CI)" for s in seats]), tuple(rows)),
            Paragraph("Seats are counted from 1 (seat 1 plays first). The verdict and the test "
                      "need every seat to see the same mix of strategies (a mirror lineup or a "
                      "rotating pool); otherwise they read 'not tested'.")]


def _tie_blocks(results: SweepResults, figures: dict[str, bytes]) -> list[Block]:
    sweep = results.sweep
    png = metric_figure("Player-games won in a tie (95% intervals)", "won in a tie (%)",
                        sweep.axes, [Series("", _point_cells(results, "won_in_tie"))],
                        scale=100.0, digits=1)
    if png:
        figures["ties"] = png
    rows = [(*_axis_cells(point, sweep.axes),
             share_text(results.value(point.index, "won_in_tie")))
            for point in results.played_points()]
    return [Heading("Shared wins"),
            *_figure_block("ties", png, "Share of player-games won jointly with another seat, "
                                        "with 95% intervals."),
            Table((*sweep.axes, "Won in a tie (95% CI)"), tuple(rows))]


def _game_column_blocks(results: SweepResults) -> list[Block]:
    columns = results.game_columns()
    if not columns:
        return [Heading("The game's own results"),
                Paragraph("Not shown: the points kept the summary store, which has no per-game "
                          "columns.")]
    sweep = results.sweep
    game = get_game(next(iter(results.batches.values())).game)
    docs = game.column_docs()
    rows = [(*_axis_cells(point, sweep.axes),
             *[points_text(results.value(point.index, column)) for column in columns])
            for point in results.played_points()]
    return [Heading("The game's own results"),
            Paragraph(f"Mean per player-game of each count the {game.title} results record, "
                      f"with 95% intervals (cluster-robust over deals)."),
            Table((*sweep.axes, *columns), tuple(rows)),
            Bullets(tuple(f"{column}: {docs.get(column, '')}" for column in columns))]


def _point_report_blocks(results: SweepResults, written: dict[int, Path]) -> list[Block]:
    if not written:
        return []
    items = []
    for point in results.played_points():
        if point.index not in written:
            continue
        folder = f"{POINTS_DIR}/{quote(point.label, safe='=,')}"
        items.append((f"{point.label}: the batch report of this grid point",
                      f"{folder}/report.html", f"{folder}/report.md"))
    return [Heading("Per-point reports"),
            Paragraph("Each grid point is an ordinary batch; its full balance report (score "
                      "distributions, seats, strategies, the deal's share of the variance, "
                      "convergence, notable games) is in its own folder:"),
            Links(tuple(items))]


def sweep_item_names(results: SweepResults) -> ItemNames:
    """The cards', spirits' and tiles' names for the whole sweep: each point's own (from the
    data it was played with), kept where the points agree (``sim.report.names.merged_names``);
    points that share their data are read once."""
    every, seen = [], set()
    for index in sorted(results.batches):
        batch = results.batches[index]
        config = batch.manifest.get("config") or {}
        data_file = config.get("data_file")
        where = str((Path(batch.run_dir) / data_file).resolve()) if data_file else ""
        key = (batch.game, where, str(batch.manifest.get("data_digest", "")))
        if key in seen:
            continue
        seen.add(key)
        every.append(names_of_batch(batch))
    return merged_names(every)


def _notes_blocks(results: SweepResults, names: ItemNames = NO_NAMES) -> list[Block]:
    unit = "deal" if all(b.cluster_unit == "deal" for b in results.batches.values()) else \
        "deal (the shard for points of a summary store from before per-deal sums were kept)"
    return [Heading("Notes and methods"), Bullets((
        f"Every interval is 95% and cluster-robust: the independent unit is the {unit}, "
        f"since the seats of a game and the replays of a deal are correlated. Means and "
        f"shares are ratio means with the sandwich variance over units and a t interval "
        f"(sim/stats/clustered.py); each point is computed exactly as its own batch report "
        f"computes it.",
        "Shares (win rates, ties) have score intervals (Wilson at the effective sample size "
        "of the clustered estimate, t on units - 1 degrees of freedom), so they stay inside "
        "0-100%; with few units intervals are wide and no verdict is given below 10 units.",
        "The largest seat gap is the best seat's win rate minus the worst's as observed. "
        "Picked after looking, it is the largest of several noisy gaps, never zero even with "
        "no seat effect (about 3.6 pp at 800 games); its interval is that pair's from the "
        "simultaneous (max-|t|) family of every pair of seats, which holds for whichever pair "
        "is picked, and goes below zero when the two seats cannot be told apart.",
        f"Fairness is an equivalence question: seats are fair only when every seat gap's "
        f"simultaneous interval lies within ±{100 * results.fair_margin:g} percentage points, "
        f"unfair when one lies wholly outside it, undecided otherwise. 'No significant "
        f"difference' is never taken to mean 'no difference'.",
        "Every point is played on the same deals (common random numbers). The intervals here "
        "are each point's own; a difference between two points is known more precisely than "
        "their two intervals suggest, because the deals' luck cancels in it.",
        "Seats are counted from 1 (the first player); the Parquet files keep the 0-based seat.",
        *([names.note] if names.note else []),
    ))]


# --- the entry point -----------------------------------------------------------------------------

def _group_label(values: dict, axes: list[str]) -> str:
    """A table setting of the grid in words, e.g. "players 4, side 1" ("" with no other axis)."""
    return ", ".join(f"{axis} {_axis_text(values[axis])}" for axis in axes)


def field_section(results: SweepResults, step: Callable[[str], None],
                  item_names: ItemNames = NO_NAMES) -> tuple[list[Block], list[str], pl.DataFrame]:
    """With a ``field`` axis: every headline judged across the fields, per setting of the other
    axes (``sim.stats.field_findings``), as report blocks, the top sentences and one long frame
    (``fields.parquet``). Empty without fields."""
    sweep = results.sweep
    if FIELD_AXIS not in sweep.axes:
        return [], [], pl.DataFrame()
    from sim.report.fields import FieldGroup, FieldInfo, field_report_blocks
    from sim.stats.field_findings import fairness_across_fields, findings_frame, judge_findings

    played = results.played_points()
    game = get_game(next(iter(results.batches.values())).game)
    configs = _field_configs(results)
    names = [name for name in sweep.axes[FIELD_AXIS] if name in configs]
    infos = [FieldInfo(name, field_from_config(name, configs[name]).lineup_text())
             for name in names]
    other_axes = [axis for axis in sweep.axes if axis != FIELD_AXIS]
    groups: dict[tuple, list] = {}
    for point in played:
        key = tuple(_axis_text(point.values.get(axis)) for axis in other_axes)
        groups.setdefault(key, []).append(point)
    stores = {str((results.batches[p.index].manifest.get("config") or {}).get("store", "rows"))
              for p in played}
    if stores != {"rows"} or len(names) < 2:
        why = ("the fields were played into the summary store, which keeps no per-deal rows"
               if stores != {"rows"} else "fewer than two fields have results")
        return [Heading("Across fields"), Paragraph(f"No finding is judged across fields: "
                                                    f"{why}.")], [], pl.DataFrame()
    rows = sweep_rows(sweep)
    field_groups, frames = [], []
    for key, points in groups.items():
        label = _group_label(points[0].values, other_axes)
        step(f"across fields{': ' + label if label else ''}")
        present = [name for name in names
                   if any(p.values.get(FIELD_AXIS) == name for p in points)]
        if len(present) < 2:
            continue
        group_rows = rows.filter(pl.col("point").is_in([p.index for p in points]))
        findings = judge_findings(group_rows, present, game)
        field_groups.append(FieldGroup(label, findings))
        frame = findings_frame(findings)
        if not frame.is_empty():
            frames.append(frame.with_columns(
                *[pl.lit(value).alias(axis) for axis, value in zip(other_axes, key, strict=True)]
            ).select(*other_axes, pl.exclude(other_axes)))
    blocks, top = field_report_blocks(infos, field_groups, item_names=item_names)
    # The seats' fairness across fields, per table setting, right after the count line.
    fairness = []
    for group in field_groups:
        verdict = fairness_across_fields(group.findings, list(group.findings[0].judgement.fields))
        if verdict.per_field:
            sentence = verdict.sentence()
            fairness.append(f"{group.label}: {sentence}" if group.label else sentence)
    top = top[:1] + fairness + top[1:]
    return blocks, top, pl.concat(frames, how="diagonal") if frames else pl.DataFrame()


def default_sweep_report_dir(sweep_dir: Path) -> Path:
    """``reports/<sweep folder name>``."""
    return Path("reports") / Path(sweep_dir).resolve().name


def sweep_identity(sweep: SweepFolder) -> dict:
    """What tells one sweep from another (no absolute paths)."""
    return {"kind": "sweep", "name": sweep.name, "digest": sweep.digest,
            "output": sweep.output_as_configured}


# The files a sweep report writes at the top of its folder, besides figures, the point reports
# (``points/<label>/``, each a batch report) and a preset's extra files.
SWEEP_REPORT_FILES = ("report.html", "report.md", "summary.md", "summary.parquet",
                      SWEEP_IDENTITY_FILE, SWEEP_CONFIG_FILE, FIELDS_PARQUET,
                      "against-baseline.parquet")


def sweep_report_files(extra_files: tuple[str, ...] = ()):
    """A test of the paths (relative, ``/``-separated) a sweep report writes, with a preset's
    ``extra_files`` at the top: anything else in its folder is the user's."""
    def is_own(relative: str) -> bool:
        parts = relative.split("/")
        if len(parts) == 1:
            return parts[0] in SWEEP_REPORT_FILES or parts[0] in extra_files
        if parts[0] == FIGURE_DIR:
            return len(parts) == 2 and parts[1].endswith(FIGURE_SUFFIXES)
        return parts[0] == POINTS_DIR and len(parts) > 2 and is_report_file(
            "/".join(parts[2:]))
    return is_own


def check_sweep_report_dir(out_dir: Path, identity: dict, option: str = "--out",
                           extra_files: tuple[str, ...] = ()) -> None:
    """Refuse (``InputError``) a report folder that is a link or a file, holds files a sweep
    report does not write (the user's own: the folder is replaced whole; ``extra_files``, a
    preset's), or holds another sweep's report or any other report; the report of the same
    sweep is replaced. ``option`` is the option that picks the folder, named in the
    message."""
    # Links and files first (nothing is read through a link), the user's files last.
    check_output_folder(out_dir, lambda relative: True, "report", option)
    if refuse_other_owner(out_dir, identity, SWEEP_IDENTITY_FILE, "sweep", option):
        check_output_folder(out_dir, sweep_report_files(extra_files), "report", option)
        return
    if (out_dir / IDENTITY_FILE).exists():
        raise InputError(f"{out_dir}: holds the report of a batch, not of this sweep; give "
                         f"another folder with {option}, or delete it")
    if (out_dir / "report.html").exists() or (out_dir / "report.md").exists():
        raise InputError(f"{out_dir}: holds a report that does not say which sweep it belongs "
                         f"to (no {SWEEP_IDENTITY_FILE}); give another folder with {option}, "
                         f"or delete it")
    check_output_folder(out_dir, sweep_report_files(extra_files), "report", option)


def summary_frame(results: SweepResults) -> pl.DataFrame:
    """Every number of the report: the long table with one column per axis in front (integers
    when every value of the axis is one, text otherwise)."""
    sweep = results.sweep
    by_point = {point.index: point for point in sweep.points}
    columns = {}
    for axis, values in sweep.axes.items():
        integers = all(isinstance(v, int) and not isinstance(v, bool) for v in values)
        dtype = pl.Int64 if integers else pl.String
        column = [by_point[i].values.get(axis) for i in results.table["point"].to_list()]
        columns[axis] = pl.Series(axis, column if integers else [str(v) for v in column],
                                  dtype=dtype)
    return results.table.with_columns(**columns).select(
        "point", "label", *sweep.axes, *[c for c in results.table.columns
                                         if c not in ("point", "label")])


def _baseline_lines(baseline_blocks: list[Block]) -> list[str]:
    """The against-baseline count lines (one per comparison) that summary.md lists."""
    from sim.report.summary_page import baseline_lines

    return baseline_lines(baseline_blocks)


def _write_summary_page(out_dir: Path, title: str, blocks: list[Block], results: SweepResults,
                        field_top: list[str], field_figures: list[Figure],
                        baseline_blocks: list[Block], figures: dict[str, bytes],
                        written_fields: bool, reproducible: bool) -> None:
    """``summary.md`` beside the report: the design, the findings across fields, the
    against-baseline count lines, the results table, the first two figures of the findings
    across fields (else the first two of the report), the files and how to reproduce."""
    from sim.report.compare import BASELINE_PARQUET
    from sim.report.summary_page import (
        SummaryPage,
        baseline_lines,
        design_sentence,
        pick_figures,
        reproduce_command,
        what_was_played_rows,
        write_summary,
    )

    header, rows = results_table(results)
    files = ["summary.parquet"]
    if written_fields:
        files.append(FIELDS_PARQUET)
    if (out_dir / BASELINE_PARQUET).is_file() and baseline_lines(baseline_blocks):
        files.append(BASELINE_PARQUET)
    findings = [*field_top, *(f"Against the baseline, {line}"
                              for line in baseline_lines(baseline_blocks))]
    shown = pick_figures(field_figures, set(figures)) or pick_figures(blocks, set(figures))
    reproduce = (reproduce_command("sim sweep", SWEEP_CONFIG_FILE,
                                   results.sweep.output_as_configured) if reproducible else None)
    game = get_game(next(iter(results.batches.values())).game)
    write_summary(out_dir, SummaryPage(
        title=f"{title}: summary",
        design=design_sentence(what_was_played_rows(blocks), game),
        findings=findings, tables=[Table(header, tuple(rows))],
        table_notes=format_results_table(results)[len(rows) + 2:], figures=shown, files=files,
        config_file=SWEEP_CONFIG_FILE if reproducible else None, reproduce=reproduce,
        figure_dir=FIGURE_DIR))


def build_sweep_report(sweep_dir: Path, out_dir: Path | None = None,
                       progress: Callable[[str], None] | None = None,
                       fair_margin: float = FAIR_MARGIN, point_reports: bool = True,
                       extras: SweepReportExtras | None = None,
                       title: str | None = None) -> SweepReportResult:
    """Build the report of the sweep in ``sweep_dir``.

    Writes ``report.html`` (self-contained), ``report.md`` (figures in ``figures/``),
    ``summary.md`` (the one-page summary, ``sim.report.summary_page``), ``summary.parquet``
    (every number, long format, one column per axis) and ``sweep.toml`` (the sweep file that
    plays the games again) to ``out_dir`` (default ``reports/<sweep folder name>``), and, with
    ``point_reports``, every grid point's batch report in ``points/<label>/``, linked from the
    page. A folder holding another sweep's report is refused (``InputError``). ``extras`` adds
    a preset's sections (``sim tune-rules``).
    """
    start = time.perf_counter()

    def step(message: str) -> None:
        if progress is not None:
            progress(message)

    sweep = open_sweep(sweep_dir)
    out_dir = Path(out_dir) if out_dir is not None else default_sweep_report_dir(sweep_dir)
    identity = sweep_identity(sweep)
    extra_files = tuple(extras.files) if extras else ()
    check_sweep_report_dir(out_dir, identity, extra_files=extra_files)
    results = sweep_results(sweep, fair_margin, lambda label: step(f"statistics: {label}"))
    # All or nothing: every file (the point reports too) goes into a staging folder beside
    # out_dir, swapped in whole at the end; a failure or Ctrl-C before then leaves the previous
    # report as it was.
    with replace_folder_whole(out_dir, sweep_report_files(extra_files), "report") as staging:
        written: dict[int, Path] = {}
        if point_reports:
            for point in results.played_points():
                step(f"report of {point.label}")
                report = build_report(point.run_dir, staging / POINTS_DIR / point.label,
                                      fair_margin=fair_margin)
                # Where it is once the staging folder is swapped in.
                written[point.index] = out_dir / POINTS_DIR / point.label / report.html.name
        # Cards, spirits and tiles by number and name, from the data the points were played with.
        names = sweep_item_names(results)
        field_blocks, field_top, field_frame = field_section(results, step, names)
        if field_top:
            field_blocks = [Heading("Findings across fields"), Bullets(tuple(field_top)),
                            *field_blocks]
        # Every other point against the baseline, paired on common deals (against-baseline.parquet).
        from sim.report.compare import against_baseline_section
        field_figures = [block for block in field_blocks if isinstance(block, Figure)]
        baseline_blocks = against_baseline_section(results, staging, step, names)
        field_blocks += baseline_blocks
        step("figures and tables")
        figures: dict[str, bytes] = {}
        extra_blocks = list(extras.blocks) if extras else []
        blocks = (_header_blocks(results, out_dir) + extra_blocks + field_blocks
                  + _overview_blocks(results)
                  + _stopping_blocks(results) + _score_blocks(results, figures)
                  + _win_rate_blocks(results, figures) + _seat_blocks(results, figures)
                  + _tie_blocks(results, figures) + _game_column_blocks(results)
                  + sweep_card_blocks(sweep, get_game(next(iter(results.batches.values())).game),
                                      names=names)
                  + _point_report_blocks(results, written) + _notes_blocks(results, names))
        for block in [*field_blocks, *extra_blocks]:
            if isinstance(block, Figure):
                figures[block.name] = block.png
        title = title or f"Sweep report: {sweep.name}"

        step("writing")
        write_text_atomic(staging / SWEEP_IDENTITY_FILE, json.dumps(identity, indent=1) + "\n")
        toml = reproducing_sweep(results, out_dir)
        if toml is not None:
            write_text_atomic(staging / SWEEP_CONFIG_FILE, toml)
        write_text_atomic(staging / "report.html", render_html(title, blocks, svg_dir=FIGURE_DIR))
        for name, png in sorted(figures.items()):
            # The PNG, and its SVG beside it when the figure carries one (for slides).
            write_figure_files(staging / FIGURE_DIR, name, png)
        write_text_atomic(staging / "report.md",
                          render_markdown(title, blocks, FIGURE_DIR, svg_links=True))
        _write_summary_page(staging, title, blocks, results, field_top, field_figures,
                            baseline_blocks, figures, written_fields=not field_frame.is_empty(),
                            reproducible=toml is not None)
        for name, data in sorted((extras.files if extras else {}).items()):
            write_bytes_atomic(staging / name, data)
        buffer = io.BytesIO()
        summary_frame(results).write_parquet(buffer)
        write_bytes_atomic(staging / "summary.parquet", buffer.getvalue())
        if not field_frame.is_empty():
            buffer = io.BytesIO()
            field_frame.write_parquet(buffer)
            write_bytes_atomic(staging / FIELDS_PARQUET, buffer.getvalue())
    html_path, markdown_path = out_dir / "report.html", out_dir / "report.md"
    parquet_path = out_dir / "summary.parquet"
    return SweepReportResult(html=html_path, markdown=markdown_path,
                             summary_parquet=parquet_path, point_reports=list(written.values()),
                             results=results, seconds=time.perf_counter() - start,
                             findings=field_top,
                             baseline_findings=_baseline_lines(baseline_blocks))


__all__ = ["SweepReportExtras", "SweepReportResult", "build_sweep_report",
           "format_results_table", "results_table", "varying_axes"]
