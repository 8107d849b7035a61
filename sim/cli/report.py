"""``sim report``: a batch turned into a balance report (HTML, Markdown and Parquet)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import FairMarginOption


def report(
    run_dir: Annotated[Path, typer.Argument(help="Batch folder written by `sim run`.",
                                            file_okay=False)],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Report folder (default: reports/<name of the batch "
                                   "folder>); a folder holding another batch's report is "
                                   "refused."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the path.")] = False,
    fair_margin: FairMarginOption = 2.0,
) -> None:
    """Turn a batch into a balance report (HTML, Markdown and Parquet).

    Writes report.html (self-contained, figures embedded), report.md and summary.parquet with
    every number shown, led by the three findings that matter."""
    from sim.report import build_report  # matplotlib loads only for this command

    def step(message: str) -> None:
        if not quiet:
            typer.echo(f"  {message}", err=True)

    result = build_report(run_dir, out, progress=step, fair_margin=fair_margin / 100.0)
    if result.ignored_note:
        # Even with --quiet: a report that leaves files out says so.
        typer.echo(f"warning: {run_dir}: {result.ignored_note}", err=True)
    if not quiet:
        typer.echo("Findings:")
        for number, finding in enumerate(result.findings, 1):
            typer.echo(f"  {number}. {finding}")
        typer.echo(f"report written in {result.seconds:.1f} s:")
    typer.echo(str(result.html))
