"""Harmonies strategies and their registry: name -> strategy class (``sim.games.strategy``).

Every strategy plays whole turns through the actions of ``sim.games.harmonies.turn`` and sees
only the public state (boards, cards, central board, card row, the bag's counts), never the bag
order or the deck order. Modules:

* ``common``       the workspace of scratch arrays and small shared queries
* ``planning``     the turn search ``greedy`` and the valued strategies share (try every
                   central space, its tokens one at a time), written once as templates that
                   each strategy specialises with its own steps (``planning.specialise``)
* ``random_play``  ``random``: uniform among legal choices
* ``greedy``       ``greedy``: largest immediate score gain
* ``valued``       ``landscape``, ``animals``, ``planner``: a board value beyond the score now
* ``expert``       ``expert``: the planner's value, the better spirit, denial, look-ahead,
                   later habitats, clock options
* ``ids``          policy ids and the named parameter slots
* ``base``         the ``Strategy`` base class (built-in or compiled)
* ``catalogue``    the built-in strategy classes, parameters declared once

The compiled entry points, by policy id, are in the game loop: ``sim/loops/harmonies/dispatch.py``.
``search``, the tree search written once for every game (``sim.search.ismcts``), is not here:
it plays through the game's decision interface, ``sim/loops/harmonies/decisions.py``.
Drop a file with a ``Strategy`` subclass into this folder, or name ``module:Class``, to play a
strategy of your own.

Decision points of a turn (the same for every strategy):

1. take a face-up card (if allowed), then place cubes;
2. take a central space; place its tokens one at a time, choosing which token next and where;
   cubes may be placed after each token;
3. if no card was taken and the card limit now allows one (a card was completed), take a card,
   then place cubes;
4. solo, if no card was taken: discard a face-up card or not.

Strategy parameters (``planner:cards=1.5``) are a row of floats per seat
(``ids.PARAMETER_NAMES``); each strategy declares the ones it lets users tune.
"""

from __future__ import annotations

from sim.games.strategy import StrategyRegistry
from strategies.harmonies.base import Strategy


def _builtin_classes():
    from strategies.harmonies.catalogue import BUILTIN_CLASSES

    return BUILTIN_CLASSES


REGISTRY = StrategyRegistry(Strategy, __name__, __path__, _builtin_classes)
