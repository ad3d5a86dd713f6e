"""The protocol kernels of every game behind one compiled name each, chosen by a game id.

Generic compiled code (the game loop of :mod:`agents.loop`, the search agents) is written once
against these functions, ``g_legal_actions(game, s, out)`` and so on, where ``game`` is the id
of :data:`engines.protocol.GAME_IDS`. The caller makes ``game`` a compile-time constant with
``numba.literally(game)``; each function below is then an ``@overload`` that resolves, at
compile time, to the kernel of that game's core (a direct call, inlined by LLVM). So one
source compiles into one specialization per game, each cached on disk by Numba like any
``cache=True`` function, and a run that uses only River Rats compiles only River Rats.

Kernel contracts: :mod:`engines.protocol`.
"""

from __future__ import annotations

import importlib

from numba import types
from numba.extending import overload

from engines.protocol import GAME_NAMES

__all__ = ["g_init_state", "g_legal_actions", "g_apply_action", "g_is_terminal", "g_returns",
           "g_current_player", "g_num_players", "g_observe", "g_information_state",
           "g_observation_tensor", "g_determinize", "g_observed_action", "g_inventory",
           "g_outcome", "g_progress", "g_sizes", "core_for_id", "call_literal",
           "call_literals"]


def core_for_id(game_id: int):
    """The rules core module of game id ``game_id``."""
    return importlib.import_module(f"engines.{GAME_NAMES[game_id]}.core")


def _core(game):
    if not isinstance(game, types.IntegerLiteral):
        return None
    return core_for_id(game.literal_value)


def g_init_state(game, cfg, seed, out):
    """``init_state`` of game ``game`` (a literal id)."""


def g_legal_actions(game, s, out):
    """``legal_actions`` of game ``game``."""


def g_apply_action(game, s, a):
    """``apply_action`` of game ``game``."""


def g_is_terminal(game, s):
    """``is_terminal`` of game ``game``."""


def g_returns(game, s, out):
    """``returns`` of game ``game``."""


def g_current_player(game, s):
    """``current_player`` of game ``game``."""


def g_num_players(game, s):
    """``num_players`` of game ``game``."""


def g_observe(game, s, p, out):
    """``observe`` of game ``game``."""


def g_information_state(game, s, p, out):
    """``information_state`` of game ``game``."""


def g_observation_tensor(game, s, p, out):
    """``observation_tensor`` of game ``game``."""


def g_determinize(game, s, p, seed, out):
    """``determinize`` of game ``game``."""


def g_observed_action(game, s, a, p):
    """``observed_action`` of game ``game``."""


def g_inventory(game, s, out):
    """``inventory`` of game ``game``."""


def g_outcome(game, s, out):
    """``outcome`` of game ``game``."""


def g_progress(game, s, level):
    """``progress`` of game ``game``."""


_OPTS = {"cache": True}


@overload(g_init_state, jit_options=_OPTS)
def _ov_init_state(game, cfg, seed, out):
    C = _core(game)
    if C is None:
        return None
    f = C.init_state

    def impl(game, cfg, seed, out):
        f(cfg, seed, out)
    return impl


@overload(g_legal_actions, jit_options=_OPTS)
def _ov_legal_actions(game, s, out):
    C = _core(game)
    if C is None:
        return None
    f = C.legal_actions

    def impl(game, s, out):
        return f(s, out)
    return impl


@overload(g_apply_action, jit_options=_OPTS)
def _ov_apply_action(game, s, a):
    C = _core(game)
    if C is None:
        return None
    f = C.apply_action

    def impl(game, s, a):
        f(s, a)
    return impl


@overload(g_is_terminal, jit_options=_OPTS)
def _ov_is_terminal(game, s):
    C = _core(game)
    if C is None:
        return None
    f = C.is_terminal

    def impl(game, s):
        return f(s)
    return impl


@overload(g_returns, jit_options=_OPTS)
def _ov_returns(game, s, out):
    C = _core(game)
    if C is None:
        return None
    f = C.returns

    def impl(game, s, out):
        f(s, out)
    return impl


@overload(g_current_player, jit_options=_OPTS)
def _ov_current_player(game, s):
    C = _core(game)
    if C is None:
        return None
    f = C.current_player

    def impl(game, s):
        return f(s)
    return impl


@overload(g_num_players, jit_options=_OPTS)
def _ov_num_players(game, s):
    C = _core(game)
    if C is None:
        return None
    f = C.num_players

    def impl(game, s):
        return f(s)
    return impl


@overload(g_observe, jit_options=_OPTS)
def _ov_observe(game, s, p, out):
    C = _core(game)
    if C is None:
        return None
    f = C.observe

    def impl(game, s, p, out):
        f(s, p, out)
    return impl


@overload(g_information_state, jit_options=_OPTS)
def _ov_information_state(game, s, p, out):
    C = _core(game)
    if C is None:
        return None
    f = C.information_state

    def impl(game, s, p, out):
        f(s, p, out)
    return impl


@overload(g_observation_tensor, jit_options=_OPTS)
def _ov_observation_tensor(game, s, p, out):
    C = _core(game)
    if C is None:
        return None
    f = C.observation_tensor

    def impl(game, s, p, out):
        f(s, p, out)
    return impl


@overload(g_determinize, jit_options=_OPTS)
def _ov_determinize(game, s, p, seed, out):
    C = _core(game)
    if C is None:
        return None
    f = C.determinize

    def impl(game, s, p, seed, out):
        f(s, p, seed, out)
    return impl


@overload(g_observed_action, jit_options=_OPTS)
def _ov_observed_action(game, s, a, p):
    C = _core(game)
    if C is None:
        return None
    f = C.observed_action

    def impl(game, s, a, p):
        return f(s, a, p)
    return impl


@overload(g_inventory, jit_options=_OPTS)
def _ov_inventory(game, s, out):
    C = _core(game)
    if C is None:
        return None
    f = C.inventory

    def impl(game, s, out):
        f(s, out)
    return impl


@overload(g_outcome, jit_options=_OPTS)
def _ov_outcome(game, s, out):
    C = _core(game)
    if C is None:
        return None
    f = C.outcome

    def impl(game, s, out):
        f(s, out)
    return impl


@overload(g_progress, jit_options=_OPTS)
def _ov_progress(game, s, level):
    C = _core(game)
    if C is None:
        return None
    f = C.progress

    def impl(game, s, level):
        return f(s, level)
    return impl


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
    without, then with the literal) every time: about 60 ms a call, which dominates a loop of
    short calls (a search decision, a small batch). The first call per (function, game,
    argument types) goes through the dispatcher (compiling or loading from the cache); later
    calls go straight to the compiled entry point. Returns what the function returns."""
    return call_literals(dispatcher, (game_id,), *args)


def call_literals(dispatcher, literals: tuple, *args):
    """:func:`call_literal` for a function whose first ``len(literals)`` arguments are literal
    integers (each made literal with ``numba.literally``): ``literals`` are their values,
    ``args`` the other arguments. Returns what the function returns."""
    from numba import typeof

    key = (id(dispatcher),) + tuple(literals) + tuple(typeof(a) for a in args)
    fn = _ENTRIES.get(key)
    if fn is None:
        out = dispatcher(*literals, *args)
        sig = tuple(types.literal(v) for v in literals) + key[1 + len(literals):]
        res = dispatcher.overloads.get(sig)
        if res is not None:
            _ENTRIES[key] = res.entry_point
        return out
    return fn(*literals, *args)
