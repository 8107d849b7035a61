"""``sim tune-strategy``: tune a strategy's declared parameters on common deals, by default for
its win share against a field (optionally a growing one: ``--league``)."""

from __future__ import annotations

import re
import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    DEFAULT_GAME,
    BackendOption,
    DataOption,
    GameOption,
    QuietOption,
    RuleOption,
    SchedulerOption,
    SeatsOption,
    WorkersOption,
    announce_compiling,
    check_play_options,
    data_path,
    out_option,
    rules_from_options,
    with_rules_options,
)
from sim.cli.progress import games_bar
from sim.errors import InputError
from sim.games.registry import get_game


@with_rules_options
def tune_strategy(
    strategy: Annotated[
        str | None, typer.Argument(help="The strategy to tune, at the values the search starts "
                                        "from: a name (its defaults), name:key=value,... or "
                                        "name@params.toml.")] = None,
    field: Annotated[
        str, typer.Option("--field", help="The opponents: 'self' (the strategy at its starting "
                                          "values) or strategies, e.g. greedy,planner.")
    ] = "self",
    players: SeatsOption = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per trial (every trial "
                                                             "plays the same deals and seat "
                                                             "rotations).")] = 2000,
    trials: Annotated[int | None, typer.Option("--trials", "-t", help="Trials (trial 0 is the "
                                                                      "start; default 40; on "
                                                                      "--resume, may be "
                                                                      "raised).")] = None,
    parameters: Annotated[
        str | None, typer.Option("--parameters", help="Only these parameters, comma-separated "
                                                      "(default: every declared one).")] = None,
    objective: Annotated[
        str, typer.Option("--objective", help="What a trial maximises: wins (the default: its "
                                              "mean win share over the field's members, each "
                                              "met alone in two-strategy games, seats "
                                              "rotated, ties as the game breaks them), "
                                              "wins-min (its smallest win share over the "
                                              "members), head-to-head (how often it "
                                              "outscores the field at the same table), margin "
                                              "(its mean score minus the field's), score, or "
                                              "self-play (its mean score with itself in every "
                                              "seat; --field self; never the default).")
    ] = "wins",
    league: Annotated[
        bool, typer.Option("--league", help="A growing field: values whose gain is shown on "
                                            "fresh deals join the field and a new round "
                                            "starts from them in OUT/round-2, OUT/round-3, "
                                            "...; stops at the first round with no gain "
                                            "shown. OUT/tuned.toml is the last accepted "
                                            "round's.")] = False,
    rounds: Annotated[
        int | None, typer.Option("--rounds", help="With --league: the most rounds, the first "
                                                  "included (default 3).")] = None,
    guard: Annotated[
        str | None, typer.Option("--guard", help="A rival to keep in view: every trial also "
                                                 "plays it head to head, and a trial that wins "
                                                 "less than --guard-share against it is "
                                                 "penalised.")] = None,
    guard_share: Annotated[
        float | None, typer.Option("--guard-share", help="The minimum head to head against "
                                                         "--guard, a share of pairs of seats "
                                                         "(default 0.5).")] = None,
    guard_penalty: Annotated[
        float | None, typer.Option("--guard-penalty", help="Objective units a trial loses per "
                                                           "percentage point below "
                                                           "--guard-share (default 1; 0.01 "
                                                           "for head-to-head).")] = None,
    guard_games: Annotated[
        int | None, typer.Option("--guard-games", help="Games against --guard per trial "
                                                       "(default: --games).")] = None,
    guard_by: Annotated[
        str | None, typer.Option("--guard-by", help="How a re-evaluated candidate's share "
                                                    "against --guard is held to "
                                                    "--guard-share on fresh deals: "
                                                    "lower-bound (the lower end of its 95% "
                                                    "interval; default) or estimate.")] = None,
    reevaluate: Annotated[int, typer.Option("--reevaluate", help="Best trials played again on "
                                                                 "fresh deals at the end.")] = 3,
    reevaluate_games: Annotated[
        int, typer.Option("--reevaluate-games", help="Games per re-evaluated trial (0: twice "
                                                     "--games).")] = 0,
    final_games: Annotated[
        int, typer.Option("--final-games", help="Games of the final head-to-head of tuned "
                                                "against start (0: four times --games); for "
                                                "wins objectives, games against the start "
                                                "and against each field member.")] = 0,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Master seed (deals and the "
                                                           "sampler).")] = 1,
    out: Annotated[Path | None, out_option("Output folder (default: runs/tune-STRATEGY).")
                   ] = None,
    resume: Annotated[
        Path | None, typer.Option("--resume", help="Go on with the run in this folder (its "
                                                   "stored settings; --trials may be raised).")
    ] = None,
    workers: WorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    tiles: DataOption = None,
    rule: RuleOption = None,
    game: GameOption = DEFAULT_GAME,
    quiet: QuietOption = False,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Tune a strategy's declared parameters (optuna CMA-ES), by default for winning.

    Every trial plays the same deals and seat rotations against the field (common random
    numbers): by default (--objective wins) against each member alone, its value the mean win
    share over the members; or with itself in every seat (--objective self-play), and, with
    --guard, against a rival it must keep beating. The best trials are re-evaluated on fresh
    deals, and the chosen values meet the starting values and every field member (and the
    rival) on a third set of deals. Writes OUT/tuned.toml (use it as --strategy
    NAME@OUT/tuned.toml in any command) only when the chosen trial's gain over the start on
    fresh deals is shown (the lower end of its simultaneous 95% interval above 0, and the
    --guard minimum met); otherwise it prints 'no gain shown on fresh deals' and keeps the best
    trial's values in OUT/candidate.toml, marked as such (exit code 0 either way): an interval
    that includes 0 is no gain shown, whatever the point estimate. Sampled values are played
    rounded to 4 significant digits, so tuned.toml holds exactly the values measured. Also
    OUT/report.md and OUT/progress.png; the optimiser's state is OUT/study.sqlite3, so Ctrl-C
    loses at most the trial being played and --resume OUT goes on with the same trials (with
    --league, with the round in progress)."""
    # scipy's statistics and optuna load only for this command.
    from sim.tune_strategy import (
        CANDIDATE_FILE,
        OBJECTIVES,
        PARAMETERS_FILE,
        REPORT_FILE,
        check_output_folder,
        make_settings,
        outcome_text,
        run_league,
        run_tuning,
    )

    workers = check_play_options(seed, workers, backend, scheduler)
    command = "sim " + " ".join(shlex.quote(arg) for arg in sys.argv[1:])
    if resume is not None:
        if strategy is not None:
            raise InputError("--resume: give the folder only (its settings are stored there), "
                             "not a STRATEGY")
        folder = resume
        settings = check_output_folder(folder, None, resume=True)
        if trials is not None and trials != settings.trials:
            settings = replace(settings, trials=trials)
    else:
        if strategy is None:
            raise InputError("STRATEGY: name the strategy to tune (or --resume FOLDER)")
        chosen = get_game(game)
        rules = rules_from_options(chosen, rule_options or {}, rule)
        names = [p.strip() for p in parameters.split(",") if p.strip()] if parameters else None
        if objective not in OBJECTIVES:
            raise InputError(f"--objective: '{objective}' is not one of "
                             f"{', '.join(OBJECTIVES)}")
        settings = make_settings(chosen.name, strategy, field, players, rules, data_path(tiles),
                                 games, 40 if trials is None else trials, seed, objective,
                                 names, reevaluate, reevaluate_games, final_games, command,
                                 guard, guard_share, guard_penalty, guard_games, guard_by,
                                 league, rounds)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", settings.strategy)
        folder = out or Path(f"runs/tune-{safe}")
        check_output_folder(folder, settings, resume=False)
    # Said before the bar, which would otherwise sit at 0 while the kernels compile.
    announce_compiling(get_game(settings.game), "play_shard",
                       strategies=[text.split(":")[0].split("@")[0] for text in
                                   [settings.strategy, *settings.field, settings.guard or ""]
                                   if text])
    bar = games_bar(quiet=quiet, eta=True)
    task = bar.add_task(f"tuning {settings.strategy}", total=1)

    def update(done: int, total: int, status: str) -> None:
        bar.update(task, completed=done, total=total,
                   description=f"{settings.strategy}: {status}")

    league_result = None
    try:
        with bar:
            if settings.league:
                league_result = run_league(settings, folder, workers=workers, progress=update,
                                           backend=backend, scheduler=scheduler)
                result = league_result.rounds[0]
            else:
                result = run_tuning(settings, folder, workers=workers, progress=update,
                                    backend=backend, scheduler=scheduler)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished trials are kept; go on with "
                   f"`sim tune-strategy --resume {folder}`", err=True)
        raise typer.Exit(130) from None
    chosen_row = result.chosen_row
    kept = result.kept_row
    shown_values = result.best_values if kept is None else kept["values"]
    best = "" if kept is None or kept is chosen_row else (
        f"; best re-evaluated trial: {kept['label']} (values below)")
    typer.echo(f"{result.settings.strategy}: {len(result.trials)} trials; chosen: "
               f"{chosen_row['label']}{best}")
    for name in result.settings.tuned:
        typer.echo(f"  {name} = {shown_values[name]:.6g} (start "
                   f"{result.settings.start[name]:.6g})")
    if result.settings.guard and kept is not None:
        typer.echo(f"  against {result.settings.guard} on fresh deals: "
                   f"{100 * kept['guard_share']:.1f}% ({100 * kept['guard_low']:.1f}% "
                   f"to {100 * kept['guard_high']:.1f}%); minimum "
                   f"{100 * result.settings.guard_share:.4g}% ({result.settings.guard_by})")
    if result.final is not None and result.final.get("kind") == "wins":
        typer.echo(f"  final win shares of {chosen_row['label']} on fresh deals (95% CI):")
        for member in result.final["members"]:
            typer.echo(f"    vs {member['label']}: {100 * member['share']:.1f}% "
                       f"({100 * member['low']:.1f}% to {100 * member['high']:.1f}%), "
                       f"{member['games']:,} games; mean score {member['tuned_score']:.2f} "
                       f"against {member['opponent_score']:.2f}")
    elif result.final is not None:
        typer.echo(f"  final head-to-head, {chosen_row['label']} vs start: "
                   f"{100 * result.final['head_to_head']:.1f}% ± "
                   f"{100 * result.final['head_to_head_ci']:.1f}% (95% CI)")
    # A result either way (exit code 0): the gain shown, or one line saying none is.
    typer.echo(outcome_text(result))
    written = ([PARAMETERS_FILE] if result.gain_shown else
               [] if kept is None else [f"{CANDIDATE_FILE} (not shown to gain)"])
    if league_result is not None:
        for number, round_result in enumerate(league_result.rounds[1:], start=2):
            typer.echo(f"round {number} ({round_result.out}): {outcome_text(round_result)}")
        accepted = league_result.accepted
        written = ([PARAMETERS_FILE] if accepted is not None else written)
        typer.echo("league: " + (
            "no round showed a gain" if accepted is None else
            f"{PARAMETERS_FILE} holds round {league_result.rounds.index(accepted) + 1}'s "
            f"values") + f" ({len(league_result.rounds)} of at most "
            f"{result.settings.rounds} rounds)")
    typer.echo(f"wrote {', '.join(str(folder / name) for name in [*written, REPORT_FILE])}")
