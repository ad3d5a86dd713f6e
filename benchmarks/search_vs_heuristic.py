"""Do the search agents beat the best heuristic in the competitive games? One search seat
against `heuristic` in every other seat, compared with `heuristic` in that same seat on the same
deals (paired), in one run.

Run: ``python benchmarks/search_vs_heuristic.py [--games rats,recurring,lure] [--players 4]
[--deals 300] [--agents pimc,ismcts-fast] [--baseline heuristic] [--jobs 2]``.
``--baseline pimc --agents net-search`` asks whether the search guided by ``net`` beats ``pimc``
(the baseline then plays every other seat and the compared seat; ``--others`` gives the other
seats another policy). Agents and the baseline may
be points of ``benchmarks/search.py`` (``net-search:16:value=0``: a preset with its budget and
settings).

For every deal and every seat ``p`` the deal is played twice: with the search agent in seat
``p`` and with `heuristic` there, the other seats `heuristic` both times (same seed, so the same
cards and the same chance). The figure per deal and seat is the seat's return (Rats and Lure:
its win share, ties shared; ReCURRRing: its points, the game's returns). Printed: the mean
return of each, the mean paired difference with its 95% interval and two-sided p-value
(paired t-test over deal x seat units; seats of one deal are not independent, so the p-value
is indicative), and games per second of CPU time for the search seat's games.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _play(game: str, n: int, agent: str, seat: int, seeds: np.ndarray,
          baseline: str = "heuristic"):
    """Play ``seeds`` with ``agent`` in ``seat`` and ``baseline`` (the others' policy)
    elsewhere; returns (the
    seat's returns, CPU seconds). ``agent`` and ``baseline`` are points of
    ``benchmarks/search.py`` (a policy name, or a search preset with ``:BUDGET`` and settings
    such as ``:value=0``)."""
    if str(ROOT) not in sys.path:  # a worker process: the benchmarks folder as a package
        sys.path.insert(0, str(ROOT))
    from agents.loop import run_games
    from benchmarks.search import point_params
    from engines.protocol import game_class

    cfg = game_class(game).config_class(n_players=n)
    base, base_params = point_params(baseline, game)
    name, params = point_params(agent, game)
    pols = [base] * n
    pols[seat] = name
    vecs = [base_params] * n
    vecs[seat] = params
    run_games(cfg, pols, seeds[:1], params=vecs)  # compile or load the kernels: not timed
    t0 = time.process_time()
    ret, _ = run_games(cfg, pols, seeds, params=vecs)
    return ret[:, seat], time.process_time() - t0


def main(argv=None) -> int:
    from joblib import Parallel, delayed
    from scipy.stats import ttest_rel

    from engines.protocol import chance

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="rats,recurring,lure")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--agents", default="pimc,ismcts-fast")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--baseline", default="heuristic",
                    help="the policy of the other seats and of the compared seat")
    ap.add_argument("--others", default=None,
                    help="the policy of the other seats when it is not the baseline (e.g. "
                         "--baseline net-search:16:value=0 --others heuristic)")
    args = ap.parse_args(argv)
    base_name = args.baseline
    others = args.others or base_name
    seeds = chance.game_seeds(chance.as_word(args.seed), args.deals)
    n = args.players
    from benchmarks.search import point_params

    games = [g.strip() for g in args.games.split(",") if g.strip()]
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    for game in games:  # bad games and points are refused before anything is played
        for point in [base_name, others] + agents:
            point_params(point, game)
    print(f"{n} players, {args.deals} deals x {n} seats, paired against {base_name} in the same "
          f"seat, {others} elsewhere; load {os.getloadavg()[0]:.2f}, {os.cpu_count()} cores")
    print(f"{'game':<10}{'agent':<18}{'search':>9}{base_name:>11}"
          f"{'difference [95% CI]':>28}{'p':>10}{'games/s':>9}")
    for game in games:
        names = [base_name] + agents
        jobs = [(a, p) for a in names for p in range(n)]
        res = Parallel(n_jobs=args.jobs)(delayed(_play)(game, n, a, p, seeds, others)
                                         for a, p in jobs)
        by = {a: np.concatenate([res[i][0] for i, (b, _) in enumerate(jobs) if b == a])
              for a in names}
        cpu = {a: sum(res[i][1] for i, (b, _) in enumerate(jobs) if b == a) for a in names}
        base = by[base_name]
        for a in names[1:]:
            d = by[a] - base
            half = 1.96 * d.std(ddof=1) / np.sqrt(d.size)
            p = ttest_rel(by[a], base).pvalue
            print(f"{game:<10}{a:<18}{by[a].mean():>9.3f}{base.mean():>11.3f}"
                  f"{d.mean():>+14.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]"
                  f"{p:>10.1e}{d.size / cpu[a]:>9.1f}", flush=True)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        sys.exit(f"search_vs_heuristic.py: {e}")
