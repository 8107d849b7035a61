"""How games unfold, on hand-made score traces with hand-counted answers, and the tables built
from a small traced frame."""

import numpy as np
import polars as pl

from sim.stats.intervals import proportion_interval
from sim.stats.unfolding import (
    NO_LEADER,
    PAST_END,
    decisive_steps,
    deficit_bin,
    halfway_deficits,
    halfway_steps,
    lead_changes,
    shown_lengths,
    sole_leaders,
    unfolding_tables,
)

# Two seats. Game 0 (5 steps): seat 0 leads, a tie, seat 1 leads twice, seat 0 ends ahead.
# Game 1 (4 steps, then padding): seat 1, seat 1, seat 0, seat 1.
GAME_0 = [[1, 0], [2, 2], [2, 3], [3, 5], [9, 5]]
GAME_1 = [[0, 1], [0, 2], [3, 2], [3, 4], [3, 4]]
TRACES = np.array([GAME_0, GAME_1], dtype=float)
LENGTHS = np.array([5, 4])


def test_sole_leaders_ties_and_the_end_of_a_game():
    assert sole_leaders(TRACES, LENGTHS).tolist() == [
        [0, NO_LEADER, 1, 1, 0], [1, 1, 0, 1, PAST_END]]


def test_lead_changes_of_hand_made_traces():
    # Game 0: 0 -> (tie keeps 0) -> 1 -> 1 -> 0: two changes. Game 1: 1 -> 1 -> 0 -> 1: two.
    assert lead_changes(TRACES, LENGTHS).tolist() == [2, 2]
    # A tie at the start is no leader; the first sole leader is no change.
    opening_tie = np.array([[[3, 3, 1], [4, 2, 1], [5, 2, 1]]], dtype=float)
    assert lead_changes(opening_tie, np.array([3])).tolist() == [0]
    # Three seats taking turns at the top: 0, 1, 2, 0 -> three changes.
    rotating = np.array([[[3, 0, 0], [3, 4, 0], [3, 4, 5], [9, 4, 5]]], dtype=float)
    assert lead_changes(rotating, np.array([4])).tolist() == [3]


def test_the_step_after_which_the_winner_holds_the_lead():
    # Game 0: the winner (seat 0) is behind at step 4, ahead at 5: decided after step 5.
    # Game 1: seat 1 leads at 1-2, is behind at 3, leads at 4: decided after step 4.
    assert decisive_steps(TRACES, LENGTHS, np.array([0, 1])).tolist() == [5, 4]
    # A winner ahead from the first step decides the game after step 1; a tie at the top
    # still counts as holding the lead; a game won in a tie has no decisive step.
    wire_to_wire = np.array([[[2, 1], [2, 2], [5, 2]]], dtype=float)
    assert decisive_steps(wire_to_wire, np.array([3]), np.array([0])).tolist() == [1]
    assert decisive_steps(wire_to_wire, np.array([3]), np.array([-1])).tolist() == [-1]


def test_halfway_deficits_and_their_bins():
    assert halfway_steps(LENGTHS).tolist() == [3, 2]
    assert halfway_deficits(TRACES, LENGTHS).tolist() == [[1.0, 0.0], [2.0, 0.0]]
    assert deficit_bin(np.array([0, 1, 2, 3, 5, 6, 10, 11, 40, 41, 400])).tolist() == [
        0, 1, 1, 2, 2, 3, 3, 4, 5, 6, 6]


def _frame(traces, wins, strategies=None, deal_of_game=None):
    """A traced rows frame of two-seat games (``strategies[g]`` the seats' strategies)."""
    rows = []
    for game, (trace, win) in enumerate(zip(traces, wins, strict=True)):
        for seat in range(2):
            row = {"game_id": game,
                   "deal_id": game // 2 if deal_of_game is None else deal_of_game[game],
                   "players": 2, "rules": "", "seat": seat, "win": win[seat],
                   "rank": 1 if win[seat] else 2,
                   "score_trace": [step[seat] for step in trace]}
            if strategies is not None:
                row["strategy"] = strategies[game][seat]
            rows.append(row)
    return pl.DataFrame(rows, schema_overrides={"score_trace": pl.List(pl.Int16)})


def test_tables_from_a_traced_frame():
    # Four games of two seats on two deals; seat 0 wins games 0, 2 and 3 (no strategy column:
    # a seat's expected win rate is its seat's, 0.75 for seat 0 and 0.25 for seat 1).
    traces = [GAME_0, GAME_1[:4], GAME_0, [[1, 0], [2, 0], [3, 0]]]
    wins = [(1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 0.0)]
    tables = unfolding_tables(_frame(traces, wins))
    summary = tables["summary"].row(0, named=True)
    assert summary["games"] == 4 and summary["steps_min"] == 3 and summary["steps_max"] == 5
    assert summary["lead_changes"] == (2 + 2 + 2 + 0) / 4
    assert summary["no_lead_change"] == 0.25
    # Halfway (after step 3 of 5, 2 of 4, 2 of 3) leaders: game 0 seat 1 (loses), game 1
    # seat 1 (wins), game 2 seat 1 (loses), game 3 seat 0 (wins).
    assert summary["halfway_leader_win_rate"] == 0.5
    assert summary["halfway_leader_expected"] == (0.25 + 0.25 + 0.25 + 0.75) / 4
    assert summary["halfway_information"] == 0.5 - 0.375
    assert 0.0 <= summary["halfway_leader_win_rate_low"] <= 0.5
    assert 0.5 <= summary["halfway_leader_win_rate_high"] <= 1.0
    assert summary["decisive_step"] == (5 + 4 + 5 + 1) / 4
    lengths = tables["lengths"].sort("length")
    assert lengths["length"].to_list() == [3, 4, 5]
    assert lengths["games"].to_list() == [1, 1, 2]
    leader = tables["leader"].sort(["length", "step"])
    # One row per step before the last of each length (the last is a win by definition), and
    # a step without a sole leader in any game (length 5, step 2: a tie) has no row.
    assert list(zip(leader["length"], leader["step"], strict=True)) == [
        (3, 1), (3, 2), (4, 1), (4, 2), (4, 3), (5, 1), (5, 3), (5, 4)]
    assert (leader["step"] < leader["length"]).all()
    by_cell = {(r["length"], r["step"]): r for r in leader.iter_rows(named=True)}
    # Games of 5 steps (0 and 2, the same trace): seat 0 leads after step 1 and wins both,
    # seat 1 leads after steps 3 and 4 and loses both.
    assert by_cell[(5, 1)]["games_led"] == 2 and by_cell[(5, 1)]["length_games"] == 2
    assert by_cell[(5, 1)]["leader_win_rate"] == 1.0
    assert by_cell[(5, 1)]["expected_win_rate"] == 0.75
    assert by_cell[(5, 1)]["information"] == 0.25
    assert by_cell[(5, 3)]["leader_win_rate"] == 0.0
    assert by_cell[(5, 3)]["information"] == -0.25
    # The game of 4 steps: seat 1 leads after steps 1 and 2 and wins, seat 0 after 3.
    assert [by_cell[(4, s)]["leader_win_rate"] for s in (1, 2, 3)] == [1.0, 1.0, 0.0]
    # Rows from two or more deals have intervals inside [0, 1]; one deal gives none (NaN).
    several = leader["leader_win_rate_clusters"] >= 2
    for name in ("leader_win_rate_low", "leader_win_rate_high"):
        assert leader.filter(several)[name].is_between(0.0, 1.0).all()
        assert leader.filter(~several)[name].is_nan().all()
    changes = tables["changes"].sort("lead_changes")
    assert changes["lead_changes"].to_list() == [0, 2]
    assert changes["games"].to_list() == [1, 3]
    decided = tables["decided"].sort(["length", "step"])
    # Length 3 (decided after step 1), 4 (after 4), 5 (after 5): steps before the last only.
    assert list(zip(decided["length"], decided["step"], decided["share_decided"],
                    strict=True)) == [(3, 1, 1.0), (3, 2, 1.0), (4, 1, 0.0), (4, 2, 0.0),
                                      (4, 3, 0.0), (5, 1, 0.0), (5, 2, 0.0), (5, 3, 0.0),
                                      (5, 4, 0.0)]
    comeback = tables["comeback"]
    assert comeback["win_rate_low"].is_between(0.0, 1.0).all()
    assert comeback["win_rate_high"].is_between(0.0, 1.0).all()


def test_the_leaders_edge_is_measured_against_its_strategy_at_its_seat():
    # A strong strategy leads after steps 1 and 2 of every game of 3 steps and wins three of
    # the four (both games at seat 0, one of two at seat 1). The leader wins 75%, far above a
    # seat's 50%, but exactly what the strong strategy at those seats wins anyway: the lead
    # tells nothing more.
    traces = [[[2, 0], [4, 1], [6, 2]], [[3, 1], [5, 2], [7, 4]],
              [[0, 2], [1, 4], [2, 6]], [[0, 2], [1, 4], [9, 5]]]
    wins = [(1.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 0.0)]
    strategies = [("strong", "weak"), ("strong", "weak"), ("weak", "strong"), ("weak", "strong")]
    tables = unfolding_tables(_frame(traces, wins, strategies, deal_of_game=[0, 1, 2, 3]))
    leader = tables["leader"].sort("step")
    assert leader["step"].to_list() == [1, 2]
    assert leader["leader_win_rate"].to_list() == [0.75, 0.75]
    assert leader["expected_win_rate"].to_list() == [0.75, 0.75]
    assert leader["information"].to_list() == [0.0, 0.0]
    summary = tables["summary"].row(0, named=True)
    assert summary["halfway_leader_win_rate"] == 0.75
    assert summary["halfway_information"] == 0.0


def test_games_of_different_lengths_are_not_mixed_and_rare_lengths_are_not_shown():
    lengths = np.array([9] * 60 + [8] * 30 + [7] * 6 + [6] * 4)
    # 6 has 4% of the games (below the 5% shown), 7 has 6%.
    assert shown_lengths(lengths) == [9, 8, 7]
    assert shown_lengths(np.array([4] * 10 + [5] * 10 + [3] * 10 + [6] * 10)) == [3, 4, 5]


def test_the_rates_wilson_interval_stays_inside_zero_and_one():
    low, high = proportion_interval(np.array([0.0, 1.0, 0.01, 0.5]),
                                    np.array([0.0, 0.0, 0.02, 0.05]),
                                    np.array([50, 50, 100, 100]), np.array([50, 50, 200, 100]))
    assert low[0] == 0.0 and 0.0 < high[0] < 0.15
    assert 0.85 < low[1] < 1.0 and high[1] == 1.0
    assert 0.0 <= low[2] < 0.01 < high[2] < 1.0
    # Far from the edges the Wilson interval is close to the t interval p +- t se.
    assert abs((high[3] - low[3]) / 2 - 1.984 * 0.05) < 0.003


def test_the_rates_wilson_interval_covers_a_rate_near_zero():
    # 2,000 seeded batches of 40 clusters of 25 correlated games (a cluster's rate varies
    # around 2%): the interval from the clustered standard error covers the true 2% in about
    # 95% of them and never leaves [0, 1].
    from sim.stats.clustered import ratio_means

    generator = np.random.default_rng(7)
    truth, batches, clusters, size = 0.02, 2000, 40, 25
    cluster_rates = generator.beta(2.0, 98.0, (batches, clusters))
    wins = generator.binomial(size, cluster_rates).astype(float)
    covered = 0
    lows, highs = [], []
    for batch in range(batches):
        means = ratio_means(wins[batch][:, None], np.full((clusters, 1), float(size)))
        low, high = proportion_interval(means.means, means.standard_errors,
                                        np.array([clusters]), np.array([clusters * size]))
        lows.append(low[0])
        highs.append(high[0])
        covered += low[0] <= truth <= high[0]
    assert min(lows) >= 0.0 and max(highs) <= 1.0
    assert 0.925 <= covered / batches <= 0.975, covered / batches
