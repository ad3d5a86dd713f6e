"""Invariants of ReCURRRing under random play (hypothesis): card conservation, scores add up,
games end (rules/recurring.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.recurring import RecurringConfig, new_game
from engines.recurring import core as C
from engines.splitmix import rand_below

configs = st.builds(RecurringConfig, n_players=st.integers(3, 5),
                    open_single_every_round=st.booleans(), emptier_on_table_scores=st.booleans())


def counts(s, n):
    tot = np.zeros(11, dtype=np.int64)
    for p in range(n):
        for block in (C.HAND, C.SCORE, C.FACEDOWN):
            b = block + C.BLOCK * p
            tot[1:] += s[b + 1:b + 11]
            assert s[b] == s[b + 1:b + 11].sum(), "a pile's total is wrong"
    if s[C.TABLE_NUM]:
        tot[s[C.TABLE_NUM]] += s[C.TABLE_COUNT]
    return tot


@settings(max_examples=60)
@given(config=configs, seed=st.integers(0, 2**32), policy_seed=st.integers(0, 2**31))
def test_random_play_invariants(config, seed, policy_seed):
    n = config.n_players
    g = new_game(config, seed)
    full = np.bincount([C.number_of_id(c) for c in C.deck_ids(n)], minlength=11)
    rng = np.array([policy_seed], dtype=np.int64)
    steps = 0
    while not g.is_terminal():
        assert np.array_equal(counts(g.state, n), full), "cards not conserved"
        legal = g.legal_actions()
        assert len(legal) > 0
        g.apply_action(int(legal[rand_below(rng, 0, len(legal))]))
        steps += 1
        assert steps < 10_000
    s = g.state
    assert np.array_equal(counts(s, n), full)
    emptied = [p for p in range(n) if s[C.EMPTIED + p]]
    assert emptied, "the game ends only after someone emptied their hand"
    pts = g.returns()
    for p in range(n):
        b = C.SCORE + C.BLOCK * p
        expect = s[b + 1:b + 10].sum() + (s[b + C.R] if p in emptied else 0)
        assert pts[p] == expect
    assert pts.sum() <= full[1:10].sum() + full[10]
    assert s[C.DECISIONS] == len(g.history)
