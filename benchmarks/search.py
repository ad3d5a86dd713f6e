"""Win rate of the River Rats search agents against their search budget, next to the
`heuristic` (the rollout policy and former best bot), `peek` (a heuristic that sees every
hidden card) and `pimc-peek` (the same Monte Carlo search on the true state, which sees the
hidden cards and the future draws: an upper reference, not legal play), in one run on the same
deals.

Run: ``python benchmarks/search.py [--players 4] [--games 300] [--jobs 2] [--quick]``.

Every agent plays the **same game seeds** (paired deals: one seat policy for the whole team,
random Rat pair, normal difficulty unless ``--difficulty``). A point is ``NAME`` (a registered
policy) or ``NAME:BUDGET`` (a search preset with its simulations set to ``BUDGET``: worlds per
decision for ``pimc`` and ``net-search``, simulations for ``ismcts``), optionally followed by
settings of a search preset, ``:prior=X`` (the prior weight of ``net-search``) and
``:rollout=NAME`` (the rollout policy: ``net`` or one of the game's own, e.g. ``heuristic``):
``net-search:16:rollout=heuristic`` is the prior alone, ``net-search:16:prior=0`` the rollouts
alone (the ablation of ``docs/guides/search_agents.md``), ``:value=X`` (the scale of the
learned leaf value, :mod:`agents.value`; 0 the game's hand-written leaf value) and
``:steps=N`` (at most ``N`` rollout decisions; -1 none: the learned value in place of
rollouts), ``:infer=W`` (inference over hidden cards from the others' decisions among the last
``W``, :mod:`agents.inference`), ``:candidates=N`` (candidate worlds it scores) and
``:temp=X`` (its likelihood exponent). ``--paired-with POINT`` adds each later point's paired
difference to ``POINT``.
For each point it prints the win rate with its 95% Wilson interval, the paired difference to
``heuristic`` on the same deals (95% normal interval of the mean of the per-deal
differences) and the speed in **games per second on one core** (games / summed worker CPU
seconds; each worker plays one warm-up game first, so compilation or cache loading is not
counted). Writes ``<out>.csv`` and ``<out>.png`` (win
rate against games/s, log x axis, reference lines). Results do not depend on ``--jobs``
(each game is played from its own seed word).
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

DEFAULT_POINTS = ("heuristic,peek,pimc:2,pimc:4,pimc:8,pimc:16,pimc:32,ismcts:50,ismcts:100,"
                  "ismcts:200,ismcts:400,pimc-peek:16")
QUICK_POINTS = "heuristic,peek,pimc:4,ismcts:50,pimc-peek:8"


def point_params(point: str, game: str = "river_rats"):
    """``(name, params)`` of a point ``NAME[:BUDGET][:prior=X][:rollout=NAME][:value=X]
    [:steps=N]`` (module
    docstring): the registered policy and its parameter vector (``float64``; None for a
    plain name). Raises ``ValueError`` naming the bad point and what was expected."""
    from agents import layout
    from agents.policy import get_spec

    name, *rest = point.split(":")
    spec = get_spec(game, name)  # ValueError naming a bad agent
    if not rest:
        return name, None
    want = (f"bad point {point!r}: expected NAME, or a search preset's SEARCH_PRESET[:BUDGET]"
            "[:prior=X][:rollout=POLICY][:value=X][:steps=N][:infer=W][:candidates=N][:temp=X]"
            " with a positive integer budget")
    if not spec.search:
        raise ValueError(want)
    params = spec.params_array()
    guided = (layout.K_NET_PIMC, layout.K_NET_ISMCTS)
    for i, part in enumerate(rest):
        key, eq, value = part.partition("=")
        if not eq and i == 0 and part.isdigit() and int(part) >= 1:
            params[layout.H_SIMS] = int(part)
        elif key == "prior" and spec.kind in guided:
            try:
                params[layout.H_PRIOR] = float(value)
            except ValueError:
                raise ValueError(want) from None
            if not np.isfinite(params[layout.H_PRIOR]) or params[layout.H_PRIOR] < 0:
                raise ValueError(want)
        elif key in ("value", "steps") and spec.kind in guided:
            try:
                x = float(value)
            except ValueError:
                raise ValueError(want) from None
            if not np.isfinite(x) or (key == "value" and x < 0):
                raise ValueError(want)
            params[layout.H_LEARNED_VALUE if key == "value" else layout.H_MAX_STEPS] = x
        elif key in ("infer", "candidates", "temp") and spec.kind == layout.K_NET_PIMC:
            try:
                x = float(value)
            except ValueError:
                raise ValueError(want) from None
            if not np.isfinite(x) or x < 0:
                raise ValueError(want)
            slot = {"infer": layout.H_INFER, "candidates": layout.H_INFER_WORLDS,
                    "temp": layout.H_INFER_TEMP}
            params[slot[key]] = x
        elif key == "rollout" and spec.kind in guided:
            roll = get_spec(game, value)  # ValueError naming a bad policy
            if roll.search:
                raise ValueError(want)
            params[layout.H_ROLLOUT] = roll.kind
        else:
            raise ValueError(want)
    return name, params


def _chunk(n_players: int, difficulty: str, name: str, params, seeds: np.ndarray
           ) -> tuple[np.ndarray, float]:
    """Play ``seeds`` with ``name`` (parameter vector ``params``, None: its defaults) in every
    seat; returns (won per game, CPU seconds)."""
    from agents.loop import run_games
    from engines.protocol import chance
    from engines.river_rats import RiverRatsConfig
    from engines.river_rats import core as river_rats_core

    cfg = RiverRatsConfig(n_players=n_players, difficulty=difficulty)
    warm = chance.game_seeds(chance.as_word(987_654_321), 1)
    run_games(cfg, name, warm, params=params)  # compile or load the kernels: not timed
    t0 = time.process_time()
    _, out = run_games(cfg, name, seeds, params=params)
    dt = time.process_time() - t0
    return out[:, river_rats_core.OUTCOME_FIELDS.index("won")].astype(np.int64), dt


def measure(point: str, n_players: int, difficulty: str, seeds: np.ndarray, n_jobs: int):
    """Play every seed with the agent of ``point``; returns (won (G,) int64, CPU seconds)."""
    from joblib import Parallel, delayed


    name, params = point_params(point)
    parts = [c for c in np.array_split(seeds, max(1, n_jobs) * 4) if c.size]
    res = Parallel(n_jobs=n_jobs)(delayed(_chunk)(n_players, difficulty, name, params, c)
                                  for c in parts)
    return np.concatenate([r[0] for r in res]), float(sum(r[1] for r in res))


def main(argv=None) -> int:
    import pandas as pd

    from engines.protocol import chance
    from experiments.io import machine_info
    from experiments.stats import wilson_interval

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--difficulty", default="normal")
    ap.add_argument("--games", type=int, default=300, help="games per point (same deals)")
    ap.add_argument("--points", default=None, help=f"default: {DEFAULT_POINTS}")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", default=None,
                    help="path stem of the CSV and PNG (default benchmarks/results/"
                         "search_curve_<N>p)")
    ap.add_argument("--paired-with", default=None, metavar="POINT",
                    help="also print each later point's paired difference to this point (one "
                         "of --points) on the same deals, 95%% interval")
    ap.add_argument("--quick", action="store_true", help="few points, 40 games")
    ap.add_argument("--replot", action="store_true",
                    help="only redraw <out>.png from the CSV of an earlier run")
    args = ap.parse_args(argv)
    if args.replot:
        stem = Path(args.out or ROOT / "benchmarks" / "results" / f"search_curve_{args.players}p")
        _plot(pd.read_csv(stem.with_suffix(".csv")), args, stem.with_suffix(".png"))
        return 0
    if args.quick:
        args.games = min(args.games, 40)
        args.points = args.points or QUICK_POINTS
    points = [p.strip() for p in (args.points or DEFAULT_POINTS).split(",") if p.strip()]
    if args.paired_with is not None and args.paired_with not in points:
        raise SystemExit(f"--paired-with {args.paired_with}: expected one of --points")
    if args.games < 1:
        raise SystemExit(f"--games {args.games}: expected a positive integer")
    for p in points:  # a bad point is refused before anything is played or written
        point_params(p)
    stem = Path(args.out or ROOT / "benchmarks" / "results" / f"search_curve_{args.players}p")
    stem.parent.mkdir(parents=True, exist_ok=True)

    seeds = chance.game_seeds(chance.as_word(args.seed), args.games)
    m = machine_info()
    print(f"River Rats, {args.players} players, {args.difficulty}, random Rats; "
          f"{args.games} paired games per point; {args.jobs} workers; machine: "
          f"{m['processor']}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print(f"{'agent':<16}{'win rate [95% CI]':>24}{'vs heuristic [95% CI]':>26}"
          f"{'games/s/core':>14}")
    rows, won = [], {}
    for p in points:
        w, cpu = measure(p, args.players, args.difficulty, seeds, args.jobs)
        won[p] = w
        lo, hi = wilson_interval(int(w.sum()), w.size)
        row = {"agent": p, "games": w.size, "wins": int(w.sum()), "win_rate": w.mean(),
               "ci_low": float(lo), "ci_high": float(hi), "cpu_s": cpu,
               "games_per_s_core": w.size / cpu if cpu > 0 else float("inf")}
        diff = ""
        if "heuristic" in won and p != "heuristic":
            d = w - won["heuristic"]
            half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
            row.update(diff_vs_heuristic=d.mean(), diff_low=d.mean() - half,
                       diff_high=d.mean() + half)
            diff = f"{d.mean():+.1%} [{d.mean() - half:+.1%}, {d.mean() + half:+.1%}]"
        ref = args.paired_with
        if ref in won and p != ref:
            d = w - won[ref]
            half = 1.96 * d.std(ddof=1) / np.sqrt(d.size) if d.size > 1 else float("nan")
            row.update(diff_vs_ref=d.mean(), diff_ref_low=d.mean() - half,
                       diff_ref_high=d.mean() + half)
            diff += f"   vs {ref}: {d.mean():+.1%} [{d.mean() - half:+.1%}, {d.mean() + half:+.1%}]"
        rows.append(row)
        print(f"{p:<16}{row['win_rate']:>8.1%} [{lo:.1%}, {hi:.1%}]{diff:>26}"
              f"{row['games_per_s_core']:>14.2f}", flush=True)
    df = pd.DataFrame(rows)
    df.to_csv(stem.with_suffix(".csv"), index=False)
    _plot(df, args, stem.with_suffix(".png"))
    print(f"\nwritten: {stem.with_suffix('.csv')}, {stem.with_suffix('.png')}")
    return 0


_WORDS = {"rollout=heuristic": "heuristic rollouts", "prior=0": "no prior",
          "value=0": "hand-written leaf", "steps=-1": "no rollouts"}
"""Words for the ablation settings in the picture's key (others are shown as typed)."""


def _label(point: str) -> str:
    """The picture's key of an ablation point: its budget and its settings in words."""
    budget, *rest = point.split(":")[1:]
    return ", ".join([f"{budget} worlds"] + [_WORDS.get(t, t) for t in rest])


def _plot(df, args, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6))
    refs = {"heuristic": "tab:gray", "peek": "tab:red"}
    for name, color in refs.items():
        r = df[df.agent == name]
        if len(r):
            ax.axhline(r.win_rate.iloc[0], color=color, ls="--", lw=1,
                       label=f"{name} ({r.win_rate.iloc[0]:.0%})")
    key: list[str] = []
    families = {"pimc": ("tab:blue", "o"), "ismcts": ("tab:green", "s"),
                "net-search": ("tab:purple", "D"), "pimc-peek": ("tab:red", "^")}
    for fam, (color, marker) in families.items():
        r = df[df.agent.str.partition(":")[0] == fam]
        if not len(r):
            continue
        yerr = np.vstack([r.win_rate - r.ci_low, r.ci_high - r.win_rate])
        ls = "none" if r.agent.str.contains("=").any() else "-"  # an ablation is no curve
        ax.errorbar(r.games_per_s_core, r.win_rate, yerr=yerr, color=color, marker=marker,
                    capsize=3, lw=1.2, ls=ls, label=fam + (" (sees hidden cards)" if "peek" in fam
                                                   else ""))
        for _, row in r.iterrows():
            text = row.agent.partition(":")[2]
            dx = 5
            if "=" in text:  # an ablation point: a letter on its left, its settings in the key
                text = chr(ord("a") + len(key))
                key.append(f"{text}: {_label(row.agent)}")
                dx = -12
            ax.annotate(text, (row.games_per_s_core, row.win_rate), textcoords="offset points",
                        xytext=(dx, -4), fontsize=9, color=color)
    ax.set_xscale("log")
    x = df.games_per_s_core[df.agent.str.contains(":")]
    x = x if len(x) else df.games_per_s_core
    ticks = [t for t in (0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500)
             if x.min() / 1.5 <= t <= x.max() * 1.5]
    ax.set_xticks(ticks)
    ax.xaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("games per second on one core (log scale)")
    ax.set_ylabel("win rate (95% interval)")
    ax.yaxis.set_major_formatter(matplotlib.ticker.PercentFormatter(1.0))
    plural = "s" if args.players > 1 else ""
    what = ("do search budget and guidance by net" if df.agent.str.startswith("net-search").any()
            else "does search budget")
    ax.set_title(f"River Rats, {args.players} player{plural}, {args.difficulty}: how much "
                 f"{what} buy?\n({int(df.games.iloc[0])} paired games per point; "
                 "labels: worlds or simulations per decision; letters: the key)", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper right")
    if key:
        ax.text(1.02, 0.0, "net-search with one\ningredient changed\n\n" + "\n".join(
                    k.replace(": ", ":\n  ", 1).replace(", ", ",\n  ", 1) for k in key),
                transform=ax.transAxes, ha="left", va="bottom", fontsize=8, color="tab:purple",
                bbox={"facecolor": "white", "edgecolor": "0.8", "alpha": 0.9})
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ValueError as e:
        sys.exit(f"search.py: {e}")
