"""Two rat-pair tables side by side: do two agents rank the Rat pairs alike?

The rat-pair table (:func:`experiments.pairs.job.pair_table`) measures the pairs *through* an
agent. :func:`rank_agreement` says, per player count, how much of the ranking of the 12 ordered
pairs survives a change of agent (for example the `heuristic` headline against the `pimc`
search agent): Spearman's rank correlation and Kendall's tau with their p-values
(:func:`scipy.stats.spearmanr`, :func:`scipy.stats.kendalltau`), the mean win rates, and the
pair whose rank moves most. :func:`comparison_figure` draws one panel per player count.
"""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from experiments.pairs.plots import pair_label

_KEYS = ["players", "pair"]


def _joined(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    for name, t in (("a", a), ("b", b)):
        missing = {"players", "pair", "win_rate", "ci_low", "ci_high"} - set(t.columns)
        if missing:
            raise ValueError(f"table {name} lacks columns {sorted(missing)}: expected a "
                             "rat-pair table (pairs.csv)")
    j = a[_KEYS + ["win_rate", "ci_low", "ci_high"]].merge(
        b[_KEYS + ["win_rate", "ci_low", "ci_high"]], on=_KEYS, suffixes=("_a", "_b"))
    if j.empty:
        raise ValueError("the two tables share no (players, pair) cell")
    return j


def rank_agreement(a: pd.DataFrame, b: pd.DataFrame) -> pd.DataFrame:
    """Per player count, how alike tables ``a`` and ``b`` rank the pairs.

    ``a``, ``b``: rat-pair tables (columns ``players``, ``pair``, ``win_rate``, ``ci_low``,
    ``ci_high``; e.g. two ``pairs.csv``). Returns one row per player count present in both:
    ``pairs`` (cells compared), ``mean_a``/``mean_b`` (mean win rate, fraction),
    ``spearman``/``spearman_p``, ``kendall``/``kendall_p`` (two-sided), ``top_a``/``top_b``
    (the easiest pair), ``most_moved`` (the pair whose rank changes most) and ``rank_change``
    (its signed change, positive = easier under ``b``). Raises ``ValueError`` for tables
    without those columns or without common cells."""
    from scipy.stats import kendalltau, spearmanr

    j = _joined(a, b)
    rows = []
    for n, g in j.groupby("players"):
        rho, rho_p = spearmanr(g.win_rate_a, g.win_rate_b)
        tau, tau_p = kendalltau(g.win_rate_a, g.win_rate_b)
        ra = g.win_rate_a.rank(ascending=False)
        rb = g.win_rate_b.rank(ascending=False)
        moved = (ra - rb)
        i = moved.abs().idxmax()
        rows.append({"players": int(n), "pairs": len(g), "mean_a": g.win_rate_a.mean(),
                     "mean_b": g.win_rate_b.mean(), "spearman": float(rho),
                     "spearman_p": float(rho_p), "kendall": float(tau),
                     "kendall_p": float(tau_p),
                     "top_a": g.pair[g.win_rate_a.idxmax()],
                     "top_b": g.pair[g.win_rate_b.idxmax()],
                     "most_moved": g.pair[i], "rank_change": float(moved[i])})
    return pd.DataFrame(rows)


def comparison_figure(a: pd.DataFrame, b: pd.DataFrame, label_a: str = "heuristic",
                      label_b: str = "search") -> Figure:
    """One panel per player count (a 2 x 2 grid for four): each ordered pair's win rate under
    ``a`` (x) and ``b`` (y) with 95% intervals, the diagonal, Spearman's rho in the title, and
    labels on the easiest and hardest pair under ``b`` and the pair whose rank moves most.
    Same inputs and errors as :func:`rank_agreement`."""
    j = _joined(a, b)
    agree = rank_agreement(a, b).set_index("players")
    ns = sorted(j.players.unique())
    cols = 2 if len(ns) == 4 else len(ns)
    rows = -(-len(ns) // cols)
    fig = Figure(figsize=(5.2 * cols, 4.6 * rows + 0.6))
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    for ax in axes[len(ns):]:
        ax.set_visible(False)
    for ax, n in zip(axes, ns, strict=False):
        g = j[j.players == n]
        ax.errorbar(g.win_rate_a * 100, g.win_rate_b * 100,
                    xerr=[(g.win_rate_a - g.ci_low_a) * 100, (g.ci_high_a - g.win_rate_a) * 100],
                    yerr=[(g.win_rate_b - g.ci_low_b) * 100, (g.ci_high_b - g.win_rate_b) * 100],
                    fmt="o", ms=4, lw=0.8, capsize=2, color="tab:blue")
        marks = {g.pair[g.win_rate_b.idxmax()]: "easiest",
                 g.pair[g.win_rate_b.idxmin()]: "hardest"}
        moved = agree.loc[n, "most_moved"]
        marks.setdefault(moved, f"rank {agree.loc[n, 'rank_change']:+.0f}")
        for _, r in g[g.pair.isin(list(marks))].iterrows():
            ax.annotate(f"{pair_label(r.pair)} ({marks[r.pair]})",
                        (r.win_rate_a * 100, r.win_rate_b * 100), textcoords="offset points",
                        xytext=(7, -3), fontsize=8, color="tab:red")
        hi = max(g.ci_high_a.max(), g.ci_high_b.max()) * 100 + 5
        ax.plot([0, hi], [0, hi], color="gray", lw=0.8, ls="--")
        ax.set_xlim(0, hi)
        ax.set_ylim(0, hi)
        ax.set_xlabel(f"{label_a} win rate (%)")
        ax.set_ylabel(f"{label_b} win rate (%)")
        ax.set_title(f"{n} player{'s' if n > 1 else ''}: Spearman rho "
                     f"{agree.loc[n, 'spearman']:.2f}", fontsize=10)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Do {label_a} and {label_b} rank the Rat pairs alike?\n(one point per "
                 "ordered pair, active -> waiting, 95% intervals; dashed: equal win rates)",
                 fontsize=11)
    fig.tight_layout()
    return fig
