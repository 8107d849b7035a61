"""The base class of Legendary Forests strategies (the shared model is ``sim.games.strategy``).

A strategy is a class with a ``name``, a one-line ``description`` and its ``parameters``
(``StrategyParameter``: name, default, help). It decides two things: which legal placement of
the revealed tile to make, and which legal (colour, zone) to take in a tree phase. It plays in one
of three ways, the first that applies:

1. **built-in** (``builtin = True``): compiled code inside the one cached game loop, dispatched
   by name there (``sim/loops/legendary_forests/dispatch.py``). Only the shipped strategies.
2. **compiled** (``compiled_placement`` and ``compiled_tree`` set to ``numba.njit`` functions):
   called from a loop variant built for the lineup, with the built-ins' signature minus the
   policy id::

       compiled_placement(params, tiles, table, player, tile, move_cells, move_rotations,
                          move_count, rng, scratch, preview) -> index into the moves
       compiled_tree(params, tiles, table, player, choice_colours, choice_zones, choice_count,
                     rng) -> index into the choices

   ``params`` is a float64 row of the parameter values in the order of ``parameters``. The
   variant is compiled once per process and lineup (a few seconds, not cached on disk).
3. **Python** (override ``choose_placement`` and ``choose_tree``): run by the Python driver,
   which hands over an ``Observation`` (public information only) and the legal options with
   previews. Slow, but a designer can try an idea in minutes.

A strategy never sees the draw order or the removed tiles: the table and the observation do not
hold them, and the Python driver builds observations from public state only.
"""

from __future__ import annotations

from typing import ClassVar

from sim.games.strategy import (
    KIND_BUILTIN,
    KIND_COMPILED,
    KIND_PYTHON,
)
from sim.games.strategy import Strategy as SharedStrategy

__all__ = ["KIND_BUILTIN", "KIND_COMPILED", "KIND_PYTHON", "Strategy"]


class Strategy(SharedStrategy):
    """Base class of Legendary Forests strategies (see the module docstring for the three kinds).

    Instances are made per seat and game run with the seat's parameter values; a Python strategy
    may keep state between its calls within a game (``new_game`` starts a game).
    """

    compiled_functions: ClassVar[tuple[str, ...]] = ("compiled_placement", "compiled_tree")
    python_methods: ClassVar[tuple[str, ...]] = ("choose_placement", "choose_tree")
    compiled_placement: ClassVar = None
    compiled_tree: ClassVar = None

    def choose_placement(self, observation, placements) -> int:
        """Python strategies: index into ``placements`` (a list of ``observation.Placement``)."""
        raise NotImplementedError(f"strategy '{self.name}' does not implement choose_placement")

    def choose_tree(self, observation, choices) -> int:
        """Python strategies: index into ``choices`` (a list of ``observation.TreeChoice``)."""
        raise NotImplementedError(f"strategy '{self.name}' does not implement choose_tree")
