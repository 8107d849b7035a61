"""What the commands share: the options every command spells the same way (each declared here
once; a group of options several commands take together is a dataclass given to
``with_option_group``), the checks of the options that say where games are played, the rules
options, lineups, and the one place where a user error becomes one line on stderr and exit
code 2.

Option texts that depend on the games (``--game``, the data option, the rules parameters that
have options of their own) are built from the game registry, so no command names a game.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import sys
from pathlib import Path
from typing import Annotated, Any, get_args, get_type_hints

import typer

# Typer vendors its own copy of click; its parser raises these (typer re-exports only a few).
from typer._click import exceptions as parser_errors
from typer.core import TyperArgument, TyperCommand, TyperGroup

from sim.distributed import check_backend
from sim.errors import InputError
from sim.files import escape_control_characters, os_error_line
from sim.games.base import Game, StrategySpec
from sim.games.registry import default_game, games, get_game
from sim.stats.margins import FAIR_MARGIN, margin_from_points
from sim.strategy_spec import parse_strategy


def _game_help() -> str:
    return f"Game: {' or '.join(games())}."


def _data_help() -> str:
    kinds = " or ".join(game.data_help for game in games().values() if game.data_help)
    return f"Game data: {kinds} (default: the shipped data)."


def _choice_text(parameter) -> str:
    """A rules parameter's values as a person writes them: its named choices, or its range."""
    if parameter.choices:
        return " or ".join(name for name, _ in parameter.choices)
    return f"{parameter.minimum} to {parameter.maximum}"


def _default_text(parameter) -> str:
    """A rules parameter's default as a person writes it (its name when it has one)."""
    names = {value: name for name, value in parameter.choices}
    return names.get(parameter.default, str(parameter.default))


def rule_help(prefix: str = "Any rules parameter") -> str:
    """``--rule``'s help: every game's rules parameters with their values and defaults."""
    parts = []
    for game in games().values():
        if not game.rules_parameters:
            continue
        listed = "; ".join(f"{p.name} ({_choice_text(p)}, default {_default_text(p)})"
                           for p in game.rules_parameters)
        parts.append(f"{game.title}: {listed}")
    known = f" {'. '.join(parts)}." if parts else ""
    return f"{prefix}: NAME=VALUE (repeat).{known}"


def players_help(prefix: str = "Number of players") -> str:
    """``--players``' help: the prefix and every game's player range."""
    ranges = ", ".join(f"{game.title} {game.min_players} to {game.max_players}"
                       for game in games().values())
    return f"{prefix} ({ranges})."


def _data_options() -> list[str]:
    names = [f"--{game.data_option}" for game in games().values() if game.data_option]
    return list(dict.fromkeys(names))


def position_help() -> str:
    """The help of ``sim score``'s argument: what each game's position file is."""
    kinds = " or ".join(game.position_help for game in games().values() if game.position_help)
    return f"{kinds[:1].upper()}{kinds[1:]}, JSON (the formats of docs/rules.md)."


DEFAULT_GAME = default_game()
GameOption = Annotated[str, typer.Option("--game", "-g", help=_game_help())]
DataOption = Annotated[Path | None, typer.Option(*_data_options(), help=_data_help())]
RuleOption = Annotated[
    list[str] | None,
    typer.Option("--rule", metavar="<name=value>", help=rule_help()),
]
PlayersOption = Annotated[int, typer.Option("--players", "-p", help=players_help())]
AllowCodeOption = Annotated[
    bool, typer.Option("--allow-code", help="Let the config name strategy modules or files "
                                            "outside its own folder (runs their code).")]
QuietOption = Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar.")]
# The commands that rate strategies in rotated tournaments (tournament, ladder, league,
# tune-strategy).
SeatsOption = Annotated[int, typer.Option("--players", "-p", help="Seats per game.")]
SeedOption = Annotated[int, typer.Option("--seed", "-s", help="Master seed.")]
WORKERS_HELP = "Worker processes (0 = all cores, the default); results do not depend on it."
WorkersOption = Annotated[int, typer.Option("--workers", "-j", help=WORKERS_HELP)]
# The commands that play batches (run, sweep, tune-rules, tune-trees) never had the short -j.
BatchWorkersOption = Annotated[int, typer.Option("--workers", help=WORKERS_HELP)]


def check_play_options(seed: int, workers: int, backend: str, scheduler: str | None) -> int:
    """What every command that plays games on workers checks before anything else: the seed,
    ``--workers`` (returned as a process count, ``worker_processes``) and ``--backend`` with
    ``--scheduler``; each mistake is a one-line InputError."""
    check_seed(seed)
    processes = worker_processes(workers)
    check_backend(backend, scheduler)
    return processes


def worker_processes(workers: int) -> int:
    """``--workers`` as a process count: 0 is every core this process may use; more than
    ``sim.pool.worker_limit`` is a one-line InputError."""
    from sim.runner import check_workers

    if check_workers(workers):
        return workers
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


# Where a command's games are played (sim.distributed); results never depend on it.
BackendOption = Annotated[
    str, typer.Option("--backend", metavar="<backend>",
                      help="local (worker processes on this machine) or dask "
                           "(dask.distributed: a local cluster of --workers processes, or the "
                           "cluster of --scheduler); results do not depend on it.")]
SchedulerOption = Annotated[
    str | None, typer.Option("--scheduler", metavar="<address>",
                             help="With --backend dask: the dask scheduler to play on "
                                  "(tcp://host:port); without it a local cluster starts.")]
FAIR_MARGIN_HELP = ("Fairness margin in percentage points: seats are fair when every gap "
                    "between two seats' win rates is shown (simultaneous 95% intervals) to lie "
                    "within it, unfair when one is shown to exceed it, undecided otherwise.")
FairMarginOption = Annotated[float, typer.Option(help=FAIR_MARGIN_HELP, min=0.01, max=50.0)]
# For sweeps: by default the margin of the sweep's own fairness stopping rule, else 2.
SweepFairMarginOption = Annotated[
    float | None, typer.Option("--fair-margin", help=FAIR_MARGIN_HELP + " Default: the margin of "
                               "the sweep's seat_verdict stopping rule, else 2.", min=0.01,
                               max=50.0)]


def sweep_fair_margin(option: float | None, adaptive: dict | None) -> float:
    """The fairness margin (a proportion) a sweep's results are judged with: the option (in
    percentage points), else the sweep's own seat_verdict margin, else 2 points."""
    if option is not None:
        return margin_from_points(option)
    if adaptive and adaptive.get("metric") == "seat_verdict" and "fair_margin" in adaptive:
        return float(adaptive["fair_margin"])
    return FAIR_MARGIN


def field_option(help_text: str):
    """``--field NAME[=LINEUP]`` (repeatable) of the commands that play fields of players over
    the same deals (``sim.fields``), with the command's own ``help_text``."""
    return typer.Option("--field", metavar="<name[=lineup]>", help=help_text)


def folder_argument(help_text: str):
    """An argument naming a folder (a batch or a sweep); a file given is a parser error."""
    return typer.Argument(help=help_text, file_okay=False)


def out_option(help_text: str):
    """``--out``: where a command writes, in the command's own ``help_text``."""
    return typer.Option("--out", help=help_text)


def usage_error_line(error: parser_errors.UsageError) -> str:
    """A command-line parser error as one line: the command, then click's reason (which names
    the option or argument)."""
    command = error.ctx.command_path if error.ctx is not None else "sim"
    reason = " ".join(error.format_message().split())
    return escape_control_characters(f"error: {command}: {reason}")


def tidy_placeholders(params: list) -> list:
    """Value placeholders in ``--help`` only for options that take a value: none for flags
    (``--json``, ``--help``), the element for repeatable options (``<str>``, not
    ``<list[str]>``), ``<int>`` for a bounded integer (its range follows), and arguments in
    capitals in the usage line. Options that set their own ``metavar`` keep it."""
    for param in params:
        if param.metavar is not None:
            continue
        descriptor = getattr(param, "type_descriptor", None)
        if isinstance(param, TyperArgument):
            param.metavar = param.name.upper()
            if descriptor is not None and descriptor.is_list:
                (element,) = get_args(descriptor.annotation) or (str,)
                shown = f"<{param._bare_type(element)}>..."
                param.display_type_rich = lambda ctx, shown=shown: shown
            continue
        if getattr(param, "is_flag", False):
            param.metavar = ""
        elif descriptor is not None and descriptor.is_list:
            (element,) = get_args(descriptor.annotation) or (str,)
            param.metavar = f"<{param._bare_type(element)}>"
        elif descriptor is not None and descriptor.is_ranged:
            param.metavar = f"<{descriptor.ranged_type_name}>"
    return params


class HelpTextCommand(TyperCommand):
    """A command with the placeholders of ``tidy_placeholders`` in its ``--help``."""

    def get_params(self, ctx):  # noqa: D102 - click's method
        return tidy_placeholders(super().get_params(ctx))


class OneLineErrorsGroup(TyperGroup):
    """The `sim` group: errors found by the command-line parser (an unknown option, a value of
    the wrong type, a folder where a file is expected) print one line on stderr and exit with 2,
    like every other user error, instead of a usage box."""

    def get_params(self, ctx):  # noqa: D102 - click's method
        return tidy_placeholders(super().get_params(ctx))

    def main(self, args: Any = None, prog_name: str | None = None,
             complete_var: str | None = None, standalone_mode: bool = True,
             **extra: Any) -> Any:
        """Run the command line; a ``UsageError`` becomes one line and exit code 2."""
        try:
            result = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except parser_errors.NoArgsIsHelpError as error:
            error.show()  # `sim` alone: the help, as before
            code = error.exit_code
        except parser_errors.UsageError as error:
            typer.echo(usage_error_line(error), err=True)
            code = 2
        except parser_errors.ClickException as error:
            reason = " ".join(error.format_message().split())
            typer.echo(escape_control_characters(f"error: {reason}"), err=True)
            code = error.exit_code
        except typer.Abort:
            typer.echo("aborted", err=True)
            code = 1
        else:
            code = result if isinstance(result, int) else 0
        if not standalone_mode:
            return code
        sys.exit(code)


MAX_SEED = 2**64 - 1


def check_seed(seed: int, option: str = "--seed") -> int:
    """A seed from the command line: 0 to 2**64 - 1 (what the seed sequence takes)."""
    if not 0 <= seed <= MAX_SEED:
        raise InputError(f"{option}: must be from 0 to 2**64 - 1, got {seed}")
    return seed


def user_errors(command):
    """Turn InputError, and any operating-system error (a full disk, a read-only folder, a
    name too long: ``sim.files.os_error_line``), into a one-line message on stderr and exit
    code 2. Control characters in the message (a name or path with a newline or an escape
    sequence) are printed escaped, so the message stays one line and the terminal is safe."""

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        try:
            return command(*args, **kwargs)
        except InputError as error:
            typer.echo(f"error: {escape_control_characters(str(error))}", err=True)
            raise typer.Exit(2) from None
        except OSError as error:
            typer.echo(f"error: {os_error_line(error)}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def with_resume_hint(line: str, folder: Path, command: str) -> str:
    """An error line that stopped a run part-way, with how to finish once the cause is fixed
    (when the folder holds a batch or sweep by now: its finished shards are kept)."""
    from sim.store import MANIFEST
    from sim.sweep import SWEEP_MANIFEST

    try:
        started = (folder / MANIFEST).is_file() or (folder / SWEEP_MANIFEST).is_file()
    except OSError:
        started = False
    if not started:
        return line
    shown = escape_control_characters(str(folder))
    return f"{line}; finished shards are kept: then finish with `{command} {shown}`"


def with_rules_options(command):
    """Give ``command`` an option of its own for every rules parameter a game marks ``option``
    (e.g. ``--removed-tiles``); their values reach it as the dict ``rule_options`` (the ones
    given, by parameter name)."""
    signature = inspect.signature(command, eval_str=True)
    extra: list[inspect.Parameter] = []
    names: list[str] = []
    for game in games().values():
        for parameter in game.rules_parameters:
            if not parameter.option or parameter.name in names:
                continue
            names.append(parameter.name)
            option = typer.Option(parameter.option_name,
                                  help=f"{parameter.help[:1].upper()}{parameter.help[1:]} "
                                       f"({game.title} rules parameter: "
                                       f"{_choice_text(parameter)}, default "
                                       f"{_default_text(parameter)}).")
            extra.append(inspect.Parameter(parameter.name, inspect.Parameter.KEYWORD_ONLY,
                                           default=None, annotation=Annotated[int | None, option]))

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        given = {name: kwargs.pop(name) for name in names if kwargs.get(name) is not None}
        for name in names:
            kwargs.pop(name, None)
        return command(*args, rule_options=given, **kwargs)

    kept = [p for p in signature.parameters.values() if p.name != "rule_options"]
    wrapper.__signature__ = signature.replace(parameters=kept + extra)
    return wrapper


def with_option_group(command):
    """Let several commands declare a group of options once: a parameter of ``command``
    annotated with a dataclass whose fields are typer options (``Annotated`` types with
    defaults) becomes those options, in that place of ``--help``; their values reach
    ``command`` as one instance of the dataclass under the parameter's name."""
    signature = inspect.signature(command, eval_str=True)
    parameters: list[inspect.Parameter] = []
    groups: dict[str, tuple[type, list[str]]] = {}
    for parameter in signature.parameters.values():
        group = parameter.annotation
        if not (isinstance(group, type) and dataclasses.is_dataclass(group)):
            parameters.append(parameter)
            continue
        hints = get_type_hints(group, include_extras=True)
        fields = dataclasses.fields(group)
        groups[parameter.name] = (group, [field.name for field in fields])
        parameters.extend(inspect.Parameter(field.name, parameter.kind, default=field.default,
                                            annotation=hints[field.name]) for field in fields)

    @functools.wraps(command)
    def wrapper(*args, **kwargs):
        for name, (group, fields) in groups.items():
            kwargs[name] = group(**{field: kwargs.pop(field) for field in fields
                                    if field in kwargs})
        return command(*args, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=parameters)
    return wrapper


def resolve_lineup(game: Game, strategies: list[str], players: int,
                   source: str = "--strategy") -> list[StrategySpec]:
    """One strategy spec per seat: a single name fills every seat, otherwise one per seat."""
    registry = game.strategies()
    specs = [parse_strategy(text, registry, source) for text in strategies]
    if len(specs) == 1:
        specs = specs * players
    if len(specs) != players:
        raise InputError(f"{source}: {len(specs)} strategies given for {players} players; "
                         f"give one for every seat or a single one for all")
    return specs


def game_rules_data(game_name: str, players: int, rule_options: dict[str, int] | None,
                    rule: list[str] | None, data_option) -> tuple[Game, dict[str, int], object]:
    """The game a command plays, checked against ``--players``, its rules from the options and
    its data (``--data``/``--tiles``): what every command that plays games reads first."""
    chosen = get_game(game_name)
    chosen.check_players(players, "--players")
    rules = rules_from_options(chosen, rule_options or {}, rule)
    return chosen, rules, chosen.load_data(data_path(data_option))


def rules_from_options(game: Game, rule_options: dict[str, int],
                       rule: list[str] | None) -> dict[str, int]:
    """The game's rules from the command line: the rules parameters' own options and any
    ``--rule NAME=VALUE``."""
    overrides: dict[str, int | str] = dict(rule_options)
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


def announce_compiling(game: Game, *methods: str, strategies=()) -> None:
    """Print one status line on stderr when calling ``game``'s ``methods`` with the strategies
    ``strategies`` (``StrategySpec``s or names) in the seats will first compile kernels
    (numba's on-disk cache is cold); nothing when the cache is warm."""
    from sim.compiling import compile_notice

    names = [getattr(strategy, "name", strategy) for strategy in strategies]
    notice = compile_notice(game, methods, names)
    if notice is not None:
        typer.echo(notice, err=True)


def data_path(path: Path | None) -> str | None:
    """The data option as the games take it (None: the shipped data)."""
    return str(path) if path else None
