"""The Lure fish-card balance report (``boardlab lure balance``).

For a fish deck, computes per card:

* exact catch probabilities (:func:`engines.dice.exact_table`) with 1..5 d6 and with the
  special dice, the cheapest loadout reaching 50% and 90%, expected points per die committed;
* a **difficulty** ``D = -ln(mean P)``, the mean taken over every dice loadout (0-5 d6 x every
  subset of the special dice; a card that requires a lure gets one boost, a card that forbids
  lures none), a **robust** quadratic fit of points on ``D`` (:func:`fit_curve`: soft-l1 loss,
  the cards far off the first pass set aside, so two broken cards do not move the others' fair
  points), the cards whose points lie off it by at least ``max(2, 1.5 x robust sigma)``
  (over-valued: too many points for their difficulty; under-valued: too few) and the points
  each card would need to sit on it;
* from simulated full games per player count (:func:`simulate`): how often it is caught
  (Wilson interval), in which round, how long it lay on the table, by whom in the turn order
  (share caught by the first group to act, mean rank, share per seat), and the win-rate
  difference between the catcher and the other players of those games (Newcombe interval);
  per player count also the game lengths and the seats' win rates;

and writes CSV tables, PNG plots, ``metadata.json`` and ``report.md`` into one folder.

**Simulation.** Games are played by the one compiled game loop (:func:`agents.loop.run_games`)
on the runner of :mod:`experiments.runner`: one runner *cell* per player count, batch ``b`` of
every cell seeded by ``SeedSequence(seed, spawn_key=(b,))`` and game ``g`` of that batch by
``chance.game_seed(chance.batch_word(that SeedSequence), g)``
(:func:`engines.protocol.chance.game_seeds`). A batch returns integer sums only
(:func:`play_balance_batch`), so the numbers do not depend on the number of workers, memory
stays flat however many games are played, and a killed run resumes from
``<out>/_partial/state.json``. Win shares are summed in units of 1/60 (a tie of ``k`` winners
gives each ``1/k``, as :func:`engines.lure.core.returns`).

Per-card records come from the core's ``card_c`` outcome fields, decoded by
:func:`engines.lure.game.card_outcomes`; rules: ``docs/rules/lure.md``.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from engines import dice
from engines.lure import decks as D
from engines.lure.config import LureConfig
from experiments.io import (
    atomic_write_bytes,
    atomic_write_text,
    code_version,
    machine_info,
    write_json,
)
from experiments.lure.defaults import BALANCE_GAMES, DEFAULT_AGENTS, THRESHOLD_FLOOR
from experiments.stats import newcombe_difference, wilson_interval

__all__ = ["SPEC_LABELS", "WIN_UNITS", "CARD_SUMS", "SCORE_BINS", "ROUND_BINS", "loadout_label",
           "card_table", "difficulty", "FIT_METHODS", "REJECT_SIGMAS", "THRESHOLD_FLOOR",
           "fit_curve",
           "add_fit", "balance_cells", "play_balance_batch", "simulate", "simulate_cards",
           "card_stats", "game_stats", "plot_points_vs_difficulty", "plot_heatmaps",
           "plot_caught", "caught_axis_limits", "difficulty_axes",
           "run_balance", "default_out_dir"]

SPEC_LABELS = ("", "d12", "d20", "d12+d20", "d4", "d12+d4", "d20+d4", "d12+d20+d4")
"""Text of the special-dice masks 0..7 (bit 1 d12, 2 d20, 4 d4)."""
WIN_UNITS = 60
"""Win shares are summed in units of 1/60 (exact for ties of 1..5 winners)."""
CARD_SUMS = ("in_play", "caught", "round_sum", "table_sum", "first_group", "group_sum",
             "catcher_win", "inplay_win")
"""Per-card integer sums of :func:`play_balance_batch` (each ``int64 (cards,)``): games the
card was in play, games it was caught, sums over its catches of the round caught, of the rounds
it lay on the table (round caught - round revealed), catches by the first group to act, sum of
the catcher's group rank, the catcher's win units and all players' win units of the games it was
in play."""

SCORE_BINS = 201
"""Bins of the final-score histogram ``score_hist``: scores 0..199, the last bin 200 or more."""
ROUND_BINS = 65
"""Bins of the game-length histogram ``rounds_hist``: 0..63 rounds, the last bin 64 or more."""


def _spec_list(deep: bool) -> list[int]:
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
    specs = _spec_list(deep_waters)
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
    specs = _spec_list(deep_waters)
    t = np.asarray(table, dtype=np.float64)[:, :, specs, :]
    ref = np.maximum(t[..., dice.PLAN_NONE], t[..., dice.PLAN_FLAG])
    mean_p = ref.reshape(len(t), -1).mean(axis=1)
    with np.errstate(divide="ignore"):
        return mean_p, np.where(mean_p > 0, -np.log(np.where(mean_p > 0, mean_p, 1.0)), np.inf)


FIT_METHODS = ("robust", "least-squares")
"""Curve fits of :func:`fit_curve`: ``robust`` (the default) and the plain ``least-squares``."""
REJECT_SIGMAS = 3.0
"""The robust fit refits without the cards more than this many robust sigmas off its first
pass."""
MAD_TO_SIGMA = 1.4826
"""Median absolute deviation -> standard deviation of a normal distribution."""


def _robust_scale(residuals: np.ndarray) -> float:
    """``1.4826 x median(|r|)``: the residuals' standard deviation if they were normal, read
    from their median absolute size (so a few huge residuals do not inflate it)."""
    return float(MAD_TO_SIGMA * np.median(np.abs(residuals))) if len(residuals) else 0.0


def fit_curve(difficulty, points, degree: int = 2, method: str = "robust"):
    """Polynomial of points on difficulty over the finite difficulties.

    ``method="robust"`` (default): scipy's ``least_squares`` with the soft-l1 loss
    (``f_scale`` 1 card point: a residual counts squared up to about a point and linearly
    beyond, Huber 1964 / Triggs et al. 2000), started from the plain fit; then the cards more
    than :data:`REJECT_SIGMAS` robust sigmas (``1.4826 x median |residual|``, at least 1/3 of a
    point) off that curve are set aside and the soft-l1 fit is repeated on the others. Two
    broken cards of a 30-card deck therefore barely move the other cards' fitted points (the
    shipped deck with B04 and B26 broken: at most 0.13 points, against 1.44 for the plain fit).
    ``method="least-squares"``: ``numpy.polyfit``, the report's curve before issue 27.

    Args:
        difficulty, points: array-likes of the same length (``D`` may be ``inf``: cards nobody
            can catch are left out of the fit).
        degree: the polynomial's degree.
        method: :data:`FIT_METHODS`.

    Returns:
        ``(coefficients, fitted, scale)``: numpy polynomial coefficients (highest first), the
        fitted points for every card (float64, NaN where the difficulty is infinite) and the
        residuals' scale in card points: the robust sigma of the cards kept in the fit
        (robust), or the residual RMSE (least-squares).

    Raises:
        ValueError: fewer than ``degree + 2`` catchable cards, or an unknown method.
    """
    if method not in FIT_METHODS:
        raise ValueError(f"bad fit method {method!r}: expected one of {', '.join(FIT_METHODS)}")
    d = np.asarray(difficulty, float)
    y = np.asarray(points, float)
    ok = np.isfinite(d)
    if ok.sum() < degree + 2:
        raise ValueError(f"{int(ok.sum())} catchable cards; the fit needs at least {degree + 2}")
    coef = np.polyfit(d[ok], y[ok], degree)
    if method == "robust":
        coef, _ = _robust_poly(d[ok], y[ok], coef)
    fitted = np.where(ok, np.polyval(coef, np.where(ok, d, 0.0)), np.nan)
    r = y[ok] - fitted[ok]
    if method == "robust":
        scale = _robust_scale(r[np.abs(r) <= REJECT_SIGMAS * max(_robust_scale(r), 1 / 3)])
    else:
        scale = float(np.sqrt(np.mean(r ** 2)))
    return coef, fitted, scale


def _robust_poly(d: np.ndarray, y: np.ndarray, start: np.ndarray):
    """Soft-l1 fit, rejection of the cards beyond :data:`REJECT_SIGMAS` robust sigmas, soft-l1
    refit (:func:`fit_curve`). Returns ``(coefficients, kept mask)``."""
    from scipy.optimize import least_squares

    X = np.vander(d, len(start))

    def fit(rows, b0):
        Xr, yr = X[rows], y[rows]
        return least_squares(lambda b: Xr @ b - yr, b0, loss="soft_l1", f_scale=1.0).x

    b = fit(np.ones(len(y), bool), start)
    r = y - X @ b
    keep = np.abs(r) <= REJECT_SIGMAS * max(_robust_scale(r), 1 / 3)
    if keep.sum() >= len(start) + 1 and not keep.all():
        b = fit(keep, b)
    return b, keep


def add_fit(cards: pd.DataFrame, method: str = "robust") -> tuple[pd.DataFrame, dict]:
    """Add ``fitted_points``, ``fair_points`` (rounded), ``residual`` (points - fitted) and
    ``flag`` columns to a :func:`card_table` frame (``difficulty``, ``points``).

    The curve is :func:`fit_curve` (``method``, default robust); a card is flagged over- or
    under-valued when its residual is at least ``threshold = max(2, 1.5 x scale)`` card
    points in size (the floor: :data:`experiments.lure.defaults.THRESHOLD_FLOOR`), ``scale``
    the robust sigma of the residuals (least-squares: the RMSE), and ``uncatchable`` when its
    difficulty is infinite. Returns ``(frame, fit)``, ``fit`` a dict: ``method``,
    ``coefficients`` (highest power first), ``scale``, ``rmse`` (of every catchable card's
    residual), ``threshold``, ``outliers`` (ids set aside by the robust fit, when the frame
    has an ``id`` column). Raises ``ValueError`` from :func:`fit_curve`."""
    coef, fitted, scale = fit_curve(cards["difficulty"], cards["points"], method=method)
    thr = max(THRESHOLD_FLOOR, 1.5 * scale)
    out = cards.copy()
    out["fitted_points"] = fitted
    out["fair_points"] = np.where(np.isfinite(fitted), np.round(fitted), np.nan)
    out["residual"] = out["points"] - fitted
    ok = np.isfinite(fitted)
    res = out["residual"].to_numpy(float)[ok]
    rmse = float(np.sqrt(np.mean(res ** 2)))
    far = np.abs(res) > REJECT_SIGMAS * max(_robust_scale(res), 1 / 3)
    outliers = (list(out["id"].to_numpy()[ok][far]) if method == "robust" and "id" in out
                else [])
    out["flag"] = np.select([~np.isfinite(out["difficulty"]), out["residual"] >= thr,
                             out["residual"] <= -thr],
                            ["uncatchable", "over-valued", "under-valued"], "")
    return out, {"method": method, "coefficients": coef.tolist(), "scale": float(scale),
                 "rmse": rmse, "threshold": thr, "outliers": [str(x) for x in outliers]}


# ---------------------------------------------------------------- simulated games
def _seat_agents(agents, n: int) -> list[str]:
    names = [agents] if isinstance(agents, str) else list(agents)
    if not names:
        raise ValueError("agents is empty: expected at least one Lure policy name")
    return [str(names[s % len(names)]) for s in range(n)]


def balance_cells(deck: D.Deck, players: Sequence[int], deep_waters: bool, agents,
                  options: dict | None = None) -> list[dict]:
    """One runner cell per player count: ``{"players": n, "agents": [name per seat],
    "config": LureConfig(...).to_dict()}`` (the config holds the deck, so a worker rebuilds the
    exact game). ``agents``: a name or a list cycled over the seats. ``options``: other
    :class:`LureConfig` fields. Raises ``ValueError`` for a player count outside 2..5, an
    unknown agent or a bad option."""
    from agents.policy import get_spec

    bad = sorted(set(options or {}) & {"n_players", "deep_waters", "deck"})
    if bad:
        raise ValueError(f"options may not set {bad}: the report sets them")
    cells = []
    for n in players:
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 2 <= n <= 5:
            raise ValueError(f"bad player count {n!r}: expected 2..5")
        seat = _seat_agents(agents, int(n))
        for name in seat:
            get_spec("lure", name)
        cfg = LureConfig(n_players=int(n), deep_waters=bool(deep_waters), deck=deck,
                         **(options or {}))
        cells.append({"players": int(n), "agents": seat, "config": cfg.to_dict()})
    return cells


_CONFIGS: dict[str, LureConfig] = {}


def _config_of(cell: dict) -> LureConfig:
    """The cell's :class:`LureConfig`, rebuilt once per process (the deck is parsed from its
    rows)."""
    key = hashlib.sha256(json.dumps(cell["config"], sort_keys=True).encode()).hexdigest()
    if key not in _CONFIGS:
        _CONFIGS[key] = LureConfig.from_dict(cell["config"])
    return _CONFIGS[key]


def play_balance_batch(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict:
    """Runner batch function: play ``n_games`` games of ``cell`` (:func:`balance_cells`) with
    the compiled loop and return integer sums (``int64``):

    * ``games``; per card (``(cards,)`` arrays, cards in deck order) the :data:`CARD_SUMS`;
      ``seat_caught`` ``(cards, players)`` catches per seat;
    * per game: ``rounds_sum``, ``rounds_sq``, ``decisions_sum``, ``truncated``;
      ``seat_win`` ``(players,)`` win units (1/:data:`WIN_UNITS` of a win),
      ``seat_score`` ``(players,)`` final scores summed; ``score_hist`` ``(SCORE_BINS,)`` the
      final scores of every seat counted by value, ``rounds_hist`` ``(ROUND_BINS,)`` the games
      counted by length in rounds (both clipped into their last bin).

    Game ``g`` has the seed word ``chance.game_seeds(chance.batch_word(seed), n_games)[g]``.
    Raises ``ValueError`` from the loop (bad agents)."""
    from agents.loop import run_games
    from engines.protocol import chance
    from engines.lure import core as C
    from engines.lure.game import card_outcomes

    cfg = _config_of(cell)
    n = cfg.n_players
    nc = len(cfg.deck)
    seeds = chance.game_seeds(chance.batch_word(seed), int(n_games))
    ret, out = run_games(cfg, cell["agents"], seeds, game="lure")
    f = {k: i for i, k in enumerate(C.OUTCOME_FIELDS)}
    co = card_outcomes(out[:, f["card_0"]:], nc)
    who = co["catch_player"]
    inplay = who >= -1
    caught = who >= 0
    wu = np.rint(ret * WIN_UNITS).astype(np.int64)  # (G, n) win units
    cw = np.take_along_axis(wu, np.clip(who, 0, n - 1), axis=1)
    rounds = out[:, f["rounds"]]
    scores = out[:, [f[f"score_{p}"] for p in range(n)]]
    return {
        "games": int(n_games),
        "in_play": inplay.sum(axis=0),
        "caught": caught.sum(axis=0),
        "round_sum": np.where(caught, co["catch_round"], 0).sum(axis=0),
        "table_sum": np.where(caught, co["catch_round"] - co["reveal_round"], 0).sum(axis=0),
        "first_group": (caught & (co["catch_group"] == 0)).sum(axis=0),
        "group_sum": np.where(caught, co["catch_group"], 0).sum(axis=0),
        "catcher_win": np.where(caught, cw, 0).sum(axis=0),
        "inplay_win": (inplay * wu.sum(axis=1)[:, None]).sum(axis=0),
        "seat_caught": np.stack([(who == p).sum(axis=0) for p in range(n)], axis=1),
        "rounds_sum": int(rounds.sum()),
        "rounds_sq": int((rounds * rounds).sum()),
        "decisions_sum": int(out[:, f["decisions"]].sum()),
        "truncated": int(out[:, f["truncated"]].sum()),
        "seat_win": wu.sum(axis=0),
        "seat_score": scores.sum(axis=0),
        "score_hist": np.bincount(np.clip(scores.ravel(), 0, SCORE_BINS - 1),
                                  minlength=SCORE_BINS).astype(np.int64),
        "rounds_hist": np.bincount(np.clip(rounds, 0, ROUND_BINS - 1),
                                   minlength=ROUND_BINS).astype(np.int64),
    }


def card_stats(cell: dict, totals: dict, deck: D.Deck) -> pd.DataFrame:
    """Per card in play at least once, from one cell's summed :func:`play_balance_batch`:
    ``id``, ``players``, ``in_play`` (games), ``caught_rate`` with its 95% Wilson interval
    ``caught_low``/``caught_high``, ``mean_round`` (round caught), ``mean_rounds_on_table``
    (round caught - round revealed), ``first_group_share`` (caught by the first group to act),
    ``mean_turn_rank`` (0 = first group), ``win_catcher`` (the catcher's mean win share),
    ``win_others`` (the other players' of the same games), ``win_diff`` with its 95% Newcombe
    interval ``win_diff_low``/``win_diff_high``, and ``seat_p_share`` (share of the catches
    made by seat ``p``; NaN for absent seats). Means are NaN for a card never caught."""
    n = int(cell["players"])
    t = {k: np.asarray(totals[k], dtype=np.int64) for k in CARD_SUMS}
    seat = np.asarray(totals["seat_caught"], dtype=np.int64)
    ni, nc = t["in_play"], t["caught"]
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = wilson_interval(nc, ni)
        cw = t["catcher_win"] / WIN_UNITS
        others_n = n * ni - nc
        others_w = t["inplay_win"] / WIN_UNITS - cw
        d, dlo, dhi = newcombe_difference(cw, nc, others_w, others_n)
        ncf = np.where(nc > 0, nc, np.nan)
        df = pd.DataFrame({
            "id": list(deck.ids), "players": n, "in_play": ni,
            "caught_rate": nc / np.where(ni > 0, ni, np.nan),
            "caught_low": lo, "caught_high": hi,
            "mean_round": t["round_sum"] / ncf,
            "mean_rounds_on_table": t["table_sum"] / ncf,
            "first_group_share": t["first_group"] / ncf,
            "mean_turn_rank": t["group_sum"] / ncf,
            "win_catcher": cw / ncf,
            "win_others": others_w / np.where(others_n > 0, others_n, np.nan),
            "win_diff": d, "win_diff_low": dlo, "win_diff_high": dhi})
        for p in range(5):
            df[f"seat_{p}_share"] = seat[:, p] / ncf if p < n else np.nan
    return df[ni > 0].reset_index(drop=True)


def game_stats(cell: dict, totals: dict) -> dict:
    """Per player count, from one cell's sums: ``players``, ``agents`` (text), ``games``,
    ``mean_rounds``, ``sd_rounds``, ``mean_decisions``, ``truncated`` (games ended at
    ``MAX_GAME_LENGTH``), ``seat_p_win`` (win share of seat ``p``, ties shared) and
    ``seat_p_score`` (mean final score) for the seats present."""
    g = int(totals["games"])
    m = int(totals["rounds_sum"]) / g
    var = max(int(totals["rounds_sq"]) / g - m * m, 0.0)
    row = {"players": int(cell["players"]), "agents": ",".join(cell["agents"]), "games": g,
           "mean_rounds": m, "sd_rounds": float(np.sqrt(var)),
           "mean_decisions": int(totals["decisions_sum"]) / g,
           "truncated": int(totals["truncated"])}
    for p in range(int(cell["players"])):
        row[f"seat_{p}_win"] = int(np.asarray(totals["seat_win"])[p]) / WIN_UNITS / g
    for p in range(int(cell["players"])):
        row[f"seat_{p}_score"] = int(np.asarray(totals["seat_score"])[p]) / g
    return row


def simulate(deck: D.Deck | None = None, players: Sequence[int] = (2, 3, 4, 5),
             deep_waters: bool = False, agents=("heuristic",), n_games: int = 20000,
             seed: int = 0, *, n_jobs: int = 1, batch_size: int = 5000, backend: str = "loky",
             scheduler: str | None = None, out_dir=None, progress: bool = False,
             overwrite: bool = False, options: dict | None = None):
    """Simulate ``n_games`` games per player count on the runner (module docstring).

    ``agents``: a policy name or names cycled over the seats; ``out_dir``: folder of the
    runner's ``state.json`` (resume), ``None`` keeps everything in memory; ``n_jobs``,
    ``backend``, ``scheduler``, ``overwrite``: as :func:`experiments.runner.run_experiment`.

    Returns ``(per_card, games, result)``: the :func:`card_stats` of every player count
    (concatenated), one :func:`game_stats` row per player count, and the
    :class:`experiments.runner.RunResult`. Raises ``ValueError`` for bad options."""
    from experiments.runner import run_experiment

    deck = deck if deck is not None else D.default_deck()
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"bad n_games {n_games!r}: expected an integer >= 1")
    cells = balance_cells(deck, players, deep_waters, agents, options)
    res = run_experiment(play_balance_batch, cells, seed=int(seed), games_per_cell=int(n_games),
                         batch_size=int(batch_size), n_jobs=n_jobs, backend=backend,
                         scheduler=scheduler, out_dir=out_dir, success_key="games",
                         progress=progress, overwrite=overwrite)
    sim = pd.concat([card_stats(c, t, deck) for c, t in zip(res.cells, res.totals, strict=True)],
                    ignore_index=True)
    games = pd.DataFrame([game_stats(c, t) for c, t in zip(res.cells, res.totals, strict=True)])
    seats = range(max(c["players"] for c in cells))
    head = [c for c in games.columns if not c.startswith("seat_")]
    games = games[head + [f"seat_{p}_win" for p in seats] + [f"seat_{p}_score" for p in seats]]
    return sim, games, res


def simulate_cards(config: LureConfig, agents, n_games: int, seed: int = 0, **kw
                   ) -> pd.DataFrame:
    """:func:`simulate` for one :class:`LureConfig` (its player count, Deep Waters and deck;
    its other options too); returns the per-card table. ``kw``: the keyword options of
    :func:`simulate`."""
    if not isinstance(config, LureConfig):
        raise ValueError(f"bad config {config!r:.60}: expected a LureConfig")
    options = {k: v for k, v in config.to_dict().items()
               if k not in ("n_players", "deep_waters", "deck")}
    options["lure_mix"] = tuple(options["lure_mix"])
    return simulate(config.deck, [config.n_players], config.deep_waters, agents, n_games, seed,
                    options=options, **kw)[0]


# ---------------------------------------------------------------- plots
def _save(fig, path) -> None:
    """Write ``fig`` as PNG to ``path`` atomically (nothing when ``path`` is None)."""
    if path is None:
        return
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    atomic_write_bytes(path, buf.getvalue())


def _place_labels(ax, xs, ys, labels, fontsize: float = 7.5) -> None:
    """Annotate points ``(xs, ys)`` with ``labels`` without overlaps: each label takes the
    first of a list of positions around its point (then farther ones, with a leader line)
    whose box overlaps no label placed before, no other point and stays inside the axes. Each
    label's size is measured once and its candidate boxes are computed from it (drawing one
    annotation per candidate took seconds for 30 cards)."""
    from matplotlib.transforms import Bbox

    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    pts = ax.transData.transform(np.column_stack([xs, ys]))
    px = fig.dpi / 72.0
    r = 4.0 * px
    marks = [Bbox([[x - r, y - r], [x + r, y + r]]) for x, y in pts]
    frame = ax.get_window_extent(renderer)
    near = [(4, 3, "left", "bottom"), (4, -3, "left", "top"), (-4, 3, "right", "bottom"),
            (-4, -3, "right", "top"), (0, 6, "center", "bottom"), (0, -6, "center", "top"),
            (6, 0, "left", "center"), (-6, 0, "right", "center")]
    candidates = [(c, False) for c in near]
    for f in (2.5, 4.0, 5.5):
        candidates += [((dx * f, dy * f, ha, va), True) for dx, dy, ha, va in near]
    shift = {"left": 0.0, "center": -0.5, "right": -1.0, "bottom": 0.0, "top": -1.0}
    placed = []
    for i in np.argsort(pts[:, 0], kind="stable"):
        probe = ax.text(0, 0, labels[i], fontsize=fontsize)
        size = probe.get_window_extent(renderer)
        probe.remove()
        w, h = size.width, size.height
        chosen = None
        for (dx, dy, ha, va), lead in candidates:
            x0 = pts[i, 0] + dx * px + shift[ha] * w
            y0 = pts[i, 1] + dy * px + (shift[va] if va != "center" else -0.5) * h
            bb = Bbox([[x0, y0], [x0 + w, y0 + h]]).padded(1.0)
            inside = (bb.x0 >= frame.x0 and bb.x1 <= frame.x1 and bb.y0 >= frame.y0
                      and bb.y1 <= frame.y1)
            clash = any(bb.overlaps(o) for o in placed) or any(
                bb.overlaps(m) for j, m in enumerate(marks) if j != i)
            if inside and not clash:
                ax.annotate(labels[i], (xs[i], ys[i]), xytext=(dx, dy),
                            textcoords="offset points", ha=ha, va=va, fontsize=fontsize,
                            zorder=4, arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "0.4",
                                                  "shrinkA": 0, "shrinkB": 3} if lead else None)
                chosen = bb
                break
        if chosen is None:  # no free spot: the nearest position
            t = ax.annotate(labels[i], (xs[i], ys[i]), xytext=(4, 3), textcoords="offset points",
                            fontsize=fontsize, zorder=4)
            chosen = t.get_window_extent(renderer)
        placed.append(chosen)


def difficulty_axes(ax, title: str) -> None:
    """Label a points-against-difficulty plot (axes, ``title``, grid, the legend outside on
    the right) and tighten its figure's layout."""
    ax.set_xlabel("difficulty  D = -ln(mean catch probability over every dice loadout)")
    ax.set_ylabel("points on the card")
    ax.set_title(title, fontsize=11)
    ax.grid(alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False)
    ax.figure.tight_layout()


def plot_points_vs_difficulty(cards: pd.DataFrame, fit: dict, path=None):
    """Scatter of points on difficulty with the fitted curve, its tolerance band and the flags;
    every card labelled by id. Written as PNG to ``path`` when given; returns the Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(10, 6.5))
    ok = np.isfinite(cards["difficulty"]).to_numpy()
    xs = np.linspace(cards.loc[ok, "difficulty"].min(), cards.loc[ok, "difficulty"].max(), 200)
    ys = np.polyval(fit["coefficients"], xs)
    robust = fit.get("method", "robust") == "robust"
    scale = (f"max(2, 1.5 x robust sigma {fit['scale']:.2f})" if robust and "scale" in fit
             else f"max(2, 1.5 x RMSE {fit['rmse']:.2f})")
    ax.fill_between(xs, ys - fit["threshold"], ys + fit["threshold"], color="grey", alpha=0.15,
                    label=f"fair +- {fit['threshold']:.2f} points = {scale}", zorder=1)
    ax.plot(xs, ys, "k-", lw=1, label=("robust curve (fair points)" if robust else
                                       "least-squares curve (fair points)"), zorder=2)
    colours = {"": ("tab:blue", "within the band"), "over-valued": ("tab:red", "over-valued"),
               "under-valued": ("tab:green", "under-valued")}
    for flag, (colour, text) in colours.items():
        m = ok & (cards["flag"] == flag).to_numpy()
        ax.scatter(cards.loc[m, "difficulty"], cards.loc[m, "points"], c=colour, s=36,
                   label=f"{text} ({int(m.sum())})", zorder=3)
    ax.set_ylim(min(-0.5, float(cards.loc[ok, "points"].min()) - 1),
                float(max(cards.loc[ok, "points"].max(), ys.max() + fit["threshold"])) + 1)
    out = [str(x) for x in fit.get("outliers", [])]
    difficulty_axes(ax, "Are the fish cards' points fair for how hard they are to catch?\n"
                        "Lure fish cards: points against difficulty, with a "
                        + ("robust quadratic (soft-l1" + (f"; set aside: {', '.join(out)})"
                                                          if out else ")")
                           if robust else "least-squares quadratic"))
    sub = cards[ok]
    _place_labels(ax, sub["difficulty"].to_numpy(float), sub["points"].to_numpy(float),
                  list(sub["id"]))
    _save(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


def plot_heatmaps(cards: pd.DataFrame, table: np.ndarray, deep: bool, path=None):
    """One small heatmap per card: exact catch probability by number of d6 (rows) and special
    dice (columns), in the card's lure context. PNG to ``path`` when given; returns the
    Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    specs = _spec_list(deep)
    n = len(cards)
    cols = 6
    rows = max(1, (n + cols - 1) // cols)
    height = rows * 2.15 + 1.3
    fig, axes = plt.subplots(rows, cols, figsize=(cols * 2.05, height), squeeze=False)
    im = None
    # special dice by faces: "12" the d12, "12 20" the d12 and the d20, "-" none
    xlabels = ["\n".join(x.replace("d", "") for x in SPEC_LABELS[s].split("+")) or "-"
               for s in specs]
    for k in range(rows * cols):
        ax = axes[k // cols][k % cols]
        if k >= n:
            ax.axis("off")
            continue
        r = cards.iloc[k]
        ctx = dice.PLAN_FLAG if r["lure_context"] == "boost" else dice.PLAN_NONE
        im = ax.imshow(table[k][:, specs, ctx], vmin=0, vmax=1, cmap="viridis", aspect="auto",
                       origin="lower")
        req = str(r["requirements"]).replace(";", ",")
        ax.set_title(f"{r['id']}: {r['points']} pt, {r['catch_number']}+\n{req}"[:40],
                     fontsize=8, linespacing=1.0)
        ax.set_yticks(range(6))
        ax.set_xticks(range(len(specs)))
        if k % cols == 0:
            ax.set_yticklabels([f"{i}d6" for i in range(6)], fontsize=7)
        else:
            ax.set_yticklabels([])
        if k + cols >= n:  # nothing below: label the special dice
            ax.set_xticklabels(xlabels, fontsize=7, linespacing=0.9)
            ax.set_xlabel("special dice (d12, d20" + (", d4)" if deep else ")"), fontsize=7)
        else:
            ax.set_xticklabels([])
        ax.tick_params(length=2, pad=1.5)
    fig.suptitle("How likely is each fish to be caught with a given loadout?\n"
                 "Exact catch probability; rows: number of d6, columns: special dice "
                 "(a card that requires a lure: with one boost)", fontsize=11,
                 y=1 - 0.1 / height, va="top")
    fig.subplots_adjust(left=0.05, right=0.9, top=1 - 1.0 / height, bottom=0.75 / height,
                        hspace=0.55, wspace=0.12)
    if im is not None:
        cax = fig.add_axes([0.925, 0.3, 0.015, 0.4])
        fig.colorbar(im, cax=cax, label="P(catch)")
    _save(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


CAUGHT_TICKS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.995,
                0.998, 0.999, 0.9999)
"""Candidate ticks (caught shares) of :func:`plot_caught`'s logit axis."""


CAUGHT_SCALE_NOTE = ("logit scale:\nstretched near\n100% so that\nsmall differences\nshow."
                     "\n\n99% caught:\nmissed in 1 game\nof 100; 97%:\n3 of 100."
                     "\n\nNo 0 on this axis:\ndots, not bars.")
"""The note beside :func:`plot_caught`'s axis that explains its logit scale."""


def caught_axis_limits(low, high) -> tuple[float, float]:
    """y-limits of :func:`plot_caught`'s logit axis for intervals ``low``..``high`` (caught
    shares, any shape): the data's range widened by a quarter of a logit unit each side (at
    least to the nearest 10/90% ticks, so a short range is still readable), clipped to
    ``[0.0001, 0.9999]``. Raises ``ValueError`` when no value is finite."""
    lo = np.asarray(low, dtype=float).ravel()
    hi = np.asarray(high, dtype=float).ravel()
    lo, hi = lo[np.isfinite(lo)], hi[np.isfinite(hi)]
    if not len(lo) or not len(hi):
        raise ValueError("no finite caught share to plot")
    eps = 1e-4

    def logit(p):
        p = np.clip(p, eps, 1 - eps)
        return np.log(p / (1 - p))

    a = min(logit(lo.min()) - 0.25, logit(0.9))
    b = max(logit(hi.max()) + 0.25, logit(0.1))
    return float(np.clip(1 / (1 + np.exp(-a)), eps, 1 - eps)), \
        float(np.clip(1 / (1 + np.exp(-b)), eps, 1 - eps))


def plot_caught(sim: pd.DataFrame, path=None, agents: str = ""):
    """Caught share per card and player count with 95% Wilson intervals: a dot per player
    count (no bars, as the axis has no 0) on a logit axis, which stretches the shares near
    100% so that cards caught in 99.5% and in 97% of games stand apart (on a 0-1 axis 28 of
    the 30 base cards look equal); the axis says so in a note. Limits from
    :func:`caught_axis_limits`; the legend sits outside the axes. PNG to ``path`` when given;
    returns the Figure."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ids = list(dict.fromkeys(sim["id"]))
    players = sorted(sim["players"].unique())
    fig, ax = plt.subplots(figsize=(max(9.0, len(ids) * 0.32 + 2.0), 5.2))
    w = 0.8 / len(players)
    eps = 1e-4
    for j, n in enumerate(players):
        s = sim[sim["players"] == n].set_index("id").reindex(ids)
        x = np.arange(len(ids)) + (j - (len(players) - 1) / 2) * w
        rate = s["caught_rate"].to_numpy(float).clip(eps, 1 - eps)
        low = s["caught_low"].to_numpy(float).clip(eps, 1 - eps)
        high = s["caught_high"].to_numpy(float).clip(eps, 1 - eps)
        ax.errorbar(x, rate, yerr=[np.clip(rate - low, 0, None), np.clip(high - rate, 0, None)],
                    fmt="o", ms=3.5, lw=0.8, capsize=0, label=f"{n} players")
    for k in range(0, len(ids), 2):  # shade every other card so each column reads as one
        ax.axvspan(k - 0.5, k + 0.5, color="0.94", zorder=0, lw=0)
    ax.set_yscale("logit")
    lo, hi = caught_axis_limits(sim["caught_low"], sim["caught_high"])
    ax.set_ylim(lo, hi)
    ticks = [t for t in CAUGHT_TICKS if lo <= t <= hi]
    ax.set_yticks(ticks, [f"{100 * t:g}%" for t in ticks])
    ax.minorticks_off()
    ax.set_xticks(np.arange(len(ids)))
    ax.set_xticklabels(ids, rotation=90, fontsize=8)
    ax.set_xlim(-0.5, len(ids) - 0.5)
    ax.set_ylabel("share of the games with the card in play\nin which it is caught "
                  "(logit scale)")
    ax.grid(axis="y", alpha=0.3)
    names = [a.strip() for a in agents.split(",") if a.strip()]
    who = (f" ({names[0]} in every seat)" if len(names) == 1 else
           f" (agents {', '.join(names)} cycled over the seats)" if names else "")
    ax.set_title(f"How often is each fish caught?{who}\nShare of games, by player count, with "
                 f"95% Wilson intervals", fontsize=11)
    ax.legend(loc="upper left", bbox_to_anchor=(1.005, 1.0), fontsize=8, frameon=False)
    ax.text(1.005, 0.0, CAUGHT_SCALE_NOTE, transform=ax.transAxes, fontsize=7.5, color="0.3",
            ha="left", va="bottom", wrap=False)
    fig.tight_layout()
    _save(fig, path)
    if path is not None:
        plt.close(fig)
    return fig


# ---------------------------------------------------------------- the whole report
def _fmt(x, nd=2):
    if isinstance(x, (float, np.floating)):
        return "" if np.isnan(x) else f"{x:.{nd}f}"
    return str(x)


def _md_table(df: pd.DataFrame, nd=2) -> str:
    head = "| " + " | ".join(df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(_fmt(v, nd) for v in row) + " |"
            for row in df.itertuples(index=False)]
    return "\n".join([head, sep] + body)


def default_out_dir(deck: D.Deck, deep_waters: bool) -> Path:
    """``results/lure/<base|deep_waters>``, prefixed with the deck file's stem for a deck that
    is not the shipped default (``results/lure/mydeck_base``)."""
    tag = "deep_waters" if deep_waters else "base"
    stem = "" if deck.source == str(D.DEFAULT_DECK_PATH) else Path(deck.source).stem + "_"
    return Path("results") / "lure" / f"{stem}{tag}"


def run_balance(deck: D.Deck | None = None, players=(2, 3, 4, 5), deep_waters: bool = False,
                agents=DEFAULT_AGENTS, n_games: int = BALANCE_GAMES, seed: int = 0, out=None,
                n_jobs: int = 1, batch_size: int = 5000, command: str = "",
                progress: bool = False, backend: str = "loky", scheduler: str | None = None,
                overwrite: bool = False, compare_agents=None) -> Path:
    """Compute and write the balance report; returns the output folder.

    Files: ``cards.csv`` (exact odds and fit), ``simulated.csv`` (per card x player count),
    ``games.csv`` (per player count), ``points_vs_difficulty.png``, ``catch_heatmaps.png``,
    ``caught_by_players.png``, ``metadata.json``, ``report.md`` (all written atomically). The
    runner's partial results go to ``<out>/_partial/`` (a re-run with the same settings resumes
    there; a finished run removes them). ``out`` defaults to :func:`default_out_dir`.
    ``agents``: Lure policy names cycled over the seats (default ``net``, the learned policy:
    :data:`experiments.lure.defaults.DEFAULT_AGENTS`). ``n_games`` per player count;
    ``seed``, ``batch_size``: the runner's (the numbers depend on them, not on ``n_jobs`` or
    ``backend``).

    Every card is judged (:mod:`experiments.lure.fair_points`): its points against the
    curve (exact) and, in play, on two independent seed sets (``seed`` and
    :func:`experiments.lure.fair_points.seed_sets`' second; ``n_games`` per player count each,
    runner state in ``<out>/_partial/set_b/``): ``verdicts.csv``, ``simulated_set_b.csv``.
    ``compare_agents`` (names, or ``None``: no comparison; the command line's default is
    ``heuristic``): both seed sets are also played by them (``<out>/_partial/compare*/``) and
    a play verdict changes between the players only when both decided it
    (``players_verdicts.csv``, ``compare_simulated*.csv``, ``compare_games.csv``).
    The exact odds do not depend on the players.

    A folder holding a finished report of the same settings is returned as it is (nothing is
    played or written); one holding another report, another run or report files that no run
    recorded is refused unless ``overwrite`` (:func:`claim_balance_folder`).

    Raises:
        ValueError: no player count, a player count outside 2..5, unknown agents, n_games < 1,
            bad runner options, partial results of another experiment in ``out``, or a folder
            refused as above.
    """
    deck = deck if deck is not None else D.default_deck()
    players = sorted(set(int(p) for p in players))
    if not players or any(not 2 <= p <= 5 for p in players):
        raise ValueError(f"player counts {players}; expected values in 2..5")
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games = {n_games!r}; expected an integer >= 1")
    agents = [agents] if isinstance(agents, str) else list(agents)
    compare = ([compare_agents] if isinstance(compare_agents, str)
               else list(compare_agents or [])) or None
    if compare:
        balance_cells(deck, players, deep_waters, compare)  # unknown names: before any work
    out = Path(out) if out is not None else default_out_dir(deck, deep_waters)
    settings = balance_settings(deck, players, deep_waters, agents, n_games, seed, batch_size,
                                compare)
    if claim_balance_folder(out, settings, overwrite).finished:
        return out
    t0 = time.perf_counter()
    cards, table = card_table(deck, deep_waters)
    cards, fit = add_fit(cards)
    sim, games, res = simulate(deck, players, deep_waters, agents, int(n_games), seed,
                               n_jobs=n_jobs, batch_size=batch_size, backend=backend,
                               scheduler=scheduler, out_dir=out / "_partial",
                               progress=progress, overwrite=overwrite)
    sim = sim[sim["id"].isin(cards["id"])].reset_index(drop=True)
    from experiments.lure.balance_verdicts import play_verdicts, write_verdict_files

    cmp = play_verdicts(deck, cards, fit, sim, players, deep_waters, agents, compare, n_games,
                        seed, out / "_partial", n_jobs=n_jobs, batch_size=batch_size,
                        backend=backend, scheduler=scheduler, progress=progress,
                        overwrite=overwrite)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / "cards.csv", cards.to_csv(index=False))
    atomic_write_text(out / "simulated.csv", sim.to_csv(index=False))
    atomic_write_text(out / "games.csv", games.to_csv(index=False))
    write_verdict_files(out, cmp)
    plot_points_vs_difficulty(cards, fit, out / "points_vs_difficulty.png")
    plot_heatmaps(cards, table, deep_waters, out / "catch_heatmaps.png")
    plot_caught(sim, out / "caught_by_players.png", agents=", ".join(agents))
    from experiments.runner import speed_summary

    sim_games = int(res.games.sum())
    meta = {
        "experiment": EXPERIMENT, "settings": settings,
        "command": command or "experiments.lure.balance.run_balance", "deck": _rel(deck.source),
        "deck_sha256": deck.sha256(), "deep_waters": bool(deep_waters), "players": players,
        "agents": agents, "n_games_per_player_count": int(n_games), "seed": int(seed),
        "seeding": ("runner: batch b (batch_size games) of every player count has "
                    "SeedSequence(seed, spawn_key=(b,)); game g of that batch has the seed word "
                    "chance.game_seed(chance.batch_word(that SeedSequence), g)"),
        "batch_size": int(batch_size), "n_jobs": n_jobs, "backend": backend,
        "fit": fit,
        "wall_seconds": time.perf_counter() - t0,
        "simulation_seconds": res.wall_time,
        "games_simulated": sim_games,
        "games_played_this_run": int(res.games_played),
        **speed_summary(res),
        "resumed_batches": int(res.resumed_batches),
        "machine": machine_info(),
        "code_version": code_version(),
    }
    from experiments.lure.fair_points import verdict_counts

    meta.update({"seed_sets": list(cmp["seeds"]),
                 "simulation_seconds_set_b": cmp["res_b"].wall_time,
                 "resumed_batches_set_b": int(cmp["res_b"].resumed_batches),
                 "verdicts": verdict_counts(cmp["verdicts"])})
    if compare:
        ch = cmp["players"][cmp["players"]["status"] == "changes"]
        meta.update({"compare_agents": compare,
                     "compare_simulation_seconds": cmp["compare_res"].wall_time
                     + cmp["compare_res_b"].wall_time,
                     "compare_games_simulated": int(cmp["compare_res"].games.sum()),
                     "compare_resumed_batches": int(cmp["compare_res"].resumed_batches
                                                    + cmp["compare_res_b"].resumed_batches),
                     "verdict_changes": list(ch["id"])})
    try:
        meta["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:  # pragma: no cover - not POSIX
        pass
    write_json(out / "metadata.json", meta)
    atomic_write_text(out / "report.md",
                      _report_md(deck, cards, sim, games, fit, meta, deep_waters, cmp))
    from experiments.outputs import finish_partial

    finish_partial(out)  # the runner's partial results: a finished folder holds its results
    return out


EXPERIMENT = "lure balance"
"""The experiment name in the ``settings`` of a balance report's ``metadata.json``."""
OUTPUT_FILES = ("cards.csv", "simulated.csv", "games.csv", "points_vs_difficulty.png",
                "catch_heatmaps.png", "caught_by_players.png", "metadata.json", "report.md",
                "verdicts.csv", "simulated_set_b.csv", "players_verdicts.csv",
                "compare_simulated.csv", "compare_simulated_set_b.csv", "compare_games.csv")
"""The files :func:`run_balance` writes."""


def balance_settings(deck: D.Deck, players, deep_waters: bool, agents, n_games: int,
                     seed: int, batch_size: int, compare_agents=None) -> dict:
    """What determines a balance report's numbers (``settings`` in its ``metadata.json``):
    the deck's SHA-256, Deep Waters, player counts, agents, games per player count, seed and
    batch size, and the compared agents when there are any (a report without a comparison
    has no such key, as reports written before it)."""
    out = {"experiment": EXPERIMENT, "deck_sha256": deck.sha256(),
           "deep_waters": bool(deep_waters), "players": sorted(int(p) for p in players),
           "agents": list(agents), "games": int(n_games), "seed": int(seed),
           "batch_size": int(batch_size)}
    if compare_agents:
        out["compare_agents"] = list(compare_agents)
    return out


def _legacy_settings(meta: dict) -> dict:
    """:func:`balance_settings` from a ``metadata.json`` written before it stored them."""
    if "n_games_per_player_count" not in meta:
        return {"experiment": meta.get("experiment") or meta.get("kind") or "other"}
    return {"experiment": EXPERIMENT, "deck_sha256": meta["deck_sha256"],
            "deep_waters": bool(meta["deep_waters"]), "players": meta["players"],
            "agents": meta["agents"], "games": meta["n_games_per_player_count"],
            "seed": meta["seed"], "batch_size": meta["batch_size"]}


def claim_balance_folder(out, settings: dict, force: bool):
    """:func:`experiments.outputs.claim_folder` for a balance report: a
    :class:`experiments.outputs.Claim` (``finished`` when ``out`` holds this report), or
    ``ValueError`` naming the folder, what is there and ``--force``."""
    from experiments.outputs import check_writable, claim_folder

    claim = claim_folder(out, experiment=EXPERIMENT, settings=settings, outputs=OUTPUT_FILES,
                         force=force, legacy=_legacy_settings)
    if not claim.finished:
        check_writable(out)
    return claim


def flagged_lines(cards: pd.DataFrame, fit: dict) -> list[str]:
    """The flagged cards of a card table (:func:`add_fit`) as terminal lines: id, name,
    points, the curve's fair points and the flag; one line saying none when none is."""
    flagged = cards[cards["flag"].fillna("") != ""]
    if not len(flagged):
        return [f"no card lies off the points curve by {fit['threshold']:.2f} points or more"]
    out = [f"{len(flagged)} flagged card(s) (off the points curve by {fit['threshold']:.2f} "
           "points or more):"]
    for _, r in flagged.iterrows():
        fair = "-" if not np.isfinite(r["fair_points"]) else f"{r['fair_points']:.0f}"
        out.append(f"  {r['id']:<5} {str(r.get('name', '')):<18} {int(r['points']):>3} points, "
                   f"fair {fair:>3}: {r['flag']}")
    return out


def _rel(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _report_md(deck, cards, sim, games, fit, meta, deep, found) -> str:
    """The text of ``report.md``; ``found``: :func:`experiments.lure.balance_verdicts.
    play_verdicts`' result (the verdicts, and the comparison with ``meta["compare_agents"]``
    when there is one)."""
    from experiments.lure.fair_points import RECONSTRUCTION_NOTE, verdict_markdown

    players = meta["players"]
    default = deck.source == str(D.DEFAULT_DECK_PATH)
    L = [f"# Lure fish-card balance report: {'Deep Waters' if deep else 'base game'}", ""]
    L += [f"Deck: `{Path(deck.source).name}` (sha256 `{deck.sha256()[:12]}`)."
          + (" " + RECONSTRUCTION_NOTE if default else ""),
          f"Cards in the report: {len(cards)}"
          + (" (30 base + 15 Deep Waters; each game shuffles them and removes 15 at random)."
             if deep else " (the base set)."),
          f"Simulated: {meta['n_games_per_player_count']} games per player count in each of "
          f"two seed sets ({', '.join(map(str, players))} players), agents "
          f"**{', '.join(meta['agents'])}** "
          f"(seats cycle through the list), seeds {meta['seed_sets'][0]} and "
          f"{meta['seed_sets'][1]} "
          f"(batches of {meta['batch_size']} games; the numbers do not depend on the number of "
          f"workers)"
          + (f"; the same games played by **{', '.join(meta['compare_agents'])}** for the "
             f"verdict comparison." if meta.get("compare_agents") else "."),
          f"Command: `{meta['command']}`", ""]
    L += ["## How to read this", "",
          "* **P(…)**: exact probability that the loadout meets the card (all dice rolled at once;"
          " adjust lures applied in the best way; a card that requires a lure is given one"
          " boost, i.e. a lure that changes no die: the token it costs is not in the"
          " difficulty, so such cards may look over-valued).",
          "* **cheapest 50% / 90%**: the dice-only loadout with the fewest dice (then fewest"
          " special dice) reaching that probability; *with lures* (in `cards.csv`): the same"
          " over lure plans too (none, a boost, one or two adjusts, one extra-die lure; then"
          " fewest lure tokens).",
          "* **EV/die**: points x P(catch) / dice committed, at the best dice-only loadout.",
          "* **difficulty** D = -ln(mean P over every dice loadout: 0-5 d6 x every subset of the"
          " special dice). A robustly fitted quadratic (soft-l1 loss; cards more than 3 robust"
          " sigmas off the first pass set aside, so a few broken cards do not bend it) gives"
          " the points a card of that difficulty should carry; cards off it by at least"
          f" {fit['threshold']:.2f} points (max(2, 1.5 x robust sigma)) are flagged.",
          "* **Simulated**: share of games (where the card was in play) in which it was caught"
          " with a 95% Wilson interval; the round it was caught in and how many rounds it lay on"
          " the table first; the share caught by the first group to act and the mean turn-order"
          " rank of the catcher's group (0 = first); and the win rate of its catcher minus that"
          " of the other players of the same games (95% Newcombe interval; ties share the"
          " win). A positive difference that is large for a cheap card points to a card that"
          " decides games.", ""]
    flagged = cards[cards["flag"] != ""]
    L += ["## Summary", ""]
    co = fit["coefficients"]
    L += [f"Fitted curve: points = {co[0]:.3f} D^2 + {co[1]:.3f} D + {co[2]:.3f}"
          f" ({fit.get('method', 'least-squares')} fit; robust sigma "
          f"{fit.get('scale', fit['rmse']):.2f},"
          f" RMSE {fit['rmse']:.2f} points"
          + (f"; set aside from the fit: {', '.join(fit['outliers'])}" if fit.get("outliers")
             else "") + ").", ""]
    if len(flagged):
        L += ["Flagged cards:", ""]
        L += [_md_table(flagged[["id", "points", "catch_number", "requirements", "difficulty",
                                 "fair_points", "residual", "flag"]])]
    else:
        L += ["No card lies off the curve by more than the threshold."]
    L += ["", "![points vs difficulty](points_vs_difficulty.png)", ""]
    L += verdict_markdown(found["verdicts"], fit["threshold"], meta["n_games_per_player_count"],
                          found["seeds"], ", ".join(meta["agents"]), found.get("players"),
                          ", ".join(meta.get("compare_agents") or []))
    L += ["## Exact odds per card", ""]
    pcols = [c for c in cards.columns if c.startswith("p_")]
    show = cards[["id", "points", "catch_number", "requirements"] + pcols
                 + ["cheapest_50", "cheapest_90", "ev_per_die_best", "ev_per_die_loadout",
                    "difficulty", "fair_points", "flag"]]
    L += [_md_table(show), "", "![catch probability heatmaps](catch_heatmaps.png)", ""]
    L += [f"## Simulated games ({', '.join(meta['agents'])})", ""]
    g = games.copy()
    g["rounds (sd)"] = [f"{r.mean_rounds:.2f} ({r.sd_rounds:.2f})" for r in g.itertuples()]
    g["seat win shares"] = [" / ".join(f"{r[f'seat_{p}_win']:.3f}" for p in range(r["players"]))
                            for _, r in g.iterrows()]
    g["mean scores"] = [" / ".join(f"{r[f'seat_{p}_score']:.1f}" for p in range(r["players"]))
                        for _, r in g.iterrows()]
    L += ["Per player count: game length in rounds, decisions per game, games cut at the"
          " length bound, and each seat's win share (ties shared) and mean score, seat 0"
          " first.", ""]
    L += [_md_table(g[["players", "games", "rounds (sd)", "mean_decisions", "truncated",
                       "seat win shares", "mean scores"]], nd=1), ""]
    for n in players:
        s = sim[sim["players"] == n].copy()
        s["caught (95% CI)"] = [f"{r.caught_rate:.2f} ({r.caught_low:.2f}-{r.caught_high:.2f})"
                                for r in s.itertuples()]
        s["win diff (95% CI)"] = [
            f"{r.win_diff:+.3f} ({r.win_diff_low:+.3f}..{r.win_diff_high:+.3f})"
            if np.isfinite(r.win_diff) else "" for r in s.itertuples()]
        L += [f"### {n} players ({meta['n_games_per_player_count']} games)", ""]
        L += [_md_table(s[["id", "in_play", "caught (95% CI)", "mean_round",
                           "mean_rounds_on_table", "first_group_share", "mean_turn_rank",
                           "win_catcher", "win_others", "win diff (95% CI)"]]), ""]
    L += ["![caught by player count](caught_by_players.png)", ""]
    L += ["## Files", "", "* `cards.csv`: exact odds, fit and flags per card",
          "* `simulated.csv`: simulated statistics per card and player count",
          "* `games.csv`: game length and seat win shares per player count",
          "* `verdicts.csv`: every card's verdict, the odds' and play's numbers on both seed "
          "sets and the reasons; `simulated_set_b.csv`: the second seed set's games",
          *(["* `players_verdicts.csv`: the play verdicts with both sets of players; "
             "`compare_simulated.csv`, `compare_simulated_set_b.csv`, `compare_games.csv`: the "
             "compared players' games"] if found.get("players") is not None else []),
          "* `metadata.json`: command, agents, deck hash, seed, sizes, wall time, machine, "
          "load, code version", ""]
    return "\n".join(L)
