"""Policies for ReCURRRing (``../shared/rules/recurring.md``): ``random``, ``greedy`` and the
tunable ``heuristic`` family, behind one compiled protocol and a registry by name.

Protocol (``../shared/DESIGN.md``, "Agents"): ``act(kind, state, player, legal, n_legal,
params, rng) -> action`` where ``kind`` selects the policy (:data:`REGISTRY`), ``state`` is the
``int64`` state of :mod:`engines.recurring.core`, ``legal[:n_legal]`` the legal action codes,
``params`` a ``float64`` parameter vector (length :data:`N_PARAMS`) and ``rng`` an ``int64``
array of shape ``(1,)`` with the seat's splitmix64 word. Policies read only the acting
player's hand, the table and public counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.recurring.core import (
    BLOCK,
    HAND,
    PASS,
    R,
    TABLE_COUNT,
    TABLE_NUM,
    play_strength,
)
from agents.policy_base import AgentSpec, PolicyAgent
from engines.splitmix import rand_below

__all__ = ["REGISTRY", "AgentSpec", "Agent", "make_agent", "resolve", "act",
           "HEURISTIC_DEFAULT", "HEURISTIC_PARAM_NAMES", "N_PARAMS"]

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
N_PARAMS = 8
HEURISTIC_PARAM_NAMES = (
    "count",        # weight of the number of cards played
    "strength",     # weight of the number's strength, (10 - number) / 9: 1 for a 1, 0 for R
    "split",        # weight of the cards of that number left in hand after the play
    "take",         # weight of the cards taken into hand (the table's count)
    "is_r",         # bonus for playing R cards
    "empties",      # bonus for playing the last cards (ends the game)
    "pass_bias",    # score of passing ...
    "pass_points",  # ... plus this times the points on the table (0 for R cards)
)
HEURISTIC_DEFAULT = np.array([-0.674, -0.173, -0.166, 0.201, 0.365, 4.408, -6.027, -0.297])
"""Default parameter vector of the ``heuristic`` family (names: :data:`HEURISTIC_PARAM_NAMES`),
found by ``python -m experiments.climbing_tune recurring --candidates 150 --games 3000`` from
the hand-set start ``[-0.2, -1, -0.3, 0.1, 0.3, 2, -1, -0.2]``."""


@njit(cache=True)
def random_policy(st, player, legal, n_legal, params, rng):
    """Uniform choice among the legal actions (``params`` unused)."""
    return legal[rand_below(rng, 0, n_legal)]


@njit(cache=True)
def greedy_policy(st, player, legal, n_legal, params, rng):
    """Rule of thumb "win cheaply, keep strong combinations": play the weakest legal play that
    uses all cards of its number (does not split a group); if every play splits one, the
    weakest play; pass only when no play is legal (``params`` unused)."""
    base = HAND + BLOCK * player
    best = legal[0]
    bkey = 1 << 40
    for i in range(n_legal):
        a = legal[i]
        if a == PASS:
            continue
        v = a & 15
        k = a >> 4
        key = play_strength(v, k)
        if st[base + v] != k:
            key += 1 << 20
        if key < bkey:
            bkey = key
            best = a
    return best


@njit(cache=True)
def heuristic_score(st, player, a, params):
    """Linear score of action ``a`` for the ``heuristic`` family (see
    :data:`HEURISTIC_PARAM_NAMES`)."""
    tv = st[TABLE_NUM]
    tk = st[TABLE_COUNT]
    if a == PASS:
        pts = tk if (tv != 0 and tv != R) else 0
        return params[6] + params[7] * pts
    base = HAND + BLOCK * player
    v = a & 15
    k = a >> 4
    s = params[0] * k + params[1] * (10 - v) / 9.0 + params[2] * (st[base + v] - k)
    s += params[3] * tk
    if v == R:
        s += params[4]
    if st[base] == k:
        s += params[5]
    return s


@njit(cache=True)
def heuristic_policy(st, player, legal, n_legal, params, rng):
    """Tunable family: the legal action of highest :func:`heuristic_score` (ties: the earlier
    legal action)."""
    best = legal[0]
    bs = -1e300
    for i in range(n_legal):
        s = heuristic_score(st, player, legal[i], params)
        if s > bs:
            bs = s
            best = legal[i]
    return best


@njit(cache=True)
def act(kind, st, player, legal, n_legal, params, rng):
    """Dispatch to the policy numbered ``kind`` (``RANDOM`` 0, ``GREEDY`` 1, ``HEURISTIC`` 2);
    returns the chosen action code (an element of ``legal[:n_legal]``)."""
    if kind == RANDOM:
        return random_policy(st, player, legal, n_legal, params, rng)
    if kind == GREEDY:
        return greedy_policy(st, player, legal, n_legal, params, rng)
    return heuristic_policy(st, player, legal, n_legal, params, rng)


REGISTRY: dict[str, AgentSpec] = {
    "random": AgentSpec(RANDOM, np.zeros(N_PARAMS), "uniform among legal actions"),
    "greedy": AgentSpec(GREEDY, np.zeros(N_PARAMS),
                        "weakest play that keeps groups whole; never passes by choice"),
    "heuristic": AgentSpec(HEURISTIC, HEURISTIC_DEFAULT.copy(),
                           "linear score of each play and of passing (8 parameters)"),
}
"""Policies by name."""


class Agent(PolicyAgent):
    """A named ReCURRRing policy with its parameter vector
    (:class:`agents.policy_base.PolicyAgent`): ``Agent("greedy")(game, rng)`` returns the
    action for the current player of a step-API game."""

    game = "ReCURRRing"
    registry = REGISTRY
    n_params = N_PARAMS
    dispatch = staticmethod(act)


def make_agent(name: str, params=None) -> Agent:
    """The registered policy ``name`` with ``params`` (default: its registry defaults)."""
    return Agent(name, params)


def resolve(policies, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Seat policies -> (``int64`` kinds (n_players,), ``float64`` params (n_players, 8)); see
    :meth:`agents.policy_base.PolicyAgent.resolve` (raises ``ValueError`` on bad entries)."""
    return Agent.resolve(policies, n_players)
