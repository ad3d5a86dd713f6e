"""The verdicts of ``boardlab lure balance``: the second seed set, the compared players, and the
files and report section they make (:mod:`experiments.lure.fair_points` holds the rules).

:func:`play_verdicts` plays the deck's second seed set (and, with compared players, both sets
again with them) on the same runner as the report's first set, each resumable from its own
folder under ``<out>/_partial/``, and judges every card (:func:`experiments.lure.fair_points.
card_verdicts`). :func:`write_verdict_files` writes ``verdicts.csv``, ``simulated_set_b.csv``
and, when comparing, ``players_verdicts.csv``, ``compare_simulated.csv``,
``compare_simulated_set_b.csv``, ``compare_games.csv``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from experiments.io import atomic_write_text
from experiments.lure.fair_points import card_verdicts, compare_players, seed_sets

__all__ = ["VERDICT_FILES", "play_verdicts", "write_verdict_files"]

VERDICT_FILES = ("verdicts.csv", "simulated_set_b.csv", "players_verdicts.csv",
                 "compare_simulated.csv", "compare_simulated_set_b.csv", "compare_games.csv")
"""The files :func:`write_verdict_files` may write."""


def play_verdicts(deck, cards: pd.DataFrame, fit: dict, sim_a: pd.DataFrame, players,
                  deep_waters: bool, agents, compare, n_games: int, seed: int, partial: Path,
                  **runner) -> dict:
    """Judge every card of a balance report.

    Args:
        deck, players, deep_waters, agents, n_games, seed: the report's.
        cards, fit: :func:`experiments.lure.curve.add_fit`'s frame and fit (the curve and
            its threshold, the tolerance of both lenses).
        sim_a: the report's games on the first seed set (``seed``).
        compare: compared players' names or ``None``.
        partial: the folder of the runner states (``set_b``, ``compare``, ``compare_set_b``).
        runner: :func:`experiments.lure.simulation.simulate`'s keyword options.

    Returns ``{"verdicts": card_verdicts frame, "sim_b": frame, "res_b": RunResult,
    "seeds": (a, b)}`` and, with ``compare``: ``"players"`` (:func:`compare_players`),
    ``"compare_verdicts"``, ``"compare_sim"``, ``"compare_sim_b"``, ``"compare_games"``,
    ``"compare_res"`` (the first set's run), ``"compare_res_b"``.
    """
    from experiments.lure.simulation import simulate

    seeds = seed_sets(seed)
    keep = cards["id"]

    def play(who, s, folder):
        sim, games, res = simulate(deck, players, deep_waters, who, int(n_games), s,
                                   out_dir=partial / folder, **runner)
        return sim[sim["id"].isin(keep)].reset_index(drop=True), games, res

    tol = float(fit["threshold"])
    sim_b, _, res_b = play(agents, seeds[1], "set_b")
    out = {"seeds": seeds, "sim_b": sim_b, "res_b": res_b,
           "verdicts": card_verdicts(cards, sim_a, sim_b, players, n_games, tol)}
    if compare:
        ca, games_c, res_c = play(compare, seeds[0], "compare")
        cb, _, res_cb = play(compare, seeds[1], "compare_set_b")
        other = card_verdicts(cards, ca, cb, players, n_games, tol)
        out.update(players=compare_players(out["verdicts"], other), compare_verdicts=other,
                   compare_sim=ca, compare_sim_b=cb, compare_games=games_c, compare_res=res_c,
                   compare_res_b=res_cb)
    return out


def write_verdict_files(out: Path, found: dict) -> None:
    """Write :func:`play_verdicts`' tables into the report folder ``out`` (atomically)."""
    atomic_write_text(out / "verdicts.csv", found["verdicts"].to_csv(index=False))
    atomic_write_text(out / "simulated_set_b.csv", found["sim_b"].to_csv(index=False))
    if "players" in found:
        atomic_write_text(out / "players_verdicts.csv", found["players"].to_csv(index=False))
        atomic_write_text(out / "compare_simulated.csv", found["compare_sim"].to_csv(index=False))
        atomic_write_text(out / "compare_simulated_set_b.csv",
                          found["compare_sim_b"].to_csv(index=False))
        atomic_write_text(out / "compare_games.csv", found["compare_games"].to_csv(index=False))
