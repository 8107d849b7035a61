"""``summary.md``: the one page beside every batch and sweep report that a designer pastes into
a design document.

Everything on it is taken from what the report builder already computed (the "What was played"
rows, the findings sentences, the results table, the figure blocks, the against-baseline
section): no statistic is computed here, so the page can never disagree with the report. The
page is Markdown rendered by ``sim.report.document.render_markdown``, with figures linked from
the report's own ``figures/`` folder by relative paths, and written atomically; it holds no
timing and no absolute path, so the same batch gives the same bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from sim.files import write_text_atomic
from sim.report.document import (
    Block,
    Bullets,
    Figure,
    Heading,
    Paragraph,
    Picture,
    Table,
    render_markdown,
)

SUMMARY_FILE = "summary.md"
# At most this many figures on the page (it must fit on one page).
MAX_FIGURES = 2
# The rows of the "What was played" table the design sentence is made of, in this order.
_DESIGN_LABELS = ("Game", "Grid", "Players", "Lineup", "Fields", "Games")
# The comparison's count line, the last sentence of each against-baseline paragraph
# (``sim.report.compare.count_line``).
_COUNT_LINE = re.compile(r"Of [\d,]+ metrics?: [^.]*\.$")


@dataclass(frozen=True)
class SummaryPage:
    """What the page shows. ``findings``: the report's lead sentences, each with its interval
    and verdict; ``tables``: tables shown after them (the sweep's results table) and
    ``table_notes`` saying how to read them;
    ``figures``: the figure blocks of the report (rendered as links into ``figure_dir``);
    ``files``: the machine-readable files beside the report; ``reproduce``: the commands that
    play the games again (Markdown, ``reproduce_command``), or None when they cannot be given;
    ``pictures``: drawings of the game the report shows (a sample final position), linked
    from ``figure_dir`` after the figures."""

    title: str
    design: str
    findings: list[str]
    figures: list[Figure]
    files: list[str]
    config_file: str | None
    reproduce: str | None
    figure_dir: str
    tables: list[Table] = field(default_factory=list)
    table_notes: list[str] = field(default_factory=list)  # how to read the tables
    findings_heading: str = "Findings"
    pictures: list[Picture] = field(default_factory=list)


def _strip_suffix(text: str, suffix: str) -> str:
    return text[:-len(suffix)] if suffix and text.endswith(suffix) else text


def design_sentence(rows: tuple[tuple[str, str], ...], game) -> str:
    """One sentence of design from a report's "What was played" rows: game, grid, players,
    lineup or fields, games (deals x replicates, seed) and the rules that differ from the
    defaults (or are an axis). ``game`` is the game's registry entry, whose rules parameters
    say which rows are rules and what their help text is."""
    by_label = dict(rows)
    parts = []
    for label in _DESIGN_LABELS:
        text = by_label.get(label)
        if text is None:
            continue
        # Long explanations after " — " (fields) or ": " (grid) belong to the full report.
        text = text.split(" — ", 1)[0]
        if label == "Grid":
            text = text.split(": ", 1)[0]
        # What the game allows is the game's, not the design's.
        text = re.split(r";? \(?the game allows", text, maxsplit=1)[0]
        # "Games" rows begin with a count of games already.
        parts.append(text if label == "Games" else f"{label.lower()} {text}")
    changed = []
    for parameter in getattr(game, "rules_parameters", ()):
        text = by_label.get(f"Rules: {parameter.name}")
        if text is None:
            continue
        value = _strip_suffix(text, f": {parameter.help}")
        if value.endswith("(default)"):
            continue
        changed.append(f"{parameter.name} = {value}")
    parts.append("rules: " + ("; ".join(changed) if changed else "the defaults"))
    return "; ".join(parts) + "."


def what_was_played_rows(blocks: list[Block]) -> tuple[tuple[str, str], ...]:
    """The rows of the report's "What was played" table (empty when it has none)."""
    for block in blocks:
        if isinstance(block, Table) and block.header[:1] == ("What was played",):
            return tuple((row[0], row[1]) for row in block.rows)
    return ()


def pick_figures(blocks: list[Block], written: set[str], names: list[str] | None = None,
                 count: int = MAX_FIGURES) -> list[Figure]:
    """The figure blocks to link: those named in ``names`` in that order, or without
    ``names`` the first ones in the report's order; only figures whose file was written
    (``written``: their names), at most ``count``."""
    figures = [b for b in blocks if isinstance(b, Figure) and b.name in written]
    if names is not None:
        by_name = {figure.name: figure for figure in figures}
        figures = [by_name[name] for name in names if name in by_name]
    return figures[:count]


def baseline_lines(section: list[Block]) -> list[str]:
    """One line per comparison of the sweep report's "Against the baseline" section: its
    heading and its count line ("Of 29 metrics: 2 B higher; ...") as the section wrote them."""
    lines = []
    for heading, paragraph in zip(section, section[1:], strict=False):
        if (isinstance(heading, Heading) and heading.level == 3
                and isinstance(paragraph, Paragraph)):
            found = _COUNT_LINE.search(paragraph.text)
            if found:
                lines.append(f"{heading.text}: {found.group(0)}")
    return lines


def render_summary(page: SummaryPage) -> str:
    """The page as Markdown: title, design sentence, numbered findings (and tables), at most
    ``MAX_FIGURES`` figures and the pictures linked from the report's figure folder, the files
    and how to reproduce."""
    blocks: list[Block] = [Paragraph(page.design)]
    if page.findings:
        blocks += [Heading(page.findings_heading),
                   Bullets(tuple(page.findings), ordered=True)]
    if page.tables:
        blocks += [Heading("Every grid point"), *page.tables,
                   *(Paragraph(note) for note in page.table_notes)]
    if page.figures or page.pictures:
        blocks.append(Heading("Figures"))
        blocks += page.figures[:MAX_FIGURES]
        blocks += page.pictures
    files = "; ".join(f"[{name}]({name})" for name in page.files)
    blocks.append(Paragraph(f"Full report: [report.html](report.html); every number: {files}."))
    if page.reproduce is None:
        blocks.append(Paragraph("Reproduce: not possible: the games played record no sim "
                                "run config."))
    else:
        config = f" ([{page.config_file}]({page.config_file}), written beside this page)" \
            if page.config_file else ""
        blocks.append(Paragraph(f"Reproduce: {page.reproduce}{config}."))
    return render_markdown(page.title, blocks, page.figure_dir, svg_links=True)


def write_summary(out_dir: Path, page: SummaryPage) -> Path:
    """Write ``page`` as ``out_dir/summary.md`` (atomically); the path written."""
    path = Path(out_dir) / SUMMARY_FILE
    write_text_atomic(path, render_summary(page))
    return path


def reproduce_command(run_command: str, config_file: str, output: str | None) -> str:
    """```sim run config.toml`, then `sim report OUTPUT``` (Markdown) — the output folder only
    when it is relative (the page holds no absolute path)."""
    report = f"`sim report {output}`" if output and not Path(output).is_absolute() else \
        "`sim report` on the folder it writes"
    return f"`{run_command} {config_file}`, then {report}"


__all__ = ["MAX_FIGURES", "SUMMARY_FILE", "SummaryPage", "baseline_lines", "design_sentence",
           "pick_figures", "render_summary", "reproduce_command", "what_was_played_rows",
           "write_summary"]
