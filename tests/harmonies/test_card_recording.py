"""The cards, cubes and spirits a batch records are those of the game as replayed turn by turn
by the driver (``sim play``'s log), and the score trace ends on the final score."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from sim.games.base import StrategySpec
from sim.games.harmonies.data import SIDE_NAMES
from sim.games.registry import get_game
from sim.loops.harmonies.driver import play_recorded_game

GAME = get_game("harmonies")


def _shard(players: int, rules: dict, names: list[str], games: int, trace: bool = False):
    data = GAME.load_data(None)
    lineup = [StrategySpec(name) for name in names]
    seats = np.array([[(g + s) % len(lineup) for s in range(players)] for g in range(games)])
    deals = np.arange(games, dtype=np.uint64) + np.uint64(11)
    strategy_seeds = deals * np.uint64(7) + np.uint64(3)
    columns = GAME.play_shard(data, players, rules, lineup, seats, deals, strategy_seeds,
                              trace=trace)
    return data, lineup, seats, deals, strategy_seeds, columns


@pytest.mark.parametrize("players,side,spirits,names", [
    (4, 0, 1, ["greedy", "animals", "random"]),
    (2, 1, 0, ["planner", "greedy"]),
    (1, 0, 1, ["animals"]),
])
def test_recorded_cards_cubes_and_spirits_equal_a_replay_of_the_game(players, side, spirits,
                                                                     names):
    rules = {"side": side, "mountain_points": 0, "spirits": spirits}
    data, lineup, seats, deals, strategy_seeds, columns = _shard(players, rules, names, 3)
    tables = GAME.tables(data, players, rules)
    ids, rows, _ = GAME._policy_ids(lineup)
    positions = data.sides[SIDE_NAMES[side]].hexes
    for game in range(len(deals)):
        dealt = []
        replay = play_recorded_game(
            tables, positions, ids[seats[game]], int(deals[game]), int(strategy_seeds[game]),
            rows[seats[game]],
            after_deal=lambda public, hidden, dealt=dealt: dealt.append(
                hidden.spirit_offers.copy()))
        cards = {card.id: card for card in (*data.animals, *data.spirits)}
        for seat in range(players):
            row = game * players + seat
            turns = [turn for turn in replay.turns if turn.seat == seat]
            taken = [turn for turn in turns if turn.card is not None]
            assert columns["cards_taken"][row].to_list() == [turn.card for turn in taken]
            assert columns["card_rounds"][row].to_list() == [turn.round for turn in taken]
            assert columns["card_offers"][row].to_list() == [turn.offered for turn in taken]
            for turn in taken:
                assert turn.card in turn.offered
            cubes = Counter(card for turn in turns for card, _ in turn.cubes)
            placed = [cubes[turn.card] for turn in taken]
            assert columns["card_cubes"][row].to_list() == placed
            assert columns["card_completed"][row].to_list() == [
                count == len(cards[turn.card].points) for count, turn in zip(placed, taken,
                                                                           strict=True)]
            assert columns["card_points"][row].to_list() == [
                cards[turn.card].points[count - 1] if count else 0
                for count, turn in zip(placed, taken, strict=True)]
            assert sum(placed) == columns["cubes_placed"][row]
            assert sum(columns["card_completed"][row].to_list()) == \
                columns["cards_completed"][row]
            assert sum(columns["card_points"][row].to_list()) == columns["points_animals"][row]
            kept = [turn.spirit for turn in turns if turn.spirit is not None]
            offered = [int(tables.card_ids[c]) for c in dealt[0][seat] if c >= 0]
            assert columns["spirit_kept"][row] == (kept[0] if kept else 0)
            assert columns["spirits_dealt"][row].tolist() == (offered if spirits else [0, 0])
            if spirits:
                assert kept[0] in offered


def test_score_trace_ends_on_the_final_score_and_changes_nothing_else():
    rules = {"side": 0, "mountain_points": 0, "spirits": 1}
    for players, names in ((4, ["greedy", "random"]), (3, ["landscape", "greedy", "random"]),
                           (1, ["greedy"])):
        *_, plain = _shard(players, rules, names, 5)
        *_, traced = _shard(players, rules, names, 5, trace=True)
        assert set(traced) == set(plain) | {"score_trace"}
        for column, values in plain.items():
            other = traced[column]
            assert (values.equals(other) if hasattr(values, "equals")
                    else np.array_equal(values, other)), column
        traces = traced["score_trace"].to_list()
        assert [len(trace) for trace in traces] == traced["turns"].tolist()
        assert [trace[-1] for trace in traces] == traced["score"].tolist()


@pytest.mark.parametrize("players", [4, 1])
def test_opening_row_is_the_deal_s_and_the_row_seat_one_first_chose_from(players):
    # A few hundred games: the recorded opening row is the row the first seat chose from when it
    # took a card on its first turn, the same for two games of one deal whatever the strategies,
    # and a function of the deal alone (5 cards; 3 solo).
    rules = {"side": 0, "mountain_points": 0, "spirits": 1}
    names = ["greedy", "planner", "animals", "random"][:max(players, 2)]
    games = 300 if players > 1 else 100
    data, _, _, deals, _, columns = _shard(players, rules, names, games)
    tables = GAME.tables(data, players, rules)
    opening = columns["card_opening_row"].to_list()
    assert len(opening) == games * players
    first_turn_takes = 0
    for game in range(games):
        rows = opening[game * players:(game + 1) * players]
        assert all(row == rows[0] for row in rows)
        assert len(rows[0]) == tables.card_row == (3 if players == 1 else 5)
        assert len(set(rows[0])) == len(rows[0])
        seat_one = game * players
        rounds = columns["card_rounds"][seat_one].to_list()
        if rounds and rounds[0] == 0:
            first_turn_takes += 1
            assert columns["card_offers"][seat_one][0].to_list() == rows[0]
    assert first_turn_takes >= games // 10
    # The same deals with other strategies: the same opening rows.
    *_, others = _shard(players, rules, list(reversed(names)), games)
    assert others["card_opening_row"].to_list() == opening
    assert len({tuple(row) for row in opening}) > games // 2
