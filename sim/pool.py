"""The local backend's worker processes: one loky pool, kept for the process, started as early
as the command line allows.

A pool process costs about a second of a core to start (Python, then numpy, numba, polars and
the game's kernels). Started inside the run, that second is taken from the games being played:
about 2.5% of a 2-worker run of 1,000,000 fast games. So ``sim run`` and ``sim sweep`` start the
pool before the command line itself is loaded (``start_pool_for_arguments``, called by the
``sim`` entry point with the raw arguments): its process imports on the core the loading
leaves idle, and the run finds it warm (``start_pool`` reuses a kept pool of its size).

This module imports only the standard library and loky, so that starting the pool costs the
command line nothing but loky's import.
"""

from __future__ import annotations

import atexit
import os
import signal
from typing import Any

from sim.signals import end_on_stop_signals, on_stop, stop_signals_held

# The commands that play batches on the local backend, and their options read here.
BATCH_COMMANDS = ("run", "sweep")
HELP_OPTIONS = ("--help", "-h")


def start_worker() -> None:
    """Worker initializer. A worker started while the parent held SIGINT and SIGTERM back
    inherits the mask. It ignores SIGINT (a Ctrl-C reaches the whole process group, and the
    parent decides: it stops its workers on the way out; a worker interrupted in its task
    printed a traceback) and is ended by SIGTERM. And loky's leak check is off: it restarts a
    worker whose memory grew 300 MB after its first task, which compiling or loading kernels
    does (a first run printed loky's warning and paid the worker's start again); without
    that check loky runs a full garbage collection after the first task that ends a second
    after the last one (about 75 ms: a worker holds numba's whole type system), which cost a
    worker playing 0.8 s shards 4% of its time. A worker's memory is bounded by the shard
    size."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    from joblib.externals.loky import process_executor

    if hasattr(process_executor, "_USE_PSUTIL"):
        process_executor._USE_PSUTIL = False
    if hasattr(process_executor, "_MEMORY_LEAK_CHECK_DELAY"):
        process_executor._MEMORY_LEAK_CHECK_DELAY = float("inf")


def warm_up(game_name: str | None) -> None:
    """A pool worker's first task: import what a shard task needs (numpy, numba, polars and
    the result store; not the runner itself, which imports this module: its own code loads
    in milliseconds with the first task) and, once the game is known, the game."""
    import polars  # noqa: F401 (imported for its start-up cost)

    import sim.seeding  # noqa: F401
    import sim.store  # noqa: F401
    from sim.games.registry import get_game

    if game_name is not None:
        get_game(game_name)


# The pool of the last multi-worker run, by size: the next run in this process (a sweep's
# points) reuses its warm processes. Not loky's reusable executor, which joblib's own
# (``sim tournament``) would then take over and fail on. Stopped at exit, before the
# interpreter tears down the modules loky's clean-up needs (it printed a traceback then).
_POOLS: dict[int, Any] = {}


def start_pool(processes: int, game_name: str | None = None):
    """The loky pool of ``processes`` processes, kept for the next call of the same size, each
    process sent a ``warm_up`` so that it starts Python and imports while the caller goes on.
    Its helper threads in this process and its processes start with SIGINT and SIGTERM held
    back (the processes take them again in ``start_worker``). Idle processes end after five
    minutes."""
    from multiprocessing import resource_tracker

    from joblib.externals.loky import ProcessPoolExecutor

    executor = _POOLS.get(processes)
    # Python 3.11's resource tracker, started on first need, unblocks SIGINT and SIGTERM in the
    # thread that starts it (it does not restore the mask): started inside the stretch below,
    # it let the pool's processes start with the signals open, and a Ctrl-C in their first
    # second printed a traceback. Started here first, it leaves the mask alone.
    resource_tracker.ensure_running()
    with stop_signals_held():
        if executor is None:
            discard_pools()
            executor = _POOLS[processes] = ProcessPoolExecutor(
                max_workers=processes, timeout=300, initializer=start_worker,
                env={"POLARS_MAX_THREADS": "1"})
        try:
            for _ in range(processes):
                executor.submit(warm_up, game_name)
        except RuntimeError:  # a pool broken or shut down since: a new one
            _POOLS.pop(processes, None)
            return start_pool(processes, game_name)
    return executor


def discard_pools() -> None:
    """Stop every kept pool's processes (after an error or Ctrl-C, for another size, or at
    exit)."""
    while _POOLS:
        _, executor = _POOLS.popitem()
        executor.shutdown(wait=False, kill_workers=True)


atexit.register(discard_pools)
on_stop(discard_pools)


def worker_count(workers: int) -> int:
    """The workers a run plays on: ``workers``, where 0 (the default) is every core."""
    return workers or os.cpu_count() or 1


# More worker processes than this per core only costs memory and start-up time (the games are
# CPU-bound); ``--workers 10000`` started processes until something killed it.
MAX_WORKERS_PER_CORE = 4


def worker_limit() -> int:
    """The most workers a command accepts: ``MAX_WORKERS_PER_CORE`` per core of this machine."""
    return MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)


def pool_size(workers: int, backend: str) -> int:
    """The pool processes a run of ``workers`` workers (0 = every core) on ``backend`` uses:
    one fewer than its workers on the local backend (the calling process plays as well), none
    on another backend."""
    return max(worker_count(workers) - 1, 0) if backend == "local" else 0


def _last_value(arguments: list[str], option: str) -> str | None:
    """The value the command line gives ``option`` (``--option value`` or ``--option=value``;
    the last one wins, as in the parser), None when absent."""
    value = None
    for position, argument in enumerate(arguments):
        if argument == option and position + 1 < len(arguments):
            value = arguments[position + 1]
        elif argument.startswith(option + "="):
            value = argument[len(option) + 1:]
    return value


def pool_processes_for_arguments(arguments: list[str]) -> int:
    """How many pool processes the command line ``arguments`` (without the program name) will
    ask for: ``--workers`` minus one for ``sim run`` and ``sim sweep`` on the local backend
    (``--workers 0``, the default, is every core), 0 for anything else or anything this
    quick reading cannot be sure of (the parser then reports it)."""
    if not arguments or arguments[0] not in BATCH_COMMANDS:
        return 0
    if any(argument in HELP_OPTIONS for argument in arguments):
        return 0
    try:
        workers = int(_last_value(arguments, "--workers") or 0)
    except ValueError:
        return 0
    if workers < 0 or workers > worker_limit():
        return 0  # refused by the command itself, in one line, before any process starts
    return pool_size(workers, _last_value(arguments, "--backend") or "local")


def start_pool_for_arguments(arguments: list[str]) -> None:
    """What the ``sim`` entry point does first, before the command line is loaded: install the
    handling of Ctrl-C and SIGTERM (``sim.signals.end_on_stop_signals``: from here on a signal
    at any moment ends the command in one line), then start the pool a batch command line will
    use (see the module's docstring); no pool for any other command."""
    end_on_stop_signals()
    processes = pool_processes_for_arguments(arguments)
    if processes:
        start_pool(processes)
