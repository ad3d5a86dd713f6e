"""Rats behind the one protocol: the step API equals ``agents.loop.play_batch`` game for game,
records replay, illegal input is rejected with nothing changed, texts and moves parse, bad
configurations are named, and the shipped policies keep the policy protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import rats as A
from agents.loop import play_batch, play_stepwise
from agents.policy import Agent, names, resolve
from engines.protocol import chance
from engines.protocol import GameState, new_game as protocol_new_game
from engines.rats import RatsConfig, RatsState, core, new_game, replay
from engines.rats import core as C
from rats_scenarios import ids, mask, play, scenario

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("n,pols", [
    (2, ["greedy", "random"]),
    (3, ["random", "heuristic", "greedy"]),
    (4, ["greedy", "greedy", "random", "heuristic"]),
    (5, ["random"] * 5),
])
def test_step_api_equals_batch(n, pols):
    """The same seed and policies give identical games through both doors (returns and every
    outcome field)."""
    cfg = RatsConfig(n_players=n)
    df = play_batch(cfg, pols, 6, seed=42)
    for i in range(6):
        word = chance.game_seed(chance.as_word(42), i)
        assert int(df["seed"].iloc[i]) == chance.word_to_seed(word)
        g = play_stepwise(cfg, pols, chance.word_to_seed(word))
        row = df.iloc[i]
        assert [row[f"return_{p}"] for p in range(n)] == g.returns()
        for k, v in g.outcome().items():
            if k != "returns":
                assert row[k] == v, k
        assert row["decisions"] == len(g.history) == g.state[C.DECISIONS]


def test_batch_is_reproducible_and_prefix_stable():
    """Same seed -> same frame; game i does not depend on the batch size."""
    cfg = RatsConfig(n_players=4)
    pols = ["greedy", "random", "random", "heuristic"]
    a = play_batch(cfg, pols, 20, seed=7)
    b = play_batch(cfg, pols, 20, seed=7)
    c = play_batch(cfg, pols, 5, seed=7)
    assert a.equals(b)
    assert a.iloc[:5].reset_index(drop=True).equals(c)
    assert not a.equals(play_batch(cfg, pols, 20, seed=8))
    assert list(a.columns) == ["seed"] + [f"return_{p}" for p in range(4)] + [
        f for f in C.OUTCOME_FIELDS if not f.endswith("_4")]


def test_record_replays_to_the_same_game():
    """A JSON record replays to the identical state and outcome."""
    g = play_stepwise(RatsConfig(n_players=3, max_rounds=4), ["greedy", "random", "heuristic"],
                      3)
    text = g.to_json()
    r = replay(text)
    assert np.array_equal(r.state, g.state) and r.history == g.history
    rec = json.loads(text)
    assert rec["game"] == "rats" and rec["result"]["returns"] == g.returns()
    assert rec["action_texts"][0].startswith("lead ")
    assert RatsConfig.from_dict(rec["config"]) == g.config


def test_record_with_illegal_action_is_rejected_naming_it():
    g = play_stepwise(RatsConfig(n_players=2), "random", 1)
    rec = g.record()
    rec["actions"][3] = C.NUM_DISTINCT_ACTIONS
    with pytest.raises(ValueError, match="record action #3"):
        replay(rec)
    rec = g.record()
    rec["result"]["returns"] = [0.25] * 2
    with pytest.raises(ValueError, match="differs"):
        replay(rec)
    with pytest.raises(ValueError, match="not a boardlab game record"):
        replay({"game": "rats"})


@pytest.mark.parametrize("bad", [3.0, "3", "55", -1, 58, 1000, True, None, np.float64(55),
                                 [55]])
def test_illegal_input_raises_and_changes_nothing(bad):
    g = new_game(RatsConfig(n_players=4), seed=9)
    before = g.state.copy()
    with pytest.raises(ValueError):
        g.apply_action(bad)
    assert np.array_equal(g.state, before) and g.history == []


def test_illegal_actions_raise_and_change_nothing():
    g = new_game(RatsConfig(n_players=4), seed=9)
    before = g.state.copy()
    other = g.hand((g.current_player() + 1) % 4)[0]
    for a in (other, C.FINISH, 0):  # a card while declaring, FINISH before any card
        with pytest.raises(ValueError, match="illegal action"):
            g.apply_action(a)
    with pytest.raises(ValueError, match="no legal action"):
        g.string_to_action("lead 2c 2d 2h 2s X1 X2")
    with pytest.raises(ValueError, match="bad move"):
        g.parse_move("lead 11z")
    with pytest.raises(ValueError, match="no legal lead"):
        g.parse_move("run 2c 9h Kd")
    assert np.array_equal(g.state, before) and g.history == []


def test_apply_after_end_raises():
    g = play_stepwise(RatsConfig(n_players=2), "greedy", 0)
    before = g.state.copy()
    for a in (1, C.LEAD_SINGLE, C.FINISH):
        with pytest.raises(ValueError, match="over"):
            g.apply_action(a)
    with pytest.raises(ValueError, match="over"):
        g.parse_move("7s")
    assert g.current_player() == -1 and g.legal_actions() == []
    assert np.array_equal(g.state, before)


def test_action_texts_and_short_forms():
    g = scenario(["5s 6s 7s 7h X1", "2c 3c 4c 5c 6c"])
    assert [t for _, t in g.legal_action_texts()] == ["lead single", "lead set", "lead run"]
    assert g.string_to_action("run") == C.LEAD_SEQ
    assert g.string_to_action("Lead  SET") == C.LEAD_SET
    g.apply_action(C.LEAD_SEQ)
    assert g.action_to_string(ids(mask("5s"))[0]) == "add 5s"
    assert g.string_to_action("5s") == g.string_to_action("add 5s") == ids(mask("5s"))[0]
    play(g, "5s", "6s", "7s")
    assert g.string_to_action("finish") == g.string_to_action("done") == C.FINISH
    assert g.string_to_action("X2") == 52  # the interchangeable joker the lead may use
    g.apply_action(C.FINISH)
    assert g.action_to_string(ids(mask("2c"))[0]) == "play 2c"
    with pytest.raises(ValueError, match="bad action"):
        g.action_to_string(58)


def test_parse_move_whole_leads_and_plays():
    g = scenario(["7s X1 X2 5d", "2c 3c 4c 5c"])
    with pytest.raises(ValueError, match="ambiguous"):
        g.parse_move("7s X1 X2")
    run = g.parse_move("run 7s X1 X2")
    # nothing can be added after X2, but 5d stays in the hand: the lead waits for FINISH
    assert run == [C.LEAD_SEQ, ids(mask("7s"))[0], 52, 53, C.FINISH]
    assert g.parse_move("set 7s X1 X2") == [C.LEAD_SET, ids(mask("7s"))[0], 52, 53, C.FINISH]
    assert g.parse_move("5d") == [C.LEAD_SINGLE, ids(mask("5d"))[0]]  # a single: no FINISH
    assert g.parse_move("set 7s X1 X2 finish") == g.parse_move("set 7s X1 X2")
    assert g.parse_move("lead set 7s X1") == [C.LEAD_SET, ids(mask("7s"))[0], 52, C.FINISH]
    assert g.history == []
    play(g, "run 7s X1 X2")
    assert g.state[C.LEAD_KIND] == C.KIND_SEQ and g.current_player() == 1
    assert g.history[-2:] == [53, C.FINISH]
    assert g.parse_move("play 2c 4c") == ids(mask("2c 4c"))
    with pytest.raises(ValueError, match="no legal play"):
        g.parse_move("play 2c 3c 4c 5c")
    g2 = scenario(["5s 6s 7s 8s", "2c 3c 4c 5c"])
    play(g2, "run")
    assert g2.parse_move("5s 6s 7s") == ids(mask("5s 6s 7s"))
    assert g2.parse_move("5s 6s 7s finish") == ids(mask("5s 6s 7s")) + [C.FINISH]
    with pytest.raises(ValueError, match="no legal cards"):
        g2.parse_move("5s 7s 8s")
    g2.apply_action(ids(mask("5s"))[0])
    assert g2.parse_move("6s 7s 8s") == ids(mask("6s 7s 8s"))  # empties the hand: no FINISH
    assert g2.parse_move("6s 7s 8s finish") == ids(mask("6s 7s 8s"))
    g3 = scenario(["5s 6s 7s 2c", "2d 3d 4d 5d"])
    assert g3.parse_move("run 5s 6s 7s") == [C.LEAD_SEQ] + ids(mask("5s 6s 7s")) + [C.FINISH]
    play(g3, "run", "5s 6s 7s")
    assert g3.legal_actions() == [C.FINISH] and g3.parse_move("finish") == [C.FINISH]
    assert g3.parse_move("finish lead") == [C.FINISH]
    g4 = scenario(["5s 6s 7s", "2d 3d 4d"])
    assert g4.parse_move("run 5s 6s 7s") == [C.LEAD_SEQ] + ids(mask("5s 6s 7s"))


@pytest.mark.parametrize("field,value", [
    ("n_players", 1), ("n_players", 6), ("n_players", 2.0), ("first_leader", 4),
    ("ace_high_sequences", "yes"), ("sequence_tie", "first"), ("joker_pair_rank", 13),
    ("joker_sequence_reading", "best"), ("max_rounds", 0), ("max_rounds_tie", "split"),
    ("round_cap", 0),
])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=f"RatsConfig.{field} = "):
        RatsConfig(**{field: value})


def test_config_round_trip_and_array():
    cfg = RatsConfig(n_players=3, first_leader=2, ace_high_sequences=True, max_rounds=5,
                     sequence_tie="earlier", joker_sequence_reading="weakest")
    assert RatsConfig.from_dict(cfg.to_dict()) == cfg
    arr = cfg.to_array()
    assert arr.dtype == np.int64 and arr.shape == (C.CONFIG_SIZE,)
    with pytest.raises(ValueError, match="unknown RatsConfig field"):
        RatsConfig.from_dict({"players": 3})
    with pytest.raises(ValueError, match="bad config"):
        new_game(42)
    assert new_game({"n_players": 3}).n_players == 3


def test_bad_batch_arguments():
    cfg = RatsConfig(n_players=3)
    with pytest.raises(ValueError, match="2 policies given for 3 players"):
        play_batch(cfg, ["random"] * 2, 5)
    with pytest.raises(ValueError, match="unknown rats policy 'smart'"):
        play_batch(cfg, ["random", "random", "smart"], 5)
    with pytest.raises(ValueError, match="bad params"):
        play_batch(cfg, "heuristic", 5, params=list(range(9)))
    with pytest.raises(ValueError, match="n_games"):
        play_batch(cfg, ["random"] * 3, -1)
    with pytest.raises(ValueError, match="seed"):
        play_batch(cfg, ["random"] * 3, 2, seed=-5)


def test_module_exports_and_state_class():
    import engines.rats as R
    from engines.rats import game

    assert set(R.__all__) == {"RatsConfig", "RatsState", "new_game", "replay", "core"}
    assert R.core is core and game.STATE_CLASS is RatsState and issubclass(RatsState, GameState)
    g = protocol_new_game("rats", {"n_players": 5}, 3)
    assert isinstance(g, RatsState) and g.n_players == 5
    assert "Rats" in RatsState.rules_summary and len(RatsState.rules_summary.splitlines()) < 40
    assert not (ROOT / "engines" / "rats" / "batch.py").exists()


def test_clone_is_independent_and_str_is_readable():
    g = new_game(RatsConfig(n_players=3), seed=2)
    h = g.clone()
    h.apply_action(h.legal_actions()[0])
    assert g.history == [] and not np.array_equal(g.state, h.state)
    text = str(g)
    assert "Rats, 3 players, round 1" in text and "seat 2" in text
    play(h, h.action_to_string(h.legal_actions()[0]))
    assert "leading" in h.table(0) or "lead:" in h.table(0)


def test_policy_registry_and_protocol():
    assert names("rats")[:3] == ["random", "greedy", "heuristic"]
    assert all(s.game == "rats" and not s.sees_hidden for s in A.SPECS)
    spec = {s.name: s for s in A.SPECS}["heuristic"]
    assert spec.param_names == A.HEURISTIC_PARAM_NAMES and len(spec.default_params) == 8
    assert A.PARAMS_WIDTH == 8 and A.make_aux(RatsConfig()).shape == (0,)
    kinds, rows, _ = resolve("rats", ["random", "greedy", "heuristic"], 3)
    assert kinds[:3].tolist() == [A.RANDOM, A.GREEDY, A.HEURISTIC]
    with pytest.raises(ValueError, match="unknown rats policy"):
        Agent("rats", "minimax")


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic"])
def test_agents_return_legal_actions(name):
    """Every registered policy returns one of the legal actions all game long."""
    for n in (2, 4):
        g = new_game(RatsConfig(n_players=n), seed=13)
        agent = Agent("rats", name)
        while not g.is_terminal():
            a = agent(g)
            assert a in g.legal_actions()
            g.apply_action(a)


def test_planned_lead_is_emitted_piece_by_piece_and_stale_plans_are_recomputed():
    """greedy's planned lead: kind, cards ascending, FINISH; a policy memory that does not
    fit the state (another trick's key, wrong cards) is recognised and the plan recomputed."""
    g = scenario(["5s 6s 7s 8s 8h", "2c 3c 4c 5c 6c"])
    agent = Agent("rats", "greedy")
    seq = []
    while g.current_player() == 0:
        seq.append(agent(g))
        g.apply_action(seq[-1])
    assert seq == [C.LEAD_SEQ] + ids(mask("5s 6s 7s 8s")) + [C.FINISH]  # 8h stays in hand
    g = scenario(["5s 6s 7s 8s", "2c 3c 4c 5c"])
    seq = []
    while g.current_player() == 0:
        seq.append(agent(g))
        g.apply_action(seq[-1])
    assert seq == [C.LEAD_SEQ] + ids(mask("5s 6s 7s 8s"))  # empties the hand: completes
    g = scenario(["5s 6s 7s 8s 8h", "2c 3c 4c 5c 6c"])
    g.apply_action(C.LEAD_SEQ)
    g.apply_action(ids(mask("5s"))[0])
    for junk in ([0, 0, 0], [1, int(mask("6s 7s")) | (2 << 54), 0], [1, -5, 7]):
        mem = g.seat_memory[0]
        mem[1:4] = junk
        assert agent(g) == ids(mask("6s"))[0]


def test_greedy_beats_random():
    """The rule of thumb is better than chance: greedy wins clearly more than 1/4 of 4-player
    games against three random seats (400 games)."""
    df = play_batch(RatsConfig(n_players=4), ["greedy", "random", "random", "random"], 400, 1)
    assert df["return_0"].mean() > 0.35


def test_tuned_heuristic_vector_is_valid():
    """results/rats/agents/heuristic_tuned.json holds a valid parameter vector of heuristic."""
    path = ROOT / "results" / "rats" / "agents" / "heuristic_tuned.json"
    rec = json.loads(path.read_text())
    assert rec["base"] == "heuristic" and tuple(rec["param_names"]) == A.HEURISTIC_PARAM_NAMES
    df = play_batch(RatsConfig(n_players=4), ["heuristic", "greedy", "greedy", "greedy"], 50,
                    seed=3, params=[rec["params"], None, None, None])
    assert len(df) == 50 and np.isclose(df[[f"return_{p}" for p in range(4)]].sum(axis=1), 1).all()
