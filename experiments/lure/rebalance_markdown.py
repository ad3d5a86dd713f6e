"""The text of a Lure rebalance's ``report.md`` (:func:`report_markdown`), one function a
section: the head (deck, goal, constraints, search, verification), the result, what any
rebalance could reach, what changed and why, every card, the games, the verdicts with other
players, the search and the files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from experiments.lure.rebalance_diagnosis import (
    diagnosis,
)
from experiments.lure.rebalance_front import slopes
from experiments.markdown import markdown_table

__all__ = ["report_markdown", "points_moved"]


def _pp(x) -> str:
    """A win diff (a fraction) in signed percentage points, ``""`` when not finite."""
    return "" if not np.isfinite(x) else f"{100 * x:+.1f}"


def report_markdown(res, run: dict, meta: dict) -> str:
    """The text of ``report.md`` of the rebalance ``res`` (an
    :class:`experiments.lure.rebalance.RebalanceResult`, verified) run with the options ``run``
    and metadata ``meta``; without the pictures' links when ``run["plots"]`` is off."""
    text = _report_text(res, run, meta)
    if not run["plots"]:  # no pictures written: no links to them
        text = "\n".join(x for x in text.split("\n") if not x.startswith("!["))
    return text


def _report_text(res, run: dict, meta: dict) -> str:
    """The text of ``report.md``: the head, the result, the front, the verdicts and styles,
    what changed, every card, the games, the compared players, the search and the files."""
    from experiments.lure.rebalance_points import report_sections

    parts = report_sections(res, run)
    v = res.verification
    L = _head_lines(res, run, meta, parts["head"])
    L += _result_lines(res, run)
    L += _front_section(res, run)
    L += ["", *parts["verdicts"], *parts["styles"]]
    L += _changes_lines(res)
    L += _every_card_lines(v)
    L += _games_lines(v["games"], run["players"])
    if v.get("compare") is not None:
        L += _compare_lines(res, run)
    if res.trials is not None:
        L += _search_lines(res.trials, run["method"])
    L += _files_lines(res, run)
    return "\n".join(L)


def _goal_text(res, run: dict) -> str:
    """The goal in words, as the report's head states it."""
    g, v = res.goal, res.verification
    if g.kind == "win-diff":
        tg = ", ".join(f"{n}p {t:+.1f}" for n, t in v["targets"]["after"].items())
        origin = ("given" if g.target is not None else
                  "the median card of each deck; the proposed deck's on the fresh seeds")
        corr = "Benjamini-Hochberg" if run.get("correction") == "bh" else "Holm"
        return (f"every card's catcher win advantage (win diff) within +-{g.tolerance:g} "
                f"percentage points of the target ({origin}: {tg}); a card is off its "
                f"band only when a one-sided test says so after a {corr} correction over "
                f"every card and player count (level {run.get('alpha', 0.05):g}), the "
                f"same rule on the screen that decides which cards may change and on the "
                f"fresh seeds")
    return (f"every card's points within +-{g.tolerance:.2f} of the {g.curve} curve "
            f"of points on difficulty (exact odds)" + (
                ", and not off by as much in play on two fresh seed sets: every "
                "card's points fair for what it takes to catch it"
                if g.kind == "points" else ""))


def _head_lines(res, run: dict, meta: dict, head: list[str]) -> list[str]:
    """The title, the goal's own head lines (``head``), the deck, goal, constraints, players,
    search, verification and command."""
    g, v, cons = res.goal, res.verification, res.constraints
    deep = run["deep_waters"]
    L = [f"# Lure deck rebalance: {g.kind} goal, {'Deep Waters' if deep else 'base game'}", "",
         *head]
    L += [f"Deck: `{Path(res.original.source).name}` (sha256 "
          f"`{res.original.sha256()[:12]}`). Goal: {_goal_text(res, run)}.",
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
    return L


def _result_lines(res, run: dict) -> list[str]:
    """The section "Result": cards changed, cards off the goal before and after, the order
    of value, the cards still off with what holds them, the exit status, the diagnosis and
    the evidence of the screen."""
    from experiments.lure.rebalance import exit_status

    g, v = res.goal, res.verification
    L = ["## Result", ""]
    L += [f"* Cards changed: **{len(res.changed_ids)}** "
          f"({', '.join(res.changed_ids) or 'none'}); points moved in total: "
          f"{points_moved(res.changes)}.",
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
    return L


def _changes_lines(res) -> list[str]:
    """The section "What changed and why": the changed fields with their reasons and the
    changed cards' numbers on the fresh seeds."""
    g, v = res.goal, res.verification
    L = ["## What changed and why", ""]
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
    return L


def _every_card_lines(v: dict) -> list[str]:
    """The section "Every card, before and after": the pictures and the win diffs' spread."""
    return ["## Every card, before and after", "",
            "![win diff per card](win_diff.png)", "",
            "Spread of the cards' win diffs (percentage points) per player count:", "",
            markdown_table(v["spread"], nd=1), "",
            "![points vs difficulty](points_vs_difficulty.png)", ""]


def _games_lines(gm: pd.DataFrame, players) -> list[str]:
    """The section on the games: length, scores and the first seat's win share per player
    count, before and after (``gm``: the verification's games frame)."""
    rows = []
    for n in players:
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
    return ["## Games: length, scores, first-player advantage", "",
            "Mean (sd) rounds and final score per seat; the first seat's win share (95% Wilson "
            "interval; ties shared) against the fair share 1/n. Every seat: `games.csv`.", "",
            markdown_table(pd.DataFrame(rows)), "",
            "![score distribution](scores.png)", "", "![seat win shares](seats.png)", "",
            "![game length](game_length.png)", ""]


def _compare_lines(res, run: dict) -> list[str]:
    """The section "Verdicts with other players": the verdicts that change with the compared
    agents."""
    g, v = res.goal, res.verification
    cmp = v["compare"]
    ch = cmp[cmp["changes"]]
    who = ", ".join(run["compare"]["agents"])
    L = [f"## Verdicts with other players: {who}", "",
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
    return L


def _search_lines(trials: pd.DataFrame, method: str) -> list[str]:
    """The section "Search": the method, the trials by role and how the chosen trial is
    picked."""
    roles = trials["role"].value_counts().to_dict()
    return ["## Search", "",
            f"Method `{method}`: {len(trials)} trials "
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


def _files_lines(res, run: dict) -> list[str]:
    """The section "Files": what the folder holds."""
    v = res.verification
    return ["## Files", "",
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


def points_moved(changes: pd.DataFrame) -> int:
    """The points moved in total by the changed ``points`` fields of ``changes``
    (``changes.csv``'s frame)."""
    p = changes[changes["field"] == "points"]
    return int(sum(abs(int(a) - int(b)) for a, b in zip(p["before"], p["after"], strict=True)))
