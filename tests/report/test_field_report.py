"""The report's "Across fields" section (``sim.report.fields``) and its small multiples
(``sim.report.field_plots``), on findings built by hand from ``judge_across_fields``.

The synthetic finding: D deals shared by every field, G games per deal and field; deal d adds
u_d ~ Uniform(-0.02, 0.02) to seat 1's win probability in every field (common random numbers)
and field f a seat effect e_f, so a game's win difference (+1 / -1) has mean e_f + 2 u_d. With
400 deals of 200 games the fields' simultaneous intervals are about ±0.9 percentage points, so
an effect of 10 points holds and an effect of 0 lies inside the ±2-point margin (each test
asserts the verdict it relies on before checking the words).
"""

from dataclasses import replace

import numpy as np
import pytest

from sim.report.document import Figure, Heading, Paragraph, Table
from sim.report.field_plots import headline_figure, headline_png, member_labels
from sim.report.fields import (
    FieldGroup,
    FieldInfo,
    count_line,
    field_report_blocks,
    finding_sentence,
)
from sim.stats.field_findings import FieldFinding
from sim.stats.fields import (
    DIFFERS_BETWEEN,
    DIFFERS_IN_SIGN,
    HOLDS_EVERYWHERE,
    KIND_LEVEL,
    NO_EFFECT,
    SAME_EVERYWHERE,
    UNDECIDED,
    holds_only_verdict,
    judge_across_fields,
)

MARGIN = 0.02
THREE = ["strong", "style", "mixed"]
INFOS = [FieldInfo("strong", "expert in every seat"),
         FieldInfo("style", "expert:space=0 in every seat"),
         FieldInfo("mixed", "pool: expert, planner (balanced rotation)"),
         FieldInfo("casual", "greedy in every seat")]


def judged(effects, seed: int, deals: int = 400, games: int = 200, names=None):
    """One finding judged across len(effects) fields (see the module docstring)."""
    rng = np.random.default_rng(seed)
    effects = np.asarray(effects, dtype=float)
    counts = np.full((deals, effects.size), float(games))
    chance = 0.5 + effects[None, :] / 2 + rng.uniform(-0.02, 0.02, deals)[:, None]
    wins = rng.binomial(games, chance)
    names = names or (THREE + ["casual"])[:effects.size]
    return judge_across_fields(2.0 * wins - counts, counts, names, MARGIN, value_range=(-1, 1))


def seat_finding(seat: int, effects, seed: int, causal: bool = True, **kwargs) -> FieldFinding:
    return FieldFinding("seat gaps", f"seat_win_gap/{seat}", f"seat {seat}'s win-share gap",
                        "percentage points", 100.0, 1, "effect", causal,
                        judged(effects, seed, **kwargs))


def tile_finding(tile: int, effects, seed: int) -> FieldFinding:
    return FieldFinding("deal-set effects", f"removed_tiles_mask/{tile}",
                        f"tile {tile} removed unseen", "points", 10.0, 1, "effect", True,
                        judged(effects, seed))


@pytest.fixture(scope="module")
def seat_findings():
    findings = [seat_finding(1, [0.1, -0.1, 0.05], 1), seat_finding(2, [0.1, 0.1, 0.1], 2),
                seat_finding(3, [0.1, 0.0, 0.0], 3), seat_finding(4, [0.0, 0.0, 0.0], 4),
                seat_finding(5, [0.0, 0.0, 0.0], 5, deals=6)]
    assert [f.judgement.verdict for f in findings] == [
        DIFFERS_IN_SIGN, HOLDS_EVERYWHERE, holds_only_verdict(["strong"]), NO_EFFECT, UNDECIDED]
    return findings


def level_finding(shifts, seed: int, deals: int = 200, games: int = 20) -> FieldFinding:
    """A level: game length in rounds, 20 + the field's shift + a deal term (sd 2, shared by
    every field) + noise (sd 1) per game, judged by its paired differences (margin 0.5)."""
    rng = np.random.default_rng(seed)
    shifts = np.asarray(shifts, dtype=float)
    deal_term = rng.normal(0.0, 2.0, deals)[:, None]
    noise = rng.normal(0.0, 1.0, (deals, shifts.size, games)).sum(axis=2)
    values = games * (20.0 + shifts[None, :] + deal_term) + noise
    counts = np.full(values.shape, float(games))
    judgement = judge_across_fields(values, counts, THREE[:shifts.size], 0.5, kind=KIND_LEVEL)
    return FieldFinding("game length", "length", "game length", "rounds", 1.0, 2, "level",
                        True, judgement)


def zero_lines(axis) -> list:
    """The horizontal lines at 0 of a panel (``axhline(0)``)."""
    return [line for line in axis.get_lines() if list(line.get_ydata()) == [0, 0]]


def blocks_of(findings, label: str = ""):
    return field_report_blocks(INFOS, [FieldGroup(label, findings)])


def only_table(blocks) -> Table:
    tables = [block for block in blocks if isinstance(block, Table)]
    assert len(tables) == 1
    return tables[0]


def test_the_table_has_a_column_per_field_and_per_pair_and_words_every_verdict(seat_findings):
    blocks, _ = blocks_of(seat_findings)
    assert blocks[0] == Heading("Across fields")
    table = only_table(blocks)
    assert table.header == ("Headline", "Finding", "strong", "style", "mixed",
                            "strong − style", "strong − mixed", "style − mixed", "Verdict")
    assert len(table.rows) == len(seat_findings)
    assert all(len(row) == len(table.header) for row in table.rows)
    assert [row[0] for row in table.rows] == ["Seat gaps", "", "", "", ""]
    sign, every, only, none, undecided = table.rows
    assert sign[1] == "seat 1's win-share gap (percentage points)"
    assert sign[-1] == DIFFERS_IN_SIGN
    # Effects signed, "value (low to high)", scaled to percentage points with one decimal.
    assert sign[2].startswith("+") and sign[3].startswith("-") and " to " in sign[2]
    judgement = seat_findings[0].judgement
    assert sign[5].startswith(f"{100 * judgement.pair_estimates[0]:+.1f} (")
    assert every[-1] == HOLDS_EVERYWHERE
    assert only[-1] == "holds in strong only (style and mixed within ±2.0 percentage points)"
    assert none[-1] == "no effect in any field (every field within ±2.0 percentage points)"
    assert undecided[-1].startswith("undecided: fewer than")
    paragraphs = [b.text for b in blocks if isinstance(b, Paragraph)]
    assert any("strong: expert in every seat" in text and "same 400 deals" in text
               for text in paragraphs)
    assert ("1 of 5 findings holds in every field, 1 holds in some fields only, 1 differs in "
            "sign between fields, 1 shows no effect in any field, 1 is undecided.") in paragraphs


def test_a_level_is_shown_plain_and_judged_by_its_paired_differences():
    same, differs = level_finding([0, 0, 0], 6), level_finding([0, 1, 0], 7)
    small = level_finding([0, 0.2, 0], 8)
    assert [f.judgement.verdict for f in (same, differs, small)] == [
        SAME_EVERYWHERE, DIFFERS_BETWEEN, DIFFERS_BETWEEN]
    table = only_table(blocks_of([same, differs, small])[0])
    first = table.rows[0]
    assert first[0] == "Game length"
    assert all(not cell.startswith(("+", "-")) for cell in first[2:5])
    assert first[2].startswith("20.") and " to " in first[2]
    assert all(cell.startswith(("+", "-")) for cell in first[5:8])
    assert first[-1] == "the same in every field (every paired difference within ±0.50 rounds)"
    assert table.rows[1][-1] == DIFFERS_BETWEEN
    # Detected, yet smaller than the margin: both are said.
    assert table.rows[2][-1] == ("differs between fields (every paired difference within "
                                 "±0.50 rounds)")
    with headline_figure("Game length", [same, differs]) as figure:
        # A level has no zero line and no band: its panels show only the values.
        assert all(not axis.patches and not zero_lines(axis) for axis in figure.axes)
    assert finding_sentence(same).startswith("Game length is the same in every field")


def test_an_association_is_never_worded_as_an_effect():
    kept = replace(seat_finding(1, [0.0, 0.0, 0.0], 8, causal=False),
                   headline="held cards", key="kept/3", noun="the score of players who kept 3")
    held = replace(seat_finding(2, [0.1, 0.1, 0.1], 9, causal=False),
                   headline="held cards", key="kept/4", noun="the score of players who kept 4")
    assert kept.judgement.verdict == NO_EFFECT
    blocks, top = blocks_of([kept, held])
    table = only_table(blocks)
    assert table.rows[0][1].endswith("association: players chose it")
    assert table.rows[0][-1].startswith("no association in any field")
    assert count_line([kept, held]) == ("1 of 2 findings holds in every field, 1 shows no "
                                        "association in any field")
    text = " ".join([*top, *(b.text for b in blocks if isinstance(b, Paragraph)),
                     *(cell for row in table.rows for cell in row)])
    assert "no effect" not in text.replace("never read as 'no effect'", "")
    sentence = finding_sentence(held)
    assert "an association: players chose it; not an effect of the choice" in sentence


def test_four_fields_show_only_the_pairs_against_the_first():
    finding = seat_finding(1, [0.1, 0.1, 0.0, -0.1], 10)
    assert len(finding.judgement.pairs) == 6
    table = only_table(blocks_of([finding])[0])
    assert table.header == ("Headline", "Finding", "strong", "style", "mixed", "casual",
                            "strong − style", "strong − mixed", "strong − casual", "Verdict")
    sentence = finding_sentence(finding)
    assert "strong minus casual" in sentence and "style minus mixed" not in sentence


def test_a_long_family_folds_its_practically_zero_members_into_one_row():
    # Seeds 42..52 give "no effect in any field" for the null tiles (a null finding is shown
    # to be practically zero in about 95% of seeds, so the seeds are chosen, and asserted).
    tiles = [tile_finding(1, [0.05, 0.05, 0.05], 20)]
    tiles += [tile_finding(tile, [0.0, 0.0, 0.0], 40 + tile) for tile in range(2, 13)]
    tiles.insert(5, tile_finding(13, [0.05, -0.05, 0.0], 30))
    verdicts = [t.judgement.verdict for t in tiles]
    assert verdicts.count(NO_EFFECT) == 11
    assert verdicts[0] == HOLDS_EVERYWHERE and verdicts[5] == DIFFERS_IN_SIGN
    blocks, _ = blocks_of(tiles)
    table = only_table(blocks)
    assert [row[1] for row in table.rows] == [
        "tile 1 removed unseen (points)", "tile 13 removed unseen (points)",
        "11 others: no effect in any field (each within ±0.2 points)"]
    assert table.rows[2][2:-1] == ("",) * 6
    # The count line counts every member, folded or not; the figure draws the two shown.
    assert ("1 of 13 findings holds in every field, 1 differs in sign between fields, 11 show "
            "no effect in any field.") in [b.text for b in blocks if isinstance(b, Paragraph)]
    figures = [block for block in blocks if isinstance(block, Figure)]
    assert [figure.name for figure in figures] == ["fields-deal-set-effects"]
    caption = blocks[blocks.index(figures[0]) + 1]
    assert isinstance(caption, Paragraph) and "Not drawn: 11 members" in caption.text


def test_figures_are_small_multiples_with_one_panel_per_field_on_shared_axes(seat_findings):
    findings = seat_findings[:4]
    with headline_figure("Seat gaps across fields", findings) as figure:
        panels = figure.axes
        assert [axis.get_title() for axis in panels] == THREE
        limits = {axis.get_ylim() for axis in panels}
        assert len(limits) == 1
        bottom, top = limits.pop()
        # An effect: a zero line and the ±margin band in every panel.
        assert all(len(zero_lines(axis)) == 1 and axis.patches for axis in panels)
        # Every interval fits inside the shared axis.
        for finding in findings:
            assert bottom < 100 * finding.judgement.lows.min()
            assert top > 100 * finding.judgement.highs.max()
        assert [t.get_text() for t in panels[0].get_xticklabels()] == [
            "seat 1", "seat 2", "seat 3", "seat 4"]
    blocks, _ = blocks_of(seat_findings)
    figure = next(block for block in blocks if isinstance(block, Figure))
    assert figure.name == "fields-seat-gaps" and figure.png.startswith(b"\x89PNG")
    # Deterministic: the same findings give the same bytes.
    again = next(block for block in blocks_of(seat_findings)[0] if isinstance(block, Figure))
    assert again.png == figure.png


def test_several_groups_get_sub_headings_and_figure_names_with_the_group(seat_findings):
    groups = [FieldGroup("2 players, side A", seat_findings[:2]),
              FieldGroup("4 players, side B", seat_findings[2:4])]
    blocks, top = field_report_blocks(INFOS, groups, figure_prefix="across")
    assert [b.text for b in blocks if isinstance(b, Heading)] == [
        "Across fields", "2 players, side A", "4 players, side B"]
    assert [b.name for b in blocks if isinstance(b, Figure)] == [
        "across-seat-gaps-2-players-side-a", "across-seat-gaps-4-players-side-b"]
    assert top[0].startswith("Across fields (strong, style and mixed) in 2 table settings: "
                             "1 of 4 findings")
    assert top[1].startswith("2 players, side A: Seat 1's win-share gap differs in sign")


def test_the_top_sentences_lead_with_the_sign_that_flips_and_give_the_paired_difference(
        seat_findings):
    _, top = blocks_of(seat_findings + [level_finding([0, 0, 0], 6)])
    assert 2 <= len(top) <= 4
    assert top[0].startswith("Across fields (strong, style and mixed): 1 of 6 findings")
    judgement = seat_findings[0].judgement
    pair = (f"strong minus style {100 * judgement.pair_estimates[0]:+.1f} "
            f"({100 * judgement.pair_lows[0]:+.1f} to {100 * judgement.pair_highs[0]:+.1f})")
    assert top[1].startswith("Seat 1's win-share gap differs in sign between fields: strong +")
    assert pair in top[1]
    # A family not yet picked comes before a second member of a picked one.
    assert top[2].startswith("Game length is the same in every field")
    assert top[3].startswith("Seat 3's win-share gap holds in strong only")
    assert not any("undecided" in sentence for sentence in top[1:])
    assert blocks_of([]) == ([], []) and field_report_blocks(INFOS, []) == ([], [])


def test_member_labels_keep_what_tells_the_members_apart():
    assert member_labels(["seat 1's win-share gap", "seat 2's win-share gap"]) == [
        "seat 1", "seat 2"]
    assert member_labels(["tile 7 removed unseen", "tile 12 removed unseen"]) == [
        "tile 7", "tile 12"]
    assert member_labels(["the score of players who kept card 3",
                          "the score of players who kept card 14"]) == ["card 3", "card 14"]
    assert member_labels(["game length"]) == ["game length"]
    assert member_labels(["a very long noun that will not fit on the axis"])[0].endswith("…")


def test_no_figure_for_more_members_than_fit(seat_findings):
    many = [replace(seat_findings[1], key=f"seat_win_gap/{n}", noun=f"seat {n}'s gap")
            for n in range(1, 32)]
    assert headline_png("Seat gaps", many) is None
    blocks, _ = blocks_of(many)
    assert not any(isinstance(block, Figure) for block in blocks)
