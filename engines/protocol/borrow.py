"""Borrowed arrays: a view of an array without its reference count (compiled code only).

Numba counts references to every array with an *atomic* increment and decrement (``lock
incq``/``lock decq``), each time an array variable is bound, sliced (``mem[p]``) or handed to an
inlined function; an array without ``meminfo`` skips both (``NRT_incref`` returns at once on a
null pointer). In the one game loop (:mod:`agents.loop`) those atomic operations were a large
share of a River Rats game under the random policy (``perf``; docs/benchmarks.md).
:func:`borrow` returns the same array (same data, shape, strides, type) without ``meminfo``,
so every view of it down the call chain is free of reference counting.

The borrowed view does not keep the memory alive: use it only while the owner (a local array
of the calling function, or an argument of it) lives, and never return or store it. Numba frees
a local array right after its **last use**, so a function that borrows its own array must use
the owner again after the last use of the view: :func:`keep_alive` (a no-op call) does that.
"""

from __future__ import annotations

from numba import njit, types
from numba.extending import intrinsic

__all__ = ["borrow", "keep_alive"]


@intrinsic
def borrow(typingctx, a):
    """``borrow(a)``: array ``a`` (any dtype, ndim, layout) without its reference count; the
    same type. Any other value (a number, ``None``) is returned as it is."""
    if not isinstance(a, types.Array):
        def passthrough(context, builder, signature, args):
            return args[0]
        return a(a), passthrough

    def codegen(context, builder, signature, args):
        src = context.make_array(a)(context, builder, value=args[0])
        dst = context.make_array(a)(context, builder)
        context.populate_array(dst, data=src.data, shape=src.shape, strides=src.strides,
                               itemsize=src.itemsize, meminfo=None)
        return dst._getvalue()

    return a(a), codegen


@njit(cache=True, inline="never")
def keep_alive(*arrays):
    """A use of ``arrays`` that does nothing: called after the last use of borrowed views
    (:func:`borrow`), it keeps their owners alive until then. Returns None."""
    return None
