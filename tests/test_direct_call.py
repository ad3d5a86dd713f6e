"""engines.protocol.direct.direct_call: compile-time dispatch with no compiled layer of its own
(issue 29: every ``@overload`` forwarder was a module that re-optimized everything below it)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import literally, njit, types
from numba.core.errors import TypingError

from engines.protocol.direct import direct_call, direct_call_by_game


@njit
def _double_plus(x, y):
    if x < 0:
        raise ValueError("negative x")
    return 2 * x + y[0]


@njit
def _triple_minus(y, x):
    return 3 * x - y[0]


def g_pick(game, x, y):
    """The stub's docstring: kept by the compiled name."""


def _pick(game, x, y):
    if not isinstance(game, types.IntegerLiteral):
        return None
    if game.literal_value == 0:
        return _double_plus, (1, 2)
    if game.literal_value == 1:
        return _triple_minus, (2, 1)  # the arguments in another order
    return None


g_pick = direct_call(g_pick, _pick)


@njit
def _call(game, x, y):
    literally(game)
    return g_pick(game, x, y) + g_pick(game, x + 1, y)


@njit
def _call_plain(game, x, y):
    return g_pick(game, x, y)


def test_the_picked_function_is_called_with_the_picked_arguments():
    y = np.array([5], dtype=np.int64)
    assert _call(0, 3, y) == (2 * 3 + 5) + (2 * 4 + 5)
    assert _call(1, 3, y) == (3 * 3 - 5) + (3 * 4 - 5)


def test_the_callees_exception_reaches_the_caller():
    with pytest.raises(ValueError, match="negative x"):
        _call(0, -3, np.array([5], dtype=np.int64))


def test_no_pick_is_a_typing_error():
    with pytest.raises(TypingError):
        _call(2, 3, np.array([5], dtype=np.int64))  # pick has nothing for game 2
    with pytest.raises(TypingError):
        _call_plain(0, 3, np.array([5], dtype=np.int64))  # game not literal


def test_the_callee_is_linked_straight_into_the_caller():
    """No module between: the caller's compiled library links the callee's own library."""
    y = np.array([5], dtype=np.int64)
    _call(1, 3, y)
    caller = next(c for sig, c in _call.overloads.items() if sig[0] == types.literal(1))
    callee = next(iter(_triple_minus.overloads.values()))
    assert callee.library in caller.library._linking_libraries


def test_the_name_keeps_the_stub_and_refuses_python_calls():
    assert g_pick.__name__ == "g_pick"
    assert "kept by the compiled name" in g_pick.__doc__
    with pytest.raises(NotImplementedError):
        g_pick(0, 1, np.array([1]))


def g_by_game(game, x, y):
    """Every argument after the game id, to the game's function."""


g_by_game = direct_call_by_game(g_by_game, {0: _double_plus}.get)


@njit
def _call_by_game(game, x, y):
    literally(game)
    return g_by_game(game, x, y)


def test_by_game_forwards_every_argument_after_the_game_id():
    y = np.array([5], dtype=np.int64)
    assert _call_by_game(0, 3, y) == 2 * 3 + 5
    with pytest.raises(TypingError):
        _call_by_game(1, 3, y)  # resolve has nothing for game 1
