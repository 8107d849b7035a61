"""``sim runs``: the batches in a folder with their size and status."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sim.errors import InputError
from sim.files import escape_control_characters
from sim.store import list_batches

# The states an adaptive sweep gives a point that its rule stopped before the cap of games.
STOPPED_STATES = ("precise", "decided")


def stopped_points(folder: Path) -> dict[Path, str]:
    """The batch folders (resolved) of sweep points stopped early by an adaptive rule, with
    their state, read from every ``sweep.json`` under ``folder``."""
    stopped: dict[Path, str] = {}
    for path in sorted(folder.rglob("sweep.json")):
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue  # not a readable sweep: its points are listed by their own manifests
        for point in manifest.get("points", []) if isinstance(manifest, dict) else []:
            if isinstance(point, dict) and point.get("state") in STOPPED_STATES:
                # Relative to the sweep folder (older sweeps: to where they were started).
                run_dir = Path(str(point.get("run_dir", "")))
                inside = path.parent / run_dir
                stopped[(inside if inside.is_dir() else run_dir).resolve()] = point["state"]
    return stopped


def runs(
    folder: Annotated[Path, typer.Argument(help="Folder to search for batches.")] = Path("runs"),
) -> None:
    """List the batches in a folder with their size and status.

    A sweep point that its adaptive rule stopped early shows as stopped (precise or decided)
    with the games it played, not as a partial batch."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    batches = list_batches(folder)
    if not batches:
        typer.echo(f"no batches under {escape_control_characters(str(folder))}")
        return
    stopped = stopped_points(folder)
    rows = []
    for batch in batches:
        state = stopped.get(Path(batch["path"]).resolve())
        if state is not None and batch["status"] != "complete":
            games, status = f"{batch['games_done']:,}", f"stopped ({state})"
        elif batch["status"] != "complete":
            games, status = f"{batch['games_done']:,}/{batch['games']:,}", batch["status"]
        else:
            games, status = f"{batch['games']:,}", batch["status"]
        row = (batch["path"], batch["game"], str(batch["players"] or 0), games,
               f"{batch['shards_done']}/{batch['shards_total']}", batch["store"], status,
               f"{batch['bytes'] / 1e6:.1f}M")
        # A folder or a manifest may hold any characters: a newline or an escape sequence
        # is shown escaped, never sent to the terminal.
        rows.append(tuple(escape_control_characters(str(cell)) for cell in row))
    header = ("batch", "game", "pl", "games", "shards", "store", "status", "size")
    # Columns as wide as their longest entry, so a long name never shifts the others.
    widths = [max(len(row[i]) for row in (header, *rows)) for i in range(len(header))]
    right = {2, 3, 4, 7}
    for row in (header, *rows):
        typer.echo(" ".join(cell.rjust(width) if i in right else cell.ljust(width)
                            for i, (cell, width) in enumerate(zip(row, widths, strict=True)))
                   .rstrip())
