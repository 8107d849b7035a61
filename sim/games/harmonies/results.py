"""What a Harmonies game records and checks: the audit of a state's invariants (for tests),
``record_results``, which scores a finished game into the result arrays (ranks by points then
cubes, shared wins), the ``Recording`` of the cards each player took (when, from which face-up
row, the cubes placed on each), the spirits dealt and the optional score trace, and
``GameResults``, the per-game per-seat arrays of a batch.

No strategy is known here: the game loop (``sim.loops.harmonies.loop``) calls these.
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np

from sim.games.harmonies.colours import COLOUR_COUNT, STACK_CODE_COUNT, stack_code
from sim.games.harmonies.habitats import stack_code_at
from sim.games.harmonies.scoring import (
    CATEGORY_COUNT,
    animal_cards_completed,
    animal_cubes_placed,
    new_scratch,
    score_player,
)
from sim.games.harmonies.stacking import LEGAL_STACKS
from sim.games.harmonies.state import DRAW_BAG, PROGRESS_ROUND
from sim.jit import compiled, inlined

# Audit failures (see audit_state), reported by play_game/play_games(audit=True).
AUDIT_OK = 0
AUDIT_ILLEGAL_STACK = 1
AUDIT_CUBE_WITHOUT_TOKEN = 2
AUDIT_TOKEN_ON_CUBE = 3
AUDIT_TOKENS_NOT_CONSERVED = 4
AUDIT_BAG_COUNTS_WRONG = 5
AUDIT_MESSAGES = {
    AUDIT_ILLEGAL_STACK: "a stack the stacking table forbids",
    AUDIT_CUBE_WITHOUT_TOKEN: "a cube on a hex without a token",
    AUDIT_TOKEN_ON_CUBE: "a token placed on top of a cube",
    AUDIT_TOKENS_NOT_CONSERVED: "bag + boards + central board + box differs from the bag file",
    AUDIT_BAG_COUNTS_WRONG: "public bag counts differ from the bag's contents",
}


def legal_stack_code_table() -> np.ndarray:
    """int8[STACK_CODE_COUNT]: 1 for the codes of the stacks RULES.md allows (built from the
    pure-Python list in ``stacking.py``, independent of the compiled placement rule)."""
    table = np.zeros(STACK_CODE_COUNT, dtype=np.int8)
    for stack in LEGAL_STACKS:
        table[stack_code(stack)] = 1
    return table


@compiled(refcounts=True)
def audit_state(tables, public, hidden, legal_codes, counts):
    """Check the invariants of a state: legal stacks, cubes on tokens and never under a later
    token, every token of the bag file accounted for. Returns an AUDIT_* code."""
    counts[:] = 0
    for player in range(tables.players):
        for hex_index in range(tables.hex_count):
            height = public.heights[player, hex_index]
            if legal_codes[stack_code_at(public.stacks, public.heights, player, hex_index)] == 0:
                return AUDIT_ILLEGAL_STACK
            cube_height = public.cube_heights[player, hex_index]
            if cube_height > 0 and height == 0:
                return AUDIT_CUBE_WITHOUT_TOKEN
            if cube_height > 0 and cube_height != height:
                return AUDIT_TOKEN_ON_CUBE
            for level in range(height):
                counts[public.stacks[player, hex_index, level]] += 1
    for space in range(tables.central_spaces):
        for slot in range(public.central_count[space]):
            counts[public.central[space, slot]] += 1
    in_bag = np.zeros(COLOUR_COUNT, dtype=np.int32)
    for position in range(hidden.draw_positions[DRAW_BAG], hidden.bag_order.shape[0]):
        in_bag[hidden.bag_order[position]] += 1
    for colour in range(COLOUR_COUNT):
        if in_bag[colour] != public.bag_counts[colour]:
            return AUDIT_BAG_COUNTS_WRONG
        if counts[colour] + in_bag[colour] + public.box_counts[colour] != tables.bag[colour]:
            return AUDIT_TOKENS_NOT_CONSERVED
    return AUDIT_OK


@compiled
def record_results(tables, public, work, game, category_points, totals, ranks, wins, cubes,
                   completed, turns):
    """Score every player of the finished game into row ``game`` of the result arrays; ranks
    by points then animal cubes placed, equal players share the rank and the win."""
    players = tables.players
    for player in range(players):
        totals[game, player] = score_player(tables, public, player, work.scratch, work.scores)
        for category in range(CATEGORY_COUNT):
            category_points[game, player, category] = work.scores[category]
        cubes[game, player] = animal_cubes_placed(tables, public, player)
        completed[game, player] = animal_cards_completed(tables, public, player)
        turns[game, player] = public.turns_played[player]
    winners = 0
    for player in range(players):
        ahead = 0
        for other in range(players):
            if totals[game, other] > totals[game, player] or (
                totals[game, other] == totals[game, player]
                and cubes[game, other] > cubes[game, player]
            ):
                ahead += 1
        ranks[game, player] = ahead + 1
        if ahead == 0:
            winners += 1
    for player in range(players):
        wins[game, player] = 1.0 / winners if ranks[game, player] == 1 else 0.0


# What the loop records besides the scores, written at the points where a deal, a turn, a round
# and a game end (``record_deal``, ``record_turn_start`` / ``record_turn_end``, ``record_round``,
# ``record_cards``): preallocated arrays, so recording costs a few copies per turn.
Recording = namedtuple(
    "Recording",
    [
        "held_cards",  # int16[G, P, M] card indices in the order taken (a kept spirit too)
        "held_count",  # int16[G, P] cards in held_cards
        "cubes_placed",  # int8[G, P, M] cubes moved from each card to the board
        "taken_round",  # int8[G, P, M] round (0-based) in which each card was taken or kept
        "offered",  # int16[G, P, M, R] the face-up row when the card was taken (-1: empty)
        "spirits_dealt",  # int16[G, P, 2] spirit card indices dealt (-1 without the variant)
        "opening_row",  # int16[G, R] the face-up card row dealt (before any turn; -1: empty)
        "score_trace",  # int16[G, rounds, P] score after each round; [0, rounds, P] untraced
        "row",  # int16[R] scratch: the card row when the turn being played started
        "held_before",  # int16[1] scratch: the player's held_count when that turn started
        "scratch",  # scoring.Scratch of the trace (never the strategies' scratch)
        "points",  # int32[CATEGORY_COUNT] scratch of the trace
    ],
)


def max_rounds(tables) -> int:
    """An upper bound on the rounds of a game: every turn but the last ones takes a full central
    space, whose tokens all came from the bag, and a round has a turn per seat."""
    return tables.bag_total // tables.tokens_per_space // tables.players + 2


def new_recording(results: GameResults, tables) -> Recording:
    """The ``Recording`` that writes into ``results`` (scratch arrays added)."""
    return Recording(
        held_cards=results.held_cards, held_count=results.held_count,
        cubes_placed=results.card_cubes, taken_round=results.taken_round,
        offered=results.offered, spirits_dealt=results.spirits_dealt,
        opening_row=results.opening_row, score_trace=results.score_trace,
        row=np.full(tables.card_row, -1, dtype=np.int16),
        held_before=np.zeros(1, dtype=np.int16),
        scratch=new_scratch(tables.hex_count),
        points=np.zeros(CATEGORY_COUNT, dtype=np.int32),
    )


@inlined
def record_deal(hidden, game, recording):
    """After the deal: the spirits dealt to each player (they leave the hidden state once one
    is kept) and the opening face-up card row (the deck's first cards: the deal fills the row
    from the shuffled deck, so the row is set by the deal alone, whatever the strategies)."""
    # Element by element: an array copy could allocate (compiled without reference counting).
    for player in range(hidden.spirit_offers.shape[0]):
        for slot in range(hidden.spirit_offers.shape[1]):
            recording.spirits_dealt[game, player, slot] = hidden.spirit_offers[player, slot]
    for position in range(recording.opening_row.shape[1]):
        if position < hidden.deck_order.shape[0]:
            recording.opening_row[game, position] = hidden.deck_order[position]


@inlined
def record_turn_start(public, player, recording):
    """Before ``player``'s turn: the face-up card row (it changes only at the end of a turn)
    and the cards the player holds."""
    for position in range(public.card_row.shape[0]):
        recording.row[position] = public.card_row[position]
    recording.held_before[0] = public.held_count[player]


@inlined
def record_turn_end(public, game, player, recording):
    """After ``player``'s turn: the round and the face-up row of each card taken (or spirit
    kept) during it."""
    for slot in range(recording.held_before[0], public.held_count[player]):
        recording.taken_round[game, player, slot] = public.progress[PROGRESS_ROUND]
        for position in range(recording.row.shape[0]):
            recording.offered[game, player, slot, position] = recording.row[position]


@compiled
def record_round(tables, public, game, recording):
    """After a round, when traced: every player's score if the game ended now."""
    round_number = public.progress[PROGRESS_ROUND]
    if recording.score_trace.shape[0] == 0 or round_number >= recording.score_trace.shape[1]:
        return
    for player in range(tables.players):
        recording.score_trace[game, round_number, player] = score_player(
            tables, public, player, recording.scratch, recording.points)


@inlined
def record_cards(public, game, recording):
    """At the end of the game: every player's cards, in the order taken, and their cubes."""
    for player in range(public.held_cards.shape[0]):
        recording.held_count[game, player] = public.held_count[player]
        for slot in range(public.held_cards.shape[1]):
            recording.held_cards[game, player, slot] = public.held_cards[player, slot]
            recording.cubes_placed[game, player, slot] = public.cubes_placed[player, slot]


@dataclass(frozen=True)
class GameResults:
    """Per-game, per-seat results of :func:`play_games` (first axis: game, second: seat).

    ``category_points[g, s, c]`` follows ``scoring.CATEGORY_NAMES``; ``rank`` is 1 for the
    best (equal players share a rank); ``win`` is 1/k for each of k tied winners, else 0;
    ``cubes_placed`` counts animal cubes (the tie-break); ``cards_completed`` animal cards."""

    category_points: np.ndarray  # int16[G, P, 7]
    total: np.ndarray  # int16[G, P]
    rank: np.ndarray  # int8[G, P]
    win: np.ndarray  # float64[G, P]
    cubes_placed: np.ndarray  # int16[G, P]
    cards_completed: np.ndarray  # int16[G, P]
    turns: np.ndarray  # int16[G, P]
    # The cards (see ``Recording``): per game, seat and card slot in the order taken.
    held_cards: np.ndarray  # int16[G, P, M] card indices (-1 past held_count)
    held_count: np.ndarray  # int16[G, P]
    card_cubes: np.ndarray  # int8[G, P, M]
    taken_round: np.ndarray  # int8[G, P, M]
    offered: np.ndarray  # int16[G, P, M, R]
    spirits_dealt: np.ndarray  # int16[G, P, 2]
    opening_row: np.ndarray  # int16[G, R] the face-up card row dealt (-1: empty slot)
    score_trace: np.ndarray  # int16[G, rounds, P], or [0, rounds, P] untraced


def new_game_results(tables, games: int, trace: bool = False) -> GameResults:
    """Zeroed result arrays for ``games`` games (``trace``: with the score trace)."""
    players, cards = tables.players, tables.max_cards_per_player
    per_seat = (games, players)
    return GameResults(
        category_points=np.zeros((*per_seat, CATEGORY_COUNT), dtype=np.int16),
        total=np.zeros(per_seat, dtype=np.int16),
        rank=np.zeros(per_seat, dtype=np.int8),
        win=np.zeros(per_seat, dtype=np.float64),
        cubes_placed=np.zeros(per_seat, dtype=np.int16),
        cards_completed=np.zeros(per_seat, dtype=np.int16),
        turns=np.zeros(per_seat, dtype=np.int16),
        held_cards=np.full((*per_seat, cards), -1, dtype=np.int16),
        held_count=np.zeros(per_seat, dtype=np.int16),
        card_cubes=np.zeros((*per_seat, cards), dtype=np.int8),
        taken_round=np.zeros((*per_seat, cards), dtype=np.int8),
        offered=np.full((*per_seat, cards, tables.card_row), -1, dtype=np.int16),
        spirits_dealt=np.full((*per_seat, 2), -1, dtype=np.int16),
        opening_row=np.full((games, tables.card_row), -1, dtype=np.int16),
        score_trace=np.zeros((games if trace else 0, max_rounds(tables), players),
                             dtype=np.int16),
    )


def raise_on_audit(codes: np.ndarray, deal_seeds: np.ndarray) -> None:
    """AssertionError naming the first game whose audit code is not AUDIT_OK."""
    bad = np.nonzero(codes)[0]
    if bad.size:
        game = int(bad[0])
        raise AssertionError(f"game {game} (deal seed {int(deal_seeds[game])}): "
                             f"{AUDIT_MESSAGES[int(codes[game])]}")
