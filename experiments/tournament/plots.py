"""Plots of a tournament (:class:`experiments.tournament.TournamentResult`): per-agent win rates
and ratings with their uncertainty, and the pairwise matrix with intervals in each cell."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

__all__ = ["plot_agents", "plot_matrix", "RATING_INTERVAL", "MATRIX_COLORBAR_LABEL",
           "SAME_AGENT_LABEL", "TEAM_COLORBAR_LABEL"]

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


def plot_agents(result):
    """Two panels: win rate with its 95% interval per agent (bars), and the openskill rating
    ``mu +- sigma`` (if ratings were computed): error bars of one sigma, the interval of the
    ``rating mu +- sigma`` column that :meth:`TournamentResult.summary` prints
    (:data:`RATING_INTERVAL`). Returns the matplotlib Figure."""
    df = result.agents.sort_values("win_rate")
    has_rating = "mu" in df.columns
    fig, axes = plt.subplots(1, 2 if has_rating else 1, figsize=(11 if has_rating else 6,
                                                                  0.45 * len(df) + 1.6))
    axes = np.atleast_1d(axes)
    y = np.arange(len(df))
    err = np.vstack([df.win_rate - df.win_low, df.win_high - df.win_rate])
    axes[0].barh(y, df.win_rate, xerr=err, color="#4c72b0", capsize=3)
    axes[0].set_yticks(y, df.index)
    ad = result.tournament.adapter
    axes[0].set_xlabel("team win rate" if ad.cooperative else "win rate (share of wins per game)")
    if not ad.cooperative:
        axes[0].axvline(1 / result.tournament.n_players, color="grey", ls=":", lw=1,
                        label=f"equal share (1/{result.tournament.n_players})")
        axes[0].legend(loc="lower right", fontsize=8)
    axes[0].set_title("win rate, 95% interval")
    if has_rating:
        axes[1].errorbar(df.mu, y, xerr=df.sigma, fmt="o", color="#dd8452", capsize=3)
        axes[1].set_yticks(y, [""] * len(df))
        axes[1].set_xlabel(f"openskill rating: {RATING_INTERVAL} (as in the printed table)")
        axes[1].set_title(f"Plackett-Luce rating, {RATING_INTERVAL}")
    fig.suptitle(f"Which agent wins most? {ad.title}, {result.tournament.n_players} players, "
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
