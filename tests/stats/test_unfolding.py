"""How games unfold, on hand-made score traces with hand-counted answers, and the tables built
from a small traced frame."""

import numpy as np
import polars as pl

from sim.stats.unfolding import (
    NO_LEADER,
    PAST_END,
    decisive_steps,
    deficit_bin,
    halfway_deficits,
    halfway_steps,
    lead_changes,
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


def test_tables_from_a_traced_frame():
    # Four games of two seats on two deals; seat 0 wins games 0, 2 and 3.
    traces = [GAME_0, GAME_1[:4], GAME_0, [[1, 0], [2, 0], [3, 0]]]
    wins = [(1.0, 0.0), (0.0, 1.0), (1.0, 0.0), (1.0, 0.0)]
    rows = []
    for game, (trace, win) in enumerate(zip(traces, wins, strict=True)):
        for seat in range(2):
            rows.append({"game_id": game, "deal_id": game // 2, "players": 2, "rules": "",
                         "seat": seat, "win": win[seat], "rank": 1 if win[seat] else 2,
                         "score_trace": [step[seat] for step in trace]})
    frame = pl.DataFrame(rows, schema_overrides={"score_trace": pl.List(pl.Int16)})
    tables = unfolding_tables(frame)
    summary = tables["summary"].row(0, named=True)
    assert summary["games"] == 4 and summary["steps_min"] == 3 and summary["steps_max"] == 5
    assert summary["lead_changes"] == (2 + 2 + 2 + 0) / 4
    assert summary["no_lead_change"] == 0.25
    # Halfway leaders: game 0 seat 1 (loses), game 1 seat 1 (wins), game 2 seat 1 (loses),
    # game 3 seat 0 (wins).
    assert summary["halfway_leader_win_rate"] == 0.5
    assert summary["decisive_step"] == (5 + 4 + 5 + 1) / 4
    leader = tables["leader"].sort("step")
    assert leader["games_played"].to_list() == [4, 4, 4, 3, 2]
    assert leader["games_led"].to_list() == [4, 2, 4, 3, 2]
    # Step 1: seats 0, 1, 0, 0 lead and all win; step 3: seats 1, 0, 1, 0 lead, only game 3's
    # leader wins.
    assert leader["leader_win_rate"].to_list()[:3] == [1.0, 1.0, 0.25]
    changes = tables["changes"].sort("lead_changes")
    assert changes["lead_changes"].to_list() == [0, 2]
    assert changes["games"].to_list() == [1, 3]
    decided = tables["decided"].sort("step")
    assert decided["share_decided"].to_list() == [0.25, 0.25, 0.25, 0.5, 1.0]
