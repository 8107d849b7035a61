"""The `sim` command line: one command per verb.

Errors in user input (files, fields, options) are printed as one line and exit with code 2.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from pathlib import Path
from typing import Annotated

import numpy as np
import typer

from sim.cli_strategies import strategies, tournament
from sim.errors import InputError
from sim.files import write_text_atomic
from sim.games.registry import get_game
from sim.strategy_spec import parse_strategy

app = typer.Typer(
    help="Simulate tile-laying board games by the million and measure their balance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

GameOption = Annotated[
    str, typer.Option("--game", "-g", help="Game: legendary-forests or harmonies.")]
DataOption = Annotated[
    Path | None,
    typer.Option("--tiles", "--data",
                 help="Game data: a Legendary Forests tile-set TOML file, or a Harmonies data "
                      "folder (default: the shipped data)."),
]


def user_errors(command):
    """Turn InputError into a one-line message on stderr and exit code 2."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except InputError as error:
            typer.echo(f"error: {error}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def resolve_lineup(game, strategies: list[str], players: int, source: str = "--strategy"):
    """One strategy spec per seat: a single name fills every seat, otherwise one per seat."""
    registry = game.strategies()
    specs = [parse_strategy(text, registry, source) for text in strategies]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise InputError(f"{source}: {len(specs)} strategies given for {players} players; "
                         f"give one for every seat or a single one for all")
    return specs


@app.command()
@user_errors
def score(
    position: Annotated[Path, typer.Argument(help="A Legendary Forests planet or a Harmonies "
                                                  "board, JSON (RULES.md formats).")],
    tiles: DataOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object instead.")] = False,
    game: GameOption = "legendary-forests",
) -> None:
    """Validate a position and print what it scores.

    Legendary Forests: each zone with a tree and the total. Harmonies: each category and the
    total."""
    chosen = get_game(game)
    data = chosen.load_data(str(tiles) if tiles else None)
    result = chosen.score_file(str(position), data)
    typer.echo(json.dumps(result.document, indent=2) if as_json else result.text)


@app.command()
@user_errors
def play(
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    seed: Annotated[int, typer.Option("--seed", "-s", help="Game seed.")] = 1,
    strategy: Annotated[
        list[str],
        typer.Option("--strategy", help="Strategy per seat (repeat), or one for all seats, "
                                        "e.g. greedy or name:key=value."),
    ] = ["greedy"],  # noqa: B006 - typer needs a list default here
    tiles: DataOption = None,
    json_out: Annotated[
        Path | None,
        typer.Option("--json", help="Write the final planets and the turn log to this file."),
    ] = None,
    removed_tiles: Annotated[
        int | None, typer.Option(help="Tiles removed unseen (rules parameter).")
    ] = None,
    trees_per_colour_per_player: Annotated[
        int | None, typer.Option(help="Trees per leaf colour per player (rules parameter).")
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", help="Any rules parameter: NAME=VALUE (repeat)."),
    ] = None,
    game: GameOption = "legendary-forests",
) -> None:
    """Play one game and print every turn and the final position of every player."""
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    rules = rules_from_options(chosen, removed_tiles, trees_per_colour_per_player, rule)
    data = chosen.load_data(str(tiles) if tiles else None)
    lineup = resolve_lineup(chosen, strategy, players)
    played = chosen.play_one(data, players, rules, lineup, seed)
    typer.echo(played.text)
    if json_out is not None:
        write_text_atomic(json_out, json.dumps(played.document, indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")


@app.command()
@user_errors
def bench(
    players: Annotated[int, typer.Option("--players", "-p", help="Number of players.")] = 4,
    strategy: Annotated[
        list[str] | None,
        typer.Option("--strategy", help="Strategy in every seat (repeat to bench several; "
                                        "default: random and greedy)."),
    ] = None,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per measurement.")] = 20000,
    tiles: DataOption = None,
    game: GameOption = "legendary-forests",
) -> None:
    """Measure games per second on one core (compile or cache-load time reported apart)."""
    chosen = get_game(game)
    chosen.check_players(players, "--players")
    if games < 1:
        raise InputError(f"--games: must be at least 1, got {games}")
    data = chosen.load_data(str(tiles) if tiles else None)
    rules = chosen.default_rules()
    names = strategy or ["random", "greedy"]
    typer.echo(f"{chosen.title}, {players} players, {games} games per strategy, one core")
    for text in names:
        lineup = [parse_strategy(text, chosen.strategies(), "--strategy")]
        seats = np.zeros((1, players), dtype=np.int64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats,
                          np.zeros(1, np.uint64), np.zeros(1, np.uint64))
        warmup = time.perf_counter() - start
        seats = np.zeros((games, players), dtype=np.int64)
        deal = np.arange(games, dtype=np.uint64)
        start = time.perf_counter()
        chosen.play_shard(data, players, rules, lineup, seats, deal, deal + np.uint64(1 << 40))
        elapsed = time.perf_counter() - start
        typer.echo(f"  {lineup[0].label():24s} {games / elapsed:10,.0f} games/s "
                   f"({elapsed:.2f} s; compile/cache load {warmup:.2f} s)")


@app.command()
@user_errors
def run(
    config_file: Annotated[
        Path | None,
        typer.Argument(help="Experiment config (TOML, see configs/README.md). Optional with "
                            "--resume.", dir_okay=False),
    ] = None,
    resume: Annotated[
        Path | None,
        typer.Option("--resume", help="Finish the batch in this folder (after a crash, kill or "
                                      "Ctrl-C); ends with the same results as an "
                                      "uninterrupted run.", file_okay=False),
    ] = None,
    games: Annotated[int | None, typer.Option(help="Override: number of games.")] = None,
    deals: Annotated[int | None, typer.Option(help="Override: number of deals.")] = None,
    replicates_per_deal: Annotated[
        int | None, typer.Option(help="Override: games per deal (nested designs).")] = None,
    seed: Annotated[int | None, typer.Option(help="Override: master seed.")] = None,
    players: Annotated[int | None, typer.Option(help="Override: number of players.")] = None,
    strategy: Annotated[
        list[str] | None,
        typer.Option("--strategy", help="Override: strategy per seat (repeat) or one for all."),
    ] = None,
    pool: Annotated[
        list[str] | None,
        typer.Option("--pool", help="Override: strategies rotating through the seats (repeat)."),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", help="Override a rules parameter: NAME=VALUE (repeat)."),
    ] = None,
    tiles: DataOption = None,
    shard_size: Annotated[int | None, typer.Option(help="Override: games per shard.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Override: output folder.")] = None,
    store: Annotated[
        str | None, typer.Option(help="Override: rows (every row) or summary (aggregates).")
    ] = None,
    workers: Annotated[
        int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    backend: Annotated[
        str, typer.Option(help="local (joblib processes) or dask (dask.distributed).")
    ] = "local",
    scheduler: Annotated[
        str | None,
        typer.Option(help="Dask scheduler address (tcp://host:port); without it, --backend dask "
                          "starts a local cluster."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Play a batch of seeded games into Parquet (one row per player per game)."""
    from sim.config import load_config
    from sim.runner import config_from_manifest
    from sim.store import read_manifest

    overrides = {"games": games, "deals": deals, "replicates_per_deal": replicates_per_deal,
                 "seed": seed, "players": players, "shard_size": shard_size,
                 "output": str(out) if out else None, "store": store,
                 "data_file": str(tiles) if tiles else None}
    if strategy:
        overrides["strategies"] = list(strategy)
    if pool:
        overrides["pool"] = list(pool)
    if rule:
        overrides["rules"] = parse_rule_overrides(rule)
    if workers < 0:
        raise InputError(f"--workers: must be 0 (all cores) or more, got {workers}")
    if resume is not None:
        stored = config_from_manifest(read_manifest(resume))
        if config_file is None:
            if any(v is not None for v in overrides.values()):
                raise InputError("--resume: options that change the batch cannot be combined "
                                 "with --resume (give the same config file instead)")
            config = stored
        else:
            overrides["output"] = str(resume)
            config = load_config(config_file, overrides)
    else:
        if config_file is None:
            raise InputError("run: give a config file (see configs/) or --resume DIR")
        config = load_config(config_file, overrides)
    summary = run_with_progress(config, workers=workers, backend=backend, scheduler=scheduler,
                                resume=resume is not None, quiet=quiet)
    if not quiet:
        state = "complete" if summary.complete else "incomplete"
        typer.echo(f"{summary.games_played:,} games in {summary.seconds:.1f} s "
                   f"({summary.games_per_second:,.0f} games/s); batch {state}: "
                   f"{summary.shards_done}/{summary.shards_total} shards")
    typer.echo(str(summary.run_dir))


def rules_from_options(game, removed_tiles: int | None, trees_per_colour_per_player: int | None,
                       rule: list[str] | None) -> dict[str, int]:
    """The game's rules from the command line: the Legendary Forests shortcuts
    (``--removed-tiles``, ``--trees-per-colour-per-player``) and any ``--rule NAME=VALUE``."""
    overrides: dict[str, int | str] = {
        k: v for k, v in {"removed_tiles": removed_tiles,
                          "trees_per_colour_per_player": trees_per_colour_per_player}.items()
        if v is not None}
    overrides.update(parse_rule_overrides(rule or []))
    return game.resolve_rules(overrides, "options")


def parse_rule_overrides(items: list[str]) -> dict[str, int | str]:
    """``NAME=VALUE`` pairs from ``--rule`` options (integers, or a named choice like B)."""
    rules: dict[str, int | str] = {}
    for item in items:
        name, equals, value = item.partition("=")
        if not equals:
            raise InputError(f"--rule: expected NAME=VALUE, got '{item}'")
        value = value.strip()
        try:
            rules[name.strip()] = int(value)
        except ValueError:
            rules[name.strip()] = value  # the game checks named choices
    return rules


def run_with_progress(config, *, workers, backend, scheduler, resume, quiet):
    """Run a batch with a rich progress bar (games done, games/s, ETA); Ctrl-C keeps every
    finished shard and exits with code 130."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from sim.runner import run_batch

    columns = [TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("games"), TextColumn("{task.fields[rate]}"), TimeElapsedColumn(),
               TextColumn("ETA"), TimeRemainingColumn()]
    progress = Progress(*columns, disable=quiet, transient=False)
    task = progress.add_task(config.name, total=config.games, rate="")
    session = {"start": time.perf_counter(), "first": None}

    def update(done: int, total: int) -> None:
        if session["first"] is None:
            session["first"] = done
        elapsed = time.perf_counter() - session["start"]
        rate = (done - session["first"]) / elapsed if elapsed > 0 else 0.0
        progress.update(task, completed=done, rate=f"{rate:,.0f} games/s")

    try:
        with progress:
            return run_batch(config, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo(f"interrupted: finished shards are kept; finish with "
                   f"`sim run --resume {config.output}`", err=True)
        raise typer.Exit(130) from None


@app.command()
@user_errors
def report(
    run_dir: Annotated[Path, typer.Argument(help="Batch folder written by `sim run`.",
                                            file_okay=False)],
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Report folder (default: reports/<batch name>)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only the path.")] = False,
    fair_margin: Annotated[
        float, typer.Option(help="Fairness margin in percentage points: seats are fair when "
                                 "every gap between two seats' win rates is shown to lie "
                                 "within it.", min=0.01, max=50.0)] = 2.0,
) -> None:
    """Turn a batch into a balance report (HTML, Markdown and Parquet).

    Writes report.html (self-contained, figures embedded), report.md and summary.parquet with
    every number shown, led by the three findings that matter."""
    from sim.report import build_report

    def step(message: str) -> None:
        if not quiet:
            typer.echo(f"  {message}", err=True)

    result = build_report(run_dir, out, progress=step, fair_margin=fair_margin / 100.0)
    if not quiet:
        typer.echo("Findings:")
        for number, finding in enumerate(result.findings, 1):
            typer.echo(f"  {number}. {finding}")
        typer.echo(f"report written in {result.seconds:.1f} s:")
    typer.echo(str(result.html))


@app.command()
@user_errors
def sweep(
    config_file: Annotated[
        Path, typer.Argument(help="Sweep file: a config with a [sweep] table of axes "
                                  "(and optionally [adaptive]).", dir_okay=False)],
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started in "
                                                          "its output folder.")] = False,
    games: Annotated[int | None, typer.Option(help="Override: games per grid point (the cap "
                                                   "in adaptive mode).")] = None,
    seed: Annotated[int | None, typer.Option(help="Override: master seed.")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="Override: output folder.")] = None,
    shard_size: Annotated[int | None, typer.Option(help="Override: games per shard.")] = None,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    backend: Annotated[str, typer.Option(help="local or dask.")] = "local",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Play a grid of rules settings on common deals (one Parquet dataset, resumable)."""
    from sim.sweep import load_sweep

    overrides = {"games": games, "seed": seed, "output": str(out) if out else None,
                 "shard_size": shard_size}
    plan = load_sweep(config_file, overrides)
    states = run_sweep_with_progress(plan, workers=workers, backend=backend,
                                     scheduler=scheduler, resume=resume, quiet=quiet)
    print_sweep_points(plan, states)
    typer.echo(str(plan.output))


def run_sweep_with_progress(plan, *, workers, backend, scheduler, resume, quiet):
    """Run a sweep with one progress bar over all points; Ctrl-C keeps finished shards."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from sim.sweep import run_sweep

    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TextColumn("games"), TextColumn("{task.fields[point]}"),
                        TimeElapsedColumn(), disable=quiet)
    task = progress.add_task(plan.name, total=sum(p.config.games for p in plan.points),
                             point="")

    def update(done: int, total: int, label: str) -> None:
        progress.update(task, completed=done, total=total, point=label)

    try:
        with progress:
            return run_sweep(plan, workers=workers, backend=backend, scheduler=scheduler,
                             resume=resume, progress=update)
    except KeyboardInterrupt:
        typer.echo("interrupted: finished shards are kept; finish with --resume", err=True)
        raise typer.Exit(130) from None


def print_sweep_points(plan, states) -> None:
    """One line per grid point: its values, games played and why it stopped."""
    from sim.sweep import _point_games_done

    for point in plan.points:
        typer.echo(f"  {point.label:50s} {_point_games_done(point):>10,} games  "
                   f"{states.get(point.index, 'pending')}")


@app.command("tune-trees")
@user_errors
def tune_trees(
    players: Annotated[str, typer.Option(help="Player counts: a range 1-5 or a list 2,3,4.")
                       ] = "1-5",
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
    fair_margin: Annotated[
        float, typer.Option(help="Fairness margin in percentage points: a supply is fair when "
                                 "every gap between two seats' win rates is shown to lie "
                                 "within it.", min=0.01, max=50.0)] = 2.0,
    seed: Annotated[int, typer.Option(help="Master seed.")] = 20261129,
    shard_size: Annotated[int, typer.Option(help="Games per shard.")] = 5_000,
    config_file: Annotated[
        Path | None, typer.Option("--config", help="A tune-trees sweep file instead of the "
                                                   "options above (configs/tune-trees.toml).")
    ] = None,
    out: Annotated[Path, typer.Option("--out", help="Sweep folder.")] = Path("runs/tune-trees"),
    report_dir: Annotated[Path, typer.Option(help="Where the tables and heatmaps go.")
                          ] = Path("reports/tune-trees"),
    resume: Annotated[bool, typer.Option("--resume", help="Finish a sweep already started.")
                      ] = False,
    workers: Annotated[int, typer.Option(help="Parallel worker processes (0 = all cores).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")] = False,
) -> None:
    """Recommend the tree supply per player count from a sweep.

    Sweeps players x trees per colour per player on common deals, measures seat advantage,
    colour starvation, scores, ties and skill expression, and recommends a supply."""
    from sim.sweep import load_sweep, sweep_from_document, sweep_rows
    from sim.tune_trees import (
        BASELINE,
        parse_range,
        recommend,
        tree_supply_metrics,
        tune_trees_document,
        write_tuning_report,
    )

    if config_file is not None:
        plan = load_sweep(config_file, {"output": str(out)})
    else:
        pool = [s.strip() for s in strategies.split(",") if s.strip()]
        if len(pool) != 2 or BASELINE not in pool:
            raise InputError(f"--strategies: expected the strongest candidate and {BASELINE}, "
                             f"e.g. planner,{BASELINE}; got '{strategies}'")
        strongest_name = next(s for s in pool if s != BASELINE)
        document = tune_trees_document(
            parse_range(players, "--players", 1, 5), parse_range(supply, "--supply", 1, 50),
            strongest_name, games, seed, shard_size, str(out), half_width, adaptive,
            fair_margin / 100.0)
        plan = sweep_from_document(document, "tune-trees options", Path.cwd(), "tune-trees")
    strongest = next(label for label in plan.points[0].config.lineup
                     if label != BASELINE)
    start = time.perf_counter()
    states = run_sweep_with_progress(plan, workers=workers, backend="local", scheduler=None,
                                     resume=resume, quiet=quiet)
    print_sweep_points(plan, states)
    metrics = tree_supply_metrics(sweep_rows(plan.output), strongest, fair_margin / 100.0)
    picks = recommend(metrics)
    total_games = int(metrics["games"].sum())
    note = (f"{total_games:,} games in all, {int(metrics['games'].min()):,} to "
            f"{int(metrics['games'].max()):,} per grid point; this session "
            f"{time.perf_counter() - start:,.0f} s.")
    report_path = write_tuning_report(metrics, picks, strongest, report_dir, note)
    typer.echo("Recommendation:")
    for pick in picks:
        typer.echo(f"  {pick.sentence}")
    typer.echo(note)
    typer.echo(str(report_path))


@app.command()
@user_errors
def runs(
    folder: Annotated[Path, typer.Argument(help="Folder to search for batches.")] = Path("runs"),
) -> None:
    """List the batches in a folder with their size and status."""
    from sim.store import list_batches

    if not folder.is_dir():
        raise InputError(f"{folder}: no such folder")
    batches = list_batches(folder)
    if not batches:
        typer.echo(f"no batches under {folder}")
        return
    typer.echo(f"{'batch':32s} {'game':18s} {'pl':>2s} {'games':>12s} {'shards':>11s} "
               f"{'store':7s} {'status':11s} {'size':>9s}")
    for batch in batches:
        games = f"{batch['games_done']:,}/{batch['games']:,}" if batch["status"] != "complete" \
            else f"{batch['games']:,}"
        typer.echo(f"{batch['path']:32s} {batch['game']:18s} {batch['players'] or 0:2d} "
                   f"{games:>12s} {batch['shards_done']:>5d}/{batch['shards_total']:<5d} "
                   f"{batch['store']:7s} {batch['status']:11s} {batch['bytes'] / 1e6:8.1f}M")


app.command()(tournament)
app.command()(strategies)


def main() -> None:  # pragma: no cover - console entry point
    """Entry point for ``python -m sim``."""
    app()
    sys.exit(0)
