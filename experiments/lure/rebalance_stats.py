"""Statistics of ``boardlab lure rebalance`` (:mod:`experiments.lure.rebalance`): which cards are
off their band *after a multiple-comparison correction*, and whether a deck keeps its cards'
points in the order of their difficulty.

* :func:`band_pvalues`: per card and player count, the one-sided p-value of "the card's true
  catcher win advantage lies inside the band ``target +- tolerance``", from its estimate and
  its 95% Newcombe interval (normal approximation; the interval's half-width on the side of the
  band is read as 1.96 standard errors).
* :func:`off_band`: the cards off their band after Holm's procedure (Holm 1979, family-wise
  error rate) or Benjamini-Hochberg's (1995, false discovery rate) over all the tested cells
  (every card in play x every player count): :func:`experiments.stats.holm_rejections`,
  :func:`experiments.stats.benjamini_hochberg_rejections`.
* :func:`order_bounds`, :func:`new_inversions`: the order constraint (points do not decrease
  as the exact difficulty increases, except for pairs of cards the designer already had out of
  order); :func:`kendall_tau`: the rank agreement of points and difficulty (Kendall 1945
  tau-b, :func:`scipy.stats.kendalltau`).
"""

from __future__ import annotations

import numpy as np

from experiments.stats import (
    Z95,
    benjamini_hochberg_rejections,
    holm_rejections,
    outside_band_pvalues,
)

__all__ = ["CORRECTIONS", "band_pvalues", "off_band", "inverted_pairs", "new_inversions",
           "order_bounds", "kendall_tau"]

CORRECTIONS = ("holm", "bh")
"""Multiple-comparison corrections: Holm (1979) and Benjamini-Hochberg (1995)."""
D_TIE = 1e-9
"""Difficulties closer than this are a tie (no order between the two cards)."""


def band_pvalues(stats: dict, targets, tolerance_pp: float) -> tuple[np.ndarray, np.ndarray]:
    """One-sided p-values of "inside the band" per card and player count.

    Args:
        stats: ``wd``, ``lo``, ``hi`` (fractions: the estimate and its 95% Newcombe interval)
            and ``in_play`` (games), each ``float64 (cards, players)``
            (:func:`experiments.lure.rebalance_measures.card_arrays`).
        targets: ``(players,)`` band centres, percentage points.
        tolerance_pp: the band's half-width, percentage points.

    Returns:
        ``(p, side)``: ``float64 (cards, players)`` p-values (1 where the estimate is inside the
        band; NaN where the card was never in play: not tested) and ``int8`` sides (+1 above
        the band, -1 below, 0 inside). With the estimate above the band,
        ``p = P(Z > (wd - (target + W)) / se)`` with ``se = (wd - lo) / 1.96``; below, the
        mirror image with ``hi``. A card in play but never caught has no win diff: it decides
        nothing, read as a win diff of exactly 0 (p = 0 when 0 is outside the band).
    """
    t = np.asarray(targets, np.float64)[None, :] / 100.0
    w = float(tolerance_pp) / 100.0
    wd, lo, hi = (np.asarray(stats[k], np.float64) for k in ("wd", "lo", "hi"))
    in_play = np.asarray(stats["in_play"], np.float64) > 0
    never = in_play & ~np.isfinite(wd)
    est = np.where(never, 0.0, wd)
    with np.errstate(invalid="ignore", divide="ignore"):
        se_a = np.where(never, 0.0, (wd - lo) / Z95)
        se_b = np.where(never, 0.0, (hi - wd) / Z95)
    p, side = outside_band_pvalues(est, se_a, se_b, t - w, t + w)
    p = np.where(in_play, p, np.nan)
    side = np.where(in_play, side, 0).astype(np.int8)
    return p, side


def off_band(stats: dict, targets, tolerance_pp: float, correction: str = "holm",
             alpha: float = 0.05, cells=None) -> np.ndarray:
    """Cells (card x player count) whose card is off its band after ``correction``
    (:data:`CORRECTIONS`) at level ``alpha`` over every tested cell, or over the cells of the
    mask ``cells`` (``bool (cards, players)``) only. Returns ``bool (cards, players)``.
    Raises ``ValueError`` for an unknown correction."""
    p, _ = band_pvalues(stats, targets, tolerance_pp)
    if cells is not None:
        p = np.where(np.asarray(cells, bool), p, np.nan)
    if correction == "holm":
        return holm_rejections(p, alpha)
    if correction == "bh":
        return benjamini_hochberg_rejections(p, alpha)
    raise ValueError(f"bad --correction {correction!r}: expected one of {', '.join(CORRECTIONS)}")


def inverted_pairs(difficulty, points) -> np.ndarray:
    """``bool (cards, cards)``: pairs out of order, the harder card (difficulty higher by more
    than :data:`D_TIE`) carrying fewer points. Cards nobody can catch (``inf``) count as the
    hardest; two of them tie. Symmetric."""
    d = np.asarray(difficulty, np.float64)
    p = np.asarray(points, np.float64)
    dd = np.where(np.isinf(d), 1e300, d)
    harder = dd[:, None] - dd[None, :] > D_TIE            # i harder than j
    inv = harder & (p[:, None] < p[None, :])
    return inv | inv.T


def new_inversions(difficulty, points, allowed) -> int:
    """The number of pairs out of order (:func:`inverted_pairs`) that are not in ``allowed``
    (``bool (cards, cards)``: the original deck's inversions, the designer's)."""
    inv = inverted_pairs(difficulty, points) & ~np.asarray(allowed, bool)
    return int(np.triu(inv, 1).sum())


def order_bounds(j: int, d_new: float, difficulty, points, allowed) -> tuple[float, float]:
    """The points card ``j`` may carry at difficulty ``d_new`` without a new inversion with
    any other card: ``(low, high)`` (``-inf``/``inf`` when nothing binds). ``difficulty``,
    ``points``: the deck's, ``(cards,)``; ``allowed``: the original deck's inversions
    ``bool (cards, cards)`` (those pairs are free)."""
    d = np.where(np.isinf(np.asarray(difficulty, np.float64)), 1e300,
                 np.asarray(difficulty, np.float64))
    p = np.asarray(points, np.float64)
    dn = 1e300 if not np.isfinite(d_new) else float(d_new)
    free = np.asarray(allowed, bool)[j].copy()
    free[j] = True
    easier = (dn - d > D_TIE) & ~free
    harder = (d - dn > D_TIE) & ~free
    lo = float(p[easier].max()) if easier.any() else -np.inf
    hi = float(p[harder].min()) if harder.any() else np.inf
    return lo, hi


def kendall_tau(difficulty, points) -> float:
    """Kendall's tau-b of points and difficulty over the catchable cards (Kendall 1945; ties
    handled as :func:`scipy.stats.kendalltau`): 1 when points rise with difficulty throughout,
    NaN with fewer than two catchable cards."""
    from scipy.stats import kendalltau

    d = np.asarray(difficulty, np.float64)
    p = np.asarray(points, np.float64)
    ok = np.isfinite(d)
    if ok.sum() < 2:
        return float("nan")
    return float(kendalltau(d[ok], p[ok]).statistic)
