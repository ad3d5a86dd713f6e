"""One tuner for every game and every registered agent, built on optuna.

:func:`tune` searches an agent's parameter vector (a heuristic family's weights, a search
agent's leaf-value weights or budget, a user policy's vector, a saved tuned agent's vector) for
the highest win share against a fixed **field** of opponents.

**Objective.** A *trial* (one candidate vector) is evaluated in duplicate format exactly as a
tournament plays it: the candidate sits at every table of the field's line-ups
(:func:`field_tables`) in every seat rotation, and the objective is its mean win share per game
(River Rats: its team's win rate, the team playing alone). Every trial is one
:func:`experiments.runner.run_experiment` call with the same seed, so batch ``b`` of every trial
has the same seed and **all trials play the same deals** (common random numbers: two vectors
are compared on identical cards, and equal vectors get equal objectives). The standard error of
each objective (deals are the independent unit) is kept with it.

**Optimizer** (``sampler``): optuna's TPE (``"tpe"``, multivariate Tree-structured Parzen
Estimator; Bergstra et al. 2011, Falkner et al. 2018; the first :data:`N_STARTUP` trials are
uniform random), CMA-ES (``"cmaes"``, Hansen 2016, started at the agent's own vector with
optuna's default step of 1/6 of the smallest range) or uniform random search (``"random"``).
Trial 0 is always the starting vector, so the best objective is never below the start's.
Trials run one after another; trial ``n`` is sampled by a sampler seeded with
``hash(seed, n)`` from the trials before it, so the same seed gives the same trials, and a study
resumed after a kill continues exactly as an uninterrupted one. Only the evaluation fans out
over ``n_jobs`` workers (through the runner, which gives the same numbers for any ``n_jobs``).

**Search space** (:func:`search_space`). Tuned by default: every parameter of a heuristic family
(the game's :class:`~experiments.tournament.games.GameAdapter` ``param_names``, whatever preset
of the family is tuned); for a search agent (``pimc``, ``ismcts``, ...) its ``exploration`` and
its leaf-value weights (its budget, horizon and rollout policy's parameters only when named);
for any other vector every parameter with a default range. Ranges:

* heuristic families: :attr:`GameAdapter.param_bounds` (widened to contain the starting value,
  e.g. that of a saved agent); the rollout policy's parameters of a search agent
  (``rollout_<name>``) likewise;
* any other parameter with default ``d``: ``[d/4, 4d]`` for ``d > 0``, ``[4d, d/4]`` for
  ``d < 0`` (integer counts: ``[ceil(d/4), 4d]``); a parameter with default 0 has no default
  range and is tuned only with explicit ``bounds``;
* ``bounds={name: (lo, hi)}`` overrides any of them (and adds the parameter to the default
  set); they must contain the starting value.

The integer parameters (:data:`INTEGER_PARAMS`: a search agent's ``simulations``, ``horizon``,
``max_rollout``, ``whole_tree``) are tuned as integers when their default and both bounds are
integral; every other parameter (weights, thresholds) is real. The structural parameters
:data:`FIXED_PARAMS` (the rollout policy's kind, the peek flag) are never tuned.

**Storage and resume.** The study lives in ``<out_dir>/study.journal`` (optuna
``JournalStorage`` on a ``JournalFileBackend``); the runner state of the trial being evaluated
lives in ``<out_dir>/trial_run/``. A run killed before it finished and re-run with the same
settings continues the study up to ``n_trials`` complete trials exactly as an uninterrupted one
(a trial cut short by a kill is finished with its stored parameters); other settings raise a
one-line ``ValueError`` naming what differs.

**The output folder** follows the rule of every command (:mod:`experiments.outputs`): a folder
whose ``meta.json`` records a finished study of the same settings (the study's, plus
``n_trials``, ``validate_deals`` and ``name``) answers from it: :func:`tune` returns its result
(``answered_from`` set), plays nothing and writes nothing in it; a finished study of other
settings (more trials included), another command's results, or files this command writes
without a ``meta.json`` are refused with one line naming the folder and ``--force``;
``overwrite=True`` (``--force``) starts over.

**Outputs** in ``out_dir`` (default ``<store>/<game>/tuning/<name>/``, the agent store of
:func:`experiments.tournament.games.store_root`; never the current folder): ``study.journal``,
``trials.csv`` (every trial: number, role, objective, its standard error, the running best, the
parameters), ``objective.png``, ``importances.csv`` / ``importances.png`` (optuna's PED-ANOVA
importance, Watanabe et al. 2023: how much each parameter mattered for reaching the top trials;
no extra dependency; the picture is not drawn when no trial beat the start or too few trials
were played, and ``meta.json``'s ``importances_note`` says why), ``agent.json`` (the best
vector as a tuned agent, always), ``meta.json``, ``check/`` and ``validation/`` (the checks on
fresh deals).

**Saving the agent.** The best vector is *saved* (copied to the agent store,
``<store>/<game>/agents/<name>.json``, where tournaments find it by name from any folder) only
when the check on fresh deals shows a significant gain over the start (verdict ``"better"``,
p < 0.05, see below), or when ``save_anyway=True`` (``--save-anyway``; also on a re-run that
answers from a finished study). Otherwise it stays in ``<out_dir>/agent.json`` and the result
says why it was not saved. An agent file of the same name from another study is not replaced
without ``overwrite``.

**Check on fresh deals.** The best of many trials on the same deals is optimistic (it is picked
because it was lucky as well as good). With ``validate_deals > 0`` the winner plays a tournament
against its starting vector and the field on fresh deals (seed ``seed + 1``); the result reports
the per-game win-share gain over the start with its 95% interval and the paired t-test p-value
(two-sided, and Holm-adjusted over the tournament's pairs), whatever it is.
"""

from __future__ import annotations

import time

from experiments.io import read_json, write_json
from experiments.optuna_study import N_STARTUP
from experiments.tournament.tuning.check import check_on_fresh_deals
from experiments.tournament.tuning.job import prepare_job
from experiments.tournament.tuning.objective import default_field, evaluate, field_tables
from experiments.tournament.tuning.result import (
    AGENT_FILE,
    CMA_SIGMA0,
    OUTPUTS,
    SAMPLERS,
    STUDY_FILE,
    TRIAL_RUN_DIR,
    TuneResult,
)
from experiments.tournament.tuning.space import (
    FIXED_PARAMS,
    INTEGER_PARAMS,
    Param,
    parse_bounds,
    search_space,
)
from experiments.tournament.tuning.store import (
    check_agent_file,
    claim_tuning_folder,
    install_agent,
    read_finished_study,
    save_or_explain,
    write_meta,
)
from experiments.tournament.tuning.study import run_study

__all__ = ["SAMPLERS", "N_STARTUP", "CMA_SIGMA0", "INTEGER_PARAMS", "FIXED_PARAMS",
           "STUDY_FILE", "AGENT_FILE", "OUTPUTS", "TRIAL_RUN_DIR", "Param", "TuneResult", "tune",
           "search_space", "parse_bounds", "field_tables", "evaluate", "default_field"]


def tune(game: str, agent: str, *, field_agents=None, n_players: int | None = None,
         n_deals: int = 600, n_trials: int = 40, tune_params=None, bounds=None,
         sampler: str = "tpe", name: str | None = None, seed: int = 0,
         options: dict | None = None, n_jobs: int = 1, batch_size: int = 100,
         validate_deals: int = 2000, agents_root=None, out_dir=None, progress: bool = True,
         overwrite: bool = False, start=None, backend: str = "loky",
         scheduler: str | None = None, save_anyway: bool = False) -> TuneResult:
    """Tune ``agent``'s parameter vector with optuna (see the module docstring), check the best
    on fresh deals, and save it as agent ``name`` when its gain there is significant.

    Args:
        game: ``rats``, ``recurring``, ``river_rats`` (or ``river-rats``), ``lure``.
        agent: a registered policy with parameters (heuristic family, search agent), a user
            policy (:func:`experiments.tournament.register_policy`) or a saved tuned agent.
        field_agents: opponents (``--agents`` text such as ``"greedy,heuristic"`` or a list of
            names); default :func:`default_field`. Ignored for River Rats (the team plays
            alone).
        n_players: seats (default: the game's usual count).
        n_deals: deals per trial (the same deals for every trial); ``n_trials``: complete trials
            wanted in the study (the start counts; a resumed study plays only the missing ones).
        tune_params: names to tune (list or comma-separated text; default: see the module
            docstring); ``bounds``: ``{name: (lo, hi)}`` overrides of the ranges.
        sampler: ``"tpe"``, ``"cmaes"`` or ``"random"``.
        name: saved agent's name (default ``<agent>_tuned``).
        seed: seed of the tuning deals (``run_experiment`` seed) and of the samplers; the check
            tournament uses ``seed + 1``.
        options: config fields of the game (e.g. ``{"difficulty": "expert"}``).
        n_jobs, batch_size, backend, scheduler: the runner's fan-out (results depend on
            ``batch_size``, not on ``n_jobs``).
        validate_deals: deals of the check on fresh deals (0: skip; then the agent is saved
            only with ``save_anyway``).
        agents_root: root of the agent store (``--agents-dir``; default
            ``$BOARDLAB_AGENTS_DIR``, else the user data folder: see
            :func:`experiments.tournament.games.store_root`).
        out_dir: output folder (default :func:`experiments.outputs.tuning_out_dir`).
        progress: a progress bar over the trials.
        overwrite: start the study over, replacing the folder's results (and an agent file of
            another study).
        start: starting vector (default: the agent's own).
        save_anyway: save the agent in the store even without a significant gain.

    Returns a :class:`TuneResult` (``answered_from`` set when a finished study of the same
    settings was found in ``out_dir``: nothing is played). Raises a one-line ``ValueError``
    for bad input (unknown agent, parameter or sampler, bad bounds or sizes), an output folder
    holding other results (see the module docstring), or an agent file of another study
    without ``overwrite``; nothing is written then.
    """
    import optuna  # noqa: F401  (the optional extra: missing, nothing is read or written)

    t_start = time.perf_counter()
    job = prepare_job(game, agent, field_agents=field_agents, n_players=n_players,
                    n_deals=n_deals, n_trials=n_trials, tune_params=tune_params, bounds=bounds,
                    sampler=sampler, name=name, seed=seed, options=options,
                    batch_size=batch_size, validate_deals=validate_deals,
                    agents_root=agents_root, out_dir=out_dir, start=start)
    finished = claim_tuning_folder(job.out, job.claim_settings, overwrite)
    if finished is not None:
        res = read_finished_study(job.ad, job.out, finished)
        if save_anyway and not res.saved:
            install_agent(res, job.ad, job.agent_path, job.key, job.out, overwrite,
                     "saved with --save-anyway")
        res.wall_time_s = time.perf_counter() - t_start
        return res
    if not overwrite:
        check_agent_file(job.agent_path, job.name, job.key, job.out)
    result = run_study(job, n_jobs, backend, scheduler, progress, overwrite)
    if job.validate_deals:
        check_on_fresh_deals(result, job.ad, agent, job.field_refs, job.validate_deals, job.seed,
                  job.options, n_jobs, job.batch_size, backend, scheduler, job.out, agents_root,
                  progress)
        agent_json = read_json(job.out / AGENT_FILE)
        agent_json["validation"] = result.gain
        write_json(job.out / AGENT_FILE, agent_json)
    save_or_explain(result, job, overwrite, save_anyway)
    result.wall_time_s = time.perf_counter() - t_start
    write_meta(result, job.claim_settings, job.key, job.sampler, job.n_trials,
                job.validate_deals, job.out)
    from experiments.outputs import finish_partial

    finish_partial(job.out, "check")  # the check's runner state, and its folder once empty
    return result
