"""Throughput of every game on the one protocol: whole games per second of the compiled game
loop (:func:`agents.loop.play_batch`) next to the same games driven through the step API from
Python (:func:`agents.loop.play_stepwise`), for ``random`` and the best heuristic at every
player count, in one process run.

Run: ``python benchmarks/games.py [--games river_rats,rats] [--quick]``. One process, one core.
Compile time (or the Numba cache load) is measured apart and kept out of the figures. The
batch/step ratio is the peer comparison (same games: tested equal game for game).
``benchmarks/protocol_speedup.py`` runs these measurements against an older commit.
"""

from __future__ import annotations

import argparse
import json
import os
import time

BATCH = {"random": {"river_rats": 20_000, "lure": 20_000, "rats": 20_000, "recurring": 40_000},
         "heuristic": {"river_rats": 4_000, "lure": 8_000, "rats": 8_000, "recurring": 40_000}}
STEP = {"random": 20, "heuristic": 10}
PLAYERS = {"river_rats": (1, 2, 3, 4), "lure": (2, 3, 4, 5), "rats": (2, 3, 4, 5),
           "recurring": (3, 4, 5)}


def measure(game: str, policy: str, n: int, n_batch: int, n_step: int) -> dict:
    """games/s of the batch loop and of the step API for one game, policy and player count."""
    from agents.loop import play_batch, play_stepwise
    from engines.protocol import chance
    from engines.protocol import game_class

    cfg = game_class(game).config_class(n_players=n)
    play_batch(cfg, policy, 2, seed=0)  # warm-up: lazy loads kept out of the figures
    t = time.perf_counter()
    play_batch(cfg, policy, n_batch, seed=1)
    tb = time.perf_counter() - t
    t = time.perf_counter()
    for g in range(n_step):
        play_stepwise(cfg, policy, chance.word_to_seed(chance.game_seed(chance.as_word(1), g)))
    ts = time.perf_counter() - t
    return {"game": game, "policy": policy, "players": n, "batch_games_per_s": n_batch / tb,
            "step_games_per_s": n_step / ts}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="river_rats,lure,rats,recurring",
                    help="comma-separated games (default all four)")
    ap.add_argument("--policies", default="random,heuristic")
    ap.add_argument("--quick", action="store_true", help="a tenth of the games (smoke run)")
    ap.add_argument("--json", action="store_true", help="print one JSON line per row")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    from agents.loop import play_batch  # noqa: F401 - import time is part of the setup
    setup = time.perf_counter() - t0
    rows = []
    for game in args.games.split(","):
        for policy in args.policies.split(","):
            for n in PLAYERS[game]:
                nb = BATCH[policy][game] // (10 if args.quick else 1)
                ns = max(2, STEP[policy] // (5 if args.quick else 1))
                r = measure(game, policy, n, nb, ns)
                rows.append(r)
                if args.json:
                    print(json.dumps(r), flush=True)
    if args.json:
        return 0
    print(f"throughput, games/s on one core (pid {os.getpid()}, load average "
          f"{os.getloadavg()[0]:.2f}); import {setup:.1f} s")
    print(f"{'game':<11}{'policy':<11}{'players':>7}{'batch':>11}{'step API':>10}{'ratio':>8}")
    for r in rows:
        print(f"{r['game']:<11}{r['policy']:<11}{r['players']:>7}{r['batch_games_per_s']:>11,.0f}"
              f"{r['step_games_per_s']:>10,.1f}"
              f"{r['batch_games_per_s'] / r['step_games_per_s']:>7,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
