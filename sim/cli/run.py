"""``sim run``: a batch of seeded games into Parquet, resumable."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    AllowCodeOption,
    BackendOption,
    BatchWorkersOption,
    DataOption,
    QuietOption,
    SchedulerOption,
    field_option,
    out_option,
    parse_rule_overrides,
    players_help,
    rule_help,
    with_resume_hint,
)
from sim.cli.progress import run_sweep_with_progress, run_with_progress
from sim.config import load_config, load_lineup_code, read_toml
from sim.distributed import check_backend
from sim.errors import InputError
from sim.files import escape_control_characters, os_error_line
from sim.runner import check_run_dir, check_workers, config_from_manifest
from sim.seating import LEGACY_POOL_DESIGN
from sim.store import read_manifest


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
    players: Annotated[int | None, typer.Option(help=players_help("Override: number of players"))
                       ] = None,
    strategy: Annotated[
        list[str] | None,
        typer.Option("--strategy", metavar="<strategy>",
                     help="Override: strategy per seat (repeat) or one for all."),
    ] = None,
    pool: Annotated[
        list[str] | None,
        typer.Option("--pool", metavar="<strategy>",
                     help="Override: strategies rotating through the seats (repeat)."),
    ] = None,
    pool_design: Annotated[
        str | None,
        typer.Option("--pool-design", metavar="<design>",
                     help="Override: how a pool larger than the table is seated: balanced "
                          "(every combination of strategies in every seat rotation; default) "
                          "or every-order (every ordered lineup)."),
    ] = None,
    rule: Annotated[
        list[str] | None,
        typer.Option("--rule", metavar="<name=value>",
                     help=rule_help("Override a rules parameter")),
    ] = None,
    tiles: DataOption = None,
    shard_size: Annotated[int | None, typer.Option(help="Override: games per shard.")] = None,
    out: Annotated[Path | None, out_option("Override: output folder.")] = None,
    store: Annotated[
        str | None, typer.Option(help="Override: rows (every row) or summary (aggregates).")
    ] = None,
    trace: Annotated[
        bool, typer.Option("--trace", help="Also keep every seat's score after each round "
                                           "(score_trace; rows store; bigger files) for the "
                                           "report's 'how games unfold'.")
    ] = False,
    workers: BatchWorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    field: Annotated[
        list[str] | None,
        field_option("Play every field named (repeat) on the same deals: a field the game "
                     "declares (`sim strategies` lists them), `default` for the game's default "
                     "fields, or NAME=LINEUP (a strategy for every seat, one per seat joined by "
                     "'+', or pool: and strategies joined by '+'). Replaces the config's "
                     "`fields`; the report then judges every finding across the fields."),
    ] = None,
    quiet: QuietOption = False,
    allow_code: AllowCodeOption = False,
) -> None:
    """Play a batch of seeded games into Parquet (one row per player per game).

    With fields (`--field`, or `fields = [...]` in the config) every field plays the same deals,
    each in its own batch under points/ of the output folder; `sim report` on the folder judges
    every finding across the fields."""
    overrides = {"games": games, "deals": deals, "replicates_per_deal": replicates_per_deal,
                 "seed": seed, "players": players, "shard_size": shard_size,
                 "output": str(out) if out else None, "store": store,
                 "pool_design": pool_design,
                 "data_file": str(tiles) if tiles else None, "trace": True if trace else None}
    if strategy:
        overrides["strategies"] = list(strategy)
    if pool:
        overrides["pool"] = list(pool)
    if rule:
        overrides["rules"] = parse_rule_overrides(rule)
    check_workers(workers)
    check_backend(backend, scheduler)
    from sim.sweep import SWEEP_MANIFEST  # polars loads only once a run is certain

    document = read_toml(config_file) if config_file is not None else None
    if document is not None and "sweep" in document:
        raise InputError(f"{config_file}: a sweep file (it has a [sweep] table); play it with "
                         f"`sim sweep {config_file}`")
    if field or (document is not None and "fields" in document) or (
            resume is not None and (resume / SWEEP_MANIFEST).exists()):
        if strategy or pool or pool_design:
            raise InputError("--field: each field names its lineup; --strategy, --pool and "
                             "--pool-design cannot be combined with fields")
        overrides["fields"] = list(field) if field else None
        _run_fields(config_file, resume, overrides, workers, backend, scheduler, quiet,
                    allow_code)
        return
    if resume is not None:
        # The batch folder is where the batch is now, whatever folder it was started in.
        stored = config_from_manifest(read_manifest(resume), resume, allow_code=allow_code,
                                      load_code=False)
        if config_file is None:
            if any(v is not None for v in overrides.values()):
                raise InputError("--resume: options that change the batch cannot be combined "
                                 "with --resume (give the same config file instead)")
            config = stored
        else:
            overrides["output"] = str(resume)
            if stored.pool_design == LEGACY_POOL_DESIGN and pool_design is None and \
                    "pool_design" not in read_toml(config_file):
                # A batch started before pool designs, resumed with its own config file (which
                # could not name one): it goes on with the rotation it started with.
                overrides["pool_design"] = LEGACY_POOL_DESIGN
            config = load_config(config_file, overrides, allow_code=allow_code, load_code=False)
    else:
        if config_file is None:
            raise InputError("run: give a config file (see configs/) or --resume DIR")
        config = load_config(config_file, overrides, allow_code=allow_code, load_code=False)
    # Strategy code runs only once everything else is checked: the options, the config's
    # fields, and the output folder (not a file, no other batch there, no other writer).
    check_run_dir(config, resume is not None)
    load_lineup_code(config, _lineup_source(config_file, resume, strategy, pool,
                                           config.rotate))
    try:
        summary = run_with_progress(config, workers=workers, backend=backend,
                                    scheduler=scheduler, resume=resume is not None, quiet=quiet)
    except OSError as error:
        raise InputError(with_resume_hint(os_error_line(error), Path(config.output),
                                          "sim run --resume")) from None
    if not quiet:
        state = "complete" if summary.complete else "incomplete"
        if summary.games_played == 0:
            # A resume of a finished batch plays nothing: no speed to speak of.
            typer.echo(f"nothing to play; batch {state}: {summary.shards_done}/"
                       f"{summary.shards_total} shards")
        else:
            typer.echo(f"{summary.games_played:,} games in {summary.seconds:.1f} s "
                       f"({summary.games_per_second:,.0f} games/s); batch {state}: "
                       f"{summary.shards_done}/{summary.shards_total} shards")
    typer.echo(escape_control_characters(str(summary.run_dir)))


def _lineup_source(config_file: Path | None, resume: Path | None, strategy: list[str] | None,
                   pool: list[str] | None, rotate: bool) -> str:
    """Where a batch's lineup was written, for its one-line errors."""
    if strategy:
        return "--strategy"
    if pool:
        return "--pool"
    if config_file is None and resume is not None:
        return f"{resume / 'manifest.json'}: field 'config.lineup'"
    return f"{config_file}: field '{'pool' if rotate else 'strategies'}'"


def _run_fields(config_file: Path | None, resume: Path | None, overrides: dict, workers: int,
                backend: str, scheduler: str | None, quiet: bool, allow_code: bool) -> None:
    """A fields run: every field a point of a sweep over the ``field`` axis (``sim.fields``)."""
    from sim.cli.sweep import print_sweep_results
    from sim.sweep import load_sweep, load_sweep_folder

    if config_file is None:
        if resume is None:
            raise InputError("run: give a config file (see configs/) or --resume DIR")
        if any(value is not None for value in overrides.values()):
            raise InputError("--resume: options that change the batch cannot be combined "
                             "with --resume (give the same config file instead)")
        plan = load_sweep_folder(resume, allow_code=allow_code, load_code=False)
    else:
        if resume is not None:
            overrides["output"] = str(resume)
        plan = load_sweep(config_file, overrides, allow_code=allow_code, load_code=False)
    try:
        run_sweep_with_progress(plan, workers=workers, backend=backend, scheduler=scheduler,
                                resume=resume is not None, quiet=quiet,
                                resume_command="sim run --resume")
    except OSError as error:
        raise InputError(with_resume_hint(os_error_line(error), plan.output,
                                          "sim run --resume")) from None
    if not quiet:
        print_sweep_results(plan.output, None)
    typer.echo(escape_control_characters(str(plan.output)))
