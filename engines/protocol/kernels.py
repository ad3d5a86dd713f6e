"""The protocol kernels of every game behind one compiled name each, chosen by a game id.

Generic compiled code (the game loop of :mod:`agents.loop`, the search agents) is written once
against these functions, ``g_legal_actions(game, s, out)`` and so on, where ``game`` is the id
of :data:`engines.protocol.GAME_IDS`. The caller makes ``game`` a compile-time constant with
``numba.literally(game)``; each ``g_<kernel>`` below, made by one factory from the kernel's
name and parameters (:data:`KERNELS`), then compiles to a direct call of the kernel of that
game's core (:func:`engines.protocol.direct.direct_call_by_game`; inlined by LLVM). So one
source compiles into one specialization per game, each cached on disk by Numba like any
``cache=True`` function, and a run that uses only River Rats compiles only River Rats.

Kernel contracts: :mod:`engines.protocol`.
"""

from __future__ import annotations

import importlib
import inspect

from numba import types
from numba.core import errors
from numba.extending import overload

from engines.protocol import GAME_NAMES
from engines.protocol.direct import direct_call_by_game

__all__ = ["g_init_state", "g_legal_actions", "g_apply_action", "g_is_terminal", "g_returns",
           "g_current_player", "g_num_players", "g_observe", "g_information_state",
           "g_observation_tensor", "g_determinize", "g_observed_action", "g_inventory",
           "g_outcome", "g_progress", "g_sizes", "KERNELS", "core_for_id", "call_literal",
           "call_literals"]

KERNELS: dict[str, tuple[str, ...]] = {}
"""The protocol kernels every rules core offers, each with its parameters in order (the table
of :mod:`engines.protocol.game`; ``tests/test_protocol.py`` checks every core against it),
filled by the ``g_<kernel>`` definitions below."""


def core_for_id(game_id: int):
    """The rules core module of game id ``game_id``."""
    return importlib.import_module(f"engines.{GAME_NAMES[game_id]}.core")


def _core(game):
    if not isinstance(game, types.IntegerLiteral):
        return None
    return core_for_id(game.literal_value)


_OPTS = {"cache": True}


def _by_game_id(name: str, params: tuple[str, ...]):
    """``g_<name>(game, *params)``: kernel ``name`` of the game with id ``game``, listed in
    :data:`KERNELS`. Given a literal ``game``, a call compiles to a direct call of
    ``engines.<game>.core.<name>`` (:func:`engines.protocol.direct.direct_call_by_game`: no compiled
    module between the caller and the kernel); given anything else, Numba finds no
    implementation."""
    def dispatch(game, *args):
        pass

    dispatch.__name__ = dispatch.__qualname__ = f"g_{name}"
    dispatch.__doc__ = (f"``{name}({', '.join(params)})`` of game ``game`` (its id in "
                        f":data:`engines.protocol.GAME_IDS`, made a compile-time constant with "
                        f"``numba.literally``); contract: :mod:`engines.protocol.game`.")
    dispatch.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
         for n in ("game", *params)])
    KERNELS[name] = params
    return direct_call_by_game(dispatch, lambda game_id: getattr(core_for_id(game_id), name))


g_init_state = _by_game_id("init_state", ("cfg", "seed", "out"))
g_legal_actions = _by_game_id("legal_actions", ("s", "out"))
g_apply_action = _by_game_id("apply_action", ("s", "a"))
g_is_terminal = _by_game_id("is_terminal", ("s",))
g_returns = _by_game_id("returns", ("s", "out"))
g_current_player = _by_game_id("current_player", ("s",))
g_num_players = _by_game_id("num_players", ("s",))
g_observe = _by_game_id("observe", ("s", "p", "out"))
g_information_state = _by_game_id("information_state", ("s", "p", "out"))
g_observation_tensor = _by_game_id("observation_tensor", ("s", "p", "out"))
g_determinize = _by_game_id("determinize", ("s", "p", "seed", "out"))
g_observed_action = _by_game_id("observed_action", ("s", "a", "p"))
g_inventory = _by_game_id("inventory", ("s", "out"))
g_outcome = _by_game_id("outcome", ("s", "out"))
g_progress = _by_game_id("progress", ("s", "level"))


def g_sizes(game):
    """``(STATE_SIZE, MAX_LEGAL, MAX_PLAYERS, NUM_DISTINCT_ACTIONS, MAX_GAME_LENGTH, OBS_SIZE,
    INFO_SIZE, TENSOR_SIZE, INVENTORY_SIZE, N_OUTCOME)`` of game ``game``: compile-time
    constants for allocating buffers in generic code."""


@overload(g_sizes, jit_options=_OPTS)
def _ov_sizes(game):
    C = _core(game)
    if C is None:
        return None
    sizes = (C.STATE_SIZE, C.MAX_LEGAL, C.MAX_PLAYERS, C.NUM_DISTINCT_ACTIONS,
             C.MAX_GAME_LENGTH, C.OBS_SIZE, C.INFO_SIZE, C.TENSOR_SIZE, C.INVENTORY_SIZE,
             len(C.OUTCOME_FIELDS))

    def impl(game):
        return sizes
    return impl


_ENTRIES: dict = {}


def call_literal(dispatcher, game_id: int, *args):
    """Call a compiled function whose first argument is a literal game id (it starts with
    ``numba.literally(game)``) from Python, without Numba's per-call retyping.

    Calling such a function through its dispatcher makes Numba type the call twice (first
    without, then with the literal) every time, which dominates a loop of
    short calls (a search decision, a small batch). The first call per (function, game,
    argument types) compiles the literal signature (or loads it from the cache), without the
    dispatcher's first, thrown-away typing with a plain integer; every call then goes straight
    to the compiled entry point. Returns what the function returns; raises what compiling
    raises (``numba.core.errors.TypingError`` for arguments the function cannot take)."""
    return call_literals(dispatcher, (game_id,), *args)


def call_literals(dispatcher, literals: tuple, *args):
    """:func:`call_literal` for a function whose first ``len(literals)`` arguments are literal
    integers (each made literal with ``numba.literally``): ``literals`` are their values,
    ``args`` the other arguments. Returns what the function returns."""
    from numba import typeof

    key = (id(dispatcher),) + tuple(literals) + tuple(typeof(a) for a in args)
    fn = _ENTRIES.get(key)
    if fn is None:
        # compile (or load from the cache) the literal signature itself: a call through the
        # dispatcher would first type the whole function with plain integers until
        # ``literally`` asks again (typing thrown away per specialization, warm cache or
        # not)
        sig = tuple(types.literal(v) for v in literals) + key[1 + len(literals):]
        try:
            dispatcher.compile(sig)  # raises what the call would (a TypingError...)
        except errors.ForceLiteralArg:  # it wants another argument literal: the call does it
            return dispatcher(*literals, *args)
        res = dispatcher.overloads.get(sig)
        if res is None:  # not expected: let the dispatcher's own call decide
            return dispatcher(*literals, *args)
        fn = _ENTRIES[key] = res.entry_point
    return fn(*literals, *args)
