"""Dispatch of the built-in Harmonies strategies by id, inside compiled code: the entry points
the game loop calls for a seat (a whole turn, the spirit to keep, the solo discard).

One cached loop then serves every lineup of built-ins without recompiling. The ids are those of
``strategies.harmonies.ids`` (the valued strategies read them to pick their variant); a built-in
strategy class is found here by its name, and its parameters reach the named slots of its row
by ``Strategy.parameter_row``.
"""

from __future__ import annotations

import numpy as np

from sim.jit import compiled, inlined
from sim.rng import next_below
from strategies.harmonies.catalogue import BUILTIN_CLASSES
from strategies.harmonies.expert import expert_choose_spirit, expert_turn
from strategies.harmonies.greedy import greedy_turn
from strategies.harmonies.ids import (
    PARAMETER_SLOTS,
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_IDS,
    POLICY_RANDOM,
)
from strategies.harmonies.random_play import random_solo_discard, random_turn
from strategies.harmonies.valued import valued_turn

USER_POLICY_BASE = 64  # ids from here on are compiled user strategies (loop.compiled_variant)
assert {cls.name for cls in BUILTIN_CLASSES} == set(POLICY_IDS)


def default_parameter_table() -> np.ndarray:
    """float64[policies, PARAMETER_SLOTS]: the default row of every built-in policy id."""
    table = np.zeros((len(POLICY_IDS), PARAMETER_SLOTS), dtype=np.float64)
    for cls in BUILTIN_CLASSES:
        table[POLICY_IDS[cls.name]] = cls.parameter_row({}, PARAMETER_SLOTS)
    return table


# ``expert`` allocates its work arrays: called from the loop (compiled without reference
# counting, see ``sim.jit``) it needs a caller that counts, which its own functions inherit.
@compiled(refcounts=True)
def counted_expert_turn(tables, public, player, generator, work):
    """``expert_turn`` with reference counting."""
    return expert_turn(tables, public, player, generator, work)


@compiled(refcounts=True)
def counted_expert_choose_spirit(tables, offers):
    """``expert_choose_spirit`` with reference counting."""
    return expert_choose_spirit(tables, offers)


@inlined
def play_policy_turn(policy, tables, public, player, generator, work):
    """Play ``player``'s turn with policy id ``policy``; returns (space, card taken)."""
    if policy == POLICY_RANDOM:
        return random_turn(tables, public, player, generator, work)
    if policy == POLICY_GREEDY:
        return greedy_turn(tables, public, player, generator, work)
    if policy == POLICY_EXPERT:
        return counted_expert_turn(tables, public, player, generator, work)
    return valued_turn(tables, public, player, generator, work, policy)


@inlined
def choose_spirit(policy, tables, offers, generator):
    """Which of the two offered spirits (``offers``: the player's own two card indices) to
    keep: ``expert`` by its measured preference, every other policy at random (the board is
    empty at the first turn, so there is nothing on it to compare yet)."""
    if policy == POLICY_EXPERT:
        return counted_expert_choose_spirit(tables, offers)
    return next_below(generator, 2)


@inlined
def choose_solo_discard(policy, public, generator):
    """Solo discard decision: a row position to discard, or -1 (only ``random`` discards)."""
    if policy == POLICY_RANDOM:
        return random_solo_discard(public, generator)
    return -1
