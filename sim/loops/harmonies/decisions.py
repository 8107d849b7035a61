"""Harmonies on the decision interface (``sim.games.decisions``), and its ``search`` strategy
(``sim.search.ismcts``).

A turn is a sequence of decision steps, the decision points every Harmonies strategy meets
(``strategies/harmonies/__init__.py``): take a face-up card or not, then place cubes until
"stop"; take a central space; place its tokens one at a time (which colour next and on which
hex), with cubes after each; if no card was taken and the limit allows one, a card and its
cubes; solo, when no card was taken, discard a face-up card or not. With the nature spirit
variant a seat's first turn opens with keeping one of its two spirits. Steps with nothing to
decide (no card allowed, no cube placement, no token with a legal hex: those go to the box)
are taken by the rules, as the strategies take them.

Decision codes (``CODE_*``; ``H`` hexes): ``STOP`` (no more cubes), ``NO_CARD``,
``NO_DISCARD``, ``SPIRIT + choice``, ``CARD + row position``, ``DISCARD + row position``,
``SPACE + central space``, ``TOKEN + colour * H + hex``, ``CUBE + card slot * H + hex``.

Search state: ``(public, hidden, turn, scratch)``: the game's ``PublicState`` and
``HiddenState`` (``sim.games.harmonies.state``), ``turn`` (``Turn``: the step registers, the
tokens in hand) and scratch buffers never copied. Context: the ``EngineTables``. Every change
goes through the rules' own actions (``sim.games.harmonies.turn``, ``refill_after_turn``,
``score_player`` and the results' ranking).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.decisions import decision_functions
from sim.games.harmonies.colours import COLOUR_COUNT
from sim.games.harmonies.habitats import list_cube_placements
from sim.games.harmonies.results import record_results
from sim.games.harmonies.scoring import CATEGORY_COUNT, new_scratch
from sim.games.harmonies.stacking import can_place_token
from sim.games.harmonies.state import (
    DRAW_BAG,
    DRAW_DECK,
    PROGRESS_END_TRIGGERED,
    PROGRESS_ROUND,
    PROGRESS_SEAT,
    HiddenState,
    PublicState,
    full_space_count,
)
from sim.games.harmonies.turn import (
    discard_unplaceable_token,
    keep_spirit,
    may_take_card,
    place_cube,
    place_token,
    refill_after_turn,
    solo_discard_from_row,
    take_card,
    take_central_space,
)
from sim.jit import compiled
from sim.rng import shuffle_in_place
from sim.search.ismcts import specialise

CODE_STOP = 0
CODE_NO_CARD = 1
CODE_NO_DISCARD = 2
CODE_SPIRIT = 100
CODE_CARD = 200
CODE_DISCARD = 300
CODE_SPACE = 400
CODE_TOKEN = 1_000
CODE_CUBE = 100_000

# Steps (``turn.registers[REGISTER_STEP]``): decisions, and the rules' steps between them.
STEP_SPIRIT = 0
STEP_CARD_BEFORE = 1
STEP_CUBES_BEFORE = 2
STEP_SPACE = 3
STEP_TOKEN = 4
STEP_CUBES_AFTER_TOKEN = 5
STEP_CARD_AFTER = 6
STEP_CUBES_AFTER_CARD = 7
STEP_END_TURN = 8
STEP_DISCARD = 9
STEP_NEXT_SEAT = 10
STEP_TURN_BODY = 11
STEP_OVER = 12

REGISTER_STEP = 0
REGISTER_SEAT = 1
REGISTER_TOOK_CARD = 2
REGISTER_SPACE = 3
REGISTER_TOKENS = 4
REGISTER_SIZE = 5
# A typical high score (a one-seat game's result is its score over this).
SCORE_SCALE = 120.0

Turn = namedtuple("Turn", ["registers", "hand", "hand_left"])
Scratch = namedtuple("Scratch", ["scratch", "scores", "category_points", "totals", "ranks",
                                 "wins", "cubes", "completed", "turns", "placement_slots",
                                 "placement_hexes", "spirit_pool"])


def new_search_state(tables):
    """An empty search state for ``tables``' games (from Python)."""
    return new_search_state_compiled(tables, new_scratch(tables.hex_count),
                                     np.zeros(CATEGORY_COUNT, dtype=np.int32))


@compiled(refcounts=True)
def new_search_state_compiled(tables, score_scratch, scores):
    """An empty search state for ``tables``' games, scoring with the scratch arrays
    ``score_scratch`` and ``scores`` (``scoring.new_scratch``; shared, not state)."""
    players, hexes = tables.players, tables.hex_count
    cards = tables.max_cards_per_player
    public = PublicState(
        np.zeros((players, hexes, 3), dtype=np.int8), np.zeros((players, hexes), dtype=np.int8),
        np.zeros((players, hexes), dtype=np.int8), np.full((players, cards), -1, dtype=np.int16),
        np.zeros((players, cards), dtype=np.int8), np.zeros(players, dtype=np.int16),
        np.full((tables.central_spaces, tables.tokens_per_space), -1, np.int8),
        np.zeros(tables.central_spaces, dtype=np.int8),
        np.full(tables.card_row, -1, dtype=np.int16), np.zeros(COLOUR_COUNT, dtype=np.int16),
        np.zeros(COLOUR_COUNT, dtype=np.int16), np.zeros(players, dtype=np.int16),
        np.zeros(3, dtype=np.int32))
    hidden = HiddenState(np.zeros(tables.bag_total, dtype=np.int8),
                         np.zeros(tables.animal_cards.shape[0], dtype=np.int16),
                         np.zeros(2, dtype=np.int32), np.full((players, 2), -1, dtype=np.int16))
    turn = Turn(np.zeros(REGISTER_SIZE, dtype=np.int64),
                np.zeros(tables.tokens_per_space, dtype=np.int8),
                np.zeros(tables.tokens_per_space, dtype=np.int8))
    scratch = Scratch(score_scratch, scores,
                      np.zeros((1, players, CATEGORY_COUNT), dtype=np.int16),
                      np.zeros((1, players), dtype=np.int16), np.zeros((1, players), np.int8),
                      np.zeros((1, players), dtype=np.float64),
                      np.zeros((1, players), dtype=np.int16),
                      np.zeros((1, players), dtype=np.int16),
                      np.zeros((1, players), dtype=np.int16),
                      np.zeros(cards * hexes, dtype=np.int16),
                      np.zeros(cards * hexes, dtype=np.int16),
                      np.zeros(max(tables.spirit_cards.shape[0], 1), dtype=np.int16))
    return public, hidden, turn, scratch


@compiled
def copy_public(source, target):
    """Copy every array of a ``PublicState`` (element by element: no allocation)."""
    for player in range(source.stacks.shape[0]):
        for hex_index in range(source.stacks.shape[1]):
            for level in range(source.stacks.shape[2]):
                target.stacks[player, hex_index, level] = source.stacks[player, hex_index, level]
            target.heights[player, hex_index] = source.heights[player, hex_index]
            target.cube_heights[player, hex_index] = source.cube_heights[player, hex_index]
        for slot in range(source.held_cards.shape[1]):
            target.held_cards[player, slot] = source.held_cards[player, slot]
            target.cubes_placed[player, slot] = source.cubes_placed[player, slot]
        target.held_count[player] = source.held_count[player]
        target.turns_played[player] = source.turns_played[player]
    for space in range(source.central.shape[0]):
        for slot in range(source.central.shape[1]):
            target.central[space, slot] = source.central[space, slot]
        target.central_count[space] = source.central_count[space]
    for position in range(source.card_row.shape[0]):
        target.card_row[position] = source.card_row[position]
    for colour in range(source.bag_counts.shape[0]):
        target.bag_counts[colour] = source.bag_counts[colour]
        target.box_counts[colour] = source.box_counts[colour]
    for index in range(source.progress.shape[0]):
        target.progress[index] = source.progress[index]


@compiled
def copy_state(tables, source, target):
    """Copy the public and hidden state and the turn's registers and hand."""
    public, hidden, turn, _ = source
    copy_public(public, target[0])
    target_hidden, target_turn = target[1], target[2]
    for index in range(hidden.bag_order.shape[0]):
        target_hidden.bag_order[index] = hidden.bag_order[index]
    for index in range(hidden.deck_order.shape[0]):
        target_hidden.deck_order[index] = hidden.deck_order[index]
    for index in range(2):
        target_hidden.draw_positions[index] = hidden.draw_positions[index]
    for player in range(hidden.spirit_offers.shape[0]):
        for index in range(2):
            target_hidden.spirit_offers[player, index] = hidden.spirit_offers[player, index]
    for index in range(turn.registers.shape[0]):
        target_turn.registers[index] = turn.registers[index]
    for index in range(turn.hand.shape[0]):
        target_turn.hand[index] = turn.hand[index]
        target_turn.hand_left[index] = turn.hand_left[index]


@compiled
def _spirit_is_known(tables, public, hidden, observer, card):
    """A spirit card ``observer`` has seen: held by a seat, or in its own offer."""
    for player in range(public.held_count.shape[0]):
        for slot in range(public.held_count[player]):
            if public.held_cards[player, slot] == card:
                return True
    return hidden.spirit_offers[observer, 0] == card or hidden.spirit_offers[observer, 1] == card


@compiled
def determinise(tables, state, observer, rng):
    """Re-deal what ``observer`` cannot see: the order of the tokens left in the bag and of the
    cards left in the deck, and the spirits still face down before other seats (from every
    spirit it has not seen)."""
    public, hidden, _, scratch = state
    shuffle_in_place(rng, hidden.bag_order[hidden.draw_positions[DRAW_BAG]:])
    shuffle_in_place(rng, hidden.deck_order[hidden.draw_positions[DRAW_DECK]:])
    if not tables.spirits_enabled:
        return
    pool = 0
    for index in range(tables.spirit_cards.shape[0]):
        card = tables.spirit_cards[index]
        if not _spirit_is_known(tables, public, hidden, observer, card):
            scratch.spirit_pool[pool] = card
            pool += 1
    shuffle_in_place(rng, scratch.spirit_pool[:pool])
    dealt = 0
    for player in range(hidden.spirit_offers.shape[0]):
        if player == observer or hidden.spirit_offers[player, 0] < 0:
            continue
        for index in range(2):
            hidden.spirit_offers[player, index] = scratch.spirit_pool[dealt]
            dealt += 1


@compiled
def is_over(tables, state):
    """The round in which the end was triggered is over."""
    return state[2].registers[REGISTER_STEP] == STEP_OVER


@compiled
def to_move(tables, state):
    """The seat whose turn it is."""
    return state[2].registers[REGISTER_SEAT]


@compiled
def decision_capacity(tables, state):
    """The most codes of any step: cube placements (cards held x hexes, and stop) or tokens
    (three colours x hexes), bounded together."""
    return (tables.max_cards_per_player + 3) * tables.hex_count + tables.card_row + \
        tables.central_spaces + 4


@compiled
def _placeable(tables, public, seat, colour):
    """A ``colour`` token fits somewhere on ``seat``'s board."""
    for hex_index in range(tables.hex_count):
        if can_place_token(public.stacks, public.heights, public.cube_heights, seat, hex_index,
                           colour):
            return True
    return False


@compiled
def _any_token_placeable(tables, public, turn, seat):
    for token in range(turn.registers[REGISTER_TOKENS]):
        if turn.hand_left[token] and _placeable(tables, public, seat, turn.hand[token]):
            return True
    return False


@compiled
def _face_up(public):
    count = 0
    for position in range(public.card_row.shape[0]):
        if public.card_row[position] >= 0:
            count += 1
    return count


@compiled
def advance_turn(tables, public, turn, scratch):
    """Take the rules' steps of the turn of ``turn.registers[REGISTER_SEAT]`` up to its next
    decision, or to ``STEP_END_TURN`` (the public state only: nothing hidden is drawn)."""
    registers = turn.registers
    seat = registers[REGISTER_SEAT]
    while True:
        step = registers[REGISTER_STEP]
        if step == STEP_CARD_BEFORE:
            if may_take_card(tables, public, seat):
                return
            registers[REGISTER_STEP] = STEP_CUBES_BEFORE
        elif step == STEP_CUBES_BEFORE or step == STEP_CUBES_AFTER_TOKEN \
                or step == STEP_CUBES_AFTER_CARD:
            if list_cube_placements(tables, public, seat, scratch.placement_slots,
                                    scratch.placement_hexes) > 0:
                return
            registers[REGISTER_STEP] = _after_cubes(step)
        elif step == STEP_TOKEN:
            left = False
            for token in range(registers[REGISTER_TOKENS]):
                if turn.hand_left[token]:
                    left = True
            if left and _any_token_placeable(tables, public, turn, seat):
                return
            for token in range(registers[REGISTER_TOKENS]):
                if turn.hand_left[token]:
                    discard_unplaceable_token(tables, public, seat, turn.hand[token])
                    turn.hand_left[token] = 0
            registers[REGISTER_STEP] = STEP_CARD_AFTER
        elif step == STEP_CARD_AFTER:
            if registers[REGISTER_TOOK_CARD] == 0 and may_take_card(tables, public, seat):
                return
            registers[REGISTER_STEP] = STEP_END_TURN
        else:
            return


@compiled
def _after_cubes(step):
    """The step after a cube phase ends."""
    if step == STEP_CUBES_BEFORE:
        return STEP_SPACE
    if step == STEP_CUBES_AFTER_TOKEN:
        return STEP_TOKEN
    return STEP_END_TURN


@compiled
def list_turn_decisions(tables, public, turn, scratch, out):
    """The codes of the turn's current decision (after ``advance_turn``)."""
    registers = turn.registers
    seat = registers[REGISTER_SEAT]
    step = registers[REGISTER_STEP]
    hexes = tables.hex_count
    count = 0
    if step == STEP_SPIRIT:
        out[0] = CODE_SPIRIT
        out[1] = CODE_SPIRIT + 1
        return 2
    if step == STEP_CARD_BEFORE or step == STEP_CARD_AFTER or step == STEP_DISCARD:
        base = CODE_DISCARD if step == STEP_DISCARD else CODE_CARD
        out[0] = CODE_NO_DISCARD if step == STEP_DISCARD else CODE_NO_CARD
        count = 1
        for position in range(public.card_row.shape[0]):
            if public.card_row[position] >= 0:
                out[count] = base + position
                count += 1
        return count
    if step == STEP_CUBES_BEFORE or step == STEP_CUBES_AFTER_TOKEN or \
            step == STEP_CUBES_AFTER_CARD:
        placements = list_cube_placements(tables, public, seat, scratch.placement_slots,
                                          scratch.placement_hexes)
        out[0] = CODE_STOP
        for index in range(placements):
            out[1 + index] = CODE_CUBE + np.int64(scratch.placement_slots[index]) * hexes + \
                scratch.placement_hexes[index]
        return placements + 1
    if step == STEP_SPACE:
        for space in range(public.central_count.shape[0]):
            if public.central_count[space] > 0:
                out[count] = CODE_SPACE + space
                count += 1
        return count
    # STEP_TOKEN: each colour in hand once, on each hex it may go to.
    for token in range(registers[REGISTER_TOKENS]):
        if not turn.hand_left[token]:
            continue
        colour = turn.hand[token]
        repeated = False
        for earlier in range(token):
            if turn.hand_left[earlier] and turn.hand[earlier] == colour:
                repeated = True
        if repeated:
            continue
        for hex_index in range(hexes):
            if can_place_token(public.stacks, public.heights, public.cube_heights, seat,
                               hex_index, colour):
                out[count] = CODE_TOKEN + np.int64(colour) * hexes + hex_index
                count += 1
    return count


@compiled
def apply_turn_decision(tables, public, turn, code):
    """Make decision ``code`` of the turn's current step (not the spirit or the solo discard,
    which need the hidden state) with the rules' actions; ``advance_turn`` takes it on."""
    registers = turn.registers
    seat = registers[REGISTER_SEAT]
    step = registers[REGISTER_STEP]
    hexes = tables.hex_count
    if code == CODE_NO_CARD:
        registers[REGISTER_STEP] = STEP_CUBES_BEFORE if step == STEP_CARD_BEFORE \
            else STEP_END_TURN
    elif code == CODE_STOP:
        registers[REGISTER_STEP] = _after_cubes(step)
    elif code >= CODE_CUBE:
        rest = code - CODE_CUBE
        place_cube(tables, public, seat, rest // hexes, rest % hexes)
    elif code >= CODE_TOKEN:
        rest = code - CODE_TOKEN
        colour = rest // hexes
        place_token(public, seat, rest % hexes, colour)
        for token in range(registers[REGISTER_TOKENS]):
            if turn.hand_left[token] and turn.hand[token] == colour:
                turn.hand_left[token] = 0
                break
        registers[REGISTER_STEP] = STEP_CUBES_AFTER_TOKEN
    elif code >= CODE_SPACE:
        space = code - CODE_SPACE
        tokens = take_central_space(tables, public, space, turn.hand)
        registers[REGISTER_SPACE] = space
        registers[REGISTER_TOKENS] = tokens
        for token in range(turn.hand_left.shape[0]):
            turn.hand_left[token] = 1 if token < tokens else 0
        registers[REGISTER_STEP] = STEP_TOKEN
    elif code >= CODE_CARD:
        take_card(tables, public, seat, code - CODE_CARD)
        registers[REGISTER_TOOK_CARD] = 1
        registers[REGISTER_STEP] = STEP_CUBES_BEFORE if step == STEP_CARD_BEFORE \
            else STEP_CUBES_AFTER_CARD


@compiled
def start_turn_body(turn):
    """The registers of a turn whose body (cards, cubes, tokens) begins."""
    turn.registers[REGISTER_STEP] = STEP_CARD_BEFORE
    turn.registers[REGISTER_TOOK_CARD] = 0
    turn.registers[REGISTER_SPACE] = -1
    turn.registers[REGISTER_TOKENS] = 0


@compiled
def _advance(tables, state):
    """From the decision just made to the next one, through the rules' steps: the rest of the
    turn, the refills and end triggers, the next seat and round (as the game loop's
    ``play_turn`` and round loop), or the end of the game."""
    public, hidden, turn, scratch = state
    registers = turn.registers
    while True:
        advance_turn(tables, public, turn, scratch)
        step = registers[REGISTER_STEP]
        seat = registers[REGISTER_SEAT]
        if step == STEP_END_TURN:
            refill_after_turn(tables, public, hidden, seat, registers[REGISTER_SPACE])
            if tables.solo_rules and registers[REGISTER_TOOK_CARD] == 0 and \
                    _face_up(public) > 0:
                registers[REGISTER_STEP] = STEP_DISCARD
                return
            registers[REGISTER_STEP] = STEP_NEXT_SEAT
        elif step == STEP_NEXT_SEAT:
            seat += 1
            if seat == tables.players:
                public.progress[PROGRESS_ROUND] += 1
                if public.progress[PROGRESS_END_TRIGGERED]:
                    registers[REGISTER_STEP] = STEP_OVER
                    return
                seat = 0
            registers[REGISTER_SEAT] = seat
            public.progress[PROGRESS_SEAT] = seat
            if tables.spirits_enabled and public.turns_played[seat] == 0:
                registers[REGISTER_STEP] = STEP_SPIRIT
                return
            registers[REGISTER_STEP] = STEP_TURN_BODY
        elif step == STEP_TURN_BODY:
            if full_space_count(public) == 0:
                # Only with a bag too small to fill the central board: the game ends.
                public.progress[PROGRESS_END_TRIGGERED] = 1
                public.turns_played[seat] += 1
                registers[REGISTER_STEP] = STEP_NEXT_SEAT
            else:
                start_turn_body(turn)
        else:
            return


@compiled
def legal_decisions(tables, state, out):
    """The codes of the current decision."""
    public, _, turn, scratch = state
    return list_turn_decisions(tables, public, turn, scratch, out)


@compiled
def apply_decision(tables, state, code):
    """Make decision ``code`` and run on to the next decision."""
    public, hidden, turn, _ = state
    registers = turn.registers
    step = registers[REGISTER_STEP]
    if step == STEP_SPIRIT:
        keep_spirit(hidden, public, registers[REGISTER_SEAT], code - CODE_SPIRIT)
        registers[REGISTER_STEP] = STEP_TURN_BODY
    elif step == STEP_DISCARD:
        if code != CODE_NO_DISCARD:
            solo_discard_from_row(public, hidden, code - CODE_DISCARD)
        registers[REGISTER_STEP] = STEP_NEXT_SEAT
    else:
        apply_turn_decision(tables, public, turn, code)
    _advance(tables, state)


@compiled
def final_results(tables, state, scores, wins):
    """Points and win shares as the game records them (``results.record_results``: points,
    then animal cubes placed; equal seats share the win)."""
    public, _, _, scratch = state
    record_results(tables, public, scratch, 0, scratch.category_points, scratch.totals,
                   scratch.ranks, scratch.wins, scratch.cubes, scratch.completed, scratch.turns)
    for player in range(tables.players):
        scores[player] = scratch.totals[0, player]
        wins[player] = scratch.wins[0, player]


def public_arrays(state, observer):
    """The public state, the hidden draw positions (how many were drawn is public), the
    observer's own spirit offer and the turn's registers and hand."""
    public, hidden, turn, _ = state
    return [*public, hidden.draw_positions, hidden.spirit_offers[observer], *turn]


def hidden_items(tables, state, observer):
    """Tokens left in the bag, cards left in the deck, and every spirit the observer has not
    seen (offered to other seats or never dealt), each kind apart."""
    public, hidden, _, _ = state
    bag = hidden.bag_order[int(hidden.draw_positions[DRAW_BAG]):].astype(np.int64)
    deck = hidden.deck_order[int(hidden.draw_positions[DRAW_DECK]):].astype(np.int64)
    held = {int(public.held_cards[p, s]) for p in range(public.held_count.shape[0])
            for s in range(int(public.held_count[p]))}
    own = set(hidden.spirit_offers[observer].tolist())
    others = [int(card) for p in range(hidden.spirit_offers.shape[0]) if p != observer
              for card in hidden.spirit_offers[p] if card >= 0]
    unseen = [int(c) for c in tables.spirit_cards if int(c) not in held and int(c) not in own]
    rest = sorted(set(unseen) - set(others))
    return np.concatenate([bag, 100 + deck, 10_000 + np.array(others + rest, dtype=np.int64)])


def new_game(data, players, rules, seed):
    """A game dealt from ``seed`` (the loop's deal), at its first decision."""
    from sim.games.harmonies.state import deal
    from sim.games.registry import get_game

    tables = get_game("harmonies").tables(data, players, rules)
    state = new_search_state(tables)
    deal(tables, state[0], state[1], np.uint64(seed))
    state[2].registers[REGISTER_SEAT] = -1
    state[2].registers[REGISTER_STEP] = STEP_NEXT_SEAT
    _advance(tables, state)
    return tables, state


def reference_scores(data, players, rules, tables, state):
    """Every board scored from scratch in its board-file form (``position.score_board``,
    after ``position.board_from_state``)."""
    from sim.games.harmonies.position import score_board
    from sim.games.registry import get_game

    boards = get_game("harmonies")._boards(data, tables, state[0], players, rules)
    return [score_board(board, data)["total"] for board in boards]


DECISIONS = decision_functions("harmonies", globals(), SCORE_SCALE)
SEARCH = specialise(DECISIONS)


@compiled(refcounts=True)
def _observe(tables, public, turn, root):
    """Fill ``root`` with what seat ``turn``'s seat sees mid-turn: the public state, the turn's
    registers and hand, and for the hidden part the multisets the public state implies (the
    bag's counts, the animal cards neither held nor face up, offers still face down), in an
    arbitrary order that every iteration re-deals. Solo discards are not in the public state,
    so a discarded card may be dealt again in a determinisation."""
    root_public, hidden, root_turn, _ = root
    copy_public(public, root_public)
    for index in range(turn.registers.shape[0]):
        root_turn.registers[index] = turn.registers[index]
    for index in range(turn.hand.shape[0]):
        root_turn.hand[index] = turn.hand[index]
        root_turn.hand_left[index] = turn.hand_left[index]
    position = hidden.bag_order.shape[0]
    for colour in range(COLOUR_COUNT):
        for _ in range(public.bag_counts[colour]):
            position -= 1
            hidden.bag_order[position] = colour
    hidden.draw_positions[DRAW_BAG] = position
    position = hidden.deck_order.shape[0]
    for index in range(tables.animal_cards.shape[0]):
        card = tables.animal_cards[index]
        seen = False
        for player in range(public.held_count.shape[0]):
            for slot in range(public.held_count[player]):
                if public.held_cards[player, slot] == card:
                    seen = True
        for row in range(public.card_row.shape[0]):
            if public.card_row[row] == card:
                seen = True
        if not seen:
            position -= 1
            hidden.deck_order[position] = card
    hidden.draw_positions[DRAW_DECK] = position
    for player in range(public.turns_played.shape[0]):
        pending = tables.spirits_enabled and public.turns_played[player] == 0 and \
            player != turn.registers[REGISTER_SEAT]
        for index in range(2):
            # Any card index marks a face-down offer: ``determinise`` deals the real ones.
            hidden.spirit_offers[player, index] = tables.spirit_cards[0] if pending else -1


@compiled(refcounts=True, c_callable=True)
def search_turn(tables, public, player, generator, work, policy):
    """``search``: the whole turn of ``player``, each decision step chosen by the tree search
    from what the seat sees (``work.parameters[player]`` = playouts, exploration); returns
    (central space taken, card taken) as every turn function does."""
    root = new_search_state_compiled(tables, work.scratch, work.scores)
    scratch_state = new_search_state_compiled(tables, work.scratch, work.scores)
    turn = Turn(np.zeros(REGISTER_SIZE, dtype=np.int64),
                np.zeros(tables.tokens_per_space, dtype=np.int8),
                np.zeros(tables.tokens_per_space, dtype=np.int8))
    turn.registers[REGISTER_SEAT] = player
    start_turn_body(turn)
    parameters = work.parameters[player]
    own_scratch = root[3]
    while True:
        advance_turn(tables, public, turn, own_scratch)
        if turn.registers[REGISTER_STEP] == STEP_END_TURN:
            break
        _observe(tables, public, turn, root)
        code = SEARCH(tables, root, scratch_state, np.int64(player), generator,
                      np.int64(parameters[0]), parameters[1], np.int64(tables.players))
        apply_turn_decision(tables, public, turn, code)
    return turn.registers[REGISTER_SPACE], turn.registers[REGISTER_TOOK_CARD] != 0
