"""Tournament throughput (games/s) per game at --jobs 1 and --jobs 2, side by side with the
one game loop alone (no tournament layer) and the step API driven from Python.

Run: ``python benchmarks/tournament.py [--deals N] [--games rats,recurring,lure,river_rats]``.
Each tournament is the default field without its search agent (the shipped agents that
neither search nor see hidden cards: a search agent's seconds per game would measure the search,
not the tournament layer) at 4 seats in duplicate format (every table in every seat
rotation); ratings are off so only game play is timed. A warm-up run (compilation, worker
start-up) is made first and reported apart; the machine's load is printed with the figures.
"""

from __future__ import annotations

import argparse
import os
import time

from experiments.tournament import run_tournament
from experiments.tournament.games import AgentRef, get_adapter


def _field(game) -> list[str]:
    """The default field of ``game`` without its search agents (module docstring)."""
    from agents.policy import specs

    reg = specs(get_adapter(game).name)
    return [n for n in get_adapter(game).standard_agents() if not reg[n].search]


def _tournament(game, deals, jobs):
    t0 = time.perf_counter()
    r = run_tournament(game, ",".join(_field(game)), 4, deals, n_jobs=jobs,
                       rating_deals=0, save=False, batch_size=max(10, deals // 8))
    return r.meta["games_played"] / (time.perf_counter() - t0), r.meta["games_played"]


def _engine(game, games):
    """The one game loop on one line-up through the adapter (same kernels)."""
    ad = get_adapter(game)
    cfg = ad.config(4)
    names = _field(game)[:4]
    names += names[: 4 - len(names)]
    seats = [ad.resolve(AgentRef(f"{n}{i}", n)) for i, n in enumerate(names)]
    per = ad.games_per_deal(cfg)
    deals = max(1, games // per)
    t0 = time.perf_counter()
    ad.play(cfg, seats, deals, 12345)
    return deals * per / (time.perf_counter() - t0)


def _step_api(game, n_games):
    from agents.loop import play_stepwise
    from engines.protocol import chance

    ad = get_adapter(game)
    cfg = ad.config(4)
    names = _field(game)[:4]
    names += names[: 4 - len(names)]
    if ad.cooperative:
        names = ["heuristic"] * 4
    t0 = time.perf_counter()
    for i in range(n_games):
        play_stepwise(cfg, names, chance.word_to_seed(chance.game_seed(chance.as_word(7), i)))
    return n_games / (time.perf_counter() - t0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=400)
    ap.add_argument("--games", default="rats,recurring,lure,river_rats")
    a = ap.parse_args(argv)
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} (shared machine)")
    print(f"{'game':<11} {'warm-up s':>9} {'step API':>9} {'engine':>9} {'jobs 1':>9} "
          f"{'jobs 2':>9} {'2 vs 1':>7} {'games':>8}   (games/s)")
    for game in a.games.split(","):
        t0 = time.perf_counter()
        _tournament(game, 4, 1)
        _tournament(game, 20, 2)
        warm = time.perf_counter() - t0
        one, n = _tournament(game, a.deals, 1)
        two, _ = _tournament(game, a.deals, 2)
        eng = _engine(game, n // 4)
        step = _step_api(game, 20)
        print(f"{game:<11} {warm:9.1f} {step:9.0f} {eng:9.0f} {one:9.0f} {two:9.0f} "
              f"{two / one:7.2f} {n:8d}")
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
