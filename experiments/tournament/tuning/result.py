"""What a ``boardlab tune`` study leaves: the names of its files, its
:class:`TuneResult`, and the JSON of the tuned agent."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.io import code_version
from experiments.optuna_study import N_STARTUP
from experiments.tournament.games import get_adapter
from experiments.tournament.tuning.space import Param

__all__ = ["SAMPLERS", "CMA_SIGMA0", "AGENT_FILE", "OUTPUTS", "STUDY_FILE", "TRIAL_RUN_DIR",
           "N_STARTUP", "TuneResult", "importances_note", "agent_data"]

SAMPLERS = ("tpe", "cmaes", "random")
"""Optimizers of :func:`tune` (optuna's TPESampler, CmaEsSampler, RandomSampler)."""


CMA_SIGMA0 = 0.05
"""CMA-ES's initial step, as a share of each parameter's range (optuna's default, 1/6, jumps far
out of the narrow good region around a tuned vector)."""


AGENT_FILE = "agent.json"
"""The best vector as a tuned agent inside the output folder (saved or not)."""


OUTPUTS = ("trials.csv", "objective.png", "importances.csv", "importances.png", AGENT_FILE,
           "check", "validation")
"""What :func:`tune` writes in its output folder besides ``study.journal`` and ``meta.json``
(a study journal without ``meta.json`` is a killed study, which a re-run continues)."""


STUDY_FILE = "study.journal"
"""The optuna journal of the study inside the output folder."""


TRIAL_RUN_DIR = "trial_run"
"""Runner state of the trial under evaluation (a killed trial resumes its batches)."""


@dataclass
class TuneResult:
    """Outcome of :func:`tune`.

    ``name`` (saved agent), ``game``, ``base`` (policy), ``n_players``; ``start`` and ``best``
    (full ``float64`` parameter vectors); ``space`` (the :class:`Param` tuned);
    ``start_objective``, ``best_objective`` and ``best_se`` (mean win share per game on the
    tuning deals, standard error); ``n_trials`` (complete trials in the study),
    ``resumed_trials`` (complete trials found on disk at the start); ``trials`` (DataFrame, as
    ``trials.csv``); ``importances`` (``{param: share}``, empty if not computable);
    ``out_dir``, ``path`` (saved agent JSON), ``files`` (output paths by kind);
    ``validation`` (the :class:`experiments.tournament.TournamentResult` on fresh deals, or
    ``None``) and ``gain`` (dict: the tuned vector minus the start on those deals: ``win_diff``
    per game with ``low``/``high`` 95% bounds, ``p_t`` two-sided paired t-test, ``p_holm``,
    ``p_sign``, ``verdict``, both win rates, ``deals``); ``wall_time_s`` (this call);
    ``saved`` (the agent was copied to the store, ``path``), ``save_note`` (why or why not);
    ``importances_note`` (why ``importances.png`` was not drawn, or ``""``);
    ``answered_from`` (the folder of a finished study this result was read from, or ``""``)."""

    name: str
    game: str
    base: str
    n_players: int
    start: np.ndarray
    best: np.ndarray
    space: list[Param]
    start_objective: float
    best_objective: float
    best_se: float
    n_trials: int
    resumed_trials: int
    trials: pd.DataFrame
    importances: dict = field(default_factory=dict)
    out_dir: str = ""
    path: str = ""
    files: dict = field(default_factory=dict)
    validation: object | None = None
    gain: dict | None = None
    wall_time_s: float = 0.0
    saved: bool = False
    save_note: str = ""
    importances_note: str = ""
    answered_from: str = ""

    @property
    def evaluations(self) -> int:
        """Candidates played (= complete trials)."""
        return self.n_trials

    def summary(self) -> str:
        """Readable lines for the terminal: objective, changed parameters, the fresh check."""
        ad = get_adapter(self.game)
        what = "team win rate" if ad.cooperative else "mean win share per game"
        lines = [f"{ad.title} {self.base} -> {self.name!r}: {what} on the tuning deals "
                 f"{self.start_objective:.4f} (start) -> {self.best_objective:.4f} "
                 f"(+- {self.best_se:.4f} s.e.) after {self.n_trials} trials"
                 + (f" ({self.resumed_trials} resumed)" if self.resumed_trials else "")]
        for p in self.space:
            a, b = self.start[p.index], self.best[p.index]
            mark = "" if a == b else "  *"
            lines.append(f"  {p.name:<24} {a:10.4g} -> {b:10.4g}   "
                         f"[{p.low:g}, {p.high:g}]{' int' if p.integer else ''}{mark}")
        if self.importances_note:
            lines.append(f"importance: {self.importances_note}")
        elif self.importances:
            top = ", ".join(f"{k} {v:.2f}" for k, v in list(self.importances.items())[:4])
            lines.append(f"importance (PED-ANOVA): {top}")
        g = self.gain
        if g is not None:
            lines.append(
                f"check on {g['deals']} fresh deals (seed {g['seed']}), the same objective: "
                f"start {g['objective_start']:.4f}, tuned {g['objective_tuned']:.4f}, gain "
                f"{g['win_diff']:+.4f} [{g['low']:+.4f}, {g['high']:+.4f}] (95%); "
                f"paired t-test p = {g['p_t']:.3g}, sign test p = {g['p_sign']:.3g}: "
                f"{g['verdict']}")
            t = g.get("tournament")
            if t:
                lines.append(
                    f"round robin with the field ({', '.join(t['agents'])}): win rate tuned "
                    f"{t['tuned_win_rate']:.4f} vs start {t['start_win_rate']:.4f}, gain "
                    f"{t['win_diff']:+.4f} per game [{t['low']:+.4f}, {t['high']:+.4f}]; "
                    f"p = {t['p_t']:.3g} (Holm over the pairs {t['p_holm']:.3g}): "
                    f"{t['verdict']}")
        return "\n".join(lines)


def importances_note(res: TuneResult) -> str:
    """Why the importance picture is not drawn (``""``: it is): no trial beat the start (the
    importances would rank parameters by how much they *lose*), or too few trials."""
    if not res.best_objective > res.start_objective:
        return (f"not drawn: no trial beat the start ({res.start_objective:.4f}) in "
                f"{res.n_trials} trials, so no parameter is shown to help")
    if not res.importances:
        return f"not drawn: {res.n_trials} trials are too few to estimate it"
    return ""


def agent_data(ad, res: TuneResult, settings: dict, key: str, out: Path,
                best_trial: int | None = None) -> dict:
    """The JSON of a tuned agent (``out/agent.json`` and the store's copy): its vector, the
    study that found it (``settings``, their hash ``key``, the folder ``out``) and its check."""
    x0 = res.start
    names = list(ad.param_names_for(res.base))
    if len(names) != x0.size:
        names = [f"param_{i}" for i in range(x0.size)]
    return {
        "kind": "boardlab.tuned_agent", "game": ad.name, "name": res.name, "base": res.base,
        "params": res.best.tolist(), "param_names": names, "start_params": x0.tolist(),
        "tuned_params": [p.name for p in res.space],
        "space": [p.to_dict() for p in res.space],
        "objective": res.best_objective, "objective_se": res.best_se,
        "start_objective": res.start_objective,
        "objective_kind": "team win rate" if ad.cooperative else "mean win share per game",
        "field": settings.get("field"), "n_players": res.n_players,
        "deals_per_trial": settings.get("n_deals"), "trials": res.n_trials,
        "best_trial": best_trial, "sampler": settings.get("sampler"),
        "seed": settings.get("seed"), "options": settings.get("options"),
        "study_dir": str(out.resolve()), "study_key": key, "validation": res.gain,
        "code_version": code_version()}
