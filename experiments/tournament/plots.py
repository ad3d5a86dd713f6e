"""Plots of a tournament (:class:`experiments.tournament.TournamentResult`): per-agent win rates
and ratings with their uncertainty, and the pairwise matrix with intervals in each cell; and
the strength-against-speed picture of every agent (:func:`plot_strength_speed`, from the
benchmark table of ``benchmarks/strength_speed.py``)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from engines.names import GAME_TITLES

__all__ = ["plot_agents", "plot_matrix", "plot_strength_speed", "place_labels",
           "RATING_INTERVAL", "MATRIX_COLORBAR_LABEL", "SAME_AGENT_LABEL",
           "TEAM_COLORBAR_LABEL", "SPEED_AXIS_LABEL"]

RATING_INTERVAL = "mu +- sigma"
"""The rating interval drawn by :func:`plot_agents`: one sigma either side of mu, the same
interval as the ``rating mu +- sigma`` column of
:meth:`experiments.tournament.run.TournamentResult.summary`."""
MATRIX_COLORBAR_LABEL = "share finished ahead (ties half)"
"""Colour bar label of :func:`plot_matrix` (a cooperative game: :data:`TEAM_COLORBAR_LABEL`)."""
TEAM_COLORBAR_LABEL = "share of deals won, other lost (ties half)"
"""Colour bar label of :func:`plot_matrix` for a cooperative game (team against team)."""
SAME_AGENT_LABEL = "—\nsame agent"
"""Text in the blank diagonal cells of :func:`plot_matrix`."""
SPEED_AXIS_LABEL = "games per second on one core, the bot in every seat (log scale)"
"""x axis of :func:`plot_strength_speed`."""


def plot_agents(result):
    """Per agent, best at the top: the measure the tournament ranks by (the game's utility,
    :data:`experiments.tournament.games.RANKED_BY`) with its 95% interval (bars); for a game
    ranked by chips or points, the win rate beside it; and the openskill rating
    ``mu +- sigma`` (if ratings were computed): error bars of one sigma, the interval of the
    ``rating mu +- sigma`` column that :meth:`TournamentResult.summary` prints
    (:data:`RATING_INTERVAL`). Returns the matplotlib Figure."""
    df = result.agents.sort_values(["rank", "win_rate"], ascending=[False, True])
    ad = result.tournament.adapter
    by_score = ad.ranked_by == "score"
    has_rating = "mu" in df.columns
    n_panels = 1 + by_score + has_rating
    fig, axes = plt.subplots(1, n_panels, figsize=(5.5 * n_panels, 0.45 * len(df) + 1.8))
    axes = list(np.atleast_1d(axes))
    y = np.arange(len(df))
    panels = [("score", "score_low", "score_high")] if by_score else []
    panels.append(("win_rate", "win_low", "win_high"))
    unit = "match" if result.tournament.deal_games() > 1 else "game"
    for ax, (col, low, high) in zip(axes, panels, strict=False):
        err = np.vstack([df[col] - df[low], df[high] - df[col]])
        ax.barh(y, df[col], xerr=err, color="#4c72b0" if col == panels[0][0] else "#8da0cb",
                capsize=3)
        ax.set_yticks(y, df.index if ax is axes[0] else [""] * len(df))
        if col == "score":
            ax.axvline(0, color="grey", lw=0.8)
            ax.set_xlabel(f"{ad.score_name} per {unit} (the game's utility)")
            ax.set_title(f"{ad.score_name}, 95% interval: ranks the agents")
            continue
        ax.set_xlabel("team win rate" if ad.cooperative else "win rate (share of wins per game)")
        if not ad.cooperative:
            ax.axvline(1 / result.tournament.n_players, color="grey", ls=":", lw=1,
                       label=f"equal share (1/{result.tournament.n_players})")
            ax.legend(loc="lower right", fontsize=8)
        ax.set_title("win rate, 95% interval" + ("" if by_score else ": ranks the agents"))
    if has_rating:
        ax = axes[-1]
        ax.errorbar(df.mu, y, xerr=df.sigma, fmt="o", color="#dd8452", capsize=3)
        ax.set_yticks(y, [""] * len(df))
        ax.set_xlabel(f"openskill rating: {RATING_INTERVAL} (as in the printed table)")
        order = (f"order of {ad.score_name} per deal and table" if by_score
                 else "finishing order")
        ax.set_title(f"Plackett-Luce rating ({order}), {RATING_INTERVAL}", fontsize=10)
    question = (f"Which agent wins the most {ad.score_name}?" if by_score
                else "Which agent wins most?")
    fig.suptitle(f"{question} {ad.title}, {result.tournament.n_players} players, "
                 f"{result.meta['deals']:,} deals ({result.meta['games_played']:,} games)")
    fig.tight_layout()
    return fig


def plot_matrix(result):
    """Heatmap: row agent finishes ahead of column agent in this share of their meetings (ties
    half), with the 95% interval in each cell; a star marks a share that differs from 1/2
    (t-test over deals, Holm-adjusted 5%: ``p_ahead_holm``), so star, colour and interval always
    speak of the same quantity. The "better/worse" verdicts on win share are in the tables.
    Text is white on dark cells; the diagonal says "same agent" (:data:`SAME_AGENT_LABEL`) and
    the colour bar names the share (:data:`MATRIX_COLORBAR_LABEL`).
    Returns the matplotlib Figure."""
    m = result.matrix("ahead")
    lo = result.matrix("ahead_low")
    hi = result.matrix("ahead_high")
    p_star = result.matrix("p_ahead_holm")
    k = len(m)
    fig, ax = plt.subplots(figsize=(1.3 * k + 2.5, 1.0 * k + 1.8))
    im = ax.imshow(m.to_numpy(dtype=float), cmap="RdBu", vmin=0, vmax=1)
    for i in range(k):
        for j in range(k):
            if i == j:
                ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85",
                                           edgecolor="none", zorder=0.5))
                ax.text(j, i, SAME_AGENT_LABEL, ha="center", va="center", fontsize=8,
                        color="0.25", style="italic")
                continue
            v = float(m.iat[i, j])
            star = "*" if float(p_star.iat[i, j]) < 0.05 else ""
            ax.text(j, i, f"{v:.3f}{star}\n[{lo.iat[i, j]:.3f}, {hi.iat[i, j]:.3f}]",
                    ha="center", va="center", fontsize=8,
                    color="white" if abs(v - 0.5) > 0.3 else "black")
    ax.set_xticks(range(k), m.columns, rotation=30, ha="right")
    ax.set_yticks(range(k), m.index)
    ax.set_xlabel("opponent")
    ax.set_ylabel("agent")
    ad = result.tournament.adapter
    what = "deals won where the other team lost (ties half)" if ad.cooperative else \
        "meetings finished ahead (ties half)"
    ax.set_title(f"{ad.title}: how often does the row agent beat the column agent?\n"
                 f"share of {what}; * = differs from 0.5 (t-test over deals, Holm 5%)",
                 fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8,
                 label=TEAM_COLORBAR_LABEL if ad.cooperative else MATRIX_COLORBAR_LABEL)
    fig.tight_layout()
    return fig


def plot_strength_speed(table, games=None, ncols: int = 1, panel_size=(9.0, 4.6)):
    """Strength against speed of every agent, one panel per game: games per second of one core
    with the agent in every seat on a log x axis (``all_seats_games_per_s``), its mean paired
    gain over ``heuristic`` on the same deals on the y axis (``gain``) with the 95% interval
    as a bar (``gain_low``..``gain_high``), each point labelled with the agent's name where no
    other label, point or bar is (:func:`place_labels`); search agents in another colour; a
    dashed line at ``heuristic``'s level (0).

    Args:
        table: pandas DataFrame of ``benchmarks/strength_speed.py``'s CSV (columns ``game``,
            ``players``, ``agent``, ``search``, ``deals``, ``unit``, ``gain``, ``gain_low``,
            ``gain_high``, ``all_seats_games_per_s``).
        games: games to draw, in panel order (default: those of the table, in its order).
        ncols: panels per row.
        panel_size: (width, height) of one panel in inches.

    Returns the matplotlib Figure (its axes in ``fig.axes``; the label texts of each panel in
    ``ax.strength_speed_labels``). Raises ``ValueError`` for a game missing from the table.
    """
    games = list(dict.fromkeys(table["game"])) if games is None else list(games)
    missing = [g for g in games if g not in set(table["game"])]
    if missing:
        raise ValueError(f"games {missing} are not in the table: it has "
                         f"{sorted(set(table['game']))}")
    nrows = -(-len(games) // ncols)
    fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                             figsize=(panel_size[0] * ncols, panel_size[1] * nrows))
    used = []
    for ax, game in zip(axes.ravel(), games, strict=False):
        d = table[table["game"] == game].sort_values("all_seats_games_per_s")
        used.append((ax, d))
        for search, colour, name in ((False, "#4c72b0", "no search"),
                                     (True, "#dd8452", "search agent")):
            e = d[d["search"].astype(bool) == search]
            if len(e):
                ax.errorbar(e["all_seats_games_per_s"], e["gain"],
                            yerr=[e["gain"] - e["gain_low"], e["gain_high"] - e["gain"]],
                            ls="none", marker="o", ms=6, capsize=3, color=colour, label=name,
                            zorder=3)
        ax.axhline(0.0, color="grey", ls="--", lw=1, zorder=1)
        ax.set_xscale("log")
        lo, hi = d["all_seats_games_per_s"].min(), d["all_seats_games_per_s"].max()
        ax.set_xlim(lo / 4, hi * 4)
        ylo, yhi = d["gain_low"].min(), d["gain_high"].max()
        pad = 0.12 * (yhi - ylo)
        ax.set_ylim(ylo - pad, yhi + pad)
        unit = d["unit"].iloc[0]
        deals = sorted(set(int(x) for x in d["deals"]))
        ax.set_ylabel(f"gain over heuristic\n({unit}, 95% interval)")
        ax.set_xlabel(SPEED_AXIS_LABEL)
        title = GAME_TITLES.get(game, game)
        ax.set_title(f"{title}, {int(d['players'].iloc[0])} players: which bot for which "
                     f"budget? Strength against speed\n(paired on the same deals: "
                     f"{' or '.join(f'{k:,}' for k in deals)} deals per bot)", fontsize=10)
        ax.grid(alpha=0.3, lw=0.5)
        ax.legend(loc="lower left", fontsize=8, framealpha=0.9)
    for ax in axes.ravel()[len(games):]:
        ax.set_visible(False)
    fig.tight_layout()
    for ax, d in used:
        ax.strength_speed_labels = place_labels(
            ax, d["all_seats_games_per_s"].to_numpy(float), d["gain"].to_numpy(float),
            list(d["agent"]), d["gain_low"].to_numpy(float), d["gain_high"].to_numpy(float),
            hlines=(0.0,))
    return fig


_OFFSETS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)]


def _segment_boxes(p, box, half: float, step: float = 5.0):
    """Small squares (half width ``half``, display units) every ``step`` along the segment
    from point ``p`` to the nearest point of ``box``, leaving out its first 4 units."""
    qx, qy = min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3])
    length = float(np.hypot(qx - p[0], qy - p[1]))
    out = []
    for d in np.arange(4.0, length, step):
        x, y = p[0] + (qx - p[0]) * d / length, p[1] + (qy - p[1]) * d / length
        out.append((x - half, y - half, x + half, y + half))
    return out


def _crossings(p, box, boxes, skip: float = 6.0, step: float = 2.0) -> int:
    """How many of ``boxes`` (display x0, y0, x1, y1) the segment from point ``p`` to the
    nearest point of ``box`` passes through, sampled every ``step`` display units from
    ``skip`` units away from ``p`` (past the point's own marker)."""
    qx, qy = min(max(p[0], box[0]), box[2]), min(max(p[1], box[1]), box[3])
    length = float(np.hypot(qx - p[0], qy - p[1]))
    hit = set()
    for d in np.arange(skip, length, step):
        x, y = p[0] + (qx - p[0]) * d / length, p[1] + (qy - p[1]) * d / length
        for k, b in enumerate(boxes):
            if b[0] <= x <= b[2] and b[1] <= y <= b[3]:
                hit.add(k)
    return len(hit)


def place_labels(ax, x, y, labels, low=None, high=None, fontsize: float = 9,
                 distances=(6, 12, 20, 30, 42), hlines=()):
    """Label the points ``(x[i], y[i])`` (data coordinates, 1-D float arrays) of ``ax`` with
    ``labels[i]`` where the text overlaps no other label, no point, no interval bar
    (``low[i]``..``high[i]``, optional) and no horizontal reference line (``hlines``: y values)
    and stays inside the axes: for each label, the most
    crowded first, the first free spot of eight directions at growing ``distances`` (points);
    a label placed further than the first distance gets a thin leader line; where no spot is
    free the least overlapping one is taken. Place labels after the figure's layout is final
    (``tight_layout``): the layout moves the points, not the text sizes. Returns the list of
    matplotlib ``Annotation`` objects, in the order of ``labels``."""
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([x, y]))
    px = fig.dpi / 72.0
    obstacles = [(px_ - 4 * px, py_ - 4 * px, px_ + 4 * px, py_ + 4 * px) for px_, py_ in pts]
    if low is not None and high is not None:
        lo_d = ax.transData.transform(np.column_stack([x, low]))
        hi_d = ax.transData.transform(np.column_stack([x, high]))
        for (bx, by0), (_, by1) in zip(lo_d, hi_d, strict=True):
            obstacles.append((bx - 3.5 * px, min(by0, by1) - 1, bx + 3.5 * px,
                              max(by0, by1) + 1))
    frame = ax.get_window_extent(renderer)
    for h in hlines:
        hy = ax.transData.transform((x[0], h))[1]
        obstacles.append((frame.x0, hy - 1.5 * px, frame.x1, hy + 1.5 * px))
    legend = ax.get_legend()
    if legend is not None:
        lb = legend.get_window_extent(renderer)
        obstacles.append((lb.x0, lb.y0, lb.x1, lb.y1))
    frame = ax.get_window_extent(renderer)
    near = [int(np.sum(np.hypot(*(pts - p).T) < 60 * px)) for p in pts]
    placed: list[tuple[float, float, float, float]] = []
    leaders: list[tuple[float, float, float, float]] = []  # small boxes along leader lines
    texts: dict[int, object] = {}

    def overlap(a, b):
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return w * h if w > 0 and h > 0 else 0.0

    for i in sorted(range(len(labels)), key=lambda j: (-near[j], j)):
        best = None
        for dist in distances:
            for dx, dy in _OFFSETS:
                ha = "left" if dx > 0 else "right" if dx < 0 else "center"
                va = "bottom" if dy > 0 else "top" if dy < 0 else "center"
                t = ax.annotate(labels[i], (x[i], y[i]), xytext=(dx * dist, dy * dist),
                                textcoords="offset points", ha=ha, va=va, fontsize=fontsize,
                                zorder=4)
                bb = t.get_window_extent(renderer)
                box = (bb.x0 - 1, bb.y0 - 1, bb.x1 + 1, bb.y1 + 1)
                out = (max(frame.x0 - box[0], 0) + max(box[2] - frame.x1, 0)
                       + max(frame.y0 - box[1], 0) + max(box[3] - frame.y1, 0)) * 1e3
                cost = out + sum(overlap(box, o) for o in placed) * 10 + sum(
                    overlap(box, o) for o in obstacles + leaders)
                if dist > distances[0]:  # the leader line must not cross bars or labels
                    cost += 50 * _crossings(pts[i], box, [o for j, o in enumerate(obstacles)
                                                          if j != i] + placed + leaders,
                                            skip=6 * px)
                if best is None or cost < best[0]:
                    if best is not None:
                        best[1].remove()
                    best = (cost, t, box, dist)
                else:
                    t.remove()
                if cost == 0:
                    break
            if best[0] == 0:
                break
        cost, t, box, dist = best
        if dist > distances[0]:
            leaders.extend(_segment_boxes(pts[i], box, 2 * px))
            t.remove()
            t = ax.annotate(labels[i], (x[i], y[i]), xytext=t.get_position(),
                            textcoords="offset points", ha=t.get_ha(), va=t.get_va(),
                            fontsize=fontsize, zorder=4,
                            arrowprops=dict(arrowstyle="-", color="0.5", lw=0.6,
                                            shrinkA=0, shrinkB=4))
        placed.append(box)
        texts[i] = t
    return [texts[i] for i in range(len(labels))]
