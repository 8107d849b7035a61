"""The compiled entry points the engine calls for a seat, dispatched by policy id
(``strategies.harmonies.ids``): a whole turn, the spirit to keep, the solo discard."""

from __future__ import annotations

from numba import njit

from sim.rng import next_below
from strategies.harmonies.greedy import greedy_turn
from strategies.harmonies.ids import POLICY_GREEDY, POLICY_RANDOM
from strategies.harmonies.random_play import random_solo_discard, random_turn
from strategies.harmonies.valued import valued_turn


@njit(cache=True)
def play_policy_turn(policy, tables, public, player, generator, work):
    """Play ``player``'s turn with policy id ``policy``; returns (space, card taken)."""
    if policy == POLICY_RANDOM:
        return random_turn(tables, public, player, generator, work)
    if policy == POLICY_GREEDY:
        return greedy_turn(tables, public, player, generator, work)
    return valued_turn(tables, public, player, generator, work, policy)


@njit(cache=True)
def choose_spirit(policy, generator):
    """Which of the two offered spirits to keep: every policy picks at random (the board is
    empty at the first turn, so there is nothing to compare yet)."""
    return next_below(generator, 2)


@njit(cache=True)
def choose_solo_discard(policy, public, generator):
    """Solo discard decision: a row position to discard, or -1 (only ``random`` discards)."""
    if policy == POLICY_RANDOM:
        return random_solo_discard(public, generator)
    return -1
