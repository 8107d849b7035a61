"""The report sections of issue 14 on synthetic batches: card balance and nature spirits
(Harmonies' columns), how games unfold (a traced batch), how much skill matters; each in the
game's own words and only where the data support it."""

import numpy as np
import polars as pl
import pytest

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.games.registry import get_game
from sim.report import build_report
from sim.stats.synthetic import SyntheticDesign, write_synthetic_batch
from sim.stats.synthetic_cards import CardDesign, generate_card_rows

HARMONIES = get_game("harmonies")
CARDS = CardDesign(deals=400, card_extra={7: 6.0}, draft_extra={35: 6.0}, seed=11)


@pytest.fixture(scope="module")
def card_report(tmp_path_factory):
    rows = generate_card_rows(CARDS, HARMONIES.card_columns(), HARMONIES.draft_columns())
    rows = rows.with_columns(turns=pl.lit(9, dtype=pl.Int8) + (pl.col("game_id") % 3)
                             .cast(pl.Int8), spirits=pl.lit(1, dtype=pl.Int16))
    run_dir = tmp_path_factory.mktemp("cards")
    write_synthetic_batch(run_dir, SyntheticDesign(name="cards", game="harmonies", players=4,
                                                   deals=CARDS.deals, games_per_shard=100,
                                                   lineup=CARDS.lineup), rows)
    return build_report(run_dir, tmp_path_factory.mktemp("cards-report"))


def test_card_and_spirit_sections_name_the_planted_outliers(card_report):
    markdown = card_report.markdown.read_text()
    assert "## Card balance: animal cards" in markdown
    assert "## Nature spirits: dealt, kept and what they give" in markdown
    # Card 7's effect per card held comes from the opening row, which moves holding only a
    # little here: its interval covers the planted 6 points; holders are described as an
    # association. Spirit 35 (dealt at random, kept half the time) is found.
    assert "For comparison, not an effect: holders of an animal card score" in markdown
    assert "Nature spirit 35, the strongest estimate" in markdown
    assert "Shown too strong: 35." in markdown
    assert "Keeping, against a random choice between the two dealt" in markdown
    assert "figures/cards.png" in markdown and "figures/nature-spirits.png" in markdown
    assert (card_report.markdown.parent / "figures" / "nature-spirits.svg").is_file()
    assert "### Game length" in markdown
    for wording in ("Architect", "construction token", "light tile", "Legendary"):
        assert wording not in markdown, wording
    # The planted spirit is what matters most after the seats.
    assert card_report.findings[1].startswith("Nature spirit 35 is too strong")
    summary = pl.read_parquet(card_report.summary_parquet)
    cards = summary.filter((pl.col("section") == "cards")
                           & (pl.col("metric") == "score_per_card"))
    assert cards.height == CARDS.cards
    seven = cards.filter(pl.col("key").str.starts_with("card=7,")).row(0, named=True)
    assert seven["ci_low"] <= 6.0 <= seven["ci_high"]
    assert set(summary["section"]) >= {"cards", "drafts", "skill", "game length"}


def _traced(frame: pl.DataFrame, steps: int, seed: int) -> pl.DataFrame:
    """A score trace for every row ending on its score: random non-decreasing steps."""
    rng = np.random.default_rng(seed)
    scores = frame["score"].to_numpy().astype(float)
    cuts = np.sort(rng.random((scores.size, steps - 1)), axis=1)
    parts = np.diff(np.concatenate([np.zeros((scores.size, 1)), cuts,
                                    np.ones((scores.size, 1))], axis=1), axis=1)
    trace = np.rint(np.cumsum(parts * scores[:, None], axis=1)).astype(np.int16)
    trace[:, -1] = scores.astype(np.int16)
    return frame.with_columns(score_trace=pl.Series(trace.tolist(), dtype=pl.List(pl.Int16)))


def test_a_traced_batch_reports_how_games_unfold_in_the_games_words(forest_rows, tmp_path):
    design = SyntheticDesign(name="traced", deals=300, replicates=2, games_per_shard=100,
                             lineup=("greedy", "random", "greedy", "random"), rotate_lineup=True,
                             deal_model=ForestDeals())
    run_dir = tmp_path / "traced"
    write_synthetic_batch(run_dir, design, _traced(forest_rows, 19, seed=4))
    result = build_report(run_dir, tmp_path / "report")
    markdown = result.markdown.read_text()
    assert "## How games unfold" in markdown
    assert ("the leader at halfway (after turn ceil(L/2) of a game of L turns) goes on to "
            "win") in markdown
    assert "where its strategy at its seat wins" in markdown
    assert "with no information" not in markdown
    assert "How often the sole leader after each turn" in markdown  # the game's own step
    assert "figures/leader.png" in markdown and "figures/comeback.png" in markdown
    assert "## How much skill matters" in markdown and "figures/skill.png" in markdown
    assert "## Card balance" not in markdown and "needs the score trace" not in markdown
    summary = pl.read_parquet(result.summary_parquet)
    unfolding = summary.filter(pl.col("section") == "unfolding")
    # Games of 19 turns: one row per turn before the last (after the last the leader has won).
    assert unfolding.filter(pl.col("metric") == "leader_win_rate").height == 18


def test_an_untraced_batch_says_what_the_unfolding_needs(forest_dir, tmp_path):
    markdown = build_report(forest_dir, tmp_path).markdown.read_text()
    assert "## How games unfold" not in markdown
    assert "needs the score trace: run the batch with --trace" in markdown


def test_a_sweep_over_the_board_side_compares_the_cards_side_by_side(tmp_path):
    from dataclasses import replace

    from sim.report.cards import sweep_card_blocks
    from sim.report.document import Heading, Table
    from sim.stats.sweep import SweepFolder, SweepPointFolder

    points = []
    for index, (side, extra) in enumerate(((0, {7: 6.0}), (1, {}))):
        design = replace(CARDS, deals=200, card_extra=extra, draft_extra={}, seed=20 + index)
        rows = generate_card_rows(design, HARMONIES.card_columns(), HARMONIES.draft_columns())
        rows = rows.with_columns(side=pl.lit(side, dtype=pl.Int16),
                                 spirits=pl.lit(1, dtype=pl.Int16))
        run_dir = tmp_path / f"side={side}"
        write_synthetic_batch(run_dir, SyntheticDesign(name=f"side-{side}", game="harmonies",
                                                       players=4, deals=200,
                                                       games_per_shard=100), rows)
        points.append(SweepPointFolder(index, f"side={side}", {"side": side}, "complete", 200,
                                       run_dir))
    sweep = SweepFolder(tmp_path, {}, "sides", {"side": [0, 1]}, None, tuple(points), "x")
    blocks = sweep_card_blocks(sweep, HARMONIES)
    assert Heading("Cards under each rules setting") in blocks
    tables = [block for block in blocks if isinstance(block, Table)]
    assert tables[0].header == ("Card", "side A", "side B", "Difference (95% CI)")
    assert tables[0].rows[-1][0] == "7"  # sorted by difference: card 7 lost the most on B
    assert sweep_card_blocks(sweep, get_game("legendary-forests")) == []
