"""The two win-diff search methods of ``boardlab lure rebalance`` side by side (issue 27):
``model`` (deterministic model steps, the default) and ``tpe`` (an optuna TPE study with the
order constraint as its ``constraints_func``), on the **broken deck** (the shipped deck with
B04 Perch: catch number 6 -> 4, points 2 -> 12, and B26 Tuna: catch number 22 -> 30, needs a
pair, points 6 -> 1) and on the **default deck**.

Run: ``python benchmarks/rebalance.py [--trials 30] [--games 3000] [--verify-games 20000]
[--jobs 2] [--quick] [--out benchmarks/results/rebalance]``.

Every run has the same settings but the method (players 2..5, heuristic agents, points only,
seed 0; trials played on the same seeds, verification on seed + 1). Per deck and method it
prints and writes to ``<out>.csv``: cards changed, points moved, cards off the goal on the
fresh seeds (Holm-corrected, and from the uncorrected 95% intervals), whether each broken card
is changed and inside its band (estimate and corrected verdict) at every player count, Kendall
tau of points vs difficulty before/after, trials played and wall time (the search and the
verification; compile time included in the first run only, which is the same for both
methods as the broken deck's model run goes first). The folders of the runs are kept under
``<out>_runs/``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BROKEN = {"B04": {"catch_number": 4, "points": 12},
          "B26": {"catch_number": 30, "requirements": "pair", "points": 1}}
"""The broken cards of issue 27."""


def broken_deck(path: Path):
    """The shipped deck with :data:`BROKEN` applied, written to ``path`` (a deck file, so the
    command line can load it) and returned."""
    from engines.lure.decks import default_deck, deck_from_rows, load_deck, write_deck

    rows = default_deck().rows()
    for r in rows:
        r.update(BROKEN.get(r["id"], {}))
    path.parent.mkdir(parents=True, exist_ok=True)
    write_deck(deck_from_rows(rows, source=str(path)), path,
               comment="issue 27's broken deck: B04 cn 6->4, 2->12 points; B26 cn 22->30, "
                       "pair, 6->1 points")
    return load_deck(path)


def one_run(deck, method: str, out: Path, args) -> dict:
    """Rebalance ``deck`` with ``method`` into ``out``; returns the row of the table."""
    import numpy as np

    from experiments.lure.rebalance import rebalance

    t0 = time.perf_counter()
    res = rebalance(deck, "win-diff", players=(2, 3, 4, 5), n_trials=args.trials,
                    n_games=args.games, verify_games=args.verify_games, seed=0,
                    n_jobs=args.jobs, batch_size=1000, out=out, overwrite=True,
                    plots=False, method=method)
    wall = time.perf_counter() - t0
    v = res.verification
    c = v["cards"]
    row = {"deck": Path(deck.source).stem, "method": method,
           "cards_changed": len(res.changed_ids), "changed": " ".join(res.changed_ids),
           "points_moved": int(sum(abs(int(a) - int(b)) for a, b, f in zip(
               res.changes["before"], res.changes["after"], res.changes["field"], strict=True)
               if f == "points")),
           "off_goal_before": v["violating"]["before"], "off_goal_after": v["violating"]["after"],
           "off_goal_after_uncorrected": v["violating_uncorrected"]["after"],
           "tau_before": round(v["kendall_tau"]["before"], 3),
           "tau_after": round(v["kendall_tau"]["after"], 3),
           "trials": len(res.trials), "search_s": round(res.search_seconds or 0.0, 1),
           "wall_s": round(wall, 1)}
    for cid in BROKEN:
        rows = c[c["id"] == cid]
        tg = v["targets"]["after"]
        band = [(tg[n] - res.goal.tolerance, tg[n] + res.goal.tolerance)
                for n in rows["players"]]
        est_in = all(lo <= 100 * w <= hi for w, (lo, hi) in zip(rows["win_diff_after"], band,
                                                                 strict=True))
        row[f"{cid}_changed"] = cid in res.changed_ids
        row[f"{cid}_estimate_in_band_all_players"] = bool(est_in)
        row[f"{cid}_not_off_goal_all_players"] = bool(not rows["off_goal_after"].any())
        row[f"{cid}_win_diff_after_pp"] = " ".join(
            f"{int(n)}p{100 * w:+.1f}" for n, w in zip(rows["players"], rows["win_diff_after"],
                                                       strict=True))
    row["bands_pp"] = " ".join(f"{n}p{t - res.goal.tolerance:+.1f}..{t + res.goal.tolerance:+.1f}"
                               for n, t in v["targets"]["after"].items())
    _ = np
    return row


def main(argv=None) -> int:
    """Run the benchmark (module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=30)
    ap.add_argument("--games", type=int, default=3000)
    ap.add_argument("--verify-games", type=int, default=20000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--methods", default="model,tpe")
    ap.add_argument("--quick", action="store_true", help="8 trials, 600 games, 2000 verify")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "rebalance"))
    args = ap.parse_args(argv)
    if args.quick:
        args.trials, args.games, args.verify_games = 8, 600, 2000
    import pandas as pd

    from engines.lure.decks import default_deck

    out = Path(args.out)
    runs = Path(str(out) + "_runs")
    decks = [broken_deck(runs / "broken_deck.csv"), default_deck()]
    rows = []
    for deck in decks:
        for method in args.methods.split(","):
            tag = f"{Path(deck.source).stem}_{method}"
            rows.append(one_run(deck, method, runs / tag, args))
            print(pd.DataFrame(rows[-1:]).T.to_string(header=False), flush=True)
    df = pd.DataFrame(rows)
    out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(str(out) + ".csv", index=False)
    cols = ["deck", "method", "cards_changed", "points_moved", "off_goal_after",
            "off_goal_after_uncorrected", "tau_before", "tau_after", "trials", "wall_s"]
    print(df[cols].to_string(index=False))
    try:
        load = os.getloadavg()
    except OSError:  # pragma: no cover
        load = None
    print(f"settings: trials {args.trials}, games {args.games}, verify {args.verify_games}, "
          f"jobs {args.jobs}; load average {load}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
