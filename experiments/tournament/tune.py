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

import contextlib
import hashlib
import itertools
import json
import math
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.io import (
    atomic_write_text,
    code_version,
    machine_info,
    out_lock,
    read_json,
    write_json,
)
from experiments.options import check_int
from experiments.outputs import claim_folder, same_settings, settings_diff
from experiments.runner import run_experiment
from experiments.tournament.games import (
    WIN_UNITS,
    AgentRef,
    agents_dir,
    get_adapter,
    store_root,
    parse_agents,
)
from experiments.tournament.run import (
    PARTIAL_DIR,
    DealPlayer,
    Tournament,
    play_deals,
    run_tournament,
)

__all__ = ["SAMPLERS", "N_STARTUP", "CMA_SIGMA0", "INTEGER_PARAMS", "FIXED_PARAMS",
           "STUDY_FILE", "Param", "TuneResult", "tune", "search_space", "parse_bounds",
           "field_tables", "evaluate", "default_field", "default_out_dir"]

SAMPLERS = ("tpe", "cmaes", "random")
"""Optimizers of :func:`tune` (optuna's TPESampler, CmaEsSampler, RandomSampler)."""
N_STARTUP = 10
"""Uniform random trials TPE plays (after the start) before it models the objective."""
INTEGER_PARAMS = ("simulations", "horizon", "max_rollout", "whole_tree")
"""Parameters that count something: tuned as integers when default and bounds are integral."""
FIXED_PARAMS = ("rollout_kind", "peek", "reserved_7")
"""Structural parameters of the search agents, never tuned (a policy id, a cheating flag)."""
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
_SEARCH_TUNED_BY_DEFAULT = ("exploration",)


# ---- the objective ------------------------------------------------------------------------
def field_tables(n_field: int, n_players: int, cooperative: bool) -> list[tuple[int, ...]]:
    """Line-ups for a candidate (agent 0) against field agents ``1..n_field``: with at least
    ``N - 1`` field agents every ``(N - 1)``-subset of the field joins the candidate; with fewer,
    the field agents fill the other seats in turn. Cooperative: the candidate's team alone.
    Raises ``ValueError`` for an empty field in a competitive game."""
    if cooperative:
        return [(0,) * n_players]
    if n_field < 1:
        raise ValueError("the field is empty: give at least one opponent")
    if n_field >= n_players - 1:
        return [(0,) + c for c in itertools.combinations(range(1, n_field + 1), n_players - 1)]
    return [(0,) + tuple(1 + i % n_field for i in range(n_players - 1))]


def _objectives(game: str, base: str, candidates, field_refs: list[AgentRef], n_players: int,
                n_deals: int, seed: int, options: dict | None, n_jobs: int, batch_size: int,
                backend: str = "loky", scheduler: str | None = None, run_dir=None):
    """``(mean, se)`` float64 arrays: each candidate's mean win share per game over the same
    ``n_deals`` deals and its standard error (deals are the independent unit)."""
    ad = get_adapter(game)
    tables = field_tables(len(field_refs), n_players, ad.cooperative)
    cells = []
    for i, c in enumerate(candidates):
        cand = ad.resolve(AgentRef(f"candidate_{i}", base, tuple(np.asarray(c, float))))
        tour = Tournament(ad.name, n_players, [cand] + list(field_refs), dict(options or {}),
                          tables)
        cells.append(tour.cell())
    g0 = int(Tournament.from_cell(cells[0]).games_per_deal()[0])
    user = sorted({a["base"] for c in cells for a in c["agents"] if a["base"] in ad.user})
    player = DealPlayer(ad.name, user) if user else play_deals
    res = run_experiment(player, cells, seed=int(seed), games_per_cell=int(n_deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler, out_dir=run_dir, progress=False,
                         fingerprint_extra=player.fingerprint() if user else None,
                         overwrite=True)
    scale = float(WIN_UNITS * g0)
    mean, se = [], []
    for t in res.totals:
        n = int(t["games"])
        s = float(t["w_sum"][0]) / scale
        q = float(t["w_sq"][0]) / scale ** 2
        m = s / n
        var = max(q - n * m * m, 0.0) / (n - 1) if n > 1 else float("nan")
        mean.append(m)
        se.append(math.sqrt(var / n))
    return np.array(mean), np.array(se)


def evaluate(game: str, base: str, candidates, field_refs: list[AgentRef], n_players: int,
             n_deals: int, seed: int, options: dict | None = None, n_jobs: int = 1,
             batch_size: int = 100, backend: str = "loky") -> np.ndarray:
    """Objective of each parameter vector in ``candidates`` (list of float arrays) for policy
    ``base``: its mean win share per game over ``n_deals`` deals against ``field_refs``
    (resolved :class:`AgentRef`), the same deals for every candidate (one runner call, seed
    ``seed``). Returns ``float64`` (len(candidates),). Raises ``ValueError`` for bad vectors,
    agents or sizes."""
    return _objectives(game, base, candidates, field_refs, n_players, n_deals, seed, options,
                       n_jobs, batch_size, backend)[0]


def default_field(game: str) -> list[str]:
    """The default opponents of :func:`tune`: the default tournament field
    (:meth:`experiments.tournament.games.GameAdapter.standard_agents`) without ``random`` and
    without its search agents, i.e. the shipped agents that neither search nor see hidden
    cards, ``net`` included. A search agent (``net-search-fast``: seconds per deal) would make
    every trial of a study minutes long; name it with ``--field`` to tune against it."""
    from experiments.tournament.cost import is_search

    ad = get_adapter(game)
    return [n for n in ad.standard_agents() if n != "random" and not is_search(ad.name, n)]


# ---- the search space ---------------------------------------------------------------------
@dataclass(frozen=True)
class Param:
    """One tuned parameter: ``name``, ``index`` in the agent's vector, range ``low..high``,
    ``integer`` (tuned as an integer), ``start`` (its starting value) and ``source`` of the
    range (``"game"``: the adapter's family bounds, ``"rule"``: [d/4, 4d], ``"user"``)."""

    name: str
    index: int
    low: float
    high: float
    integer: bool
    start: float
    source: str

    def distribution(self):
        """The optuna distribution (``IntDistribution`` or ``FloatDistribution``)."""
        from optuna.distributions import FloatDistribution, IntDistribution

        if self.integer:
            return IntDistribution(int(self.low), int(self.high))
        return FloatDistribution(float(self.low), float(self.high))

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"name": self.name, "index": self.index, "low": self.low, "high": self.high,
                "integer": self.integer, "start": self.start, "source": self.source}


def parse_bounds(text: str | None) -> dict[str, tuple[float, float]]:
    """``--bounds`` text ``a=lo:hi,b=lo:hi`` -> ``{name: (lo, hi)}``. Raises a one-line
    ``ValueError`` naming ``--bounds`` and the bad entry."""
    out: dict[str, tuple[float, float]] = {}
    if text is None:
        return out
    for item in (t.strip() for t in str(text).split(",")):
        if not item:
            continue
        name, eq, rng = item.partition("=")
        lo, colon, hi = rng.partition(":")
        try:
            pair = (float(lo), float(hi))
        except ValueError:
            pair = None
        if not eq or not colon or not name.strip() or pair is None:
            raise ValueError(f"--bounds {item!r}: expected NAME=LO:HI with numbers, e.g. "
                             f"pass_bias=-8:0")
        if name.strip() in out:
            raise ValueError(f"--bounds gives {name.strip()!r} twice")
        out[name.strip()] = pair
    return out


def _integral(x: float) -> bool:
    return bool(np.isfinite(x)) and float(x) == math.floor(x)


def _rule_range(name: str, d: float) -> tuple[float, float] | None:
    """The documented default range of a parameter outside the heuristic families."""
    if d == 0 or not np.isfinite(d):
        return None
    if name in INTEGER_PARAMS and _integral(d) and d > 0:
        return float(max(1, math.ceil(d / 4))), float(4 * d)
    lo, hi = d / 4, 4 * d
    return (min(lo, hi), max(lo, hi))


def search_space(game: str, base: str, start, tune_params=None, bounds=None) -> list[Param]:
    """The tuned parameters of policy ``base`` (a registered or user policy of ``game``, not a
    saved agent's name) starting from the vector ``start``, with their ranges (see the module
    docstring). ``tune_params``: names (list, or comma-separated text), default the base's
    default set; ``bounds``: ``{name: (lo, hi)}`` overrides.

    Raises a one-line ``ValueError`` for an unknown, repeated or structural name, bounds that
    are not finite, not ``lo < hi``, or exclude the starting value, a parameter without a
    default range and no bounds, or nothing left to tune."""
    from agents.policy import get_spec
    from agents.layout import N_VALUE, R0, V0

    ad = get_adapter(game)
    x0 = np.asarray(start, dtype=np.float64)
    names = list(ad.param_names_for(base))
    if len(names) != x0.size:
        names = [f"param_{i}" for i in range(x0.size)]
    spec = get_spec(ad.name, base) if base in ad.shipped else None
    is_search = bool(spec is not None and spec.search)
    family = dict(zip(ad.param_names, ad.param_bounds, strict=True))
    in_family = tuple(names) == tuple(ad.param_names)
    roll = names[R0:] if is_search else []
    roll_family = is_search and [n[len("rollout_"):] for n in roll] == list(ad.param_names)
    if x0.size == 0:
        raise ValueError(f"{ad.title} agent {base!r} has no tunable parameters (its parameter "
                         f"vector is empty)")
    bounds = dict(bounds or {})
    what = f"{ad.title} {base}"

    def family_range(n):
        if in_family and n in family:
            return family[n]
        if roll_family and n in roll:
            return family[n[len("rollout_"):]]
        return None

    for n in bounds:
        if n not in names:
            raise ValueError(f"--bounds names unknown parameter {n!r} of {what}: expected one "
                             f"of {', '.join(names)}")
    if tune_params is None:
        chosen = []
        for i, n in enumerate(names):
            if n in FIXED_PARAMS:
                continue
            if is_search and not (n in _SEARCH_TUNED_BY_DEFAULT
                                  or (V0 <= i < V0 + N_VALUE and not n.startswith("value_"))):
                continue
            if family_range(n) is not None or _rule_range(n, x0[i]) is not None:
                chosen.append(n)
        chosen += [n for n in bounds if n not in chosen]
        chosen.sort(key=names.index)
    else:
        chosen = ([p.strip() for p in tune_params.split(",") if p.strip()]
                  if isinstance(tune_params, str) else [str(p) for p in tune_params])
        for p in chosen:
            if p not in names:
                raise ValueError(f"unknown parameter {p!r} of {what} (--params): expected one "
                                 f"of {', '.join(names)}")
        dup = sorted({p for p in chosen if chosen.count(p) > 1})
        if dup:
            raise ValueError(f"parameter(s) {dup} named twice in --params")
        extra = [n for n in bounds if n not in chosen]
        if extra:
            raise ValueError(f"--bounds gives {extra} which --params does not tune: add them "
                             f"to --params or drop their bounds")
    if not chosen:
        raise ValueError(f"{what}: no parameter has a default range: name some with --params "
                         f"and give their --bounds")
    out = []
    for n in chosen:
        i = names.index(n)
        d = float(x0[i])
        if n in FIXED_PARAMS:
            raise ValueError(f"parameter {n!r} of {what} is structural (the rollout policy's "
                             f"kind, the peek flag), not tunable")
        if n in bounds:
            lo, hi = (float(v) for v in bounds[n])
            if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
                raise ValueError(f"--bounds {n}={lo:g}:{hi:g}: expected finite LO < HI")
            if not lo <= d <= hi:
                raise ValueError(f"--bounds {n}={lo:g}:{hi:g} exclude its starting value {d:g}: "
                                 f"widen them")
            source = "user"
        else:
            fr = family_range(n)
            if fr is not None:
                lo, hi = min(float(fr[0]), d), max(float(fr[1]), d)
                source = "game"
            else:
                rr = _rule_range(n, d)
                if rr is None:
                    raise ValueError(f"parameter {n!r} of {what} has default {d:g} and so no "
                                     f"default range: give one with --bounds {n}=LO:HI")
                lo, hi = rr
                source = "rule"
        integer = (n in INTEGER_PARAMS and not (in_family or family_range(n) is not None)
                   and _integral(d) and _integral(lo) and _integral(hi))
        out.append(Param(n, i, lo, hi, integer, d, source))
    return out


# ---- results ------------------------------------------------------------------------------
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


def default_out_dir(game: str, name: str, agents_root=None) -> Path:
    """``<store>/<game>/tuning/<name>``: the agent store's folder
    (:func:`experiments.tournament.games.store_root` of ``agents_root``), not the current
    folder. Raises ``ValueError`` for an unknown game."""
    ad = get_adapter(game)
    return store_root(agents_root) / ad.name / "tuning" / name


# ---- optuna plumbing -----------------------------------------------------------------------
def _storage(path: Path):
    import optuna

    try:
        from optuna.storages.journal import JournalFileBackend
    except ImportError:  # optuna 3.6 .. 3.x
        JournalFileBackend = optuna.storages.JournalFileStorage  # noqa: N806
    return optuna.storages.JournalStorage(JournalFileBackend(str(path)))


def _trial_seed(seed: int, number: int) -> int:
    return int(np.random.SeedSequence([int(seed) & (2**63 - 1), int(number)])
               .generate_state(1, np.uint32)[0] >> 1)


def _make_sampler(kind: str, seed: int, space: list[Param]):
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


@contextlib.contextmanager
def _quiet_optuna():
    import optuna

    level = optuna.logging.get_verbosity()
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            yield
    finally:
        optuna.logging.set_verbosity(level)


def _short(v) -> str:
    t = json.dumps(v, default=str)
    return t if len(t) <= 60 else t[:57] + "..."


def _settings_diff(old: dict, new: dict) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {_short(old.get(k))} (stored) vs {_short(new.get(k))}" for k in keys)


def _key(settings: dict) -> str:
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]


# ---- the tuner -----------------------------------------------------------------------------
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
        out_dir: output folder (default :func:`default_out_dir`).
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
    job = _tune_job(game, agent, field_agents=field_agents, n_players=n_players,
                    n_deals=n_deals, n_trials=n_trials, tune_params=tune_params, bounds=bounds,
                    sampler=sampler, name=name, seed=seed, options=options,
                    batch_size=batch_size, validate_deals=validate_deals,
                    agents_root=agents_root, out_dir=out_dir, start=start)
    finished = _claim(job.out, job.claim_settings, overwrite)
    if finished is not None:
        res = _answer(job.ad, job.out, finished)
        if save_anyway and not res.saved:
            _install(res, job.ad, job.agent_path, job.key, job.out, overwrite,
                     "saved with --save-anyway")
        res.wall_time_s = time.perf_counter() - t_start
        return res
    if not overwrite:
        _check_agent_file(job.agent_path, job.name, job.key, job.out)
    result = _run_study(job, n_jobs, backend, scheduler, progress, overwrite)
    if job.validate_deals:
        _validate(result, job.ad, agent, job.field_refs, job.validate_deals, job.seed,
                  job.options, n_jobs, job.batch_size, backend, scheduler, job.out, agents_root,
                  progress)
        agent_json = read_json(job.out / AGENT_FILE)
        agent_json["validation"] = result.gain
        write_json(job.out / AGENT_FILE, agent_json)
    _save_or_explain(result, job, overwrite, save_anyway)
    result.wall_time_s = time.perf_counter() - t_start
    _write_meta(result, job.claim_settings, job.key, job.sampler, job.n_trials,
                job.validate_deals, job.out)
    from experiments.outputs import finish_partial

    finish_partial(job.out / "check")  # the check's runner state: a finished folder holds results
    return result


# ---- the tuner's steps ---------------------------------------------------------------------
@dataclass
class _TuneJob:
    """What :func:`tune` runs, its inputs checked (:func:`_tune_job`): the game's adapter
    ``ad``, the tuned policy ``base``, the start vector ``x0`` (``float64``), the ``space``,
    the field, the agent's ``name``, the output folder ``out``, the store's ``agent_path``, the
    study's ``settings`` and their hash ``key``, the folder rule's ``claim_settings``, and the
    checked sizes."""

    ad: object
    base: str
    x0: np.ndarray
    space: list[Param]
    field_refs: list[AgentRef]
    name: str
    out: Path
    agent_path: Path
    settings: dict
    key: str
    claim_settings: dict
    sampler: str
    n_trials: int
    n_deals: int
    n_players: int
    seed: int
    options: dict
    batch_size: int
    validate_deals: int


def _tune_job(game, agent, *, field_agents, n_players, n_deals, n_trials, tune_params, bounds,
              sampler, name, seed, options, batch_size, validate_deals, agents_root, out_dir,
              start) -> _TuneJob:
    """Check :func:`tune`'s inputs (its arguments of the same names) and derive the study's
    settings; reads nothing in the output folder. Raises a one-line ``ValueError`` naming the
    option for bad input."""
    ad = get_adapter(game)
    if sampler not in SAMPLERS:
        raise ValueError(f"sampler {sampler!r} (--sampler): expected one of "
                         f"{', '.join(SAMPLERS)}")
    n_trials = check_int(n_trials, "n_trials (--trials)")
    n_deals = check_int(n_deals, "n_deals (--games)", 2)
    batch_size = check_int(batch_size, "batch_size (--batch-size)")
    if validate_deals != 0:
        validate_deals = check_int(validate_deals, "validate_deals (--validate, 0 to skip)",
                                   2)
    n_players = ad.default_players if n_players is None else n_players
    ad.check_players(n_players)
    options = dict(options or {})
    ad.config(n_players, options)  # validates the options
    root = ad.resolve(AgentRef(agent, agent), agents_root)
    base = root.base
    x0 = np.asarray(root.params if start is None else start, dtype=np.float64).ravel()
    if start is not None:
        x0 = np.asarray(ad.resolve(AgentRef(f"{agent}_start", base, tuple(x0))).params)
    space = search_space(ad.name, base, x0, tune_params, bounds)
    field_refs = _field_refs(ad, field_agents, agents_root)
    field_tables(len(field_refs), n_players, ad.cooperative)  # raises for an empty field
    name = name or f"{agent}_tuned"
    if not isinstance(name, str) or not name or any(c in name for c in ",:@;=/\\ "):
        raise ValueError(f"name {name!r} (--name): expected a word without , : @ ; = / or "
                         f"spaces")
    out = Path(out_dir) if out_dir is not None else default_out_dir(ad.name, name, agents_root)
    settings = {
        "game": ad.name, "agent": agent, "base": base, "start": x0.tolist(),
        "space": [p.to_dict() for p in space], "field": [f.to_dict() for f in field_refs],
        "n_players": int(n_players), "n_deals": n_deals, "seed": int(seed), "options": options,
        "batch_size": batch_size, "sampler": sampler, "n_startup": N_STARTUP,
    }
    claim_settings = {"experiment": "tune", **settings, "n_trials": n_trials,
                      "validate_deals": int(validate_deals), "name": name}
    return _TuneJob(ad=ad, base=base, x0=x0, space=space, field_refs=field_refs, name=name,
                    out=out, agent_path=agents_dir(ad.name, agents_root) / f"{name}.json",
                    settings=settings, key=_key(settings), claim_settings=claim_settings,
                    sampler=sampler, n_trials=n_trials, n_deals=n_deals,
                    n_players=int(n_players), seed=int(seed), options=options,
                    batch_size=batch_size, validate_deals=validate_deals)


def _field_refs(ad, field_agents, agents_root) -> list[AgentRef]:
    """The field's agents: none for a cooperative game, :func:`default_field` when
    ``field_agents`` is None, else the ``--field`` text or list of names. Raises a one-line
    ``ValueError`` naming ``--field`` for an unknown agent."""
    try:
        if ad.cooperative:
            return []
        if field_agents is None:
            return [ad.resolve(AgentRef(a, a), agents_root) for a in default_field(ad.name)]
        if isinstance(field_agents, str):
            return parse_agents(field_agents, ad, agents_root)
        return [ad.resolve(AgentRef(str(a), str(a)), agents_root) for a in field_agents]
    except ValueError as exc:
        raise ValueError(f"field (--field): {exc}") from None


def _check_agent_file(agent_path: Path, name: str, key: str, out: Path) -> None:
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


def _run_study(job: _TuneJob, n_jobs, backend, scheduler, progress: bool,
               overwrite: bool) -> TuneResult:
    """Open (or resume) the study in ``job.out`` under the folder's lock, finish a trial a
    kill cut short, play trials until ``job.n_trials`` are complete, and write the study's
    outputs (:func:`_finish`). Returns its :class:`TuneResult` (no check on fresh deals
    yet)."""
    import optuna

    complete = optuna.trial.TrialState.COMPLETE
    with out_lock(job.out), _quiet_optuna():
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


def _open_study(job: _TuneJob, overwrite: bool):
    """The optuna study of ``job.out/study.journal`` (created, or loaded to resume; with
    ``overwrite`` the folder's results are deleted first). A new study records the settings
    and queues the start vector as its first trial. Raises a one-line ``ValueError`` for a
    journal without boardlab settings or with other settings."""
    import optuna

    study_path = job.out / STUDY_FILE
    if overwrite:
        for p in (study_path, job.out / "meta.json", *(job.out / n for n in OUTPUTS)):
            if p.is_dir():
                shutil.rmtree(p, ignore_errors=True)
            else:
                p.unlink(missing_ok=True)
        shutil.rmtree(job.out / TRIAL_RUN_DIR, ignore_errors=True)
    study = optuna.create_study(storage=_storage(study_path), study_name="tune",
                                direction="maximize", load_if_exists=True)
    stored = study.user_attrs.get("settings")
    if stored is None and study.trials:
        raise ValueError(f"{study_path} holds a study without boardlab settings: choose "
                         f"another --out, or --force to start over")
    settings = json.loads(json.dumps(job.settings))
    if stored is None:
        study.set_user_attr("settings", job.settings)
        study.set_user_attr("study_key", job.key)
        study.enqueue_trial({p.name: (int(p.start) if p.integer else p.start)
                             for p in job.space}, user_attrs={"role": "start"})
    elif stored != settings:
        raise ValueError(f"{job.out} holds a study with other settings ("
                         f"{_settings_diff(stored, settings)}): use another --out or --name, "
                         f"or --force to start over")
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


def _play_trials(study, job: _TuneJob, dists: dict, run_trial, progress: bool) -> None:
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
            study.sampler = _make_sampler(job.sampler, _trial_seed(job.seed, number), job.space)
            trial = study.ask(dists)
            if "role" not in trial.user_attrs:
                trial.set_user_attr("role", "sampled")
            run_trial(trial)
            done += 1
            bar.update(1)
            bar.set_postfix(best=f"{study.best_value:.4f}")


def _save_or_explain(result: TuneResult, job: _TuneJob, overwrite: bool,
                     save_anyway: bool) -> None:
    """Save the tuned agent in the store when its gain on fresh deals is significant (or with
    ``save_anyway``); otherwise set ``result.save_note`` to why not."""
    g = result.gain
    if g is not None and g["verdict"] == "better":
        _install(result, job.ad, job.agent_path, job.key, job.out, overwrite,
                 f"gain on {g['deals']} fresh deals significant (p = {_p_of(g):.3g})")
    elif save_anyway:
        _install(result, job.ad, job.agent_path, job.key, job.out, overwrite,
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


def _legacy_settings(meta: dict) -> dict | None:
    """Claim settings of a ``meta.json`` written before they were stored whole (its
    ``settings`` were the study's alone)."""
    st = meta.get("settings")
    if meta.get("kind") != "boardlab.tuning" or not isinstance(st, dict) or "experiment" in st:
        return None
    return {"experiment": "tune", **st, "n_trials": meta.get("n_trials_requested"),
            "validate_deals": meta.get("validation_deals"), "name": meta.get("name")}


def _claim(out: Path, claim_settings: dict, overwrite: bool) -> dict | None:
    """The folder rule (:func:`experiments.outputs.claim_folder`): the ``meta.json`` of a
    finished study of the same settings, or ``None`` to run. Raises a one-line ``ValueError``
    for a folder holding other results."""
    meta_path = out / "meta.json"
    if not overwrite and meta_path.is_file():
        try:
            meta = read_json(meta_path)
        except (ValueError, OSError):
            meta = None
        legacy = _legacy_settings(meta) if isinstance(meta, dict) else None
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


def _answer(ad, out: Path, meta: dict) -> TuneResult:
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
        res.importances_note = _importances_note(res)
    return res


def _install(res: TuneResult, ad, agent_path: Path, key: str, out: Path, overwrite: bool,
             note: str) -> None:
    """Copy the study's agent (``out/agent.json``, or the result's best vector) to the store
    as ``agent_path``. Raises ``ValueError`` if an agent of another study is there and not
    ``overwrite``."""
    if not overwrite:
        _check_agent_file(agent_path, res.name, key, out)
    src = out / AGENT_FILE
    data = read_json(src) if src.is_file() else _agent_data(ad, res, {}, key, out)
    data["study_dir"] = str(out.resolve())
    data["saved_because"] = note
    agent_path.parent.mkdir(parents=True, exist_ok=True)
    write_json(agent_path, data)
    res.saved, res.path, res.save_note = True, str(agent_path), note


def _evaluate_one(x: np.ndarray, ctx: dict) -> tuple[float, float]:
    """Objective and standard error of one vector on the study's deals (its runner state in
    ``ctx['run_dir']``, so a killed trial resumes its batches)."""
    m, s = _objectives(ctx["game"], ctx["base"], [x], ctx["field_refs"], ctx["n_players"],
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
    _plot_objective(res, settings, files["objective_png"])
    res.importances_note = _importances_note(res)
    if res.importances_note:
        files["importances_png"].unlink(missing_ok=True)
        res.files.pop("importances_png")
    else:
        _plot_importances(res, imp_df, files["importances_png"])
    write_json(files["agent"], _agent_data(ad, res, settings, key, out,
                                           best_trial=best_t.number))
    return res


def _importances_note(res: TuneResult) -> str:
    """Why the importance picture is not drawn (``""``: it is): no trial beat the start (the
    importances would rank parameters by how much they *lose*), or too few trials."""
    if not res.best_objective > res.start_objective:
        return (f"not drawn: no trial beat the start ({res.start_objective:.4f}) in "
                f"{res.n_trials} trials, so no parameter is shown to help")
    if not res.importances:
        return f"not drawn: {res.n_trials} trials are too few to estimate it"
    return ""


def _agent_data(ad, res: TuneResult, settings: dict, key: str, out: Path,
                best_trial: int | None = None) -> dict:
    """The JSON of a tuned agent (``out/agent.json`` and the store's copy)."""
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


def _paired(sums: dict, a: int, b: int, gw: float) -> dict:
    """Agent ``a`` minus agent ``b`` per game from :func:`play_deals` sums: mean difference,
    95% interval, paired t-test and sign test (deal = unit)."""
    from scipy import stats

    from experiments.stats import paired_tests

    n = int(sums["games"])
    w = np.asarray(sums["w_sum"], dtype=np.float64)
    d_sum = (w[a] - w[b]) / gw
    d_sq = float(np.asarray(sums["dw_sq"])[a][b]) / gw ** 2
    tests = paired_tests(d_sum, d_sq, n, np.asarray(sums["dw_pos"])[a][b],
                         np.asarray(sums["dw_neg"])[a][b])
    d = d_sum / n
    se = math.sqrt(max(d_sq - n * d * d, 0.0) / (n - 1) / n)
    half = float(stats.t.ppf(0.975, n - 1)) * se
    return {"win_diff": float(d), "low": float(d - half), "high": float(d + half),
            "p_t": float(tests["p_t"]), "p_sign": float(tests["p_sign"])}


def _verdict(d: float, p: float) -> str:
    if p < 0.05:
        return "better" if d > 0 else "worse"
    return "no difference shown"


def _validate(res: TuneResult, ad, agent, field_refs, deals, seed, options, n_jobs, batch_size,
              backend, scheduler, out, agents_root, progress) -> None:
    """Two checks of the winner on fresh deals (seed ``seed + 1``), see the module docstring:
    (1) the tuning objective itself, tuned vs start, each against the field alone at the
    field's tables, paired by deal (runner state in ``out/check/_partial/``); (2) competitive
    games: a round-robin tournament of start, tuned and the field (``out/validation/``)."""
    user = sorted({r.base for r in [*field_refs, AgentRef("x", res.base)] if r.base in ad.user})
    player = DealPlayer(ad.name, user) if user else play_deals
    taken = {f.label for f in field_refs}
    start_label = next(lab for lab in ("start", "start_vector", f"{res.name}_start")
                       if lab not in taken and lab != res.name)
    refs = [AgentRef(start_label, res.base, tuple(res.start)),
            AgentRef(res.name, res.base, tuple(res.best))] + list(field_refs)
    tables = field_tables(len(field_refs), res.n_players, ad.cooperative)
    tables = [tuple(c if a == 0 else a + 1 for a in t) for c in (0, 1) for t in tables]
    tour = Tournament(ad.name, res.n_players, refs, dict(options), tables)
    run = run_experiment(player, [tour.cell()], seed=int(seed) + 1, games_per_cell=int(deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler, out_dir=out / "check" / PARTIAL_DIR,
                         progress=progress,
                         fingerprint_extra=player.fingerprint() if user else None,
                         overwrite=True)
    sums = run.totals[0]
    n = int(sums["games"])
    gw = float(WIN_UNITS * tour.games_per_deal()[0])
    w = np.asarray(sums["w_sum"], dtype=np.float64) / gw / n
    check = _paired(sums, 1, 0, gw)
    p_verdict = check["p_sign"] if ad.cooperative else check["p_t"]
    gain = {"deals": n, "seed": int(seed) + 1, "start": start_label, "tuned": res.name,
            "objective_start": float(w[0]), "objective_tuned": float(w[1]), **check,
            "verdict": _verdict(check["win_diff"], p_verdict),
            "test": ("McNemar exact (sign) test" if ad.cooperative else "paired t-test")
            + " over deals, two-sided", "tournament": None}
    if not ad.cooperative:
        s_ref = AgentRef(agent if agent != res.name else f"{agent}_start", res.base,
                         tuple(res.start))
        t_ref = AgentRef(res.name, res.base, tuple(res.best))
        others = [f for f in field_refs if f.label not in {s_ref.label, t_ref.label}
                  and not (f.base == res.base and f.params == s_ref.params)]
        v = run_tournament(ad.name, [s_ref, t_ref] + others, res.n_players, int(deals),
                           seed=int(seed) + 1, options=options, n_jobs=n_jobs, backend=backend,
                           scheduler=scheduler, batch_size=batch_size,
                           rating_deals=min(300, int(deals)), out_dir=out / "validation",
                           progress=progress, agents_root=agents_root, overwrite=True)
        pw = v.pairwise
        row = pw[(pw.agent == t_ref.label) & (pw.opponent == s_ref.label)].iloc[0]
        labels = list(v.agents.index)
        rr = _paired(v.sums, labels.index(t_ref.label), labels.index(s_ref.label),
                     float(WIN_UNITS * v.tournament.games_per_deal()[0]))
        gain["tournament"] = {
            "agents": labels, "start": s_ref.label, "tuned": t_ref.label,
            "tuned_win_rate": float(v.agents.loc[t_ref.label, "win_rate"]),
            "start_win_rate": float(v.agents.loc[s_ref.label, "win_rate"]),
            **rr, "p_holm": float(row.p_holm), "verdict": str(row.verdict),
            "folder": str(out / "validation")}
        res.validation = v
    res.gain = gain


def _write_meta(res: TuneResult, settings, key, sampler, n_trials, validate_deals,
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


# ---- pictures -------------------------------------------------------------------------------
def _field_text(settings) -> str:
    labels = [f["label"] for f in settings["field"]]
    return ", ".join(labels) if labels else "the team alone"


def _plot_objective(res: TuneResult, settings, path: Path) -> None:
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


def _plot_importances(res: TuneResult, imp_df: pd.DataFrame, path: Path) -> None:
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
