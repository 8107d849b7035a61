"""The `sim` command line: one module per command, each a thin layer over a plain function.

``options`` holds what the commands share (the options spelled the same everywhere, rules
options built from the game registry, lineups) and ``user_errors``, the one place where an
``InputError`` becomes one line on stderr and exit code 2; ``progress`` the progress bars of the
commands that play batches. Commands import ``options`` and the library, never each other.
"""

from __future__ import annotations

import functools
import signal
from typing import Annotated

import typer

# Typer vendors its own copy of click; its help formatter is the one to extend.
from typer._click.formatting import HelpFormatter

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
from sim.cli.tune_rules import tune_rules, tune_trees
from sim.cli.tune_strategy import tune_strategy
from sim.pool import discard_pools
from sim.signals import (
    command_running,
    end_now,
    exit_code,
    mark_said,
    say_interrupted,
    stop_signal_received,
)

# Help is click's plain text, wrapped to the terminal's width up to this many columns: rich's
# boxed tables shared a narrow terminal evenly between their columns, leaving the help a
# column of 17 characters and cutting long option names and paths with an ellipsis.
HELP_MAX_WIDTH = 120
# Stands in for "-" while the help is wrapped, so lines break at spaces only.
_HELD_HYPHEN = "\u2011"


class UnbrokenWordsFormatter(HelpFormatter):
    """click's help formatter, breaking lines only at spaces: never inside an option name or
    a file name at one of its hyphens (``--no-point-reports``, ``tune-trees.parquet``)."""

    def write_text(self, text: str) -> None:  # noqa: D102 - click's method
        super().write_text(text.replace("-", _HELD_HYPHEN))

    def write_dl(self, rows, col_max: int = 30, col_spacing: int = 2) -> None:  # noqa: D102
        super().write_dl([(first, second.replace("-", _HELD_HYPHEN)) for first, second in rows],
                         col_max, col_spacing)

    def getvalue(self) -> str:  # noqa: D102 - click's method
        return super().getvalue().replace(_HELD_HYPHEN, "-")


class HelpContext(typer.Context):
    """A command's context, whose help is written by ``UnbrokenWordsFormatter``."""

    formatter_class = UnbrokenWordsFormatter


class SimCommand(HelpTextCommand):
    """A `sim` command: placeholders as ``HelpTextCommand`` shows them, help wrapped at spaces."""

    context_class = HelpContext


class SimGroup(OneLineErrorsGroup):
    """The `sim` group: one-line errors, help wrapped at spaces."""

    context_class = HelpContext

    def format_commands(self, ctx, formatter) -> None:
        """Every command with the whole first sentence of its help, wrapped like the options'
        help (click cuts it to one line, ending in "...")."""
        rows = [(name, command.get_short_help_str(limit=10_000))
                for name in self.list_commands(ctx)
                if (command := self.get_command(ctx, name)) is not None and not command.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    cls=SimGroup,
    help="Simulate tile-laying board games by the million and measure their balance.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"max_content_width": HELP_MAX_WIDTH},
)

# In the order of the original single-module CLI, so `sim --help` lists them the same way.
COMMANDS = (("score", score), ("play", play), ("bench", bench), ("run", run),
            ("report", report), ("compare", compare), ("sweep", sweep),
            ("tune-trees", tune_trees), ("tune-rules", tune_rules), ("runs", runs),
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


def ends_in_one_line_when_stopped(command):
    """Run ``command`` as one that Ctrl-C or SIGTERM stops in one line (``sim.signals``): the
    first signal raises KeyboardInterrupt in it; whatever it does with that (a batch keeps its
    finished shards and says so; another command says "interrupted"), it then ends with exit
    code 128 + the signal and every worker process it started stopped."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            with command_running():
                try:
                    result = command(*args, **kwargs)
                except KeyboardInterrupt:
                    say_interrupted()
                    # A KeyboardInterrupt without the handler (sim called from Python) is SIGINT.
                    raise typer.Exit(exit_code(stop_signal_received() or signal.SIGINT)) \
                        from None
                except typer.Exit:
                    if stop_signal_received() is None:
                        raise
                    # A command that catches Ctrl-C itself printed its line (and an error
                    # line is one line too): only the exit code is the signal's.
                    mark_said()
                    raise typer.Exit(exit_code(stop_signal_received())) from None
                except Exception:
                    if stop_signal_received() is None:
                        raise
                    # An error the signal caused (a SIGTERM sent to the whole process group
                    # ends the workers too, and their pool reports them lost): interrupted.
                    say_interrupted()
                    raise typer.Exit(exit_code(stop_signal_received())) from None
                if stop_signal_received() is not None:
                    # The signal came as the command finished (or something swallowed it).
                    say_interrupted()
                    raise typer.Exit(exit_code(stop_signal_received()))
                return result
        finally:
            if stop_signal_received() is not None:
                # Stopped: the kept pool, joblib's and dask's processes are stopped and the
                # process ends now (``end_now``), not through the interpreter's own ending.
                discard_pools()
                end_now()

    return wrapper


for command_name, command in COMMANDS:
    app.command(command_name, cls=SimCommand)(ends_in_one_line_when_stopped(user_errors(command)))

