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
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.policy import PolicySpec
from engines.chance import rand_below
from engines.poker import eval_hand
from engines.river_rats import core as C

__all__ = ["SPECS", "POLICY_IDS", "POLICY_LABELS", "N_PARAMS", "PARAM_NAMES",
           "DEFAULT_PARAMS", "PARAMS_WIDTH", "POLICY_FUNCTIONS", "default_params",
           "check_params", "act", "make_aux", "random_policy", "greedy_policy",
           "heuristic_policy", "peek_policy", "score", "build_context"]

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
POP13 = np.array([bin(m).count("1") for m in range(8192)], dtype=np.int64)
HIGH13 = np.array([m.bit_length() - 1 for m in range(8192)], dtype=np.int64)
WINDOWS = np.array([(1 << 12) | 0b1111] + [0b11111 << (w - 1) for w in range(1, 10)],
                   dtype=np.int64)
WINDOW_TOP = np.array([3] + [w + 3 for w in range(1, 10)], dtype=np.int64)
BINOM = np.array([[float(np.prod(range(n - k + 1, n + 1)) / np.prod(range(1, k + 1))) if k <= n
                   else 0.0 for k in range(8)] for n in range(8)])

# ---- context (what the acting player knows), float64 array ------------------------------------
CX_U, CX_US, CX_UR, CX_MS, CX_MR = 0, 1, 5, 18, 22
CX_RV, CX_T, CX_PRED, CX_MATCH, CX_PEEK, CX_NFD = 35, 36, 37, 38, 39, 40
CX_PS, CX_PR = 41, 45  # chance per slot of a card of suit s / rank r (see _slot_p)
CX_SIZE = 58
# int64 work array: [0:32] card buffer, W_SM.. collective summary, W_H.. hand (up to 8)
W_SM, W_NJ, W_NUNK, W_NC, W_NH, W_H, W_DECKTOP = 32, 33, 34, 35, 36, 37, 45
W_SIZE = 48


@njit(cache=True, inline="always")
def _bit(c):
    return np.int64(1) << (16 * (c & 3) + (c >> 2))


@njit(cache=True)
def build_context(s, player, peek, prm, ctx, w, obs):
    """Fill ``ctx`` (float64 ``CX_SIZE``) and ``w`` (int64 ``W_SIZE``) with what ``player``
    knows: unseen cards per suit and rank, relevant available cards (market; plus the other
    hands if ``peek``), the chance per open slot of a card of each suit and rank (``prm``:
    the policy parameters), the Rat's face-up best strength (its true strength if ``peek``),
    the collective hand as a suit-rank bit mask, own hand. Without ``peek`` it reads only
    :func:`core.observe` (``obs``: int64 ``OBS_SIZE`` scratch)."""
    ctx[:] = 0.0
    C.observe(s, player, obs)
    o = C.OBS_CARDS
    sm = np.int64(0)
    nj = 0
    nknown = 0
    nh = 0
    nr = 0
    for c in range(54):
        loc = obs[c]
        if loc == C.LOC_UNSEEN:
            if c < 52:
                if peek:
                    continue
                ctx[CX_U] += 1
                ctx[CX_US + (c & 3)] += 1
                ctx[CX_UR + (c >> 2)] += 1
        elif loc == C.LOC_MARKET:
            ctx[CX_MS + (c & 3)] += 1
            ctx[CX_MR + (c >> 2)] += 1
        elif loc == C.LOC_COLLECTIVE or loc == C.LOC_MY_FACEDOWN or loc == C.LOC_REVEALED:
            if c >= 52:
                nj += 1
            else:
                sm |= _bit(c)
                nknown += 1
        elif loc == C.LOC_MY_HAND:
            w[W_H + nh] = c
            nh += 1
        elif loc == C.LOC_RAT_UP or loc == C.LOC_ACTIVE_KING:
            if not peek:
                w[nr] = c
                nr += 1
    ncoll = obs[o + 24] + s[C.REVEAL]
    w[W_DECKTOP] = -1
    if peek:
        # the pool of cards still to come: deck and discard pile; other hands count as outs
        for b in (C.DECK, C.DISCARD):
            for i in range(s[b]):
                c = s[b + 1 + i]
                ctx[CX_U] += 1
                ctx[CX_US + (c & 3)] += 1
                ctx[CX_UR + (c >> 2)] += 1
        for q in range(s[C.N_PLAYERS]):
            if q != player:
                hb = C.hand_base(q)
                for i in range(s[hb]):
                    c = s[hb + 1 + i]
                    ctx[CX_MS + (c & 3)] += 1
                    ctx[CX_MR + (c >> 2)] += 1
        if s[C.COLL_FD] == 1 and s[C.FD_OWNER] != player:
            c = s[C.COLL + 1]
            sm |= _bit(c)
            nknown += 1
        for i in range(s[C.RAT]):
            w[nr] = s[C.RAT + 1 + i]
            nr += 1
        if s[C.DECK] > 0:
            w[W_DECKTOP] = s[C.DECK + s[C.DECK]]
    ctx[CX_RV] = eval_hand(w, nr, 1) if nr >= 5 else 0.0
    ctx[CX_T] = s[C.TARGET]
    pred = s[C.PRED_CAT]
    ctx[CX_PRED] = pred if (pred >= 0 and s[C.JSUP] > 0) else -1
    ctx[CX_MATCH] = s[C.C_MATCH]
    ctx[CX_PEEK] = 1.0 if peek else 0.0
    ctx[CX_NFD] = obs[o + 23]
    w[W_SM] = sm
    w[W_NJ] = nj
    w[W_NC] = ncoll
    w[W_NUNK] = ncoll - nknown - nj
    w[W_NH] = nh
    for su in range(4):
        ctx[CX_PS + su] = _slot_p(ctx[CX_US + su], ctx[CX_MS + su], ctx, prm)
    for r in range(13):
        ctx[CX_PR + r] = _slot_p(ctx[CX_UR + r], ctx[CX_MR + r], ctx, prm)


@njit(cache=True, inline="always")
def _slot_p(rel, mrel, ctx, prm):
    """Chance that one future slot of the collective hand gets a relevant card: the player
    filling it chooses among ~h_eff cards (a fraction rel/U of them relevant) or takes one of
    the ``mrel`` relevant available cards."""
    u = ctx[CX_U]
    f = rel / u if u > 0 else 0.0
    miss = (1.0 - f) ** prm[P_H]
    if mrel > 0:
        miss *= (1.0 - prm[P_Q]) ** mrel
    return 1.0 - miss


@njit(cache=True, inline="always")
def _tail(L, k, p):
    """P(X >= k) for X ~ Binomial(L, p), L <= 7."""
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
    t = 0.0
    for i in range(k, L + 1):
        qi = 1.0
        for _ in range(L - i):
            qi *= q
        t += BINOM[L, i] * pk * qi
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
    pred = ctx[CX_PRED]
    if pred < 0:
        return 0.0
    if cat == pred or (ctx[CX_MATCH] == 1.0 and cat >= pred):
        return prm[P_JB]
    return 0.0


@njit(cache=True)
def score(sm, nj, nunk, nc, L, ctx, prm, buf):
    """Value of a collective hand for the players: the best over plans (flush per suit,
    straight per window, rank sets) of P(plan completes in the ``L`` open slots) x (chance it
    beats the Rat + joker value if it makes the prediction). ``sm``: suit-rank bit mask of the
    known cards (bit ``16*suit + rank``), ``nj`` jokers, ``nunk`` unknown (face-down) cards,
    ``nc`` cards in all. A complete, fully known hand is scored exactly with the poker
    evaluator (``buf``: int64 scratch >= 8). Returns a float in [0, 1 + joker_value]."""
    T = np.int64(ctx[CX_T])
    A = T - 5
    if L <= 0:
        L = 0
        if nunk == 0 and nc >= 5:
            n = 0
            for su in range(4):
                m = (sm >> (16 * su)) & 0x1FFF
                while m:
                    r = HIGH13[m]
                    buf[n] = 4 * r + su
                    n += 1
                    m &= ~(np.int64(1) << r)
            for j in range(nj):
                buf[n] = 52 + j
                n += 1
            st = eval_hand(buf, n, 1)
            return _beat(st, True, ctx, prm) + _jb(st >> 20, ctx, prm)
    nreal = nc - nj
    best = 0.0
    # flush plans
    for su in range(4):
        m = (sm >> (16 * su)) & 0x1FFF
        cnt = POP13[m]
        off = nreal - cnt
        if off > A:
            continue
        need = 5 - cnt - nj
        if need < 0:
            need = 0
        if need > L:
            continue
        top = HIGH13[m] if m else 8
        if nj > 0 or need > 0:
            top = max(top, 11)
        est = (5 << 20) | (top << 16)
        p = ctx[CX_PS + su]
        v = _tail(L, need, p) * (_beat(est, False, ctx, prm) + _jb(5, ctx, prm))
        if v > best:
            best = v
    l1 = (sm | (sm >> 16) | (sm >> 32) | (sm >> 48)) & 0x1FFF
    # straight plans
    for wi in range(10):
        W = WINDOWS[wi]
        have = POP13[l1 & W]
        off = nreal - have
        if off > A:
            continue
        need = 5 - have - nj
        if need < 0:
            need = 0
        if need > L:
            continue
        p = 1.0
        if need > 0:
            miss = W & ~l1
            p = 0.0
            nm = 0
            while miss:
                r = HIGH13[miss]
                p += ctx[CX_PR + r]
                nm += 1
                miss &= ~(np.int64(1) << r)
            p /= nm
        est = (4 << 20) | (WINDOW_TOP[wi] << 16)
        v = _tail(L, need, p) * (_beat(est, False, ctx, prm) + _jb(4, ctx, prm))
        if v > best:
            best = v
    # rank-set plans on the two ranks held most (then highest)
    c1, r1, c2, r2 = 0, -1, 0, -1
    for r in range(12, -1, -1):
        k = (((sm >> r) & 1) + ((sm >> (16 + r)) & 1) + ((sm >> (32 + r)) & 1)
             + ((sm >> (48 + r)) & 1))
        if k > c1:
            c2, r2 = c1, r1
            c1, r1 = k, r
        elif k > c2:
            c2, r2 = k, r
    if c1 > 0:
        p1 = ctx[CX_PR + r1]
        # four of a kind, three of a kind, pair on r1
        for size, cat in ((4, 7), (3, 3), (2, 1)):
            need = size - c1 - nj
            if need < 0:
                need = 0
            off = nreal - c1
            if need > L or off > T - size:
                continue
            est = (cat << 20) | (r1 << 16)
            v = _tail(L, need, p1) * (_beat(est, False, ctx, prm) + _jb(cat, ctx, prm))
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
                p = 0.5 * (p1 + ctx[CX_PR + r2])
                rr2 = r2
                v = _tail(L, need, p)
            else:
                n1 = max(0, size1 - c1 - nj)
                off = nreal - c1
                if n1 + 2 > L or off > T - size1 - 2:
                    continue
                v = _tail(L - 2, n1, p1) * prm[P_NEWPAIR]
                rr2 = 0
            est = (cat << 20) | (r1 << 16) | (rr2 << 12)
            v *= _beat(est, False, ctx, prm) + _jb(cat, ctx, prm)
            if v > best:
                best = v
    return best


# ---- scoring helpers over the work array --------------------------------------------------------
@njit(cache=True, inline="always")
def _coll_score(w, add, remove, L, ctx, prm):
    """Score of the collective hand with card ``add`` added (-1 none; 52/53 a joker) and known
    card ``remove`` taken out (-1 none), ``L`` open slots left."""
    sm = w[W_SM]
    nj = w[W_NJ]
    nc = w[W_NC]
    if remove >= 0:
        sm &= ~_bit(remove)
        nc -= 1
    if add >= 52:
        nj += 1
        nc += 1
    elif add >= 0:
        sm |= _bit(add)
        nc += 1
    return score(sm, nj, w[W_NUNK], nc, L, ctx, prm, w)


@njit(cache=True)
def _best_play(w, extra, L, ctx, prm):
    """Best score after playing one card of the hand (plus ``extra`` if >= 0) into the
    collective hand with ``L`` open slots."""
    best = _coll_score(w, -1, -1, L, ctx, prm) if w[W_NH] == 0 and extra < 0 else -1.0
    for i in range(w[W_NH]):
        v = _coll_score(w, w[W_H + i], -1, L - 1, ctx, prm)
        if v > best:
            best = v
    if extra >= 0:
        v = _coll_score(w, extra, -1, L - 1, ctx, prm)
        if v > best:
            best = v
    return best


@njit(cache=True)
def _rat_without(s, slot, peek, w):
    """The Rat's (face-up, or all if ``peek``) best strength without its card at ``slot``."""
    n = 0
    for i in range(s[C.RAT]):
        if i != slot and (peek or s[C.RAT_UP + i] == 1):
            w[n] = s[C.RAT + 1 + i]
            n += 1
    return eval_hand(w, n, 1) if n >= 5 else 0


# ---- policies ---------------------------------------------------------------------------------
@njit(cache=True)
def random_policy(s, player, legal, n_legal, params, rng):
    """Uniform over the legal actions (the draw indexes them in table order,
    :func:`engines.river_rats.core.legal_actions_in_table_order`)."""
    r = rand_below(rng, 0, n_legal)
    if n_legal == 1:
        return legal[0]
    order = np.empty(C.MAX_LEGAL, dtype=np.int64)
    C.legal_actions_in_table_order(s, order)
    return order[r]


@njit(cache=True)
def _values(s, player, legal, n_legal, params, peek, greedy, vals):
    """Value of each legal action for the greedy (``greedy=True``: effect on the collective
    hand only) or the heuristic valuation; fills ``vals[:n_legal]``."""
    ctx = np.empty(CX_SIZE, dtype=np.float64)
    w = np.zeros(W_SIZE, dtype=np.int64)
    obs = np.empty(C.OBS_SIZE, dtype=np.int64)
    build_context(s, player, peek, params, ctx, w, obs)
    T = s[C.TARGET]
    nc = w[W_NC]
    L = T - nc
    ph = s[C.PHASE]
    base = _coll_score(w, -1, -1, L, ctx, params)
    fits_ok = L >= 1
    bp = -1.0
    if ph == C.PH_DRAW or ph == C.PH_PLAY:
        bp = _best_play(w, -1, L, ctx, params)
    for i in range(n_legal):
        a = legal[i]
        k = a >> 6
        arg = a & 63
        v = base
        if k == C.K_DRAW_MARKET:
            v = max(bp, _coll_score(w, arg, -1, L - 1, ctx, params))
        elif k == C.K_DRAW_DECK:
            v = bp
            if peek and w[W_DECKTOP] >= 0:
                v = max(bp, _coll_score(w, w[W_DECKTOP], -1, L - 1, ctx, params))
            if not greedy:
                v += params[T_DRAW]
        elif k == C.K_PLAY:
            v = _coll_score(w, arg, -1, L - 1, ctx, params)
        elif k == C.K_JOKER:
            v = _coll_score(w, arg, -1, L - 1, ctx, params)
            if not greedy and L > 1:
                v -= params[T_JOKER]
        elif k == C.K_JREMOVE:
            if arg == C.FACE_DOWN_TARGET and not peek:
                v = -1.0
            else:
                old = ctx[CX_RV]
                v = 0.0
                m = 0
                for slot in range(s[C.RAT]):
                    hit = slot == arg
                    if arg == C.FACE_DOWN_TARGET:  # peek: the mean over the possible cards
                        hit = s[C.RAT_UP + slot] == 0 and s[C.RAT + 1 + slot] >> 2 != C.KING
                    if hit:
                        ctx[CX_RV] = _rat_without(s, slot, peek, w)
                        v += _best_play(w, -1, L, ctx, params) if w[W_NH] > 0 else base
                        m += 1
                ctx[CX_RV] = old
                v = v / m if m > 0 else base
                if not greedy:
                    v -= params[T_REMOVE]
        elif k == C.K_SWAP_OUT or k == C.K_PSWAP_OUT:
            v = -1.0
            if k == C.K_SWAP_OUT:
                for j in range(w[W_NH]):
                    x = _coll_score(w, w[W_H + j], arg, L, ctx, params)
                    if x > v:
                        v = x
            else:
                for j in range(s[C.MARKET]):
                    x = _coll_score(w, s[C.MARKET + 1 + j], arg, L, ctx, params)
                    if x > v:
                        v = x
            if not greedy:
                v -= params[T_SWAP]
        elif k == C.K_SWAP_IN or k == C.K_PSWAP_IN:
            v = _coll_score(w, arg, s[C.PENDING], L, ctx, params)
        elif greedy:
            v = base
        elif k == C.K_STAKE or k == C.K_PSTAKE:
            v = base + (1e-3 if base >= params[T_HEART] else -1.0)
        elif k == C.K_PREVEAL:
            v = base + 1.0
        elif k == C.K_PUSH or k == C.K_PPUSH:
            if arg == C.DECK_TOP:
                v = base + 1e-4
            elif fits_ok:
                f = _coll_score(w, arg, -1, L - 1, ctx, params) - base
                v = base + (1e-3 * (f - params[T_PUSH]) if f >= params[T_PUSH] else -1.0)
            else:
                v = base - 1.0
        elif k == C.K_DISCARD or k == C.K_PDISCARD:
            if fits_ok:
                f = _coll_score(w, arg, -1, L - 1, ctx, params) - base
                v = base + (1e-3 * (params[T_DISC] - f) + 1e-6 if f < params[T_DISC] else -1.0)
            else:
                v = base - 1.0
        elif k == C.K_EREVEAL:
            losing = base < 0.5
            v = base + (1.0 if (losing and s[C.REVEAL] < params[T_REVEALS]) else -1.0)
        vals[i] = v


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


@njit(cache=True)
def _argmax(s, vals, n, legal, rng, random_ties):
    """The best-valued action; ties: the first in table order
    (:func:`engines.river_rats.core.legal_actions_in_table_order`: cards as they lie), or
    (``random_ties``) a uniform pick among them in table order."""
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
    order = np.empty(C.MAX_LEGAL, dtype=np.int64)
    C.legal_actions_in_table_order(s, order)
    for j in range(n):
        a = order[j]
        if vals[_index_of(legal, n, a)] == best:
            if pick == 0:
                return a
            pick -= 1
    return legal[0]


@njit(cache=True)
def _plan_policy(s, player, legal, n_legal, params, rng, peek, one_step):
    """The action scoring best under :func:`_values` (``peek``: seeing every hidden card;
    ``one_step``: the greedy one-step score instead of the plan heuristic); ties at random."""
    if n_legal == 1:
        return legal[0]
    vals = np.empty(n_legal, dtype=np.float64)
    _values(s, player, legal, n_legal, params, peek, one_step, vals)
    return _argmax(s, vals, n_legal, legal, rng, one_step)


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
    if s[C.STATUS] == C.WON:
        v = w[0]
    elif s[C.STATUS] == C.LOST:
        v = -w[0]
    else:
        d = s[C.PDEBT]
        v = (w[1] * (5 * s[C.DEFEATED] + s[C.RDEBT]) - w[2] * d - w[3] * d * d
             + w[4] * s[C.JUP] + w[5] * s[C.JOKERS_EARNED] + w[6] * s[C.HANDS_WON]
             - w[7] * s[C.HANDS_LOST])
    for p in range(out.shape[0]):
        out[p] = v
