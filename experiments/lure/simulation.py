"""Simulated Lure games for the balance report: one runner cell per player count
(:func:`balance_cells`), a batch function returning integer sums only
(:func:`play_balance_batch`, so the numbers do not depend on the number of workers and a
killed run resumes), and the per-card and per-player-count tables read from those sums
(:func:`card_stats`, :func:`game_stats`); :func:`simulate` runs it all (see
:mod:`experiments.lure.balance`, "Simulation")."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

import numpy as np
import pandas as pd

from engines.lure import decks as D
from engines.lure.config import LureConfig
from experiments.stats import newcombe_difference, wilson_interval

__all__ = ["WIN_UNITS", "CARD_SUMS", "SCORE_BINS", "ROUND_BINS", "balance_cells",
           "play_balance_batch", "card_stats", "game_stats", "simulate", "simulate_cards"]

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
