"""Lure agents against each other: win rates with 95% Wilson intervals, and a tuning search.

* :func:`pairwise`: every pair of agents in 2-player games; each pair plays ``n_games`` games
  with each seating on the same seeds (common random numbers), so seat advantage cancels.
* :func:`rotation`: one agent per seat at ``n`` players, every rotation of the seating, same
  seeds for every rotation; win share of each agent against the fair share ``1/n``.
* :func:`tune_heuristic`: random search over the heuristic family's parameters, each
  candidate scored by its win share in one seat against greedy opponents (rotated seats),
  on common seeds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from agents import lure as A
from engines.lure.batch import play_batch
from engines.lure.config import LureConfig
from experiments.stats import wilson_interval


def pairwise(agents, n_games: int = 20000, seed: int = 0, deep_waters: bool = False,
             deck=None) -> pd.DataFrame:
    """Head-to-head 2-player win rates (one row per ordered pair ``agent`` vs ``opponent``).

    Columns: agent, opponent, games, wins (ties count 1/2), win_rate, low, high (95% Wilson).
    Raises ``ValueError`` for unknown agents or fewer than two.
    """
    names = [A.get_agent(a).name for a in agents]
    if len(names) < 2:
        raise ValueError(f"need at least two agents; got {names}")
    rows = []
    cfg = LureConfig(n_players=2, deep_waters=deep_waters)
    for i in range(len(agents)):
        for j in range(i + 1, len(agents)):
            s = seed + 1000 * i + j
            a = play_batch(cfg, [agents[i], agents[j]], n_games, s, deck)
            b = play_batch(cfg, [agents[j], agents[i]], n_games, s, deck)
            wins = float(a["win_0"].sum() + b["win_1"].sum())
            n = 2 * n_games
            for x, y, w in ((i, j, wins), (j, i, n - wins)):
                lo, hi = wilson_interval(w, n)
                rows.append({"agent": names[x], "opponent": names[y], "games": n, "wins": w,
                             "win_rate": w / n, "low": float(lo), "high": float(hi)})
    return pd.DataFrame(rows)


def rotation(agents, n_games: int = 20000, seed: int = 0, deep_waters: bool = False,
             deck=None) -> pd.DataFrame:
    """Win share of each agent at one table (``len(agents)`` players), every seat rotation.

    Columns: agent, seats (its seat-games), wins, win_rate, low, high, fair (1/n).
    """
    names = [A.get_agent(a).name for a in agents]
    n = len(agents)
    if not 2 <= n <= 5:
        raise ValueError(f"{n} agents; a table seats 2..5")
    cfg = LureConfig(n_players=n, deep_waters=deep_waters)
    wins = np.zeros(n)
    for r in range(n):
        seating = [agents[(s + r) % n] for s in range(n)]
        g = play_batch(cfg, seating, n_games, seed, deck)
        for s in range(n):
            wins[(s + r) % n] += g[f"win_{s}"].sum()
    total = n_games * n
    lo, hi = wilson_interval(wins, total)
    return pd.DataFrame({"agent": names, "seats": total, "wins": wins, "win_rate": wins / total,
                         "low": lo, "high": hi, "fair": 1.0 / n})


def score_against_greedy(spec, n_players: int, n_games: int, seed: int, deck=None) -> float:
    """Win share of ``spec`` in one seat against greedy opponents, over every seat."""
    cfg = LureConfig(n_players=n_players)
    w = 0.0
    for s in range(n_players):
        seating = ["greedy"] * n_players
        seating[s] = spec
        w += play_batch(cfg, seating, n_games, seed, deck)[f"win_{s}"].sum()
    return w / (n_games * n_players)


def tune_heuristic(n_players: int = 4, candidates: int = 40, n_games: int = 2000,
                   seed: int = 0, deck=None) -> pd.DataFrame:
    """Random search over the heuristic family (uniform within documented ranges).

    Returns a DataFrame, best first: the parameters (:data:`agents.lure.PARAM_NAMES`),
    ``win_rate`` against greedy opponents, its 95% interval and the fair share.
    """
    rng = np.random.default_rng(seed)
    lows = np.array([-0.5, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0])
    highs = np.array([0.8, 0.6, 2.0, 1.5, 2.0, 1.0, 0.2, 1.0])
    rows = []
    for k in range(candidates + 1):
        vec = A.HEURISTIC_PARAMS.copy() if k == 0 else rng.uniform(lows, highs)
        spec = A.heuristic(vec, f"cand{k}")
        w = score_against_greedy(spec, n_players, n_games, seed + 7, deck)
        lo, hi = wilson_interval(w * n_games * n_players, n_games * n_players)
        rows.append(dict(zip(A.PARAM_NAMES, vec, strict=True)) | {"win_rate": w, "low": float(lo),
                                                      "high": float(hi),
                                                      "fair": 1.0 / n_players})
    return pd.DataFrame(rows).sort_values("win_rate", ascending=False, ignore_index=True)
