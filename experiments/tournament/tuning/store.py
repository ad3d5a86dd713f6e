"""The output folder and the agent store of ``boardlab tune``: the folder rule
(:func:`claim_tuning_folder`: answer from a finished study of the same settings, refuse other
results), reading a finished study back (:func:`read_finished_study`), saving the tuned agent
in the store (:func:`save_or_explain`, :func:`install_agent`) and ``meta.json``
(:func:`write_meta`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.io import code_version, machine_info, read_json, write_json
from experiments.optuna_study import N_STARTUP
from experiments.outputs import claim_folder, legacy_tuning_settings, same_settings, settings_diff
from experiments.tournament.games import get_adapter
from experiments.tournament.tuning.job import TuneJob
from experiments.tournament.tuning.result import (
    AGENT_FILE,
    CMA_SIGMA0,
    OUTPUTS,
    STUDY_FILE,
    TuneResult,
    agent_data,
    importances_note,
)
from experiments.tournament.tuning.space import Param

__all__ = ["claim_tuning_folder", "read_finished_study", "check_agent_file", "install_agent",
           "save_or_explain", "write_meta"]


def claim_tuning_folder(out: Path, claim_settings: dict, overwrite: bool) -> dict | None:
    """The folder rule (:func:`experiments.outputs.claim_folder`): the ``meta.json`` of a
    finished study of the same settings, or ``None`` to run. Raises a one-line ``ValueError``
    for a folder holding other results."""
    meta_path = out / "meta.json"
    if not overwrite and meta_path.is_file():
        try:
            meta = read_json(meta_path)
        except (ValueError, OSError):
            meta = None
        legacy = legacy_tuning_settings(meta) if isinstance(meta, dict) else None
        if legacy is not None:
            if same_settings(legacy, claim_settings):
                return meta
            raise ValueError(f"{out} holds a finished tune study with other settings "
                             f"({settings_diff(legacy, claim_settings)}): choose another --out "
                             f"or --name, or add --force to replace it")
    if not overwrite and not meta_path.exists() and (out / STUDY_FILE).is_file():
        return None  # a study killed before it finished: its journal's settings decide
    claim = claim_folder(out, experiment="tune", settings=claim_settings, outputs=OUTPUTS,
                         force=overwrite, meta_name="meta.json")
    return claim.meta if claim.finished else None


def read_finished_study(ad, out: Path, meta: dict) -> TuneResult:
    """The :class:`TuneResult` of the finished study in ``out`` (its ``meta.json`` and
    ``trials.csv``), read without writing anything."""
    st = meta["settings"]
    space = [Param(**p) for p in meta["space"]]
    trials_path = out / "trials.csv"
    trials = pd.read_csv(trials_path) if trials_path.is_file() else pd.DataFrame()
    res = TuneResult(
        name=meta["name"], game=ad.name, base=st["base"], n_players=int(st["n_players"]),
        start=np.asarray(meta["start_params"], float), best=np.asarray(meta["best_params"], float),
        space=space, start_objective=float(meta["start_objective"]),
        best_objective=float(meta["best_objective"]),
        best_se=float(meta.get("best_objective_se") or np.nan),
        n_trials=int(meta["trials_complete"]), resumed_trials=int(meta.get("resumed_trials", 0)),
        trials=trials, importances=dict(meta.get("importances") or {}), out_dir=str(out),
        path=str(meta.get("agent_file") or "") if meta.get("saved", True) else "",
        files=dict(meta.get("files") or {}), gain=meta.get("validation"),
        saved=bool(meta.get("saved", bool(meta.get("agent_file")))),
        save_note=str(meta.get("save_note", "")),
        importances_note=str(meta.get("importances_note", "")), answered_from=str(out))
    if "importances_note" not in meta:  # written before the note existed
        res.importances_note = importances_note(res)
    return res


def check_agent_file(agent_path: Path, name: str, key: str, out: Path) -> None:
    """Raise a one-line ``ValueError`` when ``agent_path`` holds agent ``name`` of another
    tuning run: neither this study's ``key`` nor its folder ``out`` (an agent of the same study
    folder passes: the study's own settings check names any difference)."""
    if not agent_path.exists():
        return
    try:
        saved = read_json(agent_path)
    except ValueError:
        saved = {}
    if saved.get("study_key") != key and saved.get("study_dir") not in (str(out),
                                                                       str(out.resolve())):
        raise ValueError(f"{agent_path} holds agent {name!r} from another tuning run: choose "
                         f"another --name, or --force to replace it")


def install_agent(res: TuneResult, ad, agent_path: Path, key: str, out: Path, overwrite: bool,
                  note: str) -> None:
    """Copy the study's agent (``out/agent.json``, or the result's best vector) to the store
    as ``agent_path``. Raises ``ValueError`` if an agent of another study is there and not
    ``overwrite``."""
    if not overwrite:
        check_agent_file(agent_path, res.name, key, out)
    src = out / AGENT_FILE
    data = read_json(src) if src.is_file() else agent_data(ad, res, {}, key, out)
    data["study_dir"] = str(out.resolve())
    data["saved_because"] = note
    agent_path.parent.mkdir(parents=True, exist_ok=True)
    write_json(agent_path, data)
    res.saved, res.path, res.save_note = True, str(agent_path), note


def save_or_explain(result: TuneResult, job: TuneJob, overwrite: bool,
                     save_anyway: bool) -> None:
    """Save the tuned agent in the store when its gain on fresh deals is significant (or with
    ``save_anyway``); otherwise set ``result.save_note`` to why not."""
    g = result.gain
    if g is not None and g["verdict"] == "better":
        install_agent(result, job.ad, job.agent_path, job.key, job.out, overwrite,
                      f"gain on {g['deals']} fresh deals significant (p = {_p_of(g):.3g})")
    elif save_anyway:
        install_agent(result, job.ad, job.agent_path, job.key, job.out, overwrite,
                      "saved with --save-anyway")
    elif g is None:
        result.save_note = ("not saved: no check on fresh deals (--validate 0); add "
                            "--save-anyway to save it")
    else:
        result.save_note = (f"not saved: gain on {g['deals']} fresh deals {g['win_diff']:+.4f}"
                            f", p = {_p_of(g):.3g} ({g['verdict']}); add --save-anyway to "
                            f"save it")


def _p_of(gain: dict) -> float:
    """The p-value the verdict of a fresh-deal check was taken from."""
    return gain["p_sign"] if gain.get("test", "").startswith("McNemar") else gain["p_t"]


def write_meta(res: TuneResult, settings, key, sampler, n_trials, validate_deals,
                out) -> None:
    """``out/meta.json``: the claim ``settings`` (what the folder rule compares), the study,
    its best, importances, the fresh-deal check and where the agent was saved."""
    import optuna

    ad = get_adapter(res.game)
    meta = {
        "kind": "boardlab.tuning", "game": res.game, "title": ad.title, "name": res.name,
        "settings": settings, "study_key": key, "n_trials_requested": n_trials,
        "trials_complete": res.n_trials, "resumed_trials": res.resumed_trials,
        "objective": ("team win rate" if ad.cooperative else "mean win share per game")
        + " in duplicate format against the field, on the same deals for every trial",
        "sampler": {"tpe": f"optuna TPESampler(multivariate=True, n_startup_trials={N_STARTUP})",
                    "cmaes": f"optuna CmaEsSampler(x0 = start, sigma0 = {CMA_SIGMA0} of "
                             f"each range)",
                    "random": "optuna RandomSampler"}[sampler]
        + "; trial 0 = the start; trial n sampled with seed hash(seed, n)",
        "space": [p.to_dict() for p in res.space],
        "start_params": res.start.tolist(), "best_params": res.best.tolist(),
        "start_objective": res.start_objective, "best_objective": res.best_objective,
        "best_objective_se": res.best_se,
        "best_trial": int(res.trials.loc[res.trials.objective.idxmax(), "number"]),
        "importances": res.importances,
        "importance_method": "optuna PedAnovaImportanceEvaluator (top ~5 trials vs all)",
        "importances_note": res.importances_note,
        "validation_deals": validate_deals, "validation": res.gain,
        "saved": res.saved, "save_note": res.save_note,
        "agent_file": res.path, "files": res.files,
        "wall_time_s": res.wall_time_s,
        "trial_eval_s_total": float(np.nansum(res.trials.eval_s.astype(float))),
        "optuna": optuna.__version__, "code_version": code_version(),
        "machine": machine_info(),
    }
    write_json(out / "meta.json", meta)
