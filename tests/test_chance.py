"""The one chance module (:mod:`engines.protocol.chance`): splitmix64 against a plain-Python
reference, the seeding conventions, bounded draws and bad seeds."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from engines.protocol import chance

M = 2**64


def _splitmix(x):
    x = (x + 0x9E3779B97F4A7C15) % M
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % M
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % M
    return x, z ^ (z >> 31)


def test_next_u64_is_splitmix64():
    for start in (0, 1, 42, 2**63 + 7, M - 1):
        words = np.array([chance.as_word(start)])
        x = start
        for _ in range(5):
            x, want = _splitmix(x)
            assert chance.word_to_seed(chance.next_u64(words, 0)) == want
            assert chance.word_to_seed(words[0]) == x


def test_game_seed_is_the_splitmix_sequence_of_the_batch_seed():
    x = 42
    seeds = chance.game_seeds(42, 4)
    for g in range(4):
        x, out = _splitmix(x)
        assert chance.word_to_seed(chance.game_seed(chance.as_word(42), g)) == out
        assert chance.word_to_seed(seeds[g]) == out
    assert np.array_equal(chance.game_seeds(42, 2, start=2), seeds[2:])


def test_seat_seeds_and_memory():
    mem = np.full((4, chance.SEAT_WORDS), 9, dtype=np.int64)
    w = chance.as_word(2026)
    chance.init_seat_memory(w, mem)
    assert (mem[:, 1:] == 0).all()
    assert len(set(mem[:, 0].tolist())) == 4
    for p in range(4):
        want = chance.mix(w ^ np.int64((0xD1B54A32D192ED03 + p * 0x9E3779B97F4A7C15) % M
                                       - (M if (0xD1B54A32D192ED03 + p * 0x9E3779B97F4A7C15)
                                          % M >= 2**63 else 0)))
        assert mem[p, 0] == want == chance.seat_seed(w, p)


def test_rand_below_is_uniform_and_in_range():
    words = np.array([chance.as_word(7)])
    for n in (1, 2, 3, 10, 54):
        draws = np.array([chance.rand_below(words, 0, n) for _ in range(6000)])
        assert draws.min() >= 0 and draws.max() < n
        if n > 1:
            assert stats.chisquare(np.bincount(draws, minlength=n)).pvalue > 1e-4
    f = np.array([chance.rand_float(words, 0) for _ in range(2000)])
    assert 0 <= f.min() and f.max() < 1 and abs(f.mean() - 0.5) < 0.03


@pytest.mark.parametrize("bad", [-1, M, 1.0, "3", None, True, np.float64(2.0)])
def test_bad_seeds_are_refused(bad):
    with pytest.raises(ValueError, match="seed"):
        chance.check_seed(bad)
    with pytest.raises(ValueError, match="seed"):
        chance.game_seeds(bad, 3)


def test_batch_word_comes_from_the_seed_sequence():
    ss = np.random.SeedSequence(5, spawn_key=(2,))
    assert chance.batch_word(ss) == int(ss.generate_state(1, dtype=np.uint64)[0])
    assert chance.batch_word(5) == int(np.random.SeedSequence(5).generate_state(1, np.uint64)[0])
    with pytest.raises(ValueError, match="n_games"):
        chance.game_seeds(1, -2)
