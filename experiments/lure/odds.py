"""Exact catch odds of the Lure fish cards (``boardlab lure balance``, ``lure card``): per
card the probability of meeting it with every dice loadout (:func:`engines.dice.exact_table`),
the cheapest loadouts reaching 50% and 90%, points per die, and the balance report's
**difficulty** ``D = -ln(mean P)`` over every dice loadout (:func:`difficulty`)."""

from __future__ import annotations


import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D

__all__ = ["SPEC_LABELS", "spec_list", "loadout_label", "card_table", "difficulty"]

SPEC_LABELS = ("", "d12", "d20", "d12+d20", "d4", "d12+d4", "d20+d4", "d12+d20+d4")
"""Text of the special-dice masks 0..7 (bit 1 d12, 2 d20, 4 d4)."""


def spec_list(deep: bool) -> list[int]:
    """The special-dice masks in play (:data:`SPEC_LABELS`): 0..3 (d12, d20) in the base game,
    0..7 (the d4 too) with Deep Waters."""
    return list(range(8 if deep else 4))


def loadout_label(n6: int, spec: int, plan: int) -> str:
    """Text of a standard-table loadout, e.g. ``"3d6+d12 +adj"``."""
    return dice.plan_loadout(n6, spec, plan).label()


def card_table(deck: D.Deck, deep_waters: bool, adjust_may_be_unused: bool = True
               ) -> tuple[pd.DataFrame, np.ndarray]:
    """Exact odds per card of the cards in play (base, plus Deep Waters when on).

    Returns:
        ``(cards, table)``: a DataFrame (one row per card; columns described in the report) and
        the exact table float64 ``(cards, 6, 8, N_PLANS)`` of those cards.
    """
    keep = np.flatnonzero((deck.info[:, D.I_SET] == D.SET_BASE) | bool(deep_waters))
    conds = deck.conds[keep]
    table = dice.exact_table(conds, deep_waters=deep_waters,
                             adjust_may_be_unused=adjust_may_be_unused)
    specs = spec_list(deep_waters)
    # cost order of loadouts: dice, special dice, lure tokens
    cells = []
    for n6 in range(6):
        for spec in specs:
            nsp = bin(spec).count("1")
            for plan in range(dice.N_PLANS):
                nl = dice.plan_loadout(n6, spec, plan).n_lures
                cells.append((n6 + nsp, nsp, nl, n6, spec, plan))
    cells.sort()
    rows = []
    for j, i in enumerate(keep):
        flags = deck.conds[i, dice.FLAGS]
        ctx = dice.PLAN_FLAG if flags & dice.F_LURE else dice.PLAN_NONE
        t = table[j]
        pts = int(deck.info[i, D.I_POINTS])
        row = {
            "id": deck.ids[i], "name": deck.names[i],
            "set": D.SET_NAMES[deck.info[i, D.I_SET]], "points": pts,
            "catch_number": int(deck.conds[i, dice.CN]),
            "requirements": deck.requirement_text(i),
            "splash": D.SPLASH_NAMES[deck.info[i, D.I_SPLASH]],
            "trophy": bool(deck.info[i, D.I_TROPHY]),
            "lure_context": "boost" if ctx == dice.PLAN_FLAG else "none",
        }
        for n6 in range(1, 6):
            row[f"p_{n6}d6"] = t[n6, 0, ctx]
        for spec in specs[1:]:
            row[f"p_5d6+{SPEC_LABELS[spec]}"] = t[5, spec, ctx]
        for thr in (0.5, 0.9):
            for suffix, allowed in (("", (ctx,)), ("_with_lures", tuple(range(dice.N_PLANS)))):
                hit = next(((n6, spec, plan) for _, _, _, n6, spec, plan in cells
                            if plan in allowed and t[n6, spec, plan] >= thr - 1e-12), None)
                key = f"cheapest_{int(thr * 100)}{suffix}"
                if hit is None:
                    row[key], row[key + "_dice"] = "unreachable", np.nan
                else:
                    row[key] = loadout_label(*hit)
                    row[key + "_dice"] = dice.plan_loadout(*hit).n_dice
        best, best_lab = 0.0, ""
        for n6 in range(6):
            for spec in specs:
                nd = n6 + bin(spec).count("1")
                if nd and pts * t[n6, spec, ctx] / nd > best:
                    best = pts * t[n6, spec, ctx] / nd
                    best_lab = loadout_label(n6, spec, ctx)
        row["ev_per_die_best"] = best
        row["ev_per_die_loadout"] = best_lab
        row["ev_per_die_5d6"] = pts * t[5, 0, ctx] / 5
        rows.append(row)
    out = pd.DataFrame(rows)
    out["mean_p"], out["difficulty"] = difficulty(table, deep_waters)
    return out, table


def difficulty(table: np.ndarray, deep_waters: bool) -> tuple[np.ndarray, np.ndarray]:
    """The balance report's difficulty of each card from its exact table.

    Args:
        table: ``float64 (cards, 6, 8, N_PLANS)`` from :func:`engines.dice.exact_table`.
        deep_waters: whether the d4 subsets count (they are NaN in a base-game table).

    Returns:
        ``(mean_p, difficulty)``, ``float64 (cards,)`` each: the mean over every dice loadout
        (0-5 d6 x every subset of the special dice) of the catch probability, a card that
        requires a lure given one boost (``max`` of the plans none and boost), and
        ``D = -ln(mean_p)`` (``inf`` where ``mean_p == 0``: no dice loadout catches it).
    """
    specs = spec_list(deep_waters)
    t = np.asarray(table, dtype=np.float64)[:, :, specs, :]
    ref = np.maximum(t[..., dice.PLAN_NONE], t[..., dice.PLAN_FLAG])
    mean_p = ref.reshape(len(t), -1).mean(axis=1)
    with np.errstate(divide="ignore"):
        return mean_p, np.where(mean_p > 0, -np.log(np.where(mean_p > 0, mean_p, 1.0)), np.inf)
