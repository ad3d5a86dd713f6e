"""Throughput of the River Rats engine: whole games per second of the compiled batch simulator
(:func:`engines.river_rats.play_batch`) against the same games driven through the step API
from Python (:func:`engines.river_rats.play_game_stepwise`), at 1-4 players, with the
``random`` policy and the best heuristic (``heuristic``), normal difficulty, random Rats.

Run: ``python benchmarks/river_rats.py [--quick]``. One process, one core. Compile time (or
the numba cache load) is measured apart and kept out of the figures. Targets (issue 3, one
core, 4 players): >= 20,000 games/s with random, >= 5,000 games/s with the heuristic.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer games (a smoke run)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    from engines.river_rats import Config, game_seed, play_batch, play_game_stepwise

    play_batch(Config(n_players=2), "heuristic", 2, seed=0)
    play_game_stepwise(Config(n_players=2), "heuristic", 1)
    setup = time.perf_counter() - t0

    n_batch = {"random": 20_000, "heuristic": 5_000}
    n_step = {"random": 20, "heuristic": 10}
    if args.quick:
        n_batch = {k: v // 10 for k, v in n_batch.items()}
        n_step = {k: max(2, v // 5) for k, v in n_step.items()}
    rows = []
    for policy in ("random", "heuristic"):
        for n in (1, 2, 3, 4):
            cfg = Config(n_players=n)
            play_batch(cfg, policy, 1, seed=0)  # warm-up: lazy loads kept out of the figures
            play_game_stepwise(cfg, policy, 0)
            t = time.perf_counter()
            df = play_batch(cfg, policy, n_batch[policy], seed=1)
            tb = time.perf_counter() - t
            t = time.perf_counter()
            for g in range(n_step[policy]):
                play_game_stepwise(cfg, policy, int(game_seed(1, g)))
            ts = time.perf_counter() - t
            rows.append((policy, n, n_batch[policy] / tb, n_step[policy] / ts,
                         df["won"].mean(), df["n_actions"].mean()))
    print(f"River Rats throughput (games/s, one core; pid {os.getpid()}, "
          f"load average {os.getloadavg()[0]:.2f})")
    print(f"compile / cache load before timing: {setup:.1f} s")
    print(f"{'policy':<10} {'players':>7} {'batch':>11} {'step API':>9} {'ratio':>7} "
          f"{'win rate':>9} {'actions/game':>13}")
    for pol, n, gb, gs, wr, na in rows:
        print(f"{pol:<10} {n:>7} {gb:>11,.0f} {gs:>9,.1f} {gb / gs:>7,.0f}x {wr:>9.3f} {na:>13.1f}")
    for pol, target in (("random", 20_000), ("heuristic", 5_000)):
        gb = next(r[2] for r in rows if r[0] == pol and r[1] == 4)
        print(f"target {pol} at 4 players: {target:,} games/s -> measured {gb:,.0f} "
              f"({'met' if gb >= target else 'NOT met'})")


if __name__ == "__main__":
    main()
