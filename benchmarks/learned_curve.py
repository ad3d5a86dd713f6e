"""Strength of ``net`` against the number of training decisions and against the network's
size (the README's picture): trains on a share of a collected data set and at several hidden
sizes, calibrates nothing (gate shift 0, so the curves show the network alone) and judges
each student in duplicate matches against the heuristic on the same deals.

Run (needs the learn extra and collected data): ``python benchmarks/learned_curve.py --game
lure --data DIR[,DIR] [--shares 0.05,0.2,1] [--sizes 16,64,128] [--deals 2000]``. Writes
``benchmarks/results/learned_curve_<game>.csv`` and ``.png``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def main(argv=None) -> int:
    import pandas as pd

    from agents.net import use_weights
    from experiments.learn.data import load_dataset
    from experiments.learn.evaluate import TEAM_GAMES, duplicate, team
    from experiments.learn.train import save_weights, train

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", default="lure")
    ap.add_argument("--data", required=True)
    ap.add_argument("--shares", default="0.05,0.2,1")
    ap.add_argument("--sizes", default="16,64,128")
    ap.add_argument("--h1", type=int, default=64)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--tau", type=float, default=0.5)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=4242)
    ap.add_argument("--replot", action="store_true",
                    help="only redraw the picture from the CSV of an earlier run")
    args = ap.parse_args(argv)
    if args.replot:
        _plot(pd.read_csv(ROOT / "benchmarks" / "results" / f"learned_curve_{args.game}.csv"),
              args.game, args.h1, args.players)
        return 0
    ds = load_dataset(args.data.split(","))
    runs = [(float(s), args.h1) for s in args.shares.split(",")]
    runs += [(1.0, int(h)) for h in args.sizes.split(",") if int(h) != args.h1]
    base = 0.0  # the heuristic's level: 0 for a duplicate gain, its win rate in a team game
    if ds.game in TEAM_GAMES:
        base = team(ds.game, ["heuristic"], args.players, args.deals, args.seed)[0]["rate"]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for share, h1 in runs:
            sub = ds.subset(_game_share(ds.group, share, args.seed)) if share < 1 else ds
            w, info = train(sub, {"h1": h1, "h2": max(8, h1 // 2), "epochs": args.epochs,
                                  "mix": 1.0, "tau": args.tau}, log=lambda *_: None)
            p = save_weights(Path(tmp) / f"{share}_{h1}.npz", ds.game, w, info)
            use_weights(ds.game, p)
            if ds.game in TEAM_GAMES:
                r = team(ds.game, ["net"], args.players, args.deals, args.seed)[0]
                val, lo, hi = r["rate"], r["low"], r["high"]
            else:
                r = duplicate(ds.game, ["net"], args.players, args.deals, args.seed)[0]
                val, lo, hi = r["diff"], r["low"], r["high"]
            use_weights(ds.game, None)
            rows.append({"share": share, "decisions": sub.n, "h1": h1, "value": val, "low": lo,
                         "high": hi, "heuristic": base,
                         "heldout_regret": info["history"][-1]["regret"]})
            print(rows[-1], flush=True)
    df = pd.DataFrame(rows)
    out = ROOT / "benchmarks" / "results" / f"learned_curve_{ds.game}"
    df.to_csv(out.with_suffix(".csv"), index=False)
    _plot(df, ds.game, args.h1, args.players)
    print(f"wrote {out}.csv/.png")
    return 0


def _game_share(group, share: float, seed: int):
    """``int64``: the rows of a seeded random ``share`` of the games (``group`` ids) of a data
    set, in their order: a share of whole games from every file, not the first files only."""
    import numpy as np

    games = np.unique(group)
    rng = np.random.default_rng(seed)
    keep = rng.choice(games, size=max(1, int(round(games.size * share))), replace=False)
    return np.flatnonzero(np.isin(group, keep))


def _plot(df, game: str, h1: int, players: int) -> None:
    """Draw ``learned_curve_<game>.png`` from the rows of a run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    from experiments.learn.evaluate import TEAM_GAMES

    out = ROOT / "benchmarks" / "results" / f"learned_curve_{game}"
    from matplotlib.ticker import PercentFormatter

    fig, ax = plt.subplots(1, 2, figsize=(9.5, 3.8))
    a = df[df.h1 == h1].sort_values("decisions")
    ax[0].errorbar(a.decisions, a.value, yerr=[a.value - a.low, a.high - a.value], marker="o",
                   capsize=3)
    ax[0].set_xscale("log")
    ax[0].set_xticks(list(a.decisions))
    ax[0].set_xticklabels([f"{d / 1e6:.2g}M" if d >= 1e6 else f"{d / 1e3:.0f}k"
                           for d in a.decisions])
    ax[0].set_xlabel(f"training decisions (width {h1})")
    b = df[df.share == 1.0].sort_values("h1")
    ax[1].errorbar(b.h1, b.value, yerr=[b.value - b.low, b.high - b.value], marker="o",
                   capsize=3)
    ax[1].set_xscale("log", base=2)
    ax[1].set_xticks(list(b.h1))
    ax[1].set_xticklabels([str(int(h)) for h in b.h1])
    ax[1].set_xlabel(f"first hidden layer width (all {int(b.decisions.max()):,} decisions)")
    team = game in TEAM_GAMES
    ylabel = "win rate (95% CI)" if team else "duplicate gain vs heuristic (95% CI)"
    base = float(df["heuristic"].iloc[0]) if "heuristic" in df else 0.0
    for x in ax:
        x.axhline(base, color="grey", ls="--", lw=1, label="heuristic")
        x.legend(loc="lower right", fontsize=8)
        x.set_ylabel(ylabel)
        x.grid(alpha=0.3)
        x.xaxis.set_minor_formatter(NullFormatter())
        if team:
            x.yaxis.set_major_formatter(PercentFormatter(1.0))
    fig.suptitle(f"What do more data and a wider network buy? net in "
                 f"{game.replace('_', ' ').title()}, {players} players", fontsize=11)
    fig.tight_layout()
    fig.savefig(out.with_suffix(".png"), dpi=110)


if __name__ == "__main__":
    sys.exit(main())
