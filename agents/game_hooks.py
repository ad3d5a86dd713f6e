"""A game's own compiled hooks (:mod:`agents.contract`) called by a literal game id: its ``act``,
its ``leaf_value`` and its ``action_features``, for the code written once for every game above
this module (the learned policy :mod:`agents.net`, the search agents :mod:`agents.search`, the
dispatch of :mod:`agents.dispatch`).

Each name stands, once ``game`` is a literal id (:data:`engines.protocol.GAME_IDS`), for that
game's function, called straight (:func:`engines.protocol.direct.direct_call_by_game`: no
compiled layer between the caller and the hook) or, for ``g_action_features``, through an
``@overload`` that also serves games without the hook.
"""

from __future__ import annotations

from numba import types
from numba.extending import overload

from agents.contract import contract
from engines.protocol import GAME_NAMES
from engines.protocol.direct import direct_call_by_game

__all__ = ["g_act_base", "g_leaf_value", "g_action_features"]


def g_act_base(game, kind, state, player, legal, n_legal, params, aux, rng):
    """``agents.<game>.act`` of game ``game`` (a literal id): the game's shipped (non-search)
    policies by ``kind`` at run time; the rollout policy of the search agents and ``net``'s
    prior."""


g_act_base = direct_call_by_game(g_act_base, lambda game_id: contract(GAME_NAMES[game_id]).act)


def g_leaf_value(game, state, weights, out):
    """``agents.<game>.leaf_value``: each player's value of ``state`` into ``out``."""


g_leaf_value = direct_call_by_game(
    g_leaf_value, lambda game_id: contract(GAME_NAMES[game_id]).leaf_value)


def g_action_features(game, s, player, legal, n_legal, params, rng, state_out, action_out):
    """The action features of game ``game`` (a literal id): calls ``agents.<game>.
    action_features`` (:mod:`agents.contract`) and returns True, or returns False (nothing
    written) for a game without the hook."""


@overload(g_action_features, jit_options={"cache": True})
def _ov_action_features(game, s, player, legal, n_legal, params, rng, state_out, action_out):
    if not isinstance(game, types.IntegerLiteral):
        return None
    f = contract(GAME_NAMES[game.literal_value]).action_features
    if f is None:
        def impl_none(game, s, player, legal, n_legal, params, rng, state_out, action_out):
            return False
        return impl_none

    def impl(game, s, player, legal, n_legal, params, rng, state_out, action_out):
        f(s, player, legal, n_legal, params, rng, state_out, action_out)
        return True
    return impl
