"""Seat verdicts of a pool larger than the table are free of who sits where.

Synthetic batches with known truth and no seat effect: K strategies of different strength
(Plackett-Luce wins: a seat wins with probability proportional to its strategy's weight, 1, 2,
4, 8, 16; scores normal around a strategy mean) at P seats, seated by the runner's own
``game_design`` and analysed by the reports' own ``seat_tests``. With the designs balanced by
construction (``sim.seating.pool_lineups``) the verdict is "unfair" at most at the nominal rate
and the family of seat-gap intervals covers the true 0 in 95 +- 2.5% of the batches. Rotating
the whole pool (the design before) makes the raw seat comparison biased; the model holding the
lineup fixed then refuses a verdict (that design cannot tell a seat from its opponents), and
where a design can, removes the bias of an unbalanced mix.
"""

from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from sim.runner import game_design
from sim.seating import pool_lineup_count
from sim.stats.seats import METHOD_MODEL, seat_gap_family, seat_tests
from sim.stats.units import cluster_units

ROWS_STORE = SimpleNamespace(is_rows=True)
WEIGHTS = np.array([1.0, 2.0, 4.0, 8.0, 16.0])  # Plackett-Luce strength of strategy k
SCORE_MEANS = np.array([50.0, 55.0, 60.0, 65.0, 70.0])
LABELS = ("s0", "s1", "s2", "s3", "s4")
LOW, HIGH = 0.925, 0.975


def pool_rows(strategies: int, players: int, design: str, deals: int, replicates: int,
              seed: int) -> pl.DataFrame:
    """A rows-store frame of a pool of ``strategies`` at ``players`` seats seated by the
    runner's ``game_design``, with no seat effect: wins by Plackett-Luce on WEIGHTS, scores
    SCORE_MEANS + a deal effect (sd 4) + noise (sd 8)."""
    config = SimpleNamespace(replicates_per_deal=replicates, players=players, rotate=True,
                             lineup=LABELS[:strategies], pool_design=design)
    game_ids, deal_ids, _, seat_lineup = game_design(config, 0, deals * replicates)
    generator = np.random.default_rng(seed)
    weights = WEIGHTS[seat_lineup]
    chance = weights.cumsum(axis=1) / weights.sum(axis=1, keepdims=True)
    winner = (generator.random(game_ids.size)[:, None] > chance).sum(axis=1)
    win = (np.arange(players)[None, :] == winner[:, None]).astype(np.float32)
    deal_effect = generator.normal(0.0, 4.0, deals)[deal_ids]
    score = np.rint(SCORE_MEANS[seat_lineup] + deal_effect[:, None]
                    + generator.normal(0.0, 8.0, seat_lineup.shape))
    return pl.DataFrame({
        "game_id": np.repeat(game_ids, players), "deal_id": np.repeat(deal_ids, players),
        "players": np.full(seat_lineup.size, players, dtype=np.int64),
        "rules": [""] * seat_lineup.size,
        "strategy": np.array(LABELS)[seat_lineup.ravel()],
        "seat": np.tile(np.arange(players, dtype=np.int64), game_ids.size),
        "score": score.ravel().astype(np.int64), "win": win.ravel()})


def analyse(rows: pl.DataFrame, design: str) -> dict:
    """``seat_tests`` of one rows-store batch, as the report runs it."""
    lazy = rows.lazy()
    tests, gaps = seat_tests(cluster_units(ROWS_STORE, lazy), rows=lazy, design=design)
    test = tests.row(0, named=True)
    # Each family (win-rate gaps, mean-score gaps) covers the true 0 when all its pairs do.
    return {"test": test,
            "win": bool(((gaps["win_gap_low"] <= 0) & (gaps["win_gap_high"] >= 0)).all()),
            "score": bool(((gaps["score_gap_low"] <= 0) & (gaps["score_gap_high"] >= 0)).all())}


@pytest.mark.slow
@pytest.mark.parametrize("strategies, players, deals, replications", [
    (5, 4, 50, 300), (4, 3, 50, 1000)])
def test_balanced_pool_design_gives_honest_seat_verdicts(strategies, players, deals,
                                                         replications):
    """Every deal played by every lineup (replicates_per_deal = L, the config's default). The
    (5, 4) family's critical value is simulated afresh for most replications, hence fewer."""
    lineups = pool_lineup_count(strategies, players, "balanced")
    results = [analyse(pool_rows(strategies, players, "balanced", deals, lineups, seed),
                       "balanced") for seed in range(replications)]
    tests = [r["test"] for r in results]
    assert all(t["method"] == METHOD_MODEL and t["reason"] is None for t in tests)
    win = np.mean([r["win"] for r in results])
    score = np.mean([r["score"] for r in results])
    rejected = np.mean([t["p_value"] < 0.05 for t in tests])
    unfair = np.mean([t["verdict"] == "unfair" for t in tests])
    print(f"\n({strategies}, {players}) balanced: family coverage win {win:.3f}, score "
          f"{score:.3f}; equal-seats test rejects {rejected:.3f}; unfair {unfair:.3f}")
    assert LOW <= win <= HIGH and LOW <= score <= HIGH
    assert 0.025 <= rejected <= 0.075
    assert unfair <= 0.05


@pytest.mark.parametrize("strategies, players", [(5, 4), (4, 3)])
def test_whole_pool_rotation_biases_the_raw_seat_gap(strategies, players):
    """The design before pool designs: each seat is tied to its opponents, so the raw seat
    means differ with no seat effect (one large batch, so the bias is far beyond noise). The
    lineup model sees that each set of strategies sat in only two seat orders (a rotation and
    its mirror), which cannot tell a seat from whom it faces: no verdict, and it says so."""
    rows = pool_rows(strategies, players, "rotation", 12_000, 1, seed=2024)
    raw = seat_gap_family(cluster_units(ROWS_STORE, rows.lazy()))
    raw_largest = float(np.abs(raw.win.estimates).max())
    print(f"\n({strategies}, {players}) rotation, 12,000 games: largest raw win gap "
          f"{100 * raw_largest:.2f} pp")
    # The raw family of seat gaps misses the true 0: biased, and confidently so.
    assert not ((raw.win.low <= 0) & (raw.win.high >= 0)).all()
    assert raw_largest > 0.02
    test = analyse(rows, "rotation")["test"]
    assert test["verdict"] is None and test["p_value"] is None
    assert test["reason"].startswith("seat and strategy cannot be told apart")


def test_the_lineup_model_removes_the_bias_of_an_unbalanced_mix():
    """Every ordered lineup of 5 strategies at 4 seats, but the lineups with the strongest
    strategy in seat 1 played three times as often (as an unbalanced schedule would): seat 1's
    raw win rate is inflated by who sits there, and the model holding the lineup fixed
    recovers the true 0."""
    rows = pool_rows(5, 4, "every-order", 120 * 60, 1, seed=7)
    strongest_first = rows.filter((pl.col("seat") == 0) & (pl.col("strategy") == "s4"))
    extra = rows.join(strongest_first.select("game_id"), on="game_id")
    tripled = pl.concat([rows] + [
        extra.with_columns(pl.col("game_id") + shift * 10**7, pl.col("deal_id") + shift * 10**7)
        for shift in (1, 2)])
    raw = seat_gap_family(cluster_units(ROWS_STORE, tripled.lazy()))
    test, gaps = seat_tests(cluster_units(ROWS_STORE, tripled.lazy()), rows=tripled.lazy(),
                            design=None)
    test = test.row(0, named=True)
    raw_first = float(raw.win.estimates[:3].max())  # seat 1 minus seats 2, 3, 4
    print(f"\nunbalanced mix: raw seat-1 gap {100 * raw_first:.2f} pp, model "
          f"{100 * gaps['win_gap'][:3].max():.2f} pp")
    assert (raw.win.low[:3] > 0).all()  # raw: seat 1 is "favoured"
    assert test["method"] == METHOD_MODEL and test["reason"] is None
    assert ((gaps["win_gap_low"] <= 0) & (gaps["win_gap_high"] >= 0)).all()
    assert test["verdict"] != "unfair"


@pytest.mark.slow
def test_whole_pool_rotation_raw_coverage_fails():
    """Replications of the old design (5 at 4 seats, 1,200 games each): the raw family of
    seat gaps covers the true 0 far less often than 95%."""
    covered = []
    for seed in range(200):
        rows = pool_rows(5, 4, "rotation", 1200, 1, seed=seed)
        raw = seat_gap_family(cluster_units(ROWS_STORE, rows.lazy()))
        covered.append(bool(((raw.win.low <= 0) & (raw.win.high >= 0)).all()))
    coverage = float(np.mean(covered))
    print(f"\n(5, 4) rotation, raw seat means: family coverage {coverage:.3f}")
    assert coverage < LOW
