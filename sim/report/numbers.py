"""Number formatting shared by the report's sections: values, counts, intervals, and a rules
setting in the names the game gives its values."""

from __future__ import annotations

import math


def number(value, digits: int = 2) -> str:
    """``1,234.57``; a dash for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:,.{digits}f}"


def signed(value, digits: int = 1) -> str:
    """``+1.2`` / ``-0.4``; a dash for a missing value."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    return f"{value:+,.{digits}f}"


def count(value) -> str:
    """``12,345``; a dash for a missing value."""
    return "–" if value is None else f"{int(value):,}"


def has_interval(low, high) -> bool:
    """Both bounds of an interval present and finite (a Fieller interval may be infinite)."""
    return all(bound is not None and math.isfinite(bound) for bound in (low, high))


def with_ci(value, low, high, digits: int = 2) -> str:
    """``value (low to high)``, or ``value (no interval)`` when a bound is missing."""
    if not has_interval(low, high):
        return f"{number(value, digits)} (no interval)"
    return f"{number(value, digits)} ({number(low, digits)} to {number(high, digits)})"


def percent(value, digits: int = 1) -> str:
    """A proportion as ``12.3%``."""
    return "–" if value is None else f"{number(100 * value, digits)}%"


# Why a proportion has no interval when its table gives none: fewer than 2 independent units.
NO_INTERVAL_REASON = "fewer than 2 independent units"


def missing(value) -> bool:
    """True for None or NaN."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def percent_ci(value, low, high, digits: int = 1, reason: str = NO_INTERVAL_REASON) -> str:
    """Proportions as ``12.3% (10.1–14.5%)``, or ``12.3% (no interval: <reason>)`` when a bound
    is missing. The bounds come from ``sim.stats.intervals.proportion_interval`` and so lie in
    [0, 1]; a bound of exactly 0 or 1 (a one-sided interval at 0% or 100%) prints as such."""
    if missing(value):
        return "–"
    if missing(low) or missing(high):
        return f"{number(100 * value, digits)}% (no interval: {reason})"
    return (f"{number(100 * value, digits)}% ({number(100 * low, digits)}–"
            f"{number(100 * high, digits)}%)")


def half_width(value, low, high) -> float:
    """The larger distance from an estimate to the ends of its interval (the ± shown)."""
    return max(value - low, high - value)


def article(noun: str) -> str:
    """``a card`` / ``an animal card``."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def setting_text(game, rules: str) -> str:
    """A rules label (``side=1, spirits=0``) in the words of the game's parameters
    (``side B, spirits false``); "" stays "the rules played"."""
    if not rules:
        return "the rules played"
    parameters = {p.name: p for p in game.rules_parameters}
    parts = []
    for item in rules.split(", "):
        name, _, value = item.partition("=")
        parameter = parameters.get(name)
        names = {number_: text for text, number_ in parameter.choices} if parameter else {}
        try:
            shown = names.get(int(value), value)
        except ValueError:
            shown = value
        parts.append(f"{name} {shown}")
    return ", ".join(parts)


def few_units_warning(where: str, units: int, unit: str, minimum: int) -> str | None:
    """One line for a panel whose tests and verdicts rest on fewer than ``minimum`` independent
    units (deals, or shards of an old summary store), None when it has enough."""
    if units >= minimum:
        return None
    plural = unit + ("s" if units != 1 else "")
    remedy = ("play more games" if unit == "deal" else
              "play more games; a summary batch written by this sim keeps per-deal sums, so "
              "its units are deals")
    df = max(units - 1, 0)
    return (f"{where}: only {units:,} {plural} as independent units (fewer than {minimum}): "
            f"tests and intervals rest on {df} degree{'s' if df != 1 else ''} of freedom, so "
            f"no seat or "
            f"card verdict is given and the games-needed estimate is rough; {remedy}.")


def shown_half(half: float, digits: int) -> str:
    """A half-width with ``digits`` decimals, or with more (up to 4 more) when those would show
    it as 0: a very tight interval reads "±0.004", never "±0.00"."""
    for decimals in range(digits, digits + 5):
        text = f"{half:.{decimals}f}"
        if half != half or float(text) != 0.0 or half == 0.0:
            return text
    return text
