"""Is the learned policy ``net`` strong at the speed of a heuristic? The learned policy's targets,
measured on the same deals for every agent, with 95% intervals and games per second of one
core measured in this one process beside the heuristic.

Run: ``python benchmarks/learned.py [--games river_rats,lure,rats,recurring] [--deals 4000]
[--search-deals 400] [--seed 2501]``.

- River Rats (team game; normal difficulty, random Rat pairs): the win rate of ``heuristic``,
  ``net`` and ``pimc-fast`` with every seat played by that agent, at 4 players and alone;
  ``--search-deals`` deals for ``pimc-fast`` (the first of the same deals, net and heuristic
  repeated on them).
- Lure, Rats, ReCURRRing (4 players): duplicate matches against ``heuristic``
  (:func:`experiments.learn.evaluate.duplicate`): ``net`` on ``--deals`` deals (difference,
  interval, p-value), and ``net`` and ``pimc-fast`` on the first ``--search-deals`` deals:
  the share of the heuristic-to-pimc-fast gap that ``net`` closes.
- Speed: games/s of ``net`` and ``heuristic`` in every seat, same process, one core, over
  ``--speed-rounds`` alternating rounds (``--speed-games`` games of ``net``, four times as many
  of the heuristic, each round on other seeds): the medians, and the median of the rounds'
  ratios with their lowest and highest (``value``, ``low``, ``high``).

Writes ``benchmarks/results/learned.csv`` (one row per figure) and prints a table with the
CPU and the load.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    import numpy as np
    import pandas as pd

    from experiments.io import cpu_model
    from experiments.learn.evaluate import TEAM_GAMES, duplicate, speed, team

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="river_rats,lure,rats,recurring")
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--search-deals", type=int, default=400)
    ap.add_argument("--speed-games", type=int, default=2000)
    ap.add_argument("--speed-rounds", type=int, default=5,
                    help="alternating speed rounds (heuristic, net); the median ratio is kept")
    ap.add_argument("--seed", type=int, default=2501)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "learned.csv"))
    args = ap.parse_args(argv)
    print(f"CPU: {cpu_model()}; load {os.getloadavg()[0]:.2f} at start", flush=True)
    rows = []
    for game in [g.strip() for g in args.games.split(",") if g.strip()]:
        if game in TEAM_GAMES:
            for n in (4, 1):
                for r in team(game, ["heuristic", "net"], n, args.deals, args.seed):
                    rows.append({"game": game, "design": "team", **r})
                for r in team(game, ["heuristic", "net", "pimc-fast"], n, args.search_deals,
                              args.seed):
                    rows.append({"game": game, "design": "team-search-deals", **r})
        else:
            n = 4
            for r in duplicate(game, ["net"], n, args.deals, args.seed):
                rows.append({"game": game, "design": "duplicate", **r})
            sub = duplicate(game, ["net", "pimc-fast"], n, args.search_deals, args.seed)
            for r in sub:
                rows.append({"game": game, "design": "duplicate-search-deals", **r})
            gap = sub[1]["diff"]
            rows.append({"game": game, "design": "gap-closed", "agent": "net", "players": n,
                         "value": sub[0]["diff"] / gap if gap else float("nan")})
        n = 4
        hs, ss = [], []
        for r in range(args.speed_rounds):  # alternating rounds: both see the same load
            hs.append(speed(game, "heuristic", n, args.speed_games * 4, seed=1 + r))
            ss.append(speed(game, "net", n, args.speed_games, seed=1 + r))
        ratios = [s / h for s, h in zip(ss, hs, strict=True)]
        rows.append({"game": game, "design": "speed", "agent": "heuristic", "players": n,
                     "games_per_s": float(np.median(hs))})
        rows.append({"game": game, "design": "speed", "agent": "net", "players": n,
                     "games_per_s": float(np.median(ss)), "value": float(np.median(ratios)),
                     "low": min(ratios), "high": max(ratios)})
        for r in rows:
            if r["game"] == game:
                print({k: (round(v, 4) if isinstance(v, float) else v) for k, v in r.items()},
                      flush=True)
    df = pd.DataFrame(rows)
    df["load"] = os.getloadavg()[0]
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    print(f"wrote {args.out}; load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
