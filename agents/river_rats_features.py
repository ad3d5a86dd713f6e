"""River Rats' action features for the learned policy ``net`` (format ``boardlab.net/2`` of
:mod:`agents.net`): what a decision looks like to the acting player, as a few numbers per
state and per legal action, built from the plan heuristic's own valuation and a small
Monte Carlo of the showdown.

Why (the diagnosis in ``agents/weights/river_rats.md``): a network on the one-hot card tensor
does not learn the poker-hand reasoning that makes ``pimc`` strong; it needs the hand's
chances spelled out. So each legal action gets its kind, its card, the heuristic's value of it
(:func:`agents.river_rats.action_values`, the same numbers the heuristic decides by) and the chance
that the collective hand would beat the Rat after it, estimated on ``K_WORLDS`` sampled worlds
shared by all actions of the decision (common random numbers: the differences between actions
are far less noisy than each chance): the Rat's face-down cards and the open slots of the
collective hand are dealt from the cards the player cannot place (uniformly, as
:func:`engines.river_rats.core.determinize` would), the collective hand is scored with the
River Rats ranking (``docs/rules/river_rats.md`` "Hand ranking") and the Rat wins ties
("Resolution" 3).

Reads only what the player may see (``core.observe``: own hand, market, collective hand but a
face-down card of another player, reveals, the Rat's face-up cards, prediction, characters,
the cards out of the game, pile counts); the worlds' random stream comes from the seat's
memory word 0 (not advanced) mixed with the public decision count, so the features never
depend on hidden cards (the fairness test of the search agents covers ``net``).

The hook (:mod:`agents.contract`, group "action features"): :func:`action_features` fills
``state_out`` ``float32 (len(STATE_FEATURE_NAMES),)`` and ``action_out`` ``float32 (n_legal,
len(ACTION_FEATURE_NAMES))`` (rows of the legal actions in order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents import river_rats
from agents.stack_arrays import stack_f64, stack_i64
from engines.poker import RULES_STANDARD, eval_at
from engines.protocol.chance import rand_below
from engines.river_rats import core

__all__ = ["STATE_FEATURE_NAMES", "ACTION_FEATURE_NAMES", "FEATURES_VERSION",
           "K_WORLDS", "action_features"]

FEATURES_VERSION = 1
"""The version of what River Rats' features compute (in the features hash of the weights,
:func:`agents.net.layout_signature`): bump it whenever what any feature computes changes (the
worlds' sampling included), regenerate the golden features (``tests/learn/test_features_golden.py``)
and retrain or re-stamp ``agents/weights/river_rats.npz``. A pure refactor keeps it."""

K_WORLDS = 8
"""Sampled worlds per decision for the showdown chances."""

STATE_FEATURE_NAMES = (
    ("players_1", "players_2", "players_3", "players_4", "open_slots", "collective_cards",
     "players_debt", "rat_debt", "stake", "rat_clubs", "rat_diamonds", "rat_hearts",
     "rat_spades", "rats_defeated", "jokers_earned", "base_score", "best_play_score",
     "win_chance_now", "rat_face_down", "rat_face_up_category", "hand_size", "deck_size",
     "prediction_category", "legal_count", "my_suit_is_rat_suit")
    + tuple(f"rat_category_{k}" for k in range(9)))
"""The decision's features (the same for every action), each scaled to about 0..1."""

ACTION_FEATURE_NAMES = (
    tuple(f"kind_{k}" for k in range(core.N_KINDS))
    + ("value", "value_gap", "heuristic_choice", "value_rank", "score_gain", "win_chance",
       "win_gain", "completes", "rank", "suit_clubs", "suit_diamonds", "suit_hearts",
       "suit_spades", "joker", "my_suit", "rat_suit", "rank_in_collective",
       "suit_in_collective", "deck_top"))
"""Each legal action's features: its kind (one-hot), the heuristic's value of it, its gap to
the best value, whether the heuristic picks it and its rank among the values, the score gain
of its card for the collective hand, the showdown chance after it and its gain over now,
whether it fills the collective hand, its card (rank, suit, joker, the player's or the Rat's
suit, how many of its rank and suit the collective hand holds), the top deck card."""

N_STATE = len(STATE_FEATURE_NAMES)
N_ACTION = len(ACTION_FEATURE_NAMES)
_A_VALUE = core.N_KINDS
_FILL = 8  # at most T + 1 <= 7 cards dealt to the open slots per world
_WORLD_CARDS = K_WORLDS * _FILL
_F_SIZE = river_rats.F_SIZE  # module-level ints: compile-time sizes of the stack scratch
_W_SIZE = river_rats.W_SIZE
_MAX_LEGAL = core.MAX_LEGAL


@njit(cache=True)
def _showdown(s, known, nk, fills, nfill, rat_str, buf):
    """Share of the ``K_WORLDS`` worlds where the players' cards ``known[:nk]`` plus the
    world's next ``nfill`` pool cards (``fills[w * _FILL:]``) beat the Rat's strength
    ``rat_str[w]`` (the Rat wins ties); ``buf``: int64 scratch of at least 16."""
    wins = 0
    for w in range(K_WORLDS):
        for i in range(nk):
            buf[i] = known[i]
        for i in range(nfill):
            buf[nk + i] = fills[w * _FILL + i]
        v = core.ranked(s, eval_at(buf, 0, nk + nfill, RULES_STANDARD))
        if v > rat_str[w]:
            wins += 1
    return wins / K_WORLDS


@njit(cache=True)
def action_features(s, player, legal, n_legal, params, rng, state_out, action_out):
    """Fill ``state_out`` (``float32 (N_STATE,)``) and ``action_out[:n_legal]`` (``float32
    (n_legal, N_ACTION)``) for ``player`` deciding among ``legal[:n_legal]`` in state ``s``
    (River Rats, :mod:`engines.river_rats.core`); ``params``: the heuristic's parameter vector
    (:data:`agents.river_rats.DEFAULT_PARAMS`); ``rng``: the seat's memory (read, not
    changed). Module docstring for what each feature is and why it is fair."""
    f = stack_f64(_F_SIZE)
    w = stack_i64(_W_SIZE)
    river_rats.action_values(s, player, legal, n_legal, params, False, False, f, w)
    T = s[core.TARGET]
    L = T - w[river_rats.W_NC]
    base = river_rats.base_score(f, w, L, params)
    bestp = river_rats.best_play_memo(f, w, L, params) if L >= 1 else base
    vmax = f[river_rats.F_VALS]
    for i in range(1, n_legal):
        if f[river_rats.F_VALS + i] > vmax:
            vmax = f[river_rats.F_VALS + i]
    order = stack_i64(_MAX_LEGAL)
    hc = river_rats.argmax_action(s, f[river_rats.F_VALS:river_rats.F_VALS + n_legal], n_legal,
                                  legal, rng, False, order)
    # what the player sees: the pool of cards it cannot place, the known players' cards
    seen = np.int64(0)
    hb = core.hand_base(player)
    for i in range(s[hb]):
        if s[hb + 1 + i] < 52:
            seen |= river_rats.card_bit(s[hb + 1 + i])
    for i in range(s[core.MARKET]):
        seen |= river_rats.card_bit(s[core.MARKET + 1 + i])
    known = stack_i64(16)
    nk = 0
    fd_hidden = 0
    coll_rank = stack_i64(13)
    coll_suit = stack_i64(4)
    for r in range(13):
        coll_rank[r] = 0
    for su in range(4):
        coll_suit[su] = 0
    fd = s[core.COLL_FD] == 1
    for b in (core.COLL, core.REVEAL):
        for i in range(s[b]):
            c = s[b + 1 + i]
            if b == core.COLL and i == 0 and fd and s[core.FD_OWNER] != player and c < 52:
                fd_hidden += 1
                continue
            known[nk] = c
            nk += 1
            if c < 52:
                seen |= river_rats.card_bit(c)
                coll_rank[c >> 2] += 1
                coll_suit[c & 3] += 1
    rat = stack_i64(24)
    nr = 0
    nfd = 0
    for i in range(s[core.RAT]):
        c = s[core.RAT + 1 + i]
        if s[core.RAT_UP + i] == 1:
            seen |= river_rats.card_bit(c)
            rat[nr] = c
            nr += 1
        else:
            nfd += 1
    if s[core.PRED_CARD] >= 0:
        seen |= river_rats.card_bit(s[core.PRED_CARD])
    for b in (core.CHARS, core.OUT):
        for i in range(s[b]):
            if s[b + 1 + i] < 52:
                seen |= river_rats.card_bit(s[b + 1 + i])
    pool = stack_i64(52)
    npool = 0
    for c in range(52):
        if not (seen >> (16 * (c & 3) + (c >> 2))) & 1:
            pool[npool] = c
            npool += 1
    # the worlds: the Rat's face-down cards, then the cards of the open slots
    mem = stack_i64(1)
    mem[0] = rng[0] ^ (s[core.N_ACTIONS] * np.int64(0x5851F42D4C957F2D))
    nfill_max = min(T + 1, _FILL)
    fills = stack_i64(_WORLD_CARDS)
    rat_str = stack_i64(K_WORLDS)
    rat_cat = stack_f64(9)
    for k in range(9):
        rat_cat[k] = 0.0
    buf = stack_i64(32)
    for wd in range(K_WORLDS):
        m = npool
        for i in range(nr):
            buf[i] = rat[i]
        take = min(nfd + nfill_max, npool)
        for j in range(take):  # partial Fisher-Yates on the pool
            r = j + rand_below(mem, 0, m - j)
            t = pool[j]
            pool[j] = pool[r]
            pool[r] = t
        for j in range(min(nfd, take)):
            buf[nr + j] = pool[j]
        nrat = nr + min(nfd, take)
        v = core.ranked(s, eval_at(buf, 0, nrat, RULES_STANDARD)) if nrat >= 5 else 0
        rat_str[wd] = v
        rat_cat[v >> 20] += 1.0 / K_WORLDS
        for j in range(nfill_max):
            fills[wd * _FILL + j] = pool[min(nfd, take) + j] if min(nfd, take) + j < take \
                else -1
    nfill_now = T - nk
    win_now = _showdown(s, known, nk, fills, nfill_now, rat_str, buf) \
        if nfill_now >= 0 and nk + nfill_now >= 5 and fills[max(nfill_now - 1, 0)] >= 0 \
        else 0.0
    # the state's features
    for i in range(N_STATE):
        state_out[i] = 0.0
    np_ = s[core.N_PLAYERS]
    state_out[np_ - 1] = 1.0
    state_out[4] = L / 6.0
    state_out[5] = w[river_rats.W_NC] / 6.0
    state_out[6] = s[core.PDEBT] / 5.0
    state_out[7] = s[core.RDEBT] / 5.0
    state_out[8] = s[core.STAKE] / 5.0
    if s[core.ACTIVE] >= 0:
        state_out[9 + s[core.ACTIVE]] = 1.0
    state_out[13] = s[core.DEFEATED]
    state_out[14] = s[core.JUP]
    state_out[15] = base
    state_out[16] = bestp
    state_out[17] = win_now
    state_out[18] = nfd / 5.0
    state_out[19] = (core.ranked(s, eval_at(rat, 0, nr, RULES_STANDARD)) >> 20) / 8.0 \
        if nr >= 5 else 0.0
    state_out[20] = s[hb] / 3.0
    state_out[21] = s[core.DECK] / 50.0
    state_out[22] = (s[core.PRED_CAT] + 1) / 9.0
    state_out[23] = n_legal / 20.0
    my_suit = s[core.CHAR0 + player]
    state_out[24] = 1.0 if my_suit == s[core.ACTIVE] else 0.0
    for k in range(9):
        state_out[25 + k] = rat_cat[k]
    # each action's features
    known2 = stack_i64(16)
    for i in range(n_legal):
        a = legal[i]
        kd = a >> 6
        arg = a & 63
        row = action_out[i]
        for j in range(N_ACTION):
            row[j] = 0.0
        row[kd] = 1.0
        v = f[river_rats.F_VALS + i]
        row[_A_VALUE] = v
        row[_A_VALUE + 1] = v - vmax
        row[_A_VALUE + 2] = 1.0 if a == hc else 0.0
        better = 0
        for j in range(n_legal):
            if f[river_rats.F_VALS + j] > v:
                better += 1
        row[_A_VALUE + 3] = better / n_legal
        add = -1
        remove = -1
        if kd == core.K_PLAY or kd == core.K_JOKER or kd == core.K_DRAW_MARKET:
            add = arg
        elif kd == core.K_SWAP_IN or kd == core.K_PSWAP_IN:
            add = arg
            remove = s[core.PENDING]
        card = arg if (arg < 54 and kd != core.K_DRAW_DECK and kd != core.K_NONE
                       and kd != core.K_STAKE and kd != core.K_PSTAKE and kd != core.K_STOP
                       and kd != core.K_STUCK and kd != core.K_PREVEAL and kd != core.K_JREMOVE
                       and kd != core.K_EREVEAL and kd != core.K_ESTOP) else -1
        win = win_now
        if add >= 0 and L >= 1:
            row[_A_VALUE + 4] = river_rats.add_score(f, w, add, L, params) - base \
                if remove < 0 else v - base
            nk2 = 0
            for j in range(nk):
                if known[j] != remove:
                    known2[nk2] = known[j]
                    nk2 += 1
            known2[nk2] = add
            nk2 += 1
            nf = T - nk2
            if nf >= 0 and nk2 + nf >= 5 and (nf == 0 or fills[nf - 1] >= 0):
                win = _showdown(s, known2, nk2, fills, nf, rat_str, buf)
            row[_A_VALUE + 7] = 1.0 if (nf == 0 and kd != core.K_DRAW_MARKET) else 0.0
        row[_A_VALUE + 5] = win
        row[_A_VALUE + 6] = win - win_now
        if card >= 0:
            if card >= 52:
                row[_A_VALUE + 13] = 1.0
            else:
                row[_A_VALUE + 8] = (card >> 2) / 12.0
                row[_A_VALUE + 9 + (card & 3)] = 1.0
                row[_A_VALUE + 14] = 1.0 if (card & 3) == my_suit else 0.0
                row[_A_VALUE + 15] = 1.0 if (card & 3) == s[core.ACTIVE] else 0.0
                row[_A_VALUE + 16] = coll_rank[card >> 2] / 3.0
                row[_A_VALUE + 17] = coll_suit[card & 3] / 5.0
        if arg == core.DECK_TOP and kd != core.K_DRAW_DECK:
            row[_A_VALUE + 18] = 1.0
