"""The heuristic's lead plan (``agents.rats.plan_lead``, linear mode) is the first lead of
highest score in ``generate_leads`` order, whether it skips the listing (no longer lead can
pass the best single, issue 29) or not: checked against a plain argmax over every lead, on
random hands and on weights that make singles, sets or sequences win."""

from __future__ import annotations

import numpy as np
import pytest

from agents import rats as R
from engines.rats import core as C

WEIGHTS = [
    R.HEURISTIC_DEFAULT,                                # the single bonus: always a single
    (1.0, 0.5, -0.5, 0.0, 1.0, 0.1, -0.05, 14.0),       # the hand-set start: long leads
    (0.28, -0.3, -0.5, 0.2, 0.5, 0.2, 0.1, 6.0),        # a negative strength weight
    (0.28, 0.115, 0.5, 4.654, 0.76, 0.23, 0.16, 6.7),   # jokers pay: sets and sequences can win
    (0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 14.0),          # strength only: ties broken by order
    (-1.0, 0.2, 0.0, -0.5, 1.0, 0.0, 0.0, 14.0),        # fewer cards better
]


def argmax_lead(hand: int, ace_high: int, params: np.ndarray) -> int:
    buf = np.empty(C.MAX_LEADS, dtype=np.int64)
    n = C.generate_leads(np.int64(hand), ace_high, buf)
    best, bs = -1, -np.inf
    for a in buf[:n]:
        s = R._lead_score(np.int64(a), params)
        if best < 0 or s > bs:
            best, bs = int(a), s
    return best


@pytest.mark.parametrize("w", range(len(WEIGHTS)))
def test_plan_lead_is_the_argmax_of_every_lead(w):
    params = np.array(WEIGHTS[w], dtype=np.float64)
    rng = np.random.default_rng(29 + w)
    for i in range(300):
        size = int(rng.integers(1, 19))
        hand = 0
        for c in rng.choice(54, size=size, replace=False):
            hand |= 1 << int(c)
        if i < 3:  # a lone joker, both jokers, a joker and one card
            hand = [1 << 52, 3 << 52, (1 << 53) | 1][i]
        ace_high = int(i % 2)
        got = int(R.plan_lead(np.int64(hand), ace_high, 1, params, -1, 0, -1))
        assert got == argmax_lead(hand, ace_high, params), (hex(hand), ace_high)
