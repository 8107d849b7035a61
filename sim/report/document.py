"""A report as a list of blocks, rendered to one self-contained HTML page or to Markdown.

Blocks: headings, paragraphs, bullet lists, tables (already formatted strings), figures (PNG
bytes: embedded as base64 in HTML, written beside the Markdown file), pictures (a game's SVG
drawings: embedded the same way, written beside the Markdown file) and monospace text.
"""

from __future__ import annotations

import base64
import html
import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Heading:
    text: str
    level: int = 2


@dataclass(frozen=True)
class Paragraph:
    text: str


@dataclass(frozen=True)
class Bullets:
    items: tuple[str, ...]
    ordered: bool = False


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Figure:
    name: str  # file stem, e.g. "seat-win-rates"
    png: bytes
    caption: str


@dataclass(frozen=True)
class Picture:
    """A drawing of the game (a card, a tile, a final position): standalone SVG text, written
    by the caller as ``<name>.svg`` in the report's figure folder. Shown at its own size (its
    viewBox width in CSS pixels, ``picture_width``) so that its text keeps the size the
    drawing gives it; on a page narrower than that (a phone) its box scrolls sideways rather
    than shrink the text."""

    name: str  # file stem, e.g. "animal-card-31"
    svg: str
    caption: str


@dataclass(frozen=True)
class Monospace:
    caption: str
    text: str


@dataclass(frozen=True)
class Links:
    """A list of links to files beside the report: (text, HTML target, Markdown target)."""

    items: tuple[tuple[str, str, str], ...]


Block = Heading | Paragraph | Bullets | Table | Figure | Picture | Monospace | Links


def figure_if_drawn(figures: dict[str, bytes], name: str, caption: str) -> list[Block]:
    """The figure ``name`` of ``figures`` (PNG bytes by name) with its caption, as a list of
    one block to add to a section, or an empty list when it was not drawn."""
    return [Figure(name, figures[name], caption)] if name in figures else []


STYLE_SHEET = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; max-width: 1200px;
       margin: 2em auto; padding: 0 1.5em; color: #222; line-height: 1.45;
       overflow-wrap: break-word; }
h1 { border-bottom: 3px solid #1f77b4; padding-bottom: .3em; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: .2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 1em 0; font-size: .92em; }
th, td { border: 1px solid #ddd; padding: .3em .6em; text-align: right; }
th { background: #f2f6fa; }
td:first-child, th:first-child { text-align: left; }
figure { margin: 1.5em 0; }
figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: .92em; }
pre { background: #f7f7f7; border: 1px solid #e3e3e3; padding: .8em; overflow-x: auto;
      font-family: "DejaVu Sans Mono", Menlo, Consolas, monospace; line-height: 1.15; }
.findings li { font-size: 1.1em; margin: .5em 0; }
.drawings, .pictures { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.pictures figure { margin: .5em 0; max-width: 100%; overflow-x: auto; }
.pictures img { height: auto; max-width: none; }
.drawings figure { max-width: 100%; min-width: 0; }
.table-scroll { overflow-x: auto; max-width: 100%; }
.contents ul { margin: .2em 0; }
.contents { border: 1px solid #ddd; background: #fafbfc; padding: .2em 1.2em .6em; }
.contents h2 { border: none; margin-top: .6em; }
"""


def heading_anchors(blocks: list[Block]) -> dict[int, str]:
    """An id for every heading (by block index): its text in lower case with runs of other
    characters as dashes, numbered when two headings would share one."""
    anchors: dict[int, str] = {}
    used: set[str] = set()
    for index, block in enumerate(blocks):
        if not isinstance(block, Heading):
            continue
        stem = re.sub(r"[^a-z0-9]+", "-", block.text.lower()).strip("-") or "section"
        anchor, number = stem, 2
        while anchor in used:
            anchor, number = f"{stem}-{number}", number + 1
        used.add(anchor)
        anchors[index] = anchor
    return anchors


def _contents(blocks: list[Block], anchors: dict[int, str]) -> str:
    """The table of contents: every section heading, subsections nested under their section."""
    items: list[str] = []
    open_sublist = False
    for index, anchor in anchors.items():
        block = blocks[index]
        link = f'<a href="#{anchor}">{html.escape(block.text)}</a>'
        if block.level <= 2:
            if open_sublist:
                items.append("</ul></li>")
                open_sublist = False
            elif items:
                items.append("</li>")
            items.append(f"<li>{link}")
        else:
            if not open_sublist:
                items.append("<ul>")
                open_sublist = True
            items.append(f"<li>{link}</li>")
    if not items:
        return ""
    items.append("</ul></li>" if open_sublist else "</li>")
    return f'<nav class="contents"><h2>Contents</h2><ul>{"".join(items)}</ul></nav>'


# A picture whose SVG gives no usable viewBox is shown this wide (CSS pixels).
DEFAULT_PICTURE_PX = 320
_VIEW_BOX = re.compile(r"<svg\b[^>]*?\bviewBox=[\"']\s*[-\d.eE+]+[\s,]+[-\d.eE+]+[\s,]+"
                       r"([\d.eE+]+)[\s,]+([\d.eE+]+)\s*[\"']", re.DOTALL)


def picture_width(svg: str) -> int:
    """The width (CSS pixels) a picture is shown at: its viewBox width, so that its text is
    as large as its drawing says (on a narrower page its box scrolls sideways)."""
    found = _VIEW_BOX.search(svg)
    try:
        width = float(found.group(1)) if found else 0.0
    except ValueError:
        width = 0.0
    return round(width) if width > 0 else DEFAULT_PICTURE_PX


def _picture_html(block: Picture, svg_dir: str | None) -> str:
    data = base64.b64encode(block.svg.encode("utf-8")).decode("ascii")
    link = ""
    if svg_dir is not None:
        target = html.escape(f"{svg_dir}/{block.name}.svg", quote=True)
        link = f' <a href="{target}">SVG</a>'
    return (f"<figure><img alt=\"{html.escape(block.caption)}\" "
            f"width=\"{picture_width(block.svg)}\" src=\"data:image/svg+xml;base64,{data}\">"
            f"<figcaption>{html.escape(block.caption)}{link}</figcaption></figure>")


def _has_svg(block: Figure) -> bool:
    return bool(getattr(block.png, "svg", b""))


def render_html(title: str, blocks: list[Block], svg_dir: str | None = None) -> str:
    """One self-contained HTML page: inline style sheet, figures as base64 PNG data URIs and
    pictures as base64 SVG data URIs, a table of contents linking every section heading. With
    ``svg_dir`` (the folder, relative to the page, where the caller writes each figure's SVG as
    ``<name>.svg``), a figure that carries its SVG (``sim.report.plots.FigureImage``) and every
    picture link their SVG file ("SVG") under the caption."""
    anchors = heading_anchors(blocks)
    parts = [f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
             f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
             f"<title>{html.escape(title)}</title>\n<style>{STYLE_SHEET}</style>\n</head>\n"
             f"<body>\n<h1>{html.escape(title)}</h1>"]
    contents = _contents(blocks, anchors)
    for index, block in enumerate(blocks):
        # The contents follow the header (the blocks before the first section heading).
        if contents and index == min(anchors):
            parts.append(contents)
        # Consecutive drawings (the seats of one game) sit side by side.
        starts_drawings = isinstance(block, Monospace) and (
            index == 0 or not isinstance(blocks[index - 1], Monospace))
        if starts_drawings:
            parts.append('<div class="drawings">')
        # So do consecutive pictures (the strongest and the weakest card).
        if isinstance(block, Picture) and (index == 0 or not isinstance(blocks[index - 1],
                                                                        Picture)):
            parts.append('<div class="pictures">')
        if isinstance(block, Heading):
            parts.append(f"<h{block.level} id=\"{anchors[index]}\">{html.escape(block.text)}"
                         f"</h{block.level}>")
        elif isinstance(block, Paragraph):
            parts.append(f"<p>{html.escape(block.text)}</p>")
        elif isinstance(block, Bullets):
            tag = "ol" if block.ordered else "ul"
            items = "".join(f"<li>{html.escape(item)}</li>" for item in block.items)
            css = ' class="findings"' if block.ordered else ""
            parts.append(f"<{tag}{css}>{items}</{tag}>")
        elif isinstance(block, Table):
            head = "".join(f"<th>{html.escape(cell)}</th>" for cell in block.header)
            body = "".join("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row)
                           + "</tr>" for row in block.rows)
            parts.append(f"<div class=\"table-scroll\"><table><thead><tr>{head}</tr></thead>"
                         f"<tbody>{body}</tbody></table></div>")
        elif isinstance(block, Figure):
            data = base64.b64encode(block.png).decode("ascii")
            link = ""
            if svg_dir is not None and _has_svg(block):
                target = html.escape(f"{svg_dir}/{block.name}.svg", quote=True)
                link = f' <a href="{target}">SVG</a>'
            parts.append(f"<figure><img alt=\"{html.escape(block.caption)}\" "
                         f"src=\"data:image/png;base64,{data}\"><figcaption>"
                         f"{html.escape(block.caption)}{link}</figcaption></figure>")
        elif isinstance(block, Picture):
            parts.append(_picture_html(block, svg_dir))
            if index == len(blocks) - 1 or not isinstance(blocks[index + 1], Picture):
                parts.append("</div>")
        elif isinstance(block, Links):
            items = "".join(f"<li><a href=\"{html.escape(target, quote=True)}\">"
                            f"{html.escape(text)}</a></li>" for text, target, _ in block.items)
            parts.append(f"<ul>{items}</ul>")
        elif isinstance(block, Monospace):
            parts.append(f"<figure><figcaption>{html.escape(block.caption)}</figcaption>"
                         f"<pre>{html.escape(block.text)}</pre></figure>")
            if index == len(blocks) - 1 or not isinstance(blocks[index + 1], Monospace):
                parts.append("</div>")
    parts.append("</body>\n</html>\n")
    return "\n".join(parts)


def _markdown_cell(text: str) -> str:
    return text.replace("|", "\\|")


def render_markdown(title: str, blocks: list[Block], figure_dir: str,
                    svg_links: bool = False) -> str:
    """Markdown with figures referenced as ``figure_dir/<name>.png`` and pictures as
    ``figure_dir/<name>.svg`` (both written by the caller); with ``svg_links``, a figure
    carrying its SVG links ``figure_dir/<name>.svg`` too."""
    parts = [f"# {title}"]
    for block in blocks:
        if isinstance(block, Heading):
            parts.append(f"{'#' * block.level} {block.text}")
        elif isinstance(block, Paragraph):
            parts.append(block.text)
        elif isinstance(block, Bullets):
            parts.append("\n".join(f"{index + 1}. {item}" if block.ordered else f"- {item}"
                                   for index, item in enumerate(block.items)))
        elif isinstance(block, Table):
            lines = ["| " + " | ".join(_markdown_cell(c) for c in block.header) + " |",
                     "|" + "|".join(" --- " for _ in block.header) + "|"]
            lines += ["| " + " | ".join(_markdown_cell(c) for c in row) + " |"
                      for row in block.rows]
            parts.append("\n".join(lines))
        elif isinstance(block, Figure):
            link = (f" ([SVG]({figure_dir}/{block.name}.svg))"
                    if svg_links and _has_svg(block) else "")
            parts.append(f"![{block.caption}]({figure_dir}/{block.name}.png)\n\n"
                         f"*{block.caption}*{link}")
        elif isinstance(block, Picture):
            parts.append(f"![{block.caption}]({figure_dir}/{block.name}.svg)\n\n"
                         f"*{block.caption}*")
        elif isinstance(block, Links):
            parts.append("\n".join(f"- [{text}]({target})" for text, _, target in block.items))
        elif isinstance(block, Monospace):
            parts.append(f"{block.caption}\n\n```text\n{block.text}\n```")
    return "\n\n".join(parts) + "\n"
