"""B against A in words and tables: the sweep report's "Against the baseline" section and the
report ``sim compare`` writes (``compare.md``, ``compare.html``, ``compare.parquet``).

The numbers come from ``sim.stats.compare``: per metric, A's and B's values with their
intervals, the paired difference B − A on the common deals with its interval, and a verdict
against the metric's margin. Each comparison is one table (metric, A, B, B − A, verdict) under a
paragraph naming A and B, the common deals, what the pairing bought, what was left out and the
seats' fairness in each; a family with many members (one finding per tile, per card) shows the
members whose difference is decided and one row each for the rest ("N others: the same within
the margin"); the Parquet file holds every member.

Wording: "B higher" / "B lower" only when the interval of B − A excludes 0; "the same within
±margin" only when it lies inside the margin; "undecided" otherwise (an interval that includes 0
is never read as no difference). A metric marked as an association (a card players took) stays
one in both and in their difference.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from sim.errors import InputError
from sim.files import write_bytes_atomic, write_text_atomic
from sim.report.document import Block, Bullets, Heading, Paragraph, Table
from sim.report.fields import folded_rows
from sim.report.names import NO_NAMES, ItemNames
from sim.report.numbers import number
from sim.stats.compare import (
    HIGHER,
    LOWER,
    SAME,
    UNDECIDED,
    WITHIN,
    MetricDifference,
    PairedComparison,
    comparison_frame,
    differences,
    seat_fairness,
    unpaired_difference,
)
from sim.stats.fields import KIND_EFFECT
from sim.store import read_manifest

# The sweep report's section and its Parquet file (beside report.html).
SECTION_TITLE = "Against the baseline"
BASELINE_PARQUET = "against-baseline.parquet"
# What `sim compare` writes.
COMPARE_MARKDOWN = "compare.md"
COMPARE_HTML = "compare.html"
COMPARE_PARQUET = "compare.parquet"
# The decided metrics `sim compare` prints after the mean score.
TOP_METRICS = 5

_UNCLEAR = "the interval includes 0 and reaches past the margin"


# --- cells ----------------------------------------------------------------------------------------


def _shown(value: float, digits: int, signed: bool) -> str:
    if not math.isfinite(value):
        return "–"
    # Adding 0.0 turns a value that rounds to -0 into +0.
    rounded = round(value, digits) + 0.0
    return f"{rounded:+,.{digits}f}" if signed else f"{rounded:,.{digits}f}"


def _with_interval(value: float, low: float, high: float, digits: int, signed: bool) -> str:
    """``value (low to high)``, or ``value (no interval)``."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{_shown(value, digits, signed)} (no interval)"
    return (f"{_shown(value, digits, signed)} ({_shown(low, digits, signed)} to "
            f"{_shown(high, digits, signed)})")


def _cells(item: MetricDifference) -> tuple[str, str, str]:
    """A's value, B's value and B − A, each with its interval, in the shown unit."""
    finding = item.finding
    scale, digits = finding.scale, finding.digits
    signed = finding.kind == KIND_EFFECT
    return (_with_interval(scale * item.baseline, scale * item.baseline_low,
                           scale * item.baseline_high, digits, signed),
            _with_interval(scale * item.variant, scale * item.variant_low,
                           scale * item.variant_high, digits, signed),
            _with_interval(scale * item.difference, scale * item.low, scale * item.high, digits,
                           True))


def _band(item: MetricDifference) -> str:
    finding = item.finding
    return f"±{number(finding.scale * finding.judgement.margin, finding.digits)} {finding.unit}"


def verdict_text(item: MetricDifference) -> str:
    """The verdict as a table shows it, with the margin it was judged against."""
    band = _band(item)
    if item.verdict == SAME:
        return f"the same within {band}"
    if item.verdict.endswith(WITHIN):
        return f"{item.verdict} ({band})"
    if item.verdict == UNDECIDED:
        if item.reason == _UNCLEAR:
            return f"undecided (the interval includes 0 and reaches past {band})"
        return f"undecided ({item.reason})" if item.reason else UNDECIDED
    return item.verdict


def _metric_cell(item: MetricDifference, names: ItemNames = NO_NAMES) -> str:
    finding = item.finding
    text = f"{names.annotate(finding.noun)} ({finding.unit})"
    return text if finding.causal else f"{text}; association: players chose it"


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- one comparison -------------------------------------------------------------------------------


_COUNT_ORDER = (HIGHER, HIGHER + WITHIN, LOWER, LOWER + WITHIN, SAME, UNDECIDED)


def count_line(items: list[MetricDifference]) -> str:
    """``"Of 29 metrics: 2 B higher, 1 B lower, 20 the same within the margin, 6 undecided"``."""
    counts = {verdict: sum(item.verdict == verdict for item in items)
              for verdict in _COUNT_ORDER}
    parts = [f"{counts[verdict]} {verdict}" for verdict in _COUNT_ORDER if counts[verdict]]
    noun = "metric" if len(items) == 1 else "metrics"
    return f"Of {len(items):,} {noun}: {'; '.join(parts)}"


def _family(item: MetricDifference) -> tuple[str, str]:
    return item.finding.headline, item.finding.key.split("/", 1)[0]


def _folded(items: list[MetricDifference]) -> list:
    """The table's rows: every metric, except that a family (one headline's metrics sharing a
    key's stem, e.g. one per tile) of more than ``FOLD_ABOVE`` members shows its decided members
    and one ``(count, verdict, exemplar)`` per other verdict."""
    return folded_rows(items, _family, lambda item: item.verdict, (SAME, UNDECIDED))


def _folded_row(count: int, verdict: str, exemplar: MetricDifference,
                parquet: str) -> tuple[str, ...]:
    band = _band(exemplar)
    if verdict == SAME:
        text = f"{count} others: the same within {band}"
    else:
        text = (f"{count} others: undecided (their intervals include 0 and reach past {band}; "
                f"every one in {parquet})")
    return ("", text, "", "", "", verdict if verdict != SAME else f"the same within {band}")


def comparison_table(comparison: PairedComparison, parquet: str,
                     names: ItemNames = NO_NAMES) -> Table:
    """The table of one comparison: headline, metric (cards and tiles by number and name),
    A, B, B − A (each with its 95% interval) and the verdict."""
    items = differences(comparison)
    header = ("Headline", "Metric", f"A: {comparison.baseline} (95% CI)",
              f"B: {comparison.variant} (95% CI)", "B − A (95% CI)", "Verdict")
    rows: list[tuple[str, ...]] = []
    previous = None
    for row in _folded(items):
        if isinstance(row, tuple):
            cells = _folded_row(*row, parquet)
            headline = row[2].finding.headline
        else:
            cells = ("", _metric_cell(row, names), *_cells(row), verdict_text(row))
            headline = row.finding.headline
        # The headline names its first row only: the rows under it belong to it.
        shown = _capitalised(headline) if headline != previous else ""
        previous = headline
        rows.append((shown, *cells[1:]))
    return Table(header, tuple(rows))


def _fairness_text(comparison: PairedComparison) -> str:
    verdicts, reason = seat_fairness(comparison)
    if not verdicts:
        return ""
    margin = next(f.judgement.margin for f in comparison.findings
                  if f.key.startswith("seat_win_gap/"))
    each = f"A {verdicts[0]}, B {verdicts[1]}"
    text = (f"Seat fairness (every seat's win-share gap shown within ±{100 * margin:g} "
            f"percentage points: fair; some gap shown to exclude 0: unfair): {each}")
    if all(verdict == UNDECIDED for verdict in verdicts) and reason:
        text += f" ({reason})"
    return text + "."


def _pairing_text(comparison: PairedComparison) -> str:
    """What the common deals bought, on the mean score."""
    unpaired, paired = unpaired_difference(comparison)
    if not (math.isfinite(unpaired) and math.isfinite(paired)) or paired <= 0:
        return ""
    ratio = unpaired / paired
    if ratio >= 1.1:
        gain = f"{ratio:.1f}× narrower"
    elif ratio > 0.9:
        gain = "about the same: A's and B's scores share little of a deal's luck here"
    else:
        gain = "wider: A's and B's scores move against each other from deal to deal"
    return (f"Pairing on the common deals gives the mean score's B − A a standard error of "
            f"{paired:.3f} points, against {unpaired:.3f} for two sets of games on separate "
            f"deals ({gain}).")


def comparison_blocks(comparison: PairedComparison, parquet: str,
                      heading_level: int = 3, title: str | None = None,
                      names: ItemNames = NO_NAMES) -> list[Block]:
    """The blocks of one comparison: a heading ("players 3: side=B against side=A" or
    ``title``), a paragraph (A, B, the common deals, what pairing bought, notes, seat
    fairness), the count line and the table. ``parquet`` names the file with every member;
    ``names`` the cards and tiles."""
    heading = title or (f"{comparison.setting}: " if comparison.setting else "") + \
        f"{comparison.variant} against {comparison.baseline}"
    items = differences(comparison)
    texts = [f"A: {comparison.baseline} (the baseline); B: {comparison.variant}. Both played "
             f"the same {comparison.deals:,} deals, so every B − A below is paired on them.",
             _pairing_text(comparison), *comparison.notes, _fairness_text(comparison),
             count_line(items) + "."]
    return [Heading(heading, heading_level), Paragraph(" ".join(t for t in texts if t)),
            comparison_table(comparison, parquet, names)]


def explanation(comparisons: list[PairedComparison]) -> str:
    """How to read the tables: intervals, verdicts, the margins used, effect or association."""
    margins: dict[str, str] = {}
    for comparison in comparisons:
        for finding in comparison.findings:
            band = (f"±{number(finding.scale * finding.judgement.margin, finding.digits)} "
                    f"{finding.unit}")
            margins.setdefault(finding.headline, band)
    listed = "; ".join(f"{headline} {band}" for headline, band in margins.items())
    return ("Every metric is estimated for A and for B from per-deal sums on the deals both "
            "played; B − A is their paired difference. A deal's luck is common to A and B and "
            "cancels from it, so its interval is narrower than A's and B's own intervals "
            "suggest whenever A's and B's results rise and fall together from deal to deal. "
            "Intervals are 95%: A's and B's simultaneous over the two (and over the "
            "members of a family read at once, such as every seat's gap or every tile), B − A's "
            "over the family's members. Verdict on B − A: 'B higher' or 'B lower' when its "
            "interval excludes 0 (', by less than the margin' when it also lies within the "
            "margin), 'the same within' the margin when it lies inside ± the margin, "
            "'undecided' otherwise: an interval that includes 0 is never read as no difference. "
            f"Margins: {listed}. A and B play the same deals and differ by what the design sets "
            "(rules, tile set or lineup), so a difference is an effect of that change; a metric "
            "marked as an association (a card players chose to take) is one in A, in B and in "
            "their difference.")


def top_lines(comparison: PairedComparison, names: ItemNames = NO_NAMES) -> list[str]:
    """What ``sim compare`` prints: the deals compared on, the mean score, up to
    ``TOP_METRICS`` other metrics whose difference is decided (effects before associations, in
    headline order), the count line and the notes."""
    items = differences(comparison)
    lines = [f"B ({comparison.variant}) − A ({comparison.baseline}) on {comparison.deals:,} "
             f"common deals:"]

    def line(item: MetricDifference) -> str:
        a, b, difference = _cells(item)
        return (f"  {_capitalised(names.annotate(item.finding.noun))}: A {a}, B {b}; "
                f"B − A {difference} "
                f"{item.finding.unit}: {verdict_text(item)}"
                + ("" if item.finding.causal else " (association: players chose it)"))

    lines.append(line(items[0]))
    decided = [item for item in items[1:] if item.verdict not in (SAME, UNDECIDED)]
    decided.sort(key=lambda item: not item.finding.causal)
    lines += [line(item) for item in decided[:TOP_METRICS]]
    if len(decided) > TOP_METRICS:
        lines.append(f"  ... {len(decided) - TOP_METRICS} more decided differences in the report")
    fairness = _fairness_text(comparison)
    if fairness:
        lines.append(f"  {fairness}")
    lines.append(f"  {count_line(items)}.")
    lines += [f"  {note}" for note in comparison.notes]
    return lines


# --- the sweep report's section -------------------------------------------------------------------


def against_baseline_section(results, out_dir: Path,
                             step: Callable[[str], None] | None = None,
                             names: ItemNames = NO_NAMES) -> list[Block]:
    """The sweep report's "Against the baseline" section (``sim.report.sweep`` calls it after
    the fields' blocks): every played point compared with the baseline of its table setting
    (``sim.stats.compare.baseline_pairs``), one table each; writes ``against-baseline.parquet``
    into ``out_dir``. ``results``: the sweep's ``sim.stats.sweep.SweepResults``. Empty when no
    point has a baseline to be compared with (one point, or only players and fields vary)."""
    from sim.games.registry import get_game
    from sim.stats.compare import (
        SETTING_AXES,
        baseline_pairs,
        baseline_values,
        compare_sweep_points,
        point_name,
    )

    sweep = results.sweep
    played = {point.index for point in results.played_points()}
    pairs, notes = baseline_pairs(sweep, played)
    if not pairs and not notes:
        return []
    setting_axes = [axis for axis in sweep.axes if axis in SETTING_AXES]
    baseline = point_name(baseline_values(sweep),
                          [axis for axis in sweep.axes if axis not in SETTING_AXES])
    blocks: list[Block] = [Heading(SECTION_TITLE)]
    stores = {str((results.batches[p].manifest.get("config") or {}).get("store", "rows"))
              for p in played}
    if stores != {"rows"}:
        return blocks + [Paragraph("No point is compared with the baseline: the points were "
                                   "played into the summary store, which keeps no per-deal "
                                   "rows to pair.")]
    game = get_game(next(iter(results.batches.values())).game)
    comparisons = []
    for pair in pairs:
        if step is not None:
            step(f"against the baseline: {pair.variant.label}")
        try:
            comparisons.append(compare_sweep_points(sweep, pair, game))
        except InputError as error:
            # One pair that cannot be compared (its rows lack a column) costs its table, not
            # the report.
            notes.append(f"No comparison of {pair.variant.label} with {pair.baseline.label}: "
                         f"{error}")
    own = {"players": "player count", "field": "field of players"}
    per_setting = (f" of its own {' and '.join(own.get(a, a) for a in setting_axes)} (the "
                   f"point with the baseline's values on every other axis)") \
        if setting_axes else ""
    intro = (f"The baseline is {baseline} (name another in the sweep file: [sweep] baseline = "
             f"{{axis = value}}). Every other point is compared with the baseline{per_setting}, "
             f"on the deals both played.")
    blocks.append(Paragraph(intro + " " + explanation(comparisons) if comparisons else intro))
    if notes:
        blocks.append(Bullets(tuple(notes)))
    for comparison in comparisons:
        blocks += comparison_blocks(comparison, BASELINE_PARQUET, names=names)
    if comparisons:
        _write_parquet(out_dir / BASELINE_PARQUET, comparison_frame(comparisons))
    return blocks


def _write_parquet(path: Path, frame: pl.DataFrame) -> None:
    buffer = io.BytesIO()
    frame.write_parquet(buffer)
    write_bytes_atomic(path, buffer.getvalue())


# --- sim compare ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareReport:
    """What ``write_compare_report`` wrote, and the lines ``sim compare`` prints."""

    markdown: Path
    html: Path
    parquet: Path
    lines: list[str]
    comparison: PairedComparison


def _setup_text(config: dict) -> str:
    """A batch's lineup and rules in words, from its recorded config."""
    lineup = [str(label) for label in config.get("lineup", ())]
    if not lineup:
        who = "lineup not recorded"
    elif config.get("rotate"):
        who = f"pool {', '.join(lineup)} rotating through the seats"
    elif len(set(lineup)) == 1:
        who = f"{lineup[0]} in every seat"
    else:
        who = ", ".join(f"seat {seat + 1}: {label}" for seat, label in enumerate(lineup))
    rules = config.get("rules") or {}
    shown = ", ".join(f"{name} = {value}" for name, value in rules.items())
    return f"{who}; rules: {shown}" if shown else who


def default_compare_dir(run_a: Path, run_b: Path) -> Path:
    """``reports/compare-<A's folder name>-vs-<B's folder name>``."""
    return Path("reports") / f"compare-{Path(run_a).resolve().name}-vs-" \
                             f"{Path(run_b).resolve().name}"


def write_compare_report(run_a: Path, run_b: Path, out_dir: Path | None = None
                         ) -> CompareReport:
    """Compare batch ``run_b`` (B) against ``run_a`` (A) (``sim.stats.compare.compare_batches``)
    and write ``compare.md``, ``compare.html`` and ``compare.parquet`` into ``out_dir``
    (default ``default_compare_dir``), each atomically. Refuses (``InputError``) an
    ``out_dir`` that is a batch or sweep folder. Raises ``InputError`` (one line) when the two
    cannot be compared."""
    from sim.report.document import render_html, render_markdown
    from sim.report.names import batch_item_names, merged_names
    from sim.stats.compare import compare_batches

    run_a, run_b = Path(run_a), Path(run_b)
    out_dir = Path(out_dir) if out_dir is not None else default_compare_dir(run_a, run_b)
    if (out_dir / "manifest.json").exists() or (out_dir / "sweep.json").exists():
        raise InputError(f"{out_dir}: a batch or sweep folder; give another folder with --out")
    comparison = compare_batches(run_a, run_b)
    names = merged_names([batch_item_names(str(config.get("game", "")), manifest, run)
                          for manifest, config, run in _recorded(run_a, run_b)])
    title = f"{comparison.variant} against {comparison.baseline}"
    configs = [read_manifest(run).get("config") or {} for run in (run_a, run_b)]
    blocks: list[Block] = [
        Table(("What was compared", ""), (
            ("Game", str(configs[0].get("game", ""))),
            ("Players", str(configs[0].get("players", ""))),
            ("A (baseline)", f"{comparison.baseline}: {run_a}; {_setup_text(configs[0])}"),
            ("B (variant)", f"{comparison.variant}: {run_b}; {_setup_text(configs[1])}"),
            ("Deals", f"{comparison.deals:,} played by both (master seed "
                      f"{configs[0].get('seed')})"))),
        Paragraph(explanation([comparison])),
        *comparison_blocks(comparison, COMPARE_PARQUET, heading_level=2,
                           title="B against A", names=names),
    ]
    if names.note:
        blocks.append(Paragraph(names.note))
    page = f"Compare: {title}"
    markdown, html = out_dir / COMPARE_MARKDOWN, out_dir / COMPARE_HTML
    parquet = out_dir / COMPARE_PARQUET
    write_text_atomic(markdown, render_markdown(page, blocks, "figures"))
    write_text_atomic(html, render_html(page, blocks))
    _write_parquet(parquet, comparison_frame([comparison]))
    return CompareReport(markdown, html, parquet, top_lines(comparison, names), comparison)


def _recorded(*runs: Path) -> list[tuple[dict, dict, Path]]:
    """(manifest, config, folder) of each batch folder."""
    manifests = [read_manifest(run) for run in runs]
    return [(manifest, manifest.get("config") or {}, run)
            for manifest, run in zip(manifests, runs, strict=True)]
