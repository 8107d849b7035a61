"""The small interface through which the runner, the store, the reports and the CLI know a game.

A game provides one ``Game`` subclass (``sim/loops/<game>/game.py``) and registers it in the
``sim.games`` entry-point group (``sim.games.registry``). Everything game-specific (rules, data
files, strategies, what a row of results holds, the notes its reports need) is declared on it;
the runner only asks it to play a shard of seeded games and gets back named columns with one row
per (game, seat).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.errors import InputError


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
class StrategyParameter:
    """A parameter of a strategy, with its default and a one-line description."""

    name: str
    default: float
    help: str


@dataclass(frozen=True)
class StrategyInfo:
    """A registered strategy: name, one-line description and parameters."""

    name: str
    description: str
    parameters: tuple[StrategyParameter, ...] = ()


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


class Game(ABC):
    """A game the simulator can play. Subclasses declare their parameters in one place."""

    name: str = ""  # the CLI name, e.g. ``my-game`` (also the entry point's name)
    title: str = ""  # how reports and tables write it
    listing_order: int = 100  # place in the list of games (lowest first: the default game)
    min_players: int = 1
    max_players: int = 1
    data_option: str = ""  # the CLI option / config field naming the game's data file
    data_help: str = ""  # what the data option takes, e.g. "a tile-set TOML file"
    position_help: str = ""  # what ``sim score`` reads, e.g. "a planet (JSON)"
    # The field of a ``sim play --json`` document listing every seat's final position, which
    # ``sim score`` scores (e.g. "planets"); empty when the game writes none.
    played_positions_field: str = ""
    rules_parameters: tuple[RulesParameter, ...] = ()

    def default_rules(self) -> dict[str, int]:
        """Every rules parameter at its default."""
        return {p.name: p.default for p in self.rules_parameters}

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

    def variant_compile_seconds(self) -> dict:
        """Compile seconds of each lineup-specific loop variant built in this process (None
        until compiled); empty for a game without such variants."""
        return {}
