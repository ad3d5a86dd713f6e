"""The trick-winner rule of Rats (rules/rats.md "Tricks", "Who takes the trick") as a pure
function: named scenarios, then exhaustive agreement with the plain-Python reference."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import rats_reference as ref

from engines import cards
from engines.rats import core as C
from engines.rats.core import trick_winner
from rats_scenarios import mask


def winner(kind, plays, ace_high=0, strongest=1, jpr=12, tie_later=1):
    """Seat index (= play order) of the winner of plays given as text, the lead first."""
    table = np.array([mask(p) for p in plays], dtype=np.int64)
    order = np.arange(len(plays), dtype=np.int64)
    return trick_winner(kind, table, order, len(plays), ace_high, strongest, jpr, tie_later)


def test_single_highest_card_of_led_suit_wins():
    """Single: the highest card of the led suit wins; higher off-suit cards do not."""
    assert winner(C.KIND_SINGLE, ["7h", "As", "9h", "Kc"]) == 2


def test_single_lone_joker_never_wins():
    """Single: a lone joker is the weakest single and never takes the trick."""
    assert winner(C.KIND_SINGLE, ["2h", "X1", "X2"]) == 0


def test_single_leader_keeps_trick_if_nobody_follows_suit():
    assert winner(C.KIND_SINGLE, ["2d", "Ah", "Ac", "As"]) == 0


def test_joker_only_lead_highest_natural_wins():
    """Engine decision JOKER_ONLY_LEAD: a led lone joker leaves no led suit; rank then suit."""
    assert winner(C.KIND_SINGLE, ["X1", "9c", "9s", "4h"]) == 2
    assert winner(C.KIND_SINGLE, ["X1", "X2"]) == 0


def test_set_highest_rank_wins():
    assert winner(C.KIND_SET, ["5s 5h", "Kc Kd", "Qs Qh"]) == 1


def test_set_equal_rank_later_play_wins():
    """Set: between sets of equal rank the later play wins."""
    assert winner(C.KIND_SET, ["9s 9h", "9c 9d", "2s 2h"]) == 1
    assert winner(C.KIND_SET, ["9s 9h", "9c X1"]) == 1


def test_set_with_joker_takes_rank_of_naturals():
    """[decision] a set with jokers takes the rank of its natural cards."""
    assert winner(C.KIND_SET, ["Ks Kh", "4c X1"]) == 0


def test_all_joker_set_ranks_as_ace_by_default():
    """[decision] an all-joker set takes the highest rank (A); joker_pair_rank changes it."""
    assert winner(C.KIND_SET, ["Ks Kh", "X1 X2"]) == 1
    assert winner(C.KIND_SET, ["As Ah", "X1 X2"]) == 1  # equal rank: later wins
    assert winner(C.KIND_SET, ["Ks Kh", "X1 X2"], jpr=0) == 0


def test_set_follower_not_matching_cannot_win():
    """A play that does not match the lead's kind cannot win."""
    assert winner(C.KIND_SET, ["3s 3h", "As Kd"]) == 0


def test_sequence_stronger_suit_beats_higher_top():
    """Sequences: suit first; diamonds 2-3-4 beats clubs J-Q-K (the rules' example)."""
    assert winner(C.KIND_SEQ, ["Jc Qc Kc", "2d 3d 4d"]) == 1


def test_sequence_same_suit_higher_top_wins():
    assert winner(C.KIND_SEQ, ["5h 6h 7h", "8h 9h Th", "2h 3h 4h"]) == 1


def test_sequence_ace_counts_low_only():
    """A-2-3 is a sequence; Q-K-A is not ([decision], unless ace_high_sequences)."""
    assert C.sequence_strength(mask("Ad 2d 3d"), 0, 1) == 16 * 1 + 2
    assert C.sequence_strength(mask("Qd Kd Ad"), 0, 1) == -1
    assert C.sequence_strength(mask("Qd Kd Ad"), 1, 1) == 16 * 1 + 13
    assert C.sequence_strength(mask("Kd Ad 2d"), 1, 1) == -1  # no wrap-around
    assert winner(C.KIND_SEQ, ["2c 3c 4c", "Qc Kc Ac"]) == 0
    assert winner(C.KIND_SEQ, ["2c 3c 4c", "Qc Kc Ac"], ace_high=1) == 1


def test_sequence_with_joker_read_as_strongest():
    """[decision] a sequence with jokers is read as the strongest consistent sequence."""
    # 8h 9h X1 reads 8-9-10 (top 10), beating 7h 8h 9h; weakest reading 7-8-9 ties and the
    # later play still wins the tie
    assert C.sequence_strength(mask("8h 9h X1"), 0, 1) == 16 * 2 + 9
    assert C.sequence_strength(mask("8h 9h X1"), 0, 0) == 16 * 2 + 8
    assert winner(C.KIND_SEQ, ["8h 9h X1", "7h 8h 9h"]) == 0
    assert winner(C.KIND_SEQ, ["8h 9h X1", "7h 8h 9h"], strongest=0) == 1


def test_sequence_tie_later_or_earlier():
    """[decision] equal sequences (only with jokers): later play by default, option earlier."""
    plays = ["5s 6s 7s", "5s X1 7s"]
    assert winner(C.KIND_SEQ, ["6s 7s X1", "6s X1 8s"]) == 1
    assert winner(C.KIND_SEQ, ["6s 7s X1", "6s X1 8s"], tie_later=0) == 0
    assert len(plays) == 2


def test_sequence_needs_one_suit_and_three_cards():
    assert C.sequence_strength(mask("5s 6h 7s"), 0, 1) == -1
    assert C.sequence_strength(mask("5s 6s"), 0, 1) == -1
    assert C.sequence_strength(mask("5s X1 X2"), 0, 1) == 16 * 3 + 6


def test_trick_winner_uses_play_order_not_seats():
    """Later/earlier refers to play order: seats 2, 0, 1 play in that order."""
    table = np.array([mask("9c 9d"), mask("4s 4h"), mask("9s 9h")], dtype=np.int64)
    order = np.array([2, 0, 1], dtype=np.int64)
    assert trick_winner(C.KIND_SET, table, order, 3, 0, 1, 12, 1) == 0


def test_invalid_lead_returns_minus_one():
    assert winner(C.KIND_SET, ["9s 8h", "9c 9d"]) == -1


def _all_plays(kind, size, ace_high=False):
    """Every play of ``size`` cards that is a lead of ``kind`` from the full 54-card deck."""
    out = np.empty(C.MAX_LEADS, dtype=np.int64)
    n = C.generate_leads((1 << 54) - 1, ace_high, out)
    return [int(a) & C.CARD_BITS for a in out[:n]
            if (int(a) >> C.KIND_SHIFT) == kind and C.popcount(int(a) & C.CARD_BITS) == size]


def _ids(m):
    return [c for c in range(54) if (m >> c) & 1]


def test_exhaustive_singles_against_reference():
    """Every (lead, follower) pair of single cards: kernel = reference."""
    for lead in range(52):
        for f in range(54):
            if f == lead:
                continue
            table = np.array([1 << lead, 1 << f], dtype=np.int64)
            got = trick_winner(C.KIND_SINGLE, table, np.arange(2), 2, 0, 1, 12, 1)
            assert got == ref.trick_winner(0, [[lead], [f]]), (lead, f)


@pytest.mark.parametrize("kind,size", [(C.KIND_SET, 2), (C.KIND_SEQ, 3)])
def test_exhaustive_pairs_of_plays_against_reference(kind, size):
    """Every ordered pair of {2-card sets | 3-card sequences} (jokers included) as lead and
    follower: the kernel's winner equals the reference's, under both tie options."""
    plays = _all_plays(kind, size)
    assert len(plays) > 100
    if kind == C.KIND_SET:
        strengths = [ref.set_rank(_ids(m)) for m in plays]
    else:
        strengths = [ref.sequence_strength(_ids(m)) for m in plays]
    assert min(strengths) >= 0
    for m, s in zip(plays, strengths, strict=True):
        got = C.set_rank(m, 12) if kind == C.KIND_SET else C.sequence_strength(m, 0, 1)
        assert got == s, _ids(m)
    for tie_later in (0, 1):
        for (i, a), (j, b) in itertools.product(enumerate(plays), repeat=2):
            if a & b:
                continue
            table = np.array([a, b], dtype=np.int64)
            got = trick_winner(kind, table, np.arange(2), 2, 0, 1, 12, tie_later)
            sa, sb = strengths[i], strengths[j]
            expect = 1 if (sb > sa or (sb == sa and (kind == C.KIND_SET or tie_later))) else 0
            assert got == expect, (cards.format(_ids(a)), cards.format(_ids(b)))


@pytest.mark.slow
@pytest.mark.parametrize("ace_high", [False, True])
def test_exhaustive_sequence_reading_against_reference(ace_high):
    """Every sequence lead of the full deck up to 5 cards: kernel reading = reference reading,
    for both reading options."""
    out = np.empty(1 << 17, dtype=np.int64)
    n = C.generate_leads((1 << 54) - 1, ace_high, out)
    seqs = [int(a) & C.CARD_BITS for a in out[:n] if (int(a) >> C.KIND_SHIFT) == C.KIND_SEQ
            and C.popcount(int(a) & C.CARD_BITS) <= 5]
    assert len(seqs) > 500
    for m in seqs:
        for strongest in (0, 1):
            assert C.sequence_strength(m, ace_high, strongest) == ref.sequence_strength(
                _ids(m), ace_high, bool(strongest)), _ids(m)


def test_lead_buffer_bounds_every_hand():
    """MAX_LEADS covers the leads of the whole deck, hence of every hand (6,614 and 7,742)."""
    out = np.empty(1 << 14, dtype=np.int64)
    assert C.generate_leads((1 << 54) - 1, 0, out) == 6614
    assert C.generate_leads((1 << 54) - 1, 1, out) == 7742 <= C.MAX_LEADS
