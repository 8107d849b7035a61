"""``sim tune-trees``: the sweep preset that recommends the tree supply per player count."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import AllowCodeOption, FairMarginOption, QuietOption, check_seed
from sim.cli.progress import run_sweep_with_progress
from sim.errors import InputError
from sim.stats.margins import FAIR_MARGIN_POINTS, margin_from_points
from sim.sweep import load_sweep, sweep_from_document


def tune_trees(
    players: Annotated[str, typer.Option(help="Player counts, 1 to 5: a range 1-5 or a list "
                                              "2,3,4.")] = "1-5",
    supply: Annotated[str, typer.Option(help="Trees per colour per player to try: 1-4 or "
                                             "1,2,3.")] = "1-4",
    strategies: Annotated[
        str, typer.Option(help="The pool rotating through the seats: the strongest candidate "
                               "and greedy, e.g. planner,greedy.")] = "planner,greedy",
    games: Annotated[int, typer.Option(help="Games per grid point (cap in adaptive mode).")
                     ] = 50_000,
    half_width: Annotated[
        float | None,
        typer.Option(help="Adaptive: stop a point once every seat's win rate is known to this "
                          "95% CI half-width (e.g. 0.005).")] = None,
    adaptive: Annotated[
        bool, typer.Option("--adaptive", help="Play each point until its fairness verdict is "
                                              "decided (fair or unfair), up to --games.")
    ] = False,
    fair_margin: FairMarginOption = FAIR_MARGIN_POINTS,
    seed: Annotated[int, typer.Option(help="Master seed.")] = 20261129,
    shard_size: Annotated[int, typer.Option(help="Games per shard.")] = 5_000,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A tune-trees sweep file instead of the "
                                                   "options above (configs/tune-trees.toml).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Sweep folder.")] = Path("runs/tune-trees"),
    report_dir: Annotated[
        Path, typer.Option(help="Report folder: the sweep report (report.html, report.md, "
                                "summary.parquet) led by the recommendation, tune-trees.parquet "
                                "and every point's batch report.")] = Path("reports/tune-trees"),
    point_reports: Annotated[
        bool, typer.Option("--point-reports/--no-point-reports",
                           help="Also write every grid point's batch report (linked from the "
                                "sweep report).")] = True,
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started.")
                      ] = False,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    quiet: QuietOption = False,
    allow_code: AllowCodeOption = False,
) -> None:
    """Recommend the tree supply per player count from a sweep.

    Sweeps players x trees per colour per player on common deals, measures seat advantage,
    colour starvation, scores, ties and skill expression, and recommends a supply."""
    # scipy's statistics load only for this command (every command imports this module).
    from sim.tune_trees import (
        BASELINE,
        parse_range,
        tune_trees_document,
        write_preset,
        write_tuning_report,
    )

    check_seed(seed)
    if config_file is not None:
        # A sweep file is often someone else's: the same code rule as `sim sweep`.
        plan = load_sweep(config_file, {"output": str(out)}, allow_code=allow_code)
    else:
        pool = [s.strip() for s in strategies.split(",") if s.strip()]
        if len(pool) != 2 or BASELINE not in pool:
            raise InputError(f"--strategies: expected the strongest candidate and {BASELINE}, "
                             f"e.g. planner,{BASELINE}; got '{strategies}'")
        strongest_name = next(s for s in pool if s != BASELINE)
        document = tune_trees_document(
            parse_range(players, "--players", 1, 5), parse_range(supply, "--supply", 1, 50),
            strongest_name, games, seed, shard_size, str(out), half_width, adaptive,
            margin_from_points(fair_margin))
        # --strategies is the user's own request on the command line, like `sim run --pool`.
        pool_option = {"pool": document.pop("pool")}
        plan = sweep_from_document(document, "tune-trees options", Path.cwd(), "tune-trees",
                                   pool_option)
    strongest = next(label for label in plan.points[0].config.lineup
                     if label != BASELINE)
    start = time.perf_counter()
    margin = margin_from_points(fair_margin)
    run_sweep_with_progress(plan, workers=workers, backend="local", scheduler=None,
                            resume=resume, quiet=quiet)
    write_preset(plan.output, strongest, margin)

    def step(message: str) -> None:
        if not quiet:
            typer.echo(f"  {message}", err=True)

    result, picks, note = write_tuning_report(plan.output, report_dir, strongest, margin,
                                        point_reports=point_reports, progress=step)
    from sim.report.sweep import format_results_table  # matplotlib is loaded by now

    for line in format_results_table(result.results):
        typer.echo(line)
    typer.echo("Recommendation:")
    for pick in picks:
        typer.echo(f"  {pick.sentence}")
    typer.echo(f"{note} This session: {time.perf_counter() - start:,.0f} s.")
    typer.echo(str(result.html))
