"""The game's decision log in a seat's policy memory: what a search needs to infer hidden cards
from the other players' past actions.

A seat's policy memory (:mod:`engines.protocol.chance`) is ``SEAT_WORDS`` words; a table
where some seat infers hidden cards (``net-search`` with inference, :mod:`agents.inference`)
gets wider rows, ``log_width(STATE_SIZE, MAX_GAME_LENGTH)`` words, and the game loop
(:func:`agents.table_loop.run_table`, the step API's :class:`agents.policy.Agent`) writes the log
into every row: the game's initial state and every action applied since, in order. Replaying
the actions from the initial state gives every past state (a game's chance lives in its state,
so replay is exact: :func:`replay_to`). The log holds hidden cards, like the state an agent is
handed; a fair agent reads it only through a relabelling of the cards it does not know
(:mod:`agents.inference`).

Layout of a wide row (``int64``): ``[0, SEAT_WORDS)`` the seat's stream and memory as before;
``LOG_ON`` 1 while the log is complete (0: no log, or the game outgrew it); ``LOG_N`` actions
logged; ``LOG_S0 ..`` the initial state (``STATE_SIZE`` words), then the actions. A row of
``SEAT_WORDS`` words has no log: :func:`log_count` is -1 and every agent plays as before.
"""

from __future__ import annotations

from numba import njit

from engines.protocol.chance import SEAT_WORDS
from engines.protocol.kernels import g_apply_action

__all__ = ["LOG_ON", "LOG_N", "LOG_S0", "log_width", "log_start", "log_action", "log_count",
           "log_initial", "log_actions", "replay_to"]

LOG_ON = SEAT_WORDS
LOG_N = SEAT_WORDS + 1
LOG_S0 = SEAT_WORDS + 2


def log_width(state_size: int, max_length: int) -> int:
    """Words of a policy-memory row that holds the decision log of a game whose state has
    ``state_size`` words and which lasts at most ``max_length`` decisions."""
    return LOG_S0 + int(state_size) + int(max_length)


@njit(cache=True)
def log_start(mem, s):
    """Start the log of a new game in every row of ``mem`` (``int64 (seats, width)``) wide
    enough for one: the initial state ``s`` (``int64 (STATE_SIZE,)``), no action yet. Rows of
    ``SEAT_WORDS`` words are left alone."""
    n = s.shape[0]
    if mem.shape[1] < LOG_S0 + n:
        return
    for p in range(mem.shape[0]):
        mem[p, LOG_ON] = 1
        mem[p, LOG_N] = 0
        mem[p, LOG_S0:LOG_S0 + n] = s


@njit(cache=True)
def log_action(mem, state_size, a):
    """Append action ``a`` to the log of every row of ``mem`` that keeps one; a log that is
    full stops (``LOG_ON`` 0: the agents then play without it)."""
    if mem.shape[1] < LOG_S0 + state_size:
        return
    cap = mem.shape[1] - LOG_S0 - state_size
    for p in range(mem.shape[0]):
        n = mem[p, LOG_N]
        if n < cap:
            mem[p, LOG_S0 + state_size + n] = a
            mem[p, LOG_N] = n + 1
        else:
            mem[p, LOG_ON] = 0


@njit(cache=True)
def log_count(row, state_size):
    """Actions in the log of policy-memory row ``row`` (``int64 (width,)``), or -1 when the row
    keeps no complete log."""
    if row.shape[0] < LOG_S0 + state_size or row[LOG_ON] != 1:
        return -1
    return row[LOG_N]


@njit(cache=True)
def log_initial(row, state_size):
    """The initial state in the log of ``row`` (a view, ``int64 (state_size,)``)."""
    return row[LOG_S0:LOG_S0 + state_size]


@njit(cache=True)
def log_actions(row, state_size):
    """The logged actions of ``row`` (a view, ``int64 (log_count,)``)."""
    n = row[LOG_N]
    return row[LOG_S0 + state_size:LOG_S0 + state_size + n]


@njit(cache=True)
def replay_to(game, row, t, out):
    """The state before the ``t``-th logged decision (``t`` = 0: the initial state; ``t`` =
    :func:`log_count`: the state now) into ``out`` (``int64 (STATE_SIZE,)``), by applying the
    first ``t`` logged actions to the initial state (exact: a game's chance is in its state).
    ``game``: literal game id."""
    n = out.shape[0]
    out[:] = row[LOG_S0:LOG_S0 + n]
    for i in range(t):
        g_apply_action(game, out, row[LOG_S0 + n + i])
