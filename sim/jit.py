"""How the project compiles its code: ``compiled`` (a function other compiled code calls),
``inlined`` (a small helper numba pastes into its callers) and ``entry`` (a kernel Python
calls).

Compile time and speed are set here, once:

* A function compiled for other compiled code only carries no CPython or C wrapper. numba
  otherwise builds, optimises and caches, for every specialization, a wrapper that unboxes its
  arguments from Python objects; with a state tuple of 30 arrays that wrapper is bigger than
  most functions and costs about a second of compile each. Calls from Python (tests, the
  Python drivers, a Python strategy calling a rules helper on its table) go to a twin
  dispatcher of the same code that has the wrapper, compiled (and cached) only when Python
  calls it.
* Such a function (not ``c_callable``) is never turned into machine code on its own: numba
  generates the machine code of every function's library, and a library holds its callees'
  code too, so each level of the call tree generated everything below it again (a quarter
  of a cold compile's LLVM time). Its optimised LLVM module is kept (and cached as bitcode)
  for linking into its callers, whose machine code contains it (``LinkingOnlyLibrary``).
  Leaving those modules unoptimised as well would halve the rest, but the strategies called
  through a table then run about 9% slower (measured on a shipped game's ``planner`` and
  ``expert``).
* ``refcounts=False`` (the default) compiles without numba's reference counting (NRT): a
  function that allocates no array and keeps none gets its arrays from its caller, who owns
  them, so counting each use is pure cost (one atomic increment and decrement per array per
  call and per tuple field read, about half of the engines' time). A function that allocates
  (``np.empty``, a new table) or returns an array says ``refcounts=True``. A function compiled
  without counting must not call one that returns a new array (it would leak it);
  ``tests/test_jit.py`` checks that whole shards allocate and free the same number of times.
* ``always_inline=True`` has LLVM paste the function into every compiled caller. A call
  passes every array of every tuple argument field by field (a table of 27 arrays is about
  250 machine words on the stack), so the hot functions that take a state tuple and run once
  per candidate move must not be called. The function is still compiled once, on its own;
  only LLVM copies it.
* ``c_callable=True`` keeps numba's C wrapper, so the function can be handed to compiled code
  as a value (``CompiledFunction``): a game loop then calls a big strategy through a table of
  function pointers instead of containing it, and the strategy is compiled (or loaded from
  the cache) on its own, only when a lineup plays it. The loop, cached once for every table
  of that signature, does not re-optimise the strategy as a part of itself, which is most of a
  cold compile. A call through the table passes every argument by value (a few hundred
  machine words for the state tuples), so only strategies that cost far more than that per
  decision are called this way.
* ``inlined`` helpers are pasted into their callers by numba itself, before typing: they are
  never compiled on their own for compiled callers, so they add no specialization. Only for
  small helpers: numba types the pasted code again at every call site, which for a big
  function costs more compile time than it saves.

With ``NUMBA_DISABLE_JIT=1`` each returns the plain Python function (with ``py_func`` pointing
to itself, as a dispatcher's does), so the same code runs, slowly, in Python (for profiling).
"""

from __future__ import annotations

import types
import warnings

import numpy as np
from llvmlite import binding as llvm
from numba import njit, typeof
from numba.core import config
from numba.core.caching import CompileResultCacheImpl, FunctionCache
from numba.core.codegen import JITCodeLibrary
from numba.core.compiler import Compiler, CompileResult
from numba.core.errors import NumbaExperimentalFeatureWarning
from numba.core.registry import CPUDispatcher
from numba.core.types.function_type import WrapperAddressProtocol
from numba.experimental.function_type import _get_wrapper_address

# First-class functions (``CompiledFunction``) have been in numba since 0.49, and its own test
# suite caches callers of them; without this its "experimental" warning prints on every command.
warnings.filterwarnings("ignore", category=NumbaExperimentalFeatureWarning,
                        message="First-class function type feature is experimental")

PYTHON_ENTRY_SUFFIX = "__from_python"


def _plain(function):
    """The function itself, for ``NUMBA_DISABLE_JIT=1``."""
    function.py_func = function
    return function


# The cache payload kind of a linking-only library (numba's own are "object" and "bitcode").
LINKING_ONLY = "sim-linking-only"


class _EnvironmentsNotSet:
    """What a linking-only library shows as its codegen: numba's own, except that an
    environment is not written into machine code that does not exist (the caller's code, which
    contains this function's, is where numba sets it)."""

    def __init__(self, codegen):
        self._codegen = codegen

    def set_env(self, env_name, env):
        pass

    def __getattr__(self, name):
        return getattr(self._codegen, name)


class LinkingOnlyLibrary(JITCodeLibrary):
    """The code library of a function only other compiled code calls (no CPython or C
    wrapper). numba turns every function's library into machine code, its callees' code
    included, though such a function's code is only ever linked into its callers' LLVM modules
    and turned into machine code there, with them. This library stops at the optimised LLVM
    module (see the module doc). Cached as that module's bitcode."""

    @property
    def codegen(self):
        return _EnvironmentsNotSet(self._codegen)

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        return 0

    def serialize_using_object_code(self):
        self._ensure_finalized()
        return (self.name, LINKING_ONLY, self._get_module_for_linking().as_bitcode())


class _LinkingOnlyCompiler(Compiler):
    """numba's compiler, lowering into a ``LinkingOnlyLibrary``."""

    def compile_extra(self, func):
        if self.state.library is None:
            self.state.library = LinkingOnlyLibrary(self.state.targetctx.codegen(),
                                                    func.__qualname__)
            self.state.library.enable_object_caching()
        return super().compile_extra(func)


class _LinkingOnlyCacheImpl(CompileResultCacheImpl):
    """numba's cache of compile results, rebuilding a ``LinkingOnlyLibrary`` from its bitcode
    (as ``CompileResult._rebuild`` does for the other kinds)."""

    def rebuild(self, target_context, payload):
        (name, kind, data), fndesc, env, signature, objectmode, lifted, typeann, \
            reload_init, referenced_envs = payload
        if kind != LINKING_ONLY:
            return super().rebuild(target_context, payload)
        for function in reload_init or ():
            function()
        library = LinkingOnlyLibrary(target_context.codegen(), name)
        library._final_module = llvm.parse_bitcode(data)
        library._finalize_final_module()
        entry_point = target_context.get_executable(library, fndesc, env)
        return CompileResult(
            target_context=target_context, typing_context=target_context.typing_context,
            library=library, environment=env, entry_point=entry_point, fndesc=fndesc,
            type_annotation=typeann, signature=signature, objectmode=objectmode,
            lifted=lifted, typing_error=None, call_helper=None, metadata=None,
            reload_init=reload_init, referenced_envs=referenced_envs)


class _LinkingOnlyCache(FunctionCache):
    _impl_class = _LinkingOnlyCacheImpl


class CompiledOnlyDispatcher(CPUDispatcher):
    """A dispatcher whose own specializations have no CPython wrapper; a call from Python goes
    to ``python_entry``, an ordinary cached dispatcher of the same code. Without the C wrapper
    either (not ``c_callable``), its code is only linked into its callers
    (``LinkingOnlyLibrary``)."""

    python_entry = None

    def __init__(self, py_func, locals=None, targetoptions=None):
        # Decided here, from the options, for the compiler and the cache alike (numba also
        # rebuilds a dispatcher from these three arguments).
        self.linking_only = bool((targetoptions or {}).get("no_cfunc_wrapper"))
        super().__init__(py_func, locals=locals, targetoptions=targetoptions,
                         pipeline_class=_LinkingOnlyCompiler if self.linking_only else Compiler)

    def __call__(self, *args, **kwargs):
        return self.python_entry(*args, **kwargs)

    def enable_caching(self):
        if self.linking_only:
            self._cache = _LinkingOnlyCache(self.py_func)
        else:
            super().enable_caching()


def _twin(function):
    """The same function under another qualified name, so its cache files are its own (numba
    names cache files by module, qualified name and line)."""
    twin = types.FunctionType(function.__code__, function.__globals__, function.__name__,
                              function.__defaults__, function.__closure__)
    twin.__qualname__ = function.__qualname__ + PYTHON_ENTRY_SUFFIX
    twin.__module__ = function.__module__
    twin.__doc__ = function.__doc__
    twin.__kwdefaults__ = function.__kwdefaults__
    return twin


def compiled(function=None, *, refcounts: bool = False, always_inline: bool = False,
             c_callable: bool = False):
    """Decorator: compile ``function`` (cached on disk) for calls from compiled code; see the
    module doc for ``refcounts``, ``always_inline`` and ``c_callable``. ``@compiled`` or
    ``@compiled(refcounts=True)``."""

    def decorate(function):
        if config.DISABLE_JIT:
            return _plain(function)
        # Both set either way: numba otherwise inherits the caller's settings.
        options = {"nopython": True, "no_cpython_wrapper": True,
                   "no_cfunc_wrapper": not c_callable, "_nrt": refcounts,
                   "forceinline": always_inline}
        dispatcher = CompiledOnlyDispatcher(py_func=function, locals={}, targetoptions=options)
        dispatcher.enable_caching()
        dispatcher.python_entry = njit(cache=True)(_twin(function))
        dispatcher.__doc__ = function.__doc__
        return dispatcher

    if function is not None:
        return decorate(function)
    return decorate


def entry(function):
    """Decorator: a kernel Python calls (a shard of games in one call), compiled without
    reference counting like ``compiled`` but with the CPython wrapper. It releases the GIL
    while it plays (``nogil``): the runner's other threads (a shard's encoding, the worker
    pool's queues) go on meanwhile."""
    if config.DISABLE_JIT:
        return _plain(function)
    return njit(cache=True, _nrt=False, nogil=True)(function)


def inlined(function):
    """Decorator: a small helper numba inlines into every compiled caller (and compiles on
    its own, cached, only when Python calls it)."""
    if config.DISABLE_JIT:
        return _plain(function)
    return njit(cache=True, inline="always")(function)


class CompiledFunction(WrapperAddressProtocol):
    """A compiled function handed to compiled code as a value, for one numba signature
    (numba's first-class functions): ``dispatcher`` (compiled with ``c_callable=True``, or a
    plain ``numba.njit`` function) is compiled for ``signature``, or loaded from its cache, the
    first time the value is passed to compiled code."""

    def __init__(self, dispatcher, signature):
        self.dispatcher = dispatcher
        self._signature = signature
        self._address = None

    def __wrapper_address__(self):
        # Asked each time the value is passed to compiled code; the dispatcher keeps the
        # compiled function (and so the address) alive for the process.
        if self._address is None:
            self._address = _get_wrapper_address(self.dispatcher, self._signature)
        return self._address

    def signature(self):
        """The numba signature the function is called with."""
        return self._signature

    def __call__(self, *args):
        # Python calls it only with NUMBA_DISABLE_JIT=1, where the table's functions are plain.
        return self.dispatcher(*args)


_TYPES: dict = {}


def _fingerprint(value):
    """What numba's type of ``value`` depends on, cheap to compute: an array's dtype, number
    of dimensions and layout flags, a tuple's class and fields, otherwise the Python type."""
    if isinstance(value, np.ndarray):
        flags = value.flags
        return (value.dtype.str, value.ndim, flags.c_contiguous, flags.f_contiguous,
                flags.writeable, flags.aligned)
    if isinstance(value, tuple):
        return (type(value), tuple(_fingerprint(field) for field in value))
    return type(value)


def typeof_cached(value):
    """``numba.typeof(value)``, remembered by ``value``'s fingerprint: typing a state tuple of
    thirty arrays takes numba about a millisecond, and a shard asks for it several times."""
    key = _fingerprint(value)
    found = _TYPES.get(key)
    if found is None:
        found = _TYPES[key] = typeof(value)
    return found


_FUNCTIONS: dict = {}


def compiled_function(dispatcher, signature) -> CompiledFunction:
    """The ``CompiledFunction`` of ``dispatcher`` for ``signature``, one per pair for the
    process (its address is then looked up once)."""
    # Keyed by identities: numba interns its types, and hashing a signature of thirty-array
    # tuples walks every field (about 80 µs, and a shard's replays ask dozens of times). The
    # entry keeps its signature's types alive, so their identities are not reused.
    key = (id(dispatcher), id(signature.return_type), tuple(map(id, signature.args)))
    found = _FUNCTIONS.get(key)
    if found is None or found.dispatcher is not dispatcher:
        found = _FUNCTIONS[key] = CompiledFunction(dispatcher, signature)
    return found


def rebind(function, name: str, overrides: dict):
    """A new plain function with ``function``'s code and globals updated by ``overrides``: how
    a game loop is re-compiled for compiled user strategies, how a Python driver runs the very
    code of the compiled loop, and how the search is specialised to one game's decisions."""
    namespace = dict(function.__globals__)
    namespace.update(overrides)
    return types.FunctionType(function.__code__, namespace, name, function.__defaults__,
                              function.__closure__)
