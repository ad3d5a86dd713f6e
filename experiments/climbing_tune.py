"""Random search over the ``heuristic`` parameter vector of the Rats / ReCURRRing agents.

Each candidate plays seat ``s`` against ``n_players - 1`` ``greedy`` seats for every seat ``s``
(common random numbers: the same seeds for all candidates); its score is its mean win share
(Rats: per game; ReCURRRing: per 3-game match). Candidates are the current default plus
``n_candidates`` vectors drawn around it (Gaussian steps of the given scale, from
``np.random.default_rng(seed)``). Used to set :data:`agents.rats.HEURISTIC_DEFAULT` and
:data:`agents.recurring.HEURISTIC_DEFAULT`; the command is in the README (section climbing).

Run: ``python -m experiments.climbing_tune {rats,recurring} [--players 4] [--candidates 200]
[--games 2000] [--seed 0]``.
"""

from __future__ import annotations

import argparse

import numpy as np


def score(game: str, params: np.ndarray, n_players: int, n_games: int, seed: int) -> float:
    """Mean win share of ``("heuristic", params)`` in each seat against greedy seats."""
    if game == "rats":
        from engines.rats import RatsConfig, play_batch

        cfg = RatsConfig(n_players=n_players)
    else:
        from engines.recurring import RecurringConfig, match_results, play_batch

        cfg = RecurringConfig(n_players=n_players)
    per_seat = max(3, n_games // n_players // 3 * 3)
    total = 0.0
    for seat in range(n_players):
        pol = ["greedy"] * n_players
        pol[seat] = ("heuristic", params)
        df = play_batch(cfg, pol, per_seat, seed=seed + seat)
        if game == "recurring":
            df = match_results(df, cfg)
        total += float(df[f"win_{seat}"].mean())
    return total / n_players


def random_search(game: str, n_players: int = 4, n_candidates: int = 200, n_games: int = 2000,
                  seed: int = 0, scale: float = 0.5) -> tuple[np.ndarray, float]:
    """Best parameter vector found and its score (see the module docstring). Raises
    ``ValueError`` for an unknown game."""
    if game == "rats":
        from agents.rats import HEURISTIC_DEFAULT
    elif game == "recurring":
        from agents.recurring import HEURISTIC_DEFAULT
    else:
        raise ValueError(f"game {game!r}: expected 'rats' or 'recurring'")
    rng = np.random.default_rng(seed)
    best = HEURISTIC_DEFAULT.copy()
    best_s = score(game, best, n_players, n_games, seed)
    for _ in range(n_candidates):
        cand = best + rng.normal(0.0, scale, size=best.shape) * np.maximum(np.abs(best), 0.2)
        s = score(game, cand, n_players, n_games, seed)
        if s > best_s:
            best, best_s = cand, s
    return best, best_s


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="random search of heuristic parameters")
    ap.add_argument("game", choices=("rats", "recurring"))
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--candidates", type=int, default=200)
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args(argv)
    best, s = random_search(a.game, a.players, a.candidates, a.games, a.seed)
    print(f"best score {s:.4f} (fair share {1 / a.players:.3f}) with params")
    print(np.array2string(best, precision=3, separator=", "))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
