"""``sim ladder``: every strategy of a game rated in one rotated tournament, weakest first."""

from __future__ import annotations

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
from sim.errors import InputError
from sim.files import write_text_atomic
from sim.strategy_spec import parse_strategy


@with_rules_options
def ladder(
    strategies: Annotated[
        str | None, typer.Option("--strategies", help="Comma-separated strategies (default: "
                                                      "every registered one of the game).")
    ] = None,
    exclude: Annotated[
        str | None, typer.Option("--exclude", help="Leave these out, comma-separated (e.g. a "
                                                   "slow strategy).")] = None,
    slow: Annotated[
        str | None, typer.Option("--slow", help="Comma-separated strategies that play only "
                                                "--slow-games games (a second tournament with "
                                                "every strategy; one rating scale).")] = None,
    slow_games: Annotated[int, typer.Option("--slow-games", help="Games of the second "
                                                                 "tournament of --slow.")] = 400,
    players: SeatsOption = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games of the main tournament "
                                                             "(whole deals x rotations).")
                     ] = 4000,
    seed: SeedOption = 1,
    workers: WorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    out: Annotated[Path | None, out_option("Folder for ladder.md and ladder.png (default: "
                                           "reports/ladder-GAME-Np).")] = None,
    tiles: DataOption = None,
    rule: RuleOption = None,
    game: GameOption = DEFAULT_GAME,
    quiet: QuietOption = False,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Rate every strategy, weakest to strongest, with casual and expert tiers.

    One rotated tournament on common deals (every strategy in every seat); Bradley-Terry
    ratings with 95% deal-bootstrap intervals, mean scores and win rates with 95% CIs by deal.
    Tiers split where neighbours' rating intervals do not overlap. Then what the bots of the
    main tournament play like, beside recorded human games when the game ships some. Writes
    OUT/ladder.md and OUT/ladder.png. The kernels are compiled (or loaded from the cache)
    before the games are timed, so games/s counts the games alone."""
    # scipy's statistics load only for this command (every command imports this module).
    from sim.ladder import ladder_plot, run_ladder
    from sim.tournament import parse_strategy_list

    workers = check_play_options(seed, workers, backend, scheduler)
    chosen, rules, data = game_rules_data(game, players, rule_options, rule, tiles)
    registry = chosen.strategies()
    texts = parse_strategy_list(strategies) if strategies else list(registry)
    lineup = [parse_strategy(text, registry, "--strategies") for text in texts]
    left_out = []
    if exclude:
        drop = parse_strategy_list(exclude)
        labels = [spec.label() for spec in lineup]
        for name in drop:
            if name not in labels:
                raise InputError(f"--exclude: '{name}' is not in the ladder "
                                 f"({', '.join(labels)})")
        lineup = [spec for spec in lineup if spec.label() not in drop]
        left_out = drop
    slow_names = parse_strategy_list(slow) if slow else []
    # Said before the bar, which would otherwise sit at 0 while the kernels compile.
    announce_compiling(chosen, "play_shard", strategies=lineup)
    with games_counted("ladder", quiet=quiet) as update:
        result = run_ladder(chosen, data, players, rules, lineup, games, seed, workers,
                            slow_names, slow_games, update, backend=backend,
                            scheduler=scheduler)
    result.excluded = left_out
    typer.echo(result.table())
    typer.echo("\n" + result.profile.rstrip("\n"))
    folder = out or Path(f"reports/ladder-{chosen.name}-{players}p")
    write_text_atomic(folder / "ladder.md", result.markdown())
    from sim.report.plots import write_figure_files  # matplotlib: only when writing

    figures = write_figure_files(folder, "ladder", ladder_plot(result))
    typer.echo(f"\nwrote {folder / 'ladder.md'} and " + " and ".join(map(str, figures)))
