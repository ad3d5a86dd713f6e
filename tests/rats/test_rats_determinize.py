"""Determinization of Rats (``core.determinize``): conservation, the information state, the
observation tensor and the legal actions kept, known cards kept, a function of (information
state, seed) only (bit-identical after permuting hidden cards, idempotent), uniform placement
(chi-square, round 1 and later rounds), reseeded chance; and fair play of the shipped policies
(same action and same policy memory on a determinized copy)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from math import comb

import numpy as np
import pytest
from scipy import stats

from agents import rats as A
from agents.policy import Agent, get_spec
from engines.protocol import chance
from engines.rats import RatsConfig, new_game
from engines.rats import core as C
from tests.kernel_arrays import KernelArrays
from rats_scenarios import i64, legal, mask, play, random_walk, scenario


_K = KernelArrays(C)
det, info, tensor, inventory = _K.det, _K.info, _K.tensor, _K.inventory


def hidden_words(s, p):
    """State indices that may differ from ``s`` in a determinization for ``p``."""
    n = s[C.N_PLAYERS]
    return {C.RNG, C.KITTY} | {b + q for q in range(n) if q != p for b in (C.HAND, C.ASIDE)}


def hidden_swap(s, p):
    """A state with the same information state for ``p`` but one hidden card moved: round 1,
    a card of another hand swapped with one of a third hand or the kitty; later rounds, a card
    of another seat's hand swapped with one of its set-aside pile (None if impossible)."""
    n = int(s[C.N_PLAYERS])
    if s[C.ROUND] == 1:
        places = [C.HAND + q for q in range(n) if q != p] + [C.KITTY]
        pairs = itertools.combinations(places, 2)
    else:
        pairs = [(C.HAND + q, C.ASIDE + q) for q in range(n) if q != p]
    for i, j in pairs:
        if s[i] and s[j]:
            t = s.copy()
            a = int(t[i]) & -int(t[i])
            b = int(t[j]) & -int(t[j])
            t[i] = (int(t[i]) ^ a) | b
            t[j] = (int(t[j]) ^ b) | a
            t[C.RNG] ^= 0x5555
            return t
    return None


# The seeded walks below give STATE_COUNT states (test_states_cover_the_phases_and_later_rounds
# checks it). They are played on first use, not when the module is collected: each test process
# collects every module, so games played at collection are compiled and played by both.
STATE_COUNT = 103


@functools.cache
def states():
    """The seeded random walks' states (every 7th), played once per process."""
    return [g for n, seed, opts in [(2, 1, {}), (3, 2, {}), (4, 3, {}), (5, 4, {}),
                                    (4, 5, {"ace_high_sequences": True})]
            for g in random_walk(n, seed, every=7, **opts)]


def test_states_cover_the_phases_and_later_rounds():
    assert len(states()) == STATE_COUNT
    phases = Counter(int(g.state[C.PHASE]) for g in states())
    assert all(phases[ph] > 0 for ph in range(4))
    assert any(g.state[C.ROUND] >= 3 for g in states())


@pytest.mark.parametrize("k", range(0, STATE_COUNT, 12))
def test_determinize_properties(k):
    for g in states()[k:k + 12]:
        s = g.state
        n = g.n_players
        for p in range(n):
            for seed in (0, 12345, 2**64 - 7):
                d = det(s, p, seed)
                assert (inventory(d) == 1).all()
                assert np.array_equal(info(d, p), info(s, p))
                assert np.array_equal(tensor(d, p), tensor(s, p))
                if p == g.current_player():
                    assert legal(d) == legal(s)
                diff = {int(i) for i in np.flatnonzero(d != s)}
                assert diff <= hidden_words(s, p), diff - hidden_words(s, p)
                assert d[C.RNG] == C_mix(seed)
                for q in range(n):
                    assert C.popcount(d[C.HAND + q]) == C.popcount(s[C.HAND + q])
                    assert C.popcount(d[C.ASIDE + q]) == C.popcount(s[C.ASIDE + q])
                    if s[C.ROUND] >= 2:
                        assert d[C.HAND + q] | d[C.ASIDE + q] == s[C.HAND + q] | s[C.ASIDE + q]
                # a function of (information state, seed): idempotent, blind to hidden moves
                assert np.array_equal(det(det(s, p, 99), p, seed), d)
                t = hidden_swap(s, p)
                if t is not None:
                    assert np.array_equal(info(t, p), info(s, p))
                    assert np.array_equal(det(t, p, seed), d)


def C_mix(seed):
    return chance.mix(i64(seed) ^ np.int64(C.DET_SALT))


def test_determinize_resamples():
    """Different seeds give different worlds (the hidden cards really move)."""
    g = new_game(RatsConfig(n_players=4), seed=8)
    worlds = {int(det(g.state, 0, seed)[C.HAND + 1]) for seed in range(20)}
    assert len(worlds) == 20


def test_uniform_placement_round_one():
    """Round 1, 4 players, seat 0's view: two unseen cards A < B land in seats 1..3 (13 cards
    each) and the kitty (2) with the exact joint probabilities (chi-square, 6000 seeds)."""
    g = new_game(RatsConfig(n_players=4), seed=21)
    s = g.state
    pool = C.CARD_BITS & ~int(s[C.HAND])
    a = (pool & -pool).bit_length() - 1
    pool2 = pool & ~(1 << a)
    b = (pool2 & -pool2).bit_length() - 1
    places = [C.HAND + 1, C.HAND + 2, C.HAND + 3, C.KITTY]
    sizes = [13, 13, 13, 2]
    counts = Counter()
    K = 6000
    for seed in range(K):
        d = det(s, 0, seed)
        la = next(i for i, w in enumerate(places) if (int(d[w]) >> a) & 1)
        lb = next(i for i, w in enumerate(places) if (int(d[w]) >> b) & 1)
        counts[la, lb] += 1
    cells = list(itertools.product(range(4), repeat=2))
    exp = [sizes[i] / 41 * (sizes[j] - (i == j)) / 40 * K for i, j in cells]
    obs = [counts[c] for c in cells]
    assert stats.chisquare(obs, exp).pvalue > 1e-4


def test_uniform_placement_later_round():
    """Round 2 on: another seat's holding (hand 2 of 5 cards) is split uniformly: each of
    the 10 possible hands equally likely (chi-square, 3000 seeds)."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], round_no=2,
                 aside=["", "2c 3c 4c", "9h"])
    s = g.state
    counts = Counter(int(det(s, 0, seed)[C.HAND + 1]) for seed in range(3000))
    assert len(counts) == comb(5, 2)
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4
    assert all(h & ~mask("Kh 6d 2c 3c 4c") == 0 for h in counts)


def test_information_state_layout():
    """Round 1: the observation only (no INFO_HOLD); round 2 on: every seat's hand | set aside
    and the kitty word; VIEW = 2; nothing hidden leaks (RNG, other hands)."""
    g = new_game(RatsConfig(n_players=3), seed=4)
    i1 = info(g.state, 1)
    assert i1[C.VIEW] == C.VIEW_INFO and i1[C.OBS_PLAYER] == 1 and i1[C.RNG] == 0
    assert (i1[C.INFO_HOLD:C.INFO_HOLD + 5] == 0).all()
    assert i1[C.HAND] == 0 and i1[C.HAND + 1] == g.state[C.HAND + 1]
    late = next(x for x in states() if x.state[C.ROUND] >= 2 and x.n_players == 4)
    s = late.state
    i0 = info(s, 0)
    for q in range(4):
        assert i0[C.INFO_HOLD + q] == s[C.HAND + q] | s[C.ASIDE + q]
    assert i0[C.HAND + 1] == 0 and i0[C.ASIDE + 1] == 0 and i0[C.RNG] == 0


def test_observed_action_is_the_action():
    g = new_game(RatsConfig(n_players=3), seed=4)
    for a in g.legal_actions():
        for p in range(3):
            assert C.observed_action(g.state, a, p) == a


FAIR = [s.name for s in A.SPECS if not s.sees_hidden]


@pytest.mark.parametrize("name", FAIR)
def test_fair_play_same_action_on_determinized_state(name):
    """A policy not labelled sees_hidden returns the same action, and leaves the same policy
    memory, on determinize(s, p, seed) as on s (p = the seat to act), all game long."""
    assert not get_spec("rats", name).sees_hidden
    spec = get_spec("rats", name)
    params = np.zeros(A.PARAMS_WIDTH)
    params[:len(spec.default_params)] = spec.default_params
    aux = A.make_aux(None)
    for n, seed in [(2, 3), (4, 5), (5, 6)]:
        g = new_game(RatsConfig(n_players=n), seed)
        agent = Agent("rats", name)
        k = 0
        while not g.is_terminal():
            p = g.current_player()
            acts = np.array(g.legal_actions(), dtype=np.int64)
            if k % 3 == 0:
                d = det(g.state, p, 1000 + k)
                m1 = g.seat_memory[p].copy()
                m2 = g.seat_memory[p].copy()
                a1 = A.act(spec.kind, g.state, p, acts, len(acts), params, aux, m1)
                a2 = A.act(spec.kind, d, p, acts, len(acts), params, aux, m2)
                assert a1 == a2 and np.array_equal(m1, m2)
            g.apply_action(agent(g))
            k += 1


def test_builder_hand_is_conditioned_on_completing_its_lead():
    """While another seat builds a lead, a determinization keeps that lead completable: seat 1
    has added 5s 6s to a run and holds 2 of its 6 remaining cards (7s X1 2c 3c 4d 9h); only
    the 9 hands holding 7s or X1 fit its choices, each equally likely (chi-square)."""
    g = scenario(["Ah Kh Qh Jh", "5s 6s 7s X1", "2d 3d 8d 9d"], leader=1, round_no=2,
                 aside=["2h", "2c 3c 4d 9h", "5h"])
    play(g, "run", "5s", "6s")
    s = g.state
    counts = Counter()
    for seed in range(2700):
        d = det(s, 0, seed)
        assert legal(d), "the builder must have a legal action"
        counts[int(d[C.HAND + 1])] += 1
    assert len(counts) == 9
    assert all(h & mask("7s X1") for h in counts)
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4
    assert np.array_equal(det(det(s, 0, 5), 0, 77), det(s, 0, 77))


def test_builder_with_a_complete_lead_is_not_conditioned():
    """Once the cards a seat has added form a lead, it waits for FINISH whatever else it holds
    (a set or run never completes by itself before the hand is empty), so its waiting says
    nothing about its hand: seat 1 has added 5s 6s 7s and holds 1 of its 5 remaining cards
    (X1 2c 3c 4d 9h); all 5 hands are possible, equally likely (chi-square), and the builder
    always has FINISH (and X1 when it holds it)."""
    g = scenario(["Ah Kh Qh Jh", "5s 6s 7s X1", "2d 3d 8d 9d"], leader=1, round_no=2,
                 aside=["2h", "2c 3c 4d 9h", "5h"])
    play(g, "run", "5s", "6s", "7s")
    s = g.state
    assert g.current_player() == 1 and legal(s) == [52, C.FINISH]
    counts = Counter()
    for seed in range(2000):
        d = det(s, 0, seed)
        h = int(d[C.HAND + 1])
        assert legal(d) == ([52] if h == mask("X1") else []) + [C.FINISH]
        counts[h] += 1
    assert set(counts) == {mask(c) for c in "X1 2c 3c 4d 9h".split()}
    assert stats.chisquare(list(counts.values())).pvalue > 1e-4
    assert np.array_equal(det(det(s, 0, 5), 0, 77), det(s, 0, 77))


def test_observation_tensor_is_one_hot_per_card():
    """Every card is in exactly one plane of the tensor (own hand, own set aside, a table, a
    capture pile, a known holding, unknown); the scalars are in [0, 1]."""
    for g in states()[::5]:
        for p in range(g.n_players):
            t = tensor(g.state, p)
            planes = t[:C.N_PLANES * 54].reshape(54, C.N_PLANES)
            assert (planes.sum(axis=1) == 1).all()
            assert ((t[C.N_PLANES * 54:] >= 0) & (t[C.N_PLANES * 54:] <= 1)).all()


def test_rollouts_from_determinized_states_reach_the_end():
    """A search agent's use: from determinize(s, p, seed) every decision has a legal action
    and random play ends the game (cards conserved)."""
    rng = np.array([77], dtype=np.int64)
    buf = np.empty(C.MAX_LEGAL, dtype=np.int64)
    for g in states()[::3]:
        for p in range(g.n_players):
            d = det(g.state, p, 31 + p)
            steps = 0
            while not C.is_terminal(d):
                n = C.legal_actions(d, buf)
                assert n > 0
                C.apply_action(d, buf[chance.rand_below(rng, 0, n)])
                steps += 1
            assert (inventory(d) == 1).all() and steps <= C.MAX_GAME_LENGTH
