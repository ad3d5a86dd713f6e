"""Helpers for Lure scenario tests: small custom decks, token set-up, table set-up."""

from __future__ import annotations

from engines.lure import core as C
from engines.lure.config import LURE_KINDS, LureConfig
from engines.lure.decks import deck_from_rows
from engines.lure.game import LureState


def card(cid, cn=0, req="", pts=1, splash="", trophy="", cset="base"):
    """One deck row."""
    return {"id": cid, "name": cid, "points": pts, "catch_number": cn, "requirements": req,
            "splash": splash, "trophy": trophy, "set": cset}


def make(rows, n=2, seed=0, **cfg) -> LureState:
    """A game on a custom deck."""
    return LureState(LureConfig(n_players=n, deck=deck_from_rows(rows, "<test>"), **cfg), seed)


def give(game: LureState, p: int, kind: str, n: int = 1) -> None:
    """Move ``n`` tokens of ``kind`` from the bag to player ``p`` (tokens stay conserved)."""
    k = LURE_KINDS.index(kind)
    s = game.state
    assert s[C.H_BAG + k] >= n
    s[C.H_BAG + k] -= n
    s[C.H_BAGN] -= n
    b = C.PB + p * C.PSTRIDE
    s[b + C.P_HELD + k] += n
    s[b + C.P_NHELD] += n


def field(game: LureState, p: int, off: int) -> int:
    """A player-block field."""
    return int(game.state[C.PB + p * C.PSTRIDE + off])


def plain_deck(n, cn=0, req="", pts=1, prefix="F"):
    return [card(f"{prefix}{i:02d}", cn, req, pts) for i in range(n)]


def set_table(game: LureState, ids) -> None:
    """Put exactly the cards ``ids`` on the table (they leave the draw pile; the cards that were
    on the table go back to the bottom of the draw pile)."""
    s = game.state
    want = [game.deck.index(i) for i in ids]
    old = [int(c) for c in s[C.TABLE:C.TABLE + s[C.H_NTABLE]]]
    pos, n = int(s[C.H_DRAWPOS]), int(s[C.H_NDRAW])
    pile = [int(c) for c in s[C.DRAW + pos:C.DRAW + pos + n] if int(c) not in want]
    pile += [c for c in old if c not in want]
    for i, c in enumerate(pile):
        s[C.DRAW + pos + i] = c
        s[C.LOC + c] = C.LOC_DECK
    s[C.H_NDRAW] = len(pile)
    s[C.H_FINAL] = int(len(pile) == 0)
    for i, c in enumerate(want):
        s[C.TABLE + i] = c
        s[C.LOC + c] = C.LOC_TABLE
    s[C.H_NTABLE] = len(want)


def tokens_total(game: LureState) -> int:
    """Lure tokens in bag + discard + held + cast + kept (conserved: the mix)."""
    import numpy as np

    inv = np.zeros(C.INVENTORY_SIZE, np.int64)
    C.inventory(game.state, inv)
    return int(inv[C.MAXC:].sum())


def cast_all(game: LureState, *moves: str) -> None:
    """Play one whole cast move per text, for the players in turn."""
    for m in moves:
        game.play_move(m)
