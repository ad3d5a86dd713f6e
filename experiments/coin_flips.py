"""A Bernoulli experiment with a known success probability: the smallest real example of the
runner's batch-function contract (:mod:`experiments.runner`), used to test the runner itself
(seeding, resume, interval coverage) without a game engine."""

from __future__ import annotations

import time

import numpy as np


def coin_flips(cell: dict, n_games: int, seed: np.random.SeedSequence) -> dict[str, int]:
    """Play ``n_games`` Bernoulli(``cell["p"]``) trials with ``np.random.default_rng(seed)``.

    ``cell``: ``{"p": float in [0, 1]}`` and optionally ``"sleep"`` (seconds per batch, to
    make a batch slow in tests). Returns ``{"games": n_games, "wins": successes,
    "rounds": sum of a die roll per game}``. Raises ``ValueError`` for ``p`` outside [0, 1].
    """
    p = float(cell["p"])
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"cell p={p!r}: expected a probability in [0, 1]")
    if cell.get("sleep"):
        time.sleep(float(cell["sleep"]))
    rng = np.random.default_rng(seed)
    wins = int((rng.random(n_games) < p).sum())
    rounds = int(rng.integers(1, 7, n_games).sum())
    return {"games": n_games, "wins": wins, "rounds": rounds}
