"""Parsing strategy specs written by users: ``greedy`` or ``planner:rollouts=64,depth=2``."""

from __future__ import annotations

import difflib

from sim.errors import InputError
from sim.games.base import StrategyInfo, StrategySpec


def did_you_mean(word: str, choices) -> str:
    """`` (did you mean 'x'?)`` when a close match exists, else an empty string."""
    close = difflib.get_close_matches(word, list(choices), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def split_strategy_text(text: str) -> tuple[str, str]:
    """``(name, settings)`` of ``name[:k=v,...]``, where a name may itself be ``module:Class``
    (a user strategy): the part after the first colon is a class name, not settings, when it
    holds no ``=``."""
    name, _, settings = text.strip().partition(":")
    head, colon, rest = settings.partition(":")
    if settings and "=" not in head:
        return f"{name}:{head}", rest if colon else ""
    return name, settings


def parse_strategy(text: str, registry: dict[str, StrategyInfo], source: str) -> StrategySpec:
    """Resolve ``text`` against ``registry``; errors name ``source`` and the reason."""
    name, settings = split_strategy_text(text)
    first, colon, rest = text.strip().partition(":")
    if colon and first in registry and "=" not in rest:
        # `planner:hope`: settings without `=`, not a module named like a built-in.
        raise InputError(f"{source}: strategy '{text}': expected name:key=value settings "
                         f"(e.g. {first}:key=1), got '{rest}'")
    try:
        known = name in registry  # a module:Class name is loaded here
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    if not known:
        raise InputError(f"{source}: unknown strategy '{name}'{did_you_mean(name, registry)}; "
                         f"known: {', '.join(sorted(registry))}")
    info = registry[name]
    known = {p.name: p for p in info.parameters}
    parameters: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in settings.split(","))):
        key, equals, value = item.partition("=")
        if not equals:
            raise InputError(f"{source}: strategy '{text}': expected key=value, got '{item}'")
        if key not in known:
            raise InputError(f"{source}: strategy '{name}' has no parameter '{key}'"
                             f"{did_you_mean(key, known)}")
        try:
            parameters[key] = float(value)
        except ValueError:
            raise InputError(f"{source}: strategy '{name}': parameter '{key}' must be a number, "
                             f"got '{value}'") from None
    return StrategySpec(name, parameters)


def strategy_file(text: str) -> str | None:
    """The file of a ``path/to/file.py:Class[:settings]`` strategy as written, else None."""
    name, _ = split_strategy_text(text)
    module, colon, _ = name.rpartition(":")
    return module if colon and module.endswith(".py") else None


def loadable_text(label: str, strategy_files: dict[str, str]) -> str:
    """``label`` with its strategy file (as the user wrote it) replaced by where the file is
    loaded from (``strategy_files``: written path -> path to load): labels stay as written in
    results and manifests while the code is found wherever the config or the batch is."""
    written = strategy_file(label)
    if written is None or written not in strategy_files:
        return label
    name, settings = split_strategy_text(label)
    class_name = name.rpartition(":")[2]
    return f"{strategy_files[written]}:{class_name}" + (f":{settings}" if settings else "")
