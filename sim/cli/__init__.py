"""The `sim` command line: one module per command, each a thin layer over a plain function.

``options`` holds what the commands share (the options spelled the same everywhere, rules
options built from the game registry, lineups) and ``user_errors``, the one place where an
``InputError`` becomes one line on stderr and exit code 2; ``progress`` the progress bars of the
commands that play batches. Commands import ``options`` and the library, never each other.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sim import __version__
from sim.cli.bench import bench
from sim.cli.compare import compare
from sim.cli.ladder import ladder
from sim.cli.league import league
from sim.cli.options import HelpTextCommand, OneLineErrorsGroup, user_errors
from sim.cli.play import play
from sim.cli.report import report
from sim.cli.run import run
from sim.cli.runs import runs
from sim.cli.score import score
from sim.cli.strategies import strategies
from sim.cli.sweep import sweep
from sim.cli.tournament import tournament
from sim.cli.tune_strategy import tune_strategy
from sim.cli.tune_trees import tune_trees

app = typer.Typer(
    cls=OneLineErrorsGroup,
    help="Simulate tile-laying board games by the million and measure their balance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

# In the order of the original single-module CLI, so `sim --help` lists them the same way.
COMMANDS = (("score", score), ("play", play), ("bench", bench), ("run", run),
            ("report", report), ("compare", compare), ("sweep", sweep),
            ("tune-trees", tune_trees), ("runs", runs),
            ("tournament", tournament), ("strategies", strategies),
            ("tune-strategy", tune_strategy), ("ladder", ladder), ("league", league))


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"sim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_print_version,
                                          help="Print the version and exit.")] = False,
) -> None:
    """Simulate tile-laying board games by the million and measure their balance."""


for command_name, command in COMMANDS:
    app.command(command_name, cls=HelpTextCommand)(user_errors(command))

