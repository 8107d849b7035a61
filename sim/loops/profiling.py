"""Where a compiled game loop spends its time: ``sim bench --profile``.

The normal kernels carry no timers. A profile is a separate build of the same code: every
function on the way from the loop down to the functions being measured is re-bound
(``rebind``) to its callees' instrumented copies, and each measured function is wrapped in a
timer that adds the CPU's cycle counter difference and a call count to a counter array. The
instrumented build is compiled once per process (it is not cached on disk: the counter array's
address is a constant of its code). The timers are pasted into the callers, with the timed
function pasted in wherever the normal build pastes it, so timing adds no call; each timed
call pays for two reads of the cycle counter and a few counter updates (some 50 cycles),
which inflates phases of many short calls a little.

A game describes its phases as ``Phase(name, function, parent)``: ``function`` names the
compiled function (or a tuple of them) whose calls make the phase, as ``module.qualname``;
``parent`` is the phase it is listed under. Each phase's own time leaves out the timed phases
it calls, whatever the call path, so own times add up to the whole loop.
"""

from __future__ import annotations

import time
from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core.extending import intrinsic
from numba.core.registry import CPUDispatcher

from sim.jit import rebind


@intrinsic
def cycle_count(typingctx):
    """The CPU's cycle counter (``rdtsc`` on x86-64) as a uint64."""
    signature = types.uint64()

    def codegen(context, builder, sig, args):
        counter_type = ir.FunctionType(ir.IntType(64), [])
        counter = builder.module.declare_intrinsic("llvm.readcyclecounter", (), counter_type)
        return builder.call(counter, [])

    return signature, codegen


@intrinsic
def _load(typingctx, address, index):
    """``int64[address][index]``: counters at an address baked into the code."""
    signature = types.int64(types.int64, types.int64)

    def codegen(context, builder, sig, args):
        address, index = args
        pointer = builder.inttoptr(address, ir.IntType(64).as_pointer())
        return builder.load(builder.gep(pointer, [index]))

    return signature, codegen


@intrinsic
def _store(typingctx, address, index, value):
    """``int64[address][index] = value``."""
    signature = types.void(types.int64, types.int64, types.int64)

    def codegen(context, builder, sig, args):
        address, index, value = args
        pointer = builder.inttoptr(address, ir.IntType(64).as_pointer())
        builder.store(value, builder.gep(pointer, [index]))
        return context.get_dummy_value()

    return signature, codegen


@njit
def _add(address, index, value):
    _store(address, index, _load(address, index) + value)


@njit
def _cycles_now():
    return cycle_count()


Phase = namedtuple("Phase", ["name", "function", "parent"])


@dataclass
class PhaseTimes:
    """One line of a profile: a phase, its parent, calls, and seconds in it (with its children
    and without them)."""

    name: str
    parent: str | None
    depth: int
    calls: int
    seconds: float
    own_seconds: float


def _qualified(dispatcher) -> str:
    function = dispatcher.py_func
    return f"{function.__module__}.{function.__qualname__}"


def _global_names(code) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if hasattr(constant, "co_names"):
            names |= _global_names(constant)
    return names


# Counter columns per phase; the last row's first slot holds the phase running now (-1: none).
OWN, TOTAL, CALLS, COLUMNS = 0, 1, 2, 3


class Profiler:
    """Builds instrumented copies of a compiled loop and reads their counters.

    Each timed call adds its cycles to its phase's total and own time and takes them off the
    own time of the timed phase it was called from, so own times add up to the whole whatever
    the call path (a function called from several phases is one phase)."""

    def __init__(self, phases: list[Phase]):
        self.phases = list(phases)
        self.counters = np.zeros(COLUMNS * len(self.phases) + 1, dtype=np.int64)
        self._by_function = {}
        for index, phase in enumerate(self.phases):
            names = (phase.function,) if isinstance(phase.function, str) else phase.function
            for name in names:
                self._by_function[name] = index
        self._built: dict[int, object] = {}
        self.reset()

    def _timed(self, function, index, wrapped):
        address = self.counters.ctypes.data
        current = COLUMNS * len(self.phases)
        base = COLUMNS * index

        # No reference counting, a CPython wrapper only for a function Python calls, and
        # pasted into its callers, so that timing adds no call (a call passes every array of
        # the state tuples on the stack, which would cost more than many a timed function).
        @njit(_nrt=False, no_cpython_wrapper=not wrapped, no_cfunc_wrapper=True,
              forceinline=not wrapped)
        def timed(*args):
            caller = _load(address, current)
            _store(address, current, index)
            start = cycle_count()
            result = function(*args)
            elapsed = np.int64(cycle_count() - start)
            _store(address, current, caller)
            _add(address, base + OWN, elapsed)
            _add(address, base + TOTAL, elapsed)
            _add(address, base + CALLS, 1)
            if caller >= 0:
                _add(address, COLUMNS * caller + OWN, -elapsed)
            return result

        return timed

    def instrumented(self, dispatcher):
        """``dispatcher`` rebuilt so that every measured function it reaches is timed."""
        key = id(dispatcher)
        if key in self._built:
            return self._built[key]
        self._built[key] = dispatcher  # a recursion guard; replaced below
        function = dispatcher.py_func
        overrides = {}
        for name in _global_names(function.__code__):
            target = function.__globals__.get(name)
            if isinstance(target, CPUDispatcher):
                rebuilt = self.instrumented(target)
                if rebuilt is not target:
                    overrides[name] = rebuilt
        options = {key: value for key, value in dispatcher.targetoptions.items()
                   if key != "nopython"}
        index = self._by_function.get(_qualified(dispatcher))
        if index is not None and options.pop("inline", None):
            # numba cannot paste a function in under *args: LLVM does it instead.
            options["forceinline"] = True
        result = dispatcher
        if overrides or (index is not None and dispatcher.targetoptions.get("inline")):
            # The same compile options as the original (reference counting, inlining,
            # wrappers), but not cached: the timers' address is a constant of the code.
            result = njit(**options)(rebind(function, function.__name__, overrides))
        if index is not None:
            result = self._timed(result, index, wrapped=not options.get("no_cpython_wrapper"))
        self._built[key] = result
        return result

    def reset(self):
        """Zero the counters (e.g. after the compiling call)."""
        self.counters[:] = 0
        self.counters[-1] = -1

    def times(self) -> list[PhaseTimes]:
        """The phases in declaration order, cycles turned into seconds with a measured rate."""
        rate = cycles_per_second()
        table = self.counters[:-1].reshape(len(self.phases), COLUMNS)
        index_of = {phase.name: index for index, phase in enumerate(self.phases)}
        lines = []
        for index, phase in enumerate(self.phases):
            level, parent = 0, phase.parent
            while parent is not None:
                level += 1
                parent = self.phases[index_of[parent]].parent
            lines.append(PhaseTimes(phase.name, phase.parent, level, int(table[index, CALLS]),
                                    table[index, TOTAL] / rate, table[index, OWN] / rate))
        return lines


_RATE: list[float] = []


def cycles_per_second() -> float:
    """The cycle counter's rate, measured once per process against ``time.perf_counter``."""
    if not _RATE:
        _cycles_now()
        start_wall, start_cycles = time.perf_counter(), _cycles_now()
        time.sleep(0.2)
        _RATE.append((_cycles_now() - start_cycles) / (time.perf_counter() - start_wall))
    return _RATE[0]


def format_profile(times: list[PhaseTimes], games: int) -> list[str]:
    """Table lines: each phase indented under its parent, calls per game, microseconds per
    game with and without its children, and its own share of the loop's time."""
    total = sum(line.own_seconds for line in times)
    lines = [f"  {'phase':38s} {'calls/game':>10s} {'us/game':>9s} {'own us':>8s} {'own %':>6s}"]
    for line in times:
        label = "  " * line.depth + line.name
        lines.append(f"  {label:38s} {line.calls / games:10.1f} "
                     f"{1e6 * line.seconds / games:9.2f} {1e6 * line.own_seconds / games:8.2f} "
                     f"{100 * line.own_seconds / total if total else 0:6.1f}")
    return lines
