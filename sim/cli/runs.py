"""``sim runs``: the batches in a folder with their size and status."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.errors import InputError
from sim.store import list_batches


def runs(
    folder: Annotated[Path, typer.Argument(help="Folder to search for batches.")] = Path("runs"),
) -> None:
    """List the batches in a folder with their size and status."""
    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    batches = list_batches(folder)
    if not batches:
        typer.echo(f"no batches under {folder}")
        return
    typer.echo(f"{'batch':32s} {'game':18s} {'pl':>2s} {'games':>12s} {'shards':>11s} "
               f"{'store':7s} {'status':11s} {'size':>9s}")
    for batch in batches:
        games = f"{batch['games_done']:,}/{batch['games']:,}" if batch["status"] != "complete" \
            else f"{batch['games']:,}"
        typer.echo(f"{batch['path']:32s} {batch['game']:18s} {batch['players'] or 0:2d} "
                   f"{games:>12s} {batch['shards_done']:>5d}/{batch['shards_total']:<5d} "
                   f"{batch['store']:7s} {batch['status']:11s} {batch['bytes'] / 1e6:8.1f}M")
