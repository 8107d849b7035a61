"""The built-in Pick Two strategies dispatched by id inside compiled code."""

from __future__ import annotations

from numba import njit

from tests.toy_game.decisions import search_pick
from tests.toy_game.strategies import greedy_pick, random_pick

RANDOM = 0
GREEDY = 1
SEARCH = 2
POLICY_IDS = {"random": RANDOM, "greedy": GREEDY, "search": SEARCH}
PARAMETER_SLOTS = 2
USER_POLICY_BASE = 64


@njit(cache=True)
def choose_pick(policy, params, public, seat, pair_bonus, tiles, rng):
    """The offer tile (0 or 1) seat ``seat`` takes under ``policy`` (``tiles``: the deck file's
    tiles, public; their order in the game is not)."""
    if policy == GREEDY:
        return greedy_pick(public, seat, pair_bonus, rng, params[0])
    if policy == SEARCH:
        return search_pick(params, public, seat, pair_bonus, tiles, rng)
    return random_pick(rng)
