"""Single-instruction bit operations for compiled kernels (Numba intrinsics; compiled only).

The evaluator (:mod:`engines.poker`, duplicate detection) and the River Rats policies
(:mod:`agents.river_rats`, 13-bit rank masks, where 8192-entry lookup tables miss the L1 cache)
count and locate bits many times per call: :func:`popcount`, :func:`high_bit` and
:func:`low_bit` are LLVM's ``ctpop``, ``ctlz`` and ``cttz`` (one ``popcnt`` / ``lzcnt`` /
``tzcnt`` instruction on x86-64). Rats (:mod:`engines.rats.core`) reads its card masks with
them too (its lead generation is bit twiddling). Integers narrower than 64 bits are taken
as 64 bits (sign-extended when signed).
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["popcount", "high_bit", "low_bit"]


def _as_i64(builder, value, ty):
    i64 = ir.IntType(64)
    if value.type.width < 64:
        return builder.sext(value, i64) if ty.signed else builder.zext(value, i64)
    return value


def _zeros(builder, name, value):
    """Call LLVM's ``llvm.ctlz.i64`` or ``llvm.cttz.i64`` (``name``) on the ``i64`` ``value``
    (defined for 0: 64)."""
    i64 = ir.IntType(64)
    i1 = ir.IntType(1)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64, i1]), name)
    return builder.call(fn, [value, ir.Constant(i1, 0)])


def _bit_op(x, name, emit):
    """Typing and code of an ``int64`` function of one integer ``x``: ``emit(builder, value)``
    builds the result from the argument taken as ``i64``; raises ``TypingError`` (naming
    ``name``) for a non-integer."""
    if not isinstance(x, types.Integer):
        raise TypingError(f"{name} needs an integer, got {x}")

    def codegen(context, builder, signature, args):
        return emit(builder, _as_i64(builder, args[0], signature.args[0]))

    return types.int64(x), codegen


def _ctpop(builder, value):
    i64 = ir.IntType(64)
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i64, [i64]),
                                        "llvm.ctpop.i64")
    return builder.call(fn, [value])


@intrinsic
def popcount(typingctx, x):
    """Number of set bits of an integer (taken as 64 bits; LLVM ``ctpop``). Returns
    ``int64``."""
    return _bit_op(x, "popcount", _ctpop)


@intrinsic
def high_bit(typingctx, x):
    """Index of the highest set bit of a positive integer (``x.bit_length() - 1``; LLVM
    ``ctlz``); -1 for 0. Returns ``int64``."""
    return _bit_op(x, "high_bit", lambda builder, v: builder.sub(
        ir.Constant(ir.IntType(64), 63), _zeros(builder, "llvm.ctlz.i64", v)))


@intrinsic
def low_bit(typingctx, x):
    """Index of the lowest set bit of an integer (LLVM ``cttz``); 64 for 0. Returns
    ``int64``."""
    return _bit_op(x, "low_bit", lambda builder, v: _zeros(builder, "llvm.cttz.i64", v))
