"""Card ids and their text form, for the games played with a poker deck.

Convention (one for every poker-deck game of boardlab):

==========  ===================================================================
id          ``4 * rank + suit`` for the 52 standard cards; jokers are 52 and 53
rank        0..12 means 2, 3, ..., 10, J, Q, K, A
suit        0..3 means clubs, diamonds, hearts, spades
text        ``"Ah"``, ``"Td"``, ``"2c"``; jokers ``"X1"`` and ``"X2"``
==========  ===================================================================

:func:`parse` also accepts ``10`` for ten, the suit symbols (``♣ ♦ ♥ ♠`` and the white
variants), the symbol before or after the rank (``"♠A"``), either case, and ``"Jk"``/``"JK"``
for a joker (the first ``Jk`` of a string is joker 52, the second 53).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

__all__ = [
    "RANKS",
    "SUITS",
    "JOKERS",
    "N_CARDS",
    "card_id",
    "rank_of",
    "suit_of",
    "parse",
    "parse_card",
    "format",
    "format_card",
]

RANKS = "23456789TJQKA"
"""Rank characters, index = rank (0 is the deuce, 12 the ace)."""
SUITS = "cdhs"
"""Suit characters, index = suit (0 clubs, 1 diamonds, 2 hearts, 3 spades)."""
JOKERS = (52, 53)
"""Card ids of the two jokers."""
N_CARDS = 54
"""Number of card ids (52 standard cards and 2 jokers)."""

_SUIT_ALIASES = {
    "c": 0, "♣": 0, "♧": 0,
    "d": 1, "♦": 1, "♢": 1,
    "h": 2, "♥": 2, "♡": 2,
    "s": 3, "♠": 3, "♤": 3,
}
_RANK_ALIASES = {c.lower(): i for i, c in enumerate(RANKS)} | {"10": 8}
_SUIT_CHARS = "".join(_SUIT_ALIASES)
_TOKEN_SPLIT = re.compile(r"[\s,;]+")
_CARD_RE = re.compile(
    rf"^(?:(?P<r1>10|[2-9tjqka])(?P<s1>[{_SUIT_CHARS}])|(?P<s2>[{_SUIT_CHARS}])(?P<r2>10|[2-9tjqka]))$"
)
_COMPACT_RE = re.compile(
    rf"x[12]|jk|(?:10|[2-9tjqka])[{_SUIT_CHARS}]|[{_SUIT_CHARS}](?:10|[2-9tjqka])"
)


def card_id(rank: int, suit: int) -> int:
    """Return the id ``4 * rank + suit`` of a standard card.

    Raises ``ValueError`` if ``rank`` is not in 0..12 or ``suit`` not in 0..3.
    """
    if not 0 <= rank <= 12:
        raise ValueError(f"rank {rank!r} out of range: expected 0..12 (2..A)")
    if not 0 <= suit <= 3:
        raise ValueError(f"suit {suit!r} out of range: expected 0..3 (clubs..spades)")
    return 4 * rank + suit


def rank_of(card: int) -> int:
    """Rank 0..12 of a standard card id (``card // 4``); jokers have no rank (ValueError)."""
    if not 0 <= card < 52:
        raise ValueError(f"card id {card!r} has no rank: expected 0..51")
    return card >> 2


def suit_of(card: int) -> int:
    """Suit 0..3 of a standard card id (``card % 4``); jokers have no suit (ValueError)."""
    if not 0 <= card < 52:
        raise ValueError(f"card id {card!r} has no suit: expected 0..51")
    return card & 3


def parse_card(token: str, _jokers_seen: list[int] | None = None) -> int:
    """Parse one card token (``"Ah"``, ``"10d"``, ``"♠A"``, ``"X1"``, ``"Jk"``) into its id.

    Raises ``ValueError`` naming the token when it is not a card.
    """
    t = token.strip().lower()
    seen = _jokers_seen if _jokers_seen is not None else []
    if t in ("x1", "x2"):
        jid = 52 if t == "x1" else 53
        seen.append(jid)
        return jid
    if t == "jk":
        jid = 52 if 52 not in seen else 53
        seen.append(jid)
        return jid
    m = _CARD_RE.match(t)
    if m is None:
        raise ValueError(
            f"bad card {token!r}: expected rank (2-9, 10/T, J, Q, K, A) and suit "
            f"(c/d/h/s or ♣♦♥♠), e.g. 'Ah', '10d', '♠A', or a joker 'X1'/'X2'/'Jk'"
        )
    r = m.group("r1") or m.group("r2")
    s = m.group("s1") or m.group("s2")
    return 4 * _RANK_ALIASES[r] + _SUIT_ALIASES[s]


def parse(text: str | Iterable[str]) -> np.ndarray:
    """Parse cards into an array of ids.

    ``text`` is a string of card tokens separated by spaces or commas (``"Ah Kd 10c"``), a
    compact string without separators (``"AhKd10c"``), or an iterable of tokens.

    Returns ``np.ndarray`` of dtype ``int8`` and shape ``(n_cards,)``.
    Raises ``ValueError`` naming the first offending token. Duplicates are not checked here
    (an evaluator or a game decides whether they are legal).
    """
    if isinstance(text, str):
        s = text.strip()
        tokens = [t for t in _TOKEN_SPLIT.split(s) if t] if s else []
        if len(tokens) == 1 and len(tokens[0]) > 3:
            tokens = _split_compact(tokens[0])
    else:
        tokens = [str(t) for t in text]
    seen: list[int] = []
    return np.array([parse_card(t, seen) for t in tokens], dtype=np.int8)


def _split_compact(s: str) -> list[str]:
    low = s.lower()
    out, pos = [], 0
    while pos < len(low):
        m = _COMPACT_RE.match(low, pos)
        if m is None:
            bad = s[pos: pos + 3]
            raise ValueError(f"bad card {bad!r} at position {pos} of {s!r}: expected a card "
                             f"such as 'Ah', '10d', '♠A' or a joker 'X1'")
        out.append(s[pos: m.end()])
        pos = m.end()
    return out


def format_card(card: int) -> str:
    """Text form of one card id: ``"Ah"``, ``"Td"``, ``"X1"``; ``-1`` (empty slot) is ``"--"``.

    Raises ``ValueError`` for ids outside -1..53.
    """
    c = int(card)
    if c == -1:
        return "--"
    if c == 52:
        return "X1"
    if c == 53:
        return "X2"
    if not 0 <= c < 52:
        raise ValueError(f"card id {c} out of range: expected 0..53 (or -1 for an empty slot)")
    return RANKS[c >> 2] + SUITS[c & 3]


def format(cards: Iterable[int] | np.ndarray) -> str:  # noqa: A001 - the issue names it format
    """Text of a sequence of card ids, space separated (``"Ah Kd Tc"``); ``-1`` slots are skipped.

    Raises ``ValueError`` for ids outside -1..53.
    """
    return " ".join(format_card(c) for c in np.asarray(cards).ravel().tolist() if int(c) != -1)


def random_hands(n_hands: int, n_cards: int, seed=None, n_jokers: int = 0) -> np.ndarray:
    """Deal ``n_hands`` independent random hands of ``n_cards`` distinct cards each.

    Each hand is a uniform random subset of the 52 standard cards plus ``n_jokers`` (0..2)
    jokers, in random order. ``seed`` is anything :func:`numpy.random.default_rng` accepts.
    Returns ``np.ndarray[int8]`` of shape ``(n_hands, n_cards)``.
    Raises ``ValueError`` if ``n_cards`` is not in 1..54 or ``n_jokers`` not in 0..min(2, n_cards).
    Algorithm: a partial Fisher-Yates shuffle per hand (compiled).
    """
    if not 1 <= n_cards <= 54:
        raise ValueError(f"n_cards {n_cards!r} out of range: expected 1..54")
    if not 0 <= n_jokers <= min(2, n_cards):
        raise ValueError(f"n_jokers {n_jokers!r} out of range: expected 0..{min(2, n_cards)}")
    if n_hands < 0:
        raise ValueError(f"n_hands {n_hands!r} must be >= 0")
    from engines.protocol.deal import deal_hands

    return deal_hands(int(n_hands), int(n_cards), int(n_jokers), np.random.default_rng(seed))
