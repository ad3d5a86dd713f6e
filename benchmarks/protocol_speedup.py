"""Throughput of the one-protocol engines against the pre-protocol engines (commit ``4d0b703``,
the last commit before the redesign), side by side in one run: for each game, policy
(``random``, ``heuristic``) and player count, whole games per second of the batch loop, CPU
time on one core, compile time excluded; rounds alternate old/new and the median is reported
with the ratio new/old.

Run: ``python benchmarks/protocol_speedup.py [--old-ref 4d0b703] [--rounds 3] [--quick]
[--only river_rats/random]`` (``--only``: the cells whose ``game/policy/players`` starts with
one of the given prefixes). An ``--old-ref`` after the redesign (one with ``agents/loop.py``,
e.g. ``HEAD``) is measured through the same loop as the working tree: a same-run check that a
change costs no speed.
The old code is checked out with ``git worktree`` into a temporary folder and run in
subprocesses with ``PYTHONPATH`` pointing at it (each version with its own Numba cache), so
both versions run the same measurement on the same machine in the same run. Needs the git
history (a clone, not an export).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CELLS = [(g, pol, n) for g, ns in (("river_rats", (1, 2, 3, 4)), ("lure", (2, 3, 4, 5)),
                                   ("rats", (2, 3, 4, 5)), ("recurring", (3, 4, 5)))
         for pol in ("random", "heuristic") for n in ns]
GAMES = {("river_rats", "random"): 20_000, ("river_rats", "heuristic"): 3_000,
         ("lure", "random"): 20_000, ("lure", "heuristic"): 5_000,
         ("rats", "random"): 20_000, ("rats", "heuristic"): 1_000,
         ("recurring", "random"): 40_000, ("recurring", "heuristic"): 40_000}

_MEASURE = r'''
import json, os, sys, time
version, quick = sys.argv[1], sys.argv[2] == "1"
cells = json.loads(sys.argv[3])
pre_protocol = not os.path.exists(os.path.join("agents", "loop.py"))

def runner(game, pol, n):
    if version == "old" and pre_protocol:
        if game == "river_rats":
            from engines.river_rats import Config, play_batch
            return lambda k, s: play_batch(Config(n_players=n), pol, k, seed=s)
        if game == "rats":
            from engines.rats import RatsConfig
            from engines.rats.batch import play_batch
            return lambda k, s: play_batch(RatsConfig(n_players=n), [pol] * n, k, seed=s)
        if game == "recurring":
            from engines.recurring import RecurringConfig
            from engines.recurring.batch import play_batch
            return lambda k, s: play_batch(RecurringConfig(n_players=n), [pol] * n, k, seed=s)
        from engines.lure import LureConfig
        from engines.lure.batch import play_batch
        return lambda k, s: play_batch(LureConfig(n_players=n), [pol] * n, k, seed=s)
    from agents.loop import play_batch
    from engines.protocol import game_class
    cfg = game_class(game).config_class(n_players=n)
    return lambda k, s: play_batch(cfg, pol, k, seed=s)

out = {}
for game, pol, n, k in cells:
    k = max(50, k // 10) if quick else k
    run = runner(game, pol, n)
    run(4, 0)
    t = time.process_time()
    run(k, 1)
    out[f"{game}/{pol}/{n}"] = k / (time.process_time() - t)
print(json.dumps(out))
'''


def _run(version: str, path: Path, cache: Path, quick: bool, cells_run) -> dict:
    env = dict(os.environ, PYTHONPATH=str(path), NUMBA_CACHE_DIR=str(cache))
    env.pop("BOARDLAB_CACHE_DIR", None)
    cells = json.dumps([[g, p, n, GAMES[(g, p)]] for g, p, n in cells_run])
    res = subprocess.run([sys.executable, "-c", _MEASURE, version, "1" if quick else "0", cells],
                         cwd=path, env=env, capture_output=True, text=True, check=False)
    if res.returncode != 0:
        raise RuntimeError(f"{version} measurement failed:\n{res.stderr[-3000:]}")
    return json.loads(res.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-ref", default="4d0b703", help="git ref of the old code")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds per version")
    ap.add_argument("--quick", action="store_true", help="a tenth of the games (smoke run)")
    ap.add_argument("--only", nargs="*", default=None, metavar="PREFIX",
                    help="only the cells whose game/policy/players starts with a prefix")
    args = ap.parse_args(argv)
    cells_run = [c for c in CELLS if not args.only
                 or any(f"{c[0]}/{c[1]}/{c[2]}".startswith(x) for x in args.only)]
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old),
                        args.old_ref], check=True, capture_output=True)
        try:
            runs: dict[str, list[dict]] = {"old": [], "new": []}
            load = []
            for _ in range(args.rounds):
                for version, path in (("old", old), ("new", ROOT)):
                    load.append(os.getloadavg()[0])
                    runs[version].append(_run(version, path, Path(tmp) / f"cache_{version}",
                                              args.quick, cells_run))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           check=False, capture_output=True)
    print(f"games/s per core (CPU time, median of {args.rounds} alternating rounds; load "
          f"average {min(load):.2f}-{max(load):.2f} during the run; old = {args.old_ref})")
    print(f"{'game':<11}{'policy':<11}{'players':>7}{'old':>11}{'new':>11}{'new/old':>9}")
    for g, p, n in cells_run:
        key = f"{g}/{p}/{n}"
        o = statistics.median(r[key] for r in runs["old"])
        w = statistics.median(r[key] for r in runs["new"])
        print(f"{g:<11}{p:<11}{n:>7}{o:>11,.0f}{w:>11,.0f}{w / o:>9.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
