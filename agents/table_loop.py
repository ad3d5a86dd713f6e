"""The body of the compiled game loop (door 2), written once for every game.

:func:`run_table` plays one game per seed word with a policy per seat and writes each game's
returns and outcome statistics; it is written once against :mod:`engines.protocol.kernels` and
:mod:`agents.dispatch` and inlined, with the game's id a constant, into each game's own
``play_table`` (in ``agents/<game>.py``: the loop is compiled and cached with that game's sources,
so an edit to one game recompiles no other game's loop, :mod:`engines.kernel_cache`) and into
:func:`agents.loop.play_games_user` (user policies, compiled in the calling process).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.dispatch import ANY_KINDS, MIXED_BASE, g_act_seat, g_legal_seat
from agents.layout import H_INFER, K_NET_PIMC, USER_KIND
from engines.protocol.borrow import borrow, keep_alive
from engines.protocol.chance import SEAT_WORDS, init_seat_memory
from engines.protocol.history import LOG_S0, log_action, log_start
from engines.protocol.kernels import (
    g_apply_action,
    g_current_player,
    g_init_state,
    g_is_terminal,
    g_outcome,
    g_returns,
    g_sizes,
)

__all__ = ["run_table", "wants_log"]

@njit(inline="always")
def _call_user(u, s, p, legal, n, params, mem):
    """Call user policy ``u`` (``None`` in the cached loops, where this branch is pruned at
    compile time). Inlined where it is called: a call with a function argument cannot be
    cached on disk, and the cached loops pass ``None``."""
    if u is None:
        return legal[0]
    return u(s, p, legal, n, params, mem)


@njit(inline="always")
def _play_one(game, one_kind, cfg, seed, kinds, params, aux, s, legal, mem, u0, u1, u2, u3):
    """Play one game from seed word ``seed`` into ``s``; returns -1, or the seat whose policy
    returned an illegal action (then ``legal[0]`` holds that action). ``one_kind`` (literal):
    the shipped kind every seat plays, so only that policy is compiled in, or the kinds of a
    table of several (:func:`agents.dispatch.table_kind`). Inlined into its caller, whose
    ``game`` and ``one_kind`` are literal."""
    g_init_state(game, cfg, seed, s)
    init_seat_memory(seed, mem)
    # the decision log (inference over hidden cards): never for a table of one other kind,
    # where one_kind, a literal, lets the compiler drop the branch from the loop
    logged = ((one_kind == ANY_KINDS or one_kind == K_NET_PIMC or one_kind < MIXED_BASE)
              and mem.shape[1] > SEAT_WORDS)
    if logged:
        log_start(mem, s)
    while not g_is_terminal(game, s):
        p = g_current_player(game, s)
        n = g_legal_seat(game, one_kind, s, legal)
        k = kinds[p]
        if k < USER_KIND:  # shipped policies return legal actions (tested)
            a = g_act_seat(game, one_kind, k, s, p, legal, n, params[p], aux, mem[p])
        else:
            if k == USER_KIND:
                a = _call_user(u0, s, p, legal, n, params[p], mem[p])
            elif k == USER_KIND + 1:
                a = _call_user(u1, s, p, legal, n, params[p], mem[p])
            elif k == USER_KIND + 2:
                a = _call_user(u2, s, p, legal, n, params[p], mem[p])
            else:
                a = _call_user(u3, s, p, legal, n, params[p], mem[p])
            ok = False
            for i in range(n):
                if legal[i] == a:
                    ok = True
                    break
            if not ok:
                legal[0] = a
                return p
        g_apply_action(game, s, a)
        if logged:
            log_action(mem, s.shape[0], a)
    return -1


@njit(cache=True)
def wants_log(kinds, params):
    """True when a seat of the table infers hidden cards (kind ``agents.layout.K_NET_PIMC``
    with ``params[p, H_INFER] > 0``, :mod:`agents.inference`): the loop then keeps the game's
    decision log in the policy memories (:mod:`engines.protocol.history`). ``kinds``: ``int64
    (seats,)``; ``params``: ``float64 (seats, width)``."""
    for p in range(kinds.shape[0]):
        if kinds[p] == K_NET_PIMC and params.shape[1] > H_INFER and params[p, H_INFER] > 0.0:
            return True
    return False


@njit(inline="always")
def run_table(game, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad, u0,
              u1, u2, u3):
    """Play one game per seed word and record it: the body of every game's compiled loop.

    Inlined into its callers (a game's ``play_table``, cached with that game's sources, and
    :func:`agents.loop.play_games_user`, compiled per set of user policies), whose ``game`` and
    ``one_kind`` are literal.

    ``game``: the game's id (:data:`engines.protocol.GAME_IDS`); ``one_kind``: the shipped
    policy kind of every seat when all seats share one (only that policy is then compiled into
    the loop: a table of one agent compiles fast), else ``agents.dispatch.OWN_KINDS`` (several
    of the game's own policies: only the game's ``act`` compiled in) or a
    :func:`agents.dispatch.mixed_kind` (search agents or ``net`` among them: only those
    compiled in besides the game's ``act``), as :func:`agents.dispatch.table_kind` tells;
    ``cfg``: the config array; ``seeds``: ``int64 (G,)`` game seed words; ``kinds``: ``int64
    (MAX_PLAYERS,)`` shipped policy kinds per seat; ``params``: ``float64 (MAX_PLAYERS,
    PARAMS_WIDTH)``; ``aux``: the game's ``table_aux(game, config)`` (:mod:`agents.policy`);
    ``u0..u3``: user policies (kinds ``USER_KIND + j``), ``None`` where there are none.
    Outputs: ``returns_out`` ``float64 (G, MAX_PLAYERS)``, ``outcome_out`` ``int64 (G,
    len(OUTCOME_FIELDS))``. If a policy returns an illegal action the loop stops and ``bad``
    (``int64 (3,)``) holds (game index, seat, action); ``bad[0]`` stays -1 otherwise."""
    sz = g_sizes(game)
    s_own = np.zeros(sz[0], dtype=np.int64)
    legal_own = np.empty(sz[1], dtype=np.int64)
    width = SEAT_WORDS
    if wants_log(kinds, params):
        width = LOG_S0 + sz[0] + sz[4]
    mem_own = np.zeros((sz[2], width), dtype=np.int64)
    ret = np.zeros(sz[2], dtype=np.float64)
    # borrowed views (no reference counting down the call chain, engines.protocol.borrow);
    # the owners above and the arguments live until this function returns
    s = borrow(s_own)
    legal = borrow(legal_own)
    mem = borrow(mem_own)
    cfg = borrow(cfg)
    kinds = borrow(kinds)
    params = borrow(params)
    aux = borrow(aux)
    outcome_out = borrow(outcome_out)
    for i in range(seeds.shape[0]):
        r = _play_one(game, one_kind, cfg, seeds[i], kinds, params, aux, s, legal, mem, u0, u1,
                      u2, u3)
        if r >= 0:
            bad[0] = i
            bad[1] = r
            bad[2] = legal[0]
            break
        g_returns(game, s, ret)
        for p in range(sz[2]):
            returns_out[i, p] = ret[p]
        g_outcome(game, s, outcome_out[i])
    keep_alive(s_own, legal_own, mem_own)  # the owners of the borrowed views live to here
