"""Why the win-diff goal of ``boardlab lure rebalance`` is not met
(:mod:`experiments.lure.rebalance_report`): how strongly the win advantage follows the points
(:func:`points_slope`), how many cards any band could hold at once (:func:`band_capacity`),
and the report's paragraph that says so (:func:`diagnosis`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.stats import Z95

__all__ = ["points_slope", "band_capacity", "diagnosis"]


def points_slope(cards: pd.DataFrame, tag: str = "before") -> tuple[float, float]:
    """Win diff per card point of deck ``tag`` on the fresh seeds: ``(slope pp per point,
    correlation r)`` of the cards' win diffs on their points over every player count
    (least squares; NaN with fewer than 3 caught cards or one value of points). ``cards``:
    :func:`verify`'s frame."""
    w = cards[f"win_diff_{tag}"].to_numpy(np.float64)
    x = cards[f"points_{tag}"].to_numpy(np.float64)
    ok = np.isfinite(w)
    if ok.sum() < 3 or np.ptp(x[ok]) == 0:
        return float("nan"), float("nan")
    return (float(np.polyfit(x[ok], 100 * w[ok], 1)[0]),
            float(np.corrcoef(x[ok], w[ok])[0, 1]))


def band_capacity(cards: pd.DataFrame, tolerance: float, alpha: float = 0.05,
                  tag: str = "before") -> dict:
    """How many cards of deck ``tag`` (fresh seeds, :func:`verify`'s frame) *any* band of
    half-width ``tolerance`` pp could hold at once: an upper bound, so ``cards - capacity``
    is a lower bound on the cards a search must change for every card to meet the win-diff
    goal, whatever its method and constraints.

    A cell (card x player count) counts as possibly inside a band centred at ``c`` unless it
    lies beyond the band's edge by more than ``z x se``, ``z`` the one-sided normal quantile
    of ``alpha / m`` (``m`` tested cells; ``se`` from its 95% interval): a cell that far off
    is rejected by Holm's and by Benjamini-Hochberg's procedure alike, whatever the other
    cells, so a card counted out here is off the goal at that centre. Per player count the
    best centre is searched (every edge of every cell's tolerance window); a card must fit at
    every player count, so the bound is the smallest count over the player counts (the
    centres need not be the median card's: a relaxation). It ignores what a change does to
    the other cards' win advantages (small: the points of one card are a small part of the
    scores).

    Returns ``{"cards": n tested cards, "capacity": bound, "per_players": {players: n},
    "at_median": cards meeting the goal at the deck's own median bands, "z": z}``."""
    from scipy.stats import norm

    c = cards.dropna(subset=[f"win_diff_{tag}"])
    w = 100 * c[f"win_diff_{tag}"].to_numpy(np.float64)
    se_lo = 100 * (c[f"win_diff_{tag}"] - c[f"win_diff_low_{tag}"]).to_numpy(np.float64) / Z95
    se_hi = 100 * (c[f"win_diff_high_{tag}"] - c[f"win_diff_{tag}"]).to_numpy(np.float64) / Z95
    z = float(norm.isf(alpha / max(len(w), 1)))
    # inside a band centred at t unless w - (t + tol) > z se_lo or (t - tol) - w > z se_hi
    lo_c = w - z * se_lo - tolerance   # lowest centre that keeps the cell
    hi_c = w + z * se_hi + tolerance   # highest centre that keeps the cell
    per = {}
    for n in sorted(c["players"].unique()):
        m = (c["players"] == n).to_numpy()
        grid = np.concatenate([lo_c[m], hi_c[m]])
        fit = ((lo_c[m][None, :] <= grid[:, None] + 1e-9)
               & (grid[:, None] - 1e-9 <= hi_c[m][None, :])).sum(axis=1)
        per[int(n)] = int(fit.max()) if len(fit) else 0
    n_cards = int(c["id"].nunique())
    at_median = n_cards - int(c.groupby("id")[f"off_goal_{tag}"].any().sum())
    return {"cards": n_cards, "capacity": min(per.values()) if per else n_cards,
            "per_players": per, "at_median": at_median, "z": z}


def diagnosis(cards: pd.DataFrame, tolerance: float, off_goal, allow_reorder: bool,
              alpha: float = 0.05) -> str:
    """One paragraph on why the win-diff goal is not met: how strongly the win advantage
    follows the points (:func:`points_slope`), the points spread that the band leaves room
    for, how many cards any band could hold (:func:`band_capacity`: the least number of
    changes the goal needs), and how many of the cards still off are held by the order
    constraint or were not off on the screen (``off_goal``: ``[(id, reason)]``)."""
    slope, r = points_slope(cards)
    pts = cards.drop_duplicates("id")["points_before"]
    n_order = sum("order constraint" in w for _, w in off_goal)
    n_small = sum("no evidence to act on" in w for _, w in off_goal)
    text = ("Diagnosis: on the fresh seeds the original deck's win advantage follows the "
            f"points, {slope:+.1f} pp per point (correlation {r:.2f}), so a band of "
            f"+-{tolerance:g} pp leaves room for about {2 * tolerance / slope:.1f} points "
            f"of spread around the median card, while the deck's points span "
            f"{int(pts.min())}..{int(pts.max())}." if np.isfinite(slope) and slope > 0 else
            "Diagnosis:")
    need = {"win_diff_low_before", "win_diff_high_before", "off_goal_before", "players"}
    cap = band_capacity(cards, tolerance, alpha) if need <= set(cards.columns) else None
    if cap and cap["capacity"] < cap["cards"]:
        per = ", ".join(f"{n}p {k}" for n, k in cap["per_players"].items())
        text += (f" No band of +-{tolerance:g} pp, wherever centred, holds more than "
                 f"{cap['capacity']} of the {cap['cards']} cards of the original deck at every "
                 f"player count ({per}; {cap['at_median']} meet the goal at the median card's "
                 f"band), even counting a card in when it is off by less than the corrected "
                 f"test can see: every card meeting the goal needs at least "
                 f"{cap['cards'] - cap['capacity']} changed cards, whatever the search and the "
                 f"constraints.")
    if n_order and not allow_reorder:
        text += (f" {n_order} of the {len(off_goal)} cards still off are held by the order "
                 "constraint: equal win advantages need cheap easy cards raised and dear hard "
                 "ones lowered, which the order of value forbids beyond the designer's own "
                 "inversions (--allow-reorder lifts it; a wider --tolerance accepts the "
                 "spread).")
    if n_small:
        text += (f" {n_small} are off by less than the screen's games (--screen-games) can "
                 "show after the correction: more games let the search act on them.")
    return text
