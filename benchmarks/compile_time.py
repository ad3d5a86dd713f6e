"""Compile time of a table of several policies: the loop that compiles only the game's own
policies (``agents.dispatch.OWN_KINDS``, what ``run_games`` uses for such a table) next to the
loop that compiles every policy and search agent (``ANY_KINDS``, what it used before), on the
same table in one run.

Two measurements per game, each in a fresh Python process (``python benchmarks/compile_time.py
--child ...``):

- ``cold``: the first ``run_games`` of a table of the game's own policies (``heuristic``,
  ``greedy``, ``random``...) with an empty kernel cache (``BOARDLAB_CACHE_DIR`` a new temporary
  folder): what a new machine, a fresh install or any edit of ``engines``/``agents`` pays once.
- ``user``: the first ``run_games`` of a table with a user policy (a compiled function, never
  cached on disk, so compiled in every process) beside shipped seats, with a warm kernel cache:
  what every notebook or tournament worker with a user policy pays.

Run: ``python benchmarks/compile_time.py [--games river_rats,rats]``. Prints seconds (wall
clock of the first call, imports excluded) and the ratio ANY/OWN per game. Each cold child
compiles the whole game (rules core and policies) on its own: minutes per game on a 2-core
machine.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TABLES = {"river_rats": ["heuristic", "greedy", "peek", "random"],
          "lure": ["heuristic", "greedy", "random"],
          "rats": ["heuristic", "greedy", "random", "heuristic"],
          "recurring": ["heuristic", "greedy", "random"]}


def child(game: str, table: str, user: bool) -> dict:
    """Time the first ``run_games`` of ``game``'s table in this process, with the loop's
    literal forced to ``table`` (``"own"`` or ``"any"``); ``user``: seat 0 plays a user policy.
    Returns ``{"seconds": s}``."""
    from numba import njit

    import agents.loop as L
    from agents.dispatch import ANY_KINDS, table_kind
    from engines.protocol import chance, game_class

    if table == "any":
        L.table_kind = lambda kinds: (table_kind(kinds) if table_kind(kinds) >= 0
                                      else ANY_KINDS)

    @njit
    def first_legal(state, player, legal, n_legal, params, mem):
        return legal[0]

    seats = list(TABLES[game])
    if user:
        seats[0] = first_legal
    cfg = game_class(game).config_class(n_players=len(seats))
    seeds = chance.game_seeds(chance.check_seed(1), 4)
    t = time.perf_counter()
    L.run_games(cfg, seats, seeds, game=game)
    return {"seconds": time.perf_counter() - t}


def _run_child(game: str, table: str, user: bool, cache: str | None) -> float:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("BOARDLAB_NUMBA_CACHE_DIR", None)
    if cache is not None:
        env["BOARDLAB_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, __file__, "--child", game, table,
                          "user" if user else "shipped"], env=env, cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="river_rats,rats",
                    help="comma-separated games (default river_rats,rats)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        game, table, kind = a.child
        print(json.dumps(child(game, table, kind == "user")))
        return
    games = [g.strip() for g in a.games.split(",") if g.strip()]
    bad = [g for g in games if g not in TABLES]
    if bad:
        sys.exit(f"bad --games {bad[0]!r}: expected some of {', '.join(TABLES)}")
    print(f"{'game':<11}{'measure':<8}{'OWN_KINDS s':>12}{'ANY_KINDS s':>12}{'ANY/OWN':>9}")
    for game in games:
        for measure in ("cold", "user"):
            secs = {}
            with tempfile.TemporaryDirectory() as warm:
                for table in ("own", "any"):
                    if measure == "cold":
                        with tempfile.TemporaryDirectory() as cold:
                            secs[table] = _run_child(game, table, False, cold)
                    else:  # warm the cache first (shipped seats), then time the user table
                        _run_child(game, table, False, warm)
                        secs[table] = _run_child(game, table, True, warm)
            print(f"{game:<11}{measure:<8}{secs['own']:>12.1f}{secs['any']:>12.1f}"
                  f"{secs['any'] / secs['own']:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
