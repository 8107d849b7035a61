"""Parsing strategy specs written by users: ``greedy``, ``planner:rollouts=64,depth=2``, or
``planner@tuned.toml`` (the parameter values of a parameters file, e.g. one written by
``sim tune-strategy``), optionally followed by settings that override the file's
(``planner@tuned.toml:hope=0.5``).

A parameters file is TOML::

    strategy = "planner"          # optional: the strategy the values are for
    [parameters]
    growth = 0.61
    closing = 2.3
    [tuning]                      # optional and ignored: how the values were found
    command = "sim tune-strategy planner ..."

Every value is checked like a ``key=value`` setting (known parameter, a number, in range); a
spec's label (``StrategySpec.label``) spells the values out, so the results and manifests of a
batch never depend on the file staying where it was.
"""

from __future__ import annotations

import math
from pathlib import Path

from sim.errors import InputError, did_you_mean
from sim.files import read_user_toml
from sim.games.base import StrategyInfo, StrategySpec

PARAMETERS_FILE_FIELDS = ("strategy", "parameters", "tuning")


def split_parameters_file(text: str) -> tuple[str, str | None, str]:
    """``(name, parameters file or None, settings)`` of ``name[@file][:k=v,...]``; settings
    follow the file after its last colon when they hold an ``=``."""
    name, at, rest = text.strip().partition("@")
    if not at:
        return text.strip(), None, ""
    path, colon, settings = rest.rpartition(":")
    if not colon or "=" not in settings:
        path, settings = rest, ""
    return name.strip(), path.strip(), settings


def split_strategy_text(text: str) -> tuple[str, str]:
    """``(name, settings)`` of ``name[:k=v,...]``, where a name may itself be ``module:Class``
    (a user strategy): the part after the first colon is a class name, not settings, when it
    holds no ``=``. A ``@file`` part stays with the name."""
    name, file, file_settings = split_parameters_file(text)
    if file is not None:
        return f"{name}@{file}", file_settings
    name, _, settings = text.strip().partition(":")
    head, colon, rest = settings.partition(":")
    if settings and "=" not in head:
        return f"{name}:{head}", rest if colon else ""
    return name, settings


def read_parameters_file(path: str | Path, info: StrategyInfo, source: str) -> dict[str, float]:
    """The parameter values of a parameters file (module docstring) for strategy ``info``, each
    checked; any problem is a one-line InputError naming ``source``, the file and the reason."""
    path = Path(path)
    where = f"{source}: parameters file '{path}'"
    try:
        document = read_user_toml(path, "parameters file")
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    for key in document:
        if key not in PARAMETERS_FILE_FIELDS:
            raise InputError(f"{where}: unknown field '{key}'"
                             f"{did_you_mean(key, PARAMETERS_FILE_FIELDS)}; expected "
                             f"{', '.join(PARAMETERS_FILE_FIELDS)}")
    named = document.get("strategy", info.name)
    if not isinstance(named, str):
        raise InputError(f"{where}: field 'strategy': expected a string, got {named!r}")
    if named != info.name:
        raise InputError(f"{where}: holds parameters of strategy '{named}', not '{info.name}'")
    table = document.get("parameters", {})
    if not isinstance(table, dict):
        raise InputError(f"{where}: field 'parameters': expected a table of name = number")
    known = {p.name: p for p in info.parameters}
    values: dict[str, float] = {}
    for key, value in table.items():
        if key not in known:
            raise InputError(f"{where}: strategy '{info.name}' has no parameter '{key}'"
                             f"{did_you_mean(key, known)}")
        values[key] = known[key].check(value, where, info.name)
    return values


def format_parameters_file(strategy: str, values: dict[str, float],
                           tuning: dict[str, object] | None = None,
                           comment: str = "") -> str:
    """A parameters file's text (module docstring); ``tuning`` (strings and numbers) records
    how the values were found. ``read_parameters_file`` reads it back to the same values."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    lines.append(f"strategy = {_toml_value(strategy)}")
    lines.append("")
    lines.append("[parameters]")
    lines += [f"{key} = {_toml_value(float(value))}" for key, value in values.items()]
    if tuning:
        lines.append("")
        lines.append("[tuning]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in tuning.items()]
    return "\n".join(lines) + "\n"


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"a parameters file holds finite numbers only, got {value}")
        return repr(value)
    text = str(value)
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def parse_strategy(text: str, registry: dict[str, StrategyInfo], source: str,
                   base_dir: Path | None = None) -> StrategySpec:
    """Resolve ``text`` against ``registry``; errors name ``source`` and the reason. A
    ``name@file`` spec reads the file (relative to ``base_dir`` when given, e.g. a config's
    folder, else to the current directory); settings after it override the file's values."""
    name, file, file_settings = split_parameters_file(text)
    if file is not None:
        if not file:
            raise InputError(f"{source}: strategy '{text}': expected name@parameters-file.toml")
        info = _registered(name, registry, source)
        path = Path(file)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        parameters = read_parameters_file(path, info, source)
        parameters.update(_settings(text, name, file_settings, info, source))
        return StrategySpec(name, parameters)
    name, settings = split_strategy_text(text)
    first, colon, rest = text.strip().partition(":")
    if colon and first in registry and "=" not in rest:
        # `planner:hope`: settings without `=`, not a module named like a built-in.
        raise InputError(f"{source}: strategy '{text}': expected name:key=value settings "
                         f"(e.g. {first}:key=1), got '{rest}'")
    info = _registered(name, registry, source)
    return StrategySpec(name, _settings(text, name, settings, info, source))


def _registered(name: str, registry, source: str) -> StrategyInfo:
    try:
        known = name in registry  # a module:Class name is loaded here
    except InputError as error:
        raise InputError(f"{source}: {error}") from None
    if not known:
        raise InputError(f"{source}: unknown strategy '{name}'{did_you_mean(name, registry)}; "
                         f"known: {', '.join(sorted(registry))}")
    return registry[name]


def _settings(text: str, name: str, settings: str, info: StrategyInfo,
              source: str) -> dict[str, float]:
    known = {p.name: p for p in info.parameters}
    parameters: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in settings.split(","))):
        key, equals, value = item.partition("=")
        key = key.strip()
        if not equals:
            raise InputError(f"{source}: strategy '{text}': expected key=value, got '{item}'")
        if key not in known:
            raise InputError(f"{source}: strategy '{name}' has no parameter '{key}'"
                             f"{did_you_mean(key, known)}")
        try:
            number = float(value)
        except ValueError:
            raise InputError(f"{source}: strategy '{name}': parameter '{key}' must be a number, "
                             f"got '{value}'") from None
        parameters[key] = known[key].check(number, source, name)
    return parameters


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
