"""Compiled building blocks of the poker evaluator's fast path: summing a hand's card records
with 128-bit vector adds (the population count is :func:`engines.protocol.bits.popcount`).

OMPEval (Timo Kaufmann, https://github.com/zekyll/OMPEval) keeps each card as one 16-byte
record (rank key + suit counters, and the card's bit) and adds a hand's records with one SSE
add per card. Numba does not vectorize the two 64-bit adds on its own, so :func:`card_sums5`,
:func:`card_sums6` and :func:`card_sums7` emit that loop directly in LLVM IR: ``k`` byte (or
wider) loads, ``k`` 16-byte loads from a ``(512, 2)`` table and ``k`` ``<2 x i64>`` adds.

The table (:data:`engines.poker.tables.CARD_RECORD`) is indexed by the card id read as an
unsigned byte: ids 0..51 hold the card's key and bit, the jokers 52 and 53 a joker flag
(bit 52 of the key), every other byte (54..255, so also -1 = 255) an "other" flag (bit 56).
Ids wider than a byte are clamped to 255 first, so any integer value lands in the table. The
first card is read from the table's second half (rows ``256 + id``), whose keys carry
:data:`engines.poker.tables.SUIT_BIAS`: the sum's key comes out biased, ready for the flush
test, at no extra instruction (OMPEval starts its sums from a biased empty hand instead).
Because a hand's card bits are added (not or-ed), a card present twice carries into another
bit, and ``popcount(bits) < k`` tells it: popcount never grows on an add that carries
(``popcount(a + b) <= popcount(a) + popcount(b)``, equal only when ``a & b == 0``), and a
second copy of a card always meets a set bit or a bit a carry cleared. Jokers and other bytes
add no bit, so ``popcount(bits) == k`` holds exactly when the ``k`` values are distinct card
ids 0..51: one test validates a row.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic, overload

__all__ = ["card_sums5", "card_sums6", "card_sums7", "record_sums"]


def _index(builder, value, dtype):
    """The table row of one card value: unsigned byte as is; wider values clamped to 255."""
    i64 = ir.IntType(64)
    width = value.type.width
    if width == 8:
        return builder.zext(value, i64)
    wide = builder.sext(value, i64) if (dtype.signed and width < 64) else (
        builder.zext(value, i64) if width < 64 else value)
    over = builder.icmp_unsigned(">", wide, ir.Constant(i64, 255))
    return builder.select(over, ir.Constant(i64, 255), wide)


def _make_card_sums(k: int):
    @intrinsic
    def card_sums(typingctx, cards, base, table):
        if not (isinstance(cards, types.Array) and cards.ndim == 1 and cards.layout == "C"
                and isinstance(cards.dtype, types.Integer) and isinstance(base, types.Integer)
                and isinstance(table, types.Array) and table.ndim == 2
                and table.layout == "C" and table.dtype == types.int64):
            return None
        sig = types.UniTuple(types.int64, 2)(cards, base, table)

        def codegen(context, builder, signature, args):
            arr_t, base_t, table_t = signature.args
            arr = context.make_array(arr_t)(context, builder, args[0])
            tab = context.make_array(table_t)(context, builder, args[2])
            i64 = ir.IntType(64)
            vec = ir.VectorType(i64, 2)
            start = args[1]
            if start.type.width < 64:
                start = builder.sext(start, i64) if base_t.signed else builder.zext(start, i64)
            rows = builder.bitcast(tab.data, vec.as_pointer())
            acc = ir.Constant(vec, [0, 0])
            for j in range(k):
                ptr = builder.gep(arr.data, [builder.add(start, ir.Constant(i64, j))])
                row = _index(builder, builder.load(ptr), arr_t.dtype)
                if j == 0:  # the biased half of the table
                    row = builder.add(row, ir.Constant(i64, 256))
                acc = builder.add(acc, builder.load(builder.gep(rows, [row]), align=8))
            i32 = ir.IntType(32)
            key = builder.extract_element(acc, ir.Constant(i32, 0))
            bits = builder.extract_element(acc, ir.Constant(i32, 1))
            return context.make_tuple(builder, signature.return_type, [key, bits])

        return sig, codegen

    card_sums.__doc__ = (
        f"Sums of the table rows of cards[base:base + {k}] (compiled only): ``(key, bits)``, "
        "two int64, the key with the first card's row from the biased half. ``cards``: 1-D "
        "C-contiguous integer array; ``table``: int64 (512, 2), "
        "C-contiguous (:data:`engines.poker.tables.CARD_RECORD`). No bounds check: the caller "
        f"guarantees ``base + {k} <= cards.size``.")
    return card_sums


card_sums5 = _make_card_sums(5)
card_sums6 = _make_card_sums(6)
card_sums7 = _make_card_sums(7)


def record_sums(cards, base, k, table):
    """Sums of the table rows of ``cards[base:base + k]``, ``k`` in 5..7 (compiled only):
    ``(key, bits)``, two int64; the first card's row is taken from the table's biased half, so
    the key includes :data:`engines.poker.tables.SUIT_BIAS`. ``cards``: 1-D integer array of
    any layout (a C-contiguous one
    takes the vector path of :func:`card_sums7` and its kin, another a plain loop with the same
    result); ``table``: :data:`engines.poker.tables.CARD_RECORD`."""
    raise NotImplementedError("record_sums is compiled only: call it from a Numba kernel")


@overload(record_sums, jit_options={"cache": True})
def _record_sums(cards, base, k, table):
    if not (isinstance(cards, types.Array) and cards.ndim == 1):
        return None
    if cards.layout == "C":
        def vector(cards, base, k, table):
            if k == 7:
                return card_sums7(cards, base, table)
            if k == 6:
                return card_sums6(cards, base, table)
            return card_sums5(cards, base, table)
        return vector

    def plain(cards, base, k, table):
        key = 0
        bits = 0
        for j in range(k):
            c = cards[base + j]
            row = 255 if (c < 0 or c > 255) else c
            if j == 0:
                row += 256
            key += table[row, 0]
            bits += table[row, 1]
        return key, bits
    return plain
