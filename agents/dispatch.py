"""The shipped policies of every game behind one compiled name, ``g_act``, chosen by a game id
(the same literal-id specialization as :mod:`engines.protocol.kernels`).

``g_act(game, kind, state, player, legal, n_legal, params, aux, rng)`` calls
``agents.<game>.act(kind, ...)`` of the game whose id (:data:`engines.protocol.GAME_IDS`) is the
compile-time constant ``game``, or, for a kind ``>= agents.search.SEARCH_BASE``, the search
agents of :mod:`agents.search` (which roll out with the game's own ``act``), or for
``agents.net.K_NET`` the learned policy of :mod:`agents.net`. Contract of
``act``: :mod:`agents.policy`.

When ``kind`` is a literal too (the compiled loop makes it one when every seat plays the same
shipped policy), the call goes straight to that one policy function (the game module's
``POLICY_FUNCTIONS``, or the search agent of that kind), so nothing else is compiled in: a
table of ``heuristic`` players compiles the heuristic, not every policy of the game. A table of
several of the game's own policies (``heuristic`` beside ``greedy``, say) compiles the game's
``act`` alone, without the search agents and ``net`` (:data:`OWN_KINDS`); only a table with a
search agent or ``net`` among several kinds compiles them all (:data:`ANY_KINDS`).
:func:`table_kind` tells which.
"""

from __future__ import annotations

import functools

from numba import njit, types

from agents.contract import contract
from engines.protocol import GAME_NAMES
from engines.protocol.direct import direct_call
from engines.protocol.kernels import core_for_id

__all__ = ["g_act", "g_act_base", "g_act_seat", "g_legal_seat", "ANY_KINDS", "OWN_KINDS",
           "table_kind"]

ANY_KINDS = -1
"""``one_kind`` of a table whose seats play several kinds, a search agent or ``net`` among them:
:func:`g_act_seat` dispatches over every shipped policy of the game at run time (as ``g_act``
with a kind known only at run time)."""
OWN_KINDS = -2
"""``one_kind`` of a table whose seats play several of the game's own policies (its
``agents.<game>.act``: no search agent, no ``net``): only those are compiled into the loop, not
the search agents (a cold kernel cache compiles such a table in seconds instead of a minute,
issue 29)."""


def table_kind(kinds) -> int:
    """The compiled loop's literal ``one_kind`` for a table whose seats play ``kinds`` (``int``
    sequence, one per seat): the one shipped kind every seat plays; else :data:`OWN_KINDS` when
    every shipped seat plays one of the game's own policies (kinds below ``agents.net.K_NET``),
    else :data:`ANY_KINDS`. A table with a user seat (kind ``>= agents.policy.USER_KIND``) is
    never of one kind; its shipped seats alone decide between the other two."""
    from agents.net import K_NET
    from agents.policy import USER_KIND

    ks = [int(k) for k in kinds]
    shipped = [k for k in ks if k < USER_KIND]
    if shipped and len(shipped) == len(ks) and all(k == shipped[0] for k in shipped):
        return shipped[0]
    return OWN_KINDS if all(k < K_NET for k in shipped) else ANY_KINDS


def g_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` of game ``game`` (a literal id): the one policy
    function or agent of a literal ``kind`` called straight, else the game's policies by
    ``kind`` at run time (:func:`_by_kind_at_run_time`)."""


def _pick_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if isinstance(kind, types.IntegerLiteral):
        one = _one_callee(contract(GAME_NAMES[game.literal_value]), kind.literal_value)
        if one is not None:
            fn, with_game = one
            return fn, ((0, 2, 3, 4, 5, 6, 7, 8) if with_game else (2, 3, 4, 5, 6, 8))
    return _by_kind_at_run_time(game.literal_value), tuple(range(9))


g_act = direct_call(g_act, _pick_act)


def g_act_base(game, kind, state, player, legal, n_legal, params, aux, rng):
    """``agents.<game>.act`` of game ``game`` (a literal id): the game's shipped (non-search)
    policies by ``kind`` at run time; the rollout policy of the search agents and ``net``'s
    fallback."""


def _pick_act_base(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    return contract(GAME_NAMES[game.literal_value]).act, (1, 2, 3, 4, 5, 6, 7, 8)


g_act_base = direct_call(g_act_base, _pick_act_base)


@functools.cache
def _by_kind_at_run_time(game_id: int):
    """A compiled function ``(game, kind, state, player, legal, n_legal, params, aux, rng)``
    that plays policy ``kind`` (known at run time) of the game with id ``game_id``: a search
    agent (:func:`agents.search.search_by_kind`, where the game has them, inlined), ``net``, or
    the game's own ``act``. ``g_act`` and ``g_act_seat`` call it straight at a table of any
    kinds (:func:`engines.protocol.direct.direct_call`), so no compiled layer stands between
    the loop and it."""
    from agents.net import K_NET, net_act

    agents = contract(GAME_NAMES[game_id])
    f = agents.act
    if not agents.has_search:  # no search agents for this game
        @njit
        def by_kind(game, kind, state, player, legal, n_legal, params, aux, rng):
            if kind == K_NET:
                return net_act(game, state, player, legal, n_legal, params, aux, rng)
            return f(kind, state, player, legal, n_legal, params, aux, rng)
        return by_kind
    from agents.search import SEARCH_BASE, search_by_kind

    @njit
    def by_kind_search(game, kind, state, player, legal, n_legal, params, aux, rng):
        if kind >= SEARCH_BASE:
            return search_by_kind(game, kind, state, player, legal, n_legal, params, aux, rng)
        if kind == K_NET:
            return net_act(game, state, player, legal, n_legal, params, aux, rng)
        return f(kind, state, player, legal, n_legal, params, aux, rng)
    return by_kind_search


def _one_callee(agents, k: int):
    """The one compiled function that plays the literal kind ``k`` of a game, as ``(function,
    with_game)``: ``net``'s :func:`agents.net.net_act` or a search agent
    (:data:`agents.search.SEARCH_FUNCTIONS`), both called ``(game, state, player, legal,
    n_legal, params, aux, rng)`` (``with_game`` True), or the policy function the game's
    ``POLICY_FUNCTIONS`` give for that kind, called ``(state, player, legal, n_legal, params,
    rng)``; None when there is none (then the game's ``act`` dispatches at run time).
    ``agents``: the game's :class:`agents.contract.AgentsContract`. A caller that calls it
    straight (not through ``g_act``) keeps one compiled layer out of the loop: Numba compiles
    every layer as its own module holding everything below it."""
    from agents.net import K_NET, net_act

    if k == K_NET:
        return net_act, True
    if agents.has_search:
        from agents.search import SEARCH_FUNCTIONS

        search = SEARCH_FUNCTIONS.get(k)
        if search is not None:
            return search, True
    name = next((sp.name for sp in agents.specs if sp.kind == k), None)
    pol = agents.policy_functions.get(name)
    return None if pol is None else (pol, False)


def g_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    """``g_act`` for a seat of kind ``kind`` at a table whose seats all play the literal kind
    ``one_kind`` (then ``kind`` is ignored and only that policy is compiled in), or where
    ``one_kind`` is :data:`OWN_KINDS` (the game's own ``act`` on ``kind`` at run time) or
    :data:`ANY_KINDS` (``g_act`` on ``kind`` at run time); see :func:`table_kind`."""


def _pick_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    gid = game.literal_value
    policy_args = (3, 4, 5, 6, 7, 9)  # (state, player, legal, n_legal, params, rng)
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        listed = _table_order(gid, one_kind.literal_value)
        if listed is not None:
            return listed[1], policy_args
        one = _one_callee(contract(GAME_NAMES[gid]), one_kind.literal_value)
        if one is not None:  # straight to it
            fn, with_game = one
            return fn, ((0, 3, 4, 5, 6, 7, 8, 9) if with_game else policy_args)
        return _by_kind_at_run_time(gid), (0, 1, 3, 4, 5, 6, 7, 8, 9)
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value == OWN_KINDS:
        return contract(GAME_NAMES[gid]).act, (2, 3, 4, 5, 6, 7, 8, 9)
    return _by_kind_at_run_time(gid), (0, 2, 3, 4, 5, 6, 7, 8, 9)


g_act_seat = direct_call(g_act_seat, _pick_act_seat)


def _table_order(game_id: int, kind: int):
    """The game's ``(listing, policy)`` of ``TABLE_ORDER_POLICIES`` (:mod:`agents.contract`)
    for shipped kind ``kind``, or None when the game lists none for it."""
    agents = contract(GAME_NAMES[game_id])
    name = next((sp.name for sp in agents.specs if sp.kind == kind), None)
    return agents.table_order_policies.get(name)


def g_legal_seat(game, one_kind, state, out):
    """The legal actions the compiled loop hands to a seat, into ``out`` (``int64
    (MAX_LEGAL,)``); returns their number. At a table whose seats all play the literal shipped
    kind ``one_kind`` that the game lists in ``TABLE_ORDER_POLICIES`` (:mod:`agents.contract`),
    the game's own listing in table order (for that kind's table-order policy, which
    :func:`g_act_seat` then calls: the same actions as the policy on the ascending list, without
    sorting the list and mapping back, issue 29); otherwise the ascending list of
    ``g_legal_actions``."""


def _pick_legal_seat(game, one_kind, state, out):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        listed = _table_order(game.literal_value, one_kind.literal_value)
        if listed is not None:
            return listed[0], (2, 3)
    return core_for_id(game.literal_value).legal_actions, (2, 3)


g_legal_seat = direct_call(g_legal_seat, _pick_legal_seat)
