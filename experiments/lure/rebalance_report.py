"""The before/after report of ``boardlab lure rebalance`` (:mod:`experiments.lure.rebalance`).

:func:`verify` plays the original and the proposed deck again on **fresh seeds** (the search's
seed + 1: another seed stream, so the proposal is not judged on the games it was picked on)
with :func:`experiments.lure.balance.simulate`, and recomputes both decks' exact odds
(:func:`experiments.lure.balance.card_table`). :func:`write_outputs` writes, atomically
(:mod:`experiments.io`), into the output folder:

* ``deck.csv``: the proposed deck in the fish-deck file format (loadable by ``--cards``);
* ``changes.csv``: one row per changed field (``id, field, before, after, why``);
* ``cards.csv``: per card and player count, before and after: the fields, difficulty, the
  curve's points and the card's distance from them, caught rate, win diff with its 95%
  Newcombe interval, the goal's violation;
* ``games.csv``: per deck and player count: game length, final scores, each seat's win share
  with its 95% Wilson interval (ties shared), games cut at the length bound;
* ``trials.csv`` (win-diff goal): every trial of the search;
* ``front.csv`` and ``front.png`` (win-diff goal with points among the fields): what any
  rebalance could reach, the fewest cards off the goal for each number of changed cards under a
  linear model of the win advantage per point (:func:`reachable_front`,
  :mod:`experiments.lure.rebalance_front`), with the order of value kept and lifted, and this
  run's result marked;
* PNGs: ``win_diff.png`` (per card, before/after with intervals and the band),
  ``points_vs_difficulty.png``, ``scores.png`` (final-score distribution), ``seats.png``
  (first-player advantage: seat win shares), ``game_length.png`` and, for the win-diff goal,
  ``search.png``;
* ``metadata.json`` (settings, sizes, seeds, wall time, machine, code version) and
  ``report.md`` (what changed and why, the tables and pictures).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from engines.lure import decks as D
from experiments.io import atomic_write_text, code_version, machine_info, write_json
from experiments.lure.balance_plots import difficulty_axes, place_labels, save_figure
from experiments.lure.odds import card_table
from experiments.lure.rebalance_diagnosis import (  # noqa: F401  (re-exported)
    band_capacity,
    diagnosis,
    points_slope,
)
from experiments.lure.rebalance_front import change_front, plot_front, slopes
from experiments.lure.rebalance_measures import card_arrays, curve_violation
from experiments.lure.rebalance_search import median_targets, win_diff_violation
from experiments.lure.rebalance_stats import kendall_tau, off_band
from experiments.lure.simulation import ROUND_BINS, SCORE_BINS, WIN_UNITS, simulate
from experiments.markdown import markdown_table, relative_path
from experiments.stats import wilson_interval

__all__ = ["verify", "write_outputs", "write_deck_file", "plot_win_diff",
           "plot_points_vs_difficulty", "plot_scores", "plot_seats", "plot_game_length",
           "plot_search", "points_slope", "band_capacity", "diagnosis", "off_goal_reasons",
           "reachable_front", "FRONT_EXTRA"]

FRONT_EXTRA = 3
"""The front reaches this many changed cards beyond the run's own (or until no card is off)."""

DECKS = ("before", "after")
_COLOURS = {"before": "0.55", "after": "tab:blue"}
_TITLE = {"before": "original deck", "after": "proposed deck"}


def write_deck_file(deck: D.Deck, path, comment: str = "") -> None:
    """:func:`engines.lure.decks.write_deck` made atomic: a temporary file in the same folder,
    renamed over ``path``. Raises ``OSError`` from the file system."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        D.write_deck(deck, tmp, comment=comment)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- verification
def _games_frame(res_run, deck_tag: str) -> pd.DataFrame:
    """Per player count: length, scores and seat win shares with Wilson intervals."""
    rows = []
    for cell, t in zip(res_run.cells, res_run.totals, strict=True):
        n, g = int(cell["players"]), int(t["games"])
        r_hist = np.asarray(t["rounds_hist"], np.float64)
        s_hist = np.asarray(t["score_hist"], np.float64)
        r_vals, s_vals = np.arange(ROUND_BINS), np.arange(SCORE_BINS)
        m_r = (r_hist * r_vals).sum() / g
        m_s = (s_hist * s_vals).sum() / s_hist.sum()
        row = {"deck": deck_tag, "players": n, "games": g, "mean_rounds": m_r,
               "sd_rounds": float(np.sqrt((r_hist * (r_vals - m_r) ** 2).sum() / g)),
               "mean_score": m_s,
               "sd_score": float(np.sqrt((s_hist * (s_vals - m_s) ** 2).sum() / s_hist.sum())),
               "truncated": int(t["truncated"])}
        for p in range(n):
            w = int(np.asarray(t["seat_win"])[p]) / WIN_UNITS
            lo, hi = wilson_interval(w, g)
            row.update({f"seat_{p}_win": w / g, f"seat_{p}_win_low": float(lo),
                        f"seat_{p}_win_high": float(hi)})
        rows.append(row)
    return pd.DataFrame(rows)


def verify(res, players, deep_waters: bool, agents, n_games: int, seed: int, n_jobs: int,
           batch_size: int, run_root, curve_tolerance: float, *, correction: str = "holm",
           alpha: float = 0.05, compare_agents=None, compare_games: int = 200) -> dict:
    """Play the original and the proposed deck on fresh seeds and judge every card with the
    goal.

    Args:
        res: the :class:`experiments.lure.rebalance.RebalanceResult` so far (decks, goal,
            curve, targets).
        players, deep_waters, agents: as the search; ``n_games`` per player count and deck;
            ``seed``: the verification's (the search's + 1); ``n_jobs``, ``batch_size``: the
            runner's; ``run_root``: folder of the runner states (``before/``, ``after/``:
            a killed verification resumes).
        curve_tolerance: card points of the curve check.
        correction, alpha: the multiple-comparison correction of the win-diff verdicts
            (:func:`experiments.lure.rebalance_stats.off_band`, over every card and player
            count of the deck).
        compare_agents: ``None`` or Lure policy names: both decks are also played by them
            (``compare_games`` per player count, same seed) and :func:`compare_verdicts`
            lists the cards whose verdict changes.

    Returns a dict: ``cards`` (DataFrame, as ``cards.csv``; ``violation_<deck>`` is the
    distance beyond the band's edge, percentage points (win-diff, of the 95% interval,
    uncorrected) or card points (curve); ``off_goal_<deck>`` the corrected verdict), ``games``
    (as ``games.csv``), ``hists`` (``{deck: {players: {"score": int64 (SCORE_BINS,),
    "rounds": int64 (ROUND_BINS,)}}}``), ``violating`` (``{"before": n, "after": n}``: cards
    off the goal on the fresh seeds after the correction; curve: exactly),
    ``violating_uncorrected`` (the same counted from the 95% intervals alone),
    ``kendall_tau`` (``{"before", "after"}``: points vs difficulty), ``targets``
    (``{deck: {players: pp}}``: the band centres on the fresh seeds, the goal's target or each
    deck's own median card), ``spread`` (per deck and
    player count: spread of the cards' win diffs), ``compare`` (DataFrame or ``None``),
    ``seed``, ``n_games``, ``wall_s``.
    """
    decks = {"before": res.original, "after": res.proposed}
    goal = res.goal
    per, games, hists, taus, tgs = {}, [], {}, {}, {}
    wall = 0.0
    for tag, deck in decks.items():
        cards, _ = card_table(deck, deep_waters)
        sim, _, run = simulate(deck, players, deep_waters, agents, n_games, seed,
                               n_jobs=n_jobs, batch_size=batch_size,
                               out_dir=Path(run_root) / tag, overwrite=True)
        wall += run.wall_time
        ids = list(cards["id"])
        st = card_arrays(sim, ids, players)
        targets = (median_targets(st, goal.target) if goal.kind == "win-diff"
                   else np.full(len(players), np.nan))
        tgs[tag] = {int(n): float(t) for n, t in zip(players, targets, strict=True)}
        curve_v = curve_violation(cards["points"], cards["difficulty"], res.curve,
                                  curve_tolerance)
        if goal.kind == "win-diff":
            wd_v = win_diff_violation(st, targets, goal.tolerance)
            off = off_band(st, targets, goal.tolerance, correction, alpha)
        else:
            wd_v = np.zeros((len(ids), len(players)))
            off = np.repeat((curve_v > 1e-9)[:, None], len(players), axis=1)
        per[tag] = (cards.set_index("id"), st, curve_v, wd_v, off)
        taus[tag] = kendall_tau(cards["difficulty"], cards["points"])
        games.append(_games_frame(run, tag))
        hists[tag] = {int(c["players"]): {"score": np.asarray(t["score_hist"]),
                                          "rounds": np.asarray(t["rounds_hist"])}
                      for c, t in zip(run.cells, run.totals, strict=True)}
    ids_b = list(per["before"][0].index)
    changed = set(res.changed_ids)
    rows = []
    for j, cid in enumerate(ids_b):
        for k, n in enumerate(players):
            row = {"id": cid, "players": n, "changed": cid in changed}
            for tag in DECKS:
                cards, st, cv, wv, off = per[tag]
                c = cards.loc[cid]
                fitted = float(res.curve(c["difficulty"]))
                row.update({f"points_{tag}": int(c["points"]),
                            f"catch_number_{tag}": int(c["catch_number"]),
                            f"requirements_{tag}": c["requirements"],
                            f"splash_{tag}": c["splash"],
                            f"difficulty_{tag}": float(c["difficulty"]),
                            f"curve_points_{tag}": fitted,
                            f"curve_violation_{tag}": float(cv[j]),
                            f"caught_rate_{tag}": st["caught"][j, k],
                            f"win_diff_{tag}": st["wd"][j, k],
                            f"win_diff_low_{tag}": st["lo"][j, k],
                            f"win_diff_high_{tag}": st["hi"][j, k],
                            f"violation_{tag}": (float(wv[j, k]) if goal.kind == "win-diff"
                                                 else float(cv[j])),
                            f"off_goal_{tag}": bool(off[j, k]),
                            f"target_{tag}": tgs[tag][n]})
            rows.append(row)
    cards = pd.DataFrame(rows)
    violating = {tag: int(cards.groupby("id")[f"off_goal_{tag}"].any().sum()) for tag in DECKS}
    raw = {tag: int((cards.groupby("id")[f"violation_{tag}"].max() > 0).sum()) for tag in DECKS}
    spread = []
    for tag in DECKS:
        for n in players:
            w = cards.loc[cards["players"] == n, f"win_diff_{tag}"].dropna() * 100
            spread.append({"deck": tag, "players": n, "sd_pp": w.std(ddof=1),
                           "iqr_pp": w.quantile(0.75) - w.quantile(0.25),
                           "min_pp": w.min(), "max_pp": w.max(),
                           "cards_off_goal": int(cards.loc[cards["players"] == n,
                                                           f"off_goal_{tag}"].sum())})
    compare = None
    if compare_agents:
        compare = compare_verdicts(res, cards, players, deep_waters, compare_agents,
                                   compare_games, seed, n_jobs, batch_size,
                                   Path(run_root) / "compare", correction, alpha,
                                   search_agents=agents)
    return {"cards": cards, "games": pd.concat(games, ignore_index=True), "hists": hists,
            "violating": violating, "violating_uncorrected": raw, "kendall_tau": taus,
            "targets": tgs,
            "spread": pd.DataFrame(spread), "compare": compare, "seed": int(seed),
            "n_games": int(n_games), "wall_s": wall}


def compare_verdicts(res, cards: pd.DataFrame, players, deep_waters: bool, agents,
                     n_games: int, seed: int, n_jobs: int, batch_size: int, run_root,
                     correction: str, alpha: float, search_agents=None) -> pd.DataFrame:
    """Which cards' win-diff verdicts change when ``agents`` play instead of the search's.

    Both decks are played by ``agents`` (``n_games`` per player count, ``seed``); the band's
    target is the goal's, or (median target) the median card's under those agents; verdicts
    are corrected as the verification's. ``cards``: the verification's frame;
    ``search_agents``: the players of the search and check (default
    :data:`experiments.lure.defaults.DEFAULT_AGENTS`), for the reason's words. Returns one row
    per card, deck and player count where either set of players puts the card off the goal:
    ``id, deck, players, off_goal_search_agents, off_goal_compared, win_diff_search_agents,
    win_diff_compared`` (fractions), ``changes`` (the verdict differs) and ``reason``
    (:func:`experiments.lure.verdicts.band_reason`: e.g. "strong players exploit it", off
    above the band with the stronger players only)."""
    from experiments.lure.defaults import DEFAULT_AGENTS
    from experiments.lure.verdicts import band_reason, reason_words

    w_search, w_cmp, search_strong = reason_words(search_agents or DEFAULT_AGENTS, agents)
    rows = []
    for tag, deck in (("before", res.original), ("after", res.proposed)):
        ids = list(cards["id"].drop_duplicates())
        sim, _, _ = simulate(deck, players, deep_waters, agents, n_games, seed, n_jobs=n_jobs,
                             batch_size=min(batch_size, n_games),
                             out_dir=Path(run_root) / tag, overwrite=True)
        st = card_arrays(sim, ids, players)
        if tag == "before":
            tg = ([res.goal.target] * len(players) if res.goal.target is not None else
                  [float(np.nanmedian(st["wd"][:, k]) * 100) for k in range(len(players))])
        off = off_band(st, tg, res.goal.tolerance, correction, alpha)
        c = cards.set_index(["id", "players"])
        for j, cid in enumerate(ids):
            for k, n in enumerate(players):
                a, b = bool(c.loc[(cid, n), f"off_goal_{tag}"]), bool(off[j, k])
                if a or b:
                    wd_a = float(c.loc[(cid, n), f"win_diff_{tag}"])
                    sa = int(a) * _side(wd_a, c.loc[(cid, n), f"target_{tag}"])
                    sb = int(b) * _side(float(st["wd"][j, k]), tg[k])
                    why = (band_reason(sb, sa, w_cmp, w_search) if search_strong
                           else band_reason(sa, sb, w_search, w_cmp))
                    rows.append({"id": cid, "deck": tag, "players": n,
                                 "off_goal_search_agents": a, "off_goal_compared": b,
                                 "win_diff_search_agents": wd_a,
                                 "win_diff_compared": float(st["wd"][j, k]),
                                 "target_compared_pp": tg[k], "changes": a != b,
                                 "reason": why})
    return pd.DataFrame(rows, columns=["id", "deck", "players", "off_goal_search_agents",
                                       "off_goal_compared", "win_diff_search_agents",
                                       "win_diff_compared", "target_compared_pp", "changes",
                                       "reason"])


def _side(win_diff: float, target_pp: float) -> int:
    """+1 when a win diff (fraction; NaN: never caught, read as 0) lies above the target
    (percentage points), -1 below."""
    wd = 0.0 if not np.isfinite(win_diff) else win_diff
    return 1 if 100 * wd > float(target_pp) else -1


def off_goal_reasons(res) -> list[tuple[str, str]]:
    """``[(id, reason)]``: every card off the goal with the proposed deck on the fresh seeds
    (``res.verification``), each with how far (beyond its band's edge) and the constraint or
    the reason that holds it: ``--change``, ``--fields``/``--points-range``, the order
    constraint, the search's budget, no confirmed evidence on the search's seeds, ..."""
    v = res.verification["cards"]
    off = v.groupby("id")["off_goal_after"].any()
    cons = res.constraints
    unfix = dict(res.unfixable)
    sc = res.screen or {}
    held = sc.get("held", {})
    out = []
    for cid in [c for c in dict.fromkeys(v["id"]) if off.get(c, False)]:
        rows = v[(v["id"] == cid) & v["off_goal_after"]]
        if res.goal.kind == "curve":
            far = f"{rows['violation_after'].max():.2f} points beyond the band's edge"
        else:
            far = ", ".join(f"{int(r.players)}p {r.violation_after:.1f} pp" for r in
                            rows.itertuples()) + " beyond the band's edge"
        if cid in unfix:
            why = unfix[cid]
        elif cid in held:
            why = held[cid]
        elif cid not in cons.change:
            why = "held by --change: not among the cards that may change"
        elif res.goal.kind == "curve":
            why = "off the curve after its best change under the constraints"
        elif cid in sc.get("candidates", []):
            why = ("changed, and inside its band on the search's games, but off on the fresh "
                   "seeds: more games per trial (--games) would place it better")
            if cid not in res.changed_ids:
                why = ("off its band on the screen and confirmed, but its estimate on the "
                       "search's games (--games per trial) lay inside the band, so no change "
                       "was tried")
        elif cid in sc.get("unconfirmed", []):
            why = ("off its band on the screen but not confirmed on the confirmation "
                   "seeds, so left unchanged (not enough evidence)")
        else:
            why = ("not off its band on the screen after the correction, so left "
                   "unchanged (no evidence to act on); off on the fresh seeds: too small a "
                   "deviation for the screen's games (--screen-games) to show after the "
                   "correction")
        out.append((cid, f"{far}; {why}"))
    return out


# ---------------------------------------------------------------- plots
def _figure(path):
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(plt, fig, path):
    save_figure(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


def plot_win_diff(cards: pd.DataFrame, targets: dict, tolerance: float | None, path=None):
    """Per card (x) and player count (one panel each): the catcher win advantage before
    (grey) and after (blue) with 95% Newcombe intervals, in percentage points; the goal's band
    ``target +- tolerance`` shaded when given; changed cards' labels in bold. PNG to ``path``
    when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(cards["players"].unique())
    ids = list(dict.fromkeys(cards["id"]))
    changed = set(cards.loc[cards["changed"], "id"])
    fig, axes = plt.subplots(len(players), 1, figsize=(max(9.0, 0.34 * len(ids) + 2.5),
                                                        2.4 * len(players) + 1.4),
                             squeeze=False, sharex=True)
    x = np.arange(len(ids))
    for ax, n in zip(axes[:, 0], players, strict=True):
        s = cards[cards["players"] == n].set_index("id").reindex(ids)
        if tolerance is not None and n in targets:
            t = targets[n]
            ax.axhspan(t - tolerance, t + tolerance, color="tab:green", alpha=0.12,
                       label=f"band: target +- {tolerance:g} pp")
        for off, tag in ((-0.17, "before"), (0.17, "after")):
            y = 100 * s[f"win_diff_{tag}"].to_numpy(float)
            err = 100 * np.array([s[f"win_diff_{tag}"] - s[f"win_diff_low_{tag}"],
                                  s[f"win_diff_high_{tag}"] - s[f"win_diff_{tag}"]])
            ax.errorbar(x + off, y, yerr=err, fmt="o", ms=3.2, lw=0.9, capsize=0,
                        color=_COLOURS[tag], label=_TITLE[tag])
        ax.set_ylabel(f"{n} players\nwin diff (pp)", fontsize=9)
        ax.grid(axis="y", alpha=0.3)
        ax.axhline(0, color="0.3", lw=0.6)
    axes[0, 0].legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    ax = axes[-1, 0]
    ax.set_xticks(x)
    ax.set_xticklabels(ids, rotation=90, fontsize=8)
    for lab in ax.get_xticklabels():
        if lab.get_text() in changed:
            lab.set_fontweight("bold")
            lab.set_color("tab:red")
    ax.set_xlim(-0.6, len(ids) - 0.4)
    ax.set_xlabel("card (changed cards in red)")
    q = ("Is every card's catcher win advantage inside the band after the rebalance?"
         if tolerance is not None else
         "How much does catching each card help its catcher win, before and after?")
    fig.suptitle(f"{q}\nWin rate of the catcher minus the other players' (percentage points), "
                 f"95% intervals, fresh seeds", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_points_vs_difficulty(cards: pd.DataFrame, curve, tolerance: float, path=None):
    """Points against difficulty: every card before (hollow grey) and after (blue), an arrow
    for each changed card, the curve and its tolerance band; cards nobody can catch drawn at
    the right edge. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    c = cards.drop_duplicates("id").reset_index(drop=True)
    fig, ax = plt.subplots(figsize=(11, 6.6))
    # square-root axis: the many easy cards (D near 0) spread out
    ax.set_xscale("function", functions=(lambda x: np.sqrt(np.maximum(x, 0)), np.square))
    xs = np.linspace(curve.d_low, curve.d_high, 200)
    ys = curve(xs)
    ax.fill_between(xs, ys - tolerance, ys + tolerance, color="grey", alpha=0.15,
                    label=f"curve +- {tolerance:.2f} points", zorder=1)
    ax.plot(xs, ys, "k-", lw=1, label=f"curve ({curve.kind}) of the original deck", zorder=2)
    edge = curve.d_high + 0.08 * (curve.d_high - curve.d_low)

    def xy(tag):
        d = c[f"difficulty_{tag}"].to_numpy(float)
        return np.where(np.isfinite(d), d, edge), c[f"points_{tag}"].to_numpy(float)

    xb, yb = xy("before")
    xa, ya = xy("after")
    ch = c["changed"].to_numpy(bool)
    ax.scatter(xb, yb, s=38, facecolors="none", edgecolors="0.5", label="original deck",
               zorder=3)
    ax.scatter(xa[ch], ya[ch], s=40, c="tab:blue", label="proposed (changed cards)", zorder=4)
    for i in np.flatnonzero(ch):
        ax.annotate("", (xa[i], ya[i]), (xb[i], yb[i]),
                    arrowprops={"arrowstyle": "->", "color": "tab:blue", "lw": 1.0})
    from matplotlib.ticker import FormatStrFormatter

    ax.set_xticks([t for t in (0, 0.05, 0.2, 0.5, 1, 1.5, 2, 3, 4, 5, 6, 8, 10)
                   if t <= edge * 1.02])
    ax.xaxis.set_major_formatter(FormatStrFormatter("%g"))
    if (~np.isfinite(c["difficulty_before"].to_numpy(float))).any():
        ax.axvline(edge, color="tab:red", ls=":", lw=1)
        ax.text(edge, ax.get_ylim()[0], "nobody can catch\n(D = inf) ", color="tab:red",
                fontsize=8, va="bottom", ha="right")
    difficulty_axes(ax, "Which cards did the rebalance move, and do their points now fit "
                        "their difficulty?\nPoints against difficulty (square-root axis), "
                        "original and proposed deck")
    if ch.any():
        place_labels(ax, xa[ch], ya[ch], list(c.loc[ch, "id"]))
    return _finish(plt, fig, path)


def _panels(plt, players, height=2.6):
    fig, axes = plt.subplots(1, len(players), figsize=(max(6.0, 3.2 * len(players) + 1.0),
                                                      height + 1.4), squeeze=False)
    return fig, axes[0]


def plot_scores(hists: dict, path=None):
    """Distribution of the final scores (every seat), before and after, one panel per player
    count (share of the scores per 2-point bin). PNG to ``path`` when given; returns the
    Figure."""
    plt = _figure(path)
    players = sorted(hists["before"])
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        for tag in DECKS:
            h = np.asarray(hists[tag][n]["score"], np.float64)
            h2 = h[: len(h) // 2 * 2].reshape(-1, 2).sum(axis=1) / h.sum()
            top = max(4, int(np.flatnonzero(h)[-1]) + 3) if h.any() else 10
            ax.step(np.arange(len(h2)) * 2, h2, where="post", color=_COLOURS[tag],
                    label=_TITLE[tag], lw=1.4)
            m = (h * np.arange(len(h))).sum() / h.sum()
            ax.axvline(m, color=_COLOURS[tag], ls="--", lw=0.9)
            ax.set_xlim(0, max(ax.get_xlim()[1] if tag == "after" else 0, top))
        ax.set_title(f"{n} players", fontsize=10)
        ax.set_xlabel("final score (dashed: mean)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("share of the scores (2-point bins)")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper right")
    fig.suptitle("Did the rebalance change how many points players score?", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_seats(games: pd.DataFrame, path=None):
    """Each seat's win share (ties shared) before and after with 95% Wilson intervals, one
    panel per player count, the fair share 1/n dashed: the first-player advantage. PNG to
    ``path`` when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(games["players"].unique())
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        for off, tag in ((-0.2, "before"), (0.2, "after")):
            r = games[(games["players"] == n) & (games["deck"] == tag)].iloc[0]
            w = np.array([r[f"seat_{p}_win"] for p in range(n)])
            err = np.array([[w[p] - r[f"seat_{p}_win_low"] for p in range(n)],
                            [r[f"seat_{p}_win_high"] - w[p] for p in range(n)]])
            ax.bar(np.arange(n) + off, w, 0.4, yerr=err, color=_COLOURS[tag],
                   label=_TITLE[tag], error_kw={"lw": 0.8})
        ax.axhline(1 / n, color="k", ls="--", lw=0.8, label="fair share 1/n")
        ax.set_xticks(np.arange(n))
        ax.set_xticklabels([str(p + 1) for p in range(n)])
        ax.set_xlabel("seat (1 = first player)")
        ax.set_title(f"{n} players", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("win share")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Does the first player win more often, before and after the rebalance?\n"
                 "Win share by seat with 95% intervals", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_game_length(hists: dict, path=None):
    """Distribution of the game length in rounds, before and after, one panel per player
    count. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    players = sorted(hists["before"])
    fig, axes = _panels(plt, players)
    for ax, n in zip(axes, players, strict=True):
        lo, hi = ROUND_BINS, 0
        for off, tag in ((-0.2, "before"), (0.2, "after")):
            h = np.asarray(hists[tag][n]["rounds"], np.float64)
            nz = np.flatnonzero(h)
            lo, hi = min(lo, int(nz[0])), max(hi, int(nz[-1]))
            ax.bar(np.arange(len(h)) + off, h / h.sum(), 0.4, color=_COLOURS[tag],
                   label=_TITLE[tag])
        ax.set_xlim(lo - 0.8, hi + 0.8)
        ax.set_xticks(range(lo, hi + 1))
        ax.set_xlabel("rounds")
        ax.set_title(f"{n} players", fontsize=10)
        ax.grid(axis="y", alpha=0.3)
    axes[0].set_ylabel("share of the games")
    axes[-1].legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.suptitle("Did the rebalance change how long a game lasts?", fontsize=11)
    fig.tight_layout()
    return _finish(plt, fig, path)


def plot_search(trials: pd.DataFrame, path=None):
    """The win-diff search: each trial's objective (violation in percentage points + change
    penalty) by role, and the running best. PNG to ``path`` when given; returns the Figure."""
    plt = _figure(path)
    fig, ax = plt.subplots(figsize=(8.5, 4.6))
    marks = {"start": ("D", "tab:orange"), "front": ("P", "tab:purple"),
             "model": ("o", "tab:blue"),
             "prune": ("s", "tab:green"), "tpe": ("^", "0.5")}
    for role, (m, colour) in marks.items():
        s = trials[trials["role"] == role]
        if len(s):
            ax.scatter(s["number"], s["objective"], marker=m, s=22, color=colour, label=role,
                       alpha=0.8, zorder=3)
    ax.step(trials["number"], trials["best_so_far"], where="post", color="tab:red", lw=1.6,
            label="chosen so far\n(lexicographic rank)")
    if (trials["objective"] > 0).all() and trials["objective"].max() > 20 * max(
            trials["objective"].min(), 1e-9):
        ax.set_yscale("log")
    from matplotlib.ticker import MaxNLocator

    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel("trial")
    ax.set_ylabel("objective: pp beyond the bands + penalties")
    ax.set_title("How did the search approach a deck that meets the goal?\nEvery trial on the "
                 "same games (common random numbers); lower is better", fontsize=10)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    return _finish(plt, fig, path)


# ---------------------------------------------------------------- files and report
def reachable_front(res, run: dict):
    """What any rebalance of ``res`` could reach (:func:`experiments.lure.rebalance_front.
    change_front` on the original deck's fresh-seed figures in ``res.verification["cards"]``):
    ``(kept, free)``, the fronts with the run's order constraint and, when it kept the order of
    value, with it lifted (else ``free`` is None), each for 0 .. (cards changed +
    :data:`FRONT_EXTRA`) changed cards, at most the changeable ones, cut after the first row
    with no card off. The changeable cards and points range are the run's constraints; the
    band's half-width the goal's tolerance (pp); the level ``run["alpha"]``. Returns a string
    (why not) instead when the goal is not win-diff, points may not change, or the deck's win
    advantages have no slope on the points."""
    g, cons = res.goal, res.constraints
    if g.kind != "win-diff":
        return "the front is of the win-diff goal"
    if "points" not in cons.fields or not cons.change:
        return "the front changes points, and this run's constraints keep them"
    k_cap = min(len(cons.change), len(res.changed_ids) + FRONT_EXTRA)
    kw = {"tolerance": float(g.tolerance), "points_range": tuple(cons.points_range),
          "changeable": list(cons.change), "alpha": float(run.get("alpha", 0.05)),
          "max_changes": k_cap}
    reorder = bool(run.get("allow_reorder"))
    try:
        kept = change_front(res.verification["cards"], allow_reorder=reorder, **kw)
        free = None if reorder else change_front(res.verification["cards"],
                                                 allow_reorder=True, **kw)
    except ValueError as exc:
        return str(exc).removeprefix("change_front: ")

    def cut(f):
        zero = np.flatnonzero(f["off"].to_numpy() == 0)
        return f.iloc[:zero[0] + 1] if len(zero) else f
    return cut(kept), None if free is None else cut(free)


def _front_frame(kept: pd.DataFrame, free: pd.DataFrame | None, reorder: bool) -> pd.DataFrame:
    """``front.csv``: the fronts one under the other, column ``order`` ``kept`` or ``lifted``."""
    parts = [kept.assign(order="lifted" if reorder else "kept")]
    if free is not None:
        parts.append(free.assign(order="lifted"))
    f = pd.concat(parts, ignore_index=True)
    return f[["order", *[c for c in f.columns if c != "order"]]]


def write_outputs(res, settings: dict, command: str, run: dict) -> dict:
    """Write every output file of the rebalance ``res`` (module docstring) into ``res.out``;
    ``settings`` (the study settings, stored in ``metadata.json`` for resume checks),
    ``command`` (the command line, or empty), ``run`` (sizes, seeds, curve tolerance). Returns
    ``{kind: path}``. Raises ``OSError`` from the file system."""
    out = Path(res.out)
    v = res.verification
    files = {"deck": out / "deck.csv", "changes": out / "changes.csv",
             "cards": out / "cards.csv", "games": out / "games.csv",
             "win_diff_png": out / "win_diff.png",
             "points_png": out / "points_vs_difficulty.png", "scores_png": out / "scores.png",
             "seats_png": out / "seats.png", "length_png": out / "game_length.png",
             "metadata": out / "metadata.json", "report": out / "report.md"}
    n = len(res.changed_ids)
    rec = res.recommendation or {}
    rejected = bool(rec.get("changed")) and not rec.get("recommended")
    note = (f"goal {res.goal.kind}) from {Path(res.original.source).name}\n{n} card(s) changed: "
            f"{', '.join(res.changed_ids) or 'none'}; see report.md")
    if rejected:  # no change recommended: deck.csv is the original, the proposal kept aside
        files["rejected_deck"] = out / "rejected_deck.csv"
        write_deck_file(res.proposed, files["rejected_deck"], comment="NOT RECOMMENDED: the "
                        "proposal of boardlab lure rebalance (" + note)
    write_deck_file(res.original if rejected else res.proposed, files["deck"], comment=(
        "the original deck: no change recommended by boardlab lure rebalance (" if rejected
        else "Lure fish deck proposed by boardlab lure rebalance (") + note)
    if res.styles is not None:
        files["styles"] = out / "styles.csv"
        atomic_write_text(files["styles"], res.styles.to_csv(index=False))
    atomic_write_text(files["changes"], res.changes.to_csv(index=False))
    atomic_write_text(files["cards"], v["cards"].to_csv(index=False))
    atomic_write_text(files["games"], v["games"].to_csv(index=False))
    if v.get("compare") is not None:
        files["compare"] = out / "compare_agents.csv"
        atomic_write_text(files["compare"], v["compare"].to_csv(index=False))
    wd_tol = res.goal.tolerance if res.goal.kind == "win-diff" else None
    if res.trials is not None:
        files["trials"] = out / "trials.csv"
        files["search_png"] = out / "search.png"
        atomic_write_text(files["trials"], res.trials.to_csv(index=False))
    front = reachable_front(res, run)
    run = {**run, "front": front}
    if not isinstance(front, str):
        files["front"] = out / "front.csv"
        files["front_png"] = out / "front.png"
        atomic_write_text(files["front"], _front_frame(*front, bool(run.get("allow_reorder")))
                          .to_csv(index=False))
    if run["plots"]:
        plot_win_diff(v["cards"], v["targets"]["after"], wd_tol, files["win_diff_png"])
        plot_points_vs_difficulty(v["cards"], res.curve, run["curve_tolerance"],
                                  files["points_png"])
        plot_scores(v["hists"], files["scores_png"])
        plot_seats(v["games"], files["seats_png"])
        plot_game_length(v["hists"], files["length_png"])
        if res.trials is not None:
            plot_search(res.trials, files["search_png"])
        if not isinstance(front, str):
            kept, free = front
            if run.get("allow_reorder"):
                kept, free = kept.iloc[0:0], kept  # the run's own front is the lifted one
            plot_front(kept, free, (len(res.changed_ids), int(v["violating"]["after"])),
                       res.goal.tolerance, files["front_png"])
    else:
        files = {k: p for k, p in files.items() if not k.endswith("_png")}
    run = {k: x for k, x in run.items() if k != "front"}
    meta = {"command": command or "experiments.lure.rebalance.rebalance",
            "deck": relative_path(res.original.source), "deck_sha256": res.original.sha256(),
            "proposed_deck_sha256": res.proposed.sha256(), "goal": res.goal.to_dict(),
            "constraints": res.constraints.to_dict(), "curve": res.curve.to_dict(),
            "targets_pp": {str(k): t for k, t in res.targets.items()},
            "targets_fresh_seeds_pp": {tag: {str(k): t for k, t in x.items()}
                                       for tag, x in v["targets"].items()}, **run,
            "changed_cards": res.changed_ids, "unfixable": [list(u) for u in res.unfixable],
            "best_trial": res.best_trial, "search_eval_seconds": res.search_seconds,
            "trials": None if res.trials is None else len(res.trials),
            "violating_cards_fresh_seeds": v["violating"],
            "violating_cards_fresh_seeds_uncorrected": v["violating_uncorrected"],
            "every_card_meets_goal": not v.get("off_goal_after"),
            "recommendation": rec, "seed_sets": v.get("seed_sets"),
            "band_capacity": (band_capacity(v["cards"], res.goal.tolerance,
                                            run.get("alpha", 0.05))
                              if res.goal.kind == "win-diff" else None),
            "off_goal_after": [list(x) for x in v.get("off_goal_after", [])],
            "kendall_tau": v["kendall_tau"],
            "front": (front if isinstance(front, str) else
                      _front_frame(*front, bool(run.get("allow_reorder")))
                      .to_dict(orient="records")),
            "screen": {k: x for k, x in (res.screen or {}).items()},
            "compare_changed_verdicts": (None if v.get("compare") is None else
                                         int(v["compare"]["changes"].sum())),
            "verification_seconds": v["wall_s"], "wall_seconds": res.wall_time_s,
            "settings": settings, "machine": machine_info(), "code_version": code_version()}
    try:
        meta["load_average"] = list(os.getloadavg())
    except OSError:  # pragma: no cover - not POSIX
        pass
    write_json(files["metadata"], meta)
    atomic_write_text(files["report"], _report_md(res, {**run, "front": front}, meta))
    return {k: str(p) for k, p in files.items()}


def _pp(x) -> str:
    return "" if not np.isfinite(x) else f"{100 * x:+.1f}"


def _report_md(res, run: dict, meta: dict) -> str:
    text = _report_text(res, run, meta)
    if not run["plots"]:  # no pictures written: no links to them
        text = "\n".join(x for x in text.split("\n") if not x.startswith("!["))
    return text


def _report_text(res, run: dict, meta: dict) -> str:
    v = res.verification
    g = res.goal
    deep = run["deep_waters"]
    cons = res.constraints
    from experiments.lure.rebalance_points import report_sections

    parts = report_sections(res, run)
    L = [f"# Lure deck rebalance: {g.kind} goal, {'Deep Waters' if deep else 'base game'}", "",
         *parts["head"]]
    if g.kind == "win-diff":
        tg = ", ".join(f"{n}p {t:+.1f}" for n, t in v["targets"]["after"].items())
        origin = ("given" if g.target is not None else
                  "the median card of each deck; the proposed deck's on the fresh seeds")
        corr = "Benjamini-Hochberg" if run.get("correction") == "bh" else "Holm"
        goal_text = (f"every card's catcher win advantage (win diff) within +-{g.tolerance:g} "
                     f"percentage points of the target ({origin}: {tg}); a card is off its "
                     f"band only when a one-sided test says so after a {corr} correction over "
                     f"every card and player count (level {run.get('alpha', 0.05):g}), the "
                     f"same rule on the screen that decides which cards may change and on the "
                     f"fresh seeds")
    else:
        goal_text = (f"every card's points within +-{g.tolerance:.2f} of the {g.curve} curve "
                     f"of points on difficulty (exact odds)" + (
                         ", and not off by as much in play on two fresh seed sets: every "
                         "card's points fair for what it takes to catch it"
                         if g.kind == "points" else ""))
    L += [f"Deck: `{Path(res.original.source).name}` (sha256 "
          f"`{res.original.sha256()[:12]}`). Goal: {goal_text}.",
          f"Constraints: cards {'all' if len(cons.change) > 12 else ', '.join(cons.change)}; "
          f"fields {', '.join(cons.fields)}; points {cons.points_range[0]}.."
          f"{cons.points_range[1]}"
          + (f"; requirement sets {', '.join(';'.join(w) or 'none' for w in cons.whitelist)}"
             if "requirements" in cons.fields else "") + ".",
          f"Players {', '.join(map(str, run['players']))}; agents {', '.join(run['agents'])} "
          f"(cycled over the seats).",
          (f"Search: {meta['trials']} trials of {run['n_games']} games per player count, all "
           f"on the same seeds (seed {run['seed']}); best trial {res.best_trial}; the screen "
           f"and the confirmation: {run.get('screen_games', run['n_games'])} games per player "
           f"count. "
           if res.trials is not None else "Search: exact odds, no games. ")
          + f"Verification: {v['n_games']} games per player count and deck on fresh seeds "
          f"(seed {v['seed']}" + (f"; a second set, seed {v['seed_sets'][1]}, for play"
                                   if v.get("seed_sets") else "") + ").",
          f"Command: `{meta['command']}`; wall time {meta['wall_seconds']:.0f} s.", ""]
    L += ["## Result", ""]
    L += [f"* Cards changed: **{len(res.changed_ids)}** "
          f"({', '.join(res.changed_ids) or 'none'}); points moved in total: "
          f"{_points_moved(res.changes)}.",
          "* Cards off the goal on the fresh seeds"
          + (f" ({run['correction'].upper() if run['correction'] == 'bh' else 'Holm'}-"
             f"corrected over every card and player count, level {run['alpha']:g})"
             if g.kind == "win-diff" else "") + f": **{v['violating']['before']}** with the "
          f"original deck, **{v['violating']['after']}** with the proposed one"
          + (f" (uncorrected 95% intervals: {v['violating_uncorrected']['before']} and "
             f"{v['violating_uncorrected']['after']})." if g.kind == "win-diff" else "."),
          f"* Order of value: Kendall's tau of points and difficulty "
          f"{v['kendall_tau']['before']:.3f} before, {v['kendall_tau']['after']:.3f} after "
          + ("(order constraint lifted: --allow-reorder)." if run.get("allow_reorder") else
             "(order constraint on: no change puts a harder card below an easier one, except "
             "pairs the original deck already had so)."),
          ("* **Every card meets the goal** with the proposal." if not v.get("off_goal_after")
           else f"* **Not met: {len(v['off_goal_after'])} card(s) still off the goal** with "
                f"the proposal, each with what holds it:")]
    for cid, why in v.get("off_goal_after", []):
        L.append(f"  * **{cid}**: {why}.")
    from experiments.lure.rebalance import exit_status

    L.append(f"* Exit status {exit_status(res.recommendation or {}, not v.get('off_goal_after'))}"
             " (0 recommended and every card meets the goal, 3 some card still off, 4 no "
             "change recommended).")
    if g.kind == "win-diff" and v.get("off_goal_after"):
        L += ["", diagnosis(v["cards"], g.tolerance, v["off_goal_after"],
                            bool(run.get("allow_reorder")), run.get("alpha", 0.05))]
    sc = res.screen or {}
    if g.kind == "win-diff" and sc:
        L += ["", f"Evidence (the screen: {run.get('screen_games', run['n_games'])} games per "
              f"player count of the start deck on the search's seeds): off their band after "
              f"the correction: "
              f"{', '.join(sc['flagged']) or 'none'}; confirmed on the confirmation seeds "
              f"(seed {run['confirm_seed']}): {', '.join(sc['confirmed']) or 'none'}; "
              f"changeable, so changed if needed: {', '.join(sc['candidates']) or 'none'}"
              + (f"; not confirmed, left as they are: {', '.join(sc['unconfirmed'])}"
                 if sc.get("unconfirmed") else "") + "."]
    L += _front_section(res, run)
    L += ["", *parts["verdicts"], *parts["styles"], "## What changed and why", ""]
    if len(res.changes):
        L += [markdown_table(res.changes[["id", "field", "before", "after"]]), ""]
        L += [f"* {why}" for why in res.changes.drop_duplicates("id")["why"]]
        L.append("")
    else:
        L += ["No card changed: " + (
            "every card already meets the goal." if not v.get("off_goal_after") and
            not v["violating"]["before"] else
            "no card off the goal could be changed under the constraints, or none was off it "
            "on the search's games with confirmed evidence (see the list above)."), ""]
    c = v["cards"]
    show = c[c["changed"]] if len(res.changes) else c.iloc[0:0]
    if len(show):
        t = pd.DataFrame({
            "id": show["id"], "players": show["players"],
            "points": [f"{a} -> {b}" for a, b in zip(show["points_before"],
                                                      show["points_after"], strict=True)],
            "difficulty": [f"{a:.2f} -> {b:.2f}" for a, b in zip(
                show["difficulty_before"], show["difficulty_after"], strict=True)],
            "win diff before (pp, 95%)": [
                f"{_pp(r.win_diff_before)} [{_pp(r.win_diff_low_before)}, "
                f"{_pp(r.win_diff_high_before)}]" for r in show.itertuples()],
            "win diff after (pp, 95%)": [
                f"{_pp(r.win_diff_after)} [{_pp(r.win_diff_low_after)}, "
                f"{_pp(r.win_diff_high_after)}]" for r in show.itertuples()],
            "off goal before": show["violation_before"].round(2),
            "off goal after": show["violation_after"].round(2)})
        unit = ("percentage points from the 95% interval to the band's edge" if g.kind ==
                "win-diff" else "card points beyond the band's edge, curve +- tolerance")
        L += [f"Changed cards on the fresh seeds (off goal: {unit}; 0 = meets the goal):", "",
              markdown_table(t), ""]
    L += ["## Every card, before and after", "",
          "![win diff per card](win_diff.png)", "",
          "Spread of the cards' win diffs (percentage points) per player count:", "",
          markdown_table(v["spread"], nd=1), "",
          "![points vs difficulty](points_vs_difficulty.png)", ""]
    gm = v["games"]
    rows = []
    for n in run["players"]:
        b = gm[(gm["players"] == n) & (gm["deck"] == "before")].iloc[0]
        a = gm[(gm["players"] == n) & (gm["deck"] == "after")].iloc[0]
        rows.append({"players": n,
                     "rounds before": f"{b.mean_rounds:.2f} ({b.sd_rounds:.2f})",
                     "rounds after": f"{a.mean_rounds:.2f} ({a.sd_rounds:.2f})",
                     "score before": f"{b.mean_score:.1f} ({b.sd_score:.1f})",
                     "score after": f"{a.mean_score:.1f} ({a.sd_score:.1f})",
                     "seat 1 wins before": f"{b.seat_0_win:.3f} ({b.seat_0_win_low:.3f}-"
                                           f"{b.seat_0_win_high:.3f})",
                     "seat 1 wins after": f"{a.seat_0_win:.3f} ({a.seat_0_win_low:.3f}-"
                                          f"{a.seat_0_win_high:.3f})",
                     "fair": f"{1 / n:.3f}"})
    L += ["## Games: length, scores, first-player advantage", "",
          "Mean (sd) rounds and final score per seat; the first seat's win share (95% Wilson "
          "interval; ties shared) against the fair share 1/n. Every seat: `games.csv`.", "",
          markdown_table(pd.DataFrame(rows)), "",
          "![score distribution](scores.png)", "", "![seat win shares](seats.png)", "",
          "![game length](game_length.png)", ""]
    cmp = v.get("compare")
    if cmp is not None:
        ch = cmp[cmp["changes"]]
        who = ", ".join(run["compare"]["agents"])
        L += [f"## Verdicts with other players: {who}", "",
              f"Both decks played by {who} ({run['compare']['games']} games per player count, "
              f"seed {v['seed']}); band target: "
              + ("the goal's" if g.target is not None else "the median card's with them")
              + f". {len(ch)} of {len(cmp)} verdicts (card x deck x player count off the goal "
              f"with either set of players) change:", ""]
        if len(ch):
            mine = ", ".join(run["agents"])
            if mine == who:  # the same players twice: keep the columns apart
                mine = f"{mine}, search"
            t = ch.assign(**{f"off goal ({mine})": ch["off_goal_search_agents"],
                             f"off goal ({who})": ch["off_goal_compared"],
                             f"win diff {mine} (pp)": 100 * ch["win_diff_search_agents"],
                             f"win diff {who} (pp)": 100 * ch["win_diff_compared"]})
            L += [markdown_table(t[["id", "deck", "players", f"off goal ({mine})",
                               f"off goal ({who})", f"win diff {mine} (pp)",
                               f"win diff {who} (pp)", "reason"]], nd=1), ""]
        L += ["Every verdict: `compare_agents.csv`.", ""]
    if res.trials is not None:
        roles = res.trials["role"].value_counts().to_dict()
        L += ["## Search", "",
              f"Method `{run['method']}`: {len(res.trials)} trials "
              f"({', '.join(f'{k} {v}' for k, v in roles.items())}). The chosen trial is the "
              f"first in the lexicographic order: no new pair out of order, fewest candidates "
              f"(changeable confirmed cards) off their band by their estimate, fewest other "
              f"cards pushed off theirs after the correction, fewest changed cards, least "
              f"change cost (1 per point, 0.5 per step of catch number, 2 per requirement set "
              f"or splash icon), least violation (percentage points beyond the bands' edges). "
              f"The plotted objective is violation + 100 x new inversions + 0.01 x (2 per "
              f"changed card + change cost). The trial is picked on "
              f"the search's own games, so its numbers there are optimistic: the tables above "
              f"are the fresh-seed check.", "", "![search](search.png)", ""]
    L += ["## Files", "",
          "* `deck.csv`: the proposed deck (`boardlab lure balance --cards deck.csv`)",
          "* `changes.csv`: every changed field with the reason",
          "* `cards.csv`: every card and player count, before and after (fresh seeds)",
          "* `games.csv`: game length, scores, seat win shares per deck and player count",
          *(["* `front.csv`: what any rebalance could reach (the fewest cards off per number "
             "of changed cards, model bound)"]
            if not isinstance(run.get("front"), (str, type(None))) else []),
          *(["* `compare_agents.csv`: the verdicts with the compared agents"]
            if v.get("compare") is not None else []),
          *(["* `trials.csv`, `study.journal`: the search (optuna JournalStorage; a re-run "
             "resumes it)"] if res.trials is not None else []),
          "* `metadata.json`: settings, seeds, sizes, wall time, machine, code version", ""]
    return "\n".join(L)


def _front_section(res, run: dict) -> list[str]:
    """The report's section "What any rebalance could reach" (the front; empty when none)."""
    front = run.get("front")
    if front is None or isinstance(front, str):
        return []
    kept, free = front
    reorder = bool(run.get("allow_reorder"))
    sl = slopes(res.verification["cards"])
    rows = []
    for r in kept.itertuples():
        row = {"cards changed (at most)": r.changes,
               "cards off, " + ("order lifted" if reorder else "order kept"): r.off}
        if free is not None:
            fr = free[free["changes"] == r.changes]
            row["cards off, order lifted"] = int(fr["off"].iloc[0]) if len(fr) else ""
        row["points moved"] = r.points_moved
        row["changes (order " + ("lifted" if reorder else "kept") + ")"] = (
            r.changed_cards or "none")
        rows.append(row)
    n_changed, n_off = len(res.changed_ids), int(res.verification["violating"]["after"])
    bound = kept[kept["changes"] <= n_changed]["off"]
    L = ["", "## What any rebalance could reach", "",
         "The fewest cards that can stay off their band with at most *k* cards changed, "
         "from the original deck's fresh-seed win advantages and a linear model of the win "
         "advantage per point (slope per player count: "
         + ", ".join(f"{n}p {s:+.2f}" for n, s in sl.items() if np.isfinite(s))
         + " pp per point), within the run's points range and changeable cards, the bands' "
         "centres allowed to move together by up to the tolerance. An integer program finds "
         "each optimum exactly for the model (`front.csv`), so a target below this front "
         "is out of reach by changing points unless the model is off by more than the "
         "games' noise.", "", markdown_table(pd.DataFrame(rows)), "",
         f"This rebalance: {n_changed} card(s) changed, {n_off} off on the fresh seeds"
         + (f"; the model's bound at {n_changed} changed: {int(bound.iloc[-1])} off."
            if len(bound) else "."), "", "![what any rebalance could reach](front.png)"]
    return L


def _points_moved(changes: pd.DataFrame) -> int:
    p = changes[changes["field"] == "points"]
    return int(sum(abs(int(a) - int(b)) for a, b in zip(p["before"], p["after"], strict=True)))
