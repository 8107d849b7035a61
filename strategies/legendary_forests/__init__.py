"""Legendary Forests strategies and their registry: name -> strategy class.

Three sources, looked up in this order:
- the built-ins of ``catalogue`` (``random``, ``greedy``, ``rune-hunter``, ``closer``,
  ``planner``, ``denier``, ``rollout``);
- every ``Strategy`` subclass with a ``name`` defined in a module of this package, so a designer
  can drop a single file into ``strategies/legendary_forests/`` and use it by name;
- ``module:Class`` (a module importable from the current directory or ``sys.path``) or
  ``path/to/file.py:Class``, loaded on first use and registered under that text.
"""

from __future__ import annotations

from sim.games.strategy import StrategyRegistry
from strategies.legendary_forests.base import Strategy


def _builtin_classes():
    from strategies.legendary_forests.catalogue import BUILTIN_CLASSES

    return BUILTIN_CLASSES


REGISTRY = StrategyRegistry(Strategy, __name__, __path__, _builtin_classes)
