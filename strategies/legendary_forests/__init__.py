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

import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from sim.errors import InputError
from sim.games.base import StrategyInfo
from strategies.legendary_forests.base import Strategy

_INTERNAL_MODULES = {"base", "baseline", "builtin", "catalogue", "evaluation", "planner",
                     "rollout", "shapers"}


def _import_user_module(module_name: str):
    """Import ``module_name`` (a dotted name, or a path ending in ``.py``); the current directory
    is searched too, as a user runs ``sim`` from their project."""
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise InputError(f"strategy module '{module_name}': file not found")
        unique = f"_sim_user_strategy_{abs(hash(str(path.resolve())))}"
        if unique in sys.modules:
            return sys.modules[unique]
        spec = importlib.util.spec_from_file_location(unique, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        try:
            spec.loader.exec_module(module)
        except Exception as error:
            del sys.modules[unique]
            raise InputError(f"strategy module '{module_name}': {type(error).__name__}: "
                             f"{error}") from None
        return module
    cwd = os.getcwd()
    if cwd not in sys.path:
        sys.path.append(cwd)
    try:
        return importlib.import_module(module_name)
    except ImportError as error:
        raise InputError(f"strategy module '{module_name}' cannot be imported: {error}") from None
    except Exception as error:
        raise InputError(f"strategy module '{module_name}': {type(error).__name__}: "
                         f"{error}") from None


def load_strategy_class(text: str) -> type[Strategy]:
    """The class named by ``module:Class`` (or ``file.py:Class``), checked to be a strategy."""
    module_name, _, class_name = text.rpartition(":")
    if not module_name or not class_name:
        raise InputError(f"strategy '{text}': expected module:Class")
    module = _import_user_module(module_name)
    found = getattr(module, class_name, None)
    if found is None:
        raise InputError(f"strategy '{text}': module '{module_name}' has no '{class_name}'")
    if not (isinstance(found, type) and issubclass(found, Strategy)):
        raise InputError(f"strategy '{text}': '{class_name}' is not a subclass of "
                         f"strategies.legendary_forests.base.Strategy")
    found.kind()  # raises a one-line error when it can neither be compiled nor run in Python
    return found


class StrategyRegistry(Mapping):
    """Registered strategies as ``name -> StrategyInfo`` (what the CLI validates against), with
    ``strategy_class(name)`` for the class. ``module:Class`` names load on first lookup."""

    def __init__(self) -> None:
        self._classes: dict[str, type[Strategy]] | None = None

    def _registered(self) -> dict[str, type[Strategy]]:
        if self._classes is None:
            from strategies.legendary_forests.catalogue import BUILTIN_CLASSES

            classes: dict[str, type[Strategy]] = {cls.name: cls for cls in BUILTIN_CLASSES}
            for found in pkgutil.iter_modules(__path__):
                if found.name in _INTERNAL_MODULES or found.name.startswith("_"):
                    continue
                module_name = f"{__name__}.{found.name}"
                module = _import_user_module(module_name)
                for value in vars(module).values():
                    if (isinstance(value, type) and issubclass(value, Strategy)
                            and value.__module__ == module_name and value.name):
                        if value.name in classes and classes[value.name] is not value:
                            raise InputError(f"{module_name}: strategy name '{value.name}' is "
                                             f"already registered")
                        value.kind()
                        classes[value.name] = value
            self._classes = classes
        return self._classes

    def strategy_class(self, name: str) -> type[Strategy]:
        """The class registered as ``name`` (loading ``module:Class`` names)."""
        classes = self._registered()
        if name not in classes and ":" in name:
            classes[name] = load_strategy_class(name)
        if name not in classes:
            raise InputError(f"unknown strategy '{name}'")
        return classes[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._registered():
            return True
        if ":" in name:
            self.strategy_class(name)
            return True
        return False

    def __getitem__(self, name: str) -> StrategyInfo:
        if name not in self:
            raise KeyError(name)
        return self.strategy_class(name).info(name)

    def __iter__(self) -> Iterator[str]:
        return iter(self._registered())

    def __len__(self) -> int:
        return len(self._registered())


REGISTRY = StrategyRegistry()
