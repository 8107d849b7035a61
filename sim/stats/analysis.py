"""Every statistic of a batch, from its Parquet files.

``analyse_batch`` hands every section one lazy scan of the narrow columns it needs. Most
sections read the shards in chunks of whole deals and keep exact integer sums per cell (and, for
the clustered intervals and regressions, sums of per-deal products), so their memory does not
grow with the number of games: the score distributions, seats, convergence, head to head, deal
variance, the game's rotating role, the game's card and draft sections (descriptives and
randomised effects, ``sim.stats.cards``) and how games unfold (``sim.stats.unfolding``). What
still grows with the batch: the game lengths hold one value per game, the points by category
one sum per deal and category, and the skill ladder and variance split (panels with several
strategies only) read their rows whole (``read_skill_rows``). What a store or a game cannot
give is left as None, with a note saying why; the report prints those notes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import polars as pl

from sim.games.base import (
    GameAnalysis,
    RandomisedCountEffect,
    RemovedItemsEffect,
    RotatingRoleAssociation,
)
from sim.games.registry import get_game
from sim.stats.batch import Batch
from sim.stats.cards import (
    CARD_MARGIN,
    card_descriptives,
    card_effects,
    card_rows,
    compare_settings,
    draft_descriptives,
    draft_effects,
    scan_card_rows,
)
from sim.stats.categories import category_columns, category_means
from sim.stats.convergence import batch_running_estimates, games_needed
from sim.stats.rotating_role import role_table, role_turn_effect
from sim.stats.scores import distributions, pooled_histogram, score_histogram
from sim.stats.seats import (
    FAIR_MARGIN,
    seat_table,
    seat_tests,
    strategy_mix_is_balanced,
)
from sim.stats.skill import ladder, read_skill_rows, variance_split
from sim.stats.strategies import head_to_head, strategy_gaps
from sim.stats.unfolding import game_lengths, scan_trace_rows, unfolding_tables
from sim.stats.units import cluster_moments
from sim.stats.variance import count_effect, deal_variance, removed_item_effect

ROW_COLUMNS = ["game_id", "deal_id", "replicate", "players", "rules", "strategy", "seat", "score",
               "rank", "win"]


@dataclass
class BatchAnalysis:
    """The numbers of a batch, section by section (None where not computable)."""

    batch: Batch
    games: int
    histogram: pl.DataFrame
    distributions: pl.DataFrame
    pooled_histogram: pl.DataFrame
    seats: pl.DataFrame
    seat_tests: pl.DataFrame
    seat_gaps: pl.DataFrame
    strategy_gaps: pl.DataFrame
    running: pl.DataFrame
    games_needed: pl.DataFrame
    head_to_head: pl.DataFrame | None = None
    # The game's declared analyses (``Game.analyses``): the rotating role (``role_table``,
    # ``role_turn_effect``), the items the deal removes (``removed_item_effect``) and the count
    # it randomises (``count_effect``: a table and its fit).
    role_table: pl.DataFrame | None = None
    role_effect: pl.DataFrame | None = None
    deal_variance: pl.DataFrame | None = None
    removed_items: pl.DataFrame | None = None
    count_table: pl.DataFrame | None = None
    count_fit: pl.DataFrame | None = None
    notable: pl.DataFrame | None = None
    categories: pl.DataFrame | None = None
    # Cards taken from a face-up offer and cards dealt and kept (games that record them).
    cards: pl.DataFrame | None = None
    card_effects: pl.DataFrame | None = None
    card_settings: pl.DataFrame | None = None
    drafts: pl.DataFrame | None = None
    draft_effects: pl.DataFrame | None = None
    draft_settings: pl.DataFrame | None = None
    card_margin: float = CARD_MARGIN
    # How games unfold (batches with the score trace) and how long they last.
    unfolding: dict[str, pl.DataFrame] | None = None
    game_length: pl.DataFrame | None = None
    game_length_counts: pl.DataFrame | None = None
    # How much skill matters (batches with several strategies).
    ladder: pl.DataFrame | None = None
    variance_split: pl.DataFrame | None = None
    notes: list[str] = field(default_factory=list)

    def main_panel(self) -> tuple[int, str]:
        """The (players, rules) with the most games: the one the summary speaks about."""
        totals = (self.seats.group_by(["players", "rules"])
                  .agg(pl.col("player_games").min().alias("games"))
                  .sort(["games", "players", "rules"], descending=[True, False, False]))
        return int(totals["players"][0]), str(totals["rules"][0])


def _read_rows(batch: Batch) -> pl.LazyFrame:
    """A lazy scan of the rows store's columns the statistics use. Nothing is read here: each
    section aggregates the shards as it streams them, so the rows are never held at once."""
    columns = list(ROW_COLUMNS)
    for extra in _analysis_columns(batch):
        if batch.has_columns(extra) and extra not in columns:
            columns.append(extra)
    return batch.scan(columns)


def __getattr__(name: str) -> list[str]:
    """``ROLE_COLUMNS``: the rotating-role and count columns the registered games declare
    (``RotatingRoleAssociation``; tests read them), worked out when first asked for so that
    importing this module loads no game."""
    if name == "ROLE_COLUMNS":
        from sim.games.registry import games

        return [column for game in games().values()
                if (role := game.analysis(RotatingRoleAssociation)) is not None
                for column in (role.column, role.count_column)]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _declared(batch: Batch, kind: type) -> GameAnalysis | None:
    """The batch's game's declared analysis of ``kind`` (``Game.analysis``), or None."""
    return get_game(batch.game).analysis(kind)


def _analysis_columns(batch: Batch) -> list[str]:
    """The rows-store columns the game's declared analyses read: the role and its count, the
    randomised count, then the removed items (the order the scan has always had)."""
    role = _declared(batch, RotatingRoleAssociation)
    count = _declared(batch, RandomisedCountEffect)
    removed = _declared(batch, RemovedItemsEffect)
    return ([role.column, role.count_column] if role else []) + (
        [count.column] if count else []) + ([removed.column] if removed else [])


def analyse_batch(batch: Batch, progress: Callable[[str], None] | None = None,
                  fair_margin: float = FAIR_MARGIN,
                  card_margin: float = CARD_MARGIN) -> BatchAnalysis:
    """Compute every section of the report for ``batch``; ``progress`` gets a short message as
    each section starts. ``fair_margin`` is the seat-gap margin (a proportion) within which
    seats count as fair; ``card_margin`` the gap to the average card (points) within which a
    card counts as fair."""

    def step(message: str) -> None:
        if progress is not None:
            progress(message)

    notes = []
    rows = None
    if batch.is_rows:
        step("reading rows")
        rows = _read_rows(batch)
    else:
        notes.append("This batch kept the summary store (score histograms), so head-to-head "
                     "results, the deal's share of the variance and the sections particular to the "
                     "game need a batch run with the rows store.")
    if batch.ignored_note:
        notes.append(f"Files left out of this report: {batch.ignored_note}.")
    if batch.status != "complete" or len(batch.shard_files) < batch.manifest["shards_total"]:
        notes.append(f"The batch is {batch.status}: {len(batch.shard_files)} of "
                     f"{batch.manifest['shards_total']} shards are finished and reported.")

    step("score distributions")
    histogram = score_histogram(batch, rows)
    # The per-deal sums reduced chunk by chunk to exact moments: memory does not grow with the
    # number of deals.
    clusters = cluster_moments(batch)
    unit_name = batch.cluster_unit
    table = distributions(histogram, clusters)
    seats = seat_table(histogram, clusters)
    games = int(seats.group_by(["players", "rules"]).agg(pl.col("player_games").min())
                ["player_games"].sum())

    step("seat advantage")
    # The lineup model reads the games chunk by chunk (panels with several strategies only).
    chunks = ([batch.scan(ROW_COLUMNS, files=chunk) for chunk in batch.chunks()]
              if rows is not None else None)
    tests, gaps = seat_tests(clusters, unit_name, fair_margin=fair_margin,
                             rows=chunks, design=batch.pool_design)
    if not tests.filter(pl.col("reason").is_not_null()).is_empty():
        notes.append("In some player counts no test of equal seats and no seat verdict is "
                     "given; the seat section says why in one line.")

    step("convergence")
    running = batch_running_estimates(batch, clusters.unit_counts())
    if running.is_empty():
        notes.append("Convergence needs at least two units (deals or shards); this batch has "
                     "fewer.")
    analysis = BatchAnalysis(
        batch=batch, games=games, histogram=histogram, distributions=table,
        pooled_histogram=pooled_histogram(histogram), seats=seats, seat_tests=tests,
        seat_gaps=gaps, strategy_gaps=strategy_gaps(clusters, strategy_mix_is_balanced(histogram)),
        running=running, games_needed=games_needed(running),
        notes=notes)

    if rows is not None and category_columns(batch):
        step("points by category")
        analysis.categories = category_means(batch)
    if rows is not None:
        step("strategies head to head")
        # Only a panel with several strategies has games that mix them (the rest give an empty
        # matrix): skipping the pairing of seats otherwise saves a pass over every row.
        if _strategies_per_panel(table) >= 2:
            matrix = head_to_head(rows)
            analysis.head_to_head = matrix if not matrix.is_empty() else None
        step("deal variance")
        variance = deal_variance(rows)
        if variance.is_empty():
            notes.append("No deal was replayed (replicates_per_deal = 1), so the deal's share of "
                         "the score variance cannot be separated from play.")
        else:
            analysis.deal_variance = variance
        role = _declared(batch, RotatingRoleAssociation)
        count = _declared(batch, RandomisedCountEffect)
        removed = _declared(batch, RemovedItemsEffect)
        if role and batch.has_columns(role.column, role.count_column):
            step(role.noun)
            analysis.role_table = role_table(rows, role.column, role.count_column)
            # Found by its columns: the rows hold only this game's declared ones (``_read_rows``).
            effect = role_turn_effect(rows)
            analysis.role_effect = effect if not effect.is_empty() else None
        if count and batch.has_columns(count.column):
            step(count.noun)
            analysis.count_table, fit = count_effect(rows, count_column=count.column)
            analysis.count_fit = fit if not fit.is_empty() else None
        if removed and batch.has_columns(removed.column):
            step(f"{removed.noun} impact")
            impact = removed_item_effect(rows, mask_column=removed.column)
            analysis.removed_items = impact if not impact.is_empty() else None
        elif removed:
            # Only a game that records removed items can miss them; others never mention them.
            notes.append(f"{removed.noun.capitalize()} impact needs the column {removed.column}, "
                         "which this batch does not have.")

    if rows is not None:
        _game_sections(analysis, batch, rows, step, card_margin)

    notable = batch.scan_notable()
    if notable is not None:
        try:
            analysis.notable = notable.collect()
        except pl.exceptions.PolarsError as error:
            reason = str(error).splitlines()[0] if str(error) else type(error).__name__
            notes.append(f"The drawings in {batch.run_dir / 'notable'} could not be read "
                         f"({reason}).")
    return analysis


def _strategies_per_panel(distribution: pl.DataFrame) -> int:
    """The largest number of strategies any (players, rules) of the batch plays."""
    return int(distribution.group_by(["players", "rules"]).agg(pl.col("strategy").n_unique())[
        "strategy"].max())


def _non_empty(frame: pl.DataFrame | None) -> pl.DataFrame | None:
    return frame if frame is not None and not frame.is_empty() else None


def _game_sections(analysis: BatchAnalysis, batch: Batch, rows: pl.LazyFrame,
                   step: Callable[[str], None], card_margin: float) -> None:
    """The sections a game's own columns allow: card balance, how games unfold (score trace),
    game length and, with several strategies, how much skill matters."""
    game = get_game(batch.game)
    analysis.card_margin = card_margin
    cards, draft = game.card_columns(), game.draft_columns()
    # A lazy scan: each section below streams it (or collects only its own columns).
    card_scan = card_rows(batch, cards, draft) if (cards or draft) else None
    names = card_scan.collect_schema().names() if card_scan is not None else []
    if card_scan is not None and cards is not None and cards.cards in names:
        step("card balance")
        analysis.cards = _non_empty(card_descriptives(card_scan, cards))
        analysis.card_effects = _non_empty(card_effects(scan_card_rows(batch, cards), cards,
                                                        card_margin))
        if analysis.card_effects is not None:
            analysis.card_settings = _non_empty(compare_settings(analysis.card_effects,
                                                                 "score_effect"))
    if card_scan is not None and draft is not None and draft.kept in names \
            and card_scan.select((pl.col(draft.kept) > 0).any()).collect().item():
        step(f"{draft.noun}s")
        analysis.drafts = _non_empty(draft_descriptives(card_scan, draft))
        analysis.draft_effects = _non_empty(draft_effects(card_scan, draft, card_margin))
        if analysis.draft_effects is not None:
            analysis.draft_settings = _non_empty(compare_settings(analysis.draft_effects,
                                                                  "score_effect"))
    traces = scan_trace_rows(batch) if game.supports_trace else None
    if traces is not None:
        step("how games unfold")
        tables = unfolding_tables(traces)
        analysis.unfolding = tables if not tables["summary"].is_empty() else None
    elif game.supports_trace:
        analysis.notes.append("How games unfold (lead changes, the leader's chances, comebacks, "
                              "when games are decided) needs the score trace: run the batch "
                              "with --trace (or trace = true in its config).")
    lengths = game_lengths(batch, game.length_column)
    if lengths is not None:
        analysis.game_length, analysis.game_length_counts = lengths
    if _strategies_per_panel(analysis.distributions.filter(pl.col("seat").is_null())) >= 2:
        step("how much skill matters")
        skill_rows = read_skill_rows(rows)
        analysis.ladder = _non_empty(ladder(skill_rows))
        analysis.variance_split = _non_empty(variance_split(skill_rows))
