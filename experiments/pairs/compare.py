"""Two rat-pair tables side by side: do two agents rank the Rat pairs alike?

The rat-pair table (:func:`experiments.pairs.job.pair_table`) measures the pairs *through* an
agent. :func:`rank_agreement` says, per player count, how much of the ranking of the 12 ordered
pairs survives a change of agent (for example the `heuristic` headline against the `pimc`
search agent): Spearman's rank correlation and Kendall's tau with their p-values
(:func:`scipy.stats.spearmanr`, :func:`scipy.stats.kendalltau`), the mean win rates, and the
pair whose rank moves most. :func:`comparison_figure` draws one panel per player count.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
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


def read_table(path: str | Path, option: str = "--compare") -> tuple[pd.DataFrame, dict]:
    """A finished rat-pair table to compare with: ``path`` is its folder (holding
    ``pairs.csv`` and, optionally, ``metadata.json``) or the ``pairs.csv`` itself. Returns (the
    table, the metadata or ``{}``). Raises ``ValueError`` naming ``option`` and the path as
    given when the file is missing or is not a rat-pair table."""
    import json

    p = Path(path)
    csv = p / "pairs.csv" if p.is_dir() else p
    try:
        table = pd.read_csv(csv)
    except (OSError, ValueError) as exc:
        raise ValueError(f"bad {option} {str(path)!r}: no readable rat-pair table there "
                         f"({type(exc).__name__}); expected a finished pairs run's folder or "
                         "its pairs.csv") from None
    missing = {"players", "pair", "agents", "games", "win_rate"} - set(table.columns)
    if missing:
        raise ValueError(f"bad {option} {str(path)!r}: its table lacks columns "
                         f"{sorted(missing)}; expected a rat-pair table (pairs.csv)")
    meta_path = csv.parent / "metadata.json"
    try:
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
    except (OSError, ValueError):
        meta = {}
    return table, meta if isinstance(meta, dict) else {}


def rules_of(meta: dict) -> dict | None:
    """The rules fields of a pairs run's ``metadata.json`` (``settings.rules``, else the
    ``spec.rules`` of older files), or ``None`` when the file does not say."""
    settings = meta.get("settings")
    if isinstance(settings, dict) and isinstance(settings.get("rules"), dict):
        return settings["rules"]
    spec = meta.get("spec")
    if isinstance(spec, dict) and isinstance(spec.get("rules"), dict):
        return spec["rules"]
    return None


def agents_label(table: pd.DataFrame) -> str:
    """The agents of a rat-pair table's ``agents`` column, each name once (``"pimc"`` for
    ``"pimc,pimc,pimc"``)."""
    names = dict.fromkeys(a for v in table["agents"] for a in str(v).split(","))
    return ", ".join(names)


def format_side_by_side(pairs: pd.DataFrame, other: pd.DataFrame, source: str) -> str:
    """The text printed under a rat-pair table by ``--compare``: per player count present in
    both tables, the mean win rate over the pairs of each (%), the mean and range of the
    per-pair difference (points, ``other`` minus ``pairs``), ``other``'s fewest games per pair,
    Spearman's rho of the two rankings, and the pairs whose rank moves by 2 or more (positive:
    easier under ``other``). ``pairs``, ``other``: rat-pair tables
    (:func:`experiments.pairs.job.pair_table` or a ``pairs.csv``); ``source``: where ``other``
    was read. Raises ``ValueError`` as :func:`rank_agreement`."""
    agree = rank_agreement(pairs, other).set_index("players")
    j = _joined(pairs, other)
    mine, theirs = agents_label(pairs), agents_label(other)
    lines = [f"\nBeside it, {theirs} ({source}), against {mine} here:"]
    for n, g in j.groupby("players"):
        diff = (g.win_rate_b - g.win_rate_a) * 100
        ra = g.set_index("pair").win_rate_a.rank(ascending=False)
        rb = g.set_index("pair").win_rate_b.rank(ascending=False)
        moves = (ra - rb)[(ra - rb).abs() >= 2].sort_values(key=abs, ascending=False)
        moved = ", ".join(f"{pair_label(p)} {m:+.0f}" for p, m in moves.items()) or "none"
        r = agree.loc[n]
        games = int(other[other.players == n]["games"].min())
        lines.append(
            f"  {n} player{'s' if n > 1 else ''}: {theirs} {100 * r.mean_b:.1f}% against "
            f"{mine} {100 * r.mean_a:.1f}% on average, {diff.mean():+.1f} points per pair "
            f"({diff.min():+.1f} to {diff.max():+.1f}; {games:,}+ games per pair)\n"
            f"     Spearman rho {r.spearman:.2f}; rank moves of 2 or more: {moved}")
    return "\n".join(lines)


def agents_figure(tables: dict[str, pd.DataFrame]) -> Figure:
    """How each Rat pair fares under several agents: one panel per player count present in
    every table, the 12 ordered pairs as rows (sorted by the last table's win rate, easiest on
    top), each agent's win rate as a marker with its 95% interval. ``tables``: label ->
    rat-pair table (``players``, ``pair``, ``win_rate``, ``ci_low``, ``ci_high``; e.g. the
    ``pairs.csv`` of ``heuristic``, ``net`` and ``pimc``), in legend order. Raises
    ``ValueError`` for fewer than two tables, tables without those columns, or no player count
    common to all."""
    if len(tables) < 2:
        raise ValueError(f"{len(tables)} table(s): expected two or more to compare")
    labels = list(tables)
    for label in labels[1:]:
        _joined(tables[labels[0]], tables[label])  # the columns and a common cell, or raise
    ns = sorted(set.intersection(*(set(t.players) for t in tables.values())))
    if not ns:
        raise ValueError("the tables share no player count")
    cols = min(len(ns), 4)
    # wide enough for the two-line title whatever the panels; with few panels the legend
    # stacks its entries (one per row) under them instead of running past the edges
    legend_cols = len(labels) if cols >= 3 else 1
    legend_rows = -(-len(labels) // legend_cols)
    fig = Figure(figsize=(max(3.7 * cols + 1.2, 9.0), 5.4 + 0.25 * (legend_rows - 1)))
    axes = fig.subplots(1, cols, sharey=False, squeeze=False).ravel()
    markers = ["o", "s", "D", "^", "v"]
    last = tables[labels[-1]]
    for ax, n in zip(axes, ns, strict=False):
        order = last[last.players == n].sort_values("win_rate").pair.tolist()
        y = {p: i for i, p in enumerate(order)}
        for k, label in enumerate(labels):
            t = tables[label]
            g = t[(t.players == n) & t.pair.isin(order)]
            ys = np.array([y[p] for p in g.pair]) + (k - (len(labels) - 1) / 2) * 0.18
            ax.errorbar(g.win_rate * 100, ys,
                        xerr=[(g.win_rate - g.ci_low) * 100, (g.ci_high - g.win_rate) * 100],
                        fmt=markers[k % len(markers)], ms=4, lw=0.9, capsize=1.5,
                        label=label if n == ns[0] else None, color=f"C{k}")
        ax.set_yticks(range(len(order)), [pair_label(p) for p in order], fontsize=8)
        ax.set_xlim(0, 100)
        ax.set_xlabel("players' win rate (%)")
        ax.set_title(f"{n} player{'s' if n > 1 else ''}", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_ylabel("Rat pair (active → waiting)")
    fig.legend(loc="lower center", ncol=legend_cols, fontsize=9, frameon=False)
    fig.suptitle("How often do the players beat each pair of Rats, and how much does it depend "
                 "on how well they play?\n(95% intervals; pairs sorted by the "
                 f"{labels[-1]} win rate)", fontsize=11)
    fig.tight_layout(rect=(0, 0.02 + 0.045 * legend_rows, 1, 1))
    return fig
