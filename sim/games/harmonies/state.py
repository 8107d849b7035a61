"""Game state as flat numpy arrays, the deal, and drawing from the bag and the deck.

The state is split in two so that a policy can be handed only what players may see:

* :data:`PublicState`: every personal board (stacks, heights, cubes), every player's cards and
  cubes placed, the central board, the card row, the bag's remaining *counts*, the box, progress.
* :data:`HiddenState`: the bag's order, the deck's order, where the next draws come from, and the
  spirit cards dealt face down.

Policies receive a :data:`PublicState` (and their own spirit offer when they must choose), never
a :data:`HiddenState`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from sim.games.harmonies.colours import COLOUR_COUNT, MAX_STACK_HEIGHT, NO_TOKEN
from sim.jit import compiled, inlined
from sim.rng import seed_state, shuffle_in_place

PublicState = namedtuple(
    "PublicState",
    [
        "stacks",  # int8[P, H, 3] colour per level, bottom first (only levels < height count)
        "heights",  # int8[P, H] tokens on the hex
        "cube_heights",  # int8[P, H] 0: no cube; else the stack height when the cube went on
        "held_cards",  # int16[P, M] card indices in the order taken, -1 past held_count
        "cubes_placed",  # int8[P, M] cubes moved from that card to the board
        "held_count",  # int16[P] cards taken so far (completed ones included)
        "central",  # int8[S, T] token colours per central space
        "central_count",  # int8[S] tokens in the space (0 or T)
        "card_row",  # int16[R] face-up card indices, -1 for an empty slot
        "bag_counts",  # int16[6] tokens of each colour left in the bag
        "box_counts",  # int16[6] tokens gone to the box (solo leftovers, unplaceable tokens)
        "turns_played",  # int16[P]
        "progress",  # int32[3]: round, end triggered (0/1), current seat
    ],
)

HiddenState = namedtuple(
    "HiddenState",
    [
        "bag_order",  # int8[N] the bag's tokens in draw order
        "deck_order",  # int16[A] animal card indices in draw order
        "draw_positions",  # int32[2]: next bag token, next deck card
        "spirit_offers",  # int16[P, 2] spirit card indices dealt face down, -1 when none
    ],
)

PROGRESS_ROUND, PROGRESS_END_TRIGGERED, PROGRESS_SEAT = 0, 1, 2
DRAW_BAG, DRAW_DECK = 0, 1
# Streams of the deal seed (see sim.rng.seed_state): one per shuffled thing, so changing how one
# is used never shifts another.
STREAM_BAG, STREAM_DECK, STREAM_SPIRITS = 0, 1, 2


def new_state(tables) -> tuple[PublicState, HiddenState]:
    """Allocate the arrays of one game for ``tables`` (contents are set by :func:`deal`)."""
    players, hexes = tables.players, tables.hex_count
    cards = tables.max_cards_per_player
    public = PublicState(
        stacks=np.zeros((players, hexes, MAX_STACK_HEIGHT), dtype=np.int8),
        heights=np.zeros((players, hexes), dtype=np.int8),
        cube_heights=np.zeros((players, hexes), dtype=np.int8),
        held_cards=np.full((players, cards), -1, dtype=np.int16),
        cubes_placed=np.zeros((players, cards), dtype=np.int8),
        held_count=np.zeros(players, dtype=np.int16),
        central=np.full((tables.central_spaces, tables.tokens_per_space), NO_TOKEN, np.int8),
        central_count=np.zeros(tables.central_spaces, dtype=np.int8),
        card_row=np.full(tables.card_row, -1, dtype=np.int16),
        bag_counts=np.zeros(COLOUR_COUNT, dtype=np.int16),
        box_counts=np.zeros(COLOUR_COUNT, dtype=np.int16),
        turns_played=np.zeros(players, dtype=np.int16),
        progress=np.zeros(3, dtype=np.int32),
    )
    hidden = HiddenState(
        bag_order=np.zeros(tables.bag_total, dtype=np.int8),
        deck_order=np.zeros(tables.animal_cards.shape[0], dtype=np.int16),
        draw_positions=np.zeros(2, dtype=np.int32),
        spirit_offers=np.full((players, 2), -1, dtype=np.int16),
    )
    return public, hidden


@inlined
def bag_remaining(hidden):
    """Tokens still in the bag."""
    return hidden.bag_order.shape[0] - hidden.draw_positions[DRAW_BAG]


@inlined
def draw_token(public, hidden):
    """Take the next token out of the bag; returns its colour (the caller checks the bag)."""
    colour = hidden.bag_order[hidden.draw_positions[DRAW_BAG]]
    hidden.draw_positions[DRAW_BAG] += 1
    public.bag_counts[colour] -= 1
    return colour


@inlined
def draw_card(hidden):
    """The next animal card of the deck, or -1 when the deck is empty."""
    position = hidden.draw_positions[DRAW_DECK]
    if position >= hidden.deck_order.shape[0]:
        return -1
    hidden.draw_positions[DRAW_DECK] += 1
    return hidden.deck_order[position]


@compiled(always_inline=True)
def fill_central_space(tables, public, hidden, space):
    """Fill an empty central space from the bag. Returns False, leaving the space empty and the
    bag untouched, when the bag holds fewer tokens than a space takes (the end trigger)."""
    if bag_remaining(hidden) < tables.tokens_per_space:
        return False
    for slot in range(tables.tokens_per_space):
        public.central[space, slot] = draw_token(public, hidden)
    public.central_count[space] = tables.tokens_per_space
    return True


@compiled(always_inline=True)
def fill_card_row(public, hidden):
    """Put a card from the deck on every empty slot of the card row (while the deck lasts)."""
    for position in range(public.card_row.shape[0]):
        if public.card_row[position] < 0:
            public.card_row[position] = draw_card(hidden)


@compiled(refcounts=True)
def deal(tables, public, hidden, deal_seed):
    """Reset the state to the start of a game: shuffle the bag and the deck with ``deal_seed``,
    fill the central board and the card row, deal 2 spirits per player when the variant is on."""
    public.stacks[:] = 0
    public.heights[:] = 0
    public.cube_heights[:] = 0
    public.held_cards[:] = -1
    public.cubes_placed[:] = 0
    public.held_count[:] = 0
    public.central[:] = NO_TOKEN
    public.central_count[:] = 0
    public.card_row[:] = -1
    public.box_counts[:] = 0
    public.turns_played[:] = 0
    public.progress[:] = 0
    hidden.draw_positions[:] = 0
    hidden.spirit_offers[:] = -1

    generator = np.zeros(4, dtype=np.uint64)
    position = 0
    for colour in range(COLOUR_COUNT):
        public.bag_counts[colour] = tables.bag[colour]
        for _ in range(tables.bag[colour]):
            hidden.bag_order[position] = colour
            position += 1
    seed_state(generator, deal_seed, STREAM_BAG)
    shuffle_in_place(generator, hidden.bag_order)

    # Copied element by element: an array-to-array slice assignment compiles numba's
    # shape-mismatch error message (string formatting, about 2 s of every cold compile).
    for position in range(hidden.deck_order.shape[0]):
        hidden.deck_order[position] = tables.animal_cards[position]
    seed_state(generator, deal_seed, STREAM_DECK)
    shuffle_in_place(generator, hidden.deck_order)

    if tables.spirits_enabled:
        spirits = tables.spirit_cards.copy()
        seed_state(generator, deal_seed, STREAM_SPIRITS)
        shuffle_in_place(generator, spirits)
        for player in range(tables.players):
            hidden.spirit_offers[player, 0] = spirits[2 * player]
            hidden.spirit_offers[player, 1] = spirits[2 * player + 1]

    for space in range(tables.central_spaces):
        fill_central_space(tables, public, hidden, space)
    fill_card_row(public, hidden)


@inlined
def full_space_count(public):
    """Central spaces holding tokens."""
    count = 0
    for space in range(public.central_count.shape[0]):
        if public.central_count[space] > 0:
            count += 1
    return count
