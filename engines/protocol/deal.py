"""Compiled dealing of random hands (used by :func:`engines.cards.random_hands`)."""

import numpy as np
from numba import njit


@njit(cache=True)
def deal_hands(n_hands, n_cards, n_jokers, rng):
    """(n_hands, n_cards) int8 hands: ``n_cards - n_jokers`` distinct standard cards by a
    partial Fisher-Yates shuffle of a 52-card deck, plus jokers 52.. at random positions."""
    out = np.empty((n_hands, n_cards), dtype=np.int8)
    deck = np.arange(52, dtype=np.int8)
    n_real = n_cards - n_jokers
    for i in range(n_hands):
        for j in range(n_real):
            r = j + np.int64(rng.integers(0, 52 - j))
            t = deck[j]
            deck[j] = deck[r]
            deck[r] = t
            out[i, j] = deck[j]
        for j in range(n_jokers):
            out[i, n_real + j] = 52 + j
        for j in range(n_real, n_cards):  # shuffle jokers into random positions
            r = np.int64(rng.integers(0, j + 1))
            t = out[i, j]
            out[i, j] = out[i, r]
            out[i, r] = t
    return out
