"""Experiment configs: one TOML file describes a batch (see ``configs/README.md``).

``load_config`` reads and validates a file, applies command-line overrides and returns a
``BatchConfig`` with every field resolved. Any problem is a one-line ``InputError`` naming the
file, the field and the reason.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from sim.errors import InputError, did_you_mean
from sim.files import escape_control_characters, is_control_character, read_user_toml
from sim.games.base import Game, StrategySpec
from sim.games.registry import default_game, games, get_game
from sim.seating import (
    DEFAULT_POOL_DESIGN,
    OFFERED_POOL_DESIGNS,
    POOL_DESIGNS,
    pool_lineup_count,
)
from sim.strategy_spec import (
    loadable_text,
    parse_strategy,
    split_parameters_file,
    split_strategy_text,
    strategy_file,
)

STORES = ("rows", "summary")
DEFAULT_SHARD_SIZE = 10_000
# Limits checked before anything is planned or allocated: a trillion games would take weeks
# at a million games a second; a shard is one compiled call holding all its games in memory
# at once; seeds feed a 64-bit seed sequence.
MAX_GAMES = 10**12
MAX_SEED = 2**64 - 1
MAX_SHARD_SIZE = 1_000_000

# Every top-level field a config may have, with its expected type and a description.
FIELDS: dict[str, tuple[type | tuple[type, ...], str]] = {
    "name": (str, "batch name (default: the config file's stem)"),
    "game": (str, "the game (sim.games registry; default: the first registered)"),
    "players": (int, "number of players"),
    "strategies": (list, "one strategy per seat, or a single one for every seat"),
    "pool": (list, "strategies that rotate through the seats (instead of `strategies`)"),
    "pool_design": (str, "a pool larger than the table: balanced (default) or every-order"),
    "games": (int, "number of games (each on its own deal); or give deals and replicates"),
    "deals": (int, "number of deals (shuffles) in a nested design"),
    "replicates_per_deal": (int, "games played on each deal, with other strategy seeds"),
    "seed": (int, "master seed"),
    "shard_size": (int, "games per shard (one compiled call, one Parquet file)"),
    "output": (str, "output folder of the batch (relative to the current directory)"),
    "store": (str, "rows (one row per player per game) or summary (aggregates only)"),
    "trace": (bool, "rows store: also keep every seat's score after each round (score_trace)"),
    "rules": (dict, "rules parameters of the game"),
    "fields": (list, "fields of players, each playing the same deals (sim run / sim sweep; "
                     "e.g. [\"strong\", \"casual\"], see sim.fields)"),
}


# Fields of a config that say where things are, not what is played.
LOCATION_FIELDS = ("output", "data_file", "strategy_files")


@dataclass(frozen=True)
class BatchConfig:
    """A fully resolved batch. ``games == deals * replicates_per_deal``."""

    name: str
    game: str
    players: int
    lineup: tuple[str, ...]  # strategy labels: per seat, or the pool when ``rotate`` is True
    rotate: bool
    games: int
    deals: int
    replicates_per_deal: int
    seed: int
    shard_size: int
    output: str
    store: str
    rules: dict[str, int] = field(default_factory=dict)
    data_file: str | None = None
    data_digest: str = ""
    tags: dict[str, Any] = field(default_factory=dict)  # constant columns (e.g. a sweep point)
    # Strategy files of the lineup: the path as the user wrote it in a label -> where the code
    # is loaded from (absolute in a loaded config; in a manifest, the batch's own copy).
    strategy_files: dict[str, str] = field(default_factory=dict)
    trace: bool = False  # rows store: every seat's score after each round (``score_trace``)
    # How a pool larger than the table is seated (``sim.seating.pool_lineups``); None for a
    # fixed lineup or a pool no larger than the table, which have one way only.
    pool_design: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The config as a plain dict (what the manifest stores). ``pool_design`` appears only
        where it applies, so batches without one keep the manifest and identity they had."""
        values = asdict(self)
        if values["pool_design"] is None:
            del values["pool_design"]
        return values

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of the config (its paths included)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def identity(self) -> dict[str, Any]:
        """What decides the results: the config without the fields that only say where things
        are (a batch that moved, or a data file named by another path, is the same batch)."""
        return {k: v for k, v in self.to_json().items() if k not in LOCATION_FIELDS}

    def identity_digest(self) -> str:
        """SHA-256 of ``identity``: the same wherever the config or its batch lives."""
        text = json.dumps(self.identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()

    def loadable(self, label: str) -> str:
        """A lineup label as the registry loads it (its strategy file where it is now)."""
        return loadable_text(label, self.strategy_files)

    @property
    def shards(self) -> int:
        """Number of shards in the batch."""
        return -(-self.games // self.shard_size)


def data_fields() -> set[str]:
    """The data-file fields of every registered game (each game names its own)."""
    return {game.data_option for game in games().values() if game.data_option}


def _type_name(expected) -> str:
    names = {int: "an integer", str: "a string", list: "an array", dict: "a table",
             bool: "true or false"}
    if isinstance(expected, tuple):
        return " or ".join(names[t] for t in expected)
    return names[expected]


def _check_type(value: Any, expected, source: str, name: str) -> Any:
    ok = isinstance(value, expected) and not (isinstance(value, bool) and expected is not bool)
    if not ok:
        raise InputError(f"{source}: field '{name}': expected {_type_name(expected)}, "
                         f"got {type(value).__name__} {value!r}")
    return value


def check_code_strategy(text: str, base_dir: Path, where: str, allow_code: bool,
                        known: Any) -> str | None:
    """Check a ``module:Class`` or ``file.py:Class`` strategy of a config (or sweep) file before
    anything of it is imported; returns where its strategy file is (resolved from ``base_dir``,
    the config's folder), or None when it names no file.

    Such a file is often someone else's: it may name built-ins, drop-ins, and files in its own
    folder; any other module or file runs code the user did not ask for, so it needs
    ``--allow-code`` on the command line."""
    name, _ = split_strategy_text(text)
    if ":" not in name or text.strip().partition(":")[0] in known:
        return None  # a built-in or drop-in name (parse_strategy checks its settings)
    module = name.rpartition(":")[0]
    if module.endswith(".py"):
        path = Path(module)
        resolved = (path if path.is_absolute() else base_dir / path).resolve()
        if resolved.parent != base_dir.resolve() and not allow_code:
            raise InputError(f"{where}: strategy file '{module}' is outside the config's "
                             f"folder; add --allow-code to run it")
        return str(resolved)
    if not allow_code:
        raise InputError(f"{where}: strategy module '{module}' would run code; add "
                         f"--allow-code to import it")
    return None


def _strategy_label(entry: Any, game: Game, source: str, where: str,
                    base_dir: Path | None = None, allow_code: bool = True,
                    strategy_files: dict[str, str] | None = None) -> str:
    """A strategy entry is a spec string or an inline table {name = ..., key = value}; from a
    config file (``base_dir`` given) a strategy that would run code is checked first. The label
    keeps a strategy file's path as written; where the file is goes into ``strategy_files``
    (resolved from the config's folder, or from the current directory for the command line)."""
    if isinstance(entry, dict):
        table = dict(entry)
        name = table.pop("name", None)
        if not isinstance(name, str):
            raise InputError(f"{source}: field '{where}': a strategy table needs name = \"...\"")
        text = name + (":" + ",".join(f"{k}={v}" for k, v in table.items()) if table else "")
    elif isinstance(entry, str):
        text = entry
    else:
        raise InputError(f"{source}: field '{where}': expected a strategy name or table, "
                         f"got {entry!r}")
    written = strategy_file(text)
    if base_dir is not None:
        resolved = check_code_strategy(text, base_dir, f"{source}: field '{where}'", allow_code,
                                       game.strategies())
    elif written is not None:
        resolved = str(Path(written).resolve())  # the user's own request, from where they are
    else:
        resolved = None
    files = {written: resolved} if written is not None and resolved is not None else {}
    if runs_code(text, game.strategies()):
        # Nothing of it is imported yet: its code runs only once every other option has been
        # checked (``load_lineup_code``), which also checks its settings against its class.
        if strategy_files is not None:
            strategy_files.update(files)
        if resolved is not None:
            beside = base_dir is not None and Path(resolved).parent == base_dir.resolve()
            note_strategy_origin(resolved, "beside the config" if beside else
                                 "allowed by --allow-code" if base_dir is not None else
                                 "named on the command line")
        return _unloaded_label(text, written, f"{source}: field '{where}'", base_dir)
    # A parameters file (`planner@tuned.toml`) named by a config is read from the config's
    # folder; the label spells its values out, so the batch does not depend on the file.
    spec = parse_strategy(loadable_text(text, files), game.strategies(),
                          f"{source}: field '{where}'", base_dir)
    if strategy_files is not None:
        strategy_files.update(files)
    if written is None:
        return spec.label()
    # The label as written: the file's path relative to the config, not where it resolved.
    return StrategySpec(f"{written}:{spec.name.rpartition(':')[2]}", spec.parameters).label()


def runs_code(text: str, registry: Any) -> bool:
    """True when strategy ``text`` (a spec or a label) names a ``module:Class`` or
    ``file.py:Class``, whose code runs when it is loaded; False for a built-in or drop-in name
    (whatever its settings), which ``registry`` knows without running user code."""
    name, _ = split_strategy_text(text)
    return ":" in name and text.strip().partition(":")[0] not in registry


def _unloaded_label(text: str, written: str | None, where: str, base_dir: Path | None) -> str:
    """The label of a code strategy (``module:Class[:settings]``, ``file.py:Class@params.toml``)
    without importing it: its settings (and a parameters file's values, read from ``base_dir``)
    spelled out as ``parse_strategy`` would, a strategy file as written. Whether the class has
    those parameters, and their ranges, is checked when it is loaded (``load_lineup_code``)."""
    name, file, settings = split_parameters_file(text)
    values: dict[str, float] = {}
    if file is not None:
        path = Path(file)
        if base_dir is not None and not path.is_absolute():
            path = base_dir / path
        try:
            table = read_user_toml(path, "parameters file").get("parameters", {})
        except InputError as error:
            raise InputError(f"{where}: {error}") from None
        if not isinstance(table, dict):
            raise InputError(f"{where}: parameters file '{path}': field 'parameters': expected "
                             f"a table of name = number")
        for key, value in table.items():
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"{where}: strategy '{name}': parameter '{key}' must be a "
                                 f"number, got {value!r}")
            values[key] = float(value)
    else:
        name, settings = split_strategy_text(text)
    for item in filter(None, (part.strip() for part in settings.split(","))):
        key, equals, value = item.partition("=")
        if not equals:
            raise InputError(f"{where}: strategy '{text}': expected key=value, got '{item}'")
        try:
            values[key.strip()] = float(value)
        except ValueError:
            raise InputError(f"{where}: strategy '{name}': parameter '{key.strip()}' must be a "
                             f"number, got '{value}'") from None
    if written is not None:
        name = f"{written}:{name.rpartition(':')[2]}"
    return StrategySpec(name, values).label()


# Where the strategy files named by configs and manifests come from (resolved path -> a few
# words), for the note said before one runs (``load_lineup_code``).
_ORIGINS: dict[str, str] = {}


def note_strategy_origin(path: str | Path, origin: str) -> None:
    """Record where strategy file ``path`` comes from ("beside the config", "the batch's own
    copy"), to be said with it before it runs."""
    _ORIGINS[str(Path(path).resolve())] = origin


# Lines already said by this process (``say_once``): a sweep loads the same strategy file and
# data folder for every point, and a resume loads them again.
_SAID: set[str] = set()


def say_once(line: str) -> None:
    """Print ``line`` on stderr (control characters escaped), once per process."""
    if line not in _SAID:
        _SAID.add(line)
        print(escape_control_characters(line), file=sys.stderr, flush=True)


def shown_path(path: str | Path) -> str:
    """``path`` for a message: relative to the current directory when it is below it, else
    absolute."""
    resolved = Path(path).resolve()
    try:
        return resolved.relative_to(Path.cwd().resolve()).as_posix()
    except ValueError:
        return str(resolved)


def load_lineup_code(config: BatchConfig, where: str = "config") -> None:
    """Load the strategies of ``config.lineup`` that run code (``module:Class``,
    ``file.py:Class``) and check their settings against their classes; a problem is a one-line
    InputError naming ``where`` and the lineup entry. Before a strategy file is first imported
    one line on stderr says which file runs (once per file and process).

    Commands call this only once every other option and field is checked, so nothing of a
    config's code runs before a mistake elsewhere is reported."""
    registry = get_game(config.game).strategies()
    loaded: set[str] = set()
    for index, label in enumerate(config.lineup):
        if label in loaded or not runs_code(label, registry):
            continue
        loaded.add(label)
        text = config.loadable(label)
        file = strategy_file(text)
        if file is not None and Path(file).is_file():
            origin = _ORIGINS.get(str(Path(file).resolve()))
            say_once(f"note: running strategy code from {shown_path(file)}"
                     f"{f' ({origin})' if origin else ''}; it runs with your permissions")
        parse_strategy(text, registry, f"{where}[{index}]")


def read_toml(path: str | Path, what: str = "config file") -> dict[str, Any]:
    """A TOML file (a config, by default a ``what``) as a dict, or a one-line InputError."""
    return read_user_toml(path, what)


def load_config(path: str | Path | None, overrides: dict[str, Any] | None = None,
                allow_code: bool = False, load_code: bool = True) -> BatchConfig:
    """Read ``path`` (or start from defaults when None), apply ``overrides`` (CLI options, same
    field names; ``rules`` merges) and validate everything. ``allow_code`` (only ever from the
    command line) lets the file name strategy modules and files outside its folder. With
    ``load_code`` False the lineup's strategy code is not loaded yet: the caller checks the
    rest of its options first, then calls ``load_lineup_code``."""
    if path is None:
        return config_from_document({}, "options", Path.cwd(), None, overrides,
                                    load_code=load_code)
    document = read_toml(path)
    if "output" in document and (overrides or {}).get("output") is None:
        _check_type(document["output"], str, str(path), "output")
        check_relative_output(document["output"], f"{path}: field 'output'")
    return config_from_document(document, str(path), Path(path).parent, Path(path).stem,
                                overrides, allow_code=allow_code, load_code=load_code)


def config_from_document(document: dict[str, Any], source: str, base_dir: Path,
                         default_name: str | None, overrides: dict[str, Any] | None = None,
                         tags: dict[str, Any] | None = None,
                         allow_code: bool = False, load_code: bool = True) -> BatchConfig:
    """Validate a parsed config ``document`` (from ``source``; relative data paths are taken
    from ``base_dir``) with ``overrides`` applied. ``tags`` become constant result columns.
    Strategy code (``load_lineup_code``) is loaded last, once every other field is checked, or
    not at all with ``load_code`` False.

    A data folder contributes only the files the game declares (``Game.data_files_in``): each
    checked (a regular file within the size limit), any other entry ignored with one note."""
    overrides = {k: v for k, v in (overrides or {}).items() if v is not None}
    data_keys = data_fields()
    known = set(FIELDS) | data_keys
    for key in document:
        if key not in known:
            raise InputError(f"{source}: unknown field '{key}'{did_you_mean(key, known)}")
    for key, value in document.items():
        if key in FIELDS:
            _check_type(value, FIELDS[key][0], source, key)
    if "fields" in document:
        raise InputError(f"{source}: field 'fields': fields of players are played by `sim run` "
                         f"and `sim sweep` only")
    rules_overrides = overrides.pop("rules", {}) or {}
    data_override = overrides.pop("data_file", None)
    merged = {**document, **overrides}
    # An override of the batch size replaces the file's way of giving it.
    if "deals" in overrides and "games" not in overrides:
        merged.pop("games", None)
    if "games" in overrides and "deals" not in overrides:
        merged.pop("deals", None)
    merged_rules = {**document.get("rules", {}), **rules_overrides}

    game = get_game(_check_type(merged.get("game", default_game()), str, source, "game"),
                    f"{source}: field 'game'")
    players = game.check_players(merged.get("players", 4), source)
    rules = game.resolve_rules(merged_rules, f"{source}: table 'rules'")

    data_key = game.data_option
    data_file = None
    if data_override is not None:
        data_file = str(data_override)
    elif data_key in document:
        value = _check_type(document[data_key], str, source, data_key)
        data_file = str((base_dir / value).resolve()) if not Path(value).is_absolute() else value
    for other in sorted(data_keys):
        if other in document and other != data_key:
            raise InputError(f"{source}: field '{other}': not used by {game.name} "
                             f"(its data field is '{data_key}')")
    if data_file is not None and not Path(data_file).exists():
        raise InputError(f"{source}: field '{data_key}': file not found: {data_file}")
    if data_file is not None:
        # Checked before the game reads anything: a fifo would block it, /proc leak the
        # machine's state into the batch's copy.
        data_where = f"--{data_key}" if data_override is not None else \
            f"{source}: field '{data_key}'"
        declared = game.data_files_in(data_file, data_where)
        if declared.ignored:
            say_once(f"note: {data_file}: ignoring {', '.join(declared.ignored)} (not "
                     f"{game.title} data files: neither read nor copied into the batch)")
    data = game.load_data(data_file)

    if "strategies" in merged and "pool" in merged:
        raise InputError(f"{source}: fields 'strategies' and 'pool': give one or the other")
    rotate = "pool" in merged
    entries = merged.get("pool") if rotate else merged.get("strategies", ["greedy"])
    where = "pool" if rotate else "strategies"
    if isinstance(entries, str):
        entries = [entries]
    _check_type(entries, list, source, where)
    if not entries:
        raise InputError(f"{source}: field '{where}': needs at least one strategy")
    # Strategies given on the command line are the user's own request; the file's are checked.
    from_file = where not in overrides
    strategy_files: dict[str, str] = {}
    labels = tuple(_strategy_label(e, game, source, f"{where}[{i}]",
                                   base_dir if from_file else None, allow_code, strategy_files)
                   for i, e in enumerate(entries))
    if not rotate:
        if len(labels) == 1:
            labels = labels * players
        elif len(labels) != players:
            raise InputError(f"{source}: field 'strategies': {len(labels)} strategies for "
                             f"{players} players; give one per seat, or one for all")

    def positive(name: str, default: int | None, maximum: int = MAX_GAMES) -> int | None:
        value = merged.get(name, default)
        if value is None:
            return None
        where = f"--{name.replace('_', '-')}" if name in overrides else f"{source}: field '{name}'"
        _check_type(value, int, source, name)
        if value < 1:
            raise InputError(f"{where}: must be at least 1, got {value}")
        if value > maximum:
            raise InputError(f"{where}: at most {maximum:,} can be played, got {value:,}")
        return value

    pool_design = None
    if "pool_design" in merged:
        where = "--pool-design" if "pool_design" in overrides else \
            f"{source}: field 'pool_design'"
        _check_type(merged["pool_design"], str, source, "pool_design")
        if not rotate:
            raise InputError(f"{where}: applies to a rotating pool (give `pool`, not "
                             f"`strategies`)")
        if merged["pool_design"] not in POOL_DESIGNS:
            raise InputError(f"{where}: '{merged['pool_design']}' is not one of "
                             f"{', '.join(OFFERED_POOL_DESIGNS)}"
                             f"{did_you_mean(merged['pool_design'], OFFERED_POOL_DESIGNS)}")
    if rotate and len(labels) > players >= 2:
        # A pool no larger than the table has one way of seating only (its formula is kept).
        pool_design = merged.get("pool_design", DEFAULT_POOL_DESIGN)
    games = positive("games", None)
    deals = positive("deals", None)
    default_replicates = 1
    if pool_design in OFFERED_POOL_DESIGNS and "deals" not in merged \
            and "replicates_per_deal" not in merged:
        # Every deal played by every lineup once, so the lineups share their deals; not when a
        # deal would need more games than were asked for (then balance holds over every L
        # consecutive games, across deals).
        lineups = pool_lineup_count(len(labels), players, pool_design)
        if lineups <= (games if games is not None else 1000):
            default_replicates = lineups
    replicates = positive("replicates_per_deal", default_replicates)
    if deals is not None and games is not None and games != deals * replicates:
        raise InputError(f"{source}: field 'games': {games} is not deals x replicates_per_deal "
                         f"= {deals * replicates}; give games, or deals and replicates_per_deal")
    if deals is None:
        deals = -(-(games if games is not None else 1000) // replicates)
    games = deals * replicates
    if games > MAX_GAMES:
        raise InputError(f"{source}: field 'games': deals x replicates_per_deal = {games:,} is "
                         f"more than the {MAX_GAMES:,} games a batch can hold")
    seed = merged.get("seed", 1)
    _check_type(seed, int, source, "seed")
    if not 0 <= seed <= MAX_SEED:
        where = "--seed" if "seed" in overrides else f"{source}: field 'seed'"
        raise InputError(f"{where}: must be from 0 to 2**64 - 1, got {seed}")
    shard_size = positive("shard_size", DEFAULT_SHARD_SIZE, MAX_SHARD_SIZE)
    store = _check_type(merged.get("store", "rows"), str, source, "store")
    if store not in STORES:
        raise InputError(f"{source}: field 'store': '{store}' is not one of {', '.join(STORES)}"
                         f"{did_you_mean(store, STORES)}")
    trace = _check_type(merged.get("trace", False), bool, source, "trace")
    if trace:
        where = "--trace" if "trace" in overrides else f"{source}: field 'trace'"
        if store != "rows":
            raise InputError(f"{where}: the score trace needs the rows store (store = \"rows\"), "
                             f"not '{store}'")
        if not game.supports_trace:
            raise InputError(f"{where}: {game.name} does not record a score trace")
    name = _check_type(merged.get("name", default_name or "batch"), str, source, "name")
    if "name" not in overrides:  # sweep points name themselves from their grid values
        check_name(name, f"{source}: field 'name'")
    output = _check_type(merged.get("output", f"runs/{name}"), str, source, "output")
    check_output_path(output, "--out" if "output" in overrides else f"{source}: field 'output'")
    config = BatchConfig(
        name=name, game=game.name, players=players, lineup=labels, rotate=rotate, games=games,
        deals=deals, replicates_per_deal=replicates, seed=seed, shard_size=shard_size,
        output=output, store=store, rules=rules, data_file=data_file,
        data_digest=game.data_digest(data), tags=dict(tags or {}),
        strategy_files=strategy_files, trace=trace, pool_design=pool_design,
    )
    if load_code:
        load_lineup_code(config, f"{source}: field '{'pool' if rotate else 'strategies'}'")
    return config


# A batch, sweep or field name is a folder name and is printed in reports and messages: this
# long at most (a whole path must stay well under the systems' 4096 bytes). A component of a
# path may have at most 255 bytes on every common file system.
MAX_NAME_CHARACTERS = 100
MAX_COMPONENT_BYTES = 255


def _shown(text: str) -> str:
    """``text`` for a message: quoted, control characters escaped, a long one cut short."""
    return repr(text) if len(text) <= 40 else f"{text[:40]!r}... ({len(text)} characters)"


def check_file_name(name: str, where: str, what: str = "name") -> None:
    """A component of a path (a folder or file name) that sim creates: no control characters
    (a newline, an escape sequence: ``sim.files.is_control_character``) and at most 255 bytes
    in UTF-8, else a one-line InputError."""
    bad = next((character for character in name if is_control_character(character)), None)
    if bad is not None:
        raise InputError(f"{where}: {what} {_shown(name)} contains the control character "
                         f"{bad!r}; use letters, digits and punctuation")
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > MAX_COMPONENT_BYTES:
        raise InputError(f"{where}: {what} {_shown(name)} is {size} bytes long in UTF-8; a "
                         f"file or folder name has at most {MAX_COMPONENT_BYTES}")


def check_name(name: str, where: str,
               max_characters: int | None = MAX_NAME_CHARACTERS) -> None:
    """A batch name (or a sweep point's label) becomes a folder name: refuse what would point
    elsewhere (``..``, ``/``), control characters, and more than ``max_characters`` characters
    (None: only the file system's 255 bytes, for names sim builds itself)."""
    if not name.strip() or name in (".", "..") or any(c in name for c in "/\\\0") \
            or name != name.strip():
        raise InputError(f"{where}: {_shown(name)} cannot name a folder (no '/', '\\', '..' "
                         f"or surrounding spaces)")
    check_file_name(name, where)
    if max_characters is not None and len(name) > max_characters:
        raise InputError(f"{where}: {_shown(name)} is longer than {max_characters} "
                         f"characters; give a shorter name")


def check_output_path(output: str, where: str) -> None:
    """An output folder sim will create: every component a safe file name
    (``check_file_name``), else a one-line InputError naming the component."""
    for component in Path(output).parts:
        if component != "/":
            check_file_name(component, where, "folder name")


def check_relative_output(output: str, where: str) -> None:
    """An output folder from a config file stays below the current directory: a shared
    experiment file must not make ``sim run`` write anywhere else (``--out`` may)."""
    path = Path(output)
    if not output.strip() or path.is_absolute() or ".." in path.parts or "\0" in output:
        raise InputError(f"{where}: {output!r} must be a relative folder without '..' "
                         f"(use --out to write elsewhere)")


def lineup_specs(config: BatchConfig, game: Game) -> list[StrategySpec]:
    """The distinct strategies of the batch, parsed (index order = ``config.lineup`` order)."""
    return [parse_strategy(config.loadable(label), game.strategies(), "config")
            for label in config.lineup]
