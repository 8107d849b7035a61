"""The interface through which the runner, the store, the statistics, the reports and the CLI
know a game: the ``Game`` class and the dataclasses a game declares itself with.

A game provides one ``Game`` subclass (``sim/loops/<game>/game.py``) and registers it in the
``sim.games`` entry-point group (``sim.games.registry``). Everything game-specific is declared
on it: rules parameters and how they are tuned (``RulesParameter``, ``RulesTuning``), data
files, strategies, what a row of results holds, the analyses the shared statistics compute for
it (``GameAnalysis``: ``RandomisedCountEffect``, ``RotatingRoleAssociation``,
``RemovedItemsEffect``), its cards (``CardColumns``, ``DraftColumns``) and deal covariates, and
the notes its reports need. The runner only asks it to play a shard of seeded games and gets
back named columns with one row per (game, seat).
"""

from __future__ import annotations

import fnmatch
import stat
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.errors import InputError

if TYPE_CHECKING:  # polars loads only where a frame is made (every module imports this one)
    import polars as pl


@dataclass(frozen=True)
class RulesParameter:
    """A rules knob: its name, default, bounds and a one-line description.

    Values are stored as integers (they become Parquet columns and sweep axes); ``choices``
    names some of them, so users may write e.g. ``side = "B"`` or ``spirits = true``."""

    name: str
    default: int
    minimum: int
    maximum: int
    help: str
    choices: tuple[tuple[str, int], ...] = ()
    # Also a command-line option of its own (``--removed-tiles``), besides ``--rule NAME=VALUE``.
    option: bool = False

    @property
    def option_name(self) -> str:
        """``--name-with-dashes``: the command-line option of an ``option`` parameter."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: Any, source: str) -> int:
        """The value as an int, or an InputError naming ``source`` and this field."""
        named = dict(self.choices)
        if isinstance(value, bool) and {"false", "true"} <= set(named):
            return named[str(value).lower()]
        if isinstance(value, str) and named:
            if value in named:
                return named[value]
            raise InputError(f"{source}: field '{self.name}': '{value}' is not one of "
                             f"{', '.join(named)}")
        if not isinstance(value, int) or isinstance(value, bool):
            raise InputError(f"{source}: field '{self.name}': expected an integer, got {value!r}")
        if not self.minimum <= value <= self.maximum:
            raise InputError(
                f"{source}: field '{self.name}': {value} is out of range "
                f"{self.minimum}..{self.maximum}"
            )
        return value


@dataclass(frozen=True)
class TuningShare:
    """A share a rules tuning measures per grid point (``sim tune-rules``): the sum of the rows
    column ``numerator`` over the sum of ``denominator``, clustered by deal, shown with its 95%
    interval in the metrics table (``header``, and ``note``, a sentence under the table saying
    what it counts) and as a figure (``figure_title``, ``figure_unit``, ``figure_caption``).
    ``name`` is its column in the tuning's metrics Parquet."""

    name: str
    numerator: str
    denominator: str
    header: str
    figure_title: str
    figure_unit: str
    figure_caption: str
    note: str = ""


@dataclass(frozen=True)
class TuningCriterion:
    """A criterion a game adds to a rules tuning's pick: the ``share`` (a ``TuningShare`` name)
    must lie below ``maximum``; yes when its interval's upper end is below, no when its lower end
    is at or above, undecided otherwise. The words, with ``{maximum}`` for the threshold as a
    percentage: ``adjective`` (what a value meeting it is, "unstarved"), ``noun`` (what is
    judged, "starvation"), ``failure`` (why a value fails it), ``rule`` (the criterion in the
    report's rule), ``relax`` (the threshold one may relax) and ``fact`` (the measured share,
    with ``{value}``, ``{low}`` and ``{high}``)."""

    share: str
    maximum: float
    adjective: str
    noun: str
    failure: str
    rule: str
    relax: str
    fact: str


# The name of a rules tuning no game names itself: the command's, its files' and its sweep's.
GENERIC_TUNING = "tune-rules"


@dataclass(frozen=True)
class RulesTuning:
    """How a game's integer rules ``parameter`` is tuned and written about (``sim tune-rules``;
    ``Game.rules_tuning``). Every field but ``parameter`` has a generic default:

    ``name`` names the tuning's sweep, its report's Parquet and figures and its preset file
    (a game's own name is also a short command, e.g. ``sim NAME``); ``label`` is what follows a
    value in a sentence ("3 LABEL"); ``noun`` / ``plural`` what a value is called ("value");
    ``column`` heads the value's column in the metrics table; ``title`` and ``metrics_heading``
    title the report and its metrics; ``shares`` and ``criteria`` are what the game measures and
    judges besides fairness and skill."""

    parameter: str
    name: str = GENERIC_TUNING
    label: str = ""
    noun: str = "value"
    plural: str = "values"
    column: str = ""
    title: str = ""
    metrics_heading: str = ""
    shares: tuple[TuningShare, ...] = ()
    criteria: tuple[TuningCriterion, ...] = ()


@dataclass(frozen=True)
class StrategyParameter:
    """A parameter of a strategy, with its default and a one-line description.

    ``minimum`` and ``maximum`` (optional) are hard bounds: a value outside them is refused
    wherever it is given (``name:key=value``, a parameters file, a config). ``integer`` marks a
    count (values are rounded when tuned and must be whole when given). ``log`` says the
    parameter acts on a ratio scale, so a tuner searches it in log space. ``search_range`` is
    where ``sim tune-strategy`` looks: the declared ``tune_low``/``tune_high`` if given, else
    the hard bounds, else a range around the default (a quarter to four times it on a log
    scale, zero to twice it otherwise)."""

    name: str
    default: float
    help: str
    minimum: float | None = None
    maximum: float | None = None
    integer: bool = False
    log: bool = False
    tune_low: float | None = None
    tune_high: float | None = None

    def check(self, value: float, source: str, strategy: str) -> float:
        """The value as a float, or an InputError naming ``source``, the strategy and this
        parameter when it is not a finite number, not whole for an integer parameter, or out of
        the hard bounds."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise InputError(f"{source}: strategy '{strategy}': parameter '{self.name}' must be "
                             f"a number, got {value!r}")
        value = float(value)
        if value != value or value in (float("inf"), float("-inf")):
            raise InputError(f"{source}: strategy '{strategy}': parameter '{self.name}' must be "
                             f"a finite number, got {value}")
        if self.integer and not value.is_integer():
            raise InputError(f"{source}: strategy '{strategy}': parameter '{self.name}' must be "
                             f"a whole number, got {_format_number(value)}")
        low = -float("inf") if self.minimum is None else self.minimum
        high = float("inf") if self.maximum is None else self.maximum
        if not low <= value <= high:
            raise InputError(f"{source}: strategy '{strategy}': parameter '{self.name}' = "
                             f"{_format_number(value)} is out of range "
                             f"{_format_bound(self.minimum)}..{_format_bound(self.maximum)}")
        return value

    def search_range(self) -> tuple[float, float]:
        """(low, high) of the range a tuner searches (see the class docstring)."""
        default = float(self.default)
        if self.log and default > 0:
            low, high = default / 4.0, default * 4.0
        elif default > 0:
            low, high = 0.0, 2.0 * default
        elif default < 0:
            low, high = 2.0 * default, 0.0
        else:
            low, high = 0.0, 1.0
        if self.minimum is not None:
            low = max(low, self.minimum)
        if self.maximum is not None:
            high = min(high, self.maximum)
        if self.tune_low is not None:
            low = self.tune_low
        if self.tune_high is not None:
            high = self.tune_high
        return low, high


def _format_bound(value: float | None) -> str:
    return "" if value is None else _format_number(value)


@dataclass(frozen=True)
class StrategyInfo:
    """A registered strategy: name, one-line description and parameters; for the league
    (``sim league``) whether it is the game's strongest, its documented variants (settings text,
    e.g. ``"space=0"``) and its previous shipped defaults as (member name, parameters file)."""

    name: str
    description: str
    parameters: tuple[StrategyParameter, ...] = ()
    strongest: bool = False
    variants: tuple[str, ...] = ()
    previous_defaults: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class StrategySpec:
    """A strategy chosen for a seat: its name and the parameter values it plays with."""

    name: str
    parameters: dict[str, float] = field(default_factory=dict)

    def label(self) -> str:
        """``name`` or ``name:key=value,...`` (the form users write)."""
        if not self.parameters:
            return self.name
        settings = ",".join(f"{k}={_format_number(v)}" for k, v in sorted(self.parameters.items()))
        return f"{self.name}:{settings}"


def _format_number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class CardColumns:
    """Where a game's rows keep the cards each player took from a face-up offer (for the
    report's card balance). Every field but the nouns names a list column of the rows store
    with one entry per card taken, in the order taken."""

    noun: str  # what a card is called, e.g. "animal card"
    cards: str  # card ids
    rounds: str  # round (0-based) in which each was taken
    offers: str  # list of lists: the card ids face up when it was taken (itself among them)
    completed: str  # bool: finished (every cube placed, every goal met)
    points: str  # points the card gave its holder
    progress: str = ""  # what was placed on each card (e.g. cubes), "" when nothing is
    progress_noun: str = ""  # e.g. "cube"
    # List column: the card ids face up when the deal ends, before any turn (the same for every
    # seat of a game: set by the shuffle, not by any player); "" when the game records none.
    # The card effects are estimated from it (what the deal randomises), not from the holders.
    opening: str = ""


@dataclass(frozen=True)
class DraftColumns:
    """Where a game's rows keep a card dealt face down and chosen from (e.g. one of two bonus
    cards kept), for the report's draft-card balance."""

    noun: str  # e.g. "nature spirit"
    dealt: str  # array column: the card ids a player was dealt
    kept: str  # the card id kept (0 when the player kept none)
    bonus: str  # points the kept card gave
    # The rules parameter that turns the cards on (its rows with 0 have none), "" when always on.
    enabled_by: str = ""


# How a deal covariate's column reads (``DealCovariate.kind``).
COVARIATE_MASK = "mask"  # an integer: bit n - 1 set when item n is present
COVARIATE_IDS = "ids"  # a list of item ids: item n is present when n is in the list
COVARIATE_COUNT = "count"  # a number (compared above / not above its median over the deals)
COVARIATE_KINDS = (COVARIATE_MASK, COVARIATE_IDS, COVARIATE_COUNT)


@dataclass(frozen=True)
class DealCovariate:
    """A rows-store column that the deal alone sets: the same for every seat of a game and
    every replay of the deal, whoever plays. The shuffle randomises it, so its association
    with the score is an effect of the deal (``sim.stats.field_findings`` judges it across
    fields of players)."""

    column: str
    # mask / ids: one item, with "{n}" for its number ("tile {n} removed unseen"); count: what
    # is counted, plural ("light tiles drawn").
    noun: str
    kind: str  # one of COVARIATE_KINDS
    # mask / ids: the noun of the item "{n}" stands for, as ``Game.item_names`` keys it ("tile",
    # "animal card"), so a report can name item n; "" for counts.
    item: str = ""


@dataclass(frozen=True)
class RandomisedCountEffect:
    """A count the deal randomises (the same for every seat of a game and every replay of the
    deal): the mean score per value of the count and a line fitted to it. The shuffle sets the
    count, so its relation to the score is an effect of the count
    (``sim.stats.variance.count_effect``). The words are the report's."""

    column: str  # rows-store column: the count
    noun: str  # what is counted, plural, lower case ("apples drawn")
    singular: str  # one of them ("apple drawn")
    item: str  # the counted item ("apple"; "apples" adds an s)
    unit: str  # its short name in "points per <unit>" ("apple")
    axis_label: str  # the figure's x axis
    section: str  # its section in summary.parquet


@dataclass(frozen=True)
class RotatingRoleAssociation:
    """A role that passes from seat to seat, once per unit of the deal's randomised count
    (``count_column``): the score by the times a player held it
    (``sim.stats.rotating_role``). Which seats hold it more is set by the seat order, so the
    worth of one more turn in the role is estimated with the game and the seat held fixed; it
    is an association with holding the role, not a randomised effect of it. The words are the
    report's."""

    column: str  # rows-store column, per seat: the times the player held the role
    count_column: str  # rows-store column: the deal's count of the role's turns
    noun: str  # the role ("starting token")
    turn: str  # one turn in the role ("round"; "rounds" adds an s)
    heading: str  # the report's heading of the section
    explanation: str  # a paragraph: how the role passes
    held_header: str  # table header: the turns a seat holds it
    position_header: str  # table header: the seat's mean place in the order
    section: str  # its section in summary.parquet


@dataclass(frozen=True)
class RemovedItemsEffect:
    """Items the deal removes unseen: the effect on the mean score of each item removed, the
    other removed items held fixed (``sim.stats.variance.removed_item_effect``); randomised by
    the shuffle."""

    column: str  # rows-store column: a bit mask, bit n - 1 set when item n was removed
    noun: str  # what an item is called ("card"; "cards" adds an s)


# The analyses a game may declare (``Game.analyses``), each computed by the shared statistics.
GameAnalysis = RandomisedCountEffect | RotatingRoleAssociation | RemovedItemsEffect


@dataclass(frozen=True)
class ReferencePlay:
    """Recorded human play to set beside the bots' (``Game.reference_play``): the final
    positions of recorded games, one row per player."""

    description: str  # one sentence: what was recorded (games, boards, rules)
    # polars DataFrame, one row per player: a ``game`` column (the recorded game: the cluster of
    # its intervals), ``score`` and the game's ``profile_columns`` it has (a missing one: not
    # recorded)
    frame: pl.DataFrame
    source: str  # short words: where the boards come from


@dataclass
class PlayedGame:
    """One game played for ``sim play``: the text to print and the JSON document to save."""

    text: str
    document: dict
    scores: list[int]


@dataclass
class ScoredFile:
    """A position scored for ``sim score``: text lines and the same as a JSON object."""

    text: str
    document: dict



# A data file is read whole and copied into every batch played with it: this large at most.
MAX_DATA_FILE_BYTES = 50 * 2**20
# Pseudo file systems whose entries are the machine's live state (processes, devices, the
# kernel), not data: reading one can leak secrets into a batch, block, or never end.
SPECIAL_FILE_SYSTEMS = ("/proc", "/sys", "/dev")
_SPECIAL_KINDS = ((stat.S_ISFIFO, "a named pipe (fifo)"), (stat.S_ISSOCK, "a socket"),
                  (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                  (stat.S_ISDIR, "a folder"))


@dataclass(frozen=True)
class DataFiles:
    """What a batch reads and keeps a copy of for a data option (``Game.data_files_in``):
    ``files``, the data file itself or the declared files of a data folder (sorted by name),
    and ``ignored``, the names of a data folder's other entries (neither read nor copied)."""

    folder: bool
    files: tuple[Path, ...]
    ignored: tuple[str, ...] = ()


def _on_special_file_system(path: Path) -> str | None:
    """The special file system (``SPECIAL_FILE_SYSTEMS``) ``path`` is on, links followed, or
    None."""
    resolved = path.resolve()
    for root in SPECIAL_FILE_SYSTEMS:
        if resolved == Path(root) or Path(root) in resolved.parents:
            return root
    return None


def check_data_file(path: Path, where: str) -> int:
    """A data file sim may read and copy: a regular file (links followed) of at most
    ``MAX_DATA_FILE_BYTES``, not on a special file system; else a one-line InputError naming
    ``where`` (the option or field) and the file. Returns its size in bytes."""
    special = _on_special_file_system(path)
    if special is not None:
        raise InputError(f"{where}: {path} is on {special}, which holds the machine's live "
                         f"state, not data; give a data file or folder")
    try:
        status = path.stat()
    except FileNotFoundError:
        raise InputError(f"{where}: {path}: data file not found") from None
    except OSError as error:
        raise InputError(f"{where}: {path}: data file cannot be read "
                         f"({error.strerror or type(error).__name__})") from None
    for is_kind, kind in _SPECIAL_KINDS:
        if is_kind(status.st_mode):
            raise InputError(f"{where}: {path} is {kind}, not a regular file; refused")
    if not stat.S_ISREG(status.st_mode):
        raise InputError(f"{where}: {path} is not a regular file; refused")
    if status.st_size > MAX_DATA_FILE_BYTES:
        raise InputError(f"{where}: {path} has {status.st_size:,} bytes, more than the "
                         f"{MAX_DATA_FILE_BYTES // 2**20} MiB a data file may have; refused")
    return status.st_size


class Game(ABC):
    """A game the simulator can play. Subclasses declare their parameters in one place."""

    name: str = ""  # the CLI name, e.g. ``my-game`` (also the entry point's name)
    title: str = ""  # how reports and tables write it
    listing_order: int = 100  # place in the list of games (lowest first: the default game)
    min_players: int = 1
    max_players: int = 1
    data_option: str = ""  # the CLI option / config field naming the game's data file
    data_help: str = ""  # what the data option takes, e.g. "a tile-set TOML file"
    # The files a data folder given by ``data_option`` may hold, as names or glob patterns
    # (``fnmatch``, matched against the file name): only these are read and copied into a
    # batch (``data_files_in``); any other entry of the folder is ignored. A data option that
    # names one file is that file whatever its name.
    data_files: tuple[str, ...] = ()
    position_help: str = ""  # what ``sim score`` reads, e.g. "a planet (JSON)"
    # The field of a ``sim play --json`` document listing every seat's final position, which
    # ``sim score`` scores (e.g. "planets"); empty when the game writes none.
    played_positions_field: str = ""
    rules_parameters: tuple[RulesParameter, ...] = ()
    # How some rules parameters are tuned (``rules_tuning``): the game's words and its own
    # criteria; a parameter not listed is tuned with the generic ones.
    rules_tunings: tuple[RulesTuning, ...] = ()
    # Seconds a first run takes to compile the game's kernels on a quiet machine, for the
    # status line shown before it (``sim.compiling``); 0: no estimate.
    compile_seconds: float = 0.0
    # The same for each built-in strategy the loop calls through its table of compiled
    # functions (``strategy_kernels``), compiled only when a lineup first plays it.
    strategy_compile_seconds: dict[str, float] = {}
    # True when ``play_shard(..., trace=True)`` adds the ``score_trace`` column
    # (``sim.games.columns.TRACE_COLUMN``): every seat's score after each ``trace_step``.
    supports_trace: bool = False
    trace_step: str = "round"  # what one step of the trace is called ("round", "turn")
    # A column with the turns each player played, when games vary in length ("" when fixed).
    length_column: str = ""
    # Rows-store columns (numbers per seat) that describe how a player played (points by
    # category, game length, cards and cubes): the tournament keeps them per seat and its report
    # shows each strategy's means beside recorded human play (``sim.profile``). Empty: none.
    profile_columns: tuple[str, ...] = ()
    # The fields of players a finding is judged across (``sim.fields``): (name, lineup, why),
    # the lineup as ``--field NAME=LINEUP`` takes it: one strategy for every seat, one per seat
    # joined by "+", or "pool:" and strategies joined by "+" (they rotate through the seats).
    # ``default_fields`` names those `--field default` (or ``fields = ["default"]``) plays.
    field_lineups: tuple[tuple[str, str, str], ...] = ()
    default_fields: tuple[str, ...] = ()

    def reference_play(self, players: int, rules: dict[str, int]) -> ReferencePlay | None:
        """Recorded human games played with ``players`` and these rules (missing rules at their
        defaults), to set beside the bots' profile; None when the game ships none that match."""
        return None

    def card_columns(self) -> CardColumns | None:
        """The columns of the cards taken from a face-up offer, or None for a game without."""
        return None

    def draft_columns(self) -> DraftColumns | None:
        """The columns of the cards dealt and kept, or None for a game without."""
        return None

    def deal_covariates(self) -> tuple[DealCovariate, ...]:
        """The rows-store columns the deal alone sets (``DealCovariate``); () for none."""
        return ()

    def analyses(self) -> tuple[GameAnalysis, ...]:
        """The game's own analyses, declared as data the shared statistics and report compute
        (``GameAnalysis``: the game's columns and words); () for none."""
        return ()

    def analysis(self, kind: type) -> GameAnalysis | None:
        """The game's first declared analysis of ``kind`` (one of ``GameAnalysis``), or None."""
        return next((a for a in self.analyses() if isinstance(a, kind)), None)

    def data_files_in(self, path: str | Path, where: str) -> DataFiles:
        """The files a batch played with the data at ``path`` reads and keeps a copy of: the
        file itself, or a folder's files that ``data_files`` declares (the other entries are
        listed as ignored). Every one is checked by ``check_data_file`` (a regular file within
        the size limit, nothing on /proc, /sys or /dev), as is the folder itself; a problem is
        a one-line InputError naming ``where`` and the file."""
        path = Path(path)
        special = _on_special_file_system(path)
        if special is not None:
            raise InputError(f"{where}: {path} is on {special}, which holds the machine's "
                             f"live state, not data; give a data file or folder")
        if not path.is_dir():
            check_data_file(path, where)
            return DataFiles(False, (path,))
        try:
            entries = sorted(path.iterdir())
        except OSError as error:
            raise InputError(f"{where}: {path}: data folder cannot be read "
                             f"({error.strerror or type(error).__name__})") from None
        declared = [entry for entry in entries
                    if any(fnmatch.fnmatchcase(entry.name, pattern) for pattern in self.data_files)]
        for entry in declared:
            check_data_file(entry, where)
        ignored = tuple(entry.name for entry in entries if entry not in declared)
        return DataFiles(True, tuple(declared), ignored)

    def default_rules(self) -> dict[str, int]:
        """Every rules parameter at its default."""
        return {p.name: p.default for p in self.rules_parameters}

    def rules_tuning(self, parameter: str) -> RulesTuning:
        """How the integer rules ``parameter`` is tuned (``sim tune-rules``): the game's
        declaration in ``rules_tunings``, or the generic one, every word filled in; a one-line
        InputError for a name that is not one of its rules parameters."""
        from dataclasses import replace

        known = [p.name for p in self.rules_parameters]
        if parameter not in known:
            raise InputError(f"--parameter: '{parameter}' is not a rules parameter of "
                             f"{self.title or self.name}"
                             + (f"; its parameters: {', '.join(known)}" if known
                                else "; it has none"))
        tuning = next((t for t in self.rules_tunings if t.parameter == parameter),
                      RulesTuning(parameter))
        label = tuning.label or parameter.replace("_", " ")
        return replace(tuning, label=label, column=tuning.column or label[:1].upper() + label[1:],
                       title=tuning.title or f"{self.title or self.name} rules tuning: {label}",
                       metrics_heading=tuning.metrics_heading or f"Metrics per {label}")

    def resolve_rules(self, overrides: dict[str, Any], source: str) -> dict[str, int]:
        """Defaults updated with ``overrides``, each checked; unknown names are errors."""
        known = {p.name: p for p in self.rules_parameters}
        rules = self.default_rules()
        for key, value in overrides.items():
            if key not in known:
                raise InputError(f"{source}: field '{key}': not a rules parameter of {self.name} "
                                 f"(known: {', '.join(known)})")
            rules[key] = known[key].check(value, source)
        return rules

    def check_players(self, players: int, source: str) -> int:
        """The player count, or an InputError when out of the game's range."""
        if not isinstance(players, int) or isinstance(players, bool):
            raise InputError(f"{source}: field 'players': expected an integer, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise InputError(f"{source}: field 'players': {players} is out of range "
                             f"{self.min_players}..{self.max_players} for {self.name}")
        return players

    @abstractmethod
    def load_data(self, path: str | None) -> Any:
        """Load and validate the game's data (None: the shipped default)."""

    @abstractmethod
    def data_digest(self, data: Any) -> str:
        """A short hash of the data, so results name the exact data they were played with."""

    @abstractmethod
    def strategies(self) -> dict[str, StrategyInfo]:
        """The registered strategies by name."""

    @abstractmethod
    def play_shard(self, data: Any, players: int, rules: dict[str, int],
                   lineup: list[StrategySpec], game_seat_strategy: np.ndarray,
                   deal_seeds: np.ndarray, strategy_seeds: np.ndarray) -> dict[str, np.ndarray]:
        """Play ``len(deal_seeds)`` games. ``game_seat_strategy[g, p]`` indexes ``lineup``.

        Returns columns with one row per (game, seat), game-major: at least ``seat``,
        ``score``, ``rank`` and ``win``; the runner adds ids, seeds and the strategy names.
        A game with ``supports_trace`` also takes ``trace=False``; with ``trace=True`` it adds
        the ``score_trace`` list column.
        """

    @abstractmethod
    def column_docs(self) -> dict[str, str]:
        """A description of every game-specific column ``play_shard`` returns."""

    @abstractmethod
    def play_one(self, data: Any, players: int, rules: dict[str, int],
                 lineup: list[StrategySpec], seed: int) -> PlayedGame:
        """Play one game with a turn log, for ``sim play``."""

    @abstractmethod
    def score_file(self, path: str, data: Any) -> ScoredFile:
        """Validate and score a position file, for ``sim score``."""

    def final_drawings(self, data: Any, players: int, rules: dict[str, int],
                       lineup: list[StrategySpec], deal_seed: int,
                       strategy_seed: int) -> list[str] | None:
        """Each seat's final position, drawn, for a game given by its seeds (the report shows
        the highest- and lowest-scoring games this way); None when the game draws nothing."""
        return None

    def final_svgs(self, data: Any, players: int, rules: dict[str, int],
                   lineup: list[StrategySpec], deal_seed: int, strategy_seed: int,
                   labels: list[str] | None = None) -> list[str] | None:
        """Like ``final_drawings``, but a standalone SVG document per seat of that game's final
        position; None when the game draws none. ``labels`` name the seats' strategies as the
        user wrote them (default: each spec's label), so that a drawing holds no path that
        changes when a batch moves."""
        return None

    def item_names(self, data: Any) -> dict[str, dict[int, str]]:
        """Names of the game's numbered items, keyed by the noun the reports use for them (the
        ``CardColumns.noun``, ``DraftColumns.noun`` and ``DealCovariate.item`` of this game):
        item id -> a short name a designer recognises, unique within its noun. {} when the
        game names none."""
        return {}

    def item_svg(self, noun: str, item_id: int, data: Any) -> str | None:
        """A standalone SVG drawing of one item (a card, a spirit, a tile) named by its noun
        (as in ``item_names``) and id; None when the game draws no such item."""
        return None

    def report_notes(self) -> list[str]:
        """Notes the report's methods section needs for this game (e.g. who seat 0 is)."""
        return []

    def drawing_legend(self) -> str:
        """What the symbols of ``final_drawings`` mean (shown above the report's drawings);
        empty when the game draws nothing."""
        return ""

    def play_shard_in_driver(self, data: Any, players: int, rules: dict[str, int],
                             lineup: list[StrategySpec], game_seat_strategy: np.ndarray,
                             deal_seeds: np.ndarray,
                             strategy_seeds: np.ndarray) -> dict[str, np.ndarray]:
        """``play_shard`` played by the game's Python driver instead of the compiled loop: the
        same columns, which must be identical (the contract suite checks it)."""
        raise NotImplementedError(f"{self.name}: no Python driver")

    def hidden_information_decisions(self, data: Any, players: int, rules: dict[str, int],
                                     lineup: list[StrategySpec], seed: int,
                                     shuffle: int | None) -> tuple[list, np.ndarray]:
        """The decisions of the game's first turns (before any hidden information would be
        revealed) with the hidden information (draw order, bag, deck) re-shuffled by
        ``shuffle`` after the deal (None: as dealt), and that hidden information. A strategy
        that sees only public information decides the same whatever ``shuffle`` is."""
        raise NotImplementedError(f"{self.name}: no hidden-information probe")

    def profile_shard(self, data: Any, players: int, rules: dict[str, int],
                      lineup: list[StrategySpec], game_seat_strategy: np.ndarray,
                      deal_seeds: np.ndarray, strategy_seeds: np.ndarray) -> list:
        """The shard played by an instrumented build of the compiled loop (``sim bench
        --profile``): where the time goes, as ``sim.loops.profiling.PhaseTimes`` lines. The
        normal kernel carries no timers; built-in lineups only."""
        raise InputError(f"--profile: {self.title} has no instrumented loop")

    def cached_kernels(self, method: str) -> tuple:
        """The numba dispatchers (compiled with ``cache=True``) that the method named ``method``
        (``"play_shard"``, ``"play_one"`` or ``"final_drawings"``) compiles on a first run for a
        lineup of built-in strategies. ``sim.compiling`` reads their on-disk cache index, without
        compiling, to say before a long first compile that it is compiling; empty for a game
        whose compile is not worth a word."""
        return ()

    def strategy_kernels(self, name: str) -> tuple:
        """The numba dispatchers (cached on disk) of the built-in strategy ``name`` that are
        compiled on their own, the first time a lineup plays it (not as a part of the loop);
        empty for a strategy the loop contains."""
        return ()

    def variant_compile_seconds(self) -> dict:
        """Compile seconds of each lineup-specific loop variant built in this process (None
        until compiled); empty for a game without such variants."""
        return {}
