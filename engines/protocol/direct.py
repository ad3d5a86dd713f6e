"""Compile-time dispatch with no compiled layer of its own: :func:`direct_call`.

Generic compiled code calls names such as ``g_apply_action(game, s, a)`` or
``g_act_seat(game, one_kind, ...)`` that stand, once ``game`` (and the like) is a literal, for
one compiled function chosen at compile time. Written as an ``@overload``, each such name is a
function Numba compiles as a module of its own: the module links everything below it (a whole
rules core, a search agent and its rollouts) and LLVM optimizes it and turns it into machine
code again, only to forward the call; the caller then links that module and does it once more.
A name made by :func:`direct_call` is an ``@intrinsic`` whose code is the call itself, emitted
straight into the caller, the callee's own compiled module linked into the caller's as if the
caller had called it by name. The same machine code runs (the callee is the same compiled
function), with one module less to optimize per layer: it saves compile time only.
"""

from __future__ import annotations

import inspect

from numba import types
from numba.extending import intrinsic

__all__ = ["direct_call", "direct_call_by_game"]


def direct_call(stub, pick):
    """Make the compiled name ``stub`` (a plain Python function whose signature and docstring
    are the name's: ``def g_x(game, a, b): "..."``) call, in compiled code, the compiled
    function that ``pick`` chooses from the argument types.

    ``pick(*arg_types)`` gets the Numba types of the call's arguments (literal types where the
    caller's arguments are literal; it is asked with literal types first) and returns
    ``(dispatcher, positions)``: an ``@njit`` dispatcher and the positions (``tuple[int, ...]``)
    of the arguments it is called with, in order; or ``None`` when it has nothing for these
    types (Numba then reports no matching implementation, as for an ``@overload`` returning
    ``None``). The call compiles to ``dispatcher(*(args[i] for i in positions))``: its result,
    its exceptions, and its compiled code linked into the caller's.

    Returns the ``@intrinsic`` (callable only from compiled code; from Python it raises
    ``NotImplementedError``), carrying ``stub``'s name, docstring and module.

    Source: Numba's own way of calling a compiled function from generated code (the
    ``types.Dispatcher`` lowering, as in ``numba.experimental.jitclass``): resolve the call type,
    ``context.get_function``, link the callee's libraries.
    """
    params = tuple(inspect.signature(stub).parameters)

    def typer(typingctx, *argtys):
        chosen = pick(*argtys)
        if chosen is None:
            return None
        dispatcher, positions = chosen
        fnty = typingctx.resolve_value_type(dispatcher)
        callsig = fnty.get_call_type(typingctx, tuple(argtys[i] for i in positions), {})
        if callsig is None:
            return None

        def codegen(context, builder, sig, args):
            impl = context.get_function(fnty, callsig)
            vals = [context.cast(builder, args[i], argtys[i], ty)
                    for i, ty in zip(positions, callsig.args, strict=True)]
            out = impl(builder, vals)
            libs = getattr(impl, "libs", ())
            if libs:
                context.add_linking_libs(libs)
            return out

        return callsig.return_type(*argtys), codegen

    for attr in ("__name__", "__qualname__", "__doc__", "__module__"):
        setattr(typer, attr, getattr(stub, attr))
    # Numba folds a call's arguments by the typer's signature: spell the parameters out
    typer.__signature__ = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
         for n in ("typingctx",) + params])
    return intrinsic(prefer_literal=True)(typer)


def direct_call_by_game(stub, resolve):
    """:func:`direct_call` for the common shape ``stub(game, *args)`` -> ``resolve(game_id)(
    *args)``: ``game`` must be a literal game id; ``resolve(game_id)`` returns the compiled
    function of that game to call with every argument after ``game``, or ``None`` (no
    implementation for that game: a typing error)."""
    positions = tuple(range(1, len(inspect.signature(stub).parameters)))

    def pick(game, *args):
        if not isinstance(game, types.IntegerLiteral):
            return None
        fn = resolve(game.literal_value)
        return None if fn is None else (fn, positions)
    return direct_call(stub, pick)
