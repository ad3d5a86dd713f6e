"""The ``points`` goal of ``boardlab lure rebalance`` (the default) and the rule every goal's
proposal must pass before it is recommended.

**The points goal**: every card's points fair for what it takes to catch it
(:mod:`experiments.lure.fair_points`): within the tolerance (card points; default the balance
report's threshold ``max(2, 1.5 x robust sigma)``) of the robust curve of points on
difficulty, fitted once on the original deck (exact odds), and not off in play on two
independent fresh seed sets (the win advantage with its expected rise per point and per unit
of difficulty removed, in card points). The proposal is the curve goal's exact fix of each
card off the curve (:func:`experiments.lure.rebalance.curve_fixes`: fewest fields, least
cost, the order of value kept); :func:`judge_points` then judges both decks on the fresh
seeds by both lenses.

**Never worse** (:func:`recommendation`, every goal): a proposal is recommended only if, on
the fresh seeds and by the goal's own measure, it leaves fewer cards off the goal than the
original deck, or as many with less deviation (card points or percentage points beyond the
band's edges, summed over the cards off). Otherwise the run says "no change recommended" and
why, writes the original deck as ``deck.csv`` (the rejected proposal as
``rejected_deck.csv``) and exits with :data:`EXIT_NOT_RECOMMENDED`. A proposal that hands one
play style the game (:func:`experiments.lure.play_styles.hands_the_game`) is not recommended
either.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.lure.fair_points import card_verdicts, seed_sets, verdict_counts

__all__ = ["EXIT_NOT_RECOMMENDED", "judge_points", "recommendation", "points_off_reasons"]

EXIT_NOT_RECOMMENDED = 4
"""Exit status of ``boardlab lure rebalance`` when its proposal is not recommended (not better
than the original deck on the fresh seeds, or it hands one play style the game)."""


def _sim_of(cards: pd.DataFrame, tag: str) -> pd.DataFrame:
    """The verification frame's games of deck ``tag`` as a simulate frame."""
    cols = {f"win_diff_{tag}": "win_diff", f"win_diff_low_{tag}": "win_diff_low",
            f"win_diff_high_{tag}": "win_diff_high", f"caught_rate_{tag}": "caught_rate"}
    return cards[["id", "players", *cols]].rename(columns=cols)


def judge_points(res, v: dict, players, deep_waters: bool, agents, n_games: int, seed: int,
                 run_root, tolerance: float, **runner) -> dict:
    """Judge both decks of a points-goal rebalance on two fresh seed sets.

    ``v``: :func:`experiments.lure.rebalance_report.verify`'s result (its games are the first
    fresh set, ``seed``); the second set (:func:`experiments.lure.fair_points.seed_sets`) is
    played here (runner state ``<run_root>/<deck>_set_b``). Returns ``v`` with ``off_goal_<deck>``
    and ``violation_<deck>`` of its ``cards`` frame replaced by the points goal's verdicts,
    ``violating`` recounted, and ``verdicts`` (``{deck: card_verdicts frame}``) and
    ``seed_sets`` added."""
    from experiments.lure.odds import card_table
    from experiments.lure.simulation import simulate

    cards = v["cards"].copy()
    verdicts = {}
    seeds = seed_sets(seed)
    for tag, deck in (("before", res.original), ("after", res.proposed)):
        table, _ = card_table(deck, deep_waters)
        table["fitted_points"] = res.curve(table["difficulty"].to_numpy(np.float64))
        sim_b, _, _ = simulate(deck, players, deep_waters, agents, n_games, seeds[1],
                               out_dir=Path(run_root) / f"{tag}_set_b", **runner)
        verdicts[tag] = card_verdicts(table, _sim_of(cards, tag), sim_b, players, n_games,
                                      tolerance)
        by_id = verdicts[tag].set_index("id")
        cards[f"off_goal_{tag}"] = cards["id"].map(by_id["off"]).astype(bool)
        cards[f"violation_{tag}"] = cards["id"].map(by_id["deviation"]).astype(float)
    return {**v, "cards": cards, "verdicts": verdicts, "seed_sets": list(seeds),
            "violating": {tag: verdict_counts(x)["off"] for tag, x in verdicts.items()}}


def _deviation(cards: pd.DataFrame, tag: str) -> float:
    """Beyond-the-edge distance summed over the cards off the goal (each card's largest over
    the player counts)."""
    g = cards.groupby("id", sort=False)
    off = g[f"off_goal_{tag}"].any()
    dev = g[f"violation_{tag}"].max()
    return float(dev[off].sum())


def recommendation(res, styles: pd.DataFrame | None = None) -> dict:
    """Whether the proposal of ``res`` (its ``verification`` done) is recommended (module
    docstring). Returns ``{"changed", "recommended", "off_before", "off_after",
    "deviation_before", "deviation_after", "unit", "handed_to", "text"}``; ``text`` says
    which and why in one sentence."""
    from experiments.lure.play_styles import hands_the_game

    v = res.verification
    cards = v["cards"]
    ob, oa = int(v["violating"]["before"]), int(v["violating"]["after"])
    db, da = _deviation(cards, "before"), _deviation(cards, "after")
    unit = "pp" if res.goal.kind == "win-diff" else "points"
    handed = hands_the_game(styles) if styles is not None else []
    changed = bool(len(res.changed_ids))
    better = oa < ob or (oa == ob and da < db - 1e-9)
    out = {"changed": changed, "recommended": changed and better and not handed,
           "off_before": ob, "off_after": oa, "deviation_before": db, "deviation_after": da,
           "unit": unit, "handed_to": handed}
    counts = (f"{ob} card(s) off the goal with the original deck, {oa} with the proposal "
              f"(beyond the band's edges: {db:.2f} and {da:.2f} {unit})")
    if not changed:
        out["text"] = f"No change proposed: {counts} on the fresh seeds."
    elif handed:
        out["text"] = (f"NO CHANGE RECOMMENDED: the proposal hands the game to "
                       f"{', '.join(handed)} (play styles table); {counts}.")
    elif better:
        out["text"] = f"Recommended: on the fresh seeds {counts}."
    else:
        out["text"] = (f"NO CHANGE RECOMMENDED: the proposal is not better than the original "
                       f"deck on the fresh seeds by the goal's own measure: {counts}.")
    return out


def points_off_reasons(res) -> list[tuple[str, str]]:
    """``[(id, reason)]``: the cards off the points goal with the proposed deck on the fresh
    seeds, each with its numbers (both lenses) and what holds it."""
    v = res.verification["verdicts"]["after"]
    unfix = dict(res.unfixable)
    out = []
    for r in v[v["off"]].itertuples():
        lens = r.reason_odds if r.odds_side != 0 else r.reason_play
        if r.id in unfix:
            why = unfix[r.id]
        elif r.id not in res.constraints.change:
            why = "held by --change: not among the cards that may change"
        elif r.odds_side == 0:
            why = ("off in play only, on both fresh seed sets: the proposal changes cards by "
                   "the exact odds; change its points by hand and check with lure balance "
                   "--what-if")
        else:
            why = "off the curve after its best change under the constraints"
        out.append((r.id, f"{r.verdict}: {lens}; {why}"))
    return out


def report_sections(res, run: dict) -> dict:
    """The report's parts this module owns, as lists of Markdown lines: ``"head"`` (the
    reconstruction note and the recommendation, first under the title), ``"verdicts"`` (points
    goal: every card's verdict with the proposed deck on the fresh seeds) and ``"styles"``
    (the play styles before and after)."""
    from experiments.lure.fair_points import RECONSTRUCTION_NOTE, verdict_markdown
    from experiments.lure.play_styles import style_markdown

    from engines.lure import decks as D

    rec = res.recommendation or {}
    head = ([RECONSTRUCTION_NOTE, ""] if res.original.source == str(D.DEFAULT_DECK_PATH)
            else [])
    if rec.get("text"):
        head += [f"**{rec['text']}**"
                 + (f" Exit status {EXIT_NOT_RECOMMENDED}; `deck.csv` holds the original deck "
                    f"and `rejected_deck.csv` the proposal." if rec.get("changed")
                    and not rec.get("recommended") else ""), ""]
    out = {"head": head, "verdicts": [], "styles": []}
    v = res.verification
    if res.goal.kind == "points" and "verdicts" in v:
        tag = "after" if rec.get("recommended") else "before"
        out["verdicts"] = verdict_markdown(v["verdicts"][tag], res.goal.tolerance, v["n_games"],
                                           tuple(v["seed_sets"]), ", ".join(run["agents"]))
        out["verdicts"][0] = (f"## Is each card's points right for what it takes to catch it? "
                              f"({'the proposed' if tag == 'after' else 'the original'} deck, "
                              f"fresh seeds)")
    if res.styles is not None:
        out["styles"] = style_markdown(res.styles, run["styles_games"], v["seed"])
    return out
