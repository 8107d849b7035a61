"""How much skill matters, on a synthetic batch with known strategy, seat and deal effects: the
ladder orders the strategies by their planted strength, and the variance split recovers each
component's true share inside its interval."""

import numpy as np
import polars as pl

from sim.games.legendary_forests.synthetic import ForestDeals
from sim.stats.skill import ladder, read_skill_rows, variance_split
from sim.stats.synthetic import SyntheticDesign, generate_rows

DESIGN = SyntheticDesign(deals=1500, replicates=2, lineup=("a", "b", "c", "d"),
                         rotate_lineup=True, deal_sd=4.0, noise_sd=8.0,
                         strategy_points={"a": 3.0, "b": 1.0, "c": 0.0, "d": -2.0},
                         seat_points=(2.0, 1.0, 0.0, 0.0), seed=3, deal_model=ForestDeals())


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
    table = variance_split(rows)
    split = {r["component"]: r for r in table.filter(pl.col("field") == "this field")
             .iter_rows(named=True)}
    for component, truth in (("strategy", strategy), ("seat", seat), ("deal", deal),
                             ("rest", rest)):
        row = split[component]
        assert row["share_low"] <= truth / total <= row["share_high"], component
    assert abs(sum(r["share"] for r in split.values()) - 1.0) < 1e-9
    # The strongest strategy's own player-games: no strategy share, and the seat, the deal and
    # the rest of its own score's variance.
    own = {r["component"]: r for r in table.filter(pl.col("field") == "strongest")
           .iter_rows(named=True)}
    assert set(own) == {"seat", "deal", "rest"}
    assert {r["field_strategy"] for r in own.values()} == {"a"}
    assert own["seat"]["player_games"] == DESIGN.deals * DESIGN.replicates
    own_total = seat + deal + rest
    for component, truth in (("seat", seat), ("deal", deal), ("rest", rest)):
        row = own[component]
        assert row["share_low"] <= truth / own_total <= row["share_high"], component
    assert (table["share_low"] >= 0).all() and (table["share_high"] <= 1).all()


def _two_player_games(outcomes):
    """A frame of 2-player games from (score_a, score_b, rank_a, rank_b) per game, each deal
    played twice with the seats swapped (so neither strategy owns a seat)."""
    rows = []
    game = 0
    for deal, (score_a, score_b, rank_a, rank_b) in enumerate(outcomes):
        for swap in (False, True):
            seats = (("b", score_b, rank_b), ("a", score_a, rank_a)) if swap else (
                ("a", score_a, rank_a), ("b", score_b, rank_b))
            for seat, (strategy, score, rank) in enumerate(seats):
                rows.append({"game_id": game, "deal_id": deal, "players": 2, "rules": "",
                             "strategy": strategy, "seat": seat, "score": score, "rank": rank,
                             "win": 1.0 / sum(r == 1 for _, _, r in seats) if rank == 1
                             else 0.0})
            game += 1
    return read_skill_rows(pl.DataFrame(rows).lazy())


def _elo(share_a: float) -> float:
    """Strategy a's Elo rating (mean 0 over a and b) when it finishes ahead of b in ``share_a``
    of their comparisons (Bradley-Terry on two strategies)."""
    return 200.0 * np.log10(share_a / (1.0 - share_a))


def test_the_ladder_rates_by_the_games_ranks_not_the_scores():
    # Deals cycling through four outcomes: a outscores b once; three times they tie on points
    # and the game's tie-break ranks b first. By points a is ahead in 1 + 3/2 of 4 comparisons
    # (a rated above b); by the game's ranks only in 1 of 4 (b above a).
    outcomes = [(60, 50, 1, 2), (55, 55, 2, 1), (48, 48, 2, 1), (70, 70, 2, 1)] * 40
    table = {r["strategy"]: r for r in ladder(_two_player_games(outcomes)).iter_rows(named=True)}
    by_rank, by_score = _elo(0.25), _elo(2.5 / 4)
    assert abs(table["a"]["rating"] - by_rank) < 0.5
    assert abs(table["b"]["rating"] + by_rank) < 0.5
    assert table["a"]["place"] == 1 and table["b"]["place"] == 2
    # The old rating by points lies outside the interval of the rating by rank.
    assert not table["a"]["rating_low"] <= by_score <= table["a"]["rating_high"]
    # Means and win rates are unchanged: the scores' mean, the game's win shares.
    assert table["a"]["mean"] == np.mean([o[0] for o in outcomes])
    assert table["a"]["win_rate"] == 0.25


def test_a_tie_the_game_leaves_tied_counts_half():
    # Half the deals a wins outright; half the game leaves a shared first place: a is ahead in
    # 1/2 + 1/4 of the comparisons.
    outcomes = [(60, 50, 1, 2), (55, 55, 1, 1)] * 40
    table = {r["strategy"]: r for r in ladder(_two_player_games(outcomes)).iter_rows(named=True)}
    assert abs(table["a"]["rating"] - _elo(0.75)) < 0.5
