"""The pre-protocol engine's games, replayed: ``old_engine_games.json`` holds 1,200 whole games
of the old Rats engine (whole-lead mask actions, commit 4d0b703; written by
``make_old_golden.py``) with the deterministic policies ``greedy`` and ``heuristic`` under
eight configurations. The same seed words on the new engine (card-by-card leads, the policies'
plans emitted piece by piece) must end every game identically: places, holdings, elimination
rounds, rounds, tricks, truncation and win shares. Both engines deal with the same
Fisher-Yates shuffle of the game's splitmix64 word, so this checks that neither the rules nor
the policies' choices changed. Decision counts are not compared: they depend on the encoding
(a lead is several decisions, and a set or run that cannot grow still waits for FINISH)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents.loop import run_games
from engines.rats import RatsConfig
from engines.rats import core as C

GOLDEN = json.loads(Path(__file__).with_name("old_engine_games.json").read_text())


@pytest.mark.parametrize("case", GOLDEN["cases"],
                         ids=[f"{c['config']['n_players']}p-{i}"
                              for i, c in enumerate(GOLDEN["cases"])])
def test_new_engine_replays_the_old_engine_games(case):
    cfg = RatsConfig(**case["config"])
    n = cfg.n_players
    ret, out = run_games(cfg, case["policies"], np.array(case["seed_words"], dtype=np.int64))
    col = {f: out[:, i] for i, f in enumerate(C.OUTCOME_FIELDS)}
    seat = lambda name: np.stack([col[f"{name}_{p}"] for p in range(n)], axis=1)  # noqa: E731
    assert np.array_equal(seat("place"), case["places"])
    assert np.array_equal(seat("holding"), case["holdings"])
    assert np.array_equal(seat("elim_round"), case["elim_rounds"])
    assert np.array_equal(col["rounds"], case["rounds"])
    assert np.array_equal(col["tricks"], case["tricks"])
    assert np.array_equal(col["truncated"], case["truncated"])
    assert np.allclose(ret, case["wins"])
