"""River Rats ``heuristic`` policy: whole games per second of the current policy kernel next to
the kernel before its rewrite (``agents/river_rats.py`` at git revision ``60d4f08``),
side by side in one process run, on one core, at 1-4 players.

Run: ``python benchmarks/river_rats_heuristic.py [--players 1,2,3,4] [--games 1000]
[--rounds 9] [--baseline 60d4f08] [--quick] [--json]``. Needs the git history (a clone, not an
export) to load the baseline.

Both kernels sit in every seat as user policies of the one compiled game loop
(:func:`agents.loop.run_games`), so they run through the same loop, the same engine and the
same poker evaluator and differ only in the policy code. The baseline module is the old file
imported under its own name (kept under the system temp folder, so its Numba cache is reused
between runs). A third column times the shipped path (``run_games(config, "heuristic", ...)``,
cached, the way experiments call it). Every round plays a fresh set of games with each
contender once, in an order rotated from round to round, and takes the ratio old/new inside the
round, so load from other work hits both sides of a ratio alike; the table prints the median
over rounds of games/s (CPU time of this process) and of the ratio. Before timing, the first
games of every player count are checked to be the same games (equal outcome rows) for old and
new. Compile (or cache load) time is measured apart and printed, never part of the figures.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BASELINE = "60d4f08"


def load_baseline(rev: str):
    """``agents/river_rats.py`` as of git revision ``rev``, imported as the module
    ``river_rats_<rev>`` from a file under the system temp folder (rewritten only when its text
    changes, so Numba's cache of it stays valid). Raises ``RuntimeError`` if git cannot show
    the file."""
    try:
        src = subprocess.run(["git", "show", f"{rev}:agents/river_rats.py"], cwd=ROOT,
                             check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        raise RuntimeError(f"cannot load agents/river_rats.py at {rev!r} (needs a git clone): "
                           f"{e}") from e
    name = f"river_rats_{rev}"
    folder = Path(tempfile.gettempdir()) / f"boardlab_bench_{name}"
    folder.mkdir(exist_ok=True)
    path = folder / f"{name}.py"
    if not path.exists() or path.read_text() != src:
        path.write_text(src)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def measure(n_players: int, old_policy, games: int, rounds: int) -> dict:
    """games/s (median over ``rounds``) of the baseline and the current ``heuristic`` as user
    policies and of the shipped path, and the median per-round ratios; ``ValueError`` if old
    and new play different games."""
    from agents import river_rats as river_rats_agents
    from agents.loop import run_games
    from engines.protocol import chance
    from engines.river_rats import RiverRatsConfig

    cfg = RiverRatsConfig(n_players=n_players)
    prm = river_rats_agents.DEFAULT_PARAMS
    runs = {"old": lambda sd: run_games(cfg, old_policy, sd, params=prm),
            "new": lambda sd: run_games(cfg, river_rats_agents.heuristic_policy, sd, params=prm),
            "shipped": lambda sd: run_games(cfg, "heuristic", sd)}
    check = chance.game_seeds(99, 200)
    t0 = time.perf_counter()
    outs = {k: f(check)[1] for k, f in runs.items()}  # compiles (or loads) each contender
    compile_s = time.perf_counter() - t0
    for k in ("new", "shipped"):
        if not np.array_equal(outs["old"], outs[k]):
            raise ValueError(f"{k} plays other games than the baseline at {n_players} players")
    times: dict[str, list] = {k: [] for k in runs}
    names = list(runs)
    for r in range(rounds):
        seeds = chance.game_seeds(1000 + r, games)
        for k in names[r % 3:] + names[:r % 3]:
            t = time.process_time()
            runs[k](seeds)
            times[k].append(time.process_time() - t)
    med = {k: float(np.median(v)) for k, v in times.items()}
    return {"players": n_players, "games_per_round": games, "rounds": rounds,
            "compile_s": compile_s,
            "old_games_per_s": games / med["old"], "new_games_per_s": games / med["new"],
            "shipped_games_per_s": games / med["shipped"],
            "ratio_new_old": float(np.median(np.array(times["old"]) / np.array(times["new"]))),
            "ratio_shipped_old": float(np.median(np.array(times["old"])
                                                 / np.array(times["shipped"])))}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", default="1,2,3,4", help="comma-separated player counts")
    ap.add_argument("--games", type=int, default=1000, help="games per contender and round")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--baseline", default=BASELINE, help="git revision of the old policy")
    ap.add_argument("--quick", action="store_true", help="200 games, 3 rounds (smoke run)")
    ap.add_argument("--json", action="store_true", help="print one JSON line per row")
    args = ap.parse_args(argv)
    games, rounds = (200, 3) if args.quick else (args.games, args.rounds)
    from experiments.io import machine_info

    old = load_baseline(args.baseline)
    rows = []
    for n in (int(x) for x in args.players.split(",")):
        r = measure(n, old.heuristic_policy, games, rounds)
        rows.append(r)
        if args.json:
            print(json.dumps(r), flush=True)
    if args.json:
        return 0
    m = machine_info()
    print(f"River Rats heuristic, games/s on one core (CPU time, median of {rounds} rounds of "
          f"{games} games); baseline agents/river_rats.py at {args.baseline}")
    print(f"{m['processor']}, {m['cpu_count']} cores, numba {m['numba']}; pid {os.getpid()}, "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'players':>7}{'old':>9}{'new':>9}{'new/old':>9}{'shipped':>9}{'ship/old':>9}"
          f"{'compile s':>11}")
    for r in rows:
        print(f"{r['players']:>7}{r['old_games_per_s']:>9,.0f}{r['new_games_per_s']:>9,.0f}"
              f"{r['ratio_new_old']:>8.2f}x{r['shipped_games_per_s']:>9,.0f}"
              f"{r['ratio_shipped_old']:>8.2f}x{r['compile_s']:>11.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
