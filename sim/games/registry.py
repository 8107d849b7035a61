"""The games `sim` knows, by name: one registry that installed packages extend.

A game registers through the ``sim.games`` entry-point group: a package names its ``Game``
subclass in its metadata, e.g. in ``pyproject.toml``::

    [project.entry-points."sim.games"]
    my-game = "my_package.game:MyGame"

The entry point's name is the game's CLI name (``Game.name``). This project's own games are
registered the same way, so nothing outside a game's folders names a game: statistics, reports,
configs and the CLI ask this registry for the games, their titles, data options, rules
parameters, result columns and report notes. ``register_game`` adds a game at run time (tests
use it for the toy game that lives under ``tests/``).
"""

from __future__ import annotations

from importlib.metadata import entry_points

from sim.errors import InputError, did_you_mean
from sim.games.base import Game

ENTRY_POINT_GROUP = "sim.games"

_installed: dict[str, Game] | None = None  # every entry point's game, once all are loaded
_loaded: dict[str, Game] = {}  # the entry points loaded so far, by name
_added: dict[str, Game] = {}


def _load_entry(entry) -> Game:
    """The game of one ``sim.games`` entry point, checked (a one-line InputError otherwise)."""
    if entry.name in _loaded:
        return _loaded[entry.name]
    try:
        game_class = entry.load()
    except Exception as error:
        raise InputError(f"entry point '{entry.name} = {entry.value}' "
                         f"(group {ENTRY_POINT_GROUP}): {type(error).__name__}: "
                         f"{error}") from None
    game = game_class() if isinstance(game_class, type) else game_class
    if not isinstance(game, Game):
        raise InputError(f"entry point '{entry.name} = {entry.value}' (group "
                         f"{ENTRY_POINT_GROUP}): not a sim.games.base.Game")
    if game.name != entry.name:
        raise InputError(f"entry point '{entry.name} = {entry.value}' (group "
                         f"{ENTRY_POINT_GROUP}): the game calls itself '{game.name}'")
    _loaded[entry.name] = game
    return game


def _load_installed() -> dict[str, Game]:
    """The games of the ``sim.games`` entry points, in the order their metadata lists them."""
    found: dict[str, Game] = {}
    for entry in entry_points(group=ENTRY_POINT_GROUP):
        if entry.name not in found:  # else the same distribution seen twice on sys.path
            found[entry.name] = _load_entry(entry)
    return found


def games() -> dict[str, Game]:
    """Every available game, by its CLI name, in the order of ``Game.listing_order`` (then
    installed before added). The first is the default of every ``--game`` option."""
    global _installed
    if _installed is None:
        _installed = _load_installed()
    everything = list({**_installed, **_added}.items())
    ordered = sorted(range(len(everything)),
                     key=lambda index: (everything[index][1].listing_order, index))
    return dict(everything[index] for index in ordered)


def register_game(game: Game) -> None:
    """Make ``game`` available under ``game.name`` in this process (it replaces an earlier
    registration of that name)."""
    if not isinstance(game, Game) or not game.name:
        raise InputError(f"register_game: {game!r} is not a named sim.games.base.Game")
    _added[game.name] = game


def unregister_game(name: str) -> None:
    """Remove a game added by ``register_game`` (installed games stay)."""
    _added.pop(name, None)


def default_game() -> str:
    """The name of the first registered game (what ``--game`` and a config default to)."""
    known = games()
    if not known:
        raise InputError(f"no game is registered (entry-point group {ENTRY_POINT_GROUP}); "
                         f"is sim installed (pip install -e .)?")
    return next(iter(known))


def get_game(name: str, source: str = "--game") -> Game:
    """The game called ``name``, or a one-line InputError listing the known games. Only that
    game's entry point is loaded (a run of one game, and each of its worker processes, does
    not import the others' engines and strategies)."""
    if name in _added:
        return _added[name]
    if name in _loaded:
        return _loaded[name]
    if _installed is None:
        for entry in entry_points(group=ENTRY_POINT_GROUP, name=name):
            return _load_entry(entry)
    known = games()
    if name not in known:
        raise InputError(f"{source}: unknown game '{name}'{did_you_mean(name, known)}; "
                         f"known: {', '.join(known)}")
    return known[name]
