"""Shipped policies of Kuhn poker (the worked example game of ``docs/adding_a_game.md``): the
hooks of the agents' contract (:mod:`agents.contract`).

- ``random``: uniform over pass and bet.
- ``heuristic``: Kuhn's equilibrium family (Kuhn 1950): the first player bets a Jack with
  probability ``alpha`` (a bluff), a King with ``3 alpha``, checks a Queen, and facing a bet
  folds a Jack, calls a Queen with ``alpha + 1/3`` and calls a King; the second player bets a
  King and bluffs a Jack with ``p1_bluff`` after a check, and facing a bet folds a Jack, calls a
  Queen with ``p1_call_queen`` and calls a King. With the defaults (``alpha`` 0, 1/3, 1/3) both
  players play an equilibrium: the first player's value is -1/18.

The search agents (``pimc``, ``ismcts``...) come with :func:`leaf_value` (the chips at the end
of the game; Kuhn's game is one hand, so the search horizon is the end of the game).
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.table_loop import run_table
from engines.names import GAME_IDS
from agents.policy import PolicySpec
from engines.protocol.chance import rand_below, rand_float
from engines.kuhn_poker import core

__all__ = ["SPECS", "act", "make_aux", "PARAMS_WIDTH", "POLICY_FUNCTIONS", "PARAM_NAMES",
           "random_policy", "heuristic_policy", "leaf_value", "LEAF_VALUE_NAMES",
           "LEAF_VALUE_DEFAULT", "SEARCH_HORIZON"]

PARAM_NAMES = ("alpha", "p1_bluff", "p1_call_queen")
PARAMS_WIDTH = len(PARAM_NAMES)
HEURISTIC_PARAMS = (0.0, 1.0 / 3.0, 1.0 / 3.0)
KIND_RANDOM, KIND_HEURISTIC = 0, 1

SPECS = (
    PolicySpec("kuhn_poker", "random", KIND_RANDOM, (), (), "uniform over pass and bet"),
    PolicySpec("kuhn_poker", "heuristic", KIND_HEURISTIC, HEURISTIC_PARAMS, PARAM_NAMES,
               "Kuhn's equilibrium family (alpha = the first player's bluff rate)"),
)


@njit(cache=True)
def random_policy(state, player, legal, n_legal, params, rng):
    """Uniform over the legal actions (one number from ``rng[0]``)."""
    return legal[rand_below(rng, 0, n_legal)]


@njit(cache=True)
def _with(p, rng):
    """BET with probability ``p`` (clipped to 0..1), else PASS; draws only when 0 < p < 1."""
    if p <= 0.0:
        return core.PASS
    if p >= 1.0:
        return core.BET
    return core.BET if rand_float(rng, 0) < p else core.PASS


@njit(cache=True)
def heuristic_policy(state, player, legal, n_legal, params, rng):
    """Kuhn's equilibrium family (module docstring); reads only ``player``'s card and the
    betting. ``params``: ``(alpha, p1_bluff, p1_call_queen)``."""
    card = state[core.CARD + player]
    k = state[core.HLEN]
    facing_bet = k > 0 and state[core.HIST + k - 1] == core.BET
    alpha = params[0]
    if player == 0:
        if not facing_bet:  # the first action
            if card == 0:
                return _with(alpha, rng)
            if card == 1:
                return core.PASS
            return _with(3.0 * alpha, rng)
        if card == 0:
            return core.PASS
        if card == 1:
            return _with(alpha + 1.0 / 3.0, rng)
        return core.BET
    if not facing_bet:  # after a check
        if card == 0:
            return _with(params[1], rng)
        return core.PASS if card == 1 else core.BET
    if card == 0:
        return core.PASS
    if card == 1:
        return _with(params[2], rng)
    return core.BET


@njit(cache=True)
def act(kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` (``aux`` unused: Kuhn poker needs no game data)."""
    if kind == KIND_RANDOM:
        return random_policy(state, player, legal, n_legal, params, rng)
    return heuristic_policy(state, player, legal, n_legal, params, rng)


def make_aux(config) -> np.ndarray:
    """No game data: an empty ``float64`` array."""
    return np.zeros(0)


POLICY_FUNCTIONS = {"random": random_policy, "heuristic": heuristic_policy}

LEAF_VALUE_NAMES = ("chips",)
"""The weight of the chips won (the game is one hand: a leaf is its end)."""
LEAF_VALUE_DEFAULT = np.array([1.0])
SEARCH_HORIZON = 2
"""Search rollouts run to the end of the game (one hand)."""


@njit(cache=True)
def leaf_value(s, w, out):
    """Each player's chips won at the end of the game times ``w[0]`` (0 before the end)."""
    out[0] = w[0] * s[core.RET]
    out[1] = w[0] * s[core.RET + 1]
    for p in range(2, out.shape[0]):
        out[p] = 0.0


GAME_ID = GAME_IDS["kuhn_poker"]
"""Kuhn poker's id in :data:`engines.protocol.GAME_IDS` (the constant its loop is compiled for)."""


@njit(cache=True)
def play_table(one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """Kuhn poker's compiled game loop: :func:`agents.table_loop.run_table` for this game (the
    arguments are documented there), compiled and cached with this game's sources, so that an
    edit to another game's files leaves it cached; ``one_kind`` is made a literal."""
    literally(one_kind)
    run_table(GAME_ID, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad,
              None, None, None, None)
