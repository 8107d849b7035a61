"""``sim score``: validate a position file and print what it scores."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import DataOption, data_path, position_help
from sim.errors import InputError
from sim.games.registry import default_game, games, get_game


def _played_document(position: Path) -> dict | None:
    """The JSON object in ``position``, or None when the file is not a JSON object (each game's
    own loader then reports what is wrong with it)."""
    try:
        document = json.loads(position.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None  # the game's loader names the problem in one line
    return document if isinstance(document, dict) else None


def score(
    position: Annotated[Path, typer.Argument(help=position_help() + " Or the JSON that "
                                             "`sim play --json` writes: every player's final "
                                             "position is scored.")],
    tiles: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
    game: Annotated[str | None, typer.Option(
        "--game", "-g", help=f"The game ({', '.join(games())}); default: the file's 'game' "
                             f"field, else {default_game()}.")] = None,
    player: Annotated[int | None, typer.Option(
        "--player", min=1, help="With a `sim play --json` file: score only this player's "
                                "position, by seat counted from 1 (as `sim play` prints "
                                "seats).")] = None,
) -> None:
    """Validate a position and print what it scores.

    Each game prints its own breakdown (the zones with a tree, the categories) and the total."""
    document = _played_document(position)
    recorded = document.get("game") if document is not None else None
    if game is None:
        game = recorded if isinstance(recorded, str) else default_game()
    chosen = get_game(game, f"{position}: field 'game'" if recorded == game else "--game")
    data = chosen.load_data(data_path(tiles))
    field = chosen.played_positions_field
    played = document.get(field) if document is not None and field else None
    if not isinstance(played, list):
        if player is not None:
            raise InputError(f"--player: {position} is one position, not a `sim play --json` "
                             f"file with a '{field or 'positions'}' list")
        result = chosen.score_file(str(position), data)
        typer.echo(json.dumps(result.document, indent=2) if as_json else result.text)
        return
    if player is not None and not 1 <= player <= len(played):
        raise InputError(f"--player: {player} is out of range 1..{len(played)} for {position}")
    chosen_players = [player] if player is not None else range(1, len(played) + 1)
    texts, documents = [], []
    with tempfile.TemporaryDirectory() as folder:
        for number in chosen_players:
            # Each game scores a position file; the one in the play document is written out.
            single = Path(folder) / f"player-{number}.json"
            single.write_text(json.dumps(played[number - 1]), encoding="utf-8")
            result = chosen.score_file(str(single), data)
            # "seat N" from 1, the words and numbers `sim play` prints for the same game.
            label = f"{position} '{field}' seat {number}"
            texts.append(result.text.replace(str(single), label))
            documents.append({"player": number, **result.document})
    typer.echo(json.dumps(documents, indent=2) if as_json else "\n\n".join(texts))
