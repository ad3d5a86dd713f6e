"""Calibrating how far ``net`` trusts its prior: the gate bias ``bh`` of the prior policy's
choice (:mod:`agents.net`) is shifted by each value of a grid and the shift that plays best on
seeded calibration deals is kept (team win rate at the calibration player count, or the
duplicate difference against the heuristic). A student that imitates a search teacher by
argmax over-plays the teacher's most frequent action where it is unsure (ReCURRRing's
``pass``); a larger bias makes it deviate from the heuristic only where it is confident.
The calibration deals come from their own seed, never the evaluation's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

__all__ = ["calibrate", "GRID"]

GRID = (-1.0, -0.5, 0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
"""Shifts of the gate bias tried (teacher logits' units)."""


def _shifted(path: Path, delta: float, out: Path) -> Path:
    with np.load(path, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    data["bh"] = data["bh"] + np.float32(delta)
    np.savez(out, **data)
    return out


def calibrate(weights, players: int, deals: int = 1000, seed: int = 777, grid=GRID,
              log=print) -> dict:
    """Shift the gate bias of weights file ``weights`` (rewritten in place) by the best of
    ``grid`` on ``deals`` calibration deals at ``players`` players; returns ``{"shift",
    "scores"}`` (also stored in the file's ``meta["info"]["calibration"]``). Raises
    ``ValueError`` for a bad weights file."""
    from agents.net import load, use_weights
    from experiments.learn.evaluate import TEAM_GAMES, duplicate, team

    p = Path(weights)
    meta = load(p, json.loads(str(np.load(p)["meta"]))["game"])["meta"]
    game = meta["game"]
    scores = {}
    tmp = p.with_name(p.stem + ".calibrating.npz")
    try:
        for d in grid:
            use_weights(game, _shifted(p, d, tmp))
            if game in TEAM_GAMES:
                s = team(game, ["net"], players, deals, seed)[0]["rate"]
            else:
                s = duplicate(game, ["net"], players, deals, seed)[0]["diff"]
            scores[float(d)] = float(s)
            log(f"  gate shift {d:+.1f}: {s:+.4f}")
    finally:
        use_weights(game, None)
    best = max(scores, key=lambda k: (scores[k], -abs(k)))
    with np.load(p, allow_pickle=False) as z:
        data = {k: z[k] for k in z.files}
    data["bh"] = data["bh"] + np.float32(best)
    meta.setdefault("info", {})["calibration"] = {"players": int(players), "deals": int(deals),
                                                  "seed": int(seed), "shift": best,
                                                  "scores": scores}
    data["meta"] = np.array(json.dumps(meta, default=float))
    np.savez_compressed(p, **data)
    tmp.unlink(missing_ok=True)
    load(p, game)
    return {"shift": best, "scores": scores}
