"""The pictures of ``boardlab tune``: the objective of every trial with the running best
(``objective.png``) and the parameters' PED-ANOVA importances (``importances.png``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.tournament.games import get_adapter

__all__ = ["plot_objective", "plot_importances"]


def _field_text(settings) -> str:
    labels = [f["label"] for f in settings["field"]]
    return ", ".join(labels) if labels else "the team alone"


def plot_objective(res, settings, path: Path) -> None:
    """Draw ``objective.png`` at ``path``: each trial's objective (on the tuning deals) in the
    order played, the start and the running best. ``res``: the study's
    :class:`~experiments.tournament.tuning.result.TuneResult`; ``settings``: the study's."""
    from matplotlib.figure import Figure

    ad = get_adapter(res.game)
    df = res.trials
    fig = Figure(figsize=(8.5, 4.8))
    ax = fig.subplots()
    sampled = df[df.role != "start"]
    ax.scatter(sampled.number, sampled.objective, s=18, color="#4c72b0", alpha=0.75,
               label="trial")
    st = df[df.role == "start"]
    ax.scatter(st.number, st.objective, s=60, marker="D", color="#dd8452", zorder=3,
               label=f"start ({res.start_objective:.4f})")
    ax.step(df.number, df.best_so_far, where="post", color="#c44e52", lw=1.8,
            label=f"running best ({res.best_objective:.4f})")
    if np.isfinite(res.start_objective):
        ax.axhline(res.start_objective, color="grey", ls=":", lw=1)
    what = "team win rate" if ad.cooperative else "mean win share per game"
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trial (in the order played)")
    ax.set_ylabel(f"{what}\n(same {settings['n_deals']} deals for every trial)")
    vs = "" if ad.cooperative else f" against {_field_text(settings)}"
    ax.set_title(f"Does tuning raise {ad.title} {res.base}'s {what}{vs}?\n"
                 f"{res.n_players} players, {settings['sampler']} sampler, seed "
                 f"{settings['seed']}; the best is picked on these deals (optimistic): see the "
                 f"fresh-deal check", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def plot_importances(res, imp_df: pd.DataFrame, path: Path) -> None:
    """Draw ``importances.png`` at ``path``: the PED-ANOVA importance of each tuned parameter
    (``imp_df``: columns ``parameter``, ``importance``, as ``importances.csv``)."""
    from matplotlib.figure import Figure

    df = imp_df.iloc[::-1]
    fig = Figure(figsize=(7.5, 0.38 * len(df) + 1.9))
    ax = fig.subplots()
    vals = df.importance.fillna(0.0).to_numpy()
    ax.barh(np.arange(len(df)), vals, color="#55a868")
    ax.set_yticks(np.arange(len(df)), df.parameter)
    ax.set_xlabel("importance (share of the total)")
    note = "" if res.importances else "\n(too few trials to estimate: all shown as 0)"
    ax.set_title(f"Which parameters mattered for reaching the best trials?\n"
                 f"PED-ANOVA importance over {res.n_trials} trials of {res.name}{note}",
                 fontsize=10)
    ax.set_xlim(0, max(1.0, float(vals.max()) if len(vals) else 1.0))
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
