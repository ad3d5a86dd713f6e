"""The best-5-of-N evaluator (engines.poker) against published counts, a plain-Python
reference (engines.poker.reference), phevaluator, and the River Rats ranking
(docs/rules/river_rats.md, "Hand ranking")."""

from itertools import combinations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engines import cards, poker
from engines.poker.reference import best_strength

P = cards.parse
CAT = poker.CATEGORY_NAMES


def ev(text, rules="standard"):
    return int(poker.evaluate(P(text)[None, :], rules)[0])


def cat(text, rules="standard"):
    return CAT[int(poker.hand_category(ev(text, rules)))]


@pytest.fixture(scope="module")
def all_five_card_hands():
    return np.array(list(combinations(range(52), 5)), dtype=np.int8)


def test_exhaustive_five_card_category_counts(all_five_card_hands):
    """Published counts of the 2,598,960 five-card hands, straight flush down to high card."""
    counts = np.bincount(poker.hand_category(poker.evaluate(all_five_card_hands)), minlength=9)
    assert counts[::-1].tolist() == [
        40, 624, 3744, 5108, 10200, 54912, 123552, 1098240, 1302540]


def test_distinct_classes_standard_7462_river_rats_6050(all_five_card_hands):
    std = poker.evaluate(all_five_card_hands, "standard")
    rr = poker.evaluate(all_five_card_hands, "river_rats")
    assert np.unique(std).size == 7462
    assert np.unique(rr).size == 6050
    # River Rats is a coarsening of standard: sorting by standard never decreases River Rats
    order = np.argsort(std, kind="stable")
    assert (np.diff(rr[order]) >= 0).all()
    # and both rule sets agree on the category of every hand
    assert np.array_equal(poker.hand_category(std), poker.hand_category(rr))


def test_wheel_is_a_five_high_straight():
    assert cat("Ah 2c 3d 4h 5s") == "straight"
    assert ev("Ah 2c 3d 4h 5s") < ev("2c 3d 4h 5s 6c")
    assert ev("Ah 2c 3d 4h 5s") > ev("Ah Ac Ad 4h 5s")


def test_steel_wheel_is_the_lowest_straight_flush():
    assert cat("Ah 2h 3h 4h 5h") == "straight flush"
    assert ev("Ah 2h 3h 4h 5h") < ev("2s 3s 4s 5s 6s")
    assert ev("Ah 2h 3h 4h 5h") > ev("Ac Ad Ah As Kc")


def test_k_a_2_3_4_is_not_a_straight():
    assert cat("Kh Ac 2d 3h 4s") == "high card"
    assert cat("Kh Ah 2h 3h 4h") == "flush"


def test_kickers_outside_the_best_five_are_ignored():
    assert ev("Ah Ad Kc Qs Jh 3c 2d") == ev("Ah Ad Kc Qs Jh 5c 4d")
    assert ev("Ah Ad Kc Qs Jh 3c 2d") < ev("Ah Ad Kc Qs Th 3c 2d") + (1 << 20)
    assert ev("Ah Ad Kc Qs Jh 3c 2d") > ev("Ah Ad Kc Qs Th 9c 8d")


@pytest.mark.parametrize(
    "hand, expected",
    [
        ("Ah Kh Qh Jh 9h Ac Ad As", "four of a kind"),        # N=8 flush next to quads
        ("Ah Kh Qh Jh 9h Ac Ad Kd", "full house"),            # N=8 flush next to a full house
        ("2h 3h 4h 5h 9h Ac Ad As 6h", "straight flush"),     # N=9 straight flush beats quads
        ("2c 3c 4c 5c 7c 2d 3d 4d 5d 7d", "flush"),           # N=10 two flush suits
        ("Ah Ac Ad As Kh Kc Kd Ks Qh Jh", "four of a kind"),  # N=10 two sets of quads
    ],
)
def test_large_hand_traps(hand, expected):
    assert cat(hand) == expected
    assert ev(hand) == best_strength(P(hand))


def test_two_flush_suits_take_the_higher_flush():
    low_first = ev("2c 3c 4c 5c 7c 2d 3d 4d 5d 8d")
    assert low_first == ev("2d 3d 4d 5d 8d")
    assert ev("Ac 3c 4c 5c 7c Kd Qd Jd 9d 8d") == ev("Ac 3c 4c 5c 7c")


def test_quads_kicker_and_two_quads():
    assert ev("Ah Ac Ad As Kh Kc Kd Ks Qh Jh") == ev("Ah Ac Ad As Kh")


@pytest.mark.parametrize(
    "hand, expected",
    [
        ("Ah Kh Qh Jh X1", "straight flush"),
        ("Ah Ac Ad As X1", "four of a kind"),         # no five of a kind
        ("Ah Ac Ad As X1 X2", "four of a kind"),
        ("2c 7d 9h Ks X1 X2", "three of a kind"),
        ("2c 7d 9h Js X1 X2", "straight"),
        ("2c 3d X1 X2 9h", "three of a kind"),
        ("2h 5h 9h X1 X2", "flush"),
        ("2h 3h 5h X1 X2", "straight flush"),
        ("Ah Ad Kc Kd X1", "full house"),
    ],
)
def test_jokers_become_the_best_card(hand, expected):
    assert cat(hand) == expected
    assert ev(hand) == best_strength(P(hand))


def test_four_aces_and_a_joker_have_a_king_kicker():
    assert ev("Ah Ac Ad As X1") == ev("Ah Ac Ad As Kh")


def test_river_rats_flush_ranks_by_highest_card_only():
    a, b = "Ah 9h 7h 4h 2h", "Ac Kc Qc Jc 9c"
    assert ev(a, "river_rats") == ev(b, "river_rats")
    assert ev(a) < ev(b)
    assert ev("Kh Qh Jh 9h 7h", "river_rats") < ev(a, "river_rats")


def test_river_rats_full_house_by_the_three_only():
    assert ev("Kh Kc Kd 2h 2c", "river_rats") == ev("Kh Kc Kd Ah Ac", "river_rats")
    assert ev("Kh Kc Kd 2h 2c", "river_rats") > ev("Qh Qc Qd Ah Ac", "river_rats")


def test_river_rats_straight_by_highest_card_and_other_kickers_kept():
    assert ev("9h 8c 7d 6s 5h", "river_rats") == ev("9c 8d 7h 6c 5s", "river_rats")
    # four of a kind and three of a kind: set rank, then kickers [decision]
    assert ev("9h 9c 9d 9s 5h", "river_rats") < ev("9h 9c 9d 9s 6h", "river_rats")
    assert ev("9h 9c 9d 3s 5h", "river_rats") < ev("9h 9c 9d 3s 6h", "river_rats")
    # two pair: higher pair, lower pair, kicker [decision]; pair and high card: all kickers
    assert ev("9h 9c 5d 5s 2h", "river_rats") < ev("9h 9c 5d 5s 3h", "river_rats")
    assert ev("9h 9c 5d 4s 2h", "river_rats") < ev("9h 9c 5d 4s 3h", "river_rats")


def test_rows_of_different_sizes_share_one_batch():
    hands = np.full((3, 10), -1, dtype=np.int16)
    hands[0, [0, 3, 5, 7, 9]] = P("Ah Kh Qh Jh Th")
    hands[1, :7] = P("2c 2d 5h 7s 9c Jd Kh")
    hands[2, :] = P("2c 3c 4c 5c 7c 2d 3d 4d 5d 7d")
    out = poker.evaluate(hands)
    assert out.dtype == np.int32 and out.shape == (3,)
    assert [CAT[c] for c in poker.hand_category(out)] == ["straight flush", "pair", "flush"]


@pytest.mark.parametrize(
    "hands, message",
    [
        ([[0, 1, 2, 3, 3]], "row 0: duplicate card 2s"),
        ([[0, 1, 2, 3, 4], [0, 1, 2, 3, 54]], "row 1: card id 54 out of range"),
        ([[0, 1, 2, 3, -2]], "row 0: card id -2 out of range"),
        ([[0, 1, 2, 3, -1]], "row 0: 4 real cards"),
        ([list(range(11))], "row 0: 11 real cards"),
        ([[0, 1, 2, 52, 52]], "row 0: duplicate card X1 .* at most 2 jokers"),
        ([[0.0, 1, 2, 3, 4]], "integer card ids"),
    ],
)
def test_bad_hands_raise_naming_the_row_and_reason(hands, message):
    with pytest.raises(ValueError, match=message):
        poker.evaluate(np.array(hands))


def test_bad_rules_raise():
    with pytest.raises(ValueError, match="bad rules 'texas'"):
        poker.evaluate(P("Ah Kh Qh Jh Th"), "texas")


def test_hand_category_rejects_foreign_values():
    with pytest.raises(ValueError, match="evaluate"):
        poker.hand_category(np.array([9 << 20]))


@st.composite
def hands_with_jokers(draw):
    n = draw(st.integers(5, 10))
    n_jokers = draw(st.integers(0, 2))
    if n_jokers == 2:  # the reference is exponential in jokers: keep 2-joker hands small
        n = min(n, 7)
    real = draw(st.lists(st.integers(0, 51), min_size=n - n_jokers, max_size=n - n_jokers,
                         unique=True))
    hand = real + [52, 53][:n_jokers]
    return draw(st.permutations(hand))


@settings(max_examples=250)
@given(st.lists(hands_with_jokers(), min_size=1, max_size=4),
       st.sampled_from(["standard", "river_rats"]),
       st.integers(0, 3), st.randoms(use_true_random=False))
def test_fast_evaluator_agrees_with_reference(rows, rules, pad, rnd):
    """Exact agreement (hence the same order) with the brute-force reference, padded rows."""
    width = max(len(r) for r in rows) + pad
    batch = np.full((len(rows), width), -1, dtype=np.int8)
    for i, row in enumerate(rows):
        slots = sorted(rnd.sample(range(width), len(row)))
        batch[i, slots] = row
    got = poker.evaluate(batch, rules)
    want = [best_strength(row, rules) for row in rows]
    assert got.tolist() == want


@settings(max_examples=60)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=10, unique=True),
       st.sampled_from(["standard", "river_rats"]))
def test_compiled_scalar_kernel_equals_batch(hand, rules):
    arr = np.array(hand, dtype=np.int64)
    code = poker.RULES[rules]
    assert poker.eval_hand(arr, len(hand), code) == poker.evaluate(arr[None, :], rules)[0]


def test_scalar_kernel_handles_more_than_ten_cards():
    """River Rats hands of 11+ cards (Rat hands with extra face-down cards)."""
    hand = P("2c 4d 6h 8s Tc Qd 3h 5s 7c 9d Jh Ks")
    assert poker.CATEGORY_NAMES[poker.eval_hand(hand.astype(np.int64), 12, 0) >> 20] == "straight"
    assert poker.eval_hand(hand, 12, 1) == best_strength(hand, "river_rats")


def test_agrees_in_order_with_phevaluator_on_random_seven_card_hands():
    phevaluator = pytest.importorskip("phevaluator")
    hands = cards.random_hands(20000, 7, seed=11)
    ours = poker.evaluate(hands)
    theirs = np.array([phevaluator.evaluate_cards(*row) for row in hands.tolist()])
    # phevaluator: lower is stronger. Same order <=> (ours, -theirs) pair up one-to-one and
    # sorting by ours sorts -theirs.
    order = np.argsort(ours, kind="stable")
    assert (np.diff(-theirs[order]) >= 0).all()
    assert np.unique(ours).size == np.unique(theirs).size == np.unique(
        np.stack([ours, theirs]), axis=1).shape[1]


def test_best_five_shows_the_cards_used_and_joker_stand_ins():
    five = poker.best_five("2c Kh Kd Ks 4c 4d 9h")
    assert cards.format(five) == "Ks Kh Kd 4d 4c"
    five, jokers = poker.best_five("Ah Kh Qh Jh X1 2c", return_jokers=True)
    assert cards.format(five) == "Ah Kh Qh Jh Th"
    assert jokers.tolist() == [-1, -1, -1, -1, 52]
    five = poker.best_five(P("Ac Ad Ah As X1"))
    assert cards.format(five) == "As Ah Ad Ac Ks"[:11] + cards.format(five)[11:]
    assert poker.evaluate(five[None, :])[0] == ev("Ac Ad Ah As X1")


@settings(max_examples=40)
@given(hands_with_jokers(), st.sampled_from(["standard", "river_rats"]))
def test_best_five_reaches_the_hand_strength(hand, rules):
    five = poker.best_five(np.array(hand), rules)
    assert five.shape == (5,) and len(set(five.tolist())) == 5 and five.max() < 52
    real = [c for c in hand if c < 52]
    assert all(c in real for c in five.tolist()) or len(real) < len(hand)
    assert poker.evaluate(five[None, :], rules)[0] == poker.evaluate(np.array([hand]), rules)[0]


def test_describe_names_the_deciding_ranks():
    assert poker.describe(ev("Kh Kc Kd 4h 4c")) == "full house, Ks full of 4s"
    assert poker.describe(ev("Ah 2c 3d 4h 5s")) == "straight, 5 high"


# The one-pass path for rows of exactly 5-7 cards (engines.poker.evaluator._FAST_ROWS) against the
# general kernel: the same rows with one empty column added take the general path only.

def _general(hands, rules):
    wide = np.full((hands.shape[0], hands.shape[1] + 1), -1, dtype=np.int64)
    wide[:, :-1] = hands
    return poker.evaluate(wide, rules)


@pytest.mark.parametrize("k", [5, 6, 7])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.int32, np.int64])
def test_one_pass_path_equals_the_general_kernel(k, dtype):
    hands = cards.random_hands(30000, k, seed=k).astype(dtype)
    for rules in ("standard", "river_rats"):
        assert (poker.evaluate(hands, rules) == _general(hands, rules)).all()


@settings(max_examples=120)
@given(st.integers(5, 7), st.integers(0, 199), st.integers(2, 4),
       st.sampled_from([np.int8, np.int16, np.int64]), st.randoms(use_true_random=False))
def test_one_pass_validation_finds_a_card_held_twice_or_more(k, row, copies, dtype, rnd):
    """A duplicate anywhere in a 5-7 column batch is named with its row, however many copies
    (the record sums add card bits, so copies carry into other bits: popcount drops)."""
    hands = cards.random_hands(200, k, seed=rnd.randrange(1000)).astype(dtype)
    cols = rnd.sample(range(k), copies)
    hands[row, cols] = hands[row, cols[0]]
    with pytest.raises(ValueError, match=f"bad hand in row {row}: duplicate card"):
        poker.evaluate(hands)


@pytest.mark.parametrize("dtype", [np.int16, np.int32, np.int64])
@pytest.mark.parametrize("bad", [54, 255, 256, 256 + 5, 2**15 - 1, -2])
def test_one_pass_path_names_ids_that_alias_a_card_as_a_byte(dtype, bad):
    """Ids wider than a byte are clamped, never wrapped: 261 is not card 5."""
    hands = cards.random_hands(50, 7, seed=3).astype(dtype)
    hands[17, 4] = bad
    with pytest.raises(ValueError, match=f"row 17: card id {bad} out of range"):
        poker.evaluate(hands)


def test_one_pass_path_hands_over_at_the_first_joker_or_empty_slot():
    hands = cards.random_hands(3000, 7, seed=5, n_jokers=1).astype(np.int16)
    plain = cards.random_hands(3000, 7, seed=6)
    hands[:1500] = plain[:1500]              # rows 0..1499 take the one-pass path
    hands[2000, 3] = -1                      # a 6-card row in the middle of the rest
    for rules in ("standard", "river_rats"):
        assert (poker.evaluate(hands, rules) == _general(hands, rules)).all()


def test_out_array_is_reused_and_checked():
    hands = cards.random_hands(100, 7, seed=1)
    buf = np.zeros(100, dtype=np.int32)
    assert poker.evaluate(hands, out=buf) is buf
    assert (buf == poker.evaluate(hands)).all()
    for bad in (np.zeros(100, np.int64), np.zeros(99, np.int32), np.zeros((100, 1), np.int32)):
        with pytest.raises(ValueError, match=r"out must be a writeable C-contiguous int32 array "
                                             r"of shape \(100,\)"):
            poker.evaluate(hands, out=bad)


@settings(max_examples=60)
@given(hands_with_jokers(), st.integers(0, 6), st.sampled_from(["standard", "river_rats"]))
def test_eval_at_reads_a_hand_inside_a_larger_array(hand, start, rules):
    """eval_at(cards, start, n) = eval_hand(cards[start:start + n], n) = the batch API."""
    state = np.full(start + len(hand) + 3, 7, dtype=np.int64)
    state[start:start + len(hand)] = hand
    code = poker.RULES[rules]
    want = poker.evaluate(np.array(hand)[None, :], rules)[0]
    assert poker.eval_at(state, start, len(hand), code) == want
    assert poker.eval_hand(state[start:], len(hand), code) == want
    assert poker.eval_hand(state[start:][::-1][::-1], len(hand), code) == want  # strided view
