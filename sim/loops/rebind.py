"""Re-binding a compiled function's code to other globals: how a game loop is re-compiled for
compiled user strategies, and how a Python driver runs the very code of the compiled loop."""

from __future__ import annotations

import types


def rebind(function, name: str, overrides: dict):
    """A new plain function with ``function``'s code and globals updated by ``overrides``."""
    namespace = dict(function.__globals__)
    namespace.update(overrides)
    return types.FunctionType(function.__code__, namespace, name, function.__defaults__,
                              function.__closure__)
