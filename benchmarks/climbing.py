"""Rats and ReCURRRing throughput: full games per second on one core, the compiled
``play_batch`` (door 2) side by side with the step API driven from Python (door 1), in one run.

Run: ``python benchmarks/climbing.py [--rats-games N] [--recurring-games M] [--step-games K]
[--repeat R]``. For each game, player count and policy (``random``, ``greedy`` in every seat)
it prints games/s of both doors and their ratio, and checks the issue's targets (greedy
ReCURRRing 4p >= 20,000 games/s, Rats 4p >= 5,000 games/s). Compile (or cache load) time of the
Numba kernels is measured apart and kept out of the figures. Both doors play the same games
(same seeds), so they do the same work.
"""

from __future__ import annotations

import argparse
import os
import platform
import time
from functools import partial

import numpy as np
import pandas as pd

TARGETS = {("recurring", 4, "greedy"): 20_000, ("rats", 4, "random"): 5_000,
           ("rats", 4, "greedy"): 5_000}


def _modules(game):
    if game == "rats":
        from agents import rats as agents
        from engines.rats import RatsConfig as Config
        from engines.rats import new_game, play_batch
        return Config, new_game, play_batch, agents, (2, 3, 4, 5)
    from agents import recurring as agents
    from engines.recurring import RecurringConfig as Config
    from engines.recurring import new_game, play_batch
    return Config, new_game, play_batch, agents, (3, 4, 5)


def step_api_games(game, n, policy, n_games, seed=0):
    """Play ``n_games`` through the step API from Python (legal check on every action)."""
    from engines.splitmix import seat_streams, seed_word

    Config, new_game, _, agents, _ = _modules(game)
    cfg = Config(n_players=n)
    agent = agents.make_agent(policy)
    for i in range(n_games):
        g = new_game(cfg, seed, i)
        rngs = seat_streams(np.int64(seed_word(seed, i)), n)
        while not g.is_terminal():
            p = g.current_player()
            g.apply_action(agent(g, rngs[p:p + 1]))


def _run_batch(holder, play_batch, cfg, policies, n_games):
    holder["df"] = play_batch(cfg, policies, n_games, seed=1)


def _best(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rats-games", type=int, default=4000)
    ap.add_argument("--recurring-games", type=int, default=40000)
    ap.add_argument("--step-games", type=int, default=40, help="games through the step API")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)

    compile_s = {}
    for game in ("rats", "recurring"):
        Config, new_game, play_batch, agents, counts = _modules(game)
        t0 = time.perf_counter()
        play_batch(Config(n_players=counts[0]), ["random"] * counts[0], 2, seed=0)
        step_api_games(game, counts[0], "greedy", 1)
        compile_s[game] = time.perf_counter() - t0

    rows = []
    for game in ("rats", "recurring"):
        Config, new_game, play_batch, agents, counts = _modules(game)
        n_batch = args.rats_games if game == "rats" else args.recurring_games
        n_step = args.step_games if game == "rats" else args.step_games * 5
        for n in counts:
            for policy in ("random", "greedy"):
                cfg = Config(n_players=n)
                holder = {}
                tb = _best(partial(_run_batch, holder, play_batch, cfg, [policy] * n, n_batch),
                           args.repeat)
                ts = _best(partial(step_api_games, game, n, policy, n_step, 1), 1)
                df = holder["df"]
                rows.append({"game": game, "players": n, "policy": policy,
                             "batch games/s": n_batch / tb, "step API games/s": n_step / ts,
                             "ratio": (n_batch / tb) / (n_step / ts),
                             "decisions/game": df["decisions"].mean(),
                             "target": TARGETS.get((game, n, policy), np.nan)})
    table = pd.DataFrame(rows)
    print(f"climbing games, one core: {platform.processor() or platform.machine()}, "
          f"{os.cpu_count()} logical CPUs, numpy {np.__version__}")
    print("compile or cache load (kept out of the figures): "
          + ", ".join(f"{k} {v:.1f} s" for k, v in compile_s.items()))
    print(f"batch: {args.rats_games} Rats / {args.recurring_games} ReCURRRing games per cell, "
          f"best of {args.repeat}; step API: {args.step_games} / {args.step_games * 5} games")
    print(table.to_string(index=False, float_format=lambda x: f"{x:,.1f}"))
    ok = True
    for (game, n, policy), target in TARGETS.items():
        got = table[(table.game == game) & (table.players == n) & (table.policy == policy)][
            "batch games/s"].iloc[0]
        verdict = "met" if got >= target else "NOT met"
        ok &= got >= target
        print(f"target {game} {n}p {policy}: >= {target:,} games/s -> {got:,.0f} ({verdict})")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
