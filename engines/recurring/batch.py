"""Door 2 into ReCURRRing: :func:`play_batch` (whole games in one compiled loop) and
:func:`match_results` (per-match totals, rules "Scoring").

The loop calls the same kernels as the step API (:mod:`engines.recurring.core`) and the
compiled policies of :mod:`agents.recurring`; game ``i`` uses seed word
``game_seeds(seed, n)[i]`` for its deal and seat ``p`` draws its policy's chance from
``seat_streams(word, n_players)[p]``, so game ``i`` equals the step-API game
``new_game(config, seed, game_index=i)`` driven by the same agents.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from agents.recurring import act, resolve
from engines.recurring import core as C
from engines.recurring.config import RecurringConfig
from engines.splitmix import game_seeds, seat_streams

__all__ = ["play_batch", "play_games", "match_results"]


@njit(cache=True)
def play_games(cfg, seeds, kinds, params, points, emptied, stats):
    """Play ``len(seeds)`` whole games; write per-game outcomes into the output arrays.

    ``cfg``: ``int64`` (3,); ``seeds``: ``int64`` (G,) seed words; ``kinds``: ``int64`` (P,);
    ``params``: ``float64`` (P, 8). Outputs (row = game): ``points`` int64 (G, P),
    ``emptied`` int64 (G, P) 1 if the seat emptied its hand, ``stats`` int64 (G, 3) = rounds,
    decisions, start player.
    """
    n = cfg[0]
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    for g in range(seeds.shape[0]):
        st = C.init_state(cfg, seeds[g])
        rngs = seat_streams(seeds[g], n)
        while st[C.PHASE] != C.PHASE_OVER:
            p = st[C.CUR]
            k = C.legal_actions(st, legal)
            a = act(kinds[p], st, p, legal, k, params[p], rngs[p:p + 1])
            C.apply_action(st, a)
        for p in range(n):
            points[g, p] = st[C.POINTS + p]
            emptied[g, p] = st[C.EMPTIED + p]
        stats[g, 0] = st[C.ROUND]
        stats[g, 1] = st[C.DECISIONS]
        stats[g, 2] = st[C.FIRST_START]


def play_batch(config: RecurringConfig | None, policies, n_games: int,
               seed: int = 0) -> pd.DataFrame:
    """Play ``n_games`` games of ReCURRRing with one policy per seat; one row per game.

    ``policies``: one entry per seat (a name of :data:`agents.recurring.REGISTRY`, a
    ``(name, params)`` pair or an :class:`agents.recurring.Agent`). Columns: ``game`` (the
    ``game_index`` of :func:`engines.recurring.new_game`), ``match`` (``game //
    games_per_match``), ``game_in_match``, ``start_player`` (holder of the 1), ``rounds``,
    ``decisions`` (the game's length in decisions), and per seat ``p``: ``points_p`` and
    ``emptied_p``. Raises ``ValueError`` for a bad config, policy list, ``n_games`` or seed.
    """
    config = RecurringConfig() if config is None else config
    if not isinstance(config, RecurringConfig):
        raise ValueError(f"config {config!r} is not a RecurringConfig")
    if not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games {n_games!r}: expected an integer >= 0")
    n = config.n_players
    kinds, params = resolve(policies, n)
    seeds = game_seeds(seed, n_games)
    points = np.zeros((n_games, n), dtype=np.int64)
    emptied = np.zeros((n_games, n), dtype=np.int64)
    stats = np.zeros((n_games, 3), dtype=np.int64)
    play_games(config.to_array(), seeds, kinds, params, points, emptied, stats)
    games = np.arange(n_games)
    cols = {"game": games, "match": games // config.games_per_match,
            "game_in_match": games % config.games_per_match, "start_player": stats[:, 2],
            "rounds": stats[:, 0], "decisions": stats[:, 1]}
    for p in range(n):
        cols[f"points_{p}"] = points[:, p]
    for p in range(n):
        cols[f"emptied_{p}"] = emptied[:, p].astype(bool)
    return pd.DataFrame(cols)


def match_results(games: pd.DataFrame, config: RecurringConfig | None = None) -> pd.DataFrame:
    """Per-match totals and winners from a :func:`play_batch` frame (rules "Scoring": a match
    is ``games_per_match`` games, highest total wins, ties per ``match_tie``).

    Returns one row per match: ``match``, ``total_p`` and ``win_p`` (win share: 1, 1/k for a
    shared tie, 0) per seat. Raises ``ValueError`` if the frame lacks ``points_*`` columns or
    holds an incomplete match.
    """
    config = RecurringConfig() if config is None else config
    seats = sorted(int(c.split("_")[1]) for c in games.columns if c.startswith("points_"))
    if not seats:
        raise ValueError("frame has no points_<seat> columns: expected play_batch output")
    g = config.games_per_match
    if len(games) % g:
        raise ValueError(f"{len(games)} games do not make whole matches of {g} games")
    pts = games[[f"points_{p}" for p in seats]].to_numpy().reshape(-1, g, len(seats))
    totals = pts.sum(axis=1)
    top = totals == totals.max(axis=1, keepdims=True)
    n_top = top.sum(axis=1, keepdims=True)
    if config.match_tie == "shared":
        wins = top / n_top
    else:
        wins = top * (n_top == 1)
    out = {"match": np.arange(totals.shape[0])}
    for i, p in enumerate(seats):
        out[f"total_{p}"] = totals[:, i]
    for i, p in enumerate(seats):
        out[f"win_{p}"] = wins[:, i].astype(float)
    return pd.DataFrame(out)
