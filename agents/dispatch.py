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
from numba.extending import overload

from agents.contract import contract
from engines.protocol import GAME_NAMES

__all__ = ["g_act", "g_act_seat", "g_legal_seat", "ANY_KINDS", "OWN_KINDS", "table_kind"]

ANY_KINDS = -1
"""``one_kind`` of a table whose seats play several kinds, a search agent or ``net`` among them:
:func:`g_act_seat` dispatches over every shipped policy of the game (``g_act``)."""
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
    """The action of shipped policy ``kind`` of game ``game`` (a literal id)."""


@overload(g_act, jit_options={"cache": True})
def _ov_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    agents = contract(GAME_NAMES[game.literal_value])
    if isinstance(kind, types.IntegerLiteral):
        one = _one_callee(agents, kind.literal_value)
        if one is not None:
            fn, with_game = one
            if with_game:
                def impl_game(game, kind, state, player, legal, n_legal, params, aux, rng):
                    return fn(game, state, player, legal, n_legal, params, aux, rng)
                return impl_game

            def impl_one(game, kind, state, player, legal, n_legal, params, aux, rng):
                return fn(state, player, legal, n_legal, params, rng)
            return impl_one
    by_kind = _by_kind_at_run_time(game.literal_value)

    def impl(game, kind, state, player, legal, n_legal, params, aux, rng):
        return by_kind(game, kind, state, player, legal, n_legal, params, aux, rng)
    return impl


@functools.cache
def _by_kind_at_run_time(game_id: int):
    """An inlined compiled function ``(game, kind, state, player, legal, n_legal, params, aux,
    rng)`` that plays policy ``kind`` (known at run time) of the game with id ``game_id``: a
    search agent (:func:`agents.search.search_by_kind`, where the game has them), ``net``, or
    the game's own ``act``. Inlined (Numba IR inlining) into ``g_act`` and ``g_act_seat`` at a
    table of any kinds, so no compiled layer stands between the loop and the agents."""
    from agents.net import K_NET, net_act

    agents = contract(GAME_NAMES[game_id])
    f = agents.act
    if not agents.has_search:  # no search agents for this game
        @njit(inline="always")
        def by_kind(game, kind, state, player, legal, n_legal, params, aux, rng):
            if kind == K_NET:
                return net_act(game, state, player, legal, n_legal, params, aux, rng)
            return f(kind, state, player, legal, n_legal, params, aux, rng)
        return by_kind
    from agents.search import SEARCH_BASE, search_by_kind

    @njit(inline="always")
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


@overload(g_act_seat, jit_options={"cache": True})
def _ov_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        listed = _table_order(game.literal_value, one_kind.literal_value)
        if listed is not None:
            pol = listed[1]

            def impl_table(game, one_kind, kind, state, player, legal, n_legal, params, aux,
                           rng):
                return pol(state, player, legal, n_legal, params, rng)
            return impl_table

        one = _one_callee(contract(GAME_NAMES[game.literal_value]), one_kind.literal_value)
        if one is not None:  # straight to it, not through g_act (one compiled layer less)
            fn, with_game = one
            if with_game:
                def impl_game(game, one_kind, kind, state, player, legal, n_legal, params, aux,
                              rng):
                    return fn(game, state, player, legal, n_legal, params, aux, rng)
                return impl_game

            def impl_fn(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
                return fn(state, player, legal, n_legal, params, rng)
            return impl_fn

        def impl_one(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
            return g_act(game, one_kind, state, player, legal, n_legal, params, aux, rng)
        return impl_one
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value == OWN_KINDS:
        f = contract(GAME_NAMES[game.literal_value]).act

        def impl_own(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
            return f(kind, state, player, legal, n_legal, params, aux, rng)
        return impl_own

    by_kind = _by_kind_at_run_time(game.literal_value)

    def impl_any(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
        return by_kind(game, kind, state, player, legal, n_legal, params, aux, rng)
    return impl_any


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


@overload(g_legal_seat, jit_options={"cache": True})
def _ov_legal_seat(game, one_kind, state, out):
    if not isinstance(game, types.IntegerLiteral):
        return None
    from engines.protocol.kernels import g_legal_actions

    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        listed = _table_order(game.literal_value, one_kind.literal_value)
        if listed is not None:
            listing = listed[0]

            def impl_table(game, one_kind, state, out):
                return listing(state, out)
            return impl_table

    def impl(game, one_kind, state, out):
        return g_legal_actions(game, state, out)
    return impl
