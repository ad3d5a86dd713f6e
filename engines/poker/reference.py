"""Plain-Python reference poker evaluator: slow, obviously correct; the test oracle of
:mod:`engines.poker`.

Brute force: every 5-card subset of the hand, every way to turn its jokers into distinct cards
not in the hand, each 5-card hand ranked by counting ranks and suits. Strengths use the same packed
encoding as :mod:`engines.poker` (``category << 20`` then the deciding ranks, 4 bits each),
and the River Rats ranking (``docs/rules/river_rats.md``, "Hand ranking") keeps only the
highest card of a flush and the three of a full house.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

RULE_SETS = ("standard", "river_rats")


def rank_five(five: tuple[int, ...] | list[int]) -> tuple[int, tuple[int, ...]]:
    """(category 0..8, deciding ranks high to low) of exactly 5 distinct standard card ids."""
    ranks = sorted((c >> 2 for c in five), reverse=True)
    suits = {c & 3 for c in five}
    flush = len(suits) == 1
    distinct = sorted(set(ranks), reverse=True)
    straight_high = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_high = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:  # the wheel A-2-3-4-5 is five high
            straight_high = 3
    counts = Counter(ranks)
    groups = sorted(counts.items(), key=lambda rc: (rc[1], rc[0]), reverse=True)
    shape = [cnt for _, cnt in groups]
    by_group = tuple(r for r, _ in groups)
    if straight_high is not None and flush:
        return 8, (straight_high,)
    if shape == [4, 1]:
        return 7, by_group
    if shape == [3, 2]:
        return 6, by_group
    if flush:
        return 5, tuple(ranks)
    if straight_high is not None:
        return 4, (straight_high,)
    if shape == [3, 1, 1]:
        return 3, by_group
    if shape == [2, 2, 1]:
        return 2, by_group
    if shape == [2, 1, 1, 1]:
        return 1, by_group
    return 0, tuple(ranks)


def pack(category: int, deciding: tuple[int, ...], rules: str = "standard") -> int:
    """Packed strength of a (category, deciding ranks) pair under ``rules``."""
    if rules == "river_rats" and category in (5, 6):
        deciding = deciding[:1]
    v = category << 20
    for i, r in enumerate(deciding):
        v |= r << (16 - 4 * i)
    return v


def best_strength(cards, rules: str = "standard") -> int:
    """Strength of the best 5-card hand among ``cards`` (ids 0..53, jokers 52/53 wild).

    Raises ``ValueError`` for bad rules or fewer than 5 cards.
    """
    if rules not in RULE_SETS:
        raise ValueError(f"bad rules {rules!r}: expected one of {RULE_SETS}")
    cards = [int(c) for c in cards if int(c) != -1]
    if len(cards) < 5:
        raise ValueError(f"{len(cards)} cards: need at least 5")
    real = [c for c in cards if c < 52]
    free = [c for c in range(52) if c not in real]
    # Every 5-card subset of the hand, each joker in it standing for every card not in the hand
    # (distinct stand-ins). The same best as turning all jokers first and taking every subset
    # after: a joker outside the subset changes nothing in it, and the jokers left over can
    # always take other cards (a hand leaves out far more cards than it holds jokers).
    best = -1
    for five in combinations(cards, 5):
        real_five = [c for c in five if c < 52]
        for stand_ins in combinations(free, 5 - len(real_five)):
            best = max(best, pack(*rank_five(real_five + list(stand_ins)), rules=rules))
    return best
