"""The card-by-card lead encoding (action table of ``engines.rats.core``): the leads reachable
through the decisions (kind, ascending cards, FINISH) are exactly those of ``generate_leads``,
which equal the plain-Python reference's; the declarations legal are the kinds the hand holds;
legal lists are ascending, distinct, inside the table and within MAX_LEGAL; only a single and
a lead that empties the hand complete by themselves."""

from __future__ import annotations

import numpy as np
import pytest
import rats_reference as ref
from hypothesis import given, settings
from hypothesis import strategies as st

from engines.rats import RatsConfig
from engines.rats import core as C
from rats_scenarios import generated_leads, ids, legal, tree_leads


def declare_state(hand: int, ace_high: int) -> np.ndarray:
    """Seat 0 about to declare a lead from ``hand`` (2 players; seat 1 holds the rest)."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    cfg = RatsConfig(n_players=2, first_leader=0, ace_high_sequences=bool(ace_high))
    C.init_state(cfg.to_array(), np.int64(1), s)
    s[C.HAND] = hand
    s[C.HAND + 1] = C.CARD_BITS & ~hand
    s[C.KITTY] = 0
    return s


def hand_of(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def check_hand(hand: int, ace_high: int) -> None:
    s = declare_state(hand, ace_high)
    gen = generated_leads(hand, ace_high)
    assert tree_leads(s) == gen
    assert legal(s) == sorted(C.LEAD_SINGLE + k for k in {k for k, _ in gen})


# hands biased towards one suit with jokers (where runs are many), and plain random hands
one_suit = st.tuples(st.integers(0, 3), st.sets(st.integers(0, 12), max_size=13),
                     st.sets(st.sampled_from([52, 53]))).map(
    lambda t: hand_of([4 * r + t[0] for r in t[1]] + list(t[2])))
any_hand = st.sets(st.integers(0, 53), min_size=1, max_size=14).map(hand_of)


@settings(max_examples=150)
@given(hand=st.one_of(one_suit, any_hand), ace_high=st.integers(0, 1))
def test_decision_tree_reaches_exactly_the_generated_leads(hand, ace_high):
    """Every lead of the hand has one path (kind, cards ascending, then FINISH, or completion
    by itself for a single and a lead that empties the hand) and no path ends in anything
    else."""
    if hand == 0:
        return
    check_hand(hand, ace_high)


@pytest.mark.parametrize("text,ace_high", [
    ("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As X1 X2", 0),
    ("2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks As X1 X2", 1),
    ("As 2s 4s 6s 8s Ts Qs X1 X2", 1),
    ("7s 7h 7d 7c X1 X2", 0),
    ("X1 X2", 0),
    ("X2", 0),
    ("X1 5s", 0),
    ("Ac 2c Qc Kc X2", 1),
])
def test_decision_tree_named_hands(text, ace_high):
    from rats_scenarios import mask
    check_hand(mask(text), ace_high)


def test_decision_tree_big_hands():
    """Hands of 20..27 cards (two players' first deals), both ace options."""
    rng = np.random.default_rng(5)
    for _ in range(12):
        hand = hand_of(rng.choice(54, int(rng.integers(20, 28)), replace=False))
        for ace_high in (0, 1):
            check_hand(hand, ace_high)


@settings(max_examples=120)
@given(cards=st.sets(st.integers(0, 53), min_size=1, max_size=8), ace_high=st.booleans())
def test_generated_leads_equal_the_reference(cards, ace_high):
    """generate_leads = the plain-Python reference (every subset, jokers lower id first)."""
    hand = hand_of(cards)
    want = {(k, hand_of(cs)) for k, cs in ref.leads(sorted(cards), ace_high)}
    assert generated_leads(hand, int(ace_high)) == want


@settings(max_examples=60)
@given(seed=st.integers(0, 2**32), n=st.integers(2, 5))
def test_legal_lists_are_ascending_distinct_and_bounded(seed, n):
    """Through a random game: every legal list is ascending, distinct, inside the action
    table, at most MAX_LEGAL long, and FINISH appears only in the build phase (last); a build
    state has a leader with cards left and is never a single already chosen."""
    from rats_scenarios import random_walk

    for g in random_walk(n, seed, every=3):
        if g.is_terminal():
            assert legal(g.state) == []
            continue
        acts = legal(g.state)
        assert acts == sorted(set(acts)) and 0 < len(acts) <= C.MAX_LEGAL
        assert all(0 <= a < C.NUM_DISTINCT_ACTIONS for a in acts)
        ph = g.state[C.PHASE]
        if ph == C.PHASE_DECLARE:
            assert set(acts) <= {C.LEAD_SINGLE, C.LEAD_SET, C.LEAD_SEQ}
        elif ph == C.PHASE_FOLLOW:
            assert acts == ids(g.state[C.HAND + g.current_player()])
        else:
            p = g.current_player()
            assert all(a < 54 for a in acts[:-1]) and g.state[C.HAND + p] != 0
            assert not (g.state[C.LEAD_KIND] == C.KIND_SINGLE and g.state[C.TABLE + p])
            assert (acts[-1] == C.FINISH) == bool(C.lead_complete(g.state))


def test_action_table_constants():
    assert (C.FINISH, C.LEAD_SINGLE, C.LEAD_SET, C.LEAD_SEQ) == (54, 55, 56, 57)
    assert C.NUM_DISTINCT_ACTIONS == 58 == C.HIDDEN_ACTION
    assert C.MAX_LEGAL == 55
