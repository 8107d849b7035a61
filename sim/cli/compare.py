"""``sim compare``: is B better than A? Two batches played on the same deals, every metric
paired (``sim.report.compare``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import folder_argument, out_option


def compare(
    run_a: Annotated[Path, folder_argument("Batch folder A, the baseline (`sim run`, or a sweep "
                                           "point: SWEEP/points/LABEL).")],
    run_b: Annotated[Path, folder_argument("Batch folder B, the variant, played on A's deals "
                                           "(the same master seed and deal ids).")],
    out: Annotated[
        Path | None,
        out_option("Folder for compare.md, compare.html and compare.parquet (default: "
                   "reports/compare-<A's folder name>-vs-<B's folder name>)."),
    ] = None,
) -> None:
    """Compare two batches played on the same deals: every metric of B minus A, paired on the
    common deals, with its 95% interval and a verdict against the metric's margin.

    The batches must be of one game and player count, in the rows store, with the same master
    seed; only the deals both played are compared (a line says how many when they differ).
    Writes compare.md, compare.html and compare.parquet and prints the main lines."""
    from sim.report.compare import write_compare_report

    report = write_compare_report(run_a, run_b, out)
    for line in report.lines:
        typer.echo(line)
    typer.echo(f"written: {report.html}, {report.markdown}, {report.parquet}")
