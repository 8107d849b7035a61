"""``sim tune-rules``: the sweep preset that recommends a value of any game's integer rules
parameter per player count, per field of players, and says whether the recommendation holds
across the fields (``sim.tune_rules``); and ``sim tune-trees``, the short name of the tuning a
game declares under that name (``RulesTuning.name``: the tree supply), with its own options."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    AllowCodeOption,
    BackendOption,
    BatchWorkersOption,
    FairMarginOption,
    QuietOption,
    SchedulerOption,
    check_play_options,
    out_option,
    with_option_group,
)
from sim.cli.progress import run_sweep_with_progress
from sim.distributed import batch_scheduler
from sim.errors import InputError
from sim.games.base import Game
from sim.games.registry import games as registered_games
from sim.games.registry import get_game
from sim.pool import worker_count
from sim.stats.margins import FAIR_MARGIN_POINTS, margin_from_points
from sim.sweep import load_sweep, sweep_from_document

# The tuning ``sim tune-trees`` is the short name of (a game declares it: ``Game.rules_tunings``).
TREES_PRESET = "tune-trees"

DEFAULT_SEED = 20261129


@dataclass(frozen=True)
class TuningDesign:
    """What a rules tuning plays, besides the parameter's values and the player counts: the
    options ``sim tune-rules`` and ``sim tune-trees`` share (``with_option_group``)."""

    strategies: Annotated[
        str, typer.Option(help="The strongest candidate and greedy, e.g. planner,greedy: the "
                               "default fields are strong (the strongest in every seat) and "
                               "mixed (the two rotating through the seats); skill is the "
                               "strongest's edge over greedy.")] = "planner,greedy"
    field: Annotated[
        list[str] | None,
        typer.Option("--field", metavar="<name=lineup>",
                     help="A field of players (repeat, at least two) replacing strong and mixed, "
                          "all on the same deals: NAME=LINEUP (a strategy for every seat, one "
                          "per seat joined by '+', or pool: and strategies joined by '+'), or a "
                          "field the game declares. Skill is measured only in fields where the "
                          "strongest of --strategies and greedy share tables."),
    ] = None
    games: Annotated[int, typer.Option(help="Games per grid point (cap in adaptive mode).")
                     ] = 50_000
    half_width: Annotated[
        float | None,
        typer.Option(help="Adaptive: stop a point once every seat's win rate is known to this "
                          "95% CI half-width (e.g. 0.005).")] = None
    adaptive: Annotated[
        bool, typer.Option("--adaptive", help="Play each point until its fairness verdict is "
                                              "decided (fair or unfair), up to --games.")] = False
    fair_margin: FairMarginOption = FAIR_MARGIN_POINTS
    seed: Annotated[int, typer.Option(help="Master seed.")] = DEFAULT_SEED
    shard_size: Annotated[int, typer.Option(help="Games per shard.")] = 5_000


@dataclass(frozen=True)
class TuningRun:
    """How a rules tuning is played and reported: the options ``sim tune-rules`` and ``sim
    tune-trees`` share after their folders."""

    point_reports: Annotated[
        bool, typer.Option("--point-reports/--no-point-reports",
                           help="Also write every grid point's batch report (linked from the "
                                "sweep report).")] = True
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started.")
                      ] = False
    workers: BatchWorkersOption = 0
    backend: BackendOption = "local"
    scheduler: SchedulerOption = None
    quiet: QuietOption = False
    allow_code: AllowCodeOption = False


@with_option_group
def tune_rules(
    game: Annotated[str, typer.Argument(help="The game (`sim strategies --game NAME` lists its "
                                             "strategies; its rules parameters are in `sim "
                                             "run --help`).", show_default=False)],
    parameter: Annotated[str, typer.Option(help="The integer rules parameter to tune.",
                                           show_default=False)],
    values: Annotated[
        str | None, typer.Option(help="Values to try: a range 1-4 or a list 1,2,3 (default: "
                                      "every value the parameter allows).")] = None,
    players: Annotated[
        str | None, typer.Option(help="Player counts: a range 2-4 or a list 2,3 (default: "
                                      "every count the game allows).")] = None,
    design: TuningDesign = TuningDesign(),
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A sweep file of players x the parameter "
                                                   "instead of the options above.")] = None,
    out: Annotated[Path | None, out_option("Sweep folder (default: runs/<the tuning's name>).")
                   ] = None,
    report_dir: Annotated[
        Path | None, typer.Option(help="Report folder: the sweep report (report.html, "
                                       "report.md, summary.parquet) led by the recommendation, "
                                       "the tuning's metrics Parquet and every point's batch "
                                       "report (default: reports/<name of the --out folder>).")
    ] = None,
    running: TuningRun = TuningRun(),
) -> None:
    """Recommend a value of a game's integer rules parameter per player count from a sweep,
    and say for which fields of players it holds.

    Sweeps players x the parameter with every field (by default strong and mixed) on common
    deals, measures seat advantage, scores, ties, skill expression and the shares the game
    declares for the parameter, recommends the smallest value that is fair, keeps skill and
    keeps each share the game judges below its maximum, per field and player count, and says
    per player count whether the recommendation holds for every field."""
    chosen = get_game(game, "GAME")
    tuning = chosen.rules_tuning(parameter)
    _tune(chosen, tuning.parameter, values_text=values, values_option="--values",
          players_text=players, design=design, config_file=config_file,
          out=out if out is not None else Path("runs") / tuning.name, report_dir=report_dir,
          running=running)


@with_option_group
def tune_trees(
    players: Annotated[str, typer.Option(help="Player counts, 1 to 5: a range 1-5 or a list "
                                              "2,3,4.")] = "1-5",
    supply: Annotated[str, typer.Option(help="Trees per colour per player to try: 1-4 or "
                                             "1,2,3.")] = "1-4",
    design: TuningDesign = TuningDesign(),
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A tune-trees sweep file instead of the "
                                                   "options above (configs/tune-trees.toml).")
    ] = None,
    out: Annotated[Path, out_option("Sweep folder.")] = Path("runs/tune-trees"),
    report_dir: Annotated[
        Path | None, typer.Option(help="Report folder: the sweep report (report.html, "
                                       "report.md, summary.parquet) led by the recommendation, "
                                       "tune-trees.parquet and every point's batch report "
                                       "(default: reports/<name of the --out folder>).")] = None,
    running: TuningRun = TuningRun(),
) -> None:
    """Recommend the tree supply per player count from a sweep, and say for which fields of
    players it holds (the short name of `sim tune-rules` for the tree supply).

    Sweeps players x trees per colour per player with every field (by default strong and
    mixed) on common deals, measures seat advantage, colour starvation, scores, ties and skill
    expression, recommends a supply per field and player count, and says per player count
    whether the recommendation holds for every field or depends on the players."""
    chosen, parameter = _declared_tuning(TREES_PRESET)
    _tune(chosen, parameter, values_text=supply, values_option="--supply",
          players_text=players, design=design, config_file=config_file, out=out,
          report_dir=report_dir, running=running)


def _declared_tuning(name: str) -> tuple[Game, str]:
    """The game declaring the rules tuning called ``name`` and its parameter; a one-line error
    when no registered game declares it."""
    for game in registered_games().values():
        for tuning in game.rules_tunings:
            if tuning.name == name:
                return game, tuning.parameter
    raise InputError(f"no registered game declares the rules tuning '{name}'; `sim tune-rules "
                     f"GAME --parameter NAME` tunes any game's rules parameter")


def _tune(game: Game, parameter: str, *, values_text: str | None, values_option: str,
          players_text: str | None, design: TuningDesign, config_file: Path | None, out: Path,
          report_dir: Path | None, running: TuningRun) -> None:
    """What both commands do: check the options, build the sweep (from the options or a
    sweep file), play it with a progress bar, record the preset, write the report and print
    the recommendation."""
    # scipy's statistics load only for these commands (every command imports this module).
    from sim.fields import FIELD_AXIS
    from sim.tune_rules import (
        BASELINE,
        across_fields,
        parse_range,
        tuning_document,
        write_preset,
        write_tuning_report,
    )

    tuning = game.rules_tuning(parameter)
    # Every mistake in the options is one line before any cluster starts; the sweep is given
    # --workers as typed (0 = all cores).
    check_play_options(design.seed, running.workers, running.backend, running.scheduler)
    fields = list(design.field) if design.field else None
    if config_file is not None:
        # A sweep file is often someone else's: the same code rule as `sim sweep`.
        plan = load_sweep(config_file, {"output": str(out), "fields": fields},
                          allow_code=running.allow_code, load_code=False)
        _check_tuning_sweep(plan, game, parameter, config_file)
        # The strongest is the first strategy other than greedy played (the file's first
        # field or its pool).
        strongest = next((label for point in plan.points for label in point.config.lineup
                          if label != BASELINE), None)
        if strongest is None:
            raise InputError(f"{config_file}: no strategy other than {BASELINE} plays, so there "
                             f"is no strongest candidate to tune for")
    else:
        pool = [s.strip() for s in design.strategies.split(",") if s.strip()]
        if len(pool) != 2 or BASELINE not in pool:
            raise InputError(f"--strategies: expected the strongest candidate and {BASELINE}, "
                             f"e.g. planner,{BASELINE}; got '{design.strategies}'")
        strongest_name = next(s for s in pool if s != BASELINE)
        spec = next(p for p in game.rules_parameters if p.name == parameter)
        player_counts = (parse_range(players_text, "--players", game.min_players,
                                     game.max_players) if players_text is not None
                         else list(range(game.min_players, game.max_players + 1)))
        values = (parse_range(values_text, values_option, spec.minimum, spec.maximum)
                  if values_text is not None else list(range(spec.minimum, spec.maximum + 1)))
        document = tuning_document(
            game.name, tuning, player_counts, values, strongest_name, design.games, design.seed,
            design.shard_size, str(out), design.half_width, design.adaptive,
            margin_from_points(design.fair_margin), fields)
        # --strategies and --field are the user's own request on the command line, like
        # `sim run --pool`: passed as options, not as a file's fields. Every point sets its
        # players; the sweep's base config gets the first count too, so a game whose range
        # leaves out the config's default count checks.
        options = {"fields": document.pop("fields"), "players": player_counts[0]}
        plan = sweep_from_document(document, f"{tuning.name} options", Path.cwd(), tuning.name,
                                   options, load_code=False)
        strongest = _played_label(strongest_name, plan, BASELINE)
    # The report folder follows --out unless named, and is checked before any game is played:
    # a folder holding another sweep's report is refused now, not after the games.
    from sim.report.sweep import check_sweep_report_dir, default_sweep_report_dir

    report_dir = report_dir if report_dir is not None else default_sweep_report_dir(plan.output)
    check_sweep_report_dir(report_dir, {
        "kind": "sweep", "name": plan.name, "digest": plan.digest,
        "output": f"runs/{Path(plan.output).resolve().name}"}, "--report-dir")
    start = time.perf_counter()
    margin = margin_from_points(design.fair_margin)
    # One dask cluster for every grid point (each point is a batch of its own).
    with batch_scheduler(running.backend, worker_count(running.workers),
                         running.scheduler) as address:
        run_sweep_with_progress(plan, workers=running.workers, backend=running.backend,
                                scheduler=address, resume=running.resume, quiet=running.quiet)
    write_preset(plan.output, tuning, strongest, margin)

    def step(message: str) -> None:
        if not running.quiet:
            typer.echo(f"  {message}", err=True)

    result, picks, note = write_tuning_report(plan.output, report_dir, tuning, strongest,
                                              margin, point_reports=running.point_reports,
                                              progress=step)
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


def _check_tuning_sweep(plan, game: Game, parameter: str, config_file: Path) -> None:
    """A sweep file given to a tuning plays that game with the parameter as an axis; else one
    line naming the file."""
    played = {point.config.game for point in plan.points}
    if played != {game.name}:
        raise InputError(f"{config_file}: field 'game': this tuning is of {game.name}, the file "
                         f"plays {', '.join(sorted(played))}")
    if parameter not in plan.axes:
        raise InputError(f"{config_file}: field 'sweep': {parameter} is not an axis of the "
                         f"sweep (its axes: {', '.join(plan.axes)})")


def _played_label(strongest: str, plan, baseline: str) -> str:
    """The label the fields play the strongest of ``--strategies`` under (a strategy's label
    spells its settings out, so it may differ from the text typed); a one-line error when no
    field plays it."""
    played = list(dict.fromkeys(label for point in plan.points for label in point.config.lineup))
    if strongest in played:
        return strongest
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

