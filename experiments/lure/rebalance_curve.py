"""The curve goal of a Lure rebalance and the exact fixes (see
:mod:`experiments.lure.rebalance`, "Cards nobody can catch" and "Search, curve goal"): the
difficulty curve (:func:`fit_difficulty_curve`), each card's options from the exact odds
(:class:`OptionOdds`), the least-cost change that puts a card on the curve (:func:`exact_fix`)
and the separable, exact search over the deck (:func:`curve_fixes`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D
from experiments.lure.curve import fit_curve
from experiments.lure.defaults import THRESHOLD_FLOOR
from experiments.lure.odds import card_table, difficulty
from experiments.lure.rebalance_measures import (
    FIELD_COST,
    curve_violation,
)
from experiments.lure.rebalance_stats import inverted_pairs, order_bounds

from experiments.lure.rebalance_goal import CURVES, Constraints

__all__ = ["Curve", "fit_difficulty_curve", "OptionOdds", "exact_fix", "curve_fixes"]


@dataclass(frozen=True)
class Curve:
    """Points as a function of difficulty: ``kind`` (:data:`CURVES`), ``coefficients``
    (numpy polynomial, highest power first), ``scale`` (card points: the residuals' robust
    sigma for ``fit``, :func:`experiments.lure.curve.fit_curve`; their RMSE for
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
    :func:`experiments.lure.odds.card_table` frame: ``id``, ``difficulty``, ``points``).

    ``"fit"``: :func:`experiments.lure.curve.add_fit`'s robust quadratic (soft-l1 loss, the
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
    (:func:`engines.dice.exact_table` and :func:`experiments.lure.odds.difficulty`),
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
