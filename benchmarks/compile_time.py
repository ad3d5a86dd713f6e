"""Compile time of a table of several policies: the loop that compiles only what the table
seats (``agents.dispatch.table_kind``: ``OWN_KINDS`` for the game's own policies, a
``mixed_kind`` for a table with a search agent, what ``run_games`` uses) next to the loop that
compiles every policy and search agent (``ANY_KINDS``, what every table of several kinds used
before 2026-12-04), on the same table in one run.

Three measurements per game, each in a fresh Python process (``python
benchmarks/compile_time.py --child ...``):

- ``cold``: the first ``run_games`` of a table of the game's own policies (``heuristic``,
  ``greedy``, ``random``...) with an empty kernel cache (``BOARDLAB_CACHE_DIR`` a new temporary
  folder): what a new machine, a fresh install or any edit of ``engines``/``agents`` pays once.
- ``search``: the same with ``pimc-fast`` in one seat (a tournament of a search agent against
  the shipped policies): the loop compiles ``pimc`` and the game's ``act``, or every agent.
- ``user``: the first ``run_games`` of a table with a user policy (a compiled function, never
  cached on disk, so compiled in every process) beside shipped seats, with a warm kernel cache:
  what every notebook or tournament worker with a user policy pays.

Run: ``python benchmarks/compile_time.py [--games river_rats,rats]``. Prints seconds (wall
clock of the first call, imports excluded) and the ratio ANY/table's own per game.
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


def child(game: str, table: str, user: bool, search: bool = False) -> dict:
    """Time the first ``run_games`` of ``game``'s table in this process, with the loop's
    literal the table's own (``table`` ``"own"``: :func:`agents.dispatch.table_kind`) or
    ``ANY_KINDS`` (``"any"``); ``user``: seat 0 plays a user policy; ``search``: the last seat
    plays ``pimc-fast``. Returns ``{"seconds": s}``."""
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
    if search:
        seats[-1] = "pimc-fast"
    cfg = game_class(game).config_class(n_players=len(seats))
    seeds = chance.game_seeds(chance.check_seed(1), 4)
    t = time.perf_counter()
    L.run_games(cfg, seats, seeds, game=game)
    return {"seconds": time.perf_counter() - t}


def _run_child(game: str, table: str, measure: str, cache: str | None) -> float:
    env = dict(os.environ)
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("BOARDLAB_NUMBA_CACHE_DIR", None)
    env.pop("NUMBA_CACHE_LOCATOR_CLASSES", None)
    if cache is not None:
        env["BOARDLAB_CACHE_DIR"] = cache
    out = subprocess.run([sys.executable, __file__, "--child", game, table, measure], env=env,
                         cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["seconds"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", default="river_rats,rats",
                    help="comma-separated games (default river_rats,rats)")
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.child:
        game, table, measure = a.child
        print(json.dumps(child(game, table, measure == "user", measure == "search")))
        return
    games = [g.strip() for g in a.games.split(",") if g.strip()]
    bad = [g for g in games if g not in TABLES]
    if bad:
        sys.exit(f"bad --games {bad[0]!r}: expected some of {', '.join(TABLES)}")
    peer = "any"
    print(f"{'game':<11}{'measure':<8}{'own s':>8}{'ANY_KINDS s':>12}{'ANY/own':>9}")
    for game in games:
        for measure in ("cold", "search", "user"):
            secs = {}
            with tempfile.TemporaryDirectory() as warm:
                for table in ("own", peer):
                    if measure != "user":
                        with tempfile.TemporaryDirectory() as cold:
                            secs[table] = _run_child(game, table, measure, cold)
                    else:  # warm the cache first (shipped seats), then time the user table
                        _run_child(game, table, "cold", warm)
                        secs[table] = _run_child(game, table, "user", warm)
            print(f"{game:<11}{measure:<8}{secs['own']:>8.1f}{secs[peer]:>12.1f}"
                  f"{secs[peer] / secs['own']:>8.1f}x", flush=True)


if __name__ == "__main__":
    main()
