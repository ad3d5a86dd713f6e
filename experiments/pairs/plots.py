"""Plots of the River Rats pair experiment (:mod:`experiments.river_rats_pairs`): a heatmap
of win rates (active Rat by waiting Rat, one panel per player count) and a bar chart of the 6
unordered pairs with 95% intervals. Written with matplotlib's non-interactive Agg canvas."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from experiments.io import atomic_write_bytes

__all__ = ["plot_heatmap", "plot_unordered", "heatmap_figure", "unordered_figure"]

SUITS = "CDHS"
LABELS = {"C": "♣K", "D": "♦K", "H": "♥K", "S": "♠K"}
COLORBAR_LABEL = "players' win rate (%)"
"""Label of the heatmap's colour bar."""
DIAGONAL_LABEL = "—\nsame Rat:\nno pair"
"""Text in the heatmap's diagonal cells (a Rat cannot pair with itself)."""


def pair_label(pair: str) -> str:
    """Display label of an ordered pair code (``"CD"`` -> ``"♣K→♦K"``, active then waiting)."""
    return f"{LABELS[pair[0]]}→{LABELS[pair[1]]}"


def _save(fig: Figure, path: str | Path) -> Path:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=130, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())
    return Path(path)


def heatmap_figure(pairs: pd.DataFrame) -> Figure:
    """Heatmap figure: rows = active Rat, columns = waiting Rat, cell text = win rate and its
    95% interval, one panel per player count; the diagonal (a Rat cannot pair with itself) is
    grey and says so (:data:`DIAGONAL_LABEL`), a pair missing from ``pairs`` says "not run",
    and the colour bar is labelled (:data:`COLORBAR_LABEL`). ``pairs``: :func:`pair_table`
    output."""
    counts = sorted(pairs["players"].unique())
    fig = Figure(figsize=(4.3 * len(counts), 4.4), layout="constrained")
    axes = fig.subplots(1, len(counts), squeeze=False)[0]
    vmax = float(pairs["win_rate"].max()) or 1.0
    im = None
    for ax, n in zip(axes, counts, strict=True):
        df = pairs[pairs["players"] == n].set_index("pair")
        grid = np.full((4, 4), np.nan)
        for i, a in enumerate(SUITS):
            for j, w in enumerate(SUITS):
                if a != w and a + w in df.index:
                    grid[i, j] = df.loc[a + w, "win_rate"]
        im = ax.imshow(grid * 100, cmap="viridis", vmin=0, vmax=vmax * 100)
        for i, a in enumerate(SUITS):
            for j, w in enumerate(SUITS):
                if a == w:  # a Rat cannot pair with itself: say so in the blank cell
                    ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.93",
                                           edgecolor="none", zorder=0.5))
                    ax.text(j, i, DIAGONAL_LABEL, ha="center", va="center", fontsize=7.5,
                            color="0.35", style="italic")
                    continue
                if a + w not in df.index:
                    ax.text(j, i, "not run", ha="center", va="center", fontsize=7.5,
                            color="0.35")
                    continue
                r = df.loc[a + w]
                light = r.win_rate < 0.6 * vmax
                ax.text(j, i, f"{100 * r.win_rate:.1f}%\n[{100 * r.ci_low:.1f}, "
                        f"{100 * r.ci_high:.1f}]", ha="center", va="center", fontsize=7.5,
                        color="white" if light else "black")
        ax.set_xticks(range(4), [LABELS[s] for s in SUITS])
        ax.set_yticks(range(4), [LABELS[s] for s in SUITS])
        ax.set_xlabel("waiting Rat")
        ax.set_ylabel("active Rat")
        games = int(df["games"].min())
        ax.set_title(f"{n} player{'s' if n > 1 else ''}  (≥{games:,} games per pair)",
                     fontsize=10)
    if im is not None:
        fig.colorbar(im, ax=list(axes), label=COLORBAR_LABEL, shrink=0.8)
    agents = ""
    if "agents" in pairs.columns:
        names = sorted({a for v in pairs["agents"].astype(str) for a in v.split(",")})
        agents = (f" {names[0]} in every seat," if len(names) == 1
                  else f" agents {', '.join(names)},")
    fig.suptitle(f"River Rats: how often do the players beat each Rat pair?{agents} "
                 "95% Wilson intervals")
    return fig


def plot_heatmap(pairs: pd.DataFrame, path: str | Path) -> Path:
    """Write :func:`heatmap_figure` to ``path`` (PNG, atomically); returns the path."""
    return _save(heatmap_figure(pairs), path)


def unordered_figure(unordered: pd.DataFrame) -> Figure:
    """Grouped bars of the 6 unordered pairs (x) per player count, with 95% interval error
    bars. ``unordered``: :func:`unordered_table` output."""
    counts = sorted(unordered["players"].unique())
    pairs = sorted(unordered["unordered"].unique(), key=lambda p: (SUITS.index(p[0]),
                                                                   SUITS.index(p[1])))
    fig = Figure(figsize=(9, 4.2), layout="constrained")
    ax = fig.subplots()
    width = 0.8 / len(counts)
    x = np.arange(len(pairs))
    for k, n in enumerate(counts):
        df = unordered[unordered["players"] == n].set_index("unordered").loc[pairs]
        rate = df["win_rate"].to_numpy() * 100
        err = np.clip(np.vstack([rate - df["ci_low"].to_numpy() * 100,
                                 df["ci_high"].to_numpy() * 100 - rate]), 0, None)
        ax.bar(x + (k - (len(counts) - 1) / 2) * width, rate, width, yerr=err, capsize=2,
               label=f"{n} player{'s' if n > 1 else ''}")
    ax.set_xticks(x, [f"{LABELS[p[0]]} + {LABELS[p[1]]}" for p in pairs])
    ax.set_ylabel("players' win rate (%)")
    ax.set_title("River Rats: win rate per unordered Rat pair (both orders pooled), 95% CI")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return fig


def plot_unordered(unordered: pd.DataFrame, path: str | Path) -> Path:
    """Write :func:`unordered_figure` to ``path`` (PNG, atomically); returns the path."""
    return _save(unordered_figure(unordered), path)
