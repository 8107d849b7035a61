"""Holding Ctrl-C (SIGINT) and SIGTERM back while a stretch of Python must not be cut, in a
module that imports nothing heavy (the worker pool is started with it before the CLI loads)."""

from __future__ import annotations

import signal
from contextlib import contextmanager


@contextmanager
def stop_signals_held():
    """Hold SIGINT and SIGTERM back while Python calls a kernel: numba turns the strategy
    table's ``CompiledFunction`` values into addresses by calling back into Python as it
    unboxes the arguments, and a KeyboardInterrupt raised there comes out as a TypeError. A
    held signal is delivered when the kernel returns (compiled code cannot be interrupted
    before that anyway). A thread started inside inherits the mask."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)
