"""Dispatch of the built-in Harmonies strategies by id, inside compiled code: the entry points
the game loop calls for a seat (a whole turn, the spirit to keep, the solo discard).

One cached loop then serves every lineup of built-ins without recompiling: ``random`` and
``greedy`` are pasted into it, the others are called through a table of compiled functions
(``strategy_table``) and compiled on their own, only when a lineup plays them. The ids are those of
``strategies.harmonies.ids`` (the valued strategies read them to pick their variant); a built-in
strategy class is found here by its name, and its parameters reach the named slots of its row
by ``Strategy.parameter_row``.
"""

from __future__ import annotations

import numpy as np
from numba import types

from sim.jit import compiled, compiled_function, inlined, typeof_cached
from sim.loops.harmonies.decisions import search_turn
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
    POLICY_SEARCH,
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


# Only ``random`` and ``greedy`` are pasted into the loop (fast ones, and greedy the strategy of
# a first run). Every other built-in is called through a table of compiled functions
# (``strategy_table``, see ``sim.jit``), so a cold loop compiles without them and each is
# compiled, or loaded from the cache, only when a lineup plays it; a turn costs far more than
# the call.


# ``expert`` allocates its work arrays: called from the loop (compiled without reference
# counting, see ``sim.jit``) it needs a caller that counts, which its own functions inherit.
@compiled(refcounts=True, c_callable=True)
def counted_expert_turn(tables, public, player, generator, work, policy):
    """``expert_turn`` with reference counting (``policy`` is unused: the signature is the
    table's)."""
    return expert_turn(tables, public, player, generator, work)


@compiled(c_callable=True)
def valued_policy_turn(tables, public, player, generator, work, policy):
    """``valued_turn`` of ``planner``, ``landscape`` or ``animals`` (by ``policy``)."""
    return valued_turn(tables, public, player, generator, work, policy)


@compiled(c_callable=True)
def unplayed_turn(tables, public, player, generator, work, policy):
    """What the table holds for a turn slot no seat of the shard plays (the loop never calls
    it: a slot is called only for a seat playing its policy)."""
    return -1, False


@compiled(refcounts=True, c_callable=True)
def counted_expert_choose_spirit(tables, offers):
    """``expert_choose_spirit`` with reference counting."""
    return expert_choose_spirit(tables, offers)


@compiled(c_callable=True)
def unplayed_spirit(tables, offers):
    """What the table holds for the spirit slot when no seat plays ``expert``."""
    return 0


# What the table holds for each policy id (the ids the loop plays itself hold a placeholder).
TURN_FUNCTIONS = {POLICY_EXPERT: counted_expert_turn,
                  **{POLICY_IDS[name]: valued_policy_turn
                     for name in ("planner", "landscape", "animals")},
                  POLICY_SEARCH: search_turn}
# The compiled functions of each strategy in the table, by name (compiled when first played).
TABLE_FUNCTIONS = {name: (TURN_FUNCTIONS[policy],) for name, policy in POLICY_IDS.items()
                   if policy in TURN_FUNCTIONS}
TABLE_FUNCTIONS["expert"] += (counted_expert_choose_spirit,)


def strategy_table(lineup_ids: np.ndarray, tables, public, work, hidden, instrument=None):
    """The loop's table of compiled strategies for games whose seats play the policy ids in
    ``lineup_ids``: (turn functions, one per policy id; the expert's spirit choice), the real
    function for an id a seat plays and a placeholder otherwise. The signatures are those of
    the state arrays given (the loop's own). ``instrument`` (the profiler's) rebuilds each
    real one."""
    played = {int(policy) for policy in np.unique(lineup_ids)}
    real = instrument or (lambda function: function)
    generator = typeof_cached(work.generators[0])
    turn = types.Tuple((types.int64, types.boolean))(
        typeof_cached(tables), typeof_cached(public), types.int64, generator,
        typeof_cached(work), types.int64)
    spirit = types.int64(typeof_cached(tables), typeof_cached(hidden.spirit_offers[0]))
    turns = tuple(
        compiled_function(real(TURN_FUNCTIONS[policy])
                          if policy in played and policy in TURN_FUNCTIONS else unplayed_turn,
                          turn)
        for policy in range(len(POLICY_IDS)))
    expert = POLICY_EXPERT in played
    return (turns, compiled_function(real(counted_expert_choose_spirit) if expert
                                     else unplayed_spirit, spirit))


@inlined
def play_policy_turn(policy, strategies, tables, public, player, generator, work):
    """Play ``player``'s turn with policy id ``policy`` (``strategies``: the table of
    ``strategy_table``); returns (space, card taken)."""
    if policy == POLICY_RANDOM:
        return random_turn(tables, public, player, generator, work)
    if policy == POLICY_GREEDY:
        return greedy_turn(tables, public, player, generator, work)
    # The ids are checked when the lineup is built (``loop.game_lineups``).
    return strategies[0][policy](tables, public, np.int64(player), generator, work,
                                 np.int64(policy))


@inlined
def choose_spirit(policy, strategies, tables, offers, generator):
    """Which of the two offered spirits (``offers``: the player's own two card indices) to
    keep: ``expert`` by its measured preference, every other policy at random (the board is
    empty at the first turn, so there is nothing on it to compare yet)."""
    if policy == POLICY_EXPERT:
        return strategies[1](tables, offers)
    return next_below(generator, 2)


@inlined
def choose_solo_discard(policy, public, generator):
    """Solo discard decision: a row position to discard, or -1 (only ``random`` discards)."""
    if policy == POLICY_RANDOM:
        return random_solo_discard(public, generator)
    return -1
