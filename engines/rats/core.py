"""The compiled rules core of Rats (``../shared/rules/rats.md``): one flat ``int64`` state array.

Cards follow :mod:`engines.cards`: id ``4 * rank + suit`` (rank 0..12 = 2..A, suit 0..3 =
clubs, diamonds, hearts, spades), jokers 52 and 53. Rats' suit order ♠ > ♥ > ♦ > ♣ is the suit
index order. A set of cards is a 54-bit **card mask** (bit ``c`` set = card ``c`` present).

Actions (``int64``): ``mask | kind << 54`` where ``kind`` is 0 (single card), 1 (set) or
2 (sequence). A leader's action is a whole lead; a follower plays the lead's number ``N`` of
cards **one card per decision** ("What an engine must expose"), each a one-bit mask with
kind 0. The leader declares the kind because a joker can make the same cards a set or a
sequence (``7s X1 X2``).

Sequences are read on *positions*: ace = 0 (or 13 with ``ace_high_sequences``), 2 = 1, ...,
K = 12. Play strengths (:func:`play_strength`, higher is stronger, -1 = cannot win):

==========  ================================================================================
single      rank of a natural card of the led suit (a lone joker: -1). A lone joker led by a
            leader with no other card (see :data:`JOKER_ONLY_LEAD`) leaves no led suit; then
            ``4 * rank + suit`` of every natural card counts.
set         rank of its natural cards (all equal), or ``joker_pair_rank`` for two jokers
sequence    ``16 * suit + top position`` of the reading chosen by ``joker_sequence_reading``
==========  ================================================================================

State layout (``STATE_SIZE = 128`` ``int64`` words; per-player blocks have 8 slots, seats
0..n_players-1 used):

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
9       RNG                   splitmix64 word of the game's chance (:mod:`engines.splitmix`)
10      PHASE                 0 lead, 1 follow, 2 game over
11      CUR                   seat to act
12      LEADER                leader of the current trick
13      LEAD_KIND             0 single, 1 set, 2 sequence (-1 before the lead)
14      LEAD_N                cards per play in the current trick
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
25      TRUNCATED             1 if the game ended at the round cap
26      N_WINNERS             players sharing the win at the end (0 = nobody)
27      FIRST_LEADER          leader of the first trick (configured or drawn)
28      OBS_PLAYER            -1 in a full state; the observer in an observation
29      OBS_KITTY_N           kitty size (observations only)
32+p    HAND                  card mask of seat p's hand
40+p    CAPT                  cards p captured this round (face down)
48+p    ASIDE                 p's holding not drawn into the hand (an eliminated player's
                              last holding stays here, out of play)
56+p    TABLE                 cards p played in the current trick
64+i    ORDER                 seat of the i-th play of the current trick
72+p    ALIVE                 1 while p is in the game
80+p    ELIM_ROUND            round in which p was eliminated (0 = not eliminated)
88+p    WINNER                1 if p wins (shares the win) at the end
96+p    PLACE                 final place, 1 = best (shared places for ties)
104+p   OBS_HAND_N            hand size of p (observations only)
112+p   OBS_CAPT_N            captured cards of p this round (observations only)
120+p   OBS_ASIDE_N           holding set aside of p (observations only)
======  ====================  ==========================================================

Every card is at all times in exactly one of: a HAND, a CAPT, an ASIDE, a TABLE, the KITTY.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.splitmix import _lsr, rand_below

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
STATE_SIZE = 128
MAX_PLAYERS = 5
N_CARDS = 54

PHASE_LEAD = 0
PHASE_FOLLOW = 1
PHASE_OVER = 2

KIND_SINGLE = 0
KIND_SET = 1
KIND_SEQ = 2
KIND_SHIFT = 54
CARD_BITS = (1 << 54) - 1
JOKER_BITS = (1 << 52) | (1 << 53)
ACE = 12

MAX_LEGAL = 8192
"""Capacity of a legal-action buffer. The leads of any hand are at most those of the whole
54-card deck (a lead using one joker maps to the same lead with joker 52), which has 6,614
leads (7,742 with ``ace_high_sequences``); so :func:`legal_actions` never writes more."""

JOKER_ONLY_LEAD = True
"""Engine decision (a gap of ``rats.md``): a leader whose hand is a single joker must lead it
(a lone joker may not be led otherwise). Such a trick has no led suit: the highest natural
card by rank, then suit (♠ > ♥ > ♦ > ♣) takes it; if all played cards are jokers the leader
does."""

_DEBRUIJN = 0x03F79D71B4CB0A89
_DB_TABLE = np.zeros(64, dtype=np.int64)
for _i in range(64):
    _DB_TABLE[(((1 << _i) * _DEBRUIJN) & ((1 << 64) - 1)) >> 58] = _i

_RANK_MASK = np.array([0xF << (4 * r) for r in range(13)], dtype=np.int64)
_SUIT_MASK = np.array([sum(1 << (4 * r + s) for r in range(13)) for s in range(4)], dtype=np.int64)


# ----------------------------------------------------------------------------- bit helpers
@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative ``int64`` below ``2**62`` (SWAR popcount)."""
    x = x - ((x >> 1) & 0x5555555555555555)
    x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0F
    return ((x * 0x0101010101010101) >> 56) & 0xFF


@njit(cache=True)
def low_bit_index(x):
    """Index of the lowest set bit of a non-zero ``int64`` (de Bruijn multiplication)."""
    b = x & -x
    return _DB_TABLE[_lsr(b * _DEBRUIJN, 58)]


@njit(cache=True)
def _rank_bits(mask, r):
    return mask & _RANK_MASK[r]


# ----------------------------------------------------------------------------- strength
@njit(cache=True)
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
    pbits = 0
    for r in range(12):
        if (nat >> (4 * r + s)) & 1:
            pbits |= 1 << (r + 1)
    best = -1
    n_place = 1
    if has_ace and ace_high:
        n_place = 2
    for k in range(n_place):
        bits = pbits
        if has_ace:
            bits |= 1 if k == 0 else (1 << 13)
        a = low_bit_index(bits)
        b = 63 - _clz_small(bits)
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


@njit(cache=True)
def _clz_small(x):
    """Leading zeros of a positive ``int64`` below ``2**54``."""
    n = 0
    b = 63
    while b >= 0 and not (x >> b) & 1:
        n += 1
        b -= 1
    return n


@njit(cache=True)
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

    Leads (rules "Tricks"): each natural single; each set (every non-empty subset of one rank's
    natural cards plus 0..2 jokers, 2+ cards; the two jokers alone); each sequence (every card
    set of one suit plus jokers that :func:`sequence_strength` reads as a sequence). Jokers are
    interchangeable: a lead using one joker uses the lower joker id the hand holds. A hand that
    is one joker leads it (:data:`JOKER_ONLY_LEAD`). ``out``: ``int64`` array of at least
    :data:`MAX_LEGAL` entries.
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
        pbits = 0
        for r in range(12):
            if (nat_all >> (4 * r + s)) & 1:
                pbits |= 1 << (r + 1)
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
                base = (1 << _card_at(a, s)) | (1 << _card_at(b, s))
                if w > 2:
                    interior = ((1 << (b - a - 1)) - 1) << (a + 1)
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


@njit(cache=True)
def _emit_seq(out, n, base, n_base, held_int, omit, w, s, nj, j1, jok, b, ace_high, tag):
    used = held_int & ~omit
    nat = base
    x = used
    while x:
        bx = x & -x
        nat |= 1 << _card_at(low_bit_index(bx), s)
        x ^= bx
    nn = n_base + popcount(used)
    gaps = w - nn
    for t in range(gaps, nj + 1):
        length = nn + t
        if length < 3 or length > 13:
            continue
        if ace_high and b == 13:
            # the ace stands high here; skip card sets the ace-low reading already produced
            rest = nat & ~(1 << (4 * ACE + s))
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


# ----------------------------------------------------------------------------- game flow
@njit(cache=True)
def init_state(cfg, seed):
    """New game state (rules "Deal (first round)"): ``int64`` array of shape (STATE_SIZE,).

    ``cfg``: ``int64`` array from :meth:`engines.rats.config.RatsConfig.to_array`; ``seed``:
    the game's ``int64`` seed word. The 54 cards are shuffled (Fisher-Yates with the state's
    splitmix64 stream), ``D0 = 54 // n`` dealt to each seat in order, the rest is the kitty;
    then the first leader is drawn if not configured.
    """
    st = np.zeros(STATE_SIZE, dtype=np.int64)
    for i in range(9):
        st[i] = cfg[i]
    st[RNG] = seed
    n = cfg[0]
    deck = np.arange(N_CARDS, dtype=np.int64)
    for i in range(N_CARDS - 1, 0, -1):
        j = rand_below(st, RNG, i + 1)
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
        st[HAND + p] = h
        st[ALIVE + p] = 1
    kit = 0
    while k < N_CARDS:
        kit |= np.int64(1) << deck[k]
        k += 1
    st[KITTY] = kit
    first = cfg[1]
    if first < 0:
        first = rand_below(st, RNG, n)
    st[FIRST_LEADER] = first
    st[D0] = d0
    st[HAND_SIZE] = d0
    st[ROUND] = 1
    st[N_ALIVE] = n
    st[LAST_WINNER] = -1
    st[OBS_PLAYER] = -1
    st[PHASE] = PHASE_LEAD
    st[CUR] = first
    st[LEADER] = first
    st[LEAD_KIND] = -1
    return st


@njit(cache=True)
def legal_actions(st, out):
    """Write the current player's legal actions into ``out`` (``int64``, >= MAX_LEGAL); return
    their count (0 when the game is over). Leader: :func:`generate_leads`; follower: each card
    of the hand as a one-bit mask (rules "What an engine must expose")."""
    ph = st[PHASE]
    if ph == PHASE_OVER:
        return 0
    hand = st[HAND + st[CUR]]
    if ph == PHASE_LEAD:
        return generate_leads(hand, st[CFG_ACE_HIGH], out)
    n = 0
    m = hand
    while m:
        b = m & -m
        out[n] = b
        n += 1
        m ^= b
    return n


@njit(cache=True)
def next_alive(st, p):
    """Next seat after ``p`` in turn order that is still in the game."""
    n = st[N_PLAYERS]
    q = (p + 1) % n
    while st[ALIVE + q] == 0:
        q = (q + 1) % n
    return q


@njit(cache=True)
def apply_action(st, action):
    """Apply a **legal** ``action`` of the current player in place (rules "Tricks",
    "End of a round", "Later rounds", "End of the game"). Legality is the caller's duty (the
    step API checks it); chance (later shuffles) comes from the state's RNG word."""
    p = st[CUR]
    mask = action & CARD_BITS
    st[DECISIONS] += 1
    st[HAND + p] &= ~mask
    if st[PHASE] == PHASE_LEAD:
        st[TABLE + p] = mask
        st[LEAD_KIND] = action >> KIND_SHIFT
        st[LEAD_N] = popcount(mask)
        st[ORDER] = p
        st[N_PLAYED] = 1
        st[LEADER] = p
    else:
        st[TABLE + p] |= mask
        st[CHOSEN] += 1
        if st[CHOSEN] < st[LEAD_N]:
            return
        st[ORDER + st[N_PLAYED]] = p
        st[N_PLAYED] += 1
    st[CHOSEN] = 0
    if st[N_PLAYED] < st[N_ALIVE]:
        st[PHASE] = PHASE_FOLLOW
        st[CUR] = next_alive(st, p)
        return
    _finish_trick(st)


@njit(cache=True)
def _finish_trick(st):
    w = trick_winner(st[LEAD_KIND], st[TABLE:TABLE + MAX_PLAYERS], st[ORDER:ORDER + MAX_PLAYERS],
                     st[N_PLAYED], st[CFG_ACE_HIGH], st[CFG_READ_STRONGEST],
                     st[CFG_JOKER_PAIR_RANK], st[CFG_SEQ_TIE_LATER])
    n = st[N_PLAYERS]
    won = 0
    for q in range(n):
        won |= st[TABLE + q]
        st[TABLE + q] = 0
    st[CAPT + w] |= won
    st[TRICKS] += 1
    st[LAST_WINNER] = w
    st[N_PLAYED] = 0
    st[LEAD_KIND] = -1
    st[LEAD_N] = 0
    st[LEADER] = w
    st[CUR] = w
    st[PHASE] = PHASE_LEAD
    if st[HAND + w] == 0:
        _end_round(st)


@njit(cache=True)
def _end_round(st):
    n = st[N_PLAYERS]
    w = st[LAST_WINNER]
    rnd = st[ROUND]
    if rnd == 1:
        st[CAPT + w] |= st[KITTY]
        st[KITTY] = 0
    alive = 0
    smallest = N_CARDS
    for p in range(n):
        if st[ALIVE + p] == 0:
            continue
        if st[CAPT + p] == 0:
            st[ALIVE + p] = 0
            st[ELIM_ROUND + p] = rnd
            continue
        st[ASIDE + p] |= st[CAPT + p]
        st[CAPT + p] = 0
        alive += 1
        c = popcount(st[ASIDE + p])
        if c < smallest:
            smallest = c
    st[N_ALIVE] = alive
    over = alive <= 1
    if not over and st[CFG_MAX_ROUNDS] > 0 and rnd >= st[CFG_MAX_ROUNDS]:
        over = True
    if not over and rnd >= st[CFG_ROUND_CAP]:
        over = True
        st[TRUNCATED] = 1
    if over:
        _finish_game(st)
        return
    h = st[D0]
    if smallest < h:
        h = smallest
    st[HAND_SIZE] = h
    st[ROUND] = rnd + 1
    for p in range(n):
        if st[ALIVE + p] == 0:
            continue
        # draw h of the holding uniformly (selection sampling, Knuth's Algorithm S)
        hold = st[ASIDE + p]
        left = popcount(hold)
        need = h
        hand = 0
        m = hold
        while need > 0:
            b = m & -m
            m ^= b
            if rand_below(st, RNG, left) < need:
                hand |= b
                need -= 1
            left -= 1
        st[HAND + p] = hand
        st[ASIDE + p] = hold & ~hand
    st[PHASE] = PHASE_LEAD
    st[CUR] = w
    st[LEADER] = w


@njit(cache=True)
def holding_key(st, p):
    """Ranking key of seat ``p`` at the end (rules "End of the game"): eliminated players rank
    by their elimination round; survivors above them by holding size, then spades, hearts,
    diamonds (each count < 64, packed in 8-bit fields)."""
    if st[ALIVE + p] == 0:
        return st[ELIM_ROUND + p]
    hold = st[ASIDE + p] | st[CAPT + p] | st[HAND + p]
    key = popcount(hold) << 24
    key |= popcount(hold & _SUIT_MASK[3]) << 16
    key |= popcount(hold & _SUIT_MASK[2]) << 8
    key |= popcount(hold & _SUIT_MASK[1])
    return (np.int64(1) << 40) + key


@njit(cache=True)
def _finish_game(st):
    n = st[N_PLAYERS]
    st[PHASE] = PHASE_OVER
    st[CUR] = -1
    best = -1
    for p in range(n):
        k = holding_key(st, p)
        if k > best:
            best = k
    n_best = 0
    for p in range(n):
        k = holding_key(st, p)
        better = 0
        for q in range(n):
            if holding_key(st, q) > k:
                better += 1
        st[PLACE + p] = better + 1
        if k == best:
            n_best += 1
    share = n_best == 1 or st[CFG_TIE_SHARED] == 1
    st[N_WINNERS] = n_best if share else 0
    for p in range(n):
        st[WINNER + p] = 1 if (share and holding_key(st, p) == best) else 0


@njit(cache=True)
def is_terminal(st):
    """True once the game is over (rules "End of the game")."""
    return st[PHASE] == PHASE_OVER


@njit(cache=True)
def returns(st):
    """``float64`` array (n_players,): each winner's share of the win (1, or 1/k for a shared
    tie), 0 for the others; all zeros before the end or when nobody wins."""
    n = st[N_PLAYERS]
    out = np.zeros(n, dtype=np.float64)
    if st[PHASE] != PHASE_OVER or st[N_WINNERS] == 0:
        return out
    for p in range(n):
        if st[WINNER + p]:
            out[p] = 1.0 / st[N_WINNERS]
    return out


@njit(cache=True)
def observe(st, player):
    """What seat ``player`` may see: a copy of ``st`` with the other seats' hands, capture
    piles and holdings, the kitty and the RNG word zeroed, and the OBS_* count slots filled
    (hand, capture and holding sizes of every seat, kitty size)."""
    o = st.copy()
    n = st[N_PLAYERS]
    for q in range(n):
        o[OBS_HAND_N + q] = popcount(st[HAND + q])
        o[OBS_CAPT_N + q] = popcount(st[CAPT + q])
        o[OBS_ASIDE_N + q] = popcount(st[ASIDE + q])
        if q != player:
            o[HAND + q] = 0
            o[CAPT + q] = 0
            o[ASIDE + q] = 0
    o[OBS_KITTY_N] = popcount(st[KITTY])
    o[KITTY] = 0
    o[RNG] = 0
    o[OBS_PLAYER] = player
    return o
