"""Calls of a rules core's protocol kernels (``engines/<game>/core.py``) with freshly allocated
output arrays, for tests that work on raw kernel states: one helper for every game."""

from __future__ import annotations

import numpy as np

from engines.protocol import chance


class KernelArrays:
    """``KernelArrays(core)``: ``det(s, p, seed)`` (a determinization, ``int64
    (STATE_SIZE,)``; ``seed`` any Python int, taken as its 64-bit pattern), ``info(s, p)``
    (``int64 (INFO_SIZE,)``), ``tensor(s, p)`` (``float32 (TENSOR_SIZE,)``), ``inventory(s)``
    (``int64 (INVENTORY_SIZE,)``) and ``legal(s)`` (list of ints)."""

    def __init__(self, core):
        self.core = core

    def det(self, s, p, seed):
        out = np.full(self.core.STATE_SIZE, -99, dtype=np.int64)
        self.core.determinize(s, p, chance.as_word(int(seed) & ((1 << 64) - 1)), out)
        return out

    def info(self, s, p):
        out = np.zeros(self.core.INFO_SIZE, dtype=np.int64)
        self.core.information_state(s, p, out)
        return out

    def tensor(self, s, p):
        out = np.zeros(self.core.TENSOR_SIZE, dtype=np.float32)
        self.core.observation_tensor(s, p, out)
        return out

    def inventory(self, s):
        out = np.zeros(self.core.INVENTORY_SIZE, dtype=np.int64)
        self.core.inventory(s, out)
        return out

    def legal(self, s):
        out = np.empty(self.core.MAX_LEGAL, dtype=np.int64)
        return out[:self.core.legal_actions(s, out)].tolist()
