"""Builders of hand-made Rats positions for the scenario tests."""

from __future__ import annotations

from engines import cards
from engines.rats import RatsConfig, RatsGame
from engines.rats import core as C
from engines.rats.game import cards_to_mask


def mask(text: str) -> int:
    """Card mask of a text such as ``"7s 7h X1"`` (empty text = 0)."""
    return cards_to_mask(cards.parse(text).tolist()) if text.strip() else 0


def scenario(hands: list[str], leader: int = 0, kitty: str = "", round_no: int = 1,
             aside: list[str] | None = None, **config) -> RatsGame:
    """A game at the start of a trick with the given hands (cards not named are out of play)."""
    cfg = RatsConfig(n_players=len(hands), **config)
    st = C.init_state(cfg.to_array(), 0)
    for p, h in enumerate(hands):
        st[C.HAND + p] = mask(h)
        st[C.ASIDE + p] = mask(aside[p]) if aside else 0
    st[C.KITTY] = mask(kitty)
    st[C.ROUND] = round_no
    st[C.HAND_SIZE] = C.popcount(st[C.HAND])
    st[C.CUR] = leader
    st[C.LEADER] = leader
    st[C.FIRST_LEADER] = leader
    return RatsGame(cfg, 0, 0, st)
