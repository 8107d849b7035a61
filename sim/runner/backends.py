"""Execution backends: where a batch's shard tasks are played and in what order their outputs
come back. The local backend plays with one worker in the main thread while a helper thread
encodes (``run_local`` pipelined), with more beside a pool of processes (``sim.pool``), the last
shards cut into pieces (``split_tail``) that are joined and encoded once all are in
(``join_pieces_as_they_come``); the dask backend submits them to a ``dask.distributed`` cluster
(``run_dask``). How the work overlaps: ``docs/architecture.md``, "How a batch is played"."""

from __future__ import annotations

import itertools
import queue
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future
from concurrent.futures import wait as futures_wait
from dataclasses import replace

import numpy as np

from sim.pool import discard_pools
from sim.runner.shards import (
    PlayedShard,
    ShardOutput,
    ShardTask,
    encode_shard,
    join_pieces,
    play_shard_games,
    play_shard_task,
)
from sim.signals import stop_signals_held


def _thread_holding_stop_signals(function, *arguments) -> threading.Thread:
    """A daemon thread running ``function``, started with SIGINT and SIGTERM held back in it
    (a thread inherits the mask of the thread that starts it): a Ctrl-C always goes to the main
    thread, never to a helper thread while the main thread is in a kernel (see
    ``sim.signals.stop_signals_held``)."""
    thread = threading.Thread(target=function, args=arguments, daemon=True,
                              name=f"sim-{function.__name__}")
    with stop_signals_held():
        thread.start()
    return thread


def _run_pipelined(tasks: Iterable[ShardTask]) -> Iterator[ShardOutput]:
    """One worker, the main thread: while a helper thread encodes shard k (rows, notable
    games' replays, Parquet), the kernel plays shard k + 1 (it releases the GIL). Outputs
    come in shard order; an error while encoding reaches the caller when that shard's output
    is due, so the shard is never written."""
    jobs: queue.Queue = queue.Queue()
    done: queue.Queue = queue.Queue()

    def encode_shards() -> None:
        while (played := jobs.get()) is not None:
            try:
                done.put((encode_shard(played), None))
            except BaseException as error:  # handed to the main thread, raised there
                done.put((None, error))

    def next_encoded() -> ShardOutput:
        output, error = done.get()
        if error is not None:
            raise error
        return output

    encoder = _thread_holding_stop_signals(encode_shards)
    waiting = 0
    try:
        for task in tasks:
            played = play_shard_games(task)
            if waiting:
                waiting -= 1
                yield next_encoded()
            jobs.put(played)
            waiting += 1
        while waiting:
            waiting -= 1
            yield next_encoded()
    finally:
        jobs.put(None)
        encoder.join()


def _run_with_pool(tasks: Iterable[ShardTask], workers: int,
                   executor) -> Iterator[ShardOutput]:
    """``workers`` processes: this one plays shards as in a one-worker run, and a pool of
    ``workers - 1`` loky processes plays the others, fed by a helper thread that hands a pool
    worker its next shard as soon as it finishes one (the kernel releases the GIL, so it does
    so while this process plays). This process starts playing at once; while the pool's
    processes start Python and load the kernels (about 1.4 s of a core each), as many helper
    threads here play shards in their place, each until the pool has sent back one shard per
    process (the cores would stand idle otherwise: a run of 300,000 fast games takes about 11 s
    on two). All take shards from one queue, so they end within a shard of each other."""
    tasks = iter(tasks)
    lock = threading.Lock()
    stop = threading.Event()
    finished: queue.Queue = queue.Queue()
    slots = workers - 1
    pool_warm = threading.Event()  # the pool has sent back ``slots`` shards

    def next_task() -> ShardTask | None:
        with lock:
            return None if stop.is_set() else next(tasks, None)

    def feed_pool() -> None:
        in_flight: set = set()
        returned = 0
        try:
            while True:
                while len(in_flight) < slots and (task := next_task()) is not None:
                    in_flight.add(executor.submit(play_shard_task, task))
                if not in_flight:
                    return
                ready, in_flight = futures_wait(in_flight, timeout=0.2,
                                                return_when=FIRST_COMPLETED)
                for future in ready:
                    finished.put(future)
                returned += len(ready)
                if returned >= slots:
                    pool_warm.set()
                if stop.is_set():
                    for future in in_flight:
                        future.cancel()
                    return
        except BaseException as error:  # handed to the main thread, raised there
            finished.put(error)
        finally:
            pool_warm.set()
            finished.put(None)

    def fill_in() -> None:
        try:
            while not pool_warm.is_set() and (task := next_task()) is not None:
                played: Future = Future()
                played.set_result(play_shard_task(task))
                finished.put(played)
        except BaseException as error:
            finished.put(error)
        finally:
            finished.put(None)

    helpers = [_thread_holding_stop_signals(feed_pool)]
    helpers += [_thread_holding_stop_signals(fill_in) for _ in range(slots)]
    helpers_left = len(helpers)

    def take(block: bool) -> Iterator[ShardOutput]:
        nonlocal helpers_left
        while helpers_left:
            try:
                item = finished.get(block=block)
            except queue.Empty:
                return
            if item is None:
                helpers_left -= 1
            elif isinstance(item, BaseException):
                raise item
            else:
                yield item.result()

    def stop_helpers(wait: bool) -> None:
        stop.set()  # no helper takes another shard (``next_task`` gives None)
        if wait:
            for helper in helpers:
                helper.join()

    try:
        while (task := next_task()) is not None:
            yield play_shard_task(task)
            yield from take(block=False)
        yield from take(block=True)
    except BaseException:
        # Stopped (an error, Ctrl-C): no waiting for a fill-in thread to finish the shard its
        # kernel is playing (a slow strategy's shard takes minutes; nothing will write it).
        # They are daemon threads and take no other shard.
        stop_helpers(wait=False)
        discard_pools()
        raise
    else:
        stop_helpers(wait=True)


# How many pieces each of a run's last shards is played in, per worker.
TAIL_PIECES_PER_WORKER = 2


def split_tail(tasks: Iterable[ShardTask], workers: int) -> Iterator[ShardTask]:
    """``tasks`` with the last ``workers`` shards each cut into ``TAIL_PIECES_PER_WORKER x
    workers`` pieces (fewer when a shard has fewer games). Workers take shards from one queue,
    so the first to run out of work waits for the others' last shard: half a shard of one
    core on average, 1% of a 2-worker run of 1,000,000 fast games and up to a whole shard of
    a slow strategy's. Small last pieces keep every worker busy nearly to the end."""
    held: list[ShardTask] = []
    for task in tasks:
        held.append(task)
        if len(held) > workers:
            yield held.pop(0)
    for task in held:
        pieces = min(task.games, TAIL_PIECES_PER_WORKER * workers)
        if pieces <= 1:
            yield task
            continue
        bounds = np.linspace(0, task.games, pieces + 1).astype(np.int64)
        for start, end in itertools.pairwise(bounds.tolist()):
            yield replace(task, first_game=task.first_game + start, games=end - start,
                          pieces=pieces)


def join_pieces_as_they_come(outputs: Iterable[ShardOutput | PlayedShard]
                             ) -> Iterator[ShardOutput]:
    """``outputs`` with the pieces of a shard held back until all are in, then joined and
    encoded into the shard's output."""
    waiting: dict[int, list[PlayedShard]] = {}
    try:
        for output in outputs:
            if isinstance(output, ShardOutput):
                yield output
                continue
            pieces = waiting.setdefault(output.task.index, [])
            pieces.append(output)
            if len(pieces) == output.task.pieces:
                del waiting[output.task.index]
                yield encode_shard(join_pieces(pieces))
    finally:
        # Closed early (an error, Ctrl-C): the run's workers stop now, not when collected.
        close = getattr(outputs, "close", None)
        if close is not None:
            close()


def run_local(tasks: Iterable[ShardTask], workers: int, pool) -> Iterator[ShardOutput]:
    """Outputs of the local backend: one worker pipelined, more with ``pool``
    (``sim.pool.start_pool`` with ``workers - 1`` processes), the last shards in pieces
    (``split_tail``)."""
    if workers == 1:
        yield from _run_pipelined(tasks)
    else:
        yield from join_pieces_as_they_come(
            _run_with_pool(split_tail(tasks, workers), workers, pool))


def run_dask(tasks: Iterable[ShardTask], workers: int,
              scheduler: str | None) -> Iterator[ShardOutput]:
    """Outputs of the dask backend: the tasks played on the cluster at ``scheduler`` (a local
    cluster of ``workers`` without it), in the order they finish."""
    from dask.distributed import as_completed

    from sim.distributed import dask_client

    # One client per batch (or the one a command keeps open); an unreachable scheduler is a
    # one-line error before anything is submitted.
    with dask_client(workers, scheduler) as client:
        # A bounded window of tasks in flight keeps memory flat in the number of shards.
        window = max(2, 2 * workers)
        pending = iter(tasks)
        futures = as_completed()
        for task in pending:
            futures.add(client.submit(play_shard_task, task, pure=False))
            if futures.count() >= window:
                break
        for future in futures:
            yield future.result()
            future.release()
            nxt = next(pending, None)
            if nxt is not None:
                futures.add(client.submit(play_shard_task, nxt, pure=False))

