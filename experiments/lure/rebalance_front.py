"""What any rebalance could reach: the fewest cards off the win-diff goal for each number of
changed cards (a front), by an exact integer program on a linear model of the win advantage.

The search (:mod:`experiments.lure.rebalance_search`) plays the games; this module answers the
designer's prior question from the original deck's fresh-seed figures alone: *with at most k
cards changed, how few cards can still be off their band?* Model: changing card ``i``'s points
by ``d`` moves its win advantage at ``n`` players by ``slope_n x d`` percentage points, where
``slope_n`` is the least-squares slope of the deck's win advantages on its points at ``n``
players (:func:`slopes`; the other cards' advantages are taken as unchanged). A cell (card x
player count) counts as inside a band centred at ``c`` unless its moved estimate lies beyond
the band's edge by more than ``z x se`` (``z`` the one-sided quantile of ``alpha / m``, as in
:func:`experiments.lure.rebalance_report.band_capacity`: a cell that far off is rejected by
Holm's and Benjamini-Hochberg's procedures alike); a card is off when any of its cells is out.
The band centres are the deck's median card's win advantage per player count (the goal's
target), moved together by ``t`` in ``-tolerance..+tolerance`` (a changed deck's median moves);
the front keeps the best ``t`` for each ``k``.

For each ``k`` a mixed-integer program (HiGHS through :func:`scipy.optimize.milp`; one binary
per card and allowed points value) minimises the cards off, then the points moved, subject to
at most ``k`` changed cards, the allowed points of each card (``points_range``, the cards that
may change) and, unless ``allow_reorder``, the order of value: no pair of cards newly out of
order (:func:`experiments.lure.rebalance_stats.inverted_pairs`; the designer's own inversions
stay free). The optimum is exact for the model, so a target below the front (say "at most 3
cards off with at most 8 changed") is one no search can meet unless the model is wrong by more
than the games' noise; the search's own result is checked on fresh seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.lure.rebalance_stats import D_TIE
from experiments.stats import Z95

__all__ = ["slopes", "change_front", "plot_front", "FRONT_COLUMNS"]

FRONT_COLUMNS = ("changes", "off", "points_moved", "shift", "changed_cards")
"""Columns of :func:`change_front`'s frame: at most ``changes`` cards changed, the fewest cards
``off`` the goal the model allows, the fewest ``points_moved`` for that, the band-centre
``shift`` (pp) used, and the proposed changes as text (``"B04 12->7 B26 1->6"``)."""


def slopes(cards: pd.DataFrame, tag: str = "before") -> dict[int, float]:
    """``{players: slope}``: least-squares slope (pp of win advantage per point) of the cards'
    win advantages on their points, per player count, from :func:`verify`'s frame ``cards``
    (columns ``players``, ``points_<tag>``, ``win_diff_<tag>`` as fractions). NaN where fewer
    than 3 cards have a finite win advantage or all carry the same points."""
    out = {}
    for n, g in cards.groupby("players"):
        w = 100 * g[f"win_diff_{tag}"].to_numpy(np.float64)
        x = g[f"points_{tag}"].to_numpy(np.float64)
        ok = np.isfinite(w)
        out[int(n)] = (float(np.polyfit(x[ok], w[ok], 1)[0])
                       if ok.sum() >= 3 and np.ptp(x[ok]) > 0 else float("nan"))
    return out


def _cells(cards: pd.DataFrame, tag: str):
    """Per card (rows, sorted by id) and player count (columns, ascending): estimates ``w``
    and standard errors below / above (pp), points, difficulty, ids and player counts."""
    c = cards.sort_values(["id", "players"])
    ids = list(dict.fromkeys(c["id"]))
    players = sorted(int(n) for n in c["players"].unique())

    def grid(col, scale=1.0):
        return (c.pivot(index="id", columns="players", values=col).loc[ids, players]
                .to_numpy(np.float64) * scale)

    w = grid(f"win_diff_{tag}", 100)
    se_lo = (w - grid(f"win_diff_low_{tag}", 100)) / Z95
    se_hi = (grid(f"win_diff_high_{tag}", 100) - w) / Z95
    first = c.drop_duplicates("id").set_index("id").loc[ids]
    return (ids, players, w, se_lo, se_hi, first[f"points_{tag}"].to_numpy(np.int64),
            first[f"difficulty_{tag}"].to_numpy(np.float64))


def change_front(cards: pd.DataFrame, tolerance: float, points_range: tuple[int, int],
                 changeable=None, allow_reorder: bool = False, alpha: float = 0.05,
                 max_changes: int | None = None, shift_step: float = 1.0,
                 tag: str = "before") -> pd.DataFrame:
    """The front of fewest cards off the win-diff goal against cards changed (module docstring).

    ``cards``: :func:`experiments.lure.rebalance_report.verify`'s frame of the original deck
    (one row per card and player count; columns ``id``, ``players``, ``points_<tag>``,
    ``difficulty_<tag>``, ``win_diff_<tag>`` / ``_low_`` / ``_high_`` as fractions);
    ``tolerance``: the band's half-width (pp); ``points_range``: inclusive integer points a
    changed card may carry; ``changeable``: ids that may change (None: every card);
    ``allow_reorder``: lift the order of value; ``alpha``: the level of the goal's correction;
    ``max_changes``: the largest ``k`` (default: until no more cards come in, at most the
    number of changeable cards); ``shift_step``: the grid of band-centre shifts (pp).

    Returns a frame with :data:`FRONT_COLUMNS`, one row per ``k = 0 .. max_changes`` (default:
    until no card is off, at most the number of changeable cards). Cards
    without a finite win advantage (never caught) are left out. Raises ``ValueError`` for an
    empty frame, a points range with lo > hi, or no finite slope (all cards carry the same
    points)."""
    from scipy.optimize import Bounds, LinearConstraint, milp
    from scipy.stats import norm

    from experiments.lure.rebalance_stats import inverted_pairs

    lo_p, hi_p = int(points_range[0]), int(points_range[1])
    if lo_p > hi_p:
        raise ValueError(f"bad points range {lo_p}..{hi_p}: expected lo <= hi")
    c = cards.dropna(subset=[f"win_diff_{tag}"])
    if c.empty:
        raise ValueError("change_front: no card with a win advantage to judge")
    ids, players, w, se_lo, se_hi, points, diff = _cells(c, tag)
    slope = np.array([slopes(c, tag)[n] for n in players])
    if not np.isfinite(slope).all():
        raise ValueError("change_front: the win advantage has no slope on the points "
                         "(every card carries the same points)")
    n_cards = len(ids)
    ok = np.isfinite(se_lo) & np.isfinite(se_hi)
    z = float(norm.isf(alpha / max(int(ok.sum()), 1)))
    can = set(ids) if changeable is None else set(changeable)
    values = [np.arange(lo_p, hi_p + 1) if ids[i] in can else np.array([points[i]])
              for i in range(n_cards)]
    values = [np.union1d(v, [points[i]]) for i, v in enumerate(values)]  # own value allowed
    offset = np.cumsum([0] + [len(v) for v in values])
    n_var = int(offset[-1])
    own = np.zeros(n_var)
    moved = np.zeros(n_var)
    val = np.zeros(n_var)
    for i, v in enumerate(values):
        sl = slice(offset[i], offset[i + 1])
        own[sl] = v == points[i]
        moved[sl] = np.abs(v - points[i])
        val[sl] = v
    rows, lo, hi = [], [], []
    for i in range(n_cards):  # one value per card
        r = np.zeros(n_var)
        r[offset[i]:offset[i + 1]] = 1
        rows.append(r), lo.append(1), hi.append(1)
    changed_row = 1.0 - own
    if not allow_reorder:
        d = np.where(np.isinf(diff), 1e300, diff)
        need = (d[None, :] - d[:, None] > D_TIE) & ~inverted_pairs(diff, points)  # i <= j
        # transitive reduction: i <= j already follows from i <= k <= j
        implied = (need.astype(np.int64) @ need.astype(np.int64)) > 0
        for i, j in zip(*np.nonzero(need & ~implied), strict=True):
            if len(values[i]) > 1 or len(values[j]) > 1:
                r = np.zeros(n_var)
                r[offset[i]:offset[i + 1]] = values[i]
                r[offset[j]:offset[j + 1]] = -values[j]
                rows.append(r), lo.append(-np.inf), hi.append(0)
    base = np.array(rows)
    median = np.nanmedian(w, axis=0)
    shifts = np.arange(-tolerance, tolerance + 1e-9, shift_step)
    out_cost = {}
    for t in shifts:
        centre = median + t
        cost = np.zeros(n_var)
        for i, v in enumerate(values):
            m = w[i][None, :] + (v - points[i])[:, None] * slope[None, :]   # (values, players)
            inside = ((m - z * np.nan_to_num(se_lo[i]) - tolerance <= centre + 1e-9)
                      & (centre - 1e-9 <= m + z * np.nan_to_num(se_hi[i]) + tolerance))
            cost[offset[i]:offset[i + 1]] = ~inside.all(axis=1)
        out_cost[float(t)] = cost
    k_cap = len([i for i in ids if i in can]) if max_changes is None else int(max_changes)
    big = float(moved.sum() + 1)
    records = []
    for k in range(k_cap + 1):
        best = None
        for t, cost in out_cost.items():
            res = milp(cost * big + moved, integrality=np.ones(n_var), bounds=Bounds(0, 1),
                       constraints=[LinearConstraint(base, lo, hi),
                                    LinearConstraint(changed_row[None, :], 0, k)])
            if res.x is None:
                continue
            x = np.round(res.x)
            key = (int(round(cost @ x)), int(round(moved @ x)), abs(t))
            if best is None or key < best[0]:
                best = (key, t, x)
        if best is None:
            break
        (off, pts, _), t, x = best
        new_points = [int(val[offset[i]:offset[i + 1]] @ x[offset[i]:offset[i + 1]])
                      for i in range(n_cards)]
        text = " ".join(f"{ids[i]} {points[i]}->{new_points[i]}" for i in range(n_cards)
                        if new_points[i] != points[i])
        records.append({"changes": k, "off": off, "points_moved": pts, "shift": float(t),
                        "changed_cards": text})
        if off == 0 and max_changes is None:
            break
    return pd.DataFrame.from_records(records, columns=list(FRONT_COLUMNS))


def plot_front(kept: pd.DataFrame, free: pd.DataFrame | None, chosen: tuple[int, int] | None,
               tolerance: float, path=None):
    """Picture of the front: cards off the goal (model) against cards changed, with the order
    of value kept (``kept``) and lifted (``free``, or None), and the rebalance's own result
    ``chosen = (cards changed, cards off on the fresh seeds)`` marked. Saved to ``path``
    (PNG) when given; returns the figure."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
    ax.step(kept["changes"], kept["off"], where="post", marker="o", color="tab:blue",
            label="least possible, order of value kept (model bound)")
    if free is not None and len(free):
        ax.step(free["changes"], free["off"], where="post", marker=".", color="tab:grey",
                linestyle="--", label="least possible, --allow-reorder (model bound)")
    if chosen is not None:
        ax.plot([chosen[0]], [chosen[1]], marker="*", markersize=16, color="tab:red",
                linestyle="none", label=f"this rebalance: {chosen[0]} changed, {chosen[1]} off "
                                        "(fresh seeds)")
    ax.set_xlabel("cards changed")
    ax.set_ylabel("cards off their band")
    ax.set_title(f"How few cards can stay off the +-{tolerance:g} pp band for each number of "
                 "cards changed?", fontsize=10)
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.yaxis.get_major_locator().set_params(integer=True)
    top = max([int(kept["off"].max()) if len(kept) else 0]
              + ([int(free["off"].max())] if free is not None and len(free) else [])
              + ([chosen[1]] if chosen is not None else []))
    ax.set_ylim(0, top + 0.6)
    ax.grid(alpha=0.3)
    # the fronts fall from the upper left: the lower left is free for the legend
    ax.legend(fontsize=8, loc="lower left", framealpha=0.95)
    if path is not None:
        fig.savefig(path, dpi=110)
        plt.close(fig)
    return fig
