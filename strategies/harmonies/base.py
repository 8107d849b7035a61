"""The base class of Harmonies strategies (the shared model is ``sim.games.strategy``).

A Harmonies strategy plays whole turns through the actions of ``sim.games.harmonies.turn`` and
sees only the public state. It plays in one of two ways:

1. **built-in** (``builtin = True``): compiled code inside the one cached game loop, dispatched
   by name there (``sim/loops/harmonies/dispatch.py``). Only the shipped strategies.
2. **compiled** (``compiled_turn`` set to a ``numba.njit`` function): called from a loop variant
   built for the lineup::

       compiled_turn(params, tables, public, player, generator, work) -> (space, took_card)

   with the built-ins' contract (``strategies.harmonies.random_play.random_turn`` is the
   smallest example): take a central space and place its tokens, optionally take a card and
   place cubes, through ``sim.games.harmonies.turn``; ``params`` is the seat's float64 row
   (slots named by ``ids.PARAMETER_NAMES``). The spirit (variant) is chosen at random and a
   compiled strategy never makes the solo discard.

Python strategies are not offered for Harmonies yet: a turn is several linked decisions and
there is no Python driver with an observation for them (``python_methods`` is empty, so such a
class gets a one-line error).
"""

from __future__ import annotations

from typing import ClassVar

from sim.games.strategy import Strategy as SharedStrategy
from strategies.harmonies.ids import PARAMETER_NAMES


class Strategy(SharedStrategy):
    """Base class of Harmonies strategies: parameters go to the named slots of ``ids``."""

    compiled_functions: ClassVar[tuple[str, ...]] = ("compiled_turn",)
    python_methods: ClassVar[tuple[str, ...]] = ()
    parameter_slots: ClassVar[tuple[str, ...]] = PARAMETER_NAMES
    compiled_turn: ClassVar = None
