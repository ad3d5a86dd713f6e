"""The step API, the compiled loop, records, invariants under random play and observations
(engines/lure/game.py, engines/lure/core.py through agents.loop)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.loop import play_batch, play_stepwise
from agents.policy import Agent
from engines.protocol import chance
from engines.lure import LureState, core as C, new_game, replay
from engines.lure.config import LureConfig
from engines.lure.game import ACTION_TEXTS, card_outcomes
from engines.protocol import game_class

CASES = [
    (LureConfig(n_players=2), ("greedy", "random")),
    (LureConfig(n_players=3, deep_waters=True), ("heuristic", "random", "greedy")),
    (LureConfig(n_players=4, adjust_may_be_unused=False), ("random",) * 4),
    (LureConfig(n_players=5, deep_waters=True, starting_lures=2), ("greedy", "bold", "cautious",
                                                                    "random", "heuristic")),
]


@pytest.mark.parametrize("config,agents", CASES, ids=lambda x: str(x)[:40])
def test_step_api_equals_the_compiled_loop_game_for_game(config, agents):
    """play_stepwise (door 1 with the compiled agents) = play_batch (door 2), game for game."""
    df = play_batch(config, list(agents), 6, seed=11)
    assert len(df) == 6 and f"score_{config.n_players}" not in df.columns
    for g in range(6):
        seed = int(df["seed"][g])
        assert seed == chance.word_to_seed(chance.game_seed(chance.as_word(11), g))
        game = play_stepwise(config, list(agents), seed)
        out = game.outcome()
        row = df.iloc[g]
        for k, v in out.items():
            if k in row.index:
                assert row[k] == v, (g, k)
        assert [row[f"return_{p}"] for p in range(config.n_players)] == game.returns()
        assert replay(game.record()).state.tolist() == game.state.tolist()


def test_same_seed_same_games():
    cfg = LureConfig(n_players=3)
    a = play_batch(cfg, "greedy", 40, seed=4)
    assert a.equals(play_batch(cfg, "greedy", 40, seed=4))
    assert not a.equals(play_batch(cfg, "greedy", 40, seed=5))
    head = play_batch(cfg, "greedy", 10, seed=4)
    assert head.equals(a.iloc[:10])  # game g does not depend on the batch size


def test_card_columns_decode_to_each_cards_fate():
    cfg = LureConfig(n_players=4, deep_waters=True)
    df = play_batch(cfg, ["greedy", "random", "heuristic", "bold"], 5, seed=2)
    fate = card_outcomes(df, len(cfg.deck))
    for g in range(5):
        game = play_stepwise(cfg, ["greedy", "random", "heuristic", "bold"], int(df.seed[g]))
        for c in range(len(cfg.deck)):
            loc = int(game.state[C.LOC + c])
            want = -2 if loc == C.LOC_OUT else (loc - C.LOC_CAUGHT if loc >= C.LOC_CAUGHT else -1)
            assert fate["catch_player"][g, c] == want
            if want >= 0:
                assert fate["catch_round"][g, c] == game.state[C.CROUND + c]
                assert fate["catch_group"][g, c] == game.state[C.CGROUP + c]
            assert fate["reveal_round"][g, c] == game.state[C.CREVEAL + c]
        assert (fate["catch_player"][g] >= 0).sum() == sum(df.iloc[g][f"fish_{p}"]
                                                         for p in range(4))


def test_record_replays_and_rejects_tampering(tmp_path):
    cfg = LureConfig(n_players=3, deep_waters=True)
    game = play_stepwise(cfg, ["greedy", "random", "bold"], 3)
    path = tmp_path / "game.json"
    game.save_record(path)
    rec = json.loads(path.read_text())
    assert rec["config"]["deck"]["rows"][0]["id"] == "B01"
    assert rec["action_texts"][:2] == [ACTION_TEXTS[a] for a in rec["actions"][:2]]
    again = replay(rec)
    assert np.array_equal(again.state, game.state) and again.config == cfg
    bad = json.loads(json.dumps(rec))
    bad["result"]["returns"] = [1.0, 0.0, 0.0] if game.returns()[0] != 1.0 else [0.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="differs from the record"):
        replay(bad)
    bad = json.loads(json.dumps(rec))
    bad["actions"][0] = 7
    with pytest.raises(ValueError, match="record action #0"):
        replay(bad)
    # a record replays on its own deck, not on whatever deck is the default
    bad = json.loads(json.dumps(rec))
    bad["config"]["deck"]["rows"][3]["catch_number"] = 1
    with pytest.raises(ValueError, match="sha256"):
        replay(bad)


def _check_invariants(game: LureState, inv0: np.ndarray):
    s = game.state
    n = len(game.deck)
    loc = s[C.LOC:C.LOC + n]
    pile = s[C.DRAW + s[C.H_DRAWPOS]:C.DRAW + s[C.H_DRAWPOS] + s[C.H_NDRAW]]
    table = s[C.TABLE:C.TABLE + s[C.H_NTABLE]]
    assert sorted(pile.tolist()) == np.flatnonzero(loc == C.LOC_DECK).tolist()
    assert sorted(table.tolist()) == np.flatnonzero(loc == C.LOC_TABLE).tolist()
    assert (loc != C.LOC_OUT).sum() == s[C.H_NINPLAY]
    inv = np.zeros(C.INVENTORY_SIZE, np.int64)
    C.inventory(s, inv)
    assert np.array_equal(inv, inv0)
    assert (inv[:n] == 1).all() and (inv[n:C.MAXC] == 0).all()
    assert s[C.H_BAGN] == s[C.H_BAG:C.H_BAG + 8].sum() >= 0
    assert s[C.H_DISCN] == s[C.H_DISC:C.H_DISC + 8].sum() >= 0
    for p in range(game.n_players):
        b = C.PB + p * C.PSTRIDE
        assert s[b + C.P_NHELD] == s[b + C.P_HELD:b + C.P_HELD + 8].sum()
        assert (s[b + C.P_HELD:b + C.P_HELD + 8] >= 0).all()
        pts = sum(int(game.deck.points[game.deck.index(c)]) for c in game.caught(p))
        assert s[b + C.P_POINTS] == pts and s[b + C.P_NFISH] == len(game.caught(p))
        for t in range(C.NSLOT):
            v = s[b + C.P_DICE + t]
            assert v == -1 or 1 <= v <= C.SLOT_FACES[t]
    legal = game.legal_actions()
    assert legal == sorted(set(legal)) and len(legal) <= C.MAX_LEGAL
    assert all(0 <= a < C.NUM_DISTINCT_ACTIONS for a in legal)
    assert (len(legal) == 0) == game.is_terminal()


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), deep=st.booleans(), seed=st.integers(0, 2**64 - 1),
       start=st.integers(0, 3), unused=st.booleans())
def test_invariants_under_random_play(n, deep, seed, start, unused):
    """After every decision of a random game: cards in exactly one place, tokens conserved
    (inventory constant), points = caught cards, dice on their faces, the legal list ascending,
    distinct and in the table; the end scores with returns summing to 1; progress counters
    never decrease."""
    cfg = LureConfig(n_players=n, deep_waters=deep, starting_lures=start,
                     adjust_may_be_unused=unused)
    game = LureState(cfg, seed)
    inv0 = np.zeros(C.INVENTORY_SIZE, np.int64)
    C.inventory(game.state, inv0)
    assert inv0[C.MAXC:].tolist() == list(cfg.lure_mix)
    agent = Agent("lure", "random")
    last = (0, 1)
    _check_invariants(game, inv0)
    while not game.is_terminal():
        game.apply_action(agent(game))
        _check_invariants(game, inv0)
        prog = (int(C.progress(game.state, 0)), int(C.progress(game.state, 1)))
        assert prog >= last
        last = prog
    assert sum(game.returns()) == pytest.approx(1.0)
    assert game.outcome()["decisions"] == len(game.history) <= C.MAX_GAME_LENGTH
    assert game.fish_on_table() or game.state[C.H_NDRAW] == 0


def test_observation_hides_secrets():
    game = LureState(LureConfig(n_players=3, starting_lures=2), 1)
    o = game.observation_array(1)
    assert o.shape == (C.OBS_SIZE,) and o[C.H_RNG] == 0 and o[C.H_STEP] == 0
    assert (o[C.DRAW:C.DRAW + C.MAXC] == -1).all() and (o[C.H_BAG:C.H_BAG + 8] == -1).all()
    assert (o[C.LOC:C.LOC + 45] != C.LOC_DECK).all()
    b0 = C.PB
    n0 = int(game.state[b0 + C.P_NHELD])
    assert n0 >= 2 and (o[b0 + C.P_HELD:b0 + C.P_HELD + 8] == -1).all()
    assert o[b0 + C.P_NHELD] == n0
    b1 = C.PB + C.PSTRIDE
    assert o[b1 + C.P_HELD:b1 + C.P_HELD + 8].sum() == game.state[b1 + C.P_NHELD] >= 2
    with pytest.raises(ValueError, match="bad player 3"):
        game.observation(3)
    with pytest.raises(ValueError, match="bad player"):
        game.table(-1)
    text = game.table(1)
    assert "P0" in text and f"{n0} hidden" in text and "table:" in str(game)
    info = game.information_state(1)
    assert info.shape == (C.INFO_SIZE,) and np.array_equal(info[:C.OBS_SIZE], o)
    t = game.observation_tensor(1)
    assert t.shape == (C.TENSOR_SIZE,) and t.dtype == np.float32 and np.isfinite(t).all()
    assert t[1] == 1.0 and t[5] == 1.0  # seat 1 observes, seat 0 acts


def test_observed_actions_of_others_are_hidden():
    game = LureState(LureConfig(n_players=3), 5)
    for p in range(3):
        want = 2 if p == game.current_player() else C.HIDDEN_ACTION
        assert C.observed_action(game.state, 2, p) == want


def test_action_text_round_trip_short_forms_and_errors():
    game = LureState(LureConfig(n_players=2, starting_lures=3), 2)
    agent = Agent("lure", "random")
    seen = set()
    while not game.is_terminal() and len(seen) < C.NUM_DISTINCT_ACTIONS:
        for a in game.legal_actions():
            assert game.string_to_action(game.action_to_string(a)) == a
            seen.add(a)
        game.apply_action(agent(game))
    game = LureState(LureConfig(n_players=2), 2)
    assert game.string_to_action("3d6") == 3 and game.string_to_action(" 3D6 ") == 3
    # text starting with 'cast' is a whole move, not one decision
    with pytest.raises(ValueError, match="no legal action 'cast 3d6'"):
        game.string_to_action("cast 3d6")
    assert game.parse_move("cast 3d6") == [3, C.A_SPECIAL, C.A_FINISH]
    game.apply_action(3)
    assert game.string_to_action("d12 d20") == C.A_SPECIAL + 3
    assert game.string_to_action("special d12+d20") == C.A_SPECIAL + 3
    assert game.string_to_action("none") == C.A_SPECIAL
    game.apply_action(C.A_SPECIAL)
    assert game.string_to_action("finish") == C.A_FINISH
    with pytest.raises(ValueError, match="no legal action 'x3'"):
        game.string_to_action("x3")  # no x3 token held
    with pytest.raises(ValueError, match="bad action text"):
        game.string_to_action("")
    with pytest.raises(ValueError, match="bad move 'cast d7'"):
        game.parse_move("cast d7")
    with pytest.raises(ValueError, match="already chosen"):
        game.parse_move("cast 2d6")
    with pytest.raises(ValueError, match="bad action 99"):
        game.action_to_string(99)


def test_clone_is_independent_and_new_game_works():
    game = new_game(LureConfig(n_players=2), 3)
    assert isinstance(game, game_class("lure"))
    c = game.clone()
    c.play_move("cast 2d6")
    assert game.current_player() == 0 and c.current_player() == 1
    assert game.history == [] and len(c.history) == 3
    assert new_game(None, 3).n_players == 4
    assert new_game({"n_players": 5}, 3).n_players == 5


def test_the_game_is_over_rejects_everything():
    game = play_stepwise(LureConfig(n_players=2), "greedy", 9)
    before = game.state.copy()
    for bad in (0, 22, "3"):
        with pytest.raises(ValueError):
            game.apply_action(bad)
    with pytest.raises(ValueError, match="the game is over"):
        game.parse_move("cast 1d6")
    assert np.array_equal(before, game.state) and game.legal_actions() == []
    assert game.current_player() == -1 and len(game.scores()) == 2


def test_play_batch_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_games"):
        play_batch(LureConfig(), "greedy", -1)
    with pytest.raises(ValueError, match="unknown lure policy 'clever'"):
        play_batch(LureConfig(), "clever", 1)
    with pytest.raises(ValueError, match="3 policies given for 4 players"):
        play_batch(LureConfig(), ["greedy"] * 3, 1)
    with pytest.raises(ValueError, match="seed"):
        play_batch(LureConfig(), "greedy", 1, seed=-1)
