"""Ctrl-C (SIGINT) and SIGTERM: a ``sim`` command ends within a few seconds of either, at any
moment, with one line on stderr, exit code 128 + the signal (130, 143) and no worker process
left behind. This module imports nothing heavy: the entry point installs it before the command
line loads.

- ``end_on_stop_signals`` installs the handler. Inside a command (``command_running``) the first
  signal raises KeyboardInterrupt in the main thread, so the command stops its own way (a batch
  writes its manifest as interrupted) and says in one line what it kept (``say_interrupted``).
  Outside a command (loading or parsing the command line) there is nothing to keep: the process
  ends at once. Either way the process then ends through ``end_now`` (children stopped, exit
  code), not the interpreter's own ending, which could wait on a starting pool process or crash
  on a native thread the signal cut short. Later signals are ignored: the first one's ending is
  under way, and a second KeyboardInterrupt would only cut that ending short.
- A watcher thread wakes at every stop signal, also while the main thread cannot run Python (a
  compiled kernel, a blocking join): if the process is still alive ``GRACE_SECONDS`` later it
  ends it itself (the line, every child process stopped, the exit code). A batch stays whole
  even so: each file is written under a temporary name and renamed, and a killed writer's lock
  is taken over, so a SIGKILL at any moment resumes byte-identical.
- ``stop_signals_held`` holds the signals back over a stretch that must not be cut.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager, suppress

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
# How long the command may take to stop its own way before the watcher ends the process: long
# enough to write a manifest and stop a pool, short enough to be "a few seconds".
GRACE_SECONDS = 4.0
# How long stopped child processes get to end before they are killed.
CHILD_STOP_SECONDS = 1.0


class _StopState:
    """What the handler, the watcher thread and the command share (one per process)."""

    def __init__(self) -> None:
        self.installed = False
        self.signal: int | None = None  # the first stop signal received
        self.in_command = False
        self.held = 0  # depth of ``stop_signals_held`` in the main thread
        self.pending = False  # a signal arrived while held: raised when the stretch ends
        self.line: Callable[[], str] = lambda: "interrupted before the command started; " \
                                              "nothing was written"
        self.acted = False  # the main thread's handler has run
        self.said = False
        # Re-entrant: the handler may run in the main thread while it holds the lock.
        self.lock = threading.RLock()
        self.deadline_armed = False


_STATE = _StopState()


def exit_code(signal_number: int) -> int:
    """The exit code of a command ended by ``signal_number``: 128 + the number, as a shell
    reports a process the signal killed (SIGINT 130, SIGTERM 143)."""
    return 128 + int(signal_number)


def stop_signal_received() -> int | None:
    """The first SIGINT or SIGTERM this process received (None if none)."""
    return _STATE.signal


def stop_handlers_installed() -> bool:
    """Whether ``end_on_stop_signals`` runs this process's stop signals."""
    return _STATE.installed


def end_on_stop_signals() -> None:
    """Install the handling of SIGINT and SIGTERM described in the module docstring (from the
    main thread, once; later calls do nothing)."""
    if _STATE.installed or threading.current_thread() is not threading.main_thread():
        return
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    for number in STOP_SIGNALS:
        signal.signal(number, _on_stop_signal)
    # The C-level handler writes each signal's number here, in whichever thread the kernel
    # delivered it to, before the main thread runs any Python.
    signal.set_wakeup_fd(write_end, warn_on_full_buffer=False)
    threading.Thread(target=_watch, args=(read_end,), daemon=True, name="sim-stop-watcher").start()
    _STATE.installed = True


def _watch(read_end: int) -> None:
    """The watcher thread: SIGINT and SIGTERM unblocked here (so the kernel always has a thread
    to deliver them to), it arms the deadline at the first one."""
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, set(STOP_SIGNALS))
    while True:
        try:
            received = os.read(read_end, 64)
        except OSError:
            return
        if not received:
            return
        numbers = [number for number in received if number in STOP_SIGNALS]
        if not numbers:
            continue
        with _STATE.lock:
            if _STATE.signal is None:
                _STATE.signal = numbers[0]
            if _STATE.deadline_armed:
                continue
            _STATE.deadline_armed = True
        deadline = threading.Timer(GRACE_SECONDS, end_now)
        deadline.daemon = True  # a command that ends in time does not wait for it
        deadline.start()


def _on_stop_signal(number: int, frame) -> None:
    """The Python-level handler, run in the main thread: acts on the first signal only."""
    with _STATE.lock:
        if _STATE.signal is None:
            _STATE.signal = number
        if _STATE.acted:
            return
        _STATE.acted = True
    if _STATE.held:
        _STATE.pending = True
        return
    _stop_main_thread()


def _stop_main_thread() -> None:
    """Act on the first stop signal in the main thread: inside a command, a KeyboardInterrupt;
    outside one (loading or parsing the command line: nothing to keep), ``end_now``. Not the
    interpreter's own ending: loky's exit handler waits for a pool process still starting,
    which took over 4 s on a loaded machine."""
    if _STATE.in_command:
        raise KeyboardInterrupt
    end_now()


def say_interrupted(line: str | None = None, *, raw: bool = False) -> None:
    """Print the one line an interrupted command ends with (``line``, else the current
    command's, see ``interruption_line``) on stderr, once per process: the command's own ending
    and the watcher's never both print. ``raw`` writes to the file descriptor itself, past
    Python's buffered stream, which the thread cut short may hold."""
    with _STATE.lock:
        if _STATE.said:
            return
        _STATE.said = True
    if line is None:
        try:
            line = _STATE.line()
        except Exception:  # the line is a courtesy; the exit must happen anyway
            line = "interrupted"
    line = line.replace("\n", " ") + "\n"
    try:
        if raw:
            os.write(2, line.encode("utf-8", "replace"))
        else:
            sys.stderr.write(line)
            sys.stderr.flush()
    except (OSError, ValueError):
        pass


def mark_said() -> None:
    """Record that the command printed its interruption line itself."""
    with _STATE.lock:
        _STATE.said = True


@contextmanager
def interruption_line(line: Callable[[], str]):
    """Within the block, ``line()`` is what an interruption says (read when it happens: e.g.
    how many shards a batch kept by then)."""
    previous = _STATE.line
    _STATE.line = line
    try:
        yield
    finally:
        _STATE.line = previous


@contextmanager
def command_running():
    """Within the block (a command's body) the first stop signal raises KeyboardInterrupt in
    the main thread instead of ending the process at once."""
    previous = _STATE.in_command
    _STATE.in_command = True
    _STATE.line = lambda: "interrupted"
    try:
        yield
    finally:
        _STATE.in_command = previous
        _STATE.line = lambda: "interrupted after the command finished"


def _descendants() -> dict[int, str]:
    """Every process this one started, and theirs: pid -> command line. Read from /proc (psutil
    where there is none): a signal can land while the main thread is importing psutil itself,
    which then cannot be used."""
    if not os.path.isdir("/proc"):
        try:
            import psutil

            return {child.pid: " ".join(child.cmdline())
                    for child in psutil.Process().children(recursive=True)}
        except Exception:  # no way to find them here
            return {}
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            children.setdefault(parent, []).append(int(entry))
    found: dict[int, str] = {}
    waiting = list(children.get(os.getpid(), []))
    while waiting:
        pid = waiting.pop()
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
                found[pid] = cmdline.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            found[pid] = ""
        waiting.extend(children.get(pid, []))
    return found


def _running(pid: int) -> bool:
    """Whether ``pid`` still runs (an ended child of ours stays a zombie until reaped)."""
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return not os.path.isdir("/proc")


def stop_child_processes() -> None:
    """Stop every process this one started, and theirs (SIGTERM, then SIGKILL after
    ``CHILD_STOP_SECONDS``). Resource trackers are left to end on their own once their parents
    are gone: they ignore both signals and clean up what the workers registered."""
    workers = [pid for pid, command in _descendants().items()
               if "resource_tracker" not in command]
    for pid in workers:
        with suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + CHILD_STOP_SECONDS
    while (alive := [pid for pid in workers if _running(pid)]) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in alive:
        with suppress(OSError):
            os.kill(pid, signal.SIGKILL)


_STOP_HOOKS: list[Callable[[], None]] = []


def on_stop(hook: Callable[[], None]) -> None:
    """Run ``hook`` (quick, not waiting on anything) before a stop signal ends the process
    outside a command's own ending: ``sim.pool`` stops its kept pool this way (at an ordinary
    exit, loky's exit handler would wait for a worker still starting)."""
    _STOP_HOOKS.append(hook)


def _run_stop_hooks() -> None:
    for hook in _STOP_HOOKS:
        try:
            hook()
        except Exception:  # the process ends whatever a hook does
            pass


def _within(seconds: float, function: Callable[[], None]) -> bool:
    """Run ``function`` in a daemon thread for at most ``seconds``, whatever it raises (a
    module the main thread was importing when the signal came may be half there); whether it
    finished."""

    def quietly() -> None:
        with suppress(Exception):
            function()

    thread = threading.Thread(target=quietly, daemon=True, name="sim-stop-cleanup")
    thread.start()
    thread.join(seconds)
    return not thread.is_alive()


def _release_named_semaphores() -> None:
    """Run multiprocessing's exit finalizers (a pool's named semaphores are unlinked and
    unregistered there): the exit below skips them, and the resource tracker would then print
    a warning about each one as it cleans up."""
    from multiprocessing import util

    util._run_finalizers(0)


def end_now() -> None:
    """End the process for the stop signal received: its one line (unless said), every child
    process stopped, exit code 128 + the signal. Of the clean-up an ordinary exit does, only
    what cannot hold the process up runs, each part with a time limit: the main thread may be
    stuck in the very thing an exit handler would wait for, and the interpreter's own ending
    crashed ("Fatal Python error: PyThreadState_Get") when a native thread cut short by the
    signal called back into it. A command that stopped its own way ends here too."""
    number = _STATE.signal or signal.SIGINT
    main = threading.current_thread() is threading.main_thread()
    say_interrupted(raw=not main)
    if main:  # another thread could wait forever on a buffer the main thread holds
        for stream in (sys.stdout, sys.stderr):
            with suppress(Exception):
                stream.flush()
    _within(CHILD_STOP_SECONDS, _run_stop_hooks)
    stop_child_processes()
    if not _within(CHILD_STOP_SECONDS, _release_named_semaphores):
        # Cut short (the main thread held the tracker's lock): the trackers would print a
        # warning for each semaphore left; they go now, silently.
        for pid, command in _descendants().items():
            if "resource_tracker" in command:
                with suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
    os._exit(exit_code(number))


@contextmanager
def stop_signals_held():
    """Hold SIGINT and SIGTERM back over a stretch that must not be cut: a shard's files and
    its manifest entry, a final manifest, a kernel call (numba turns the strategy table's
    ``CompiledFunction`` values into addresses by calling back into Python as it unboxes the
    arguments, and a KeyboardInterrupt raised there comes out as a TypeError). A held signal
    takes effect when the stretch ends. Threads and processes started inside inherit the
    blocked mask, so a signal never lands in a helper thread."""
    main = threading.current_thread() is threading.main_thread()
    previous = None
    if hasattr(signal, "pthread_sigmask"):
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, set(STOP_SIGNALS))
    if main:
        _STATE.held += 1
    try:
        yield
    finally:
        if main:
            _STATE.held -= 1
        if previous is not None:
            # Without ``end_on_stop_signals`` a signal held by the mask is delivered here.
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if main and not _STATE.held and _STATE.pending:
            _STATE.pending = False
            _stop_main_thread()
