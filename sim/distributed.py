"""Playing on a dask.distributed cluster: the backend choice every command that plays games
shares, one client per command, and chunks of work gathered in their own order.

A command picks ``--backend local`` (its own worker processes) or ``--backend dask``: without
``--scheduler`` a ``LocalCluster`` of ``workers`` single-threaded processes on 127.0.0.1 (no
dashboard), with it ``Client(scheduler)``. What plays many designs for one command (a ladder's
two tournaments, a league's pairs, a tuning's trials) opens the client once
(``backend_session``) and every call inside reuses it (``dask_client`` hands out the open one):
starting a cluster takes seconds. Commands that play batches (``sim.runner``, which connects
to a scheduler per batch) get the address of one cluster kept up for all of them
(``batch_scheduler``).

Results never depend on the backend: a chunk is a pure function of its seeds, and
``map_in_order`` returns the chunks in the order they were given, whichever finished first.
"""

from __future__ import annotations

import logging
import signal
import socket
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from sim.errors import InputError

BACKENDS = ("local", "dask")
# How long to wait for a scheduler that accepts connections to answer (dask's own default is
# also 30 s); a port nobody listens on is refused at once by the check before it.
CONNECT_TIMEOUT = "30s"
# A host that drops packets instead of refusing them: give up on it after this many seconds.
REACH_SECONDS = 10.0

# The client a ``dask_client`` block has open, with the key it was opened for.
_OPEN_CLIENT: ContextVar[tuple[tuple, Any] | None] = ContextVar("sim_dask_client", default=None)


def check_backend(backend: str, scheduler: str | None) -> None:
    """A one-line InputError for a backend that is not ``local`` or ``dask``, or a
    ``--scheduler`` given without ``--backend dask``."""
    if backend not in BACKENDS:
        raise InputError(f"--backend: '{backend}' is not one of {', '.join(BACKENDS)}")
    if scheduler is not None and backend != "dask":
        raise InputError(f"--scheduler: only with --backend dask (got --backend {backend} and "
                         f"--scheduler {scheduler})")


def _check_reachable(scheduler: str) -> None:
    """Fail at once, in one line, when nothing listens at a TCP scheduler address (dask itself
    retries a refused connection until its timeout, then raises a traceback-sized error)."""
    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(scheduler)
        if protocol not in ("tcp", "tls"):
            return  # other transports are dask's to check
        host, port = parse_host_port(location)
    except ValueError as error:
        raise InputError(f"--scheduler: '{scheduler}' is not a scheduler address "
                         f"(tcp://host:port): {error}") from None
    try:
        with socket.create_connection((host, port), timeout=REACH_SECONDS):
            pass
    except (OSError, OverflowError) as error:
        reason = getattr(error, "strerror", None) or str(error) or type(error).__name__
        raise InputError(f"--scheduler: cannot reach a dask scheduler at {scheduler} "
                         f"({reason})") from None


@contextmanager
def _sigint_blocked() -> Iterator[None]:
    """SIGINT blocked in this thread over the block: the threads and processes a LocalCluster
    starts in it inherit the mask and keep it, so a Ctrl-C, which a terminal sends to the whole
    process group, does not reach its workers (each printed its own traceback); the command
    decides and stops them on its way out. SIGTERM still ends them, and this process still
    takes the Ctrl-C (``sim.signals`` keeps a thread open to it)."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _client_key(workers: int, scheduler: str | None) -> tuple:
    """What makes two requests for a client the same: the scheduler address, or for a local
    cluster its number of workers."""
    return ("scheduler", scheduler) if scheduler else ("local", workers)


@contextmanager
def dask_client(workers: int, scheduler: str | None = None) -> Iterator[Any]:
    """A ``dask.distributed.Client``: to ``scheduler`` when given, else to a new LocalCluster of
    ``workers`` single-threaded processes (127.0.0.1, no dashboard). Inside a block that has one
    open for the same scheduler (or the same local worker count), that client, not a second
    one. The client and its cluster are closed when the block that opened them ends. A
    scheduler that cannot be reached is a one-line InputError naming ``--scheduler``."""
    key = _client_key(workers, scheduler)
    current = _OPEN_CLIENT.get()
    if current is not None and current[0] == key:
        yield current[1]
        return
    from dask.distributed import Client, LocalCluster

    cluster = None
    if scheduler:
        _check_reachable(scheduler)
        try:
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, ValueError) as error:  # a timeout, or an address dask cannot use
            raise InputError(f"--scheduler: cannot reach a dask scheduler at {scheduler} "
                             f"({' '.join(str(error).split())})") from None
    else:
        if workers < 1:
            raise InputError(f"--workers: must be at least 1, got {workers}")
        # Only the workers' errors reach the terminal: on Ctrl-C every worker otherwise warns
        # about the chunk it was playing when it was stopped.
        with _sigint_blocked():
            cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   silence_logs=logging.ERROR)
            client = Client(cluster)
    token = _OPEN_CLIENT.set((key, client))
    try:
        yield client
    finally:
        _OPEN_CLIENT.reset(token)
        client.close()
        if cluster is not None:
            cluster.close()


@contextmanager
def backend_session(backend: str, workers: int, scheduler: str | None = None) -> Iterator[None]:
    """The backend of one command, checked (``check_backend``); with ``dask``, one client open
    for the whole block, which every ``dask_client`` inside it reuses. Nothing to open for
    ``local``."""
    check_backend(backend, scheduler)
    if backend != "dask":
        yield
        return
    with dask_client(workers, scheduler):
        yield


@contextmanager
def batch_scheduler(backend: str, workers: int, scheduler: str | None = None
                    ) -> Iterator[str | None]:
    """The ``scheduler`` to give the batch runner (``sim.runner.run_batch``, which connects a
    client of its own for every batch) in a command that runs many batches: for ``dask``, the
    address of one cluster kept up for the whole block (a LocalCluster of ``workers`` processes
    started here, or ``scheduler`` once it is shown to be reachable), so the batches do not
    each start a cluster; None for ``local``."""
    check_backend(backend, scheduler)
    if backend != "dask":
        yield None
        return
    with dask_client(workers, scheduler) as client:
        yield scheduler or client.scheduler.address


def worker_threads(client: Any) -> int:
    """How many tasks the cluster runs at once (its workers' threads; at least 1)."""
    return max(1, sum(client.nthreads().values()))


def map_in_order(client: Any, function: Callable, tasks: Sequence[tuple],
                 done: Callable[[int, Any], None] | None = None) -> list:
    """``function(*task)`` of every task on the cluster, as a list in the order of ``tasks``
    (whichever finished first). ``done(index, result)`` is called as each one finishes, in the
    order they finish. The futures are cancelled if anything goes wrong (or on Ctrl-C)."""
    from dask.distributed import as_completed

    futures = [client.submit(function, *task, pure=False) for task in tasks]
    index_of = {future.key: index for index, future in enumerate(futures)}
    results: list = [None] * len(futures)
    try:
        for future in as_completed(futures):
            index = index_of[future.key]
            results[index] = future.result()
            if done is not None:
                done(index, results[index])
    finally:
        unfinished = [future for future in futures if not future.done()]
        if unfinished:
            client.cancel(unfinished)
    return results
