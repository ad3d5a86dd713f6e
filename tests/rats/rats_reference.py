"""A slow, obviously-correct plain-Python reading of the Rats trick rules (``rules/rats.md``),
used as the test oracle of the compiled kernels in :mod:`engines.rats.core`."""

from __future__ import annotations

from itertools import combinations

JOKERS = (52, 53)


def position_options(card: int, ace_high: bool) -> list[int]:
    """Sequence positions a natural card may take: ace 0 (and 13 if ace_high), 2 -> 1, ..."""
    r = card // 4
    if r == 12:
        return [0, 13] if ace_high else [0]
    return [r + 1]


def set_rank(cards, joker_pair_rank=12):
    """Rank of a set (2+ cards, naturals of one rank, jokers wild) or -1."""
    if len(cards) < 2:
        return -1
    nat = [c for c in cards if c not in JOKERS]
    if not nat:
        return joker_pair_rank
    ranks = {c // 4 for c in nat}
    return ranks.pop() if len(ranks) == 1 else -1


def _place(nat, i, used, window, ace_high):
    """True if natural cards ``nat[i:]`` each find their own free position in ``window``."""
    if i == len(nat):
        return True
    for pos in position_options(nat[i], ace_high):
        if pos in window and pos not in used:
            if _place(nat, i + 1, used | {pos}, window, ace_high):
                return True
    return False


def sequence_strength(cards, ace_high=False, strongest=True):
    """16 * suit + top of the strongest (or weakest) window that the cards fill, or -1.

    Tries every window of length len(cards) inside the allowed positions and every placement
    of the ace; jokers fill the positions the natural cards leave empty.
    """
    n_len = len(cards)
    nat = [c for c in cards if c not in JOKERS]
    if n_len < 3 or not nat or n_len > 13:
        return -1
    suits = {c % 4 for c in nat}
    if len(suits) != 1:
        return -1
    suit = suits.pop()
    limit = 13 if ace_high else 12
    tops = []
    for start in range(0, limit - n_len + 2):
        window = set(range(start, start + n_len))
        if 0 in window and 13 in window:
            continue
        if _place(nat, 0, frozenset(), window, ace_high):
            tops.append(start + n_len - 1)
    if not tops:
        return -1
    return 16 * suit + (max(tops) if strongest else min(tops))


def leads(hand, ace_high=False):
    """Every legal lead of a hand as a set of (kind, frozenset(cards)); kind 0/1/2 =
    single/set/sequence. A lead with one joker uses the lowest joker of the hand."""
    hand = sorted(hand)
    held_jokers = [j for j in JOKERS if j in hand]
    out = set()
    if len(hand) == 1 and hand[0] in JOKERS:
        return {(0, frozenset(hand))}
    for k in range(1, len(hand) + 1):
        for combo in combinations(hand, k):
            js = [c for c in combo if c in JOKERS]
            if len(js) == 1 and js[0] != held_jokers[0]:
                continue
            if k == 1:
                if combo[0] not in JOKERS:
                    out.add((0, frozenset(combo)))
                continue
            if set_rank(combo) >= 0:
                out.add((1, frozenset(combo)))
            if sequence_strength(combo, ace_high) >= 0:
                out.add((2, frozenset(combo)))
    return out


def trick_winner(kind, plays, ace_high=False, strongest=True, joker_pair_rank=12, tie_later=True):
    """Index (in play order) of the play that takes the trick; ``plays`` = list of card lists,
    the lead first."""
    def strength(cards):
        if kind == 0:
            c = cards[0]
            if c in JOKERS:
                return -1
            lead = plays[0][0]
            if lead in JOKERS:
                return 4 * (c // 4) + c % 4
            return c // 4 if c % 4 == lead % 4 else -1
        if kind == 1:
            return set_rank(cards, joker_pair_rank)
        return sequence_strength(cards, ace_high, strongest)

    best_i, best = 0, strength(plays[0])
    for i in range(1, len(plays)):
        s = strength(plays[i])
        if s < 0:
            continue
        if s > best or (s == best and (kind == 1 or (kind == 2 and tie_later))):
            best_i, best = i, s
    return best_i
