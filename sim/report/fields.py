"""The report's "Across fields" section: every headline finding judged in every field of players.

A *field* is a named lineup of strategies (``strong``, ``style``, ``mixed``, ``casual``); a
fields run plays every field on the same deals. ``sim.stats.field_findings`` turns the rows of
one table setting into ``FieldFinding`` objects, each with a ``sim.stats.fields.FieldJudgement``
(per-field estimates and intervals simultaneous over the fields, paired differences between
fields simultaneous over the pairs, a verdict). This module words them:

- per table setting (a ``FieldGroup``): a paragraph naming the fields and their lineups, a count
  line ("12 of 20 findings hold in every field, ..."), ONE findings table (a column per field,
  a column per paired difference, the verdict) and one small-multiple figure per headline
  (``sim.report.field_plots``);
- the top sentences of the report: the count line and the few findings that matter most (a sign
  that flips between fields first), each with its paired differences.

Wording rules. An effect (judged against 0) is shown signed, a level (judged by its paired
differences only) plain; a paired difference always signed. A finding whose ``causal`` is False
compares players by something they chose: it is called an association, never an effect ("no
association in any field", not "no effect"). "No effect" is said only when every field's
interval lies inside the margin (an equivalence shown), never because an interval includes 0.
Families with many members (one finding per tile, per card) show the members with something to
say and one row "N others: ..." for those shown to be practically zero; the full list belongs
to the findings' Parquet file.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from sim.report.document import Block, Figure, Heading, Paragraph, Table
from sim.report.field_plots import MAX_FIGURE_MEMBERS, headline_png, named_member_labels
from sim.report.names import NO_NAMES, ItemNames
from sim.report.numbers import number
from sim.stats import field_findings
from sim.stats.fields import (
    DIFFERS_BETWEEN,
    DIFFERS_IN_SIGN,
    HOLDS_EVERYWHERE,
    KIND_EFFECT,
    NO_EFFECT,
    SAME_EVERYWHERE,
    UNDECIDED,
    join_names,
    signed_text,
)

# Verdicts that show a finding to be practically zero (every field, or every paired difference,
# inside the margin): the members a long family folds into one row.
NULL_VERDICTS = (NO_EFFECT, SAME_EVERYWHERE)
# A family (the findings of one headline sharing a key's stem, e.g. one per tile) with more
# members than this folds its practically-zero (and its undecided) members into one row each;
# `sim compare`'s table folds by the same rule.
FOLD_ABOVE = 8
# Above this many pairs (4 or more fields) the table shows only the pairs against the first
# field, so that it stays readable.
MAX_PAIR_COLUMNS = 3
# The top of the report: the count line and at most this many findings.
TOP_FINDINGS = 3


@dataclass(frozen=True)
class FieldInfo:
    """A field as the report names it: ``name`` ("strong") and its ``lineup`` in words ("expert
    in every seat", "pool: expert, planner (balanced rotation)")."""

    name: str
    lineup: str


@dataclass(frozen=True)
class FieldGroup:
    """The findings of one table setting: ``label`` ("4 players, side A"; "" when the report
    has one setting) and ``findings`` (``FieldFinding`` objects, in headline order)."""

    label: str
    findings: list


def field_report_blocks(fields: list[FieldInfo], groups: list[FieldGroup],
                        figure_prefix: str = "fields",
                        item_names: ItemNames = NO_NAMES) -> tuple[list[Block], list[str]]:
    """The blocks of the report's "Across fields" section and its top sentences.

    ``fields`` names every field and its lineup; ``groups`` holds the findings of each table
    setting. The blocks: a heading, an explanation, then per group (a sub-heading when there are
    several) a paragraph on the fields, a count line, one findings table and one figure per
    headline, each figure named ``{figure_prefix}-{headline}`` (``-{group}`` added when there
    are several groups) with a caption paragraph under it. The top sentences (at most
    ``TOP_FINDINGS`` + 1): the count line over every group, then the findings that matter most,
    each with its value in every field and its paired differences. Both are empty when no group
    has a finding. Cards and tiles are named by number and name (``item_names``)."""
    groups = [group for group in groups if group.findings]
    if not groups:
        return [], []
    lineups = {info.name: info.lineup for info in fields}
    several = len(groups) > 1
    blocks: list[Block] = [Heading("Across fields"), Paragraph(_explanation())]
    for group in groups:
        if several:
            blocks.append(Heading(group.label or "All games", 3))
        blocks += _group_blocks(group, lineups, figure_prefix, several, item_names)
    every = [finding for group in groups for finding in group.findings]
    names = list(dict.fromkeys(name for group in groups
                               for name in group.findings[0].judgement.fields))
    where = f" in {len(groups)} table settings" if several else ""
    top = [f"Across fields ({join_names(names)}){where}: {count_line(every)}."]
    top += [item_names.annotate(_top_sentence(group.label if several else "", finding))
            for group, finding in _top_findings(groups)]
    return blocks, top


# --- words ---------------------------------------------------------------------------------------


def _explanation() -> str:
    return ("Each finding is estimated in every field of players. Per field the interval is "
            "95% and simultaneous over the fields (and over the findings of a family read at "
            "once, such as every seat's gap); each paired difference between two fields "
            "(A − B) is simultaneous over the pairs. An effect holds in a field when its "
            "interval excludes 0, and is practically zero there when the interval lies within "
            "± its margin; an interval that does neither decides nothing, so the finding is "
            "undecided (never read as 'no effect'). A level, such as the length of a game, is "
            "judged by its paired differences only. The lineup of a field is set by the "
            "design, so a difference between fields is an effect of the players; a finding "
            "marked as an association compares players by something they chose and describes "
            "those players, not an effect of the choice.")


def _is_holds_only(verdict: str) -> bool:
    return verdict.startswith("holds in ") and verdict != HOLDS_EVERYWHERE


def _verdict_text(finding) -> str:
    """The verdict as the table shows it: association wording where players chose, the reason
    of an undecided verdict, and the band the other fields lie in for "holds in X only"."""
    judgement = finding.judgement
    verdict = judgement.verdict
    band = f"±{number(finding.scale * judgement.margin, finding.digits)} {finding.unit}"
    if verdict == NO_EFFECT:
        text = ("no association in any field" if not finding.causal else NO_EFFECT)
        return f"{text} (every field within {band})"
    if verdict == SAME_EVERYWHERE or (verdict == DIFFERS_BETWEEN and _pairs_inside(judgement)):
        # A difference detected yet smaller than the margin: both are said.
        return f"{verdict} (every paired difference within {band})"
    if verdict == UNDECIDED:
        return f"{verdict}: {judgement.reason}" if judgement.reason else verdict
    if verdict == DIFFERS_BETWEEN and finding.kind == KIND_EFFECT and judgement.reason:
        # Which field holds is open, that the fields differ is settled: say which is which.
        return f"{verdict} ({judgement.reason})"
    if _is_holds_only(verdict):
        others = [name for name in judgement.fields if name not in judgement.holding_fields]
        return f"{verdict} ({join_names(others)} within {band})"
    return verdict


def _pairs_inside(judgement) -> bool:
    """Every paired difference's interval lies inside (-margin, +margin)."""
    lows, highs = judgement.pair_lows, judgement.pair_highs
    return len(lows) > 0 and bool(((lows > -judgement.margin)
                                   & (highs < judgement.margin)).all())


def _plain(value: float, digits: int) -> str:
    return "–" if not math.isfinite(value) else f"{round(value, digits) + 0.0:,.{digits}f}"


def _with_interval(value: float, low: float, high: float, digits: int, signed: bool) -> str:
    """``value (low to high)``, signed or plain, or ``value (no interval)``."""
    shown = signed_text if signed else _plain
    if not (math.isfinite(low) and math.isfinite(high)):
        return f"{shown(value, digits)} (no interval)"
    return f"{shown(value, digits)} ({shown(low, digits)} to {shown(high, digits)})"


def _field_cells(finding) -> list[str]:
    judgement, scale = finding.judgement, finding.scale
    return [_with_interval(scale * e, scale * lo, scale * hi, finding.digits,
                           finding.kind == KIND_EFFECT)
            for e, lo, hi in zip(judgement.estimates, judgement.lows, judgement.highs,
                                 strict=True)]


def shown_pairs(judgement) -> list[int]:
    """The indices (into ``judgement.pairs``) of the paired differences a table or sentence
    shows: all of them, or only those against the first field when there are more than
    ``MAX_PAIR_COLUMNS``."""
    rows = range(len(judgement.pairs))
    if len(judgement.pairs) <= MAX_PAIR_COLUMNS:
        return list(rows)
    return [row for row in rows if judgement.pairs[row][0] == 0]


def _pair_cells(finding, rows: list[int]) -> list[str]:
    judgement, scale = finding.judgement, finding.scale
    return [_with_interval(scale * judgement.pair_estimates[row],
                           scale * judgement.pair_lows[row], scale * judgement.pair_highs[row],
                           finding.digits, True) for row in rows]


def _finding_cell(finding, names: ItemNames = NO_NAMES) -> str:
    text = f"{names.annotate(finding.noun)} ({finding.unit})"
    return text if finding.causal else f"{text}; association: players chose it"


_COUNT_PHRASES = (  # (category, one, many) in the order the count line names them
    ("every", "holds in every field", "hold in every field"),
    ("only", "holds in some fields only", "hold in some fields only"),
    ("sign", "differs in sign between fields", "differ in sign between fields"),
    ("between", "differs between fields", "differ between fields"),
    ("same", "is the same in every field", "are the same in every field"),
    ("none", "shows no effect in any field", "show no effect in any field"),
    ("no-association", "shows no association in any field", "show no association in any field"),
    ("undecided", "is undecided", "are undecided"),
)


def _category(finding) -> str:
    """The count line's category of a finding's verdict (see ``_COUNT_PHRASES``)."""
    verdict = finding.judgement.verdict
    if verdict == HOLDS_EVERYWHERE:
        return "every"
    if _is_holds_only(verdict):
        return "only"
    if verdict == NO_EFFECT:
        return "none" if finding.causal else "no-association"
    return {DIFFERS_IN_SIGN: "sign", DIFFERS_BETWEEN: "between",
            SAME_EVERYWHERE: "same"}.get(verdict, "undecided")


def _count_parts(findings: list) -> list[str]:
    """``["12 hold in every field", "1 differs in sign between fields", ...]``."""
    counts: dict[str, int] = {}
    for finding in findings:
        category = _category(finding)
        counts[category] = counts.get(category, 0) + 1
    return [f"{counts[category]} {one if counts[category] == 1 else many}"
            for category, one, many in _COUNT_PHRASES if counts.get(category)]


def count_line(findings: list) -> str:
    """How the findings fare across fields, e.g. "12 of 20 findings hold in every field, 3 hold
    in some fields only, 1 differs in sign between fields, 4 are undecided" (every finding
    counts, also those a table folds; no full stop)."""
    parts = _count_parts(findings)
    total = len(findings)
    noun = "finding" if total == 1 else "findings"
    if not parts:
        return f"0 of 0 {noun}"
    first_count, _, first_rest = parts[0].partition(" ")
    # "1 of 20 findings holds ...": the verb agrees with the count, not with "findings".
    return ", ".join([f"{first_count} of {total} {noun} {first_rest}", *parts[1:]])


def finding_sentence(finding) -> str:
    """One line for the top of the report: the finding's verdict, its value in every field and
    its paired differences (those ``shown_pairs`` picks), e.g. "Seat 2's win-share gap differs
    in sign between fields: strong +4.9 (+1.8 to +8.0), style -4.3 (-7.4 to -1.2) percentage
    points; strong minus style +9.2 (+6.9 to +11.5)"."""
    judgement = finding.judgement
    verdict = judgement.verdict
    band = f"±{number(finding.scale * judgement.margin, finding.digits)} {finding.unit}"
    noun = finding.noun
    if verdict == NO_EFFECT:
        what = "no effect" if finding.causal else "no association"
        head = f"{noun} shows {what} in any field (every field within {band})"
    elif verdict == SAME_EVERYWHERE:
        head = f"{noun} is {_verdict_text(finding)}"
    elif verdict == UNDECIDED:
        head = f"{noun} is undecided across fields" + (
            f" ({judgement.reason})" if judgement.reason else "")
    else:
        head = f"{noun} {_verdict_text(finding)}"
    if not finding.causal and verdict != NO_EFFECT:
        head += " (an association: players chose it; not an effect of the choice)"
    per_field = ", ".join(f"{name} {cell}" for name, cell in zip(
        judgement.fields, _field_cells(finding), strict=True))
    rows = shown_pairs(judgement)
    per_pair = ", ".join(
        f"{judgement.fields[judgement.pairs[row][0]]} minus "
        f"{judgement.fields[judgement.pairs[row][1]]} {cell}"
        for row, cell in zip(rows, _pair_cells(finding, rows), strict=True))
    return _capitalised(f"{head}: {per_field} {finding.unit}; {per_pair}")


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def slug(text: str) -> str:
    """``deal-set effects`` -> ``deal-set-effects``; ``4 players, side A`` -> ``4-players-side-a``
    (lower case, runs of other characters as one dash)."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "all"


# --- the findings of one group ------------------------------------------------------------------


def _headlines(findings: list) -> list[tuple[str, list]]:
    """The findings by headline, in the order of ``sim.stats.field_findings.HEADLINES`` when it
    names them, otherwise in the order they first come (the list of headlines is open)."""
    by_headline: dict[str, list] = {}
    for finding in findings:
        by_headline.setdefault(finding.headline, []).append(finding)
    order = list(getattr(field_findings, "HEADLINES", ()))
    first = list(by_headline)
    rank = {name: (order.index(name) if name in order else len(order) + first.index(name))
            for name in first}
    return sorted(by_headline.items(), key=lambda item: rank[item[0]])


def _family(finding) -> str:
    """The family of a finding: its key's stem (the column before "/", e.g. "seat_win_gap" of
    "seat_win_gap/2")."""
    return finding.key.split("/", 1)[0]


def folded_rows(items: list, family: Callable[[Any], Hashable], verdict: Callable[[Any], str],
                folded: tuple[str, ...]) -> list:
    """A table's rows: ``items`` in order, grouped by ``family``, except that a family of more
    than ``FOLD_ABOVE`` members shows only its members whose ``verdict`` is not ``folded``,
    then one ``(count, verdict, exemplar)`` tuple per verdict of ``folded`` that its members
    have (in the order of ``folded``), placed where the family ends."""
    families: dict[Hashable, list] = {}
    for item in items:
        families.setdefault(family(item), []).append(item)
    rows: list = []
    for members in families.values():
        if len(members) <= FOLD_ABOVE:
            rows += members
            continue
        rows += [m for m in members if verdict(m) not in folded]
        for shown in folded:
            hidden = [m for m in members if verdict(m) == shown]
            if hidden:
                rows.append((len(hidden), shown, hidden[0]))
    return rows


def _folded(findings: list) -> list:
    """One headline's rows: its findings in order, except that in a family of more than
    ``FOLD_ABOVE`` members the practically-zero ones give way to one ``(count, verdict,
    exemplar)`` tuple per null verdict, placed where the family ends."""
    # A long family shows its decided members; the practically-zero and the undecided ones are
    # counted in one row each (every member is in fields.parquet).
    return folded_rows(findings, _family, lambda finding: finding.judgement.verdict,
                       (*NULL_VERDICTS, UNDECIDED))


def _summary_row(count: int, verdict: str, exemplar, width: int) -> tuple[str, ...]:
    """The row standing for ``count`` folded members: "N others: no effect in any field"."""
    if verdict == NO_EFFECT and not exemplar.causal:
        verdict = "no association in any field"
    band = f"±{number(exemplar.scale * exemplar.judgement.margin, exemplar.digits)}"
    if verdict == UNDECIDED:
        text = (f"{count} others: undecided (their intervals neither exclude 0 nor lie within "
                f"{band} {exemplar.unit}; every one in fields.parquet)")
    else:
        text = f"{count} others: {verdict} (each within {band} {exemplar.unit})"
    return ("", text, *[""] * (width - 3), verdict)


def _group_blocks(group: FieldGroup, lineups: dict[str, str], figure_prefix: str,
                  several: bool, item_names: ItemNames = NO_NAMES) -> list[Block]:
    findings = group.findings
    names = list(findings[0].judgement.fields)
    deals = max(finding.judgement.clusters for finding in findings)
    described = "; ".join(f"{name}: {lineups[name]}" if name in lineups else name
                          for name in names)
    blocks: list[Block] = [
        Paragraph(f"Fields: {described}. Every field played the same {deals:,} deals, so a "
                  "deal's luck is common to all of them and cancels from a paired difference "
                  "between two fields: those intervals are much narrower than two separate "
                  "intervals would suggest."),
        Paragraph(_capitalised(count_line(findings)) + "."),
    ]
    judgement = findings[0].judgement
    pair_rows = shown_pairs(judgement)
    header = ("Headline", "Finding", *names,
              *[f"{names[judgement.pairs[row][0]]} − {names[judgement.pairs[row][1]]}"
                for row in pair_rows], "Verdict")
    table_rows: list[tuple[str, ...]] = []
    figures: list[Block] = []
    for headline, members in _headlines(findings):
        rows = _folded(members)
        for index, row in enumerate(rows):
            if isinstance(row, tuple):
                cells = _summary_row(*row, len(header))
            else:
                cells = ("", _finding_cell(row, item_names), *_field_cells(row),
                         *_pair_cells(row, shown_pairs(row.judgement)), _verdict_text(row))
            # The headline names its first row only: the rows under it belong to it.
            table_rows.append((_capitalised(headline) if index == 0 else "", *cells[1:]))
        figures += _figure_blocks(headline, [r for r in rows if not isinstance(r, tuple)],
                                  len(members), group.label if several else "", figure_prefix,
                                  item_names)
    blocks.append(Table(header, tuple(table_rows)))
    return blocks + figures


def _figure_blocks(headline: str, shown: list, members: int, label: str,
                   figure_prefix: str, item_names: ItemNames = NO_NAMES) -> list[Block]:
    """The small multiple of one headline and the caption paragraph under it; nothing when no
    member is left to draw or more than ``MAX_FIGURE_MEMBERS`` are."""
    if not shown or len(shown) > MAX_FIGURE_MEMBERS:
        return []
    title = _capitalised(headline) + " across fields" + (f": {label}" if label else "")
    png = headline_png(title, shown, named_member_labels(shown, item_names))
    if png is None:
        return []
    name = f"{figure_prefix}-{slug(headline)}" + (f"-{slug(label)}" if label else "")
    confidence = f"{100 * shown[0].judgement.confidence:g}%"
    family = max(finding.judgement.family for finding in shown)
    # A family's intervals (every seat's gap at once) are simultaneous over its members too.
    over = "the fields" + (f" and the {family} findings of its family" if family > 1 else "")
    caption = (f"{_capitalised(headline)} in each field, one panel per field on the same "
               f"axes: a point is the field's estimate, its bar the {confidence} interval "
               f"simultaneous over {over}. A paired difference in the table is narrower than "
               "two of these bars suggest: the deals' luck, common to every field, cancels "
               "from it.")
    effects = [finding for finding in shown if finding.kind == KIND_EFFECT]
    if effects:
        margins = sorted({number(f.scale * f.judgement.margin, f.digits) + f" {f.unit}"
                          for f in effects})
        caption += (f" The line marks 0 and the grey band ±{', ±'.join(margins)}, the range "
                    "read as practically zero.")
    if members > len(shown):
        left = members - len(shown)
        caption += (f" Not drawn: {left} member{'s' if left != 1 else ''} undecided or "
                    "shown to be practically zero in every field (see the table).")
    caption += f" Drawn: {', '.join(_count_parts(shown))}."
    return [Figure(name, png, title), Paragraph(caption)]


# --- the top of the report ----------------------------------------------------------------------

# The order in which findings reach the top of the report: a sign that flips between fields
# matters most to a designer, then a finding that holds for some players only, then one that
# differs between fields, then one that holds everywhere, then one shown to be practically zero.
_TOP_RANK = {"sign": 0, "only": 1, "between": 2, "every": 3, "none": 4, "no-association": 4,
             "same": 4}


def _top_findings(groups: list[FieldGroup]) -> list[tuple[FieldGroup, object]]:
    """At most ``TOP_FINDINGS`` (group, finding) pairs, picked one at a time: the best by
    ``_TOP_RANK`` (undecided findings never), within a rank first a family not yet picked (so
    that one long family, one finding per tile, cannot fill the top alone), then headline
    order, then the largest paired difference against its margin."""
    candidates = []
    for group_index, group in enumerate(groups):
        for headline_index, (_, members) in enumerate(_headlines(group.findings)):
            for member_index, finding in enumerate(members):
                rank = _TOP_RANK.get(_category(finding))
                if rank is None:
                    continue
                judgement = finding.judgement
                spread = max((abs(float(e)) for e in judgement.pair_estimates
                              if math.isfinite(float(e))), default=0.0)
                size = spread / judgement.margin if judgement.margin > 0 else spread
                family = (group_index, finding.headline, _family(finding))
                candidates.append((rank, headline_index, -size, group_index, member_index,
                                   family, group, finding))
    chosen: list = []
    picked_families: set = set()
    while candidates and len(chosen) < TOP_FINDINGS:
        # What the design randomises comes before what players chose (an association).
        # A family not yet picked comes before a better-ranked member of a picked one (seat
        # 2's gap mirrors seat 1's at two players).
        best = min(candidates, key=lambda c: (not c[7].causal, c[5] in picked_families, c[0],
                                              *c[1:5]))
        candidates.remove(best)
        picked_families.add(best[5])
        chosen.append((best[6], best[7]))
    return chosen


def _top_sentence(label: str, finding) -> str:
    sentence = finding_sentence(finding)
    return (f"{label}: {sentence}" if label else sentence) + "."
