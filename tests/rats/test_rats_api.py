"""Rats door 1 (step API) vs door 2 (play_batch), records that replay, illegal actions and bad
configurations rejected with clear errors, and the agents' protocol."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.rats import REGISTRY, Agent, make_agent
from engines.rats import RatsConfig, new_game, play_batch, replay
from engines.rats import core as C
from engines.splitmix import seat_streams, seed_word


def drive(config, names, seed, game_index):
    """Play one game through the step API with the registry's agents and the batch's seeding."""
    g = new_game(config, seed, game_index)
    agents = [make_agent(n) for n in names]
    rngs = seat_streams(np.int64(seed_word(seed, game_index)), config.n_players)
    while not g.is_terminal():
        p = g.current_player()
        g.apply_action(agents[p](g, rngs[p:p + 1]))
    return g


@pytest.mark.parametrize("n,names", [
    (2, ["greedy", "random"]),
    (3, ["random", "heuristic", "greedy"]),
    (4, ["greedy", "greedy", "random", "heuristic"]),
    (5, ["random"] * 5),
])
def test_step_api_equals_batch(n, names):
    """The same seed and policies give identical games through both doors."""
    cfg = RatsConfig(n_players=n)
    df = play_batch(cfg, names, 6, seed=42)
    for i in range(6):
        g = drive(cfg, names, 42, i)
        row = df.iloc[i]
        assert [row[f"win_{p}"] for p in range(n)] == g.returns().tolist()
        assert [row[f"place_{p}"] for p in range(n)] == g.places().tolist()
        assert row["decisions"] == len(g.history) == g.state[C.DECISIONS]
        assert row["rounds"] == g.state[C.ROUND]


def test_batch_is_reproducible_and_prefix_stable():
    """Same seed -> same frame; game i does not depend on the batch size."""
    cfg = RatsConfig(n_players=4)
    a = play_batch(cfg, ["greedy", "random", "random", "heuristic"], 20, seed=7)
    b = play_batch(cfg, ["greedy", "random", "random", "heuristic"], 20, seed=7)
    c = play_batch(cfg, ["greedy", "random", "random", "heuristic"], 5, seed=7)
    assert a.equals(b)
    assert a.iloc[:5].reset_index(drop=True).equals(c)
    d = play_batch(cfg, ["greedy", "random", "random", "heuristic"], 20, seed=8)
    assert not a.equals(d)


def test_record_replays_to_the_same_game():
    """A JSON record replays to the identical state and outcome."""
    g = drive(RatsConfig(n_players=3, max_rounds=4), ["greedy", "random", "heuristic"], 3, 2)
    text = g.to_json()
    r = replay(text)
    assert np.array_equal(r.state, g.state)
    assert r.history == g.history
    rec = json.loads(text)
    assert rec["game"] == "rats" and rec["returns"] == g.returns().tolist()


def test_record_with_illegal_action_is_rejected_naming_it():
    g = drive(RatsConfig(n_players=2), ["random", "random"], 1, 0)
    rec = g.to_record()
    rec["actions"][3] = "lead X1"
    with pytest.raises(ValueError, match="record action 3"):
        replay(rec)
    rec = g.to_record()
    rec["returns"] = [0.25] * 2
    with pytest.raises(ValueError, match="differs"):
        replay(rec)
    with pytest.raises(ValueError, match="expected 'rats'"):
        replay({"game": "lure"})


def test_illegal_actions_raise_and_change_nothing():
    g = new_game(RatsConfig(n_players=4), seed=9)
    before = g.state.copy()
    hand1 = g.hand((g.current_player() + 1) % 4)
    with pytest.raises(ValueError, match="illegal action"):
        g.apply_action(1 << hand1[0])  # a card of another seat
    with pytest.raises(ValueError, match="not a legal action"):
        g.apply_action("lead X1 " + "2c" if 0 in hand1 else "lead 2c 2d 2h")
    with pytest.raises(ValueError, match="bad card"):
        g.apply_action("lead 11z")
    with pytest.raises(ValueError):
        g.apply_action(C.KIND_SEQ << C.KIND_SHIFT)
    assert np.array_equal(g.state, before) and g.history == []


def test_ambiguous_lead_text_asks_for_kind():
    from rats_scenarios import scenario
    g = scenario(["7s X1 X2", "2c 3c 4c"])
    with pytest.raises(ValueError, match="ambiguous"):
        g.apply_action("7s X1 X2")
    g.apply_action("run 7s X1 X2")
    assert g.state[C.LEAD_KIND] == C.KIND_SEQ


def test_apply_after_end_raises():
    g = drive(RatsConfig(n_players=2), ["greedy", "greedy"], 0, 0)
    with pytest.raises(ValueError, match="over"):
        g.apply_action(1)
    assert g.current_player() == -1 and len(g.legal_actions()) == 0


@pytest.mark.parametrize("field,value", [
    ("n_players", 1), ("n_players", 6), ("n_players", 2.0), ("first_leader", 4),
    ("ace_high_sequences", "yes"), ("sequence_tie", "first"), ("joker_pair_rank", 13),
    ("joker_sequence_reading", "best"), ("max_rounds", 0), ("max_rounds_tie", "split"),
    ("round_cap", 0),
])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=f"RatsConfig.{field}"):
        RatsConfig(**{field: value})


def test_bad_batch_arguments():
    cfg = RatsConfig(n_players=3)
    with pytest.raises(ValueError, match="3 seats"):
        play_batch(cfg, ["random"] * 2, 5)
    with pytest.raises(ValueError, match="unknown Rats policy 'smart'"):
        play_batch(cfg, ["random", "random", "smart"], 5)
    with pytest.raises(ValueError, match="shape"):
        play_batch(cfg, ["random", "random", ("heuristic", [1.0, 2.0])], 5)
    with pytest.raises(ValueError, match="n_games"):
        play_batch(cfg, ["random"] * 3, -1)
    with pytest.raises(ValueError, match="seed"):
        play_batch(cfg, ["random"] * 3, 2, seed=-5)
    with pytest.raises(ValueError, match="RatsConfig"):
        play_batch({"n_players": 3}, ["random"] * 3, 2)


def test_clone_is_independent_and_str_is_readable():
    g = new_game(RatsConfig(n_players=3), seed=2)
    h = g.clone()
    h.apply_action(h.legal_actions()[0])
    assert g.history == [] and not np.array_equal(g.state, h.state)
    text = str(g)
    assert "Rats, 3 players, round 1" in text and "seat 2" in text


def test_agents_return_legal_actions_and_registry():
    """Every registered policy returns one of the legal actions all game long."""
    assert set(REGISTRY) == {"random", "greedy", "heuristic"}
    for name in REGISTRY:
        g = new_game(RatsConfig(n_players=4), seed=13)
        agent = Agent(name)
        rng = np.array([5], dtype=np.int64)
        while not g.is_terminal():
            a = agent(g, rng)
            assert a in g.legal_actions()
            g.apply_action(a)
    with pytest.raises(ValueError, match="unknown Rats policy"):
        Agent("minimax")


def test_greedy_beats_random():
    """The rule of thumb is better than chance: greedy wins clearly more than 1/4 of 4-player
    games against three random seats (400 games; expected about 0.5)."""
    df = play_batch(RatsConfig(n_players=4), ["greedy", "random", "random", "random"], 400, 1)
    assert df["win_0"].mean() > 0.35
