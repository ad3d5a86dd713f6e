"""The compiled game loop specialized on one policy kind (agents.loop.play_games' literal
``one_kind``) plays exactly the games of the general loop, for every game and a search agent,
and the runner compiles in the parent before fanning out (experiments.runner._compile_first)."""

import numpy as np
import pytest
from numba import types

from agents import loop
from agents.policy import agents_module, resolve
from engines import chance
from engines.kernels import call_literals
from engines.protocol import GAME_IDS, core_of, game_class

CASES = [("river_rats", 4, "heuristic"), ("river_rats", 2, "greedy"), ("lure", 3, "heuristic"),
         ("rats", 4, "heuristic"), ("recurring", 3, "greedy"), ("river_rats", 3, "pimc-fast")]


def _play(game, n, name, one_kind, n_games):
    cfg = game_class(game)._as_config({"n_players": n})
    C = core_of(game)
    kinds, rows, _ = resolve(game, name, n)
    seeds = chance.game_seeds(chance.check_seed(5), n_games)
    ret = np.zeros((n_games, C.MAX_PLAYERS))
    out = np.zeros((n_games, len(C.OUTCOME_FIELDS)), dtype=np.int64)
    bad = np.full(3, -1, dtype=np.int64)
    aux = agents_module(game).make_aux(cfg)
    k = int(kinds[0]) if one_kind else -1
    call_literals(loop.play_games, (GAME_IDS[game], k), cfg.to_array(), seeds, kinds, rows, aux,
                  ret, out, bad)
    assert bad[0] == -1
    return ret, out, k


@pytest.mark.parametrize("game, n, name", CASES)
def test_one_kind_loop_plays_the_general_loops_games(game, n, name):
    n_games = 4 if name.startswith("pimc") else 300
    ret1, out1, k = _play(game, n, name, True, n_games)
    ret0, out0, _ = _play(game, n, name, False, n_games)
    np.testing.assert_array_equal(ret1, ret0)
    np.testing.assert_array_equal(out1, out0)
    lit = [sig for sig in loop.play_games.signatures if sig[1] == types.literal(k)]
    assert lit, "the loop was not specialized on the kind"


def test_run_games_uses_the_one_kind_loop_only_when_all_seats_agree():
    cfg = game_class("rats")._as_config({"n_players": 3})
    seeds = chance.game_seeds(chance.check_seed(9), 50)
    same = loop.run_games(cfg, "heuristic", seeds, game="rats")
    mixed = loop.run_games(cfg, ["heuristic", "greedy", "heuristic"], seeds, game="rats")
    assert not np.array_equal(same[1], mixed[1])
    kinds = {sig[1] for sig in loop.play_games.signatures if sig[0] == types.literal(
        GAME_IDS["rats"])}
    assert types.literal(-1) in kinds and types.literal(
        int(resolve("rats", "heuristic", 3)[0][0])) in kinds


def test_runner_compiles_in_the_parent_before_fanning_out(monkeypatch):
    from experiments import runner

    calls = []

    def play(cell, n, seed):
        calls.append((cell["x"], n))
        return {"games": n, "wins": 0}

    monkeypatch.setattr(runner, "_compile_first",
                        lambda fn, cell, seed, progress=False: calls.append(("first", cell["x"])))
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=2, backend="threading", progress=False)
    assert ("first", 1) not in calls            # threads share one process: nothing to do
    calls.clear()
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=1, progress=False)
    assert ("first", 1) not in calls            # one process compiles as it plays
    calls.clear()
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=2, backend="loky", progress=False)
    assert calls == [("first", 1)]               # once, in this process, before the workers


def test_compile_first_plays_one_game_on_a_seed_no_batch_uses():
    from experiments import runner

    seen = []
    runner._compile_first(lambda cell, n, seed: seen.append((cell, n, seed.spawn_key)),
                          {"x": 3}, 7)
    assert seen == [({"x": 3}, 1, (runner.MAX_BATCHES,))]
