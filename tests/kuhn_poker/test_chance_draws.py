"""Distribution tests of Kuhn poker's chance draws (the inventory:
tests/test_chance_draw_inventory.py): the deal of ``init_state`` (six equally likely ordered
pairs, Kuhn 1950) and the opponent's card of ``determinize`` (either card the player does not
hold). Chi-square on fixed seed words, p > 1e-4."""

from __future__ import annotations

import numpy as np
from scipy.stats import chisquare

from engines.kuhn_poker import core as C
from engines.protocol import chance

P_MIN = 1e-4
CFG = np.array([2], np.int64)


def test_the_six_deals_are_equally_likely():
    """``init_state`` on the seed words of a batch: each ordered deal 1/6 (6,000 games), and
    the cards are the deal's."""
    out = np.empty(C.STATE_SIZE, np.int64)
    counts = np.zeros(C.NUM_DEALS, np.int64)
    for w in chance.game_seeds(31, 6000):
        C.init_state(CFG, w, out)
        d = int(out[C.DEAL])
        assert (out[C.CARD], out[C.CARD + 1]) == tuple(C.DEALS[d])
        counts[d] += 1
    assert chisquare(counts).pvalue > P_MIN, counts


def test_determinize_gives_the_opponent_either_other_card_equally():
    """For each own card, the opponent's card is each of the two others with chance 1/2
    (3,000 seeds per case), the player's own card is kept and the deal index follows."""
    s = np.empty(C.STATE_SIZE, np.int64)
    out = np.empty(C.STATE_SIZE, np.int64)
    for deal in range(C.NUM_DEALS):
        C.init_deal(CFG, deal, s)
        for p in (0, 1):
            own = int(s[C.CARD + p])
            others = [c for c in range(3) if c != own]
            counts = np.zeros(3, np.int64)
            for seed in chance.game_seeds(deal * 2 + p, 3000):
                C.determinize(s, p, seed, out)
                assert out[C.CARD + p] == own
                assert tuple(C.DEALS[out[C.DEAL]]) == (out[C.CARD], out[C.CARD + 1])
                counts[out[C.CARD + 1 - p]] += 1
            assert counts[own] == 0
            assert chisquare(counts[others]).pvalue > P_MIN, (deal, p, counts)
