"""Whole games: determinism, invariants of random and greedy play, compiled scores against the
reference scorer, end of game and ranking."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sim.errors import InputError
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.position import board_from_state, parse_board, score_board
from sim.games.harmonies.scoring import CATEGORY_NAMES
from sim.games.harmonies.state import DRAW_BAG
from sim.games.harmonies.tables import build_tables
from sim.loops.harmonies.loop import play_game, play_games


def check_finished_game(game, tables, data, rules):
    """Every invariant of a finished game, checked from Python (independently of the
    engine's own audit)."""
    public, hidden, results = game.public, game.hidden, game.results
    players = tables.players
    # Tokens: bag + boards + central board + box = the bag file, colour by colour.
    remaining = hidden.bag_order[hidden.draw_positions[DRAW_BAG]:]
    counted = np.bincount(remaining, minlength=6).astype(int)
    assert counted.tolist() == public.bag_counts.tolist()
    for player in range(players):
        for index in range(tables.hex_count):
            for level in range(public.heights[player, index]):
                counted[public.stacks[player, index, level]] += 1
    for space in range(tables.central_spaces):
        for slot in range(public.central_count[space]):
            counted[public.central[space, slot]] += 1
    counted += public.box_counts
    assert counted.tolist() == data.bag.tolist()
    # Cards: no card twice; never more than the limit of uncompleted cards.
    seen = [c for c in public.card_row if c >= 0]
    for player in range(players):
        held = public.held_cards[player, : public.held_count[player]]
        seen.extend(held.tolist())
        uncompleted = sum(public.cubes_placed[player, slot] < tables.card_cube_count[card]
                          for slot, card in enumerate(held))
        assert uncompleted <= tables.card_limit
    assert len(seen) == len(set(seen))
    # The end: everyone played as many turns; a trigger really fired.
    turns = public.turns_played.tolist()
    assert len(set(turns)) == 1 and turns == results.turns[0].tolist()
    bag_left = len(remaining)
    few_empty = [(public.heights[p] == 0).sum() <= 2 for p in range(players)]
    assert bag_left < tables.tokens_per_space or any(few_empty)
    # Boards are legal (the board loader checks stacks, cubes on tokens, placed counts) and the
    # compiled scores equal the reference scorer's.
    for player in range(players):
        board = board_from_state(public, tables, data, player, rules.side)
        parse_board(board.to_json(), f"seat {player}", data)
        reference = score_board(board, data, rules)
        compiled = dict(zip(CATEGORY_NAMES, results.category_points[0, player].tolist(),
                            strict=True))
        compiled["total"] = int(results.total[0, player])
        assert compiled == reference, f"seat {player}"
    # Ranking: points, then animal cubes; ties share.
    totals, cubes = results.total[0], results.cubes_placed[0]
    for player in range(players):
        ahead = sum((totals[o], cubes[o]) > (totals[player], cubes[player])
                    for o in range(players))
        assert results.rank[0, player] == ahead + 1
    assert results.win[0].sum() == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(1, 4), side=st.sampled_from(["A", "B"]), spirits=st.booleans(),
       policies=st.lists(st.sampled_from(["random", "greedy"]), min_size=4, max_size=4),
       deal_seed=st.integers(0, 2**63 - 1), strategy_seed=st.integers(0, 2**63 - 1))
def test_random_and_greedy_play_keep_every_invariant(data, players, side, spirits, policies,
                                                     deal_seed, strategy_seed):
    rules = HarmoniesRules(players=players, side=side, spirits=spirits)
    tables = build_tables(data, rules)
    game = play_game(tables, policies[:players], deal_seed, strategy_seed, audit=True)
    check_finished_game(game, tables, data, rules)


def test_seeded_plays_are_identical(tables_a):
    deal_seeds, strategy_seeds = np.arange(30), np.arange(30) + 1000
    lineup = ["greedy", "random", "greedy", "random"]
    first = play_games(tables_a, lineup, deal_seeds, strategy_seeds)
    second = play_games(tables_a, lineup, deal_seeds, strategy_seeds)
    for name in ("category_points", "total", "rank", "win", "cubes_placed", "turns"):
        assert np.array_equal(getattr(first, name), getattr(second, name)), name
    one = play_game(tables_a, lineup, 7, 1007)
    again = play_game(tables_a, lineup, 7, 1007)
    assert np.array_equal(one.public.stacks, again.public.stacks)
    assert np.array_equal(one.results.total[0], first.total[7])
    other_strategy = play_games(tables_a, lineup, deal_seeds, strategy_seeds + 1)
    assert not np.array_equal(first.total, other_strategy.total)


def test_the_deal_does_not_depend_on_the_strategy_seed(tables_a):
    one = play_game(tables_a, ["random"] * 4, 5, 1)
    two = play_game(tables_a, ["random"] * 4, 5, 2)
    assert np.array_equal(one.hidden.bag_order, two.hidden.bag_order)
    assert np.array_equal(one.hidden.deck_order, two.hidden.deck_order)


def test_greedy_outscores_random(tables_a):
    seeds = np.arange(40)
    results = play_games(tables_a, ["greedy", "random", "greedy", "random"], seeds, seeds)
    greedy = results.total[:, [0, 2]].mean()
    random = results.total[:, [1, 3]].mean()
    assert greedy > random + 10
    assert results.win[:, [0, 2]].sum() > results.win[:, [1, 3]].sum()


def test_results_add_up(tables_b):
    results = play_games(tables_b, ["random", "greedy", "random", "greedy"], np.arange(20),
                         np.arange(20))
    assert np.array_equal(results.category_points.sum(axis=2), results.total)
    assert np.allclose(results.win.sum(axis=1), 1.0)
    assert (results.turns > 0).all()


def test_bad_lineups_and_seeds(tables_a):
    with pytest.raises(InputError, match="3 policies for 4 players"):
        play_games(tables_a, ["random"] * 3, [1], [1])
    with pytest.raises(InputError, match="unknown policy 'clever'"):
        play_games(tables_a, ["clever"] * 4, [1], [1])
    with pytest.raises(InputError, match="as many seeds"):
        play_games(tables_a, ["random"] * 4, [1, 2], [1])
