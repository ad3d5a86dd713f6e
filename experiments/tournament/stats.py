"""Statistics of a duplicate-format tournament from per-deal sufficient statistics.

In duplicate format every game played on one deal shares that deal's cards, so games are not
independent; the **deal** is the independent unit (deals come from independent seeds). Each
quantity is therefore a per-deal value ``x_i`` (an agent's total win units on deal ``i``, a
head-to-head count, a difference of two agents' totals) and the runner keeps only ``n``,
``sum x_i`` and ``sum x_i**2`` (and sign counts), which is all the following need:

* :func:`mean_interval`: the mean of ``x`` with a Student-t interval on the deal means
  (a cluster-robust interval, clusters = deals; for one game per deal it is the usual
  t-interval).
* :func:`paired_tests`: "is A better than B" on the paired per-deal differences
  ``d_i = x_A,i - x_B,i``: the paired t-test (Student, 1908) and the exact sign test
  (binomial test of ``#{d > 0}`` among the non-zero ``d``; for 0/1 outcomes such as River Rats
  team wins this is McNemar's exact test), both from scipy.
* :func:`holm`: Holm's step-down adjustment of p-values (Holm, 1979, Scand. J. Statist.
  6:65-70) for the many pairs of a tournament.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

__all__ = ["mean_interval", "paired_tests", "holm"]


def mean_interval(total, total_sq, n, scale=1.0, confidence: float = 0.95):
    """Mean and t-interval of a per-deal quantity from its sums.

    Args:
        total, total_sq: ``sum x_i`` and ``sum x_i**2`` over ``n`` deals (array-like, same
            shape; integers or floats).
        n: number of deals (int >= 0).
        scale: divide ``x`` by this (e.g. win units per deal -> win share per game).
        confidence: two-sided level in (0, 1).

    Returns:
        ``(mean, low, high)`` float64 arrays of the input's shape; NaN where ``n == 0``; the
        interval is NaN when ``n < 2``.

    Raises:
        ValueError: ``confidence`` outside (0, 1) or negative ``n``.
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence {confidence!r}: expected a number in (0, 1)")
    if n < 0:
        raise ValueError(f"n {n!r}: expected a number of deals >= 0")
    t = np.asarray(total, dtype=np.float64) / scale
    q = np.asarray(total_sq, dtype=np.float64) / (scale * scale)
    if n == 0:
        nan = np.full(t.shape, np.nan)
        return nan, nan.copy(), nan.copy()
    mean = t / n
    if n < 2:
        nan = np.full(t.shape, np.nan)
        return mean, nan, nan.copy()
    var = np.maximum(q - n * mean * mean, 0.0) / (n - 1)
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * np.sqrt(var / n)
    return mean, mean - half, mean + half


def paired_tests(d_sum, d_sq, n: int, n_pos, n_neg):
    """Paired t-test and sign test of per-deal differences ``d_i`` (A minus B), one pair or an
    array of pairs.

    Args:
        d_sum, d_sq: ``sum d_i`` and ``sum d_i**2`` (array-like).
        n: number of deals.
        n_pos, n_neg: counts of deals with ``d_i > 0`` and ``d_i < 0``.

    Returns:
        dict of float64 arrays: ``mean_diff`` (mean of ``d``), ``t`` (statistic; 0 when every
        ``d_i`` is 0), ``p_t`` (two-sided), ``p_t_greater`` (one-sided, H1: A better),
        ``p_sign`` (two-sided exact sign test), ``p_sign_greater`` (one-sided).

    Raises:
        ValueError: ``n < 2``.
    """
    if n < 2:
        raise ValueError(f"n = {n!r} deals: a paired test needs at least 2")
    s = np.asarray(d_sum, dtype=np.float64)
    q = np.asarray(d_sq, dtype=np.float64)
    mean = s / n
    var = np.maximum(q - n * mean * mean, 0.0) / (n - 1)
    se = np.sqrt(var / n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se > 0, mean / np.where(se > 0, se, 1.0), np.sign(mean) * np.inf)
    t = np.where((se == 0) & (mean == 0), 0.0, t)
    p_two = 2 * stats.t.sf(np.abs(t), n - 1)
    p_gt = stats.t.sf(t, n - 1)
    pos = np.asarray(n_pos, dtype=np.int64)
    neg = np.asarray(n_neg, dtype=np.int64)
    p_sign = np.ones(pos.shape)
    p_sign_gt = np.ones(pos.shape)
    for idx in np.ndindex(pos.shape):
        k, m = int(pos[idx]), int(pos[idx] + neg[idx])
        if m > 0:
            p_sign[idx] = stats.binomtest(k, m, 0.5, alternative="two-sided").pvalue
            p_sign_gt[idx] = stats.binomtest(k, m, 0.5, alternative="greater").pvalue
    return {"mean_diff": mean, "t": t, "p_t": np.minimum(p_two, 1.0), "p_t_greater": p_gt,
            "p_sign": p_sign, "p_sign_greater": p_sign_gt}


def holm(pvalues):
    """Holm-adjusted p-values (same order and shape as the input; NaN stays NaN).

    Raises ``ValueError`` for values outside [0, 1]."""
    p = np.asarray(pvalues, dtype=np.float64)
    flat = p.ravel()
    ok = ~np.isnan(flat)
    if np.any((flat[ok] < 0) | (flat[ok] > 1)):
        raise ValueError(f"p-values must lie in [0, 1], got {flat[ok].tolist()}")
    vals = flat[ok]
    m = vals.size
    order = np.argsort(vals, kind="stable")
    adj = np.empty(m)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * vals[i]))
        adj[i] = running
    out = flat.copy()
    out[ok] = adj
    return out.reshape(p.shape)
