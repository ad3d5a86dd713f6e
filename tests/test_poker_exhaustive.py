"""Exhaustive 7-card check of engines.poker: all 133,784,560 hands through the batch API."""

from math import comb

import numpy as np
import pytest
from numba import njit

from engines import poker


@njit(cache=True)
def _combos_starting_with(first):
    """All 7-card combinations (ascending ids) whose lowest card is ``first``.

    Shape (C(51 - first, 6), 7), dtype int8."""
    n = 51 - first
    total = 1
    for i in range(6):
        total = total * (n - i) // (i + 1)
    out = np.empty((total, 7), dtype=np.int8)
    idx = np.arange(6)
    row = 0
    while True:
        out[row, 0] = first
        for j in range(6):
            out[row, j + 1] = first + 1 + idx[j]
        row += 1
        i = 5
        while i >= 0 and idx[i] == n - 6 + i:
            i -= 1
        if i < 0:
            break
        idx[i] += 1
        for j in range(i + 1, 6):
            idx[j] = idx[j - 1] + 1
    return out


@pytest.mark.slow
def test_exhaustive_seven_card_category_counts():
    """Published counts of all C(52, 7) = 133,784,560 seven-card hands (best five)."""
    counts = np.zeros(9, dtype=np.int64)
    total = 0
    for first in range(46):
        hands = _combos_starting_with(first)
        assert hands.shape[0] == comb(51 - first, 6)
        counts += np.bincount(poker.evaluate(hands) >> 20, minlength=9)
        total += hands.shape[0]
    assert total == 133_784_560
    assert counts[::-1].tolist() == [
        41_584, 224_848, 3_473_184, 4_047_644, 6_180_020, 6_461_620, 31_433_400,
        58_627_800, 23_294_460,
    ]


@pytest.mark.slow
def test_ten_card_hands_with_two_jokers_match_the_reference():
    """N = 10 with 2 jokers (the reference's slowest case) on a few random hands per rule set."""
    from engines import cards
    from engines.poker.reference import best_strength

    hands = cards.random_hands(4, 10, seed=2024, n_jokers=2)
    for rules in ("standard", "river_rats"):
        got = poker.evaluate(hands, rules).tolist()
        assert got == [best_strength(h, rules) for h in hands.tolist()]
