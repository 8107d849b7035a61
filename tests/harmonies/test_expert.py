"""The ``expert`` strategy's own rules, on hand-made positions with hand-computed answers: the
game clock (how much this board sets the end), the value of a held card's next cube, the space
charge on an empty hex, the spirit it keeps; and that it plays deterministically and not as the
planner does. (Legal play and public information only: ``test_strategies`` and the game
contract tests, which cover every built-in.)"""

from __future__ import annotations

import numpy as np
import pytest

from sim.games.harmonies.colours import BLUE, BROWN, GREEN
from sim.games.harmonies.gains import invalidate, prepare_local_view, refresh
from sim.games.harmonies.options import HarmoniesRules
from sim.games.harmonies.state import new_state
from sim.games.harmonies.tables import build_tables
from sim.games.harmonies.turn import add_card
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy
from strategies.harmonies.common import new_workspace
from strategies.harmonies.expert import (
    SPIRIT_PREFERENCE,
    best_offer_worth,
    clock_share,
    dynamic_cards_worth,
    empty_hexes_in_plan,
    expert_choose_spirit,
    expert_choose_targets,
    expert_offer_worth,
    expert_target_value,
    expert_token_value,
    note_hex_potentials,
    retarget_change,
)
from strategies.harmonies.ids import SLOT_CARDS, SLOT_COST, SLOT_RETARGET
from strategies.harmonies.valued import cards_worth

GAME = get_game("harmonies")


@pytest.fixture(scope="module")
def tables_2a(data):
    return build_tables(data, HarmoniesRules(players=2, side="A", spirits=True))


def card_index(tables, card_id: int) -> int:
    return int(np.nonzero(tables.card_ids == card_id)[0][0])


def fill(public, player: int, hexes: int, colour: int = BROWN) -> None:
    """Put one ``colour`` token on the first ``hexes`` hexes of ``player``'s board."""
    public.heights[player, :hexes] = 1
    public.stacks[player, :hexes, 0] = colour


@pytest.mark.parametrize("own_filled,own_turns,other_filled,other_turns,bag,share", [
    # side A: 23 hexes, the end at 2 empty. Turns left = (empty - 2) / (filled / turns played)
    (12, 4, 8, 4, 100, 1.0),  # own (11 - 2) / 3 = 3 turns, the other 13 / 2 = 6.5: own ends it
    (9, 3, 12, 4, 100, 0.5),  # own 12 / 3 = 4, the other 9 / 3 = 3: one turn nearer, half
    (8, 4, 12, 4, 100, 0.0),  # own 6.5, the other 3: two turns or more nearer, no charge
    (9, 3, 4, 2, 21, 0.75),   # own 4, the other 8.5, the bag 21 / 6 = 3.5: 1 - 0.5 / 2
    (0, 0, 0, 0, 100, 1.0),   # before anyone played: both at 2 a turn, 10.5 each
    (18, 6, 8, 4, 100, 0.0),  # own 3 / 3 = 1 turn left: the end is here, no charge
])
def test_clock_share_is_how_much_this_board_sets_the_end(tables_2a, own_filled, own_turns,
                                                         other_filled, other_turns, bag, share):
    public, _ = new_state(tables_2a)
    fill(public, 0, own_filled)
    fill(public, 1, other_filled)
    public.turns_played[:] = (own_turns, other_turns)
    public.bag_counts[:] = 0
    public.bag_counts[0] = bag  # 6 tokens a round at 2 players
    assert clock_share(tables_2a, public, 0, 2.0) == pytest.approx(share)


def test_next_cube_value_blends_the_next_step_with_the_rest_of_the_track(tables_2a):
    public, _ = new_state(tables_2a)
    scratch = new_workspace(tables_2a).scratch
    frog = card_index(tables_2a, 5)  # 2 4 6 10 15
    add_card(public, 0, frog)
    public.cubes_placed[0, 0] = 1
    # next cube: 4 - 2 = 2 points; the rest of the track: (15 - 2) / 4 cubes = 3.25 a cube
    assert expert_target_value(tables_2a, public, 0, 0, scratch, 0.0, 6.0) == pytest.approx(2.0)
    assert expert_target_value(tables_2a, public, 0, 0, scratch, 1.0, 6.0) == pytest.approx(3.25)
    assert expert_target_value(tables_2a, public, 0, 0, scratch, 0.5, 6.0) == pytest.approx(2.625)


def test_a_held_spirit_cube_is_worth_its_bonus_now_or_the_floor(tables_2a):
    public, _ = new_state(tables_2a)
    scratch = new_workspace(tables_2a).scratch
    add_card(public, 0, card_index(tables_2a, 42))  # 2 points per blue token
    fill(public, 0, 3, BLUE)  # bonus now 3 x 2 = 6
    assert expert_target_value(tables_2a, public, 0, 0, scratch, 0.0, 10.0) == 10.0
    assert expert_target_value(tables_2a, public, 0, 0, scratch, 0.0, 4.0) == 6.0


def test_later_habitats_of_a_held_card_share_tokens_on_other_cube_hexes(data, tables_2a):
    public, _ = new_state(tables_2a)
    work = new_workspace(tables_2a)
    hexes = [tuple(int(v) for v in row) for row in data.sides["A"].hexes]
    first_blue, green, other_blue = (hexes.index(h) for h in ((2, 1), (3, 1), (4, 0)))
    for hex_index, colour in ((first_blue, BLUE), (green, GREEN), (other_blue, BLUE)):
        public.heights[0, hex_index] = 1
        public.stacks[0, hex_index, 0] = colour
    add_card(public, 0, card_index(tables_2a, 5))  # frog: blue, green beside it; 2 4 6 10 15
    work.supply[:] = 0.5
    expert_choose_targets(tables_2a, public, 0, work, 0.0, 12.0, 0.5, 0.25)
    assert list(work.target_slot[:4]) == [0, 0, 0, -1]
    # Both frogs around the one green are complete: the next cube (2 points) and the one
    # after it (0.5 x 2) on the other blue; the third cube (0.25 x 2) needs one more blue
    # beside a green (chance 0.5).
    assert {work.target_cells[0, 0], work.target_cells[1, 0]} == {first_blue, other_blue}
    assert work.target_cells[2, 0] not in (first_blue, other_blue)
    worth = cards_worth(work, public.stacks, public.heights, public.cube_heights, 0,
                        work.supply)
    assert worth == pytest.approx(2.0 + 0.5 * 2.0 + 0.25 * 2.0 * 0.5)
    expert_choose_targets(tables_2a, public, 0, work, 0.0, 12.0, 0.0, 0.25)
    assert list(work.target_slot[:2]) == [0, -1]  # no later targets without ``second``
    # A face-up frog, 4 turns left: 1.5 tokens a turn build 4 x 1.5 / 2 = 3 frogs. First
    # cube 2 x 1; the second 2 x 1 on the other blue (chance 1; the planner: on empty hexes,
    # 0.5 x 0.5); the third on empty hexes, 2 x 0.25; the fourth has no time.
    frog = card_index(tables_2a, 5)
    assert expert_offer_worth(tables_2a, public, 0, frog, work.supply, 4.0, 1, 1.0) == 4.5
    assert expert_offer_worth(tables_2a, public, 0, frog, work.supply, 4.0, 0, 1.0) == 3.0
    # ``later`` counts a share of the cubes after the first: none leaves the first cube's 2,
    # half adds half of 2.5 (the board as it is) or of 1 (the planner's empty hexes)
    for offer, share, worth in ((1, 0.0, 2.0), (0, 0.0, 2.0), (1, 0.5, 3.25), (0, 0.5, 2.5)):
        assert expert_offer_worth(tables_2a, public, 0, frog, work.supply, 4.0, offer,
                                  share) == pytest.approx(worth)


def test_a_move_is_judged_by_the_habitats_likeliest_after_it(data, tables_2a):
    public, _ = new_state(tables_2a)
    work = new_workspace(tables_2a)
    hexes = [tuple(int(v) for v in row) for row in data.sides["A"].hexes]
    green = hexes.index((2, 1))
    public.heights[0, green] = 1
    public.stacks[0, green, 0] = GREEN
    add_card(public, 0, card_index(tables_2a, 5))  # frog: blue, green beside it; 2 4 6 10 15
    work.supply[:] = 0.5
    # The target fixed at the turn's start: one of the blues around the green (chance 0.5).
    expert_choose_targets(tables_2a, public, 0, work, 0.0, 12.0, 0.0, 0.0)
    target_blue = work.target_cells[0, 0]
    assert target_blue in tables_2a.neighbours[green]
    other_blue = next(int(hex_index) for hex_index in tables_2a.neighbours[green]
                      if hex_index >= 0 and hex_index != target_blue)
    public.heights[0, other_blue] = 1
    public.stacks[0, other_blue, 0] = BLUE  # a move that completes a frog the target missed
    fixed = cards_worth(work, public.stacks, public.heights, public.cube_heights, 0,
                        work.supply)
    assert fixed == pytest.approx(2.0 * 0.5)  # the target's blue is still to come
    assert dynamic_cards_worth(tables_2a, public, 0, work, 12.0, 0.0, 0.0) == 2.0
    # With later cubes: the next frog (2 x 0.5) on another blue beside the green, half weight,
    # and the one after (2 x 0.5) at a quarter
    assert dynamic_cards_worth(tables_2a, public, 0, work, 12.0, 0.5, 0.25) == pytest.approx(
        2.0 + 0.5 * 2.0 * 0.5 + 0.25 * 2.0 * 0.5)
    work.parameters[0, SLOT_CARDS] = 2.0
    work.parameters[0, SLOT_RETARGET] = 0.5
    # ``retarget`` times the card weight times (after the move, likeliest less fixed): the
    # later habitats follow the expert's parameters (0 in a fresh workspace)
    assert retarget_change(tables_2a, public, 0, work) == pytest.approx(0.5 * 2.0 * (2.0 - 1.0))
    work.parameters[0, SLOT_RETARGET] = 0.0
    assert retarget_change(tables_2a, public, 0, work) == 0.0


def test_a_move_is_credited_the_best_face_up_card_it_readies(data, tables_2a):
    public, _ = new_state(tables_2a)
    work = new_workspace(tables_2a)
    hexes = [tuple(int(v) for v in row) for row in data.sides["A"].hexes]
    public.card_row[:] = -1
    public.card_row[1] = card_index(tables_2a, 5)  # frog: blue, green beside it; first cube 2
    public.card_row[3] = card_index(tables_2a, 13)  # bee: a tree and three fields; first 8
    work.supply[:] = 0.5
    # On an empty board the frog needs 2 tokens (0.5 x 0.5 x 2 = 0.5), the bee 5
    # (brown, green and three yellows: 0.5 ** 5 x 8 = 0.25)
    assert best_offer_worth(tables_2a, public, 0, work, 4.0) == pytest.approx(0.5)
    blue, green = hexes.index((2, 1)), hexes.index((3, 1))
    for hex_index, colour in ((blue, BLUE), (green, GREEN)):
        public.heights[0, hex_index] = 1
        public.stacks[0, hex_index, 0] = colour
    assert best_offer_worth(tables_2a, public, 0, work, 4.0) == 2.0  # the frog's is ready
    public.card_row[:] = -1
    assert best_offer_worth(tables_2a, public, 0, work, 4.0) == 0.0  # an empty row


def test_spirit_kept_is_the_preferred_one_in_either_order(tables_2a):
    best, worst = 34, 35
    assert SPIRIT_PREFERENCE[best] > SPIRIT_PREFERENCE[worst] > 0
    offers = np.array([card_index(tables_2a, worst), card_index(tables_2a, best)], np.int16)
    assert expert_choose_spirit(tables_2a, offers) == 1
    assert expert_choose_spirit(tables_2a, offers[::-1].copy()) == 0


def test_space_charge_applies_to_empty_hexes_only(tables_2a):
    public, _ = new_state(tables_2a)
    work = new_workspace(tables_2a)
    work.parameters[0, SLOT_COST] = 2.0
    work.supply[:] = 0.5
    public.heights[0, 0] = 1
    public.stacks[0, 0, 0] = BROWN  # a trunk: green on it stacks, green elsewhere spreads
    invalidate(work.cache)
    refresh(tables_2a, public, 0, work.scratch, work.cache)
    prepare_local_view(tables_2a.neighbours, public.stacks, public.heights, 0, work.start_view)
    prepare_local_view(tables_2a.neighbours, public.stacks, public.heights, 0, work.trial_view)
    note_hex_potentials(tables_2a, public, 0, work, 2.0, 0)
    potentials = work.hex_potentials[0]
    target_worths = np.zeros(work.target_slot.shape[0])  # no card weight: not read

    def value(hex_index, charge):
        return expert_token_value(tables_2a, public, 0, work, hex_index, GREEN, 1.0, 0.0,
                                  False, 0.0, target_worths, charge, 2.0, potentials)

    empty = 5
    assert public.heights[0, empty] == 0
    assert value(empty, 0.0) - value(empty, 3.0) == pytest.approx(3.0)
    assert value(0, 0.0) == pytest.approx(value(0, 3.0))
    # brown+green scores 3; the trunk's potential was max((3 - 2) * .5, (7 - 2 * 2) * .5 * .5)
    # = 0.75 and a tree's is 0: 3 - 0.75
    assert value(0, 3.0) == pytest.approx(3.0 - 0.75)
    assert public.heights[0, 0] == 1 and public.heights[0, empty] == 0  # board unchanged


def test_a_plans_space_charges_count_each_empty_hex_once(tables_2a):
    public, _ = new_state(tables_2a)
    work = new_workspace(tables_2a)
    public.heights[0, 4] = 1
    public.stacks[0, 4, 0] = BROWN
    # brown then green on the empty hex 7 (one charge), green on the trunk at 4 (none)
    work.plan_hexes[:3] = [7, 7, 4]
    assert empty_hexes_in_plan(tables_2a, public, 0, work, 3) == 1
    # two empty hexes, and a token sent to the box
    work.plan_hexes[:3] = [7, 9, -1]
    assert empty_hexes_in_plan(tables_2a, public, 0, work, 3) == 2
    work.plan_hexes[:3] = [4, 4, 4]
    assert empty_hexes_in_plan(tables_2a, public, 0, work, 3) == 0


def play_self(data, text, first_deal, games=4):
    """``games`` 2-player side-A spirits games of the strategy ``text`` (a ``--strategy`` spec)
    in both seats, on consecutive deals from ``first_deal``: the shard's result columns."""
    rules = dict(GAME.default_rules(), spirits=1)
    seats = np.zeros((games, 2), dtype=np.int64)
    deals = np.arange(games, dtype=np.uint64) + np.uint64(first_deal)
    lineup = [parse_strategy(text, GAME.strategies(), "--strategy")]
    return GAME.play_shard(data, 2, rules, lineup, seats, deals, deals + np.uint64(5))


def test_choose_moves_the_clock_out_of_the_space_choice_only_with_a_charge(data):
    def play(text):
        return play_self(data, text, first_deal=41)["score"]

    # no charge: nothing to move, the same games
    np.testing.assert_array_equal(play("expert:space=0"), play("expert:space=0,choose=0"))
    # a charge counted in placements only picks other spaces
    assert not np.array_equal(play("expert:space=6"), play("expert:space=6,choose=0"))


def test_expert_is_deterministic_and_plays_its_own_way(data):
    def play(text):
        return play_self(data, text, first_deal=21)

    first, again, planner = play("expert"), play("expert"), play("planner")
    for column in ("score", "points_animals", "turns", "spirit_kept"):
        np.testing.assert_array_equal(first[column], again[column], err_msg=column)
    assert not np.array_equal(first["score"], planner["score"])


def test_later_cubes_share_changes_which_cards_are_taken(data):
    def play(text):
        return play_self(data, text, first_deal=61, games=6)

    default, counted, first_only = play("expert"), play("expert:later=1"), play("expert:later=0")
    np.testing.assert_array_equal(default["score"], first_only["score"])  # the default is 0
    taken = [list(cards) for cards in counted["cards_taken"]]
    assert taken != [list(cards) for cards in first_only["cards_taken"]]


def test_the_search_and_the_move_judgement_are_wired(data):
    def play(text):
        return play_self(data, text, first_deal=81, games=4)["score"]

    default = play("expert")
    np.testing.assert_array_equal(
        default, play("expert:retarget=1,beam=1,wide=1,deep=16,ready=2.97904,defer=1,"
                      "space=0,fade=3.2977,denial=0.251816,potential=1.60342,"
                      "cards=1.82435"))
    # each part of the search changes the moves: no second look, the old fixed targets, a
    # shallower second look, every space looked at again, no credit for a readied card, the
    # card taken before the tokens, the game clock (the previous default's)
    for other in ("expert:wide=0", "expert:retarget=0", "expert:deep=4", "expert:wide=5",
                  "expert:ready=0", "expert:defer=0", "expert:space=4.28636"):
        assert not np.array_equal(default, play(other)), other
