"""Invariants of Rats under random play (hypothesis): card conservation, equal hands at each
trick's start, games end, win shares add up (rules/rats.md)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.rats import RatsConfig, new_game
from engines.rats import core as C
from engines.splitmix import rand_below

configs = st.builds(
    RatsConfig,
    n_players=st.integers(2, 5),
    ace_high_sequences=st.booleans(),
    sequence_tie=st.sampled_from(["later", "earlier"]),
    joker_sequence_reading=st.sampled_from(["strongest", "weakest"]),
    max_rounds=st.one_of(st.none(), st.integers(1, 4)),
    max_rounds_tie=st.sampled_from(["shared", "none"]),
)


def check_conservation(s):
    n = s[C.N_PLAYERS]
    masks = [s[C.KITTY]] + [s[b + p] for p in range(n) for b in (C.HAND, C.CAPT, C.ASIDE, C.TABLE)]
    union = 0
    for m in masks:
        assert union & m == 0, "a card is in two places"
        union |= m
    assert union == (1 << 54) - 1, "a card vanished"


@settings(max_examples=40)
@given(config=configs, seed=st.integers(0, 2**32), policy_seed=st.integers(0, 2**31))
def test_random_play_invariants(config, seed, policy_seed):
    g = new_game(config, seed)
    rng = np.array([policy_seed], dtype=np.int64)
    steps = 0
    while not g.is_terminal():
        s = g.state
        check_conservation(s)
        n = config.n_players
        if s[C.PHASE] == C.PHASE_LEAD:
            sizes = {C.popcount(s[C.HAND + p]) for p in range(n) if s[C.ALIVE + p]}
            assert len(sizes) == 1 and sizes.pop() > 0, "hands differ at a trick's start"
        legal = g.legal_actions()
        assert len(legal) > 0
        g.apply_action(int(legal[rand_below(rng, 0, len(legal))]))
        steps += 1
        assert steps < 100_000
    s = g.state
    check_conservation(s)
    r = g.returns()
    if s[C.N_WINNERS]:
        assert abs(r.sum() - 1.0) < 1e-12
    else:
        assert r.sum() == 0 and config.max_rounds_tie == "none"
    assert (g.places() >= 1).all() and 1 in g.places()
    alive = [p for p in range(config.n_players) if s[C.ALIVE + p]]
    if config.max_rounds is None and not s[C.TRUNCATED]:
        assert len(alive) == 1 and r[alive[0]] == 1.0
    else:
        assert s[C.ROUND] <= (config.max_rounds or config.round_cap)
    assert s[C.DECISIONS] == len(g.history)
