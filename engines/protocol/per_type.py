"""Compiled helpers that compile once per argument *type*, not once per constant.

Numba types a constant that one compiled function passes to another as a literal
(``Literal[int](52)``, ``Literal[bool](True)``), and a plain ``@njit`` callee is compiled again
for every distinct constant a call site passes: a shared helper such as the evaluator's
``_finish`` or the dice checker's ``condition_met``, called with a different constant from each
rules core and policy, was compiled (and then optimized again inside every table loop that
links it) up to eight times. Numba's extension API already has the behaviour we want:
an ``@overload`` is typed with the arguments' non-literal types first
(``prefer_literal=False``, its default), so a helper registered that way is compiled once per
argument type, whatever the constants. LLVM still sees the constants where it inlines the call,
so the machine code of the callers is as before, and the games are the same.

:func:`njit_per_type` is that registration, used instead of ``@njit(cache=True)`` on the
helpers that compiled callers call with constants. Compiled callers get the overload, whose
implementation is cached on disk like any ``cache=True`` function (one compile per machine and
argument type). From Python the name calls an ordinary ``@njit`` dispatcher of the same function
(tests, a step API's text), compiled in the calling process and not cached: two dispatchers
caching one function into the same cache files load each other's code and crash.

Source: Numba's documented extension API (``numba.extending.overload``, "High-level extension
API"; ``prefer_literal``: "non-literal types are tried first").
"""

from __future__ import annotations

import functools
import inspect

from numba import njit
from numba.extending import overload

__all__ = ["njit_per_type"]


def njit_per_type(function):
    """Decorator: compile ``function`` (nopython) once per tuple of argument types when a
    compiled function calls it (cached on disk), and through an ``@njit`` dispatcher compiled in
    the calling process when Python calls it.

    Returns a plain Python function with ``function``'s name, docstring and signature;
    ``.py_func`` is ``function`` and ``.dispatcher`` the dispatcher Python calls go to.
    Not for functions passed around as values (a policy handed to the game loop must stay a
    dispatcher) nor for ``inline="always"`` helpers (inlined where they are called: no copies).
    Raises what Numba raises when it types or compiles ``function``.
    """
    from_python = njit(function)

    @functools.wraps(function)
    def per_type(*args, **kwargs):
        return from_python(*args, **kwargs)

    def implementation(*args, **kwargs):
        return function

    implementation.__signature__ = inspect.signature(function)
    overload(per_type, prefer_literal=False, jit_options={"cache": True})(implementation)
    per_type.py_func = function
    per_type.dispatcher = from_python
    return per_type
