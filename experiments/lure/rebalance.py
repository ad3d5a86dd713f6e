"""Rebalance a Lure fish deck (``boardlab lure rebalance``) the way a designer would: change a
card only where the evidence is, the fewest cards and the fewest points, keep the points in the
order of the cards' difficulty, and say plainly what could not be met.

**Goals** (:class:`Goal`; rules: ``docs/rules/lure.md``, *Fish cards*):

* ``win-diff`` (``tolerance`` W in percentage points of win rate, default 5): at every chosen
  player count, every card's *catcher win advantage* (the balance report's ``win_diff``: the
  win rate of the player who caught it minus that of the other players of the same games,
  :func:`experiments.lure.simulation.card_stats`) lies within its **band** ``target +- W``. The
  target is a number given by the designer or, by default, the **median card's** win diff at
  that player count in the start deck. A card is *off its band* only when a one-sided test
  says so **after a multiple-comparison correction over every card and player count** (Holm
  1979, or Benjamini-Hochberg 1995 with ``correction="bh"``; level ``alpha`` 0.05:
  :mod:`experiments.lure.rebalance_stats`), so with 30 cards x 4 player counts the ~6
  uncorrected 95% intervals that miss a band by chance do not count. A card in play but never
  caught counts as a win diff of 0.
* ``curve`` (``tolerance`` in card points, default the balance report's threshold
  ``max(2, 1.5 x robust sigma)``): every card's points lie within the tolerance of the points
  the difficulty curve gives its difficulty ``D = -ln(mean catch probability)``
  (:func:`experiments.lure.odds.difficulty`). The curve (:func:`fit_difficulty_curve`) is
  ``fit``, the balance report's **robust** quadratic (soft-l1 loss with the far-off cards set
  aside: :func:`experiments.lure.curve.fit_curve`; two broken cards do not move the other
  cards' fair points), or ``proportional``, points = k x D. It is fitted once, on the original
  deck, and used only inside the range of difficulties of its catchable cards. Answered from
  the exact odds (:func:`engines.dice.exact_table`): no games but the verification.

"Off the goal by x" always means **x beyond the band's edge** (the tolerance's), never the
distance from the curve or the target.

**Constraints** (:class:`Constraints`): which cards may change (``change``, default all the
cards of the game), which fields (``points``, ``catch_number``, ``requirements`` from a
whitelist, ``splash``; default points only), integer points in ``points_range`` (default the
deck's own lowest..highest), and the **order constraint** (lifted by ``allow_reorder``): no
change may put a pair of cards out of order, the harder card (higher exact difficulty)
worth fewer points, unless the original deck already had that pair out of order (the
designer's). The report gives Kendall's tau of points and difficulty before and after.

**Cards nobody can catch** (0% odds with every dice loadout, ``D = inf``): no number of points
fixes them. When catch numbers or requirements may change, :func:`exact_fix` picks, from the
exact odds, the change of least cost that puts the card on the curve; otherwise the report says
plainly that the card cannot be fixed under the given constraints. In the win-diff goal these
fixes come first (the *start deck* is the original deck with them).

**Search, curve goal** (:func:`curve_fixes`): separable by card and exact; each flagged
changeable card's best option is found by enumeration, lexicographically: least remaining
violation, then fewest fields changed, then least cost (:data:`FIELD_COST`), among the options
the order constraint allows.

**Search, win-diff goal** (:func:`experiments.lure.rebalance_search.win_diff_search`): only
the cards off their band after the correction on the search's seeds **and confirmed on seeds
the search never uses** (seed + 2) may change, both judged on ``screen_games`` games per
player count (default ``verify_games``: the evidence that lets a card change has the power
of the check that judges it afterwards); every trial is played on the same seeds (common
random numbers); trials are ranked lexicographically: order kept, least violation, fewest
changed cards, fewest points moved. The default method is deterministic *model steps* (each
card's points moved by the win diff it needs divided by the win diff a point buys, then
nudges and prunes); ``method="tpe"`` is an optuna TPE study over the same cards with the order
constraint (``benchmarks/rebalance.py`` compares the two). The study is resumable
(``<out>/study.journal``): a killed run continues exactly as an uninterrupted one.

**Verification** (:mod:`experiments.lure.rebalance_report`): the original and the proposed
deck are played again on fresh seeds (seed + 1) with ``verify_games`` games per player count
and every card is judged there with the same corrected test. :attr:`RebalanceResult.meets_goal`
says whether every card meets the goal; the command's exit status is 0 when it does and
:data:`EXIT_OFF_GOAL` (3) when some card is still off the goal (listed, each with the
constraint holding it, in the terminal and in ``report.md``). All files are written
atomically, under the output folder's lock (:func:`experiments.io.out_lock`).
"""

from __future__ import annotations

import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engines.lure import decks as D
from experiments.io import out_lock
from experiments.lure.defaults import DEFAULT_AGENTS, VERIFY_GAMES
from experiments.lure.odds import card_table
from experiments.lure.rebalance_measures import (  # noqa: F401  (re-exported)
    CARD_COST,
    CN_STEP,
    FIELD_COST,
    curve_violation,
)
from experiments.lure.rebalance_report import off_goal_reasons, verify, write_outputs
from experiments.lure.rebalance_search import (  # noqa: F401  (re-exported)
    BEAM,
    METHODS,
    STUDY_FILE,
    TRIAL_RUN_DIR,
    win_diff_search,
    win_diff_violation,
)
from experiments.lure.play_styles import STYLE_GAMES, style_table
from experiments.lure.rebalance_points import judge_points, points_off_reasons, recommendation
from experiments.lure.rebalance_stats import CORRECTIONS
from experiments.lure.rebalance_curve import (
    Curve,
    OptionOdds,
    curve_fixes,
    exact_fix,
    fit_difficulty_curve,
)
from experiments.lure.rebalance_goal import (
    CURVES,
    DEEP_ONLY,
    DEFAULT_WIN_TOLERANCE,
    FIELDS,
    GOALS,
    Constraints,
    Goal,
    make_constraints,
    parse_fields,
    parse_goal,
    parse_number,
    parse_points_range,
    parse_whitelist,
)
from experiments.options import check_int
from experiments.outputs import lure_rebalance_out_dir

__all__ = ["GOALS", "CURVES", "FIELDS", "FIELD_COST", "CARD_COST", "CN_STEP", "METHODS",
           "CORRECTIONS", "EXIT_OFF_GOAL", "EXIT_NOT_RECOMMENDED", "exit_status", "Goal",
           "Constraints", "Curve", "RebalanceResult", "parse_goal",
           "parse_points_range", "parse_fields", "parse_whitelist", "make_constraints",
           "fit_difficulty_curve", "curve_violation", "OptionOdds", "exact_fix", "curve_fixes",
           "win_diff_violation", "rebalance", "RebalanceResult", "FinishedRebalance",
           "EXPERIMENT", "OUTPUT_FILES", "DEEP_ONLY", "DEFAULT_WIN_TOLERANCE", "STUDY_FILE",
           "TRIAL_RUN_DIR", "EXIT_NOT_RECOMMENDED", "summary_lines"]

EXIT_OFF_GOAL = 3
"""Exit status of ``boardlab lure rebalance`` when some card is still off the goal on the
fresh seeds (0: every card meets it; 2: bad input; 4, :data:`EXIT_NOT_RECOMMENDED`: the
proposal is not better than the original deck, so no change is recommended)."""
from experiments.lure.rebalance_points import EXIT_NOT_RECOMMENDED  # noqa: E402
_ALGORITHM = "rebalance-2"


@dataclass
class RebalanceResult:
    """What :func:`rebalance` returns.

    ``out`` (folder), ``goal`` (:class:`Goal`, tolerance resolved), ``constraints``,
    ``curve`` (:class:`Curve` of the original deck), ``original``, ``start`` (the original
    with the exact fixes of cards nobody can catch; the original for the curve goal) and
    ``proposed`` (:class:`engines.lure.decks.Deck`); ``changes`` (DataFrame, as
    ``changes.csv``: ``id, field, before, after, why``), ``unfixable`` (``[(id, reason)]``:
    cards the search left off the goal, each with the constraint holding it), ``targets``
    (win-diff: ``{players: target pp}``), ``trials`` (win-diff: DataFrame as ``trials.csv``;
    else ``None``), ``best_trial``, ``screen`` (win-diff: which cards were flagged, confirmed,
    candidates), ``verification`` (the report's numbers: see
    :func:`experiments.lure.rebalance_report.verify`), ``files``, ``wall_time_s`` (this call)
    and ``search_seconds`` (win-diff: seconds spent evaluating the trials, summed over every
    run of the study)."""

    out: Path
    goal: Goal
    constraints: Constraints
    curve: Curve
    original: D.Deck
    start: D.Deck
    proposed: D.Deck
    changes: pd.DataFrame
    unfixable: list = field(default_factory=list)
    targets: dict = field(default_factory=dict)
    trials: pd.DataFrame | None = None
    best_trial: int | None = None
    verification: dict = field(default_factory=dict)
    files: dict = field(default_factory=dict)
    wall_time_s: float = 0.0
    search_seconds: float | None = None
    screen: dict = field(default_factory=dict)
    styles: pd.DataFrame | None = None
    recommendation: dict = field(default_factory=dict)

    @property
    def changed_ids(self) -> list[str]:
        """Ids of the changed cards, deck order."""
        ids = set(self.changes["id"]) if len(self.changes) else set()
        return [c for c in self.original.ids if c in ids]

    @property
    def off_goal(self) -> list[tuple[str, str]]:
        """``[(id, reason)]``: the cards off the goal with the proposed deck on the fresh
        seeds (after the correction), each with what holds it (:func:`off_goal_reasons`)."""
        return list(self.verification.get("off_goal_after", []))

    @property
    def meets_goal(self) -> bool:
        """Whether every card meets the goal with the proposed deck on the fresh seeds."""
        return not self.off_goal

    @property
    def exit_status(self) -> int:
        """:func:`exit_status` of this run."""
        return exit_status(self.recommendation, self.meets_goal)

    def summary(self) -> str:
        """Terminal text: whether the proposal is recommended, what changed, the
        verification, and every card still off the goal with the constraint holding it."""
        return summary_lines(len(self.changed_ids), self.changed_ids,
                             self.changes.to_dict("records"), self.verification.get("violating"),
                             self.verification.get("kendall_tau"), self.off_goal,
                             self.goal.kind, self.recommendation.get("text"))


def exit_status(recommendation: dict, meets_goal: bool) -> int:
    """The command's exit status: :data:`EXIT_NOT_RECOMMENDED` (4) when a proposal was made but
    is not recommended (:func:`experiments.lure.rebalance_points.recommendation`); else 0 when
    every card meets the goal on the fresh seeds, :data:`EXIT_OFF_GOAL` (3) otherwise."""
    if recommendation.get("changed") and not recommendation.get("recommended"):
        return EXIT_NOT_RECOMMENDED
    return 0 if meets_goal else EXIT_OFF_GOAL


def summary_lines(n, ids, changes, violating, tau, off_goal, kind,
                  recommended: str | None = None) -> str:
    """The terminal summary shared by :class:`RebalanceResult` and
    :class:`FinishedRebalance` (one string, lines joined by newlines); ``recommended``: the
    recommendation's sentence, printed first."""
    lines = [recommended] if recommended else []
    rejected = bool(recommended) and "NO CHANGE" in recommended
    lines.append(f"{n} card(s) {'the rejected proposal changes' if rejected else 'changed'}: "
                 + (", ".join(ids) if ids else "none"))
    for r in changes:
        lines.append(f"  {r['id']} {r['field']}: {r['before']} -> {r['after']}")
    if isinstance(violating, dict):
        lines.append(f"cards off the goal on fresh seeds (after the correction): "
                     f"{violating.get('before')} before, {violating.get('after')} after")
    if isinstance(tau, dict) and tau:
        lines.append(f"Kendall tau of points and difficulty: {tau.get('before'):.3f} before, "
                     f"{tau.get('after'):.3f} after")
    if off_goal:
        lines.append(f"NOT MET: {len(off_goal)} card(s) still off the goal:")
        lines += [f"  {cid}: {why}" for cid, why in off_goal]
    else:
        lines.append("every card meets the goal" + (" on the fresh seeds" if kind == "win-diff"
                                                     else ""))
    return "\n".join(lines)


EXPERIMENT = "lure rebalance"
"""The experiment name :func:`experiments.outputs.claim_folder` compares."""
OUTPUT_FILES = ("deck.csv", "changes.csv", "cards.csv", "games.csv", "win_diff.png",
                "points_vs_difficulty.png", "scores.png", "seats.png", "game_length.png",
                "metadata.json", "report.md", "trials.csv", "search.png", "compare_agents.csv",
                "front.csv", "front.png", "rejected_deck.csv", "styles.csv")
"""The files a finished rebalance leaves in its folder (its ``study.journal`` is the search in
progress: a folder holding it resumes, or is refused by the study's own settings check)."""


def _run_settings(meta: dict) -> dict:
    """What determines a rebalance's result, from its ``metadata.json`` (or the same keys
    given now): the search settings, the trials wanted, the verification's games and the
    agents compared."""
    if not isinstance(meta.get("settings"), dict) or "verify_games" not in meta:
        return {"experiment": meta.get("experiment") or meta.get("kind") or "other"}
    out = {"experiment": EXPERIMENT, "search": meta["settings"],
           "n_trials": meta["n_trials"], "verify_games": meta["verify_games"],
           "styles_games": meta.get("styles_games", 0)}
    if meta.get("compare"):
        out["compare"] = meta["compare"]
    return out


@dataclass
class FinishedRebalance:
    """A finished rebalance of the same settings found in ``out`` (what :func:`rebalance`
    returns instead of running again): ``meta`` is its ``metadata.json``; :meth:`summary`
    reads its ``changes.csv``."""

    out: Path
    meta: dict

    @property
    def meets_goal(self) -> bool:
        """Whether every card met the goal on the fresh seeds (from ``metadata.json``)."""
        return bool(self.meta.get("every_card_meets_goal", False))

    @property
    def exit_status(self) -> int:
        """:func:`exit_status` from ``metadata.json``."""
        return exit_status(self.meta.get("recommendation") or {}, self.meets_goal)

    def summary(self) -> str:
        """Terminal text: the recommendation, what changed, the verification, the cards still
        off the goal, and that the answer comes from the folder."""
        changes = pd.read_csv(self.out / "changes.csv", dtype=str, keep_default_na=False)
        ids = list(dict.fromkeys(changes["id"]))
        off = [tuple(x) for x in self.meta.get("off_goal_after") or []]
        text = summary_lines(len(ids), ids, changes.to_dict("records"),
                             self.meta.get("violating_cards_fresh_seeds"),
                             self.meta.get("kendall_tau"), off,
                             (self.meta.get("goal") or {}).get("kind", ""),
                             (self.meta.get("recommendation") or {}).get("text"))
        return (text + f"\nanswered from the finished rebalance in {self.out}/: nothing was "
                "played; add --force to run it again")


def _changes(original: D.Deck, proposed: D.Deck, why: dict) -> pd.DataFrame:
    rows = []
    for a, b in zip(original.rows(), proposed.rows(), strict=True):
        for f in FIELDS:
            if str(a[f]) != str(b[f]):
                rows.append({"id": a["id"], "field": f, "before": a[f], "after": b[f],
                             "why": why.get(a["id"], "")})
    return pd.DataFrame(rows, columns=["id", "field", "before", "after", "why"])


def rebalance(deck: D.Deck | None = None, goal: str | Goal = "points", *, tolerance=None,
              target=None, curve: str = "fit", players=(2, 3, 4, 5), deep_waters: bool = False,
              agents=DEFAULT_AGENTS, change=None, fields="points", points_range=None,
              requirements_whitelist=None, n_trials: int = 60, n_games: int = 4000,
              verify_games: int | None = None, seed: int = 0, n_jobs: int = 1,
              batch_size: int = 1000, out=None, overwrite: bool = False,
              progress: bool = False, plots: bool = True, command: str = "",
              method: str = "model", correction: str = "holm", alpha: float = 0.05,
              allow_reorder: bool = False, compare_agents=None,
              compare_games: int | None = None,
              screen_games: int | None = None,
              styles_games: int = STYLE_GAMES) -> RebalanceResult:
    """Search a deck that meets ``goal`` with the fewest and smallest changes, verify it on
    fresh seeds and write the report (module docstring; files:
    :func:`experiments.lure.rebalance_report.write_outputs`).

    Args:
        deck: the deck (default the shipped reconstruction).
        goal: ``"win-diff"``, ``"curve"`` or a :class:`Goal`; ``tolerance``, ``target``,
            ``curve``: see :func:`parse_goal` (percentage points for win-diff).
        players: player counts (2..5); ``deep_waters``; ``agents``: any registered Lure
            policy name or names (:func:`agents.policy.names`), cycled over the seats
            (search and learned agents allowed; search agents are slow); default ``net``, the
            learned policy (:data:`experiments.lure.defaults.DEFAULT_AGENTS`).
        change, fields, points_range, requirements_whitelist: see :func:`make_constraints`.
        n_trials: complete trials wanted in the win-diff study (the start counts; a resumed
            study plays only the missing ones; the model steps may stop earlier, converged);
            ``n_games``: games per player count per trial (>= 2); ``verify_games``: games per
            player count of each verification run (``None``: 2000 for the points and curve
            goals, :data:`experiments.lure.defaults.VERIFY_GAMES`; 20000 for win-diff);
            ``screen_games``: games per player count of the evidence rule's screen and
            confirmation of the start deck (default ``verify_games``: the evidence has the
            power of the check).
        seed: the search's seed (the verification uses ``seed + 1``, the confirmation of the
            flagged cards ``seed + 2``); ``n_jobs``, ``batch_size``: the runner's (the numbers
            depend on ``batch_size``, not ``n_jobs``).
        out: output folder (default :func:`experiments.outputs.lure_rebalance_out_dir`);
            ``overwrite``: start over when it holds a rebalance with other settings.
        progress: a progress bar over the trials; plots: write the PNGs (``False``: the
            tables and report only, faster); command: the command line for the metadata.
        method: :data:`METHODS` (win-diff search: ``model`` steps or an optuna ``tpe``
            study); correction: :data:`CORRECTIONS` (``holm`` or ``bh``); alpha: the
            corrected tests' level, in (0, 0.5]; allow_reorder: lift the order constraint.
        compare_agents: ``None`` or a Lure policy name (or names cycled over the seats): the
            report says which cards' verdicts (win-diff goal, fresh seeds) change with those
            players and why (:func:`experiments.lure.verdicts.band_reason`), each deck played
            ``compare_games`` games per player count (default ``verify_games``: the check's
            power). The command line compares with ``heuristic`` by default.

        styles_games: games per seat order and deck of the play styles' table
            (:func:`experiments.lure.play_styles.style_table`; 0: none); a proposal that hands
            a style the game is not recommended.

    The proposal is recommended only when it is better than the original deck on the fresh
    seeds by the goal's own measure (:func:`experiments.lure.rebalance_points.recommendation`;
    otherwise ``deck.csv`` holds the original and the exit status is
    :data:`EXIT_NOT_RECOMMENDED`).

    Returns a :class:`RebalanceResult`, or a :class:`FinishedRebalance` when ``out`` holds a
    finished run of the same settings. Raises a one-line ``ValueError`` naming the option for
    bad goals, constraints or sizes (before anything is written), a folder holding a rebalance
    with other settings (unless ``overwrite``), or a folder in use by another run.
    """
    t_start = time.perf_counter()
    job = _prepare_job(deck, goal, tolerance, target, curve, players, deep_waters, agents,
                       change, fields, points_range, requirements_whitelist, n_trials, n_games,
                       verify_games, seed, batch_size, out, method, correction, alpha,
                       allow_reorder, compare_agents, compare_games, screen_games,
                       styles_games)
    from experiments.outputs import check_writable, claim_folder

    claim = claim_folder(job.out, experiment=EXPERIMENT, settings=_run_settings(job.run_keys),
                         outputs=OUTPUT_FILES, force=overwrite, legacy=_run_settings)
    if claim.finished:
        return FinishedRebalance(job.out, claim.meta)
    check_writable(job.out)
    with out_lock(job.out):
        if overwrite:
            for name in (STUDY_FILE, "metadata.json", "trials.csv"):
                (job.out / name).unlink(missing_ok=True)
            for name in (TRIAL_RUN_DIR, "_partial"):
                shutil.rmtree(job.out / name, ignore_errors=True)
        res = _propose(job, n_jobs, progress)
        _verify(res, job, n_jobs)
        res.wall_time_s = time.perf_counter() - t_start
        res.files = write_outputs(res, job.settings, command, {
            "players": job.players, "deep_waters": job.deep_waters, "agents": job.agents,
            "n_trials": job.n_trials, "n_games": job.n_games, "verify_games": job.verify_games,
            "screen_games": job.screen_games if job.goal.kind == "win-diff" else None,
            "seed": job.seed, "verify_seed": job.seed + 1, "batch_size": job.batch_size,
            "n_jobs": n_jobs, "curve_tolerance": job.curve_tolerance, "plots": bool(plots),
            "method": job.method, "correction": job.correction, "alpha": job.alpha,
            "allow_reorder": job.allow_reorder, "confirm_seed": job.seed + 2,
            "styles_games": job.styles_games,
            **({"compare": job.run_keys["compare"]} if job.compare_agents else {})})
        from experiments.outputs import finish_partial

        for name in (TRIAL_RUN_DIR, "_partial"):  # runner state: a finished folder holds results
            finish_partial(job.out, name)
    return res


@dataclass
class RebalanceJob:
    """What :func:`rebalance` runs, its inputs checked (:func:`_prepare_job`): the deck and
    its resolved ``goal``, the ``constraints``, the original deck's card table ``cards0`` and
    ``curve``, the sizes, the output folder ``out``, the search's ``settings`` and the folder
    rule's ``run_keys``."""

    deck: D.Deck
    goal: Goal
    constraints: Constraints
    cards0: pd.DataFrame
    curve: Curve
    curve_tolerance: float
    players: list
    deep_waters: bool
    agents: list
    n_trials: int
    n_games: int
    verify_games: int
    screen_games: int
    styles_games: int
    seed: int
    batch_size: int
    method: str
    correction: str
    alpha: float
    allow_reorder: bool
    compare_agents: list | None
    compare_games: int | None
    out: Path
    settings: dict
    run_keys: dict


def _prepare_job(deck, goal, tolerance, target, curve, players, deep_waters, agents, change,
                 fields, points_range, requirements_whitelist, n_trials, n_games, verify_games,
                 seed, batch_size, out, method, correction, alpha, allow_reorder,
                 compare_agents, compare_games, screen_games, styles_games) -> RebalanceJob:
    """Check :func:`rebalance`'s arguments (of the same names) and derive the search's
    settings; reads nothing in the output folder. Raises a one-line ``ValueError`` naming the
    option for bad input."""
    from experiments.lure.simulation import balance_cells

    deck = deck if deck is not None else D.default_deck()
    g = goal if isinstance(goal, Goal) else parse_goal(goal, tolerance, target, curve)
    players = sorted({int(p) for p in players})
    agents = [agents] if isinstance(agents, str) else list(agents)
    balance_cells(deck, players, deep_waters, agents)  # validates players and agents
    n_trials = check_int(n_trials, "bad --trials")
    n_games = check_int(n_games, "bad --games", 2)
    verify_games = check_int(verify_games if verify_games is not None else
                             VERIFY_GAMES if g.kind != "win-diff" else 20000, "bad --verify-games")
    styles_games = check_int(styles_games, "bad --styles-games", 0)
    screen_games = (verify_games if screen_games is None
                    else check_int(screen_games, "bad --screen-games", 2))
    batch_size = check_int(batch_size, "bad --batch-size")
    seed = check_int(seed, "bad --seed", 0)
    if method not in METHODS:
        raise ValueError(f"bad --method {method!r}: expected one of {', '.join(METHODS)}")
    if correction not in CORRECTIONS:
        raise ValueError(f"bad --correction {correction!r}: expected one of "
                         f"{', '.join(CORRECTIONS)}")
    a = parse_number(alpha, "--alpha")
    if not 0 < a <= 0.5:
        raise ValueError(f"bad --alpha {alpha!r}: expected a level in (0, 0.5], e.g. 0.05")
    cmp_agents = None
    if compare_agents:
        if g.kind != "win-diff":
            raise ValueError("--compare-agents applies to --goal win-diff (the curve goal "
                             "plays no games to judge)")
        cmp_agents = ([compare_agents] if isinstance(compare_agents, str)
                      else list(compare_agents))
        balance_cells(deck, players, deep_waters, cmp_agents)
        compare_games = check_int(verify_games if compare_games is None else compare_games,
                                  "bad --compare-games", 2)
    cons = make_constraints(deck, deep_waters, g, change, fields, points_range,
                            requirements_whitelist)
    cards0, _ = card_table(deck, deep_waters)
    crv = fit_difficulty_curve(cards0, g.curve)
    if g.tolerance is None:
        g = Goal(g.kind, DEFAULT_WIN_TOLERANCE if g.kind == "win-diff" else crv.threshold,
                 g.target, g.curve)
    curve_tol = g.tolerance if g.kind != "win-diff" else crv.threshold
    out = Path(out) if out is not None else lure_rebalance_out_dir(deck, g.kind, deep_waters)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file: expected a folder")
    settings = {"algorithm": _ALGORITHM, "deck_sha256": deck.sha256(), "goal": g.to_dict(),
                "constraints": cons.to_dict(), "players": players,
                "deep_waters": bool(deep_waters), "agents": agents, "n_games": n_games,
                "seed": seed, "batch_size": batch_size, "method": method,
                "correction": correction, "alpha": a, "allow_reorder": bool(allow_reorder),
                "costs": {"card": CARD_COST, "field": FIELD_COST, "cn_step": CN_STEP,
                          "beam": BEAM}}
    if g.kind == "win-diff":  # the evidence rule's games (a folder of older code lacks it)
        settings["screen_games"] = screen_games
    run_keys = {"settings": settings, "n_trials": n_trials, "verify_games": verify_games,
                "styles_games": styles_games}
    if cmp_agents:
        run_keys["compare"] = {"agents": cmp_agents, "games": compare_games}
    return RebalanceJob(deck, g, cons, cards0, crv, curve_tol, players, bool(deep_waters),
                        agents, n_trials, n_games, verify_games, screen_games, styles_games,
                        seed, batch_size, method, correction, a, bool(allow_reorder),
                        cmp_agents, compare_games, out, settings, run_keys)


def _propose(job: RebalanceJob, n_jobs: int, progress: bool) -> RebalanceResult:
    """The proposed deck: the exact curve fixes (the curve and points goals), or the exact
    fixes of the cards nobody can catch then the win-diff search (its study in ``job.out``).
    Returns the :class:`RebalanceResult` before verification."""
    deck, g, odds = job.deck, job.goal, OptionOdds(job.deep_waters)
    trials_df, best_number, targets, search_s, screen = None, None, {}, None, {}
    if g.kind != "win-diff":
        start = deck
        proposed, fixes, unfixable = curve_fixes(deck, job.deep_waters, job.curve,
                                                 job.curve_tolerance, job.constraints,
                                                 odds=odds, allow_reorder=job.allow_reorder)
        why = {f["id"]: f["why"] for f in fixes if f["fields"]}
    else:
        nobody = [cid for cid, d in zip(job.cards0["id"], job.cards0["difficulty"], strict=True)
                  if not np.isfinite(d)]
        start, fixes, unfixable = curve_fixes(deck, job.deep_waters, job.curve,
                                              job.curve_tolerance, job.constraints, ids=nobody,
                                              odds=odds, allow_reorder=job.allow_reorder)
        why = {f["id"]: f["why"] for f in fixes if f["fields"]}
        found = win_diff_search(start, job.constraints, g, job.players, job.deep_waters,
                                job.agents, job.n_games, job.seed, job.batch_size, n_jobs,
                                job.n_trials, job.settings, job.out, progress,
                                method=job.method, correction=job.correction, alpha=job.alpha,
                                allow_reorder=job.allow_reorder, odds=odds,
                                screen_games=job.screen_games)
        proposed, trials_df = found["proposed"], found["trials"]
        best_number, targets = found["best_trial"], found["targets"]
        search_s, screen = found["seconds"], {**found["screen"], "held": found["held"]}
        for cid, text in found["why"].items():
            why[cid] = (why[cid] + "; then " if cid in why else "") + text
    changes = _changes(deck, proposed, why)
    return RebalanceResult(job.out, g, job.constraints, job.curve, deck, start, proposed,
                           changes, unfixable, targets, trials_df, best_number,
                           search_seconds=search_s, screen=screen)


def _verify(res: RebalanceResult, job: RebalanceJob, n_jobs: int) -> None:
    """Play the original and the proposed deck on fresh seeds (``seed + 1``) and judge them
    (:func:`experiments.lure.rebalance_report.verify`; the points goal:
    :func:`experiments.lure.rebalance_points.judge_points`), the play styles' table, and the
    recommendation; sets them on ``res``."""
    partial = job.out / "_partial"
    res.verification = verify(res, job.players, job.deep_waters, job.agents, job.verify_games,
                              job.seed + 1, n_jobs, job.batch_size, partial,
                              job.curve_tolerance, correction=job.correction, alpha=job.alpha,
                              compare_agents=job.compare_agents,
                              compare_games=job.compare_games)
    if job.goal.kind == "points":
        res.verification = judge_points(res, res.verification, job.players, job.deep_waters,
                                        job.agents, job.verify_games, job.seed + 1, partial,
                                        job.curve_tolerance, n_jobs=n_jobs,
                                        batch_size=job.batch_size, overwrite=True)
    res.verification["off_goal_after"] = (points_off_reasons(res) if job.goal.kind == "points"
                                          else off_goal_reasons(res))
    if job.styles_games:
        res.styles = style_table({"before": job.deck, "after": res.proposed}, job.deep_waters,
                                 job.styles_games, job.seed + 1, partial, n_jobs=n_jobs,
                                 batch_size=min(job.batch_size, job.styles_games),
                                 overwrite=True)
    res.recommendation = recommendation(res, res.styles)
