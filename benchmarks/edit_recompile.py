"""What an edit to one game costs another game's table: the first River Rats table after a
comment is added to ``agents/rats.py``, next to the same table warm, in one run.

Two copies of ``engines/`` and ``agents/`` in a temporary folder share one kernel cache (the
cache does not depend on where a checkout lives, :mod:`engines.kernel_cache`): ``same`` is the
sources as they are, ``edited`` the same with one comment line appended to ``agents/rats.py``.
Each measurement is a fresh Python process (``python benchmarks/edit_recompile.py --child``)
that imports the loop and plays a 200-game River Rats table with four ``heuristic`` seats; it
reports the seconds of the first ``run_games`` call (compiling or loading its kernels) and of
the whole process. Order: ``same`` on an empty cache (``cold``), ``same`` again (``warm``),
then ``edited`` (what the edit cost). With per-game source closures the edit recompiles Rats'
kernels and the by-game dispatch code only; River Rats' rules, policies and loop load.

Run: ``python benchmarks/edit_recompile.py [--games N] [--cache DIR]`` (``--cache``: a kernel
cache folder to use instead of a new temporary one; ``cold`` is then whatever it holds).
Prints one line per measurement and the ratio edited/warm.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r'''
import json, sys, time
start = time.perf_counter()
from agents.loop import run_games
from engines.protocol import chance, game_class
n = int(sys.argv[1])
cfg = game_class("river_rats").config_class(n_players=4)
seeds = chance.game_seeds(chance.check_seed(1), n)
t = time.perf_counter()
run_games(cfg, "heuristic", seeds)
end = time.perf_counter()
print(json.dumps({"table": end - t, "process": end - start}))
'''


def _copy(dst: Path, edit: bool) -> Path:
    """The two source packages copied to ``dst``, ``agents/rats.py`` with a comment appended
    when ``edit``."""
    for pkg in ("engines", "agents"):
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    if edit:
        with open(dst / "agents" / "rats.py", "a") as f:
            f.write("\n# an edit to another game's agents\n")
    return dst


def _run(cwd: Path, cache: Path, games: int) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR",
                        "NUMBA_CACHE_LOCATOR_CLASSES", "PYTHONPATH")}
    env["BOARDLAB_CACHE_DIR"] = str(cache)
    env["BOARDLAB_SIDE_COMPILE"] = "0"  # one compiling process: the same work every time
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD, str(games)], cwd=cwd, env=env,
                         check=True, capture_output=True, text=True).stdout
    res = json.loads(out.strip().splitlines()[-1])
    res["wall"] = time.perf_counter() - t
    return res


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games of the table (default 200)")
    ap.add_argument("--cache", help="kernel cache folder (default: a new temporary one)")
    a = ap.parse_args(argv)
    if a.games < 1:
        sys.exit(f"bad --games {a.games}: expected an integer >= 1")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        cache = Path(a.cache) if a.cache else tmp / "cache"
        same, edited = _copy(tmp / "same", False), _copy(tmp / "edited", True)
        rows = {"cold": _run(same, cache, a.games), "warm": _run(same, cache, a.games),
                "edited": _run(edited, cache, a.games)}
    print(f"{'measure':<8}{'table s':>9}{'process s':>11}")
    for name, r in rows.items():
        print(f"{name:<8}{r['table']:>9.2f}{r['process']:>11.2f}")
    print(f"edited/warm: table {rows['edited']['table'] / rows['warm']['table']:.1f}x, "
          f"process {rows['edited']['process'] / rows['warm']['process']:.2f}x")


if __name__ == "__main__":
    main()
