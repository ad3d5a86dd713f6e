"""Policies for Rats (``../shared/rules/rats.md``): ``random``, ``greedy`` and the tunable
``heuristic`` family, behind one compiled protocol and a registry by name.

Protocol (``../shared/DESIGN.md``, "Agents"): a policy is the compiled call
``act(kind, state, player, legal, n_legal, params, rng) -> action`` where ``kind`` selects the
policy (:data:`REGISTRY`), ``state`` is the ``int64`` state of :mod:`engines.rats.core`,
``legal[:n_legal]`` the legal actions, ``params`` a ``float64`` parameter vector and ``rng`` an
``int64`` array of shape ``(1,)`` holding the seat's splitmix64 word
(:func:`engines.splitmix.seat_streams`). Policies read only what the acting player may see
(own hand, the table, public counts).

Followers choose their ``N`` cards one per decision; ``greedy`` and ``heuristic`` plan the whole
play from ``hand | cards already played this trick`` at every sub-decision (the plan is a
function of that union and the earlier plays, so it stays the same across the sub-decisions)
and return one card of the plan.

Card value (what a policy keeps): a natural card is worth its rank 0..12 plus ``suit / 4``;
a joker is worth ``joker_value`` (``greedy``: 14, above an ace).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.rats.core import (
    CFG_ACE_HIGH,
    CFG_JOKER_PAIR_RANK,
    CFG_READ_STRONGEST,
    CFG_SEQ_TIE_LATER,
    HAND,
    JOKER_BITS,
    KIND_SEQ,
    KIND_SET,
    KIND_SHIFT,
    KIND_SINGLE,
    LEAD_KIND,
    LEAD_N,
    N_ALIVE,
    N_PLAYED,
    ORDER,
    PHASE,
    PHASE_LEAD,
    TABLE,
    CARD_BITS,
    low_bit_index,
    play_strength,
    popcount,
    sequence_strength,
)
from agents.policy_base import AgentSpec, PolicyAgent
from engines.splitmix import rand_below

__all__ = ["REGISTRY", "AgentSpec", "resolve", "act", "Agent", "make_agent",
           "HEURISTIC_DEFAULT", "HEURISTIC_PARAM_NAMES", "N_PARAMS"]

RANDOM = 0
GREEDY = 1
HEURISTIC = 2
N_PARAMS = 8
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
HEURISTIC_DEFAULT = np.array([0.28, 0.115, -0.512, 4.654, 0.764, 0.226, 0.158, 6.701])
"""Default parameter vector of the ``heuristic`` family (names: :data:`HEURISTIC_PARAM_NAMES`),
found by ``python -m experiments.climbing_tune rats --candidates 80 --games 1200`` from the
hand-set start ``[1, 0.5, -0.5, 0, 1, 0.1, -0.05, 14]``."""
_GREEDY_JOKER_VALUE = 14.0


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
        b = m & -m
        v += card_value(low_bit_index(b), joker_value)
        m ^= b
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
            b = m & -m
            c = low_bit_index(b)
            v = card_value(c, joker_value)
            if v < bv:
                bv = v
                best = c
            m ^= b
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
            c = low_bit_index(b)
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
    return rest & -rest


@njit(cache=True)
def lead_strength(a):
    """Strength of a lead scaled to 0..1: rank / 12 for singles and sets (two jokers: 1),
    ``(16 * suit + top) / 61`` for sequences (ace-low, strongest reading)."""
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


@njit(cache=True)
def random_policy(st, player, legal, n_legal, params, rng):
    """Uniform choice among the legal actions (``params`` unused)."""
    return legal[rand_below(rng, 0, n_legal)]


@njit(cache=True)
def greedy_policy(st, player, legal, n_legal, params, rng):
    """Rule of thumb: lead the longest combination (fewest jokers, then strongest); follow by
    taking the trick with the cheapest winning play when one exists, else shed the
    lowest-valued cards (``params`` unused)."""
    if st[PHASE] == PHASE_LEAD:
        best = legal[0]
        bk = -1
        bj = 99
        bs = -1.0
        for i in range(n_legal):
            a = legal[i]
            mask = a & CARD_BITS
            k = popcount(mask)
            nj = popcount(mask & JOKER_BITS)
            s = lead_strength(a)
            if k > bk or (k == bk and (nj < bj or (nj == bj and s > bs))):
                best = a
                bk = k
                bj = nj
                bs = s
        return best
    return _follow(st, player, legal, n_legal, 1.0, 0.0, 0.0, _GREEDY_JOKER_VALUE)


@njit(cache=True)
def heuristic_policy(st, player, legal, n_legal, params, rng):
    """Tunable family (``params``: :data:`HEURISTIC_PARAM_NAMES`): a leader plays the legal
    lead of highest linear score ``lead_cards * cards + lead_strength * strength +
    lead_jokers * jokers + lead_single * [single]``; a follower takes the trick with its
    cheapest winning play when ``win_bias + win_per_card * trick cards + win_cost * value``
    is positive, else sheds its lowest-valued cards. Ties go to the earlier legal action."""
    if st[PHASE] == PHASE_LEAD:
        best = legal[0]
        bs = -1e300
        for i in range(n_legal):
            s = _lead_score(legal[i], params)
            if s > bs:
                bs = s
                best = legal[i]
        return best
    return _follow(st, player, legal, n_legal, params[4], params[5], params[6], params[7])


@njit(cache=True)
def act(kind, st, player, legal, n_legal, params, rng):
    """Dispatch to the policy numbered ``kind`` (``RANDOM`` 0, ``GREEDY`` 1, ``HEURISTIC`` 2);
    returns the chosen action (an element of ``legal[:n_legal]``)."""
    if kind == RANDOM:
        return random_policy(st, player, legal, n_legal, params, rng)
    if kind == GREEDY:
        return greedy_policy(st, player, legal, n_legal, params, rng)
    return heuristic_policy(st, player, legal, n_legal, params, rng)


REGISTRY: dict[str, AgentSpec] = {
    "random": AgentSpec(RANDOM, np.zeros(N_PARAMS), "uniform among legal actions"),
    "greedy": AgentSpec(GREEDY, np.zeros(N_PARAMS),
                        "lead the longest combination; win cheaply or shed low cards"),
    "heuristic": AgentSpec(HEURISTIC, HEURISTIC_DEFAULT.copy(),
                           "linear lead scores and a win/shed threshold (8 parameters)"),
}
"""Policies by name."""


class Agent(PolicyAgent):
    """A named Rats policy with its parameter vector
    (:class:`agents.policy_base.PolicyAgent`): ``Agent("greedy")(game, rng)`` returns the
    action for the current player of a step-API game."""

    game = "Rats"
    registry = REGISTRY
    n_params = N_PARAMS
    dispatch = staticmethod(act)


def make_agent(name: str, params=None) -> Agent:
    """The registered policy ``name`` with ``params`` (default: its registry defaults)."""
    return Agent(name, params)


def resolve(policies, n_players: int) -> tuple[np.ndarray, np.ndarray]:
    """Seat policies -> (``int64`` kinds (n_players,), ``float64`` params (n_players, 8)); see
    :meth:`agents.policy_base.PolicyAgent.resolve` (raises ``ValueError`` on bad entries)."""
    return Agent.resolve(policies, n_players)
