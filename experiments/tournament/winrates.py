"""The agent win-rate table (``boardlab winrates``): each agent's win rate with its 95% interval
at every player count asked, one table for every game.

- Cooperative River Rats: each agent is the whole team; every agent plays the same game seeds
  (``agents.loop.play_batch(config, agent, games, seed)``: common random numbers), so the
  differences between agents are not deck luck. Wilson intervals.
- Competitive games (Rats, ReCURRRing, Lure): per player count, a duplicate-format tournament
  of the agents (:func:`experiments.tournament.run.run_tournament`: every table in every seat
  rotation on the same deals); an agent's win rate is its mean win share per game, with the
  deal-clustered interval, next to the fair share ``1/n``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from experiments.stats import wilson_interval

__all__ = ["winrates", "format_winrates"]


def winrates(game: str, agents, players, games: int, seed: int = 0, n_jobs: int = 1,
             options: dict | None = None, progress: bool = False,
             batch_size: int = 100) -> pd.DataFrame:
    """One row per (agent, player count): ``agent``, ``players``, ``games``, ``win_rate``,
    ``ci_low``, ``ci_high`` (95%), ``fair_share`` (1/n; River Rats: none). ``agents``: names
    (comma text or list); ``players``: player counts; ``games``: games per agent and player
    count (River Rats) or deals per player count (competitive games); ``batch_size``: deals
    per work unit of the competitive games' tournaments (the numbers depend on it, not on
    ``n_jobs``; River Rats plays in one process). Raises ``ValueError`` for a bad game, agent,
    player count or size."""
    from agents.loop import play_batch
    from experiments.tournament.games import get_adapter, parse_agents
    from experiments.tournament.run import run_tournament

    ad = get_adapter(game)
    text = agents if isinstance(agents, str) else ",".join(agents)
    refs = parse_agents(text, ad)
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 2:
        raise ValueError(f"bad --games {games!r}: expected an integer >= 2")
    rows = []
    for n in players:
        ad.check_players(n)
        if ad.cooperative:
            cfg = ad.config(n, options)
            for r in refs:
                df = play_batch(cfg, r.base, int(games), seed=seed, params=np.asarray(r.params),
                                game=ad.name)
                w = int(df["won"].sum())
                lo, hi = wilson_interval(w, len(df))
                rows.append({"agent": r.label, "players": n, "games": len(df),
                             "win_rate": w / len(df), "ci_low": float(lo), "ci_high": float(hi),
                             "fair_share": np.nan})
            continue
        res = run_tournament(ad.name, refs, n, int(games), seed=seed, options=options,
                             n_jobs=n_jobs, rating_deals=0, save=False, progress=progress,
                             batch_size=batch_size)
        tab = res.agents
        for r in refs:
            row = tab.loc[r.label]
            rows.append({"agent": r.label, "players": n, "games": int(row["games"]),
                         "win_rate": float(row["win_rate"]), "ci_low": float(row["win_low"]),
                         "ci_high": float(row["win_high"]), "fair_share": 1.0 / n})
    return pd.DataFrame(rows)


def format_winrates(df: pd.DataFrame) -> str:
    """A Markdown table: agents by row, player counts by column, ``rate% [low, high]``."""
    players = sorted(df["players"].unique())
    head = "| agent | " + " | ".join(
        f"{n} player{'s' if n > 1 else ''}" + (f" (fair {1 / n:.2f})" if df.loc[
            df.players == n, "fair_share"].notna().any() else "") for n in players) + " |"
    lines = [head, "|" + " --- |" * (len(players) + 1)]
    for agent in dict.fromkeys(df["agent"]):
        cells = []
        for n in players:
            r = df[(df.agent == agent) & (df.players == n)]
            if r.empty:
                cells.append("")
                continue
            r = r.iloc[0]
            cells.append(f"{100 * r.win_rate:.1f}% [{100 * r.ci_low:.1f}, {100 * r.ci_high:.1f}]")
        lines.append(f"| `{agent}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)
