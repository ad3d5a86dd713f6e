"""One fish card at a time: the designer's everyday questions, answered from the exact odds.

``boardlab lure card SPEC`` (:func:`card_report`) takes a proposed card, or a change to a card of
the deck, written as a short *card spec*::

    "cn=14; pair"                 a new card: catch number 14, requirement pair
    "cn=20; has:1,5; points=6"    a new card with its points
    "B17: points=7"               card B17 of the deck with 7 points instead of its own
    "B29"                         card B29 of the deck as it is
    "B05: cn=8; req="             B05 with catch number 8 and no requirement

Items are separated by ``;``; ``KEY=VALUE`` sets a column of the deck file (``points``/``pts``,
``catch_number``/``cn``, ``requirements``/``req`` (replaces all), ``splash``, ``trophy``,
``set``, ``name``); a bare requirement code (``pair``, ``distinct``, ``lure``, ``no_lure``,
``special2``, ``odd``, ``even``, ``stubborn``, ``has:V[,V...]``) adds that requirement. A new
card's other columns default to no splash icon, no trophy, the base set and 0 points.

It prints the card's exact catch probability for every standard loadout (number of d6 by
special dice, without lure tokens and with the best use of them; the whole table per lure plan
goes to ``--csv``), its difficulty ``D = -ln(mean catch probability over every loadout)``, and
the points the *current* deck's points-vs-difficulty curve gives that difficulty (the fit of
:func:`experiments.lure.curve.add_fit` over the deck without the proposed card, or with the
changed card as it was), with the flag the balance report would give the card.
``boardlab lure balance --what-if SPEC`` re-runs the whole report with the card changed
(:func:`apply_card_spec` builds that deck). Rules: ``docs/rules/lure.md``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D

__all__ = ["CardChange", "parse_card_spec", "apply_card_spec", "card_report", "format_report"]

KEYS = {"points": "points", "pts": "points", "catch_number": "catch_number",
        "cn": "catch_number", "catch": "catch_number", "requirements": "requirements",
        "req": "requirements", "splash": "splash", "trophy": "trophy", "set": "set",
        "name": "name"}
"""Keys of a card spec (aliases) -> the deck file's column."""
NEW_ID = "NEW"
"""Id given to a proposed new card."""


@dataclass(frozen=True)
class CardChange:
    """A parsed card spec: ``card_id`` (an existing card to change, or ``None`` for a new
    card), ``fields`` (column -> text value set by ``KEY=VALUE``) and ``add_requirements``
    (codes given bare, added to the card's requirements)."""

    card_id: str | None
    fields: dict
    add_requirements: tuple[str, ...]


def parse_card_spec(text: str) -> CardChange:
    """Read a card spec (module docstring). Raises ``ValueError`` naming the item that is not
    ``KEY=VALUE`` with a known key or a requirement code."""
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"bad card spec {text!r}: expected e.g. 'cn=14; pair' or "
                         "'B17: points=7'")
    card_id = None
    m = re.match(r"\s*([A-Za-z0-9_-]+)\s*:(?!\d)\s*(.*)$", text)
    bare = re.fullmatch(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*", text)
    if m and "=" not in m.group(1) and not m.group(1).lower().startswith("has"):
        card_id, text = m.group(1), m.group(2)
    elif bare and bare.group(1).lower() not in dice.REQUIREMENT_FLAGS:
        card_id, text = bare.group(1), ""  # a deck card as it is: "B29" = "B29:"
    fields: dict = {}
    adds: list[str] = []
    for item in (t.strip() for t in text.split(";")):
        if not item:
            continue
        if "=" in item:
            key, _, value = (s.strip() for s in item.partition("="))
            col = KEYS.get(key.lower())
            if col is None:
                raise ValueError(f"bad card spec item {item!r}: unknown key {key!r}; expected "
                                 f"one of {', '.join(sorted(KEYS))}")
            fields[col] = value
        else:
            code = item.lower()
            known = code.startswith("has:") or code in dice.REQUIREMENT_FLAGS
            if not known:
                codes = ", ".join(sorted(dice.REQUIREMENT_FLAGS))
                raise ValueError(f"bad card spec item {item!r}: expected KEY=VALUE or a "
                                 f"requirement code ({codes}, has:V)")
            adds.append(code)
    if card_id is None and "catch_number" not in fields:
        raise ValueError(f"bad card spec {text!r}: a new card needs a catch number (cn=...)")
    return CardChange(card_id, fields, tuple(adds))


def apply_card_spec(deck: D.Deck, spec: str | CardChange) -> tuple[D.Deck, str, dict | None]:
    """The deck with the card spec applied: ``(new deck, card id, old row or None)``. A new
    card is added as :data:`NEW_ID`; a change replaces the named card's columns. Raises
    ``ValueError`` for an unknown card id or a field the deck file format refuses (named)."""
    ch = parse_card_spec(spec) if isinstance(spec, str) else spec
    rows = deck.rows()
    if ch.card_id is not None:
        i = deck.index(ch.card_id)
        old = dict(rows[i])
        row = dict(old)
    else:
        if NEW_ID in deck.ids:
            raise ValueError(f"the deck already has a card {NEW_ID!r}: name the card to change")
        old = None
        row = {"id": NEW_ID, "name": "proposed card", "points": 0, "catch_number": 0,
               "requirements": "", "splash": "", "trophy": "", "set": "base"}
        rows.append(row)
        i = len(rows) - 1
    row.update(ch.fields)
    if ch.add_requirements:
        reqs = [r for r in D.parse_requirements(str(row["requirements"]))]
        row["requirements"] = ";".join(reqs + list(ch.add_requirements))
    rows[i] = row
    try:
        new = D.deck_from_rows(rows, source=f"card spec {str(spec)!r}")
    except ValueError as exc:  # the row number of the file format means nothing here
        raise ValueError(re.sub(r": row \d+, column", ": column", str(exc))) from None
    return new, row["id"], old


def _loadout_matrix(t: np.ndarray, plan_of, specs) -> pd.DataFrame:
    """P(catch) by number of d6 (rows 0..5) and special dice (columns) for one plan choice."""
    from experiments.lure.odds import SPEC_LABELS

    return pd.DataFrame([[plan_of(t[n6, s]) for s in specs] for n6 in range(6)],
                        index=pd.Index([f"{n6}d6" for n6 in range(6)], name="dice"),
                        columns=[SPEC_LABELS[s] or "-" for s in specs])


def card_report(deck: D.Deck, spec: str, deep_waters: bool = False) -> dict:
    """Exact odds and the curve's fair points of the card described by ``spec`` against
    ``deck``.

    Returns a dict: ``card`` (the card's row), ``context`` (``"none"`` or ``"boost"``: the
    plan its requirements imply), ``no_tokens`` and ``best_tokens`` (``DataFrame`` 6 x
    special-dice sets of P(catch), float64: the card's lure context, and the best lure plan per
    loadout), ``long`` (every loadout and plan: ``dice, special, plan, loadout, p``),
    ``difficulty``, ``fair_points`` (the current deck's curve at that difficulty, rounded; NaN
    for an uncatchable card), ``fitted_points`` (unrounded), ``flag`` (what the balance report
    would say of the card's points: ``over-valued``, ``under-valued``, ``uncatchable`` or
    ``""``), ``threshold`` (card points: ``max(2, 1.5 x scale)``), ``scale`` (the robust
    sigma of the curve's residuals, card points: 1.4826 x their median absolute size, the
    robust fit's, :func:`experiments.lure.curve.fit_curve`) and ``old`` (the changed card's
    row before, or ``None``).
    Raises ``ValueError`` for a bad spec (see :func:`parse_card_spec`)."""
    from experiments.lure.curve import add_fit, fit_curve
    from experiments.lure.odds import card_table, spec_list

    new_deck, cid, old = apply_card_spec(deck, spec)
    cards, table = card_table(new_deck, deep_waters or _is_deep(new_deck, cid))
    j = int(np.flatnonzero(cards["id"].to_numpy() == cid)[0])
    row = cards.iloc[j]
    others = cards.drop(index=j)
    if old is not None:  # the curve of the deck as it is: the changed card as it was
        ref, _ = card_table(deck, deep_waters or _is_deep(new_deck, cid))
        others = ref
    coef, _, scale = fit_curve(others["difficulty"], others["points"])
    fit = add_fit(others)[1]
    d = float(row["difficulty"])
    fitted = float(np.polyval(coef, d)) if np.isfinite(d) else np.nan
    thr = fit["threshold"]
    flag = ("uncatchable" if not np.isfinite(d) else
            "over-valued" if row["points"] - fitted >= thr else
            "under-valued" if row["points"] - fitted <= -thr else "")
    t = table[j]
    specs = spec_list(deep_waters or _is_deep(new_deck, cid))
    ctx = dice.PLAN_FLAG if row["lure_context"] == "boost" else dice.PLAN_NONE
    long = pd.DataFrame([(n6, s, dice.PLAN_NAMES[p], dice.plan_loadout(n6, s, p).label(),
                          float(t[n6, s, p]))
                         for n6 in range(6) for s in specs for p in range(dice.N_PLANS)],
                        columns=["dice", "special", "plan", "loadout", "p"])
    return {"card": row, "context": row["lure_context"],
            "no_tokens": _loadout_matrix(t, lambda v: float(v[ctx]), specs),
            "best_tokens": _loadout_matrix(t, lambda v: float(v.max()), specs),
            "long": long, "difficulty": d, "fitted_points": fitted,
            "fair_points": float(np.round(fitted)) if np.isfinite(fitted) else np.nan,
            "flag": flag, "threshold": thr, "scale": scale, "old": old,
            "points_given": old is not None or "points" in _change(spec).fields}


def _change(spec) -> CardChange:
    return parse_card_spec(spec) if isinstance(spec, str) else spec


def _is_deep(deck: D.Deck, cid: str) -> bool:
    return deck.info[deck.index(cid), D.I_SET] != D.SET_BASE


def _points(n) -> str:
    return f"{n} point" + ("" if str(n).strip() == "1" else "s")


def format_report(rep: dict) -> str:
    """The terminal text of :func:`card_report`."""
    r = rep["card"]
    head = (f"{r['id']}: {_points(r['points'])}, catch number {r['catch_number']}"
            + (f", requirements {r['requirements']}" if r["requirements"] else "")
            + f" ({r['set']})")
    lines = [head]
    if rep["old"] is not None:
        o = rep["old"]
        lines.append(f"  was: {_points(o['points'])}, catch number {o['catch_number']}"
                     + (f", requirements {o['requirements']}" if o["requirements"] else ""))
    ctx = " (its lure requirement boosts the catch)" if rep["context"] == "boost" else ""
    lines.append(f"\nP(catch) by loadout, no lure tokens{ctx}:")
    lines.append(rep["no_tokens"].round(3).to_string())
    lines.append("\nP(catch) with the best use of lure tokens (boost, adjust, extra die):")
    lines.append(rep["best_tokens"].round(3).to_string())
    d = rep["difficulty"]
    if np.isfinite(d):
        lines.append(f"\ndifficulty D = {d:.3f}; the current deck's robust curve gives "
                     f"{rep['fitted_points']:.2f} points (fair: {rep['fair_points']:.0f}; "
                     f"flagged when {rep['threshold']:.2f} or more off it = max(2, 1.5 x "
                     f"robust sigma {rep['scale']:.2f}))")
    else:
        lines.append("\nno loadout can catch this card (difficulty infinite)")
    if not rep["points_given"]:
        if np.isfinite(d):
            lines.append(f"suggested points: {rep['fair_points']:.0f}")
        return "\n".join(lines)
    verdict = {"over-valued": "OVER-VALUED for its odds", "under-valued":
               "UNDER-VALUED for its odds", "uncatchable": "UNCATCHABLE",
               "": "within the band of the current deck"}[rep["flag"]]
    lines.append(f"with {_points(r['points'])} the card is {verdict}")
    return "\n".join(lines)
