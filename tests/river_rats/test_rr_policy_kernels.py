"""The building blocks of the fast River Rats policy kernel (issue 13): stack scratch arrays,
bit counts, the tabled powers of the slot chances, and the plan pruning of ``score`` (the same
values with it and without it)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from agents import river_rats as R
from agents.stack_arrays import stack_f64, stack_i64
from engines.protocol import chance
from engines.protocol.bits import high_bit, low_bit, popcount
from engines.river_rats import RiverRatsConfig
from engines.river_rats import core as C

_N = 37


@njit(cache=True)
def _bits(xs, out):
    for i in range(xs.shape[0]):
        out[i, 0] = popcount(xs[i])
        out[i, 1] = high_bit(xs[i])
        out[i, 2] = low_bit(xs[i])


def test_popcount_high_bit_and_low_bit_match_python():
    rng = np.random.default_rng(1)
    xs = np.concatenate([np.arange(8192), rng.integers(0, 2 ** 62, 2000),
                         [2 ** 62, 2 ** 63 - 1]]).astype(np.int64)
    out = np.zeros((xs.size, 3), dtype=np.int64)
    _bits(xs, out)
    assert out[:, 0].tolist() == [bin(int(x)).count("1") for x in xs]
    assert out[:, 1].tolist() == [int(x).bit_length() - 1 for x in xs]
    assert out[:, 2].tolist() == [(int(x) & -int(x)).bit_length() - 1 if x else 64 for x in xs]


@njit(cache=True)
def _fill(a, b):
    for i in range(a.shape[0]):
        a[i] = 0.5 * i
    for i in range(b.shape[0]):
        b[i] = i
    return a.sum() + b.sum()


@njit(cache=True)
def _stack_loop(k):
    acc = 0.0
    for _ in range(k):  # one frame slot, reused: a long loop must not grow the stack
        a = stack_f64(_N)
        b = stack_i64(5)
        acc += _fill(a, b) + a.shape[0] + b.shape[0]
    return acc


def test_stack_arrays_are_usable_scratch():
    assert _stack_loop(200_000) == 200_000 * (0.5 * sum(range(_N)) + 10 + _N + 5)


def test_stack_arrays_need_a_constant_size():
    @njit
    def bad(n):
        return stack_f64(n).shape[0]

    with pytest.raises(TypingError, match="compile-time"):
        bad(3)


@njit(cache=True)
def _computed_powers(prm, out_h, out_q):
    """The expressions of ``_slot_p`` when its parameters are not the defaults."""
    for iu in range(53):
        u = np.float64(iu)
        for k in range(14):
            rel = np.float64(k)
            f = rel / u if u > 0 else 0.0
            out_h[iu, k] = (1.0 - f) ** prm[R.P_H]
    for m in range(14):
        mrel = np.float64(m)
        out_q[m] = (1.0 - prm[R.P_Q]) ** mrel


def test_power_tables_are_the_computed_powers_bit_for_bit():
    out_h = np.empty((53, 14))
    out_q = np.empty(14)
    _computed_powers(R.DEFAULT_PARAMS, out_h, out_q)
    assert out_h.tobytes() == R.POW_H_TAB.tobytes()
    assert out_q.tobytes() == R.POW_Q_TAB.tobytes()


@njit(cache=True)
def _pruning_check(cfg, seeds, params, peek):
    """Play heuristic games; at every decision compare ``score`` with and without the plan
    pruning on the collective hand as it is and with each hand or market card added. Returns
    (scores compared, mismatches)."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    mem = np.zeros(16, dtype=np.int64)
    f = np.empty(R.F_SIZE)
    w = np.empty(R.W_SIZE, dtype=np.int64)
    g = np.empty(R.F_SIZE)
    n_cmp = 0
    bad = 0
    for i in range(seeds.shape[0]):
        C.init_state(cfg, seeds[i], s)
        while not C.is_terminal(s):
            p = C.current_player(s)
            n = C.legal_actions(s, legal)
            R.build_context(s, p, peek, params, f, w)
            g[:] = f
            g[R.CX_PRUNE] = 0.0
            L = s[C.TARGET] - w[R.W_NC]
            for j in range(-1, w[R.W_NH] + s[C.MARKET]):
                c = -1
                if j >= 0:
                    c = w[R.W_H + j] if j < w[R.W_NH] else s[C.MARKET + 1 + j - w[R.W_NH]]
                Lj = L if c < 0 else L - 1
                a = R._coll_score(w, c, -1, Lj, f, params)
                b = R._coll_score(w, c, -1, Lj, g, params)
                n_cmp += 1
                if a != b:
                    bad += 1
            C.apply_action(s, R.heuristic_policy(s, p, legal, n, params, mem))
    return n_cmp, bad


@pytest.mark.parametrize("peek", [False, True])
@pytest.mark.parametrize("difficulty", ["normal", "expert"])
def test_plan_pruning_keeps_every_score(peek, difficulty):
    """``score`` skips plans that cannot raise its best value: the result is the same."""
    cfg = RiverRatsConfig(n_players=3, difficulty=difficulty).to_array()
    n_cmp, bad = _pruning_check(cfg, chance.game_seeds(5, 150), R.DEFAULT_PARAMS, peek)
    assert n_cmp > 10_000
    assert bad == 0
