"""The batch function of a tournament (:func:`play_deals`): every table in every rotation on
the same deals, returned as per-deal sufficient statistics (integer sums), so the numbers do
not depend on the workers and a killed run resumes; :class:`DealPlayer` for user policies."""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

import numpy as np

from experiments.tournament.games import (
    WIN_UNITS,
    get_adapter,
)


from experiments.tournament.seating import Tournament, seatings

__all__ = ["SUM_KEYS", "batch_word", "play_all_tables", "play_deals", "DealPlayer"]

SUM_KEYS = ("w_sum", "w_sq", "s_sum", "s_sq", "h_sum", "h_sq", "dw_sq", "dw_pos", "dw_neg",
            "ds_sq", "ds_pos", "ds_neg", "seat_w", "seat_games")
"""Integer sums returned by :func:`play_deals` besides ``games`` (deals) and ``played``."""


def batch_word(seed: np.random.SeedSequence) -> int:
    """Seed word (``0 .. 2**63 - 1``) of one batch for the game engines."""
    return int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))


def play_all_tables(tour: Tournament, n_deals: int, word: int):
    """Yield ``(lineup, Outcome)`` for every table and rotation, all on the deals of ``word``."""
    ad = tour.adapter
    cfg = ad.config(tour.n_players, tour.options)
    for t in tour.tables:
        for lineup in seatings(t, ad.cooperative):
            yield lineup, ad.play(cfg, [tour.agents[a] for a in lineup], n_deals, word)


_TOURS: dict[str, Tournament] = {}


def _tour_of(cell: dict) -> Tournament:
    key = json.dumps(cell, sort_keys=True)
    if key not in _TOURS:
        _TOURS[key] = Tournament.from_cell(cell)
    return _TOURS[key]


def play_deals(cell: dict, n_deals: int, seed: np.random.SeedSequence) -> dict[str, Any]:
    """The runner's batch function: play ``n_deals`` deals of the tournament ``cell``
    (:meth:`Tournament.cell`) at every table in every rotation; return integer sums.

    Per deal ``i`` and agent ``a``: ``w[a, i]`` win units (1/60 of a win share, summed over
    ``a``'s games on the deal) and ``s[a, i]`` score units; per pair ``h[a, b, i]`` = over
    their meetings, 2 when ``a`` finished ahead of ``b``, 1 for a tie. Returned keys (int64):
    ``games`` (= deals), ``played`` (games played), ``w_sum``/``w_sq``/``s_sum``/``s_sq`` (K,)
    sums over deals of ``w``, ``w**2``, ...; ``h_sum``/``h_sq`` (K, K); ``dw_sq``, ``dw_pos``,
    ``dw_neg`` (K, K) sums of ``(w_a - w_b)**2`` and counts of deals with ``w_a > w_b`` /
    ``<``; the same ``ds_*`` for scores; ``seat_w``/``seat_games`` (N,) win units and games
    per seat. Raises ``ValueError`` from the adapter (bad agents, illegal user actions).
    """
    tour = _tour_of(cell)
    ad = tour.adapter
    k, n_seats = len(tour.agents), tour.n_players
    w = np.zeros((k, n_deals), dtype=np.int64)
    s = np.zeros((k, n_deals), dtype=np.int64)
    h = np.zeros((k, k, n_deals), dtype=np.int64)
    seat_w = np.zeros(n_seats, dtype=np.int64)
    seat_games = np.zeros(n_seats, dtype=np.int64)
    played = 0
    team_key = np.zeros((k, n_deals))
    for lineup, out in play_all_tables(tour, n_deals, batch_word(seed)):
        wu = np.rint(out.win * WIN_UNITS).astype(np.int64)
        su = np.rint(out.score * ad.score_scale).astype(np.int64)
        played += n_deals * tour.deal_games()
        seat_w += wu.sum(axis=0)
        seat_games += n_deals
        if ad.cooperative:
            a = lineup[0]
            w[a] += wu[:, 0]
            s[a] += su[:, 0]
            team_key[a] = out.key[:, 0]
            continue
        for p, a in enumerate(lineup):
            w[a] += wu[:, p]
            s[a] += su[:, p]
        for p, q in itertools.combinations(range(n_seats), 2):
            a, b = lineup[p], lineup[q]
            if a == b:
                continue
            c = np.sign(out.key[:, p] - out.key[:, q]).astype(np.int64)
            h[a, b] += 1 + c
            h[b, a] += 1 - c
    if ad.cooperative:
        for a, b in itertools.permutations(range(k), 2):
            h[a, b] = 1 + np.sign(team_key[a] - team_key[b]).astype(np.int64)
    dw = w[:, None, :] - w[None, :, :]
    ds = s[:, None, :] - s[None, :, :]
    return {
        "games": n_deals, "played": played,
        "w_sum": w.sum(axis=1), "w_sq": (w * w).sum(axis=1),
        "s_sum": s.sum(axis=1), "s_sq": (s * s).sum(axis=1),
        "h_sum": h.sum(axis=2), "h_sq": (h * h).sum(axis=2),
        "dw_sq": (dw * dw).sum(axis=2), "dw_pos": (dw > 0).sum(axis=2),
        "dw_neg": (dw < 0).sum(axis=2),
        "ds_sq": (ds * ds).sum(axis=2), "ds_pos": (ds > 0).sum(axis=2),
        "ds_neg": (ds < 0).sum(axis=2),
        "seat_w": seat_w, "seat_games": seat_games,
    }


class DealPlayer:
    """Picklable batch function carrying user policies to worker processes.

    ``DealPlayer(game, names)`` holds the user policies ``names`` of ``game`` (function,
    default parameters, description); calling it registers them in the worker's adapter if
    missing, then runs :func:`play_deals`. Its runner fingerprint is that of
    :func:`play_deals` (``__module__``/``__qualname__``), the policies' bytecode going into the
    fingerprint's extra part (:func:`run_tournament`).
    """

    def __init__(self, game: str, names):
        ad = get_adapter(game)
        self.game = ad.name
        self.policies = {n: (ad.user[n].fn, ad.user[n].default_params, ad.user[n].description)
                         for n in names}
        self.__module__ = play_deals.__module__
        self.__qualname__ = play_deals.__qualname__

    def __call__(self, cell, n_deals, seed):
        ad = get_adapter(self.game)
        for name, (fn, params, desc) in self.policies.items():
            if name not in ad.user:
                ad.register_policy(name, fn, params, desc)
        return play_deals(cell, n_deals, seed)

    def fingerprint(self) -> str:
        """Hash of the user policies' Python bytecode and constants."""
        h = hashlib.sha256()
        for name in sorted(self.policies):
            fn = self.policies[name][0]
            code = getattr(fn, "py_func", fn).__code__
            h.update(name.encode() + code.co_code + repr(code.co_consts).encode())
            h.update(np.asarray(self.policies[name][1], dtype=np.float64).tobytes())
        return h.hexdigest()[:16]
