"""Tournament statistics from sufficient statistics (experiments.tournament_stats) agree with
scipy on the raw per-deal data: t-interval, paired t-test, sign test; Holm's adjustment."""

import numpy as np
import pytest
from scipy import stats

from experiments.tournament.stats import holm, mean_interval, paired_tests


def test_mean_interval_is_the_t_interval_of_the_deal_values():
    rng = np.random.default_rng(1)
    x = rng.integers(0, 61, size=(3, 50))
    m, lo, hi = mean_interval(x.sum(1), (x * x).sum(1), 50, scale=60.0)
    for i in range(3):
        v = x[i] / 60.0
        ref = stats.t.interval(0.95, 49, loc=v.mean(), scale=stats.sem(v))
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
    ref = stats.ttest_rel(a, b)
    assert float(r["t"]) == pytest.approx(ref.statistic)
    assert float(r["p_t"]) == pytest.approx(ref.pvalue)
    greater = stats.ttest_rel(a, b, alternative="greater").pvalue
    assert float(r["p_t_greater"]) == pytest.approx(greater)
    assert float(r["p_sign"]) == pytest.approx(stats.binomtest(int((d > 0).sum()), 40).pvalue)


def test_paired_tests_identical_agents_give_no_evidence():
    r = paired_tests(np.zeros((2, 2)), np.zeros((2, 2)), 10, np.zeros((2, 2)), np.zeros((2, 2)))
    assert np.all(r["t"] == 0) and np.all(r["p_t"] == 1) and np.all(r["p_sign"] == 1)
    with pytest.raises(ValueError, match="at least 2"):
        paired_tests(0, 0, 1, 0, 0)


def test_holm_step_down():
    # Holm (1979): sorted p 0.01, 0.03, 0.04 -> 3*0.01, max(0.03, 2*0.03), max(0.06, 0.04)
    assert holm([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    out = holm([0.5, np.nan, 0.01])
    assert np.isnan(out[1]) and out[0] == pytest.approx(0.5) and out[2] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="p-values"):
        holm([1.5])
