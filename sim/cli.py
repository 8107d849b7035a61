"""The `sim` command line: one command per verb.

Errors in user input (files, fields, options) are printed as one line and exit with code 2.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

app = typer.Typer(
    help="Simulate tile-laying board games by the million and measure their balance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GameOption = Annotated[str, typer.Option("--game", "-g", help="Game to play: legendary-forests.")]
DataOption = Annotated[
    Path | None,
    typer.Option("--tiles", help="Tile-set TOML file (default: the shipped set).",
                 dir_okay=False),
]


def user_errors(command):
    """Turn InputError into a one-line message on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except InputError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def resolve_lineup(game, strategies: list[str], players: int, source: str = "--strategy"):
    """One strategy spec per seat: a single name fills every seat, otherwise one per seat."""
    registry = game.strategies()
    specs = [parse_strategy(text, registry, source) for text in strategies]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise InputError(f"{source}: {len(specs)} strategies given for {players} players; "
                         f"give one for every seat or a single one for all")
    return specs


@app.command()
@user_errors
def score(
    position: Annotated[Path, typer.Argument(help="Planet JSON file (RULES.md format).")],
    tiles: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
    game: GameOption = "legendary-forests",
) -> None:
    """Validate a finished position and print what each zone with a tree scores."""
    chosen = get_game(game)
    data = chosen.load_data(str(tiles) if tiles else None)
    result = chosen.score_file(str(position), data)
    typer.echo(json.dumps(result.document, indent=2) if as_json else result.text)


@app.command()
@user_errors
def play(
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Game seed.")] = 1,
    strategy: Annotated[
        list[str],
        typer.Option("--strategy", help="Strategy per seat (repeat), or one for all seats, "
                                        "e.g. greedy or name:key=value."),
    ] = ["greedy"],  # noqa: B006 - typer needs a list default here
    tiles: DataOption = None,
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write the final planets and the turn log to this file."),
    ] = None,
    removed_tiles: Annotated[
        int | None, typer.Option(help="Tiles removed unseen (rules parameter).")
    ] = None,
    trees_per_colour_per_player: Annotated[
        int | None, typer.Option(help="Trees per leaf colour per player (rules parameter).")
    ] = None,
    game: GameOption = "legendary-forests",
) -> None:
    """Play one game and print every turn and the final planets with their scores."""
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    overrides = {k: v for k, v in {"removed_tiles": removed_tiles,
                                   "trees_per_colour_per_player": trees_per_colour_per_player
                                   }.items() if v is not None}
    rules = chosen.resolve_rules(overrides, "options")
    data = chosen.load_data(str(tiles) if tiles else None)
    lineup = resolve_lineup(chosen, strategy, players)
    played = chosen.play_one(data, players, rules, lineup, seed)
    typer.echo(played.text)
    if json_out is not None:
        write_text_atomic(json_out, json.dumps(played.document, indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")


@app.command()
@user_errors
def bench(
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    strategy: Annotated[
        list[str] | None,
        typer.Option("--strategy", help="Strategy in every seat (repeat to bench several; "
                                        "default: random and greedy)."),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per measurement.")] = 20000,
    tiles: DataOption = None,
    game: GameOption = "legendary-forests",
) -> None:
    """Measure games per second on one core (compile or cache-load time reported apart)."""
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    data = chosen.load_data(str(tiles) if tiles else None)
    rules = chosen.default_rules()
    names = strategy or ["random", "greedy"]
    typer.echo(f"{chosen.title}, {players} players, {games} games per strategy, one core")
    for text in names:
        lineup = [parse_strategy(text, chosen.strategies(), "--strategy")]
        seats = np.zeros((1, players), dtype=np.int64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats,
                          np.zeros(1, np.uint64), np.zeros(1, np.uint64))
        warmup = time.perf_counter() - start
        seats = np.zeros((games, players), dtype=np.int64)
        deal = np.arange(games, dtype=np.uint64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats, deal, deal + np.uint64(1 << 40))
        elapsed = time.perf_counter() - start
        typer.echo(f"  {lineup[0].label():24s} {games / elapsed:10,.0f} games/s "
                   f"({elapsed:.2f} s; compile/cache load {warmup:.2f} s)")


def main() -> None:  # pragma: no cover - console entry point
    """Entry point for ``python -m sim``."""
    app()
    sys.exit(0)
