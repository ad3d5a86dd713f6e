"""The compiled rules core of ReCURRRing (``../shared/rules/recurring.md``): one flat ``int64``
state array.

Deck and card ids (57 cards, "Components and players"): number ``v`` (1..9) has ``v`` copies
with ids ``v * (v - 1) / 2 .. v * (v + 1) / 2 - 1``; the 12 R cards are ids 45..56.

=======  =====  ==============
number   count  card ids
=======  =====  ==============
1        1      0
2        2      1-2
3        3      3-5
4        4      6-9
5        5      10-14
6        6      15-20
7        7      21-27
8        8      28-35
9        9      36-44
R        12     45-56
=======  =====  ==============

Removed by player count: 5 players remove R ids 55-56 (55 cards, 11 each); 4 players remove the
9s, ids 36-44 (48 cards, 12 each); 3 players remove the 8s and 9s, ids 28-44, and R id 56
(39 cards, 13 each). The rules depend only on numbers, so the state keeps **counts per number**:
number index ``v`` = 1..9, and ``R = 10``.

Plays and actions: a play is ``k`` cards of one number ``v``; action ``16 * k + v`` (``k`` >= 1,
``v`` = 1..10); ``PASS = 0``. Strength (:func:`play_strength`): more cards is stronger; equal
counts: the smaller number is stronger, R the weakest: ``16 * k + (10 - v)``.

State layout (``STATE_SIZE = 232`` ``int64`` words; per-player count blocks of 11 words:
word 0 = total, words 1..10 = count of number 1..9 and R):

===========  ===================  =========================================================
index        name                 meaning
===========  ===================  =========================================================
0            N_PLAYERS            3..5
1            CFG_OPEN_SINGLE      1 = every round opens with one card ([decision] default)
2            CFG_EMPTIER_SCORES   1 = the emptier on the table takes it face up (default)
3            RNG                  splitmix64 word of the game's chance (the deal)
4            PHASE                0 playing, 1 game over
5            CUR                  seat to act (-1 when over)
6            START                start player of the current round
7            TABLE_NUM            number of the play on the table (0 = empty table)
8            TABLE_COUNT          its number of cards
9            TABLE_OWNER          seat whose play it is (-1 = none)
10           ROUND                round number, from 1
11           FINAL                1 once a player has emptied their hand (final round)
12           DECISIONS            actions applied so far (the game's length in decisions)
13           FIRST_START          holder of the 1, start player of round 1
14           OBS_PLAYER           -1 in a full state; the observer in an observation
32+11p+v     HAND                 seat p's hand (counts); word 32+11p = hand size
88+11p+v     SCORE                seat p's face-up score pile (counts)
144+11p+v    FACEDOWN             seat p's face-down cards (counts)
200+p        PASSED               1 if p has passed this round (hard pass)
208+p        EMPTIED              1 if p emptied their hand
216+p        POINTS               p's points at the end ("Scoring")
===========  ===================  =========================================================

Every card of the dealt deck is at all times in exactly one of: a HAND, a SCORE pile, a
FACEDOWN pile, or on the table.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.splitmix import rand_below

N_PLAYERS = 0
CFG_OPEN_SINGLE = 1
CFG_EMPTIER_SCORES = 2
RNG = 3
PHASE = 4
CUR = 5
START = 6
TABLE_NUM = 7
TABLE_COUNT = 8
TABLE_OWNER = 9
ROUND = 10
FINAL = 11
DECISIONS = 12
FIRST_START = 13
OBS_PLAYER = 14
HAND = 32
SCORE = 88
FACEDOWN = 144
PASSED = 200
EMPTIED = 208
POINTS = 216
STATE_SIZE = 232
BLOCK = 11
MAX_PLAYERS = 5

PHASE_PLAY = 0
PHASE_OVER = 1
PASS = 0
R = 10
N_NUMBERS = 10
N_IDS = 57
MAX_LEGAL = 64
"""Capacity of a legal-action buffer: following gives at most 1 pass + 2 counts x 10 numbers;
an opening without the one-card rule gives one play per card in hand (at most 55)."""

EMPTY_HAND_SKIPPED = True
"""[decision] of ``recurring.md`` "A round": a player whose hand is empty cannot act and is
skipped (treated as passed). It has no alternative (such a player has nothing to play)."""

EVERY_EMPTIER_PLACES_FACE_DOWN = True
"""Engine decision (a gap of ``recurring.md``): a player who plays their last card puts the
replaced play face down and scores their R cards, whether or not another player already
emptied their hand in the same final round."""

_NUMBER_OF_ID = np.array([v for v in range(1, 10) for _ in range(v)] + [R] * 12, dtype=np.int64)
"""Number (1..9, R = 10) of each card id 0..56."""


def deck_ids(n_players: int) -> np.ndarray:
    """``int64`` card ids of the deck for ``n_players`` (3..5), ascending (rules
    "Components and players"). Raises ``ValueError`` for another player count."""
    if n_players == 5:
        removed = {55, 56}
    elif n_players == 4:
        removed = set(range(36, 45))
    elif n_players == 3:
        removed = set(range(28, 45)) | {56}
    else:
        raise ValueError(f"n_players {n_players!r}: expected 3, 4 or 5")
    return np.array([c for c in range(N_IDS) if c not in removed], dtype=np.int64)


_DECKS = np.full((6, N_IDS), -1, dtype=np.int64)
_DECK_SIZE = np.zeros(6, dtype=np.int64)
for _n in (3, 4, 5):
    _d = deck_ids(_n)
    _DECKS[_n, :len(_d)] = _d
    _DECK_SIZE[_n] = len(_d)


def number_of_id(card: int) -> int:
    """Number 1..9 (R = 10) of card id ``card`` (0..56); ``ValueError`` outside 0..56."""
    if not 0 <= int(card) < N_IDS:
        raise ValueError(f"card id {card!r} out of range: expected 0..56")
    return int(_NUMBER_OF_ID[int(card)])


# ----------------------------------------------------------------------------- plays
@njit(cache=True)
def play_strength(number, count):
    """Strength of a play of ``count`` cards of ``number`` (1..9, R = 10), higher is stronger
    (rules "Plays and their strength"): ``16 * count + (10 - number)``."""
    return 16 * count + (10 - number)


@njit(cache=True)
def compare_plays(number_a, count_a, number_b, count_b):
    """+1 if play a is stronger than play b, -1 if weaker, 0 if equal (a pure function; rules
    "Plays and their strength": more cards is stronger; with equal counts the smaller number
    is stronger; R is the weakest number)."""
    sa = play_strength(number_a, count_a)
    sb = play_strength(number_b, count_b)
    if sa > sb:
        return 1
    if sa < sb:
        return -1
    return 0


@njit(cache=True)
def may_follow(table_number, table_count, number, count):
    """True if ``count`` x ``number`` may be played on ``table_count`` x ``table_number``: the
    same count or one more, and stronger (rules "Plays and their strength")."""
    if count != table_count and count != table_count + 1:
        return False
    return compare_plays(number, count, table_number, table_count) > 0


# ----------------------------------------------------------------------------- game flow
@njit(cache=True)
def _deal(st, n):
    size = _DECK_SIZE[n]
    deck = _DECKS[n, :size].copy()
    for i in range(size - 1, 0, -1):
        j = rand_below(st, RNG, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    per = size // n
    k = 0
    for p in range(n):
        base = HAND + BLOCK * p
        for _ in range(per):
            c = deck[k]
            st[base + _NUMBER_OF_ID[c]] += 1
            if c == 0:
                st[FIRST_START] = p
            k += 1
        st[base] = per


@njit(cache=True)
def init_state(cfg, seed):
    """New game (rules "Components and players", "A round"): ``int64`` array (STATE_SIZE,).

    ``cfg``: ``int64`` array of :meth:`RecurringConfig.to_array`; ``seed``: the game's
    ``int64`` seed word. The deck of the player count is shuffled (Fisher-Yates on the ids with
    the state's splitmix64 word) and dealt out in blocks, seat 0 first; the holder of the 1
    starts round 1.
    """
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for i in range(3):
        st[i] = cfg[i]
    st[RNG] = seed
    _deal(st, cfg[0])
    st[PHASE] = PHASE_PLAY
    st[START] = st[FIRST_START]
    st[CUR] = st[FIRST_START]
    st[TABLE_OWNER] = -1
    st[ROUND] = 1
    st[OBS_PLAYER] = -1
    return st


@njit(cache=True)
def legal_actions(st, out):
    """Write the current player's legal actions into ``out`` (``int64``, >= MAX_LEGAL); return
    their count (0 when over). Opening an empty table: one card of any number held (any count
    when ``open_single_every_round`` is off after round 1), no pass. Otherwise ``PASS`` first,
    then every stronger play of the table's count or count + 1, by count then number."""
    if st[PHASE] == PHASE_OVER:
        return 0
    p = st[CUR]
    base = HAND + BLOCK * p
    n = 0
    tv = st[TABLE_NUM]
    if tv == 0:
        if st[CFG_OPEN_SINGLE] == 1 or st[ROUND] == 1:
            for v in range(1, N_NUMBERS + 1):
                if st[base + v] >= 1:
                    out[n] = 16 + v
                    n += 1
        else:
            for k in range(1, 13):
                for v in range(1, N_NUMBERS + 1):
                    if st[base + v] >= k:
                        out[n] = 16 * k + v
                        n += 1
        return n
    tk = st[TABLE_COUNT]
    out[0] = PASS
    n = 1
    for k in range(tk, tk + 2):
        for v in range(1, N_NUMBERS + 1):
            if st[base + v] >= k and may_follow(tv, tk, v, k):
                out[n] = 16 * k + v
                n += 1
    return n


@njit(cache=True)
def apply_action(st, action):
    """Apply a **legal** ``action`` of the current player in place (rules "A round",
    "End of the game", "Scoring"). Legality is the caller's duty (the step API checks it)."""
    p = st[CUR]
    n = st[N_PLAYERS]
    st[DECISIONS] += 1
    if action == PASS:
        st[PASSED + p] = 1
    else:
        v = action & 15
        k = action >> 4
        base = HAND + BLOCK * p
        st[base + v] -= k
        st[base] -= k
        tv = st[TABLE_NUM]
        if tv != 0:
            tk = st[TABLE_COUNT]
            if st[base] == 0:
                st[FACEDOWN + BLOCK * p + tv] += tk
                st[FACEDOWN + BLOCK * p] += tk
            else:
                st[base + tv] += tk
                st[base] += tk
        if st[base] == 0:
            st[EMPTIED + p] = 1
            st[FINAL] = 1
        st[TABLE_NUM] = v
        st[TABLE_COUNT] = k
        st[TABLE_OWNER] = p
    owner = st[TABLE_OWNER]
    for i in range(1, n):
        q = (p + i) % n
        if q != owner and st[PASSED + q] == 0 and st[HAND + BLOCK * q] > 0:
            st[CUR] = q
            return
    _end_round(st)


@njit(cache=True)
def _end_round(st):
    n = st[N_PLAYERS]
    o = st[TABLE_OWNER]
    tv = st[TABLE_NUM]
    tk = st[TABLE_COUNT]
    if st[EMPTIED + o] == 1 and st[CFG_EMPTIER_SCORES] == 0:
        st[FACEDOWN + BLOCK * o + tv] += tk
        st[FACEDOWN + BLOCK * o] += tk
    else:
        st[SCORE + BLOCK * o + tv] += tk
        st[SCORE + BLOCK * o] += tk
    st[TABLE_NUM] = 0
    st[TABLE_COUNT] = 0
    st[TABLE_OWNER] = -1
    if st[FINAL] == 1:
        st[PHASE] = PHASE_OVER
        st[CUR] = -1
        for p in range(n):
            st[POINTS + p] = points_of(st, p)
        return
    st[ROUND] += 1
    for p in range(n):
        st[PASSED + p] = 0
    st[START] = o
    st[CUR] = o


@njit(cache=True)
def points_of(st, p):
    """Points of seat ``p`` (rules "Scoring"): 1 per face-up number card; R cards count only
    for a player who emptied their hand; face-down cards count nothing."""
    base = SCORE + BLOCK * p
    pts = 0
    for v in range(1, 10):
        pts += st[base + v]
    if st[EMPTIED + p] == 1:
        pts += st[base + R]
    return pts


@njit(cache=True)
def is_terminal(st):
    """True once the game is over (rules "End of the game")."""
    return st[PHASE] == PHASE_OVER


@njit(cache=True)
def returns(st):
    """``float64`` (n_players,): each seat's points at the end ("Scoring"), zeros before."""
    n = st[N_PLAYERS]
    out = np.zeros(n, dtype=np.float64)
    if st[PHASE] == PHASE_OVER:
        for p in range(n):
            out[p] = st[POINTS + p]
    return out


@njit(cache=True)
def observe(st, player):
    """What seat ``player`` may see: a copy of ``st`` with the other seats' hand counts per
    number and the RNG word zeroed (hand sizes, the table, score and face-down piles stay: they
    are public)."""
    o = st.copy()
    for q in range(st[N_PLAYERS]):
        if q != player:
            for v in range(1, N_NUMBERS + 1):
                o[HAND + BLOCK * q + v] = 0
    o[RNG] = 0
    o[OBS_PLAYER] = player
    return o


def state_from_hands(cfg: np.ndarray, hands, start: int) -> np.ndarray:
    """A state at the start of a round from given hands, for scenarios and tests.

    ``cfg``: config array; ``hands``: one dict or length-11 sequence of counts per seat
    (``{7: 2, 10: 3}`` = two 7s and three R), ``start``: the start player. Raises
    ``ValueError`` if a count is negative or the hands hold more copies of a number than the
    full 57-card deck has.
    """
    n = int(cfg[0])
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    st[:3] = cfg[:3]
    if len(hands) != n:
        raise ValueError(f"{len(hands)} hands given for {n} players")
    totals = np.zeros(N_NUMBERS + 1, dtype=np.int64)
    for p, h in enumerate(hands):
        items = h.items() if isinstance(h, dict) else enumerate(h)
        for v, c in items:
            v = int(v)
            if not 1 <= v <= N_NUMBERS or int(c) < 0:
                if isinstance(h, dict) or (v != 0 and int(c) != 0):
                    raise ValueError(f"hand {p}: number {v} count {c}: expected numbers 1..10 "
                                     f"(10 = R) and counts >= 0")
                continue
            st[HAND + BLOCK * p + v] += int(c)
            st[HAND + BLOCK * p] += int(c)
            totals[v] += int(c)
    for v in range(1, N_NUMBERS + 1):
        full = 12 if v == R else v
        if totals[v] > full:
            raise ValueError(f"hands hold {totals[v]} cards of number {v}: the deck has {full}")
    if not 0 <= start < n:
        raise ValueError(f"start player {start} out of range 0..{n - 1}")
    st[PHASE] = PHASE_PLAY
    st[START] = start
    st[CUR] = start
    st[FIRST_START] = start
    st[TABLE_OWNER] = -1
    st[ROUND] = 1
    st[OBS_PLAYER] = -1
    return st
