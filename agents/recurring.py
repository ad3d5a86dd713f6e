"""Shipped policies of ReCURRRing (``docs/rules/recurring.md``): ``random``, ``greedy`` and
the tunable ``heuristic`` family, behind the one policy protocol (:mod:`agents.policy`).

Each policy is compiled with the signature ``policy(state, player, legal, n_legal, params, rng)``:
``state`` is the ``int64`` state of :mod:`engines.recurring.core`, ``legal[:n_legal]`` the
legal action ids (ascending: ``PASS = 0`` first when allowed, then ``16 * count + number``),
``params`` a ``float64`` vector, ``rng`` the seat's ``int64 (SEAT_WORDS,)`` memory (word 0 its
splitmix64 stream; the policies here keep no plan: every move is one decision). The policies
read only the acting seat's hand and the table, so they play the same on a determinized copy
of the state (``sees_hidden`` is False for all three).

This module exports what :mod:`agents.policy` asks of a game: :data:`SPECS`, :func:`act`,
:func:`make_aux` and :data:`PARAMS_WIDTH`.
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.table_loop import run_table
from engines.names import GAME_IDS
from agents.contract import lazy_feature_hooks
from agents.policy import PolicySpec
from agents.search import relative_to_mean
from engines.protocol import chance
from engines.recurring import core
from engines.recurring.core import BLOCK, HAND, PASS, R, TABLE_COUNT, TABLE_NUM, play_strength

__all__ = ["SPECS", "act", "make_aux", "PARAMS_WIDTH", "RANDOM", "GREEDY", "HEURISTIC",
           "HEURISTIC_DEFAULT", "HEURISTIC_PARAM_NAMES", "random_policy", "greedy_policy",
           "heuristic_policy", "heuristic_score"]

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
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
HEURISTIC_DEFAULT = (-0.674, -0.173, -0.166, 0.201, 0.365, 4.408, -6.027, -0.297)
"""Default parameter vector of the ``heuristic`` family (names: :data:`HEURISTIC_PARAM_NAMES`),
found by the project's first tuner (``experiments.climbing_tune recurring --candidates 150
--games 3000``, since replaced by ``boardlab tune recurring heuristic``, which re-tunes it) from
the hand-set start ``[-0.2, -1, -0.3, 0.1, 0.3, 2, -1, -0.2]``."""
PARAMS_WIDTH = len(HEURISTIC_PARAM_NAMES)
"""Length of every parameter row passed to :func:`act` (8)."""


@njit(cache=True)
def random_policy(state, player, legal, n_legal, params, rng):
    """Uniform choice among the legal actions: ``legal[rand_below(rng, 0, n_legal)]``
    (``params`` unused)."""
    return legal[chance.rand_below(rng, 0, n_legal)]


@njit(cache=True)
def greedy_policy(state, player, legal, n_legal, params, rng):
    """Rule of thumb "win cheaply, keep strong combinations": play the weakest legal play that
    uses all cards of its number (does not split a group); if every play splits one, the
    weakest play; pass only when no play is legal (``params`` and ``rng`` unused)."""
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
        if state[base + v] != k:
            key += 1 << 20
        if key < bkey:
            bkey = key
            best = a
    return best


@njit(cache=True)
def heuristic_score(state, player, a, params):
    """Linear score (float) of action ``a`` for seat ``player`` in the ``heuristic`` family
    (weights: :data:`HEURISTIC_PARAM_NAMES`); reads only that seat's hand and the table."""
    tv = state[TABLE_NUM]
    tk = state[TABLE_COUNT]
    if a == PASS:
        pts = tk if (tv != 0 and tv != R) else 0
        return params[6] + params[7] * pts
    base = HAND + BLOCK * player
    v = a & 15
    k = a >> 4
    s = params[0] * k + params[1] * (10 - v) / 9.0 + params[2] * (state[base + v] - k)
    s += params[3] * tk
    if v == R:
        s += params[4]
    if state[base] == k:
        s += params[5]
    return s


@njit(cache=True)
def heuristic_policy(state, player, legal, n_legal, params, rng):
    """Tunable family: the legal action of highest :func:`heuristic_score` (ties: the earlier,
    i.e. smaller, legal action; ``rng`` unused)."""
    best = legal[0]
    bs = -1e300
    for i in range(n_legal):
        s = heuristic_score(state, player, legal[i], params)
        if s > bs:
            bs = s
            best = legal[i]
    return best


@njit(cache=True)
def act(kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` (``RANDOM`` 0, ``GREEDY`` 1, ``HEURISTIC`` 2) for
    ``player``: one of ``legal[:n_legal]``. ``params``: ``float64 (PARAMS_WIDTH,)``; ``aux``:
    :func:`make_aux` (unused); ``rng``: the seat's ``int64 (SEAT_WORDS,)`` memory."""
    if kind == RANDOM:
        return random_policy(state, player, legal, n_legal, params, rng)
    if kind == GREEDY:
        return greedy_policy(state, player, legal, n_legal, params, rng)
    return heuristic_policy(state, player, legal, n_legal, params, rng)


def make_aux(config) -> np.ndarray:
    """Game data of the shipped policies: none (``float64 (0,)``) for ReCURRRing."""
    return np.zeros(0, dtype=np.float64)


POLICY_FUNCTIONS = {"random": random_policy, "greedy": greedy_policy,
                    "heuristic": heuristic_policy}
"""Policy name -> compiled policy function (the one signature of :mod:`agents.policy`)."""

SPECS = (
    PolicySpec("recurring", "random", RANDOM, (), (), "uniform among the legal actions"),
    PolicySpec("recurring", "greedy", GREEDY, (), (),
               "weakest play that keeps groups whole; passes only when it must"),
    PolicySpec("recurring", "heuristic", HEURISTIC, HEURISTIC_DEFAULT, HEURISTIC_PARAM_NAMES,
               "linear score of each play and of passing (8 tuned weights)"),
)
"""The shipped policies (:class:`agents.policy.PolicySpec`), in display order."""


# ---- the leaf value of the search agents (agents.search) ----------------------------------------
LEAF_VALUE_NAMES = ("points", "hand_card", "emptied", "r_in_hand")
"""Weights of :func:`leaf_value`: each point scored so far (rules "Scoring"), each card still
in hand (cards left when the game ends score nothing and a big hand is slow to empty), having
emptied one's hand (it ends the game and lets one's R cards score), each R card in hand."""
LEAF_VALUE_DEFAULT = np.array([1.0, 0.25, 2.0, 0.0])

SEARCH_HORIZON = 2
"""ReCURRRing's search presets roll out to the end of the game (games are short and cheap).
Measured at 4 players, 200 deals x 4 seats, one search seat against three `heuristic` (mean
points, heuristic in the same seat 7.30): `pimc` to the end of the round 6.12 (-1.19 +- 0.37),
to the end of the game 14.97 (+7.67 +- 0.33)."""


@njit(cache=True)
def leaf_value(s, w, out):
    """Each seat's value of state ``s`` into ``out`` (``float64 (MAX_PLAYERS,)``), relative
    to the mean of the seats (a competitive game): the points banked so far (the final points
    at the end of the game) with the weights :data:`LEAF_VALUE_NAMES`. Reads only public
    counts (hand sizes, score piles, the R counts of one's own hand are not used)."""
    n = s[core.N_PLAYERS]
    for p in range(n):
        v = w[0] * core.points_of(s, p)
        if s[core.PHASE] != core.PHASE_OVER:
            v -= w[1] * s[core.HAND + core.BLOCK * p]
            v += w[2] * s[core.EMPTIED + p]
        out[p] = v
    relative_to_mean(out, n)


# The action features of the learned policy (format 2 of agents.net): the optional hook group
# of agents.contract, defined in agents/recurring_features.py (which builds on this module's
# heuristic score) and loaded on first use, so either module may be imported first.
__getattr__ = lazy_feature_hooks(__name__, "agents.recurring_features")


GAME_ID = GAME_IDS["recurring"]
"""ReCURRRing's id in :data:`engines.protocol.GAME_IDS` (the constant its loop is compiled for)."""


@njit(cache=True)
def play_table(one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """ReCURRRing's compiled game loop: :func:`agents.table_loop.run_table` for this game (the
    arguments are documented there), compiled and cached with this game's sources, so that an
    edit to another game's files leaves it cached; ``one_kind`` is made a literal."""
    literally(one_kind)
    run_table(GAME_ID, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad,
              None, None, None, None)
