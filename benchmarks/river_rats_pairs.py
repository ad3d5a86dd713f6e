"""Throughput of the whole rat-pair experiment (``boardlab river-rats pairs``) at 1 and 2
workers (or more), side by side in one run: games/s and parallel efficiency.

Run: ``python benchmarks/river_rats_pairs.py [--games N] [--players 1..4] [--jobs 1 2]``.
Each configuration runs the same experiment (same seeds, so identical tables, which is
checked); worker start-up and Numba cache loading are part of the wall time, as a user sees it.
A warm-up run first loads (or compiles) the kernels and is not counted.
"""

from __future__ import annotations

import argparse
import os
import time

import pandas as pd


def main(argv=None) -> int:
    from experiments.io import machine_info
    from experiments.cli.pairs import river_rats_players
    from experiments.pairs.job import PairsSpec, run_pairs

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20_000, help="games per pair and player count")
    ap.add_argument("--players", nargs="+", default=["1..4"])
    ap.add_argument("--agents", default="heuristic")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--batch-size", type=int, default=5_000)
    args = ap.parse_args(argv)

    spec = PairsSpec(players=river_rats_players(args.players), agents=args.agents, games=args.games)
    m = machine_info()
    print(f"machine: {m['processor']}, {os.cpu_count()} cores; experiment: "
          f"{len(spec.cells())} cells x {args.games:,} games, agents {args.agents}")
    t0 = time.perf_counter()
    run_pairs(PairsSpec(players=spec.players, agents=args.agents, games=200), n_jobs=1,
              batch_size=100, progress=False)
    print(f"warm-up (compile or cache load): {time.perf_counter() - t0:.1f} s\n")
    print(f"{'jobs':>5}{'games':>12}{'wall s':>9}{'games/s':>11}{'speed-up':>10}{'efficiency':>12}")
    base = None
    ref_table = None
    for j in args.jobs:
        t0 = time.perf_counter()
        table, res = run_pairs(spec, n_jobs=j, batch_size=args.batch_size, progress=False)
        wall = time.perf_counter() - t0
        games = int(table["games"].sum())
        rate = games / wall
        base = base or rate
        print(f"{j:>5}{games:>12,}{wall:>9.1f}{rate:>11,.0f}{rate / base:>9.2f}x"
              f"{rate / base / j:>11.0%}")
        if ref_table is None:
            ref_table = table
        else:
            pd.testing.assert_frame_equal(ref_table, table)
    print("\nidentical tables for every number of workers: yes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
