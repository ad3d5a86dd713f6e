"""The pictures of a Lure rebalance, original deck against proposed: each card's win diff
with its band (:func:`plot_win_diff`), points against difficulty
(:func:`plot_points_vs_difficulty`), final scores, seat win shares and game length per player
count, and the search's trials."""

from __future__ import annotations


import numpy as np
import pandas as pd

from experiments.lure.balance_plots import difficulty_axes, place_labels, save_figure
from experiments.lure.simulation import ROUND_BINS

from experiments.lure.rebalance_verify import DECKS

__all__ = ["plot_win_diff", "plot_points_vs_difficulty", "plot_scores", "plot_seats",
           "plot_game_length", "plot_search"]

_COLOURS = {"before": "0.55", "after": "tab:blue"}


_TITLE = {"before": "original deck", "after": "proposed deck"}


def _figure(path):
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(plt, fig, path):
    save_figure(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


def plot_win_diff(cards: pd.DataFrame, targets: dict, tolerance: float | None, path=None):
    """Per card (x) and player count (one panel each): the catcher win advantage before
    (grey) and after (blue) with 95% Newcombe intervals, in percentage points; the goal's band
    ``target +- tolerance`` shaded when given; changed cards' labels in bold. PNG to ``path``
    when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(cards["players"].unique())
    ids = list(dict.fromkeys(cards["id"]))
    changed = set(cards.loc[cards["changed"], "id"])
    fig, axes = plt.subplots(len(players), 1, figsize=(max(9.0, 0.34 * len(ids) + 2.5),
                                                        2.4 * len(players) + 1.4),
                             squeeze=False, sharex=True)
    x = np.arange(len(ids))
    for ax, n in zip(axes[:, 0], players, strict=True):
        s = cards[cards["players"] == n].set_index("id").reindex(ids)
        if tolerance is not None and n in targets:
            t = targets[n]
            ax.axhspan(t - tolerance, t + tolerance, color="tab:green", alpha=0.12,
                       label=f"band: target +- {tolerance:g} pp")
        for off, tag in ((-0.17, "before"), (0.17, "after")):
            y = 100 * s[f"win_diff_{tag}"].to_numpy(float)
            err = 100 * np.array([s[f"win_diff_{tag}"] - s[f"win_diff_low_{tag}"],
                                  s[f"win_diff_high_{tag}"] - s[f"win_diff_{tag}"]])
            ax.errorbar(x + off, y, yerr=err, fmt="o", ms=3.2, lw=0.9, capsize=0,
                        color=_COLOURS[tag], label=_TITLE[tag])
        ax.set_ylabel(f"{n} players\nwin diff (pp)", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.axhline(0, color="0.3", lw=0.6)
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    ax = axes[-1, 0]
    ax.set_xticks(x)
    ax.set_xticklabels(ids, rotation=90, fontsize=8)
    for lab in ax.get_xticklabels():
        if lab.get_text() in changed:
            lab.set_fontweight("bold")
            lab.set_color("tab:red")
    ax.set_xlim(-0.6, len(ids) - 0.4)
    ax.set_xlabel("card (changed cards in red)")
    q = ("Is every card's catcher win advantage inside the band after the rebalance?"
         if tolerance is not None else
         "How much does catching each card help its catcher win, before and after?")
    fig.suptitle(f"{q}\nWin rate of the catcher minus the other players' (percentage points), "
                 f"95% intervals, fresh seeds", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_points_vs_difficulty(cards: pd.DataFrame, curve, tolerance: float, path=None):
    """Points against difficulty: every card before (hollow grey) and after (blue), an arrow
    for each changed card, the curve and its tolerance band; cards nobody can catch drawn at
    the right edge. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    c = cards.drop_duplicates("id").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(11, 6.6))
    # square-root axis: the many easy cards (D near 0) spread out
    ax.set_xscale("function", functions=(lambda x: np.sqrt(np.maximum(x, 0)), np.square))
    xs = np.linspace(curve.d_low, curve.d_high, 200)
    ys = curve(xs)
    ax.fill_between(xs, ys - tolerance, ys + tolerance, color="grey", alpha=0.15,
                    label=f"curve +- {tolerance:.2f} points", zorder=1)
    ax.plot(xs, ys, "k-", lw=1, label=f"curve ({curve.kind}) of the original deck", zorder=2)
    edge = curve.d_high + 0.08 * (curve.d_high - curve.d_low)

    def xy(tag):
        d = c[f"difficulty_{tag}"].to_numpy(float)
        return np.where(np.isfinite(d), d, edge), c[f"points_{tag}"].to_numpy(float)

    xb, yb = xy("before")
    xa, ya = xy("after")
    ch = c["changed"].to_numpy(bool)
    ax.scatter(xb, yb, s=38, facecolors="none", edgecolors="0.5", label="original deck",
               zorder=3)
    ax.scatter(xa[ch], ya[ch], s=40, c="tab:blue", label="proposed (changed cards)", zorder=4)
    for i in np.flatnonzero(ch):
        ax.annotate("", (xa[i], ya[i]), (xb[i], yb[i]),
                    arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 1.0})
    from matplotlib.ticker import FormatStrFormatter

    ax.set_xticks([t for t in (0, 0.05, 0.2, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10)
                   if t <= edge * 1.02])
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    if (~np.isfinite(c["difficulty_before"].to_numpy(float))).any():
        ax.axvline(edge, color="tab:red", ls=":", lw=1)
        ax.text(edge, ax.get_ylim()[0], "nobody can catch\n(D = inf) ", color="tab:red",
                fontsize=8, va="bottom", ha="right")
    difficulty_axes(ax, "Which cards did the rebalance move, and do their points now fit "
                        "their difficulty?\nPoints against difficulty (square-root axis), "
                        "original and proposed deck")
    if ch.any():
        place_labels(ax, xa[ch], ya[ch], list(c.loc[ch, "id"]))
    return _finish(plt, fig, path)


def _panels(plt, players, height=2.6):
    fig, axes = plt.subplots(1, len(players), figsize=(max(6.0, 3.2 * len(players) + 1.0),
                                                      height + 1.4), squeeze=False)
    return fig, axes[0]


def plot_scores(hists: dict, path=None):
    """Distribution of the final scores (every seat), before and after, one panel per player
    count (share of the scores per 2-point bin). PNG to ``path`` when given; returns the
    Figure."""
    plt = _figure(path)
    players = sorted(hists["before"])
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        for tag in DECKS:
            h = np.asarray(hists[tag][n]["score"], np.float64)
            h2 = h[: len(h) // 2 * 2].reshape(-1, 2).sum(axis=1) / h.sum()
            top = max(4, int(np.flatnonzero(h)[-1]) + 3) if h.any() else 10
            ax.step(np.arange(len(h2)) * 2, h2, where="post", color=_COLOURS[tag],
                    label=_TITLE[tag], lw=1.4)
            m = (h * np.arange(len(h))).sum() / h.sum()
            ax.axvline(m, color=_COLOURS[tag], ls="--", lw=0.9)
            ax.set_xlim(0, max(ax.get_xlim()[1] if tag == "after" else 0, top))
        ax.set_title(f"{n} players", fontsize=10)
        ax.set_xlabel("final score (dashed: mean)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of the scores (2-point bins)")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper right")
    fig.suptitle("Did the rebalance change how many points players score?", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_seats(games: pd.DataFrame, path=None):
    """Each seat's win share (ties shared) before and after with 95% Wilson intervals, one
    panel per player count, the fair share 1/n dashed: the first-player advantage. PNG to
    ``path`` when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(games["players"].unique())
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        for off, tag in ((-0.2, "before"), (0.2, "after")):
            r = games[(games["players"] == n) & (games["deck"] == tag)].iloc[0]
            w = np.array([r[f"seat_{p}_win"] for p in range(n)])
            err = np.array([[w[p] - r[f"seat_{p}_win_low"] for p in range(n)],
                            [r[f"seat_{p}_win_high"] - w[p] for p in range(n)]])
            ax.bar(np.arange(n) + off, w, 0.4, yerr=err, color=_COLOURS[tag],
                   label=_TITLE[tag], error_kw={"lw": 0.8})
        ax.axhline(1 / n, color="k", ls="--", lw=0.8, label="fair share 1/n")
        ax.set_xticks(np.arange(n))
        ax.set_xticklabels([str(p + 1) for p in range(n)])
        ax.set_xlabel("seat (1 = first player)")
        ax.set_title(f"{n} players", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("win share")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Does the first player win more often, before and after the rebalance?\n"
                 "Win share by seat with 95% intervals", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_game_length(hists: dict, path=None):
    """Distribution of the game length in rounds, before and after, one panel per player
    count. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(hists["before"])
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        lo, hi = ROUND_BINS, 0
        for off, tag in ((-0.2, "before"), (0.2, "after")):
            h = np.asarray(hists[tag][n]["rounds"], np.float64)
            nz = np.flatnonzero(h)
            lo, hi = min(lo, int(nz[0])), max(hi, int(nz[-1]))
            ax.bar(np.arange(len(h)) + off, h / h.sum(), 0.4, color=_COLOURS[tag],
                   label=_TITLE[tag])
        ax.set_xlim(lo - 0.8, hi + 0.8)
        ax.set_xticks(range(lo, hi + 1))
        ax.set_xlabel("rounds")
        ax.set_title(f"{n} players", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("share of the games")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Did the rebalance change how long a game lasts?", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_search(trials: pd.DataFrame, path=None):
    """The win-diff search: each trial's objective (violation in percentage points + change
    penalty) by role, and the running best. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    marks = {"start": ("D", "tab:orange"), "front": ("P", "tab:purple"),
             "model": ("o", "tab:blue"),
             "prune": ("s", "tab:green"), "tpe": ("^", "0.5")}
    for role, (m, colour) in marks.items():
        s = trials[trials["role"] == role]
        if len(s):
            ax.scatter(s["number"], s["objective"], marker=m, s=22, color=colour, label=role,
                       alpha=0.8, zorder=3)
    ax.step(trials["number"], trials["best_so_far"], where="post", color="tab:red", lw=1.6,
            label="chosen so far\n(lexicographic rank)")
    if (trials["objective"] > 0).all() and trials["objective"].max() > 20 * max(
            trials["objective"].min(), 1e-9):
        ax.set_yscale("log")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trial")
    ax.set_ylabel("objective: pp beyond the bands + penalties")
    ax.set_title("How did the search approach a deck that meets the goal?\nEvery trial on the "
                 "same games (common random numbers); lower is better", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return _finish(plt, fig, path)
