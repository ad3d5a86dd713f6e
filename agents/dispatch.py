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
table of ``heuristic`` players compiles the heuristic, not every policy of the game.
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

from agents.contract import contract
from engines.protocol import GAME_NAMES

__all__ = ["g_act", "g_act_seat"]


def g_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` of game ``game`` (a literal id)."""


@overload(g_act, jit_options={"cache": True})
def _ov_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    agents = contract(GAME_NAMES[game.literal_value])
    f = agents.act
    from agents.net import K_NET, net_act

    if isinstance(kind, types.IntegerLiteral):
        if kind.literal_value == K_NET:
            def impl_net(game, kind, state, player, legal, n_legal, params, aux, rng):
                return net_act(game, state, player, legal, n_legal, params, aux, rng)
            return impl_net
        one = _one_policy(agents, kind.literal_value)
        if one is not None:
            return one
    if not agents.has_search:  # no search agents for this game
        def impl(game, kind, state, player, legal, n_legal, params, aux, rng):
            if kind == K_NET:
                return net_act(game, state, player, legal, n_legal, params, aux, rng)
            return f(kind, state, player, legal, n_legal, params, aux, rng)
        return impl
    from agents.search import SEARCH_BASE, search_act

    def impl_search(game, kind, state, player, legal, n_legal, params, aux, rng):
        if kind >= SEARCH_BASE:
            return search_act(game, kind, state, player, legal, n_legal, params, aux, rng)
        if kind == K_NET:
            return net_act(game, state, player, legal, n_legal, params, aux, rng)
        return f(kind, state, player, legal, n_legal, params, aux, rng)
    return impl_search


def _one_policy(agents, k: int):
    """An implementation of ``g_act`` for the literal kind ``k`` that calls only that policy,
    or None when the game's ``POLICY_FUNCTIONS`` do not name it (then ``act`` dispatches at
    run time); ``agents``: the game's :class:`agents.contract.AgentsContract`."""
    if agents.has_search:
        from agents import search as S

        search = {S.K_PIMC: S.pimc, S.K_ISMCTS: S.ismcts, S.K_NET_PIMC: S.net_pimc}.get(k)
        if search is not None:
            def impl_search(game, kind, state, player, legal, n_legal, params, aux, rng):
                return search(game, state, player, legal, n_legal, params, aux, rng)
            return impl_search
    name = next((sp.name for sp in agents.specs if sp.kind == k), None)
    pol = agents.policy_functions.get(name)
    if pol is None:
        return None

    def impl_one(game, kind, state, player, legal, n_legal, params, aux, rng):
        return pol(state, player, legal, n_legal, params, rng)
    return impl_one


def g_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    """``g_act`` for a seat of kind ``kind`` at a table whose seats all play the literal kind
    ``one_kind`` (then ``kind`` is ignored and only that policy is compiled in), or where
    ``one_kind`` is -1 (any kinds: ``g_act`` on ``kind`` at run time)."""


@overload(g_act_seat, jit_options={"cache": True})
def _ov_act_seat(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if isinstance(one_kind, types.IntegerLiteral) and one_kind.literal_value >= 0:
        def impl_one(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
            return g_act(game, one_kind, state, player, legal, n_legal, params, aux, rng)
        return impl_one

    def impl_any(game, one_kind, kind, state, player, legal, n_legal, params, aux, rng):
        return g_act(game, kind, state, player, legal, n_legal, params, aux, rng)
    return impl_any
