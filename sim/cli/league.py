"""``sim league``: a population of strategies rated by winning (``sim.league``), and the check of
stored league results."""

from __future__ import annotations

import shlex
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
    SeedOption,
    WorkersOption,
    announce_compiling,
    check_play_options,
    game_rules_data,
    out_option,
    with_rules_options,
)
from sim.cli.progress import games_counted
from sim.files import write_text_atomic
from sim.games.registry import get_game


@with_rules_options
def league(
    members: Annotated[
        str | None, typer.Option("--members", help="Comma-separated members, replacing the "
                                                   "default population: labels "
                                                   "(expert:space=0) or name@file.toml.")
    ] = None,
    exclude: Annotated[
        str | None, typer.Option("--exclude", help="Leave these members out, by name, "
                                                   "comma-separated.")] = None,
    add: Annotated[
        str | None, typer.Option("--add", help="Add these members, comma-separated.")] = None,
    players: SeatsOption = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games per pair of members "
                                                             "(whole deals x rotations).")
                     ] = 2000,
    mixed_games: Annotated[
        int | None, typer.Option("--mixed-games", help="Games of the mixed field of all "
                                                       "members (default: --games).")] = None,
    seed: SeedOption = 1,
    workers: WorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    out: Annotated[Path | None, out_option("Folder for league.md, league.json and league.png "
                                           "(default: reports/league-GAME-Np).")] = None,
    check: Annotated[
        Path | None, typer.Option("--check", help="Check a stored league.json instead of "
                                                  "playing: exit 0 if the shipped default is "
                                                  "on top, 1 if not (or stale), 2 on a bad "
                                                  "file.")] = None,
    tiles: DataOption = None,
    rule: RuleOption = None,
    game: GameOption = DEFAULT_GAME,
    quiet: QuietOption = False,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Rate a league of strategies by winning and check that the shipped default tops it.

    Members: every built-in at its defaults, every previous shipped default and every
    documented variant. Every pair plays seat-rotated two-strategy games on common deals (win
    share with 95% CIs by deal); with 3+ players all play one mixed field too; one
    Bradley-Terry rating by rank over both. Writes OUT/league.md, league.json, league.png."""
    # scipy's statistics and matplotlib load only for this command.
    from sim.league import (
        check_league_file,
        choose_members,
        league_json,
        league_markdown,
        league_plot,
        rules_label,
        run_league,
    )
    from sim.profile import profile_markdown
    from sim.report.numbers import setting_text
    from sim.tournament import parse_strategy_list

    if check is not None:
        verdict = check_league_file(check, lambda name: get_game(name, "league.json").strategies())
        typer.echo(verdict.line())
        raise typer.Exit(0 if verdict.on_top else 1)
    workers = check_play_options(seed, workers, backend, scheduler)
    chosen, rules, data = game_rules_data(game, players, rule_options, rule, tiles)
    registry = chosen.strategies()
    population, left_out = choose_members(
        registry, parse_strategy_list(members) if members else None,
        parse_strategy_list(exclude) if exclude else None,
        parse_strategy_list(add) if add else None)
    announce_compiling(chosen, "play_shard", strategies=[m.spec for m in population])
    with games_counted("league", quiet=quiet) as update:
        result = run_league(chosen, data, players, rules, population, games,
                            mixed_games if mixed_games is not None else games, seed, workers,
                            update, backend=backend, scheduler=scheduler)
    result.left_out = left_out
    profile = profile_markdown(chosen, [m.name for m in population], result.played,
                               players=players, rules=rules)
    folder = out or Path(f"reports/league-{chosen.name}-{players}p")
    command = league_command(chosen.name, players, games,
                             mixed_games if mixed_games is not None else games, seed, folder,
                             rules=[*(f"{name}={value}" for name, value in
                                      sorted((rule_options or {}).items())), *(rule or [])],
                             data=tiles, members=members, exclude=exclude, add=add,
                             workers=workers)
    markdown = league_markdown(result, profile,
                               setting_text(chosen, rules_label(rules)) if rules else None,
                               command)
    write_text_atomic(folder / "league.md", markdown)
    write_text_atomic(folder / "league.json", league_json(result))
    from sim.report.plots import write_figure_files  # matplotlib: only when writing

    figures = write_figure_files(folder, "league", league_plot(result))
    typer.echo(markdown)
    typer.echo(f"wrote {folder / 'league.md'}, {folder / 'league.json'}, "
               + " and ".join(map(str, figures)))


def league_command(game: str, players: int, games: int, mixed_games: int, seed: int,
                   folder: Path, rules: list[str] = (), data: Path | None = None,
                   members: str | None = None, exclude: str | None = None,
                   add: str | None = None, workers: int | None = None) -> str:
    """The ``sim league`` command line that plays a league again with these settings (shell
    quoted; the rules as ``--rule NAME=VALUE`` in the order given). ``workers`` is shown as
    played, though the league does not depend on it."""
    words = ["sim", "league", "--game", game, "--players", str(players)]
    for item in rules:
        words += ["--rule", item]
    if data is not None:
        words += ["--data", str(data)]
    for option, value in (("--members", members), ("--exclude", exclude), ("--add", add)):
        if value:
            words += [option, value]
    words += ["--games", str(games), "--mixed-games", str(mixed_games), "--seed", str(seed)]
    if workers is not None:
        words += ["--workers", str(workers)]
    words += ["--out", str(folder)]
    return shlex.join(words)
