"""The Lure fish-card balance report (``boardlab lure balance``).

For a fish deck, computes per card:

* exact catch probabilities (:func:`engines.dice.exact_table`) with 1..5 d6 and with the
  special dice, the cheapest loadout reaching 50% and 90%, expected points per die committed;
* a **difficulty** ``D = -ln(mean P)``, the mean taken over every dice loadout (0-5 d6 x every
  subset of the special dice; a card that requires a lure gets one boost, a card that forbids
  lures none), a least-squares quadratic fit of points on ``D`` (:func:`fit_curve`), the cards
  whose points lie off it by more than ``max(1, 1.5 x RMSE)`` (over-valued: too many points for
  their difficulty; under-valued: too few) and the points each card would need to sit on it;
* from simulated full games (:func:`engines.lure.batch.simulate_parallel`) per player count:
  how often it is caught (Wilson interval), in which round, by whom in the turn order (share
  caught by the first group to act, mean rank), and the win-rate difference between the
  catcher and the other players of those games (Newcombe interval);

and writes CSV tables, PNG plots, ``metadata.json`` and ``report.md`` into one folder.
"""

from __future__ import annotations

import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D
from engines.lure.batch import simulate_parallel
from engines.lure.config import LureConfig
from experiments.stats import newcombe_difference, wilson_interval

SPEC_LABELS = ("", "d12", "d20", "d12+d20", "d4", "d12+d4", "d20+d4", "d12+d20+d4")


def _spec_list(deep: bool) -> list[int]:
    return list(range(8 if deep else 4))


def loadout_label(n6: int, spec: int, plan: int) -> str:
    """Text of a standard-table loadout, e.g. ``"3d6+d12 +adj"``."""
    return dice.plan_loadout(n6, spec, plan).label()


def card_table(deck: D.Deck, deep_waters: bool, adjust_may_be_unused: bool = True
               ) -> tuple[pd.DataFrame, np.ndarray]:
    """Exact odds per card of the cards in play (base, plus Deep Waters when on).

    Returns:
        ``(cards, table)``: a DataFrame (one row per card; columns described in the report) and
        the exact table float64 ``(cards, 6, 8, N_PLANS)`` of those cards.
    """
    keep = np.flatnonzero((deck.info[:, D.I_SET] == D.SET_BASE) | bool(deep_waters))
    conds = deck.conds[keep]
    table = dice.exact_table(conds, deep_waters=deep_waters,
                             adjust_may_be_unused=adjust_may_be_unused)
    specs = _spec_list(deep_waters)
    # cost order of loadouts: dice, special dice, lure tokens
    cells = []
    for n6 in range(6):
        for spec in specs:
            nsp = bin(spec).count("1")
            for plan in range(dice.N_PLANS):
                nl = dice.plan_loadout(n6, spec, plan).n_lures
                cells.append((n6 + nsp, nsp, nl, n6, spec, plan))
    cells.sort()
    rows = []
    for j, i in enumerate(keep):
        flags = deck.conds[i, dice.FLAGS]
        ctx = dice.PLAN_FLAG if flags & dice.F_LURE else dice.PLAN_NONE
        t = table[j]
        pts = int(deck.info[i, D.I_POINTS])
        row = {
            "id": deck.ids[i], "name": deck.names[i],
            "set": D.SET_NAMES[deck.info[i, D.I_SET]], "points": pts,
            "catch_number": int(deck.conds[i, dice.CN]),
            "requirements": deck.requirement_text(i),
            "splash": D.SPLASH_NAMES[deck.info[i, D.I_SPLASH]],
            "trophy": bool(deck.info[i, D.I_TROPHY]),
            "lure_context": "boost" if ctx == dice.PLAN_FLAG else "none",
        }
        for n6 in range(1, 6):
            row[f"p_{n6}d6"] = t[n6, 0, ctx]
        for spec in specs[1:]:
            row[f"p_5d6+{SPEC_LABELS[spec]}"] = t[5, spec, ctx]
        for thr in (0.5, 0.9):
            for suffix, allowed in (("", (ctx,)), ("_with_lures", tuple(range(dice.N_PLANS)))):
                hit = next(((n6, spec, plan) for _, _, _, n6, spec, plan in cells
                            if plan in allowed and t[n6, spec, plan] >= thr - 1e-12), None)
                key = f"cheapest_{int(thr * 100)}{suffix}"
                if hit is None:
                    row[key], row[key + "_dice"] = "unreachable", np.nan
                else:
                    row[key] = loadout_label(*hit)
                    row[key + "_dice"] = dice.plan_loadout(*hit).n_dice
        best, best_lab = 0.0, ""
        ref = []
        for n6 in range(6):
            for spec in specs:
                p = max(t[n6, spec, dice.PLAN_NONE], t[n6, spec, dice.PLAN_FLAG])
                ref.append(p)
                nd = n6 + bin(spec).count("1")
                if nd and pts * t[n6, spec, ctx] / nd > best:
                    best = pts * t[n6, spec, ctx] / nd
                    best_lab = loadout_label(n6, spec, ctx)
        row["ev_per_die_best"] = best
        row["ev_per_die_loadout"] = best_lab
        row["ev_per_die_5d6"] = pts * t[5, 0, ctx] / 5
        row["mean_p"] = float(np.mean(ref))
        row["difficulty"] = -np.log(row["mean_p"]) if row["mean_p"] > 0 else np.inf
        rows.append(row)
    return pd.DataFrame(rows), table


def fit_curve(difficulty, points, degree: int = 2):
    """Least-squares polynomial of points on difficulty over the finite difficulties.

    Returns:
        ``(coefficients, fitted, rmse)``: numpy polynomial coefficients (highest first), the
        fitted points for every card (NaN where the difficulty is infinite), residual RMSE.

    Raises:
        ValueError: fewer than ``degree + 2`` catchable cards.
    """
    d = np.asarray(difficulty, float)
    y = np.asarray(points, float)
    ok = np.isfinite(d)
    if ok.sum() < degree + 2:
        raise ValueError(f"{int(ok.sum())} catchable cards; the fit needs at least {degree + 2}")
    coef = np.polyfit(d[ok], y[ok], degree)
    fitted = np.where(ok, np.polyval(coef, np.where(ok, d, 0.0)), np.nan)
    rmse = float(np.sqrt(np.mean((y[ok] - fitted[ok]) ** 2)))
    return coef, fitted, rmse


def add_fit(cards: pd.DataFrame) -> tuple[pd.DataFrame, dict]:
    """Add ``fair_points``, ``residual`` and ``flag`` columns (see module docstring)."""
    coef, fitted, rmse = fit_curve(cards["difficulty"], cards["points"])
    thr = max(1.0, 1.5 * rmse)
    out = cards.copy()
    out["fitted_points"] = fitted
    out["fair_points"] = np.where(np.isfinite(fitted), np.round(fitted), np.nan)
    out["residual"] = out["points"] - fitted
    out["flag"] = np.select([~np.isfinite(out["difficulty"]), out["residual"] >= thr,
                             out["residual"] <= -thr],
                            ["uncatchable", "over-valued", "under-valued"], "")
    return out, {"coefficients": coef.tolist(), "rmse": rmse, "threshold": thr}


def simulate_cards(deck: D.Deck, config: LureConfig, agents, n_games: int, seed: int,
                   batch_size: int = 5000, n_jobs: int = 1, progress: bool = False
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-card statistics from simulated games at one player count.

    Returns:
        ``(per_card, games)``: per card of the deck: ``in_play`` games, ``caught`` rate with
        Wilson interval, ``mean_round``, ``first_group_share`` (caught by the first group to
        act), ``mean_turn_rank``, ``seat_i_share``, ``win_catcher``, ``win_others``,
        ``win_diff`` with Newcombe interval; and the per-game DataFrame.
    """
    res = simulate_parallel(config, agents, n_games, seed, deck, batch_size, n_jobs, progress)
    n = config.n_players
    wins = res.games[[f"win_{p}" for p in range(n)]].to_numpy()
    rows = []
    for c in range(len(deck)):
        who = res.catch_player[:, c].astype(int)
        inplay = who != -2
        caught = who >= 0
        ni, nc = int(inplay.sum()), int(caught.sum())
        if ni == 0:
            continue
        lo, hi = wilson_interval(nc, ni)
        cw = wins[caught, who[caught]].sum() if nc else 0.0
        others_n = n * ni - nc
        others_w = wins[inplay].sum() - cw
        d, dlo, dhi = newcombe_difference(cw, nc, others_w, others_n)
        row = {"id": deck.ids[c], "players": n, "in_play": ni, "caught_rate": nc / ni,
               "caught_low": float(lo), "caught_high": float(hi),
               "mean_round": float(res.catch_round[caught, c].mean()) if nc else np.nan,
               "mean_rounds_on_table": float((res.catch_round[caught, c]
                                              - res.reveal_round[caught, c]).mean())
               if nc else np.nan,
               "first_group_share": float((res.catch_group[caught, c] == 0).mean())
               if nc else np.nan,
               "mean_turn_rank": float(res.catch_group[caught, c].mean()) if nc else np.nan,
               "win_catcher": cw / nc if nc else np.nan,
               "win_others": others_w / others_n if others_n else np.nan,
               "win_diff": float(d), "win_diff_low": float(dlo), "win_diff_high": float(dhi)}
        for p in range(n):
            row[f"seat_{p}_share"] = float((who[caught] == p).mean()) if nc else np.nan
        rows.append(row)
    return pd.DataFrame(rows), res.games


# ---------------------------------------------------------------- plots
def plot_points_vs_difficulty(cards: pd.DataFrame, fit: dict, path: Path) -> None:
    """Scatter of points on difficulty with the fitted curve and the flags (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(9, 6))
    ok = np.isfinite(cards["difficulty"])
    colours = {"": "tab:blue", "over-valued": "tab:red", "under-valued": "tab:green"}
    for flag, colour in colours.items():
        m = ok & (cards["flag"] == flag)
        ax.scatter(cards.loc[m, "difficulty"], cards.loc[m, "points"], c=colour, s=40,
                   label=flag or "on the curve", zorder=3)
    for _, r in cards[ok].iterrows():
        ax.annotate(r["id"], (r["difficulty"], r["points"]), fontsize=7,
                    xytext=(3, 3), textcoords="offset points")
    xs = np.linspace(cards.loc[ok, "difficulty"].min(), cards.loc[ok, "difficulty"].max(), 200)
    ys = np.polyval(fit["coefficients"], xs)
    ax.plot(xs, ys, "k-", lw=1, label="fitted curve")
    ax.fill_between(xs, ys - fit["threshold"], ys + fit["threshold"], color="grey", alpha=0.15,
                    label=f"+-{fit['threshold']:.2f} points")
    ax.set_xlabel("difficulty  D = -ln(mean catch probability over dice loadouts)")
    ax.set_ylabel("points")
    ax.set_title("Lure fish cards: points against difficulty")
    ax.legend(loc="upper left", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_heatmaps(cards: pd.DataFrame, table: np.ndarray, deep: bool, path: Path) -> None:
    """One small heatmap per card: catch probability by d6 count x special dice (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = _spec_list(deep)
    n = len(cards)
    cols = 6
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 2.4, rows * 2.7), squeeze=False)
    fig.subplots_adjust(hspace=0.8, wspace=0.45, top=0.93)
    im = None
    for k in range(rows * cols):
        ax = axes[k // cols][k % cols]
        if k >= n:
            ax.axis("off")
            continue
        ctx = dice.PLAN_FLAG if cards.iloc[k]["lure_context"] == "boost" else dice.PLAN_NONE
        data = table[k][:, specs, ctx]
        im = ax.imshow(data, vmin=0, vmax=1, cmap="viridis", aspect="auto", origin="lower")
        r = cards.iloc[k]
        ax.set_title(f"{r['id']} cn{r['catch_number']} {r['requirements']}"[:26], fontsize=7)
        ax.set_yticks(range(6))
        ax.set_yticklabels([f"{i}d6" for i in range(6)], fontsize=5)
        ax.set_xticks(range(len(specs)))
        ax.set_xticklabels([SPEC_LABELS[s] or "-" for s in specs], fontsize=5, rotation=60)
    fig.suptitle("Exact catch probability by loadout (rows: d6 count; columns: special dice)",
                 fontsize=10)
    if im is not None:
        fig.colorbar(im, ax=axes, shrink=0.6, label="P(catch)")
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_caught(sim: pd.DataFrame, path: Path) -> None:
    """Caught rate per card and player count with 95% intervals (PNG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = list(dict.fromkeys(sim["id"]))
    fig, ax = plt.subplots(figsize=(max(8, len(ids) * 0.3), 4.5))
    players = sorted(sim["players"].unique())
    w = 0.8 / len(players)
    for j, n in enumerate(players):
        s = sim[sim["players"] == n].set_index("id").reindex(ids)
        x = np.arange(len(ids)) + j * w
        ax.bar(x, s["caught_rate"], w, label=f"{n} players",
               yerr=[s["caught_rate"] - s["caught_low"], s["caught_high"] - s["caught_rate"]],
               error_kw={"lw": 0.5})
    ax.set_xticks(np.arange(len(ids)) + 0.4 - w / 2)
    ax.set_xticklabels(ids, rotation=90, fontsize=7)
    ax.set_ylabel("share of games in play where it is caught")
    ax.set_ylim(0, 1.05)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------- the whole report
def _fmt(x, nd=2):
    if isinstance(x, (float, np.floating)):
        return "" if np.isnan(x) else f"{x:.{nd}f}"
    return str(x)


def _md_table(df: pd.DataFrame, nd=2) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(_fmt(v, nd) for v in row) + " |"
            for row in df.itertuples(index=False)]
    return "\n".join([head, sep] + body)


def run_balance(deck: D.Deck | None = None, players=(2, 3, 4, 5), deep_waters: bool = False,
                agents=("heuristic",), n_games: int = 20000, seed: int = 0, out=None,
                n_jobs: int = 1, batch_size: int = 5000, command: str = "",
                progress: bool = False) -> Path:
    """Compute and write the balance report; returns the output folder.

    Files: ``cards.csv`` (exact odds and fit), ``simulated.csv`` (per card x player count),
    ``points_vs_difficulty.png``, ``catch_heatmaps.png``, ``caught_by_players.png``,
    ``metadata.json``, ``report.md``.

    Raises:
        ValueError: no player count, a player count outside 2..5, unknown agents, n_games < 1.
    """
    deck = deck if deck is not None else D.default_deck()
    players = sorted(set(int(p) for p in players))
    if not players or any(not 2 <= p <= 5 for p in players):
        raise ValueError(f"player counts {players}; expected values in 2..5")
    if int(n_games) < 1:
        raise ValueError(f"n_games = {n_games!r}; expected >= 1")
    agents = list(agents)
    if out is None:
        tag = "deep_waters" if deep_waters else "base"
        stem = "" if deck.source == str(D.DEFAULT_DECK_PATH) else Path(deck.source).stem + "_"
        out = Path("results") / "lure" / f"{stem}{tag}"
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    cards, table = card_table(deck, deep_waters)
    cards, fit = add_fit(cards)
    sims = []
    sim_seconds = {}
    for i, n in enumerate(players):
        cfg = LureConfig(n_players=n, deep_waters=deep_waters)
        seat = [agents[s % len(agents)] for s in range(n)]
        ts = time.perf_counter()
        s, _ = simulate_cards(deck, cfg, seat, n_games, seed + i, batch_size, n_jobs, progress)
        sim_seconds[n] = time.perf_counter() - ts
        sims.append(s)
    sim = pd.concat(sims, ignore_index=True)
    sim = sim[sim["id"].isin(cards["id"])]
    cards.to_csv(out / "cards.csv", index=False)
    sim.to_csv(out / "simulated.csv", index=False)
    plot_points_vs_difficulty(cards, fit, out / "points_vs_difficulty.png")
    plot_heatmaps(cards, table, deep_waters, out / "catch_heatmaps.png")
    plot_caught(sim, out / "caught_by_players.png")
    meta = {
        "command": command or "experiments.lure_balance.run_balance", "deck": _rel(deck.source),
        "deck_sha256": deck.sha256(), "deep_waters": deep_waters, "players": players,
        "agents": agents, "n_games_per_player_count": int(n_games), "seed": int(seed),
        "seeds": {str(n): seed + i for i, n in enumerate(players)},
        "batch_size": batch_size, "fit": fit, "wall_seconds": time.perf_counter() - t0,
        "simulation_seconds": sim_seconds,
        "machine": {"platform": platform.platform(), "python": sys.version.split()[0],
                    "cpus": os.cpu_count()},
        "code_version": _code_version(),
    }
    (out / "metadata.json").write_text(json.dumps(meta, indent=1))
    (out / "report.md").write_text(_report_md(deck, cards, sim, fit, meta, deep_waters))
    return out


def _rel(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _code_version() -> str:
    import subprocess

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, cwd=Path(__file__).parent, timeout=5)
        return rev.stdout.strip() or "uncommitted"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _report_md(deck, cards, sim, fit, meta, deep) -> str:
    players = meta["players"]
    default = deck.source == str(D.DEFAULT_DECK_PATH)
    L = [f"# Lure fish-card balance report: {'Deep Waters' if deep else 'base game'}", ""]
    L += [f"Deck: `{Path(deck.source).name}` (sha256 `{deck.sha256()[:12]}`)"
          + (" - the project's **reconstructed** deck, not the publisher's cards." if default
             else "."),
          f"Cards in the report: {len(cards)}"
          + (" (30 base + 15 Deep Waters; each game shuffles them and removes 15 at random)."
             if deep else " (the base set)."),
          f"Simulated: {meta['n_games_per_player_count']} games per player count "
          f"({', '.join(map(str, players))} players), agents {', '.join(meta['agents'])} "
          f"(seats cycle through the list), seeds {meta['seeds']}.",
          f"Command: `{meta['command']}`", ""]
    L += ["## How to read this", "",
          "* **P(…)**: exact probability that the loadout meets the card (all dice rolled at once;"
          " adjust lures applied in the best way; a card that requires a lure is given one"
          " boost, i.e. a lure that changes no die: the token it costs is not in the"
          " difficulty, so such cards may look over-valued).",
          "* **cheapest 50% / 90%**: the dice-only loadout with the fewest dice (then fewest"
          " special dice) reaching that probability; *with lures* (in `cards.csv`): the same"
          " over lure plans too (none, a boost, one or two adjusts, one extra-die lure; then"
          " fewest lure tokens).",
          "* **EV/die**: points x P(catch) / dice committed, at the best dice-only loadout.",
          "* **difficulty** D = -ln(mean P over every dice loadout: 0-5 d6 x every subset of the"
          " special dice). A fitted quadratic gives the points a card of that difficulty"
          f" should carry; cards off it by at least {fit['threshold']:.2f} points"
          " (max(1, 1.5 x RMSE)) are flagged.",
          "* **Simulated**: share of games (where the card was in play) in which it was caught"
          " with a 95% Wilson interval; the round it was caught in; the share caught by the first"
          " group to act; and the win rate of its catcher minus that of the other players of"
          " the same games (95% Newcombe interval). A positive difference that is large for a"
          " cheap card points to a card that decides games.", ""]
    flagged = cards[cards["flag"] != ""]
    L += ["## Summary", ""]
    co = fit["coefficients"]
    L += [f"Fitted curve: points = {co[0]:.3f} D^2 + {co[1]:.3f} D + {co[2]:.3f}"
          f" (RMSE {fit['rmse']:.2f} points).", ""]
    if len(flagged):
        L += ["Flagged cards:", ""]
        L += [_md_table(flagged[["id", "points", "catch_number", "requirements", "difficulty",
                                 "fair_points", "residual", "flag"]])]
    else:
        L += ["No card lies off the curve by more than the threshold."]
    L += ["", "![points vs difficulty](points_vs_difficulty.png)", ""]
    L += ["## Exact odds per card", ""]
    pcols = [c for c in cards.columns if c.startswith("p_")]
    show = cards[["id", "points", "catch_number", "requirements"] + pcols
                 + ["cheapest_50", "cheapest_90", "ev_per_die_best", "ev_per_die_loadout",
                    "difficulty", "fair_points", "flag"]]
    L += [_md_table(show), "", "![catch probability heatmaps](catch_heatmaps.png)", ""]
    L += ["## Simulated games", ""]
    for n in players:
        s = sim[sim["players"] == n].copy()
        s["caught (95% CI)"] = [f"{r.caught_rate:.2f} ({r.caught_low:.2f}-{r.caught_high:.2f})"
                                for r in s.itertuples()]
        s["win diff (95% CI)"] = [
            f"{r.win_diff:+.3f} ({r.win_diff_low:+.3f}..{r.win_diff_high:+.3f})"
            for r in s.itertuples()]
        L += [f"### {n} players ({meta['n_games_per_player_count']} games)", ""]
        L += [_md_table(s[["id", "in_play", "caught (95% CI)", "mean_round",
                           "mean_rounds_on_table", "first_group_share", "mean_turn_rank",
                           "win_catcher", "win_others", "win diff (95% CI)"]]), ""]
    L += ["![caught by player count](caught_by_players.png)", ""]
    L += ["## Files", "", "* `cards.csv`: exact odds, fit and flags per card",
          "* `simulated.csv`: simulated statistics per card and player count",
          "* `metadata.json`: command, deck hash, seeds, sizes, wall time, machine", ""]
    return "\n".join(L)
