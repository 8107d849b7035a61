"""The base class of Legendary Forests strategies.

A strategy is a class with a ``name``, a one-line ``description`` and its ``parameters``
(``StrategyParameter``: name, default, help). It decides two things: which legal placement of
the revealed tile to make, and which legal (colour, zone) to take in a tree phase. It plays in one
of three ways, the first that applies:

1. **built-in** (``policy_id`` set): compiled code inside the one cached game kernel, dispatched by
   id (``builtin.choose_placement`` / ``builtin.choose_tree``). Only the shipped strategies.
2. **compiled** (``compiled_placement`` and ``compiled_tree`` set to ``numba.njit`` functions):
   called from a kernel variant built for the lineup, with the built-ins' signature minus the id::

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

import numpy as np

from sim.errors import InputError
from sim.games.base import StrategyInfo, StrategyParameter

KIND_BUILTIN = "built-in"
KIND_COMPILED = "compiled"
KIND_PYTHON = "python"


class Strategy:
    """Base class of Legendary Forests strategies (see the module docstring for the three kinds).

    Instances are made per seat and game run with the seat's parameter values; a Python strategy
    may keep state between its calls within a game (``new_game`` starts a game).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    parameters: ClassVar[tuple[StrategyParameter, ...]] = ()
    policy_id: ClassVar[int | None] = None
    compiled_placement: ClassVar = None
    compiled_tree: ClassVar = None

    def __init__(self, **values: float) -> None:
        known = {p.name: p.default for p in self.parameters}
        unknown = set(values) - set(known)
        if unknown:
            raise InputError(f"strategy '{self.name}': unknown parameter(s) "
                             f"{', '.join(sorted(unknown))}")
        known.update({k: float(v) for k, v in values.items()})
        self.parameter_values: dict[str, float] = known
        self.seat = 0
        self.rng: np.random.Generator = np.random.default_rng(0)

    def new_game(self, seat: int, rng: np.random.Generator) -> None:
        """Called by the Python driver before every game: the seat played and a generator for the
        strategy's own random choices (seeded from the game's strategy seed and the seat)."""
        self.seat = seat
        self.rng = rng

    def choose_placement(self, observation, placements) -> int:
        """Python strategies: index into ``placements`` (a list of ``observation.Placement``)."""
        raise NotImplementedError(f"strategy '{self.name}' does not implement choose_placement")

    def choose_tree(self, observation, choices) -> int:
        """Python strategies: index into ``choices`` (a list of ``observation.TreeChoice``)."""
        raise NotImplementedError(f"strategy '{self.name}' does not implement choose_tree")

    @classmethod
    def kind(cls) -> str:
        """``built-in``, ``compiled`` or ``python``: how the engine runs this strategy."""
        if cls.policy_id is not None:
            return KIND_BUILTIN
        if cls.compiled_placement is not None or cls.compiled_tree is not None:
            if cls.compiled_placement is None or cls.compiled_tree is None:
                raise InputError(f"strategy '{cls.name}': set both compiled_placement and "
                                 f"compiled_tree, or neither")
            return KIND_COMPILED
        if (cls.choose_placement is Strategy.choose_placement
                or cls.choose_tree is Strategy.choose_tree):
            raise InputError(f"strategy '{cls.name}' ({cls.__module__}.{cls.__qualname__}) "
                             f"has neither compiled functions nor Python methods "
                             f"choose_placement and choose_tree")
        return KIND_PYTHON

    @classmethod
    def info(cls, registered_name: str | None = None) -> StrategyInfo:
        """The ``StrategyInfo`` the CLI shows and validates parameters against."""
        return StrategyInfo(registered_name or cls.name, cls.description, tuple(cls.parameters))

    @classmethod
    def parameter_row(cls, values: dict[str, float], slots: int) -> np.ndarray:
        """The float64 row of parameter values (defaults filled in) compiled code reads."""
        if len(cls.parameters) > slots:
            raise InputError(f"strategy '{cls.name}': at most {slots} parameters are supported, "
                             f"it declares {len(cls.parameters)}")
        row = np.zeros(slots, dtype=np.float64)
        for slot, parameter in enumerate(cls.parameters):
            row[slot] = values.get(parameter.name, parameter.default)
        return row
