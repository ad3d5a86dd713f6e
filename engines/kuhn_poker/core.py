"""Kuhn poker's rules core (``docs/rules/kuhn_poker.md``): the compiled kernels of the game
protocol (:mod:`engines.protocol`) over a flat ``int64`` state, the worked example of
``docs/adding_a_game.md``.

Kuhn (1950), "A simplified two-person poker": a deck of three cards, Jack < Queen < King
(card ids 0, 1, 2); each player antes 1 chip and is dealt one card; player 0 acts first.
Actions: ``PASS`` (0: check, or fold facing a bet) and ``BET`` (1: bet 1 chip, or call). The
betting ends at ``pass pass`` (showdown for 1), ``bet pass`` / ``pass bet pass`` (the bettor
wins 1) or a call ``bet bet`` / ``pass bet bet`` (showdown for 2). The first player's value
under equilibrium play is -1/18.

The deal is the only chance event: one of :data:`NUM_DEALS` (6) equally likely ordered pairs
of distinct cards (:data:`DEALS`). :func:`init_state` draws it from the seed word;
:func:`init_deal` starts from a given deal, so an adapter can make the deal an explicit chance
node (OpenSpiel's CFR needs the whole tree).

State layout (``int64 (STATE_SIZE,)``):

=========  ==================================================================================
index      meaning
=========  ==================================================================================
0          ``N`` player count (2)
1, 2       ``CARD + p``: player ``p``'s card (0 J, 1 Q, 2 K)
3          ``HLEN``: actions taken so far (0..3)
4..6       ``HIST``: the actions in order
7          ``CUR``: the seat to act, -1 once over
8          ``OVER``: 1 once the game is over
9          ``WORD``: the chance word (splitmix64 state; only the seed's deal uses it)
10, 11     ``RET + p``: player ``p``'s chips won (negative: lost) at the end
12         ``DEAL``: the deal's index in :data:`DEALS`
13         ``SHOW``: 1 if the game ended at a showdown (both cards shown)
=========  ==================================================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.chance import rand_below

GAME_NAME = "kuhn_poker"
MIN_PLAYERS = 2
MAX_PLAYERS = 2
CONFIG_SIZE = 1
N, CARD, HLEN, HIST, CUR, OVER, WORD, RET, DEAL, SHOW = 0, 1, 3, 4, 7, 8, 9, 10, 12, 13
STATE_SIZE = 14
PASS, BET = 0, 1
NUM_DISTINCT_ACTIONS = 2
HIDDEN_ACTION = NUM_DISTINCT_ACTIONS
MAX_LEGAL = 2
MAX_GAME_LENGTH = 3
CARD_NAMES = ("J", "Q", "K")
DEALS = np.array([(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)], dtype=np.int64)
"""The deals: ``DEALS[d] = (card of player 0, card of player 1)``, in OpenSpiel's order (player
0's card, then player 1's among the rest)."""
NUM_DEALS = 6
OBS_SIZE = 8
"""``observe(s, p)``: ``[p, own card, the opponent's card or -1 (shown at a showdown), HLEN,
HIST[0..2] (-1 padded), CUR]``."""
INFO_SIZE = OBS_SIZE
TENSOR_SIZE = 11
"""``observation_tensor``: OpenSpiel's ``kuhn_poker`` information-state tensor: the player
one-hot (2), the own card one-hot (3), then per betting step one-hot (pass, bet) (3 x 2)."""
INVENTORY_SIZE = 3
OUTCOME_FIELDS = ("winner", "pot", "showdown", "actions")
"""Per game: the seat that won the pot, the pot's size (2 or 4 chips), 1 if the cards were
shown, the number of actions."""


@njit(cache=True)
def init_deal(cfg, deal, out):
    """A new game in ``out`` with deal ``deal`` (index into :data:`DEALS`) and chance word 0;
    ``cfg``: the config array."""
    for i in range(STATE_SIZE):
        out[i] = 0
    out[N] = cfg[0]
    out[CARD] = DEALS[deal, 0]
    out[CARD + 1] = DEALS[deal, 1]
    out[DEAL] = deal
    for i in range(3):
        out[HIST + i] = -1
    out[CUR] = 0


@njit(cache=True)
def init_state(cfg, seed, out):
    """A new game in ``out`` from config ``cfg`` and seed word ``seed``: the deal is drawn
    uniformly from :data:`DEALS` with the seed's stream."""
    w = np.zeros(1, dtype=np.int64)
    w[0] = seed
    d = rand_below(w, 0, NUM_DEALS)
    init_deal(cfg, d, out)
    out[WORD] = w[0]


@njit(cache=True)
def legal_actions(s, out):
    """``PASS`` and ``BET`` while the game runs (ascending), none once over."""
    if s[OVER] != 0:
        return 0
    out[0] = PASS
    out[1] = BET
    return 2


@njit(cache=True)
def _settle(s, winner, pot, show):
    s[OVER] = 1
    s[CUR] = -1
    s[SHOW] = show
    s[RET + winner] = pot // 2
    s[RET + 1 - winner] = -(pot // 2)


@njit(cache=True)
def apply_action(s, a):
    """Apply ``a`` (``PASS`` or ``BET``) of the player to act (module docstring)."""
    k = s[HLEN]
    s[HIST + k] = a
    s[HLEN] = k + 1
    hi = 0 if s[CARD] > s[CARD + 1] else 1
    if k == 0:
        s[CUR] = 1
    elif k == 1:
        first = s[HIST]
        if first == PASS and a == PASS:
            _settle(s, hi, 2, 1)
        elif first == PASS and a == BET:
            s[CUR] = 0
        elif a == PASS:
            _settle(s, 0, 2, 0)  # bet, fold: player 0 takes the antes
        else:
            _settle(s, hi, 4, 1)
    else:  # pass, bet, then player 0
        if a == PASS:
            _settle(s, 1, 2, 0)
        else:
            _settle(s, hi, 4, 1)


@njit(cache=True)
def is_terminal(s):
    """True once the game is over."""
    return s[OVER] != 0


@njit(cache=True)
def returns(s, out):
    """Each player's chips won or lost (0 while the game runs)."""
    for p in range(out.shape[0]):
        out[p] = 0.0
    out[0] = float(s[RET])
    out[1] = float(s[RET + 1])


@njit(cache=True)
def current_player(s):
    """The seat to act, -1 once over."""
    return s[CUR]


@njit(cache=True)
def num_players(s):
    """2."""
    return s[N]


@njit(cache=True)
def observe(s, p, out):
    """What player ``p`` sees (:data:`OBS_SIZE`): its card, the opponent's at a showdown, the
    betting."""
    out[0] = p
    out[1] = s[CARD + p]
    out[2] = s[CARD + 1 - p] if s[SHOW] != 0 else -1
    out[3] = s[HLEN]
    for i in range(3):
        out[4 + i] = s[HIST + i]
    out[7] = s[CUR]


@njit(cache=True)
def information_state(s, p, out):
    """What ``p`` knows: the observation (the betting is the whole public history)."""
    observe(s, p, out)


@njit(cache=True)
def observation_tensor(s, p, out):
    """:data:`TENSOR_SIZE` floats: OpenSpiel's ``kuhn_poker`` information-state tensor."""
    for i in range(TENSOR_SIZE):
        out[i] = 0.0
    out[p] = 1.0
    out[2 + s[CARD + p]] = 1.0
    for i in range(s[HLEN]):
        out[5 + 2 * i + s[HIST + i]] = 1.0


@njit(cache=True)
def determinize(s, p, seed, out):
    """A copy of ``s`` in which the opponent's card is resampled uniformly among the two cards
    ``p`` does not hold (unless shown at a showdown), reseeded from ``seed``."""
    for i in range(STATE_SIZE):
        out[i] = s[i]
    w = np.zeros(1, dtype=np.int64)
    w[0] = seed
    if s[SHOW] == 0:
        own = s[CARD + p]
        k = rand_below(w, 0, 2)
        c = 0
        for x in range(3):
            if x != own:
                if k == 0:
                    c = x
                    break
                k -= 1
        out[CARD + 1 - p] = c
        for d in range(NUM_DEALS):
            if DEALS[d, 0] == out[CARD] and DEALS[d, 1] == out[CARD + 1]:
                out[DEAL] = d
    out[WORD] = w[0]


@njit(cache=True)
def observed_action(s, a, p):
    """Every action is public: ``a``."""
    return a


@njit(cache=True)
def inventory(s, out):
    """One of each card (the two dealt and the one left out)."""
    for i in range(INVENTORY_SIZE):
        out[i] = 0
    out[s[CARD]] += 1
    out[s[CARD + 1]] += 1
    out[3 - s[CARD] - s[CARD + 1]] += 1


@njit(cache=True)
def outcome(s, out):
    """:data:`OUTCOME_FIELDS` of a finished game."""
    out[0] = 0 if s[RET] > 0 else 1
    out[1] = 2 * abs(s[RET])
    out[2] = s[SHOW]
    out[3] = s[HLEN]


@njit(cache=True)
def progress(s, level):
    """The game is one hand: the counter changes when it ends (every level)."""
    return s[OVER]
