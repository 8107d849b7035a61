"""Card balance: which cards taken from a face-up offer, and which cards dealt face down and
kept, are too strong or too weak (rows store; the columns come from the game:
``Game.card_columns`` and ``Game.draft_columns``).

Per card taken from the offer:

- take rate: of the takes made while the card lay face up, the share that chose it (a player
  choosing at random among k face-up cards takes each with probability 1/k; that rate is shown
  beside it); completion rate, mean points it gave and points per piece placed on it (e.g. per
  cube), over the times it was taken; ratio means with cluster-robust intervals (the unit is the
  deal, ``sim.stats.clustered``);
- its effect on its holder: an OLS over player-games of the outcome (score, or win share) on one
  indicator per card held, the round each card was taken (its offset from the average round,
  summed over the cards held: one common slope), seat and strategy fixed effects; covariance
  cluster-robust by deal (a deal played once is one game), t on deals - 1 degrees of freedom.
  A card's coefficient is what holding it adds, the other cards held, the seat, the strategy
  and the timing held fixed. Its gap to the average card (coefficient minus the mean of all
  cards' coefficients) has a simultaneous (max-|t|) interval over all cards, and a verdict
  against a stated margin of points: ``strong`` when the whole interval lies above +margin,
  ``weak`` below -margin, ``fair`` within, ``undecided`` otherwise.

Per card dealt and kept (e.g. a nature spirit): keep rate when dealt, mean bonus, the keeper's
score and win rate against the others at the table, and its effect: an OLS within each game
(game fixed effects, by centring) of the outcome on the card kept (effects coding: each card
against the average card), seat and strategy, cluster-robust by deal, simultaneous intervals
over the cards and the same verdict.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from sim.games.base import CardColumns, DraftColumns
from sim.stats.batch import Batch
from sim.stats.clustered import (
    WIN_SCALE,
    grouped_ratio_table,
    simultaneous_critical,
    t_critical,
)
from sim.stats.units import win_units

PANEL = ["players", "rules"]
# The default margin of a card verdict: a card is fair when its gap to the average card is shown
# to lie within this many points.
CARD_MARGIN = 2.0
# A card needs this many takes (and two deals) to get its own coefficient; rarer ones are
# reported with their descriptive rates only.
MIN_TAKES = 10
VERDICTS = ("strong", "weak", "fair", "undecided")
EFFECT_METHOD = ("OLS over player-games of the outcome on the cards held, the round each was "
                 "taken, seat and strategy; cluster-robust by deal; gaps to the average card "
                 "with max-|t| simultaneous intervals over the {cards} cards")
DRAFT_METHOD = ("OLS within each game (game fixed effects) of the outcome on the card kept "
                "(each against the average card), seat and strategy; cluster-robust by deal; "
                "max-|t| simultaneous intervals over the {cards} cards")


def margin_verdict(low: float, high: float, margin: float) -> str:
    """``strong`` when [low, high] lies wholly above +margin, ``weak`` wholly below -margin,
    ``fair`` wholly within (-margin, margin), ``undecided`` otherwise (the interval straddles a
    bound: the data cannot tell yet). The same equivalence reading as the seats' verdict."""
    if not (np.isfinite(low) and np.isfinite(high)):
        return "undecided"
    if low >= margin:
        return "strong"
    if high <= -margin:
        return "weak"
    if low > -margin and high < margin:
        return "fair"
    return "undecided"


def _as_list(frame: pl.DataFrame, column: str) -> pl.Expr:
    """The column as a list (a fixed-size array column read back may be either)."""
    dtype = frame.schema[column]
    return pl.col(column).arr.to_list() if isinstance(dtype, pl.Array) else pl.col(column)


def read_card_rows(batch: Batch, cards: CardColumns | None,
                   draft: DraftColumns | None) -> pl.DataFrame | None:
    """The rows the card statistics need (one per player-game), or None when the batch has
    none of the game's card columns."""
    wanted = ["game_id", "deal_id", "players", "rules", "strategy", "seat", "score", "win"]
    extra = []
    if cards is not None and batch.has_columns(cards.cards, cards.rounds, cards.offers,
                                               cards.completed, cards.points):
        extra += [cards.cards, cards.rounds, cards.offers, cards.completed, cards.points]
        if cards.progress and batch.has_columns(cards.progress):
            extra.append(cards.progress)
    if draft is not None and batch.has_columns(draft.dealt, draft.kept, draft.bonus):
        extra += [draft.dealt, draft.kept, draft.bonus]
    if not extra:
        return None
    frame = batch.scan(wanted + extra).collect()
    return frame.with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                              pl.col("strategy").cast(pl.String))


# --- cards taken from the offer ------------------------------------------------------------------

def card_descriptives(frame: pl.DataFrame, cards: CardColumns,
                      confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, card): times offered at a take, times taken, take rate (and the
    rate of a random choice), completion rate, mean points, points per piece placed, mean
    round taken; rates with cluster-robust intervals over deals."""
    columns = [cards.cards, cards.rounds, cards.completed, cards.points]
    if cards.progress and cards.progress in frame.columns:
        columns.append(cards.progress)
    takes = (frame.select(*PANEL, "deal_id", *columns).explode(columns)
             .drop_nulls(cards.cards)
             .rename({cards.cards: "card", "deal_id": "cluster"}))
    progress = (pl.col(cards.progress).cast(pl.Int64).sum() if cards.progress in takes.columns
                else pl.lit(None, dtype=pl.Int64))
    taken = takes.group_by([*PANEL, "card", "cluster"]).agg(
        taken=pl.len().cast(pl.Int64),
        completed=pl.col(cards.completed).cast(pl.Int64).sum(),
        points=pl.col(cards.points).cast(pl.Int64).sum(),
        rounds=pl.col(cards.rounds).cast(pl.Int64).sum(),
        progress=progress)
    offers = (frame.select(*PANEL, "deal_id", pl.col(cards.cards).alias("taken"),
                           pl.col(cards.offers).alias("offer"))
              .explode(["taken", "offer"]).drop_nulls("taken")
              .with_columns(random=1.0 / pl.col("offer").list.len().cast(pl.Float64))
              .explode("offer")
              .rename({"deal_id": "cluster"}))
    offered = (offers.group_by([*PANEL, pl.col("offer").alias("card"), "cluster"])
               .agg(offered=pl.len().cast(pl.Int64),
                    chosen=(pl.col("offer") == pl.col("taken")).cast(pl.Int64).sum(),
                    random=pl.col("random").sum()))
    keys = [*PANEL, "card"]
    rates = grouped_ratio_table(offered.sort([*keys, "cluster"]), keys, "offered",
                                {"take_rate": "chosen", "take_rate_random": "random"},
                                confidence=confidence)
    values = {"completion_rate": "completed", "mean_points": "points", "mean_round": "rounds"}
    outcomes = grouped_ratio_table(taken.sort([*keys, "cluster"]), keys, "taken", values,
                                   confidence=confidence)
    per_piece = grouped_ratio_table(taken.filter(pl.col("progress").is_not_null()).sort(
        [*keys, "cluster"]), keys, "progress", {"points_per_piece": "points"},
        confidence=confidence)
    counts = (taken.group_by(keys).agg(pl.col("taken").sum(), pl.col("progress").sum())
              .join(offered.group_by(keys).agg(pl.col("offered").sum()), on=keys, how="full",
                    coalesce=True))
    table = (counts.join(rates.select(*keys, "take_rate", "take_rate_low", "take_rate_high",
                                      "take_rate_random"), on=keys, how="left")
             .join(outcomes.select(*keys, "completion_rate", "completion_rate_low",
                                   "completion_rate_high", "mean_points", "mean_points_low",
                                   "mean_points_high", "mean_round"), on=keys, how="left")
             .join(per_piece.select(*keys, "points_per_piece", "points_per_piece_low",
                                    "points_per_piece_high"), on=keys, how="left"))
    proportions = [f"{name}{end}" for name in ("take_rate", "completion_rate")
                   for end in ("_low", "_high")]
    return (table.with_columns(pl.col("taken").fill_null(0), pl.col("offered").fill_null(0),
                               pl.col("card").cast(pl.Int64),
                               *[pl.col(c).clip(0.0, 1.0) for c in proportions],
                               pl.col("mean_points_low").clip(lower_bound=0.0))
            .rename({"progress": "pieces"}).sort(keys))


def _fit(outcome: np.ndarray, design: np.ndarray, clusters: np.ndarray):
    """OLS with a cluster-robust covariance (statsmodels): (coefficients, covariance)."""
    import statsmodels.api as sm

    fit = sm.OLS(outcome, design).fit(method="pinv", cov_type="cluster",
                                      cov_kwds={"groups": clusters})
    return np.asarray(fit.params), np.asarray(fit.cov_params())


def _dummies(values: np.ndarray) -> np.ndarray:
    """Indicators of every level of ``values`` but the first (sorted)."""
    levels = np.unique(values)
    return (values[:, None] == levels[None, 1:]).astype(float)


def _gap_intervals(estimates: np.ndarray, covariance: np.ndarray, contrast: np.ndarray,
                   clusters: int, confidence: float):
    """Contrasts of ``estimates`` with simultaneous (max-|t|) intervals: (gap, low, high)."""
    gaps = contrast @ estimates
    cov = contrast @ covariance @ contrast.T
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    with np.errstate(invalid="ignore", divide="ignore"):
        scale = np.where(se > 0, 1.0 / se, 0.0)
    correlation = cov * scale[:, None] * scale[None, :]
    np.fill_diagonal(correlation, 1.0)
    critical = simultaneous_critical(correlation, clusters, confidence)
    return gaps, se, gaps - critical * se, gaps + critical * se


OUTCOMES = ("score", "win")


def card_effects(frame: pl.DataFrame, cards: CardColumns, margin: float = CARD_MARGIN,
                 confidence: float = 0.95, outcomes: tuple[str, ...] = OUTCOMES) -> pl.DataFrame:
    """Per (players, rules, card): what holding the card adds to its holder's score and win
    share (95% t intervals), its gap to the average card (simultaneous intervals) and the
    verdict against ``margin`` points; see the module docstring for the model. ``outcomes``
    may leave out ``win`` (its columns are then null)."""
    results = []
    for (players, rules), panel in frame.sort("game_id", "seat").group_by(PANEL,
                                                                        maintain_order=True):
        record = _panel_card_effects(panel, cards, margin, confidence, outcomes)
        for row in record:
            results.append({"players": int(players), "rules": rules, **row})
    schema = {"players": pl.Int64, "rules": pl.String, "card": pl.Int64, "holders": pl.Int64,
              **{f"{name}{suffix}": pl.Float64
                 for name in ("score_effect", "score_vs_average", "win_effect",
                              "win_vs_average")
                 for suffix in ("", "_se", "_low", "_high")},
              "verdict": pl.String, "margin": pl.Float64, "clusters": pl.Int64,
              "round_slope": pl.Float64, "method": pl.String}
    return pl.DataFrame(results, schema=schema)


def _panel_card_effects(panel: pl.DataFrame, cards: CardColumns, margin: float,
                        confidence: float, outcomes: tuple[str, ...]) -> list[dict]:
    rows = panel.height
    takes = (panel.with_row_index("_row").select("_row", cards.cards, cards.rounds)
             .explode([cards.cards, cards.rounds]).drop_nulls(cards.cards))
    counts = takes.group_by(cards.cards).agg(n=pl.len())
    row_index = takes["_row"].to_numpy().astype(np.int64)
    card_ids = takes[cards.cards].to_numpy().astype(np.int64)
    rounds = takes[cards.rounds].to_numpy().astype(float)
    deals = panel["deal_id"].to_numpy()
    clusters = int(np.unique(deals).size)
    modelled = sorted(int(c) for c, n in counts.select(cards.cards, "n").iter_rows()
                      if n >= MIN_TAKES and np.unique(deals[row_index[card_ids == c]]).size >= 2)
    if len(modelled) < 2 or clusters < 3:
        return []
    column_of = {card: k for k, card in enumerate(modelled)}
    held = np.zeros((rows, len(modelled)))
    keep = np.isin(card_ids, modelled)
    held[row_index[keep], [column_of[c] for c in card_ids[keep]]] = 1.0
    offset = np.zeros(rows)
    np.add.at(offset, row_index[keep], rounds[keep] - rounds[keep].mean())
    seat = _dummies(panel["seat"].to_numpy())
    strategy = _dummies(panel["strategy"].to_numpy())
    design = np.column_stack([np.ones(rows), held, offset, seat, strategy])
    cards_count = len(modelled)
    contrast = np.eye(cards_count) - 1.0 / cards_count
    critical = t_critical(clusters, confidence)
    fitted = {}
    for name in outcomes:
        params, covariance = _fit(panel[name].to_numpy().astype(float), design, deals)
        beta = params[1:1 + cards_count]
        cov = covariance[1:1 + cards_count, 1:1 + cards_count]
        se = np.sqrt(np.maximum(np.diag(cov), 0.0))
        gaps, gap_se, low, high = _gap_intervals(beta, cov, contrast, clusters, confidence)
        fitted[name] = (beta, se, gaps, gap_se, low, high, float(params[1 + cards_count]))
    holders = held.sum(axis=0).astype(np.int64)
    method = EFFECT_METHOD.format(cards=cards_count)
    records = []
    for k, card in enumerate(modelled):
        record = {"card": card, "holders": int(holders[k]), "margin": margin,
                  "clusters": clusters, "round_slope": fitted["score"][6], "method": method}
        for name in outcomes:
            beta, se, gaps, gap_se, low, high, _ = fitted[name]
            record.update({
                f"{name}_effect": float(beta[k]), f"{name}_effect_se": float(se[k]),
                f"{name}_effect_low": float(beta[k] - critical * se[k]),
                f"{name}_effect_high": float(beta[k] + critical * se[k]),
                f"{name}_vs_average": float(gaps[k]), f"{name}_vs_average_se": float(gap_se[k]),
                f"{name}_vs_average_low": float(low[k]),
                f"{name}_vs_average_high": float(high[k])})
        record["verdict"] = margin_verdict(record["score_vs_average_low"],
                                           record["score_vs_average_high"], margin)
        records.append(record)
    return records


# --- cards dealt and kept ------------------------------------------------------------------------

def kept_rows(frame: pl.DataFrame, draft: DraftColumns) -> pl.DataFrame:
    """The rows of player-games that kept a card, with the others at the table: ``others_score``
    and ``others_win`` (their means; null in a solo game)."""
    table = frame.with_columns(
        table_score=pl.col("score").cast(pl.Float64).sum().over("game_id"),
        table_win=pl.col("win").cast(pl.Float64).sum().over("game_id"),
        table_size=pl.len().over("game_id").cast(pl.Float64))
    others = pl.col("table_size") - 1.0
    return (table.filter(pl.col(draft.kept) > 0)
            .with_columns(
                others_score=pl.when(others > 0).then(
                    (pl.col("table_score") - pl.col("score").cast(pl.Float64)) / others),
                others_win=pl.when(others > 0).then(
                    (pl.col("table_win") - pl.col("win").cast(pl.Float64)) / others)))


def draft_descriptives(frame: pl.DataFrame, draft: DraftColumns,
                       confidence: float = 0.95) -> pl.DataFrame:
    """Per (players, rules, card): times dealt and kept, keep rate, mean bonus, the keepers'
    mean score and win rate and those of the others at their tables, and the gaps; ratio means
    with cluster-robust intervals over deals."""
    keys = [*PANEL, "card"]
    dealt = (frame.filter(pl.col(draft.kept) > 0)
             .select(*PANEL, pl.col("deal_id").alias("cluster"), draft.kept,
                     _as_list(frame, draft.dealt).alias("card"))
             .explode("card").filter(pl.col("card") > 0)
             .group_by([*keys, "cluster"])
             .agg(dealt=pl.len().cast(pl.Int64),
                  kept=(pl.col("card") == pl.col(draft.kept)).cast(pl.Int64).sum())
             .with_columns(pl.col("card").cast(pl.Int64)).sort([*keys, "cluster"]))
    if dealt.is_empty():
        return pl.DataFrame()
    keepers = kept_rows(frame, draft)
    units = (keepers.group_by([*PANEL, pl.col(draft.kept).cast(pl.Int64).alias("card"),
                               pl.col("deal_id").alias("cluster")])
             .agg(keeps=pl.len().cast(pl.Int64),
                  bonus=pl.col(draft.bonus).cast(pl.Int64).sum(),
                  score=pl.col("score").cast(pl.Int64).sum(),
                  wins=win_units().sum(),
                  others_score=pl.col("others_score").sum(),
                  others_win=pl.col("others_win").sum(),
                  others=pl.col("others_score").is_not_null().cast(pl.Int64).sum())
             .with_columns(win=pl.col("wins") / WIN_SCALE,
                           score_gap=pl.col("score") - pl.col("others_score"),
                           win_gap=pl.col("wins") / WIN_SCALE - pl.col("others_win"))
             .sort([*keys, "cluster"]))
    keep_rate = grouped_ratio_table(dealt, keys, "dealt", {"keep_rate": "kept"},
                                    confidence=confidence)
    means = grouped_ratio_table(units, keys, "keeps",
                                {"mean_bonus": "bonus", "keeper_score": "score",
                                 "keeper_win_rate": "win"}, confidence=confidence)
    with_others = units.filter(pl.col("others") > 0)
    gaps = grouped_ratio_table(with_others, keys, "others",
                               {"others_score": "others_score", "others_win_rate": "others_win",
                                "score_gap": "score_gap", "win_gap": "win_gap"},
                               confidence=confidence)
    counts = (dealt.group_by(keys).agg(pl.col("dealt").sum(), pl.col("kept").sum()))

    def interval(name: str) -> list[str]:
        return [name, f"{name}_low", f"{name}_high"]

    table = (counts.join(keep_rate.select(*keys, *interval("keep_rate")), on=keys, how="left")
             .join(means.select(*keys, *interval("mean_bonus"), *interval("keeper_score"),
                                *interval("keeper_win_rate")), on=keys, how="left"))
    if not gaps.is_empty():
        table = table.join(gaps.select(*keys, "others_score", "others_win_rate",
                                       *interval("score_gap"), *interval("win_gap")),
                           on=keys, how="left")
    proportions = [f"{name}{end}" for name in ("keep_rate", "keeper_win_rate")
                   for end in ("_low", "_high")]
    return table.with_columns(*[pl.col(c).clip(0.0, 1.0) for c in proportions],
                              pl.col("mean_bonus_low").clip(lower_bound=0.0)).sort(keys)


def draft_effects(frame: pl.DataFrame, draft: DraftColumns, margin: float = CARD_MARGIN,
                  confidence: float = 0.95, outcomes: tuple[str, ...] = OUTCOMES) -> pl.DataFrame:
    """Per (players, rules, card): what keeping the card adds to the keeper's score and win share
    against the average card, the others at the table held as reference (game fixed effects),
    seat and strategy fixed; simultaneous intervals and the verdict against ``margin``
    (``outcomes`` may leave out ``win``)."""
    results = []
    kept = frame.filter(pl.col(draft.kept) > 0)
    # Only whole tables: the within-game comparison needs every seat of a game.
    kept = kept.filter(pl.len().over("game_id") == pl.col("players"))
    for (players, rules), panel in kept.sort("game_id", "seat").group_by(PANEL,
                                                                       maintain_order=True):
        if players < 2:
            continue
        for row in _panel_draft_effects(panel, draft, margin, confidence, outcomes):
            results.append({"players": int(players), "rules": rules, **row})
    schema = {"players": pl.Int64, "rules": pl.String, "card": pl.Int64, "keepers": pl.Int64,
              **{f"{name}{suffix}": pl.Float64 for name in ("score_effect", "win_effect")
                 for suffix in ("", "_se", "_low", "_high")},
              "verdict": pl.String, "margin": pl.Float64, "clusters": pl.Int64,
              "method": pl.String}
    return pl.DataFrame(results, schema=schema)


def _within_game(values: np.ndarray, games: np.ndarray) -> np.ndarray:
    """``values`` (rows x columns) minus their mean over the rows of the same game."""
    _, index, sizes = np.unique(games, return_inverse=True, return_counts=True)
    values = np.asarray(values, dtype=float).reshape(len(games), -1)
    sums = np.zeros((sizes.size, values.shape[1]))
    np.add.at(sums, index, values)
    return values - (sums / sizes[:, None])[index]


def _panel_draft_effects(panel: pl.DataFrame, draft: DraftColumns, margin: float,
                         confidence: float, outcomes: tuple[str, ...]) -> list[dict]:
    kept = panel[draft.kept].to_numpy().astype(np.int64)
    cards = np.unique(kept)
    deals = panel["deal_id"].to_numpy()
    clusters = int(np.unique(deals).size)
    if cards.size < 2 or clusters < 3:
        return []
    games = panel["game_id"].to_numpy()
    # Effects coding: column k is (kept card k) - (kept the last card); the last card's effect
    # is minus the sum of the others, so every effect is against the average card.
    indicator = (kept[:, None] == cards[None, :]).astype(float)
    coded = indicator[:, :-1] - indicator[:, -1:]
    seat = _dummies(panel["seat"].to_numpy())
    strategy = _dummies(panel["strategy"].to_numpy())
    design = _within_game(np.column_stack([coded, seat, strategy]), games)
    expand = np.vstack([np.eye(cards.size - 1), -np.ones((1, cards.size - 1))])
    fitted = {}
    for name in outcomes:
        params, covariance = _fit(_within_game(panel[name].to_numpy().astype(float),
                                               games).ravel(), design, deals)
        theta = params[:cards.size - 1]
        cov = covariance[:cards.size - 1, :cards.size - 1]
        fitted[name] = _gap_intervals(theta, cov, expand, clusters, confidence)
    keepers = indicator.sum(axis=0).astype(np.int64)
    method = DRAFT_METHOD.format(cards=cards.size)
    records = []
    for k, card in enumerate(cards):
        record = {"card": int(card), "keepers": int(keepers[k]), "margin": margin,
                  "clusters": clusters, "method": method}
        for name in outcomes:
            effect, se, low, high = fitted[name]
            record.update({f"{name}_effect": float(effect[k]), f"{name}_effect_se": float(se[k]),
                           f"{name}_effect_low": float(low[k]),
                           f"{name}_effect_high": float(high[k])})
        record["verdict"] = margin_verdict(record["score_effect_low"],
                                           record["score_effect_high"], margin)
        records.append(record)
    return records


# --- rules settings side by side -----------------------------------------------------------------

def compare_settings(effects: pl.DataFrame, value: str, key: str = "card") -> pl.DataFrame:
    """For a player count played under several rules settings (e.g. board side A and side B):
    each ``key``'s ``value`` under every setting against the first one (sorted), with the
    difference and its 95% interval. The settings' estimates are taken as independent, which
    is conservative when they were played on common deals (a sweep)."""
    if effects.is_empty():
        return pl.DataFrame()
    results = []
    for players, panel in effects.group_by("players", maintain_order=True):
        settings = sorted(set(panel["rules"].to_list()))
        if len(settings) < 2:
            continue
        reference = panel.filter(pl.col("rules") == settings[0])
        for other in settings[1:]:
            joined = reference.join(panel.filter(pl.col("rules") == other), on=key,
                                    suffix="_other")
            for row in joined.iter_rows(named=True):
                difference = row[f"{value}_other"] - row[value]
                se = float(np.hypot(row[f"{value}_se"], row[f"{value}_se_other"]))
                critical = t_critical(min(row["clusters"], row["clusters_other"]))
                results.append({"players": int(players[0]), "setting": settings[0],
                                "other_setting": other, key: row[key], "value": row[value],
                                "other_value": row[f"{value}_other"], "difference": difference,
                                "difference_low": difference - critical * se,
                                "difference_high": difference + critical * se})
    return pl.DataFrame(results)


def settings_comparison(rows: pl.LazyFrame, cards: CardColumns | None,
                        draft: DraftColumns | None, rules_parameters: tuple[str, ...],
                        margin: float = CARD_MARGIN) -> dict[str, pl.DataFrame]:
    """Card and kept-card effects under every rules setting of a dataset that holds several
    (e.g. every point of a sweep over the board side: ``sim.sweep.sweep_rows``), and each
    setting against the first: ``cards``, ``card_settings``, ``drafts``, ``draft_settings``
    (empty frames where the data have none). Settings are told apart by the rules parameters
    that vary (the ``rules`` label, as in a batch)."""
    from sim.stats.batch import rules_label

    names = rows.collect_schema().names()
    present = [name for name in rules_parameters if name in names]
    counts = rows.select([pl.col(c).n_unique() for c in present]).collect().row(0) \
        if present else ()
    varying = tuple(name for name, n in zip(present, counts, strict=True) if n > 1)
    wanted = ["game_id", "deal_id", "players", "strategy", "seat", "score", "win", *varying]
    if cards is not None and cards.cards in names:
        wanted += [cards.cards, cards.rounds, cards.offers, cards.completed, cards.points]
    if draft is not None and draft.kept in names:
        wanted += [draft.dealt, draft.kept, draft.bonus]
    frame = (rows.select(wanted).with_columns(rules_label(varying)).collect()
             .with_columns(pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64),
                           pl.col("strategy").cast(pl.String)))
    # Points of a sweep number their games alike: keep each setting's games apart.
    frame = frame.with_columns(pl.concat_str(["rules", pl.col("game_id").cast(pl.String)],
                                             separator="#").alias("game_id"))
    empty = pl.DataFrame()
    tables = {"cards": empty, "card_settings": empty, "drafts": empty,
              "draft_settings": empty}
    if cards is not None and cards.cards in frame.columns:
        tables["cards"] = card_effects(frame, cards, margin)
        tables["card_settings"] = compare_settings(tables["cards"], "score_effect")
    if draft is not None and draft.kept in frame.columns and (frame[draft.kept] > 0).any():
        tables["drafts"] = draft_effects(frame, draft, margin)
        tables["draft_settings"] = compare_settings(tables["drafts"], "score_effect")
    return tables
