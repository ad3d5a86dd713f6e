"""Single-instruction bit operations for compiled kernels (Numba intrinsics; compiled only).

The evaluator (:mod:`engines.poker`, duplicate detection) and the River Rats policies
(:mod:`agents.river_rats`, 13-bit rank masks, where 8192-entry lookup tables miss the L1 cache)
count and locate bits many times per call: :func:`popcount` and :func:`high_bit` are LLVM's
``ctpop`` and ``ctlz`` (one ``popcnt`` / ``lzcnt`` instruction on x86-64). Integers narrower than
64 bits are taken as 64 bits (sign-extended when signed).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["popcount", "high_bit"]


def _as_i64(builder, value, ty):
    i64 = ir.IntType(64)
    if value.type.width < 64:
        return builder.sext(value, i64) if ty.signed else builder.zext(value, i64)
    return value


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer (taken as 64 bits; LLVM ``ctpop``). Returns
    ``int64``."""
    if not isinstance(x, types.Integer):
        raise TypingError(f"popcount needs an integer, got {x}")

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, [_as_i64(builder, args[0], signature.args[0])])

    return types.int64(x), codegen


@intrinsic
def high_bit(typingctx, x):
    """Index of the highest set bit of a positive integer (``x.bit_length() - 1``; LLVM
    ``ctlz``); -1 for 0. Returns ``int64``."""
    if not isinstance(x, types.Integer):
        raise TypingError(f"high_bit needs an integer, got {x}")

    def codegen(context, builder, signature, args):
        i64 = ir.IntType(64)
        i1 = ir.IntType(1)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i1]),
                                            "llvm.ctlz.i64")
        lz = builder.call(fn, [_as_i64(builder, args[0], signature.args[0]),
                               ir.Constant(i1, 0)])
        return builder.sub(ir.Constant(i64, 63), lz)

    return types.int64(x), codegen
