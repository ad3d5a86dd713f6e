"""The pictures of the Lure balance report: points against difficulty with the fitted curve
(:func:`plot_points_vs_difficulty`), catch-probability heatmaps per card and loadout
(:func:`plot_heatmaps`) and the share caught per player count (:func:`plot_caught`); the
helpers the rebalance report's pictures share (:func:`save_figure`, :func:`place_labels`,
:func:`difficulty_axes`, :func:`caught_axis_limits`)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd

from engines import dice
from experiments.io import atomic_write_bytes
from experiments.lure.odds import SPEC_LABELS, spec_list

__all__ = ["save_figure", "place_labels", "difficulty_axes", "plot_points_vs_difficulty",
           "plot_heatmaps", "CAUGHT_TICKS", "CAUGHT_SCALE_NOTE", "caught_axis_limits",
           "plot_caught"]


def save_figure(fig, path) -> None:
    """Write ``fig`` as PNG to ``path`` atomically (nothing when ``path`` is None)."""
    if path is None:
        return
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def place_labels(ax, xs, ys, labels, fontsize: float = 7.5) -> None:
    """Annotate points ``(xs, ys)`` with ``labels`` without overlaps: each label takes the
    first of a list of positions around its point (then farther ones, with a leader line)
    whose box overlaps no label placed before, no other point and stays inside the axes. Each
    label's size is measured once and its candidate boxes are computed from it (drawing one
    annotation per candidate took seconds for 30 cards)."""
    from matplotlib.transforms import Bbox

    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([xs, ys]))
    px = fig.dpi / 72.0
    r = 4.0 * px
    marks = [Bbox([[x - r, y - r], [x + r, y + r]]) for x, y in pts]
    frame = ax.get_window_extent(renderer)
    near = [(4, 3, "left", "bottom"), (4, -3, "left", "top"), (-4, 3, "right", "bottom"),
            (-4, -3, "right", "top"), (0, 6, "center", "bottom"), (0, -6, "center", "top"),
            (6, 0, "left", "center"), (-6, 0, "right", "center")]
    candidates = [(c, False) for c in near]
    for f in (2.5, 4.0, 5.5):
        candidates += [((dx * f, dy * f, ha, va), True) for dx, dy, ha, va in near]
    shift = {"left": 0.0, "center": -0.5, "right": -1.0, "bottom": 0.0, "top": -1.0}
    placed = []
    for i in np.argsort(pts[:, 0], kind="stable"):
        probe = ax.text(0, 0, labels[i], fontsize=fontsize)
        size = probe.get_window_extent(renderer)
        probe.remove()
        w, h = size.width, size.height
        chosen = None
        for (dx, dy, ha, va), lead in candidates:
            x0 = pts[i, 0] + dx * px + shift[ha] * w
            y0 = pts[i, 1] + dy * px + (shift[va] if va != "center" else -0.5) * h
            bb = Bbox([[x0, y0], [x0 + w, y0 + h]]).padded(1.0)
            inside = (bb.x0 >= frame.x0 and bb.x1 <= frame.x1 and bb.y0 >= frame.y0
                      and bb.y1 <= frame.y1)
            clash = any(bb.overlaps(o) for o in placed) or any(
                bb.overlaps(m) for j, m in enumerate(marks) if j != i)
            if inside and not clash:
                ax.annotate(labels[i], (xs[i], ys[i]), xytext=(dx, dy),
                            textcoords="offset points", ha=ha, va=va, fontsize=fontsize,
                            zorder=4, arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.4",
                                                  "shrinkA": 0, "shrinkB": 3} if lead else None)
                chosen = bb
                break
        if chosen is None:  # no free spot: the nearest position
            t = ax.annotate(labels[i], (xs[i], ys[i]), xytext=(4, 3), textcoords="offset points",
                            fontsize=fontsize, zorder=4)
            chosen = t.get_window_extent(renderer)
        placed.append(chosen)


def difficulty_axes(ax, title: str) -> None:
    """Label a points-against-difficulty plot (axes, ``title``, grid, the legend outside on
    the right) and tighten its figure's layout."""
    ax.set_xlabel("difficulty  D = -ln(mean catch probability over every dice loadout)")
    ax.set_ylabel("points on the card")
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.figure.tight_layout()


def plot_points_vs_difficulty(cards: pd.DataFrame, fit: dict, path=None):
    """Scatter of points on difficulty with the fitted curve, its tolerance band and the flags;
    every card labelled by id. Written as PNG to ``path`` when given; returns the Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6.5))
    ok = np.isfinite(cards["difficulty"]).to_numpy()
    xs = np.linspace(cards.loc[ok, "difficulty"].min(), cards.loc[ok, "difficulty"].max(), 200)
    ys = np.polyval(fit["coefficients"], xs)
    robust = fit.get("method", "robust") == "robust"
    scale = (f"max(2, 1.5 x robust sigma {fit['scale']:.2f})" if robust and "scale" in fit
             else f"max(2, 1.5 x RMSE {fit['rmse']:.2f})")
    ax.fill_between(xs, ys - fit["threshold"], ys + fit["threshold"], color="grey", alpha=0.15,
                    label=f"fair +- {fit['threshold']:.2f} points = {scale}", zorder=1)
    ax.plot(xs, ys, "k-", lw=1, label=("robust curve (fair points)" if robust else
                                       "least-squares curve (fair points)"), zorder=2)
    colours = {"": ("tab:blue", "within the band"), "over-valued": ("tab:red", "over-valued"),
               "under-valued": ("tab:green", "under-valued")}
    for flag, (colour, text) in colours.items():
        m = ok & (cards["flag"] == flag).to_numpy()
        ax.scatter(cards.loc[m, "difficulty"], cards.loc[m, "points"], c=colour, s=36,
                   label=f"{text} ({int(m.sum())})", zorder=3)
    ax.set_ylim(min(-0.5, float(cards.loc[ok, "points"].min()) - 1),
                float(max(cards.loc[ok, "points"].max(), ys.max() + fit["threshold"])) + 1)
    out = [str(x) for x in fit.get("outliers", [])]
    difficulty_axes(ax, "Are the fish cards' points fair for how hard they are to catch?\n"
                        "Lure fish cards: points against difficulty, with a "
                        + ("robust quadratic (soft-l1" + (f"; set aside: {', '.join(out)})"
                                                          if out else ")")
                           if robust else "least-squares quadratic"))
    sub = cards[ok]
    place_labels(ax, sub["difficulty"].to_numpy(float), sub["points"].to_numpy(float),
                  list(sub["id"]))
    save_figure(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


def plot_heatmaps(cards: pd.DataFrame, table: np.ndarray, deep: bool, path=None):
    """One small heatmap per card: exact catch probability by number of d6 (rows) and special
    dice (columns), in the card's lure context. PNG to ``path`` when given; returns the
    Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = spec_list(deep)
    n = len(cards)
    cols = 6
    rows = max(1, (n + cols - 1) // cols)
    height = rows * 2.15 + 1.3
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 2.05, height), squeeze=False)
    im = None
    # special dice by faces: "12" the d12, "12 20" the d12 and the d20, "-" none
    xlabels = ["\n".join(x.replace("d", "") for x in SPEC_LABELS[s].split("+")) or "-"
               for s in specs]
    for k in range(rows * cols):
        ax = axes[k // cols][k % cols]
        if k >= n:
            ax.axis("off")
            continue
        r = cards.iloc[k]
        ctx = dice.PLAN_FLAG if r["lure_context"] == "boost" else dice.PLAN_NONE
        im = ax.imshow(table[k][:, specs, ctx], vmin=0, vmax=1, cmap="viridis", aspect="auto",
                       origin="lower")
        req = str(r["requirements"]).replace(";", ",")
        ax.set_title(f"{r['id']}: {r['points']} pt, {r['catch_number']}+\n{req}"[:40],
                     fontsize=8, linespacing=1.0)
        ax.set_yticks(range(6))
        ax.set_xticks(range(len(specs)))
        if k % cols == 0:
            ax.set_yticklabels([f"{i}d6" for i in range(6)], fontsize=7)
        else:
            ax.set_yticklabels([])
        if k + cols >= n:  # nothing below: label the special dice
            ax.set_xticklabels(xlabels, fontsize=7, linespacing=0.9)
            ax.set_xlabel("special dice (d12, d20" + (", d4)" if deep else ")"), fontsize=7)
        else:
            ax.set_xticklabels([])
        ax.tick_params(length=2, pad=1.5)
    fig.suptitle("How likely is each fish to be caught with a given loadout?\n"
                 "Exact catch probability; rows: number of d6, columns: special dice "
                 "(a card that requires a lure: with one boost)", fontsize=11,
                 y=1 - 0.1 / height, va="top")
    fig.subplots_adjust(left=0.05, right=0.9, top=1 - 1.0 / height, bottom=0.75 / height,
                        hspace=0.55, wspace=0.12)
    if im is not None:
        cax = fig.add_axes([0.925, 0.3, 0.015, 0.4])
        fig.colorbar(im, cax=cax, label="P(catch)")
    save_figure(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


CAUGHT_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995,
                0.998, 0.999, 0.9999)
"""Candidate ticks (caught shares) of :func:`plot_caught`'s logit axis."""


CAUGHT_SCALE_NOTE = ("logit scale:\nstretched near\n100% so that\nsmall differences\nshow."
                     "\n\n99% caught:\nmissed in 1 game\nof 100; 97%:\n3 of 100."
                     "\n\nNo 0 on this axis:\ndots, not bars.")
"""The note beside :func:`plot_caught`'s axis that explains its logit scale."""


def caught_axis_limits(low, high) -> tuple[float, float]:
    """y-limits of :func:`plot_caught`'s logit axis for intervals ``low``..``high`` (caught
    shares, any shape): the data's range widened by a quarter of a logit unit each side (at
    least to the nearest 10/90% ticks, so a short range is still readable), clipped to
    ``[0.0001, 0.9999]``. Raises ``ValueError`` when no value is finite."""
    lo = np.asarray(low, dtype=float).ravel()
    hi = np.asarray(high, dtype=float).ravel()
    lo, hi = lo[np.isfinite(lo)], hi[np.isfinite(hi)]
    if not len(lo) or not len(hi):
        raise ValueError("no finite caught share to plot")
    eps = 1e-4

    def logit(p):
        p = np.clip(p, eps, 1 - eps)
        return np.log(p / (1 - p))

    a = min(logit(lo.min()) - 0.25, logit(0.9))
    b = max(logit(hi.max()) + 0.25, logit(0.1))
    return float(np.clip(1 / (1 + np.exp(-a)), eps, 1 - eps)), \
        float(np.clip(1 / (1 + np.exp(-b)), eps, 1 - eps))


def plot_caught(sim: pd.DataFrame, path=None, agents: str = ""):
    """Caught share per card and player count with 95% Wilson intervals: a dot per player
    count (no bars, as the axis has no 0) on a logit axis, which stretches the shares near
    100% so that cards caught in 99.5% and in 97% of games stand apart (on a 0-1 axis 28 of
    the 30 base cards look equal); the axis says so in a note. Limits from
    :func:`caught_axis_limits`; the legend sits outside the axes. PNG to ``path`` when given;
    returns the Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = list(dict.fromkeys(sim["id"]))
    players = sorted(sim["players"].unique())
    fig, ax = plt.subplots(figsize=(max(9.0, len(ids) * 0.32 + 2.0), 5.2))
    w = 0.8 / len(players)
    eps = 1e-4
    for j, n in enumerate(players):
        s = sim[sim["players"] == n].set_index("id").reindex(ids)
        x = np.arange(len(ids)) + (j - (len(players) - 1) / 2) * w
        rate = s["caught_rate"].to_numpy(float).clip(eps, 1 - eps)
        low = s["caught_low"].to_numpy(float).clip(eps, 1 - eps)
        high = s["caught_high"].to_numpy(float).clip(eps, 1 - eps)
        ax.errorbar(x, rate, yerr=[np.clip(rate - low, 0, None), np.clip(high - rate, 0, None)],
                    fmt="o", ms=3.5, lw=0.8, capsize=0, label=f"{n} players")
    for k in range(0, len(ids), 2):  # shade every other card so each column reads as one
        ax.axvspan(k - 0.5, k + 0.5, color="0.94", zorder=0, lw=0)
    ax.set_yscale("logit")
    lo, hi = caught_axis_limits(sim["caught_low"], sim["caught_high"])
    ax.set_ylim(lo, hi)
    ticks = [t for t in CAUGHT_TICKS if lo <= t <= hi]
    ax.set_yticks(ticks, [f"{100 * t:g}%" for t in ticks])
    ax.minorticks_off()
    ax.set_xticks(np.arange(len(ids)))
    ax.set_xticklabels(ids, rotation=90, fontsize=8)
    ax.set_xlim(-0.5, len(ids) - 0.5)
    ax.set_ylabel("share of the games with the card in play\nin which it is caught "
                  "(logit scale)")
    ax.grid(axis="y", alpha=0.3)
    names = [a.strip() for a in agents.split(",") if a.strip()]
    who = (f" ({names[0]} in every seat)" if len(names) == 1 else
           f" (agents {', '.join(names)} cycled over the seats)" if names else "")
    ax.set_title(f"How often is each fish caught?{who}\nShare of games, by player count, with "
                 f"95% Wilson intervals", fontsize=11)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    ax.text(1.005, 0.0, CAUGHT_SCALE_NOTE, transform=ax.transAxes, fontsize=7.5, color="0.3",
            ha="left", va="bottom", wrap=False)
    fig.tight_layout()
    save_figure(fig, path)
    if path is not None:
        plt.close(fig)
    return fig
