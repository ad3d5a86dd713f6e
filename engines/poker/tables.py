"""Lookup tables of the poker evaluator (:mod:`engines.poker`), built once at import.

Strength encoding (shared by both rule sets)::

    strength = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

``category`` is 0 (high card) .. 8 (straight flush); ``r1..r5`` are ranks 0..12 (2..A) in the
order that decides ties inside the category (the set's rank first, then kickers high to low).
Comparing strengths as integers compares hands. Under the River Rats rules
(``docs/rules/river_rats.md``, "Hand ranking") a flush and a full house keep only ``r1``
(the highest card, the rank of the three); straights and straight flushes only ever carry
``r1``. The River Rats strength is therefore the standard strength with those kicker nibbles
cleared: a monotone coarsening of the standard order.

Tables (all ``np.ndarray``, indexed by a 13-bit rank mask unless stated):

=================  ========  ==================================================================
``TOP``            int8      rank of the highest set bit, -1 for an empty mask
``POP``            int8      number of set bits
``KICK5``          int32     the highest ``min(5, popcount)`` ranks packed as r1<<16 .. r5
``STRAIGHT``       int8      high card of the best straight in the mask (wheel: 3), else -1
``FLUSH_J``        int32     shape (3, 8192): best flush / straight flush of one suit holding
                             the mask's cards plus 0, 1 or 2 jokers of that suit; 0 if < 5
``CARD_KEY``       int64     shape (54,): OMPEval rank multiplier + suit counter (see below)
``CARD_SMASK``     int64     shape (54,): ``1 << (16 * suit + rank)``, 0 for jokers
``HASH_OFFSETS``   int32     perfect-hash row offsets for rank keys of 5-7 cards
``HASH_STD/RR``    int32     non-flush strength of each hashed rank multiset (standard/River Rats)
``CARD_RECORD``    int64     shape (512, 2): row ``c`` = (key, bit) of card id ``c`` read as an
                             unsigned byte; jokers :data:`JOKER_FLAG`, other bytes
                             :data:`OTHER_FLAG` in the key and no bit; rows ``256 + c`` the
                             same with :data:`SUIT_BIAS` added, for a hand's first card
                             (:mod:`engines.poker.card_sums`)
``HASH_OFFSETS_P`` int32     ``HASH_OFFSETS`` padded to 8192 rows (every 25-bit key has a row)
``STRENGTH_OF_CODE`` int32   every non-flush strength of 5-7 cards under either ranking, sorted
                             (the strength of each 16-bit code)
``HASH_STD/RR_C``  uint16    the hash tables as codes into ``STRENGTH_OF_CODE``, padded to
                             ``HASH_SIZE_P`` (2**17) entries, so a slot masked to 17 bits is
                             always a valid read (half the cache footprint of ``int32``)
=================  ========  ==================================================================

The 5-7 card fast path follows OMPEval (Timo Kaufmann, https://github.com/zekyll/OMPEval,
ISC licence): a card's key is a rank multiplier chosen so that every multiset of up to 7 ranks
(at most 4 of each) has a unique sum, plus a nibble per suit in bits 32..47 starting at 3, so a
nibble reaches 8 exactly when its suit holds 5 cards. Non-flush rank keys go through a
row-displacement perfect hash (rows of 2**12 keys placed, largest first, at the first offset
where they collide with nothing).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
RANK_MULT = np.array(
    [0x2000, 0x8001, 0x11000, 0x3A000, 0x91000, 0x176005, 0x366000,
     0x41A013, 0x47802E, 0x479068, 0x48C0E4, 0x48F211, 0x494493],
    dtype=np.int64,
)
SUIT_BIAS = np.int64(0x3333 << 32)
FLUSH_CHECK = 0x8888
HASH_SHIFT = 12
CAT_SHIFT = 20


def _bit_tables():
    masks = np.arange(8192)
    pop = np.array([bin(m).count("1") for m in range(8192)], dtype=np.int8)
    top = np.array([m.bit_length() - 1 for m in range(8192)], dtype=np.int8)
    kick5 = np.zeros(8192, dtype=np.int32)
    straight = np.full(8192, -1, dtype=np.int8)
    windows = [(h, sum(1 << r for r in range(h - 4, h + 1))) for h in range(12, 3, -1)]
    windows.append((3, 0b1000000001111))  # the wheel A-2-3-4-5, five high
    for m in masks.tolist():
        ranks = [r for r in range(12, -1, -1) if m >> r & 1][:5]
        v = 0
        for i, r in enumerate(ranks):
            v |= r << (16 - 4 * i)
        kick5[m] = v
        for h, w in windows:
            if m & w == w:
                straight[m] = h
                break
    flush_j = np.zeros((3, 8192), dtype=np.int32)
    for j in range(3):
        for m in masks.tolist():
            if pop[m] + j < 5:
                continue
            best = 0
            for h, w in windows:
                if bin(w & ~m).count("1") <= j:
                    best = 8 << CAT_SHIFT | h << 16
                    break
            if best == 0:
                filled, need = m, j
                for r in range(12, -1, -1):
                    if need and not filled >> r & 1:
                        filled |= 1 << r
                        need -= 1
                best = 5 << CAT_SHIFT | int(kick5[filled])
            flush_j[j, m] = best
    return top, pop, kick5, straight, flush_j


TOP, POP, KICK5, STRAIGHT, FLUSH_J = _bit_tables()

CARD_KEY = np.zeros(54, dtype=np.int64)
CARD_SMASK = np.zeros(54, dtype=np.int64)
for _c in range(52):
    CARD_KEY[_c] = RANK_MULT[_c >> 2] + (np.int64(1) << (32 + 4 * (_c & 3)))
    CARD_SMASK[_c] = np.int64(1) << (16 * (_c & 3) + (_c >> 2))
del _c


@njit_per_type
def top_k(mask, k):
    """Packed highest ``k`` ranks of a 13-bit mask: ``r1 << 4(k-1) | ... | rk`` (int)."""
    return np.int64(KICK5[mask]) >> (4 * (5 - k))


@njit_per_type
def nonflush_value(l1, l2, l3, l4):
    """Standard strength of the best non-flush 5-card hand from rank level masks.

    ``l1``..``l4`` are 13-bit masks of the ranks held at least 1, 2, 3 and 4 times (total at
    least 5 cards). Returns the packed strength (see module docstring); flushes are the
    caller's business. Algorithm: category tests from the top (quads, full house, straight,
    trips, two pair, pair, high card) with the kickers read from ``KICK5``.
    """
    if l4:
        q = np.int64(TOP[l4])
        return 7 << 20 | q << 16 | top_k(l1 & ~(1 << q), 1) << 12
    if l3:
        t = np.int64(TOP[l3])
        rest = l2 & ~(1 << t)
        if rest:
            return 6 << 20 | t << 16 | np.int64(TOP[rest]) << 12
    s = np.int64(STRAIGHT[l1])
    if s >= 0:
        return 4 << 20 | s << 16
    if l3:
        t = np.int64(TOP[l3])
        return 3 << 20 | t << 16 | top_k(l1 & ~(1 << t), 2) << 8
    if l2:
        p1 = np.int64(TOP[l2])
        rest = l2 & ~(1 << p1)
        if rest:
            p2 = np.int64(TOP[rest])
            return 2 << 20 | p1 << 16 | p2 << 12 | top_k(l1 & ~(1 << p1) & ~(1 << p2), 1) << 8
        return 1 << 20 | p1 << 16 | top_k(l1 & ~(1 << p1), 3) << 4
    return np.int64(KICK5[l1])


def _rank_multisets(min_cards: int, max_cards: int):
    """All rank-count vectors (13 ranks, 0..4 each) with a total in [min_cards, max_cards]."""
    out = []
    counts = [0] * 13

    def rec(r, total):
        if r == 13:
            if total >= min_cards:
                out.append(tuple(counts))
            return
        for c in range(0, min(4, max_cards - total) + 1):
            counts[r] = c
            rec(r + 1, total + c)
        counts[r] = 0

    rec(0, 0)
    return np.array(out, dtype=np.int64)


@njit(cache=True, inline="always")
def _multiset_values(multisets, mult):
    n = multisets.shape[0]
    keys = np.zeros(n, dtype=np.int64)
    vals = np.zeros(n, dtype=np.int32)
    for i in range(n):
        l1 = l2 = l3 = l4 = 0
        key = 0
        for r in range(13):
            c = multisets[i, r]
            key += c * mult[r]
            if c >= 1:
                l1 |= 1 << r
            if c >= 2:
                l2 |= 1 << r
            if c >= 3:
                l3 |= 1 << r
            if c >= 4:
                l4 |= 1 << r
        keys[i] = key
        vals[i] = nonflush_value(l1, l2, l3, l4)
    return keys, vals


@njit(cache=True, inline="always")
def _perfect_hash(keys, shift):
    """Row-displacement perfect hash: returns (offsets, slot of each key, table size)."""
    n_rows = (keys.max() >> shift) + 1
    col_mask = (1 << shift) - 1
    row_count = np.zeros(n_rows, dtype=np.int64)
    for k in keys:
        row_count[k >> shift] += 1
    order = np.argsort(-row_count, kind="mergesort")
    row_start = np.zeros(n_rows + 1, dtype=np.int64)
    for r in range(n_rows):
        row_start[r + 1] = row_start[r] + row_count[r]
    fill = row_start[:-1].copy()
    cols = np.zeros(keys.size, dtype=np.int64)
    for k in keys:
        r = k >> shift
        cols[fill[r]] = k & col_mask
        fill[r] += 1
    used = np.zeros(keys.size * 4 + (1 << shift), dtype=np.bool_)
    offsets = np.zeros(n_rows, dtype=np.int32)
    size = 0
    first_free = 0
    for r in order:
        if row_count[r] == 0:
            break
        lo, hi = row_start[r], row_start[r + 1]
        base = first_free - cols[lo:hi].min()
        if base < 0:
            base = 0
        while True:
            ok = True
            for i in range(lo, hi):
                if used[cols[i] + base]:
                    ok = False
                    break
            if ok:
                break
            base += 1
        for i in range(lo, hi):
            used[cols[i] + base] = True
            if cols[i] + base + 1 > size:
                size = cols[i] + base + 1
        while used[first_free]:
            first_free += 1
        offsets[r] = base - (r << shift)
    return offsets, size


_OFFSETS_FILE = Path(__file__).with_name("hash_offsets.npy")


def _valid_offsets(offsets, keys) -> bool:
    if offsets is None or offsets.shape != ((int(keys.max()) >> HASH_SHIFT) + 1,):
        return False
    slots = keys + offsets[keys >> HASH_SHIFT]
    return bool(slots.min() >= 0 and np.unique(slots).size == slots.size)


def _hash_tables():
    """Hash offsets and value tables; the offsets are shipped in ``hash_offsets.npy``
    (building them takes a while) and rebuilt here if that file is missing or does not give a
    collision-free hash for the current keys."""
    ms = _rank_multisets(5, 7)
    keys, vals = _multiset_values(ms, RANK_MULT)
    if np.unique(keys).size != keys.size:  # pragma: no cover - a broken multiplier table
        raise RuntimeError("rank multipliers do not give unique keys for 5-7 cards")
    try:
        offsets = np.load(_OFFSETS_FILE).astype(np.int32)
    except (OSError, ValueError):
        offsets = None
    if not _valid_offsets(offsets, keys):
        offsets, _ = _perfect_hash(keys, HASH_SHIFT)
        try:
            np.save(_OFFSETS_FILE, offsets)
        except OSError:  # pragma: no cover - read-only install: rebuild each import
            pass
    slots = keys + offsets[keys >> HASH_SHIFT]
    size = int(slots.max()) + 1
    std = np.zeros(size, dtype=np.int32)
    std[slots] = vals
    rr = std.copy()
    cat = rr >> CAT_SHIFT
    rr[(cat == 5) | (cat == 6)] &= ~np.int32(0xFFFF)
    return offsets, std, rr


HASH_OFFSETS, HASH_STD, HASH_RR = _hash_tables()

FLUSH_STD = FLUSH_J[0].copy()
FLUSH_RR = FLUSH_STD.copy()
FLUSH_RR[(FLUSH_RR >> CAT_SHIFT) == 5] &= ~np.int32(0xFFFF)

JOKER_FLAG = np.int64(1) << 52
"""Key bit counting jokers in a :data:`CARD_RECORD` sum (up to 15 jokers fit in 4 bits)."""
OTHER_FLAG = np.int64(1) << 56
"""Key bit counting non-card bytes (empty slot -1, ids 54 and above) in a record sum."""
SPECIAL_SHIFT = 52
"""``key >> SPECIAL_SHIFT`` is non-zero iff a record sum met a joker or a non-card byte."""
CARD_RECORD = np.zeros((512, 2), dtype=np.int64)
CARD_RECORD[:, 0] = OTHER_FLAG
CARD_RECORD[:52, 0] = CARD_KEY[:52]
CARD_RECORD[:52, 1] = CARD_SMASK[:52]
CARD_RECORD[52:54, 0] = JOKER_FLAG
CARD_RECORD[256:] = CARD_RECORD[:256]
CARD_RECORD[256:, 0] += SUIT_BIAS  # the first card of a sum brings the suit counters' bias

HASH_SIZE_P = 1 << 17
if HASH_STD.size > HASH_SIZE_P:  # pragma: no cover - a broken hash table
    raise RuntimeError("the perfect hash outgrew its padded table")
RANK_KEY_MASK = (1 << 25) - 1
"""Every rank key of up to 7 cards (at most 4 of a rank) is below 2**25."""
HASH_OFFSETS_P = np.zeros(1 << (25 - HASH_SHIFT), dtype=np.int32)
HASH_OFFSETS_P[:HASH_OFFSETS.size] = HASH_OFFSETS
STRENGTH_OF_CODE = np.unique(np.concatenate([HASH_STD, HASH_RR])).astype(np.int32)
"""Sorted non-flush strengths of both rankings (6,177 with the 0 of unused slots): 16-bit hash
entries index it, so the hash tables take half the cache (OMPEval keeps 16-bit ranks too)."""
if STRENGTH_OF_CODE.size > 1 << 16:  # pragma: no cover - cannot happen with 13 ranks
    raise RuntimeError("more non-flush strengths than 16-bit codes")
HASH_STD_C = np.zeros(HASH_SIZE_P, dtype=np.uint16)
HASH_STD_C[:HASH_STD.size] = np.searchsorted(STRENGTH_OF_CODE, HASH_STD)
HASH_RR_C = np.zeros(HASH_SIZE_P, dtype=np.uint16)
HASH_RR_C[:HASH_RR.size] = np.searchsorted(STRENGTH_OF_CODE, HASH_RR)
