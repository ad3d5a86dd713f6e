"""Round-robin tournaments of bot strategies in duplicate format, for all four games.

**Seating (duplicate format).** The agents are seated at *tables* (line-ups):

* competitive games (Rats, ReCURRRing, Lure) with ``K >= N`` agents for ``N`` seats: every
  ``N``-subset of the agents is a table; with ``K < N``: every pair ``(A, B)`` sits alternately
  ``A B A B ...`` (and, for odd ``N``, also ``B A B A ...`` so both hold as many seats);
* every table is played in all ``N`` cyclic **seat rotations** (rotation ``r`` puts line-up
  slot ``(p + r) mod N`` in seat ``p``) on the **same deals**: each agent holds every seat on
  every deal, so seat order and deck luck cancel out;
* River Rats is cooperative: each agent is a team (all seats play it) and every team plays the
  same deals; teams are compared by win rate on identical deals.

**Runner.** A tournament is one runner cell (:func:`experiments.runner.run_experiment`): batch
``b`` of deals gets the seed ``SeedSequence(seed, spawn_key=(b,))``, and every table and rotation
of that batch replays the same deals from it. All tables of a deal are played in the same work
unit, because the statistics pair results *across* tables by deal (see
:mod:`experiments.stats`); the batch function returns per-deal sufficient statistics
(integer sums), so memory stays flat, results do not depend on ``n_jobs`` or the backend, and a
killed run resumes from ``_partial/state.json`` in the output folder. A folder that holds a
finished tournament (its ``meta.json``) is answered from when the settings are the same and
refused when they differ, unless ``overwrite`` (``--force``): :mod:`experiments.outputs`.

**Results** (:class:`TournamentResult`): per agent the win rate and mean score with 95%
intervals (deal-clustered t-intervals; River Rats team win rates with Wilson intervals), ranked
by **the game's own utility** (:data:`experiments.tournament.games.RANKED_BY`, read from the
game's description): the win rate where the returns are win shares, the chips (Kuhn poker) or
match points (ReCURRRing) where they are chips or points, the other measure beside it; a
pairwise matrix (how often A finishes ahead of B when they meet, ties half, with intervals),
Plackett-Luce ratings with uncertainty from ``openskill`` (mu, sigma, ordinal ``mu - 3 sigma``)
over the first ``rating_deals`` deals and paired tests of "A better than B" (paired t-test and
sign test on per-deal differences, Holm-adjusted), both on the ranked measure.
:meth:`TournamentResult.save` writes CSV + PNG + ``meta.json`` under
``results/<game>/tournaments/<name>/``.

The parts: the seating (:mod:`experiments.tournament.seating`), the batch function
(:mod:`experiments.tournament.play`), the ratings (:mod:`experiments.tournament.ratings`), the
results and their statistics (:mod:`experiments.tournament.result`); this module runs them
(:func:`run_tournament`) and their public names are importable from here too.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.io import code_version, machine_info, write_json
from experiments.runner import run_experiment, speed_summary
from experiments.tournament.games import (
    AgentRef,
    GameAdapter,
    get_adapter,
    parse_agents,
)
from experiments.tournament.play import SUM_KEYS, DealPlayer, play_deals
from experiments.tournament.ratings import compute_ratings
from experiments.tournament.result import TournamentResult, analyse
from experiments.tournament.seating import Tournament, make_tables, seatings

__all__ = ["Tournament", "TournamentResult", "make_tables", "seatings", "play_deals",
           "result_from_folder",
           "DealPlayer", "run_tournament", "compute_ratings", "register_policy",
           "PARTIAL_DIR", "EXPERIMENT", "OUTPUT_FILES", "SUM_KEYS", "analyse"]

PARTIAL_DIR = "_partial"
"""Subfolder of a tournament's output folder holding the runner's ``state.json`` (resume)."""
EXPERIMENT = "tournament"
"""The experiment name in the ``settings`` of a tournament's ``meta.json``."""
OUTPUT_FILES = ("agents.csv", "pairwise.csv", "matrix.csv", "seats.csv", "meta.json",
                "agents.png", "pairwise.png")
"""The files :meth:`TournamentResult.save` writes."""


def register_policy(game: str, name: str, fn, default_params=None, description: str = "") -> None:
    """Make a compiled user policy available to tournaments of ``game`` under ``name`` (see
    :meth:`experiments.tournament.games.GameAdapter.register_policy`; raises ``ValueError``)."""
    get_adapter(game).register_policy(name, fn, default_params, description)


def run_tournament(game: str, agents, n_players: int | None = None, n_deals: int = 1000, *,
                   seed: int = 0, options: dict | None = None, n_jobs: int = 1,
                   backend: str = "loky", scheduler: str | None = None, batch_size: int = 100,
                   rating_deals: int = 300, out_dir=None, save: bool = True,
                   progress: bool = False, agents_root=None,
                   overwrite: bool = False, on_start=None) -> TournamentResult:
    """Run a duplicate-format round robin and return (and by default save) its results.

    An output folder that holds another tournament (other agents, deals, seed or options),
    another run or files no tournament recorded is not overwritten unless ``overwrite=True``
    (``ValueError`` naming the folder); one that holds a finished tournament of the same
    settings is answered from its files (nothing is played or written;
    :func:`experiments.outputs.claim_folder`).

    Args:
        game: ``rats``, ``recurring``, ``river_rats`` (or ``river-rats``), ``lure``.
        agents: ``--agents`` text (see :func:`experiments.tournament.games.parse_agents`) or
            a list of names / :class:`AgentRef`.
        n_players: seats per table (default: the game's usual count).
        n_deals: deals; every table plays each deal in every rotation.
        seed: master seed (batch ``b`` uses ``SeedSequence(seed, spawn_key=(b,))``).
        options: config fields of the game (e.g. ``{"difficulty": "expert"}``).
        n_jobs, backend, scheduler: parallel fan-out (see :func:`run_experiment`).
        batch_size: deals per work unit (results depend on it, not on ``n_jobs``).
        rating_deals: deals whose games feed the ratings (at most ``n_deals``).
        out_dir: output folder (default :func:`experiments.outputs.tournament_out_dir` under the
            agent store, :func:`experiments.tournament.games.store_root` of ``agents_root``: the
            user's data folder, outside the repository, so a user's runs never dirty the
            clone); partial results there make a re-run resume. ``save``: write CSV/PNG/JSON there.
        progress: show the runner's progress bar (counts deals).
        agents_root: root folder of saved tuned agents (default ``results``).
        on_start: ``None`` or a function called as ``on_start(tournament, settings)`` (the
            :class:`Tournament` and the settings dict of ``meta.json``: ``deals``,
            ``rating_deals``, ``batch_size``, ...) once the arguments are checked, just before
            play begins (``boardlab tournament`` prints its size and estimated time there);
            not called when the folder answers from a finished tournament.

    Returns a :class:`TournamentResult`. Raises ``ValueError`` for bad agents, options, sizes.
    """
    ad = get_adapter(game)
    n_players = ad.default_players if n_players is None else n_players
    if isinstance(agents, str):
        refs = parse_agents(agents, ad, agents_root)
    else:
        refs = [ad.resolve(a if isinstance(a, AgentRef) else AgentRef(str(a), str(a)),
                           agents_root) for a in agents]
        labels = [r.label for r in refs]
        if len(set(labels)) != len(labels):
            raise ValueError(f"agent labels {labels} repeat: give each agent its own label")
    if isinstance(n_deals, bool) or not isinstance(n_deals, (int, np.integer)) or n_deals < 2:
        raise ValueError(f"n_deals {n_deals!r}: expected an integer >= 2")
    if isinstance(rating_deals, bool) or not isinstance(rating_deals, (int, np.integer)) \
            or rating_deals < 0:
        raise ValueError(f"rating_deals {rating_deals!r}: expected an integer >= 0")
    tour = Tournament(ad.name, int(n_players), refs, dict(options or {}))
    user = sorted({r.base for r in refs if r.base in ad.user})
    player = DealPlayer(ad.name, user) if user else play_deals
    extra = player.fingerprint() if user else None
    if out_dir is None and save:  # in the user's data folder: a run never dirties the clone
        from experiments.outputs import tournament_out_dir
        from experiments.tournament.games import store_root

        out_dir = tournament_out_dir(ad.name, n_players, [r.label for r in refs],
                                  root=store_root(agents_root), options=options)
    cfg = ad.config(tour.n_players, tour.options)
    settings = _settings(ad, tour, cfg, int(n_deals), seed, int(batch_size),
                         min(int(rating_deals), int(n_deals)), extra)
    if save:
        from experiments.outputs import (
            check_writable,
            claim_folder,
            legacy_tournament_settings,
        )

        claim = claim_folder(out_dir, experiment=EXPERIMENT, settings=settings,
                             outputs=OUTPUT_FILES, force=overwrite, meta_name="meta.json",
                             legacy=lambda meta: legacy_tournament_settings(ad, meta))
        if claim.finished:
            return result_from_folder(tour, claim.folder, claim.meta)
        check_writable(out_dir)
    if on_start is not None:
        on_start(tour, settings)
    t0 = time.perf_counter()
    res = run_experiment(player, [tour.cell()], seed=seed, games_per_cell=int(n_deals),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler,
                         out_dir=Path(out_dir) / PARTIAL_DIR if save else None,
                         progress=progress, fingerprint_extra=extra, overwrite=overwrite)
    wall = time.perf_counter() - t0
    sums = res.totals[0]
    t1 = time.perf_counter()
    ratings = (compute_ratings(tour, seed, min(int(rating_deals), int(n_deals)), int(batch_size))
               if rating_deals > 0 else None)
    rating_time = time.perf_counter() - t1
    played = int(sums["played"])
    meta = {
        "kind": "boardlab.tournament", "settings": settings, "game": ad.name, "title": ad.title,
        "n_players": tour.n_players, "config": cfg.to_dict(),
        "agents": [dict(r.to_dict(), description=ad.describe(r.base)) for r in refs],
        "param_names": list(ad.param_names), "cooperative": ad.cooperative,
        "tables": len(tour.tables), "lineups": [list(t) for t in tour.tables],
        "rotations_per_table": 1 if ad.cooperative else tour.n_players,
        "games_per_deal": tour.deal_games(), "deals": int(sums["games"]), "games_played": played,
        "seed": seed, "batch_size": batch_size, "n_jobs": n_jobs, "backend": backend,
        "rating_deals": min(int(rating_deals), int(n_deals)),
        "rating_model": "openskill PlackettLuce (mu0 25, sigma0 25/3, tau 0)",
        "wall_time_s": wall, "play_time_s": res.wall_time, "setup_time_s": res.setup_time,
        "games_played_this_run": res.games_played * tour.games_per_deal_total(),
        **speed_summary(res, tour.games_per_deal_total()),
        "rating_time_s": rating_time, "resumed_batches": res.resumed_batches,
        "code_version": code_version(), "machine": machine_info(),
        "intervals": ("95%: deal-clustered Student-t for win rates, scores and head-to-head "
                      "shares" + ("; Wilson for team win rates" if ad.cooperative else "")),
        "ranked_by": ad.ranked_name,
        "test": (f"paired t-test and exact sign test on per-deal differences of the ranked "
                 f"measure ({ad.ranked_name}); Holm over pairs"),
    }
    result = analyse(tour, sums, ratings, meta)
    if save:
        paths = result.save(out_dir)
        result.meta["files"] = {k_: str(v) for k_, v in paths.items()}
        write_json(paths["meta"], {**result.meta, "sums": result.sums})
        from experiments.outputs import finish_partial

        finish_partial(out_dir)  # a finished folder holds only its results
    return result


def _settings(ad: GameAdapter, tour: Tournament, cfg, n_deals: int, seed: int,
              batch_size: int, rating_deals: int, user_policies=None) -> dict:
    """What determines a tournament's numbers (stored in ``meta.json`` as ``settings``):
    the game, seats, agents (labels, bases, parameters), the full rules config, deals, seed,
    batch size, rating deals and the user policies' fingerprint."""
    return {"experiment": EXPERIMENT, "game": ad.name, "n_players": tour.n_players,
            "agents": [a.to_dict() for a in tour.agents], "config": cfg.to_dict(),
            "deals": n_deals, "seed": seed, "batch_size": batch_size,
            "rating_deals": rating_deals, "user_policies": user_policies}


def result_from_folder(tour: Tournament, folder: Path, meta: dict) -> TournamentResult:
    """The :class:`TournamentResult` of the finished tournament in ``folder`` (its
    ``meta.json`` sums and the ratings of its ``agents.csv``), with ``meta["answered_from"]``
    naming the folder and ``games_played_this_run`` 0. Raises ``ValueError`` when the files
    cannot be read."""
    try:
        sums = {k: np.asarray(v, dtype=np.int64) for k, v in meta["sums"].items()}
        table = pd.read_csv(folder / "agents.csv", index_col="agent")
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise ValueError(f"{folder} holds a finished tournament of these settings but its "
                         f"files cannot be read ({type(exc).__name__}: {exc}): add --force to "
                         "play it again") from None
    cols = [c for c in ("mu", "sigma", "ordinal", "rating_games") if c in table.columns]
    ratings = table[cols] if "mu" in cols else None
    meta = {k: v for k, v in meta.items() if k != "sums"}
    meta.update(games_played_this_run=0, answered_from=str(folder),
                files={"meta": str(folder / "meta.json")})
    return analyse(tour, sums, ratings, meta)
