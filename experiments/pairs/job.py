"""The main job: River Rats win rates for every ordered pair of Rats (active, waiting).

``boardlab river-rats pairs`` (:func:`run_pairs`) plays, for each player count asked, the 12
ordered pairs of distinct Rat suits on the runner of :mod:`experiments.runner`; batch ``b`` of
every pair and player count uses the same seed (common random numbers), so differences
between pairs are not drowned in deck luck. Results (:func:`pair_table`,
:func:`unordered_table`) give each win rate with its 95% Wilson interval; the plots are in
:mod:`experiments.pairs.plots`. The games are played by the one compiled game loop
(:func:`agents.loop.run_games`); game ``g`` of batch ``b`` has seed
``chance.game_seed(batch_word(b), g)``, as it had before the move to one protocol, so the
committed tables are reproduced exactly.

Rules: ``docs/rules/river_rats.md`` ("Setup" 2 fixes the ordered pair for this experiment).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from experiments.io import write_json
from experiments.options import PAIRS_DEFAULT_AGENT
from experiments.runner import RunResult, run_experiment, speed_summary
from experiments.stats import wilson_interval

__all__ = ["PAIRS", "UNORDERED", "DEFAULT_AGENT", "PairsSpec", "play_pair_batch", "run_pairs",
           "pair_table", "unordered_table", "format_table", "write_outputs"]

SUITS = "CDHS"
PAIRS: tuple[str, ...] = tuple(a + w for a in SUITS for w in SUITS if a != w)
"""The 12 ordered Rat pairs as two suit letters, active Rat first (``"DS"``: ♦ then ♠)."""
UNORDERED: tuple[str, ...] = tuple(a + w for i, a in enumerate(SUITS) for w in SUITS[i + 1:])
"""The 6 unordered pairs (``"CD"`` stands for both ``"CD"`` and ``"DC"``)."""
SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
DEFAULT_AGENT = PAIRS_DEFAULT_AGENT
"""The policy ``make run`` uses for every seat: the strongest shipped heuristic."""

_RATE_FIELDS = ("hands_won", "hands_lost", "rounds", "jokers_earned", "player_debt",
                "rat1_debt", "rat2_debt", "rats_defeated", "n_actions")
SUM_FIELDS = ("rounds", "hands_won", "hands_lost", "player_debt", "rat1_debt", "rat2_debt",
              "rats_defeated", "jokers_earned", "jokers_used", "n_actions")
"""Outcome fields (:data:`engines.river_rats.core.OUTCOME_FIELDS`) summed per cell."""


@dataclass
class PairsSpec:
    """What to run: ``players`` (player counts 1..4), ``agents`` (one policy name for every
    seat, or a list of names dealt round the table: seat ``p`` plays ``agents[p % len]``, the
    same rule at every player count; a list longer than a player count's seats is an error,
    never cut silently), ``rules`` (extra
    :class:`engines.river_rats.RiverRatsConfig` fields such as ``difficulty``), ``games`` per pair
    and
    player count, ``seed``. Raises ``ValueError`` (from :meth:`cells`) for bad values."""

    players: Sequence[int] = (1, 2, 3, 4)
    agents: str | Sequence[str] = DEFAULT_AGENT
    rules: dict[str, Any] = field(default_factory=dict)
    games: int = 10_000
    seed: int = 2026

    def cells(self) -> list[dict]:
        """One runner cell per (player count, ordered pair), validated by building its
        :class:`engines.river_rats.RiverRatsConfig` and resolving its policies."""
        from agents.policy import resolve
        from engines.river_rats import RiverRatsConfig

        bad = sorted(set(self.rules) & {"n_players", "rats"})
        if bad:
            raise ValueError(f"rules may not set {bad}: the experiment sets them per cell")
        if not self.players:
            raise ValueError("players is empty: expected player counts in 1..4")
        out = []
        for n in self.players:
            if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= 4:
                raise ValueError(f"bad player count {n!r}: expected 1..4")
            agents = self._agents_for(int(n))
            for pair in PAIRS:
                cfg = RiverRatsConfig(n_players=int(n), rats=(pair[0], pair[1]), **self.rules)
                resolve("river_rats", agents, cfg.n_players)
                out.append({"players": int(n), "pair": pair, "agents": agents,
                            "config": cfg.to_dict()})
        return out

    def _agents_for(self, n: int) -> list[str]:
        if isinstance(self.agents, str):
            return [self.agents] * n
        names = list(self.agents)
        if len(names) > n:
            raise ValueError(
                f"bad --agents {' '.join(names)}: {len(names)} names but {n} seat"
                f"{'s' if n > 1 else ''} at --players {n}; a list of names is dealt round the "
                f"table (seat p plays name p mod {len(names)}), so give at most {n} name"
                f"{'s' if n > 1 else ''} or only player counts >= {len(names)}")
        return [names[p % len(names)] for p in range(n)]


def play_pair_batch(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict[str, Any]:
    """Runner batch function: play ``n_games`` of one cell with the compiled game loop and
    return its integer sums: ``games``, ``wins``, ``rounds_sq`` (sum of squared rounds),
    ``lost_on_debt``, ``stalled`` and the sum of each of :data:`SUM_FIELDS`."""
    from agents.loop import run_games
    from engines.protocol import chance
    from engines.river_rats import RiverRatsConfig
    from engines.river_rats import core as C

    cfg = RiverRatsConfig.from_dict(cell["config"])
    seeds = chance.game_seeds(chance.batch_word(seed), int(n_games))
    _, out = run_games(cfg, cell["agents"], seeds, game="river_rats")
    f = {k: i for i, k in enumerate(C.OUTCOME_FIELDS)}
    res = {"games": int(n_games), "wins": int(out[:, f["won"]].sum())}
    for k in SUM_FIELDS:
        res[k] = int(out[:, f[k]].sum())
    r = out[:, f["rounds"]]
    res["rounds_sq"] = int((r * r).sum())
    res["lost_on_debt"] = int(((out[:, f["won"]] == 0) & (out[:, f["loss_reason"]]
                                                        == C.LOSS_DEBT)).sum())
    res["stalled"] = int((out[:, f["loss_reason"]] == C.LOSS_STALL).sum())
    return res


def run_pairs(spec: PairsSpec, *, n_jobs: int = 1, backend: str = "loky",
              scheduler: str | None = None, out_dir: str | Path | None = None,
              ci_width: float | None = None, max_games: int | None = None,
              batch_size: int = 5_000, group_batches: int = 16, progress: bool = True,
              overwrite: bool = False) -> tuple[pd.DataFrame, RunResult]:
    """Run the experiment; returns (:func:`pair_table` of the result, the raw
    :class:`experiments.runner.RunResult`). ``out_dir`` holds the partial results (resume)
    and, via :func:`write_outputs`, the final files. Options as in
    :func:`experiments.runner.run_experiment`; raises ``ValueError`` for bad options."""
    cells = spec.cells()
    partial = Path(out_dir) / "_partial" if out_dir is not None else None
    result = run_experiment(
        play_pair_batch, cells, seed=spec.seed, games_per_cell=spec.games,
        batch_size=batch_size, n_jobs=n_jobs, backend=backend, scheduler=scheduler,
        out_dir=partial, ci_width=ci_width, max_games=max_games, success_key="wins",
        group_batches=group_batches, progress=progress, overwrite=overwrite)
    return pair_table(result), result


def pair_table(result: RunResult) -> pd.DataFrame:
    """One row per (player count, ordered pair): ``players, pair, active, waiting, games,
    wins, win_rate, ci_low, ci_high`` (95% Wilson), the means of rounds, hands won and lost,
    jokers earned, debts, Rats defeated (``mean_rats_defeated``: 0..2 per game, 2 in every
    won game: how far the players got), ``other_loss_share`` (share of games lost other than
    on the players' debt: an empty draw under ``empty_draw="lose"``, a stall or a game cut at
    its length limit) and ``stalled_share``.

    There is no share of games "lost on debt": by the rules ("Resolution" 5) the players lose
    when their debt reaches 5, and otherwise only through ``other_loss_share``, so that share
    is ``1 - win_rate - other_loss_share`` and says nothing the win rate does not."""
    rows = []
    for cell, tot in zip(result.cells, result.totals, strict=True):
        g = int(tot["games"])
        w = int(tot["wins"])
        row = {"players": cell["players"], "pair": cell["pair"], "active": cell["pair"][0],
               "waiting": cell["pair"][1], "agents": ",".join(cell["agents"]), "games": g,
               "wins": w}
        for f in _RATE_FIELDS:
            row[f"mean_{f}"] = int(tot[f]) / g if g else np.nan
        lost = g - w
        row["other_loss_share"] = (lost - int(tot["lost_on_debt"])) / g if g else np.nan
        row["stalled_share"] = int(tot["stalled"]) / g if g else np.nan
        rows.append(row)
    df = pd.DataFrame(rows)
    lo, hi = wilson_interval(df["wins"].to_numpy(), df["games"].to_numpy())
    df.insert(df.columns.get_loc("wins") + 1, "win_rate", df["wins"] / df["games"])
    df.insert(df.columns.get_loc("win_rate") + 1, "ci_low", lo)
    df.insert(df.columns.get_loc("ci_low") + 1, "ci_high", hi)
    return df


def unordered_table(pairs: pd.DataFrame) -> pd.DataFrame:
    """The 6 unordered pairs per player count: ``win_rate`` is the mean of the two orders'
    win rates (equal weights, so it does not depend on how many games each order needed
    under ``--ci-width``), with a 95% interval combining the two orders' Wilson intervals by
    the MOVER method (Zou & Donner 2008, "Construction of confidence limits about effect
    measures"); ``games`` and ``wins`` are the two orders' totals."""
    df = pairs.assign(unordered=pairs["pair"].map(lambda p: "".join(sorted(p, key=SUITS.index))))
    rows = []
    for (n, u), g in df.groupby(["players", "unordered"], sort=True):
        rates = g["win_rate"].to_numpy()
        lo = g["ci_low"].to_numpy()
        hi = g["ci_high"].to_numpy()
        k = len(rates)
        rate = rates.mean()
        rows.append({"players": n, "unordered": u, "games": int(g["games"].sum()),
                     "wins": int(g["wins"].sum()), "win_rate": rate,
                     "ci_low": rate - np.sqrt(((rates - lo) ** 2).sum()) / k,
                     "ci_high": rate + np.sqrt(((hi - rates) ** 2).sum()) / k})
    return pd.DataFrame(rows)


ROUNDS_NOTE = ("rounds: collective hands played per game (a round is one hand against the "
               "active Rat: setup, turns, resolution); Rats beaten: Rats defeated per game "
               "(2 in every won game)")
"""The legend under :func:`format_table`: what its ``rounds`` and ``Rats beaten`` columns
count (rules: "Round setup", "Resolution")."""


def format_table(pairs: pd.DataFrame) -> str:
    """A readable text table: per player count, the 12 ordered pairs sorted from easiest to
    hardest with win rate, interval, games, mean rounds and mean Rats defeated (the legend,
    :data:`ROUNDS_NOTE`, says what they count); a column of games lost on other causes than
    debt appears only when a run has any (``other_loss_share``)."""
    lines = []
    other = ("other_loss_share" in pairs.columns
             and float(pairs["other_loss_share"].fillna(0).max()) > 0)
    for n, df in pairs.groupby("players", sort=True):
        lines.append(f"\n{n} player{'s' if n > 1 else ''} "
                     f"(agents: {df['agents'].iloc[0]}), win rate with 95% CI")
        lines.append(f"  {'active':<7}{'waiting':<8}{'win rate':>9}  {'95% CI':<17}{'games':>11}"
                     f"{'rounds':>8}{'Rats beaten':>13}"
                     + (f"{'lost, not on debt':>19}" if other else ""))
        for _, r in df.sort_values("win_rate", ascending=False).iterrows():
            beaten = r.get("mean_rats_defeated", np.nan)
            lines.append(
                f"  {SUIT_SYMBOLS[r.active] + 'K':<7}{SUIT_SYMBOLS[r.waiting] + 'K':<8}"
                f"{100 * r.win_rate:>8.2f}%  [{100 * r.ci_low:5.2f}, {100 * r.ci_high:5.2f}]  "
                f"{r.games:>11,}{r.mean_rounds:>8.2f}{beaten:>13.2f}"
                + (f"{100 * r.other_loss_share:>18.1f}%" if other else ""))
    lines.append(f"\n{ROUNDS_NOTE}")
    return "\n".join(lines)


OUTPUT_FILES = ("pairs.csv", "pairs.parquet", "unordered_pairs.csv", "heatmap.png",
                "unordered_pairs.png", "metadata.json")
"""The files :func:`write_outputs` writes into the output folder."""


def write_outputs(out_dir: str | Path, pairs: pd.DataFrame, result: RunResult,
                  spec: PairsSpec, extra_meta: dict | None = None) -> dict[str, Path]:
    """Write the CSV and Parquet tables, the heatmap and bar chart PNGs and the metadata JSON
    into ``out_dir``, then remove the runner's ``_partial/state.json`` there; returns the paths
    by kind. Every file is written atomically."""
    from experiments.io import atomic_write_bytes
    from experiments.pairs.plots import plot_heatmap, plot_unordered

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    unordered = unordered_table(pairs)
    paths = {"pairs_csv": out / "pairs.csv", "pairs_parquet": out / "pairs.parquet",
             "unordered_csv": out / "unordered_pairs.csv", "heatmap": out / "heatmap.png",
             "bars": out / "unordered_pairs.png", "meta": out / "metadata.json"}
    atomic_write_bytes(paths["pairs_csv"], pairs.to_csv(index=False).encode())
    atomic_write_bytes(paths["pairs_parquet"], pairs.to_parquet(index=False))
    atomic_write_bytes(paths["unordered_csv"], unordered.to_csv(index=False).encode())
    plot_heatmap(pairs, paths["heatmap"])
    plot_unordered(unordered, paths["bars"])
    games = int(pairs["games"].sum())
    meta = dict(result.meta)
    meta.update({
        "experiment": "river-rats pairs",
        "spec": {"players": list(spec.players), "agents": spec.agents, "rules": spec.rules,
                 "games_per_pair": spec.games, "seed": spec.seed},
        "configs": {f"{c['players']}p_{c['pair']}": c["config"] for c in result.cells},
        "games_total": games,
        "wall_time_s": result.wall_time, "setup_time_s": result.setup_time,
        **speed_summary(result),
        "written_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    })
    if extra_meta:
        meta.update(extra_meta)
    write_json(paths["meta"], meta)
    from experiments.outputs import finish_partial

    finish_partial(out)  # the runner's partial results: a finished folder holds its results
    return paths
