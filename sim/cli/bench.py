"""``sim bench``: games per second on one core; ``--suite`` measures every built-in strategy
of every registered game (``sim.bench_suite``, ``make bench``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer
from typer._click.core import ParameterSource

from sim.bench_suite import (
    BenchCase,
    check_games_scale,
    machine_info,
    run_suite,
    suite_cases,
    suite_document,
    table_lines,
)
from sim.cli.options import (
    DEFAULT_GAME,
    DataOption,
    GameOption,
    PlayersOption,
    announce_compiling,
    data_path,
)
from sim.config import MAX_SHARD_SIZE
from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

# The parameters that choose what a single bench measures (``--suite`` chooses for itself), and
# the ones only ``--suite`` reads.
SINGLE_ONLY = ("players", "strategy", "games", "tiles", "profile", "trace")
SUITE_ONLY = ("games_scale", "json_file")


def _given_options(context: typer.Context, names: tuple[str, ...]) -> list[str]:
    """The options (as spelled on the command line) of the parameters ``names`` that the user
    gave."""
    spelled = {param.name: "/".join(param.opts) for param in context.command.params}
    return [spelled[name] for name in names
            if context.get_parameter_source(name) not in (None, ParameterSource.DEFAULT)]


def bench(
    context: typer.Context,
    players: PlayersOption = 4,
    strategy: Annotated[
        list[str] | None,
        typer.Option("--strategy", metavar="<strategy>",
                     help="Strategy in every seat (repeat to bench several; "
                                        "default: random and greedy)."),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per measurement.")] = 20000,
    tiles: DataOption = None,
    game: GameOption = DEFAULT_GAME,
    profile: Annotated[
        bool, typer.Option("--profile", help="Also play the games in an instrumented build of "
                                             "the loop and print where the time goes, phase "
                                             "by phase (compiled for the purpose: slow to start; "
                                             "built-in strategies only; without the score "
                                             "trace).")] = False,
    trace: Annotated[bool, typer.Option("--trace", help="Also record the score trace (every "
                                                        "seat's score after each round).")]
    = False,
    suite: Annotated[bool, typer.Option("--suite", help="Measure every built-in strategy of "
                                                        "every game (or of --game's only, when "
                                                        "given) at 2 and 4 players and print "
                                                        "one Markdown table (takes minutes).")]
    = False,
    games_scale: Annotated[float, typer.Option("--games-scale", help="--suite: multiply the "
                                                                     "games of each timed call "
                                                                     "(about 1.5 s at 1).")]
    = 1.0,
    json_file: Annotated[Path | None, typer.Option("--json", help="--suite: also write the "
                                                                  "table's numbers to this "
                                                                  "JSON file.")] = None,
) -> None:
    """Measure games per second on one core (compile or cache-load time reported apart);
    --suite: every built-in strategy of every game at 2 and 4 players, as one table."""
    if suite:
        clash = _given_options(context, SINGLE_ONLY)
        if clash:
            raise InputError(f"--suite chooses the strategies, players, games and data itself; "
                             f"drop {', '.join(clash)}")
        check_games_scale(games_scale)
        bench_suite(games_scale, json_file, game if _given_options(context, ("game",)) else None)
        return
    stray = _given_options(context, SUITE_ONLY)
    if stray:
        raise InputError(f"{', '.join(stray)}: only with --suite")
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    if trace and not chosen.supports_trace:
        raise InputError(f"--trace: {chosen.name} does not record a score trace")
    traced = {"trace": True} if trace else {}
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    if games > MAX_SHARD_SIZE:
        # One measurement is one compiled call holding all its games in memory, like a shard.
        raise InputError(f"--games: at most {MAX_SHARD_SIZE:,} per measurement, got {games:,}")
    data = chosen.load_data(data_path(tiles))
    rules = chosen.default_rules()
    names = strategy or ["random", "greedy"]
    typer.echo(f"{chosen.title}, {players} players, {games} games per strategy, one core"
               + (", score trace on" if trace else ""))
    specs = [parse_strategy(text, chosen.strategies(), "--strategy") for text in names]
    announce_compiling(chosen, "play_shard", strategies=specs)
    for spec in specs:
        lineup = [spec]
        seats = np.zeros((1, players), dtype=np.int64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats,
                          np.zeros(1, np.uint64), np.zeros(1, np.uint64), **traced)
        warmup = time.perf_counter() - start
        seats = np.zeros((games, players), dtype=np.int64)
        deal = np.arange(games, dtype=np.uint64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats, deal, deal + np.uint64(1 << 40),
                          **traced)
        elapsed = time.perf_counter() - start
        typer.echo(f"  {lineup[0].label():24s} {games / elapsed:10,.0f} games/s "
                   f"({elapsed:.2f} s; compile/cache load {warmup:.2f} s)")
        if profile:
            from sim.loops.profiling import format_profile

            times = chosen.profile_shard(data, players, rules, lineup, seats, deal,
                                         deal + np.uint64(1 << 40))
            for line in format_profile(times, games):
                typer.echo(line)


class StatusLine:
    """One status line on stderr: rewritten in place on a terminal; elsewhere (a pipe, a log)
    one line per case, so that a log is not flooded with steps."""

    def __init__(self) -> None:
        self.stream = sys.stderr
        self.live = self.stream.isatty()
        self.shown = False
        self.last_case = ""

    def show(self, case_text: str, step: str) -> None:
        """Show the case and its current step."""
        if self.live:
            self.stream.write(f"\r\x1b[K{case_text}: {step}")
            self.shown = True
        elif case_text != self.last_case:
            self.stream.write(f"{case_text}\n")
        self.last_case = case_text
        self.stream.flush()

    def clear(self) -> None:
        """Remove the line (before other text goes to the terminal)."""
        if self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False


def bench_suite(games_scale: float, json_file: Path | None, game: str | None) -> None:
    """``sim bench --suite``: measure every case, print the table (on Ctrl-C, of the cases
    measured so far, then exit 130) and write the JSON when asked."""
    cases = suite_cases([game] if game is not None else None)
    if json_file is not None and json_file.is_dir():
        raise InputError(f"--json: {json_file} is a folder")
    status = StatusLine()
    announced: set[str] = set()

    def progress(index: int, case: BenchCase, step: str) -> None:
        if case.game not in announced:
            announced.add(case.game)
            status.clear()
            announce_compiling(get_game(case.game), "play_shard",
                               strategies=sorted({c.strategy for c in cases
                                                  if c.game == case.game}))
        status.show(f"[{index + 1}/{len(cases)}] {case.game} {case.strategy}, "
                    f"{case.players} players", step)

    results = []
    complete = False
    try:
        for result in run_suite(cases, games_scale=games_scale, progress=progress):
            results.append(result)
        complete = True
    except KeyboardInterrupt:
        status.clear()
        typer.echo(f"interrupted: {len(results)} of {len(cases)} cases measured", err=True)
    status.clear()
    machine = machine_info()
    for line in table_lines(results, machine):
        typer.echo(line)
    if json_file is not None:
        document = suite_document(results, machine, games_scale=games_scale, complete=complete)
        try:
            write_text_atomic(json_file, json.dumps(document, indent=2) + "\n")
        except OSError as error:
            raise InputError(f"--json: cannot write {json_file}: {error.strerror or error}") \
                from None
    if not complete:
        raise typer.Exit(130)
