"""Two doors, records, invariants under random play, observation (engines/lure)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import lure as A
from engines.lure import core as K
from engines.lure.batch import play_batch, simulate, simulate_parallel
from engines.lure.config import LureConfig
from engines.lure.game import LureGame, play_game

CASES = [
    (LureConfig(n_players=2), ("greedy", "random")),
    (LureConfig(n_players=3, deep_waters=True), ("heuristic", "random", "greedy")),
    (LureConfig(n_players=4, adjust_may_be_unused=False), ("random",) * 4),
    (LureConfig(n_players=5, deep_waters=True, starting_lures=2), ("greedy", "bold", "cautious",
                                                                    "random", "heuristic")),
]


@pytest.mark.parametrize("config,agents", CASES, ids=lambda x: str(x)[:40])
def test_step_api_and_batch_play_identical_games(config, agents):
    """Door 1 driven by the compiled agents = door 2, action by action, for the same seed."""
    res = simulate(config, list(agents), 6, seed=11, keep_actions=True)
    for g in range(6):
        game = LureGame(config, seed=11, game_index=g)
        seats = [A.Agent(a) for a in agents]
        while not game.is_terminal():
            game.apply_action(seats[game.current_player()].act(game))
        acts = [a for _, a in game.history]
        assert acts == res.actions[g, :len(acts)].tolist()
        assert res.actions[g, len(acts)] == -1
        row = res.games.iloc[g]
        assert game.scores().tolist() == [row[f"score_{p}"] for p in range(config.n_players)]
        assert game.returns().tolist() == [row[f"win_{p}"] for p in range(config.n_players)]
        for c in range(len(game.deck)):
            loc = int(game.state[K.LOC + c])
            want = -2 if loc == K.LOC_OUT else (loc - K.LOC_CAUGHT if loc >= K.LOC_CAUGHT else -1)
            assert res.catch_player[g, c] == want


def test_same_seed_same_numbers_and_parallel_split_independent_of_workers():
    cfg = LureConfig(n_players=3)
    a = play_batch(cfg, "greedy", 50, seed=4)
    b = play_batch(cfg, "greedy", 50, seed=4)
    assert a.equals(b)
    assert not a.equals(play_batch(cfg, "greedy", 50, seed=5))
    r1 = simulate_parallel(cfg, "random", 60, seed=2, batch_size=25, n_jobs=1)
    r2 = simulate_parallel(cfg, "random", 60, seed=2, batch_size=25, n_jobs=2)
    assert r1.games.equals(r2.games) and np.array_equal(r1.catch_player, r2.catch_player)
    # a batch continues the sequence of games of its seed
    tail = play_batch(cfg, "greedy", 20, seed=4, game_offset=30)
    assert tail.drop(columns="game").equals(a.iloc[30:].reset_index(drop=True).drop(
        columns="game"))


def test_json_record_replays(tmp_path):
    game = play_game(LureConfig(n_players=3, deep_waters=True), ["greedy", "random", "bold"],
                     seed=3)
    path = tmp_path / "game.json"
    game.save_record(path, agents=["greedy", "random", "bold"])
    again = LureGame.replay(path)
    assert np.array_equal(again.state, game.state)
    rec = json.loads(path.read_text())
    assert rec["actions"][0]["text"].startswith("cast")
    rec["scores"][0] += 1
    with pytest.raises(ValueError, match="differ from the record"):
        LureGame.replay(rec)
    rec["scores"][0] -= 1
    rec["actions"][0]["action"] = 7
    with pytest.raises(ValueError, match="record action 0"):
        LureGame.replay(rec)
    with pytest.raises(ValueError, match="not a Lure record"):
        LureGame.replay({"format": "chess"})


def _check_invariants(game: LureGame):
    s = game.state
    n = len(game.deck)
    loc = s[K.LOC:K.LOC + n]
    # every fish card in exactly one place: draw pile, table, a catch, or out of the game
    pile = s[K.DRAW + s[K.H_DRAWPOS]:K.DRAW + s[K.H_DRAWPOS] + s[K.H_NDRAW]]
    table = s[K.TABLE:K.TABLE + s[K.H_NTABLE]]
    assert sorted(pile.tolist()) == np.flatnonzero(loc == K.LOC_DECK).tolist()
    assert sorted(table.tolist()) == np.flatnonzero(loc == K.LOC_TABLE).tolist()
    assert len(set(pile.tolist()) | set(table.tolist())) == len(pile) + len(table)
    inplay = (loc != K.LOC_OUT).sum()
    assert inplay == s[K.H_NINPLAY]
    caught = sum(len(game.caught(p)) for p in range(game.n_players))
    assert caught + len(pile) + len(table) == inplay
    # lure tokens conserved
    assert int(K.tokens_total(s)) == sum(game.config.lure_mix)
    assert s[K.H_BAGN] == s[K.H_BAG:K.H_BAG + 8].sum() >= 0
    assert s[K.H_DISCN] == s[K.H_DISC:K.H_DISC + 8].sum() >= 0
    for p in range(game.n_players):
        b = K.PB + p * K.PSTRIDE
        assert s[b + K.P_NHELD] == s[b + K.P_HELD:b + K.P_HELD + 8].sum()
        assert (s[b + K.P_HELD:b + K.P_HELD + 8] >= 0).all()
        pts = sum(int(game.deck.points[game.deck.index(c)]) for c in game.caught(p))
        assert s[b + K.P_POINTS] == pts and s[b + K.P_NFISH] == len(game.caught(p))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 5), deep=st.booleans(), seed=st.integers(0, 2**31),
       start=st.integers(0, 3), unused=st.booleans())
def test_invariants_under_random_play(n, deep, seed, start, unused):
    """Invariants after every action of random games: cards in exactly one place, tokens
    conserved, points = caught cards; the legal list holds every action taken; the end scores."""
    cfg = LureConfig(n_players=n, deep_waters=deep, starting_lures=start,
                     adjust_may_be_unused=unused)
    game = LureGame(cfg, seed=seed)
    agent = A.Agent("random")
    _check_invariants(game)
    while not game.is_terminal():
        a = agent.act(game)
        if game.phase == "adjust" or game.state[K.PB + game.current_player() * K.PSTRIDE
                                                 + K.P_NHELD] <= 3:
            assert a in game.legal_actions()
        game.apply_action(a)
        _check_invariants(game)
    assert game.returns().sum() == pytest.approx(1.0)
    assert game.table() or game.state[K.H_NDRAW] == 0


def test_policies_see_only_the_observation():
    """A compiled policy decides the same from the full state and from the player's view."""
    for seed in range(6):
        game = LureGame(LureConfig(n_players=4, deep_waters=True, starting_lures=2), seed=seed)
        agent = A.Agent("greedy")
        table = A.policy_table(game.deck)
        while not game.is_terminal():
            p = game.current_player()
            obs = game.observation_array(p)
            a_full = agent.act(game)
            a_obs = A.policy_action(A.KIND_HEURISTIC, obs, game.cfg, game.deck.conds,
                                    game.deck.info, table, agent.params, game.policy_rng.copy(),
                                    p, game.work)
            assert a_full == a_obs
            game.apply_action(a_full)


def test_observation_hides_secrets():
    game = LureGame(LureConfig(n_players=3, starting_lures=2), seed=1)
    o = game.observation_array(1)
    assert o[K.H_RNG] == -1 and (o[K.DRAW:K.DRAW + K.MAXC] == -1).all()
    assert (o[K.H_BAG:K.H_BAG + 8] == -1).all()
    b0 = K.PB
    assert (o[b0 + K.P_HELD:b0 + K.P_HELD + 8] == -1).all() and o[b0 + K.P_NHELD] == 2
    b1 = K.PB + K.PSTRIDE
    assert o[b1 + K.P_HELD:b1 + K.P_HELD + 8].sum() == 2
    with pytest.raises(ValueError, match="player 3"):
        game.observation(3)


def test_action_text_round_trip_and_errors():
    game = LureGame(LureConfig(n_players=2, starting_lures=3), seed=2)
    for a in game.legal_actions():
        assert game.string_to_action(game.action_to_string(a)) == a
    with pytest.raises(ValueError, match="cast token 'd7'"):
        game.string_to_action("cast d7")
    with pytest.raises(ValueError, match="adjust token"):
        game.string_to_action("adjust d6#9+1")
    assert "P0" in str(game) and "table:" in str(game)


def test_clone_is_independent():
    game = LureGame(LureConfig(n_players=2), seed=3)
    c = game.clone()
    c.apply_action("cast 2d6")
    assert game.current_player() == 0 and c.current_player() == 1
    assert game.history == [] and len(c.history) == 1


def test_batch_rejects_bad_arguments():
    with pytest.raises(ValueError, match="n_games"):
        play_batch(LureConfig(), "greedy", 0)
    with pytest.raises(ValueError, match="unknown Lure agent 'clever'"):
        play_batch(LureConfig(), "clever", 1)
    with pytest.raises(ValueError, match="3 policies for 4 players"):
        play_batch(LureConfig(), ["greedy"] * 3, 1)
    with pytest.raises(ValueError, match="seed"):
        play_batch(LureConfig(), "greedy", 1, seed=-1)
