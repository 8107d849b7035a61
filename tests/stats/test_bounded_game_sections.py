"""The card effects in bounded memory (issue 39): ``card_effects`` read in chunks of whole deals
gives the numbers of the computation over every row at once (kept here as it was: per-row
design matrices, statsmodels for the holder association), a deal whose rows fall in two chunks
still being one cluster, and it never collects a per-row frame."""

import numpy as np
import polars as pl
import pytest

from sim.games.base import CardColumns
from sim.stats import cards as cards_module
from sim.stats.cards import (
    _ORDER,
    CARD_MARGIN,
    CARD_SCHEMA,
    EFFECT_METHOD,
    HOLDER_METHOD,
    MIN_TAKES,
    NO_OPENING,
    OUTCOMES,
    _dummies,
    _membership,
    _randomised_records,
    _subsets,
    _verdict,
    card_effects,
)
from sim.stats.clustered import t_critical
from sim.stats.synthetic_cards import HoldingDesign, generate_holding_rows
from tests.stats.test_cards import CARDS, DRAFT

PANEL = ["players", "rules"]
# Replayed deals (two rows of games per deal), two strategies, a planted card effect.
DESIGN = HoldingDesign(deals=60, replicates=2, seed=5)


# --- the computation before it read in chunks (sim/stats/cards.py before issue 39's M3) ---------

def old_card_effects(frame: pl.DataFrame, cards: CardColumns, margin: float = CARD_MARGIN,
                 confidence: float = 0.95, outcomes: tuple[str, ...] = OUTCOMES,
                 subsets: bool = True) -> pl.DataFrame:
    """Per (players, rules, card), pooled over strategies (``strategy`` and ``seat`` null): the
    opening-row effect (ITT) on score and win share, the first stage, the effect per card held
    (Fieller interval) and the verdict against ``margin`` points, beside the holder association
    (``holder_*``, a description). Rows with ``seat`` 1: seat 1's estimates alone; rows with a
    ``strategy``: that strategy's (no verdict). See the module docstring for the models.
    ``outcomes`` may leave out ``win`` (its columns are then null); ``subsets`` False leaves
    out seat 1's and the strategies' rows."""
    results = []
    for (players, rules), panel in frame.sort("game_id", "seat").group_by(PANEL,
                                                                        maintain_order=True):
        for row in _panel_card_effects(panel, cards, margin, confidence, outcomes, subsets):
            results.append({"players": int(players), "rules": rules, **row})
    return pl.DataFrame(results, schema=CARD_SCHEMA).sort(_ORDER, nulls_last=False)


def _panel_card_effects(panel: pl.DataFrame, cards: CardColumns, margin: float,
                        confidence: float, outcomes: tuple[str, ...],
                        subsets: bool) -> list[dict]:
    holders = _panel_holder_association(panel, cards, confidence, outcomes)
    if not cards.opening or cards.opening not in panel.columns:
        return [{"card": card, **values, "verdict": None, "verdict_reason": NO_OPENING,
                 "margin": margin, "method": HOLDER_METHOD}
                for card, values in sorted(holders.items())]
    panel = panel.with_row_index("_row")
    ids = np.unique(panel[cards.opening].explode().drop_nulls().to_numpy().astype(np.int64))
    if ids.size < 2:
        return []
    shown = _membership(panel[cards.opening], ids)
    held = _membership(panel[cards.cards], ids)
    records = []
    for strategy, seat, subset, controls in _subsets(panel, panel["players"][0] > 1, subsets):
        rows = subset["_row"].to_numpy()
        present = shown[rows].sum(axis=0) > 0
        found = _randomised_records(subset, shown[np.ix_(rows, present)], ids[present],
                                    held[np.ix_(rows, present)], controls, False, outcomes,
                                    confidence)
        method = EFFECT_METHOD.format(cards=int(present.sum()))
        for record in found:
            record.update({"strategy": strategy, "seat": seat, "margin": margin,
                           "method": method})
            if strategy is None and seat is None:
                record.update(holders.get(record["card"], {}))
                record["verdict"], record["verdict_reason"] = _verdict(
                    record, margin, "the opening row barely changes who holds it")
        records += found
    return records


def _fit(outcome: np.ndarray, design: np.ndarray, clusters: np.ndarray):
    """OLS with a cluster-robust covariance (statsmodels): (coefficients, covariance)."""
    import statsmodels.api as sm

    fit = sm.OLS(outcome, design).fit(method="pinv", cov_type="cluster",
                                      cov_kwds={"groups": clusters})
    return np.asarray(fit.params), np.asarray(fit.cov_params())


def _panel_holder_association(panel: pl.DataFrame, cards: CardColumns, confidence: float,
                              outcomes: tuple[str, ...]) -> dict[int, dict]:
    """Per card: how much more its holders score (and win), the other cards held, the round
    each was taken, seat and strategy held fixed. An association, not an effect: who holds a
    card follows how well the game goes."""
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
        return {}
    column_of = {card: k for k, card in enumerate(modelled)}
    held = np.zeros((rows, len(modelled)))
    keep = np.isin(card_ids, modelled)
    held[row_index[keep], [column_of[c] for c in card_ids[keep]]] = 1.0
    offset = np.zeros(rows)
    np.add.at(offset, row_index[keep], rounds[keep] - rounds[keep].mean())
    design = np.column_stack([np.ones(rows), held, offset,
                              _dummies(panel["seat"].to_numpy()),
                              _dummies(panel["strategy"].to_numpy())])
    critical = t_critical(clusters, confidence)
    size = len(modelled)
    result = {card: {"holders": int(held[:, k].sum()), "clusters": clusters}
              for k, card in enumerate(modelled)}
    for name in outcomes:
        params, covariance = _fit(panel[name].to_numpy().astype(float), design, deals)
        se = np.sqrt(np.maximum(np.diag(covariance)[1:1 + size], 0.0))
        for k, card in enumerate(modelled):
            beta = float(params[1 + k])
            result[card].update({
                f"holder_{name}": beta, f"holder_{name}_se": float(se[k]),
                f"holder_{name}_low": beta - critical * float(se[k]),
                f"holder_{name}_high": beta + critical * float(se[k])})
            if name == "score":
                result[card]["round_slope"] = float(params[1 + size])
    return result


# --- the tests -----------------------------------------------------------------------------------

def _rows(design: HoldingDesign) -> pl.DataFrame:
    return generate_holding_rows(design, CARDS, DRAFT).with_columns(
        pl.col("players").cast(pl.Int64), pl.col("seat").cast(pl.Int64), rules=pl.lit(""))


def _assert_close(new: pl.DataFrame, old: pl.DataFrame, relative: float = 1e-9) -> None:
    """Equal but for float rounding: the holder association came from statsmodels' pseudo-inverse
    of the design and now comes from the exact sums of products (normal equations), and the
    pooled win effect, exactly 0 (a table's win shares sum to 1 and its opening row is shared),
    was float noise of ~1e-12 before and ~1e-16 now; so floats are compared to the column's
    largest value."""
    assert new.columns == old.columns and new.height == old.height
    for name in old.columns:
        if old.schema[name] == pl.Float64:
            left, right = new[name].to_numpy(), old[name].to_numpy()
            assert np.array_equal(np.isfinite(left), np.isfinite(right)), name
            finite = np.isfinite(right)
            scale = max(float(np.abs(right[finite]).max(initial=0.0)), 1e-300)
            assert np.abs(left[finite] - right[finite]).max(initial=0.0) <= relative * scale, name
        else:
            assert new[name].equals(old[name]), name


@pytest.mark.parametrize("chunk_rows", [1 << 18, 37], ids=["one-chunk", "deals-split"])
def test_chunked_card_effects_equal_the_computation_over_every_row(monkeypatch, chunk_rows):
    frame = _rows(DESIGN)
    # 37 rows: the raw chunks cut deals (8 rows each) apart, which must be put back together.
    monkeypatch.setattr(cards_module, "_CARD_CHUNK_ROWS", chunk_rows)
    new = card_effects(frame.lazy(), CARDS)
    old = old_card_effects(frame, CARDS)
    assert new.height > 0 and not new["holder_score"].is_null().all()
    _assert_close(new, old)
    _assert_close(card_effects(frame, CARDS, outcomes=("score",), subsets=False),
                  old_card_effects(frame, CARDS, outcomes=("score",), subsets=False))


def test_card_effects_without_an_opening_row_give_the_holder_association_alone():
    frame = _rows(DESIGN).drop(CARDS.opening)
    _assert_close(card_effects(frame.lazy(), CARDS), old_card_effects(frame, CARDS))


def test_card_effects_never_collect_a_per_row_frame(monkeypatch):
    frame = _rows(DESIGN)
    expected = card_effects(frame.lazy(), CARDS)
    largest = []
    original = cards_module.summarise_whole_deals

    def watched(rows, columns, summarise, chunk_rows=None):
        def counted(chunk):
            largest.append(chunk.height)
            return summarise(chunk)
        return original(rows, columns, counted, chunk_rows)

    def refuse(self, *args, **kwargs):
        raise AssertionError("card_effects collected a whole frame")

    monkeypatch.setattr(cards_module, "summarise_whole_deals", watched)
    monkeypatch.setattr(cards_module, "_CARD_CHUNK_ROWS", 64)
    monkeypatch.setattr(pl.LazyFrame, "collect", refuse)
    found = card_effects(frame.lazy(), CARDS)
    monkeypatch.undo()
    _assert_close(found, expected)
    # Chunks of about 64 rows plus the rest of a deal (8 rows), never the whole frame.
    assert largest and max(largest) < 64 + 8 < frame.height
