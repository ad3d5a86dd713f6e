"""Door 2 into Rats: :func:`play_batch`, whole games in one compiled loop.

The loop calls the same kernels as the step API (:mod:`engines.rats.core`) and the compiled
policies of :mod:`agents.rats`; game ``i`` uses seed word ``game_seeds(seed, n)[i]``
(:mod:`engines.splitmix`) for the deal and later shuffles, and seat ``p``'s policy draws from
``seat_streams(word, n_players)[p]``. So game ``i`` equals the step-API game
``new_game(config, seed, game_index=i)`` driven by the same agents.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from numba import njit

from agents.rats import act, resolve
from engines.rats import core as C
from engines.rats.config import RatsConfig
from engines.splitmix import game_seeds, seat_streams

__all__ = ["play_batch", "play_games"]


@njit(cache=True)
def play_games(cfg, seeds, kinds, params, wins, places, holdings, elim, stats):
    """Play ``len(seeds)`` whole games; write per-game outcomes into the output arrays.

    ``cfg``: ``int64`` (9,) config array; ``seeds``: ``int64`` (G,) seed words; ``kinds``:
    ``int64`` (P,) policy numbers; ``params``: ``float64`` (P, 8). Outputs, all row = game:
    ``wins`` float64 (G, P) win shares, ``places`` int64 (G, P), ``holdings`` int64 (G, P)
    final holding sizes, ``elim`` int64 (G, P) elimination rounds (0 = survived), ``stats``
    int64 (G, 4) = rounds, decisions, tricks, truncated.
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
        r = C.returns(st)
        for p in range(n):
            wins[g, p] = r[p]
            places[g, p] = st[C.PLACE + p]
            holdings[g, p] = C.popcount(st[C.ASIDE + p]) if st[C.ALIVE + p] else 0
            elim[g, p] = st[C.ELIM_ROUND + p]
        stats[g, 0] = st[C.ROUND]
        stats[g, 1] = st[C.DECISIONS]
        stats[g, 2] = st[C.TRICKS]
        stats[g, 3] = st[C.TRUNCATED]


def play_batch(config: RatsConfig | None, policies, n_games: int, seed: int = 0) -> pd.DataFrame:
    """Play ``n_games`` games of Rats with one policy per seat; one DataFrame row per game.

    ``policies``: one entry per seat, a name of :data:`agents.rats.REGISTRY`, a
    ``(name, params)`` pair or an :class:`agents.rats.Agent`. Columns: ``game`` (index, the
    ``game_index`` of :func:`engines.rats.new_game`), ``rounds``, ``decisions`` (the game's
    length in decisions), ``tricks``, ``truncated``, and per seat ``p``: ``win_p`` (win share),
    ``place_p`` (1 = winner), ``holding_p`` (final holding size, 0 if eliminated),
    ``elim_round_p`` (0 = not eliminated). Raises ``ValueError`` for a bad config, policy list,
    ``n_games`` or seed.
    """
    config = RatsConfig() if config is None else config
    if not isinstance(config, RatsConfig):
        raise ValueError(f"config {config!r} is not a RatsConfig")
    if not isinstance(n_games, (int, np.integer)) or n_games < 0:
        raise ValueError(f"n_games {n_games!r}: expected an integer >= 0")
    n = config.n_players
    kinds, params = resolve(policies, n)
    seeds = game_seeds(seed, n_games)
    wins = np.zeros((n_games, n), dtype=np.float64)
    places = np.zeros((n_games, n), dtype=np.int64)
    holdings = np.zeros((n_games, n), dtype=np.int64)
    elim = np.zeros((n_games, n), dtype=np.int64)
    stats = np.zeros((n_games, 4), dtype=np.int64)
    play_games(config.to_array(), seeds, kinds, params, wins, places, holdings, elim, stats)
    cols = {"game": np.arange(n_games), "rounds": stats[:, 0], "decisions": stats[:, 1],
            "tricks": stats[:, 2], "truncated": stats[:, 3].astype(bool)}
    for p in range(n):
        cols[f"win_{p}"] = wins[:, p]
        cols[f"place_{p}"] = places[:, p]
        cols[f"holding_{p}"] = holdings[:, p]
        cols[f"elim_round_{p}"] = elim[:, p]
    return pd.DataFrame(cols)
