"""Progress bars of the commands that play games: one bar of games (``games_bar``) for all, the
tournaments' count of games (``games_counted``), and for the commands that play batches
(``run``, ``sweep``, ``tune-rules``) the Ctrl-C and SIGTERM handling they share: finished shards
are kept, one line says how many and how to finish, and the command exits with code 130
(SIGINT) or 143 (SIGTERM); ``sim.signals``.

A bar starts only once the run has checked everything it can before playing (config, data,
strategies, output folders): a mistake found there is one line on stderr, with no bar above it.
An error during the run removes the bar before the error is printed, so the error stays one
clean line; Ctrl-C keeps the bar, which shows how far the run got.
"""

from __future__ import annotations

import json
import signal
import time
from contextlib import contextmanager
from pathlib import Path

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
from sim.files import escape_control_characters
from sim.games.registry import get_game
from sim.runner import check_run_dir, run_batch
from sim.signals import exit_code, interruption_line, say_interrupted, stop_signal_received
from sim.store import MANIFEST
from sim.sweep import SWEEP_MANIFEST, read_sweep_manifest, run_sweep


def games_bar(*, quiet: bool, field: str | None = None, eta: bool = False) -> Progress:
    """A bar of games as every command shows it: the task's description, the bar, games done of
    the total, the task's ``field`` when named, the time elapsed and, with ``eta``, the time
    left. Nothing is drawn with ``quiet``."""
    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games")]
    if field is not None:
        columns.append(TextColumn(f"{{task.fields[{field}]}}"))
    columns.append(TimeElapsedColumn())
    if eta:
        columns += [TextColumn("ETA"), TimeRemainingColumn()]
    return Progress(*columns, disable=quiet)


@contextmanager
def games_counted(description: str, *, quiet: bool):
    """A games bar shown while the block runs; yields the ``progress(done, total)`` callback
    the tournaments (``sim.ladder``, ``sim.league``) report through."""
    bar = games_bar(quiet=quiet)
    task = bar.add_task(description, total=1)

    def update(done: int, total: int) -> None:
        bar.update(task, completed=done, total=total)

    with bar:
        yield update


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


def _shards_kept(run_dir: Path) -> int | None:
    """How many shards the manifest of ``run_dir`` records as finished, None without one (read
    leniently: this is for the line an interruption prints, whatever state the folder is in)."""
    try:
        manifest = json.loads((run_dir / MANIFEST).read_text(encoding="utf-8"))
        return len(manifest["shards_done"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _finish_hint(folder: Path, resume_command: str | None) -> str:
    shown = escape_control_characters(str(folder))
    if resume_command is None:
        return "run the same command with --resume to finish it"
    return f"`{resume_command} {shown}` finishes it"


def batch_interruption_line(run_dir: Path, shards: int, resume_command: str) -> str:
    """The one line a batch interrupted by Ctrl-C or SIGTERM ends with: what it kept, and how
    to finish it (``resume_command DIR``)."""
    shown = escape_control_characters(str(run_dir))
    kept = _shards_kept(run_dir)
    if kept is None:
        return f"interrupted before batch {shown} started: no shard was written"
    return (f"interrupted: batch {shown} kept {kept} of {shards} shards; "
            f"{_finish_hint(run_dir, resume_command)}")


def sweep_interruption_line(plan, resume_command: str | None) -> str:
    """The one line a sweep interrupted by Ctrl-C or SIGTERM ends with: the shards its points
    kept (of at most that many, when an adaptive rule may stop points early), and how to
    finish it."""
    shown = escape_control_characters(str(plan.output))
    if not (plan.output / SWEEP_MANIFEST).exists():
        return f"interrupted before sweep {shown} started: no shard was written"
    kept = sum(_shards_kept(Path(point.config.output)) or 0 for point in plan.points)
    shards = sum(point.config.shards for point in plan.points)
    of = f"at most {shards}" if plan.adaptive is not None else f"{shards}"
    return (f"interrupted: sweep {shown} kept {kept} of {of} shards over {len(plan.points)} "
            f"points; {_finish_hint(plan.output, resume_command)}")


def _end_interrupted(line: str):
    """Print an interruption's one line and end the command with 128 + the signal."""
    say_interrupted(line)
    raise typer.Exit(exit_code(stop_signal_received() or signal.SIGINT)) from None


def _play_interruptible(play, bar: LazyBar, line):
    """``play()`` with ``bar`` shown; on Ctrl-C or SIGTERM (or an error the signal caused: the
    workers stopped with it) the command ends with ``line()`` and 128 + the signal."""
    try:
        with interruption_line(line), bar.shown():
            return play()
    except KeyboardInterrupt:
        _end_interrupted(line())
    except Exception:
        if stop_signal_received() is None:
            raise
        _end_interrupted(line())


def run_with_progress(config, *, workers, backend, scheduler, resume, quiet):
    """Run a batch with a rich progress bar (games done, games/s, ETA); Ctrl-C or SIGTERM
    keeps every finished shard and ends in one line (``batch_interruption_line``) with exit
    code 130 or 143."""
    bar = LazyBar(games_bar(quiet=quiet, field="rate", eta=True))
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

    def line() -> str:
        return batch_interruption_line(Path(config.output), config.shards, "sim run --resume")

    return _play_interruptible(
        lambda: run_batch(config, workers=workers, backend=backend, scheduler=scheduler,
                          resume=resume, progress=update), bar, line)


def check_sweep_points(plan) -> None:
    """Every grid point's output folder, checked before anything is played: a folder holding
    a batch with another config is refused now, not after other points were played."""
    for point in plan.points:
        check_run_dir(point.config, resume=None)


def run_sweep_with_progress(plan, *, workers, backend, scheduler, resume, quiet,
                            resume_command: str | None = None):
    """Run a sweep with one progress bar over all points; Ctrl-C or SIGTERM keeps finished
    shards and ends in one line (``sweep_interruption_line``, naming ``resume_command`` as the
    way to finish) with exit code 130 or 143."""
    manifest = plan.output / SWEEP_MANIFEST
    # A folder holding another sweep is refused by run_sweep itself, naming the sweep; only a
    # folder of this sweep (or a new one) has its points checked here.
    if not manifest.exists() or read_sweep_manifest(plan.output).get("digest") == plan.digest:
        check_sweep_points(plan)
    bar = LazyBar(games_bar(quiet=quiet, field="point"))
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

    def line() -> str:
        return sweep_interruption_line(plan, resume_command)

    return _play_interruptible(
        lambda: run_sweep(plan, workers=workers, backend=backend, scheduler=scheduler,
                          resume=resume, progress=update), bar, line)


