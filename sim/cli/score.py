"""``sim score``: validate a position file and print what it scores."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import DEFAULT_GAME, DataOption, GameOption, data_path, position_help
from sim.games.registry import get_game


def score(
    position: Annotated[Path, typer.Argument(help=position_help())],
    tiles: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
    game: GameOption = DEFAULT_GAME,
) -> None:
    """Validate a position and print what it scores.

    Each game prints its own breakdown (the zones with a tree, the categories) and the total."""
    chosen = get_game(game)
    data = chosen.load_data(data_path(tiles))
    result = chosen.score_file(str(position), data)
    typer.echo(json.dumps(result.document, indent=2) if as_json else result.text)
