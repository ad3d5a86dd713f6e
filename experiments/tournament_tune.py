"""Tuning a heuristic's parameter vector for the highest win rate against a fixed field.

Optimizer: **random search** (Bergstra and Bengio, 2012, JMLR 13:281-305) around the starting
vector, followed by a **local refinement** by compass (coordinate pattern) search (the
exploratory moves of Hooke and Jeeves, 1961; see Kolda, Lewis and Torczon, 2003, SIAM Review
45:385-482): try ``+-step`` on every coordinate, move to the best improvement, halve the steps
when none improves.

Objective: the candidate's mean win share (River Rats: its team's win rate) in duplicate format
against the field -- the candidate sits at every table of the field's line-ups in every seat
rotation. Every candidate is a cell of one :func:`experiments.runner.run_experiment` call, so
all candidates of the search are played on **the same deals** (common random numbers: batch
``b`` of every cell has the same seed), in parallel, and the objective is deterministic for a
given seed. The winner is then checked on *fresh* deals (another seed) in a tournament against
its starting vector and the field, so what is reported is not the tuning deals' luck.

:func:`tune` saves the best vector as a named agent, ``results/<game>/agents/<name>.json``,
usable by name in ``boardlab tournament`` and :func:`experiments.tournament.run_tournament`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from experiments.io import code_version, write_json
from experiments.runner import run_experiment
from experiments.tournament import Tournament, play_deals, run_tournament
from experiments.tournament_games import WIN_UNITS, AgentRef, agents_dir, get_adapter

__all__ = ["TuneResult", "tune", "field_tables", "evaluate"]


def field_tables(n_field: int, n_players: int, cooperative: bool) -> list[tuple[int, ...]]:
    """Line-ups for a candidate (agent 0) against field agents ``1..n_field``: with at least
    ``N - 1`` field agents every ``(N - 1)``-subset of the field joins the candidate; with fewer,
    the field agents fill the other seats in turn. Cooperative: the candidate's team alone."""
    if cooperative:
        return [(0,) * n_players]
    if n_field < 1:
        raise ValueError("the field is empty: give at least one opponent")
    if n_field >= n_players - 1:
        return [(0,) + c for c in itertools.combinations(range(1, n_field + 1), n_players - 1)]
    return [(0,) + tuple(1 + i % n_field for i in range(n_players - 1))]


def evaluate(game: str, base: str, candidates, field_refs: list[AgentRef], n_players: int,
             n_deals: int, seed: int, options: dict | None = None, n_jobs: int = 1,
             batch_size: int = 100, backend: str = "loky") -> np.ndarray:
    """Objective of each parameter vector in ``candidates`` (list of float arrays) for policy
    ``base``: its mean win share over ``n_deals`` deals (the same deals for every candidate).
    Returns ``float64`` (len(candidates),). Raises ``ValueError`` for bad vectors or sizes."""
    ad = get_adapter(game)
    tables = field_tables(len(field_refs), n_players, ad.cooperative)
    cells = []
    for i, c in enumerate(candidates):
        cand = ad.resolve(AgentRef(f"candidate_{i}", base, tuple(np.asarray(c, float))))
        tour = Tournament(ad.name, n_players, [cand] + list(field_refs), dict(options or {}),
                          tables)
        cells.append(tour.cell())
    g0 = int(Tournament.from_cell(cells[0]).games_per_deal()[0])
    res = run_experiment(play_deals, cells, seed=seed, games_per_cell=int(n_deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         progress=False)
    return np.array([float(t["w_sum"][0]) / (WIN_UNITS * g0 * int(t["games"]))
                     for t in res.totals])


@dataclass
class TuneResult:
    """Outcome of :func:`tune`: ``name``, ``base``, ``start`` and ``best`` vectors
    (``float64``), their objectives on the tuning deals, ``evaluations`` (candidates played),
    ``history`` (one dict per stage), ``path`` (saved agent JSON), ``validation`` (the
    :class:`experiments.tournament.TournamentResult` on fresh deals, or ``None``)."""

    name: str
    base: str
    start: np.ndarray
    best: np.ndarray
    start_objective: float
    best_objective: float
    evaluations: int
    history: list[dict] = field(default_factory=list)
    path: str | None = None
    validation: object | None = None


def tune(game: str, agent: str, *, field_agents=None, n_players: int | None = None,
         n_deals: int = 600, n_random: int = 24, refine_rounds: int = 6,
         tune_params=None, start=None, name: str | None = None, seed: int = 0,
         options: dict | None = None, n_jobs: int = 1, batch_size: int = 100,
         validate_deals: int = 0, save: bool = True, agents_root=None,
         progress: bool = False) -> TuneResult:
    """Search ``agent``'s parameter vector (random search + compass refinement, see the module
    docstring) and save the best as agent ``name`` (default ``<agent>_tuned``).

    Args:
        game, agent: the game and a tunable base agent (registry name or saved agent).
        field_agents: opponents (``--agents`` text or list of names); default: the shipped
            agents except ``random``. Ignored for River Rats (the team plays alone).
        n_players: seats (default: the game's usual count).
        n_deals: deals per candidate (the same for all).
        n_random: random candidates; ``refine_rounds``: compass-search rounds.
        tune_params: names of the parameters to search (default all).
        start: starting vector (default: the agent's own).
        seed: seed of the tuning deals and of the random candidates.
        validate_deals: if > 0, play a tournament of the start and the tuned vector with the
            field on fresh deals (seed ``seed + 1``) and attach it.
        save: write ``<agents_root>/<game>/agents/<name>.json`` (and the validation results).

    Returns a :class:`TuneResult`. Raises ``ValueError`` for an unknown agent or parameter, or a
    base without tunable parameters.
    """
    ad = get_adapter(game)
    n_players = ad.default_players if n_players is None else int(n_players)
    root = ad.resolve(AgentRef(agent, agent), agents_root)
    if root.base not in ad.tunable and root.base not in ad.user:
        raise ValueError(f"{ad.title} agent {agent!r} (base {root.base!r}) has no tunable "
                         f"parameters: expected one of {list(ad.tunable)} or a user policy")
    x0 = np.asarray(root.params if start is None else start, dtype=np.float64)
    names = list(ad.param_names)
    idx = list(range(x0.size)) if tune_params is None else [_param_index(p, names)
                                                            for p in tune_params]
    lo = np.array([b[0] for b in ad.param_bounds], dtype=np.float64)[: x0.size]
    hi = np.array([b[1] for b in ad.param_bounds], dtype=np.float64)[: x0.size]
    if field_agents is None:
        field_agents = [a for a in ad.shipped if a != "random"]
    if isinstance(field_agents, str):
        from experiments.tournament_games import parse_agents

        field_refs = parse_agents(field_agents, ad, agents_root)
    else:
        field_refs = [ad.resolve(AgentRef(str(a), str(a)), agents_root) for a in field_agents]
    if ad.cooperative:
        field_refs = []
    kw = dict(field_refs=field_refs, n_players=n_players, n_deals=n_deals, seed=seed,
              options=options, n_jobs=n_jobs, batch_size=batch_size)
    rng = np.random.default_rng(seed)
    t0 = time.perf_counter()

    def clip(v):
        return np.clip(v, lo, hi)

    # random search: the start plus n_random Gaussian perturbations of the tuned coordinates
    cands = [x0.copy()]
    width = hi - lo
    for _ in range(n_random):
        c = x0.copy()
        c[idx] = c[idx] + rng.normal(0.0, 0.25, len(idx)) * width[idx]
        cands.append(clip(c))
    obj = evaluate(game, root.base, cands, **kw)
    evals = len(cands)
    start_obj = float(obj[0])
    b = int(np.argmax(obj))
    best, best_obj = cands[b].copy(), float(obj[b])
    history = [{"stage": "random", "candidates": len(cands), "best": best_obj,
                "start": start_obj}]
    if progress:
        print(f"random search: start {start_obj:.4f}, best {best_obj:.4f} ({evals} candidates)")
    # compass refinement
    step = 0.1 * width
    for r in range(refine_rounds):
        moves = []
        for i in idx:
            for sgn in (1.0, -1.0):
                c = best.copy()
                c[i] = c[i] + sgn * step[i]
                c = clip(c)
                if not np.array_equal(c, best):
                    moves.append(c)
        if not moves:
            break
        obj = evaluate(game, root.base, moves, **kw)
        evals += len(moves)
        j = int(np.argmax(obj))
        improved = float(obj[j]) > best_obj
        if improved:
            best, best_obj = moves[j].copy(), float(obj[j])
        else:
            step = step / 2
        history.append({"stage": f"refine {r + 1}", "candidates": len(moves), "best": best_obj,
                        "improved": improved})
        if progress:
            print(f"refine round {r + 1}: best {best_obj:.4f} "
                  f"({'moved' if improved else 'steps halved'})")
    name = name or f"{agent}_tuned"
    result = TuneResult(name, root.base, x0, best, start_obj, best_obj, evals, history)
    meta = {"kind": "boardlab.tuned_agent", "game": ad.name, "name": name, "base": root.base,
            "params": best.tolist(), "param_names": names[: x0.size],
            "start_params": x0.tolist(), "tuned_params": [names[i] for i in idx],
            "objective": best_obj, "start_objective": start_obj,
            "objective_kind": "team win rate" if ad.cooperative else "mean win share",
            "field": [f.to_dict() for f in field_refs], "n_players": n_players,
            "deals_per_candidate": n_deals, "seed": seed, "options": dict(options or {}),
            "evaluations": evals, "history": history,
            "method": "random search (Gaussian, sd 0.25 of each range) + compass search "
                      "(steps 0.1 of each range, halved on failure); all candidates on the "
                      "same deals",
            "wall_time_s": time.perf_counter() - t0, "code_version": code_version()}
    if save:
        path = agents_dir(ad.name, agents_root) / f"{name}.json"
        write_json(path, meta)
        result.path = str(path)
    if validate_deals:
        start_ref = AgentRef(agent if start is None else f"{agent}_start", root.base, tuple(x0))
        tuned_ref = AgentRef(name, root.base, tuple(best))
        labels = {start_ref.label, tuned_ref.label}
        others = [f for f in field_refs if f.label not in labels and
                  not (f.base == root.base and f.params == start_ref.params)]
        out = None
        if save:
            out = (agents_dir(ad.name, agents_root).parent / "tournaments"
                   / f"tune_{name}_{n_players}p")
        result.validation = run_tournament(
            ad.name, [start_ref, tuned_ref] + others, n_players, int(validate_deals),
            seed=seed + 1, options=options, n_jobs=n_jobs, batch_size=batch_size,
            rating_deals=min(300, int(validate_deals)), out_dir=out, save=save,
            agents_root=agents_root)
    return result


def _param_index(p: str, names: list[str]) -> int:
    if p not in names:
        raise ValueError(f"unknown parameter {p!r}: expected one of {names}")
    return names.index(p)
