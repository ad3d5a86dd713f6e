"""engines.protocol.hints: the branch hint changes code layout only, never a result."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from engines.protocol.hints import unlikely


@njit(cache=True)
def _count(xs, limit):
    """How many of ``xs`` exceed ``limit``, counted through both forms of the hint."""
    hi = 0
    lo = 0
    for x in xs:
        if unlikely(x > limit):
            hi += 1
        if not unlikely(x > limit):
            lo += 1
    return hi, lo


@pytest.mark.parametrize("limit", [-1, 0, 37, 99, 1000])
def test_unlikely_returns_the_condition_unchanged(limit):
    xs = np.random.default_rng(limit + 5).integers(0, 100, 500)
    hi, lo = _count(xs, limit)
    assert (hi, lo) == (int((xs > limit).sum()), int((xs <= limit).sum()))


def test_unlikely_rejects_a_non_boolean():
    @njit
    def bad(x):
        return unlikely(x)
    with pytest.raises(TypingError, match="unlikely needs a boolean condition, got int64"):
        bad(3)
