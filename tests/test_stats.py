"""The shared statistics (experiments.stats) against scipy's implementations and known values:
intervals for rates, deal-clustered t-intervals and paired tests from sufficient statistics,
Holm's adjusted p-values and the Holm and Benjamini-Hochberg rejections."""

import numpy as np
import pytest
from scipy import stats as scipy_stats
from scipy.stats import binomtest

from experiments.stats import (
    benjamini_hochberg_rejections,
    holm_adjusted_pvalues,
    holm_rejections,
    mean_interval,
    newcombe_difference,
    outside_band_pvalues,
    paired_tests,
    wilson_interval,
)


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


def test_mean_interval_is_the_t_interval_of_the_deal_values():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 61, size=(3, 50))
    m, lo, hi = mean_interval(x.sum(1), (x * x).sum(1), 50, scale=60.0)
    for i in range(3):
        v = x[i] / 60.0
        ref = scipy_stats.t.interval(0.95, 49, loc=v.mean(), scale=scipy_stats.sem(v))
        assert m[i] == pytest.approx(v.mean())
        assert (lo[i], hi[i]) == pytest.approx(ref)


def test_mean_interval_small_n_and_bad_confidence():
    m, lo, hi = mean_interval(3, 9, 1)
    assert m == 3 and np.isnan(lo) and np.isnan(hi)
    m, lo, hi = mean_interval(0, 0, 0)
    assert np.isnan(m)
    with pytest.raises(ValueError, match="confidence"):
        mean_interval(1, 1, 5, confidence=1.5)


def test_paired_tests_match_scipy_on_raw_differences():
    rng = np.random.default_rng(2)
    a = rng.normal(0.3, 1, 40)
    b = rng.normal(0.0, 1, 40)
    d = a - b
    r = paired_tests(d.sum(), (d * d).sum(), 40, (d > 0).sum(), (d < 0).sum())
    ref = scipy_stats.ttest_rel(a, b)
    assert float(r["t"]) == pytest.approx(ref.statistic)
    assert float(r["p_t"]) == pytest.approx(ref.pvalue)
    greater = scipy_stats.ttest_rel(a, b, alternative="greater").pvalue
    assert float(r["p_t_greater"]) == pytest.approx(greater)
    assert float(r["p_sign"]) == pytest.approx(scipy_stats.binomtest(int((d > 0).sum()), 40).pvalue)


def test_paired_tests_identical_agents_give_no_evidence():
    r = paired_tests(np.zeros((2, 2)), np.zeros((2, 2)), 10, np.zeros((2, 2)), np.zeros((2, 2)))
    assert np.all(r["t"] == 0) and np.all(r["p_t"] == 1) and np.all(r["p_sign"] == 1)
    with pytest.raises(ValueError, match="at least 2"):
        paired_tests(0, 0, 1, 0, 0)


def test_holm_adjusted_pvalues_step_down():
    # Holm (1979): sorted p 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 0.04)
    assert holm_adjusted_pvalues([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    out = holm_adjusted_pvalues([0.5, np.nan, 0.01])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.5) and out[2] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="p-values"):
        holm_adjusted_pvalues([1.5])


def test_holm_and_benjamini_hochberg_rejections():
    p = np.array([0.01, 0.04, 0.03, 0.005, np.nan])
    assert holm_rejections(p, 0.05).tolist() == [True, False, False, True, False]  # 0.03 > 0.05/2
    assert benjamini_hochberg_rejections(p, 0.05).tolist() == [True, True, True, True, False]
    assert not holm_rejections(np.full(120, 0.01)).any() and holm_rejections(np.full(3, 0.01)).all()
    # the rejections are the adjusted p-values at or below alpha
    finite = p[np.isfinite(p)]
    assert holm_rejections(finite).tolist() == (holm_adjusted_pvalues(finite) <= 0.05).tolist()


def test_outside_band_pvalues_one_sided_normal_test_against_the_nearer_edge():
    # 3.5 is 2.5 above the upper edge 1, se 1: z = 2.5; -4 is 3 below the lower edge -1, se 2:
    # z = 1.5; inside: 1; NaN: inside (side 0); se 0 outside: p 0
    p, side = outside_band_pvalues([3.5, -4.0, 0.2, np.nan, 2.0], [1, 1, 1, 1, 0],
                                   [1, 2, 1, 1, 1], -1.0, 1.0)
    assert p[:3] == pytest.approx([scipy_stats.norm.sf(2.5), scipy_stats.norm.sf(1.5), 1.0])
    assert p[3] == 1.0 and p[4] == 0.0
    assert side.tolist() == [1, -1, 0, 0, 1] and side.dtype == np.int8
