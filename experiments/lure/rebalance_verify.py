"""The verification of a Lure rebalance: the original and the proposed deck played again on
**fresh seeds** (the search's seed + 1: another seed stream, so the proposal is not judged on
the games it was picked on) with :func:`experiments.lure.simulation.simulate`, both decks'
exact odds recomputed (:func:`experiments.lure.odds.card_table`), every card judged with the
same corrected test (:func:`verify`); the verdicts with other players
(:func:`compare_verdicts`) and what holds each card still off the goal
(:func:`off_goal_reasons`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.lure.odds import card_table
from experiments.lure.rebalance_measures import card_arrays, curve_violation
from experiments.lure.rebalance_objective import median_targets, win_diff_violation
from experiments.lure.rebalance_stats import kendall_tau, off_band
from experiments.lure.simulation import ROUND_BINS, SCORE_BINS, WIN_UNITS, simulate
from experiments.stats import wilson_interval

__all__ = ["DECKS", "verify", "compare_verdicts", "off_goal_reasons"]

DECKS = ("before", "after")


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
