"""Confidence intervals for rates (shared by every experiment).

* :func:`wilson_interval`: Wilson score interval for a binomial proportion (Wilson, 1927,
  "Probable inference, the law of succession, and statistical inference", JASA 22:209-212).
* :func:`newcombe_difference`: interval for a difference of two independent proportions by
  Newcombe's hybrid score method (Newcombe, 1998, Statistics in Medicine 17:873-890, method 10),
  built from the two Wilson intervals.

Both accept numpy arrays (broadcast) and fractional success counts (e.g. shared wins counted
as 1/k), for which the formulas are used as the usual approximation.
"""

from __future__ import annotations

import numpy as np


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
