"""The `sim tournament` and `sim strategies` commands (registered in ``sim.cli`` by
``app.command()(tournament)`` and ``app.command()(strategies)``)."""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Annotated

import typer

from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.registry import get_game


def _with_user_errors(command):
    """``sim.cli.user_errors`` around ``command``, imported at call time (``sim.cli`` imports
    this module)."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        from sim.cli import user_errors

        return user_errors(command)(*args, **kwargs)

    return wrapper


def default_workers() -> int:
    """Worker processes for a tournament: every core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@_with_user_errors
def tournament(
    strategies: Annotated[
        str, typer.Option("--strategies", help="Comma-separated strategies, e.g. "
                                                "random,greedy,planner:hope=0.5,lookahead=1 "
                                                "(an item key=value continues the previous one).")
    ] = "random,greedy",
    players: Annotated[int, typer.Option("--players", "-p", help="Seats per game.")] = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games in total (rounded up to "
                                                             "whole deals x seat rotations).")
                     ] = 2000,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Master seed.")] = 1,
    workers: Annotated[
        int | None, typer.Option("--workers", "-j", help="Worker processes (default: all "
                                                          "cores); results do not depend on it.")
    ] = None,
    tiles: Annotated[
        Path | None, typer.Option("--tiles", "--data",
                                  help="Game data: a tile-set TOML file or a Harmonies data "
                                       "folder (default: the shipped data).")
    ] = None,
    removed_tiles: Annotated[
        int | None, typer.Option(help="Tiles removed unseen (rules parameter).")
    ] = None,
    trees_per_colour_per_player: Annotated[
        int | None, typer.Option(help="Trees per leaf colour per player (rules parameter).")
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", help="Any rules parameter: NAME=VALUE (repeat)."),
    ] = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the results to this JSON file.")
    ] = None,
    game: Annotated[str, typer.Option("--game", "-g", help="Game to play.")] = "legendary-forests",
) -> None:
    """Play every strategy in every seat on the same deals and rate them.

    Prints scores and win rates with 95% CIs, head-to-head win rates and Bradley-Terry
    ratings."""
    from sim.strategy_spec import parse_strategy
    from sim.tournament import parse_strategy_list, run_tournament

    chosen = get_game(game)
    chosen.check_players(players, "--players")
    from sim.cli import rules_from_options

    rules = rules_from_options(chosen, removed_tiles, trees_per_colour_per_player, rule)
    data = chosen.load_data(str(tiles) if tiles else None)
    registry = chosen.strategies()
    lineup = [parse_strategy(text, registry, "--strategies")
              for text in parse_strategy_list(strategies)]
    result = run_tournament(chosen, data, players, rules, lineup, games, seed,
                            workers if workers is not None else default_workers())
    typer.echo(result.table())
    if json_out is not None:
        write_text_atomic(json_out, json.dumps(result.document(), indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")


@_with_user_errors
def strategies(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Only these strategies (registered names or module:Class).")
    ] = None,
    game: Annotated[str, typer.Option("--game", "-g", help="Game.")] = "legendary-forests",
) -> None:
    """List the strategies with how they run, their parameters and a one-line description."""
    chosen = get_game(game)
    registry = chosen.strategies()
    wanted = list(names) if names else list(registry)
    kind_of = getattr(registry, "strategy_class", None)
    for name in wanted:
        if name not in registry:
            from sim.strategy_spec import did_you_mean

            raise InputError(f"unknown strategy '{name}'{did_you_mean(name, registry)}")
        info = registry[name]
        kind = f" [{kind_of(name).kind()}]" if kind_of is not None else ""
        typer.echo(f"{name}{kind}: {info.description}")
        for parameter in info.parameters:
            default = parameter.default
            shown = int(default) if float(default).is_integer() else default
            typer.echo(f"    {parameter.name}={shown}: {parameter.help}")
