"""The win-diff search of ``boardlab lure rebalance`` (:mod:`experiments.lure.rebalance`).

**Which cards may change** (the evidence rule). The start deck is played on the search's seeds
(``seed``) with ``screen_games`` games per player count (by default as many as the
verification plays on the fresh seeds, so that the rule which decides what may change has the
power of the rule which judges the result: a card off its band on the fresh seeds was, up to
chance, off on the screen too, and the search acts on it; with fewer games a real but small
deviation is "no evidence to act on" for the search yet "off" for the check) and every card in
play x every player count is tested against its band with the
one-sided p-values of :func:`experiments.lure.rebalance_stats.band_pvalues`, corrected over all
those cells (``correction``: Holm 1979 by default, or Benjamini-Hochberg 1995; level
``alpha``). A card flagged there is played again on *confirmation seeds* (``seed + 2``: games
the search never sees) and is a **candidate** only when one of its flagged cells is off its band
again on the same side, corrected over the flagged cells (``screen_games`` games again). Only
candidates (among ``--change``)
may change. A flagged card that is not confirmed is left alone and listed.

**What a trial must reach** (on the search's seeds, common random numbers; the band's centre
is the goal's target or the median card of *the trial's own deck*, :func:`median_targets`):
every candidate's
*estimate* inside its band at every player count (brought in, not merely to where noise hides
it), no other card pushed off its band (after the correction), and, unless ``allow_reorder``,
no new pair of cards out of order (a harder card worth fewer points, except pairs the original
deck already had so: :func:`experiments.lure.rebalance_stats.new_inversions`). Trials are
ranked **lexicographically** (:func:`lex_key`): order kept, then the number of candidates off
their band, then the number of other cards pushed off theirs, then the number of changed
cards, then the change cost (:data:`experiments.lure.rebalance_measures.FIELD_COST`: 1 per point
moved, ...), then the remaining violation (percentage points beyond the bands' edges,
rounded to 0.1). A change that does not bring its card into the band never pays for itself.

**Methods** (``method``; measured against each other in ``benchmarks/rebalance.py``):

* ``model`` (the default): deterministic *model steps* from the best trials (:data:`BEAM`):
  all the candidates off their band at once, then each alone, each card's points moved by the
  shift of win diff it needs divided by the win diff a point buys (the least-squares slope of
  win diff on points across the start deck's cards), rounded away from zero and clipped to the
  points range and to the points the order constraint allows; then one-point nudges; then
  *prune steps* (a changed field one step back, a changed card put back as it was). No sampler
  is involved; optuna's journal is only the resumable store of the trials.
* ``front``: the model steps, preceded by the *front's* proposals: for each number ``k`` of
  changed candidates, the points an exact integer program finds for the fewest cards off
  their band, then the fewest points moved, under a linear model of the win diff per point
  (:func:`experiments.lure.rebalance_front.change_front` on the screen's figures of the start
  deck, the candidates the only changeable cards, the points range and the order constraint
  as in the run); each is played as a trial (role ``front``) and ranked like any other, and
  the model steps then refine the best ones.
* ``tpe``: an optuna study over the candidates' fields only, every trial but the start a sample
  of the multivariate TPE sampler (Bergstra et al. 2011) with the order constraint as its
  ``constraints_func`` (c-TPE handling of infeasible trials), objective
  :func:`scalar_objective`.

Trial ``t``'s sampler is seeded by ``hash(seed, t)`` and proposals are computed from the stored
trials only, so a study killed at any point and run again continues exactly as an uninterrupted
one. The journal is ``<out>/study.journal``; the runner state of the trial being played is
``<out>/trial_run/``.
"""

from __future__ import annotations

import json
import math
import shutil
import time

import numpy as np
import pandas as pd

from engines.lure import decks as D
from experiments.lure.odds import card_table
from experiments.lure.rebalance_measures import CN_STEP
from experiments.lure.rebalance_stats import (
    inverted_pairs,
    off_band,
)
from experiments.optuna_study import N_STARTUP, open_study, quiet_optuna, trial_seed
from experiments.lure.rebalance_context import SearchContext, decode_stats, encode_stats
from experiments.lure.rebalance_objective import (
    band_shifts,
    lex_key,
    median_targets,
    scalar_objective,
    screen_and_confirm,
    win_diff_per_point,
    win_diff_violation,
)

__all__ = ["METHODS", "BEAM", "CONFIRM_OFFSET", "win_diff_violation", "scalar_objective",
           "lex_key", "median_targets", "screen_and_confirm", "win_diff_search"]

METHODS = ("model", "tpe", "front")
"""Search methods of the win-diff goal (module docstring)."""
BEAM = 4
"""Model steps are proposed from the 4 best trials, the best first."""
CONFIRM_OFFSET = 2
"""The confirmation seeds are the search's seed + 2 (the verification's are seed + 1)."""
STUDY_FILE = "study.journal"
TRIAL_RUN_DIR = "trial_run"


def _space(ctx: SearchContext, candidates: list[str], constraints) -> None:
    """The optuna distributions of the candidates' allowed fields (model steps move points
    only; ``tpe`` samples every allowed field)."""
    from optuna.distributions import CategoricalDistribution, IntDistribution

    rows = ctx.start.rows()
    for cid in candidates:
        row = rows[ctx.start.index(cid)]
        for f in constraints.fields:
            if ctx.method in ("model", "front") and f != "points":
                continue
            name = f"{cid}:{f}"
            if f == "points":
                dist = IntDistribution(*constraints.points_range)
                own = int(row["points"])
            elif f == "catch_number":
                cn = int(row["catch_number"])
                dist = IntDistribution(max(0, cn - CN_STEP), min(D.MAX_CATCH_NUMBER, cn + CN_STEP))
                own = cn
            elif f == "requirements":
                own = str(row["requirements"])
                sets = [";".join(w) for w in constraints.whitelist]
                dist = CategoricalDistribution([own] + [s for s in sets if s != own])
            else:
                own = str(row["splash"])
                dist = CategoricalDistribution([own] + [s for s in D.SPLASH_NAMES if s != own])
            ctx.space[name] = dist
            ctx.start_values[name] = own


def _best(ctx: SearchContext, trials):
    return min(trials, key=lambda t: lex_key(t.user_attrs, t.number, ctx.allow_reorder))


def _card_slope(ctx: SearchContext, best, name: str, j: int, trials) -> float:
    """Win diff per point of one card: the secant through the best trial and the played
    trial whose value of ``name`` is nearest to the best's (other cards as they were there;
    mean over player counts), when it is positive; else the deck-wide
    :attr:`SearchContext.slope`."""
    cur = best.params[name]
    wd1 = decode_stats(best.user_attrs["stats"])["wd"][j]
    others = sorted((abs(t.params[name] - cur), t.number, t) for t in trials or []
                    if t.params.get(name) is not None and t.params[name] != cur)
    for _, _, t in others[:1]:
        wd2 = decode_stats(t.user_attrs["stats"])["wd"][j]
        with np.errstate(invalid="ignore"):
            s = float(np.nanmean((wd1 - wd2) / (cur - t.params[name])))
        if np.isfinite(s) and s > 0.002:
            return s
    return ctx.slope


def _wanted_moves(ctx: SearchContext, best, trials=None) -> list[tuple]:
    """Per candidate off its band in ``best``: ``(urgency, param, wanted points, clipped
    points, what clipped it)``; ``what`` is ``""``, ``"range"`` or ``"order"``. The step is
    the shift of win diff needed divided by the card's secant slope (:func:`_card_slope`)."""
    stats = decode_stats(best.user_attrs["stats"])
    shift = band_shifts(stats, ctx.targets_of(stats), ctx.tol, ctx.mask)
    out = []
    for name, dist in ctx.space.items():
        cid, f = name.split(":")
        j = ctx.ids.index(cid)
        s = shift[j]
        if f != "points" or not ctx.mask[j] or not s.any() or ((s > 0).any() and (s < 0).any()):
            continue
        need = float(s[np.argmax(np.abs(s))])
        slope = _card_slope(ctx, best, name, j, trials)
        step = int(math.copysign(math.ceil(abs(need) / slope - 1e-9), need))
        cur = best.params[name]
        want = cur + step
        new = int(np.clip(want, dist.low, dist.high))
        why = "range" if new != want else ""
        lo, hi = ctx.bounds(best.params, cid)
        if np.isfinite(lo) and np.isfinite(hi) and lo > hi:
            lo, hi = -np.inf, np.inf  # the original deck already breaks the order here
        clipped = int(np.clip(new, max(lo, dist.low) if np.isfinite(lo) else dist.low,
                              min(hi, dist.high) if np.isfinite(hi) else dist.high))
        if clipped != new:
            why = "order"
        out.append((-float(np.abs(s).sum()), name, want, clipped, why))
    out.sort()
    return out


def _model_steps(ctx: SearchContext, best, trials=None) -> list[dict]:
    """Proposals from a trial: every candidate off its band moved at once, then each alone
    (most off first), then one-point nudges (module docstring). A card too high at one player
    count and too low at another stays."""
    moves = [(u, name, new) for u, name, _, new, _ in _wanted_moves(ctx, best, trials)
             if new != best.params[name]]
    every = [{**best.params, **{name: new for _, name, new in moves}}] if moves else []
    nudges = [{**best.params, name: best.params[name] + int(np.sign(new - best.params[name]))}
              for _, name, new in moves if abs(new - best.params[name]) > 1]
    return every + [{**best.params, name: new} for _, name, new in moves] + nudges


def _prune_steps(ctx: SearchContext, best, whole: bool = False) -> list[dict]:
    """Each changed field of a trial moved one step back towards the start deck, or
    (``whole``) each changed card put back as it was in the start deck."""
    steps, cards = [], {}
    for name, value in best.params.items():
        s = ctx.start_values[name]
        if value == s:
            continue
        p = dict(best.params)
        p[name] = value - int(np.sign(value - s)) if isinstance(s, int) else s
        steps.append(p)
        cards.setdefault(name.split(":")[0], {})[name] = s
    return [{**best.params, **back} for back in cards.values()] if whole else steps


def _front_steps(ctx: SearchContext) -> list[dict]:
    """The front's proposals (``method="front"``, module docstring): one points assignment of
    the candidates per number of changed cards, from the screen's figures of the start deck;
    none when points may not change or the deck's win diffs have no slope on the points."""
    from experiments.lure.rebalance_front import change_front

    cands = [c for c, m in zip(ctx.ids, ctx.mask, strict=True) if m]
    if not cands or not any(n.endswith(":points") for n in ctx.space):
        return []
    st = ctx.screen_stats
    pts = [int(ctx.start.points[ctx.start.index(c)]) for c in ctx.ids]
    rows = [{"id": c, "players": n, "points_before": pts[j],
             "difficulty_before": float(ctx.difficulty[j]),
             "win_diff_before": st["wd"][j, k], "win_diff_low_before": st["lo"][j, k],
             "win_diff_high_before": st["hi"][j, k]}
            for j, c in enumerate(ctx.ids) for k, n in enumerate(ctx.players)]
    try:
        front = change_front(pd.DataFrame(rows), ctx.tol, ctx.points_range, changeable=cands,
                             allow_reorder=ctx.allow_reorder, alpha=ctx.alpha,
                             max_changes=len(cands))
    except ValueError:
        return []
    steps = []
    for text in front["changed_cards"]:
        params = dict(ctx.start_values)
        for cid, move in zip(text.split()[::2], text.split()[1::2], strict=True):
            params[f"{cid}:points"] = int(move.split("->")[1])
        if params != ctx.start_values:
            steps.append(params)
    return steps


def _proposals(ctx: SearchContext, trials):
    """Model steps and one-step prunes from each of the :data:`BEAM` best trials in turn,
    then whole-card prunes from them, as ``(params, role)`` pairs."""
    beam = sorted(trials, key=lambda t: lex_key(t.user_attrs, t.number, ctx.allow_reorder))
    for b in beam[:BEAM]:
        yield from ((p, "model") for p in _model_steps(ctx, b, trials))
        yield from ((p, "prune") for p in _prune_steps(ctx, b))
    for b in beam[:BEAM]:
        yield from ((p, "prune") for p in _prune_steps(ctx, b, whole=True))


def _key_of(params: dict) -> str:
    return json.dumps(params, sort_keys=True)


def _run_search(ctx: SearchContext, study, n_trials: int, progress: bool) -> None:
    """Play trials until the study holds ``n_trials`` complete ones (module docstring)."""
    import optuna
    from optuna.trial import TrialState, create_trial


    complete = TrialState.COMPLETE
    cache: dict[str, dict] = {ctx.start.sha256(): ctx.start_stats}

    def played():
        ts = study.get_trials(deepcopy=False, states=(complete,))
        for tr in ts:
            cache.setdefault(tr.user_attrs["deck_sha"], tr.user_attrs["stats"])
        return ts

    def measure(params: dict) -> dict:
        deck = ctx.deck(params)
        sha = deck.sha256()
        t0 = time.perf_counter()
        if sha not in cache:
            cache[sha] = encode_stats(ctx.evaluate(deck))
        sc = ctx.score(params, decode_stats(cache[sha]))
        return {**sc, "deck_sha": sha, "stats": cache[sha],
                "eval_s": time.perf_counter() - t0}

    def add(params: dict, role: str) -> None:
        m = measure(params)
        study.add_trial(create_trial(params=params, distributions=ctx.space,
                                     value=m.pop("objective"),
                                     user_attrs={"role": role, **m},
                                     system_attrs={"constraints": [float(m["inversions"])]}))

    def tell(trial) -> None:
        m = measure({n: trial.params[n] for n in ctx.space})
        for k, v in m.items():
            if k != "objective":
                trial.set_user_attr(k, v)
        study.tell(trial, m["objective"])

    def sampler(number: int):
        return optuna.samplers.TPESampler(
            seed=trial_seed(ctx.seed, number), n_startup_trials=N_STARTUP, multivariate=True,
            constraints_func=lambda ft: [float(ft.user_attrs.get("inversions", 0))])

    # a trial cut short by a kill: finish it with its stored parameters
    for ft in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.sampler = sampler(ft.number)
        tell(optuna.trial.Trial(study, ft._trial_id))
    trials = played()
    if not trials:
        add(dict(ctx.start_values), "start")
        trials = played()
    from tqdm.auto import tqdm

    with tqdm(total=n_trials, initial=min(len(trials), n_trials), unit="trial",
              desc="rebalance", disable=not progress, dynamic_ncols=True) as bar:
        while len(trials) < n_trials and ctx.space:
            number = len(study.trials)
            seen = {_key_of(t.params) for t in trials}
            if ctx.method in ("model", "front"):
                if ctx.method == "front" and ctx.front_steps is None:
                    ctx.front_steps = _front_steps(ctx)
                first = [(p, "front") for p in ctx.front_steps or []]
                proposal = next(((p, r) for p, r in (*first, *_proposals(ctx, trials))
                                 if _key_of(p) not in seen), None)
                if proposal is None:
                    break  # nothing left to try: the model steps have converged
                add(*proposal)
            else:
                study.sampler = sampler(number)
                trial = study.ask(ctx.space)
                trial.set_user_attr("role", "tpe")
                tell(trial)
            trials = played()
            bar.update(1)
            bar.set_postfix(best=f"{_best(ctx, trials).user_attrs['violation']:.2f}pp")


def _trials_frame(ctx: SearchContext, trials) -> pd.DataFrame:
    rows, best = [], None
    for t in sorted(trials, key=lambda t: t.number):
        k = lex_key(t.user_attrs, t.number, ctx.allow_reorder)
        best = k if best is None or k < best else best
        row = {"number": t.number, "role": t.user_attrs.get("role"), "objective": float(t.value),
               "violation_pp": t.user_attrs.get("violation"),
               "candidates_off": t.user_attrs.get("candidates_off"),
               "others_off": t.user_attrs.get("others_off"),
               "new_inversions": t.user_attrs.get("inversions"),
               "changed_cards": t.user_attrs.get("changed_cards"),
               "change_cost": t.user_attrs.get("change_cost"), "best_trial_so_far": best[-1]}
        row.update({n: t.params.get(n) for n in ctx.space})
        rows.append(row)
    df = pd.DataFrame(rows)
    if len(df):  # the running best trial's objective, for the plot
        obj = df.set_index("number")["objective"]
        df["best_so_far"] = [float(obj[b]) for b in df["best_trial_so_far"]]
    return df


def _wd_text(stats: dict, j: int, k: int) -> str:
    if not np.isfinite(stats["wd"][j, k]):
        return "never caught"
    return (f"{100 * stats['wd'][j, k]:+.1f} [{100 * stats['lo'][j, k]:+.1f}, "
            f"{100 * stats['hi'][j, k]:+.1f}]")


def _win_diff_why(cid: str, j: int, before: dict, after: dict, targets, targets_after,
                  tol: float, players, flagged: np.ndarray) -> str:
    """Which player counts put the card off its band (after the correction), and every
    player count after the change with the proposed deck's band, with numbers (percentage
    points, the search's games)."""
    ks = [k for k in range(len(players)) if flagged[j, k]] or list(range(len(players)))
    parts = []
    for k in ks:
        band = f"band {targets[k] - tol:+.1f}..{targets[k] + tol:+.1f}"
        side = ("" if not np.isfinite(before["wd"][j, k]) else
                " above" if before["wd"][j, k] * 100 > targets[k] + tol else " below")
        parts.append(f"{players[k]}p{side}: {_wd_text(before, j, k)} vs {band}")
    now = "; ".join(f"{n}p {_wd_text(after, j, k)} (band {targets_after[k] - tol:+.1f}.."
                    f"{targets_after[k] + tol:+.1f})" for k, n in enumerate(players))
    return (f"{cid}: catcher win advantage (pp, 95% interval) off its band after the "
            f"correction, confirmed on the confirmation seeds: " + "; ".join(parts)
            + f"; after the change, on the search's games: {now}")


def win_diff_search(start, cons, g, players, deep, agents, n_games, seed, batch_size, n_jobs,
                    n_trials, settings, out, progress, *, method="model", correction="holm",
                    alpha=0.05, allow_reorder=False, odds=None, screen_games=None) -> dict:
    """The win-diff search (module docstring) on the start deck ``start`` under the
    :class:`experiments.lure.rebalance.Constraints` ``cons`` and the goal ``g`` (``n_games``
    per player count per trial; ``screen_games`` per player count for the screen and the
    confirmation of the evidence rule, default ``n_games``); the study in
    ``out/study.journal`` (``settings`` guard a resume). Returns a dict: ``proposed`` (deck),
    ``trials`` (DataFrame as ``trials.csv``), ``best_trial``, ``targets``
    (``{players: pp}``), ``why`` (``{id: text}``), ``seconds`` (evaluating trials),
    ``screen`` (``{"flagged": ids, "confirmed": ids, "candidates": ids, "unconfirmed": ids,
    "fixed": ids}``) and ``held`` (``{id: reason}``: candidates still off their band on the
    search's seeds in the chosen trial, with the constraint that holds them). Raises
    ``ValueError`` for a folder holding a study of other settings."""

    cards0, _ = card_table(start, deep)
    ids = list(cards0["id"])
    ctx = SearchContext(start, ids, players, deep, agents, n_games, seed, batch_size, n_jobs,
                 float(g.tolerance), correction, float(alpha), bool(allow_reorder), method,
                 run_dir=out / TRIAL_RUN_DIR)
    ctx.difficulty = cards0["difficulty"].to_numpy(np.float64)
    ctx.allowed = inverted_pairs(ctx.difficulty, cards0["points"].to_numpy(np.float64))
    ctx.odds = odds
    import optuna

    with quiet_optuna():
        study, _ = open_study(out / STUDY_FILE, "rebalance", "minimize", settings, out)
        base = study.user_attrs.get("baseline")
        if base is None:  # the start deck: the trials' start, the screen, the confirmation
            stats = ctx.evaluate(start)
            sg = int(screen_games or n_games)
            scr = stats if sg == n_games else ctx.evaluate(start, n_games=sg)
            points = start.points[[start.index(c) for c in ids]].astype(float)
            tg = median_targets(scr, g.target).tolist()
            flagged = off_band(scr, tg, ctx.tol, correction, alpha)
            conf = (encode_stats(ctx.evaluate(start, seed + CONFIRM_OFFSET, n_games=sg))
                    if flagged.any() else None)
            base = {"stats": encode_stats(stats),
                    "screen": None if scr is stats else encode_stats(scr), "confirm": conf,
                    "targets": tg, "slope": win_diff_per_point(scr, points)}
            study.set_user_attr("baseline", base)
        stats0 = decode_stats(base["screen"] if base.get("screen") is not None else base["stats"])
        conf0 = decode_stats(base["confirm"]) if base["confirm"] is not None else None
        ctx.start_stats = base["stats"]
        ctx.targets = np.array(base["targets"], np.float64)
        ctx.fixed_target = g.target
        ctx.slope = float(base["slope"])
        flagged, confirmed = screen_and_confirm(stats0, conf0, ctx.targets, ctx.tol,
                                                correction, alpha)
        f_cards, c_cards = flagged.any(axis=1), confirmed.any(axis=1)
        never = ((stats0["in_play"] > 0) & ~np.isfinite(stats0["wd"])).all(axis=1)
        can = np.array([c in cons.change for c in ids]) & ~(
            never & (not {"catch_number", "requirements"} & set(cons.fields)))
        ctx.mask = c_cards & can
        ctx.guard = ~f_cards
        ctx.points_range = tuple(int(x) for x in cons.points_range)
        ctx.screen_stats = stats0
        cands = [c for c, m in zip(ids, ctx.mask, strict=True) if m]
        _space(ctx, cands, cons)
        _run_search(ctx, study, n_trials, progress)
        shutil.rmtree(ctx.run_dir, ignore_errors=True)
        trials = study.get_trials(deepcopy=False,
                                  states=(optuna.trial.TrialState.COMPLETE,))
        best = _best(ctx, trials)
        proposed = ctx.deck(best.params)
        best_stats = decode_stats(best.user_attrs["stats"])
    why = {}
    tg_best = ctx.targets_of(best_stats)
    for name in ctx.space:
        cid = name.split(":")[0]
        if best.params[name] != ctx.start_values[name] and cid not in why:
            why[cid] = _win_diff_why(cid, ids.index(cid), stats0, best_stats, ctx.targets,
                                     tg_best, ctx.tol, players, flagged)
    held = _held(ctx, best, best_stats, cons, n_trials, len(trials), trials)
    targets = {int(n): float(t) for n, t in zip(players, tg_best, strict=True)}
    seconds = float(sum(t.user_attrs.get("eval_s", 0.0) for t in trials))
    pick = lambda m: [c for c, x in zip(ids, m, strict=True) if x]  # noqa: E731
    v_best = win_diff_violation(best_stats, tg_best, ctx.tol, ctx.mask).sum(axis=1)
    screen = {"flagged": pick(f_cards), "confirmed": pick(c_cards), "candidates": cands,
              "unconfirmed": pick(f_cards & ~c_cards),
              "fixed": [c for c in cands if v_best[ids.index(c)] == 0]}
    return {"proposed": proposed, "trials": _trials_frame(ctx, trials),
            "best_trial": int(best.number), "targets": targets, "why": why,
            "seconds": seconds, "screen": screen, "held": held}


def _need(want, lo: int, hi: int) -> str:
    """The points a card would need, as a designer reads it: ``about N points``, or, beyond the
    points range, ``fewer than LO points`` / ``more than HI points``."""
    if want is None:
        return "other points"
    if want < lo:
        return f"fewer than {lo} point{'s' if lo != 1 else ''} (below the points range)"
    if want > hi:
        return f"more than {hi} points (above the points range)"
    return f"about {want} point{'s' if want != 1 else ''}"


def _held(ctx: SearchContext, best, stats: dict, cons, n_trials: int, n_played: int,
          trials=None) -> dict:
    """``{id: reason}`` for every candidate whose estimate stays off its band in the chosen
    trial (the search's seeds), with the constraint that holds it."""
    v = win_diff_violation(stats, ctx.targets_of(stats), ctx.tol, ctx.mask).sum(axis=1)
    moves = {name.split(":")[0]: (want, new, what)
             for _, name, want, new, what in _wanted_moves(ctx, best, trials)}
    out = {}
    for j, cid in enumerate(ctx.ids):
        if not ctx.mask[j] or v[j] <= 0:
            continue
        want, new, what = moves.get(cid, (None, None, ""))
        lo, hi = cons.points_range
        if what == "order":
            b_lo, b_hi = ctx.bounds(best.params, cid)
            allowed = (f"{b_lo:g}..{b_hi:g}" if np.isfinite(b_lo) and np.isfinite(b_hi) else
                       f"at least {b_lo:g}" if np.isfinite(b_lo) else f"at most {b_hi:g}")
            out[cid] = (f"held by the order constraint: it would need {_need(want, lo, hi)}, but "
                        f"no easier card may be worth more nor harder card less "
                        f"(allowed {allowed}; --allow-reorder lifts it); "
                        f"{v[j]:.1f} pp beyond its band's edge on the search's games")
        elif what == "range":
            out[cid] = (f"held by --points-range {lo}..{hi}: it would need "
                        f"{_need(want, lo, hi)}; "
                        f"{v[j]:.1f} pp beyond its band's edge on the search's games")
        elif not any(f.startswith(cid + ":") for f in ctx.space):
            out[cid] = "held by --fields: none of its allowed fields can move"
        else:
            budget = ("the search's budget (--trials)" if n_played >= n_trials else
                      "the model steps (they converged without reaching the band; a card "
                      "too high at one player count and too low at another cannot be fixed by "
                      "points)")
            out[cid] = (f"held by {budget}: {v[j]:.1f} pp beyond its band's edge on the "
                        f"search's games")
    return out
