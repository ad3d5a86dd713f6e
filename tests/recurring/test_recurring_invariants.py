"""Invariants of ReCURRRing under random play (hypothesis): card conservation (``inventory``),
pile totals, public knowledge never beyond the hand, legal lists, progress counters, scores
that add up, games that end (rules/recurring.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.protocol import chance
from engines.recurring import RecurringConfig, new_game
from engines.recurring import core as C

configs = st.builds(RecurringConfig, n_players=st.integers(3, 5),
                    open_single_every_round=st.booleans(), emptier_on_table_scores=st.booleans())


def check_piles(s, n):
    for p in range(n):
        for block in (C.HAND, C.SCORE, C.FACEDOWN, C.KNOWN):
            b = block + C.BLOCK * p
            assert s[b] == s[b + 1:b + 11].sum(), "a pile's total is wrong"
            assert (s[b + 1:b + 11] >= 0).all()
        h = C.HAND + C.BLOCK * p
        k = C.KNOWN + C.BLOCK * p
        assert (s[k + 1:k + 11] <= s[h + 1:h + 11]).all(), "known cards not in hand"


@settings(max_examples=60)
@given(config=configs, seed=st.integers(0, 2**64 - 1), policy_seed=st.integers(0, 2**63 - 1))
def test_random_play_invariants(config, seed, policy_seed):
    n = config.n_players
    g = new_game(config, seed)
    full = C.deck_counts(n)
    inv = np.zeros(C.INVENTORY_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    rng = np.array([policy_seed], dtype=np.int64)
    rounds = 0
    while not g.is_terminal():
        s = g.state
        C.inventory(s, inv)
        assert np.array_equal(inv, full), "cards not conserved"
        check_piles(s, n)
        k = C.legal_actions(s, legal)
        assert 0 < k <= C.MAX_LEGAL
        assert list(legal[:k]) == sorted(set(legal[:k]))
        assert (s[C.TABLE_NUM] == 0) == (legal[0] != C.PASS)
        assert C.current_player(s) == s[C.CUR] and s[C.HAND + C.BLOCK * s[C.CUR]] > 0
        assert C.progress(s, 0) >= rounds and C.progress(s, 1) == 0
        rounds = C.progress(s, 0)
        g.apply_action(int(legal[chance.rand_below(rng, 0, k)]))
        assert len(g.history) < C.MAX_GAME_LENGTH
    s = g.state
    C.inventory(s, inv)
    assert np.array_equal(inv, full)
    check_piles(s, n)
    assert s[C.TABLE_NUM] == 0 and s[C.TRUNCATED] == 0
    emptied = [p for p in range(n) if s[C.EMPTIED + p]]
    assert emptied, "the game ends only after someone emptied their hand"
    pts = g.returns()
    for p in range(n):
        b = C.SCORE + C.BLOCK * p
        expect = s[b + 1:b + 10].sum() + (s[b + C.R] if p in emptied else 0)
        assert pts[p] == expect
    assert sum(pts) <= full.sum()
    assert s[C.DECISIONS] == len(g.history) and C.progress(s, 1) == 1
    assert C.progress(s, 0) == s[C.ROUND]
