"""Poker evaluator throughput: boardlab's batch API side by side with phevaluator, eval7 and
treys, on the same random hands, in one process run, on one core.

Run: ``python benchmarks/poker_eval.py [--hands N] [--peer-hands M] [--repeat R]``.
Prints evaluations/s per evaluator and hand size, and boardlab's ratio to each peer. Compile
(or cache load) time of the Numba kernels is measured apart and kept out of the figures.
Peers are Python packages called once per hand (their normal use); they get fewer hands.
"""

from __future__ import annotations

import argparse
import os
import platform
import time

import numpy as np


def _best_rate(fn, n, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return n / best


def _peers(hands: np.ndarray):
    """Closures evaluating every row of ``hands`` with each installed peer (name -> fn)."""
    from engines import cards

    out = {}
    rows = hands.tolist()
    try:
        import phevaluator

        ev = phevaluator.evaluate_cards
        out["phevaluator"] = lambda: [ev(*r) for r in rows]
    except ImportError:  # pragma: no cover
        pass
    try:
        import eval7

        e7 = [[eval7.Card(cards.format_card(c)) for c in r] for r in rows]
        ev7 = eval7.evaluate
        out["eval7"] = lambda: [ev7(r) for r in e7]
    except ImportError:  # pragma: no cover
        pass
    try:
        from treys import Card, Evaluator

        tv = Evaluator()
        tr = [[Card.new(cards.format_card(c)) for c in r] for r in rows]
        out["treys"] = lambda: [tv.evaluate(r[:2], r[2:]) for r in tr]
    except ImportError:  # pragma: no cover
        pass
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=5_000_000, help="hands per boardlab run")
    ap.add_argument("--peer-hands", type=int, default=100_000, help="hands per peer run")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    from engines import cards, poker

    poker.evaluate(cards.random_hands(4, 7, seed=0))
    poker.evaluate(cards.random_hands(4, 7, seed=0, n_jokers=2), "river_rats")
    t_compile = time.perf_counter() - t0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}; single-threaded runs")
    print(f"import + first calls (Numba compile or cache load): {t_compile:.2f} s\n")
    print(f"{'hand':<22}{'evaluator':<14}{'evals/s':>16}{'boardlab is':>16}")
    for k in (5, 7):
        hands = cards.random_hands(args.hands, k, seed=k)
        ours = _best_rate(lambda h=hands: poker.evaluate(h), args.hands, args.repeat)
        print(f"{k} cards, standard      {'boardlab':<14}{ours:>16,.0f}")
        rr = _best_rate(lambda h=hands: poker.evaluate(h, "river_rats"), args.hands, args.repeat)
        print(f"{k} cards, river_rats    {'boardlab':<14}{rr:>16,.0f}")
        sub = hands[: args.peer_hands]
        for name, fn in _peers(sub).items():
            rate = _best_rate(fn, len(sub), max(1, args.repeat // 2))
            print(f"{k} cards, standard      {name:<14}{rate:>16,.0f}{ours / rate:>14,.0f}x")
    for k, nj in ((8, 0), (10, 0), (5, 1), (7, 1), (7, 2), (10, 2)):
        n = args.hands if nj == 0 else args.hands // (10 if nj == 1 else 50)
        hands = cards.random_hands(n, k, seed=100 + k + nj, n_jokers=nj)
        rate = _best_rate(lambda h=hands: poker.evaluate(h), n, args.repeat)
        label = f"{k} cards, {nj} joker{'s' if nj != 1 else ''}"
        print(f"{label:<22}{'boardlab':<14}{rate:>16,.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
