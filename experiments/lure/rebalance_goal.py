"""The goal and the constraints of a Lure rebalance (``boardlab lure rebalance``; see
:mod:`experiments.lure.rebalance`, "Goals" and "Constraints"): :func:`parse_goal`,
:func:`make_constraints` and the option parsers, each raising a one-line ``ValueError`` naming
the option."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path


from engines import dice
from engines.lure import decks as D

__all__ = ["GOALS", "CURVES", "FIELDS", "DEEP_ONLY", "DEFAULT_WIN_TOLERANCE", "Goal",
           "parse_number", "parse_goal", "Constraints", "parse_points_range", "parse_fields",
           "parse_whitelist", "make_constraints"]

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


def parse_number(value, option: str) -> float | None:
    """``value`` (a number or its text) as a ``float``, ``None`` for ``None``; a one-line
    ``ValueError`` naming ``option`` for anything else."""
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
    tol = parse_number(tolerance, "--tolerance")
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
        tgt = parse_number(target, "--target")
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
