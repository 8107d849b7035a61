"""``sim bench --suite`` (``make bench``): the speed of every built-in strategy of every registered
game, on one core, measured the same way each time so that a reader can re-measure the table.

A case is one game, one built-in strategy in every seat and one player count (2 and 4, clipped
to the game's range), with the game's default rules and shipped data. Each case is measured in
three steps, every one a call of ``Game.play_shard`` like a run's shard:

1. a warm-up call of one game, so that compiling or loading the kernels from numba's cache is
   not timed (its time is kept apart as ``first_call_seconds``);
2. a probe: calls of 1, 2, 4, ... games until one takes ``PROBE_SECONDS`` (scaled down with
   ``games_scale`` below 1), which gives the case's rough speed;
3. ``REPEATS`` timed calls of the same games, as many as the probe's speed plays in
   ``TARGET_SECONDS`` times ``games_scale``; the fastest is the figure reported (the slower ones
   are the same work slowed by whatever else the machine was doing).

Nothing here names a game: the cases come from the game registry and each game's strategy
registry.
"""

from __future__ import annotations

import math
import os
import platform
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim import __version__
from sim.config import MAX_SHARD_SIZE
from sim.errors import InputError
from sim.games.base import Game
from sim.games.registry import games, get_game
from sim.games.strategy import KIND_BUILTIN
from sim.strategy_spec import parse_strategy

SUITE_PLAYER_COUNTS = (2, 4)
# One timed call's aim: long against the timer and the call's own cost (microseconds) and
# against a short stall of a shared machine, short enough that the whole suite (about 30 cases,
# 3 calls each) takes minutes.
TARGET_SECONDS = 1.5
PROBE_SECONDS = 0.2
REPEATS = 3
# Strategy seeds are the deal seeds offset by this, as in ``sim bench`` (distinct streams).
STRATEGY_SEED_OFFSET = np.uint64(1 << 40)
METHOD = (f"each row: the strategy in every seat, default rules, shipped data, one core; one "
          f"warm-up call first (compile or cache load not timed), then {REPEATS} timed calls "
          f"of the same games (wall clock), the fastest shown")

Progress = Callable[[str], None]


@dataclass(frozen=True)
class BenchCase:
    """One row of the suite: ``strategy`` in every seat of a ``players``-player ``game``."""

    game: str
    strategy: str
    players: int


@dataclass(frozen=True)
class BenchResult:
    """A measured case: ``games`` per timed call, the wall-clock ``seconds`` of each timed call,
    and the warm-up call's time (compile or cache load and one game)."""

    case: BenchCase
    title: str
    games: int
    seconds: tuple[float, ...]
    first_call_seconds: float

    @property
    def games_per_second(self) -> float:
        """Games per second of the fastest timed call."""
        return self.games / min(self.seconds)


def suite_player_counts(game: Game) -> tuple[int, ...]:
    """``SUITE_PLAYER_COUNTS`` clipped to the game's player range, without repeats, ascending."""
    clipped = {min(max(count, game.min_players), game.max_players)
               for count in SUITE_PLAYER_COUNTS}
    return tuple(sorted(clipped))


def builtin_strategies(game: Game) -> list[str]:
    """The names of ``game``'s built-in strategies, in its registry's order. A registry that
    cannot say which are built-in (no ``strategy_class``) has all its strategies counted."""
    registry = game.strategies()
    strategy_class = getattr(registry, "strategy_class", None)
    if strategy_class is None:
        return list(registry)
    return [name for name in registry if strategy_class(name).kind() == KIND_BUILTIN]


def suite_cases(game_names: Iterable[str] | None = None) -> list[BenchCase]:
    """Every (game, built-in strategy, player count) of the suite: of the games named, or of
    every registered game, in the registry's order, strategies in their registry's order."""
    chosen = [get_game(name) for name in game_names] if game_names is not None \
        else list(games().values())
    return [BenchCase(game.name, strategy, players)
            for game in chosen
            for strategy in builtin_strategies(game)
            for players in suite_player_counts(game)]


def check_games_scale(games_scale: float, source: str = "--games-scale") -> float:
    """``games_scale`` if it is a finite number above 0, else a one-line InputError."""
    if not math.isfinite(games_scale) or games_scale <= 0:
        raise InputError(f"{source}: expected a number above 0, got {games_scale}")
    return float(games_scale)


def measure_case(case: BenchCase, *, games_scale: float = 1.0, data: Any = None,
                 progress: Progress | None = None) -> BenchResult:
    """Measure one case (module docstring: warm-up, probe, ``REPEATS`` timed calls of the same
    games) with the game's shipped data (``data``: that data already loaded, or None to load
    it); ``progress`` is told each step as a few words."""
    check_games_scale(games_scale)
    game = get_game(case.game)
    if data is None:
        data = game.load_data(None)
    rules = game.default_rules()
    lineup = [parse_strategy(case.strategy, game.strategies(), "--suite")]
    say = progress or (lambda text: None)

    def play(count: int) -> float:
        seats = np.zeros((count, case.players), dtype=np.int64)
        deals = np.arange(count, dtype=np.uint64)
        start = time.perf_counter()
        game.play_shard(data, case.players, rules, lineup, seats, deals,
                        deals + STRATEGY_SEED_OFFSET)
        # A call is never 0 s long, but a coarse clock could say so.
        return max(time.perf_counter() - start, 1e-9)

    say("warm-up (compile or cache load)")
    first_call = play(1)
    say("probing")
    probe_target = PROBE_SECONDS * min(1.0, games_scale)
    count = 1
    while True:
        elapsed = play(count)
        if elapsed >= probe_target or count >= MAX_SHARD_SIZE:
            break
        count = min(2 * count, MAX_SHARD_SIZE)
    rate = count / elapsed
    measured = int(min(max(round(rate * TARGET_SECONDS * games_scale), 1), MAX_SHARD_SIZE))
    seconds = []
    for repeat in range(REPEATS):
        say(f"timing {measured:,} games, call {repeat + 1} of {REPEATS}")
        seconds.append(play(measured))
    return BenchResult(case, game.title, measured, tuple(seconds), first_call)


def run_suite(cases: list[BenchCase], *, games_scale: float = 1.0,
              progress: Callable[[int, BenchCase, str], None] | None = None
              ) -> Iterator[BenchResult]:
    """Measure ``cases`` one after the other, yielding each result as it is measured (a caller
    stopped by Ctrl-C keeps what came before); ``progress(index, case, step)`` hears each
    step. Each game's shipped data is loaded once."""
    loaded: dict[str, Any] = {}
    for index, case in enumerate(cases):
        def step(text: str, index=index, case=case) -> None:
            if progress is not None:
                progress(index, case, text)

        if case.game not in loaded:
            step("loading the shipped data")
            loaded[case.game] = get_game(case.game).load_data(None)
        yield measure_case(case, games_scale=games_scale, data=loaded[case.game],
                           progress=step)


def format_rate(games_per_second: float) -> str:
    """Games per second as the table shows them: whole numbers with thousands separators, one
    decimal below 100 (the slowest strategies play a few dozen games a second)."""
    if games_per_second >= 100:
        return f"{games_per_second:,.0f}"
    return f"{games_per_second:.1f}"


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo, or what ``platform`` knows when it is not
    readable (not Linux)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as lines:
            for line in lines:
                key, _, value = line.partition(":")
                if key.strip() == "model name" and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def machine_info() -> dict[str, Any]:
    """The machine and software the figures were measured with."""
    import numba

    return {"cpu": cpu_model(), "cores": os.cpu_count(), "sim_version": __version__,
            "python": platform.python_version(), "numba": numba.__version__}


def machine_line(machine: dict[str, Any]) -> str:
    """One line naming the machine (CPU model, cores) and the versions."""
    return (f"Machine: {machine['cpu']}, {machine['cores']} cores; sim {machine['sim_version']} "
            f"(Python {machine['python']}, numba {machine['numba']})")


TABLE_HEADER = ("game", "strategy", "players", "games measured",
                f"games/s, one core (best of {REPEATS})")


def table_lines(results: list[BenchResult], machine: dict[str, Any]) -> list[str]:
    """The Markdown table of ``results`` (one row per case), the method line and the machine
    line."""
    lines = [f"| {' | '.join(TABLE_HEADER)} |", f"| {' | '.join('---' for _ in TABLE_HEADER)} |"]
    for result in results:
        cells = (result.title, f"`{result.case.strategy}`", str(result.case.players),
                 f"{result.games:,}", format_rate(result.games_per_second))
        lines.append(f"| {' | '.join(cells)} |")
    return lines + ["", f"{METHOD[:1].upper()}{METHOD[1:]}.", machine_line(machine)]


def suite_document(results: list[BenchResult], machine: dict[str, Any], *, games_scale: float,
                   complete: bool) -> dict[str, Any]:
    """The JSON document of ``sim bench --suite --json``: the table's numbers (games per second
    of the fastest call unrounded), each timed call, the warm-up call and the machine;
    ``complete`` is False when the suite was stopped before its last case."""
    return {
        "method": METHOD,
        "repeats": REPEATS,
        "games_scale": games_scale,
        "complete": complete,
        "machine": machine,
        "rows": [{"game": result.case.game, "title": result.title,
                  "strategy": result.case.strategy, "players": result.case.players,
                  "games": result.games, "games_per_second": result.games_per_second,
                  "seconds": list(result.seconds),
                  "first_call_seconds": result.first_call_seconds}
                 for result in results],
    }
