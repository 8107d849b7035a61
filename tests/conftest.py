"""Registers the toy game of ``tests/toy_game`` for the whole test session, the way an installed
package's ``sim.games`` entry point would: through the game registry, before any test module
(and so before the CLI) is imported."""

from sim.games.registry import register_game
from tests.toy_game.game import PickTwo

register_game(PickTwo())
