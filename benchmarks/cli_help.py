"""Wall time of ``boardlab <command> --help``, each in a fresh process, next to a bare Python
start (``python -c pass``, the floor every command pays) measured in the same run, interleaved.

Run: ``python benchmarks/cli_help.py [--repeat 5]``. Prints, per command, the median wall time
in seconds and its ratio to the bare start. Target: every help under 1 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = [[], ["river-rats", "pairs"], ["river-rats", "decisions"], ["tournament"], ["tune"],
            ["winrates"], ["lure", "balance"], ["lure", "odds"], ["play"], ["poker"]]


def wall(argv: list[str]) -> float:
    """Seconds for one fresh process running ``argv``."""
    t0 = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return time.perf_counter() - t0


def main() -> None:
    """Measure and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5, help="runs per command (median kept)")
    args = ap.parse_args()
    bare = [sys.executable, "-c", "pass"]
    runs: dict[str, list[float]] = {"(python -c pass)": []}
    for _ in range(args.repeat):
        runs["(python -c pass)"].append(wall(bare))
        for c in COMMANDS:
            key = " ".join(["boardlab", *c, "--help"])
            runs.setdefault(key, []).append(
                wall([sys.executable, "-m", "experiments.cli", *c, "--help"]))
    floor = statistics.median(runs["(python -c pass)"])
    print(f"{'command':<40}{'median s':>10}{'x bare start':>14}")
    for key, ts in runs.items():
        m = statistics.median(ts)
        print(f"{key:<40}{m:>10.3f}{m / floor:>14.1f}")
    worst = max(statistics.median(ts) for k, ts in runs.items() if k.startswith("boardlab"))
    print(f"slowest help: {worst:.3f} s ({'under' if worst < 1 else 'OVER'} the 1 s target)")


if __name__ == "__main__":
    main()
