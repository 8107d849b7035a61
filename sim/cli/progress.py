"""Progress bars of the commands that play batches (``run``, ``sweep``, ``tune-trees``), and the
Ctrl-C handling they share: finished shards are kept and the command exits with code 130.

A bar starts only once the run has checked everything it can before playing (config, data,
strategies, output folders): a mistake found there is one line on stderr, with no bar above it.
An error during the run removes the bar before the error is printed, so the error stays one
clean line; Ctrl-C keeps the bar, which shows how far the run got.
"""

from __future__ import annotations

import time
from contextlib import contextmanager

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from sim.cli.options import announce_compiling
from sim.config import lineup_specs
from sim.games.registry import get_game
from sim.runner import check_run_dir, run_batch
from sim.sweep import SWEEP_MANIFEST, read_sweep_manifest, run_sweep


class LazyBar:
    """A rich progress bar that appears at its first update, not before."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.started = False

    def update(self, task, **fields) -> None:
        """Update ``task``, starting the bar on the first call."""
        if not self.started:
            self.progress.start()
            self.started = True
        self.progress.update(task, **fields)

    @contextmanager
    def shown(self):
        """Stop the bar when the run ends: kept on success and on Ctrl-C, removed on an error
        (so the error printed next is one line)."""
        try:
            yield self
        except KeyboardInterrupt:
            self._stop()
            raise
        except BaseException:
            if self.started:
                # Clear the bar and skip the blank line rich adds after a bar on a pipe.
                self.progress.live.transient = True
                self.progress.live.stop()
                self.started = False
            raise
        self._stop()

    def _stop(self) -> None:
        if self.started:
            self.progress.stop()
            self.started = False


def run_with_progress(config, *, workers, backend, scheduler, resume, quiet):
    """Run a batch with a rich progress bar (games done, games/s, ETA); Ctrl-C keeps every
    finished shard and exits with code 130."""
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn()]
    bar = LazyBar(Progress(*columns, disable=quiet, transient=False))
    task = bar.progress.add_task(config.name, total=config.games, rate="")
    session = {"start": time.perf_counter(), "first": None}

    def update(done: int, total: int) -> None:
        if session["first"] is None:
            session["first"] = done
            # Everything is checked (the runner reports progress only once it is about to
            # play): say so now if the kernels must be compiled first.
            game = get_game(config.game)
            announce_compiling(game, "play_shard", "final_drawings",
                               strategies=lineup_specs(config, game))
        elapsed = time.perf_counter() - session["start"]
        played = done - session["first"]
        rate = played / elapsed if elapsed > 0 else 0.0
        # Nothing played yet (or a finished batch resumed): no speed to show.
        bar.update(task, completed=done, rate=f"{rate:,.0f} games/s" if played else "")

    try:
        with bar.shown():
            return run_batch(config, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished shards are kept; finish with "
                   f"`sim run --resume {config.output}`", err=True)
        raise typer.Exit(130) from None


def check_sweep_points(plan) -> None:
    """Every grid point's output folder, checked before anything is played: a folder holding
    a batch with another config is refused now, not after other points were played."""
    for point in plan.points:
        check_run_dir(point.config, resume=None)


def run_sweep_with_progress(plan, *, workers, backend, scheduler, resume, quiet):
    """Run a sweep with one progress bar over all points; Ctrl-C keeps finished shards."""
    manifest = plan.output / SWEEP_MANIFEST
    # A folder holding another sweep is refused by run_sweep itself, naming the sweep; only a
    # folder of this sweep (or a new one) has its points checked here.
    if not manifest.exists() or read_sweep_manifest(plan.output).get("digest") == plan.digest:
        check_sweep_points(plan)
    bar = LazyBar(Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                           MofNCompleteColumn(), TextColumn("games"),
                           TextColumn("{task.fields[point]}"), TimeElapsedColumn(),
                           disable=quiet))
    task = bar.progress.add_task(plan.name, total=sum(p.config.games for p in plan.points),
                                 point="")
    announced = []

    def update(done: int, total: int, label: str) -> None:
        if not announced:
            announced.append(True)
            game = get_game(plan.points[0].config.game)
            announce_compiling(game, "play_shard", "final_drawings",
                               strategies=[spec for point in plan.points
                                           for spec in lineup_specs(point.config, game)])
        bar.update(task, completed=done, total=total, point=label)

    try:
        with bar.shown():
            return run_sweep(plan, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo("interrupted: finished shards are kept; finish with --resume", err=True)
        raise typer.Exit(130) from None


