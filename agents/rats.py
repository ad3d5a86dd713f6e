"""Policies for Rats (``docs/rules/rats.md``): ``random``, ``greedy`` and the tunable
``heuristic`` family, behind the one policy protocol (:mod:`agents.policy`).

A policy is the compiled call ``policy(state, player, legal, n_legal, params, rng) ->
action`` on the flat state of :mod:`engines.rats.core`; :func:`act` dispatches on the kind of
:data:`SPECS`. The policies read only what their seat may see: their own hand, the table,
public counts and the config words.

**Leads are planned whole and emitted piece by piece.** At the declaration a leader scores
every lead of its hand (:func:`engines.rats.core.generate_leads`) exactly as the pre-protocol
engine did (so ``greedy`` and ``heuristic`` pick the same leads as before), returns the kind,
and keeps the plan in its policy memory: ``rng[1]`` = a key (``TRICKS + 1`` at the
declaration) and ``rng[2]`` = the planned lead (``mask | kind << 54``). At each later
decision of the lead it returns the plan's smallest card not yet added, then ``FINISH`` once
all the plan's cards are added (a set or run waits for it even when nothing could be added;
a single and a lead that empties the hand complete by themselves, see
:mod:`engines.rats.core`). A plan whose key, kind or cards do not fit the state (a stale
memory) is recomputed from the hand and the cards already added, among the leads of the
declared kind that extend them.

Followers choose their ``N`` cards one per decision; ``greedy`` and ``heuristic`` plan the whole
play from ``hand | cards already played this trick`` at every sub-decision (the plan is a
function of that union and the earlier plays, so it stays the same across the sub-decisions)
and return one card of the plan.

Card value (what a policy keeps): a natural card is worth its rank 0..12 plus ``suit / 4``;
a joker is worth ``joker_value`` (``greedy``: 14, above an ace).
"""

from __future__ import annotations

import numpy as np
from numba import literally, njit

from agents.table_loop import run_table
from engines.names import GAME_IDS
from engines.protocol.per_type import njit_per_type
from agents.policy import PolicySpec
from agents.stack_arrays import stack_i64
from agents.search import relative_to_mean
from engines.protocol.chance import rand_below
from engines.rats import core
from engines.rats.core import (
    CARD_BITS,
    CFG_ACE_HIGH,
    CFG_JOKER_PAIR_RANK,
    CFG_READ_STRONGEST,
    CFG_SEQ_TIE_LATER,
    FINISH,
    HAND,
    JOKER_BITS,
    KIND_SEQ,
    KIND_SET,
    KIND_SHIFT,
    KIND_SINGLE,
    LAST_ADDED,
    LEAD_KIND,
    LEAD_N,
    LEAD_SINGLE,
    MAX_LEADS,
    N_ALIVE,
    N_PLAYED,
    ORDER,
    PHASE,
    PHASE_BUILD,
    PHASE_DECLARE,
    TABLE,
    TRICKS,
    generate_leads,
    low_bit_index,
    play_strength,
    popcount,
    sequence_strength,
    upto,
)

_MAX_LEADS = MAX_LEADS  # a module-level int: a compile-time constant for stack_i64

__all__ = ["SPECS", "act", "make_aux", "PARAMS_WIDTH", "RANDOM", "GREEDY", "HEURISTIC",
           "HEURISTIC_DEFAULT", "HEURISTIC_PARAM_NAMES", "random_policy", "greedy_policy",
           "heuristic_policy", "plan_lead", "card_value", "lead_strength", "cheapest_win"]

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
PARAMS_WIDTH = 8
"""Length of every parameter row passed to :func:`act` (the heuristic's 8 weights)."""
HEURISTIC_PARAM_NAMES = (
    "lead_cards",        # weight of the number of cards in a lead
    "lead_strength",     # weight of the lead's strength, scaled to 0..1
    "lead_jokers",       # weight per joker spent in a lead
    "lead_single",       # bonus of single-card leads
    "win_bias",          # a follower's base will to take the trick when it can
    "win_per_card",      # ... plus this per card in the trick
    "win_cost",          # ... plus this times the value of the cards it spends
    "joker_value",       # value of a joker when keeping or spending cards (an ace is 12)
)
HEURISTIC_DEFAULT = (0.28, 0.115, -0.512, 4.654, 0.764, 0.226, 0.158, 6.701)
"""Default parameter vector of the ``heuristic`` family (names: :data:`HEURISTIC_PARAM_NAMES`),
found by the project's first tuner (``experiments.climbing_tune rats --candidates 80 --games
1200``, since replaced by ``boardlab tune rats heuristic``, which re-tunes it) from the hand-set
start ``[1, 0.5, -0.5, 0, 1, 0.1, -0.05, 14]``."""
_GREEDY_JOKER_VALUE = 14.0
_MODE_GREEDY = 0
_MODE_LINEAR = 1
_PLAN_KEY = 1
_PLAN_LEAD = 2


@njit(cache=True)
def card_value(c, joker_value):
    """Keeping value of card ``c``: ``rank + suit / 4`` for a natural, ``joker_value`` for a
    joker."""
    if c >= 52:
        return joker_value
    return (c >> 2) + (c & 3) * 0.25


@njit(cache=True)
def mask_value(mask, joker_value):
    """Sum of :func:`card_value` over a card mask."""
    v = 0.0
    m = mask
    while m:
        v += card_value(low_bit_index(m), joker_value)
        m &= m - 1
    return v


@njit(cache=True)
def _cheapest_cards(cards, k, joker_value):
    """Mask of the ``k`` lowest-valued cards of ``cards`` (ties: lower id)."""
    out = 0
    for _ in range(k):
        best = -1
        bv = 1e18
        m = cards & ~out
        while m:
            c = low_bit_index(m)
            v = card_value(c, joker_value)
            if v < bv:
                bv = v
                best = c
            m &= m - 1
        if best < 0:
            break
        out |= np.int64(1) << best
    return out


@njit(cache=True)
def trick_best(st):
    """Strength of the best completed play of the current trick and the led suit (-1 for a
    led joker); strengths as :func:`engines.rats.core.play_strength`."""
    kind = st[LEAD_KIND]
    lead = st[TABLE + st[ORDER]]
    led_suit = -1
    if kind == KIND_SINGLE:
        c = low_bit_index(lead)
        if c < 52:
            led_suit = c & 3
    best = -1
    for i in range(st[N_PLAYED]):
        s = play_strength(kind, st[TABLE + st[ORDER + i]], led_suit, st[CFG_ACE_HIGH],
                          st[CFG_READ_STRONGEST], st[CFG_JOKER_PAIR_RANK])
        if s > best:
            best = s
    return best, led_suit


@njit(cache=True)
def cheapest_win(st, cards, joker_value):
    """Cheapest play of ``popcount`` = the lead's ``N`` cards, drawn from ``cards`` (a mask),
    that would take the trick now, or 0 if none. Cheapest = lowest strength that wins, then
    lowest card value (rules "Who takes the trick")."""
    kind = st[LEAD_KIND]
    n = st[LEAD_N]
    best, led_suit = trick_best(st)
    ace_high = st[CFG_ACE_HIGH]
    strongest = st[CFG_READ_STRONGEST]
    jpr = st[CFG_JOKER_PAIR_RANK]
    tie_wins = kind == KIND_SET or (kind == KIND_SEQ and st[CFG_SEQ_TIE_LATER] == 1)
    jok = cards & JOKER_BITS
    nj = popcount(jok)
    nat = cards & ~JOKER_BITS
    if kind == KIND_SINGLE:
        m = nat
        choice = 0
        cs = 1 << 20
        while m:
            b = m & -m
            s = play_strength(KIND_SINGLE, b, led_suit, 0, 1, 0)
            if s > best and s < cs:
                cs = s
                choice = b
            m ^= b
        return choice
    if kind == KIND_SET:
        for r in range(13):
            if r < best or (r == best and not tie_wins):
                continue
            rb = nat & (np.int64(0xF) << (4 * r))
            k = popcount(rb)
            if k == 0 or k + nj < n:
                continue
            use = _cheapest_cards(rb, min(k, n), joker_value)
            need = n - popcount(use)
            if need == 1:
                use |= jok & -jok
            elif need == 2:
                use |= jok
            return use
        if n == 2 and nj == 2 and (jpr > best or (jpr == best and tie_wins)):
            return jok
        return 0
    # sequences of n cards: every window of every suit, natural cards in it plus jokers
    choice = 0
    cs = 1 << 20
    cv = 1e18
    limit = 13 if ace_high else 12
    for s in range(4):
        for start in range(0, limit - n + 2):
            if start + n - 1 > limit:
                break
            use = 0
            for pos in range(start, start + n):
                if pos == 0 or pos == 13:
                    c = 48 + s
                else:
                    c = 4 * (pos - 1) + s
                if (nat >> c) & 1:
                    use |= np.int64(1) << c
            gaps = n - popcount(use)
            if gaps > nj or gaps == n:
                continue
            if gaps == 1:
                use |= jok & -jok
            elif gaps == 2:
                use |= jok
            st_ = sequence_strength(use, ace_high, strongest)
            if st_ < 0 or st_ < best or (st_ == best and not tie_wins):
                continue
            v = mask_value(use, joker_value)
            if st_ < cs or (st_ == cs and v < cv):
                cs = st_
                cv = v
                choice = use
    return choice


@njit(cache=True)
def _follow(st, player, legal, n_legal, win_bias, win_per_card, win_cost, joker_value):
    """A follower's card: plan a whole play from hand | already played, return one card."""
    played = st[TABLE + player]
    cards = st[HAND + player] | played
    n = st[LEAD_N]
    plan = cheapest_win(st, cards, joker_value)
    if plan != 0:
        trick_cards = st[N_ALIVE] * n
        score = win_bias + win_per_card * trick_cards + win_cost * mask_value(plan, joker_value)
        if score <= 0.0:
            plan = 0
    if plan == 0 or (plan & played) != played:
        # dump the cheapest cards (keeping what was already played)
        plan = played | _cheapest_cards(cards & ~played, n - popcount(played), joker_value)
    rest = plan & ~played
    if rest == 0:
        return legal[0]
    return low_bit_index(rest)


@njit(cache=True)
def lead_strength(a):
    """Strength of a lead ``a = mask | kind << 54`` scaled to 0..1: rank / 12 for singles and
    sets (two jokers: 1), ``(16 * suit + top) / 61`` for sequences (ace-low, strongest
    reading)."""
    kind = a >> KIND_SHIFT
    mask = a & CARD_BITS
    if kind == KIND_SINGLE:
        c = low_bit_index(mask)
        return (c >> 2) / 12.0 if c < 52 else 0.0
    if kind == KIND_SET:
        nat = mask & ~JOKER_BITS
        return ((low_bit_index(nat) >> 2) if nat else 12) / 12.0
    return max(sequence_strength(mask, 0, 1), 0) / 61.0


@njit(cache=True)
def _lead_score(a, params):
    kind = a >> KIND_SHIFT
    mask = a & CARD_BITS
    k = popcount(mask)
    nj = popcount(mask & JOKER_BITS)
    return (params[0] * k + params[1] * lead_strength(a) + params[2] * nj
            + (params[3] if kind == KIND_SINGLE else 0.0))


@njit_per_type
def _score_bound(k, nj, single, params):
    """An upper bound of :func:`_lead_score` of every lead of ``k`` cards, ``nj`` of them
    jokers, single or not: the score with the strength at its bound (1, or 0 for a negative
    weight), computed in the same order, so it is at least the score (rounding is monotone)."""
    w1 = params[1] if params[1] >= 0.0 else params[1] * 0.0
    return params[0] * k + w1 + params[2] * nj + (params[3] if single else 0.0)


@njit(cache=True, inline="always")
def _best_single(hand, params):
    """The best single lead of ``hand`` by :func:`_lead_score` and its score, the first in
    :func:`engines.rats.core.generate_leads` order among equals (each natural card ascending;
    a hand of one joker: that joker); ``(-1, -inf)`` if the hand has no single lead."""
    nat = hand & ~JOKER_BITS
    if nat == 0:
        jok = hand & JOKER_BITS
        if popcount(jok) == 1:
            return jok, _lead_score(jok, params)
        return np.int64(-1), -np.inf
    best = np.int64(-1)
    bs = -np.inf
    m = nat
    while m:
        b = m & -m
        m ^= b
        s = _lead_score(b, params)
        if best < 0 or s > bs:
            best = b
            bs = s
    return best, bs


@njit(cache=True, inline="always")
def _longer_bound(hand, params):
    """An upper bound of :func:`_lead_score` over every lead of two or more cards of ``hand``
    (the largest :func:`_score_bound` over their possible sizes and joker counts); ``-inf`` if
    there is none."""
    nj = popcount(hand & JOKER_BITS)
    ub = -np.inf
    for k in range(2, popcount(hand) + 1):
        for j in range(min(nj, k) + 1):
            ub = max(ub, _score_bound(k, j, False, params))
    return ub


@njit_per_type
def plan_lead(hand, ace_high, mode, params, kind, chosen, last):
    """The best lead (``mask | kind << 54``) of ``hand`` under ``mode`` (0 greedy, 1 linear
    with ``params``), the first in :func:`engines.rats.core.generate_leads` order among equals;
    with ``kind >= 0`` only leads of that kind whose cards up to id ``last`` are exactly
    ``chosen`` (a lead being built). Returns -1 if no lead fits."""
    if mode != _MODE_GREEDY and kind < 0:
        # the singles come first in generate_leads: when no longer lead can pass the best
        # single, the plan is that single without listing the other leads (with the default
        # weights, whose single bonus no longer lead reaches, the listing dominated a
        # heuristic game)
        best, bs = _best_single(hand, params)
        if best >= 0 and _longer_bound(hand, params) <= bs:
            return best
    buf = stack_i64(_MAX_LEADS)  # 64 KB in this frame: no malloc per plan
    n = generate_leads(hand, ace_high, buf)
    low = upto(last)
    best = np.int64(-1)
    bk = -1
    bj = 99
    bs = -1e300
    for i in range(n):
        a = buf[i]
        m = a & CARD_BITS
        if kind >= 0 and ((a >> KIND_SHIFT) != kind or (m & low) != chosen):
            continue
        if mode == _MODE_GREEDY:
            # more cards, then fewer jokers, then stronger
            k = popcount(m)
            if k < bk:
                continue
            j = popcount(m & JOKER_BITS)
            if k == bk and j > bj:
                continue
            s = lead_strength(a)
            if k > bk or j < bj or s > bs:
                best = a
                bk = k
                bj = j
                bs = s
        else:
            # a lead whose bound cannot pass the best skips lead_strength (sequence reading, a
            # costly part of a decision)
            if best >= 0 and _score_bound(popcount(m), popcount(m & JOKER_BITS),
                                          (a >> KIND_SHIFT) == KIND_SINGLE, params) <= bs:
                continue
            s = _lead_score(a, params)
            if best < 0 or s > bs:
                best = a
                bs = s
    return best


@njit_per_type
def _lead_step(st, player, legal, n_legal, mode, params, rng):
    """A leader's decision: declare the kind of the planned lead, then its cards in ascending
    order, then FINISH (plan kept in ``rng[1:3]``, recomputed when stale)."""
    ace_high = st[CFG_ACE_HIGH]
    hand = st[HAND + player]
    if st[PHASE] == PHASE_DECLARE:
        plan = plan_lead(hand, ace_high, mode, params, -1, 0, -1)
        rng[_PLAN_KEY] = st[TRICKS] + 1
        rng[_PLAN_LEAD] = plan
        return LEAD_SINGLE + (plan >> KIND_SHIFT)
    kind = st[LEAD_KIND]
    chosen = st[TABLE + player]
    last = st[LAST_ADDED]
    low = upto(last)
    plan = rng[_PLAN_LEAD]
    mask = plan & CARD_BITS
    if (rng[_PLAN_KEY] != st[TRICKS] + 1 or plan < 0 or (plan >> KIND_SHIFT) != kind
            or (mask & low) != chosen or (mask & ~(hand | chosen)) != 0):
        plan = plan_lead(hand | chosen, ace_high, mode, params, kind, chosen, last)
        if plan < 0:
            return legal[0]
        rng[_PLAN_KEY] = st[TRICKS] + 1
        rng[_PLAN_LEAD] = plan
        mask = plan & CARD_BITS
    rest = mask & ~chosen
    a = FINISH if rest == 0 else low_bit_index(rest)
    for i in range(n_legal):
        if legal[i] == a:
            return a
    return legal[0]


@njit(cache=True)
def random_policy(st, player, legal, n_legal, params, rng):
    """Uniform choice among the legal actions (``params`` unused): ``legal[rand_below(rng, 0,
    n_legal)]``."""
    return legal[rand_below(rng, 0, n_legal)]


@njit(cache=True)
def greedy_policy(st, player, legal, n_legal, params, rng):
    """Rule of thumb: lead the longest combination (fewest jokers, then strongest); follow by
    taking the trick with the cheapest winning play when one exists, else shed the
    lowest-valued cards (``params`` unused)."""
    ph = st[PHASE]
    if ph == PHASE_DECLARE or ph == PHASE_BUILD:
        return _lead_step(st, player, legal, n_legal, _MODE_GREEDY, params, rng)
    return _follow(st, player, legal, n_legal, 1.0, 0.0, 0.0, _GREEDY_JOKER_VALUE)


@njit(cache=True)
def heuristic_policy(st, player, legal, n_legal, params, rng):
    """Tunable family (``params``: :data:`HEURISTIC_PARAM_NAMES`): a leader plays the lead of
    highest linear score ``lead_cards * cards + lead_strength * strength + lead_jokers *
    jokers + lead_single * [single]``; a follower takes the trick with its cheapest winning
    play when ``win_bias + win_per_card * trick cards + win_cost * value`` is positive, else
    sheds its lowest-valued cards. Ties go to the earlier lead of ``generate_leads``."""
    ph = st[PHASE]
    if ph == PHASE_DECLARE or ph == PHASE_BUILD:
        return _lead_step(st, player, legal, n_legal, _MODE_LINEAR, params, rng)
    return _follow(st, player, legal, n_legal, params[4], params[5], params[6], params[7])


@njit(cache=True)
def act(kind, state, player, legal, n_legal, params, aux, rng):
    """The action of policy ``kind`` (``RANDOM`` 0, ``GREEDY`` 1, ``HEURISTIC`` 2) for
    ``player`` in ``state``: one of ``legal[:n_legal]``. ``params``: ``float64
    (PARAMS_WIDTH,)``; ``aux``: unused (:func:`make_aux`); ``rng``: the seat's policy memory
    (``int64 (SEAT_WORDS,)``)."""
    if kind == RANDOM:
        return random_policy(state, player, legal, n_legal, params, rng)
    if kind == GREEDY:
        return greedy_policy(state, player, legal, n_legal, params, rng)
    return heuristic_policy(state, player, legal, n_legal, params, rng)


def make_aux(config) -> np.ndarray:
    """Game data for :func:`act`: none for Rats (``float64 (0,)``)."""
    return np.zeros(0, dtype=np.float64)


SPECS = (
    PolicySpec("rats", "random", RANDOM, (), (), "uniform among the legal actions"),
    PolicySpec("rats", "greedy", GREEDY, (), (),
               "lead the longest combination; win cheaply or shed low cards"),
    PolicySpec("rats", "heuristic", HEURISTIC, HEURISTIC_DEFAULT, HEURISTIC_PARAM_NAMES,
               "linear lead scores and a win/shed threshold (8 parameters)"),
)
"""The shipped Rats policies (:class:`agents.policy.PolicySpec`); none sees hidden cards."""

POLICY_FUNCTIONS = {"random": random_policy, "greedy": greedy_policy,
                    "heuristic": heuristic_policy}
"""Policy name -> compiled policy function (the one signature of :mod:`agents.policy`)."""


# ---- the leaf value of the search agents (agents.search) ----------------------------------------
LEAF_VALUE_NAMES = ("win", "alive", "captured_this_round", "captured_card", "holding_card",
                    "hand_card")
"""Weights of :func:`leaf_value`: the share of the win at the end of the game, staying in the
game, having captured at least one card this round (a player who captures nothing is
eliminated at the end of the round), each card captured this round, each card of the holding
set aside from earlier rounds, each card still in hand."""
LEAF_VALUE_DEFAULT = np.array([10.0, 3.0, 1.5, 0.1, 0.1, 0.02])
LEARNED_VALUE_SCALE = 10.0
"""The learned value's scale (:mod:`agents.value`): a whole win is worth the ``win`` weight
of :func:`leaf_value`."""

SEARCH_HORIZON = 1
"""Rats' search presets roll out to the end of the round (``progress(s, 1)``), where the
players who captured nothing are eliminated. Measured at 4 players, 200 deals x 4 seats, one
search seat against three `heuristic` (win share, heuristic in the same seat 0.250): `pimc` to
the end of the trick 0.196 (-0.054 +- 0.039), to the end of the round 0.358 (+0.108 +- 0.044);
`ismcts-fast` to the end of the round 0.351."""


@njit(cache=True)
def leaf_value(s, w, out):
    """Each seat's value of state ``s`` into ``out`` (``float64 (MAX_PLAYERS,)``), relative
    to the mean of the seats (a competitive game), with the weights :data:`LEAF_VALUE_NAMES`:
    at the end of the game ``w[0]`` times the seat's win share, else its survival and the sizes
    of its piles (public counts)."""
    n = s[core.N_PLAYERS]
    over = s[core.PHASE] == core.PHASE_OVER
    for p in range(n):
        if over:
            v = w[0] * (s[core.WINNER + p] / s[core.N_WINNERS] if s[core.N_WINNERS] > 0 else 0.0)
        elif s[core.ALIVE + p] == 0:
            v = 0.0
        else:
            capt = core.popcount(s[core.CAPT + p])
            v = (w[1] + (w[2] if capt > 0 else 0.0) + w[3] * capt
                 + w[4] * core.popcount(s[core.ASIDE + p]) + w[5] * core.popcount(s[core.HAND + p]))
        out[p] = v
    relative_to_mean(out, n)


GAME_ID = GAME_IDS["rats"]
"""Rats's id in :data:`engines.protocol.GAME_IDS` (the constant its loop is compiled for)."""


@njit(cache=True)
def play_table(one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad):
    """Rats's compiled game loop: :func:`agents.table_loop.run_table` for this game (the
    arguments are documented there), compiled and cached with this game's sources, so that an
    edit to another game's files leaves it cached; ``one_kind`` is made a literal."""
    literally(one_kind)
    run_table(GAME_ID, one_kind, cfg, seeds, kinds, params, aux, returns_out, outcome_out, bad,
              None, None, None, None)
