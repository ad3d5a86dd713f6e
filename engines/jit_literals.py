"""Compile the rules cores' and the policies' kernels once per argument type, not once per
constant.

Numba types a constant passed from one compiled function to another as a literal
(``Literal[int](52)``, ``Literal[bool](True)``) and compiles the callee again for every
distinct constant a call site passes: ``numba.core.types.Dispatcher.get_call_type`` compiles
exactly the argument types it is given, literals included (Numba 0.59-0.62). Across the rules
cores that made 43 of the 88 compiled specializations of a River Rats table literal copies
(the evaluator's ``_finish`` eight times, ``_end_game`` five), and the River Rats heuristic
family compiled its planner three times, once per constant ``peek``/``greedy`` flag. Every
copy is compiled, and then compiled again as part of every table loop that links it
(``agents.loop.play_games`` per game and kind): the first River Rats table with ``pimc-fast``
in a seat, empty kernel cache, one compiling process, took 76.9 s where 43.7 s do with one copy
each (``benchmarks/compile_time.py --peer literals``; docs/benchmarks.md, "One compile per
argument type, not per constant").

:func:`install` makes the dispatchers of the modules :func:`erases_literals` names (the
rules cores and their relabelling, the poker evaluator and tables, the dice checker, chance and
dealing, the games' policy modules and their features; not a module that sets
:data:`KEEP_FLAG`, as ``agents.lure`` does) compile with the non-literal type of
each argument (``numba.types.unliteral``): one specialization per argument type, the same
machine code for every constant, so the same games. LLVM still propagates the constants where
it inlines a call. Modules whose kernels specialize on a literal game id or policy kind
(``agents.loop``, ``agents.dispatch``, ``agents.search``, ``agents.net``,
``engines.protocol.kernels``, ...) and every function outside ``engines`` and ``agents`` (user
policies, notebooks) keep Numba's behaviour. :mod:`engines` installs it before Numba compiles
anything (an import hook on ``numba.core.dispatcher``), in every process that imports it.
"""

from __future__ import annotations

import functools
import re
import sys

__all__ = ["erases_literals", "install"]

_FIXED = re.compile(
    r"engines\.(poker|dice)\.\w+"                    # the evaluator and the dice checker
    r"|engines\.(?!protocol\.)\w+\.(core|relabel)"   # a game's rules core and relabelling
    r"|engines\.protocol\.(chance|deal|borrow)")     # chance, dealing, borrowed arrays


KEEP_FLAG = "KEEPS_LITERALS"
"""Name of a module-level constant: a module among those :func:`erases_literals` names that
sets it True keeps Numba's literal specialization (its kernels run measurably faster compiled
per constant: the module says why beside the flag)."""


def erases_literals(module: str) -> bool:
    """True when the compiled functions of ``module`` (a dotted module name) are compiled with
    non-literal argument types: the modules the module docstring names, and
    ``agents.<game>`` / ``agents.<game>_features`` for every registered game
    (:data:`engines.names.REGISTRY`), unless the module, imported, sets :data:`KEEP_FLAG`."""
    if getattr(sys.modules.get(module), KEEP_FLAG, False):
        return False
    return _named(module)


@functools.cache
def _named(module: str) -> bool:
    """``module`` is one the module docstring names (by name alone)."""
    if _FIXED.fullmatch(module):
        return True
    if not module.startswith("agents."):
        return False
    from engines.names import REGISTRY

    name = module.removeprefix("agents.").removesuffix("_features")
    return name in REGISTRY


def install(dispatcher_module=None) -> bool:
    """Wrap ``Dispatcher.get_call_template`` of ``numba.core.dispatcher`` (or of
    ``dispatcher_module``, that module object) so that a call from compiled code to a function
    of a module :func:`erases_literals` names is typed and compiled with ``types.unliteral`` of
    each argument. Idempotent; returns True if it wrapped the method now."""
    from numba.core import types

    if dispatcher_module is None:
        from numba.core import dispatcher as dispatcher_module
    cls = dispatcher_module.Dispatcher
    original = cls.get_call_template
    if getattr(original, "_boardlab_unliteral", False):
        return False

    @functools.wraps(original)
    def get_call_template(self, args, kws):
        if erases_literals(getattr(self.py_func, "__module__", "") or ""):
            args = tuple(types.unliteral(a) for a in args)
            kws = {k: types.unliteral(v) for k, v in kws.items()}
        return original(self, args, kws)

    get_call_template._boardlab_unliteral = True
    cls.get_call_template = get_call_template
    return True
