"""Text of River Rats actions and tables (the step API's ``action_to_string`` and ``__str__``).

Pure Python over the flat state of :mod:`engines.river_rats.core`; nothing here changes state.
"""

from __future__ import annotations

import numpy as np

from engines import cards
from engines.poker import CATEGORY_NAMES, describe
from engines.river_rats import core as C

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
    if not 0 <= k < C.N_KINDS or a < 0:
        raise ValueError(f"bad action {a}: kind {k} does not exist (expected 0..{C.N_KINDS - 1})")
    ct = card_text(arg) if arg < 54 else "the top deck card"
    if k == C.K_DRAW_MARKET:
        return f"draw {ct} from the market"
    if k == C.K_DRAW_DECK:
        return "draw from the deck"
    if k == C.K_PLAY:
        return f"play {ct}" + (" face down" if C.facedown_pending(s) else "")
    if k == C.K_JOKER:
        return "play a joker"
    if k == C.K_JREMOVE:
        if arg < int(s[C.RAT]) and s[C.RAT_UP + arg] == 1:
            return f"joker: remove {card_text(s[C.RAT + 1 + arg])} from the Rat's hand"
        return "joker: remove a face-down card from the Rat's hand"
    if k == C.K_NONE:
        return "no action"
    if k in (C.K_PUSH, C.K_PPUSH):
        who = "♣ power" if k == C.K_PPUSH else "♣ action"
        return f"{who}: put {ct} into the market"
    if k in (C.K_SWAP_OUT, C.K_PSWAP_OUT):
        who = "♦ power" if k == C.K_PSWAP_OUT else "♦ action"
        src = "the market" if k == C.K_PSWAP_OUT else "your hand"
        return f"{who}: swap {ct} out of the collective hand (for a card from {src})"
    if k == C.K_SWAP_IN:
        return f"♦ action: swap {ct} in from your hand"
    if k == C.K_PSWAP_IN:
        return f"♦ power: swap {ct} in from the market"
    if k == C.K_STAKE:
        return "♥ action: add the top deck card to the stake"
    if k == C.K_DISCARD:
        return f"♠ action: discard {ct}"
    if k == C.K_PREVEAL:
        return "♥ power: turn a face-down Rat card face up"
    if k == C.K_PSTAKE:
        return "♥ power: add 1 debt card to the stake"
    if k == C.K_PDISCARD:
        return f"♠ power: discard {ct}"
    if k == C.K_STOP:
        return "stop"
    if k == C.K_EREVEAL:
        return "joker: reveal the top deck card into the collective hand"
    if k == C.K_ESTOP:
        return "stop revealing" if s[C.PHASE] == C.PH_EXPERT2 else "keep the joker"
    return "pass (no card to play)"


def _cards_str(xs) -> str:
    return " ".join(card_text(c) for c in xs) if xs else "-"


def table_string(s: np.ndarray, viewer: int | None = None) -> str:
    """Readable table of the game. ``viewer=None`` shows every card (an omniscient view);
    a seat number hides what that seat may not see (other hands, the Rat's face-down cards,
    other players' face-down card)."""
    n = int(s[C.N_PLAYERS])
    lines = []
    status = {C.RUNNING: "running", C.WON: "WON", C.LOST: "LOST"}[int(s[C.STATUS])]
    if s[C.STATUS] == C.LOST:
        reason = ("", "players' debt", "stalled", "no card to draw")[int(s[C.LOSS_REASON])]
        status += f" ({reason})"
    active = int(s[C.ACTIVE])
    rats = f"{SUIT_SYMBOLS[active]}K active"
    if s[C.WAITING] >= 0:
        rats += ", 1 waiting face down" if viewer is not None else \
            f", {SUIT_SYMBOLS[int(s[C.WAITING])]}K waiting"
    # while running: the round being played; at the end: the rounds played (as in the record)
    when = (f"round {int(s[C.ROUND]) + 1}" if s[C.STATUS] == C.RUNNING
            else f"after {int(s[C.ROUND])} round{'s' if s[C.ROUND] != 1 else ''}")
    lines.append(f"River Rats: {when}, {status}; Rats: {rats}; "
                 f"defeated {int(s[C.DEFEATED])}")
    rat_cards = []
    for i in range(int(s[C.RAT])):
        c = int(s[C.RAT + 1 + i])
        up = s[C.RAT_UP + i] == 1
        rat_cards.append(card_text(c) if up or viewer is None else "??")
        if not up and viewer is None:
            rat_cards[-1] = f"({card_text(c)})"
    lines.append(f"Rat's hand: {' '.join(rat_cards)}   debt {int(s[C.RDEBT])}/5")
    pred = int(s[C.PRED_CARD])
    pred_txt = (f"{card_text(pred)} -> {CATEGORY_NAMES[int(s[C.PRED_CAT])]}" if pred >= 0 else "-")
    lines.append(f"Prediction: {pred_txt}   stake {int(s[C.STAKE])}   "
                 f"jokers: {int(s[C.JUP])} up, {int(s[C.JOKERS_EARNED])}/2 earned")
    coll = []
    for i in range(int(s[C.COLL])):
        c = int(s[C.COLL + 1 + i])
        if i == 0 and s[C.COLL_FD] == 1:
            own = viewer is None or int(s[C.FD_OWNER]) == viewer
            coll.append(f"[{card_text(c)}]" if own else "[??]")
        else:
            coll.append(card_text(c))
    rev = pile(s, C.REVEAL)
    extra = f" + revealed {_cards_str(rev)}" if rev else ""
    lines.append(f"Collective hand ({int(s[C.COLL])}/{int(s[C.TARGET])}): "
                 f"{' '.join(coll) if coll else '-'}{extra}")
    lines.append(f"Market ({int(s[C.MARKET])}, capacity {int(s[C.MARKET_CAP])}): "
                 f"{_cards_str(pile(s, C.MARKET))}")
    lines.append(f"Deck {int(s[C.DECK])}   discard {int(s[C.DISCARD])}   "
                 f"players' debt {int(s[C.PDEBT])}/5")
    for p in range(n):
        hb = C.HAND0 + C.HAND_STRIDE * p
        h = pile(s, hb)
        shown = _cards_str(h) if viewer is None or viewer == p else f"{len(h)} cards"
        mark = "->" if p == int(s[C.CUR]) and s[C.STATUS] == C.RUNNING else "  "
        lines.append(f"{mark} seat {p} ({SUIT_SYMBOLS[int(s[C.CHAR0 + p])]}A): {shown}")
    if s[C.LAST_WINNER] >= 0:
        lines.append(last_resolution_string(s))
    return "\n".join(lines)


def last_resolution_string(s: np.ndarray) -> str:
    """One line describing the last resolved collective hand (empty before the first)."""
    if s[C.LAST_WINNER] < 0:
        return ""
    who = "players" if s[C.LAST_WINNER] == 0 else "Rat"
    pred = ", prediction made: joker earned" if s[C.LAST_PRED] else ""
    bust = ", expert joker went bust" if s[C.LAST_BUST] else ""
    return (f"Last hand: players {_cards_str(pile(s, C.LAST_COLL))} ({describe(int(s[C.LAST_P]))})"
            f" vs Rat {_cards_str(pile(s, C.LAST_RAT))} ({describe(int(s[C.LAST_R]))}): "
            f"{who} won{pred}{bust}")
