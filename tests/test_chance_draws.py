"""Distribution tests of the shared chance draws (the inventory:
tests/test_chance_draw_inventory.py): the floats of :func:`engines.protocol.chance.rand_float`,
the arrangement of :func:`engines.protocol.relabel.shuffle_onto`, the hands of
:func:`engines.cards.random_hands` (compiled NumPy ``Generator`` draws) and the rolls of the dice
checker's Monte Carlo. Chi-square goodness of fit on fixed seeds, p > 1e-4."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.stats import chisquare

from engines import cards, dice
from engines.protocol import chance
from engines.protocol.relabel import shuffle_onto

P_MIN = 1e-4


def test_rand_float_is_uniform_on_the_unit_interval():
    """53 random bits scaled to [0, 1): the same bits as the word's top 53 (exact), and 20,000
    floats fall into 20 equal bins equally often."""
    words = np.array([chance.as_word(12345)], np.int64)
    twin = words.copy()
    floats = np.array([chance.rand_float(words, 0) for _ in range(20000)])
    for x in floats[:50]:
        top = int(np.array([chance.next_u64(twin, 0)], np.int64).view(np.uint64)[0]) >> 11
        assert x == top / 2.0**53
    assert floats.min() >= 0.0 and floats.max() < 1.0
    assert chisquare(np.bincount((floats * 20).astype(int), minlength=20)).pvalue > P_MIN


def test_shuffle_onto_gives_every_arrangement_equally_often():
    """Fisher-Yates onto 4 cards: the 24 arrangements equally likely (12,000 draws), and the
    permutation sends each card to the arranged one."""
    n = 4
    src = np.array([10, 11, 12, 13], np.int64)
    counts = {}
    words = np.array([chance.as_word(77)], np.int64)
    perm = np.full(16, -1, np.int64)
    for _ in range(12000):
        dst = np.array([20, 21, 22, 23], np.int64)
        shuffle_onto(src, dst, n, words, perm)
        assert list(perm[src]) == list(dst)
        counts[tuple(dst)] = counts.get(tuple(dst), 0) + 1
    obs = [counts.get(p, 0) for p in itertools.permutations([20, 21, 22, 23])]
    assert sum(obs) == 12000
    assert chisquare(obs).pvalue > P_MIN


def test_random_hands_deal_every_card_and_joker_place_equally():
    """Partial Fisher-Yates from a NumPy ``Generator`` inside compiled code: each of the 52
    cards equally likely in a hand and in its first place, the joker equally likely in each of
    the 5 places (6,000 hands of 4 cards and a joker)."""
    h = cards.random_hands(6000, 5, seed=2024, n_jokers=1).astype(np.int64)
    real = h[h < 52]
    assert chisquare(np.bincount(real, minlength=52)).pvalue > P_MIN
    first = h[:, 0][h[:, 0] < 52]
    assert chisquare(np.bincount(first, minlength=52)).pvalue > P_MIN
    joker_place = np.flatnonzero(h.ravel() == 52) % 5
    assert chisquare(np.bincount(joker_place, minlength=5)).pvalue > P_MIN


def test_monte_carlo_rolls_every_face_equally_often():
    """The dice checker's Monte Carlo rolls each face of a d4, d6, d12 and d20 equally often:
    with one die and the cards "sum >= v", card v is hit by the rolls of v or more, so the
    rolls of each face are the differences (8,000 rolls per die)."""
    n = 8000
    for faces, loadout in ((4, dice.Loadout(0, d4=True)), (6, dice.Loadout(1)),
                           (12, dice.Loadout(0, d12=True)), (20, dice.Loadout(0, d20=True))):
        conds = np.stack([dice.compile_condition(v, []) for v in range(1, faces + 2)])
        p, _, _ = dice.monte_carlo_catch_probabilities(conds, loadout, n, seed=faces)
        hits = np.rint(p * n).astype(np.int64)
        assert hits[0] == n and hits[-1] == 0  # every roll is 1..faces
        per_face = hits[:-1] - hits[1:]
        assert chisquare(per_face).pvalue > P_MIN, (faces, per_face)
