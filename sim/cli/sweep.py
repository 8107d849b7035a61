"""``sim sweep``: a grid of rules settings on common deals, one Parquet dataset, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import AllowCodeOption, QuietOption
from sim.cli.progress import print_sweep_points, run_sweep_with_progress
from sim.sweep import load_sweep


def sweep(
    config_file: Annotated[
        Path, typer.Argument(help="Sweep file: a config with a \\[sweep] table of axes "
                                  "(and optionally \\[adaptive]).", dir_okay=False)],
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started in "
                                                          "its output folder.")] = False,
    games: Annotated[int | None, typer.Option(help="Override: games per grid point (the cap "
                                                   "in adaptive mode).")] = None,
    seed: Annotated[int | None, typer.Option(help="Override: master seed.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Override: output folder.")] = None,
    shard_size: Annotated[int | None, typer.Option(help="Override: games per shard.")] = None,
    trace: Annotated[bool, typer.Option("--trace", help="Also keep every seat's score after "
                                                        "each round (score_trace) at every "
                                                        "point.")] = False,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    backend: Annotated[str, typer.Option(help="local or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address.")] = None,
    quiet: QuietOption = False,
    allow_code: AllowCodeOption = False,
) -> None:
    """Play a grid of rules settings on common deals (one Parquet dataset, resumable)."""
    overrides = {"games": games, "seed": seed, "output": str(out) if out else None,
                 "shard_size": shard_size, "trace": True if trace else None}
    plan = load_sweep(config_file, overrides, allow_code=allow_code)
    states = run_sweep_with_progress(plan, workers=workers, backend=backend,
                                     scheduler=scheduler, resume=resume, quiet=quiet)
    print_sweep_points(plan, states)
    typer.echo(str(plan.output))
