"""Scenario helpers for the River Rats tests: move cards between piles of a state array while
keeping every card in exactly one pile, and force a resolution with chosen hands."""

from __future__ import annotations

import numpy as np

from engines import cards
from engines.river_rats import core as C

PILE_BASES = np.array([b for _, b, _ in C.CARD_PILES], dtype=np.int64)
PILE_CAPS = np.array([cap for _, _, cap in C.CARD_PILES], dtype=np.int64)


def ids(text: str) -> list[int]:
    """Card ids of a text such as ``"Ah Kd 2c"``."""
    return [int(c) for c in cards.parse(text)]


def pile(a: np.ndarray, base: int) -> list[int]:
    return [int(x) for x in a[base + 1: base + 1 + int(a[base])]]


def where(a: np.ndarray, c: int) -> int:
    """Base of the pile holding card ``c``."""
    for b in PILE_BASES:
        if c in pile(a, int(b)):
            return int(b)
    raise AssertionError(f"card {c} is nowhere")


def take(a: np.ndarray, c: int) -> None:
    """Remove card ``c`` from its pile (keeping the Rat's face-up flags aligned)."""
    b = where(a, c)
    cs = pile(a, b)
    i = cs.index(c)
    if b == C.RAT:
        ups = [int(x) for x in a[C.RAT_UP: C.RAT_UP + len(cs)]]
        del ups[i]
        a[C.RAT_UP: C.RAT_UP + len(cs)] = ups + [0]
    del cs[i]
    a[b] = len(cs)
    a[b + 1: b + 1 + len(cs)] = cs


PROTECTED = (C.STAKE, C.PDEBT, C.RDEBT, C.CHARS, C.ASIDE, C.JSUP, C.JUP, C.OUT)


def put(a: np.ndarray, c: int, base: int, up: bool = True) -> None:
    """Move card ``c`` onto the top of the pile at ``base`` (face up/down in the Rat's hand).
    A standard card taken from a protected pile (stake, debts, characters, ...) is replaced
    there by a deck card, so those piles keep their meaning."""
    src = where(a, c)
    if src in PROTECTED and src != base and c < 52 and base not in PROTECTED:
        r = next(x for x in pile(a, C.DECK) if x != c)
        cs = pile(a, src)
        take(a, r)
        cs[cs.index(c)] = r
        a[src + 1: src + 1 + len(cs)] = cs
        n = int(a[base])
        a[base + 1 + n] = c
        a[base] = n + 1
        if base == C.RAT:
            a[C.RAT_UP + n] = 1 if up else 0
        return
    take(a, c)
    n = int(a[base])
    a[base + 1 + n] = c
    a[base] = n + 1
    if base == C.RAT:
        a[C.RAT_UP + n] = 1 if up else 0


def clear(a: np.ndarray, base: int, to: int = C.DISCARD, keep=()) -> None:
    """Move every card of a pile (except ``keep``) to ``to``."""
    for c in pile(a, base):
        if c not in keep:
            put(a, c, to)


def stack_deck(a: np.ndarray, draw_order: list[int]) -> None:
    """Put cards on top of the deck so that ``draw_order[0]`` is drawn first."""
    for c in reversed(draw_order):
        put(a, c, C.DECK)


def set_hand(a: np.ndarray, p: int, hand: list[int]) -> None:
    clear(a, C.hand_base(p))
    for c in hand:
        put(a, c, C.hand_base(p))


def set_rat(a: np.ndarray, up: list[int], down: list[int] = ()) -> None:
    """The Rat's hand: its King(s) stay, then ``up`` face up and ``down`` face down."""
    kings = [c for c in pile(a, C.RAT) if C.is_rat_king(a, c)]
    clear(a, C.RAT, keep=kings)
    for c in up:
        put(a, c, C.RAT, True)
    for c in down:
        put(a, c, C.RAT, False)


def to_play_phase(a: np.ndarray, p: int) -> None:
    """Make it seat ``p``'s turn, in the play phase after drawing (no joker option)."""
    a[C.CUR] = p
    a[C.PHASE] = C.PH_PLAY
    a[C.DRAWN] = 1
    a[C.PLAYED] = -1


def resolve_with(st, players: list[int], rat_up: list[int], rat_down: list[int] = ()):
    """Force the next resolution: the collective hand becomes ``players`` (the last card is
    played by the current seat, with no action), the Rat's non-King cards ``rat_up`` /
    ``rat_down``. Returns the state after the resolution."""
    a = st.array
    p = int(a[C.CUR])
    clear(a, C.COLL, keep=players)
    a[C.COLL_FD] = 0
    set_rat(a, rat_up, rat_down)
    for c in players[:-1]:
        if c not in pile(a, C.COLL):
            put(a, c, C.COLL)
    set_hand(a, p, [players[-1]])
    to_play_phase(a, p)
    st.apply_action(C.K_PLAY * 64 + players[-1])
    if a[C.PHASE] == C.PH_ACTION:
        st.apply_action(C.K_NONE * 64)
    return st


def card_counts(a: np.ndarray) -> np.ndarray:
    """How many piles hold each of the 54 cards."""
    cnt = np.zeros(54, dtype=np.int64)
    for b in PILE_BASES:
        for c in pile(a, int(b)):
            cnt[c] += 1
    return cnt
