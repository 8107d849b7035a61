"""How much skill matters, on a synthetic batch with known strategy, seat and deal effects: the
ladder orders the strategies by their planted strength, and the variance split recovers each
component's true share inside its interval."""

import numpy as np
import polars as pl

from sim.stats.skill import ladder, read_skill_rows, variance_split
from sim.stats.synthetic import SyntheticDesign, generate_rows

DESIGN = SyntheticDesign(deals=1500, replicates=2, lineup=("a", "b", "c", "d"),
                         rotate_lineup=True, deal_sd=4.0, noise_sd=8.0,
                         strategy_points={"a": 3.0, "b": 1.0, "c": 0.0, "d": -2.0},
                         seat_points=(2.0, 1.0, 0.0, 0.0), seed=3)


def frame():
    return read_skill_rows(generate_rows(DESIGN).with_columns(rules=pl.lit("")).lazy())


def test_ladder_and_variance_split_recover_the_planted_design():
    rows = frame()
    table = ladder(rows).sort("place")
    assert table["strategy"].to_list() == ["d", "c", "b", "a"]
    assert (table["rating_low"] <= table["rating"]).all()
    assert (table["rating"] <= table["rating_high"]).all()
    for strategy, points in DESIGN.strategy_points.items():
        row = table.filter(pl.col("strategy") == strategy).row(0, named=True)
        expected = 60.0 + points + np.mean(DESIGN.seat_points)
        assert row["mean_low"] <= expected <= row["mean_high"], strategy

    strategy = np.var(list(DESIGN.strategy_points.values()))
    seat = np.var(DESIGN.seat_points)
    deal = DESIGN.deal_sd ** 2
    rest = DESIGN.noise_sd ** 2 + 1.0 / 12.0  # rounding to whole points
    total = strategy + seat + deal + rest
    split = {r["component"]: r for r in variance_split(rows).iter_rows(named=True)}
    for component, truth in (("strategy", strategy), ("seat", seat), ("deal", deal),
                             ("rest", rest)):
        row = split[component]
        assert row["share_low"] <= truth / total <= row["share_high"], component
    assert abs(sum(r["share"] for r in split.values()) - 1.0) < 1e-9
