"""Lure policies on the one policy protocol (:mod:`agents.policy`): compiled, tunable.

Every policy has the compiled signature ``policy(state, player, legal, n_legal, params, rng)``
behind :func:`act` (dispatch on ``kind``) and reads only what its seat may see (the table, its
own tokens and cast, the public records; a test checks that it decides the same on
``determinize(state, player, seed)``). ``aux`` is :func:`make_aux` ``(config)``: the exact catch
table of the config's deck (:func:`engines.dice.exact_table`), ``float64`` flattened from
``(cards, 6, 8, dice.N_PLANS)`` and indexed ``[card, n_d6, special mask, plan]``.

Agents (:data:`SPECS`):

* ``random``: uniform over the legal small decisions (``chance.rand_below(rng, 0, n_legal)``):
  so a cast is a uniform d6 count, a uniform subset of the available special dice, then at each
  lure decision "finish" or one of the held kinds (from the kind added last) with equal
  chances; an adjust decision is a uniform legal step (or "stop" when allowed).
* ``greedy``, ``heuristic``, ``cautious``, ``bold``: the tunable family at
  :data:`GREEDY_PARAMS`, :data:`HEURISTIC_PARAMS`, :data:`CAUTIOUS_PARAMS`,
  :data:`BOLD_PARAMS`. At the first decision of its cast it computes the whole cast (the d6
  count, the special dice, the lures) and keeps it in its memory ``rng[1:3]`` keyed by the
  round, then emits it piece by piece (d6, special dice, the lures in kind order, finish).
  The cast maximizes over 0-5 d6 x the available special dice x {no lure, 1 or 2 adjusts, one
  extra-die lure} x {no boost, all boosts} the value ``sum over the table's fish of points x
  w(P(catch)) x P(the fish is still there) + boost points x P(any catch) + empty_value x P(no
  catch) - costs``, with ``w(p) = p (1 - caution (1 - p))`` and the exact odds of ``aux``. Its
  place in the turn order comes from a model of the opponents: each casts as many dice as it did
  last round (3 in the first round), acting before it when that is fewer dice (half a chance when
  equal; a stubborn fish: after it). Its adjusts: at the first adjust decision it searches every
  adjust vector of at most 3 steps (the parity of its adjusts when they must be used) for the
  most points of the table's fish met, keeps the target dice in ``rng[3:5]`` keyed by the
  round, and emits one step per decision toward it (then "stop", or, when adjusts must be used,
  a step away and back).

The search agents of :mod:`agents.search` (``pimc``, ``ismcts``, ...) are offered for Lure
through :func:`leaf_value` (:data:`LEAF_VALUE_NAMES`), their value of a state at the horizon
(a fishing turn by default), with ``heuristic`` as the rollout policy.

Parameters (:data:`PARAM_NAMES`): ``caution`` in -1..1 (> 0 prefers sure catches, < 0 long
shots, 0 = expectation), ``d6_cost`` (points charged per d6: the value of an earlier turn),
``special_cost`` (points per special die: it rests next round), ``lure_cost`` (points per lure
token spent), ``empty_value`` (value of the lure drawn after catching nothing), ``pressure``
(0..1 weight of the opponents model), ``min_p`` (fish with a lower catch probability are
ignored), ``final_special`` (multiplier of ``special_cost`` in the final round).
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.table_loop import run_table
from engines.names import GAME_IDS
from agents.policy import PolicySpec
from agents.search import relative_to_mean
from engines import dice
from engines.protocol import chance
from engines.lure import config as CFG
from engines.lure import core
from engines.lure import decks

__all__ = ["SPECS", "act", "make_aux", "PARAMS_WIDTH", "PARAM_NAMES", "KIND_RANDOM",
           "KIND_HEURISTIC", "GREEDY_PARAMS", "HEURISTIC_PARAMS", "CAUTIOUS_PARAMS",
           "BOLD_PARAMS", "heuristic_params", "random_policy", "heuristic_policy",
           "plan_cast", "plan_adjust", "leaf_value", "LEAF_VALUE_NAMES", "LEAF_VALUE_DEFAULT",
           "POLICY_FUNCTIONS"]

KIND_RANDOM = 0
KIND_HEURISTIC = 1

PARAM_NAMES = ("caution", "d6_cost", "special_cost", "lure_cost", "empty_value", "pressure",
               "min_p", "final_special")
PARAMS_WIDTH = len(PARAM_NAMES)

GREEDY_PARAMS = (0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0)
"""Pure expected points of the round with the opponents model."""
HEURISTIC_PARAMS = (-1.0, 1.0, 1.75, 1.0, 0.2, 0.9, 0.02, 0.35)
"""Default of the tunable family: the best of a random search then a hill climb (70 candidates,
3000 games each, one seat against three ``greedy`` opponents at 4 players, seats rotated), under
the previous one-action encoding, rounded. It prefers few dice and saving its special dice and
lures, and values long shots (caution -1)."""
CAUTIOUS_PARAMS = (0.6, 0.3, 0.6, 0.4, 1.0, 1.0, 0.1, 0.0)
"""Hand-set member: sure catches, moderate costs."""
BOLD_PARAMS = (-0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 1.0)
"""Hand-set member: long shots, no costs, half-weight on the opponents."""

SPECS = (
    PolicySpec("lure", "random", KIND_RANDOM, (), (),
               "uniform over the legal small decisions"),
    PolicySpec("lure", "greedy", KIND_HEURISTIC, GREEDY_PARAMS, PARAM_NAMES,
               "expected points of the round from the exact odds, opponents modelled"),
    PolicySpec("lure", "heuristic", KIND_HEURISTIC, HEURISTIC_PARAMS, PARAM_NAMES,
               "the tuned member of the family: few dice, long shots, saves specials"),
    PolicySpec("lure", "cautious", KIND_HEURISTIC, CAUTIOUS_PARAMS, PARAM_NAMES,
               "prefers sure catches, moderate costs"),
    PolicySpec("lure", "bold", KIND_HEURISTIC, BOLD_PARAMS, PARAM_NAMES,
               "long shots, no costs, half-weight on the opponents"),
)

OPPONENT_DEFAULT_DICE = 3
MAX_ADJUST_SEARCH = 3
ROW = 8 * dice.N_PLANS
"""Stride of ``n_d6`` in the flattened catch table (``aux``); a card's block is ``6 * ROW``."""

M_CAST_KEY, M_CAST_PLAN, M_ADJ_KEY, M_ADJ_TARGET = 1, 2, 3, 4
"""Words of the seat memory used by the heuristic family (word 0 is the seat's stream)."""


def heuristic_params(params) -> np.ndarray:
    """A validated parameter vector of the heuristic family, ``float64 (PARAMS_WIDTH,)``.

    ``params``: a sequence of ``PARAMS_WIDTH`` floats (:data:`PARAM_NAMES`) or a dict
    overriding :data:`HEURISTIC_PARAMS` by name. Raises ``ValueError`` for a wrong length, an
    unknown name, a non-finite value, ``pressure`` outside 0..1 or ``caution`` outside -1..1."""
    if isinstance(params, dict):
        vec = np.array(HEURISTIC_PARAMS, np.float64)
        for k, v in params.items():
            if k not in PARAM_NAMES:
                raise ValueError(f"unknown heuristic parameter {k!r}; expected one of "
                                 f"{', '.join(PARAM_NAMES)}")
            vec[PARAM_NAMES.index(k)] = float(v)
    else:
        vec = np.asarray(params, np.float64).ravel()
    if vec.shape != (PARAMS_WIDTH,):
        raise ValueError(f"heuristic params of shape {vec.shape}; expected ({PARAMS_WIDTH},) "
                         f"({', '.join(PARAM_NAMES)})")
    if not np.all(np.isfinite(vec)):
        raise ValueError(f"heuristic params {vec.tolist()}: expected finite values")
    if not 0.0 <= vec[5] <= 1.0:
        raise ValueError(f"pressure = {vec[5]}; expected 0..1")
    if not -1.0 <= vec[0] <= 1.0:
        raise ValueError(f"caution = {vec[0]}; expected -1..1")
    return vec


_AUX: dict[tuple[str, bool], np.ndarray] = {}


def check_agent_params(name: str, vec) -> None:
    """Range checks of a registered agent's parameter vector (the heuristic family:
    :func:`heuristic_params`); raises ``ValueError``."""
    if name in ("greedy", "heuristic", "cautious", "bold"):
        heuristic_params(vec)


def make_aux(config) -> np.ndarray:
    """The exact catch table of ``config.deck`` (``float64``, flattened from ``(cards, 6, 8,
    dice.N_PLANS)``, NaN-free, every special subset d4 included) under
    ``config.adjust_may_be_unused``; computed once per deck hash and flag in a process."""
    key = (config.deck.sha256(), bool(config.adjust_may_be_unused))
    if key not in _AUX:
        t = dice.exact_table(config.deck.conds, deep_waters=True,
                             adjust_may_be_unused=bool(config.adjust_may_be_unused))
        _AUX[key] = np.ascontiguousarray(np.nan_to_num(t, nan=0.0)).ravel()
    return _AUX[key]


# ---------------------------------------------------------------- random
@njit(cache=True)
def random_policy(state, player, legal, n_legal, params, rng):
    """Uniform over the legal small decisions (draws one number from ``rng[0]``)."""
    return legal[chance.rand_below(rng, 0, n_legal)]


# ---------------------------------------------------------------- the heuristic family
@njit(cache=True, inline="always")
def _opp_loadout(m, deep):
    """(n_d6, spec) assumed for an opponent casting ``m`` dice: d6 first, then d20, d12, d4."""
    if m <= 5:
        return m, 0
    if m == 6:
        return 5, 2
    if m == 7 or not deep:
        return 5, 3
    return 5, 7


# plan_cast stays one function: split into named steps (the opponents' survival model, the
# usable plans, each loadout's values, its best plan), even inlined, it measured fewer
# heuristic games per second in the same-run comparison (docs/benchmarks.md).
@njit(cache=True)
def plan_cast(state, p, params, aux):
    """The heuristic family's whole cast for seat ``p`` this round, packed as ``n_d6 | spec <<
    3 | sum(count[k] << (6 + 5 k))`` (tokens per kind). Reads the table, ``p``'s own tokens
    (held + cast so far), the special dice available, the final-round flag and the other
    players' dice count of last round (module docstring for the value maximized)."""
    b = core.PB + p * core.PSTRIDE
    caution = params[0]
    d6_cost = params[1]
    spec_cost = params[2] * (params[7] if state[core.H_FINAL] else 1.0)
    lure_cost = params[3]
    empty_value = params[4]
    pressure = params[5]
    min_p = params[6]
    nt = state[core.H_NTABLE]
    np_ = state[core.H_NP]
    deep = state[core.H_DEEP]
    avail = core.available_specials(state, p)
    boost_pts = core.cfg_of(state, CFG.C_BOOST_POINTS)
    fw = np.empty(core.MAXC * 9 + 2 * dice.N_PLANS + core.MAXC)
    surv = fw[:core.MAXC * 9].reshape((core.MAXC, 9))
    evs = fw[core.MAXC * 9:core.MAXC * 9 + dice.N_PLANS]
    miss = fw[core.MAXC * 9 + dice.N_PLANS:core.MAXC * 9 + 2 * dice.N_PLANS]
    pts = fw[core.MAXC * 9 + 2 * dice.N_PLANS:]
    iw = np.zeros(3 * dice.N_PLANS + core.MAXC, np.int64)
    usable = iw[:dice.N_PLANS]
    nl = iw[dice.N_PLANS:2 * dice.N_PLANS]
    cols = iw[2 * dice.N_PLANS:3 * dice.N_PLANS]
    tcard = iw[3 * dice.N_PLANS:]
    # survival of each table fish as a function of my dice count (0..8), from the model
    for i in range(nt):
        for nd in range(9):
            surv[i, nd] = 1.0
    if pressure > 0.0:
        for j in range(np_):
            if j == p:
                continue
            m = state[core.PB + j * core.PSTRIDE + core.P_LAST_NDICE]
            if m < 0:
                m = OPPONENT_DEFAULT_DICE
            m6, sp = _opp_loadout(m, deep)
            for i in range(nt):
                c = state[core.TABLE + i]
                q = pressure * aux[(c * 6 + m6) * ROW + sp * dice.N_PLANS + dice.PLAN_NONE]
                if q <= 0.0:
                    continue
                stub = (core.cond_flags(state, c) & dice.F_STUBBORN) != 0
                for nd in range(9):
                    if (stub and m > nd) or ((not stub) and m < nd):
                        surv[i, nd] *= 1.0 - q
                    elif m == nd:
                        surv[i, nd] *= 1.0 - 0.5 * q
    held_adj = state[b + core.P_HELD + core.K_ADJ] + state[b + core.P_CAST + core.K_ADJ]
    held_boost = state[b + core.P_HELD + core.K_BOOST] + state[b + core.P_CAST + core.K_BOOST]
    # which plans this player can play, and the tokens each costs
    usable[dice.PLAN_NONE] = 1
    usable[dice.PLAN_ADJ1] = held_adj >= 1
    usable[dice.PLAN_ADJ2] = held_adj >= 2
    nl[dice.PLAN_ADJ1] = 1
    nl[dice.PLAN_ADJ2] = 2
    for x in range(6):
        usable[dice.PLAN_X1 + x] = (state[b + core.P_HELD + 1 + x]
                                    + state[b + core.P_CAST + 1 + x] >= 1)
        nl[dice.PLAN_X1 + x] = 1
    # the table columns needed: usable plans, plus the boost column when boosts are held
    ncol = 0
    for q in range(dice.N_PLANS):
        if usable[q] != 0 or (q == dice.PLAN_FLAG and held_boost > 0):
            cols[ncol] = q
            ncol += 1
    for i in range(nt):
        pts[i] = core.card_info(state, state[core.TABLE + i], decks.I_POINTS)
        tcard[i] = state[core.TABLE + i] * 6 * ROW
    plain = caution == 0.0 and min_p <= 0.0
    best = -1e300
    bn6 = 0
    bspec = 0
    bplan = 0
    bboost = 0
    for n6 in range(6):
        for spec in range(8):
            if spec & ~avail:
                continue
            nsp = core.popcount3(spec)
            nd = n6 + nsp
            base_cost = d6_cost * n6 + spec_cost * nsp
            evs[:] = 0.0
            miss[:] = 1.0
            off = n6 * ROW + spec * dice.N_PLANS
            for i in range(nt):
                row = aux[tcard[i] + off:tcard[i] + off + dice.N_PLANS]
                sv = surv[i, nd]
                ps = pts[i] * sv
                if plain:
                    for t in range(ncol):
                        q = cols[t]
                        pc = row[q]
                        evs[q] += ps * pc
                        miss[q] *= 1.0 - pc * sv
                else:
                    for t in range(ncol):
                        q = cols[t]
                        pc = row[q]
                        if pc < min_p:
                            pc = 0.0
                        evs[q] += ps * pc * (1.0 - caution * (1.0 - pc))
                        miss[q] *= 1.0 - pc * sv
            for plan in range(dice.N_PLANS):
                if plan == dice.PLAN_FLAG or usable[plan] == 0:
                    continue
                for bi in range(2):
                    if bi == 1 and held_boost == 0:
                        continue
                    bo = held_boost if bi == 1 else 0
                    eff = dice.PLAN_FLAG if (plan == dice.PLAN_NONE and bo > 0) else plan
                    m = miss[eff]
                    ev = (evs[eff] + boost_pts * bo * (1.0 - m) + empty_value * m
                          - base_cost - lure_cost * (nl[plan] + bo))
                    if ev > best + 1e-9:
                        best = ev
                        bn6 = n6
                        bspec = spec
                        bplan = plan
                        bboost = bo
    a = bn6 | (bspec << 3)
    if bplan == dice.PLAN_ADJ1:
        a |= 1 << 6
    elif bplan == dice.PLAN_ADJ2:
        a |= 2 << 6
    elif bplan >= dice.PLAN_X1:
        a |= 1 << (6 + 5 * (1 + bplan - dice.PLAN_X1))
    a |= min(bboost, 31) << (6 + 5 * core.K_BOOST)
    return a


@njit(cache=True, inline="always")
def _adjust_value(state, p, conds, vals, counts):
    """Points of the table's fish met by seat ``p`` when its dice show ``vals`` (per slot, -1
    unused) with its extra-die lures (a lure was used: it played adjusts)."""
    b = core.PB + p * core.PSTRIDE
    counts[:] = 0
    total = 0
    maxc = 0
    odd = True
    even = True
    for t in range(core.NSLOT):
        v = vals[t]
        if v >= 0:
            total += v
            counts[v] += 1
            maxc = max(maxc, counts[v])
            if v & 1:
                even = False
            else:
                odd = False
    for v in range(1, 7):
        n = state[b + core.P_CAST + v]
        if n > 0:
            total += v * n
            counts[v] += n
            maxc = max(maxc, counts[v])
            if v & 1:
                even = False
            else:
                odd = False
    nspec = core.popcount3(state[b + core.P_SPEC])
    val = 0.0
    for i in range(state[core.H_NTABLE]):
        c = state[core.TABLE + i]
        if dice.condition_met(conds, c, total, maxc, odd, even, nspec, True, counts):
            val += core.card_info(state, c, decks.I_POINTS)
    return val


_MAX_ADJUST_VECTORS = 833
"""Adjust vectors of at most 3 steps over the 8 dice slots: 1 + 16 + 128 + 688."""


@njit(cache=True)
def plan_adjust(state, p):
    """The heuristic family's target dice for seat ``p``'s adjusts, packed 5 bits per slot
    (``sum(value[s] << (5 * s))``, 0 for an unrolled slot): the first adjust vector, in
    depth-first order (slot 0 first, most negative first), of the most points of the table's
    fish met, among those of at most ``min(k, 3)`` steps from the raw roll (``k`` the adjusts
    played; with the parity of ``k`` when adjusts must be used) that stay on the faces."""
    b = core.PB + p * core.PSTRIDE
    k = state[b + core.P_CAST + core.K_ADJ]
    allow = core.cfg_of(state, CFG.C_ADJ_UNUSED) != 0
    kk = k
    if kk > MAX_ADJUST_SEARCH:
        kk = MAX_ADJUST_SEARCH if (allow or (k - MAX_ADJUST_SEARCH) % 2 == 0) else \
            MAX_ADJUST_SEARCH - 1
    need = (not allow)
    conds = core.conds_of(state)
    wk = np.empty(4 * core.NSLOT + dice.MAX_VALUE + 1, np.int64)
    slots = wk[:core.NSLOT]
    lo = wk[core.NSLOT:2 * core.NSLOT]
    hi = wk[2 * core.NSLOT:3 * core.NSLOT]
    vals = wk[3 * core.NSLOT:4 * core.NSLOT]
    counts = wk[4 * core.NSLOT:]
    nd = 0
    for t in range(core.NSLOT):
        v = state[b + core.P_RAW + t]
        vals[t] = v
        if v >= 0:
            slots[nd] = t
            lo[nd] = 1 - v
            hi[nd] = core.SLOT_FACES[t] - v
            nd += 1
    if nd == 0:
        return 0
    buf = np.empty((_MAX_ADJUST_VECTORS, core.NSLOT), np.int64)
    nvec = dice.enumerate_deltas(lo, hi, nd, kk, need, buf)
    best = -1.0
    btarget = 0
    for t in range(nvec):  # depth-first order: the first best vector wins ties
        for i in range(nd):
            vals[slots[i]] = state[b + core.P_RAW + slots[i]] + buf[t, i]
        val = _adjust_value(state, p, conds, vals, counts)
        if val > best:
            best = val
            btarget = 0
            for i in range(nd):
                btarget |= vals[slots[i]] << (5 * slots[i])
    return btarget


@njit(cache=True)
def heuristic_policy(state, player, legal, n_legal, params, aux, rng):
    """The heuristic family (module docstring) for seat ``player``: emits the cast planned at
    its first cast decision and the adjust target planned at its first adjust decision, both
    kept in ``rng[1:5]`` keyed by the round. Returns one of ``legal[:n_legal]``."""
    b = core.PB + player * core.PSTRIDE
    rnd = state[core.H_ROUND]
    if state[core.H_PHASE] == core.PH_CAST:
        if rng[M_CAST_KEY] != rnd:
            rng[M_CAST_PLAN] = plan_cast(state, player, params, aux)
            rng[M_CAST_KEY] = rnd
        plan = rng[M_CAST_PLAN]
        step = state[b + core.P_CSTEP]
        if step == core.CS_D6:
            return core.A_CAST_D6 + (plan & 7)
        if step == core.CS_SPECIAL:
            return core.A_SPECIAL + ((plan >> 3) & 7 & core.available_specials(state, player))
        for k in range(state[b + core.P_LASTK], core.NK):
            if (state[b + core.P_CAST + k] < ((plan >> (6 + 5 * k)) & 31)
                    and state[b + core.P_HELD + k] > 0):
                return core.A_LURE + k
        return core.A_FINISH
    if rng[M_ADJ_KEY] != rnd:
        rng[M_ADJ_TARGET] = plan_adjust(state, player)
        rng[M_ADJ_KEY] = rnd
    target = rng[M_ADJ_TARGET]
    first = -1
    for t in range(core.NSLOT):
        if state[b + core.P_RAW + t] < 0:
            continue
        if first < 0:
            first = t
        v = state[b + core.P_DICE + t]
        want = (target >> (5 * t)) & 31
        if v < want:
            return core.A_ADJUST + 2 * t
        if v > want:
            return core.A_ADJUST + 2 * t + 1
    if core.cfg_of(state, CFG.C_ADJ_UNUSED) != 0:
        return core.A_STOP
    # adjusts must be used: a step away from the target (the next decision steps back)
    if state[b + core.P_DICE + first] < core.SLOT_FACES[first]:
        return core.A_ADJUST + 2 * first
    return core.A_ADJUST + 2 * first + 1


# ---------------------------------------------------------------- leaf value (agents.search)
LEAF_VALUE_NAMES = ("score", "lure", "win")
"""Weights of :func:`leaf_value`: each point of the score a player would have if the game ended
now (fish points, kept boosts, unused-lure points, the trophy bonus of the current leaders;
rules *End and scoring*), each lure token it holds or has cast this round (a public count; a
token is a future catch or 2 points), and a won game (its return, at the end)."""
LEAF_VALUE_DEFAULT = np.array([1.0, 0.5, 10.0])


@njit(cache=True)
def leaf_value(s, w, out):
    """Each seat's value of state ``s`` into ``out`` (``float64 (MAX_PLAYERS,)``), relative to
    the mean of the seats (a competitive game), with the weights :data:`LEAF_VALUE_NAMES`, for
    the rollouts of :mod:`agents.search` stopped at a horizon. Reads only public counts."""
    n = s[core.H_NP]
    over = s[core.H_PHASE] == core.PH_END
    maxt = 0
    nw = 0
    for p in range(n):
        maxt = max(maxt, s[core.PB + p * core.PSTRIDE + core.P_TROPHY])
        nw += s[core.PB + p * core.PSTRIDE + core.P_WIN]
    for p in range(n):
        b = core.PB + p * core.PSTRIDE
        tokens = s[b + core.P_NHELD]
        for k in range(core.NK):
            tokens += s[b + core.P_CAST + k]
        if over:
            v = w[0] * s[b + core.P_SCORE] + w[2] * s[b + core.P_WIN] / max(nw, 1)
        else:
            sc = (s[b + core.P_POINTS] + core.cfg_of(s, CFG.C_BOOST_POINTS) * s[b + core.P_KEPT]
                  + core.cfg_of(s, CFG.C_UNUSED_LURE_POINTS) * tokens)
            if s[core.H_DEEP] and maxt > 0 and s[b + core.P_TROPHY] == maxt:
                sc += core.cfg_of(s, CFG.C_TROPHY_BONUS)
            v = w[0] * sc + w[1] * tokens
        out[p] = v
    relative_to_mean(out, n)


@njit(cache=True)
def act(kind, state, player, legal, n_legal, params, aux, rng):
    """The action of shipped policy ``kind`` (``KIND_RANDOM`` or ``KIND_HEURISTIC``) for seat
    ``player``, the player to act in ``state``: one of ``legal[:n_legal]``. ``params``:
    ``float64 (PARAMS_WIDTH,)``; ``aux``: :func:`make_aux`; ``rng``: the seat's memory
    (``int64 (SEAT_WORDS,)``)."""
    if kind == KIND_RANDOM:
        return random_policy(state, player, legal, n_legal, params, rng)
    return heuristic_policy(state, player, legal, n_legal, params, aux, rng)


POLICY_FUNCTIONS = {"random": random_policy}
"""The shipped policies with the plain policy signature (:mod:`agents.contract`): ``random``
only; the heuristic family reads the deck's exact catch table from ``aux``, so it runs through
:func:`act`."""


GAME_ID = GAME_IDS["lure"]
"""Lure's id in :data:`engines.protocol.GAME_IDS` (the constant its loop is compiled for)."""


@njit(cache=True)
def play_table(one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """Lure's compiled game loop: :func:`agents.table_loop.run_table` for this game (the
    arguments are documented there), compiled and cached with this game's sources, so that an
    edit to another game's files leaves it cached; ``one_kind`` is made a literal."""
    literally(one_kind)
    run_table(GAME_ID, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad,
              None, None, None, None)
