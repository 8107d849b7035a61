"""``sim play``: one game with every turn printed."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    DEFAULT_GAME,
    DataOption,
    GameOption,
    PlayersOption,
    RuleOption,
    announce_compiling,
    check_seed,
    data_path,
    resolve_lineup,
    rules_from_options,
    with_rules_options,
)
from sim.files import write_text_atomic
from sim.games.registry import get_game

# "seat 0", "seat 1", ... in a game's turn log: the seat's index as the Parquet stores it.
_SEAT_INDEX = re.compile(r"\b([Ss]eat) (\d+)\b")


def seats_from_one(text: str) -> str:
    """``text`` with every "seat N" counted from 1, as a person reads seats (and as `sim
    score` numbers the positions of the same file); the JSON keeps the games' 0-based
    ``seat``, like the Parquet."""
    return _SEAT_INDEX.sub(lambda match: f"{match[1]} {int(match[2]) + 1}", text)


@with_rules_options
def play(
    players: PlayersOption = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Game seed.")] = 1,
    strategy: Annotated[
        list[str],
        typer.Option("--strategy", metavar="<strategy>",
                     help="Strategy per seat (repeat), or one for all seats, "
                                        "e.g. greedy or name:key=value."),
    ] = ["greedy"],  # noqa: B006 - typer needs a list default here
    tiles: DataOption = None,
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write the final positions and the turn log to this file."),
    ] = None,
    rule: RuleOption = None,
    game: GameOption = DEFAULT_GAME,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Play one game and print every turn and the final position of every player.

    Seats are counted from 1, as `sim score` numbers the positions of the --json file."""
    check_seed(seed)
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    rules = rules_from_options(chosen, rule_options or {}, rule)
    data = chosen.load_data(data_path(tiles))
    lineup = resolve_lineup(chosen, strategy, players)
    announce_compiling(chosen, "play_one", strategies=lineup)
    played = chosen.play_one(data, players, rules, lineup, seed)
    typer.echo(seats_from_one(played.text))
    if json_out is not None:
        write_text_atomic(json_out, json.dumps(played.document, indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")
