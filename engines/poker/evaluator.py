"""Best-5-of-N poker hand evaluator, compiled with Numba: standard and River Rats rankings.

The strength of a hand is an ``int32``; **higher is stronger, equal is a tie** under the chosen
rules. Its layout (see :mod:`engines.poker.tables`)::

    strength = category << 20 | r1 << 16 | r2 << 12 | r3 << 8 | r4 << 4 | r5

with ``category`` 0..8 (:data:`CATEGORY_NAMES`) and the ranks 0..12 (2..A) that break ties in
order. ``rules="standard"`` is ordinary poker with all kickers (7,462 classes of 5-card hands);
``rules="river_rats"`` is the ranking of ``docs/rules/river_rats.md`` ("Hand ranking":
flushes by their highest card, full houses by the three only; 6,050 classes), obtained from the
standard strength by clearing the ignored kickers, so it is a coarsening of the standard order.

Jokers (ids 52 and 53, at most 2 per hand) are wild: each becomes the card, distinct from the
other cards of the hand, that makes the best hand; five of a kind does not exist.

Entry points:

- :func:`evaluate` (batch, validating, Python door),
- :func:`eval_hand` / :func:`eval_at` (compiled scalar kernels for other compiled kernels: no
  validation; ``eval_at`` reads the cards at an offset of a larger array),
- :func:`hand_category`, :data:`CATEGORY_NAMES`, :func:`best_five`.

Algorithm: for 5-7 cards without jokers, OMPEval's scheme (per-card additive rank key with a
suit counter; flushes by a 13-bit mask table; other hands by a perfect hash of the rank key).
Otherwise (8-10 cards, jokers) a bit-mask evaluator: per-suit rank masks give the flush and
straight-flush candidates of every suit (a table per joker count) and rank level masks (ranks
held >= 1, 2, 3, 4 times) give the best non-flush hand; jokers are tried as every rank for the
non-flush part. The best of both is taken, which handles N >= 8 hands where a flush sits next
to quads or a full house, and N = 10 hands with two flush suits.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
from engines import cards as _cards
from engines.poker.card_sums import record_sums
from engines.protocol.bits import high_bit, popcount
from engines.protocol.hints import unlikely
from engines.poker.tables import (
    CARD_KEY,
    CARD_RECORD,
    CARD_SMASK,
    FLUSH_CHECK,
    FLUSH_J,
    FLUSH_RR,
    FLUSH_STD,
    HASH_OFFSETS_P,
    HASH_RR_C,
    HASH_SIZE_P,
    HASH_STD_C,
    POP,
    RANK_KEY_MASK,
    SPECIAL_SHIFT,
    STRENGTH_OF_CODE,
    SUIT_BIAS,
    nonflush_value,
)

__all__ = [
    "CATEGORY_NAMES",
    "HIGH_CARD", "PAIR", "TWO_PAIR", "THREE_OF_A_KIND", "STRAIGHT", "FLUSH", "FULL_HOUSE",
    "FOUR_OF_A_KIND", "STRAIGHT_FLUSH",
    "RULES_STANDARD", "RULES_RIVER_RATS", "RULES",
    "evaluate", "eval_hand", "eval_at", "category_of", "hand_category", "best_five", "describe",
]

CATEGORY_NAMES = (
    "high card", "pair", "two pair", "three of a kind", "straight", "flush", "full house",
    "four of a kind", "straight flush",
)
"""Category names by category number 0..8 (the value of :func:`hand_category`)."""
HIGH_CARD, PAIR, TWO_PAIR, THREE_OF_A_KIND, STRAIGHT, FLUSH = 0, 1, 2, 3, 4, 5
FULL_HOUSE, FOUR_OF_A_KIND, STRAIGHT_FLUSH = 6, 7, 8

RULES_STANDARD = 0
"""Rule-set code of ordinary poker (all kickers) for the compiled kernels."""
RULES_RIVER_RATS = 1
"""Rule-set code of the River Rats ranking for the compiled kernels."""
RULES = {"standard": RULES_STANDARD, "river_rats": RULES_RIVER_RATS}
"""Rule-set names accepted by :func:`evaluate` and their codes."""

MIN_CARDS, MAX_CARDS = 5, 10
_LOW16 = 0xFFFF
_ERR_RANGE, _ERR_DUP, _ERR_COUNT = 1, 2, 3


@njit(cache=True)
def category_of(strength):
    """Category 0..8 of a strength (compiled; ``strength >> 20``)."""
    return strength >> 20


@njit(cache=True, inline="always")
def _to_river_rats(v):
    cat = v >> 20
    if cat == 5 or cat == 6:
        return v & ~_LOW16
    return v


@njit_per_type
def _eval_masks(smask, n_jokers):
    """Standard strength from per-suit rank masks (``smask``: suit s in bits 16s..16s+12) plus
    ``n_jokers`` (0..2) wild jokers. Any number of real cards, at least 5 cards in all."""
    c = smask & 0x1FFF
    d = (smask >> 16) & 0x1FFF
    h = (smask >> 32) & 0x1FFF
    s = (smask >> 48) & 0x1FFF
    best = 0
    for sm in (c, d, h, s):
        if POP[sm] + n_jokers >= 5:
            v = FLUSH_J[n_jokers, sm]
            if v > best:
                best = v
    if best >> 20 == 8:
        return best
    l1 = c | d | h | s
    l2 = (c & d) | (h & s) | ((c | d) & (h | s))
    l3 = ((c & d) & (h | s)) | ((h & s) & (c | d))
    l4 = c & d & h & s
    if n_jokers == 0:
        v = nonflush_value(l1, l2, l3, l4)
        return v if v > best else best
    for r1 in range(13):
        if l4 >> r1 & 1:
            continue
        a1, a2, a3, a4 = _add_rank(l1, l2, l3, l4, 1 << r1)
        if n_jokers == 1:
            v = nonflush_value(a1, a2, a3, a4)
            if v > best:
                best = v
            continue
        for r2 in range(r1, 13):
            if a4 >> r2 & 1:
                continue
            e1, e2, e3, e4 = _add_rank(a1, a2, a3, a4, 1 << r2)
            v = nonflush_value(e1, e2, e3, e4)
            if v > best:
                best = v
    return best


@njit(cache=True)
def _add_rank(l1, l2, l3, l4, b):
    """Level masks (ranks held >= 1, 2, 3, 4 times) after one more card of the rank whose bit
    is ``b`` (a joker standing in for it); the caller ensures the rank is held < 4 times."""
    if not l1 & b:
        return l1 | b, l2, l3, l4
    if not l2 & b:
        return l1, l2 | b, l3, l4
    if not l3 & b:
        return l1, l2, l3 | b, l4
    return l1, l2, l3, l4 | b


@njit_per_type
def eval_hand(cards, n, rules):
    """Strength of the best 5-card hand among ``cards[:n]`` (compiled scalar kernel).

    ``cards``: 1-D integer array (any integer dtype) whose first ``n`` entries are distinct card
    ids 0..53 (52 and 53 are wild jokers); ``n >= 5`` (any size up to 54). ``rules``:
    :data:`RULES_STANDARD` or :data:`RULES_RIVER_RATS`. Returns an ``int32``-range int, higher
    is stronger. No validation: callers guarantee valid input (:func:`evaluate` validates).
    Implements ``docs/rules/river_rats.md`` "Hand ranking" for ``RULES_RIVER_RATS``.
    :func:`eval_at` does the same for cards inside a larger array without making a view.
    """
    return eval_at(cards, 0, n, rules)


@njit_per_type
def eval_at(cards, start, n, rules):
    """Strength of the best 5-card hand among ``cards[start:start + n]`` (compiled scalar
    kernel; as :func:`eval_hand`, which it serves, with the same contract).

    Taking the array and an offset instead of a slice spares the caller a view (in Numba a
    slice costs two reference-count calls). 5-7 cards without jokers take OMPEval's path with
    vector adds (:func:`engines.poker.card_sums.record_sums`), small enough to be inlined;
    jokers and 8 or more cards go to :func:`_eval_general`, a call marked
    :func:`engines.protocol.hints.unlikely` so that a calling loop keeps its registers for the
    common path (figures in docs/benchmarks.md, "The poker evaluator").
    """
    if not unlikely(n > 7):
        key, bits = record_sums(cards, start, n, CARD_RECORD)
        if not unlikely((key >> SPECIAL_SHIFT) != 0):
            hash_p = HASH_RR_C if rules == 1 else HASH_STD_C  # one inlined lookup, not two
            flush_tab = FLUSH_RR if rules == 1 else FLUSH_STD
            return _lookup(key, bits, hash_p, flush_tab)
    return _eval_general(cards, start, n, rules)


@njit_per_type
def _eval_general(cards, start, n, rules):
    """:func:`eval_at` for hands with jokers or more than 7 cards (kept out of line so the
    5-7 card path stays small enough to be inlined into its callers)."""
    key = SUIT_BIAS
    smask = 0
    nj = 0
    for i in range(start, start + n):
        c = cards[i]
        if c >= 52:
            nj += 1
        else:
            key += CARD_KEY[c]
            smask |= CARD_SMASK[c]
    if rules == 1:
        return _finish(key, smask, nj, n, HASH_RR_C, FLUSH_RR, 1)
    return _finish(key, smask, nj, n, HASH_STD_C, FLUSH_STD, 0)


@njit_per_type
def _lookup(key, bits, hash_p, flush_tab):
    """Strength of 5-7 cards without jokers from their record sums (OMPEval: flush table by
    the flush suit's rank mask, else the perfect hash of the rank key). ``key`` includes
    :data:`SUIT_BIAS`; ``hash_p`` is a padded hash table of 16-bit codes
    (:data:`engines.poker.tables.HASH_STD_C`), so any key reads inside it."""
    fl = key & (FLUSH_CHECK << 32)
    if not unlikely(fl != 0):  # the common case (97% of 7-card hands) laid out first
        rk = key & RANK_KEY_MASK
        code = hash_p[(rk + HASH_OFFSETS_P[rk >> 12]) & (HASH_SIZE_P - 1)]
        return np.int64(STRENGTH_OF_CODE[code])
    # one suit holds 5+ of at most 7 cards: its check bit is 35, 39, 43 or 47 of the key, its
    # rank mask the 16-bit lane 0, 1, 2 or 3 of ``bits``
    sm = (bits >> ((high_bit(fl) - 35) << 2)) & 0x1FFF
    return np.int64(flush_tab[sm])


def _make_fast_rows(k):
    @njit(cache=True)
    def fast_rows(flat, hash_p, flush_tab, out):
        for i in range(out.size):
            key, bits = record_sums(flat, i * k, k, CARD_RECORD)
            if popcount(bits) != k:  # a joker, a non-card byte or a duplicate
                return i
            out[i] = _lookup(key, bits, hash_p, flush_tab)
        return out.size
    fast_rows.__doc__ = (
        f"Evaluate rows of exactly {k} cards, ``flat`` (1-D, C-contiguous, any integer dtype) "
        f"holding them row after row, into ``out`` (``int32``), checking in the same pass that "
        f"each row is {k} distinct card ids 0..51 (one population count, see "
        ":mod:`engines.poker.card_sums`). ``hash_p``/``flush_tab``: the ranking's tables "
        "(``HASH_STD_C``/``FLUSH_STD`` or the River Rats pair). Returns the number of rows "
        "done: ``out.size`` when every row passed, else the first row that did not (a joker, "
        "an empty slot, a bad id or a duplicate), from which :func:`_evaluate_batch` takes "
        "over.")
    return fast_rows


_FAST_ROWS = {k: _make_fast_rows(k) for k in (5, 6, 7)}
"""One compiled loop per row width 5..7 (the card count a constant inside it), chosen by
:func:`evaluate` in Python: a compiled dispatch around the three loops measured 5-8% slower."""


@njit_per_type
def _finish(key, smask, nj, n, hash_tab, flush_tab, rules):
    """Strength from the accumulated OMPEval key, suit masks and joker count of ``n`` cards:
    :func:`_lookup` for 5-7 cards without jokers (``hash_tab`` a padded hash table of 16-bit
    codes), else :func:`_eval_masks`."""
    if nj == 0 and n <= 7:
        return _lookup(key, smask, hash_tab, flush_tab)
    v = _eval_masks(smask, nj)
    return _to_river_rats(v) if rules == 1 else v


@njit(cache=True)
def _evaluate_batch(hands, rules, out, err, start=0):
    """Validate and evaluate each row of ``hands`` from row ``start`` on (``-1`` = empty slot)
    into ``out``.

    On the first bad row, writes (row, code, card or count) into ``err`` and stops."""
    n, k = hands.shape
    hash_tab = HASH_RR_C if rules == 1 else HASH_STD_C
    flush_tab = FLUSH_RR if rules == 1 else FLUSH_STD
    for i in range(start, n):
        key = SUIT_BIAS
        smask = 0
        seen = 0
        cnt = 0
        nj = 0
        for j in range(k):
            c = np.int64(hands[i, j])
            if c == -1:
                continue
            if c < 0 or c > 53:
                err[0], err[1], err[2] = i, _ERR_RANGE, c
                return
            b = np.int64(1) << c
            if seen & b:
                err[0], err[1], err[2] = i, _ERR_DUP, c
                return
            seen |= b
            cnt += 1
            if c >= 52:
                nj += 1
            else:
                key += CARD_KEY[c]
                smask |= CARD_SMASK[c]
        if cnt < 5 or cnt > 10:
            err[0], err[1], err[2] = i, _ERR_COUNT, cnt
            return
        out[i] = _finish(key, smask, nj, cnt, hash_tab, flush_tab, rules)


def _rules_code(rules) -> int:
    if isinstance(rules, str) and rules in RULES:
        return RULES[rules]
    raise ValueError(f"bad rules {rules!r}: expected one of {sorted(RULES)}")


def _as_hands(hands) -> np.ndarray:
    arr = np.asarray(hands)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2:
        raise ValueError(f"hands must have shape (n, k), got an array of shape {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"hands must hold integer card ids, got dtype {arr.dtype}")
    if arr.dtype == np.uint64:
        arr = arr.astype(np.int64)
    return np.ascontiguousarray(arr)


def evaluate(hands, rules: str = "standard", out: np.ndarray | None = None) -> np.ndarray:
    """Strength of the best 5-card hand of each row.

    ``hands``: integer array of shape ``(n, k)`` (or ``(k,)`` for one hand) of card ids 0..53,
    ``-1`` marking an empty slot; each row holds 5 to 10 real cards, distinct, at most 2 of them
    jokers (52, 53; wild). ``rules``: ``"standard"`` (all kickers) or ``"river_rats"``
    (``docs/rules/river_rats.md``, "Hand ranking").

    ``out``: optional ``int32`` array of shape ``(n,)`` (C-contiguous) to write into, so that
    repeated calls reuse one buffer (as NumPy's ``out=``).

    Returns ``np.ndarray`` of dtype ``int32`` and shape ``(n,)`` (``out`` when given): higher is
    stronger, equal is a tie. Raises ``ValueError`` naming the row and the reason for a card id
    out of range, a duplicate card, fewer than 5 or more than 10 real cards, a non-integer
    array, bad rules or an unfit ``out``.

    Rows of exactly 5-7 columns are evaluated and validated in one pass by OMPEval's method
    with vector adds (:data:`_FAST_ROWS`); from the first row with a joker, an empty slot or a
    bad card on, and for every other width, the general kernel takes over (joker and 8-10 card
    hands: per-suit rank masks, see the module docstring), which also names the bad row.
    """
    code = _rules_code(rules)
    arr = _as_hands(hands)
    n, k = arr.shape
    if out is None:
        out = np.empty(n, dtype=np.int32)
    elif not (isinstance(out, np.ndarray) and out.dtype == np.int32 and out.shape == (n,)
              and out.flags.c_contiguous and out.flags.writeable):
        raise ValueError(f"out must be a writeable C-contiguous int32 array of shape ({n},)")
    done = 0
    if 5 <= k <= 7:
        hash_p = HASH_RR_C if code == RULES_RIVER_RATS else HASH_STD_C
        flush_tab = FLUSH_RR if code == RULES_RIVER_RATS else FLUSH_STD
        done = _FAST_ROWS[k](arr.reshape(-1), hash_p, flush_tab, out)
        if done == n:
            return out
    err = np.full(3, -1, dtype=np.int64)
    _evaluate_batch(arr, code, out, err, done)
    if err[0] >= 0:
        row, kind, what = (int(x) for x in err)
        if kind == _ERR_RANGE:
            why = f"card id {what} out of range (expected 0..53, or -1 for an empty slot)"
        elif kind == _ERR_DUP:
            name = _cards.format_card(what)
            why = f"duplicate card {name} (id {what})" + (
                "; a hand holds at most 2 jokers, X1 and X2" if what >= 52 else "")
        else:
            why = f"{what} real cards (expected {MIN_CARDS} to {MAX_CARDS})"
        raise ValueError(f"bad hand in row {row}: {why}")
    return out


def hand_category(strengths) -> np.ndarray:
    """Category of each strength: ``np.ndarray[int8]`` of the input's shape.

    0 high card, 1 pair, 2 two pair, 3 three of a kind, 4 straight, 5 flush, 6 full house,
    7 four of a kind, 8 straight flush (:data:`CATEGORY_NAMES`). The same for both rule sets.
    Raises ``ValueError`` for negative strengths or categories above 8.
    """
    s = np.asarray(strengths)
    cat = s >> 20
    if s.size and (s.min() < 0 or cat.max() > 8):
        raise ValueError("strengths must come from evaluate(): non-negative, category <= 8")
    return cat.astype(np.int8)


def describe(strength: int) -> str:
    """Readable name of one strength, e.g. ``"full house, kings full of fours"``-like short
    text: category and the deciding ranks (``"flush, A high"``)."""
    s = int(strength)
    cat = s >> 20
    r = [(s >> sh) & 0xF for sh in (16, 12, 8, 4, 0)]
    R = _cards.RANKS
    if cat in (STRAIGHT, FLUSH, STRAIGHT_FLUSH):
        return f"{CATEGORY_NAMES[cat]}, {R[r[0]]} high"
    if cat == FULL_HOUSE:
        return f"full house, {R[r[0]]}s full of {R[r[1]]}s"
    if cat == TWO_PAIR:
        return f"two pair, {R[r[0]]}s and {R[r[1]]}s, {R[r[2]]} kicker"
    if cat in (PAIR, THREE_OF_A_KIND, FOUR_OF_A_KIND):
        n_kick = {PAIR: 3, THREE_OF_A_KIND: 2, FOUR_OF_A_KIND: 1}[cat]
        kickers = " ".join(R[x] for x in r[1:1 + n_kick])
        return f"{CATEGORY_NAMES[cat]}, {R[r[0]]}s, kickers {kickers}"
    return f"high card, {' '.join(R[x] for x in r)}"


def best_five(cards, rules: str = "standard", return_jokers: bool = False):
    """The five cards of the best hand among ``cards``, jokers shown as the card they became.

    ``cards``: 1-D integer ids (or card text for :func:`engines.cards.parse`), 5 to 10 real
    cards. Returns ``np.ndarray[int8]`` of shape ``(5,)``, ordered by importance (sets first,
    then high to low). With ``return_jokers=True`` returns ``(five, jokers)`` where ``jokers``
    (int8, shape (5,)) holds 52/53 where that card is a joker's stand-in and -1 elsewhere.
    Among equally strong choices it prefers real cards and, for jokers, the stand-in with the
    highest standard strength. Raises ``ValueError`` like :func:`evaluate`.
    """
    ids = _cards.parse(cards) if isinstance(cards, str) else np.asarray(cards).ravel()
    ids = [int(c) for c in ids if int(c) != -1]
    code = _rules_code(rules)
    target = int(evaluate(np.array(ids)[None, :], rules)[0])
    present = set(ids)
    subsets = sorted(combinations(ids, 5), key=lambda sub: sum(c >= 52 for c in sub))
    sub_arr = np.array(subsets, dtype=np.int64)
    vals = np.array([eval_hand(row, 5, code) for row in sub_arr])
    sub = subsets[int(np.flatnonzero(vals == target)[0])]
    real = [c for c in sub if c < 52]
    jokers = [c for c in sub if c >= 52]
    stand_ins: list[int] = []
    if jokers:
        free = [c for c in range(52) if c not in present]
        cands = list(combinations(free, len(jokers)))
        rows = np.array([real + list(x) for x in cands], dtype=np.int64)
        v_rules = evaluate(rows, rules)
        v_std = evaluate(rows, "standard")
        ok = np.flatnonzero(v_rules == target)
        stand_ins = list(cands[int(ok[np.argmax(v_std[ok])])])
    five = real + stand_ins
    joker_of = {c: j for c, j in zip(stand_ins, jokers, strict=True)}
    counts = {r: sum(1 for c in five if c >> 2 == r) for r in range(13)}
    five.sort(key=lambda c: (counts[c >> 2], c >> 2, c & 3), reverse=True)
    out = np.array(five, dtype=np.int8)
    if return_jokers:
        return out, np.array([joker_of.get(c, -1) for c in five], dtype=np.int8)
    return out
