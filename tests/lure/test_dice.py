"""The dice-condition checker (engines/dice/checker.py) against the plain-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import dice
from engines.dice import reference as ref
from engines.lure import default_deck

REQS = ["pair", "distinct", "lure", "no_lure", "special2", "odd", "even", "stubborn"]


@st.composite
def card(draw):
    """A random valid card: catch number and compatible requirements."""
    cn = draw(st.integers(0, 40))
    reqs = []
    for group in (("pair", "distinct"), ("odd", "even"), ("lure", "no_lure")):
        pick = draw(st.sampled_from((None,) + group))
        if pick:
            reqs.append(pick)
    for extra in ("special2", "stubborn"):
        if draw(st.booleans()):
            reqs.append(extra)
    if draw(st.booleans()):
        vals = draw(st.lists(st.integers(1, 20), min_size=1, max_size=3))
        if "distinct" in reqs:
            vals = sorted(set(vals))
        if "odd" in reqs:
            vals = [v for v in vals if v % 2] or [1]
        if "even" in reqs:
            vals = [v for v in vals if v % 2 == 0] or [2]
        reqs.append("has:" + ",".join(map(str, vals)))
    return cn, reqs


@st.composite
def roll_batch(draw):
    faces = draw(st.lists(st.sampled_from([6, 6, 6, 12, 20, 4, 0]), min_size=1, max_size=9))
    n = draw(st.integers(1, 12))
    rows = []
    for _ in range(n):
        row = []
        for f in faces:
            if draw(st.booleans()) and draw(st.booleans()):
                row.append(-1)
            else:
                row.append(draw(st.integers(1, f if f else 6)))
        rows.append(row)
    lure = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return np.array(rows), np.array(faces), np.array(lure)


@settings(max_examples=150, deadline=None)
@given(roll_batch(), st.lists(card(), min_size=1, max_size=5))
def test_check_batch_matches_reference(batch, cards):
    """Rules 'Fish cards': every requirement code agrees with the plain-Python reading."""
    rolls, faces, lure = batch
    conds = np.stack([dice.compile_condition(cn, r) for cn, r in cards])
    got = dice.check_batch(rolls, faces, lure, conds)
    for i, row in enumerate(rolls):
        vals = [int(v) for v in row if v >= 0]
        nspec = sum(1 for v, f in zip(row, faces, strict=True) if v >= 0 and f in (4, 12, 20))
        for c, (cn, reqs) in enumerate(cards):
            assert got[i, c] == ref.meets(vals, nspec, bool(lure[i]), cn, reqs), (row, cn, reqs)
    single = dice.check(rolls, faces, lure, conds[0])
    assert np.array_equal(single, got[:, 0])


def test_check_rejects_bad_input():
    """Malformed rolls / faces raise ValueError naming the bad value."""
    cond = dice.compile_condition(5, [])
    with pytest.raises(ValueError, match="rolls\\[0, 0\\] = 7"):
        dice.check(np.array([[7]]), np.array([6]), False, cond)
    with pytest.raises(ValueError, match="faces"):
        dice.check(np.array([[3]]), np.array([8]), False, cond)
    with pytest.raises(ValueError, match="shape"):
        dice.check(np.array([3]), np.array([6]), False, cond)


@pytest.mark.parametrize("code,msg", [("fishy", "unknown requirement"), ("has:0", "1..20"),
                                      ("has:21", "1..20"), ("pair;distinct", "contradict"),
                                      ("odd;even", "contradict"), ("lure;no_lure", "contradict")])
def test_compile_condition_rejects(code, msg):
    with pytest.raises(ValueError, match=msg):
        dice.compile_condition(10, code.split(";"))


def test_multisets_and_weights():
    """Multisets of n d6: C(n+5, 5) of them, multinomial weights sum to one."""
    from math import comb

    for n in range(6):
        vals, w, nb = dice.d6_multisets(n)
        assert len(w) == comb(n + 5, 5)
        assert abs(w.sum() - 1.0) < 1e-12
    vals, w, _ = dice.d6_multisets(2)
    i = [tuple(v) for v in vals].index((1, 2))
    assert abs(w[i] - 2 / 36) < 1e-15


LOADOUTS = [
    dice.Loadout(0),
    dice.Loadout(2),
    dice.Loadout(3),
    dice.Loadout(1, d12=True),
    dice.Loadout(2, d4=True, extras=(3,)),
    dice.Loadout(1, d4=True, d12=False, n_adjust=2),
    dice.Loadout(2, n_adjust=1),
    dice.Loadout(3, n_adjust=2),
    dice.Loadout(0, d4=True, extras=(5, 5), boosts=1),
    dice.Loadout(1, d12=True, n_adjust=1),
    dice.Loadout(0, n_adjust=1),
]


@pytest.mark.parametrize("lo", LOADOUTS, ids=lambda lo: lo.label())
@pytest.mark.parametrize("unused", [True, False])
def test_exact_equals_brute_force(lo, unused):
    """Exact multiset enumeration (with the adjust ball) = brute force over ordered outcomes."""
    deck = default_deck()
    cards = [(int(deck.catch_numbers[i]), list(deck.requirements[i])) for i in range(len(deck))]
    cards += [(7, ["has:2,2"]), (9, ["odd", "pair"]), (4, ["has:4", "even"])]
    conds = np.stack([dice.compile_condition(cn, r) for cn, r in cards])
    got = dice.exact_catch_probabilities(conds, lo, adjust_may_be_unused=unused)
    for c, (cn, reqs) in enumerate(cards):
        want = ref.probability(cn, reqs, lo.n_d6, lo.d12, lo.d20, lo.d4, lo.extras, lo.n_adjust,
                               lo.boosts, unused)
        assert abs(got[c] - float(want)) < 1e-12, (lo.label(), cn, reqs)


def test_table_agrees_with_single_loadouts():
    """Every cell of exact_table equals exact_catch_probabilities of its loadout."""
    deck = default_deck()
    table = dice.exact_table(deck.conds, deep_waters=True)
    rng = np.random.default_rng(5)
    for _ in range(25):
        n6, spec, plan = int(rng.integers(6)), int(rng.integers(8)), int(rng.integers(10))
        lo = dice.plan_loadout(n6, spec, plan)
        assert np.allclose(table[:, n6, spec, plan], dice.exact_catch_probabilities(deck.conds, lo))
    base = dice.exact_table(deck.conds[:3], deep_waters=False)
    assert np.isnan(base[:, :, 4:, :]).all() and not np.isnan(base[:, :, :4, :]).any()


def test_table_rows_of_a_card_are_its_own_bit_for_bit():
    """A card's rows of exact_table are the same alone, in its deck, remembered or computed
    (the memo computes each condition once), and every call returns a new array."""
    from engines.dice.checker import _exact_table_of

    deck = default_deck()
    conds = np.ascontiguousarray(deck.conds, dtype=np.int64)
    whole = _exact_table_of(conds, True, True)
    alone = np.concatenate([_exact_table_of(conds[i:i + 1], True, True)
                            for i in range(0, len(conds), 7)])
    np.testing.assert_array_equal(alone, whole[::7])
    first = dice.exact_table(conds[::-1])
    again = dice.exact_table(conds[::-1])
    np.testing.assert_array_equal(first, whole[::-1])
    assert first is not again
    first[:] = 0.0  # the caller's own array: the memo is unchanged
    np.testing.assert_array_equal(dice.exact_table(conds), whole)


@pytest.mark.parametrize("lo", [dice.Loadout(5), dice.Loadout(3, d20=True, n_adjust=2),
                                dice.Loadout(4, d12=True, d4=True, extras=(6,), n_adjust=1)],
                         ids=lambda lo: lo.label())
def test_monte_carlo_within_interval_of_exact(lo):
    """Monte Carlo (independent adjust search) covers the exact value with its interval.

    45 cards are checked at once, so each interval has level 1 - 1e-5 (Bonferroni).
    """
    deck = default_deck()
    exact = dice.exact_catch_probabilities(deck.conds, lo)
    p, low, high = dice.monte_carlo_catch_probabilities(deck.conds, lo, 20000, seed=3,
                                                        confidence=1 - 1e-5)
    assert np.all((exact >= low - 1e-12) & (exact <= high + 1e-12)), (exact, low, high)
    assert np.all(np.abs(p - exact) < 0.03)


def test_enumerate_deltas_counts():
    """Adjust vectors: L1 ball clipped to faces; parity when every adjust must move a die."""
    assert dice.count_deltas([3], [6], 1) == 3
    assert dice.count_deltas([1], [6], 2) == 3  # 1, 2, 3
    assert dice.count_deltas([3, 3], [6, 6], 2) == 13
    assert dice.count_deltas([3, 3], [6, 6], 2, need_parity=True) == 9  # |d| in {0, 2}
    assert dice.count_deltas([], [], 3) == 1


def test_loadout_validation():
    with pytest.raises(ValueError, match="n_d6"):
        dice.Loadout(6)
    with pytest.raises(ValueError, match="extra-die"):
        dice.Loadout(1, extras=(7,))
    assert dice.Loadout(2, d12=True, n_adjust=1).label() == "2d6+d12 +adj"
