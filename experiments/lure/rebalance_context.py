"""The fixed context of a Lure rebalance's win-diff search (:class:`SearchContext`: the start
deck, the cards, the games' settings, how a trial's parameters make a deck and how a deck is
played and scored) and the statistics a trial keeps in the study's journal
(:func:`encode_stats`, :func:`decode_stats`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines.lure import decks as D
from experiments.lure.rebalance_measures import CARD_COST, FIELD_COST, card_arrays
from experiments.lure.simulation import simulate
from experiments.lure.rebalance_stats import (
    new_inversions,
    off_band,
    order_bounds,
)

from experiments.lure.rebalance_objective import (
    median_targets,
    scalar_objective,
    win_diff_violation,
)

__all__ = ["SearchContext", "encode_stats", "decode_stats"]


@dataclass
class SearchContext:
    """The win-diff search's fixed context: the start deck and the cards in play (``ids``),
    the games' settings (players, Deep Waters, agents, games per player count, seed, runner
    sizes), the band's half-width ``tol`` (percentage points), the correction and its level,
    the order rule and the ``method``; :meth:`evaluate` plays a deck on the search's seeds."""

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
    correction: str = "holm"
    alpha: float = 0.05
    allow_reorder: bool = False
    method: str = "model"
    targets: np.ndarray = field(default_factory=lambda: np.zeros(0))  # the start deck's
    fixed_target: float | None = None                    # the goal's target, or None: median
    space: dict = field(default_factory=dict)          # param -> optuna distribution
    start_values: dict = field(default_factory=dict)   # param -> start value
    slope: float = 0.02
    run_dir: Path | None = None
    start_stats: dict = field(default_factory=dict)    # the start deck's, encoded
    mask: np.ndarray | None = None                      # bool (cards,): the candidates
    guard: np.ndarray | None = None                     # bool (cards,): must stay in band
    difficulty: np.ndarray | None = None                # float64 (cards,): start deck
    allowed: np.ndarray | None = None                   # bool (cards, cards): old inversions
    odds: object = None                                 # OptionOdds for changed cn/reqs
    points_range: tuple[int, int] = (0, 0)              # the points a changed card may carry
    screen_stats: dict = field(default_factory=dict)    # the start deck's on the screen
    front_steps: list | None = None                     # the front's proposals, once

    def deck(self, params: dict) -> D.Deck:
        """The start deck with the trial's ``params`` (``"ID:field" -> value``) applied."""
        rows = self.start.rows()
        for name, value in params.items():
            cid, f = name.split(":")
            rows[self.start.index(cid)][f] = value
        return D.deck_from_rows(rows, source=self.start.source)

    def evaluate(self, deck: D.Deck, seed: int | None = None, n_games: int | None = None
                 ) -> dict:
        """:func:`card_arrays` of ``deck`` on the search's seeds (common random numbers), or
        on ``seed``; ``n_games`` per player count (default the trials' :attr:`n_games`)."""
        sim, _, _ = simulate(deck, self.players, self.deep, self.agents,
                             self.n_games if n_games is None else int(n_games),
                             self.seed if seed is None else seed, n_jobs=self.n_jobs,
                             batch_size=self.batch_size, out_dir=self.run_dir, overwrite=True)
        return card_arrays(sim, self.ids, self.players)

    def targets_of(self, stats: dict) -> np.ndarray:
        """The band centres ``(players,)`` (pp) of a deck with statistics ``stats``: the
        goal's target, or the median card's win diff of *that* deck per player count."""
        return median_targets(stats, self.fixed_target)

    def points_difficulty(self, params: dict) -> tuple[np.ndarray, np.ndarray]:
        """``(points, difficulty)`` ``float64 (cards,)`` of the trial's deck."""
        pts = np.array([self.start.points[self.start.index(c)] for c in self.ids], np.float64)
        d = self.difficulty.copy()
        rows = {}
        for name, value in params.items():
            cid, f = name.split(":")
            j = self.ids.index(cid)
            if f == "points":
                pts[j] = value
            elif f in ("catch_number", "requirements"):
                rows.setdefault(j, {})[f] = value
        for j, ch in rows.items():
            r = self.start.rows()[self.start.index(self.ids[j])]
            cn = int(ch.get("catch_number", r["catch_number"]))
            req = D.parse_requirements(str(ch.get("requirements", r["requirements"])))
            d[j] = float(self.odds([(cn, req)])[0])
        return pts, d

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
        """Violation (pp beyond the bands' edges), new inversions, changed cards, change cost
        and the scalar objective of a trial (module docstring)."""
        tg = self.targets_of(stats)
        v_cand = win_diff_violation(stats, tg, self.tol, self.mask)
        v_cand = np.where(self.mask[:, None], v_cand, 0.0)
        off = off_band(stats, tg, self.tol, self.correction, self.alpha)
        v_guard = np.where(self.guard[:, None] & off,
                           win_diff_violation(stats, tg, self.tol), 0.0)
        v = float(v_cand.sum() + v_guard.sum())
        cand_off = int((v_cand.sum(axis=1) > 0).sum())
        guard_off = int((v_guard.sum(axis=1) > 0).sum())
        pts, d = self.points_difficulty(params)
        inv = 0 if self.allow_reorder else new_inversions(d, pts, self.allowed)
        n_changed, cost = self.cost(params)
        return {"violation": v, "cards_off": cand_off + guard_off,
                "candidates_off": cand_off, "others_off": guard_off, "inversions": inv,
                "changed_cards": n_changed, "change_cost": cost,
                "objective": scalar_objective(v, cost, inv)}

    def bounds(self, params: dict, cid: str) -> tuple[float, float]:
        """The points card ``cid`` may carry in the trial's deck under the order constraint
        (``(-inf, inf)`` with ``allow_reorder``)."""
        if self.allow_reorder:
            return -np.inf, np.inf
        pts, d = self.points_difficulty(params)
        j = self.ids.index(cid)
        return order_bounds(j, d[j], d, pts, self.allowed)


def encode_stats(stats: dict) -> dict:
    """The statistics a trial keeps in the journal (``wd``, ``lo``, ``hi`` rounded to 1e-6,
    ``in_play``), JSON-ready (NaN as ``None``)."""
    return {k: [[None if not np.isfinite(x) else round(float(x), 6) for x in row]
                for row in np.asarray(stats[k])] for k in ("wd", "lo", "hi", "in_play")}


def decode_stats(d: dict) -> dict:
    """The statistics of :func:`encode_stats` back as ``float64`` arrays (``None`` as NaN)."""
    return {k: np.array([[np.nan if x is None else x for x in row] for row in v], np.float64)
            for k, v in d.items()}
