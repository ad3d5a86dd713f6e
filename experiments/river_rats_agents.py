"""Win rate of each River Rats agent at 1-4 players with a 95% Wilson interval (the table of
the README's River Rats section).

Run: ``python -m experiments.river_rats_agents [--games N] [--seed S] [--difficulty D]``.
Every seat plays the same policy; normal difficulty and random Rats unless told otherwise;
all agents play the same game seeds (common random numbers for the deal of each game).
"""

from __future__ import annotations

import argparse

import pandas as pd

from experiments.stats import wilson_interval

AGENTS = ("random", "greedy", "heuristic", "peek")


def agent_win_rates(players=(1, 2, 3, 4), agents=AGENTS, games: int = 20_000, seed: int = 2026,
                    difficulty: str = "normal") -> pd.DataFrame:
    """One row per (agent, players): games, wins, win rate, 95% Wilson interval (``ci_low``,
    ``ci_high``), mean hands won / lost, mean rounds, jokers earned per game. Uses
    :func:`engines.river_rats.play_batch`; raises ``ValueError`` for bad arguments."""
    from engines.river_rats import Config, play_batch

    rows = []
    for agent in agents:
        for n in players:
            df = play_batch(Config(n_players=n, difficulty=difficulty), agent, games, seed=seed)
            wins = int(df["won"].sum())
            lo, hi = wilson_interval(wins, games)
            rows.append({"agent": agent, "players": n, "games": games, "wins": wins,
                         "win_rate": wins / games, "ci_low": float(lo), "ci_high": float(hi),
                         "hands_won": df["hands_won"].mean(), "hands_lost": df["hands_lost"].mean(),
                         "rounds": df["rounds"].mean(), "jokers": df["jokers_earned"].mean()})
    return pd.DataFrame(rows)


def markdown(table: pd.DataFrame) -> str:
    """The table as Markdown: win rate % [95% CI] per agent (rows) and player count."""
    lines = ["| agent | " + " | ".join(f"{n} player{'s' if n > 1 else ''}"
                                      for n in sorted(table["players"].unique())) + " |"]
    lines.append("| --- |" + " --- |" * table["players"].nunique())
    for agent, g in table.groupby("agent", sort=False):
        cells = [f"{100 * r.win_rate:.1f}% [{100 * r.ci_low:.1f}, {100 * r.ci_high:.1f}]"
                 for r in g.sort_values("players").itertuples()]
        lines.append(f"| `{agent}` | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--difficulty", default="normal")
    args = ap.parse_args(argv)
    tab = agent_win_rates(games=args.games, seed=args.seed, difficulty=args.difficulty)
    print(markdown(tab))
    print()
    print(tab.round(3).to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
