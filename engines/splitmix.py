"""A small explicit PRNG for compiled game kernels: splitmix64 on signed 64-bit words.

Why: the step API and the compiled batch simulator must play *identical* games for the same
seed. Each game therefore carries its own generator state as one ``int64`` word (inside the
game's flat state array, or in a small ``int64`` array for a policy), and both doors draw from
it in the same order. The per-game seeds come from :func:`game_seeds`, i.e. from
``np.random.SeedSequence(seed).generate_state(n_games, np.uint64)``, so game ``i`` of a batch
does not depend on how many games the batch holds (``generate_state`` of a longer length
extends a shorter one).

Algorithm: splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
generators", OOPSLA 2014; the constants of Vigna's public-domain ``splitmix64.c``). The
arithmetic is done on ``int64`` with wrap-around multiplication and logical right shifts
emulated by masking, which gives the same bit patterns as the ``uint64`` reference.

Note for kernel writers: these helpers (and the game kernels) do not use numba's
``inline="always"``: with numba 0.62 an IR-inlined helper inside a loop gave wrong results
(the Rats lead generator emitted one-card "sets"); plain calls are inlined by LLVM anyway.

Bounded integers use Lemire's multiply-shift on the top 32 bits without rejection: the bias is
below ``n / 2**32`` (under 2e-9 for the ``n <= 64`` used by the games).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["game_seeds", "next_u64", "rand_below", "rand_float", "seed_word", "mix", "seat_streams"]

_GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)
_M1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_M2 = 0x94D049BB133111EB - (1 << 64)


@njit(cache=True)
def _lsr(z, k):
    """Logical right shift of an int64 by ``k`` (0 < k < 64) bits."""
    return (z >> k) & ((np.int64(1) << (64 - k)) - 1)


@njit(cache=True)
def mix(z):
    """The splitmix64 output function applied to an ``int64`` word (a bijection)."""
    z = (z ^ _lsr(z, 30)) * _M1
    z = (z ^ _lsr(z, 27)) * _M2
    return z ^ _lsr(z, 31)


@njit(cache=True)
def next_u64(words, i):
    """Advance the generator stored in ``words[i]`` (``int64``) and return 64 random bits as
    an ``int64`` (splitmix64)."""
    x = words[i] + _GOLDEN
    words[i] = x
    return mix(x)


@njit(cache=True)
def rand_below(words, i, n):
    """Uniform integer in ``0 .. n-1`` (``n`` >= 1, at most ``2**31``) from ``words[i]``."""
    hi = _lsr(next_u64(words, i), 32)
    return (hi * n) >> 32


@njit(cache=True)
def rand_float(words, i):
    """Uniform float in ``[0, 1)`` with 53 random bits, from ``words[i]``."""
    return _lsr(next_u64(words, i), 11) * (1.0 / 9007199254740992.0)


def game_seeds(seed: int, n_games: int) -> np.ndarray:
    """Per-game seed words: ``SeedSequence(seed).generate_state(n_games, uint64)`` as ``int64``.

    Returns an ``int64`` array of shape ``(n_games,)``; element ``i`` is the same for every
    ``n_games > i``. Raises ``ValueError`` for a negative ``seed`` or ``n_games``.
    """
    if int(seed) < 0:
        raise ValueError(f"seed {seed!r} is negative: expected an integer >= 0")
    if int(n_games) < 0:
        raise ValueError(f"n_games {n_games!r} is negative: expected an integer >= 0")
    words = np.random.SeedSequence(int(seed)).generate_state(int(n_games), np.uint64)
    return words.view(np.int64).copy()


def seed_word(seed: int, game_index: int = 0) -> int:
    """The seed word of game ``game_index`` of ``game_seeds(seed, ...)`` (a Python int).

    Raises ``ValueError`` for a negative ``seed`` or ``game_index``.
    """
    if int(game_index) < 0:
        raise ValueError(f"game_index {game_index!r} is negative: expected an integer >= 0")
    return int(game_seeds(seed, int(game_index) + 1)[int(game_index)])


_SEAT_STEP = 0xD1B54A32D192ED03 - (1 << 64)


@njit(cache=True)
def seat_streams(game_seed, n):
    """``int64`` array (n,) of per-seat policy generator words derived from a game's seed word:
    ``mix(game_seed + (p + 1) * 0xD1B54A32D192ED03)`` for seat ``p``. Each seat draws its
    policy's chance from its own word, so changing one seat's policy leaves the others' random
    draws (and the deal, which uses the game's own word) unchanged."""
    out = np.empty(n, dtype=np.int64)
    for p in range(n):
        out[p] = mix(game_seed + (p + 1) * _SEAT_STEP)
    return out
