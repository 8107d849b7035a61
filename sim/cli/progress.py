"""Progress bars of the commands that play batches (``run``, ``sweep``, ``tune-trees``), and the
Ctrl-C handling they share: finished shards are kept and the command exits with code 130."""

from __future__ import annotations

import time

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from sim.runner import run_batch
from sim.sweep import games_done, run_sweep


def run_with_progress(config, *, workers, backend, scheduler, resume, quiet):
    """Run a batch with a rich progress bar (games done, games/s, ETA); Ctrl-C keeps every
    finished shard and exits with code 130."""
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn()]
    progress = Progress(*columns, disable=quiet, transient=False)
    task = progress.add_task(config.name, total=config.games, rate="")
    session = {"start": time.perf_counter(), "first": None}

    def update(done: int, total: int) -> None:
        if session["first"] is None:
            session["first"] = done
        elapsed = time.perf_counter() - session["start"]
        rate = (done - session["first"]) / elapsed if elapsed > 0 else 0.0
        progress.update(task, completed=done, rate=f"{rate:,.0f} games/s")

    try:
        with progress:
            return run_batch(config, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished shards are kept; finish with "
                   f"`sim run --resume {config.output}`", err=True)
        raise typer.Exit(130) from None


def run_sweep_with_progress(plan, *, workers, backend, scheduler, resume, quiet):
    """Run a sweep with one progress bar over all points; Ctrl-C keeps finished shards."""
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("games"), TextColumn("{task.fields[point]}"),
                        TimeElapsedColumn(), disable=quiet)
    task = progress.add_task(plan.name, total=sum(p.config.games for p in plan.points),
                             point="")

    def update(done: int, total: int, label: str) -> None:
        progress.update(task, completed=done, total=total, point=label)

    try:
        with progress:
            return run_sweep(plan, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo("interrupted: finished shards are kept; finish with --resume", err=True)
        raise typer.Exit(130) from None


def print_sweep_points(plan, states) -> None:
    """One line per grid point: its values, games played and why it stopped."""
    for point in plan.points:
        typer.echo(f"  {point.label:50s} {games_done(point):>10,} games  "
                   f"{states.get(point.index, 'pending')}")
