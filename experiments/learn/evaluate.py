"""Judging a learned policy on fresh deals against its teacher and the heuristic: every agent
plays the same deals (common random numbers), with 95% intervals, and its speed in games per
second of one core measured in the same process as the heuristic's.

Two designs, as the games are: **team** (River Rats: every seat plays the agent; the win rate
with its Wilson interval) and **duplicate** (the competitive games: for every deal and seat,
the agent in that seat against ``baseline`` in the others, compared with ``baseline`` in that
seat on the same deal; the mean paired difference of the seat's return with a t interval and
the two-sided p-value of the paired t-test, as ``benchmarks/search_vs_heuristic.py``).
"""

from __future__ import annotations

import time

import numpy as np

from engines.names import DESCRIPTIONS

__all__ = ["team", "duplicate", "speed", "TEAM_GAMES"]

TEAM_GAMES = tuple(g for g, d in DESCRIPTIONS.items() if d.cooperative)
"""Games whose players win or lose together (judged by :func:`team`)."""


def _config(game: str, n_players: int, config: dict | None):
    from engines.protocol import game_class

    return game_class(game)._as_config(dict(config or {}, n_players=int(n_players)))


def speed(game: str, agent: str, n_players: int, n_games: int, seed: int = 1,
          config: dict | None = None) -> float:
    """Games per second of one core (process time) of ``agent`` in every seat over
    ``n_games`` seeded games (compilation and weight loading not timed)."""
    from agents.loop import run_games
    from engines.protocol import chance

    cfg = _config(game, n_players, config)
    seeds = chance.game_seeds(chance.as_word(seed), int(n_games))
    run_games(cfg, agent, seeds[:1])
    t0 = time.process_time()
    run_games(cfg, agent, seeds)
    return n_games / max(time.process_time() - t0, 1e-9)


def team(game: str, agents, n_players: int, deals: int, seed: int = 0,
         config: dict | None = None) -> list[dict]:
    """Win rate of each of ``agents`` (names) playing every seat on the same ``deals`` seeded
    deals: one dict per agent (``agent``, ``games``, ``wins``, ``rate``, ``low``, ``high``
    (95% Wilson), ``games_per_s`` (one core, this process))."""
    from agents.loop import run_games
    from engines.protocol import chance
    from experiments.stats import wilson_interval

    cfg = _config(game, n_players, config)
    seeds = chance.game_seeds(chance.as_word(seed), int(deals))
    out = []
    for a in agents:
        run_games(cfg, a, seeds[:1])
        t0 = time.process_time()
        ret, _ = run_games(cfg, a, seeds)
        dt = time.process_time() - t0
        wins = int((ret[:, 0] > 0).sum())
        lo, hi = wilson_interval(wins, int(deals))
        out.append({"agent": a, "players": int(n_players), "games": int(deals), "wins": wins,
                    "rate": wins / deals, "low": float(lo), "high": float(hi),
                    "games_per_s": deals / max(dt, 1e-9)})
    return out


def duplicate(game: str, agents, n_players: int, deals: int, seed: int = 0,
              baseline: str = "heuristic", config: dict | None = None) -> list[dict]:
    """Duplicate matches of each of ``agents`` against ``baseline`` (module docstring) on the
    same ``deals`` seeded deals: one dict per agent (``agent``, ``units`` deal x seat pairs,
    ``mean`` and ``base_mean`` returns, ``diff`` with ``low``/``high`` 95% t interval, ``p``
    the paired t-test's two-sided p-value, ``games_per_s`` of its tables (one core))."""
    from scipy.stats import ttest_rel

    from agents.loop import run_games
    from engines.protocol import chance

    cfg = _config(game, n_players, config)
    seeds = chance.game_seeds(chance.as_word(seed), int(deals))
    n = int(n_players)
    run_games(cfg, baseline, seeds[:1])
    base_ret, _ = run_games(cfg, baseline, seeds)
    base = np.concatenate([base_ret[:, p] for p in range(n)])
    out = []
    for a in agents:
        got = []
        cpu = 0.0
        for p in range(n):
            pols = [baseline] * n
            pols[p] = a
            run_games(cfg, pols, seeds[:1])
            t0 = time.process_time()
            r, _ = run_games(cfg, pols, seeds)
            cpu += time.process_time() - t0
            got.append(r[:, p])
        mine = np.concatenate(got)
        d = mine - base
        half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
        pv = float(ttest_rel(mine, base).pvalue) if np.any(d != 0) else 1.0
        out.append({"agent": a, "players": n, "units": int(d.size), "mean": float(mine.mean()),
                    "base_mean": float(base.mean()), "diff": float(d.mean()),
                    "low": float(d.mean() - half), "high": float(d.mean() + half), "p": pv,
                    "games_per_s": d.size / max(cpu, 1e-9)})
    return out
