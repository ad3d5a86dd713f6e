"""Rebalance a Lure fish deck (``boardlab lure rebalance``): the fewest and smallest card changes
that meet a designer's goal, checked on fresh games.

**Goals** (:class:`Goal`; rules: ``docs/rules/lure.md``, *Fish cards*):

* ``win-diff`` (``tolerance`` W in percentage points of win rate, default 5): at every chosen
  player count, every card's *catcher win advantage* (the balance report's ``win_diff``: the
  win rate of the player who caught it minus that of the other players of the same games,
  :func:`experiments.lure.balance.card_stats`) lies within ``target +- W``. The target is a
  number given by the designer or, by default, the **median card's** win diff at that player
  count in the start deck (no single card should decide games much more, or much less, than
  the typical card). A card is judged with its 95% Newcombe interval: its violation is the
  distance (percentage points) from the interval to the band, zero when they overlap, so noise
  alone never triggers a change. A card in play but never caught counts as a win diff of 0.
* ``curve`` (``tolerance`` in card points, default the balance report's threshold
  ``max(1, 1.5 x RMSE)``): every card's points lie within the tolerance of the points the
  difficulty curve gives its difficulty ``D = -ln(mean catch probability)``
  (:func:`experiments.lure.balance.difficulty`). The curve (:func:`fit_difficulty_curve`) is
  ``fit``, the balance report's least-squares quadratic (:func:`balance.fit_curve`), or
  ``proportional``, points = k x D (least squares through the origin: a card nobody can miss is
  worth 0). It is fitted once, on the original deck, and used only inside the range of
  difficulties of the deck's catchable cards (no extrapolation). Answered from the exact odds
  (:func:`engines.dice.exact_table`): no games are needed except for the verification.

**Constraints** (:class:`Constraints`): which cards may change (``change``, default all the
cards of the game), which fields (``points``, ``catch_number``, ``requirements`` from a
whitelist, ``splash``; default points only), integer points in ``points_range`` (default the
deck's own lowest..highest). The curve goal never changes splash icons: they do not change the
catch odds.

**Fewest and smallest changes.** Proposals change only *candidates*: the changeable cards that
violate the goal in the start deck (the curve goal: in the deck), and, in the win-diff search,
any changeable card that the other changes push out of its band. A change costs
:data:`CARD_COST` per changed card plus :data:`FIELD_COST` per unit (a point, a step of catch
number, a different requirement set or splash icon).

**Cards nobody can catch** (0% odds with every dice loadout, ``D = inf``): no number of points
fixes them. When catch numbers or requirements may change, :func:`exact_fix` picks, from the
exact odds, the change of least cost that puts the card on the curve at its (possibly also
changed) points; otherwise the report says plainly that the card cannot be fixed under the
given constraints. In the win-diff goal these fixes come first and are part of every trial (the
*start deck* is the original deck with them).

**Search, curve goal** (:func:`curve_fixes`): the goal is separable by card and exact, so each
candidate's best option is found by enumeration, lexicographically: least remaining violation,
then fewest fields changed, then least cost.

**Search, win-diff goal** (:func:`rebalance`): an optuna study (as
:mod:`experiments.tournament.tune`). A trial is a deck: per changeable card one parameter per
allowed field (``"B05:points"`` an integer in the points range, ``"B05:catch_number"`` an
integer within :data:`CN_STEP` of its own, ``"B05:requirements"`` / ``"B05:splash"`` categorical
with the card's own value first). It is scored by simulated games: ``n_games`` games per player
count played by :func:`experiments.lure.balance.simulate` with the **same seed for every trial**
(common random numbers: two decks are compared on the same deals and dice, and one deck always
gets the same score). Objective (minimized) = the summed violations in percentage points over
cards and player counts + :data:`PENALTY_PP` x the change cost against the start deck; the
violation of a card out of its band in the start deck is the distance of its *estimate* from the
band (it must be brought into the band, not merely to where noise hides it), any other card's
the distance of its interval. Trial 0 is the start deck (no change). Trial ``t`` is, in this order
of preference and skipping a deck already played: every :data:`TPE_EVERY`-th trial a sample of
optuna's multivariate TPE sampler; else, from the best trial so far (then from the second best,
... up to the :data:`BEAM`-th), a *model step*, first for every changeable card out of its band
at once, then for each alone (its points move by the shift of win diff it needs divided by the
win diff gained per point, the slope of win diff on points across the start deck's cards,
rounded away from zero; then by one point only) or a *prune step* (one changed field moved one
step back towards the start deck); then from the same trials a changed card put back as it was;
else a TPE sample. The proposals are
computed from the stored trials only, and the sampler of trial ``t`` is seeded with
``hash(seed, t)``, so the same settings give the same trials, and a study killed at any point
and run again continues exactly as an uninterrupted one (a trial cut short is finished with its
stored parameters; a deck already played is not played again). The study is an optuna
``JournalStorage`` file, ``<out>/study.journal``; the runner state of the
trial being played is ``<out>/trial_run/``. The proposed deck is the best trial's.

**Verification** (:mod:`experiments.lure.rebalance_report`): the original and the proposed
deck are played again on fresh seeds (seed ``seed + 1``, another seed stream than the search's)
with ``verify_games`` games per player count (runner states in ``<out>/_partial/``: a killed
verification resumes); the report shows both with their intervals, every card judged with its
interval. All files are written atomically, under the output folder's lock
(:func:`experiments.io.out_lock`).
"""

from __future__ import annotations

import json
import math
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D
from experiments.io import out_lock
from experiments.lure.balance import card_table, difficulty, fit_curve, simulate
from experiments.options import check_int

__all__ = ["GOALS", "CURVES", "FIELDS", "FIELD_COST", "CARD_COST", "PENALTY_PP", "CN_STEP",
           "TPE_EVERY", "BEAM", "Goal", "Constraints", "Curve", "RebalanceResult", "parse_goal",
           "parse_points_range", "parse_fields", "parse_whitelist", "make_constraints",
           "fit_difficulty_curve", "curve_violation", "OptionOdds", "exact_fix", "curve_fixes",
           "win_diff_violation", "rebalance", "default_out_dir"]

GOALS = ("win-diff", "curve")
"""Goals of :func:`rebalance`."""
CURVES = ("fit", "proportional")
"""Difficulty curves: the balance report's quadratic fit, or points proportional to D."""
FIELDS = ("points", "catch_number", "requirements", "splash")
"""Card fields a rebalance may change."""
_FIELD_ALIASES = {"points": "points", "pts": "points", "catch_number": "catch_number",
                  "cn": "catch_number", "catch": "catch_number", "requirements": "requirements",
                  "req": "requirements", "splash": "splash"}
DEEP_ONLY = ("special2", "odd", "even", "stubborn")
"""Requirement codes of the Deep Waters expansion."""
FIELD_COST = {"points": 1.0, "catch_number": 0.5, "requirements": 2.0, "splash": 2.0}
"""Cost of a change per unit: per point, per step of catch number, per requirement set or
splash icon replaced."""
CARD_COST = 2.0
"""Cost of changing a card at all (fewest changes first)."""
PENALTY_PP = 0.1
"""Win-diff objective: percentage points of violation one unit of change cost is worth."""
CN_STEP = 6
"""Win-diff search: a catch number may move at most this far from the card's own."""
TPE_EVERY = 10
"""Win-diff search: every 10th trial is a TPE sample whatever the proposals."""
BEAM = 4
"""Win-diff search: proposals are made from the 4 best trials, the best first."""
DEFAULT_WIN_TOLERANCE = 5.0
"""Default ``tolerance`` of the win-diff goal, percentage points."""
STUDY_FILE = "study.journal"
TRIAL_RUN_DIR = "trial_run"
_ALGORITHM = "rebalance-1"


# ---------------------------------------------------------------- goal and constraints
@dataclass(frozen=True)
class Goal:
    """The designer's goal: ``kind`` (``"win-diff"`` or ``"curve"``), ``tolerance`` (win-diff:
    percentage points of win rate; curve: card points; ``None``: the default), ``target``
    (win-diff only: the win diff in percentage points every card should have; ``None``: the
    start deck's median card per player count) and ``curve`` (:data:`CURVES`: the curve the
    curve goal follows and cards nobody can catch are put on)."""

    kind: str
    tolerance: float | None = None
    target: float | None = None
    curve: str = "fit"

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"kind": self.kind, "tolerance": self.tolerance, "target": self.target,
                "curve": self.curve}


def _number(value, option: str) -> float | None:
    if value is None:
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"bad {option} {value!r}: expected a number") from None
    if not math.isfinite(x):
        raise ValueError(f"bad {option} {value!r}: expected a finite number")
    return x


def parse_goal(kind: str = "win-diff", tolerance=None, target=None, curve: str = "fit") -> Goal:
    """Validate a goal (see the module docstring).

    Raises:
        ValueError: one line naming the option as typed: an unknown ``--goal`` or ``--curve``,
            a ``--tolerance`` that is not a number in (0, 100] (percentage points for win-diff,
            card points for curve), a ``--target`` that is not ``median`` or a number in
            -100..100, or a ``--target`` given with the curve goal.
    """
    k = str(kind).strip().lower().replace("_", "-")
    if k not in GOALS:
        raise ValueError(f"bad --goal {kind!r}: expected one of {', '.join(GOALS)}")
    c = str(curve).strip().lower()
    if c not in CURVES:
        raise ValueError(f"bad --curve {curve!r}: expected one of {', '.join(CURVES)}")
    tol = _number(tolerance, "--tolerance")
    unit = "percentage points of win rate" if k == "win-diff" else "card points"
    if tol is not None and not 0 < tol <= 100:
        raise ValueError(f"bad --tolerance {tolerance!r}: expected a number > 0 and <= 100 "
                         f"({unit})")
    tgt = None
    if isinstance(target, str) and target.strip().lower() == "median":
        target = None
    if target is not None:
        if k != "win-diff":
            raise ValueError(f"--target {target!r} applies to --goal win-diff only (the curve "
                             f"goal's target is the curve)")
        tgt = _number(target, "--target")
        if not -100 <= tgt <= 100:
            raise ValueError(f"bad --target {target!r}: expected 'median' or a win diff in "
                             f"percentage points, -100..100")
    return Goal(k, tol, tgt, c)


@dataclass(frozen=True)
class Constraints:
    """What may change: ``change`` (card ids, deck order), ``fields`` (:data:`FIELDS` order),
    ``points_range`` (inclusive integer bounds) and ``whitelist`` (requirement sets a card may
    take instead of its own, each a tuple of codes; ``()`` is no requirement)."""

    change: tuple[str, ...]
    fields: tuple[str, ...]
    points_range: tuple[int, int]
    whitelist: tuple[tuple[str, ...], ...] = ()

    def to_dict(self) -> dict:
        """JSON-ready form (requirement sets in the deck file's notation)."""
        return {"change": list(self.change), "fields": list(self.fields),
                "points_range": list(self.points_range),
                "requirements_whitelist": [";".join(w) for w in self.whitelist]}


def parse_points_range(text) -> tuple[int, int]:
    """``"1..10"`` or ``"1-10"`` -> ``(1, 10)``. Raises a one-line ``ValueError`` naming
    ``--points-range`` unless ``0 <= LO <= HI <= 100`` (the deck file's limits)."""
    m = re.fullmatch(r"\s*(\d+)\s*(?:\.\.|-)\s*(\d+)\s*", str(text))
    if not m or not int(m.group(1)) <= int(m.group(2)) <= D.MAX_POINTS:
        raise ValueError(f"bad --points-range {text!r}: expected LO..HI, integers with "
                         f"0 <= LO <= HI <= {D.MAX_POINTS}, e.g. 1..10")
    return int(m.group(1)), int(m.group(2))


def parse_fields(text) -> tuple[str, ...]:
    """``"points,catch_number"`` (aliases ``pts``, ``cn``, ``req``) -> fields in
    :data:`FIELDS` order. Raises a one-line ``ValueError`` naming ``--fields`` and the bad
    item."""
    items = [t.strip().lower() for t in (text.split(",") if isinstance(text, str) else text)]
    items = [t for t in items if t]
    if not items:
        raise ValueError(f"bad --fields {text!r}: expected some of {', '.join(FIELDS)}")
    out = set()
    for t in items:
        if t not in _FIELD_ALIASES:
            raise ValueError(f"bad --fields item {t!r}: expected some of {', '.join(FIELDS)}")
        out.add(_FIELD_ALIASES[t])
    return tuple(f for f in FIELDS if f in out)


def parse_whitelist(text, deep_waters: bool) -> tuple[tuple[str, ...], ...]:
    """``--requirements-whitelist`` text -> requirement sets. Items are separated by commas
    (``has:1,5`` keeps its values) or semicolons; ``+`` joins codes into one set
    (``odd+pair``); ``none`` is no requirement.

    Raises:
        ValueError: one line naming the item: an unknown code, a contradictory set, or a Deep
            Waters code (:data:`DEEP_ONLY`) in a base-game rebalance.
    """
    items: list[str] = []
    for tok in (t.strip() for t in re.split(r"[,;]", str(text))):
        if tok.isdigit() and items and re.search(r"has:[\d,]*$", items[-1]):
            items[-1] += "," + tok
        elif tok:
            items.append(tok)
    if not items:
        raise ValueError(f"bad --requirements-whitelist {text!r}: expected requirement codes "
                         f"(pair, distinct, has:1,5, odd+pair, none, ...)")
    out: list[tuple[str, ...]] = []
    for item in items:
        codes = () if item.lower() == "none" else tuple(
            c.strip().lower() for c in item.split("+") if c.strip())
        try:
            dice.compile_condition(0, codes)
        except ValueError as exc:
            raise ValueError(f"bad --requirements-whitelist item {item!r}: {exc}") from None
        deep = [c for c in codes if c in DEEP_ONLY]
        if deep and not deep_waters:
            raise ValueError(f"bad --requirements-whitelist item {item!r}: {deep[0]!r} is a "
                             f"Deep Waters requirement: add --deep-waters or drop it")
        if codes not in out:
            out.append(codes)
    return tuple(out)


def _in_game(deck: D.Deck, deep_waters: bool) -> list[int]:
    return [i for i in range(len(deck))
            if deep_waters or deck.info[i, D.I_SET] == D.SET_BASE]


def make_constraints(deck: D.Deck, deep_waters: bool, goal: Goal, change=None,
                     fields="points", points_range=None, whitelist=None) -> Constraints:
    """Validate the constraints against ``deck``.

    ``change``: card ids (list or comma-separated text; ``None`` or ``"all"``: every card of
    the game); ``fields``: see :func:`parse_fields`; ``points_range``: ``(lo, hi)`` or text
    (default: the deck's lowest..highest points of the game's cards); ``whitelist``: text or
    requirement sets (default when requirements may change: every requirement set the game's
    cards use, and no requirement).

    Raises:
        ValueError: one line naming the option: an unknown card id, a Deep Waters card in a
            base-game rebalance, a points range that excludes the current points of a card that
            may change, a whitelist without requirements among the fields, or the curve goal
            with only splash icons to change.
    """
    game = _in_game(deck, deep_waters)
    if change is None or (isinstance(change, str) and change.strip().lower() == "all"):
        ids = [deck.ids[i] for i in game]
    else:
        items = [t.strip() for t in (change.split(",") if isinstance(change, str) else change)]
        items = [t for t in items if t]
        if not items:
            raise ValueError(f"bad --change {change!r}: expected card ids such as B05,B17 or "
                             f"'all'")
        for t in items:
            if t not in deck.ids:
                raise ValueError(f"bad --change {t!r}: no such card in {Path(deck.source).name}")
            if deck.index(t) not in game:
                raise ValueError(f"bad --change {t!r}: a Deep Waters card; add --deep-waters "
                                 f"to rebalance it")
        ids = [deck.ids[i] for i in game if deck.ids[i] in set(items)]
    flds = parse_fields(fields)
    if goal.kind == "curve" and flds == ("splash",):
        raise ValueError("bad --fields 'splash' for --goal curve: splash icons do not change the "
                         "catch odds; allow points, catch_number or requirements")
    if points_range is None:
        pts = deck.points[game]
        lo, hi = int(pts.min()), int(pts.max())
    elif isinstance(points_range, str):
        lo, hi = parse_points_range(points_range)
    else:
        lo, hi = parse_points_range(f"{points_range[0]}..{points_range[1]}")
    if "points" in flds:
        outside = [f"{c} ({deck.points[deck.index(c)]})" for c in ids
                   if not lo <= deck.points[deck.index(c)] <= hi]
        if outside:
            raise ValueError(f"bad --points-range {lo}..{hi}: it excludes the points of "
                             f"{', '.join(outside[:5])}{' ...' if len(outside) > 5 else ''}; "
                             f"it must hold every changeable card's current points")
    if whitelist is not None and "requirements" not in flds:
        raise ValueError("--requirements-whitelist needs requirements among --fields")
    if "requirements" in flds:
        if whitelist is None:
            wl = [()] + sorted({deck.requirements[i] for i in game} - {()})
        elif isinstance(whitelist, str):
            wl = list(parse_whitelist(whitelist, deep_waters))
        else:
            wl = list(parse_whitelist(",".join("+".join(w) or "none" for w in whitelist),
                                      deep_waters))
    else:
        wl = []
    return Constraints(tuple(ids), flds, (lo, hi), tuple(tuple(w) for w in wl))


# ---------------------------------------------------------------- the curve and exact odds
@dataclass(frozen=True)
class Curve:
    """Points as a function of difficulty: ``kind`` (:data:`CURVES`), ``coefficients``
    (numpy polynomial, highest power first), ``rmse`` (card points, over the catchable cards
    it was fitted on), ``threshold`` (the balance report's flag threshold
    ``max(1, 1.5 x rmse)``), and ``d_low``/``d_high``, the range of difficulties it was fitted
    on (it is not used outside)."""

    kind: str
    coefficients: tuple[float, ...]
    rmse: float
    threshold: float
    d_low: float
    d_high: float

    def __call__(self, d) -> np.ndarray:
        """Fitted points (float64, shape of ``d``); NaN where ``d`` is infinite."""
        d = np.asarray(d, dtype=np.float64)
        ok = np.isfinite(d)
        return np.where(ok, np.polyval(self.coefficients, np.where(ok, d, 0.0)), np.nan)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"kind": self.kind, "coefficients": list(self.coefficients), "rmse": self.rmse,
                "threshold": self.threshold, "difficulty_range": [self.d_low, self.d_high]}


def fit_difficulty_curve(cards: pd.DataFrame, kind: str = "fit") -> Curve:
    """The curve of points on difficulty over the catchable cards of ``cards`` (a
    :func:`experiments.lure.balance.card_table` frame: ``difficulty``, ``points``).

    ``"fit"``: :func:`experiments.lure.balance.fit_curve` (least-squares quadratic);
    ``"proportional"``: ``points = k x D`` with ``k = sum(D p) / sum(D^2)``.

    Raises:
        ValueError: an unknown kind, or too few catchable cards (fewer than 4 for ``fit``,
            none with ``D > 0`` for ``proportional``).
    """
    d = cards["difficulty"].to_numpy(np.float64)
    p = cards["points"].to_numpy(np.float64)
    ok = np.isfinite(d)
    if kind == "fit":
        coef, fitted, rmse = fit_curve(d, p)
    elif kind == "proportional":
        den = float((d[ok] ** 2).sum())
        if den <= 0:
            raise ValueError("no catchable card with a difficulty above 0: points "
                             "proportional to difficulty cannot be fitted")
        coef = np.array([float((d[ok] * p[ok]).sum()) / den, 0.0])
        rmse = float(np.sqrt(np.mean((p[ok] - np.polyval(coef, d[ok])) ** 2)))
    else:
        raise ValueError(f"bad --curve {kind!r}: expected one of {', '.join(CURVES)}")
    return Curve(kind, tuple(float(c) for c in coef), float(rmse), max(1.0, 1.5 * float(rmse)),
                 float(d[ok].min()), float(d[ok].max()))


def curve_violation(points, diff, curve: Curve, tolerance: float) -> np.ndarray:
    """Card points off the curve beyond ``tolerance``: ``max(0, |points - curve(D)| - tol)``
    (float64, broadcast shape; ``inf`` where ``D`` is infinite: nobody can catch the card)."""
    fitted = curve(diff)
    v = np.maximum(0.0, np.abs(np.asarray(points, np.float64) - fitted) - float(tolerance))
    return np.where(np.isfinite(np.asarray(diff, np.float64)), v, np.inf)


class OptionOdds:
    """Difficulty of ``(catch number, requirement set)`` options, from the exact table
    (:func:`engines.dice.exact_table` and :func:`experiments.lure.balance.difficulty`),
    computed in one batch per call and cached: ``OptionOdds(deep)(options) -> float64
    (len(options),)``. Raises ``ValueError`` for a malformed option."""

    def __init__(self, deep_waters: bool):
        self.deep = bool(deep_waters)
        self._d: dict[tuple, float] = {}

    def __call__(self, options) -> np.ndarray:
        opts = [(int(cn), tuple(req)) for cn, req in options]
        new = sorted({o for o in opts if o not in self._d})
        if new:
            conds = np.array([dice.compile_condition(cn, req) for cn, req in new])
            _, dd = difficulty(dice.exact_table(conds, deep_waters=self.deep), self.deep)
            self._d.update(zip(new, (float(x) for x in dd), strict=True))
        return np.array([self._d[o] for o in opts], dtype=np.float64)


def _row_fields(row: dict) -> dict:
    return {"points": int(row["points"]), "catch_number": int(row["catch_number"]),
            "requirements": D.parse_requirements(str(row["requirements"])),
            "splash": str(row["splash"])}


def exact_fix(row: dict, curve: Curve, tolerance: float, constraints: Constraints,
              odds: OptionOdds) -> dict:
    """The least-cost change of one card (a deck row) that brings its points within
    ``tolerance`` of ``curve`` at its difficulty, from the exact odds.

    Options: points in the range (when points may change), every catch number 0..66 (when
    catch numbers may change), the card's own requirements or a whitelisted set (when
    requirements may change); a changed catch number or requirement set must give a
    difficulty inside the curve's range. Chosen lexicographically: least violation, fewest
    fields changed, least :data:`FIELD_COST` cost.

    Returns a dict: ``fields`` (the new values of the changed fields; empty: no change),
    ``violation_before``/``violation_after`` (card points, ``inf`` for a card nobody can
    catch), ``difficulty_before``/``difficulty_after``, ``fitted_before``/``fitted_after``.
    """
    own = _row_fields(row)
    flds = constraints.fields
    pts = (np.arange(constraints.points_range[0], constraints.points_range[1] + 1)
           if "points" in flds else np.array([own["points"]]))
    cns = range(D.MAX_CATCH_NUMBER + 1) if "catch_number" in flds else [own["catch_number"]]
    reqs = [own["requirements"]] + ([w for w in constraints.whitelist
                                     if w != own["requirements"]]
                                    if "requirements" in flds else [])
    opts = [(cn, r) for r in reqs for cn in cns]
    dd = odds(opts)
    d_own = float(odds([(own["catch_number"], own["requirements"])])[0])
    is_own = np.array([cn == own["catch_number"] and r == own["requirements"] for cn, r in opts])
    usable = is_own | (np.isfinite(dd) & (dd >= curve.d_low - 1e-9) & (dd <= curve.d_high + 1e-9))
    v = curve_violation(pts[None, :], dd[:, None], curve, tolerance)      # (options, points)
    v = np.where(usable[:, None], np.round(v, 9), np.inf)
    cn_arr = np.array([cn for cn, _ in opts])
    req_changed = np.array([r != own["requirements"] for _, r in opts])
    n_fields = ((cn_arr != own["catch_number"]).astype(int)[:, None] + req_changed[:, None]
                + (pts != own["points"])[None, :])
    cost = (FIELD_COST["catch_number"] * np.abs(cn_arr - own["catch_number"])[:, None]
            + FIELD_COST["requirements"] * req_changed[:, None]
            + FIELD_COST["points"] * np.abs(pts - own["points"])[None, :])
    order = np.lexsort((cost.ravel(), n_fields.ravel(), v.ravel()))
    k = int(order[0])
    oi, pi = divmod(k, len(pts))
    v_own = float(curve_violation(own["points"], d_own, curve, tolerance))
    out = {"fields": {}, "violation_before": v_own, "violation_after": v_own,
           "difficulty_before": d_own, "difficulty_after": d_own,
           "fitted_before": float(curve(d_own)), "fitted_after": float(curve(d_own))}
    if not np.isfinite(v.ravel()[k]) or v.ravel()[k] >= v_own:
        return out  # nothing better than the card as it is
    cn, r = opts[oi]
    new = {"points": int(pts[pi]), "catch_number": int(cn), "requirements": r}
    out["fields"] = {f: (";".join(x) if f == "requirements" else x) for f, x in new.items()
                     if x != own[f]}
    out.update(violation_after=float(v.ravel()[k]), difficulty_after=float(dd[oi]),
               fitted_after=float(curve(dd[oi])))
    return out


def _fmt_reqs(r) -> str:
    text = r if isinstance(r, str) else ";".join(r)
    return text or "none"


def _exact_why(cid: str, row: dict, fix: dict, tol: float) -> str:
    """Why a card was changed by :func:`exact_fix`, or why it could not be."""
    if not np.isfinite(fix["difficulty_before"]):
        head = f"{cid}: no dice loadout catches it (0% odds, difficulty infinite)"
    else:
        side = "over-valued" if row["points"] > fix["fitted_before"] else "under-valued"
        head = (f"{cid}: {side}: {row['points']} points where the curve gives "
                f"{fix['fitted_before']:.2f} at difficulty {fix['difficulty_before']:.2f} "
                f"(tolerance +-{tol:.2f})")
    if not fix["fields"]:
        return head
    what = ", ".join(f"{f} {_fmt_reqs(row[f]) if f == 'requirements' else row[f]} -> "
                     f"{_fmt_reqs(x) if f == 'requirements' else x}"
                     for f, x in fix["fields"].items())
    pts = fix["fields"].get("points", row["points"])
    where = ("" if set(fix["fields"]) == {"points"} else
             f" at the new difficulty {fix['difficulty_after']:.2f}")
    return (f"{head}; {what}: now {abs(pts - fix['fitted_after']):.2f} points from the "
            f"curve's {fix['fitted_after']:.2f}{where}")


def curve_fixes(deck: D.Deck, deep_waters: bool, curve: Curve, tolerance: float,
                constraints: Constraints, ids=None, odds: OptionOdds | None = None):
    """Apply :func:`exact_fix` to the changeable cards (or to ``ids`` among them) that violate
    the curve goal.

    Returns ``(new deck, fixes, unfixable)``: ``fixes`` a list of dicts (``id`` and the
    :func:`exact_fix` result plus ``why``, for every violating card, changed or not) and
    ``unfixable`` the ``(id, reason)`` pairs of the cards that still violate the goal after
    their best change (or cannot change at all). Raises ``ValueError`` from the deck format."""
    odds = odds or OptionOdds(deep_waters)
    cards, _ = card_table(deck, deep_waters)
    viol = curve_violation(cards["points"], cards["difficulty"], curve, tolerance)
    rows = deck.rows()
    todo = set(constraints.change if ids is None else ids) & set(constraints.change)
    fixes, unfixable = [], []
    for j, cid in enumerate(cards["id"]):
        if cid not in todo or viol[j] <= 0:
            continue
        i = deck.index(cid)
        fix = exact_fix(rows[i], curve, tolerance, constraints, odds)
        fix["id"] = cid
        fix["why"] = _exact_why(cid, rows[i], fix, tolerance)
        fixes.append(fix)
        rows[i] = {**rows[i], **fix["fields"]}
        if fix["violation_after"] > 0:
            unfixable.append((cid, _unfixable_reason(fix, constraints, tolerance)))
    return D.deck_from_rows(rows, source=deck.source), fixes, unfixable


def _unfixable_reason(fix: dict, c: Constraints, tol: float) -> str:
    lo, hi = c.points_range
    if not np.isfinite(fix["violation_after"]):
        if not {"catch_number", "requirements"} & set(c.fields):
            return ("nobody can catch it, and only " + ", ".join(c.fields) + " may change "
                    "(--fields): no number of points makes a card nobody can catch fair; "
                    "allow catch_number or requirements")
        return ("no allowed catch number or requirement set makes it catchable within the "
                "deck's range of difficulties")
    return (f"cannot be brought within +-{tol:.2f} of the curve under the constraints "
            f"(fields {', '.join(c.fields)}, points {lo}..{hi}): best {fix['violation_after']:.2f} "
            f"points off")


# ---------------------------------------------------------------- the win-diff goal
def _sim_arrays(sim: pd.DataFrame, ids, players) -> dict:
    """Per-card statistics of a :func:`simulate` frame as ``float64 (cards, players)``
    arrays: ``wd``, ``lo``, ``hi`` (fractions), ``in_play`` (games) and ``caught``
    (rate)."""
    idx = pd.MultiIndex.from_product([list(ids), list(players)], names=["id", "players"])
    r = sim.set_index(["id", "players"]).reindex(idx)
    shape = (len(ids), len(players))
    get = lambda c: r[c].to_numpy(np.float64).reshape(shape)  # noqa: E731
    return {"wd": get("win_diff"), "lo": get("win_diff_low"), "hi": get("win_diff_high"),
            "in_play": np.nan_to_num(get("in_play")), "caught": get("caught_rate")}


def _shifts(stats: dict, targets, tolerance_pp: float, by_estimate=None) -> np.ndarray:
    """Signed change of win diff (fraction) that brings each card's interval (or, for the cards
    of the mask ``by_estimate`` ``bool (cards,)``, its estimate) to the band: negative when it
    lies above, positive below, 0 inside, ``float64 (cards, players)``."""
    t = np.asarray(targets, np.float64)[None, :] / 100.0
    w = float(tolerance_pp) / 100.0
    wd = stats["wd"]
    in_play = stats["in_play"] > 0
    never = in_play & ~np.isfinite(wd)
    lo = np.where(never, 0.0, stats["lo"])
    hi = np.where(never, 0.0, stats["hi"])
    if by_estimate is not None:
        m = np.asarray(by_estimate, bool)[:, None]
        est = np.where(never, 0.0, wd)
        lo, hi = np.where(m, est, lo), np.where(m, est, hi)
    with np.errstate(invalid="ignore"):
        up = np.maximum(0.0, (t - w) - hi)
        down = np.minimum(0.0, (t + w) - lo)
    shift = np.where(up > 0, up, down)
    return np.where(in_play & np.isfinite(shift), shift, 0.0)


def win_diff_violation(stats: dict, targets, tolerance_pp: float, by_estimate=None
                       ) -> np.ndarray:
    """The win-diff goal's violation per card and player count, percentage points,
    ``float64 (cards, players)``: the distance from the card's 95% interval
    (``stats["lo"]``..``stats["hi"]``, fractions, ``(cards, players)``) to the band
    ``targets +- tolerance`` (``targets`` ``(players,)``, percentage points), 0 when they
    overlap or the card was never in play; a card in play but never caught counts as a win
    diff of 0. For the cards of the mask ``by_estimate`` (``bool (cards,)``: the candidates
    of a search, which must be brought *into* the band) the distance of the estimate
    ``stats["wd"]`` instead."""
    return 100.0 * np.abs(_shifts(stats, targets, tolerance_pp, by_estimate))


def _slope(stats: dict, points: np.ndarray) -> float:
    """Win diff gained per card point, the least-squares slope across the start deck's cards
    (mean over player counts), clipped to 0.005..0.06; 0.02 when it cannot be estimated."""
    slopes = []
    for k in range(stats["wd"].shape[1]):
        y = stats["wd"][:, k]
        ok = np.isfinite(y)
        if ok.sum() >= 2 and np.ptp(points[ok]) > 0:
            slopes.append(np.polyfit(points[ok].astype(float), y[ok], 1)[0])
    s = float(np.mean(slopes)) if slopes else 0.02
    return float(np.clip(s, 0.005, 0.06)) if np.isfinite(s) else 0.02


@dataclass
class _Study:
    """The win-diff search's fixed context."""

    start: D.Deck
    ids: list[str]
    players: list[int]
    deep: bool
    agents: list[str]
    n_games: int
    seed: int
    batch_size: int
    n_jobs: int
    tol: float
    targets: np.ndarray = field(default_factory=lambda: np.zeros(0))
    space: dict = field(default_factory=dict)          # param -> optuna distribution
    start_values: dict = field(default_factory=dict)   # param -> start value
    slope: float = 0.02
    run_dir: Path | None = None
    start_stats: dict = field(default_factory=dict)    # the start deck's, encoded
    mask: np.ndarray | None = None                      # bool (cards,): the candidates

    def deck(self, params: dict) -> D.Deck:
        """The start deck with the trial's ``params`` (``"ID:field" -> value``) applied."""
        rows = self.start.rows()
        for name, value in params.items():
            cid, f = name.split(":")
            rows[self.start.index(cid)][f] = value
        return D.deck_from_rows(rows, source=self.start.source)

    def evaluate(self, deck: D.Deck) -> dict:
        """:func:`_sim_arrays` of ``deck`` on the search's seeds (common random numbers)."""
        sim, _, _ = simulate(deck, self.players, self.deep, self.agents, self.n_games,
                             self.seed, n_jobs=self.n_jobs, batch_size=self.batch_size,
                             out_dir=self.run_dir, overwrite=True)
        return _sim_arrays(sim, self.ids, self.players)

    def cost(self, params: dict) -> tuple[int, float]:
        """``(changed cards, change cost)`` of ``params`` against the start deck."""
        changed, cost = set(), 0.0
        for name, value in params.items():
            s = self.start_values[name]
            if value != s:
                cid, f = name.split(":")
                changed.add(cid)
                step = abs(value - s) if f in ("points", "catch_number") else 1
                cost += FIELD_COST[f] * step
        return len(changed), CARD_COST * len(changed) + cost

    def score(self, params: dict, stats: dict) -> dict:
        """Violation (pp), changed cards, change cost and objective of a trial."""
        v = win_diff_violation(stats, self.targets, self.tol, self.mask)
        n_changed, cost = self.cost(params)
        return {"violation": float(v.sum()), "changed_cards": n_changed, "change_cost": cost,
                "objective": float(v.sum()) + PENALTY_PP * cost}


def _encode(stats: dict) -> dict:
    """The statistics a trial keeps in the journal (``wd``, ``lo``, ``hi`` rounded to 1e-6,
    ``in_play``), JSON-ready (NaN as ``None``)."""
    return {k: [[None if not np.isfinite(x) else round(float(x), 6) for x in row]
                for row in np.asarray(stats[k])] for k in ("wd", "lo", "hi", "in_play")}


def _decode(d: dict) -> dict:
    return {k: np.array([[np.nan if x is None else x for x in row] for row in v], np.float64)
            for k, v in d.items()}


def _space(ctx: _Study, stats: dict, constraints: Constraints) -> list[str]:
    """The optuna distributions of every changeable card's allowed fields; returns the
    candidates (changeable cards out of their band in the start deck), which set
    :attr:`_Study.mask`."""
    from optuna.distributions import CategoricalDistribution, IntDistribution

    v = win_diff_violation(stats, ctx.targets, ctx.tol).sum(axis=1)
    rows = ctx.start.rows()
    cands = []
    for j, cid in enumerate(ctx.ids):
        if cid not in constraints.change:
            continue
        never = bool(((stats["in_play"][j] > 0) & ~np.isfinite(stats["wd"][j])).all())
        if never and not {"catch_number", "requirements"} & set(constraints.fields):
            continue  # points cannot make a card that is never caught catchable
        if v[j] > 0:
            cands.append(cid)
        row = rows[ctx.start.index(cid)]
        for f in constraints.fields:
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
    ctx.mask = np.array([c in cands for c in ctx.ids])
    return cands


def _best(trials):
    return min(trials, key=lambda t: (float(t.value), t.number))


def _model_steps(ctx: _Study, best) -> list[dict]:
    """Proposals from the best trial: first every changeable card out of its band at once,
    then each of them alone (most out of band first), its points moved by the shift of win
    diff its estimate needs divided by :attr:`_Study.slope`, rounded away from zero (module
    docstring). A card too high at one player count and too low at another stays."""
    stats = _decode(best.user_attrs["stats"])
    shift = _shifts(stats, ctx.targets, ctx.tol, ctx.mask)
    moves = []
    for name, dist in ctx.space.items():
        cid, f = name.split(":")
        j = ctx.ids.index(cid)
        s = shift[j]
        if f != "points" or not s.any() or ((s > 0).any() and (s < 0).any()):
            continue
        need = float(s[np.argmax(np.abs(s))])
        step = int(math.copysign(math.ceil(abs(need) / ctx.slope - 1e-9), need))
        new = int(np.clip(best.params[name] + step, dist.low, dist.high))
        if new != best.params[name]:
            moves.append((-float(np.abs(s).sum()), name, new))
    moves.sort()
    every = [{**best.params, **{name: new for _, name, new in moves}}] if moves else []
    nudges = [{**best.params, name: best.params[name] + int(np.sign(new - best.params[name]))}
              for _, name, new in moves if abs(new - best.params[name]) > 1]
    return every + [{**best.params, name: new} for _, name, new in moves] + nudges


def _prune_steps(ctx: _Study, best, whole: bool = False) -> list[dict]:
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


def _proposals(ctx: _Study, trials):
    """Model steps and one-step prunes from each of the :data:`BEAM` best trials in turn,
    then whole-card prunes from them, as ``(params, role)`` pairs."""
    beam = sorted(trials, key=lambda t: (float(t.value), t.number))[:BEAM]
    for b in beam:
        yield from ((p, "model") for p in _model_steps(ctx, b))
        yield from ((p, "prune") for p in _prune_steps(ctx, b))
    for b in beam:
        yield from ((p, "prune") for p in _prune_steps(ctx, b, whole=True))


def _key_of(params: dict) -> str:
    return json.dumps(params, sort_keys=True)


def _run_search(ctx: _Study, study, n_trials: int, progress: bool) -> None:
    """Play trials until the study holds ``n_trials`` complete ones (module docstring)."""
    import optuna
    from optuna.trial import TrialState, create_trial

    from experiments.tournament.tune import N_STARTUP, _trial_seed

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
            cache[sha] = _encode(ctx.evaluate(deck))
        sc = ctx.score(params, _decode(cache[sha]))
        return {**sc, "deck_sha": sha, "stats": cache[sha],
                "eval_s": time.perf_counter() - t0}

    def add(params: dict, role: str) -> None:
        m = measure(params)
        study.add_trial(create_trial(params=params, distributions=ctx.space,
                                     value=m.pop("objective"),
                                     user_attrs={"role": role, **m}))

    def tell(trial) -> None:
        m = measure({n: trial.params[n] for n in ctx.space})
        for k, v in m.items():
            if k != "objective":
                trial.set_user_attr(k, v)
        study.tell(trial, m["objective"])

    # a trial cut short by a kill: finish it with its stored parameters
    for ft in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
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
            proposal, role = None, "tpe"
            if number % TPE_EVERY != 0:
                proposal, role = next(((p, r) for p, r in _proposals(ctx, trials)
                                       if _key_of(p) not in seen), (None, "tpe"))
            if proposal is not None:
                add(proposal, role)
            else:
                study.sampler = optuna.samplers.TPESampler(
                    seed=_trial_seed(ctx.seed, number), n_startup_trials=N_STARTUP,
                    multivariate=True)
                trial = study.ask(ctx.space)
                trial.set_user_attr("role", "tpe")
                tell(trial)
            trials = played()
            bar.update(1)
            bar.set_postfix(best=f"{_best(trials).value:.3f}")


def _trials_frame(trials, space: dict) -> pd.DataFrame:
    rows, best = [], np.inf
    for t in sorted(trials, key=lambda t: t.number):
        best = min(best, float(t.value))
        row = {"number": t.number, "role": t.user_attrs.get("role"), "objective": float(t.value),
               "violation_pp": t.user_attrs.get("violation"),
               "changed_cards": t.user_attrs.get("changed_cards"),
               "change_cost": t.user_attrs.get("change_cost"), "best_so_far": best}
        row.update({n: t.params.get(n) for n in space})
        rows.append(row)
    return pd.DataFrame(rows)


def _wd_text(stats: dict, j: int, k: int) -> str:
    if not np.isfinite(stats["wd"][j, k]):
        return "never caught"
    return (f"{100 * stats['wd'][j, k]:+.1f} [{100 * stats['lo'][j, k]:+.1f}, "
            f"{100 * stats['hi'][j, k]:+.1f}]")


def _win_diff_why(cid: str, j: int, before: dict, after: dict, targets, tol: float,
                  players) -> str:
    """Which player counts put the card out of its band, and the same player counts after the
    change, with numbers (percentage points, the search's games)."""
    v = win_diff_violation(before, targets, tol)[j]
    ks = [k for k in range(len(players)) if v[k] > 0]
    if not ks:  # pushed out of its band by the changes of other cards
        now = "; ".join(f"{n}p {_wd_text(after, j, k)}" for k, n in enumerate(players))
        was = "; ".join(f"{n}p {_wd_text(before, j, k)}" for k, n in enumerate(players))
        return (f"{cid}: catcher win advantage (pp, 95% interval) inside its band in the start "
                f"deck ({was}) but pushed out of it by the other changes; after its own "
                f"change, on the same games: {now}")
    parts = []
    for k in ks:
        band = f"band {targets[k] - tol:+.1f}..{targets[k] + tol:+.1f}"
        side = ("" if not np.isfinite(before["wd"][j, k]) else
                " above" if before["lo"][j, k] * 100 > targets[k] + tol else " below")
        parts.append(f"{players[k]}p{side}: {_wd_text(before, j, k)} vs {band}")
    now = "; ".join(f"{players[k]}p {_wd_text(after, j, k)}" for k in ks)
    return (f"{cid}: catcher win advantage (pp, 95% interval) out of its band: "
            + "; ".join(parts) + f"; after the change, on the same games: {now}")


# ---------------------------------------------------------------- the whole rebalance
@dataclass
class RebalanceResult:
    """What :func:`rebalance` returns.

    ``out`` (folder), ``goal`` (:class:`Goal`, tolerance resolved), ``constraints``,
    ``curve`` (:class:`Curve` of the original deck), ``original``, ``start`` (the original
    with the exact fixes of cards nobody can catch; the original for the curve goal) and
    ``proposed`` (:class:`engines.lure.decks.Deck`); ``changes`` (DataFrame, as
    ``changes.csv``: ``id, field, before, after, why``), ``unfixable`` (``[(id, reason)]``),
    ``targets`` (win-diff: ``{players: target pp}``), ``trials`` (win-diff: DataFrame as
    ``trials.csv``; else ``None``), ``best_trial``, ``verification`` (the report's numbers:
    see :func:`experiments.lure.rebalance_report.verify`), ``files``, ``wall_time_s`` (this
    call) and ``search_seconds`` (win-diff: seconds spent evaluating the trials, summed over
    every run of the study)."""

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

    @property
    def changed_ids(self) -> list[str]:
        """Ids of the changed cards, deck order."""
        ids = set(self.changes["id"]) if len(self.changes) else set()
        return [c for c in self.original.ids if c in ids]

    def summary(self) -> str:
        """Terminal text: what changed, what could not be fixed, the verification."""
        lines = [f"{len(self.changed_ids)} card(s) changed: "
                 + (", ".join(self.changed_ids) if self.changed_ids else "none")]
        for r in self.changes.itertuples():
            lines.append(f"  {r.id} {r.field}: {r.before} -> {r.after}")
        for cid, why in self.unfixable:
            lines.append(f"  {cid}: not fixed: {why}")
        v = self.verification.get("violating")
        if v:
            lines.append(f"cards off the goal on fresh seeds: {v['before']} before, "
                         f"{v['after']} after")
        return "\n".join(lines)


EXPERIMENT = "lure rebalance"
"""The experiment name :func:`experiments.outputs.claim_folder` compares."""
OUTPUT_FILES = ("deck.csv", "changes.csv", "cards.csv", "games.csv", "win_diff.png",
                "points_vs_difficulty.png", "scores.png", "seats.png", "game_length.png",
                "metadata.json", "report.md", "trials.csv")
"""The files a finished rebalance leaves in its folder (its ``study.journal`` is the search in
progress: a folder holding it resumes, or is refused by the study's own settings check)."""


def _run_settings(meta: dict) -> dict:
    """What determines a rebalance's result, from its ``metadata.json`` (or the same keys
    given now): the search settings, the trials wanted and the verification's games."""
    if not isinstance(meta.get("settings"), dict) or "verify_games" not in meta:
        return {"experiment": meta.get("experiment") or meta.get("kind") or "other"}
    return {"experiment": EXPERIMENT, "search": meta["settings"],
            "n_trials": meta["n_trials"], "verify_games": meta["verify_games"]}


@dataclass
class FinishedRebalance:
    """A finished rebalance of the same settings found in ``out`` (what :func:`rebalance`
    returns instead of running again): ``meta`` is its ``metadata.json``; :meth:`summary`
    reads its ``changes.csv``."""

    out: Path
    meta: dict

    def summary(self) -> str:
        """Terminal text: what changed, what could not be fixed, the verification, and that
        the answer comes from the folder."""
        changes = pd.read_csv(self.out / "changes.csv", dtype=str, keep_default_na=False)
        ids = list(dict.fromkeys(changes["id"]))
        lines = [f"{len(ids)} card(s) changed: " + (", ".join(ids) if ids else "none")]
        for r in changes.itertuples():
            lines.append(f"  {r.id} {r.field}: {r.before} -> {r.after}")
        for item in self.meta.get("unfixable") or []:
            cid, why = (item if isinstance(item, (list, tuple)) else (item, ""))[:2]
            lines.append(f"  {cid}: not fixed: {why}")
        v = self.meta.get("violating_cards_fresh_seeds")
        if isinstance(v, dict):
            lines.append(f"cards off the goal on fresh seeds: {v.get('before')} before, "
                         f"{v.get('after')} after")
        lines.append(f"answered from the finished rebalance in {self.out}/: nothing was "
                     "played; add --force to run it again")
        return "\n".join(lines)


def default_out_dir(deck: D.Deck, goal: str, deep_waters: bool) -> Path:
    """``results/lure/rebalance/<goal>_<base|deep_waters>``, prefixed with the deck file's
    stem for a deck that is not the shipped default."""
    tag = "deep_waters" if deep_waters else "base"
    stem = "" if deck.source == str(D.DEFAULT_DECK_PATH) else Path(deck.source).stem + "_"
    return Path("results") / "lure" / "rebalance" / f"{stem}{goal.replace('-', '_')}_{tag}"


def _changes(original: D.Deck, proposed: D.Deck, why: dict) -> pd.DataFrame:
    rows = []
    for a, b in zip(original.rows(), proposed.rows(), strict=True):
        for f in FIELDS:
            if str(a[f]) != str(b[f]):
                rows.append({"id": a["id"], "field": f, "before": a[f], "after": b[f],
                             "why": why.get(a["id"], "")})
    return pd.DataFrame(rows, columns=["id", "field", "before", "after", "why"])


def rebalance(deck: D.Deck | None = None, goal: str | Goal = "win-diff", *, tolerance=None,
              target=None, curve: str = "fit", players=(2, 3, 4, 5), deep_waters: bool = False,
              agents=("heuristic",), change=None, fields="points", points_range=None,
              requirements_whitelist=None, n_trials: int = 60, n_games: int = 4000,
              verify_games: int = 20000, seed: int = 0, n_jobs: int = 1,
              batch_size: int = 1000, out=None, overwrite: bool = False,
              progress: bool = False, plots: bool = True, command: str = ""
              ) -> RebalanceResult:
    """Search a deck that meets ``goal`` with the fewest and smallest changes, verify it on
    fresh seeds and write the report (module docstring; files:
    :func:`experiments.lure.rebalance_report.write_outputs`).

    Args:
        deck: the deck (default the shipped reconstruction).
        goal: ``"win-diff"``, ``"curve"`` or a :class:`Goal`; ``tolerance``, ``target``,
            ``curve``: see :func:`parse_goal` (percentage points for win-diff).
        players: player counts (2..5); ``deep_waters``; ``agents``: a Lure policy name or names
            cycled over the seats (search agents allowed: slow).
        change, fields, points_range, requirements_whitelist: see :func:`make_constraints`.
        n_trials: complete trials wanted in the win-diff study (the start counts; a resumed
            study plays only the missing ones); ``n_games``: games per player count per trial
            (>= 2); ``verify_games``: games per player count of each verification run.
        seed: the search's seed (the verification uses ``seed + 1``); ``n_jobs``,
            ``batch_size``: the runner's (the numbers depend on ``batch_size``, not ``n_jobs``).
        out: output folder (default :func:`default_out_dir`); ``overwrite``: start over when
            it holds a rebalance with other settings.
        progress: a progress bar over the trials; plots: write the PNGs (``False``: the
            tables and report only, faster); command: the command line for the metadata.

    Returns a :class:`RebalanceResult`. Raises a one-line ``ValueError`` for bad goals,
    constraints or sizes (before anything is written), a folder holding a rebalance with other
    settings (unless ``overwrite``), or a folder in use by another run.
    """
    from experiments.lure.balance import balance_cells
    from experiments.lure.rebalance_report import verify, write_outputs

    t_start = time.perf_counter()
    deck = deck if deck is not None else D.default_deck()
    g = goal if isinstance(goal, Goal) else parse_goal(goal, tolerance, target, curve)
    players = sorted({int(p) for p in players})
    agents = [agents] if isinstance(agents, str) else list(agents)
    balance_cells(deck, players, deep_waters, agents)  # validates players and agents
    n_trials = check_int(n_trials, "bad --trials")
    n_games = check_int(n_games, "bad --games", 2)
    verify_games = check_int(verify_games, "bad --verify-games")
    batch_size = check_int(batch_size, "bad --batch-size")
    seed = check_int(seed, "bad --seed", 0)
    cons = make_constraints(deck, deep_waters, g, change, fields, points_range,
                            requirements_whitelist)
    cards0, _ = card_table(deck, deep_waters)
    crv = fit_difficulty_curve(cards0, g.curve)
    if g.tolerance is None:
        g = Goal(g.kind, DEFAULT_WIN_TOLERANCE if g.kind == "win-diff" else crv.threshold,
                 g.target, g.curve)
    curve_tol = g.tolerance if g.kind == "curve" else crv.threshold
    out = Path(out) if out is not None else default_out_dir(deck, g.kind, deep_waters)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r} is a file: expected a folder")
    settings = {"algorithm": _ALGORITHM, "deck_sha256": deck.sha256(), "goal": g.to_dict(),
                "constraints": cons.to_dict(), "players": players,
                "deep_waters": bool(deep_waters), "agents": agents, "n_games": n_games,
                "seed": seed, "batch_size": batch_size,
                "costs": {"card": CARD_COST, "field": FIELD_COST, "penalty_pp": PENALTY_PP,
                          "cn_step": CN_STEP, "tpe_every": TPE_EVERY, "beam": BEAM}}
    from experiments.outputs import check_writable, claim_folder

    claim = claim_folder(out, experiment=EXPERIMENT, settings=_run_settings(
                             {"settings": settings, "n_trials": n_trials,
                              "verify_games": verify_games}),
                         outputs=OUTPUT_FILES, force=overwrite, legacy=_run_settings)
    if claim.finished:
        return FinishedRebalance(out, claim.meta)
    check_writable(out)
    odds = OptionOdds(deep_waters)
    with out_lock(out):
        if overwrite:
            for name in (STUDY_FILE, "metadata.json", "trials.csv"):
                (out / name).unlink(missing_ok=True)
            for name in (TRIAL_RUN_DIR, "_partial"):
                shutil.rmtree(out / name, ignore_errors=True)
        unfixable: list = []
        why: dict[str, str] = {}
        trials_df, best_number, targets, search_s = None, None, {}, None
        if g.kind == "curve":
            start = deck
            proposed, fixes, unfixable = curve_fixes(deck, deep_waters, crv, curve_tol, cons,
                                                     odds=odds)
            why = {f["id"]: f["why"] for f in fixes}
        else:
            nobody = [cid for cid, d in zip(cards0["id"], cards0["difficulty"], strict=True)
                      if not np.isfinite(d)]
            start, fixes, unfixable = curve_fixes(deck, deep_waters, crv, curve_tol, cons,
                                                  ids=nobody, odds=odds)
            why = {f["id"]: f["why"] for f in fixes}
            proposed, trials_df, best_number, targets, why_wd, search_s = _win_diff_search(
                start, cons, g, players, deep_waters, agents, n_games, seed, batch_size,
                n_jobs, n_trials, settings, out, progress)
            for cid, text in why_wd.items():
                why[cid] = (why[cid] + "; then " if cid in why else "") + text
        changes = _changes(deck, proposed, why)
        res = RebalanceResult(out, g, cons, crv, deck, start, proposed, changes, unfixable,
                              targets, trials_df, best_number, search_seconds=search_s)
        res.verification = verify(res, players, deep_waters, agents, verify_games, seed + 1,
                                  n_jobs, batch_size, out / "_partial", curve_tol)
        res.wall_time_s = time.perf_counter() - t_start
        res.files = write_outputs(res, settings, command, {
            "players": players, "deep_waters": bool(deep_waters), "agents": agents,
            "n_trials": n_trials, "n_games": n_games, "verify_games": verify_games,
            "seed": seed, "verify_seed": seed + 1, "batch_size": batch_size, "n_jobs": n_jobs,
            "curve_tolerance": curve_tol, "plots": bool(plots)})
    return res


def _win_diff_search(start, cons, g, players, deep, agents, n_games, seed, batch_size, n_jobs,
                     n_trials, settings, out, progress):
    """The optuna study of the win-diff goal. Returns ``(proposed deck, trials frame, best
    trial number, {players: target pp}, {id: why}, seconds evaluating trials)``."""
    import optuna

    from experiments.tournament.tune import _quiet_optuna, _settings_diff, _storage

    ids = [c for c in card_table(start, deep)[0]["id"]]
    ctx = _Study(start, ids, players, deep, agents, n_games, seed, batch_size, n_jobs,
                 float(g.tolerance), run_dir=out / TRIAL_RUN_DIR)
    with _quiet_optuna():
        study = optuna.create_study(storage=_storage(out / STUDY_FILE), study_name="rebalance",
                                    direction="minimize", load_if_exists=True)
        mine = json.loads(json.dumps(settings))
        stored = study.user_attrs.get("settings")
        if stored is None and study.trials:
            raise ValueError(f"{out / STUDY_FILE} holds a study without boardlab settings: "
                             f"choose another --out, or --force to start over")
        if stored is not None and stored != mine:
            raise ValueError(f"{out} holds a study with other settings "
                             f"({_settings_diff(stored, mine)}): use another --out, or --force "
                             f"to start over")
        if stored is None:
            study.set_user_attr("settings", mine)
        base = study.user_attrs.get("baseline")
        if base is None:  # the start deck on the search seeds: targets and candidates
            stats = ctx.evaluate(start)
            points = start.points[[start.index(c) for c in ids]].astype(float)
            tg = ([g.target] * len(players) if g.target is not None else
                  [float(np.nanmedian(stats["wd"][:, k]) * 100) for k in range(len(players))])
            base = {"stats": _encode(stats), "targets": tg, "slope": _slope(stats, points)}
            study.set_user_attr("baseline", base)
        stats0 = _decode(base["stats"])
        ctx.start_stats = base["stats"]
        ctx.targets = np.array(base["targets"], np.float64)
        ctx.slope = float(base["slope"])
        _space(ctx, stats0, cons)
        _run_search(ctx, study, n_trials, progress)
        shutil.rmtree(ctx.run_dir, ignore_errors=True)
        trials = study.get_trials(deepcopy=False,
                                  states=(optuna.trial.TrialState.COMPLETE,))
        best = _best(trials)
        proposed = ctx.deck(best.params)
        best_stats = _decode(best.user_attrs["stats"])
    why = {}
    for name in ctx.space:
        cid = name.split(":")[0]
        if best.params[name] != ctx.start_values[name] and cid not in why:
            j = ids.index(cid)
            why[cid] = _win_diff_why(cid, j, stats0, best_stats, ctx.targets, ctx.tol,
                                     players)
    targets = {int(n): float(t) for n, t in zip(players, ctx.targets, strict=True)}
    seconds = float(sum(t.user_attrs.get("eval_s", 0.0) for t in trials))
    return (proposed, _trials_frame(trials, ctx.space), int(best.number), targets, why,
            seconds)
