"""What ``boardlab lure rebalance`` measures, shared by the rebalance itself
(:mod:`experiments.lure.rebalance`), its win-diff search (:mod:`experiments.lure.rebalance_search`)
and its report (:mod:`experiments.lure.rebalance_report`), so that none of them imports another
in a circle:

* :func:`card_arrays`: the per-card statistics of a simulation as arrays (what the tests of
  :mod:`experiments.lure.rebalance_stats` read);
* :func:`curve_violation`: a card's points beyond the tolerance of the difficulty curve (the
  ``curve`` goal);
* :data:`FIELD_COST`, :data:`CARD_COST`, :data:`CN_STEP`: the cost of a change and how far a
  catch number may move.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["FIELD_COST", "CARD_COST", "CN_STEP", "card_arrays", "curve_violation"]

FIELD_COST = {"points": 1.0, "catch_number": 0.5, "requirements": 2.0, "splash": 2.0}
"""Cost of a change per unit: per point, per step of catch number, per requirement set or
splash icon replaced."""
CARD_COST = 2.0
"""Cost of changing a card at all (fewest changes first)."""
CN_STEP = 6
"""A catch number may move at most this far from the card's own (``tpe`` method)."""


def card_arrays(sim: pd.DataFrame, ids, players) -> dict:
    """Per-card statistics of a :func:`experiments.lure.simulation.simulate` frame as ``float64
    (cards, players)`` arrays, cards in the order of ``ids`` and player counts in the order of
    ``players``: ``wd``, ``lo``, ``hi`` (the catcher win advantage and its 95% Newcombe
    interval, fractions), ``in_play`` (games; 0 for a card missing from ``sim``) and
    ``caught`` (rate)."""
    idx = pd.MultiIndex.from_product([list(ids), list(players)], names=["id", "players"])
    r = sim.set_index(["id", "players"]).reindex(idx)
    shape = (len(ids), len(players))
    get = lambda c: r[c].to_numpy(np.float64).reshape(shape)  # noqa: E731
    return {"wd": get("win_diff"), "lo": get("win_diff_low"), "hi": get("win_diff_high"),
            "in_play": np.nan_to_num(get("in_play")), "caught": get("caught_rate")}


def curve_violation(points, diff, curve, tolerance: float) -> np.ndarray:
    """Card points off the curve beyond ``tolerance``: ``max(0, |points - curve(D)| - tol)``
    (float64, broadcast shape; ``inf`` where ``D`` is infinite: nobody can catch the card).
    ``curve``: the fitted points of a difficulty, e.g. an
    :class:`experiments.lure.rebalance.Curve`."""
    fitted = curve(diff)
    v = np.maximum(0.0, np.abs(np.asarray(points, np.float64) - fitted) - float(tolerance))
    return np.where(np.isfinite(np.asarray(diff, np.float64)), v, np.inf)
