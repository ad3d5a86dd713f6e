"""Rebalance a Lure fish deck (``boardlab lure rebalance``) the way a designer would: change a
card only where the evidence is, the fewest cards and the fewest points, keep the points in the
order of the cards' difficulty, and say plainly what could not be met.

**Goals** (:class:`Goal`; rules: ``docs/rules/lure.md``, *Fish cards*):

* ``win-diff`` (``tolerance`` W in percentage points of win rate, default 5): at every chosen
  player count, every card's *catcher win advantage* (the balance report's ``win_diff``: the
  win rate of the player who caught it minus that of the other players of the same games,
  :func:`experiments.lure.balance.card_stats`) lies within its **band** ``target +- W``. The
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
  (:func:`experiments.lure.balance.difficulty`). The curve (:func:`fit_difficulty_curve`) is
  ``fit``, the balance report's **robust** quadratic (soft-l1 loss with the far-off cards set
  aside: :func:`experiments.lure.balance.fit_curve`; two broken cards do not move the other
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
from experiments.lure.balance import THRESHOLD_FLOOR, card_table, difficulty, fit_curve
from experiments.lure.defaults import DEFAULT_AGENTS, VERIFY_GAMES
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
    _Study,
    win_diff_search,
    win_diff_violation,
)
from experiments.lure.play_styles import STYLE_GAMES, style_table
from experiments.lure.rebalance_points import judge_points, points_off_reasons, recommendation
from experiments.lure.rebalance_stats import CORRECTIONS, inverted_pairs, order_bounds
from experiments.options import check_int

__all__ = ["GOALS", "CURVES", "FIELDS", "FIELD_COST", "CARD_COST", "CN_STEP", "METHODS",
           "CORRECTIONS", "EXIT_OFF_GOAL", "EXIT_NOT_RECOMMENDED", "exit_status", "Goal",
           "Constraints", "Curve", "RebalanceResult", "parse_goal",
           "parse_points_range", "parse_fields", "parse_whitelist", "make_constraints",
           "fit_difficulty_curve", "curve_violation", "OptionOdds", "exact_fix", "curve_fixes",
           "win_diff_violation", "rebalance", "default_out_dir"]

GOALS = ("points", "win-diff", "curve")
"""Goals of :func:`rebalance` (``points``, the default:
:mod:`experiments.lure.rebalance_points`)."""
CURVES = ("fit", "proportional")
"""Difficulty curves: the balance report's quadratic fit, or points proportional to D."""
FIELDS = ("points", "catch_number", "requirements", "splash")
"""Card fields a rebalance may change."""
_FIELD_ALIASES = {"points": "points", "pts": "points", "catch_number": "catch_number",
                  "cn": "catch_number", "catch": "catch_number", "requirements": "requirements",
                  "req": "requirements", "splash": "splash"}
DEEP_ONLY = ("special2", "odd", "even", "stubborn")
"""Requirement codes of the Deep Waters expansion."""
DEFAULT_WIN_TOLERANCE = 5.0
"""Default ``tolerance`` of the win-diff goal, percentage points."""
EXIT_OFF_GOAL = 3
"""Exit status of ``boardlab lure rebalance`` when some card is still off the goal on the
fresh seeds (0: every card meets it; 2: bad input; 4, :data:`EXIT_NOT_RECOMMENDED`: the
proposal is not better than the original deck, so no change is recommended)."""
from experiments.lure.rebalance_points import EXIT_NOT_RECOMMENDED  # noqa: E402
_ALGORITHM = "rebalance-2"


# ---------------------------------------------------------------- goal and constraints
@dataclass(frozen=True)
class Goal:
    """The designer's goal: ``kind`` (:data:`GOALS`), ``tolerance`` (win-diff: percentage
    points of win rate; points and curve: card points; ``None``: the default), ``target``
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


def parse_goal(kind: str = "points", tolerance=None, target=None, curve: str = "fit") -> Goal:
    """Validate a goal (see the module docstring).

    Raises:
        ValueError: one line naming the option as typed: an unknown ``--goal`` or ``--curve``,
            a ``--tolerance`` that is not a number in (0, 100] (percentage points for win-diff,
            card points for curve), a ``--target`` that is not ``median`` or a number in
            -100..100, or a ``--target`` given with another goal than win-diff.
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
            raise ValueError(f"--target {target!r} applies to --goal win-diff only (the "
                             f"{k} goal's target is the curve)")
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
    if goal.kind != "win-diff" and flds == ("splash",):
        raise ValueError(f"bad --fields 'splash' for --goal {goal.kind}: splash icons do not "
                         "change the catch odds; allow points, catch_number or requirements")
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
    (numpy polynomial, highest power first), ``scale`` (card points: the residuals' robust
    sigma for ``fit``, :func:`experiments.lure.balance.fit_curve`; their RMSE for
    ``proportional``), ``threshold`` (the balance report's flag threshold
    ``max(2, 1.5 x scale)``), ``d_low``/``d_high``, the range of difficulties it was fitted on
    (it is not used outside), and ``outliers`` (cards the robust fit set aside)."""

    kind: str
    coefficients: tuple[float, ...]
    scale: float
    threshold: float
    d_low: float
    d_high: float
    outliers: tuple[str, ...] = ()

    def __call__(self, d) -> np.ndarray:
        """Fitted points (float64, shape of ``d``); NaN where ``d`` is infinite."""
        d = np.asarray(d, dtype=np.float64)
        ok = np.isfinite(d)
        return np.where(ok, np.polyval(self.coefficients, np.where(ok, d, 0.0)), np.nan)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"kind": self.kind, "coefficients": list(self.coefficients),
                "scale": self.scale, "threshold": self.threshold,
                "difficulty_range": [self.d_low, self.d_high], "outliers": list(self.outliers)}


def fit_difficulty_curve(cards: pd.DataFrame, kind: str = "fit") -> Curve:
    """The curve of points on difficulty over the catchable cards of ``cards`` (a
    :func:`experiments.lure.balance.card_table` frame: ``id``, ``difficulty``, ``points``).

    ``"fit"``: :func:`experiments.lure.balance.add_fit`'s robust quadratic (soft-l1 loss, the
    cards more than 3 robust sigmas off set aside and refitted: two broken cards do not move
    the other cards' fair points); ``"proportional"``: ``points = k x D`` with
    ``k = sum(D p) / sum(D^2)``.

    Raises:
        ValueError: an unknown kind, or too few catchable cards (fewer than 4 for ``fit``,
            none with ``D > 0`` for ``proportional``).
    """
    from experiments.lure.balance import add_fit

    d = cards["difficulty"].to_numpy(np.float64)
    p = cards["points"].to_numpy(np.float64)
    ok = np.isfinite(d)
    outliers: tuple[str, ...] = ()
    if kind == "fit":
        if ok.sum() < 4:
            fit_curve(d, p)  # the one-line error
        _, fit = add_fit(cards[["id", "difficulty", "points"]] if "id" in cards else
                         cards[["difficulty", "points"]])
        coef, scale, outliers = np.array(fit["coefficients"]), fit["scale"], fit["outliers"]
    elif kind == "proportional":
        den = float((d[ok] ** 2).sum())
        if den <= 0:
            raise ValueError("no catchable card with a difficulty above 0: points "
                             "proportional to difficulty cannot be fitted")
        coef = np.array([float((d[ok] * p[ok]).sum()) / den, 0.0])
        scale = float(np.sqrt(np.mean((p[ok] - np.polyval(coef, d[ok])) ** 2)))
    else:
        raise ValueError(f"bad --curve {kind!r}: expected one of {', '.join(CURVES)}")
    return Curve(kind, tuple(float(c) for c in coef), float(scale),
                 max(THRESHOLD_FLOOR, 1.5 * float(scale)), float(d[ok].min()), float(d[ok].max()),
                 tuple(outliers))


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
              odds: OptionOdds, order=None) -> dict:
    """The least-cost change of one card (a deck row) that brings its points within
    ``tolerance`` of ``curve`` at its difficulty, from the exact odds.

    Options: points in the range (when points may change), every catch number 0..66 (when
    catch numbers may change), the card's own requirements or a whitelisted set (when
    requirements may change); a changed catch number or requirement set must give a
    difficulty inside the curve's range. Chosen lexicographically: least violation, fewest
    fields changed, least :data:`FIELD_COST` cost.

    ``order``: ``None`` (``--allow-reorder``) or ``(j, difficulty, points, allowed)``: the
    card's index ``j`` in the deck's arrays ``difficulty``/``points`` ``float64 (cards,)`` and
    the original deck's inversions ``allowed`` ``bool (cards, cards)``: a changed card may not
    make a new pair out of order (:func:`experiments.lure.rebalance_stats.order_bounds`).

    Returns a dict: ``fields`` (the new values of the changed fields; empty: no change),
    ``violation_before``/``violation_after`` (card points beyond the tolerance's edge,
    ``inf`` for a card nobody can catch), ``difficulty_before``/``difficulty_after``,
    ``fitted_before``/``fitted_after``, ``held_by_order`` (the order constraint kept it from a
    smaller violation) and ``order_bounds`` (the points the order allows at its difficulty).
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
    v_free = v.copy()
    if order is not None:
        j, d_all, p_all, allowed = order
        bounds = np.array([order_bounds(j, x, d_all, p_all, allowed) for x in dd])
        fits = (pts[None, :] >= bounds[:, :1]) & (pts[None, :] <= bounds[:, 1:])
        keep = fits | (is_own[:, None] & (pts == own["points"])[None, :])
        v = np.where(keep, v, np.inf)
    cn_arr = np.array([cn for cn, _ in opts])
    req_changed = np.array([r != own["requirements"] for _, r in opts])
    n_fields = ((cn_arr != own["catch_number"]).astype(int)[:, None] + req_changed[:, None]
                + (pts != own["points"])[None, :])
    cost = (FIELD_COST["catch_number"] * np.abs(cn_arr - own["catch_number"])[:, None]
            + FIELD_COST["requirements"] * req_changed[:, None]
            + FIELD_COST["points"] * np.abs(pts - own["points"])[None, :])
    k = int(np.lexsort((cost.ravel(), n_fields.ravel(), v.ravel()))[0])
    oi, pi = divmod(k, len(pts))
    v_own = float(curve_violation(own["points"], d_own, curve, tolerance))
    best_free = float(v_free.min()) if v_free.size else np.inf
    out = {"fields": {}, "violation_before": v_own, "violation_after": v_own,
           "difficulty_before": d_own, "difficulty_after": d_own,
           "fitted_before": float(curve(d_own)), "fitted_after": float(curve(d_own)),
           "held_by_order": False, "order_bounds": None}
    if order is not None:
        out["order_bounds"] = order_bounds(order[0], d_own, order[1], order[2], order[3])
    if not np.isfinite(v.ravel()[k]) or v.ravel()[k] >= v_own:
        out["held_by_order"] = bool(best_free < min(v_own, float(v.ravel()[k])) - 1e-9)
        return out  # nothing better than the card as it is
    cn, r = opts[oi]
    new = {"points": int(pts[pi]), "catch_number": int(cn), "requirements": r}
    out["fields"] = {f: (";".join(x) if f == "requirements" else x) for f, x in new.items()
                     if x != own[f]}
    out.update(violation_after=float(v.ravel()[k]), difficulty_after=float(dd[oi]),
               fitted_after=float(curve(dd[oi])),
               held_by_order=bool(best_free < float(v.ravel()[k]) - 1e-9))
    if order is not None:
        out["order_bounds"] = order_bounds(order[0], float(dd[oi]), order[1], order[2], order[3])
    return out


def _fmt_reqs(r) -> str:
    text = r if isinstance(r, str) else ";".join(r)
    return text or "none"


def _exact_why(cid: str, row: dict, fix: dict, tol: float) -> str:
    """Why a card was changed by :func:`exact_fix`, or why it could not be."""
    if not np.isfinite(fix["difficulty_before"]):
        head = f"{cid}: no dice loadout catches it (0% odds, difficulty infinite)"
    else:
        side = ("too many points" if row["points"] > fix["fitted_before"] else
                "too few points")
        head = (f"{cid}: {side} for what it takes to catch it: {row['points']} points where "
                f"the curve gives {fix['fitted_before']:.2f} at difficulty "
                f"{fix['difficulty_before']:.2f} (tolerance +-{tol:.2f})")
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
                constraints: Constraints, ids=None, odds: OptionOdds | None = None,
                allow_reorder: bool = False):
    """Apply :func:`exact_fix` to the changeable cards (or to ``ids`` among them) that violate
    the curve goal, in deck order, each under the order constraint against the deck as changed
    so far (unless ``allow_reorder``).

    Returns ``(new deck, fixes, unfixable)``: ``fixes`` a list of dicts (``id`` and the
    :func:`exact_fix` result plus ``why``, for every violating card, changed or not) and
    ``unfixable`` the ``(id, reason)`` pairs of the cards that still violate the goal after
    their best change (or cannot change at all). Raises ``ValueError`` from the deck format."""
    odds = odds or OptionOdds(deep_waters)
    cards, _ = card_table(deck, deep_waters)
    viol = curve_violation(cards["points"], cards["difficulty"], curve, tolerance)
    rows = deck.rows()
    todo = set(constraints.change if ids is None else ids) & set(constraints.change)
    d_cur = cards["difficulty"].to_numpy(np.float64).copy()
    p_cur = cards["points"].to_numpy(np.float64).copy()
    allowed = inverted_pairs(d_cur, p_cur)
    fixes, unfixable = [], []
    for j, cid in enumerate(cards["id"]):
        if viol[j] <= 0:
            continue
        if cid not in todo:
            if ids is None:
                unfixable.append((cid, "held by --change: not among the cards that may "
                                       "change"))
            continue
        i = deck.index(cid)
        order = None if allow_reorder else (j, d_cur, p_cur, allowed)
        fix = exact_fix(rows[i], curve, tolerance, constraints, odds, order=order)
        fix["id"] = cid
        fix["why"] = _exact_why(cid, rows[i], fix, tolerance)
        fixes.append(fix)
        rows[i] = {**rows[i], **fix["fields"]}
        d_cur[j] = fix["difficulty_after"]
        p_cur[j] = fix["fields"].get("points", p_cur[j])
        if fix["violation_after"] > 0:
            unfixable.append((cid, _unfixable_reason(fix, constraints, tolerance)))
    if not allow_reorder:  # a card held by the order may be freed by the cards fixed after it
        _retry_held(deck, cards, rows, fixes, unfixable, d_cur, p_cur, allowed, curve,
                    tolerance, constraints, odds)
    return D.deck_from_rows(rows, source=deck.source), fixes, unfixable


def _retry_held(deck, cards, rows, fixes, unfixable, d_cur, p_cur, allowed, curve, tolerance,
                constraints, odds, passes: int = 2) -> None:
    """Second passes of :func:`curve_fixes` (in place): a card the order constraint held in
    deck order (a harder card still below its wanted points) is fixed again against the deck
    as changed since, while that brings it nearer the curve; at most ``passes`` passes."""
    index = {cid: j for j, cid in enumerate(cards["id"])}
    for _ in range(passes):
        moved = False
        for fix in fixes:
            if not fix["held_by_order"] or fix["violation_after"] <= 0:
                continue
            cid = fix["id"]
            j, i = index[cid], deck.index(cid)
            again = exact_fix(rows[i], curve, tolerance, constraints, odds,
                              order=(j, d_cur, p_cur, allowed))
            if not again["fields"] or again["violation_after"] >= fix["violation_after"] - 1e-9:
                continue
            moved = True
            rows[i] = {**rows[i], **again["fields"]}
            d_cur[j] = again["difficulty_after"]
            p_cur[j] = again["fields"].get("points", p_cur[j])
            fix["fields"] = {**fix["fields"], **again["fields"]}
            fix["why"] += (f"; once the cards after it were fixed, points -> {int(p_cur[j])}: now "
                           f"{abs(p_cur[j] - again['fitted_after']):.2f} points from the "
                           f"curve's {again['fitted_after']:.2f}")
            for key in ("violation_after", "difficulty_after", "fitted_after", "held_by_order",
                        "order_bounds"):
                fix[key] = again[key]
            unfixable[:] = [u for u in unfixable if u[0] != cid]
            if fix["violation_after"] > 0:
                unfixable.append((cid, _unfixable_reason(fix, constraints, tolerance)))
        if not moved:
            return


def _unfixable_reason(fix: dict, c: Constraints, tol: float) -> str:
    """Why a card stays off the curve goal: the constraint that holds it, in words."""
    lo, hi = c.points_range
    if not np.isfinite(fix["violation_after"]):
        if not {"catch_number", "requirements"} & set(c.fields):
            return ("nobody can catch it, and only " + ", ".join(c.fields) + " may change "
                    "(--fields): no number of points makes a card nobody can catch fair; "
                    "allow catch_number or requirements")
        return ("no allowed catch number or requirement set makes it catchable within the "
                "deck's range of difficulties")
    if fix.get("held_by_order"):
        b_lo, b_hi = fix["order_bounds"] or (-np.inf, np.inf)
        allowed = (f"{b_lo:g}..{b_hi:g}" if np.isfinite(b_lo) and np.isfinite(b_hi) else
                   f"at least {b_lo:g}" if np.isfinite(b_lo) else f"at most {b_hi:g}")
        return (f"held by the order constraint: points must stay {allowed} so that no easier "
                f"card is worth more (--allow-reorder lifts it); best "
                f"{fix['violation_after']:.2f} points beyond the band's edge (curve "
                f"+-{tol:.2f})")
    return (f"held by --fields {','.join(c.fields)} / --points-range {lo}..{hi}: it cannot be "
            f"brought within +-{tol:.2f} of the curve")


# ---------------------------------------------------------------- the whole rebalance
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
        out: output folder (default :func:`default_out_dir`); ``overwrite``: start over when
            it holds a rebalance with other settings.
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
    from experiments.lure.balance import balance_cells

    t_start = time.perf_counter()
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
    a = _number(alpha, "--alpha")
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
    out = Path(out) if out is not None else default_out_dir(deck, g.kind, deep_waters)
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
    from experiments.outputs import check_writable, claim_folder

    claim = claim_folder(out, experiment=EXPERIMENT, settings=_run_settings(run_keys),
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
        trials_df, best_number, targets, search_s, screen = None, None, {}, None, {}
        if g.kind != "win-diff":
            start = deck
            proposed, fixes, unfixable = curve_fixes(deck, deep_waters, crv, curve_tol, cons,
                                                     odds=odds, allow_reorder=allow_reorder)
            why = {f["id"]: f["why"] for f in fixes if f["fields"]}
        else:
            nobody = [cid for cid, d in zip(cards0["id"], cards0["difficulty"], strict=True)
                      if not np.isfinite(d)]
            start, fixes, unfixable = curve_fixes(deck, deep_waters, crv, curve_tol, cons,
                                                  ids=nobody, odds=odds,
                                                  allow_reorder=allow_reorder)
            why = {f["id"]: f["why"] for f in fixes if f["fields"]}
            found = win_diff_search(start, cons, g, players, deep_waters, agents, n_games,
                                    seed, batch_size, n_jobs, n_trials, settings, out,
                                    progress, method=method, correction=correction, alpha=a,
                                    allow_reorder=allow_reorder, odds=odds,
                                    screen_games=screen_games)
            proposed, trials_df = found["proposed"], found["trials"]
            best_number, targets = found["best_trial"], found["targets"]
            search_s, screen = found["seconds"], {**found["screen"], "held": found["held"]}
            for cid, text in found["why"].items():
                why[cid] = (why[cid] + "; then " if cid in why else "") + text
        changes = _changes(deck, proposed, why)
        res = RebalanceResult(out, g, cons, crv, deck, start, proposed, changes, unfixable,
                              targets, trials_df, best_number, search_seconds=search_s,
                              screen=screen)
        res.verification = verify(res, players, deep_waters, agents, verify_games, seed + 1,
                                  n_jobs, batch_size, out / "_partial", curve_tol,
                                  correction=correction, alpha=a,
                                  compare_agents=cmp_agents, compare_games=compare_games)
        if g.kind == "points":
            res.verification = judge_points(res, res.verification, players, deep_waters,
                                            agents, verify_games, seed + 1, out / "_partial",
                                            curve_tol, n_jobs=n_jobs, batch_size=batch_size,
                                            overwrite=True)
        res.verification["off_goal_after"] = (points_off_reasons(res) if g.kind == "points"
                                              else off_goal_reasons(res))
        if styles_games:
            res.styles = style_table({"before": deck, "after": proposed}, deep_waters,
                                     styles_games, seed + 1, out / "_partial",
                                     n_jobs=n_jobs, batch_size=min(batch_size, styles_games),
                                     overwrite=True)
        res.recommendation = recommendation(res, res.styles)
        res.wall_time_s = time.perf_counter() - t_start
        res.files = write_outputs(res, settings, command, {
            "players": players, "deep_waters": bool(deep_waters), "agents": agents,
            "n_trials": n_trials, "n_games": n_games, "verify_games": verify_games,
            "screen_games": screen_games if g.kind == "win-diff" else None,
            "seed": seed, "verify_seed": seed + 1, "batch_size": batch_size, "n_jobs": n_jobs,
            "curve_tolerance": curve_tol, "plots": bool(plots), "method": method,
            "correction": correction, "alpha": a, "allow_reorder": bool(allow_reorder),
            "confirm_seed": seed + 2, "styles_games": styles_games,
            **({"compare": run_keys["compare"]} if cmp_agents else {})})
        from experiments.outputs import finish_partial

        for name in (TRIAL_RUN_DIR, "_partial"):  # runner state: a finished folder holds results
            finish_partial(out, name)
    return res
