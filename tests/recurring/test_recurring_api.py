"""ReCURRRing door 1 (step API) vs door 2 (play_batch), records that replay, illegal actions
and bad configurations rejected, agents' protocol."""

from __future__ import annotations

import numpy as np
import pytest

from agents.recurring import REGISTRY, Agent, make_agent
from engines.recurring import RecurringConfig, new_game, parse_play, play_batch, replay
from engines.recurring import core as C
from engines.splitmix import seat_streams, seed_word


def drive(config, names, seed, game_index):
    g = new_game(config, seed, game_index)
    agents = [make_agent(n) for n in names]
    rngs = seat_streams(np.int64(seed_word(seed, game_index)), config.n_players)
    while not g.is_terminal():
        p = g.current_player()
        g.apply_action(agents[p](g, rngs[p:p + 1]))
    return g


@pytest.mark.parametrize("n,names", [
    (3, ["random", "greedy", "heuristic"]),
    (4, ["greedy", "random", "random", "heuristic"]),
    (5, ["random", "greedy", "greedy", "heuristic", "random"]),
])
def test_step_api_equals_batch(n, names):
    """The same seed and policies give identical games through both doors."""
    cfg = RecurringConfig(n_players=n)
    df = play_batch(cfg, names, 9, seed=5)
    for i in range(9):
        g = drive(cfg, names, 5, i)
        row = df.iloc[i]
        assert [row[f"points_{p}"] for p in range(n)] == g.returns().tolist()
        assert row["decisions"] == len(g.history)
        assert row["rounds"] == g.state[C.ROUND]
        assert row["start_player"] == g.state[C.FIRST_START]


def test_batch_reproducible_and_matches():
    cfg = RecurringConfig(n_players=4)
    a = play_batch(cfg, ["greedy", "random", "random", "random"], 30, seed=1)
    assert a.equals(play_batch(cfg, ["greedy", "random", "random", "random"], 30, seed=1))
    assert (a["match"] == a["game"] // 3).all()


def test_record_replays():
    g = drive(RecurringConfig(n_players=4), ["greedy", "random", "heuristic", "random"], 2, 1)
    r = replay(g.to_json())
    assert np.array_equal(r.state, g.state)
    rec = g.to_record()
    rec["actions"][0] = "play 1-1"
    with pytest.raises(ValueError, match="record action 0"):
        replay(rec)
    rec = g.to_record()
    rec["points"] = [99, 0, 0, 0]
    with pytest.raises(ValueError, match="differ"):
        replay(rec)


def test_illegal_actions_raise_and_change_nothing():
    g = new_game(RecurringConfig(n_players=4), seed=3)
    before = g.state.copy()
    with pytest.raises(ValueError, match="illegal action 'pass'"):
        g.apply_action("pass")  # the opener may not pass
    with pytest.raises(ValueError, match="illegal action"):
        g.apply_action(16 * 2 + 5)
    with pytest.raises(ValueError, match="bad play"):
        g.apply_action("play 7-8")
    with pytest.raises(ValueError, match="not a play"):
        g.apply_action(16 * 2 + 12)
    assert np.array_equal(g.state, before) and g.history == []


def test_action_text_round_trip():
    for a in [0] + [16 * k + v for k in range(1, 13) for v in range(1, 11)]:
        assert parse_play(C_text(a)) == a
    assert parse_play("777") == parse_play("7 7 7") == parse_play("3x7") == 16 * 3 + 7
    assert parse_play("RR") == 16 * 2 + 10


def C_text(a):
    from engines.recurring import action_to_string
    return action_to_string(a)


@pytest.mark.parametrize("field,value", [
    ("n_players", 2), ("n_players", 6), ("open_single_every_round", 1),
    ("emptier_on_table_scores", None), ("games_per_match", 0), ("match_tie", "split")])
def test_bad_config_names_the_field(field, value):
    with pytest.raises(ValueError, match=f"RecurringConfig.{field}"):
        RecurringConfig(**{field: value})


def test_bad_batch_arguments():
    cfg = RecurringConfig(n_players=3)
    with pytest.raises(ValueError, match="3 seats"):
        play_batch(cfg, ["random"] * 4, 3)
    with pytest.raises(ValueError, match="unknown ReCURRRing policy"):
        play_batch(cfg, ["random", "random", "mcts"], 3)
    with pytest.raises(ValueError, match="n_games"):
        play_batch(cfg, ["random"] * 3, 2.5)


def test_state_from_hands_rejects_impossible_hands():
    cfg = RecurringConfig(n_players=3).to_array()
    with pytest.raises(ValueError, match="number 1"):
        C.state_from_hands(cfg, [{1: 1}, {1: 1}, {}], 0)
    with pytest.raises(ValueError, match="start player"):
        C.state_from_hands(cfg, [{2: 1}, {}, {}], 3)


def test_observation_hides_other_hands():
    g = new_game(RecurringConfig(n_players=4), seed=8)
    obs = g.observation(1)
    assert obs["hand"] == g.hand(1) and obs["hand_sizes"] == [12] * 4
    arr = g.observation_array(1)
    assert arr[C.HAND + C.BLOCK * 0 + 1: C.HAND + C.BLOCK * 0 + 11].sum() == 0
    assert arr[C.RNG] == 0 and arr[C.HAND + C.BLOCK * 0] == 12
    assert "ReCURRRing, 4 players, round 1" in str(g)


def test_agents_legal_and_greedy_beats_random():
    for name in REGISTRY:
        g = new_game(RecurringConfig(n_players=3), seed=21)
        agent = Agent(name)
        rng = np.array([1], dtype=np.int64)
        while not g.is_terminal():
            a = agent(g, rng)
            assert a in g.legal_actions()
            g.apply_action(a)
    df = play_batch(RecurringConfig(n_players=4), ["greedy", "random", "random", "random"],
                    600, seed=2)
    from engines.recurring import match_results
    assert match_results(df)["win_0"].mean() > 0.5
