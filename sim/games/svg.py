"""The pieces every game's SVG drawings are written with: stable numbers, text, a rough text
width to size a canvas, the standalone document, and names made unique within a set.

The drawings themselves (what a planet, a board or a card looks like) live in each game's own
``svg`` module; only the writing of the XML is shared, so that every drawing's bytes follow
the same rules (deterministic, escaped, a ``viewBox`` and no pixel size).
"""

from __future__ import annotations

from collections import Counter
from html import escape

FONT = "font-family=\"DejaVu Sans, Arial, sans-serif\""


def number(value: float) -> str:
    """A coordinate written with at most two decimals and no trailing zeros (stable text)."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def text_element(x: float, y: float, text: str, size: float, *, anchor: str = "middle",
                 weight: str = "normal", fill: str = "#111111") -> str:
    """A ``<text>`` element of ``text`` (escaped) at (x, y)."""
    return (f'<text x="{number(x)}" y="{number(y)}" font-size="{number(size)}" {FONT} '
            f'text-anchor="{anchor}" font-weight="{weight}" fill="{fill}">{escape(text)}</text>')


def text_width(text: str, size: float) -> float:
    """A generous estimate of a sans-serif line's width, to size the canvas around it."""
    return 0.62 * size * len(text)


def document(width: float, height: float, title: str, body: list[str]) -> str:
    """A standalone SVG document: a ``viewBox`` (no pixel size), a ``<title>``, a white
    background and ``body``."""
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {number(width)} '
        f'{number(height)}" role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{number(width)}" height="{number(height)}" fill="#ffffff"/>',
        *body,
        "</svg>",
        "",
    ])


def unique_names(names: dict[int, str]) -> dict[int, str]:
    """``names`` with every name shared by several ids followed by " #id"."""
    counts = Counter(names.values())
    return {item: f"{name} #{item}" if counts[name] > 1 else name
            for item, name in names.items()}
