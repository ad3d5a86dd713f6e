"""Which bot for which budget? Every agent's strength against its speed, per game, 4 players.

Run: ``python benchmarks/strength_speed.py [--games lure,rats,recurring,river_rats]
[--players 4] [--agents random,greedy,...] [--deals 300] [--fast-deals 2000] [--seed 2501]
[--min-seconds 10] [--jobs 2] [--out benchmarks/results/strength_speed.csv]``.

For each game and each agent the game registers among ``--agents`` (default: random, greedy,
heuristic, net, pimc-fast, pimc, net-search-lite, net-search-fast, ismcts-fast) two figures:

- **strength**: the mean paired gain over ``heuristic`` on the same deals.
  Competitive games (Lure, Rats, ReCURRRing), duplicate seating: for every deal ``i`` and seat
  ``p`` the deal is played with the agent in seat ``p`` and ``heuristic`` in the other seats,
  and with ``heuristic`` in seat ``p`` too (same seed: same cards and chance), as
  ``benchmarks/search_vs_heuristic.py`` does (its ``_play`` plays them); the per-deal gain is
  the mean over the seats of the seat's return difference, in the game's return unit (Lure and
  Rats: win share per game, ties shared; ReCURRRing: points per game). Cooperative River Rats:
  the agent plays every seat (the whole team) and the gain is the team win rate minus the
  ``heuristic`` team's on the same deals. The interval is a 95% Student-t interval over deals
  (the deal is the independent unit: the seats of one deal share its cards); ``p`` is the
  paired t-test's two-sided p-value. ``heuristic`` itself is 0 by construction.
  Deals per point: ``--deals`` for the search agents, ``--fast-deals`` for the others (the
  same seeds: the first ``--deals`` of the fast agents' deals are the search agents' deals).
- **speed**: games per second of one core with the agent in **every seat**
  (``all_seats_games_per_s``: games / CPU seconds of the timing run, after an untimed
  warm-up game that loads the compiled kernels; games are added until ``--min-seconds`` of CPU
  time), the x axis of the picture; and, from the strength runs, games per second with the
  agent in **one seat** and ``heuristic`` in the others (``one_seat_games_per_s``: what a
  tournament seat costs; :mod:`experiments.tournament.cost` holds these figures).

Writes the CSV ``--out`` (one row per game and agent; columns in :data:`COLUMNS`) and prints
the table. Results of the strength columns do not depend on ``--jobs``; the speeds depend on
the machine and its load (printed, and stored in the CSV). The picture is drawn by
``notebooks/bot_strategies.ipynb`` with :func:`experiments.tournament.plots.plot_strength_speed`.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
for _p in (ROOT, ROOT / "benchmarks"):
    if str(_p) not in sys.path:
        sys.path.insert(0, str(_p))

from search_vs_heuristic import _play  # noqa: E402  (the one paired-seat game player)

AGENTS = ("random,greedy,heuristic,net,pimc-fast,pimc,net-search-lite,net-search-fast,"
          "ismcts-fast")
"""Default ``--agents``: the fast agents, ``net`` and the cheaper search presets."""
BASELINE = "heuristic"
COLUMNS = ("game", "players", "agent", "search", "deals", "unit", "agent_mean",
           "heuristic_mean", "gain", "gain_low", "gain_high", "p_value",
           "one_seat_games_per_s", "all_seats_games_per_s", "timing_games", "timing_cpu_s",
           "seed", "load_start", "load_end", "date", "machine")
"""Columns of the CSV, in order (see the module docstring; speeds are games per CPU second)."""
UNITS = {"lure": "win share per game", "rats": "win share per game",
         "recurring": "points per game", "river_rats": "team win rate"}
"""What a gain is measured in, per game (the game's returns; River Rats: the team's wins)."""


def all_seats_rate(game: str, n: int, agent: str, word: int, min_seconds: float,
                   start: int = 4, max_games: int = 1_000_000) -> tuple[int, float]:
    """Time ``agent`` in every seat of ``n``-player ``game`` on one core: one untimed warm-up
    game (compile or load the kernels), then batches of the games of seed ``word`` (an int in
    ``0 .. 2**64-1``, :func:`engines.protocol.chance.game_seeds`),
    doubling from ``start`` games, until ``min_seconds`` of this process's CPU time or
    ``max_games``. Returns ``(games, cpu_seconds)``. Raises ``ValueError`` for an unknown
    agent or game."""
    from agents.loop import run_games
    from engines.protocol import chance, game_class

    cfg = game_class(game).config_class(n_players=n)
    run_games(cfg, [agent] * n, chance.game_seeds(word, 1))
    games, cpu, m = 0, 0.0, int(start)
    while cpu < min_seconds and games < max_games:
        seeds = chance.game_seeds(word, m, start=1 + games)
        t0 = time.process_time()
        run_games(cfg, [agent] * n, seeds)
        cpu += time.process_time() - t0
        games += m
        m *= 2
    return games, cpu


def _strength_job(game, n, agent, seat, seeds, cooperative):
    """One strength run: (the seat's returns (deals,), CPU s) for a competitive game; for a
    cooperative one the agent plays every seat and the team's 0/1 wins come back."""
    if cooperative:
        ret, cpu = _play(game, n, agent, 0, seeds, baseline=agent)
        return (ret > 0).astype(np.float64), cpu
    return _play(game, n, agent, seat, seeds, BASELINE)


def paired_gain(agent_ret: np.ndarray, base_ret: np.ndarray) -> tuple[float, float, float, float]:
    """Mean paired gain and its 95% Student-t interval over deals, and the paired t-test's
    two-sided p-value. ``agent_ret``/``base_ret``: float arrays (seats, deals) or (deals,) of
    the same shape, the agent's and the baseline's returns on the same deals and seats; the
    per-deal gain is the mean over seats of the difference. Returns ``(gain, low, high, p)``;
    the interval is ``(gain, gain)`` and ``p`` 1 when every difference is 0. Raises
    ``ValueError`` for shapes that differ or fewer than 2 deals."""
    from scipy import stats

    a, b = np.atleast_2d(agent_ret), np.atleast_2d(base_ret)
    if a.shape != b.shape or a.shape[1] < 2:
        raise ValueError(f"returns of shapes {a.shape} and {b.shape}: expected the same shape "
                         "with at least 2 deals")
    d = (a - b).mean(axis=0)
    m, sd = float(d.mean()), float(d.std(ddof=1))
    if sd == 0:
        return m, m, m, 1.0 if m == 0 else 0.0
    half = float(stats.t.ppf(0.975, d.size - 1)) * sd / np.sqrt(d.size)
    p = float(2 * stats.t.sf(abs(m) / (sd / np.sqrt(d.size)), d.size - 1))
    return m, m - half, m + half, p


def main(argv=None) -> int:
    """Command line (see the module docstring); returns the exit code."""
    import pandas as pd
    from joblib import Parallel, delayed

    from agents.policy import names as policy_names, specs
    from engines.names import describe
    from engines.protocol import chance, normalize_game_name
    from experiments.io import machine_info

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="lure,rats,recurring,river_rats")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--agents", default=AGENTS)
    ap.add_argument("--deals", type=int, default=300, help="deals per search agent")
    ap.add_argument("--fast-deals", type=int, default=2000,
                    help="deals per agent that does not search")
    ap.add_argument("--seed", type=int, default=2501)
    ap.add_argument("--min-seconds", type=float, default=10.0,
                    help="CPU seconds of each all-seats timing run")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "strength_speed.csv"))
    a = ap.parse_args(argv)
    n = a.players
    load0 = os.getloadavg()[0]
    t_start = time.perf_counter()
    games = [normalize_game_name(g.strip()) for g in a.games.split(",") if g.strip()]
    wanted = [x.strip() for x in a.agents.split(",") if x.strip()]
    deals_max = max(a.deals, a.fast_deals)
    seeds = chance.game_seeds(chance.as_word(a.seed), deals_max)
    plan = {}  # (game, agent) -> deals
    for g in games:
        reg = specs(g)
        for ag in (x for x in wanted if x in policy_names(g)):
            plan[g, ag] = a.deals if reg[ag].search else a.fast_deals
        plan[g, BASELINE] = deals_max
    coop = {g: describe(g).cooperative for g in games}
    jobs = []
    for (g, ag), k in plan.items():
        if coop[g]:
            jobs.append(("strength", g, ag, 0, k))
        elif ag != BASELINE:
            jobs += [("strength", g, ag, p, k) for p in range(n)]
        jobs.append(("time", g, ag, 0, 0))
    if any(not coop[g] for g in games):
        jobs += [("strength", g, BASELINE, p, deals_max) for g in games if not coop[g]
                 for p in range(n)]
    # slow jobs first, so that the two workers finish together
    jobs.sort(key=lambda j: (j[0] != "time", -(j[4] if j[0] == "strength" else 0)
                             * (1000 if specs(j[1])[j[2]].search else 1)))

    def run(kind, g, ag, p, k):
        if kind == "time":
            return all_seats_rate(g, n, ag, a.seed + 1, a.min_seconds)
        return _strength_job(g, n, ag, p, seeds[:k], coop[g])

    print(f"{n} players; {a.deals} deals per search agent, {a.fast_deals} per other agent; "
          f"{len(jobs)} jobs, --jobs {a.jobs}; load {load0:.2f}, {os.cpu_count()} cores",
          flush=True)
    res = Parallel(n_jobs=a.jobs, verbose=5)(delayed(run)(*j) for j in jobs)
    out = dict(zip([(j[0], j[1], j[2], j[3]) for j in jobs], res, strict=True))
    load1 = os.getloadavg()[0]
    mach = machine_info()
    rows = []
    for (g, ag), k in plan.items():
        if ag not in wanted:
            continue
        search = bool(specs(g)[ag].search)
        if coop[g]:
            mine, cpu = out["strength", g, ag, 0]
            base = out["strength", g, BASELINE, 0][0][:k]
            mine, base = mine[None, :], base[None, :]
            one_seat = n * k / cpu  # every seat is the agent: a seat costs a quarter game
        else:
            base = np.stack([out["strength", g, BASELINE, p][0][:k] for p in range(n)])
            if ag == BASELINE:
                mine, cpu = base, sum(out["strength", g, ag, p][1] for p in range(n))
                cpu *= k / deals_max
            else:
                mine = np.stack([out["strength", g, ag, p][0] for p in range(n)])
                cpu = sum(out["strength", g, ag, p][1] for p in range(n))
            one_seat = n * k / cpu
        gain, lo, hi, pv = paired_gain(mine, base)
        t_games, t_cpu = out["time", g, ag, 0]
        rows.append({"game": g, "players": n, "agent": ag, "search": search, "deals": k,
                     "unit": UNITS.get(g, "return"), "agent_mean": float(mine.mean()),
                     "heuristic_mean": float(base.mean()), "gain": gain, "gain_low": lo,
                     "gain_high": hi, "p_value": pv, "one_seat_games_per_s": one_seat,
                     "all_seats_games_per_s": t_games / t_cpu, "timing_games": t_games,
                     "timing_cpu_s": t_cpu, "seed": a.seed, "load_start": load0,
                     "load_end": load1, "date": _dt.date.today().isoformat(),
                     "machine": f"{mach['processor']}, {mach['cpu_count']} cores"})
    df = pd.DataFrame(rows, columns=list(COLUMNS))
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(a.out, index=False)
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(df[["game", "agent", "deals", "gain", "gain_low", "gain_high", "p_value",
                  "one_seat_games_per_s", "all_seats_games_per_s"]].to_string(index=False))
    print(f"written {a.out}; {time.perf_counter() - t_start:.0f} s wall, load {load0:.2f} -> "
          f"{load1:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
