"""Determinization of ReCURRRing (``core.determinize``): conservation, the information state and
the legal actions kept, known cards kept, a function of (information state, seed) only,
uniform placement (chi-square), reseeded chance; and fair play of the shipped policies (same
action and same policy memory on a determinized copy)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from agents import recurring as A
from agents.policy import Agent
from engines.protocol import chance
from engines.recurring import RecurringConfig
from engines.recurring import core as C

from tests.kernel_arrays import KernelArrays

from .helpers import play, random_walk, scenario


_K = KernelArrays(C)
det, info, inventory, legal = _K.det, _K.info, _K.inventory, _K.legal


def hidden_swap(s, p):
    """A state with the same information state for ``p``: one unknown card of one other seat
    swapped with an unknown card of another number of a third seat (None if there is none)."""
    n = s[C.N_PLAYERS]
    others = [q for q in range(n) if q != p]
    for q1, q2 in itertools.permutations(others, 2):
        free1 = [v for v in range(1, 11) if s[C.HAND + C.BLOCK * q1 + v]
                 > s[C.KNOWN + C.BLOCK * q1 + v]]
        free2 = [v for v in range(1, 11) if s[C.HAND + C.BLOCK * q2 + v]
                 > s[C.KNOWN + C.BLOCK * q2 + v]]
        for v1, v2 in itertools.product(free1, free2):
            if v1 != v2:
                t = s.copy()
                t[C.HAND + C.BLOCK * q1 + v1] -= 1
                t[C.HAND + C.BLOCK * q2 + v1] += 1
                t[C.HAND + C.BLOCK * q2 + v2] -= 1
                t[C.HAND + C.BLOCK * q1 + v2] += 1
                t[C.RNG] ^= 0x5555
                return t
    return None


# The seeded walks below give STATE_COUNT states (test_state_count checks it). They are played
# on first use, not when the module is collected: each test process collects every module, so
# games played at collection are compiled and played by both.
STATE_COUNT = 145


@functools.cache
def states():
    """Every third state of the seeded random walks, played once per process."""
    return [g for n, seed in [(3, 1), (4, 2), (5, 3), (4, 40)]
            for g in random_walk(n, seed, open_single_every_round=seed != 40)[::3]]


def test_state_count():
    assert len(states()) == STATE_COUNT


@pytest.mark.parametrize("k", range(0, STATE_COUNT, 5))
def test_determinize_properties(k):
    for g in states()[k:k + 5]:
        s = g.state
        n = g.n_players
        for p in range(n):
            for seed in (0, 1, 2**64 - 1):
                d = det(s, p, seed)
                assert np.array_equal(inventory(d), inventory(s)), "cards not conserved"
                assert np.array_equal(info(d, p), info(s, p)), "information state changed"
                if p == C.current_player(s):
                    assert legal(d) == legal(s)
                assert d[C.OBS_PLAYER] == -1
                assert d[C.RNG] == chance.mix(chance.as_word(seed) ^ C.CHANCE_SALT)
                # own hand, public piles and KNOWN exactly kept; known cards stay in hand
                same = np.ones(C.STATE_SIZE, dtype=bool)
                for q in range(n):
                    if q != p:
                        same[C.HAND + C.BLOCK * q + 1:C.HAND + C.BLOCK * q + 11] = False
                same[C.RNG] = False
                assert np.array_equal(d[same], s[same])
                for q in range(n):
                    kb, hb = C.KNOWN + C.BLOCK * q, C.HAND + C.BLOCK * q
                    assert (d[kb + 1:kb + 11] <= d[hb + 1:hb + 11]).all()
                    assert d[hb] == d[hb + 1:hb + 11].sum()
                # a function of (information state, seed) only
                assert np.array_equal(det(d, p, 7), det(s, p, 7))
                assert np.array_equal(det(det(s, p, 5), p, seed), d)
                t = hidden_swap(s, p)
                if t is not None:
                    assert np.array_equal(info(t, p), info(s, p))
                    assert np.array_equal(det(t, p, seed), d)


def test_determinize_changes_the_hidden_hands_and_the_chance_word():
    g = random_walk(4, 8, steps=5)[-1]
    s = g.state
    ds = [det(s, 0, seed) for seed in range(20)]
    others = slice(C.HAND + C.BLOCK * 1, C.HAND + C.BLOCK * 4)
    assert len({d[others].tobytes() for d in ds}) == 20
    assert len({d[C.RNG] for d in ds}) == 20 and all(d[C.RNG] != s[C.RNG] for d in ds)


def test_known_cards_stay_with_their_holder():
    g = scenario([{7: 5, 5: 1}, {2: 1, 3: 1}, {6: 2, 4: 1}, {10: 3, 8: 1}, {9: 3, 5: 1}])
    play(g, "play 7", "play 2", "play 6-6")
    for seed in range(50):
        d = det(g.state, 4, seed)
        assert d[C.HAND + C.BLOCK * 1 + 7] >= 1 and d[C.HAND + C.BLOCK * 2 + 2] >= 1
        assert d[C.HAND + C.BLOCK * 0 + 1] == 0  # the 1 is in no scenario hand
    g = RecurringConfig(n_players=3)
    from engines.recurring import new_game

    g = new_game(g, 12)
    f = g.current_player()
    other = (f + 1) % 3
    for seed in range(50):
        d = det(g.state, other, seed)
        assert d[C.HAND + C.BLOCK * f + 1] == 1, "the first start player holds the 1"


def test_step_api_determinize():
    from engines.recurring import new_game

    g = new_game(RecurringConfig(n_players=5), 77)
    d = g.determinize(2, 2**63)
    assert d.determinized and not g.determinized and d.history == g.history
    assert np.array_equal(d.state, det(g.state, 2, 2**63))
    assert np.array_equal(d.seat_memory, g.seat_memory)
    assert d.hand(2) == g.hand(2) and d.hand(0) != g.hand(0)
    with pytest.raises(ValueError, match="bad seed"):
        g.determinize(2, -1)
    with pytest.raises(ValueError, match="bad player 5"):
        g.determinize(5, 1)


# ----------------------------------------------------------------------------- uniformity
def test_uniform_split_of_distinct_unknown_cards():
    """Pool {2, 3, 4, 5}, two cards to each of seats 1 and 2: the six splits are equally
    likely (chi-square)."""
    g = scenario([{1: 1, 9: 1}, {2: 1, 3: 1}, {4: 1, 5: 1}])
    counts = Counter()
    N = 6000
    for seed in range(N):
        d = det(g.state, 0, seed)
        counts[tuple(v for v in range(1, 11) for _ in range(d[C.HAND + C.BLOCK * 1 + v]))] += 1
    assert len(counts) == 6
    assert stats.chisquare(list(counts.values())).pvalue > 1e-3


def test_duplicate_unknown_cards_are_dealt_as_individual_cards():
    """Pool {2, 2, 3, 3}: seat 1's two cards are 2-2, 2-3, 3-3 with probabilities 1/6, 4/6,
    1/6 (uniform over the individual cards, not over the count vectors)."""
    g = scenario([{1: 1, 9: 1}, {2: 2}, {3: 2}])
    counts = Counter()
    N = 6000
    for seed in range(N):
        d = det(g.state, 0, seed)
        counts[int(d[C.HAND + C.BLOCK * 1 + 2])] += 1
    obs = [counts[2], counts[1], counts[0]]
    assert stats.chisquare(obs, [N / 6, 4 * N / 6, N / 6]).pvalue > 1e-3


@pytest.mark.parametrize("n,seed,steps,v", [(4, 3, 9, 10), (5, 4, 14, 7), (3, 5, 0, 6)])
def test_hypergeometric_count_in_a_hidden_hand(n, seed, steps, v):
    """Count of number ``v`` dealt to the next seat ~ hypergeometric(pool, pool's v, need)."""
    g = random_walk(n, seed, steps=steps)[-1]
    s = g.state
    p = C.current_player(s)
    q = (p + 1) % n
    d0 = det(s, p, 0)
    pool_v = sum(d0[C.HAND + C.BLOCK * r + v] - s[C.KNOWN + C.BLOCK * r + v]
                 for r in range(n) if r != p)
    pool = sum(s[C.HAND + C.BLOCK * r] - s[C.KNOWN + C.BLOCK * r] for r in range(n) if r != p)
    need = s[C.HAND + C.BLOCK * q] - s[C.KNOWN + C.BLOCK * q]
    kq = s[C.KNOWN + C.BLOCK * q + v]
    N = 4000
    got = np.bincount([det(s, p, sd)[C.HAND + C.BLOCK * q + v] - kq for sd in range(N)],
                      minlength=need + 1)
    exp = stats.hypergeom(pool, pool_v, need).pmf(np.arange(len(got))) * N
    keep = exp >= 5
    obs = np.append(got[keep], got[~keep].sum())
    ex = np.append(exp[keep], exp[~keep].sum())
    if ex[-1] < 1e-9:
        obs, ex = obs[:-1], ex[:-1]
    assert stats.chisquare(obs, ex * obs.sum() / ex.sum()).pvalue > 1e-3


# ----------------------------------------------------------------------------- fair play
FAIR = [s for s in A.SPECS if not s.sees_hidden]


@pytest.mark.parametrize("spec", FAIR, ids=lambda s: s.name)
def test_policies_play_the_same_on_a_determinized_state(spec):
    legal_buf = np.empty(C.MAX_LEGAL, dtype=np.int64)
    params = np.zeros(A.PARAMS_WIDTH)
    params[:len(spec.default_params)] = spec.default_params
    aux = A.make_aux(None)
    for g in states():
        s = g.state
        if g.is_terminal():
            continue
        p = C.current_player(s)
        k = C.legal_actions(s, legal_buf)
        for seed in (1, 2, 3):
            rng1 = np.arange(chance.SEAT_WORDS, dtype=np.int64) * 31 + seed
            rng2 = rng1.copy()
            d = det(s, p, seed)
            a1 = A.act(spec.kind, s, p, legal_buf, k, params, aux, rng1)
            a2 = A.act(spec.kind, d, p, legal_buf, k, params, aux, rng2)
            assert a1 == a2 and np.array_equal(rng1, rng2)
            assert a1 in legal_buf[:k]


@settings(max_examples=25)
@given(n=st.integers(3, 5), seed=st.integers(0, 2**64 - 1), steps=st.integers(0, 60),
       p=st.integers(0, 4), dseed=st.integers(0, 2**64 - 1))
def test_determinize_random_states(n, seed, steps, p, dseed):
    g = random_walk(n, seed, steps=steps)[-1]
    p %= n
    d = g.determinize(p, dseed)
    assert np.array_equal(inventory(d.state), inventory(g.state))
    assert np.array_equal(d.information_state(p), g.information_state(p))
    if g.current_player() == p:
        assert d.legal_actions() == g.legal_actions()
        for spec in FAIR:
            agent = Agent("recurring", spec.name)
            assert agent(d.clone()) == agent(g.clone())
