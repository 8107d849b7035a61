"""``sim tune-trees``: the sweep preset that recommends the tree supply per player count, per
field of players, and says whether the recommendation holds across the fields."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    AllowCodeOption,
    BackendOption,
    FairMarginOption,
    QuietOption,
    SchedulerOption,
    check_seed,
    worker_processes,
)
from sim.cli.progress import run_sweep_with_progress
from sim.distributed import batch_scheduler, check_backend
from sim.errors import InputError
from sim.pool import worker_count
from sim.stats.margins import FAIR_MARGIN_POINTS, margin_from_points
from sim.sweep import load_sweep, sweep_from_document


def tune_trees(
    players: Annotated[str, typer.Option(help="Player counts, 1 to 5: a range 1-5 or a list "
                                              "2,3,4.")] = "1-5",
    supply: Annotated[str, typer.Option(help="Trees per colour per player to try: 1-4 or "
                                             "1,2,3.")] = "1-4",
    strategies: Annotated[
        str, typer.Option(help="The strongest candidate and greedy, e.g. planner,greedy: the "
                               "default fields are strong (the strongest in every seat) and "
                               "mixed (the two rotating through the seats); skill is the "
                               "strongest's edge over greedy.")] = "planner,greedy",
    field: Annotated[
        list[str] | None,
        typer.Option("--field", metavar="<name=lineup>",
                     help="A field of players (repeat, at least two) replacing strong and "
                          "mixed, all on the same deals: NAME=LINEUP (a strategy for every "
                          "seat, one per seat joined by '+', or pool: and strategies joined by "
                          "'+'), or a field the game declares. Skill is measured only in "
                          "fields where the strongest of --strategies and greedy share tables."),
    ] = None,
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
        Path | None, typer.Option(help="Report folder: the sweep report (report.html, "
                                       "report.md, summary.parquet) led by the recommendation, "
                                       "tune-trees.parquet and every point's batch report "
                                       "(default: reports/<name of the --out folder>).")] = None,
    point_reports: Annotated[
        bool, typer.Option("--point-reports/--no-point-reports",
                           help="Also write every grid point's batch report (linked from the "
                                "sweep report).")] = True,
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started.")
                      ] = False,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    quiet: QuietOption = False,
    allow_code: AllowCodeOption = False,
) -> None:
    """Recommend the tree supply per player count from a sweep, and say for which fields of
    players it holds.

    Sweeps players x trees per colour per player with every field (by default strong and
    mixed) on common deals, measures seat advantage, colour starvation, scores, ties and skill
    expression, recommends a supply per field and player count, and says per player count
    whether the recommendation holds for every field or depends on the players."""
    # scipy's statistics load only for this command (every command imports this module).
    from sim.fields import FIELD_AXIS
    from sim.tune_trees import (
        BASELINE,
        across_fields,
        parse_range,
        tune_trees_document,
        write_preset,
        write_tuning_report,
    )

    check_seed(seed)
    if workers < 0:
        raise InputError(f"--workers: must be 0 (all cores) or more, got {workers}")
    worker_processes(workers)  # more than the machine can take: one line, before any cluster
    check_backend(backend, scheduler)
    fields = list(field) if field else None
    if config_file is not None:
        # A sweep file is often someone else's: the same code rule as `sim sweep`.
        plan = load_sweep(config_file, {"output": str(out), "fields": fields},
                          allow_code=allow_code)
        # The strongest is the first strategy other than greedy played (the file's first
        # field or its pool).
        strongest = next((label for point in plan.points for label in point.config.lineup
                          if label != BASELINE), None)
        if strongest is None:
            raise InputError(f"{config_file}: no strategy other than {BASELINE} plays, so there "
                             f"is no strongest candidate to tune for")
    else:
        pool = [s.strip() for s in strategies.split(",") if s.strip()]
        if len(pool) != 2 or BASELINE not in pool:
            raise InputError(f"--strategies: expected the strongest candidate and {BASELINE}, "
                             f"e.g. planner,{BASELINE}; got '{strategies}'")
        strongest_name = next(s for s in pool if s != BASELINE)
        document = tune_trees_document(
            parse_range(players, "--players", 1, 5), parse_range(supply, "--supply", 1, 50),
            strongest_name, games, seed, shard_size, str(out), half_width, adaptive,
            margin_from_points(fair_margin), fields)
        # --strategies and --field are the user's own request on the command line, like
        # `sim run --pool`: passed as options, not as a file's fields.
        fields_option = {"fields": document.pop("fields")}
        plan = sweep_from_document(document, "tune-trees options", Path.cwd(), "tune-trees",
                                   fields_option)
        strongest = _played_label(strongest_name, plan, BASELINE)
    # The report folder follows --out unless named, and is checked before any game is played:
    # a folder holding another sweep's report is refused now, not after the games.
    from sim.report.sweep import check_sweep_report_dir, default_sweep_report_dir

    report_dir = report_dir if report_dir is not None else default_sweep_report_dir(plan.output)
    check_sweep_report_dir(report_dir, {
        "kind": "sweep", "name": plan.name, "digest": plan.digest,
        "output": f"runs/{Path(plan.output).resolve().name}"}, "--report-dir")
    start = time.perf_counter()
    margin = margin_from_points(fair_margin)
    # One dask cluster for every grid point (each point is a batch of its own).
    with batch_scheduler(backend, worker_count(workers), scheduler) as address:
        run_sweep_with_progress(plan, workers=workers, backend=backend, scheduler=address,
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
    if FIELD_AXIS in plan.axes:
        typer.echo("Recommendation across fields:")
        for verdict in across_fields(picks, list(plan.axes[FIELD_AXIS])):
            typer.echo(f"  {verdict.sentence}")
        typer.echo("Per field:")
    else:
        typer.echo("Recommendation:")
    for pick in picks:
        typer.echo(f"  {pick.sentence}")
    typer.echo(f"{note} This session: {time.perf_counter() - start:,.0f} s.")
    typer.echo(str(result.html))


def _played_label(strongest: str, plan, baseline: str) -> str:
    """The label the fields play the strongest of ``--strategies`` under (a strategy's label
    spells its settings out, so it may differ from the text typed); a one-line error when no
    field plays it."""
    played = list(dict.fromkeys(label for point in plan.points for label in point.config.lineup))
    if strongest in played:
        return strongest
    from sim.games.registry import get_game
    from sim.strategy_spec import parse_strategy

    try:
        label = parse_strategy(strongest, get_game(plan.points[0].config.game).strategies(),
                               "--strategies").label()
    except InputError:
        label = None
    if label in played:
        return label
    raise InputError(f"--field: no field plays {strongest}, the strongest of --strategies (the "
                     f"fields play {', '.join(played)}); name it with --strategies "
                     f"NAME,{baseline}")
