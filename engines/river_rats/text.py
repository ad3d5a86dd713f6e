"""Text of River Rats actions and tables (the step API's ``action_to_string`` and ``__str__``).

Pure Python over the flat state of :mod:`engines.river_rats.core`; nothing here changes state.
"""

from __future__ import annotations

import numpy as np

from engines import cards
from engines.poker import CATEGORY_NAMES, describe
from engines.river_rats import core

SUIT_SYMBOLS = "♣♦♥♠"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")


def card_text(c: int) -> str:
    """``"Ah"``-style text of a card id (``"X1"``/``"X2"`` for jokers)."""
    return cards.format_card(int(c))


def pile(s: np.ndarray, base: int) -> list[int]:
    """Cards of the pile at ``base`` as a list of ints (bottom first)."""
    return [int(x) for x in s[base + 1: base + 1 + int(s[base])]]


def action_to_string(s: np.ndarray, action: int) -> str:
    """Readable text of ``action`` in state ``s`` (e.g. ``"draw 7h from the market"``,
    ``"play Qs"``, ``"♥ power: turn a face-down Rat card up"``). Raises ``ValueError`` for an
    action number whose kind does not exist."""
    a = int(action)
    k, arg = a >> 6, a & 63
    if not 0 <= k < core.N_KINDS or a < 0:
        raise ValueError(f"bad action {a}: kind {k} does not exist "
                         f"(expected 0..{core.N_KINDS - 1})")
    ct = card_text(arg) if arg < 54 else "the top deck card"
    if k == core.K_DRAW_MARKET:
        return f"draw {ct} from the market"
    if k == core.K_DRAW_DECK:
        return "draw from the deck"
    if k == core.K_PLAY:
        return f"play {ct}" + (" face down" if core.facedown_pending(s) else "")
    if k == core.K_JOKER:
        return "play a joker"
    if k == core.K_JREMOVE:
        if arg < int(s[core.RAT]) and s[core.RAT_UP + arg] == 1:
            return f"joker: remove {card_text(s[core.RAT + 1 + arg])} from the Rat's hand"
        return "joker: remove a face-down card from the Rat's hand"
    if k == core.K_NONE:
        return "no action"
    if k in (core.K_PUSH, core.K_PPUSH):
        who = "♣ power" if k == core.K_PPUSH else "♣ action"
        return f"{who}: put {ct} into the market"
    if k in (core.K_SWAP_OUT, core.K_PSWAP_OUT):
        who = "♦ power" if k == core.K_PSWAP_OUT else "♦ action"
        src = "the market" if k == core.K_PSWAP_OUT else "your hand"
        return f"{who}: swap {ct} out of the collective hand (for a card from {src})"
    if k == core.K_SWAP_IN:
        return f"♦ action: swap {ct} in from your hand"
    if k == core.K_PSWAP_IN:
        return f"♦ power: swap {ct} in from the market"
    if k == core.K_STAKE:
        return "♥ action: add the top deck card to the stake"
    if k == core.K_DISCARD:
        return f"♠ action: discard {ct}"
    if k == core.K_PREVEAL:
        return "♥ power: turn a face-down Rat card face up"
    if k == core.K_PSTAKE:
        return "♥ power: add 1 debt card to the stake"
    if k == core.K_PDISCARD:
        return f"♠ power: discard {ct}"
    if k == core.K_STOP:
        return "stop"
    if k == core.K_EREVEAL:
        return "joker: reveal the top deck card into the collective hand"
    if k == core.K_ESTOP:
        return "stop revealing" if s[core.PHASE] == core.PH_EXPERT2 else "keep the joker"
    return "pass (no card to play)"


def _cards_str(xs) -> str:
    return " ".join(card_text(c) for c in xs) if xs else "-"


def table_string(s: np.ndarray, viewer: int | None = None) -> str:
    """Readable table of the game. ``viewer=None`` shows every card (an omniscient view);
    a seat number hides what that seat may not see (other hands, the Rat's face-down cards,
    other players' face-down card)."""
    n = int(s[core.N_PLAYERS])
    lines = []
    status = {core.RUNNING: "running", core.WON: "WON", core.LOST: "LOST"}[int(s[core.STATUS])]
    if s[core.STATUS] == core.LOST:
        reason = ("", "players' debt", "stalled", "no card to draw")[int(s[core.LOSS_REASON])]
        status += f" ({reason})"
    active = int(s[core.ACTIVE])
    rats = f"{SUIT_SYMBOLS[active]}K active"
    if s[core.WAITING] >= 0:
        rats += ", 1 waiting face down" if viewer is not None else \
            f", {SUIT_SYMBOLS[int(s[core.WAITING])]}K waiting"
    # while running: the round being played; at the end: the rounds played (as in the record)
    when = (f"round {int(s[core.ROUND]) + 1}" if s[core.STATUS] == core.RUNNING
            else f"after {int(s[core.ROUND])} round{'s' if s[core.ROUND] != 1 else ''}")
    lines.append(f"River Rats: {when}, {status}; Rats: {rats}; "
                 f"defeated {int(s[core.DEFEATED])}")
    rat_cards = []
    for i in range(int(s[core.RAT])):
        c = int(s[core.RAT + 1 + i])
        up = s[core.RAT_UP + i] == 1
        rat_cards.append(card_text(c) if up or viewer is None else "??")
        if not up and viewer is None:
            rat_cards[-1] = f"({card_text(c)})"
    lines.append(f"Rat's hand: {' '.join(rat_cards)}   debt {int(s[core.RDEBT])}/5")
    pred = int(s[core.PRED_CARD])
    pred_txt = (f"{card_text(pred)} -> {CATEGORY_NAMES[int(s[core.PRED_CAT])]}" if pred >= 0
                else "-")
    lines.append(f"Prediction: {pred_txt}   stake {int(s[core.STAKE])}   "
                 f"jokers: {int(s[core.JUP])} up, {int(s[core.JOKERS_EARNED])}/2 earned")
    coll = []
    for i in range(int(s[core.COLL])):
        c = int(s[core.COLL + 1 + i])
        if i == 0 and s[core.COLL_FD] == 1:
            own = viewer is None or int(s[core.FD_OWNER]) == viewer
            coll.append(f"[{card_text(c)}]" if own else "[??]")
        else:
            coll.append(card_text(c))
    rev = pile(s, core.REVEAL)
    extra = f" + revealed {_cards_str(rev)}" if rev else ""
    lines.append(f"Collective hand ({int(s[core.COLL])}/{int(s[core.TARGET])}): "
                 f"{' '.join(coll) if coll else '-'}{extra}")
    lines.append(f"Market ({int(s[core.MARKET])}, capacity {int(s[core.MARKET_CAP])}): "
                 f"{_cards_str(pile(s, core.MARKET))}")
    lines.append(f"Deck {int(s[core.DECK])}   discard {int(s[core.DISCARD])}   "
                 f"players' debt {int(s[core.PDEBT])}/5")
    for p in range(n):
        hb = core.HAND0 + core.HAND_STRIDE * p
        h = pile(s, hb)
        shown = _cards_str(h) if viewer is None or viewer == p else f"{len(h)} cards"
        mark = "->" if p == int(s[core.CUR]) and s[core.STATUS] == core.RUNNING else "  "
        lines.append(f"{mark} seat {p} ({SUIT_SYMBOLS[int(s[core.CHAR0 + p])]}A): {shown}")
    if s[core.LAST_WINNER] >= 0:
        lines.append(last_resolution_string(s))
    return "\n".join(lines)


def last_resolution_string(s: np.ndarray) -> str:
    """One line describing the last resolved collective hand (empty before the first)."""
    if s[core.LAST_WINNER] < 0:
        return ""
    who = "players" if s[core.LAST_WINNER] == 0 else "Rat"
    pred = ", prediction made: joker earned" if s[core.LAST_PRED] else ""
    bust = ", expert joker went bust" if s[core.LAST_BUST] else ""
    return (f"Last hand: players {_cards_str(pile(s, core.LAST_COLL))} "
            f"({describe(int(s[core.LAST_P]))})"
            f" vs Rat {_cards_str(pile(s, core.LAST_RAT))} ({describe(int(s[core.LAST_R]))}): "
            f"{who} won{pred}{bust}")
