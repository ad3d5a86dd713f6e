"""Invariants of Rats under random play (hypothesis): card conservation (``inventory``), equal
hands at each trick's start, legal actions well formed, games end within MAX_GAME_LENGTH, win
shares add up, counters and views consistent, a lead completes by itself only as a single or
with an empty hand (rules/rats.md, engines.rats.core action table)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.protocol import chance
from engines.rats import RatsConfig, new_game
from engines.rats import core as C

configs = st.builds(
    RatsConfig,
    n_players=st.integers(2, 5),
    ace_high_sequences=st.booleans(),
    sequence_tie=st.sampled_from(["later", "earlier"]),
    joker_sequence_reading=st.sampled_from(["strongest", "weakest"]),
    joker_pair_rank=st.integers(0, 12),
    max_rounds=st.one_of(st.none(), st.integers(1, 4)),
    max_rounds_tie=st.sampled_from(["shared", "none"]),
)


def check_conservation(s):
    inv = np.zeros(C.INVENTORY_SIZE, dtype=np.int64)
    C.inventory(s, inv)
    assert (inv == 1).all(), "a card vanished or is in two places"
    n = s[C.N_PLAYERS]
    masks = [s[C.KITTY]] + [s[b + p] for p in range(n) for b in (C.HAND, C.CAPT, C.ASIDE, C.TABLE)]
    union = 0
    for m in masks:
        assert union & m == 0, "a card is in two places"
        union |= m
    assert union == C.CARD_BITS


@settings(max_examples=40)
@given(config=configs, seed=st.integers(0, 2**64 - 1), policy_seed=st.integers(0, 2**31))
def test_random_play_invariants(config, seed, policy_seed):
    g = new_game(config, seed)
    rng = np.array([policy_seed], dtype=np.int64)
    n = config.n_players
    tricks = rounds = 0
    obs = np.zeros(C.OBS_SIZE, dtype=np.int64)
    while not g.is_terminal():
        s = g.state
        check_conservation(s)
        assert s[C.OBS_PLAYER] == -1 and s[C.VIEW] == C.VIEW_FULL
        p = g.current_player()
        assert s[C.ALIVE + p] == 1
        if s[C.PHASE] == C.PHASE_DECLARE:
            sizes = {C.popcount(s[C.HAND + q]) for q in range(n) if s[C.ALIVE + q]}
            assert len(sizes) == 1 and sizes.pop() > 0, "hands differ at a trick's start"
            assert all(s[C.TABLE + q] == 0 for q in range(n))
        assert C.progress(s, 0) >= tricks and C.progress(s, 1) >= rounds
        tricks, rounds = C.progress(s, 0), C.progress(s, 1)
        C.observe(s, p, obs)
        assert all(obs[C.HAND + q] == 0 for q in range(n) if q != p) and obs[C.KITTY] == 0
        acts = g.legal_actions()
        assert acts and acts == sorted(set(acts))
        a = acts[chance.rand_below(rng, 0, len(acts))]
        adding = s[C.PHASE] == C.PHASE_BUILD and a < C.FINISH
        single = s[C.LEAD_KIND] == C.KIND_SINGLE
        hand_left = C.popcount(s[C.HAND + p]) - 1
        g.apply_action(a)
        if adding and not g.is_terminal():
            # completion rule: after a card the lead completes by itself iff it is a single or
            # the hand is empty (public facts), whatever the leader's other cards
            still = g.state[C.PHASE] == C.PHASE_BUILD and g.current_player() == p
            assert still == (not single and hand_left > 0)
    s = g.state
    check_conservation(s)
    assert g.current_player() == -1 and g.legal_actions() == []
    r = g.returns()
    if s[C.N_WINNERS]:
        assert abs(sum(r) - 1.0) < 1e-12
    else:
        assert sum(r) == 0 and config.max_rounds_tie == "none"
    places = g.places()
    assert min(places) == 1 and all(1 <= x <= n for x in places)
    alive = [p for p in range(n) if s[C.ALIVE + p]]
    if config.max_rounds is None and not s[C.TRUNCATED]:
        assert len(alive) == 1 and r[alive[0]] == 1.0
    else:
        assert s[C.ROUND] <= (config.max_rounds or config.round_cap)
    assert s[C.DECISIONS] == len(g.history) <= C.MAX_GAME_LENGTH
    out = g.outcome()
    assert out["decisions"] == len(g.history) and out["rounds"] == s[C.ROUND]
    assert out["tricks"] == s[C.TRICKS]
    for p in range(C.MAX_PLAYERS):
        if p >= n:  # seats not in this game have no outcome fields
            assert not {f"place_{p}", f"holding_{p}", f"elim_round_{p}"} & set(out)
        elif not s[C.ALIVE + p]:
            assert out[f"holding_{p}"] == 0 and out[f"elim_round_{p}"] >= 1
    ret = np.full(C.MAX_PLAYERS, -1.0)
    C.returns(s, ret)
    assert (ret[n:] == 0).all()
