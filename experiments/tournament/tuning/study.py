"""The optuna study of ``boardlab tune``: open or resume it in the output folder, play its
trials one after another (trial ``n`` drawn by a sampler seeded with ``hash(seed, n)``), and
write what it found (``trials.csv``, importances, pictures, ``agent.json``)."""

from __future__ import annotations

import shutil
import time
import warnings

import numpy as np
import pandas as pd

from experiments.io import atomic_write_text, out_lock, write_json
from experiments.optuna_study import N_STARTUP, open_study, quiet_optuna, trial_seed
from experiments.tournament.tuning.job import TuneJob
from experiments.tournament.tuning.objective import objective_estimates
from experiments.tournament.tuning.plots import plot_importances, plot_objective
from experiments.tournament.tuning.result import (
    AGENT_FILE,
    CMA_SIGMA0,
    OUTPUTS,
    STUDY_FILE,
    TRIAL_RUN_DIR,
    TuneResult,
    agent_data,
    importances_note,
)
from experiments.tournament.tuning.space import Param

__all__ = ["run_study", "make_sampler"]


def make_sampler(kind: str, seed: int, space: list[Param]):
    """The optuna sampler ``kind`` (:data:`~experiments.tournament.tuning.result.SAMPLERS`)
    seeded ``seed``: TPE (multivariate, :data:`N_STARTUP` random trials first), CMA-ES started
    at the vector of ``space`` (step :data:`CMA_SIGMA0` of each range) or random search."""
    import optuna

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # experimental / deprecation notes of optuna
        if kind == "tpe":
            return optuna.samplers.TPESampler(seed=seed, n_startup_trials=N_STARTUP,
                                              multivariate=True)
        if kind == "cmaes":
            return optuna.samplers.CmaEsSampler(
                x0={p.name: (int(p.start) if p.integer else p.start) for p in space},
                sigma0=CMA_SIGMA0, seed=seed, n_startup_trials=1,
                warn_independent_sampling=False)
        return optuna.samplers.RandomSampler(seed=seed)


def run_study(job: TuneJob, n_jobs, backend, scheduler, progress: bool,
               overwrite: bool) -> TuneResult:
    """Open (or resume) the study in ``job.out`` under the folder's lock, finish a trial a
    kill cut short, play trials until ``job.n_trials`` are complete, and write the study's
    outputs (:func:`_finish`). Returns its :class:`TuneResult` (no check on fresh deals
    yet)."""
    import optuna

    complete = optuna.trial.TrialState.COMPLETE
    with out_lock(job.out), quiet_optuna():
        study = _open_study(job, overwrite)
        dists = {p.name: p.distribution() for p in job.space}
        run_dir = job.out / TRIAL_RUN_DIR
        ctx = dict(game=job.ad.name, base=job.base, field_refs=job.field_refs,
                   n_players=job.n_players, n_deals=job.n_deals, seed=job.seed,
                   options=job.options, n_jobs=n_jobs, batch_size=job.batch_size,
                   backend=backend, scheduler=scheduler, run_dir=run_dir)

        def run_trial(trial) -> None:
            x = job.x0.copy()
            for p in job.space:
                x[p.index] = float(trial.params[p.name])
            t0 = time.perf_counter()
            m, s = _evaluate_one(x, ctx)
            trial.set_user_attr("objective_se", float(s))
            trial.set_user_attr("eval_s", time.perf_counter() - t0)
            study.tell(trial, float(m))

        resumed = _finish_killed_trial(study, dists, run_trial)
        _play_trials(study, job, dists, run_trial, progress)
        shutil.rmtree(run_dir, ignore_errors=True)
        trials = [t for t in study.trials if t.state == complete]
        result = _finish(job.ad, study, trials, job.space, job.x0, job.settings, job.key,
                         job.name, job.out, resumed)
    result.n_trials = len(trials)
    return result


def _open_study(job: TuneJob, overwrite: bool):
    """The optuna study of ``job.out/study.journal`` (created, or loaded to resume; with
    ``overwrite`` the folder's results are deleted first). A new study records the settings
    and queues the start vector as its first trial. Raises a one-line ``ValueError`` for a
    journal without boardlab settings or with other settings."""
    study_path = job.out / STUDY_FILE
    if overwrite:
        for p in (study_path, job.out / "meta.json", *(job.out / n for n in OUTPUTS)):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
        shutil.rmtree(job.out / TRIAL_RUN_DIR, ignore_errors=True)
    study, new = open_study(study_path, "tune", "maximize", job.settings, job.out,
                            other_out="another --out or --name")
    if new:
        study.set_user_attr("study_key", job.key)
        study.enqueue_trial({p.name: (int(p.start) if p.integer else p.start)
                             for p in job.space}, user_attrs={"role": "start"})
    return study


def _finish_killed_trial(study, dists: dict, run_trial) -> int:
    """Finish a trial a kill cut short (state RUNNING) with its stored parameters, or mark it
    failed when it had not drawn them all. Returns the complete trials found before (the
    study's resumed trials)."""
    import optuna

    resumed = sum(t.state == optuna.trial.TrialState.COMPLETE for t in study.trials)
    for ft in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        stale = optuna.trial.Trial(study, ft._trial_id)
        if set(ft.params) == set(dists):
            run_trial(stale)
        else:
            study.tell(stale, state=optuna.trial.TrialState.FAIL)
    return resumed


def _play_trials(study, job: TuneJob, dists: dict, run_trial, progress: bool) -> None:
    """Ask and play trials until ``job.n_trials`` are complete (a progress bar over them);
    trial ``n``'s sampler is seeded with ``hash(seed, n)``, so a resumed study draws what an
    uninterrupted one would."""
    import optuna
    from experiments.runner import tqdm  # text bar unless ipywidgets draws one

    ts = optuna.trial.TrialState
    played_states = (ts.COMPLETE, ts.FAIL, ts.RUNNING, ts.PRUNED)
    done = sum(t.state == ts.COMPLETE for t in study.trials)
    with tqdm(total=job.n_trials, initial=min(done, job.n_trials), unit="trial",
              desc=f"tuning {job.name}", disable=not progress, dynamic_ncols=True) as bar:
        while done < job.n_trials:
            number = len(study.get_trials(deepcopy=False, states=played_states))
            study.sampler = make_sampler(job.sampler, trial_seed(job.seed, number), job.space)
            trial = study.ask(dists)
            if "role" not in trial.user_attrs:
                trial.set_user_attr("role", "sampled")
            run_trial(trial)
            done += 1
            bar.update(1)
            bar.set_postfix(best=f"{study.best_value:.4f}")


def _evaluate_one(x: np.ndarray, ctx: dict) -> tuple[float, float]:
    """Objective and standard error of one vector on the study's deals (its runner state in
    ``ctx['run_dir']``, so a killed trial resumes its batches)."""
    m, s = objective_estimates(ctx["game"], ctx["base"], [x], ctx["field_refs"], ctx["n_players"],
                       ctx["n_deals"], ctx["seed"], ctx["options"], ctx["n_jobs"],
                       ctx["batch_size"], ctx["backend"], ctx["scheduler"], ctx["run_dir"])
    return float(m[0]), float(s[0])


def _trials_frame(trials, space: list[Param]) -> pd.DataFrame:
    rows = []
    best = -np.inf
    for t in sorted(trials, key=lambda t: t.number):
        best = max(best, float(t.value))
        row = {"number": t.number, "role": t.user_attrs.get("role", "sampled"),
               "objective": float(t.value), "objective_se": t.user_attrs.get("objective_se"),
               "best_so_far": best, "eval_s": t.user_attrs.get("eval_s")}
        for p in space:
            row[p.name] = t.params[p.name]
        rows.append(row)
    return pd.DataFrame(rows)


def _importances(study, n_complete: int, space: list[Param]) -> dict[str, float]:
    import optuna

    if len(space) == 1:
        return {space[0].name: 1.0} if n_complete >= 2 else {}
    if n_complete < 4:
        return {}
    q = min(0.5, max(0.1, 5.0 / n_complete))  # about 5 trials in the top group
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ev = optuna.importance.PedAnovaImportanceEvaluator(target_quantile=q)
            imp = optuna.importance.get_param_importances(study, evaluator=ev)
    except (RuntimeError, ValueError, ZeroDivisionError):
        return {}
    return {k: float(v) for k, v in imp.items() if np.isfinite(v)}


def _finish(ad, study, trials, space, x0, settings, key, name, out, resumed) -> TuneResult:
    """Best vector, trials.csv, pictures, importances and ``out/agent.json``."""
    df = _trials_frame(trials, space)
    start_row = df[df.role == "start"]
    start_obj = float(start_row.objective.iloc[0]) if len(start_row) else float("nan")
    best_t = max(trials, key=lambda t: (float(t.value), -t.number))
    best = x0.copy()
    for p in space:
        best[p.index] = float(best_t.params[p.name])
    importances = _importances(study, len(trials), space)
    files = {"study": out / STUDY_FILE, "trials": out / "trials.csv",
             "objective_png": out / "objective.png", "importances": out / "importances.csv",
             "importances_png": out / "importances.png", "meta": out / "meta.json"}
    atomic_write_text(files["trials"], df.to_csv(index=False))
    imp_df = pd.DataFrame({"parameter": [p.name for p in space],
                           "importance": [importances.get(p.name, np.nan) for p in space]})
    imp_df = imp_df.sort_values("importance", ascending=False, na_position="last")
    atomic_write_text(files["importances"], imp_df.to_csv(index=False))
    files["agent"] = out / AGENT_FILE
    res = TuneResult(name=name, game=ad.name, base=settings["base"],
                     n_players=settings["n_players"], start=x0.copy(), best=best, space=space,
                     start_objective=start_obj, best_objective=float(best_t.value),
                     best_se=float(best_t.user_attrs.get("objective_se", np.nan)),
                     n_trials=len(trials), resumed_trials=int(resumed), trials=df,
                     importances=importances, out_dir=str(out), path="",
                     files={k: str(v) for k, v in files.items()})
    plot_objective(res, settings, files["objective_png"])
    res.importances_note = importances_note(res)
    if res.importances_note:
        files["importances_png"].unlink(missing_ok=True)
        res.files.pop("importances_png")
    else:
        plot_importances(res, imp_df, files["importances_png"])
    write_json(files["agent"], agent_data(ad, res, settings, key, out,
                                           best_trial=best_t.number))
    return res
