"""Helpers of the Rats tests: hand-made positions, text moves, lead enumeration through the
card-by-card decisions, and random play."""

from __future__ import annotations

import numpy as np

from engines import cards

from engines.protocol import chance
from engines.rats import RatsConfig, RatsState, new_game
from engines.rats import core as C
from engines.rats.game import cards_to_mask


def mask(text: str) -> int:
    """Card mask of a text such as ``"7s 7h X1"`` (empty text = 0)."""
    return cards_to_mask(cards.parse(text).tolist()) if text.strip() else 0


def ids(m: int) -> list[int]:
    """Card ids of a card mask."""
    return [c for c in range(54) if (int(m) >> c) & 1]


def text(m: int) -> str:
    """Cards of a mask as text, by suit then rank (jokers last), e.g. ``"7h 7s X1"``."""
    return cards.format(sorted(ids(m), key=lambda c: (c >= 52, c & 3, c >> 2, c)))


def scenario(hands: list[str], leader: int = 0, kitty: str = "", round_no: int = 1,
             aside: list[str] | None = None, **config) -> RatsState:
    """A game at the start of a trick (leader to declare) with the given hands (cards not
    named are out of play)."""
    cfg = RatsConfig(n_players=len(hands), **config)
    g = RatsState(cfg, 0)
    st = g.state
    for p, h in enumerate(hands):
        st[C.HAND + p] = mask(h)
        st[C.ASIDE + p] = mask(aside[p]) if aside else 0
    st[C.KITTY] = mask(kitty)
    st[C.ROUND] = round_no
    st[C.HAND_SIZE] = C.popcount(st[C.HAND])
    st[C.CUR] = leader
    st[C.LEADER] = leader
    st[C.FIRST_LEADER] = leader
    return g


def play(g: RatsState, *moves: str) -> None:
    """Apply moves given as text (each through :meth:`RatsState.parse_move`)."""
    for m in moves:
        for a in g.parse_move(m):
            g.apply_action(a)


def legal(s: np.ndarray) -> list[int]:
    """Legal actions of a core state (ints)."""
    out = np.empty(C.MAX_LEGAL, dtype=np.int64)
    return out[:C.legal_actions(s, out)].tolist()


def tree_leads(s: np.ndarray) -> set[tuple[int, int]]:
    """Every lead reachable through the card-by-card decisions from a declare state ``s``, as
    ``(kind, card mask)``; checks on the way that each legal list is ascending and distinct,
    that a build state always has a legal action, and the completion rule: a lead ends by
    itself (right after a card) iff it is a single or it emptied the leader's hand, and every
    other lead ends with a FINISH decision (even when FINISH is the only legal action)."""
    assert s[C.PHASE] == C.PHASE_DECLARE
    p = int(s[C.CUR])
    found = set()
    for k in legal(s):
        t = s.copy()
        C.apply_action(t, k)
        stack = [(t, k)]
        while stack:
            u, last = stack.pop()
            if u[C.PHASE] != C.PHASE_BUILD:
                lead = int(u[C.TABLE + p])
                by_itself = last != C.FINISH
                assert by_itself == (k == C.LEAD_SINGLE or u[C.HAND + p] == 0), (
                    f"lead {lead:#x} of kind {k} ended {'by itself' if by_itself else 'by FINISH'}")
                found.add((k - C.LEAD_SINGLE, lead))
                continue
            assert u[C.HAND + p] != 0, "a lead that empties the hand must complete by itself"
            acts = legal(u)
            assert acts and acts == sorted(set(acts)), acts
            for a in acts:
                v = u.copy()
                C.apply_action(v, a)
                stack.append((v, a))
    return found


def generated_leads(hand: int, ace_high: int) -> set[tuple[int, int]]:
    """``generate_leads`` of a hand as a set of ``(kind, card mask)`` (checks no duplicates)."""
    buf = np.empty(C.MAX_LEADS, dtype=np.int64)
    n = C.generate_leads(hand, ace_high, buf)
    out = {(int(a) >> C.KIND_SHIFT, int(a) & C.CARD_BITS) for a in buf[:n]}
    assert len(out) == n
    return out


def lead_texts(g: RatsState) -> set[str]:
    """Every lead the player to act (about to declare) may make, as ``"set 7h 7s X1"``."""
    return {f"{C.KIND_NAMES[k]} {text(m)}" for k, m in tree_leads(g.state)}


def i64(x: int) -> np.int64:
    """A Python int (signed or unsigned 64-bit) as its ``int64`` bit pattern."""
    x &= (1 << 64) - 1
    return np.int64(x - (1 << 64) if x >= 1 << 63 else x)


def random_walk(n_players: int, seed: int, every: int = 1, **options) -> list[RatsState]:
    """A game played with uniformly random decisions to the end; returns every ``every``-th
    state passed (step-API objects, cloned), the last one included."""
    g = new_game(RatsConfig(n_players=n_players, **options), seed)
    rng = np.array([chance.seat_seed(chance.as_word(seed), 7)], dtype=np.int64)
    out = [g.clone()]
    k = 0
    while not g.is_terminal():
        acts = g.legal_actions()
        g.apply_action(acts[chance.rand_below(rng, 0, len(acts))])
        k += 1
        if k % every == 0:
            out.append(g.clone())
    if k % every:
        out.append(g.clone())
    return out
