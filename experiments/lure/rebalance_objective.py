"""How the win-diff search of a Lure rebalance scores a trial
(:mod:`experiments.lure.rebalance_search`): the distance of each card off its band
(:func:`win_diff_violation`), the bands' centres (:func:`median_targets`), the evidence rule
that decides which cards may change (:func:`screen_and_confirm`), and the ranking of trials
(:func:`lex_key`, with the one number optuna sees, :func:`scalar_objective`)."""

from __future__ import annotations


import numpy as np

from experiments.lure.rebalance_stats import (
    band_pvalues,
    off_band,
)

__all__ = ["ORDER_PENALTY", "LEX_WEIGHT", "band_shifts", "win_diff_violation",
           "win_diff_per_point", "median_targets", "screen_and_confirm", "scalar_objective",
           "lex_key"]

ORDER_PENALTY = 100.0
"""``tpe``'s scalar objective: percentage points charged per new pair out of order."""


LEX_WEIGHT = 0.01
"""``tpe``'s scalar objective: percentage points charged per unit of change cost."""


def band_shifts(stats: dict, targets, tolerance_pp: float, by_estimate=None) -> np.ndarray:
    """Signed change of win diff (fraction) that brings each card's interval (or, for the cards
    of the mask ``by_estimate`` ``bool (cards,)``, its estimate) to the band: negative when it
    lies above, positive below, 0 inside, ``float64 (cards, players)``."""
    t = np.asarray(targets, np.float64)[None, :] / 100.0
    w = float(tolerance_pp) / 100.0
    wd = stats["wd"]
    in_play = stats["in_play"] > 0
    never = in_play & ~np.isfinite(wd)
    lo = np.where(never, 0.0, stats["lo"])
    hi = np.where(never, 0.0, stats["hi"])
    if by_estimate is not None:
        m = np.asarray(by_estimate, bool)[:, None]
        est = np.where(never, 0.0, wd)
        lo, hi = np.where(m, est, lo), np.where(m, est, hi)
    with np.errstate(invalid="ignore"):
        up = np.maximum(0.0, (t - w) - hi)
        down = np.minimum(0.0, (t + w) - lo)
    shift = np.where(up > 0, up, down)
    return np.where(in_play & np.isfinite(shift), shift, 0.0)


def win_diff_violation(stats: dict, targets, tolerance_pp: float, by_estimate=None
                       ) -> np.ndarray:
    """Distance off the band per card and player count, percentage points beyond the band's
    edge, ``float64 (cards, players)``: from the card's 95% interval (``stats["lo"]``..
    ``stats["hi"]``, fractions) to the band ``targets +- tolerance`` (``targets``
    ``(players,)``, percentage points), 0 when they overlap or the card was never in play; a
    card in play but never caught counts as a win diff of 0. For the cards of the mask
    ``by_estimate`` (``bool (cards,)``: the candidates, which must be brought *into* the band)
    the distance of the estimate ``stats["wd"]`` instead. Uncorrected: see
    :func:`experiments.lure.rebalance_stats.off_band` for the corrected verdict."""
    return 100.0 * np.abs(band_shifts(stats, targets, tolerance_pp, by_estimate))


def win_diff_per_point(stats: dict, points: np.ndarray) -> float:
    """Win diff gained per card point, the least-squares slope across the start deck's cards
    (mean over player counts), clipped to 0.005..0.06; 0.02 when it cannot be estimated."""
    slopes = []
    for k in range(stats["wd"].shape[1]):
        y = stats["wd"][:, k]
        ok = np.isfinite(y)
        if ok.sum() >= 2 and np.ptp(points[ok]) > 0:
            slopes.append(np.polyfit(points[ok].astype(float), y[ok], 1)[0])
    s = float(np.mean(slopes)) if slopes else 0.02
    return float(np.clip(s, 0.005, 0.06)) if np.isfinite(s) else 0.02


def median_targets(stats: dict, target: float | None = None) -> np.ndarray:
    """Band centres per player count, percentage points ``float64 (players,)``: ``target``
    when given, else the median over the cards of ``stats["wd"]`` (fractions,
    ``(cards, players)``) of that deck. A deck's own median: a broken card that decides every
    game depresses every other card's win diff, so the start deck's median would misplace the
    band once it is fixed."""
    n = np.asarray(stats["wd"]).shape[1]
    if target is not None:
        return np.full(n, float(target))
    return np.array([float(np.nanmedian(stats["wd"][:, k]) * 100) for k in range(n)])


def screen_and_confirm(stats_search: dict, stats_confirm: dict | None, targets,
                       tolerance_pp: float, correction: str, alpha: float):
    """The evidence rule (module docstring). ``stats_*``: :func:`card_arrays` of the start
    deck on the search's and the confirmation seeds; ``stats_confirm`` ``None``: nothing is
    flagged, nothing to confirm. Returns ``(flagged, confirmed)``, ``bool (cards, players)``
    each: off the band after the correction on the search's seeds, and those of them off
    again, on the same side, on the confirmation seeds (corrected over the flagged cells)."""
    flagged = off_band(stats_search, targets, tolerance_pp, correction, alpha)
    if stats_confirm is None or not flagged.any():
        return flagged, np.zeros_like(flagged)
    _, side_s = band_pvalues(stats_search, targets, tolerance_pp)
    _, side_c = band_pvalues(stats_confirm, targets, tolerance_pp)
    again = off_band(stats_confirm, targets, tolerance_pp, correction, alpha, cells=flagged)
    return flagged, again & (side_s == side_c)


def scalar_objective(violation: float, cost: float, inversions: int) -> float:
    """The one number a trial reports to optuna (and ``trials.csv``, ``search.png``):
    ``violation + 100 x new inversions + 0.01 x change cost`` (percentage points). The chosen
    trial is picked by :func:`lex_key`, not by this number."""
    return float(violation) + ORDER_PENALTY * int(inversions) + LEX_WEIGHT * float(cost)


def lex_key(attrs: dict, number: int, allow_reorder: bool = False) -> tuple:
    """Lexicographic rank of a trial from its user attributes: ``(new inversions (0 with
    allow_reorder), candidates off their band, other cards pushed off theirs, changed cards,
    change cost, violation rounded to 0.1 pp, number)``; smaller is better. A change that does
    not bring its card into the band therefore never pays for itself: the cards that cannot be
    fixed stay as they were."""
    inv = 0 if allow_reorder else int(attrs.get("inversions", 0))
    return (inv, int(attrs.get("candidates_off", 0)), int(attrs.get("others_off", 0)),
            int(attrs["changed_cards"]),
            round(float(attrs["change_cost"]), 6), round(float(attrs["violation"]), 1),
            int(number))
