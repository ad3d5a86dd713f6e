"""The inputs of one ``boardlab tune`` run, checked: :func:`prepare_job` turns
:func:`experiments.tournament.tune.tune`'s arguments into a :class:`TuneJob` (the adapter,
start vector, search space, field, folders and the study's settings) or raises a one-line
``ValueError`` naming the bad option."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from experiments.optuna_study import N_STARTUP
from experiments.options import check_int
from experiments.outputs import tuning_out_dir
from experiments.tournament.games import AgentRef, agents_dir, get_adapter, parse_agents
from experiments.tournament.tuning.objective import default_field, field_tables
from experiments.tournament.tuning.result import SAMPLERS
from experiments.tournament.tuning.space import Param, search_space

__all__ = ["TuneJob", "prepare_job", "field_agent_refs", "settings_key"]


@dataclass
class TuneJob:
    """What :func:`tune` runs, its inputs checked (:func:`prepare_job`): the game's adapter
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


def prepare_job(game, agent, *, field_agents, n_players, n_deals, n_trials, tune_params,
                bounds, sampler, name, seed, options, batch_size, validate_deals, agents_root,
                out_dir, start) -> TuneJob:
    """Check :func:`experiments.tournament.tune.tune`'s inputs (its arguments of the same
    names) and derive the study's settings; reads nothing in the output folder. Raises a
    one-line ``ValueError`` naming the option for bad input."""
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
    field_refs = field_agent_refs(ad, field_agents, agents_root)
    field_tables(len(field_refs), n_players, ad.cooperative)  # raises for an empty field
    name = name or f"{agent}_tuned"
    if not isinstance(name, str) or not name or any(c in name for c in ",:@;=/\\ "):
        raise ValueError(f"name {name!r} (--name): expected a word without , : @ ; = / or "
                         f"spaces")
    out = Path(out_dir) if out_dir is not None else tuning_out_dir(ad.name, name, agents_root)
    settings = {
        "game": ad.name, "agent": agent, "base": base, "start": x0.tolist(),
        "space": [p.to_dict() for p in space], "field": [f.to_dict() for f in field_refs],
        "n_players": int(n_players), "n_deals": n_deals, "seed": int(seed), "options": options,
        "batch_size": batch_size, "sampler": sampler, "n_startup": N_STARTUP,
    }
    claim_settings = {"experiment": "tune", **settings, "n_trials": n_trials,
                      "validate_deals": int(validate_deals), "name": name}
    return TuneJob(ad=ad, base=base, x0=x0, space=space, field_refs=field_refs, name=name,
                    out=out, agent_path=agents_dir(ad.name, agents_root) / f"{name}.json",
                    settings=settings, key=settings_key(settings), claim_settings=claim_settings,
                    sampler=sampler, n_trials=n_trials, n_deals=n_deals,
                    n_players=int(n_players), seed=int(seed), options=options,
                    batch_size=batch_size, validate_deals=validate_deals)


def field_agent_refs(ad, field_agents, agents_root) -> list[AgentRef]:
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


def settings_key(settings: dict) -> str:
    """A study's settings as 16 hex digits (SHA-256 of their sorted JSON): what a tuned agent
    file records to name the study that wrote it."""
    return hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:16]
