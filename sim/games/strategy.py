"""The one strategy model every game shares: the ``Strategy`` base class and its registry.

A strategy is a class with a ``name``, a one-line ``description`` and its ``parameters``
(``StrategyParameter``: name, default, help), declared once. Each game subclasses ``Strategy``
in ``strategies/<game>/base.py`` and says there which compiled functions a compiled strategy
sets (``compiled_functions``) and which methods a Python strategy overrides
(``python_methods``). A strategy plays in one of three ways, the first that applies:

1. **built-in** (``builtin = True``): the shipped strategies, compiled into the one cached game
   loop and dispatched there by name (``sim/loops/<game>/dispatch.py``).
2. **compiled**: every function named in ``compiled_functions`` is set to a ``numba.njit``
   function; the game loop is re-compiled once per process and lineup to call them.
3. **Python**: every method named in ``python_methods`` is overridden; a Python driver plays the
   game and asks them (slower, but an idea can be tried in minutes).

Parameters reach compiled code as one float64 row per seat: by default parameter ``k`` of the
class is slot ``k``; a game with a shared slot layout names its slots (``parameter_slots``) and
each parameter goes to the slot of its name, with ``fixed_parameters`` for slots a strategy reads
but does not let users tune.

``StrategyRegistry`` finds a game's strategies in three places, looked up in this order: the
built-ins, every ``Strategy`` subclass with a ``name`` in a module of the game's strategy
package (drop a file into ``strategies/<game>/`` and use it by name), and ``module:Class`` or
``path/to/file.py:Class``, loaded on first use and registered under that text.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import ClassVar

import numpy as np

from sim.errors import InputError
from sim.files import read_user_toml
from sim.games.base import StrategyInfo, StrategyParameter

KIND_BUILTIN = "built-in"
KIND_COMPILED = "compiled"
KIND_PYTHON = "python"
# Previous shipped defaults: parameters files in this folder of a game's strategy package.
DEFAULTS_FOLDER = "defaults"


# The parameters of ``search``, the information-set Monte Carlo tree search every game registers
# (``sim.search.ismcts``; tests/test_decisions.py keeps these defaults equal to its own), written
# once for each game's strategy class.
SEARCH_PARAMETERS = (
    StrategyParameter("playouts", 100, "playouts (tree iterations) per decision", minimum=1,
                      maximum=100000, integer=True),
    StrategyParameter("exploration", 0.7, "UCB1 exploration constant (results are win shares "
                      "in [0, 1])", minimum=0.0, maximum=10.0),
)

class Strategy:
    """Base class of every game's strategies (see the module docstring for the three kinds).

    Instances are made per seat and game run with the seat's parameter values; a Python strategy
    may keep state between its calls within a game (``new_game`` starts a game).
    """

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    parameters: ClassVar[tuple[StrategyParameter, ...]] = ()
    builtin: ClassVar[bool] = False
    # The league (``sim league``): the game's strongest strategy, whose default must top it, and
    # documented variants as settings text (``("space=0",)`` is the member ``name:space=0``).
    strongest: ClassVar[bool] = False
    variants: ClassVar[tuple[str, ...]] = ()
    # Set by each game's base class: the compiled hooks and the Python methods of a strategy.
    compiled_functions: ClassVar[tuple[str, ...]] = ()
    python_methods: ClassVar[tuple[str, ...]] = ()
    # Named parameter slots (a game's shared layout), or () for "parameter k is slot k".
    parameter_slots: ClassVar[tuple[str, ...]] = ()
    fixed_parameters: ClassVar[dict[str, float]] = {}

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

    @classmethod
    def game_base(cls) -> type[Strategy]:
        """The game's own base class (the first subclass of ``Strategy`` in the MRO)."""
        for klass in reversed(cls.__mro__):
            if isinstance(klass, type) and issubclass(klass, Strategy) and klass is not Strategy:
                return klass
        return Strategy

    @classmethod
    def kind(cls) -> str:
        """``built-in``, ``compiled`` or ``python``: how the game loop runs this strategy."""
        if cls.builtin:
            return KIND_BUILTIN
        compiled = [getattr(cls, name, None) is not None for name in cls.compiled_functions]
        if any(compiled):
            if not all(compiled):
                raise InputError(f"strategy '{cls.name}': set all of "
                                 f"{', '.join(cls.compiled_functions)}, or none")
            return KIND_COMPILED
        base = cls.game_base()
        if not cls.python_methods:
            raise InputError(f"strategy '{cls.name}' ({cls.__module__}.{cls.__qualname__}) "
                             f"has neither compiled functions nor Python methods: set "
                             f"{', '.join(cls.compiled_functions)} (this game plays no Python "
                             f"strategies)")
        if any(getattr(cls, name) is getattr(base, name) for name in cls.python_methods):
            raise InputError(f"strategy '{cls.name}' ({cls.__module__}.{cls.__qualname__}) "
                             f"has neither compiled functions nor Python methods "
                             f"{' and '.join(cls.python_methods)}")
        return KIND_PYTHON

    @classmethod
    def compiled(cls) -> tuple:
        """The compiled hooks of a compiled strategy, in ``compiled_functions`` order."""
        return tuple(getattr(cls, name) for name in cls.compiled_functions)

    @classmethod
    def info(cls, registered_name: str | None = None,
             previous_defaults: tuple[tuple[str, str], ...] = ()) -> StrategyInfo:
        """The ``StrategyInfo`` the CLI shows and validates parameters against;
        ``previous_defaults`` (member name, parameters file) come from the registry, which knows
        the game's strategy package (``StrategyRegistry.previous_defaults``)."""
        return StrategyInfo(registered_name or cls.name, cls.description, tuple(cls.parameters),
                            strongest=bool(cls.strongest), variants=tuple(cls.variants),
                            previous_defaults=tuple(previous_defaults))

    @classmethod
    def parameter_row(cls, values: dict[str, float], slots: int) -> np.ndarray:
        """The float64 row of parameter values (defaults and fixed values filled in) that
        compiled code reads."""
        row = np.zeros(slots, dtype=np.float64)
        if not cls.parameter_slots:
            if len(cls.parameters) > slots:
                raise InputError(f"strategy '{cls.name}': at most {slots} parameters are "
                                 f"supported, it declares {len(cls.parameters)}")
            for slot, parameter in enumerate(cls.parameters):
                row[slot] = values.get(parameter.name, parameter.default)
            return row
        settings = dict(cls.fixed_parameters)
        settings.update({p.name: values.get(p.name, p.default) for p in cls.parameters})
        for name, value in settings.items():
            if name not in cls.parameter_slots:
                raise InputError(f"strategy '{cls.name}': parameter '{name}' has no slot "
                                 f"(slots: {', '.join(cls.parameter_slots)})")
            row[cls.parameter_slots.index(name)] = value
        return row


def import_user_module(module_name: str):
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


def load_strategy_class(text: str, base: type[Strategy]) -> type[Strategy]:
    """The class named by ``module:Class`` (or ``file.py:Class``), checked to be a ``base``."""
    module_name, _, class_name = text.rpartition(":")
    if not module_name or not class_name:
        raise InputError(f"strategy '{text}': expected module:Class")
    module = import_user_module(module_name)
    found = getattr(module, class_name, None)
    if found is None:
        raise InputError(f"strategy '{text}': module '{module_name}' has no '{class_name}'")
    if not (isinstance(found, type) and issubclass(found, base)):
        raise InputError(f"strategy '{text}': '{class_name}' is not a subclass of "
                         f"{base.__module__}.{base.__qualname__}")
    found.kind()  # raises a one-line error when it can neither be compiled nor run in Python
    return found


class StrategyRegistry(Mapping):
    """A game's strategies as ``name -> StrategyInfo`` (what the CLI validates against), with
    ``strategy_class(name)`` for the class. ``module:Class`` names load on first lookup.

    ``base`` is the game's ``Strategy`` subclass, ``package`` and ``path`` its strategy package
    (the drop-in folder), ``builtins`` a function giving the shipped classes (called on first
    use, so importing the registry imports no strategy code)."""

    def __init__(self, base: type[Strategy], package: str, path: Iterable[str],
                 builtins: Callable[[], Iterable[type[Strategy]]]) -> None:
        self.base = base
        self._package = package
        self._path = list(path)
        self._builtins = builtins
        self._builtin_classes: dict[str, type[Strategy]] | None = None
        self._classes: dict[str, type[Strategy]] | None = None
        self._defaults_files: list[tuple[str, str, str | None]] | None = None

    def _builtin(self) -> dict[str, type[Strategy]]:
        """The shipped strategies only: asking for one never runs a drop-in file."""
        if self._builtin_classes is None:
            self._builtin_classes = {cls.name: cls for cls in self._builtins()}
        return self._builtin_classes

    def _registered(self) -> dict[str, type[Strategy]]:
        """Built-ins and drop-ins: the drop-in files are imported here, only when a name is not a
        built-in or the strategies are listed (a broken one is a one-line error naming it)."""
        if self._classes is None:
            classes: dict[str, type[Strategy]] = dict(self._builtin())
            for found in pkgutil.iter_modules(self._path):
                if found.name.startswith("_"):
                    continue
                module_name = f"{self._package}.{found.name}"
                module = import_user_module(module_name)
                for value in vars(module).values():
                    if (isinstance(value, type) and issubclass(value, self.base)
                            and value.__module__ == module_name and value.name):
                        if value.name in classes and classes[value.name] is not value:
                            raise InputError(f"{module_name}: strategy name '{value.name}' is "
                                             f"already registered")
                        value.kind()
                        classes[value.name] = value
            self._classes = classes
        return self._classes

    def _previous_defaults_files(self) -> list[tuple[str, str, str | None]]:
        """(file stem, path, the file's ``strategy`` field or None) of every parameters file in
        a ``defaults/`` folder of the strategy package, sorted by path; read once."""
        if self._defaults_files is None:
            found = []
            for folder in self._path:
                for path in sorted((Path(folder) / DEFAULTS_FOLDER).glob("*.toml")):
                    document = read_user_toml(path, "previous default")
                    named = document.get("strategy")
                    found.append((path.stem, str(path), named if isinstance(named, str)
                                  else None))
            self._defaults_files = found
        return self._defaults_files

    def previous_defaults(self, name: str) -> tuple[tuple[str, str], ...]:
        """The previous shipped defaults of strategy ``name``: (member name = file stem, path)
        of each parameters file in the package's ``defaults/`` folder that is for ``name`` (its
        ``strategy`` field, or, without one, a stem ``name-...``)."""
        return tuple((stem, path) for stem, path, named in self._previous_defaults_files()
                     if named == name or (named is None and stem.startswith(f"{name}-")))

    def strategy_class(self, name: str) -> type[Strategy]:
        """The class registered as ``name`` (loading ``module:Class`` names)."""
        if name in self._builtin():
            return self._builtin()[name]
        classes = self._registered()
        if name not in classes and ":" in name:
            classes[name] = load_strategy_class(name, self.base)
        if name not in classes:
            raise InputError(f"unknown strategy '{name}'")
        return classes[name]

    def __contains__(self, name: object) -> bool:
        if not isinstance(name, str):
            return False
        if name in self._builtin() or name in self._registered():
            return True
        if ":" in name:
            self.strategy_class(name)
            return True
        return False

    def __getitem__(self, name: str) -> StrategyInfo:
        if name not in self:
            raise KeyError(name)
        return self.strategy_class(name).info(name, self.previous_defaults(name))

    def __iter__(self) -> Iterator[str]:
        return iter(self._registered())

    def __len__(self) -> int:
        return len(self._registered())
