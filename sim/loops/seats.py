"""What every game loop does to seat a lineup and to lay out a shard's rows, written once.

A lineup is a list of ``StrategySpec`` entries; the compiled loop reads a policy id (int8) and
a row of float64 parameters per entry. Built-in strategies have the ids of the game's
``POLICY_IDS``; compiled user strategies are numbered from the game's ``USER_POLICY_BASE`` in
the order they first appear (entry ``k`` of ``user_functions`` plays as policy id
``USER_POLICY_BASE + k``, what the game's ``compiled_variant`` is built from); Python
strategies keep policy id 0 and are played by the game's Python driver.

The rows store has one row per (game, seat), game-major: ``seat_column``, ``per_seat_rows``
and ``per_game_rows`` turn a shard's ``[games, players, ...]`` and ``[games, ...]`` result
arrays into that layout.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

import numpy as np

from sim.games.base import StrategySpec
from sim.games.strategy import KIND_BUILTIN, KIND_COMPILED, Strategy, StrategyRegistry


class SeatArrays(NamedTuple):
    """A lineup as the game loop reads it, one entry per lineup entry."""

    policies: np.ndarray  # int8[entries]: policy id
    parameters: np.ndarray  # float64[entries, slots]: the parameter row compiled code reads
    # The distinct compiled user strategies (whatever ``user_function`` gives for each class),
    # in order of first appearance: entry k plays as policy id ``user_policy_base + k``.
    user_functions: list
    # Per entry: (class, parameter values) of a Python strategy, else None.
    python_strategies: list


def compiled_hooks(cls: type[Strategy]) -> tuple:
    """Every compiled hook of a compiled strategy, as one tuple (a game with several hooks)."""
    return cls.compiled()


def only_compiled_hook(cls: type[Strategy]):
    """The one compiled hook of a compiled strategy (a game whose strategies set one)."""
    (hook,) = cls.compiled()
    return hook


def seat_arrays(registry: StrategyRegistry, lineup: Sequence[StrategySpec],
                policy_ids: Mapping[str, int], parameter_slots: int, user_policy_base: int,
                user_function: Callable[[type[Strategy]], object] = compiled_hooks
                ) -> SeatArrays:
    """Policy id, parameter row and kind-specific data of every ``lineup`` entry (see the
    module docstring); ``user_function(cls)`` is what the game's loop variant is compiled
    from for a compiled user strategy (``compiled_hooks`` or ``only_compiled_hook``)."""
    policies = np.zeros(len(lineup), dtype=np.int8)
    parameters = np.zeros((len(lineup), parameter_slots), dtype=np.float64)
    user_functions: list = []
    python_strategies: list = [None] * len(lineup)
    for entry, spec in enumerate(lineup):
        cls = registry.strategy_class(spec.name)
        parameters[entry] = cls.parameter_row(spec.parameters, parameter_slots)
        kind = cls.kind()
        if kind == KIND_BUILTIN:
            policies[entry] = policy_ids[cls.name]
        elif kind == KIND_COMPILED:
            function = user_function(cls)
            # Two entries of one strategy (other parameters, say) share its variant slot.
            if function not in user_functions:
                user_functions.append(function)
            policies[entry] = user_policy_base + user_functions.index(function)
        else:
            python_strategies[entry] = (cls, spec.parameters)
    return SeatArrays(policies, parameters, user_functions, python_strategies)


def seat_column(games: int, players: int) -> np.ndarray:
    """int8 ``seat`` column of a shard: 0 .. players - 1 for each game in turn."""
    return np.tile(np.arange(players, dtype=np.int8), games)


def per_seat_rows(array, dtype=None) -> np.ndarray:
    """A ``[games, players]`` result array as one value per row (game-major), in ``dtype``
    when given."""
    contiguous = np.ascontiguousarray(array, dtype=dtype)
    return contiguous.reshape(contiguous.shape[0] * contiguous.shape[1])


def per_game_rows(array, players: int) -> np.ndarray:
    """A ``[games, ...]`` result array with each game's value repeated on each of its
    ``players`` rows."""
    return np.repeat(np.asarray(array), players, axis=0)
