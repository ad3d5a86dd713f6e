"""Write ``old_engine_games.json``: whole games of the pre-protocol Rats engine (commit 4d0b703,
checked out at ``/work/old``) with the deterministic policies ``greedy`` and ``heuristic``,
from fixed seed words. ``test_rats_golden.py`` replays the same seed words on the new engine
(card-by-card leads) and checks that every game ends the same way: the rules did not change and
the policies pick the same leads.

Run (imports the OLD engines): ``cd /work/old && PYTHONPATH=/work/old
/work/main/.venv/bin/python /work/main/tests/rats/make_old_golden.py``.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np

from engines.rats import RatsConfig
from engines.rats.batch import play_games
from agents.rats import resolve

CASES = [
    ({"n_players": 2}, ["greedy", "heuristic"]),
    ({"n_players": 3}, ["heuristic", "greedy", "greedy"]),
    ({"n_players": 4}, ["greedy"] * 4),
    ({"n_players": 4}, ["heuristic", "greedy", "heuristic", "greedy"]),
    ({"n_players": 5}, ["heuristic"] * 5),
    ({"n_players": 4, "ace_high_sequences": True, "sequence_tie": "earlier",
      "joker_sequence_reading": "weakest", "joker_pair_rank": 3},
     ["greedy", "heuristic", "greedy", "heuristic"]),
    ({"n_players": 3, "max_rounds": 3, "max_rounds_tie": "none", "first_leader": 1},
     ["greedy", "heuristic", "heuristic"]),
    ({"n_players": 2, "round_cap": 4}, ["heuristic", "heuristic"]),
]
N_GAMES = 150


def main() -> None:
    out = {"source_commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                           capture_output=True, text=True).stdout.strip(),
           "n_games": N_GAMES, "cases": []}
    for i, (cfg_d, pols) in enumerate(CASES):
        cfg = RatsConfig(**cfg_d)
        n = cfg.n_players
        seeds = np.random.SeedSequence(1000 + i).generate_state(N_GAMES, np.uint64).view(np.int64)
        kinds, params = resolve(pols, n)
        wins = np.zeros((N_GAMES, n))
        places = np.zeros((N_GAMES, n), dtype=np.int64)
        hold = np.zeros((N_GAMES, n), dtype=np.int64)
        elim = np.zeros((N_GAMES, n), dtype=np.int64)
        stats = np.zeros((N_GAMES, 4), dtype=np.int64)
        play_games(cfg.to_array(), seeds, kinds, params, wins, places, hold, elim, stats)
        out["cases"].append({
            "config": cfg_d, "policies": pols, "seed_words": seeds.tolist(),
            "wins": wins.tolist(), "places": places.tolist(), "holdings": hold.tolist(),
            "elim_rounds": elim.tolist(), "rounds": stats[:, 0].tolist(),
            "tricks": stats[:, 2].tolist(), "truncated": stats[:, 3].tolist()})
    path = Path(__file__).with_name("old_engine_games.json")
    path.write_text(json.dumps(out, separators=(",", ":")))
    print(f"wrote {path} ({path.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
