"""Rats' action features for the learned policy ``net`` (format ``boardlab.net/2`` of
:mod:`agents.net`): what a decision looks like to the acting player, as a few numbers per
state and per legal action (``docs/rules/rats.md``).

Why: the tensor network (format 1) closed 39% of the gap between the heuristic and ``pimc``
and flattened from 0.6M decisions. A Rats decision is one step of a whole play (the kind of a
lead, a card added to it, ``FINISH``, one card of a follower's play), so a single action says
little on its own; its features describe the whole play it leads to:

- a **declaration** (single, set, sequence): the best lead of that kind under the heuristic's
  lead score (:func:`agents.rats.plan_lead`'s linear score), its cards, jokers and strength,
  how many leads of the kind the hand holds, and how many cards the player cannot see could
  beat it;
- a **card added to a lead** or ``FINISH``: the same for the best lead that this step still
  allows (the leads of :func:`engines.rats.core.generate_leads` that extend the cards chosen);
- a **follower's card**: whether it belongs to the cheapest play that takes the trick now
  (:func:`agents.rats.cheapest_win`) or to the cheapest cards to shed, whether as a single it
  wins now, follows the led suit, how many unseen cards of its suit rank above it, its keeping
  value and rank among the hand;
- for every action: its kind, its card, whether the heuristic picks it.

The state's features say what the rules make urgent: whether the player captured a card this
round (one who captures nothing is out, "End of a round"), how many opponents have not, the
sizes of the holdings, the trick so far and whether the player plays last to it.

Reads only what the player may see: its hand and set-aside pile, every table and capture pile
(played face up), the public counts; "unseen" cards are all cards but those. The heuristic's
choice is asked on a copy of the seat memory. Nothing random is used, so the features are the
same on every determinized world (tested).

The hook (:mod:`agents.contract`, group "action features"): :func:`action_features` fills
``state_out`` ``float32 (len(STATE_FEATURE_NAMES),)`` and ``action_out`` ``float32 (n_legal,
len(ACTION_FEATURE_NAMES))`` (rows of the legal actions in order).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.rats import _cheapest_cards, _lead_score, card_value, cheapest_win, \
    heuristic_policy, lead_strength, trick_best
from agents.stack_arrays import stack_f64, stack_i64
from engines.protocol.chance import SEAT_WORDS
from engines.rats import core as C

__all__ = ["STATE_FEATURE_NAMES", "ACTION_FEATURE_NAMES", "action_features"]

STATE_FEATURE_NAMES = (
    "players_2", "players_3", "players_4", "players_5", "alive", "declare", "build", "follow",
    "lead_single", "lead_set", "lead_seq", "lead_cards", "hand_size", "captured",
    "captured_none", "aside", "holding", "round", "round_hand_size", "plays_done",
    "plays_last", "trick_cards", "opponents_without_capture", "best_opponent_holding",
    "least_opponent_holding", "jokers", "can_win_trick", "trick_best_is_uncaptured")
"""The decision's features (the same for every action), each scaled to about 0..1: player
count (one-hot), players alive, the phase, the lead's kind and cards, the own hand, captures
this round (and whether none), set-aside pile and holding, round and its hand size, the trick
so far (plays, whether the player plays last, cards in it), opponents still without a capture
this round, the largest and smallest opponent holding, own jokers, whether the player can take
the trick now, whether the best play of the trick belongs to a player without a capture."""

ACTION_FEATURE_NAMES = (
    "declare_single", "declare_set", "declare_seq", "finish", "card", "rank", "suit_clubs",
    "suit_diamonds", "suit_hearts", "suit_spades", "joker", "card_value", "heuristic_choice",
    "lead_score", "lead_score_gap", "lead_cards", "lead_jokers", "lead_strength",
    "lead_options", "lead_beaters", "lead_empties", "in_win_plan", "in_shed_plan",
    "wins_now", "follows_suit", "higher_unseen", "value_rank")
"""Each legal action's features: its kind (declare single / set / sequence, ``FINISH``, a
card), its card (rank, suit, joker, keeping value); whether the heuristic picks it; for a
leader's step the best lead it allows (heuristic lead score, gap to the best step, cards,
jokers, strength, number of such leads, unseen cards that could beat it, whether it empties
the hand); for a follower's card whether it is in the cheapest winning play or in the shed
cards, whether it wins now as a single, follows the led suit, the unseen cards of its suit
above it, its rank by value in the hand."""

N_STATE = len(STATE_FEATURE_NAMES)
N_ACTION = len(ACTION_FEATURE_NAMES)
_MAX_LEADS = C.MAX_LEADS
_SEAT_WORDS = SEAT_WORDS
_N_ACT = C.NUM_DISTINCT_ACTIONS
_ALL = C.CARD_BITS
_A_SCORE = 13
_MAX_LEGAL = C.MAX_LEGAL


@njit(cache=True)
def _beaters(a, unseen):
    """Unseen natural cards that could beat lead ``a`` (``mask | kind << KIND_SHIFT``) by
    themselves: a single's higher cards of its suit; a set's cards of higher ranks; a
    sequence's cards of higher suits (rules "Who takes the trick"). Jokers unseen add one."""
    kind = a >> C.KIND_SHIFT
    mask = a & C.CARD_BITS
    nat = mask & ~C.JOKER_BITS
    extra = C.popcount(unseen & C.JOKER_BITS)
    u = unseen & ~C.JOKER_BITS
    if nat == 0:
        return extra
    c = C.low_bit_index(nat)
    if kind == C.KIND_SINGLE:
        return C.popcount(u & C._above(c) & (np.int64(0x1111111111111) << (c & 3)))
    if kind == C.KIND_SET:
        r = c >> 2
        return extra + C.popcount(u >> (4 * (r + 1)))
    s = c & 3
    n = 0
    for t in range(s + 1, 4):
        n += C.popcount(u & (np.int64(0x1111111111111) << t))
    return extra + n


@njit(cache=True)
def _lead_row(row, a, score, n_leads, unseen, hand):
    row[_A_SCORE] = score
    m = a & C.CARD_BITS
    row[_A_SCORE + 2] = C.popcount(m) / 13.0
    row[_A_SCORE + 3] = C.popcount(m & C.JOKER_BITS) / 2.0
    row[_A_SCORE + 4] = lead_strength(a)
    row[_A_SCORE + 5] = n_leads / 20.0
    row[_A_SCORE + 6] = _beaters(a, unseen) / 12.0
    row[_A_SCORE + 7] = 1.0 if (hand & ~m) == 0 else 0.0


@njit(cache=True)
def action_features(s, player, legal, n_legal, params, rng, state_out, action_out):
    """Fill ``state_out`` (``float32 (N_STATE,)``) and ``action_out[:n_legal]`` (``float32
    (n_legal, N_ACTION)``) for ``player`` deciding among ``legal[:n_legal]`` in state ``s``
    (Rats, :mod:`engines.rats.core`); ``params``: the heuristic's parameter vector
    (:data:`agents.rats.HEURISTIC_DEFAULT`); ``rng``: the seat's memory (read, not changed).
    Module docstring for what each feature is and why it is fair."""
    n = s[C.N_PLAYERS]
    ph = s[C.PHASE]
    hand = s[C.HAND + player]
    played = s[C.TABLE + player]
    jv = params[7]
    seen = hand | s[C.ASIDE + player]
    for q in range(n):
        seen |= s[C.CAPT + q] | s[C.TABLE + q]
    unseen = _ALL & ~seen
    mem = stack_i64(_SEAT_WORDS)
    for i in range(_SEAT_WORDS):
        mem[i] = rng[i]
    hc = heuristic_policy(s, player, legal, n_legal, params, mem)
    # the state's features
    for i in range(N_STATE):
        state_out[i] = 0.0
    state_out[n - 2] = 1.0
    state_out[4] = s[C.N_ALIVE] / 5.0
    state_out[5 + ph] = 1.0
    kind = s[C.LEAD_KIND]
    if kind >= 0:
        state_out[8 + kind] = 1.0
    state_out[11] = s[C.LEAD_N] / 13.0
    state_out[12] = C.popcount(hand) / 13.0
    capt = C.popcount(s[C.CAPT + player])
    state_out[13] = capt / 13.0
    state_out[14] = 1.0 if capt == 0 else 0.0
    aside = C.popcount(s[C.ASIDE + player])
    state_out[15] = aside / 13.0
    state_out[16] = (C.popcount(hand | played) + capt + aside) / 27.0
    state_out[17] = min(s[C.ROUND], 20) / 20.0
    state_out[18] = s[C.HAND_SIZE] / 13.0
    alive = s[C.N_ALIVE]
    npl = s[C.N_PLAYED]
    state_out[19] = npl / 5.0
    state_out[20] = 1.0 if ph == C.PHASE_FOLLOW and npl == alive - 1 else 0.0
    state_out[21] = npl * s[C.LEAD_N] / 20.0
    without = 0
    best_h = 0
    least_h = 99
    for q in range(n):
        if q == player or s[C.ALIVE + q] == 0:
            continue
        cq = C.popcount(s[C.CAPT + q])
        if cq == 0:
            without += 1
        hq = (C.popcount(s[C.HAND + q] | s[C.TABLE + q]) + cq + C.popcount(s[C.ASIDE + q]))
        best_h = max(best_h, hq)
        least_h = min(least_h, hq)
    state_out[22] = without / 4.0
    state_out[23] = best_h / 27.0
    state_out[24] = (least_h if least_h < 99 else 0) / 27.0
    state_out[25] = C.popcount(hand & C.JOKER_BITS) / 2.0
    # each action's features: what is common
    for i in range(n_legal):
        a = legal[i]
        row = action_out[i]
        for j in range(N_ACTION):
            row[j] = 0.0
        if a >= C.LEAD_SINGLE:
            row[a - C.LEAD_SINGLE] = 1.0
        elif a == C.FINISH:
            row[3] = 1.0
        else:
            row[4] = 1.0
            if a >= 52:
                row[10] = 1.0
            else:
                row[5] = (a >> 2) / 12.0
                row[6 + (a & 3)] = 1.0
            row[11] = card_value(a, jv) / 14.0
        row[12] = 1.0 if a == hc else 0.0
    if ph == C.PHASE_FOLLOW:
        _follow_rows(s, player, legal, n_legal, params, unseen, state_out, action_out)
    else:
        _lead_rows(s, player, legal, n_legal, params, unseen, action_out)


@njit(cache=True)
def _lead_rows(s, player, legal, n_legal, params, unseen, action_out):
    """A leader's steps: each declaration or card/``FINISH`` gets the best lead it allows."""
    hand = s[C.HAND + player]
    chosen = s[C.TABLE + player]
    declare = s[C.PHASE] == C.PHASE_DECLARE
    kind = s[C.LEAD_KIND]
    low = C.upto(s[C.LAST_ADDED])
    where = stack_i64(_N_ACT)
    for a in range(_N_ACT):
        where[a] = -1
    for i in range(n_legal):
        where[legal[i]] = i
    best = stack_i64(_MAX_LEGAL)
    bscore = stack_f64(_MAX_LEGAL)
    count = stack_i64(_MAX_LEGAL)
    for i in range(n_legal):
        best[i] = -1
        bscore[i] = -1e300
        count[i] = 0
    buf = stack_i64(_MAX_LEADS)
    nl = C.generate_leads(hand | chosen, s[C.CFG_ACE_HIGH], buf)
    for t in range(nl):
        a = buf[t]
        m = a & C.CARD_BITS
        k = a >> C.KIND_SHIFT
        if declare:
            step = C.LEAD_SINGLE + k
        else:
            if k != kind or (m & low) != chosen:
                continue
            rest = m & ~chosen
            step = C.FINISH if rest == 0 else C.low_bit_index(rest)
        i = where[step]
        if i < 0:
            continue
        count[i] += 1
        sc = _lead_score(a, params)
        if sc > bscore[i]:
            bscore[i] = sc
            best[i] = a
    top = -1e300
    for i in range(n_legal):
        if best[i] >= 0 and bscore[i] > top:
            top = bscore[i]
    for i in range(n_legal):
        if best[i] >= 0:
            row = action_out[i]
            _lead_row(row, best[i], bscore[i], count[i], unseen, hand | chosen)
            row[_A_SCORE + 1] = bscore[i] - top


@njit(cache=True)
def _follow_rows(s, player, legal, n_legal, params, unseen, state_out, action_out):
    """A follower's cards: the cheapest winning play and the shed cards of the heuristic's
    follow rule, whether a single wins now, suits and values."""
    hand = s[C.HAND + player]
    played = s[C.TABLE + player]
    cards = hand | played
    n = s[C.LEAD_N]
    jv = params[7]
    win = cheapest_win(s, cards, jv)
    if (win & played) != played:
        win = 0
    shed = played | _cheapest_cards(cards & ~played, n - C.popcount(played), jv)
    best, led_suit = trick_best(s)
    state_out[26] = 1.0 if win != 0 else 0.0
    # whose play is best so far: a player without a capture this round?
    kind = s[C.LEAD_KIND]
    bs = -1
    owner = -1
    for i in range(s[C.N_PLAYED]):
        q = s[C.ORDER + i]
        st = C.play_strength(kind, s[C.TABLE + q], led_suit, s[C.CFG_ACE_HIGH],
                             s[C.CFG_READ_STRONGEST], s[C.CFG_JOKER_PAIR_RANK])
        if st > bs or (st == bs and kind == C.KIND_SET):
            bs = st
            owner = q
    if owner >= 0 and owner != player and C.popcount(s[C.CAPT + owner]) == 0:
        state_out[27] = 1.0
    nh = C.popcount(hand)
    for i in range(n_legal):
        a = legal[i]
        row = action_out[i]
        bit = np.int64(1) << a
        row[21] = 1.0 if (win & bit) != 0 else 0.0
        row[22] = 1.0 if (shed & bit) != 0 else 0.0
        if a < 52:
            if kind == C.KIND_SINGLE and n == 1:
                row[23] = 1.0 if C.play_strength(C.KIND_SINGLE, bit, led_suit, 0, 1, 0) > best \
                    else 0.0
            row[24] = 1.0 if (a & 3) == led_suit else 0.0
            row[25] = C.popcount(unseen & C._above(a)
                                 & (np.int64(0x1111111111111) << (a & 3))) / 12.0
        v = card_value(a, jv)
        lower = 0
        m = hand
        while m:
            c = C.low_bit_index(m)
            if card_value(c, jv) < v:
                lower += 1
            m &= m - 1
        row[26] = lower / max(nh, 1)
