"""The one source of chance of every game and every policy: splitmix64 on ``int64`` words.

Why one generator in words: the step API, the compiled game loop and the search agents must
play *identical* games for the same seed, on any number of workers. Each game therefore keeps
its whole chance stream as one ``int64`` word inside its flat state array (``state.copy()``
copies the future too, which is why search runs on :func:`determinize`-d copies, never on
plain clones), and each seat's policy draws from a word of its own (:func:`seat_seed`).

Conventions (the same for the four games; the River Rats engine used them first, so its
games and tables are unchanged by the move to one protocol):

=========================  ====================================================================
seed of game ``g`` of a    ``game_seed(seed, g)``: the ``(g+1)``-th splitmix64 output of a
batch with seed ``seed``   generator started at ``seed`` (a 64-bit word), so game ``g`` does not
                           depend on how many games the batch holds
a game's chance            the state's own word, started at the game's seed
seat ``p``'s policy        ``seat_seed(game_seed, p) = mix(game_seed ^ (0xD1B54A32D192ED03 +
stream                     p * GOLDEN))``; a seat's stream is the first word of its *policy
                           memory* (:data:`SEAT_WORDS` words, the rest free for the policy)
an experiment's batch      ``batch_word(SeedSequence)``: the first ``uint64`` of the batch's
                           ``numpy.random.SeedSequence`` (spawned per batch by the runner)
=========================  ====================================================================

Algorithm: splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014; the constants of Vigna's public-domain ``splitmix64.c``). The arithmetic is done on
``int64`` with wrap-around multiplication and logical right shifts emulated by masking, which
gives the bit patterns of the ``uint64`` reference. Bounded integers use Lemire's
multiply-shift on the top 32 bits without rejection: the bias is below ``n / 2**32`` (under
2e-9 for the ``n <= 64`` the games use).

Note for kernel writers: these helpers do not use numba's ``inline="always"``: with numba 0.62
an IR-inlined helper inside a loop gave wrong results once (plain calls are inlined by LLVM).
Nor are they compiled once per argument type (:mod:`engines.protocol.per_type`): they are plain
``@njit`` functions, compiled again for each constant a caller passes (tiny functions, a few
copies). Compiled for non-literal types, ``rand_below`` gave wrong draws under numba 0.66-0.68
inside Lure's ``determinize`` (the redraw of a finished secret cast never gave the d12; caught by
``tests/lure/test_determinize.py``), while the same code compiled per constant is right on every
numba version tested (0.62.1 and 0.68.1).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["GOLDEN", "SEAT_WORDS", "mix", "next_u64", "rand_below", "rand_float", "game_seed",
           "seat_seed", "init_seat_memory", "check_seed", "as_word", "batch_word", "game_seeds",
           "word_to_seed"]

GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)
"""The splitmix64 increment (2**64 / golden ratio) as an ``int64`` bit pattern."""
_M1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_M2 = 0x94D049BB133111EB - (1 << 64)
_SEAT = 0xD1B54A32D192ED03 - (1 << 64)
SEAT_WORDS = 16
"""Words of a seat's policy memory: word 0 is the seat's splitmix64 stream, words 1..15 are
zero at the start of each game and free for the policy to keep what it planned across its own
decisions (see :mod:`agents.policy`)."""
_U64 = 1 << 64


@njit(cache=True)
def _lsr(z, k):
    """Logical right shift of an int64 by ``k`` (0 < k < 64) bits."""
    return (z >> k) & ((np.int64(1) << (64 - k)) - 1)


@njit(cache=True)
def mix(z):
    """The splitmix64 output function of an ``int64`` word (a bijection of 64-bit words)."""
    z = (z ^ _lsr(z, 30)) * _M1
    z = (z ^ _lsr(z, 27)) * _M2
    return z ^ _lsr(z, 31)


@njit(cache=True)
def next_u64(words, i):
    """Advance the generator kept in ``words[i]`` (``int64`` array) and return its next 64
    random bits as an ``int64``."""
    x = words[i] + GOLDEN
    words[i] = x
    return mix(x)


@njit(cache=True)
def rand_below(words, i, n):
    """Uniform integer in ``0 .. n-1`` from the generator in ``words[i]``; ``1 <= n < 2**31``."""
    hi = _lsr(next_u64(words, i), 32)
    return (hi * n) >> 32


@njit(cache=True)
def rand_float(words, i):
    """Uniform float in ``[0, 1)`` with 53 random bits, from the generator in ``words[i]``."""
    return _lsr(next_u64(words, i), 11) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def game_seed(seed, g):
    """Seed word (``int64``) of game ``g`` of a batch with seed word ``seed``: the ``(g+1)``-th
    splitmix64 output of a generator started at ``seed``."""
    return mix(np.int64(seed) + np.int64(g + 1) * GOLDEN)


@njit(cache=True)
def seat_seed(game_word, p):
    """Initial word of seat ``p``'s policy stream in the game with seed word ``game_word``."""
    return mix(np.int64(game_word) ^ (_SEAT + np.int64(p) * GOLDEN))


@njit(cache=True)
def init_seat_memory(game_word, out):
    """Reset the policy memory ``out`` (``int64``, shape ``(seats, SEAT_WORDS)``) for a new
    game: row ``p`` gets ``seat_seed(game_word, p)`` in word 0 and zeros elsewhere."""
    for p in range(out.shape[0]):
        out[p, :] = 0
        out[p, 0] = seat_seed(game_word, p)


def check_seed(seed, what: str = "seed") -> int:
    """``seed`` as a Python int in ``0 .. 2**64-1``; ``ValueError`` naming ``what`` and the value
    for anything else (floats, strings, booleans and negative numbers included)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"bad {what} {seed!r}: expected an integer 0 <= {what} < 2**64")
    s = int(seed)
    if not 0 <= s < _U64:
        raise ValueError(f"bad {what} {seed!r}: expected an integer 0 <= {what} < 2**64")
    return s


def as_word(seed: int) -> np.int64:
    """A seed in ``0 .. 2**64-1`` as the ``int64`` bit pattern the kernels take."""
    return np.array([check_seed(seed)], dtype=np.uint64).view(np.int64)[0]


def batch_word(seed: np.random.SeedSequence | int) -> int:
    """The seed word (Python int in ``0 .. 2**64-1``) of an experiment batch: the first
    ``uint64`` of ``seed`` (a ``SeedSequence``, or an int taken as ``SeedSequence(seed)``)."""
    ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(
        check_seed(seed))
    return int(ss.generate_state(1, dtype=np.uint64)[0])


def game_seeds(seed: int, n_games: int, start: int = 0) -> np.ndarray:
    """Seed words of games ``start .. start+n_games-1`` of a batch with seed ``seed`` (an int in
    ``0 .. 2**64-1``): an ``int64`` array (bit patterns of the ``uint64`` words) of shape
    ``(n_games,)`` whose element ``i`` is ``game_seed(seed, start + i)``. Raises
    ``ValueError`` for a bad seed or a negative count."""
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"bad n_games {n_games!r}: expected an integer >= 0")
    w = as_word(seed)
    return _game_seeds(w, int(start), int(n_games))


@njit(cache=True, inline="always")
def _game_seeds(w, start, n):
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = game_seed(w, start + i)
    return out


def word_to_seed(word) -> int:
    """An ``int64`` seed word back to the ``0 .. 2**64-1`` integer a user types."""
    return int(np.array([word], dtype=np.int64).view(np.uint64)[0])
