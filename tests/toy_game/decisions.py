"""Pick Two on the decision interface (``sim.games.decisions``), and its ``search`` strategy.

Search state: ``(deck, public)`` as in ``rules`` (``deck[1]`` is the hidden order; the tiles
from ``public.progress[PROGRESS_DEALT]`` on are the ones nobody has seen). Context:
``(pair_bonus,)``. A decision code is the offer tile the chooser takes: 0 or 1. Applying it
resolves the round with the game's own ``resolve_pick`` and reveals the next offer
(``reveal_offer``), as the loop does.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from sim.games.decisions import decision_functions
from sim.rng import shuffle_in_place
from sim.search.ismcts import specialise
from tests.toy_game.rules import (
    PLAYERS,
    PROGRESS_DEALT,
    PROGRESS_ROUND,
    PublicState,
    chooser,
    hand_score,
    resolve_pick,
    reveal_offer,
)


@njit(cache=True)
def copy_state(context, source, target):
    """Copy every array of ``source`` into ``target``."""
    source_deck, source_public = source
    target_deck, target_public = target
    target_deck[:, :] = source_deck
    target_public.offer[:] = source_public.offer
    target_public.hands[:, :] = source_public.hands
    target_public.hand_count[:] = source_public.hand_count
    target_public.progress[:] = source_public.progress


@njit(cache=True)
def determinise(context, state, observer, rng):
    """Shuffle the tiles not dealt yet: their order is all nobody sees."""
    deck, public = state
    shuffle_in_place(rng, deck[1, public.progress[PROGRESS_DEALT]:])


@njit(cache=True)
def is_over(context, state):
    """Every round played."""
    deck, public = state
    return public.progress[PROGRESS_ROUND] >= public.hands.shape[1]


@njit(cache=True)
def to_move(context, state):
    """The round's chooser."""
    return chooser(state[1])


@njit(cache=True)
def decision_capacity(context, state):
    """Two offer tiles."""
    return 2


@njit(cache=True)
def legal_decisions(context, state, out):
    """Either offer tile."""
    out[0] = 0
    out[1] = 1
    return 2


@njit(cache=True)
def apply_decision(context, state, code):
    """The chooser takes offer tile ``code``; the next offer is revealed."""
    deck, public = state
    resolve_pick(public, code)
    if public.progress[PROGRESS_ROUND] < public.hands.shape[1]:
        reveal_offer(deck, public)


@njit(cache=True)
def final_results(context, state, scores, wins):
    """Hand scores; the win shared among the seats tied on top (as ``loop.record_game``)."""
    public = state[1]
    best = -np.inf
    for seat in range(PLAYERS):
        scores[seat] = hand_score(public, seat, context[0])
        best = max(best, scores[seat])
    top = 0
    for seat in range(PLAYERS):
        top += 1 if scores[seat] == best else 0
    for seat in range(PLAYERS):
        wins[seat] = 1.0 / top if scores[seat] == best else 0.0


def public_arrays(state, observer):
    """Everything but the hidden order: the deck file's order, the dealt tiles and the public
    state."""
    deck, public = state
    dealt = int(public.progress[PROGRESS_DEALT])
    return [deck[0], deck[1, :dealt], *public]


def hidden_items(context, state, observer):
    """The tiles not dealt yet."""
    deck, public = state
    return deck[1, int(public.progress[PROGRESS_DEALT]):].copy()


def new_game(data, players, rules, seed):
    """A game dealt from ``seed`` (``sim.rng`` stream 0), at its first pick."""
    from sim.games.decisions import rng_state
    from tests.toy_game.rules import deal, new_state

    deck, public = new_state(data, rules["rounds"])
    deal(deck, public, rng_state(seed))
    reveal_offer(deck, public)
    return (np.int64(rules["pair_bonus"]),), (deck, public)


def reference_scores(data, players, rules, context, state):
    """The loop's own result recording (``loop.record_game``)."""
    from tests.toy_game.loop import record_game

    columns = (np.zeros((1, PLAYERS), np.int16), np.zeros((1, PLAYERS), np.int8),
               np.zeros((1, PLAYERS), np.float32), np.zeros((1, PLAYERS), np.int8))
    record_game(state[1], context[0], 0, *columns)
    return columns[0][0].tolist()


DECISIONS = decision_functions("pick-two", globals(), score_scale=60.0)
SEARCH = specialise(DECISIONS)


def new_search_state(tiles: np.ndarray, rounds: int):
    """An empty search state for a deck of ``tiles`` and ``rounds`` rounds."""
    return (np.zeros((2, tiles.shape[0]), dtype=np.int16),
            PublicState(np.zeros(2, np.int16), np.zeros((PLAYERS, rounds), np.int16),
                        np.zeros(PLAYERS, np.int16), np.zeros(2, np.int16)))


@njit(cache=True)
def observe(tiles, public, state):
    """The search state of what every seat sees at a pick: the public state copied, the deck
    file's tiles in row 0 and, in row 1, the tiles seen so far followed by the unseen ones (in
    file order: ``determinise`` shuffles them)."""
    deck, copy = state
    copy.offer[:] = public.offer
    copy.hands[:, :] = public.hands
    copy.hand_count[:] = public.hand_count
    copy.progress[:] = public.progress
    deck[0, :] = tiles
    seen = np.zeros(tiles.shape[0], dtype=np.bool_)
    dealt = 0
    for seat in range(PLAYERS):
        for index in range(public.hand_count[seat]):
            dealt = _mark_seen(tiles, seen, public.hands[seat, index], deck, dealt)
    for slot in range(2):
        dealt = _mark_seen(tiles, seen, public.offer[slot], deck, dealt)
    for index in range(tiles.shape[0]):
        if not seen[index]:
            deck[1, dealt] = tiles[index]
            dealt += 1


@njit(cache=True)
def _mark_seen(tiles, seen, tile, deck, dealt):
    """Mark one copy of ``tile`` in the deck file as seen and put it at ``deck[1, dealt]``."""
    for index in range(tiles.shape[0]):
        if tiles[index] == tile and not seen[index]:
            seen[index] = True
            break
    deck[1, dealt] = tile
    return dealt + 1


@njit(cache=True)
def search_pick(params, public, seat, pair_bonus, tiles, rng):
    """``search``: the offer tile the information-set tree search picks with
    ``params = (playouts, exploration)``."""
    rounds = public.hands.shape[1]
    root = (np.zeros((2, tiles.shape[0]), dtype=np.int16),
            PublicState(np.zeros(2, np.int16), np.zeros((PLAYERS, rounds), np.int16),
                        np.zeros(PLAYERS, np.int16), np.zeros(2, np.int16)))
    scratch = (np.zeros((2, tiles.shape[0]), dtype=np.int16),
               PublicState(np.zeros(2, np.int16), np.zeros((PLAYERS, rounds), np.int16),
                           np.zeros(PLAYERS, np.int16), np.zeros(2, np.int16)))
    observe(tiles, public, root)
    return SEARCH((np.int64(pair_bonus),), root, scratch, np.int64(seat), rng,
                  np.int64(params[0]), params[1], np.int64(PLAYERS))
