"""The shipped policies of every game behind one compiled name, ``g_act``, chosen by a game id
(the same literal-id specialization as :mod:`engines.kernels`).

``g_act(game, kind, state, player, legal, n_legal, params, aux, rng)`` calls
``agents.<game>.act(kind, ...)`` of the game whose id (:data:`engines.protocol.GAME_IDS`) is the
compile-time constant ``game``, or, for a kind ``>= agents.search.SEARCH_BASE``, the search
agents of :mod:`agents.search` (which roll out with the game's own ``act``). Contract of
``act``: :mod:`agents.policy`.
"""

from __future__ import annotations

import importlib

from numba import types
from numba.extending import overload

from engines.protocol import GAME_NAMES

__all__ = ["g_act"]


def g_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` of game ``game`` (a literal id)."""


@overload(g_act, jit_options={"cache": True})
def _ov_act(game, kind, state, player, legal, n_legal, params, aux, rng):
    if not isinstance(game, types.IntegerLiteral):
        return None
    mod = importlib.import_module(f"agents.{GAME_NAMES[game.literal_value]}")
    f = mod.act
    if not hasattr(mod, "leaf_value"):  # no search agents for this game
        def impl(game, kind, state, player, legal, n_legal, params, aux, rng):
            return f(kind, state, player, legal, n_legal, params, aux, rng)
        return impl
    from agents.search import SEARCH_BASE, search_act

    def impl_search(game, kind, state, player, legal, n_legal, params, aux, rng):
        if kind >= SEARCH_BASE:
            return search_act(game, kind, state, player, legal, n_legal, params, aux, rng)
        return f(kind, state, player, legal, n_legal, params, aux, rng)
    return impl_search
