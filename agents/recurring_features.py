"""ReCURRRing's action features for the learned policy ``net`` (format ``boardlab.net/2`` of
:mod:`agents.net`): what a decision looks like to the acting player, as a few numbers per
state and per legal action (``docs/rules/recurring.md``).

Why: the tensor network (format 1) learned where ``pimc`` passes but not why, and closed a
third of the gap to it. What decides a play in ReCURRRing is whether it will hold: a play you
keep on the table until everyone else gives up scores its cards; a play that is beaten sends
the beaten cards into nobody's pile and the beater takes them in hand ("A round"). So each
play gets, beside the heuristic's own valuation (:func:`agents.recurring.heuristic_score`),
how many of the opponents still in the round could beat it: with the same count of a stronger
number or with one card more, counting what each may hold (the cards it is publicly known to
hold, ``KNOWN``, plus as many unseen cards as its hand hides), and how many surely can (known
cards alone). Passing gets the points on the table and who owns them.

Reads only what the player may see: its own hand, every hand size, the table, passes, score
and face-down piles (public: every such card was on the table first), the ``KNOWN`` counts of
the other seats, the deck of the player count (``IN_PLAY``). The unseen cards of a number are
those of ``IN_PLAY`` not in any of these. Nothing random is used (``rng`` unread), so the
features are the same on every determinized world (tested).

The hook (:mod:`agents.contract`, group "action features"): :func:`action_features` fills
``state_out`` ``float32 (len(STATE_FEATURE_NAMES),)`` and ``action_out`` ``float32 (n_legal,
len(ACTION_FEATURE_NAMES))`` (rows of the legal actions in order).
"""

from __future__ import annotations

from numba import njit

from agents.recurring import heuristic_score
from agents.stack_arrays import stack_f32, stack_i64
from engines.recurring import core

__all__ = ["STATE_FEATURE_NAMES", "ACTION_FEATURE_NAMES", "FEATURES_VERSION",
           "action_features"]

FEATURES_VERSION = 1
"""Bump it whenever what any of ReCURRRing's features computes changes, then regenerate the
golden features (``tests/learn/test_features_golden.py``) and retrain or re-stamp
``agents/weights/recurring.npz``: with the names it is the features hash that weights are
checked against (:func:`agents.net.layout_signature`). A refactor keeps it."""

STATE_FEATURE_NAMES = (
    ("players_3", "players_4", "players_5", "hand_size", "hand_r", "my_points",
     "points_lead", "opening", "table_count", "table_strength", "table_is_r", "table_points",
     "table_mine", "active_opponents", "final_round", "rounds_done", "min_opponent_hand",
     "next_opponent_hand", "unseen_total", "known_total")
    + tuple(f"hand_{v}" for v in range(1, 10)) + ("hand_R",)
    + tuple(f"unseen_{v}" for v in range(1, 10)) + ("unseen_R",))
"""The decision's features (the same for every action), each scaled to about 0..1: the player
count (one-hot), the own hand (size, R cards, counts per number), own points and the lead over
the best opponent, the table (empty, count, strength, R, points, own play), opponents still in
the round, the final round, rounds done, the smallest and the next opponent's hand, the unseen
cards (total and per number) and the cards publicly known in other hands."""

ACTION_FEATURE_NAMES = (
    ("pass", "count", "strength", "is_r", "split", "take", "hand_after", "empties",
     "pass_points", "banks", "value", "value_gap", "heuristic_choice", "value_rank",
     "may_beat_same", "may_beat_more", "surely_beaten", "safe", "largest_group_after")
    + tuple(f"number_{v}" for v in range(1, 10)) + ("number_R",))
"""Each legal action's features: pass, the play's count, strength ((10 - number) / 9), R,
the cards of its number left in hand, the cards taken into hand, the hand size after it,
whether it empties the hand; for a pass the points on the table; the points the play banks if
it holds; the heuristic's value, its gap to the best, whether the heuristic picks it and its
rank among the values; the opponents still in the round that may beat it with the same count
of a stronger number or with one card more, that surely can (known cards), whether none may
(it holds); the largest group of one number left after it; its number (one-hot)."""

N_STATE = len(STATE_FEATURE_NAMES)
N_ACTION = len(ACTION_FEATURE_NAMES)
_NV = core.N_NUMBERS + 1  # per-number arrays indexed 1..10 (R = 10)
_MAXP = core.MAX_PLAYERS
_A_NUM = N_ACTION - core.N_NUMBERS
_S_HAND = 20
_S_UNSEEN = _S_HAND + core.N_NUMBERS
_REACH = _MAXP * _NV
_MAX_LEGAL = core.MAX_LEGAL


@njit(cache=True)
def action_features(s, player, legal, n_legal, params, rng, state_out, action_out):
    """Fill ``state_out`` (``float32 (N_STATE,)``) and ``action_out[:n_legal]`` (``float32
    (n_legal, N_ACTION)``) for ``player`` deciding among ``legal[:n_legal]`` in state ``s``
    (ReCURRRing, :mod:`engines.recurring.core`); ``params``: the heuristic's parameter vector
    (:data:`agents.recurring.HEURISTIC_DEFAULT`); ``rng`` unused. Module docstring for what
    each feature is and why it is fair."""
    n = s[core.N_PLAYERS]
    mine = core.HAND + core.BLOCK * player
    tv = s[core.TABLE_NUM]
    tk = s[core.TABLE_COUNT]
    owner = s[core.TABLE_OWNER]
    # the unseen cards of each number, and what each opponent is known to hold
    unseen = stack_i64(_NV)
    known_total = 0
    for v in range(1, _NV):
        u = s[core.IN_PLAY + v] - s[mine + v]
        for q in range(n):
            u -= s[core.SCORE + core.BLOCK * q + v] + s[core.FACEDOWN + core.BLOCK * q + v]
            if q != player:
                u -= s[core.KNOWN + core.BLOCK * q + v]
                known_total += s[core.KNOWN + core.BLOCK * q + v]
        if v == tv:
            u -= tk
        unseen[v] = u
    unseen_total = 0
    for v in range(1, _NV):
        unseen_total += unseen[v]
    # the opponents still in the round (may act after this decision)
    active = stack_i64(_MAXP)
    na = 0
    min_hand = 99
    next_hand = 0
    for i in range(1, n):
        q = (player + i) % n
        hq = s[core.HAND + core.BLOCK * q]
        if hq > 0 and hq < min_hand:
            min_hand = hq
        if s[core.PASSED + q] == 0 and hq > 0:
            if na == 0:
                next_hand = hq
            active[na] = q
            na += 1
    if min_hand == 99:
        min_hand = 0
    # per active opponent t: the most cards of one number it may hold (known plus as many
    # unseen as its hand hides) and surely holds, over the numbers stronger than v
    # (reach[t * _NV + v], numbers 1..v-1) and over all numbers (reach[t * _NV])
    reach = stack_i64(_REACH)
    known_reach = stack_i64(_REACH)
    for t in range(na):
        q = active[t]
        kb = core.KNOWN + core.BLOCK * q
        hidden = s[core.HAND + core.BLOCK * q] - s[kb]
        o = t * _NV
        best_may = 0
        best_kn = 0
        for v in range(1, _NV):
            reach[o + v] = best_may  # max over the numbers 1..v-1 (stronger than v)
            known_reach[o + v] = best_kn
            kn = s[kb + v]
            may = kn + (unseen[v] if unseen[v] < hidden else hidden)
            if may > best_may:
                best_may = may
            if kn > best_kn:
                best_kn = kn
        reach[o] = best_may
        known_reach[o] = best_kn
    my_pts = core.points_of(s, player)
    best_other = 0
    for q in range(n):
        if q != player:
            pq = core.points_of(s, q)
            if pq > best_other:
                best_other = pq
    hand = s[mine]
    # the state's features
    for i in range(N_STATE):
        state_out[i] = 0.0
    state_out[n - 3] = 1.0
    state_out[3] = hand / 13.0
    state_out[4] = s[mine + core.R] / 4.0
    state_out[5] = my_pts / 20.0
    state_out[6] = (my_pts - best_other) / 10.0
    state_out[7] = 1.0 if tv == 0 else 0.0
    state_out[8] = tk / 6.0
    state_out[9] = (10 - tv) / 9.0 if tv != 0 else 0.0
    state_out[10] = 1.0 if tv == core.R else 0.0
    state_out[11] = tk / 6.0 if (tv != 0 and tv != core.R) else 0.0
    state_out[12] = 1.0 if owner == player else 0.0
    state_out[13] = na / 4.0
    state_out[14] = s[core.FINAL]
    state_out[15] = s[core.ROUNDS_DONE] / 20.0
    state_out[16] = min_hand / 13.0
    state_out[17] = next_hand / 13.0
    state_out[18] = unseen_total / 40.0
    state_out[19] = known_total / 10.0
    for v in range(1, _NV):
        state_out[_S_HAND + v - 1] = s[mine + v] / 4.0
        state_out[_S_UNSEEN + v - 1] = unseen[v] / 4.0
    # each action's features
    vals = stack_f32(_MAX_LEGAL)  # the heuristic's value of each legal action (float32, as stored)
    vmax = -1e300
    hc = 0
    for i in range(n_legal):
        x = heuristic_score(s, player, legal[i], params)
        vals[i] = x
        if x > vmax:  # ties: the earlier action, as the heuristic
            vmax = x
            hc = i
    for i in range(n_legal):
        a = legal[i]
        row = action_out[i]
        x = vals[i]
        for j in range(N_ACTION):
            row[j] = 0.0
        row[10] = x
        row[11] = x - vmax
        row[12] = 1.0 if i == hc else 0.0
        better = 0
        for j in range(n_legal):
            if vals[j] > x:
                better += 1
        row[13] = better / n_legal
        if a == core.PASS:
            row[0] = 1.0
            row[8] = tk / 6.0 if tv != core.R else 0.0
            row[6] = hand / 13.0
            continue
        v = a & 15
        k = a >> 4
        row[1] = k / 6.0
        row[2] = (10 - v) / 9.0
        row[3] = 1.0 if v == core.R else 0.0
        row[4] = (s[mine + v] - k) / 4.0
        empties = hand == k
        row[5] = tk / 6.0 if not empties else 0.0
        row[6] = (hand - k + (tk if not empties else 0)) / 13.0
        row[7] = 1.0 if empties else 0.0
        row[9] = k / 6.0 if v != core.R else 0.0
        # who of the opponents still in the round may beat (k, v), who surely can
        same = 0
        more = 0
        sure = 0
        for t in range(na):
            o = t * _NV
            m_same = reach[o + v] >= k
            m_more = reach[o] >= k + 1
            s_beat = known_reach[o + v] >= k or known_reach[o] >= k + 1
            same += m_same
            more += m_more
            sure += s_beat
        row[14] = same / 4.0
        row[15] = more / 4.0
        row[16] = sure / 4.0
        row[17] = 1.0 if same == 0 and more == 0 else 0.0
        big = 0
        for u in range(1, _NV):
            c = s[mine + u] - (k if u == v else 0) + (tk if u == tv and not empties else 0)
            if c > big:
                big = c
        row[18] = big / 4.0
        row[_A_NUM + v - 1] = 1.0
