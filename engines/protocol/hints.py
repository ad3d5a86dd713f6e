"""Branch hints for compiled kernels (a Numba intrinsic; compiled only).

A scalar kernel that other kernels call once per hand (:func:`engines.poker.eval_at`) has a
rare slow path that calls a larger function. Without a hint, LLVM weighs both sides of the
branch alike: it keeps the caller's loop-invariant values (table addresses, the output array)
on the stack to survive that call and reloads them for every hand. :func:`unlikely` tells LLVM
that a condition is almost always false (``llvm.expect``, the ``__builtin_expect`` of C
compilers), so the register allocator moves the spills into the rare branch and the common
path becomes straight-line code.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["unlikely"]


@intrinsic
def unlikely(typingctx, condition):
    """``condition`` unchanged (a ``bool``), with the hint that it is almost always false
    (LLVM ``llvm.expect.i1``: only the branch weights and code layout change, never the
    result). Use as ``if unlikely(c):`` or ``if not unlikely(c):``.

    Raises ``TypingError`` (at compile time) when ``condition`` is not a boolean."""
    if not isinstance(condition, types.Boolean):
        raise TypingError(f"unlikely needs a boolean condition, got {condition}")

    def codegen(context, builder, signature, args):
        i1 = ir.IntType(1)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(i1, [i1, i1]),
                                            "llvm.expect.i1")
        return builder.call(fn, [args[0], ir.Constant(i1, 0)])

    return types.boolean(condition), codegen
