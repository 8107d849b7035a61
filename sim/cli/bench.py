"""``sim bench``: games per second on one core."""

from __future__ import annotations

import time
from typing import Annotated

import numpy as np
import typer

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
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy


def bench(
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
) -> None:
    """Measure games per second on one core (compile or cache-load time reported apart)."""
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
