"""The games `sim` knows, by name."""

from __future__ import annotations

from sim.errors import InputError
from sim.games.base import Game


def games() -> dict[str, Game]:
    """Every available game, by its CLI name."""
    from sim.games.harmonies.game_interface import Harmonies
    from sim.games.legendary_forests.game import LegendaryForests

    found: dict[str, Game] = {"legendary-forests": LegendaryForests(), "harmonies": Harmonies()}
    return found


def get_game(name: str, source: str = "--game") -> Game:
    """The game called ``name``, or a one-line InputError listing the known games."""
    known = games()
    if name not in known:
        from sim.strategy_spec import did_you_mean

        raise InputError(f"{source}: unknown game '{name}'{did_you_mean(name, known)}; "
                         f"known: {', '.join(known)}")
    return known[name]
