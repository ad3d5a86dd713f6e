"""Low-level helpers of the compiled policies (River Rats, Rats, the learned ``net``): scratch
arrays on the stack (the bit counts are :mod:`engines.protocol.bits`).

A decision of River Rats' ``heuristic`` takes about a microsecond, so small costs matter:

- Two heap allocations of its work arrays (``np.empty`` goes through Numba's runtime, ``malloc``
  and ``free``) cost a tenth of a decision. :func:`stack_f64`, :func:`stack_f32` and
  :func:`stack_i64` return a 1-D
  C-contiguous array whose memory is reserved in the stack frame of the compiled function that
  calls them (an LLVM ``alloca`` in its entry block, so a call inside a loop does not grow the
  stack): no allocation, no reference counting (the array has no ``meminfo``). The memory is
  uninitialized and lives until that function returns, so the array may be passed down to
  callees but must never be returned or stored.
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.core.errors import TypingError
from numba.extending import intrinsic

__all__ = ["stack_f64", "stack_i64", "stack_f32"]


def _stack_array(dtype):
    @intrinsic
    def stack_array(typingctx, n):
        if not isinstance(n, types.IntegerLiteral) or n.literal_value < 1:
            raise TypingError("stack_f64/stack_f32/stack_i64 need a size that is a positive "
                              f"compile-time constant (a module-level int), got {n}")
        size = int(n.literal_value)
        arrty = types.Array(dtype, 1, "C")

        def codegen(context, builder, signature, args):
            elem = context.get_data_type(dtype)
            ptr = cgutils.alloca_once(builder, elem, size=size)
            ary = context.make_array(arrty)(context, builder)
            intp = context.get_value_type(types.intp)
            itemsize = context.get_abi_sizeof(elem)
            context.populate_array(ary, data=ptr, shape=[ir.Constant(intp, size)],
                                   strides=[ir.Constant(intp, itemsize)],
                                   itemsize=ir.Constant(intp, itemsize), meminfo=None)
            return ary._getvalue()

        return arrty(n), codegen

    return stack_array


stack_f64 = _stack_array(types.float64)
"""``stack_f64(n)``: an uninitialized ``float64`` array of ``n`` elements (``n`` a
compile-time constant, e.g. a module-level int) in the caller's stack frame."""
stack_i64 = _stack_array(types.int64)
"""``stack_i64(n)``: an uninitialized ``int64`` array of ``n`` elements (``n`` a
compile-time constant) in the caller's stack frame."""
stack_f32 = _stack_array(types.float32)
"""``stack_f32(n)``: an uninitialized ``float32`` array of ``n`` elements (``n`` a
compile-time constant) in the caller's stack frame."""
