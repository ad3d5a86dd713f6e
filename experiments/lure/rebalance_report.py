"""The before/after report of ``boardlab lure rebalance`` (:mod:`experiments.lure.rebalance`).

:func:`verify` (:mod:`experiments.lure.rebalance_verify`) plays the original and the proposed
deck again on **fresh seeds** (the search's seed + 1: another seed stream, so the proposal is
not judged on the games it was picked on) and recomputes both decks' exact odds.
:func:`write_outputs` writes, atomically (:mod:`experiments.io`), into the output folder (the
pictures: :mod:`experiments.lure.rebalance_plots`; the report's text:
:mod:`experiments.lure.rebalance_markdown`):

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
from experiments.lure.rebalance_diagnosis import (  # noqa: F401  (re-exported)
    band_capacity,
    diagnosis,
    points_slope,
)
from experiments.lure.rebalance_front import change_front, plot_front
from experiments.lure.rebalance_markdown import report_markdown
from experiments.lure.rebalance_plots import (
    plot_game_length,
    plot_points_vs_difficulty,
    plot_scores,
    plot_search,
    plot_seats,
    plot_win_diff,
)
from experiments.lure.rebalance_verify import compare_verdicts, off_goal_reasons, verify
from experiments.markdown import relative_path

__all__ = ["verify", "compare_verdicts", "write_outputs", "write_deck_file", "plot_win_diff",
           "plot_points_vs_difficulty", "plot_scores", "plot_seats", "plot_game_length",
           "plot_search", "points_slope", "band_capacity", "diagnosis", "off_goal_reasons",
           "reachable_front", "FRONT_EXTRA"]

FRONT_EXTRA = 3
"""The front reaches this many changed cards beyond the run's own (or until no card is off)."""


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
    _write_decks(res, files)
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
        _draw_pictures(res, run, front, files, wd_tol)
    else:
        files = {k: p for k, p in files.items() if not k.endswith("_png")}
    run = {k: x for k, x in run.items() if k != "front"}
    meta = _metadata(res, settings, command, run, front)
    write_json(files["metadata"], meta)
    atomic_write_text(files["report"], report_markdown(res, {**run, "front": front}, meta))
    return {k: str(p) for k, p in files.items()}


def _write_decks(res, files: dict) -> None:
    """``deck.csv``: the proposed deck, or the original when no change is recommended (the
    proposal then goes to ``rejected_deck.csv``, added to ``files``)."""
    out = Path(res.out)
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


def _draw_pictures(res, run: dict, front, files: dict, wd_tol) -> None:
    """Every PNG of the rebalance into its path of ``files``."""
    v = res.verification
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


def _metadata(res, settings: dict, command: str, run: dict, front) -> dict:
    """The contents of ``metadata.json``: the command, the decks, goal, constraints and curve,
    the run's options ``run``, the results, the front, the study ``settings``, the machine."""
    v = res.verification
    rec = res.recommendation or {}
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
    return meta


