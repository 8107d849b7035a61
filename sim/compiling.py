"""Saying so before a long first compile: whether a game's kernels are in numba's on-disk cache.

A game's compiled kernels take a minute or two to compile the first time; numba then keeps them
on disk (``NUMBA_CACHE_DIR``, see ``sim/__init__.py``) and later runs load them at once. The game
names the kernels each of its methods runs (``Game.cached_kernels``); this module reads their
cache index files, as numba itself would before compiling (same file, same check of the source
file's stamp), so it can tell a cold cache from a warm one without compiling anything.
"""

from __future__ import annotations

from collections.abc import Iterable

from sim.games.base import Game


def kernel_is_cached(dispatcher) -> bool:
    """True when numba's on-disk cache holds at least one compiled version of ``dispatcher``
    (a function compiled with ``cache=True``) that numba would load: its index file exists,
    was written by this numba version and matches the source file's current stamp. A
    dispatcher without an on-disk cache counts as cached (there is nothing to warn about)."""
    cache = getattr(dispatcher, "_cache", None)
    index = getattr(cache, "_cache_file", None)
    if index is None:  # numba's NullCache: compiled in memory every run, not a first-run cost
        return True
    try:
        # numba's own reader: {} when the file is missing, stale or from another numba.
        return bool(index._load_index())
    except Exception:  # noqa: BLE001 - an unreadable index means numba recompiles too
        return False


def kernels_are_cached(dispatchers: Iterable) -> bool:
    """True when every dispatcher of ``dispatchers`` is in the on-disk cache."""
    return all(kernel_is_cached(dispatcher) for dispatcher in dispatchers)


def about(seconds: float) -> str:
    """A wait in words: "about 20 s", "about a minute", "about 3 minutes"."""
    if seconds < 50:
        return f"about {max(5, 5 * round(seconds / 5)):.0f} s"
    if seconds < 80:
        return "about a minute"
    if seconds < 110:
        return "about a minute and a half"
    return f"about {round(seconds / 60)} minutes"


# What the kernels of each method play, named when a game compiles different kernels for them:
# `sim play` then `sim bench` of the same game each compile their own, and two identical lines
# "compiling the <game> kernels" read as one compile announced twice.
METHOD_KERNELS = {"play_one": "one-game", "play_shard": "batch", "final_drawings": "batch"}


def kernels_named(game: Game, methods: Iterable[str]) -> str:
    """How the compile line names the kernels of ``methods``: "the <game> kernels", or
    "the <game> one-game kernels" / "batch kernels" when the game's methods do not all
    run the same kernels."""
    methods = list(methods)
    used = {method: {id(kernel) for kernel in game.cached_kernels(method)}
            for method in METHOD_KERNELS}
    if len({frozenset(kernels) for kernels in used.values()}) <= 1:
        return f"the {game.title} kernels"
    kinds = list(dict.fromkeys(METHOD_KERNELS.get(method, method) for method in methods))
    return f"the {game.title} {' and '.join(kinds)} kernels"


def compile_notice(game: Game, methods: Iterable[str],
                   strategies: Iterable[str] = ()) -> str | None:
    """The status line to show before calling ``game``'s ``methods`` (``"play_shard"``,
    ``"play_one"``, ``"final_drawings"``) with the built-in ``strategies`` (names) in the
    seats, when the loop's kernels or a strategy compiled on its own
    (``Game.strategy_kernels``) must be compiled first; None when all are in the cache (or
    the game names no kernels). The wait is the sum of the parts still to compile
    (``Game.compile_seconds``, ``Game.strategy_compile_seconds``; strategies sharing their
    compiled functions count once). Each command announces once, before it plays; a game
    whose one game and batches run different kernels says which (``kernels_named``)."""
    methods = list(methods)
    kernels = [kernel for method in methods for kernel in game.cached_kernels(method)]
    loop_cold = bool(kernels) and not kernels_are_cached(kernels)
    own_kernels = {name: game.strategy_kernels(name) for name in strategies}
    cold = [name for name, own in own_kernels.items() if own and not kernels_are_cached(own)]
    if not loop_cold and not cold:
        return None
    seconds = game.compile_seconds if loop_cold else 0.0
    counted = set()
    for name in cold:
        shared = tuple(id(kernel) for kernel in own_kernels[name])
        if shared not in counted:
            counted.add(shared)
            seconds += game.strategy_compile_seconds.get(name, 0.0)
    parts = [kernels_named(game, methods)] if loop_cold else []
    if cold:
        named = f"{', '.join(cold)} {'strategy' if len(cold) == 1 else 'strategies'}"
        parts.append(f"the {named}" if loop_cold else f"the {game.title} {named}")
    estimate = f", {about(seconds)}" if seconds else ""
    return f"compiling {' and '.join(parts)} (first run only{estimate})..."
