"""Distribution tests of ReCURRRing's chance draws (the inventory:
tests/test_chance_draw_inventory.py) that tests/recurring/test_determinize.py does not already
check: the deal (rules "Components and players": shuffle and deal everything; "A round": the
player dealt the 1 starts). Chi-square on fixed seed words, p > 1e-4."""

from __future__ import annotations

import numpy as np
from scipy.stats import chisquare, hypergeom

from engines.protocol import chance
from engines.recurring import RecurringConfig
from engines.recurring import core as C

P_MIN = 1e-4


def _pooled(obs, probs, n):
    """``obs`` and expected counts with the cells expected below 5 pooled into one."""
    exp = np.asarray(probs, float) * n
    small = exp < 5
    obs = np.asarray(obs, float)
    if small.any():
        obs = np.append(obs[~small], obs[small].sum())
        exp = np.append(exp[~small], exp[small].sum())
    return obs, exp / exp.sum() * obs.sum()


def test_the_deal_gives_each_card_to_each_seat_uniformly():
    """3 and 5 players (4,000 games each): the single 1 lies in each seat's hand equally often
    (and its holder starts), and the numbers of R cards in seat 0's hand and of 7s in the last
    seat's hand are hypergeometric (the deck of the player count, a hand of its size)."""
    n = 4000
    out = np.empty(C.STATE_SIZE, np.int64)
    for players in (3, 5):
        cfg = RecurringConfig(n_players=players).to_array()
        deck = C.deck_counts(players)
        size, per = int(deck.sum()), int(deck.sum()) // players
        holder = np.zeros(players, np.int64)
        r_seat0 = np.zeros(per + 1, np.int64)
        sevens_last = np.zeros(per + 1, np.int64)
        last = C.HAND + C.BLOCK * (players - 1)
        for w in chance.game_seeds(players, n):
            C.init_state(cfg, w, out)
            hands = np.array([out[C.HAND + C.BLOCK * p + 1:C.HAND + C.BLOCK * p + 11]
                              for p in range(players)])
            assert (hands.sum(axis=0) == deck).all() and (hands.sum(axis=1) == per).all()
            (h,) = np.flatnonzero(hands[:, 0])
            assert out[C.FIRST_START] == out[C.CUR] == h
            holder[h] += 1
            r_seat0[out[C.HAND + C.R]] += 1
            sevens_last[out[last + 7]] += 1
        assert chisquare(holder).pvalue > P_MIN, (players, holder)
        for counts, k in ((r_seat0, deck[C.R - 1]), (sevens_last, deck[6])):
            law = hypergeom(size, k, per).pmf(np.arange(per + 1))
            assert chisquare(*_pooled(counts, law, n)).pvalue > P_MIN, (players, counts)
