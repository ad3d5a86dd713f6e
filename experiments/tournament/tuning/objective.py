"""The objective of ``boardlab tune``: a candidate vector's mean win share per game in
duplicate format against the field, every candidate on the same deals (common random
numbers), with its standard error (deals are the independent unit)."""

from __future__ import annotations

import itertools
import math

import numpy as np

from experiments.runner import run_experiment
from experiments.tournament.games import WIN_UNITS, AgentRef, get_adapter
from experiments.tournament.run import DealPlayer, Tournament, play_deals

__all__ = ["field_tables", "objective_estimates", "evaluate", "default_field"]


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


def objective_estimates(game: str, base: str, candidates, field_refs: list[AgentRef],
                        n_players: int, n_deals: int, seed: int, options: dict | None,
                        n_jobs: int, batch_size: int, backend: str = "loky",
                        scheduler: str | None = None, run_dir=None):
    """``(mean, se)`` float64 arrays ``(len(candidates),)``: each candidate's mean win share
    per game over the same ``n_deals`` deals against ``field_refs`` and its standard error
    (deals are the independent unit). One runner call (:func:`run_experiment`, seed ``seed``,
    runner state in ``run_dir``, replaced: ``overwrite=True``). Raises ``ValueError`` for bad
    vectors, agents or sizes."""
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
    return objective_estimates(game, base, candidates, field_refs, n_players, n_deals, seed,
                               options, n_jobs, batch_size, backend)[0]


def default_field(game: str) -> list[str]:
    """The default opponents of :func:`tune`: the default tournament field
    (:meth:`experiments.tournament.games.GameAdapter.standard_agents`) without ``random`` and
    without its search agents, i.e. the shipped agents that neither search nor see hidden
    cards, ``net`` included. A search agent (``net-search-fast``: seconds per deal) would make
    every trial of a study minutes long; name it with ``--field`` to tune against it."""
    from experiments.tournament.cost import is_search

    ad = get_adapter(game)
    return [n for n in ad.standard_agents() if n != "random" and not is_search(ad.name, n)]
