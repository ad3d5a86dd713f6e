"""Lure's dice kernels: condition checks/s and the exact catch table's time.

Run: ``python benchmarks/dice_checker.py``.

Side by side in one run:

1. dice-condition checks per second (one check = one roll against one card): the compiled
   batch checker (45 cards x n rolls, kernel only and through the validating public function),
   the single-card form, and the plain-Python reference (:mod:`engines.dice.reference`);
2. the exact catch table of the whole 45-card deck by every standard loadout, computed, and
   remembered (``exact_table`` computes each card's condition once per process: a deck whose
   points changed, as in a rebalance's trials, costs a look-up).

Whole Lure games per second: ``benchmarks/games.py``. Compile time (first calls) is measured
apart and printed separately. One process, one core. Targets: >= 50 M checks/s, table < 5 s.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def _best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def main(argv=None) -> int:
    """Run the benchmark and print the tables; returns 0."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rolls", type=int, default=400_000, help="rolls for the checker")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    from engines import dice
    from engines.dice import checker
    from engines.dice import reference as ref
    from engines.lure import default_deck

    deck = default_deck()
    rng = np.random.default_rng(0)
    faces = np.array([6, 6, 6, 6, 6, 12, 20, 4, 0])
    rolls = np.empty((args.rolls, 9), np.int64)
    for j, f in enumerate(faces):
        rolls[:, j] = rng.integers(1, (f or 6) + 1, args.rolls)
    rolls[rng.random(rolls.shape) < 0.3] = -1
    lure = rng.random(args.rolls) < 0.5
    # compile (kept out of the figures)
    small = rolls[:10]
    dice.check_batch(small, faces, lure[:10], deck.conds)
    out = np.zeros((args.rolls, len(deck)), np.bool_)
    checker._check_kernel(small, faces, lure[:10], deck.conds, out[:10])
    dice.exact_table(deck.conds[:2], deep_waters=True)
    compile_s = time.perf_counter() - t0

    print(f"compile + import (first calls): {compile_s:.1f} s (numba cache warm if small)\n")
    print("1. dice-condition checks (one roll x one card)")
    n_checks = args.rolls * len(deck)
    t_kernel = _best(lambda: checker._check_kernel(rolls, faces, lure, deck.conds, out))
    t_public = _best(lambda: dice.check_batch(rolls, faces, lure, deck.conds))
    t_single = _best(lambda: dice.check(rolls, faces, lure, deck.conds[20]))
    nref = 2000
    cards = [(int(deck.catch_numbers[i]), list(deck.requirements[i])) for i in range(len(deck))]

    def run_ref():
        for i in range(nref):
            row = rolls[i]
            vals = [int(v) for v in row if v >= 0]
            ns = int(sum(1 for v, f in zip(row, faces, strict=True) if v >= 0 and f in (4, 12, 20)))
            for cn, reqs in cards:
                ref.meets(vals, ns, bool(lure[i]), cn, reqs)

    t_ref = _best(run_ref, 1)
    rows = [("compiled batch kernel (45 cards)", n_checks / t_kernel),
            ("check_batch (validates input)", n_checks / t_public),
            ("check, one card", args.rolls / t_single),
            ("plain-Python reference", nref * len(deck) / t_ref)]
    for name, rate in rows:
        print(f"   {name:36s} {rate / 1e6:10.2f} M checks/s   x{rate / rows[-1][1]:8.0f} vs ref")
    print("   target: >= 50 M checks/s per core (compiled batch)\n")

    print("2. exact catch table: 45 cards x 6 d6 counts x 8 special subsets x 10 lure plans")
    from engines.dice.checker import _exact_table_of

    conds = np.ascontiguousarray(deck.conds, dtype=np.int64)
    t_table = _best(lambda: _exact_table_of(conds, True, True), 2)
    t_base = _best(lambda: _exact_table_of(conds[:30], False, True), 2)
    print(f"   Deep Waters deck (45 cards, d4 included): {t_table:6.2f} s   (target < 5 s)")
    print(f"   base deck (30 cards, no d4):              {t_base:6.2f} s")
    dice.exact_table(conds)  # each card's rows remembered (a deck whose points change next)
    t_memo = _best(lambda: dice.exact_table(conds), 5)
    print(f"   the same conditions again (points changed): {t_memo * 1e3:6.2f} ms "
          f"(x{t_table / t_memo:,.0f} faster than computed)")

    return 0


if __name__ == "__main__":
    raise SystemExit(main())
