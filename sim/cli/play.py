"""``sim play``: one game with every turn printed."""

from __future__ import annotations

import json
import re
from html import escape
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
from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.registry import get_game
from sim.seeding import single_game_seeds

# The viewBox of a standalone drawing: "0 0 width height" (what the games' drawings write).
_VIEW_BOX = re.compile(r'viewBox="0 0 ([0-9.]+) ([0-9.]+)"')
SEATS_PER_ROW = 2  # 2 seats side by side, 3 or 4 in two rows: readable on a page or a slide
GAP = 16  # user units between two seats' drawings


def side_by_side(drawings: list[str], title: str) -> str:
    """One SVG document holding standalone SVG ``drawings`` (each with a ``viewBox="0 0 W
    H"``) in rows of ``SEATS_PER_ROW``, in order, under a heading ``title``."""
    sizes = []
    for drawing in drawings:
        match = _VIEW_BOX.search(drawing)
        if match is None:
            raise ValueError("a drawing without a viewBox of the form \"0 0 W H\"")
        sizes.append((float(match[1]), float(match[2])))
    column_width = max(width for width, _ in sizes)
    columns = min(SEATS_PER_ROW, len(drawings))
    heading = 28.0
    parts, y = [], heading
    for row in range(0, len(drawings), SEATS_PER_ROW):
        row_height = max(height for _, height in sizes[row:row + SEATS_PER_ROW])
        for column, drawing in enumerate(drawings[row:row + SEATS_PER_ROW]):
            width, height = sizes[row + column]
            x = column * (column_width + GAP) + (column_width - width) / 2
            # A nested <svg> keeps its own viewBox and <title>; x/y/width/height place it.
            parts.append(drawing.strip().replace(
                "<svg ", f'<svg x="{x:g}" y="{y:g}" width="{width:g}" height="{height:g}" ', 1))
        y += row_height + GAP
    total_width = columns * column_width + (columns - 1) * GAP
    return "\n".join([
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {total_width:g} {y - GAP:g}" '
        f'role="img">',
        f"<title>{escape(title)}</title>",
        f'<rect x="0" y="0" width="{total_width:g}" height="{y - GAP:g}" fill="#ffffff"/>',
        f'<text x="{total_width / 2:g}" y="18" font-size="15" font-weight="bold" '
        f'text-anchor="middle" font-family="DejaVu Sans, Arial, sans-serif">{escape(title)}'
        f"</text>",
        *parts,
        "</svg>",
        "",
    ])


def check_output_file(option: str, path: Path | None) -> None:
    """Refuse, before any game is played, an output path that cannot be a file: a folder, or
    one under a file."""
    if path is None:
        return
    if path.is_dir():
        raise InputError(f"{option}: {path} is a folder, not a file")
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise InputError(f"{option}: cannot write {path}: {parent} is a file")
            break


def write_output(option: str, path: Path, text: str) -> None:
    """Write ``text`` to ``path`` atomically, or a one-line InputError naming ``option``."""
    try:
        write_text_atomic(path, text)
    except OSError as error:
        raise InputError(f"{option}: cannot write {path}: {error.strerror or error}") from None


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
    svg_out: Annotated[
        Path | None,
        typer.Option("--svg", help="Write a drawing of every seat's final position (SVG) to "
                                   "this file."),
    ] = None,
    rule: RuleOption = None,
    game: GameOption = DEFAULT_GAME,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Play one game and print every turn and the final position of every player.

    Seats are counted from 1, as `sim score` numbers the positions of the --json file (whose
    JSON keeps the games' 0-based seats)."""
    check_seed(seed)
    check_output_file("--json", json_out)
    check_output_file("--svg", svg_out)
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    rules = rules_from_options(chosen, rule_options or {}, rule)
    data = chosen.load_data(data_path(tiles))
    lineup = resolve_lineup(chosen, strategy, players)
    announce_compiling(chosen, "play_one", strategies=lineup)
    played = chosen.play_one(data, players, rules, lineup, seed)
    typer.echo(played.text)
    if json_out is not None:
        write_output("--json", json_out, json.dumps(played.document, indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")
    if svg_out is not None:
        # The same game replayed from its seeds (the game's own final positions, drawn).
        drawings = chosen.final_svgs(data, players, rules, lineup, *single_game_seeds(seed))
        if drawings is None:
            raise InputError(f"--svg: {chosen.title} draws no positions")
        write_output("--svg", svg_out, side_by_side(
            drawings, f"{chosen.title}, {players} player(s), seed {seed}"))
        typer.echo(f"wrote {svg_out}")
