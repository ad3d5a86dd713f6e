"""Confidence intervals (experiments.stats) against scipy's implementations."""

import numpy as np
import pytest
from scipy.stats import binomtest

from experiments.stats import newcombe_difference, wilson_interval


@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (81, 263), (500, 1000), (10, 10), (3, 7)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson_interval(k, n)
    ref = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert np.isclose(lo, ref.low, atol=1e-12) and np.isclose(hi, ref.high, atol=1e-12)


def test_wilson_is_vectorized_and_exact_at_the_ends():
    lo, hi = wilson_interval(np.array([0, 5, 10]), np.array([10, 10, 10]))
    assert lo[0] == 0.0 and hi[2] == 1.0
    assert (lo <= np.array([0, 0.5, 1])).all() and (np.array([0, 0.5, 1]) <= hi).all()


def test_wilson_of_no_trials_is_the_whole_range():
    lo, hi = wilson_interval(0, 0)
    assert (float(lo), float(hi)) == (0.0, 1.0)


@pytest.mark.parametrize("bad", [(-1, 10), (11, 10)])
def test_wilson_rejects_impossible_counts(bad):
    with pytest.raises(ValueError, match="successes"):
        wilson_interval(*bad)


def test_wilson_rejects_bad_confidence():
    with pytest.raises(ValueError, match="confidence"):
        wilson_interval(1, 2, confidence=1.5)


def test_newcombe_difference_contains_the_difference_and_is_ordered():
    d, lo, hi = newcombe_difference(60, 100, 45, 100)
    assert np.isclose(d, 0.15) and lo < 0.15 < hi
    # Newcombe (1998) table II example 1: 56/70 vs 48/80 -> 0.2000 (0.0524, 0.3339)
    d, lo, hi = newcombe_difference(56, 70, 48, 80)
    assert np.isclose(lo, 0.0524, atol=5e-4) and np.isclose(hi, 0.3339, atol=5e-4)
