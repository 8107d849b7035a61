"""``sim report``: a batch or a sweep turned into a balance report (HTML, Markdown, Parquet)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    SweepFairMarginOption,
    folder_argument,
    out_option,
    sweep_fair_margin,
)
from sim.errors import InputError
from sim.stats.margins import margin_from_points


def report(
    run_dir: Annotated[Path, folder_argument("Batch folder written by `sim run`, or sweep folder "
                                             "written by `sim sweep`, `sim tune-rules` or `sim "
                                             "tune-trees`.")],
    out: Annotated[
        Path | None,
        out_option("Report folder (default: reports/<name of the batch or sweep folder>), "
                   "replaced whole when the report is written; a link, a file, a folder "
                   "holding files a report does not write, or another batch's or sweep's "
                   "report is refused."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the path.")] = False,
    fair_margin: SweepFairMarginOption = None,
    point_reports: Annotated[
        bool, typer.Option("--point-reports/--no-point-reports",
                           help="For a sweep: also write every grid point's batch report (in "
                                "points/ of the report folder, linked from the sweep report).")
    ] = True,
    card_margin: Annotated[
        float, typer.Option(help="Card margin in points: a card (or a card kept, e.g. a nature "
                                 "spirit) is fair when its gap to the average card is shown "
                                 "(simultaneous 95% intervals) to lie within it, too strong or "
                                 "too weak when shown beyond it, undecided otherwise.",
                            min=0.0, max=100.0)] = 2.0,
) -> None:
    """Turn a batch or a sweep into a balance report (HTML, Markdown and Parquet).

    A batch: report.html (self-contained, figures embedded), report.md and summary.parquet
    with every number shown, led by the three findings that matter. A sweep: the same files
    for the grid (each metric per point with its interval, as tables and plots, and how each
    point stopped), with every point's own batch report linked."""
    from sim.report import build_report  # matplotlib loads only for this command
    from sim.stats.sweep import is_sweep_folder

    def step(message: str) -> None:
        if not quiet:
            typer.echo(f"  {message}", err=True)

    if run_dir.is_dir() and not (run_dir / "manifest.json").exists() \
            and not is_sweep_folder(run_dir) and any(
                (child / "manifest.json").exists() or is_sweep_folder(child)
                for child in run_dir.iterdir() if child.is_dir()):
        raise InputError(f"{run_dir}: a folder of batches, not a batch; `sim runs {run_dir}` "
                         f"lists them, then `sim report {run_dir}/NAME`")
    if is_sweep_folder(run_dir):
        from sim.report.sweep import (
            build_sweep_report,
            default_sweep_report_dir,
            format_results_table,
        )
        from sim.stats.sweep import open_sweep
        from sim.tune_rules import read_preset, write_tuning_report

        preset = read_preset(run_dir)
        picks = []
        if preset is not None:  # a rules tuning: its report leads with the recommendation
            margin = margin_from_points(fair_margin) if fair_margin is not None else \
                preset.fair_margin
            result, picks, _ = write_tuning_report(
                run_dir, out if out is not None else default_sweep_report_dir(run_dir),
                preset.tuning, preset.strongest, margin, point_reports=point_reports,
                progress=step)
        else:
            margin = sweep_fair_margin(fair_margin, open_sweep(run_dir).adaptive)
            result = build_sweep_report(run_dir, out, progress=step, fair_margin=margin,
                                        point_reports=point_reports)
        if not quiet:
            for line in format_results_table(result.results):
                typer.echo(line)
            if result.findings:
                typer.echo("Findings across fields:")
                for number, finding in enumerate(result.findings, 1):
                    typer.echo(f"  {number}. {finding}")
            if result.baseline_findings:
                typer.echo("Against the baseline:")
                for line in result.baseline_findings:
                    typer.echo(f"  {line}")
            if picks:
                from sim.tune_rules import across_fields

                if len({pick.field for pick in picks}) > 1:
                    typer.echo("Recommendation across fields:")
                    for verdict in across_fields(picks):
                        typer.echo(f"  {verdict.sentence}")
                typer.echo("Recommendation:" if len({pick.field for pick in picks}) == 1
                           else "Per field:")
                for pick in picks:
                    typer.echo(f"  {pick.sentence}")
            typer.echo(f"report written in {result.seconds:.1f} s:")
        typer.echo(str(result.html))
        return
    result = build_report(run_dir, out, progress=step,
                          fair_margin=margin_from_points(fair_margin),
                          card_margin=card_margin)
    notes = [note for note in (result.partial_note, result.ignored_note) if note]
    if notes:
        # Even with --quiet, in one line: a report that leaves files out says so (a partial one
        # says so in its header too).
        typer.echo(f"warning: {run_dir}: {'; '.join(notes)}", err=True)
    if not quiet:
        typer.echo("Findings:")
        for number, finding in enumerate(result.findings, 1):
            typer.echo(f"  {number}. {finding}")
        typer.echo(f"report written in {result.seconds:.1f} s:")
    typer.echo(str(result.html))
