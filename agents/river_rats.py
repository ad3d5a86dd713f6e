"""Compiled River Rats policies behind one signature, in a registry by name.

Every policy has the one signature of :mod:`agents.policy`,
``policy(s, player, legal, n_legal, params, rng) -> action`` (``@njit``): ``s`` the flat
``int64`` state of :mod:`engines.river_rats.core`, ``legal[:n_legal]`` the legal actions
(ascending), ``params`` a ``float64`` vector of length :data:`N_PARAMS` (tunable without
recompiling), ``rng`` the seat's memory (word 0: its splitmix64 stream). Policies read the state
but never change it. Among equally valued actions they take the first in **table order**
(:func:`engines.river_rats.core.legal_actions_in_table_order`: the card's place as it lies in
the hand, market or collective hand), so the choice does not depend on card ids.
:data:`SPECS` registers them (:func:`act` dispatches on the kind):

- ``random``: uniform over the legal actions.
- ``greedy``: one-step look-ahead: each action's effect on the collective hand is applied to
  the acting player's *observation* (:func:`core.observe`) and scored by :func:`score`
  (the poker evaluator on complete hands, a plan estimate on partial ones); ties at random.
- ``heuristic``: how people play (``docs/rules/river_rats.md`` strategy talk): steer the
  collective hand toward the plan (flush suit, straight window or rank set) with the best
  chance to beat the Rat's face-up cards; take market cards only when they beat a blind deck
  draw by a margin; raise the stake with ♥ only when the hand looks strong; turn up a Rat card
  with the ♥ power first; swap (♦) when it improves the plan; push (♣) cards that fit the plan
  to the market for the next players (signalling); discard (♠) cards that fit nothing; chase
  the joker prediction when the hand cannot win (its value enters every plan); save jokers for
  the last slot; at expert, reveal while losing. Uses only what the acting player may see.
- ``peek``: the same heuristic seeing every hidden card (the Rat's face-down cards, the other
  hands, the deck's top card, the face-down collective card): **an analysis upper bound**
  (perfect communication and more), not a legal way to play.

Parameters (``params[i]``, defaults :data:`DEFAULT_PARAMS`, names :data:`PARAM_NAMES`):
``h_eff`` cards a player effectively chooses from per slot; ``q_market`` chance a relevant
market card is taken for a slot; ``b_gt2``/``b_gt1`` chance to beat the Rat when the plan is 2+ /
1 category above its face-up best; ``b_eq_hi``/``b_eq_lo`` same category, higher / lower;
``joker_value`` value of earning a joker relative to winning a hand; thresholds ``t_draw``
(market over deck), ``t_joker`` (use a joker before the last slot), ``t_swap``, ``t_heart``
(raise the stake when the estimated win chance is at least this), ``t_push``, ``t_discard``,
``max_reveals`` (expert), ``p_new_pair`` (chance per slot of a pair of a new rank),
``t_remove`` (advanced joker).

Speed (``heuristic`` is also the rollout policy of the search agents): a decision
builds the acting player's context once (:func:`build_context`, straight from the piles it may
see), then scores only what its legal actions need, each score once (:func:`action_values`: the
collective hand as it is, and with each card of the hand or market added, memoized per
decision). :func:`score` computes a plan's completion chance only when the plan could still
raise the best value found so far, reads the chance per slot of a suit or rank when first
needed, and takes the powers of those chances from tables at the default parameters. Work
arrays live on the stack (:mod:`agents.stack_arrays`). Every value is computed by the
same floating-point operations in the same order as before, so the policies play exactly the
same games (``tests/river_rats/test_heuristic_same_games.py``); the benchmark
``benchmarks/river_rats_heuristic.py`` times them against the code before the change.
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.table_loop import run_table
from engines.names import GAME_IDS
from engines.protocol.per_type import njit_per_type
from agents.contract import lazy_feature_hooks
from agents.policy import PolicySpec
from agents.stack_arrays import stack_f64, stack_i64
from engines.protocol.bits import high_bit, popcount
from engines.protocol.chance import rand_below
from engines.poker import eval_hand
from engines.river_rats import core

__all__ = ["SPECS", "POLICY_IDS", "POLICY_LABELS", "N_PARAMS", "PARAM_NAMES",
           "DEFAULT_PARAMS", "PARAMS_WIDTH", "POLICY_FUNCTIONS", "TABLE_ORDER_POLICIES",
           "default_params", "check_params", "act", "make_aux", "random_policy", "greedy_policy",
           "heuristic_policy", "peek_policy", "score", "build_context", "action_values",
           "base_score", "argmax_action", "best_play_memo", "card_bit", "add_score"]

POLICY_IDS = {"random": 0, "greedy": 1, "heuristic": 2, "peek": 3}
"""Policy name -> its ``kind`` in :func:`act`."""
POLICY_LABELS = {
    "random": "uniform random legal action",
    "greedy": "one-step look-ahead with the poker evaluator (own view)",
    "heuristic": "human-style plan heuristic (own view)",
    "peek": "heuristic seeing all hidden cards (analysis upper bound, not legal play)",
}
PARAM_NAMES = ("h_eff", "q_market", "b_gt2", "b_gt1", "b_eq_hi", "b_eq_lo", "joker_value",
               "t_draw", "t_joker", "t_swap", "t_heart", "t_push", "t_discard", "max_reveals",
               "p_new_pair", "t_remove")
N_PARAMS = len(PARAM_NAMES)
(P_H, P_Q, P_GT2, P_GT1, P_EQHI, P_EQLO, P_JB, T_DRAW, T_JOKER, T_SWAP, T_HEART, T_PUSH,
 T_DISC, T_REVEALS, P_NEWPAIR, T_REMOVE) = range(N_PARAMS)
DEFAULT_PARAMS = np.array([4.0, 0.8, 0.95, 0.8, 0.45, 0.1, 0.3, 0.02, 0.15, 0.02, 0.5, 0.05,
                           0.0, 2.0, 0.15, 0.1])
"""Default parameter vector of ``greedy``, ``heuristic`` and ``peek`` (``float64``): hand-set,
then ``h_eff``, ``q_market`` and ``t_heart`` picked by a one-at-a-time search on 6,000-10,000
4-player normal games per candidate (win rate 25% -> 27%; the other parameters were flat
within noise)."""


def default_params(name: str) -> np.ndarray:
    """Default ``float64`` parameter vector (length :data:`N_PARAMS`) of policy ``name``.
    Raises ``ValueError`` for an unknown name."""
    if name not in POLICY_IDS:
        raise ValueError(f"bad policy {name!r}: expected one of {sorted(POLICY_IDS)}")
    return np.zeros(N_PARAMS) if name == "random" else DEFAULT_PARAMS.copy()


def check_params(v) -> np.ndarray:
    """Validate a parameter vector: 1-D, finite, length <= :data:`N_PARAMS` (missing tail
    entries take their defaults). Returns ``float64 (N_PARAMS,)``; raises ``ValueError``."""
    a = np.asarray(v, dtype=np.float64)
    if a.ndim != 1 or a.size > N_PARAMS or not np.all(np.isfinite(a)):
        raise ValueError(f"bad params {v!r}: expected a finite 1-D vector of at most {N_PARAMS} "
                         f"floats ({', '.join(PARAM_NAMES)})")
    out = DEFAULT_PARAMS.copy()
    out[:a.size] = a
    return out


# ---- tables ---------------------------------------------------------------------------------
WINDOWS = np.array([(1 << 12) | 0b1111] + [0b11111 << (w - 1) for w in range(1, 10)],
                   dtype=np.int64)
WINDOW_TOP = np.array([3] + [w + 3 for w in range(1, 10)], dtype=np.int64)
BINOM = np.array([[float(np.prod(range(n - k + 1, n + 1)) / np.prod(range(1, k + 1))) if k <= n
                   else 0.0 for k in range(8)] for n in range(8)])

# ---- context (what the acting player knows), float64 array ------------------------------------
# unseen cards (all, per suit, per rank), relevant available cards (per suit, per rank)
CX_U, CX_US, CX_UR, CX_MS, CX_MR = 0, 1, 5, 18, 22
# the Rat's strength, the target size, the predicted category, prediction match, peek flag,
# the Rat's face-down cards
CX_RV, CX_T, CX_PRED, CX_MATCH, CX_PEEK, CX_NFD = 35, 36, 37, 38, 39, 40
CX_PS, CX_PR = 41, 45  # chance per slot of a card of suit s / rank r (NaN until read by _slot)
CX_POWH, CX_POWQ = 58, 72  # memo of (1 - k/U)**h_eff and (1 - q_market)**k, k = 0..13
CX_QB = 86  # scratch of _tail: powers of 1 - p
CX_PRUNE = 94  # 1.0: score may skip plans that cannot raise its best (see there)
CX_XH, CX_XL = 95, 105  # per category: beat + joker value above / not above the Rat (_set_rat)
CX_SIZE = 115
_MARGIN = 1.0 + 1e-9  # a computed _tail exceeds 1 by rounding only, far less than this
# int64 work array: [0:32] card buffer, W_SM.. collective summary, W_H.. hand (up to 8),
# W_MEMO: which scores of the decision are memoized (action_values), W_ORDER.. the legal actions in
# table order (argmax_action)
W_SM, W_NJ, W_NUNK, W_NC, W_NH, W_H, W_DECKTOP, W_MEMO = 32, 33, 34, 35, 36, 37, 45, 46
W_ORDER = 48
_MAX_LEGAL = core.MAX_LEGAL  # a module-level int: a compile-time constant for stack_i64
W_SIZE = W_ORDER + _MAX_LEGAL


@njit(cache=True, inline="always")
def card_bit(c):
    """Bit of standard card ``c`` in a suit-rank mask (``16 * suit + rank``)."""
    return np.int64(1) << (16 * (c & 3) + (c >> 2))


@njit(cache=True, inline="always")
def _count_pile(s, b, ctx, u, us, ur):
    """Add the cards of the pile at ``b`` to the per-suit and per-rank counts at ``ctx[us]``,
    ``ctx[ur]`` (and the total at ``ctx[u]`` if ``u >= 0``)."""
    for i in range(s[b]):
        c = s[b + 1 + i]
        if u >= 0:
            ctx[u] += 1
        ctx[us + (c & 3)] += 1
        ctx[ur + (c >> 2)] += 1


@njit_per_type
def build_context(s, player, peek, prm, ctx, w):
    """Fill ``ctx`` (float64, at least ``CX_SIZE``) and ``w`` (int64 ``W_SIZE``) with what
    ``player`` knows: unseen cards per suit and rank, relevant available cards (market; plus
    the other hands if ``peek``), the Rat's face-up best strength (its true strength if
    ``peek``) and the plan factors that depend on it (:func:`_set_rat`), the collective hand
    as a suit-rank bit mask, own hand; the chance per open slot of a card of each suit and
    rank (``prm``: the policy parameters) is left NaN, to be computed when first read
    (:func:`_slot`). Without ``peek`` it reads only what :func:`core.observe` shows: the own
    hand, the market, the collective hand (a face-down card only if ``player`` played it), the
    expert reveals, the Rat's face-up cards, the prediction card, the characters and the cards
    out of the game; every other standard card counts as unseen."""
    ctx[:CX_RV] = 0.0  # the counts; every other field is set below
    seen = np.int64(0)  # standard cards whose place the player sees (suit-rank bits)
    sm = np.int64(0)
    nj = 0
    nknown = 0
    nr = 0
    hb = core.hand_base(player)
    nh = s[hb]
    for i in range(nh):
        c = s[hb + 1 + i]
        w[W_H + i] = c
        if c < 52:
            seen |= card_bit(c)
    for i in range(s[core.MARKET]):
        seen |= card_bit(s[core.MARKET + 1 + i])
    _count_pile(s, core.MARKET, ctx, -1, CX_MS, CX_MR)
    fd = s[core.COLL_FD] == 1
    for i in range(s[core.COLL]):
        c = s[core.COLL + 1 + i]
        if c >= 52:
            nj += 1
        elif i > 0 or not fd or peek or s[core.FD_OWNER] == player:
            sm |= card_bit(c)
            seen |= card_bit(c)
            nknown += 1
    for i in range(s[core.REVEAL]):
        c = s[core.REVEAL + 1 + i]
        if c >= 52:
            nj += 1
        else:
            sm |= card_bit(c)
            seen |= card_bit(c)
            nknown += 1
    nfd = 0
    for i in range(s[core.RAT]):
        c = s[core.RAT + 1 + i]
        if s[core.RAT_UP + i] == 1:
            seen |= card_bit(c)
            if not peek:
                w[nr] = c
                nr += 1
        else:
            nfd += 1
    w[W_DECKTOP] = -1
    if peek:
        # the pool of cards still to come: deck and discard pile; other hands count as outs
        _count_pile(s, core.DECK, ctx, CX_U, CX_US, CX_UR)
        _count_pile(s, core.DISCARD, ctx, CX_U, CX_US, CX_UR)
        for q in range(s[core.N_PLAYERS]):
            if q != player:
                _count_pile(s, core.hand_base(q), ctx, -1, CX_MS, CX_MR)
        for i in range(s[core.RAT]):
            w[nr] = s[core.RAT + 1 + i]
            nr += 1
        if s[core.DECK] > 0:
            w[W_DECKTOP] = s[core.DECK + s[core.DECK]]
    else:
        if s[core.PRED_CARD] >= 0:
            seen |= card_bit(s[core.PRED_CARD])
        for b in (core.CHARS, core.OUT):
            for i in range(s[b]):
                c = s[b + 1 + i]
                if c < 52:
                    seen |= card_bit(c)
        ctx[CX_U] = 52 - (popcount(seen & 0x1FFF) + popcount((seen >> 16) & 0x1FFF)
                          + popcount((seen >> 32) & 0x1FFF) + popcount((seen >> 48) & 0x1FFF))
        for su in range(4):
            ctx[CX_US + su] = 13 - popcount((seen >> (16 * su)) & 0x1FFF)
        for r in range(13):
            ctx[CX_UR + r] = 4 - (((seen >> r) & 1) + ((seen >> (16 + r)) & 1)
                                  + ((seen >> (32 + r)) & 1) + ((seen >> (48 + r)) & 1))
    ncoll = s[core.COLL] + s[core.REVEAL]
    ctx[CX_T] = s[core.TARGET]
    pred = s[core.PRED_CAT]
    ctx[CX_PRED] = pred if (pred >= 0 and s[core.JSUP] > 0) else -1
    ctx[CX_MATCH] = s[core.C_MATCH]
    ctx[CX_PEEK] = 1.0 if peek else 0.0
    _set_rat(ctx, prm, eval_hand(w, nr, 1) if nr >= 5 else 0.0)
    ctx[CX_NFD] = nfd
    w[W_SM] = sm
    w[W_NJ] = nj
    w[W_NC] = ncoll
    w[W_NUNK] = ncoll - nknown - nj
    w[W_NH] = nh
    for k in range(17):  # computed when first needed (_slot)
        ctx[CX_PS + k] = np.nan
    if prm[P_H] != _TAB_H or prm[P_Q] != _TAB_Q:  # else the powers come from the tables
        for k in range(28):
            ctx[CX_POWH + k] = np.nan
    # pruning (score): sound when every chance per slot lies in [0, 1] (so every _tail lies in
    # [0, 1] up to rounding) and the new-pair factor is not negative
    ok = prm[P_H] >= 0.0 and 0.0 <= prm[P_Q] <= 1.0 and prm[P_NEWPAIR] >= 0.0
    ctx[CX_PRUNE] = 1.0 if ok else 0.0


@njit(cache=True, inline="always")
def _slot(ctx, prm, i):
    """``ctx[CX_PS + i]`` (``i`` = suit, or 4 + rank: ``CX_PR = CX_PS + 4``), computed by
    :func:`_slot_p` the first time it is needed in a decision (NaN until then)."""
    v = ctx[CX_PS + i]
    if v != v:
        v = _slot_p(ctx[CX_US + i], ctx[CX_MS + i], ctx, prm)
        ctx[CX_PS + i] = v
    return v


@njit(cache=True, inline="always")
def _slot_p(rel, mrel, ctx, prm):
    """Chance that one future slot of the collective hand gets a relevant card: the player
    filling it chooses among ~h_eff cards (a fraction rel/U of them relevant) or takes one of
    the ``mrel`` relevant available cards. The two powers come from :data:`POW_H_TAB` /
    :data:`POW_Q_TAB` at the default parameters, else they are memoized in ``ctx`` by count
    (``CX_POWH``, ``CX_POWQ``: NaN until computed)."""
    k = np.int64(rel)
    if prm[P_H] == _TAB_H:
        miss = POW_H_TAB[np.int64(ctx[CX_U]), k]
    else:
        miss = ctx[CX_POWH + k]
        if miss != miss:
            u = ctx[CX_U]
            f = rel / u if u > 0 else 0.0
            miss = (1.0 - f) ** prm[P_H]
            ctx[CX_POWH + k] = miss
    if mrel > 0:
        m = np.int64(mrel)
        if prm[P_Q] == _TAB_Q:
            pq = POW_Q_TAB[m]
        else:
            pq = ctx[CX_POWQ + m]
            if pq != pq:
                pq = (1.0 - prm[P_Q]) ** mrel
                ctx[CX_POWQ + m] = pq
        miss *= pq
    return 1.0 - miss


@njit(cache=True, inline="always")
def _pow_tables(h, q):
    """The powers of :func:`_slot_p` for the parameters ``h`` (``h_eff``) and ``q``
    (``q_market``), computed by the same expressions: ``out_h[u, k] = (1 - k/u)**h`` (1 for
    ``u = 0``), ``u`` 0..52 unseen cards, ``k`` 0..13 relevant ones; ``out_q[m] = (1 - q)**m``,
    ``m`` 0..13. Returns ``(out_h float64 (53, 14), out_q float64 (14,))``."""
    out_h = np.empty((53, 14))
    out_q = np.empty(14)
    for iu in range(53):
        u = np.float64(iu)
        for k in range(14):
            rel = np.float64(k)
            f = rel / u if u > 0 else 0.0
            out_h[iu, k] = (1.0 - f) ** h
    for m in range(14):
        out_q[m] = (1.0 - q) ** np.float64(m)
    return out_h, out_q


_TAB_H, _TAB_Q = float(DEFAULT_PARAMS[P_H]), float(DEFAULT_PARAMS[P_Q])
POW_H_TAB, POW_Q_TAB = _pow_tables(_TAB_H, _TAB_Q)
"""The powers of :func:`_slot_p` at the default ``h_eff`` and ``q_market`` (a pow costs about
20 ns and a decision needs a few): :func:`_slot_p` reads them when its parameters equal the
defaults. Computed at import by the same compiled expression, so the values are the same bits."""


@njit(cache=True, inline="always")
def _tail(L, k, p, ctx):
    """P(X >= k) for X ~ Binomial(L, p), L <= 7: the terms ``C(L, i) p^i q^(L-i)`` summed for
    ``i = k..L`` in that order, each power a running product from 1 (``ctx[CX_QB:]`` holds the
    powers of ``q = 1 - p``)."""
    if k <= 0:
        return 1.0
    if k > L:
        return 0.0
    q = 1.0 - p
    pk = 1.0
    for _ in range(k):
        pk *= p
    if k == L:
        return pk
    qi = 1.0
    ctx[CX_QB] = 1.0
    for j in range(1, L - k + 1):
        qi *= q
        ctx[CX_QB + j] = qi
    t = 0.0
    for i in range(k, L + 1):
        t += BINOM[L, i] * pk * ctx[CX_QB + L - i]
        pk *= p
    return t


@njit(cache=True, inline="always")
def _beat(est, exact, ctx, prm):
    """Estimated chance that a players' hand of strength ``est`` beats the Rat."""
    rv = ctx[CX_RV]
    if ctx[CX_PEEK] == 1.0:
        return 1.0 if est > rv else 0.0
    rc = np.int64(rv) >> 20
    cat = est >> 20
    if est <= rv:
        if exact or cat < rc:
            return 0.0
        return prm[P_EQLO]
    gap = cat - rc
    if gap == 0:
        return prm[P_EQHI]
    if gap == 1:
        return prm[P_GT1]
    return prm[P_GT2]


@njit(cache=True, inline="always")
def _jb(cat, ctx, prm):
    """Value of earning a joker (``joker_value``) if a hand of category ``cat`` makes the
    prediction, else 0."""
    pred = ctx[CX_PRED]
    if pred < 0:
        return 0.0
    if cat == pred or (ctx[CX_MATCH] == 1.0 and cat >= pred):
        return prm[P_JB]
    return 0.0


@njit_per_type
def _set_rat(ctx, prm, rv):
    """Set the Rat's strength ``ctx[CX_RV] = rv`` and the plan factors that depend on it: for
    each category ``cat`` (0..9), ``ctx[CX_XH + cat]`` = ``_beat + _jb`` of a plan of that
    category stronger than ``rv``, ``ctx[CX_XL + cat]`` = the same for one not stronger (the
    same two terms added as in :func:`_beat` ``(est, False) +`` :func:`_jb`)."""
    ctx[CX_RV] = rv
    peek = ctx[CX_PEEK] == 1.0
    rc = np.int64(rv) >> 20
    for cat in range(10):
        jb = _jb(cat, ctx, prm)
        if peek:
            hi = 1.0
            lo = 0.0
        else:
            lo = 0.0 if cat < rc else prm[P_EQLO]
            gap = cat - rc
            hi = prm[P_EQHI] if gap == 0 else (prm[P_GT1] if gap == 1 else prm[P_GT2])
        ctx[CX_XH + cat] = hi + jb
        ctx[CX_XL + cat] = lo + jb


@njit(cache=True, inline="always")
def _most_held(m1, m2, m3, m4):
    """(count, rank) of the highest rank held most often, from the masks of the ranks held at
    least 1, 2, 3 and 4 times; (0, -1) if none."""
    if m4:
        return 4, high_bit(m4)
    if m3:
        return 3, high_bit(m3)
    if m2:
        return 2, high_bit(m2)
    if m1:
        return 1, high_bit(m1)
    return 0, -1


# The steps of :func:`score` are inlined into it (``inline="always"``): as calls (each passes
# the context arrays) they cost the heuristic about a tenth of its games per second.
@njit(cache=True, inline="always")
def _score_complete(sm, nj, ctx, prm, buf):
    """Exact value of a complete, fully known collective hand (suit-rank mask ``sm``, ``nj``
    jokers): its poker-evaluator strength's chance to beat the Rat plus the joker value if it
    makes the prediction (``buf``: int64 scratch of the hand's size)."""
    n = 0
    for su in range(4):
        m = (sm >> (16 * su)) & 0x1FFF
        while m:
            r = high_bit(m)
            buf[n] = 4 * r + su
            n += 1
            m &= ~(np.int64(1) << r)
    for j in range(nj):
        buf[n] = 52 + j
        n += 1
    st = eval_hand(buf, n, 1)
    return _beat(st, True, ctx, prm) + _jb(st >> 20, ctx, prm)


@njit(cache=True, inline="always")
def _best_flush(sm, nj, L, hmin, best, ctx, prm):
    """The larger of ``best`` and the best flush plan (one per suit holding at least ``hmin``
    of the cards) of :func:`score`."""
    prune = ctx[CX_PRUNE] == 1.0
    rv = ctx[CX_RV]
    for su in range(4):
        m = (sm >> (16 * su)) & 0x1FFF
        cnt = popcount(m)
        if cnt < hmin:
            continue
        need = max(0, 5 - cnt - nj)
        top = high_bit(m) if m else 8
        if nj > 0 or need > 0:
            top = max(top, 11)
        est = (5 << 20) | (top << 16)
        x = ctx[CX_XH + 5] if est > rv else ctx[CX_XL + 5]
        if prune and x * _MARGIN <= best:
            continue
        v = _tail(L, need, _slot(ctx, prm, su), ctx) * x
        if v > best:
            best = v
    return best


@njit(cache=True, inline="always")
def _best_straight(l1, nj, L, hmin, best, ctx, prm):
    """The larger of ``best`` and the best straight plan (one per 5-rank window holding at
    least ``hmin`` of the ranks held, ``l1``) of :func:`score`."""
    if popcount(l1) < hmin:  # none if even all the ranks held are too few
        return best
    prune = ctx[CX_PRUNE] == 1.0
    rv = ctx[CX_RV]
    for wi in range(10):
        W = WINDOWS[wi]
        have = popcount(l1 & W)
        if have < hmin:
            continue
        need = max(0, 5 - have - nj)
        est = (4 << 20) | (WINDOW_TOP[wi] << 16)
        x = ctx[CX_XH + 4] if est > rv else ctx[CX_XL + 4]
        if prune and x * _MARGIN <= best:
            continue
        p = 1.0
        if need > 0:
            miss = W & ~l1
            p = 0.0
            nm = 0
            while miss:
                r = high_bit(miss)
                p += _slot(ctx, prm, 4 + r)
                nm += 1
                miss &= ~(np.int64(1) << r)
            p /= nm
        v = _tail(L, need, p, ctx) * x
        if v > best:
            best = v
    return best


@njit(cache=True, inline="always")
def _best_rank_set(sm, nj, nreal, L, T, best, ctx, prm):
    """The larger of ``best`` and the best rank-set plan of :func:`score`, on the two ranks
    held most (then highest): four of a kind, three of a kind and a pair on the first; full
    house and two pair on both (the second may be a rank not held yet)."""
    s0 = sm & 0x1FFF
    s1 = (sm >> 16) & 0x1FFF
    s2 = (sm >> 32) & 0x1FFF
    s3 = (sm >> 48) & 0x1FFF
    prune = ctx[CX_PRUNE] == 1.0
    rv = ctx[CX_RV]
    # rank masks held 1+, 2+, 3+, 4 times
    l1 = s0 | s1 | s2 | s3
    m2 = (s0 & s1) | (s0 & s2) | (s0 & s3) | (s1 & s2) | (s1 & s3) | (s2 & s3)
    m3 = (s0 & s1 & (s2 | s3)) | (s2 & s3 & (s0 | s1))
    m4 = s0 & s1 & s2 & s3
    c1, r1 = _most_held(l1, m2, m3, m4)
    if c1 <= 0:
        return best
    nb = ~(np.int64(1) << r1)
    c2, r2 = _most_held(l1 & nb, m2 & nb, m3 & nb, m4 & nb)
    # four of a kind, three of a kind, pair on r1
    for size, cat in ((4, 7), (3, 3), (2, 1)):
        need = size - c1 - nj
        if need < 0:
            need = 0
        off = nreal - c1
        if need > L or off > T - size:
            continue
        est = (cat << 20) | (r1 << 16)
        x = ctx[CX_XH + cat] if est > rv else ctx[CX_XL + cat]
        if prune and x * _MARGIN <= best:
            continue
        v = _tail(L, need, _slot(ctx, prm, 4 + r1), ctx) * x
        if v > best:
            best = v
    # full house and two pair on r1 + r2 (r2 may be a new rank)
    for size1, cat in ((3, 6), (2, 2)):
        if c2 > 0:
            n1 = max(0, size1 - c1)
            n2 = max(0, 2 - c2)
            need = n1 + n2 - nj
            if need < 0:
                need = 0
            off = nreal - c1 - c2
            if need > L or off > T - size1 - 2:
                continue
            rr2 = r2
        else:
            n1 = max(0, size1 - c1 - nj)
            off = nreal - c1
            if n1 + 2 > L or off > T - size1 - 2:
                continue
            rr2 = 0
        est = (cat << 20) | (r1 << 16) | (rr2 << 12)
        x = ctx[CX_XH + cat] if est > rv else ctx[CX_XL + cat]
        if c2 > 0:
            if prune and x * _MARGIN <= best:
                continue
            v = _tail(L, need, 0.5 * (_slot(ctx, prm, 4 + r1) + _slot(ctx, prm, 4 + r2)),
                      ctx)
        else:
            if prune and prm[P_NEWPAIR] * x * _MARGIN <= best:
                continue
            v = _tail(L - 2, n1, _slot(ctx, prm, 4 + r1), ctx) * prm[P_NEWPAIR]
        v *= x
        if v > best:
            best = v
    return best


@njit(cache=True)
def score(sm, nj, nunk, nc, L, ctx, prm, buf):
    """Value of a collective hand for the players: the best over plans (flush per suit,
    straight per window, rank sets) of P(plan completes in the ``L`` open slots) x (chance it
    beats the Rat + joker value if it makes the prediction). ``sm``: suit-rank bit mask of the
    known cards (bit ``16*suit + rank``), ``nj`` jokers, ``nunk`` unknown (face-down) cards,
    ``nc`` cards in all; ``ctx``: a context of :func:`build_context` (its chance memo and
    scratch are written). A complete, fully known hand is scored exactly with the poker
    evaluator (``buf``: int64 scratch of at least ``nc`` words). Returns a float in
    [0, 1 + joker_value].

    A plan's value is ``_tail(...) * x`` with ``x`` its chance to beat the Rat plus joker value;
    when every chance per slot lies in [0, 1] (``CX_PRUNE``) a plan whose ``x`` cannot exceed
    the best value so far is skipped without computing its tail (the result is the same
    maximum)."""
    T = np.int64(ctx[CX_T])
    A = T - 5
    if L <= 0:
        L = 0
        if nunk == 0 and nc >= 5:
            return _score_complete(sm, nj, ctx, prm, buf)
    nreal = nc - nj
    # a flush or straight plan holding ``have`` of the cards is open iff at most A cards are
    # off the plan (have >= nreal - A) and the rest fits the open slots (5 - have - nj <= L)
    hmin = max(nreal - A, 5 - nj - L)
    best = _best_flush(sm, nj, L, hmin, 0.0, ctx, prm)
    l1 = ((sm & 0x1FFF) | ((sm >> 16) & 0x1FFF) | ((sm >> 32) & 0x1FFF)
          | ((sm >> 48) & 0x1FFF))
    best = _best_straight(l1, nj, L, hmin, best, ctx, prm)
    return _best_rank_set(sm, nj, nreal, L, T, best, ctx, prm)


# ---- scoring helpers over the work array --------------------------------------------------------
@njit(cache=True, inline="always")
def _coll_score(w, add, remove, L, ctx, prm):
    """Score of the collective hand with card ``add`` added (-1 none; 52/53 a joker) and known
    card ``remove`` taken out (-1 none), ``L`` open slots left."""
    sm = w[W_SM]
    nj = w[W_NJ]
    nc = w[W_NC]
    if remove >= 0:
        sm &= ~card_bit(remove)
        nc -= 1
    if add >= 52:
        nj += 1
        nc += 1
    elif add >= 0:
        sm |= card_bit(add)
        nc += 1
    return score(sm, nj, w[W_NUNK], nc, L, ctx, prm, w)


@njit(cache=True)
def _best_play(w, L, ctx, prm):
    """Best score after playing one card of the hand into the collective hand with ``L`` open
    slots (with an empty hand: the score as it is)."""
    best = _coll_score(w, -1, -1, L, ctx, prm) if w[W_NH] == 0 else -1.0
    for i in range(w[W_NH]):
        v = _coll_score(w, w[W_H + i], -1, L - 1, ctx, prm)
        if v > best:
            best = v
    return best


# ---- the valuation of one decision, with its scores memoized ------------------------------------
F_ADD = CX_SIZE
"""``f[F_ADD + c]`` (``c`` a standard card, 52 for either joker): the score of the collective
hand with ``c`` added and one open slot fewer (:func:`add_score`)."""
F_BASE = F_ADD + 53
"""``f[F_BASE]``: the score of the collective hand as it is; ``f[F_BASE + 1]``: the best
score after playing a hand card (:func:`_best_play`)."""
F_VALS = F_BASE + 2
"""``f[F_VALS + i]``: the value of legal action ``i``."""
F_SIZE = F_VALS + core.MAX_LEGAL
M_BASE, M_BEST_PLAY = 53, 54
"""Bits of ``w[W_MEMO]``: bit ``k`` set once ``f[F_ADD + k]`` is computed (``k`` < 53), bit
``M_BASE`` / ``M_BEST_PLAY`` once ``f[F_BASE]`` / ``f[F_BASE + 1]`` is."""


@njit(cache=True, inline="always")
def _memo_score(f, w, k, c, L, prm):
    """``f[F_ADD + k]``, computed once per decision (bit ``k`` of ``w[W_MEMO]``): the score of
    the collective hand with card ``c`` added and one open slot fewer, or (``c`` = -1) as it is
    with ``L`` open slots."""
    bit = np.int64(1) << k
    if w[W_MEMO] & bit:
        return f[F_ADD + k]
    v = _coll_score(w, c, -1, L - 1 if c >= 0 else L, f, prm)
    f[F_ADD + k] = v
    w[W_MEMO] |= bit
    return v


@njit(cache=True, inline="always")
def add_score(f, w, c, L, prm):
    """``_coll_score(w, c, -1, L - 1, f, prm)``, computed once per decision and card (either
    joker counts as card 52)."""
    return _memo_score(f, w, c if c < 52 else 52, c, L, prm)


@njit(cache=True, inline="always")
def base_score(f, w, L, prm):
    """The score of the collective hand as it is (``L`` open slots), once per decision."""
    return _memo_score(f, w, M_BASE, -1, L, prm)


@njit(cache=True, inline="always")
def best_play_memo(f, w, L, prm):
    """:func:`_best_play` from the memoized scores, once per decision."""
    bit = np.int64(1) << M_BEST_PLAY
    if w[W_MEMO] & bit:
        return f[F_BASE + 1]
    if w[W_NH] == 0:
        v = base_score(f, w, L, prm)
    else:
        v = -1.0
        for i in range(w[W_NH]):
            x = add_score(f, w, w[W_H + i], L, prm)
            if x > v:
                v = x
    f[F_BASE + 1] = v
    w[W_MEMO] |= bit
    return v


@njit(cache=True, inline="always")
def _rat_without(s, slot, peek, w):
    """The Rat's (face-up, or all if ``peek``) best strength without its card at ``slot``."""
    n = 0
    for i in range(s[core.RAT]):
        if i != slot and (peek or s[core.RAT_UP + i] == 1):
            w[n] = s[core.RAT + 1 + i]
            n += 1
    return eval_hand(w, n, 1) if n >= 5 else 0


# ---- policies ---------------------------------------------------------------------------------
@njit(cache=True)
def random_policy(s, player, legal, n_legal, params, rng):
    """Uniform over the legal actions (the draw indexes them in table order,
    :func:`engines.river_rats.core.legal_actions_in_table_order`, read through
    :func:`engines.river_rats.core.table_order_action`)."""
    r = rand_below(rng, 0, n_legal)
    if n_legal == 1:
        return legal[0]
    order = stack_i64(_MAX_LEGAL)
    return core.table_order_action(s, legal, n_legal, r, order)


@njit(cache=True)
def random_policy_table_order(s, player, legal, n_legal, params, rng):
    """:func:`random_policy` on the legal actions listed in table order
    (:func:`engines.river_rats.core.legal_actions_in_table_order`, ``int64``): the same draw,
    the same action, one load (the compiled loop's listing for a table of random players,
    ``TABLE_ORDER_POLICIES``)."""
    return legal[rand_below(rng, 0, n_legal)]


@njit_per_type
def action_values(s, player, legal, n_legal, params, peek, greedy, f, w):
    """Value of each legal action for the greedy (``greedy=True``: effect on the collective
    hand only) or the heuristic valuation; fills ``f[F_VALS:F_VALS + n_legal]``. ``f``:
    float64 scratch of ``F_SIZE`` (the context, then the memoized scores), ``w``: int64
    scratch of ``W_SIZE``. Each score is computed only if an action needs it, and once."""
    build_context(s, player, peek, params, f, w)
    w[W_MEMO] = 0
    ctx = f
    T = s[core.TARGET]
    nc = w[W_NC]
    L = T - nc
    fits_ok = L >= 1
    for i in range(n_legal):
        a = legal[i]
        k = a >> 6
        arg = a & 63
        if k == core.K_DRAW_MARKET:
            v = max(best_play_memo(f, w, L, params), add_score(f, w, arg, L, params))
        elif k == core.K_DRAW_DECK:
            v = best_play_memo(f, w, L, params)
            if peek and w[W_DECKTOP] >= 0:
                v = max(v, add_score(f, w, w[W_DECKTOP], L, params))
            if not greedy:
                v += params[T_DRAW]
        elif k == core.K_PLAY:
            v = add_score(f, w, arg, L, params)
        elif k == core.K_JOKER:
            v = add_score(f, w, arg, L, params)
            if not greedy and L > 1:
                v -= params[T_JOKER]
        elif k == core.K_JREMOVE:
            if arg == core.FACE_DOWN_TARGET and not peek:
                v = -1.0
            else:
                base = base_score(f, w, L, params)
                old = ctx[CX_RV]
                v = 0.0
                m = 0
                for slot in range(s[core.RAT]):
                    hit = slot == arg
                    if arg == core.FACE_DOWN_TARGET:  # peek: the mean over the possible cards
                        hit = (s[core.RAT_UP + slot] == 0
                               and s[core.RAT + 1 + slot] >> 2 != core.KING)
                    if hit:
                        _set_rat(ctx, params, _rat_without(s, slot, peek, w))
                        v += _best_play(w, L, ctx, params) if w[W_NH] > 0 else base
                        m += 1
                _set_rat(ctx, params, old)
                v = v / m if m > 0 else base
                if not greedy:
                    v -= params[T_REMOVE]
        elif k == core.K_SWAP_OUT or k == core.K_PSWAP_OUT:
            v = -1.0
            if k == core.K_SWAP_OUT:
                for j in range(w[W_NH]):
                    x = _coll_score(w, w[W_H + j], arg, L, ctx, params)
                    if x > v:
                        v = x
            else:
                for j in range(s[core.MARKET]):
                    x = _coll_score(w, s[core.MARKET + 1 + j], arg, L, ctx, params)
                    if x > v:
                        v = x
            if not greedy:
                v -= params[T_SWAP]
        elif k == core.K_SWAP_IN or k == core.K_PSWAP_IN:
            v = _coll_score(w, arg, s[core.PENDING], L, ctx, params)
        else:
            base = base_score(f, w, L, params)
            v = base
            if greedy:
                pass
            elif k == core.K_STAKE or k == core.K_PSTAKE:
                v = base + (1e-3 if base >= params[T_HEART] else -1.0)
            elif k == core.K_PREVEAL:
                v = base + 1.0
            elif k == core.K_PUSH or k == core.K_PPUSH:
                if arg == core.DECK_TOP:
                    v = base + 1e-4
                elif fits_ok:
                    x = add_score(f, w, arg, L, params) - base
                    v = base + (1e-3 * (x - params[T_PUSH]) if x >= params[T_PUSH] else -1.0)
                else:
                    v = base - 1.0
            elif k == core.K_DISCARD or k == core.K_PDISCARD:
                if fits_ok:
                    x = add_score(f, w, arg, L, params) - base
                    v = base + (1e-3 * (params[T_DISC] - x) + 1e-6 if x < params[T_DISC]
                                else -1.0)
                else:
                    v = base - 1.0
            elif k == core.K_EREVEAL:
                losing = base < 0.5
                v = base + (1.0 if (losing and s[core.REVEAL] < params[T_REVEALS]) else -1.0)
        f[F_VALS + i] = v


@njit(cache=True)
def _index_of(legal, n, a):
    """Index of action ``a`` in the ascending ``legal[:n]`` (binary search)."""
    lo, hi = 0, n - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if legal[mid] < a:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit_per_type
def argmax_action(s, vals, n, legal, rng, random_ties, order):
    """The best-valued action; ties: the first in table order
    (:func:`engines.river_rats.core.legal_actions_in_table_order`: cards as they lie, written
    into the int64 scratch ``order`` of ``MAX_LEGAL``), or (``random_ties``) a uniform pick
    among them in table order."""
    best = vals[0]
    for i in range(1, n):
        if vals[i] > best:
            best = vals[i]
    cnt = 0
    first = 0
    for i in range(n):
        if vals[i] == best:
            if cnt == 0:
                first = i
            cnt += 1
    pick = rand_below(rng, 0, cnt) if random_ties else 0
    if cnt == 1:
        return legal[first]
    # most ties are among plays, market draws or discards: their table order is the order of
    # the cards as they lie (hand, then market), so the piles are walked directly
    kind = -1
    for i in range(n):
        if vals[i] == best:
            k = legal[i] >> 6
            if kind == -1:
                kind = k
            elif k != kind:
                kind = -2
                break
    if kind == core.K_PLAY or kind == core.K_DRAW_MARKET or kind == core.K_DISCARD \
            or kind == core.K_PDISCARD:
        for b in (core.hand_base(s[core.CUR]), core.MARKET):
            if (kind == core.K_PLAY and b == core.MARKET) or (kind == core.K_DRAW_MARKET
                                                         and b != core.MARKET):
                continue
            for j in range(s[b]):
                a = kind * 64 + s[b + 1 + j]
                i = _index_of(legal, n, a)
                if legal[i] == a and vals[i] == best:
                    if pick == 0:
                        return a
                    pick -= 1
        return legal[first]
    core.legal_actions_in_table_order(s, order)
    for j in range(n):
        a = order[j]
        if vals[_index_of(legal, n, a)] == best:
            if pick == 0:
                return a
            pick -= 1
    return legal[0]


@njit_per_type
def _plan_policy(s, player, legal, n_legal, params, rng, peek, one_step):
    """The action scoring best under :func:`action_values` (``peek``: seeing every hidden card;
    ``one_step``: the greedy one-step score instead of the plan heuristic); ties at random."""
    if n_legal == 1:
        return legal[0]
    f = stack_f64(F_SIZE)  # scratch in this frame: no allocation per decision
    w = stack_i64(W_SIZE)
    action_values(s, player, legal, n_legal, params, peek, one_step, f, w)
    return argmax_action(s, f[F_VALS:F_VALS + n_legal], n_legal, legal, rng, one_step,
                   w[W_ORDER:W_ORDER + core.MAX_LEGAL])


@njit(cache=True)
def greedy_policy(s, player, legal, n_legal, params, rng):
    """One-step look-ahead: the action whose effect on the collective hand (as the acting
    player sees it) scores best under :func:`score`; ties at random."""
    return _plan_policy(s, player, legal, n_legal, params, rng, False, True)


@njit(cache=True)
def heuristic_policy(s, player, legal, n_legal, params, rng):
    """The human-style plan heuristic (module docstring), own view only."""
    return _plan_policy(s, player, legal, n_legal, params, rng, False, False)


@njit(cache=True)
def peek_policy(s, player, legal, n_legal, params, rng):
    """The heuristic seeing every hidden card: an analysis upper bound, not legal play."""
    return _plan_policy(s, player, legal, n_legal, params, rng, True, False)


@njit(cache=True)
def act(kind, s, player, legal, n_legal, params, aux, rng):
    """The action of policy ``kind`` (:data:`POLICY_IDS`) on its usual arguments (``aux`` is
    unused: River Rats' policies need no game data)."""
    if kind == 0:
        return random_policy(s, player, legal, n_legal, params, rng)
    if kind == 1:
        return greedy_policy(s, player, legal, n_legal, params, rng)
    if kind == 2:
        return heuristic_policy(s, player, legal, n_legal, params, rng)
    return peek_policy(s, player, legal, n_legal, params, rng)


POLICY_FUNCTIONS = {"random": random_policy, "greedy": greedy_policy,
                    "heuristic": heuristic_policy, "peek": peek_policy}
"""Policy name -> compiled policy function (the one signature of :mod:`agents.policy`)."""
TABLE_ORDER_POLICIES = {"random": (core.legal_actions_in_table_order, random_policy_table_order)}
"""``random`` from the table-order listing at a table of random players (:mod:`agents.contract`)."""
PARAMS_WIDTH = N_PARAMS
SPECS = tuple(PolicySpec("river_rats", name, kind,
                         tuple(float(x) for x in default_params(name)) if name != "random"
                         else (), PARAM_NAMES if name != "random" else (),
                         POLICY_LABELS[name], sees_hidden=(name == "peek"))
              for name, kind in POLICY_IDS.items())
"""The registry (:mod:`agents.policy`): ``random``, ``greedy``, ``heuristic``, ``peek``."""


def make_aux(config) -> np.ndarray:
    """Game data for :func:`act`: none for River Rats (an empty ``float64`` array)."""
    return np.zeros(0)


# ---- the leaf value of the search agents (agents.search) ----------------------------------------
LEAF_VALUE_NAMES = ("win", "rat_debt", "player_debt", "player_debt_sq", "joker_up",
                    "joker_earned", "hands_won", "hands_lost")
"""Weights of :func:`leaf_value`: the value of a won game (a lost one counts ``-win``), of each
debt card on the Rats (a defeated Rat counts 5), of each players' debt card (linear and
squared: debt near 5 is worse than debt at 1), of each joker earned and not yet used, of each
joker earned so far, and of the hands won and lost so far."""
LEAF_VALUE_DEFAULT = np.array([10.0, 1.0, 1.2, 0.15, 1.0, 0.0, 0.0, 0.0])
LEARNED_VALUE_SCALE = 10.0
"""The learned value's scale (:mod:`agents.value`): a return of 1 (a won game) is worth the
``win`` weight of :func:`leaf_value`."""

SEARCH_PRESETS = {"ismcts-fast": (100, 0, 3.0), "ismcts": (400, 0, 3.0),
                  "ismcts-strong": (2000, 0, 3.0)}
"""River Rats' ISMCTS presets (simulations, horizon, exploration): the exploration constant on
the scale of :func:`leaf_value` (a hand is worth a few points); measured at 4 players, normal,
random Rats, 300 paired games, 100 simulations: c = 0.7 won 34%, c = 3 54%, c = 8 57%."""


@njit(cache=True)
def leaf_value(s, w, out):
    """The team's value of state ``s`` (written for every seat into ``out``, ``float64
    (MAX_PLAYERS,)``), for search rollouts stopped at a horizon: ``±w[0]`` at the end of the
    game, else the weighted Rat progress, players' debt and jokers (:data:`LEAF_VALUE_NAMES`).
    Reads only public counts."""
    if s[core.STATUS] == core.WON:
        v = w[0]
    elif s[core.STATUS] == core.LOST:
        v = -w[0]
    else:
        d = s[core.PDEBT]
        v = (w[1] * (5 * s[core.DEFEATED] + s[core.RDEBT]) - w[2] * d - w[3] * d * d
             + w[4] * s[core.JUP] + w[5] * s[core.JOKERS_EARNED] + w[6] * s[core.HANDS_WON]
             - w[7] * s[core.HANDS_LOST])
    for p in range(out.shape[0]):
        out[p] = v



# The action features of the learned policy (format 2 of agents.net): the optional hook group
# of agents.contract, defined in agents/river_rats_features.py (which builds on this module's
# valuation) and loaded on first use, so either module may be imported first.
__getattr__ = lazy_feature_hooks(__name__, "agents.river_rats_features")


GAME_ID = GAME_IDS["river_rats"]
"""River Rats's id in :data:`engines.protocol.GAME_IDS` (the constant its loop is compiled for)."""


@njit(cache=True)
def play_table(one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """River Rats's compiled game loop: :func:`agents.table_loop.run_table` for this game (the
    arguments are documented there), compiled and cached with this game's sources, so that an
    edit to another game's files leaves it cached; ``one_kind`` is made a literal."""
    literally(one_kind)
    run_table(GAME_ID, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad,
              None, None, None, None)
