"""Lure agents: compiled policies, the tunable heuristic family and the registry.

Protocol: a compiled policy is ``policy_action(kind, state, cfg, conds, info, table, params,
prng, player, work) -> int64 action`` (dispatch on ``kind``), reading only what ``player`` may
see (:func:`engines.lure.core.observe`; a test checks that the decision is the same on the
observation). ``table`` is the exact catch table of the deck (:func:`policy_table`, float64
``(cards, 6, 8, N_PLANS)``, :func:`engines.dice.exact_table`), ``params`` a float64 vector, and
``prng`` the int64 array of the players' own splitmix64 words (``prng[player]`` is advanced).

Agents (:data:`REGISTRY`):

* ``random``: a uniformly random legal cast (each component independently: d6 count, each
  available special die with probability 1/2, each lure kind 0..held); adjusts: each adjust
  token moves a random die in a random direction (or, when allowed, is left unused).
* ``greedy``: maximizes its expected points of the round from the exact odds: for every cast
  it considers (0-5 d6 x available special dice x {no lure, 1 or 2 adjusts, one extra-die lure}
  x {no boost, all boosts}) it sums ``points x P(catch) x P(the fish is still there)`` over the
  fish on the table, plus 2 per boost times P(at least one catch). Its place in the turn order
  comes from a model of the opponents: each is assumed to cast as many dice as it did last
  round (3 in the first round), acting before it when that is fewer dice (half a chance when
  equal; stubborn fish: after it). Adjusts: searches every adjust vector (at most 3 steps) for
  the most points caught. It is the heuristic family at :data:`GREEDY_PARAMS`.
* ``heuristic`` (and ``cautious``, ``bold``): the tunable family. Parameters
  (:data:`PARAM_NAMES`): ``caution`` in -1..1 (a catch probability ``p`` is weighted
  ``p * (1 - caution * (1 - p))``: > 0 prefers sure catches, < 0 long shots, 0 = expectation),
  ``d6_cost`` (points charged per d6 cast, i.e. the value of an
  earlier turn), ``special_cost`` (points per special die cast: it rests next round),
  ``lure_cost`` (points per lure token spent), ``empty_value`` (value of the lure drawn after
  catching nothing), ``pressure`` (0..1 weight of the opponents model), ``min_p`` (fish with a
  lower catch probability are ignored), ``final_special`` (multiplier of ``special_cost`` in the
  final round, when resting no longer matters).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from engines import dice
from engines.lure import config as C
from engines.lure import core as K
from engines.lure import decks as D

KIND_RANDOM = 0
KIND_HEURISTIC = 1

PARAM_NAMES = ("caution", "d6_cost", "special_cost", "lure_cost", "empty_value", "pressure",
               "min_p", "final_special")
N_PARAMS = len(PARAM_NAMES)

GREEDY_PARAMS = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 1.0])
"""Pure expected points of the round with the opponents model."""
HEURISTIC_PARAMS = np.array([-1.0, 1.0, 1.75, 1.0, 0.2, 0.9, 0.02, 0.35])
"""Default of the tunable family: the best of a random search then a hill climb (70 candidates,
3000 games each, one seat against three ``greedy`` opponents at 4 players, seats rotated;
:func:`experiments.lure_versus.tune_heuristic`), rounded. It prefers few dice and saving its
special dice and lures, and values long shots (caution -1)."""
CAUTIOUS_PARAMS = np.array([0.6, 0.3, 0.6, 0.4, 1.0, 1.0, 0.1, 0.0])
"""Hand-set member: sure catches, moderate costs."""
BOLD_PARAMS = np.array([-0.5, 0.0, 0.0, 0.0, 0.0, 0.5, 0.0, 1.0])
"""Hand-set member: long shots, no costs, half-weight on the opponents."""

OPPONENT_DEFAULT_DICE = 3
MAX_ADJUST_SEARCH = 3


@dataclass(frozen=True)
class AgentSpec:
    """A seat's compiled policy: ``kind`` (KIND_*), ``params`` float64 ``(N_PARAMS,)``, a name."""

    name: str
    kind: int
    params: tuple[float, ...]

    def params_array(self) -> np.ndarray:
        """``params`` as float64 ``(N_PARAMS,)``."""
        return np.array(self.params, np.float64)


REGISTRY: dict[str, AgentSpec] = {
    "random": AgentSpec("random", KIND_RANDOM, (0.0,) * N_PARAMS),
    "greedy": AgentSpec("greedy", KIND_HEURISTIC, tuple(GREEDY_PARAMS)),
    "heuristic": AgentSpec("heuristic", KIND_HEURISTIC, tuple(HEURISTIC_PARAMS)),
    "cautious": AgentSpec("cautious", KIND_HEURISTIC, tuple(CAUTIOUS_PARAMS)),
    "bold": AgentSpec("bold", KIND_HEURISTIC, tuple(BOLD_PARAMS)),
}
"""Name -> :class:`AgentSpec` of every registered Lure agent."""


def heuristic(params, name: str = "heuristic") -> AgentSpec:
    """A member of the heuristic family with the given parameter vector.

    Args:
        params: float sequence of length ``N_PARAMS`` (:data:`PARAM_NAMES`), or a dict
            overriding :data:`HEURISTIC_PARAMS` by name.

    Raises:
        ValueError: wrong length, an unknown name, a non-finite value, or ``pressure`` outside
            0..1.
    """
    if isinstance(params, dict):
        vec = HEURISTIC_PARAMS.copy()
        for k, v in params.items():
            if k not in PARAM_NAMES:
                raise ValueError(f"unknown heuristic parameter {k!r}; expected {PARAM_NAMES}")
            vec[PARAM_NAMES.index(k)] = float(v)
    else:
        vec = np.asarray(params, np.float64).ravel()
    if vec.shape != (N_PARAMS,):
        raise ValueError(f"heuristic params have shape {vec.shape}; expected ({N_PARAMS},)")
    if not np.all(np.isfinite(vec)):
        raise ValueError(f"heuristic params {vec.tolist()} must be finite")
    if not 0.0 <= vec[5] <= 1.0:
        raise ValueError(f"pressure = {vec[5]}; expected 0..1")
    if not -1.0 <= vec[0] <= 1.0:
        raise ValueError(f"caution = {vec[0]}; expected -1..1")
    return AgentSpec(name, KIND_HEURISTIC, tuple(float(x) for x in vec))


def get_agent(name_or_spec) -> AgentSpec:
    """Look up an agent by registry name (or pass an :class:`AgentSpec` through).

    Raises:
        ValueError: unknown name (the message lists the registry).
    """
    if isinstance(name_or_spec, AgentSpec):
        return name_or_spec
    if name_or_spec not in REGISTRY:
        raise ValueError(f"unknown Lure agent {name_or_spec!r}; expected one of {sorted(REGISTRY)}")
    return REGISTRY[name_or_spec]


def seat_agents(policies, n_players: int) -> list[AgentSpec]:
    """One :class:`AgentSpec` per seat from a name/spec or a list of ``n_players`` of them.

    Raises:
        ValueError: unknown name or a list of the wrong length.
    """
    if isinstance(policies, (str, AgentSpec)):
        policies = [policies] * n_players
    policies = list(policies)
    if len(policies) != n_players:
        raise ValueError(f"{len(policies)} policies for {n_players} players; expected one per "
                         f"seat (or a single name for all)")
    return [get_agent(p) for p in policies]


def pack_agents(specs) -> tuple[np.ndarray, np.ndarray]:
    """``(kinds int64 (n,), params float64 (n, N_PARAMS))`` for the compiled loop."""
    kinds = np.array([s.kind for s in specs], np.int64)
    params = np.array([s.params for s in specs], np.float64).reshape(len(specs), N_PARAMS)
    return kinds, params


_TABLES: dict[tuple, np.ndarray] = {}


def policy_table(deck: D.Deck, adjust_may_be_unused: bool = True) -> np.ndarray:
    """Exact catch table of ``deck`` for the policies (cached per deck content).

    Returns float64 ``(cards, 6, 8, N_PLANS)`` (:func:`engines.dice.exact_table` with all
    special-dice subsets, NaN-free).
    """
    key = (deck.sha256(), bool(adjust_may_be_unused))
    if key not in _TABLES:
        t = dice.exact_table(deck.conds, deep_waters=True,
                             adjust_may_be_unused=adjust_may_be_unused)
        _TABLES[key] = np.ascontiguousarray(np.nan_to_num(t, nan=0.0))
    return _TABLES[key]


# ---------------------------------------------------------------- compiled policies
@njit(cache=True)
def _rand(prng, p, n):
    return np.int64(K.next_u64(prng, p) % np.uint64(n))


@njit(cache=True)
def _random_cast(state, p, prng):
    b = K.PB + p * K.PSTRIDE
    a = _rand(prng, p, 6)
    avail = K.available_specials(state, p)
    spec = 0
    for i in range(3):
        if avail & (1 << i):
            if _rand(prng, p, 2) == 1:
                spec |= 1 << i
    a |= spec << 3
    for k in range(K.NK):
        h = state[b + K.P_HELD + k]
        if h > 0:
            a |= min(_rand(prng, p, h + 1), 31) << (6 + 5 * k)
    return a


@njit(cache=True)
def _random_adjust(state, cfg, p, prng, work):
    b = K.PB + p * K.PSTRIDE
    slots = work[K.W_FREE:K.W_FREE + K.NSLOT]
    delta = work[K.W_FREE + 8:K.W_FREE + 16]
    nd = 0
    for s in range(K.NSLOT):
        delta[s] = 0
        if state[b + K.P_RAW + s] >= 0:
            slots[nd] = s
            nd += 1
    allow = cfg[C.C_ADJ_UNUSED] != 0
    opts = 2 * nd + (1 if allow else 0)
    for _ in range(state[b + K.P_CAST + K.K_ADJ]):
        o = _rand(prng, p, opts)
        if o >= 2 * nd:
            continue
        s = slots[o // 2]
        d = 1 if o % 2 == 0 else -1
        v = state[b + K.P_RAW + s] + delta[s]
        if v + d < 1 or v + d > K.SLOT_FACES[s]:
            d = -d
        delta[s] += d
    return K.encode_adjust(delta)


@njit(cache=True)
def _opp_loadout(m, deep):
    """(n_d6, spec) assumed for an opponent casting ``m`` dice: d6 first, then d20, d12, d4."""
    if m <= 5:
        return m, 0
    if m == 6:
        return 5, 2
    if m == 7 or not deep:
        return 5, 3
    return 5, 7


@njit(cache=True)
def _heuristic_cast(state, cfg, conds, info, table, params, p, work):
    b = K.PB + p * K.PSTRIDE
    caution = params[0]
    d6_cost = params[1]
    spec_cost = params[2] * (params[7] if state[K.H_FINAL] else 1.0)
    lure_cost = params[3]
    empty_value = params[4]
    pressure = params[5]
    min_p = params[6]
    nt = state[K.H_NTABLE]
    np_ = state[K.H_NP]
    deep = state[K.H_DEEP]
    avail = K.available_specials(state, p)
    boost_pts = cfg[C.C_BOOST_POINTS]
    # survival of each table fish as a function of my dice count (0..8), from the model
    fw = work[K.W_FREE:K.W_FREE + 1024].view(np.float64)
    surv = fw[:K.MAXC * 9].reshape((K.MAXC, 9))
    evs = fw[K.MAXC * 9:K.MAXC * 9 + 16]
    miss = fw[K.MAXC * 9 + 16:K.MAXC * 9 + 32]
    pts = fw[K.MAXC * 9 + 32:K.MAXC * 9 + 32 + K.MAXC]
    usable = work[K.W_FREE + 1024:K.W_FREE + 1024 + dice.N_PLANS]
    nl = work[K.W_FREE + 1040:K.W_FREE + 1040 + dice.N_PLANS]
    for i in range(nt):
        for nd in range(9):
            surv[i, nd] = 1.0
    if pressure > 0.0:
        for j in range(np_):
            if j == p:
                continue
            m = state[K.PB + j * K.PSTRIDE + K.P_LAST_NDICE]
            if m < 0:
                m = OPPONENT_DEFAULT_DICE
            m6, sp = _opp_loadout(m, deep)
            for i in range(nt):
                c = state[K.TABLE + i]
                q = pressure * table[c, m6, sp, dice.PLAN_NONE]
                if q <= 0.0:
                    continue
                stub = (conds[c, dice.FLAGS] & dice.F_STUBBORN) != 0
                for nd in range(9):
                    if (stub and m > nd) or ((not stub) and m < nd):
                        surv[i, nd] *= 1.0 - q
                    elif m == nd:
                        surv[i, nd] *= 1.0 - 0.5 * q
    held_adj = state[b + K.P_HELD + K.K_ADJ]
    held_boost = state[b + K.P_HELD + K.K_BOOST]
    # which plans this player can play, and the tokens each costs
    usable[:] = 0
    nl[:] = 0
    usable[dice.PLAN_NONE] = 1
    usable[dice.PLAN_ADJ1] = held_adj >= 1
    usable[dice.PLAN_ADJ2] = held_adj >= 2
    nl[dice.PLAN_ADJ1] = 1
    nl[dice.PLAN_ADJ2] = 2
    for x in range(6):
        usable[dice.PLAN_X1 + x] = state[b + K.P_HELD + 1 + x] >= 1
        nl[dice.PLAN_X1 + x] = 1
    # the table columns needed: usable plans, plus the boost column when boosts are held
    cols = work[K.W_FREE + 1056:K.W_FREE + 1056 + dice.N_PLANS]
    ncol = 0
    for q in range(dice.N_PLANS):
        if usable[q] != 0 or (q == dice.PLAN_FLAG and held_boost > 0):
            cols[ncol] = q
            ncol += 1
    for i in range(nt):
        pts[i] = info[state[K.TABLE + i], D.I_POINTS]
    plain = caution == 0.0 and min_p <= 0.0
    tflat = table.reshape(table.size)  # contiguous (policy_table), so a view
    rowlen = 8 * dice.N_PLANS
    tcard = work[K.W_FREE + 1072:K.W_FREE + 1072 + K.MAXC]
    for i in range(nt):
        tcard[i] = state[K.TABLE + i] * 6 * rowlen
    best = -1e300
    bn6 = 0
    bspec = 0
    bplan = 0
    bboost = 0
    for n6 in range(6):
        for spec in range(8):
            if spec & ~avail:
                continue
            nsp = K.popcount3(spec)
            nd = n6 + nsp
            base_cost = d6_cost * n6 + spec_cost * nsp
            evs[:] = 0.0
            miss[:] = 1.0
            off = n6 * rowlen + spec * dice.N_PLANS
            for i in range(nt):
                row = tflat[tcard[i] + off:tcard[i] + off + dice.N_PLANS]
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
    a |= min(bboost, 31) << (6 + 5 * K.K_BOOST)
    return a


@njit(cache=True)
def best_adjust(state, cfg, conds, info, p, work):
    """Adjust action maximizing the points of table fish met (search of at most 3 steps).

    Keeps the parity required when ``adjust_may_be_unused`` is False. Reads the raw roll, the
    lures played and the table (all visible to ``p``).
    """
    b = K.PB + p * K.PSTRIDE
    k = state[b + K.P_CAST + K.K_ADJ]
    allow = cfg[C.C_ADJ_UNUSED] != 0
    kk = k
    if kk > MAX_ADJUST_SEARCH:
        kk = MAX_ADJUST_SEARCH if (allow or (k - MAX_ADJUST_SEARCH) % 2 == 0) else \
            MAX_ADJUST_SEARCH - 1
    counts = work[K.W_FREE:K.W_FREE + dice.MAX_VALUE + 1]
    slots = work[K.W_FREE + 24:K.W_FREE + 32]
    lo = work[K.W_FREE + 32:K.W_FREE + 40]
    hi = work[K.W_FREE + 40:K.W_FREE + 48]
    delta = work[K.W_FREE + 48:K.W_FREE + 56]
    nd = 0
    for s in range(K.NSLOT):
        delta[s] = 0
        v = state[b + K.P_RAW + s]
        if v >= 0:
            slots[nd] = s
            lo[nd] = 1 - v
            hi[nd] = K.SLOT_FACES[s] - v
            nd += 1
    cap = (work.shape[0] - K.W_FREE - 64) // K.NSLOT
    buf = work[K.W_FREE + 64:K.W_FREE + 64 + cap * K.NSLOT].reshape((cap, K.NSLOT))
    nvec = dice.enumerate_deltas(lo, hi, nd, kk, (not allow) and nd > 0, buf)
    lure = True
    nspec = K.popcount3(state[b + K.P_SPEC])
    nt = state[K.H_NTABLE]
    best = -1.0
    bt = 0
    for t in range(nvec):
        counts[:] = 0
        total = 0
        maxc = 0
        odd = True
        even = True
        for i in range(nd):
            v = state[b + K.P_RAW + slots[i]] + buf[t, i]
            total += v
            counts[v] += 1
            maxc = max(maxc, counts[v])
            if v & 1:
                even = False
            else:
                odd = False
        for v in range(1, 7):
            n = state[b + K.P_CAST + v]
            if n > 0:
                total += v * n
                counts[v] += n
                maxc = max(maxc, counts[v])
                if v & 1:
                    even = False
                else:
                    odd = False
        val = 0.0
        for i in range(nt):
            c = state[K.TABLE + i]
            if dice.condition_met(conds, c, total, maxc, odd, even, nspec, lure, counts):
                val += info[c, D.I_POINTS]
        if val > best:
            best = val
            bt = t
    for i in range(nd):
        delta[slots[i]] = buf[bt, i]
    return K.encode_adjust(delta)


@njit(cache=True)
def policy_action(kind, state, cfg, conds, info, table, params, prng, p, work):
    """Action of player ``p`` (the player to decide) under policy ``kind`` (KIND_*).

    Args: see the module docstring. ``work``: int64 scratch ``(core.WORK_LEN,)``.
    Returns an int64 action legal in ``state``.
    """
    if state[K.H_PHASE] == K.PH_CAST:
        if kind == KIND_RANDOM:
            return _random_cast(state, p, prng)
        return _heuristic_cast(state, cfg, conds, info, table, params, p, work)
    if kind == KIND_RANDOM:
        return _random_adjust(state, cfg, p, prng, work)
    return best_adjust(state, cfg, conds, info, p, work)


class Agent:
    """Door-1 wrapper of a compiled policy: ``Agent("greedy").act(game) -> action``.

    Uses the game's per-player policy stream (``game.policy_rng``), so a game driven this way is
    identical to the same game in :func:`engines.lure.batch.play_batch`.
    """

    def __init__(self, name_or_spec):
        self.spec = get_agent(name_or_spec)
        self.params = self.spec.params_array()

    def act(self, game) -> int:
        """The action this agent takes for the player to decide in ``game`` (a ``LureGame``)."""
        table = policy_table(game.deck, game.config.adjust_may_be_unused)
        p = game.current_player()
        return int(policy_action(self.spec.kind, game.state, game.cfg, game.deck.conds,
                                 game.deck.info, table, self.params, game.policy_rng, p,
                                 game.work))

    def __repr__(self) -> str:
        return f"Agent({self.spec.name!r})"
