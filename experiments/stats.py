"""Statistics shared by every experiment: intervals, paired tests, multiple comparisons.

Intervals for rates:

* :func:`wilson_interval`: Wilson score interval for a binomial proportion (Wilson, 1927,
  "Probable inference, the law of succession, and statistical inference", JASA 22:209-212).
* :func:`newcombe_difference`: interval for a difference of two independent proportions by
  Newcombe's hybrid score method (Newcombe, 1998, Statistics in Medicine 17:873-890, method 10),
  built from the two Wilson intervals.

Both accept numpy arrays (broadcast) and fractional success counts (e.g. shared wins counted
as 1/k), for which the formulas are used as the usual approximation.

Means and paired comparisons from per-deal sufficient statistics (a duplicate-format
tournament: every game played on one deal shares that deal's cards, so the **deal** is the
independent unit, and the runner keeps only ``n``, ``sum x_i``, ``sum x_i**2`` and sign counts):

* :func:`mean_interval`: the mean of ``x`` with a Student-t interval on the deal means
  (a cluster-robust interval, clusters = deals; for one game per deal it is the usual
  t-interval).
* :func:`paired_tests`: "is A better than B" on the paired per-deal differences
  ``d_i = x_A,i - x_B,i``: the paired t-test (Student, 1908) and the exact sign test
  (binomial test of ``#{d > 0}`` among the non-zero ``d``; for 0/1 outcomes such as River Rats
  team wins this is McNemar's exact test), both from scipy.

Whether an estimate lies outside a band: :func:`outside_band_pvalues`, the one-sided p-value
of the normal test against the nearer edge (a Lure card's win advantage against its band, a
card's play measure against the tolerance).

Multiple comparisons (Holm, 1979, Scand. J. Statist. 6:65-70; Benjamini & Hochberg, 1995,
J. R. Statist. Soc. B 57:289-300):

* :func:`holm_adjusted_pvalues`: Holm's step-down *adjusted p-values* (a tournament's many
  pairs);
* :func:`holm_rejections`, :func:`benjamini_hochberg_rejections`: which hypotheses the two
  procedures *reject* at a level ``alpha`` (the Lure balance's many cards x player counts).

scipy is imported inside the functions that need it (``scipy.stats`` adds about a second to
the start of every command).
"""

from __future__ import annotations

import numpy as np

__all__ = ["Z95", "wilson_interval", "newcombe_difference", "mean_interval", "paired_tests",
           "outside_band_pvalues", "holm_adjusted_pvalues", "holm_rejections",
           "benjamini_hochberg_rejections"]

Z95 = 1.959963984540054
"""The normal quantile of a two-sided 95% interval."""


def _z(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (1.959964 for 0.95): ``scipy.special.ndtri``,
    the function behind ``scipy.stats.norm.ppf`` (same values), without importing
    ``scipy.stats`` (a second of start-up for every experiment)."""
    from scipy.special import ndtri

    if not 0.0 < float(confidence) < 1.0:
        raise ValueError(f"confidence = {confidence!r}; expected a number in (0, 1)")
    return float(ndtri(0.5 + float(confidence) / 2.0))


def wilson_interval(successes, n, confidence: float = 0.95):
    """Wilson score interval for the proportion ``successes / n``.

    Args:
        successes: count(s) of successes, array-like (float allowed), ``0 <= successes <= n``.
        n: number(s) of trials, array-like broadcastable with ``successes``; where ``n == 0``
            the interval is ``(0, 1)``.
        confidence: two-sided level in (0, 1), default 0.95.

    Returns:
        ``(low, high)``: float64 arrays (0-d for scalar input) with ``0 <= low <= high <= 1``.

    Raises:
        ValueError: negative counts, ``successes > n``, or confidence outside (0, 1).
    """
    z = _z(confidence)
    s = np.asarray(successes, dtype=float)
    m = np.asarray(n, dtype=float)
    if np.any(s < 0) or np.any(m < 0) or np.any(s > m + 1e-9):
        raise ValueError(f"need 0 <= successes <= n; got successes={successes!r}, n={n!r}")
    safe = np.where(m > 0, m, 1.0)
    p = s / safe
    denom = 1.0 + z * z / safe
    centre = (p + z * z / (2 * safe)) / denom
    half = z * np.sqrt(np.maximum(p * (1 - p), 0.0) / safe + z * z / (4 * safe * safe)) / denom
    low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), 0.0)
    high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), 1.0)
    # exact ends: no successes -> low is 0, all successes -> high is 1 (no rounding residue)
    low = np.where(s <= 0, 0.0, low)
    high = np.where(s >= m, 1.0, high)
    return low, high


def newcombe_difference(s1, n1, s2, n2, confidence: float = 0.95):
    """Interval for ``p1 - p2`` of two independent proportions (Newcombe's hybrid score).

    Args:
        s1, n1: successes and trials of group 1 (array-like, broadcast).
        s2, n2: successes and trials of group 2.
        confidence: two-sided level in (0, 1).

    Returns:
        ``(diff, low, high)``: float64 arrays; NaN where a group has no trials.

    Raises:
        ValueError: as :func:`wilson_interval`.
    """
    l1, u1 = wilson_interval(s1, n1, confidence)
    l2, u2 = wilson_interval(s2, n2, confidence)
    n1 = np.asarray(n1, float)
    n2 = np.asarray(n2, float)
    ok = (n1 > 0) & (n2 > 0)
    p1 = np.asarray(s1, float) / np.where(n1 > 0, n1, 1.0)
    p2 = np.asarray(s2, float) / np.where(n2 > 0, n2, 1.0)
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    nan = np.full(np.broadcast(d, ok).shape, np.nan)
    return np.where(ok, d, nan), np.where(ok, low, nan), np.where(ok, high, nan)


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
    from scipy.stats import t as t_dist

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
    half = t_dist.ppf(0.5 + confidence / 2, n - 1) * np.sqrt(var / n)
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
    from scipy import stats

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


def outside_band_pvalues(estimate, se_above, se_below, low, high):
    """One-sided p-values of "the true value lies inside the band ``low .. high``" for
    estimates with standard errors (normal approximation), array-like, broadcast.

    Where ``estimate > high``: ``p = P(Z > (estimate - high) / se_above)``; where
    ``estimate < low``: ``P(Z > (low - estimate) / se_below)``; inside the band 1. A zero
    standard error gives 0 outside the band (an infinite ``z``). Returns ``(p, side)``:
    ``float64`` p-values and ``int8`` sides (+1 above the band, -1 below, 0 inside or NaN)."""
    from scipy.stats import norm

    est = np.asarray(estimate, np.float64)
    above, below = est > high, est < low
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.where(above, (est - high) / se_above, np.where(below, (low - est) / se_below, 0))
    p = np.where(above | below, norm.sf(np.where(np.isfinite(z), z, np.inf)), 1.0)
    side = np.where(above, 1, np.where(below, -1, 0)).astype(np.int8)
    return p, side


def holm_adjusted_pvalues(pvalues):
    """Holm's step-down adjusted p-values (Holm 1979): the ``i``-th smallest of ``m`` becomes
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``, so a hypothesis is rejected at level ``alpha``
    exactly when its adjusted p-value is ``<= alpha``. Same order and shape as the input; NaN
    stays NaN (not tested, not counted in ``m``).

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


def holm_rejections(p, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down procedure (Holm 1979): reject the hypotheses of the sorted p-values
    ``p_(1) <= p_(2) <= ...`` while ``p_(i) <= alpha / (m - i + 1)``; ``m`` counts the
    finite p-values (NaN: not tested, never rejected). Controls the family-wise error rate at
    ``alpha`` under any dependence. ``p``: array of any shape; returns ``bool`` of its
    shape (:func:`holm_adjusted_pvalues` gives the adjusted p-values instead)."""
    p = np.asarray(p, np.float64)
    flat = p.ravel()
    ok = np.flatnonzero(np.isfinite(flat))
    out = np.zeros(flat.shape, bool)
    m = len(ok)
    order = ok[np.argsort(flat[ok], kind="stable")]
    for i, k in enumerate(order):
        if flat[k] > alpha / (m - i):
            break
        out[k] = True
    return out.reshape(p.shape)


def benjamini_hochberg_rejections(p, alpha: float = 0.05) -> np.ndarray:
    """The Benjamini-Hochberg step-up procedure (Benjamini & Hochberg 1995): reject the ``k``
    smallest p-values, ``k`` the largest ``i`` with ``p_(i) <= i alpha / m`` (``m`` finite
    p-values; NaN never rejected). Controls the false discovery rate at ``alpha`` for
    independent or positively dependent tests. Returns ``bool`` of ``p``'s shape."""
    p = np.asarray(p, np.float64)
    flat = p.ravel()
    ok = np.flatnonzero(np.isfinite(flat))
    out = np.zeros(flat.shape, bool)
    m = len(ok)
    if m:
        order = ok[np.argsort(flat[ok], kind="stable")]
        below = np.flatnonzero(flat[order] <= alpha * np.arange(1, m + 1) / m)
        if len(below):
            out[order[: below[-1] + 1]] = True
    return out.reshape(p.shape)
