"""The compiled rules core of Rats (``docs/rules/rats.md``) behind the one game protocol
(:mod:`engines.protocol`): one flat ``int64`` state array and the protocol's kernels.

Cards follow :mod:`engines.cards`: id ``4 * rank + suit`` (rank 0..12 = 2..A, suit 0..3 =
clubs, diamonds, hearts, spades), jokers 52 and 53. Rats' suit order ♠ > ♥ > ♦ > ♣ is the suit
index order. A set of cards is a 54-bit **card mask** (bit ``c`` set = card ``c`` present).

Action table (``NUM_DISTINCT_ACTIONS = 58``; all actions are public, so
``observed_action(s, a, p) = a``):

=========  ================================================================================
id         meaning
=========  ================================================================================
0..53      card id ``c``. A follower plays ``c`` (one card per decision, rules "What an engine
           must expose"); a leader adds ``c`` to the lead being built
54         ``FINISH``: the leader ends the lead being built (legal iff the cards chosen so far
           form a valid lead of the declared kind)
55         ``LEAD_SINGLE``: the leader declares a single card (legal iff the hand holds one)
56         ``LEAD_SET``: the leader declares a set (2+ cards of one rank, jokers wild)
57         ``LEAD_SEQ``: the leader declares a sequence (a run: 3..13 cards of one suit)
=========  ================================================================================

A lead is a short sequence of decisions: the kind, then its cards in **ascending id order**,
then ``FINISH``. A card is legal iff some valid lead of the declared kind from the hand
contains the cards chosen so far plus this card as the smallest card not yet chosen; so every
lead has exactly one path, and the leads reachable are those of :func:`generate_leads` (jokers
are interchangeable: a lead with one joker uses the lower joker id the hand holds). A single
is complete with its card, and a lead that empties its leader's hand completes by itself; any
other lead waits for ``FINISH``, even when no card could be added (completing by itself would
tell the other players that the leader holds no card to extend it). The leader declares the
kind because a joker can make the same cards a set or a sequence (``7s X1 X2``).

Sequences are read on *positions*: ace = 0 (or 13 with ``ace_high_sequences``), 2 = 1, ...,
K = 12. Play strengths (:func:`play_strength`, higher is stronger, -1 = cannot win):

==========  ================================================================================
single      rank of a natural card of the led suit (a lone joker: -1). A lone joker led by a
            leader with no other card (see :data:`JOKER_ONLY_LEAD`) leaves no led suit; then
            ``4 * rank + suit`` of every natural card counts.
set         rank of its natural cards (all equal), or ``joker_pair_rank`` for two jokers
sequence    ``16 * suit + top position`` of the reading chosen by ``joker_sequence_reading``
==========  ================================================================================

State layout (``STATE_SIZE = 136`` ``int64`` words; per-player blocks have 8 slots, seats
0..n_players-1 used). Observations (``observe``) and information states
(``information_state``) use the same layout (``OBS_SIZE = INFO_SIZE = STATE_SIZE``), with the
hidden words zeroed and the ``OBS_*`` / ``INFO_*`` words filled; in a full state those are 0.

======  ====================  ==========================================================
index   name                  meaning
======  ====================  ==========================================================
0       N_PLAYERS             2..5
1       CFG_FIRST_LEADER      configured first leader, -1 = drawn from the RNG
2       CFG_ACE_HIGH          1 = Q-K-A is a sequence ([decision] default 0)
3       CFG_SEQ_TIE_LATER     1 = equal sequences go to the later play (default 1)
4       CFG_JOKER_PAIR_RANK   rank of an all-joker set (default 12 = ace)
5       CFG_READ_STRONGEST    1 = a sequence with jokers is read strongest (default 1)
6       CFG_MAX_ROUNDS        0 = play to the last survivor, k = stop after round k
7       CFG_TIE_SHARED        1 = a tie left after the tie-breaks is shared (default 1)
8       CFG_ROUND_CAP         safety cap on rounds (default 200), ends ``truncated``
9       RNG                   splitmix64 word of the game's chance (:mod:`engines.protocol.chance`)
10      PHASE                 0 declare (leader picks the kind), 1 build (leader adds
                              cards), 2 follow, 3 game over
11      CUR                   seat to act (-1 once the game is over)
12      LEADER                leader of the current trick
13      LEAD_KIND             0 single, 1 set, 2 sequence (-1 before the declaration)
14      LEAD_N                cards per play in the current trick (0 while building)
15      N_PLAYED              completed plays in the current trick (the lead included)
16      CHOSEN                cards the current follower has already played this trick
17      ROUND                 round number, from 1
18      D0                    first deal size ``54 // n_players``
19      HAND_SIZE             ``H`` of the current round
20      KITTY                 card mask of the kitty (empty after round 1)
21      N_ALIVE               players not eliminated
22      LAST_WINNER           winner of the last completed trick (-1 before any)
23      DECISIONS             actions applied so far (the game's length in decisions)
24      TRICKS                tricks completed so far
25      TRUNCATED             1 if the game ended at the round cap or at MAX_GAME_LENGTH
26      N_WINNERS             players sharing the win at the end (0 = nobody)
27      FIRST_LEADER          leader of the first trick (configured or drawn)
28      OBS_PLAYER            -1 in a full state; the viewer in an observation/info state
29      OBS_KITTY_N           kitty size (observations only)
30      LAST_ADDED            highest card id of the lead being built (-1: none yet)
31      VIEW                  0 full state, 1 observation, 2 information state
32+p    HAND                  card mask of seat p's hand
40+p    CAPT                  cards p captured this round (public: played face up)
48+p    ASIDE                 p's holding not drawn into the hand (an eliminated player's
                              last holding stays here, out of play)
56+p    TABLE                 cards p played in the current trick (a leader's lead as it
                              is built)
64+i    ORDER                 seat of the i-th play of the current trick
72+p    ALIVE                 1 while p is in the game
80+p    ELIM_ROUND            round in which p was eliminated (0 = not eliminated)
88+p    WINNER                1 if p wins (shares the win) at the end
96+p    PLACE                 final place, 1 = best (shared places for ties)
104+p   OBS_HAND_N            hand size of p (observations only)
112+p   OBS_CAPT_N            captured cards of p this round (observations only)
120+p   OBS_ASIDE_N           holding set aside of p (observations only)
128+p   INFO_HOLD             from round 2 on, ``HAND | ASIDE`` of seat p (information
                              states only)
======  ====================  ==========================================================

Every card is at all times in exactly one of: a HAND, a CAPT, an ASIDE, a TABLE, the KITTY
(:func:`inventory` counts them: all 54 ids, once each).

**Knowledge and determinization** (:func:`determinize`). Seat ``p`` sees its hand and set-aside
pile, every table and capture pile (captured cards were played face up), and the counts of
every pile. In round 1 the unknown cards are the other hands (and set-aside piles, empty in
a real game) plus the kitty: ``determinize`` deals the sorted pool of those cards uniformly
into those places with their sizes (selection sampling, seat order, the kitty last). From
round 2 on every card ``p`` does not hold is known to lie in one given seat's holding (captures
are public and the kitty is the complement of the cards seen in round 1), so the information
state carries ``INFO_HOLD[q] = HAND[q] | ASIDE[q]`` and ``determinize`` resamples only each
other seat's split of that union into a hand of its size and a set-aside pile, uniformly (the
game's own draw is uniform). While another seat builds a lead whose cards do not form a lead
yet, the placement is conditioned on that seat's hand completing the lead (only such
placements fit its public choices; drawn by rejection). Once they form one, ``FINISH`` is
legal whatever the rest of its hand, and since such a lead never completes by itself its
waiting reveals nothing: no conditioning. The chance word becomes ``chance.mix(seed ^
DET_SALT)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
from engines.protocol import chance
from engines.protocol.bits import high_bit as _high_bit
from engines.protocol.bits import low_bit as _low_bit
from engines.protocol.bits import popcount as _popcount
from engines.protocol.chance import rand_below

# ----------------------------------------------------------------------------- protocol
GAME_NAME = "rats"
MIN_PLAYERS = 2
MAX_PLAYERS = 5
CONFIG_SIZE = 9
N_CARDS = 54

# ----------------------------------------------------------------------------- layout
N_PLAYERS = 0
CFG_FIRST_LEADER = 1
CFG_ACE_HIGH = 2
CFG_SEQ_TIE_LATER = 3
CFG_JOKER_PAIR_RANK = 4
CFG_READ_STRONGEST = 5
CFG_MAX_ROUNDS = 6
CFG_TIE_SHARED = 7
CFG_ROUND_CAP = 8
RNG = 9
PHASE = 10
CUR = 11
LEADER = 12
LEAD_KIND = 13
LEAD_N = 14
N_PLAYED = 15
CHOSEN = 16
ROUND = 17
D0 = 18
HAND_SIZE = 19
KITTY = 20
N_ALIVE = 21
LAST_WINNER = 22
DECISIONS = 23
TRICKS = 24
TRUNCATED = 25
N_WINNERS = 26
FIRST_LEADER = 27
OBS_PLAYER = 28
OBS_KITTY_N = 29
LAST_ADDED = 30
VIEW = 31
HAND = 32
CAPT = 40
ASIDE = 48
TABLE = 56
ORDER = 64
ALIVE = 72
ELIM_ROUND = 80
WINNER = 88
PLACE = 96
OBS_HAND_N = 104
OBS_CAPT_N = 112
OBS_ASIDE_N = 120
INFO_HOLD = 128
STATE_SIZE = 136
OBS_SIZE = STATE_SIZE
INFO_SIZE = STATE_SIZE

VIEW_FULL = 0
VIEW_OBS = 1
VIEW_INFO = 2

PHASE_DECLARE = 0
PHASE_BUILD = 1
PHASE_FOLLOW = 2
PHASE_OVER = 3
PHASE_NAMES = ("declare", "build", "follow", "over")

KIND_SINGLE = 0
KIND_SET = 1
KIND_SEQ = 2
KIND_NAMES = ("single", "set", "run")

# ----------------------------------------------------------------------------- actions
FINISH = 54
LEAD_SINGLE = 55
LEAD_SET = 56
LEAD_SEQ = 57
NUM_DISTINCT_ACTIONS = 58
HIDDEN_ACTION = NUM_DISTINCT_ACTIONS
MAX_LEGAL = 55
"""Capacity of a legal-action buffer: at most the 54 card ids plus ``FINISH`` (a declaration
has at most 3 legal kinds)."""

MAX_DECISIONS_PER_ROUND = 108
"""A round has at most ``2 * H + n_alive * H <= 2 * 27 + 54`` decisions (a declaration and a
finish per trick, one decision per card played; ``H <= 27`` tricks)."""
MAX_GAME_LENGTH = 200 * MAX_DECISIONS_PER_ROUND
"""Decisions after which the core ends a game (flagged ``truncated``): 200 full rounds of the
longest kind, so with the default ``round_cap`` (200) the round cap always comes first."""

INVENTORY_SIZE = N_CARDS
N_PLANES = 17
TENSOR_SCALARS = 42
TENSOR_SIZE = N_PLANES * N_CARDS + TENSOR_SCALARS
OUTCOME_FIELDS = (tuple(f"place_{p}" for p in range(MAX_PLAYERS))
                  + tuple(f"holding_{p}" for p in range(MAX_PLAYERS))
                  + tuple(f"elim_round_{p}" for p in range(MAX_PLAYERS))
                  + ("rounds", "decisions", "tricks", "truncated"))
"""Per-game statistics of :func:`outcome`: per seat (0..4; 0 for unused seats) the final place
(1 = best), the final holding size (0 if eliminated) and the elimination round (0 = not
eliminated); then the rounds played, the decisions, the tricks and the truncation flag."""
N_OUTCOME = len(OUTCOME_FIELDS)

CARD_BITS = (1 << 54) - 1
JOKER_BITS = (1 << 52) | (1 << 53)
NATURAL_BITS = (1 << 52) - 1
ACE = 12
MAX_LEADS = 8192
"""Capacity of a :func:`generate_leads` buffer. The leads of any hand are at most those of the
whole 54-card deck (a lead using one joker maps to the same lead with joker 52), which has
6,614 leads (7,742 with ``ace_high_sequences``)."""
KIND_SHIFT = 54
""":func:`generate_leads` writes a lead as ``mask | kind << KIND_SHIFT``."""

DET_SALT = 0x5A7D_E7E2_11C3_0B45
"""Salt of the chance word of a determinized state: ``chance.mix(seed ^ DET_SALT)``."""
DET_MAX_TRIES = 1 << 22
"""Cap of the rejection sampling of :func:`determinize` (a placement must let another seat
that is building a lead complete it). The acceptance chance is at least ``6 / (53 * 52 *
51)``, so the cap is reached with probability below ``exp(-180)``."""

JOKER_ONLY_LEAD = True
"""Engine decision (a gap of ``rats.md``): a leader whose hand is a single joker must lead it
(a lone joker may not be led otherwise). Such a trick has no led suit: the highest natural
card by rank, then suit (♠ > ♥ > ♦ > ♣) takes it; if all played cards are jokers the leader
does."""

_RANK_MASK = np.array([0xF << (4 * r) for r in range(13)], dtype=np.int64)
_SPREAD = np.array([sum(1 << (4 * i) for i in range(k)) for k in range(15)], dtype=np.int64)
_SUIT_MASK = np.array([sum(1 << (4 * r + s) for r in range(13)) for s in range(4)], dtype=np.int64)


# ----------------------------------------------------------------------------- bit helpers
# one instruction each (engines.protocol.bits), where a SWAR popcount and a de Bruijn lookup were
# (lead generation, a large share of a heuristic game, is bit counting and locating)
@njit_per_type
def popcount(x):
    """Number of set bits of a non-negative ``int64``."""
    return _popcount(x)


@njit(cache=True)
def low_bit_index(x):
    """Index of the lowest set bit of a non-zero ``int64``."""
    return _low_bit(x)


@njit(cache=True)
def high_bit_index(x):
    """Index of the highest set bit of a positive ``int64``."""
    return _high_bit(x)


@njit_per_type
def upto(c):
    """Card mask of the ids ``0 .. c`` (``-1 <= c <= 53``; -1 gives the empty mask)."""
    if c < 0:
        return np.int64(0)
    return (np.int64(2) << c) - 1


@njit(cache=True)
def _above(c):
    """Card mask of the ids strictly above ``c`` (``-1 <= c <= 53``)."""
    return CARD_BITS & ~upto(c)


# ----------------------------------------------------------------------------- strength
@njit_per_type
def set_rank(mask, joker_pair_rank):
    """Rank 0..12 of ``mask`` read as a set (rules "Tricks"), or -1 if it is not one.

    A set is 2+ cards whose natural cards share one rank; it takes their rank, an all-joker
    set takes ``joker_pair_rank`` ([decision], default 12 = ace).
    """
    if popcount(mask) < 2:
        return -1
    nat = mask & ~JOKER_BITS
    if nat == 0:
        return joker_pair_rank
    r = low_bit_index(nat) >> 2
    if nat & ~_RANK_MASK[r]:
        return -1
    return r


@njit(cache=True)
def _positions(nat, s):
    """Sequence positions (bit ``r + 1`` for rank ``r`` = 2..K) of the natural cards of suit
    ``s`` in ``nat``, the ace excluded."""
    pbits = 0
    m = nat & _SUIT_MASK[s] & ~(np.int64(1) << (4 * ACE + s))
    while m:
        c = low_bit_index(m)
        pbits |= np.int64(1) << ((c >> 2) + 1)
        m &= m - 1
    return pbits


@njit_per_type
def sequence_strength(mask, ace_high, strongest):
    """``16 * suit + top`` of ``mask`` read as a sequence (rules "Tricks"), -1 if not one.

    A sequence is 3+ cards (at most 13) of one suit on consecutive positions (ace = 0, 2 = 1,
    ..., K = 12; with ``ace_high`` the ace may also be 13); jokers fill any position. With
    jokers the reading is the strongest (``strongest=1``, [decision] default: highest top) or
    the weakest consistent placement of the window.
    """
    nat = mask & ~JOKER_BITS
    t = popcount(mask & JOKER_BITS)
    n = popcount(nat)
    length = n + t
    if n == 0 or length < 3 or length > 13:
        return -1
    s = low_bit_index(nat) & 3
    if nat & ~_SUIT_MASK[s]:
        return -1
    limit = 13 if ace_high else 12
    has_ace = (nat >> (4 * ACE + s)) & 1
    pbits = _positions(nat, s)
    best = -1
    n_place = 1
    if has_ace and ace_high:
        n_place = 2
    for k in range(n_place):
        bits = pbits
        if has_ace:
            bits |= 1 if k == 0 else (1 << 13)
        a = low_bit_index(bits)
        b = high_bit_index(bits)
        w = b - a + 1
        if w > length:
            continue
        lo = b - length + 1
        if lo < 0:
            lo = 0
        hi = limit - length + 1
        if a < hi:
            hi = a
        if lo > hi:
            continue
        top = (hi if strongest else lo) + length - 1
        if best < 0 or (strongest and top > best) or ((not strongest) and top < best):
            best = top
    if best < 0:
        return -1
    return 16 * s + best


@njit_per_type
def play_strength(kind, mask, led_suit, ace_high, strongest, joker_pair_rank):
    """Strength of one play in a trick of lead kind ``kind`` (rules "Tricks"); -1 = no win.

    ``led_suit`` (0..3) matters for singles; ``-1`` means a lone joker was led (see
    :data:`JOKER_ONLY_LEAD`): then a natural card's strength is ``4 * rank + suit``.
    A play that does not match the lead's kind returns -1.
    """
    if kind == KIND_SINGLE:
        if popcount(mask) != 1:
            return -1
        c = low_bit_index(mask)
        if c >= 52:
            return -1
        if led_suit < 0:
            return c
        if (c & 3) != led_suit:
            return -1
        return c >> 2
    if kind == KIND_SET:
        return set_rank(mask, joker_pair_rank)
    if kind == KIND_SEQ:
        return sequence_strength(mask, ace_high, strongest)
    return -1


@njit(cache=True)
def trick_winner(kind, table, order, n_plays, ace_high, strongest, joker_pair_rank, tie_later):
    """Seat that takes a trick (rules "Tricks", "Who takes the trick"); a pure function.

    ``table``: ``int64`` card masks indexed by seat; ``order``: ``int64`` seats in play order,
    ``order[0]`` the leader; ``n_plays`` plays are compared. Singles: highest card of the led
    suit; sets: highest rank, later play wins ties; sequences: suit, then top card, ties to the
    later play if ``tie_later`` else to the earlier ([decision]). Returns -1 if the lead itself
    is not a play of kind ``kind``.
    """
    lead = table[order[0]]
    led_suit = -1
    if kind == KIND_SINGLE:
        c = low_bit_index(lead)
        if c < 52:
            led_suit = c & 3
    best_seat = order[0]
    best = play_strength(kind, lead, led_suit, ace_high, strongest, joker_pair_rank)
    if best < 0 and not (kind == KIND_SINGLE and led_suit < 0 and popcount(lead) == 1):
        return -1
    for i in range(1, n_plays):
        seat = order[i]
        s = play_strength(kind, table[seat], led_suit, ace_high, strongest, joker_pair_rank)
        if s < 0:
            continue
        if s > best or (s == best and (kind == KIND_SET or (kind == KIND_SEQ and tie_later))):
            best = s
            best_seat = seat
    return best_seat


# ----------------------------------------------------------------------------- lead generation
@njit(cache=True)
def generate_leads(hand, ace_high, out):
    """Write every legal lead of ``hand`` (a card mask) into ``out``; return their count.

    A lead is written as ``mask | kind << KIND_SHIFT`` (kind 0 single, 1 set, 2 sequence).
    Leads (rules "Tricks"): each natural single; each set (every non-empty subset of one rank's
    natural cards plus 0..2 jokers, 2+ cards; the two jokers alone); each sequence (every card
    set of one suit plus jokers that :func:`sequence_strength` reads as a sequence). Jokers are
    interchangeable: a lead using one joker uses the lower joker id the hand holds. A hand that
    is one joker leads it (:data:`JOKER_ONLY_LEAD`). ``out``: ``int64`` array of at least
    :data:`MAX_LEADS` entries. The step API reaches exactly these leads, card by card
    (:func:`legal_actions`); policies use this list to plan a whole lead.
    """
    n = 0
    jok = hand & JOKER_BITS
    nj = popcount(jok)
    j1 = jok & -jok
    nat_all = hand & ~JOKER_BITS
    if nat_all == 0 and nj == 1:
        out[0] = jok
        return 1
    # singles
    m = nat_all
    while m:
        b = m & -m
        out[n] = b
        n += 1
        m ^= b
    # sets
    set_tag = KIND_SET << KIND_SHIFT
    for r in range(13):
        nat = nat_all & _RANK_MASK[r]
        if nat == 0:
            continue
        sub = nat
        while sub:
            k = popcount(sub)
            if k >= 2:
                out[n] = sub | set_tag
                n += 1
            if nj >= 1:
                out[n] = sub | j1 | set_tag
                n += 1
            if nj == 2:
                out[n] = sub | jok | set_tag
                n += 1
            sub = (sub - 1) & nat
    if nj == 2:
        out[n] = jok | set_tag
        n += 1
    # sequences
    seq_tag = KIND_SEQ << KIND_SHIFT
    npos = 14 if ace_high else 13
    for s in range(4):
        pbits = _positions(nat_all, s)
        if (nat_all >> (4 * ACE + s)) & 1:
            pbits |= 1
            if ace_high:
                pbits |= 1 << 13
        if popcount(pbits) + nj < 3:
            continue
        for a in range(npos):
            if not (pbits >> a) & 1:
                continue
            bmax = a + 12
            if bmax > npos - 1:
                bmax = npos - 1
            for b in range(a, bmax + 1):
                if not (pbits >> b) & 1:
                    continue
                w = b - a + 1
                n_base = 1 if a == b else 2
                base = (np.int64(1) << _card_at(a, s)) | (np.int64(1) << _card_at(b, s))
                if w > 2:
                    interior = ((np.int64(1) << (b - a - 1)) - 1) << (a + 1)
                else:
                    interior = 0
                held_int = pbits & interior
                missing = popcount(interior) - popcount(held_int)
                if missing > nj:
                    continue
                # omit up to (nj - missing) held interior cards, jokers fill every gap
                o1 = held_int
                # omission of nothing, then each single, then each pair
                for mode in range(3):
                    if mode > nj - missing:
                        break
                    if mode == 0:
                        n = _emit_seq(out, n, base, n_base, held_int, 0, w, s, nj, j1, jok,
                                      b, ace_high, seq_tag)
                    elif mode == 1:
                        x = o1
                        while x:
                            bx = x & -x
                            n = _emit_seq(out, n, base, n_base, held_int, bx, w, s, nj, j1,
                                          jok, b, ace_high, seq_tag)
                            x ^= bx
                    else:
                        x = o1
                        while x:
                            bx = x & -x
                            x ^= bx
                            y = x
                            while y:
                                by = y & -y
                                y ^= by
                                n = _emit_seq(out, n, base, n_base, held_int, bx | by, w, s,
                                              nj, j1, jok, b, ace_high, seq_tag)
    return n


@njit(cache=True)
def _card_at(pos, s):
    """Card id of position ``pos`` (0 or 13 = ace, 1..12 = 2..K) in suit ``s``."""
    if pos == 0 or pos == 13:
        return 4 * ACE + s
    return 4 * (pos - 1) + s


@njit_per_type
def _emit_seq(out, n, base, n_base, held_int, omit, w, s, nj, j1, jok, b, ace_high, tag):
    used = held_int & ~omit
    nat = base
    x = used
    while x:
        bx = x & -x
        nat |= np.int64(1) << _card_at(low_bit_index(bx), s)
        x ^= bx
    nn = n_base + popcount(used)
    gaps = w - nn
    for t in range(gaps, nj + 1):
        length = nn + t
        if length < 3 or length > 13:
            continue
        if ace_high and b == 13:
            # the ace stands high here; skip card sets the ace-low reading already produced
            rest = nat & ~(np.int64(1) << (4 * ACE + s))
            hb = 0
            r = 11
            while r >= 0:
                if (rest >> (4 * r + s)) & 1:
                    hb = r + 1
                    break
                r -= 1
            if hb + 1 <= length:
                continue
        if t == 0:
            out[n] = nat | tag
        elif t == 1:
            out[n] = nat | j1 | tag
        else:
            out[n] = nat | jok | tag
        n += 1
    return n


# ----------------------------------------------------------------------------- lead building
@njit_per_type
def _spread_positions(cards, ace_high):
    """Sequence positions of the natural cards of ``cards`` as a *spread* mask: bit ``4 * pos
    + suit`` (pos 1..12 = 2..K, the ace at pos 0 and, with ``ace_high``, also at pos 13), so
    that shifting by 4 moves every suit one position at once."""
    nat = cards & NATURAL_BITS
    z = (nat << 4) | ((nat >> 48) & 0xF)
    if not ace_high:
        z &= (np.int64(1) << 52) - 1
    return z


@njit_per_type
def _window_fits(pn, n_n, pe, t_min, t_max, limit, s):
    """True if a sequence of suit ``s`` exists whose natural positions include ``pn`` (spread
    mask, ``n_n`` distinct positions), whose other naturals come from the positions ``pe``
    (spread) and which uses ``t_min .. t_max`` jokers: some window ``[a, b]`` inside ``[0,
    limit]`` of length 3..13 contains ``pn``, has room for ``t_min`` jokers, and its gaps not
    covered by ``pe`` need at most ``t_max`` jokers. For a start ``a`` the shortest allowed end
    is best (the gaps only grow with ``b``), so one pass over ``a`` decides."""
    lo = low_bit_index(pn) >> 2
    hi = high_bit_index(pn) >> 2
    if hi - lo + 1 > 13:
        return False
    need = n_n + t_min
    if need < 3:
        need = 3
    a_min = hi - 12
    if a_min < 0:
        a_min = 0
    for a in range(lo, a_min - 1, -1):
        b = a + need - 1
        if b < hi:
            b = hi
        length = b - a + 1
        if b > limit or length > 13:
            continue
        if length - n_n - popcount(pe & (_SPREAD[length] << (4 * a + s))) <= t_max:
            return True
    return False


@njit_per_type
def _seq_extendable(nat_chosen, s, extra, t_min, t_max, ace_high):
    """True if the naturals ``nat_chosen`` (non-empty, suit ``s``) plus some of the naturals
    ``extra`` (suit ``s``) and ``t_min .. t_max`` jokers form a sequence (rules "Tricks")."""
    limit = 13 if ace_high else 12
    ace_bit = np.int64(1) << (4 * ACE + s)
    pe = _spread_positions(extra, ace_high)
    n_n = popcount(nat_chosen)
    pn = (nat_chosen & ~ace_bit) << 4
    if nat_chosen & ace_bit:
        if _window_fits(pn | (np.int64(1) << s), n_n, pe, t_min, t_max, limit, s):
            return True
        return ace_high == 1 and _window_fits(pn | (np.int64(1) << (52 + s)), n_n, pe, t_min,
                                              t_max, limit, s)
    return _window_fits(pn, n_n, pe, t_min, t_max, limit, s)


@njit(cache=True, inline="always")
def _kind_available(hand, kind, ace_high):
    """True if ``hand`` holds at least one lead of ``kind`` (what makes the declaration of
    that kind legal)."""
    jok = hand & JOKER_BITS
    nj = popcount(jok)
    nat = hand & NATURAL_BITS
    if kind == KIND_SINGLE:
        return nat != 0 or (JOKER_ONLY_LEAD and nj == 1 and popcount(hand) == 1)
    if kind == KIND_SET:
        if nj == 2 or (nj == 1 and nat != 0):
            return True
        # two naturals of one rank: two bits 1, 2 or 3 apart inside one 4-bit rank group
        return ((nat & (nat >> 1) & 0x7777777777777) | (nat & (nat >> 2) & 0x3333333333333)
                | (nat & (nat >> 3) & 0x1111111111111)) != 0
    # a sequence exists iff 3 consecutive positions of one suit hold a natural and at most
    # nj gaps (any longer valid window contains such a 3-window); spread masks test every
    # suit and window at once
    z = _spread_positions(nat, ace_high)
    if z == 0:
        return False
    if nj >= 2:
        return True
    if nj == 1:
        return (z & ((z >> 4) | (z >> 8))) != 0
    return (z & (z >> 4) & (z >> 8)) != 0


@njit(cache=True)
def build_candidates(st, stop_at_first):
    """Card mask of the cards the leader may add to the lead being built (phase build): ``c``
    is legal iff a valid lead of the declared kind from the hand contains the cards chosen so
    far plus ``c`` as the smallest card not yet chosen (rules "Tricks"; jokers: the lowest
    held first). With ``stop_at_first`` it may return as soon as one card is found."""
    p = st[CUR]
    kind = st[LEAD_KIND]
    hand = st[HAND + p]
    chosen = st[TABLE + p]
    last = st[LAST_ADDED]
    jok = hand & JOKER_BITS
    nj = popcount(jok)
    jlow = jok & -jok
    nat = hand & NATURAL_BITS
    if kind == KIND_SINGLE:
        if chosen != 0:
            return 0
        if nat == 0 and JOKER_ONLY_LEAD and nj == 1 and popcount(hand) == 1:
            return jok
        return nat
    if kind == KIND_SET:
        if chosen == 0:
            res = 0
            m = nat
            while m:
                c = low_bit_index(m)
                m &= m - 1
                if nj > 0 or (nat & _RANK_MASK[c >> 2] & _above(c)) != 0:
                    res |= np.int64(1) << c
                    if stop_at_first:
                        return res
            if nj == 2:
                res |= jlow
            return res
        cnat = chosen & NATURAL_BITS
        if cnat == 0:
            return jok  # after the lower joker only the other joker fits
        return (nat & _RANK_MASK[low_bit_index(cnat) >> 2] & _above(last)) | jlow
    # sequences
    ace_high = st[CFG_ACE_HIGH]
    res = 0
    if chosen == 0:
        m = nat
        while m:
            c = low_bit_index(m)
            m &= m - 1
            b = np.int64(1) << c
            s = c & 3
            if _seq_extendable(b, s, nat & _SUIT_MASK[s] & _above(c), 0, nj, ace_high):
                res |= b
                if stop_at_first:
                    return res
        return res
    cnat = chosen & NATURAL_BITS
    s = low_bit_index(cnat) & 3
    cj = popcount(chosen & JOKER_BITS)
    if last < 52:
        cand = nat & _SUIT_MASK[s] & _above(last)
        m = cand
        while m:
            c = low_bit_index(m)
            m &= m - 1
            b = np.int64(1) << c
            if _seq_extendable(cnat | b, s, cand & _above(c), 0, nj, ace_high):
                res |= b
                if stop_at_first:
                    return res
    if jlow != 0 and _seq_extendable(cnat, s, 0, cj + 1, cj + nj, ace_high):
        res |= jlow
    return res


@njit(cache=True)
def lead_complete(st):
    """True if the cards chosen for the lead being built form a valid lead of the declared
    kind (``FINISH`` is legal)."""
    chosen = st[TABLE + st[CUR]]
    kind = st[LEAD_KIND]
    if kind == KIND_SINGLE:
        return popcount(chosen) == 1
    if kind == KIND_SET:
        return set_rank(chosen, 0) >= 0
    return sequence_strength(chosen, st[CFG_ACE_HIGH], 1) >= 0


# ----------------------------------------------------------------------------- game flow
@njit(cache=True)
def init_state(cfg, seed, out):
    """A new game in ``out`` (``int64 (STATE_SIZE,)``; rules "Deal (first round)").

    ``cfg``: ``int64 (CONFIG_SIZE,)`` from :meth:`engines.rats.config.RatsConfig.to_array`;
    ``seed``: the game's ``int64`` seed word. The 54 cards are shuffled (Fisher-Yates with the
    state's splitmix64 stream), ``D0 = 54 // n`` dealt to each seat in order, the rest is the
    kitty; then the first leader is drawn if not configured.
    """
    out[:] = 0
    for i in range(CONFIG_SIZE):
        out[i] = cfg[i]
    out[RNG] = seed
    n = cfg[0]
    deck = np.arange(N_CARDS, dtype=np.int64)
    for i in range(N_CARDS - 1, 0, -1):
        j = rand_below(out, RNG, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    d0 = N_CARDS // n
    k = 0
    for p in range(n):
        h = 0
        for _ in range(d0):
            h |= np.int64(1) << deck[k]
            k += 1
        out[HAND + p] = h
        out[ALIVE + p] = 1
    kit = 0
    while k < N_CARDS:
        kit |= np.int64(1) << deck[k]
        k += 1
    out[KITTY] = kit
    first = cfg[1]
    if first < 0:
        first = rand_below(out, RNG, n)
    out[FIRST_LEADER] = first
    out[D0] = d0
    out[HAND_SIZE] = d0
    out[ROUND] = 1
    out[N_ALIVE] = n
    out[LAST_WINNER] = -1
    out[OBS_PLAYER] = -1
    out[PHASE] = PHASE_DECLARE
    out[CUR] = first
    out[LEADER] = first
    out[LEAD_KIND] = -1
    out[LAST_ADDED] = -1


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions of the player to act into ``out`` (``int64 (MAX_LEGAL,)``),
    ascending; return their count (0 once the game is over). Declare: the kinds (55..57) the
    hand holds a lead of; build: the cards of :func:`build_candidates`, then ``FINISH`` (54)
    if :func:`lead_complete`; follow: every card of the hand (rules "What an engine must
    expose")."""
    ph = s[PHASE]
    if ph == PHASE_OVER:
        return 0
    p = s[CUR]
    hand = s[HAND + p]
    n = 0
    if ph == PHASE_DECLARE:
        ace_high = s[CFG_ACE_HIGH]
        for k in range(3):
            if _kind_available(hand, k, ace_high):
                out[n] = LEAD_SINGLE + k
                n += 1
        return n
    if ph == PHASE_BUILD:
        m = build_candidates(s, False)
        while m:
            out[n] = low_bit_index(m)
            n += 1
            m &= m - 1
        if lead_complete(s):
            out[n] = FINISH
            n += 1
        return n
    m = hand
    while m:
        out[n] = low_bit_index(m)
        n += 1
        m &= m - 1
    return n


@njit(cache=True)
def next_alive(s, p):
    """Next seat after ``p`` in turn order that is still in the game."""
    n = s[N_PLAYERS]
    q = (p + 1) % n
    while s[ALIVE + q] == 0:
        q = (q + 1) % n
    return q


@njit(cache=True)
def apply_action(s, a):
    """Apply the **legal** action ``a`` of the player to act in place, then every forced step
    (a single or a lead that empties the hand completes; the trick, round and game ends; later
    shuffles from the state's chance word). Rules "Tricks", "End of a round", "Later rounds",
    "End of the game". Legality is the caller's duty (the step API checks it). A game that
    reaches :data:`MAX_GAME_LENGTH` decisions ends as in the ``max_rounds`` variant, flagged
    truncated."""
    p = s[CUR]
    s[DECISIONS] += 1
    ph = s[PHASE]
    if ph == PHASE_DECLARE:
        s[LEAD_KIND] = a - LEAD_SINGLE
        s[LEADER] = p
        s[LAST_ADDED] = -1
        s[PHASE] = PHASE_BUILD
    elif ph == PHASE_BUILD:
        if a == FINISH:
            _finish_lead(s, p)
        else:
            b = np.int64(1) << a
            s[HAND + p] &= ~b
            s[TABLE + p] |= b
            s[LAST_ADDED] = a
            # a single is complete with its card, and an empty hand cannot add more; any
            # other lead waits for FINISH even when no card can be added, since completing
            # by itself would tell the others that its leader holds no card to extend it
            if s[LEAD_KIND] == KIND_SINGLE or s[HAND + p] == 0:
                _finish_lead(s, p)
    else:
        s[HAND + p] &= ~(np.int64(1) << a)
        s[TABLE + p] |= np.int64(1) << a
        s[CHOSEN] += 1
        if s[CHOSEN] >= s[LEAD_N]:
            s[CHOSEN] = 0
            s[ORDER + s[N_PLAYED]] = p
            s[N_PLAYED] += 1
            if s[N_PLAYED] < s[N_ALIVE]:
                s[CUR] = next_alive(s, p)
            else:
                _finish_trick(s)
    if s[PHASE] != PHASE_OVER and s[DECISIONS] >= MAX_GAME_LENGTH:
        _truncate(s)


@njit(cache=True)
def _finish_lead(s, p):
    s[LEAD_N] = popcount(s[TABLE + p])
    s[ORDER] = p
    s[N_PLAYED] = 1
    s[CHOSEN] = 0
    s[LAST_ADDED] = -1
    if s[N_PLAYED] < s[N_ALIVE]:
        s[PHASE] = PHASE_FOLLOW
        s[CUR] = next_alive(s, p)
    else:
        _finish_trick(s)


@njit(cache=True)
def _finish_trick(s):
    w = trick_winner(s[LEAD_KIND], s[TABLE:TABLE + MAX_PLAYERS], s[ORDER:ORDER + MAX_PLAYERS],
                     s[N_PLAYED], s[CFG_ACE_HIGH], s[CFG_READ_STRONGEST],
                     s[CFG_JOKER_PAIR_RANK], s[CFG_SEQ_TIE_LATER])
    n = s[N_PLAYERS]
    won = 0
    for q in range(n):
        won |= s[TABLE + q]
        s[TABLE + q] = 0
    s[CAPT + w] |= won
    s[TRICKS] += 1
    s[LAST_WINNER] = w
    s[N_PLAYED] = 0
    s[LEAD_KIND] = -1
    s[LEAD_N] = 0
    s[LEADER] = w
    s[CUR] = w
    s[PHASE] = PHASE_DECLARE
    if s[HAND + w] == 0:
        _end_round(s)


@njit(cache=True)
def _draw(s, hold, k):
    """``k`` cards of the card mask ``hold`` chosen uniformly with the state's chance word
    (selection sampling, Knuth's Algorithm S, over the cards in ascending id order)."""
    left = popcount(hold)
    need = k
    out = 0
    m = hold
    while need > 0:
        b = m & -m
        m ^= b
        if rand_below(s, RNG, left) < need:
            out |= b
            need -= 1
        left -= 1
    return out


@njit(cache=True)
def _end_round(s):
    n = s[N_PLAYERS]
    w = s[LAST_WINNER]
    rnd = s[ROUND]
    if rnd == 1:
        s[CAPT + w] |= s[KITTY]
        s[KITTY] = 0
    alive = 0
    smallest = N_CARDS
    for p in range(n):
        if s[ALIVE + p] == 0:
            continue
        if s[CAPT + p] == 0:
            s[ALIVE + p] = 0
            s[ELIM_ROUND + p] = rnd
            continue
        s[ASIDE + p] |= s[CAPT + p]
        s[CAPT + p] = 0
        alive += 1
        c = popcount(s[ASIDE + p])
        if c < smallest:
            smallest = c
    s[N_ALIVE] = alive
    over = alive <= 1
    if not over and s[CFG_MAX_ROUNDS] > 0 and rnd >= s[CFG_MAX_ROUNDS]:
        over = True
    if not over and rnd >= s[CFG_ROUND_CAP]:
        over = True
        s[TRUNCATED] = 1
    if over:
        _finish_game(s)
        return
    h = s[D0]
    if smallest < h:
        h = smallest
    s[HAND_SIZE] = h
    s[ROUND] = rnd + 1
    for p in range(n):
        if s[ALIVE + p] == 0:
            continue
        hold = s[ASIDE + p]
        hand = _draw(s, hold, h)
        s[HAND + p] = hand
        s[ASIDE + p] = hold & ~hand
    s[PHASE] = PHASE_DECLARE
    s[CUR] = w
    s[LEADER] = w


@njit(cache=True, inline="always")
def _truncate(s):
    """End a game that reached MAX_GAME_LENGTH decisions: the current trick is void (its cards
    go back to the hands they came from), then the game ends as in the ``max_rounds`` variant,
    flagged truncated."""
    n = s[N_PLAYERS]
    for q in range(n):
        s[HAND + q] |= s[TABLE + q]
        s[TABLE + q] = 0
    s[N_PLAYED] = 0
    s[CHOSEN] = 0
    s[LEAD_N] = 0
    s[LEAD_KIND] = -1
    s[LAST_ADDED] = -1
    s[TRUNCATED] = 1
    _finish_game(s)


@njit(cache=True)
def holding_key(s, p):
    """Ranking key of seat ``p`` at the end (rules "End of the game"): eliminated players rank
    by their elimination round; survivors above them by holding size, then spades, hearts,
    diamonds (each count < 64, packed in 8-bit fields)."""
    if s[ALIVE + p] == 0:
        return s[ELIM_ROUND + p]
    hold = s[ASIDE + p] | s[CAPT + p] | s[HAND + p]
    key = popcount(hold) << 24
    key |= popcount(hold & _SUIT_MASK[3]) << 16
    key |= popcount(hold & _SUIT_MASK[2]) << 8
    key |= popcount(hold & _SUIT_MASK[1])
    return (np.int64(1) << 40) + key


@njit(cache=True)
def _finish_game(s):
    n = s[N_PLAYERS]
    s[PHASE] = PHASE_OVER
    s[CUR] = -1
    best = -1
    for p in range(n):
        k = holding_key(s, p)
        if k > best:
            best = k
    n_best = 0
    for p in range(n):
        k = holding_key(s, p)
        better = 0
        for q in range(n):
            if holding_key(s, q) > k:
                better += 1
        s[PLACE + p] = better + 1
        if k == best:
            n_best += 1
    share = n_best == 1 or s[CFG_TIE_SHARED] == 1
    s[N_WINNERS] = n_best if share else 0
    for p in range(n):
        s[WINNER + p] = 1 if (share and holding_key(s, p) == best) else 0


@njit(cache=True)
def is_terminal(s):
    """True once the game is over (rules "End of the game")."""
    return s[PHASE] == PHASE_OVER


@njit(cache=True)
def current_player(s):
    """The seat to act, -1 once the game is over."""
    if s[PHASE] == PHASE_OVER:
        return -1
    return s[CUR]


@njit(cache=True)
def num_players(s):
    """The player count of this game (2..5)."""
    return s[N_PLAYERS]


@njit(cache=True)
def returns(s, out):
    """Each seat's return into ``out`` (``float64 (MAX_PLAYERS,)``): a winner's share of the
    win (1, or 1/k for a tie shared by k players), 0 for the others; all zeros before the end,
    when nobody wins (``max_rounds_tie='none'``) and for seats beyond the player count."""
    out[:] = 0.0
    if s[PHASE] != PHASE_OVER or s[N_WINNERS] == 0:
        return
    for p in range(s[N_PLAYERS]):
        if s[WINNER + p]:
            out[p] = 1.0 / s[N_WINNERS]


@njit(cache=True)
def observe(s, p, out):
    """What seat ``p`` sees now, into ``out`` (``int64 (OBS_SIZE,)``, the state layout): a copy
    of ``s`` with the other seats' hands and set-aside piles, the kitty and the chance word
    zeroed, and the ``OBS_*`` words filled (hand, capture and set-aside sizes of every seat,
    kitty size, ``OBS_PLAYER = p``, ``VIEW = 1``). Tables and capture piles stay (public)."""
    out[:] = s
    n = s[N_PLAYERS]
    for q in range(n):
        out[OBS_HAND_N + q] = popcount(s[HAND + q])
        out[OBS_CAPT_N + q] = popcount(s[CAPT + q])
        out[OBS_ASIDE_N + q] = popcount(s[ASIDE + q])
        if q != p:
            out[HAND + q] = 0
            out[ASIDE + q] = 0
    for q in range(MAX_PLAYERS):
        out[INFO_HOLD + q] = 0
    out[OBS_KITTY_N] = popcount(s[KITTY])
    out[KITTY] = 0
    out[RNG] = 0
    out[OBS_PLAYER] = p
    out[VIEW] = VIEW_OBS


@njit(cache=True)
def information_state(s, p, out):
    """What seat ``p`` knows, into ``out`` (``int64 (INFO_SIZE,)``): :func:`observe` plus, from
    round 2 on, ``INFO_HOLD[q] = HAND[q] | ASIDE[q]`` of every seat (known: captures are
    public and the kitty is the complement of what round 1 showed) and the kitty word (empty
    in a real game); ``VIEW = 2``. Masks are canonical, so nothing depends on where the hidden
    cards really are."""
    observe(s, p, out)
    out[VIEW] = VIEW_INFO
    if s[ROUND] >= 2:
        for q in range(s[N_PLAYERS]):
            out[INFO_HOLD + q] = s[HAND + q] | s[ASIDE + q]
        out[KITTY] = s[KITTY]


@njit(cache=True)
def _put_planes(out, mask, plane):
    m = mask
    while m:
        c = low_bit_index(m)
        out[c * N_PLANES + plane] = 1.0
        m &= m - 1


@njit(cache=True)
def observation_tensor(s, p, out):
    """The information state of seat ``p`` as ``float32 (TENSOR_SIZE,)`` into ``out``.

    Seats are relative: ``k`` means seat ``(p + k) % n``. First ``54 * 17`` one-hot card
    planes (index ``card * 17 + plane``): 0 own hand, 1 own set-aside pile, 2..6 on the table
    played by seat k, 7..11 in the capture pile of seat k, 12..15 in the holding (hand or set
    aside) of seat k = 1..4 (from round 2 on), 16 unknown (another hand or the kitty in round
    1). Then 42 scalars: phase one-hot (4), lead kind one-hot (3), lead size / 13, min(round,
    20) / 20,
    hand size / 27, alive (5), hand sizes / 27 (5), set-aside sizes / 54 (5), capture sizes /
    54 (5), player to act one-hot (5), leader one-hot (5), kitty size / 4, cards of the lead
    being built / 13."""
    out[:] = 0.0
    n = s[N_PLAYERS]
    known = s[HAND + p] | s[ASIDE + p]
    _put_planes(out, s[HAND + p], 0)
    _put_planes(out, s[ASIDE + p], 1)
    late = s[ROUND] >= 2
    for k in range(n):
        q = (p + k) % n
        _put_planes(out, s[TABLE + q], 2 + k)
        _put_planes(out, s[CAPT + q], 7 + k)
        known |= s[TABLE + q] | s[CAPT + q]
        if late and k > 0:
            h = s[HAND + q] | s[ASIDE + q]
            _put_planes(out, h, 11 + k)
            known |= h
    if late:
        known |= s[KITTY]
    _put_planes(out, CARD_BITS & ~known, 16)
    b = N_PLANES * N_CARDS
    out[b + s[PHASE]] = 1.0
    if s[LEAD_KIND] >= 0:
        out[b + 4 + s[LEAD_KIND]] = 1.0
    out[b + 7] = s[LEAD_N] / 13.0
    out[b + 8] = min(s[ROUND], 20) / 20.0
    out[b + 9] = s[HAND_SIZE] / 27.0
    for k in range(n):
        q = (p + k) % n
        out[b + 10 + k] = s[ALIVE + q]
        out[b + 15 + k] = popcount(s[HAND + q]) / 27.0
        out[b + 20 + k] = popcount(s[ASIDE + q]) / 54.0
        out[b + 25 + k] = popcount(s[CAPT + q]) / 54.0
    if s[PHASE] != PHASE_OVER:
        out[b + 30 + (s[CUR] - p) % n] = 1.0
        out[b + 35 + (s[LEADER] - p) % n] = 1.0
    out[b + 40] = popcount(s[KITTY]) / 4.0
    if s[PHASE] == PHASE_BUILD:
        out[b + 41] = popcount(s[TABLE + s[CUR]]) / 13.0


@njit(cache=True)
def determinize(s, p, seed, out):
    """A copy of ``s`` in ``out`` with everything seat ``p`` cannot know resampled uniformly
    and the chance word reseeded: ``out[RNG] = chance.mix(seed ^ DET_SALT)``.

    Round 1: the pool of cards ``p`` has not seen (the other seats' hands and set-aside piles
    and the kitty), taken in ascending id order, is dealt into those places with their sizes
    by selection sampling (seat order; the kitty gets the rest). Round 2 on: each other seat's
    ``HAND | ASIDE`` (known to ``p``) is split again into a hand of its size and a set-aside
    pile, uniformly. When another seat is building a lead, only placements in which its hand
    can complete that lead are consistent with its public choices so far (the declared kind
    and the cards added): the deal is redrawn from the same stream until the builder has a
    legal action, a card to add or ``FINISH`` (every placement passes once the cards chosen
    form a lead, as such a lead waits for ``FINISH`` whatever the hand holds; rejection
    sampling, so the result is uniform among those placements; the
    acceptance chance is at least about ``4e-5``, and after ``DET_MAX_TRIES`` draws the last
    one is kept). A function of
    (``information_state(s, p)``, ``seed``) only: the pool and sizes come from ``p``'s
    information, the draws from ``seed``."""
    out[:] = s
    out[RNG] = chance.mix(np.int64(seed) ^ DET_SALT)
    builder = s[PHASE] == PHASE_BUILD and s[CUR] != p
    for _ in range(DET_MAX_TRIES):
        _deal_hidden(s, p, out)
        if not builder or build_candidates(out, True) != 0 or lead_complete(out):
            break
    out[RNG] = chance.mix(np.int64(seed) ^ DET_SALT)


@njit(cache=True, inline="always")
def _deal_hidden(s, p, out):
    """One uniform placement of what ``p`` cannot see (see :func:`determinize`) into
    ``out``, drawing from ``out[RNG]``."""
    n = s[N_PLAYERS]
    if s[ROUND] == 1:
        pool = s[KITTY]
        for q in range(n):
            if q != p:
                pool |= s[HAND + q] | s[ASIDE + q]
        for q in range(n):
            if q == p:
                continue
            h = _draw(out, pool, popcount(s[HAND + q]))
            out[HAND + q] = h
            pool &= ~h
            a = _draw(out, pool, popcount(s[ASIDE + q]))
            out[ASIDE + q] = a
            pool &= ~a
        out[KITTY] = pool
    else:
        for q in range(n):
            if q == p:
                continue
            hold = s[HAND + q] | s[ASIDE + q]
            h = _draw(out, hold, popcount(s[HAND + q]))
            out[HAND + q] = h
            out[ASIDE + q] = hold & ~h


@njit(cache=True)
def observed_action(s, a, p):
    """Action ``a`` as seat ``p`` perceives it: ``a`` itself (every Rats action is public)."""
    return a


@njit(cache=True)
def inventory(s, out):
    """Count of each card id in play, ``int64 (54,)`` into ``out``: every card in a hand, a
    capture pile, a set-aside pile, on the table or in the kitty (always all 54, once)."""
    out[:] = 0
    _count_cards(out, s[KITTY])
    for q in range(s[N_PLAYERS]):
        _count_cards(out, s[HAND + q])
        _count_cards(out, s[CAPT + q])
        _count_cards(out, s[ASIDE + q])
        _count_cards(out, s[TABLE + q])


@njit(cache=True)
def _count_cards(out, mask):
    m = mask
    while m:
        out[low_bit_index(m)] += 1
        m &= m - 1


@njit(cache=True)
def outcome(s, out):
    """Per-game statistics (:data:`OUTCOME_FIELDS`) into ``out`` (``int64 (19,)``): per seat
    place, final holding size (0 if eliminated) and elimination round; rounds, decisions,
    tricks, truncated."""
    out[:] = 0
    n = s[N_PLAYERS]
    for p in range(n):
        out[p] = s[PLACE + p]
        if s[ALIVE + p]:
            out[MAX_PLAYERS + p] = popcount(s[ASIDE + p] | s[CAPT + p] | s[HAND + p])
        out[2 * MAX_PLAYERS + p] = s[ELIM_ROUND + p]
    out[3 * MAX_PLAYERS] = s[ROUND]
    out[3 * MAX_PLAYERS + 1] = s[DECISIONS]
    out[3 * MAX_PLAYERS + 2] = s[TRICKS]
    out[3 * MAX_PLAYERS + 3] = s[TRUNCATED]


@njit(cache=True)
def progress(s, level):
    """Search-horizon counters: ``level`` 0 = tricks completed, 1 (or more) = round number."""
    if level == 0:
        return s[TRICKS]
    return s[ROUND]
