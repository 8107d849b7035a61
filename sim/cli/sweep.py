"""``sim sweep``: a grid of rules settings on common deals, one Parquet dataset, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    AllowCodeOption,
    BackendOption,
    BatchWorkersOption,
    QuietOption,
    SchedulerOption,
    SweepFairMarginOption,
    field_option,
    out_option,
    sweep_fair_margin,
    with_resume_hint,
)
from sim.cli.progress import run_sweep_with_progress
from sim.distributed import check_backend
from sim.errors import InputError
from sim.files import escape_control_characters, os_error_line
from sim.runner import check_workers
from sim.sweep import load_sweep, load_sweep_folder


def print_sweep_results(output: Path, fair_margin: float | None) -> None:
    """The compact table of every metric per grid point (``sim.report.sweep``), then how to
    get the full report."""
    from sim.report.sweep import format_results_table  # matplotlib loads only now
    from sim.stats.sweep import open_sweep, sweep_results

    folder = open_sweep(output)
    results = sweep_results(folder, sweep_fair_margin(fair_margin, folder.adaptive))
    for line in format_results_table(results):
        typer.echo(line)
    typer.echo(f"Full report (plots, every point's batch report): sim report {output}")


def sweep(
    config_file: Annotated[
        Path, typer.Argument(help="Sweep file: a config with a \\[sweep] table of axes "
                                  "(and optionally \\[adaptive]); with --resume, a sweep "
                                  "folder instead.")],
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started: "
                                                          "`--resume DIR` finishes the sweep "
                                                          "folder DIR where it is now, "
                                                          "`FILE --resume` the one in the "
                                                          "file's output folder.")] = False,
    games: Annotated[int | None, typer.Option(help="Override: games per grid point (the cap "
                                                   "in adaptive mode).")] = None,
    seed: Annotated[int | None, typer.Option(help="Override: master seed.")] = None,
    out: Annotated[Path | None, out_option("Override: output folder.")] = None,
    shard_size: Annotated[int | None, typer.Option(help="Override: games per shard.")] = None,
    trace: Annotated[bool, typer.Option("--trace", help="Also keep every seat's score after "
                                                        "each round (score_trace) at every "
                                                        "point.")] = False,
    workers: BatchWorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    fair_margin: SweepFairMarginOption = None,
    field: Annotated[
        list[str] | None,
        field_option("Play every grid point with every field named (repeat), all on the same "
                     "deals: a field the game declares, `default`, or NAME=LINEUP (see `sim run "
                     "--help`). Replaces the sweep file's `fields`."),
    ] = None,
    quiet: QuietOption = False,
    allow_code: AllowCodeOption = False,
) -> None:
    """Play a grid of rules settings on common deals (one Parquet dataset, resumable).

    Ends with a table of every grid point: games, why it stopped, mean score, win rates, seat
    spread with the fairness verdict and shared wins, each with its 95% interval."""
    overrides = {"games": games, "seed": seed, "output": str(out) if out else None,
                 "shard_size": shard_size, "trace": True if trace else None,
                 "fields": list(field) if field else None}
    check_workers(workers)
    check_backend(backend, scheduler)
    if config_file.is_dir():
        if not resume:
            raise InputError(f"{config_file}: a folder; give a sweep file, or --resume "
                             f"{config_file} to finish the sweep in it")
        if any(value is not None for value in overrides.values()):
            raise InputError("--resume: options that change the sweep cannot be combined with "
                             "a sweep folder (give its sweep file instead)")
        plan = load_sweep_folder(config_file, allow_code=allow_code, load_code=False)
    else:
        # Strategy code is loaded by run_sweep, once the options and folders are checked.
        plan = load_sweep(config_file, overrides, allow_code=allow_code, load_code=False)
    try:
        run_sweep_with_progress(plan, workers=workers, backend=backend, scheduler=scheduler,
                                resume=resume, quiet=quiet, resume_command="sim sweep --resume")
    except OSError as error:
        raise InputError(with_resume_hint(os_error_line(error), plan.output,
                                          "sim sweep --resume")) from None
    print_sweep_results(plan.output, fair_margin)
    typer.echo(escape_control_characters(str(plan.output)))
