"""``sim tournament``: every strategy in every seat on the same deals, rated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from sim.cli.options import (
    DEFAULT_GAME,
    BackendOption,
    DataOption,
    GameOption,
    PlayersOption,
    RuleOption,
    SchedulerOption,
    SeedOption,
    WorkersOption,
    announce_compiling,
    check_play_options,
    game_rules_data,
    with_rules_options,
)
from sim.files import write_text_atomic
from sim.strategy_spec import parse_strategy


@with_rules_options
def tournament(
    strategies: Annotated[
        str, typer.Option("--strategies", help="Comma-separated strategies, e.g. "
                                                "random,greedy,planner:hope=0.5,lookahead=1 "
                                                "(an item key=value continues the previous one).")
    ] = "random,greedy",
    players: PlayersOption = 4,
    games: Annotated[int, typer.Option("--games", "-n", help="Games in total (rounded up to "
                                                             "whole deals x seat rotations).")
                     ] = 2000,
    seed: SeedOption = 1,
    workers: WorkersOption = 0,
    backend: BackendOption = "local",
    scheduler: SchedulerOption = None,
    tiles: DataOption = None,
    rule: RuleOption = None,
    json_out: Annotated[
        Path | None, typer.Option("--json", help="Also write the results to this JSON file.")
    ] = None,
    markdown_out: Annotated[
        Path | None, typer.Option("--markdown", help="Also write the table and \"What the bots "
                                                     "play like\" to this markdown file.")
    ] = None,
    game: GameOption = DEFAULT_GAME,
    rule_options: dict[str, int] | None = None,
) -> None:
    """Play every strategy in every seat on the same deals and rate them.

    Prints scores and win rates with 95% CIs, head-to-head win rates and Bradley-Terry
    ratings, then what the bots play like (points by category, cubes, cards, game length)
    beside recorded human games when the game ships some for these players and rules."""
    # scipy's statistics load only for this command (every command imports this module).
    from sim.tournament import parse_strategy_list, run_tournament

    workers = check_play_options(seed, workers, backend, scheduler)
    chosen, rules, data = game_rules_data(game, players, rule_options, rule, tiles)
    registry = chosen.strategies()
    lineup = [parse_strategy(text, registry, "--strategies")
              for text in parse_strategy_list(strategies)]
    announce_compiling(chosen, "play_shard", strategies=lineup)
    result = run_tournament(chosen, data, players, rules, lineup, games, seed, workers,
                            backend=backend, scheduler=scheduler)
    typer.echo(result.table())
    typer.echo("\n" + result.profile.rstrip("\n"))
    if markdown_out is not None:
        write_text_atomic(markdown_out, result.markdown())
        typer.echo(f"\nwrote {markdown_out}")
    if json_out is not None:
        write_text_atomic(json_out, json.dumps(result.document(), indent=1) + "\n")
        typer.echo(f"\nwrote {json_out}")
