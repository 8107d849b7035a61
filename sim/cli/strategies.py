"""``sim strategies``: the strategies of a game, how they run, their parameters."""

from __future__ import annotations

from typing import Annotated

import typer

from sim.cli.options import DEFAULT_GAME, GameOption
from sim.errors import InputError, did_you_mean
from sim.games.registry import get_game


def strategies(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="Only these strategies (registered names or module:Class).")
    ] = None,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """List the strategies with how they run, their parameters and a one-line description,
    then the fields of players the game declares (`sim run --field NAME`)."""
    chosen = get_game(game)
    registry = chosen.strategies()
    wanted = list(names) if names else list(registry)
    kind_of = getattr(registry, "strategy_class", None)
    for name in wanted:
        if name not in registry:
            raise InputError(f"unknown strategy '{name}'{did_you_mean(name, registry)}")
        info = registry[name]
        kind = f" [{kind_of(name).kind()}]" if kind_of is not None else ""
        typer.echo(f"{name}{kind}: {info.description}")
        for parameter in info.parameters:
            default = parameter.default
            shown = int(default) if float(default).is_integer() else default
            typer.echo(f"    {parameter.name}={shown}: {parameter.help}")
    if names or not chosen.field_lineups:
        return
    typer.echo("")
    typer.echo(f"Fields of players (sim run / sim sweep --field NAME; `default` = "
               f"{', '.join(chosen.default_fields)}):")
    for name, lineup, why in chosen.field_lineups:
        typer.echo(f"  {name} = {lineup}: {why}")
