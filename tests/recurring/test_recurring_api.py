"""ReCURRRing on the one protocol: the kernels and constants, the step API (door 1) against
``agents.loop.play_batch`` (door 2), records, text, illegal input rejected with nothing changed,
configurations, views that hide other hands."""

from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pytest

import engines.recurring as pkg
from agents.loop import play_batch, play_stepwise
from engines.protocol import chance
from engines.protocol import GameState, game_class, new_game as protocol_new_game, replay
from engines.recurring import RecurringConfig, RecurringState, new_game
from engines.recurring import core as C
from engines.recurring.game import action_text, finish_frame, parse_play

from .helpers import play, random_walk, scenario

KERNELS = {
    "init_state": ["cfg", "seed", "out"], "legal_actions": ["s", "out"],
    "apply_action": ["s", "a"], "is_terminal": ["s"], "returns": ["s", "out"],
    "current_player": ["s"], "num_players": ["s"], "observe": ["s", "p", "out"],
    "information_state": ["s", "p", "out"], "observation_tensor": ["s", "p", "out"],
    "determinize": ["s", "p", "seed", "out"], "observed_action": ["s", "a", "p"],
    "inventory": ["s", "out"], "outcome": ["s", "out"], "progress": ["s", "level"]}


# ----------------------------------------------------------------------------- the contract
def test_kernels_and_constants_of_the_protocol():
    for name, args in KERNELS.items():
        f = getattr(C, name)
        assert list(inspect.signature(f.py_func).parameters) == args, name
        assert type(f._cache).__name__ == "FunctionCache" and f.__doc__, name
    assert C.GAME_NAME == "recurring" and (C.MIN_PLAYERS, C.MAX_PLAYERS) == (3, 5)
    assert C.CONFIG_SIZE == len(RecurringConfig().to_array()) == 3
    assert C.NUM_DISTINCT_ACTIONS == 203 and C.HIDDEN_ACTION == C.NUM_DISTINCT_ACTIONS
    assert C.OBS_SIZE == C.INFO_SIZE == C.STATE_SIZE and C.INVENTORY_SIZE == 10
    assert C.OUTCOME_FIELDS == tuple([f"points_{p}" for p in range(5)]
                                     + [f"emptied_{p}" for p in range(5)]
                                     + ["rounds", "decisions", "start_player", "truncated"])
    assert C.MAX_GAME_LENGTH == 57 * 124
    for word in ("State layout", "Action table", "Determinization rule", "KNOWN"):
        assert word in C.__doc__


def test_package_exports_and_batch_module_gone():
    assert set(pkg.__all__) == {"RecurringConfig", "RecurringState", "new_game", "replay",
                                "core"}
    assert pkg.replay is replay and pkg.core is C
    assert dir(pkg) == sorted(pkg.__all__)  # names load on first use (PEP 562), all listed
    assert not (Path(pkg.__file__).parent / "batch.py").exists()
    assert game_class("recurring") is RecurringState and issubclass(RecurringState, GameState)
    assert RecurringState.rules_summary.count("\n") < 25


def test_public_functions_have_docstrings():
    import agents.recurring as A
    import engines.recurring.config as cfgmod
    import engines.recurring.game as gamemod

    for mod in (C, A, cfgmod, gamemod):
        for name, obj in vars(mod).items():
            if name.startswith("_") or getattr(obj, "__module__", mod.__name__) != mod.__name__:
                continue
            if inspect.isfunction(obj) or inspect.isclass(obj) or hasattr(obj, "py_func"):
                assert (obj.__doc__ or "").strip(), f"{mod.__name__}.{name}"
    for name, obj in vars(RecurringState).items():
        if not name.startswith("_") and callable(obj):
            assert (obj.__doc__ or "").strip(), name


def test_init_state_writes_into_out_and_is_deterministic():
    cfg = RecurringConfig(n_players=5).to_array()
    a = np.full(C.STATE_SIZE, 77, dtype=np.int64)
    b = np.zeros(C.STATE_SIZE, dtype=np.int64)
    assert C.init_state(cfg, np.int64(-3), a) is None
    C.init_state(cfg, np.int64(-3), b)
    assert np.array_equal(a, b) and a[C.HAND] == 11 and a[C.IN_PLAY] == 55
    assert C.num_players(a) == 5 and C.current_player(a) == a[C.FIRST_START]
    assert C.progress(a, 0) == 0 and C.progress(a, 1) == 0


def test_legal_actions_ascending_distinct_in_the_table():
    for g in random_walk(4, 11, open_single_every_round=False) + random_walk(5, 12):
        legal = g.legal_actions()
        assert legal == sorted(set(legal)) and len(legal) <= C.MAX_LEGAL
        assert all(0 <= a < C.NUM_DISTINCT_ACTIONS for a in legal)
        assert (len(legal) == 0) == g.is_terminal()
        for a in legal:
            assert C.observed_action(g.state, a, 0) == a


# ----------------------------------------------------------------------------- two doors
@pytest.mark.parametrize("n,names", [
    (3, ["random", "greedy", "heuristic"]),
    (4, ["greedy", "random", "random", "heuristic"]),
    (5, ["random", "greedy", "greedy", "heuristic", "random"]),
])
def test_play_stepwise_equals_play_batch(n, names):
    """Game g of play_batch(seed=s) is new_game(config, chance.game_seed(s, g)) driven by the
    same policies through the step API (agents.policy.Agent)."""
    cfg = RecurringConfig(n_players=n)
    df = play_batch(cfg, names, 8, seed=5)
    words = chance.game_seeds(5, 8)
    assert df["seed"].tolist() == [chance.word_to_seed(w) for w in words]
    for i in range(8):
        g = play_stepwise(cfg, names, int(df["seed"].iloc[i]))
        row = df.iloc[i]
        out = g.outcome()
        assert [row[f"return_{p}"] for p in range(n)] == g.returns()
        assert [row[f"points_{p}"] for p in range(n)] == g.returns()
        for f in ("rounds", "decisions", "start_player", "truncated"):
            assert row[f] == out[f], f
        assert [bool(row[f"emptied_{p}"]) for p in range(n)] == [
            bool(out[f"emptied_{p}"]) for p in range(n)]
        assert row["decisions"] == len(g.history)


def test_batch_frame_columns_and_reproducible():
    cfg = RecurringConfig(n_players=3)
    a = play_batch(cfg, ["greedy", "random", "heuristic"], 30, seed=1)
    assert a.equals(play_batch(cfg, ["greedy", "random", "heuristic"], 30, seed=1))
    assert list(a.columns) == (["seed", "return_0", "return_1", "return_2", "points_0",
                                "points_1", "points_2", "emptied_0", "emptied_1", "emptied_2",
                                "rounds", "decisions", "start_player", "truncated"])
    assert a["emptied_0"].dtype == bool and a["truncated"].dtype == bool
    assert (a[["emptied_0", "emptied_1", "emptied_2"]].sum(axis=1) >= 1).all()
    df = finish_frame(a.copy(), 3)
    assert df.equals(a)


def test_batch_rejects_bad_arguments():
    cfg = RecurringConfig(n_players=3)
    with pytest.raises(ValueError, match="4 policies given for 3 players"):
        play_batch(cfg, ["random"] * 4, 3)
    with pytest.raises(ValueError, match="unknown recurring policy 'mcts'"):
        play_batch(cfg, ["random", "random", "mcts"], 3)
    with pytest.raises(ValueError, match="n_games"):
        play_batch(cfg, "random", 2.5)


# ----------------------------------------------------------------------------- records
def test_record_replays_and_detects_tampering():
    g = play_stepwise(RecurringConfig(n_players=4), ["greedy", "random", "heuristic", "random"],
                      2**64 - 1)
    rec = g.record()
    assert rec["game"] == "recurring" and rec["seed"] == 2**64 - 1
    assert rec["config"] == RecurringConfig(n_players=4).to_dict()
    assert rec["action_texts"][0].startswith("play ")
    r = replay(json.dumps(rec))
    assert np.array_equal(r.state, g.state) and r.history == g.history
    assert pkg.replay(rec).returns() == g.returns()
    bad = dict(rec, actions=[16 * 2 + 1] + rec["actions"][1:])
    with pytest.raises(ValueError, match="record action #0"):
        replay(bad)
    bad = dict(rec, result={"terminal": True, "returns": [99, 0, 0, 0]})
    with pytest.raises(ValueError, match="differs"):
        replay(bad)


def test_scenario_and_determinized_states_have_no_record():
    g = scenario([{9: 1}, {5: 1}, {4: 1}])
    with pytest.raises(ValueError, match="scenario"):
        g.record()
    d = new_game(seed=3).determinize(1, 5)
    with pytest.raises(ValueError, match="determinized"):
        d.record()


# ----------------------------------------------------------------------------- illegal input
@pytest.mark.parametrize("bad", [3.0, "17", "play 1", 17.0, True, None, -1, 203, 10**20,
                                 np.float64(17), 16, 11, 0])
def test_illegal_input_rejected_and_nothing_changes(bad):
    g = new_game(RecurringConfig(n_players=4), seed=3)
    before, hist, mem = g.state.copy(), list(g.history), g.seat_memory.copy()
    with pytest.raises(ValueError) as exc:
        g.apply_action(bad)
    msg = str(exc.value)
    assert "\n" not in msg and (repr(bad) in msg or str(bad) in msg), msg
    assert np.array_equal(g.state, before) and g.history == hist
    assert np.array_equal(g.seat_memory, mem)


def test_illegal_action_names_the_legal_ones():
    g = new_game(RecurringConfig(n_players=4), seed=3)
    with pytest.raises(ValueError, match=r"illegal action 0 \(pass\) for seat \d: legal are 17"):
        g.apply_action(0)  # the opener may not pass
    with pytest.raises(ValueError, match=r"illegal action 37 \(play 5-5\)"):
        g.apply_action(16 * 2 + 5)


def test_after_the_end_every_action_is_rejected():
    g = scenario([{9: 1, 8: 1}, {5: 1}, {6: 1, 7: 1}])
    play(g, "play 9", "play 5", "pass", "pass")
    assert g.is_terminal()
    before = g.state.copy()
    for a in (0, 17, 26):
        with pytest.raises(ValueError, match="the game is over"):
            g.apply_action(a)
    with pytest.raises(ValueError):
        g.string_to_action("pass")
    assert np.array_equal(before, g.state)


# ----------------------------------------------------------------------------- text
def test_action_text_round_trip_and_short_forms():
    for a in [0] + [16 * k + v for k in range(1, 13) for v in range(1, 11)]:
        assert parse_play(action_text(a)) == a
    assert parse_play("777") == parse_play("7 7 7") == parse_play("3x7") == 16 * 3 + 7
    assert parse_play("RR") == parse_play("play r-r") == parse_play("2*R") == 16 * 2 + 10
    assert action_text(16 * 3 + 10) == "play R-R-R" and action_text(5) == "unused id 5"
    for bad in ("play 7-8", "", "13x7", "x", "pass pass"):
        with pytest.raises(ValueError, match="bad play"):
            parse_play(bad)
    with pytest.raises(ValueError, match="bad action 203"):
        action_text(203)


def test_string_to_action_and_parse_move():
    g = scenario([{7: 3, 2: 1, 10: 2}, {5: 1}, {4: 1}])
    assert g.string_to_action("play 7") == 23 and g.string_to_action(" R ") == 26
    assert g.string_to_action("1x2") == 18 and g.parse_move("7") == [23]
    before = g.state.copy()
    with pytest.raises(ValueError, match=r"bad move '77': no legal action '77' for seat 0"):
        g.parse_move("77")
    with pytest.raises(ValueError, match="no legal action 'pass'"):
        g.string_to_action("pass")
    with pytest.raises(ValueError, match="bad move 'nonsense'"):
        g.parse_move("nonsense")
    assert np.array_equal(before, g.state)
    assert g.legal_action_texts() == [(18, "play 2"), (23, "play 7"), (26, "play R")]


# ----------------------------------------------------------------------------- configs
@pytest.mark.parametrize("field,value", [
    ("n_players", 2), ("n_players", 6), ("n_players", 4.0), ("open_single_every_round", 1),
    ("emptier_on_table_scores", None), ("games_per_match", 0), ("match_tie", "split")])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=rf"RecurringConfig.{field} = .* expected"):
        RecurringConfig(**{field: value})


def test_config_dict_round_trip_and_new_game_forms():
    c = RecurringConfig(n_players=5, open_single_every_round=False, match_tie="none")
    assert RecurringConfig.from_dict(c.to_dict()) == c
    assert RecurringConfig.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    assert c.to_array().dtype == np.int64 and c.to_array().tolist() == [5, 0, 1]
    with pytest.raises(ValueError, match="unknown RecurringConfig field"):
        RecurringConfig.from_dict({"players": 3})
    with pytest.raises(ValueError, match="bad RecurringConfig"):
        RecurringConfig.from_dict([3])
    g = new_game({"n_players": 3}, seed=9)
    assert g.n_players == 3 and g.config == RecurringConfig(n_players=3)
    assert np.array_equal(protocol_new_game("recurring", {"n_players": 3}, 9).state, g.state)
    assert new_game().n_players == 4
    with pytest.raises(ValueError, match="bad seed -1"):
        new_game(seed=-1)
    with pytest.raises(ValueError, match="bad config"):
        new_game("four")


def test_scenario_rejects_impossible_hands():
    with pytest.raises(ValueError, match="2 cards of number 1"):
        scenario([{1: 1}, {1: 1}, {}])
    with pytest.raises(ValueError, match="bad start player 3"):
        scenario([{2: 1}, {}, {}], start=3)
    with pytest.raises(ValueError, match="their hand is empty"):
        scenario([{2: 1}, {}, {}], start=1)
    with pytest.raises(ValueError, match="2 given for 3 players"):
        RecurringState.from_hands([{2: 1}, {}], config=RecurringConfig(n_players=3))
    with pytest.raises(ValueError, match="number 11"):
        scenario([{11: 1}, {}, {}])


# ----------------------------------------------------------------------------- views
def test_observation_hides_other_hands():
    g = new_game(RecurringConfig(n_players=4), seed=8)
    obs = g.observation(1)
    assert obs["hand"] == g.hand(1) and obs["hand_sizes"] == [12] * 4
    assert obs["known"][g.current_player()] == {"1": 1}
    arr = g.observation_array(1)
    for q in (0, 2, 3):
        assert arr[C.HAND + C.BLOCK * q + 1: C.HAND + C.BLOCK * q + 11].sum() == 0
        assert arr[C.HAND + C.BLOCK * q] == 12
    assert arr[C.RNG] == 0 and arr[C.OBS_PLAYER] == 1
    assert arr[C.KNOWN:C.KNOWN + 55].sum() == 0
    info = g.information_state(1)
    assert np.array_equal(info[C.KNOWN:C.KNOWN + 55], g.state[C.KNOWN:C.KNOWN + 55])
    assert g.information_state_string(1).startswith("recurring p1: ")
    with pytest.raises(ValueError, match="bad player 4"):
        g.observation(4)
    with pytest.raises(ValueError, match="bad player -1"):
        g.observation_array(-1)


def test_table_text_hides_what_the_viewer_may_not_see():
    g = scenario([{7: 5, 5: 1}, {2: 1, 3: 1}, {6: 2, 4: 1}])
    play(g, "play 7", "play 2")
    full = str(g)
    assert "ReCURRRing, 3 players, round 1, table: 2 by seat 1" in full
    assert "seat 2: hand [4x1 6x2]" in full and "seat 1: hand [3x1 7x1]" in full
    mine = g.table(2)
    assert "seat 2 (you): hand [4x1 6x2]" in mine
    assert "seat 1: hand 2 cards (known 7x1)" in mine and "3x1" not in mine
    assert "seat 0: hand 5 cards score pile" in mine
    with pytest.raises(ValueError, match="bad player 5"):
        g.table(5)
    assert repr(g).startswith("<recurring n_players=3")


def test_observation_tensor_shape_range_and_perspective():
    for g in random_walk(4, 3)[::7] + random_walk(3, 4)[::9]:
        for p in range(g.n_players):
            t = g.observation_tensor(p)
            assert t.dtype == np.float32 and t.shape == (C.TENSOR_SIZE,)
            assert np.isfinite(t).all() and t.min() >= 0 and t.max() <= 1
            assert t[g.n_players - 3] == 1 and t[208] == g.is_terminal()
            # own hand first; from the information state only
            own = g.state[C.HAND + C.BLOCK * p + 1:C.HAND + C.BLOCK * p + 11] / 12
            assert np.allclose(t[10:20], own)
            d = g.determinize(p, 99)
            assert np.array_equal(d.observation_tensor(p), t)
            if not g.is_terminal():
                assert t[5 + (g.current_player() - p) % g.n_players] == 1


def test_inventory_outcome_and_progress_kernels():
    g = random_walk(5, 21)[-1]
    inv = np.zeros(C.INVENTORY_SIZE, dtype=np.int64)
    C.inventory(g.state, inv)
    assert inv.tolist() == C.deck_counts(5).tolist()
    out = g.outcome()
    assert list(out)[:-1] == list(C.OUTCOME_FIELDS) and out["returns"] == g.returns()
    assert out["rounds"] == g.state[C.ROUND] and out["decisions"] == len(g.history)
    assert C.progress(g.state, 0) == g.state[C.ROUNDS_DONE] == g.state[C.ROUND]
    assert C.progress(g.state, 1) == 1
    ret = np.full(C.MAX_PLAYERS, 7.0)
    C.returns(random_walk(3, 2, steps=3)[-1].state, ret)
    assert ret.tolist() == [0.0] * 5
