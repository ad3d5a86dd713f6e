"""The compiled rules core of ReCURRRing (``docs/rules/recurring.md``) over one flat ``int64``
state array, with the kernels of the one game protocol (:mod:`engines.protocol`).

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

Action table (``NUM_DISTINCT_ACTIONS = 203``, ids ``0 .. 202``; the encoding of the
pre-protocol engine, unchanged):

==================  ==========================================================================
id                  meaning
==================  ==========================================================================
0                   ``PASS`` (hard pass: final for the rest of the round)
``16 * k + v``      play ``k`` cards (1..12) of number ``v`` (1..9; ``v = 10`` is R), e.g.
                    17 = one 1, 55 = three 7s, 42 = two R
other ids < 203     unused (1..16, and ``16 * k + 11 .. 16 * k + 16``): never legal
==================  ==========================================================================

``HIDDEN_ACTION = 203`` is never produced: every play and pass is public
(:func:`observed_action` returns the action itself). Strength of a play
(:func:`play_strength`): more cards is stronger; equal counts: the smaller number is stronger,
R the weakest: ``16 * k + (10 - v)``.

State layout (``STATE_SIZE = 300`` ``int64`` words; per-seat count blocks of ``BLOCK = 11``
words: word 0 = total, words 1..10 = count of number 1..9 and R):

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
10           ROUND                round number, from 1 (the round being played, or the last)
11           FINAL                1 once a player has emptied their hand (final round)
12           DECISIONS            actions applied so far (the game's length in decisions)
13           FIRST_START          holder of the 1, start player of round 1
14           OBS_PLAYER           -1 in a full state; the observer in an observation
15           TRUNCATED            1 if the game was ended at ``MAX_GAME_LENGTH`` decisions
16           ROUNDS_DONE          rounds completed (a table cleared): ``progress(s, 0)``
32+11p+v     HAND                 seat p's hand (counts); word 32+11p = hand size
88+11p+v     SCORE                seat p's face-up score pile (counts)
144+11p+v    FACEDOWN             seat p's face-down cards (counts)
200+p        PASSED               1 if p has passed this round (hard pass)
208+p        EMPTIED              1 if p emptied their hand
216+p        POINTS               p's points at the end ("Scoring")
232+11p+v    KNOWN                public count of number v known to be in p's hand
288+v        IN_PLAY              count of number v in this game (the deck of the player
                                  count; word 288 = its size); constant over a game
===========  ===================  =========================================================

Every card of the dealt deck is at all times in exactly one of: a HAND, a SCORE pile, a
FACEDOWN pile, or on the table (:func:`inventory` sums them: always ``IN_PLAY``).

**Knowledge** (``KNOWN``): cards a player takes back into hand from the table (the replaced
play) are seen by everyone. When q plays k cards of number v, ``KNOWN[q][v] = max(0,
KNOWN[q][v] - k)``; when the replaced play, tk cards of tv, goes into q's hand,
``KNOWN[q][tv] += tk``. The deal adds one public fact: the holder of the single 1 starts round
1 (rules "A round"), so ``KNOWN[FIRST_START][1] = 1`` at the start (until that seat plays it).
Always ``KNOWN[q][v] <= HAND[q][v]``.

**Observation** (``OBS_SIZE = STATE_SIZE``, the state layout): the state with the other seats'
per-number hand counts (their hand sizes stay), ``RNG`` and the whole ``KNOWN`` block zeroed
and ``OBS_PLAYER = p``. **Information state** (``INFO_SIZE = STATE_SIZE``): the observation
plus the ``KNOWN`` block (what p remembers of the public events the table no longer shows).
Hand sizes, the table, passes, score and face-down piles are public (every card that goes face
down was on the table first).

**Determinization rule** (:func:`determinize`): from the information state of p, each other
seat q keeps its ``KNOWN[q]`` cards and gets ``HAND[q][0] - KNOWN[q][0]`` more cards dealt one
at a time, seats in order, each uniformly from the pool of unknown cards (``IN_PLAY`` minus p's
hand, every score and face-down pile, the table and every ``KNOWN`` card of the other seats),
the pool taken as individual cards in canonical order (by number); the draws come from a
splitmix64 word started at ``seed ^ DEAL_SALT`` and the chance word becomes ``mix(seed ^
CHANCE_SALT)``. Nothing else changes.

**Outcome** (``OUTCOME_FIELDS``): ``points_0..points_4``, ``emptied_0..emptied_4`` (seats
beyond the player count: 0), ``rounds`` (``ROUND`` at the end), ``decisions``,
``start_player`` (holder of the 1), ``truncated``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol import chance

# ----------------------------------------------------------------------------- layout
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
TRUNCATED = 15
ROUNDS_DONE = 16
HAND = 32
SCORE = 88
FACEDOWN = 144
PASSED = 200
EMPTIED = 208
POINTS = 216
KNOWN = 232
IN_PLAY = 288
BLOCK = 11

PHASE_PLAY = 0
PHASE_OVER = 1
PASS = 0
R = 10
N_NUMBERS = 10
N_IDS = 57
MAX_COUNT = 12
"""Most cards of one number in any deck (the 12 R), so the largest play."""

# ----------------------------------------------------------------------------- protocol constants
GAME_NAME = "recurring"
MIN_PLAYERS = 3
MAX_PLAYERS = 5
CONFIG_SIZE = 3
"""``RecurringConfig.to_array()``: ``[n_players, open_single_every_round,
emptier_on_table_scores]``."""
STATE_SIZE = 300
NUM_DISTINCT_ACTIONS = 16 * MAX_COUNT + N_NUMBERS + 1
"""203: ids ``0 .. 202`` (see the action table; not every id is a play)."""
HIDDEN_ACTION = NUM_DISTINCT_ACTIONS
MAX_LEGAL = 64
"""Capacity of a legal-action buffer: following gives at most 1 pass + 9 stronger numbers of the
table's count + 10 numbers of one more (20); an opening gives at most one play per card in
hand (13 in a dealt game, 57 in any state since no number has more than 12 copies)."""
MAX_GAME_LENGTH = N_IDS * (MAX_COUNT * N_NUMBERS + MAX_PLAYERS - 1)
"""7068 decisions, a bound no game reaches: every round banks at least one card for good
(at most 57 rounds), and a round has at most 120 plays (strictly stronger each time: 10
numbers at each count 1..12) and 4 passes. The core still ends a game that reaches it
(``TRUNCATED``)."""
OBS_SIZE = STATE_SIZE
INFO_SIZE = STATE_SIZE
TENSOR_SIZE = 209
INVENTORY_SIZE = N_NUMBERS
"""``inventory``: count of number 1..9 and R (index ``v - 1``) in play."""
OUTCOME_FIELDS = tuple([f"points_{p}" for p in range(MAX_PLAYERS)]
                       + [f"emptied_{p}" for p in range(MAX_PLAYERS)]
                       + ["rounds", "decisions", "start_player", "truncated"])

DEAL_SALT = 0x5DEECE66D2B7E151
"""Salt of the determinization's dealing generator (``seed ^ DEAL_SALT``)."""
CHANCE_SALT = 0x2545F4914F6CDD1D
"""Salt of a determinized state's chance word (``mix(seed ^ CHANCE_SALT)``)."""

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
        raise ValueError(f"bad n_players {n_players!r}: expected 3, 4 or 5")
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
        raise ValueError(f"bad card id {card!r}: expected 0..56")
    return int(_NUMBER_OF_ID[int(card)])


def deck_counts(n_players: int) -> np.ndarray:
    """``int64 (INVENTORY_SIZE,)``: count of number 1..9 and R (index ``v - 1``) in the deck of
    ``n_players`` (3..5); ``ValueError`` for another player count."""
    return np.bincount(_NUMBER_OF_ID[deck_ids(n_players)], minlength=N_NUMBERS + 1)[1:].astype(
        np.int64)


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
@njit(cache=True, inline="always")
def _deal(st, n):
    size = _DECK_SIZE[n]
    deck = _DECKS[n, :size].copy()
    for i in range(size - 1, 0, -1):
        j = chance.rand_below(st, RNG, i + 1)
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
            st[IN_PLAY + _NUMBER_OF_ID[c]] += 1
            if c == 0:
                st[FIRST_START] = p
            k += 1
        st[base] = per
    st[IN_PLAY] = per * n


@njit(cache=True)
def _start_game(st):
    """Common start of a dealt or scenario game: round 1 from ``FIRST_START``, and the public
    fact that the start player holds the 1 (if they do) in ``KNOWN``."""
    st[PHASE] = PHASE_PLAY
    st[START] = st[FIRST_START]
    st[CUR] = st[FIRST_START]
    st[TABLE_OWNER] = -1
    st[ROUND] = 1
    st[OBS_PLAYER] = -1
    f = st[FIRST_START]
    if st[HAND + BLOCK * f + 1] >= 1:
        st[KNOWN + BLOCK * f + 1] = 1
        st[KNOWN + BLOCK * f] = 1


@njit(cache=True)
def init_state(cfg, seed, out):
    """A new game in ``out`` (``int64 (STATE_SIZE,)``; rules "Components and players",
    "A round").

    ``cfg``: ``int64 (CONFIG_SIZE,)`` of :meth:`RecurringConfig.to_array`; ``seed``: the game's
    ``int64`` seed word. The deck of the player count is shuffled (Fisher-Yates on the ids, from
    the top index down, with the state's splitmix64 word) and dealt out in blocks, seat 0
    first; the holder of the 1 starts round 1.
    """
    out[:] = 0
    for i in range(CONFIG_SIZE):
        out[i] = cfg[i]
    out[RNG] = seed
    _deal(out, cfg[0])
    _start_game(out)


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions of the player to act into ``out`` (``int64 (MAX_LEGAL,)``),
    ascending; return their count (0 once the game is over). Opening an empty table: one card
    of any number held (any count when ``open_single_every_round`` is off after round 1), no
    pass. Otherwise ``PASS`` first, then every stronger play of the table's count or count + 1,
    by count then number (rules "A round", "Plays and their strength")."""
    if s[PHASE] == PHASE_OVER:
        return 0
    p = s[CUR]
    base = HAND + BLOCK * p
    n = 0
    tv = s[TABLE_NUM]
    if tv == 0:
        if s[CFG_OPEN_SINGLE] == 1 or s[ROUND] == 1:
            for v in range(1, N_NUMBERS + 1):
                if s[base + v] >= 1:
                    out[n] = 16 + v
                    n += 1
        else:
            for k in range(1, MAX_COUNT + 1):
                for v in range(1, N_NUMBERS + 1):
                    if s[base + v] >= k:
                        out[n] = 16 * k + v
                        n += 1
        return n
    tk = s[TABLE_COUNT]
    out[0] = PASS
    n = 1
    for k in range(tk, tk + 2):
        for v in range(1, N_NUMBERS + 1):
            if s[base + v] >= k and may_follow(tv, tk, v, k):
                out[n] = 16 * k + v
                n += 1
    return n


@njit(cache=True)
def apply_action(s, a):
    """Apply the **legal** action ``a`` of the player to act in place (rules "A round",
    "End of the game", "Scoring"), with the public-knowledge update of ``KNOWN``; a game that
    reaches ``MAX_GAME_LENGTH`` decisions ends (``TRUNCATED``). Legality is the caller's duty
    (the step API checks it)."""
    p = s[CUR]
    n = s[N_PLAYERS]
    s[DECISIONS] += 1
    if a == PASS:
        s[PASSED + p] = 1
    else:
        v = a & 15
        k = a >> 4
        base = HAND + BLOCK * p
        kb = KNOWN + BLOCK * p
        s[base + v] -= k
        s[base] -= k
        kn = s[kb + v]
        if kn > 0:
            drop = kn if kn < k else k
            s[kb + v] = kn - drop
            s[kb] -= drop
        tv = s[TABLE_NUM]
        if tv != 0:
            tk = s[TABLE_COUNT]
            if s[base] == 0:
                s[FACEDOWN + BLOCK * p + tv] += tk
                s[FACEDOWN + BLOCK * p] += tk
            else:
                s[base + tv] += tk
                s[base] += tk
                s[kb + tv] += tk
                s[kb] += tk
        if s[base] == 0:
            s[EMPTIED + p] = 1
            s[FINAL] = 1
        s[TABLE_NUM] = v
        s[TABLE_COUNT] = k
        s[TABLE_OWNER] = p
    owner = s[TABLE_OWNER]
    nxt = -1
    for i in range(1, n):
        q = (p + i) % n
        if q != owner and s[PASSED + q] == 0 and s[HAND + BLOCK * q] > 0:
            nxt = q
            break
    if nxt >= 0:
        s[CUR] = nxt
    else:
        _end_round(s)
    if s[PHASE] != PHASE_OVER and s[DECISIONS] >= MAX_GAME_LENGTH:
        _finish(s)
        s[TRUNCATED] = 1


@njit(cache=True)
def _finish(s):
    s[PHASE] = PHASE_OVER
    s[CUR] = -1
    for p in range(s[N_PLAYERS]):
        s[POINTS + p] = points_of(s, p)


@njit(cache=True)
def _end_round(s):
    n = s[N_PLAYERS]
    o = s[TABLE_OWNER]
    tv = s[TABLE_NUM]
    tk = s[TABLE_COUNT]
    if s[EMPTIED + o] == 1 and s[CFG_EMPTIER_SCORES] == 0:
        s[FACEDOWN + BLOCK * o + tv] += tk
        s[FACEDOWN + BLOCK * o] += tk
    else:
        s[SCORE + BLOCK * o + tv] += tk
        s[SCORE + BLOCK * o] += tk
    s[TABLE_NUM] = 0
    s[TABLE_COUNT] = 0
    s[TABLE_OWNER] = -1
    s[ROUNDS_DONE] += 1
    if s[FINAL] == 1:
        _finish(s)
        return
    s[ROUND] += 1
    for p in range(n):
        s[PASSED + p] = 0
    s[START] = o
    s[CUR] = o


@njit(cache=True)
def points_of(s, p):
    """Points of seat ``p`` (rules "Scoring"): 1 per face-up number card; R cards count only
    for a player who emptied their hand; face-down cards count nothing."""
    base = SCORE + BLOCK * p
    pts = 0
    for v in range(1, 10):
        pts += s[base + v]
    if s[EMPTIED + p] == 1:
        pts += s[base + R]
    return pts


@njit(cache=True)
def is_terminal(s):
    """True once the game is over (rules "End of the game"; or truncated)."""
    return s[PHASE] == PHASE_OVER


@njit(cache=True)
def returns(s, out):
    """Each seat's points at the end ("Scoring") into ``out`` (``float64 (MAX_PLAYERS,)``);
    zeros before the end and for seats beyond the player count."""
    for p in range(MAX_PLAYERS):
        out[p] = 0.0
    if s[PHASE] == PHASE_OVER:
        for p in range(s[N_PLAYERS]):
            out[p] = s[POINTS + p]


@njit(cache=True)
def current_player(s):
    """The seat to act, -1 once the game is over."""
    if s[PHASE] == PHASE_OVER:
        return -1
    return s[CUR]


@njit(cache=True)
def num_players(s):
    """The player count (3..5)."""
    return s[N_PLAYERS]


# ----------------------------------------------------------------------------- views
@njit(cache=True)
def observe(s, p, out):
    """What seat ``p`` sees, into ``out`` (``int64 (OBS_SIZE,)``, the state layout): ``s``
    with the other seats' per-number hand counts (not their hand sizes), ``RNG`` and ``KNOWN``
    zeroed, and ``OBS_PLAYER = p``."""
    out[:] = s[:OBS_SIZE]
    n = s[N_PLAYERS]
    for q in range(n):
        if q != p:
            for v in range(1, N_NUMBERS + 1):
                out[HAND + BLOCK * q + v] = 0
    for i in range(KNOWN, KNOWN + BLOCK * MAX_PLAYERS):
        out[i] = 0
    out[RNG] = 0
    out[OBS_PLAYER] = p


@njit(cache=True)
def information_state(s, p, out):
    """What seat ``p`` knows, into ``out`` (``int64 (INFO_SIZE,)``, the state layout): the
    observation (:func:`observe`) plus the ``KNOWN`` block (the replaced plays each seat took
    into hand and has not played since, and the 1 of the first start player)."""
    observe(s, p, out)
    for i in range(KNOWN, KNOWN + BLOCK * MAX_PLAYERS):
        out[i] = s[i]


@njit(cache=True)
def determinize(s, p, seed, out):
    """A copy of ``s`` in ``out`` (``int64 (STATE_SIZE,)``) with the other seats' hands
    resampled for seat ``p`` and the chance word reseeded from ``seed`` (``int64``); see the
    determinization rule in the module docstring. A function of ``information_state(s, p)``
    and ``seed`` only: the result is built from that information state."""
    information_state(s, p, out)
    out[OBS_PLAYER] = -1
    n = s[N_PLAYERS]
    pool = np.zeros(N_NUMBERS + 1, dtype=np.int64)
    total = 0
    for v in range(1, N_NUMBERS + 1):
        c = out[IN_PLAY + v] - out[HAND + BLOCK * p + v]
        for q in range(n):
            c -= out[SCORE + BLOCK * q + v] + out[FACEDOWN + BLOCK * q + v]
            if q != p:
                c -= out[KNOWN + BLOCK * q + v]
        if out[TABLE_NUM] == v:
            c -= out[TABLE_COUNT]
        if c < 0:
            c = 0
        pool[v] = c
        total += c
    out[RNG] = seed ^ DEAL_SALT
    for q in range(n):
        if q == p:
            continue
        hb = HAND + BLOCK * q
        kb = KNOWN + BLOCK * q
        for v in range(1, N_NUMBERS + 1):
            out[hb + v] = out[kb + v]
        need = out[hb] - out[kb]
        for _ in range(need):
            if total <= 0:
                break
            r = chance.rand_below(out, RNG, total)
            v = 1
            while r >= pool[v]:
                r -= pool[v]
                v += 1
            pool[v] -= 1
            total -= 1
            out[hb + v] += 1
    out[RNG] = chance.mix(seed ^ CHANCE_SALT)


@njit(cache=True)
def observation_tensor(s, p, out):
    """The information state of ``p`` as ``float32 (TENSOR_SIZE,)`` (209), seats relative to
    ``p`` (``r = (q - p) mod n``, row 0 is ``p``; rows ``r >= n`` stay 0), counts scaled by
    1/12 (hand sizes by 1/13, rounds by 1/57):

    ``[0:3]`` player count one-hot (3, 4, 5); ``[3:5]`` config flags; ``[5:10]`` seat to act
    (one-hot, relative); ``[10:20]`` own hand per number; ``[20:25]`` hand sizes; ``[25:75]``
    ``KNOWN`` per seat x number; ``[75:85]`` table number one-hot; ``[85]`` table count;
    ``[86:91]`` table owner one-hot; ``[91:141]`` score piles; ``[141:191]`` face-down piles;
    ``[191:196]`` passed; ``[196:201]`` emptied; ``[201:206]`` start player of the round;
    ``[206]`` final round; ``[207]`` rounds completed; ``[208]`` game over."""
    for i in range(TENSOR_SIZE):
        out[i] = 0.0
    n = s[N_PLAYERS]
    out[n - 3] = 1.0
    out[3] = s[CFG_OPEN_SINGLE]
    out[4] = s[CFG_EMPTIER_SCORES]
    over = s[PHASE] == PHASE_OVER
    for v in range(1, N_NUMBERS + 1):
        out[9 + v] = s[HAND + BLOCK * p + v] / 12.0
    for r in range(n):
        q = (p + r) % n
        if not over and s[CUR] == q:
            out[5 + r] = 1.0
        out[20 + r] = s[HAND + BLOCK * q] / 13.0
        for v in range(1, N_NUMBERS + 1):
            out[25 + 10 * r + v - 1] = s[KNOWN + BLOCK * q + v] / 12.0
            out[91 + 10 * r + v - 1] = s[SCORE + BLOCK * q + v] / 12.0
            out[141 + 10 * r + v - 1] = s[FACEDOWN + BLOCK * q + v] / 12.0
        if s[TABLE_OWNER] == q:
            out[86 + r] = 1.0
        out[191 + r] = s[PASSED + q]
        out[196 + r] = s[EMPTIED + q]
        if not over and s[START] == q:
            out[201 + r] = 1.0
    if s[TABLE_NUM] > 0:
        out[74 + s[TABLE_NUM]] = 1.0
        out[85] = s[TABLE_COUNT] / 12.0
    out[206] = s[FINAL]
    out[207] = s[ROUNDS_DONE] / 57.0
    out[208] = 1.0 if over else 0.0


@njit(cache=True)
def observed_action(s, a, p):
    """Action ``a`` as seat ``p`` perceives it: ``a`` itself (every play and pass is public)."""
    return a


@njit(cache=True)
def inventory(s, out):
    """Count of each number 1..9 and R (index ``v - 1``) in play, ``int64 (INVENTORY_SIZE,)``,
    summed over every hand, score pile, face-down pile and the table (constant over a game and
    under :func:`determinize`: the deck of the player count)."""
    n = s[N_PLAYERS]
    for v in range(1, N_NUMBERS + 1):
        c = 0
        for q in range(n):
            c += s[HAND + BLOCK * q + v] + s[SCORE + BLOCK * q + v] + s[FACEDOWN + BLOCK * q + v]
        if s[TABLE_NUM] == v:
            c += s[TABLE_COUNT]
        out[v - 1] = c


@njit(cache=True)
def outcome(s, out):
    """The per-game statistics (``OUTCOME_FIELDS``) into ``out`` (``int64 (19,)``):
    points and emptied flags of seats 0..4 (0 beyond the player count), rounds, decisions,
    start player (holder of the 1), truncated."""
    n = s[N_PLAYERS]
    for p in range(MAX_PLAYERS):
        out[p] = s[POINTS + p] if p < n else 0
        out[MAX_PLAYERS + p] = s[EMPTIED + p] if p < n else 0
    out[2 * MAX_PLAYERS] = s[ROUND]
    out[2 * MAX_PLAYERS + 1] = s[DECISIONS]
    out[2 * MAX_PLAYERS + 2] = s[FIRST_START]
    out[2 * MAX_PLAYERS + 3] = s[TRUNCATED]


@njit(cache=True)
def progress(s, level):
    """Search-horizon counters: ``level`` 0 = rounds completed (a table cleared); ``level`` 1
    (or more) = 1 once the game is over, else 0 (the engine plays one game; a match is the
    experiments' business)."""
    if level <= 0:
        return s[ROUNDS_DONE]
    return 1 if s[PHASE] == PHASE_OVER else 0


# ----------------------------------------------------------------------------- scenarios
def state_from_hands(cfg: np.ndarray, hands, start: int) -> np.ndarray:
    """A state at the start of round 1 from given hands, for scenarios and tests.

    ``cfg``: ``int64 (CONFIG_SIZE,)`` config array; ``hands``: one dict or length-11 sequence
    of counts per seat (``{7: 2, 10: 3}`` = two 7s and three R); ``start``: the start player
    (also ``FIRST_START``). The cards in play (``IN_PLAY``) are exactly the hands' cards; if the
    start player holds the 1 it is public (``KNOWN``), as in a dealt game. Returns ``int64
    (STATE_SIZE,)``. Raises ``ValueError`` for a wrong number of hands, a bad number or count,
    more copies of a number than the full 57-card deck has, a start player out of range or
    with an empty hand.
    """
    n = int(cfg[0])
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    st[:CONFIG_SIZE] = cfg[:CONFIG_SIZE]
    if len(hands) != n:
        raise ValueError(f"bad hands: {len(hands)} given for {n} players")
    for p, h in enumerate(hands):
        items = h.items() if isinstance(h, dict) else enumerate(h)
        for v, c in items:
            v = int(v)
            if not 1 <= v <= N_NUMBERS or int(c) < 0:
                if isinstance(h, dict) or (v != 0 and int(c) != 0):
                    raise ValueError(f"bad hand {p}: number {v} count {c}: expected numbers "
                                     f"1..10 (10 = R) and counts >= 0")
                continue
            st[HAND + BLOCK * p + v] += int(c)
            st[HAND + BLOCK * p] += int(c)
            st[IN_PLAY + v] += int(c)
            st[IN_PLAY] += int(c)
    for v in range(1, N_NUMBERS + 1):
        full = 12 if v == R else v
        if st[IN_PLAY + v] > full:
            raise ValueError(f"bad hands: {st[IN_PLAY + v]} cards of number {v}: the deck "
                             f"has {full}")
    if isinstance(start, bool) or not isinstance(start, (int, np.integer)) \
            or not 0 <= start < n:
        raise ValueError(f"bad start player {start!r}: expected a seat 0..{n - 1}")
    if st[HAND + BLOCK * start] == 0:
        raise ValueError(f"bad start player {start}: their hand is empty (the start player "
                         f"must open)")
    st[FIRST_START] = start
    _start_game(st)
    return st
