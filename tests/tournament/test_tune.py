"""Tuning (experiments.tournament_tune): the field's line-ups, every candidate on the same deals,
improvement from a bad start confirmed on fresh deals, the saved agent usable by name."""

import json

import numpy as np
import pytest

from experiments.tournament import run_tournament
from experiments.tournament_tune import evaluate, field_tables, tune
from experiments.tournament_games import AgentRef, get_adapter


def test_field_tables():
    assert field_tables(3, 3, False) == [(0, 1, 2), (0, 1, 3), (0, 2, 3)]
    assert field_tables(1, 4, False) == [(0, 1, 1, 1)]
    assert field_tables(2, 4, False) == [(0, 1, 2, 1)]
    assert field_tables(0, 4, True) == [(0, 0, 0, 0)]
    with pytest.raises(ValueError, match="field is empty"):
        field_tables(0, 3, False)


def test_candidates_share_their_deals():
    """Equal vectors get exactly equal objectives (common random numbers)."""
    ad = get_adapter("recurring")
    field = [ad.resolve(AgentRef("greedy", "greedy"))]
    x = ad.registry_params("heuristic")
    y = x.copy()
    y[6] = 5.0  # pass a lot
    obj = evaluate("recurring", "heuristic", [x, y, x], field, 3, 20, seed=1, batch_size=10)
    assert obj[0] == obj[2] and obj[0] != obj[1]


def test_tuning_from_a_bad_start_improves_and_beats_it_on_fresh_deals(tmp_path):
    ad = get_adapter("recurring")
    bad = ad.registry_params("heuristic")
    bad[6] = 8.0  # pass_bias: pass whenever allowed, a poor way to play
    r = tune("recurring", "heuristic", field_agents="greedy", n_players=3, n_deals=40,
             n_random=6, refine_rounds=2, tune_params=["pass_bias"], start=bad, name="fixed",
             seed=3, batch_size=20, validate_deals=60, agents_root=tmp_path)
    assert r.best_objective > r.start_objective + 0.1
    assert r.best[6] < 8.0 and np.array_equal(np.delete(r.best, 6), np.delete(bad, 6))
    v = r.validation
    row = v.pairwise.query("agent == 'fixed' and opponent == 'heuristic_start'").iloc[0]
    assert row.verdict == "better"
    saved = json.loads((tmp_path / "recurring" / "agents" / "fixed.json").read_text())
    assert saved["base"] == "heuristic" and saved["params"] == r.best.tolist()
    assert saved["evaluations"] == r.evaluations
    # the saved agent is a name in tournaments
    t = run_tournament("recurring", "fixed,greedy", 3, 6, rating_deals=0, save=False,
                       agents_root=tmp_path)
    assert t.agents.loc["fixed", "params"].split()[6] == f"{r.best[6]:.4g}"


def test_tune_rejects_untunable_agents_and_unknown_parameters():
    with pytest.raises(ValueError, match="no tunable parameters"):
        tune("rats", "greedy", n_deals=4, save=False)
    with pytest.raises(ValueError, match="unknown parameter 'nope'"):
        tune("rats", "heuristic", tune_params=["nope"], n_deals=4, save=False)
