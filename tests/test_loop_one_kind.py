"""The compiled game loop specialized on one policy kind (each game's play_table's literal
``one_kind``) plays exactly the games of the general loops (the game's own policies,
``OWN_KINDS``, and a table with search agents or ``net``, ``mixed_kind``), for every game and a
search agent, and the runner compiles in the parent before fanning out
(experiments.runner._compile_first)."""

import os
import time

import numpy as np
import pytest
from numba import types

from agents import loop
from agents.dispatch import OWN_KINDS, _seated_extra, mixed_kind, table_kind
from agents.layout import K_ISMCTS, K_NET, K_PIMC, USER_KIND
from agents.policy import agents_module, resolve
from engines.protocol import chance
from engines.protocol.kernels import call_literals
from engines.protocol import core_of, game_class

CASES = [("river_rats", 4, "heuristic"), ("river_rats", 2, "greedy"), ("river_rats", 4, "random"),
         ("river_rats", 1, "random"), ("lure", 3, "heuristic"),
         ("rats", 4, "heuristic"), ("recurring", 3, "greedy"), ("river_rats", 3, "pimc-fast")]


def _play(game, n, name, one_kind, n_games):
    """Play ``n_games`` of ``name`` (one name, or one per seat) through the loop specialized on
    its one kind (``one_kind`` True) or through the general loop a table of several kinds
    that includes it would use (False: ``OWN_KINDS`` for the game's own policies, else the
    mixed kind of a table that seats both search agents, ``pimc`` and ``ismcts``;
    ``one_kind="mixed"``: the loop of such a table beside them). The loop of both search
    agents is the one tests/test_search.py compiles too (one compile fewer on a cold cache)."""
    cfg = game_class(game)._as_config({"n_players": n})
    C = core_of(game)
    kinds, rows, _ = resolve(game, name, n)
    seeds = chance.game_seeds(chance.check_seed(5), n_games)
    ret = np.zeros((n_games, C.MAX_PLAYERS))
    out = np.zeros((n_games, len(C.OUTCOME_FIELDS)), dtype=np.int64)
    bad = np.full(3, -1, dtype=np.int64)
    aux = agents_module(game).make_aux(cfg)
    if one_kind == "mixed":
        k = mixed_kind([K_PIMC, K_ISMCTS])
    elif one_kind:
        k = int(kinds[0])
    else:  # a user seat beside them: never one kind, the shipped seats decide the loop
        k = table_kind([*kinds[:n], USER_KIND])
        if k != OWN_KINDS:  # search agents seated: a table that seats both
            k = mixed_kind([*kinds[:n], K_PIMC, K_ISMCTS])
    call_literals(agents_module(game).play_table, (k,), cfg.to_array(), seeds, kinds, rows, aux,
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
    lit = [sig for sig in agents_module(game).play_table.signatures
           if sig[0] == types.literal(k)]
    assert lit, "the loop was not specialized on the kind"


def test_run_games_uses_the_one_kind_loop_only_when_all_seats_agree():
    cfg = game_class("rats")._as_config({"n_players": 3})
    seeds = chance.game_seeds(chance.check_seed(9), 50)
    same = loop.run_games(cfg, "heuristic", seeds, game="rats")
    mixed = loop.run_games(cfg, ["heuristic", "greedy", "heuristic"], seeds, game="rats")
    assert not np.array_equal(same[1], mixed[1])
    kinds = {sig[0] for sig in agents_module("rats").play_table.signatures}
    assert types.literal(OWN_KINDS) in kinds and types.literal(
        int(resolve("rats", "heuristic", 3)[0][0])) in kinds


def test_table_kind_compiles_search_agents_and_net_only_where_a_seat_plays_one():
    """One kind for a table of one shipped kind; the game's own policies (below K_NET) alone:
    OWN_KINDS; search agents or net at the table: a mixed kind that compiles in exactly those
    agents; a user seat is never one kind."""
    assert table_kind([2, 2, 2]) == 2 and table_kind([K_PIMC]) == K_PIMC
    assert table_kind([2, 1, 0]) == OWN_KINDS
    assert _seated_extra(table_kind([2, K_PIMC])) == (K_PIMC,)
    assert _seated_extra(table_kind([K_NET, 2])) == (K_NET,)
    assert _seated_extra(table_kind([K_ISMCTS, K_PIMC, 0, K_PIMC])) == (K_PIMC, K_ISMCTS)
    assert len({mixed_kind([K_PIMC]), mixed_kind([K_ISMCTS]), mixed_kind([K_PIMC, K_ISMCTS]),
                mixed_kind([K_NET]), OWN_KINDS}) == 5
    assert table_kind([USER_KIND, USER_KIND]) == OWN_KINDS
    assert table_kind([USER_KIND, 2, 2]) == OWN_KINDS
    assert _seated_extra(table_kind([USER_KIND + 1, K_NET])) == (K_NET,)
    with pytest.raises(ValueError, match="bad kinds"):
        mixed_kind([2, 1])


def test_the_own_kinds_loop_plays_the_mixed_loops_games():
    """A River Rats table of its own four policies plays the same games through the loop that
    compiles only the game's own ``act`` (OWN_KINDS, what run_games uses) as through the loop
    of a table that also seats the search agents (``pimc`` and ``ismcts`` compiled in beside
    ``act``)."""
    pols = ["heuristic", "greedy", "peek", "random"]
    ret0, out0, k0 = _play("river_rats", 4, pols, False, 300)
    ret1, out1, k1 = _play("river_rats", 4, pols, "mixed", 300)
    assert (k0, k1) == (OWN_KINDS, mixed_kind([K_PIMC, K_ISMCTS]))
    np.testing.assert_array_equal(ret0, ret1)
    np.testing.assert_array_equal(out0, out1)


def test_runner_compiles_in_the_parent_before_the_play_clock_starts(monkeypatch):
    """The runner plays one game of the first cell before it times the play (so that the
    printed games/s never counts compilation), whatever the backend and worker count; with
    process workers it starts them meanwhile."""
    from experiments import runner

    calls = []

    def play(cell, n, seed):
        calls.append((cell["x"], n))
        return {"games": n, "wins": 0}

    monkeypatch.setattr(runner, "_compile_first",
                        lambda fn, cell, seed, progress=False, parallel=None:
                        calls.append(("first", cell["x"], parallel is not None)))
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=2, backend="threading", progress=False)
    assert [c for c in calls if c[0] == "first"] == [("first", 1, False)]  # threads: no workers
    assert calls[0][0] == "first"  # before any batch
    calls.clear()
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=1, progress=False)
    assert calls[0] == ("first", 1, False) and len(calls) == 5  # then the 4 batches
    calls.clear()
    runner.run_experiment(play, [{"x": 1}, {"x": 2}], seed=1, games_per_cell=4, batch_size=2,
                          n_jobs=2, backend="loky", progress=False)
    # once, in this process, before the batches; meanwhile the workers start
    assert calls == [("first", 1, True)]


def test_compile_first_plays_one_game_on_a_seed_no_batch_uses():
    from experiments import runner

    seen = []
    runner._compile_first(lambda cell, n, seed: seen.append((cell, n, seed.spawn_key)),
                          {"x": 3}, 7)
    assert seen == [({"x": 3}, 1, (runner.MAX_BATCHES,))]


def test_compile_first_starts_the_workers_meanwhile(tmp_path, monkeypatch):
    """While this process compiles (plays its one game), the workers start and import the batch
    function's module: here a module whose import writes a file, which the one game waits
    for."""
    import joblib

    from experiments import runner

    marker = tmp_path / "imported"
    (tmp_path / "warm_probe_mod.py").write_text(
        "import os, pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text(str(os.getpid()))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # workers left by earlier tests were started without tmp_path on their path
    from joblib.externals.loky import get_reusable_executor
    get_reusable_executor().shutdown(wait=True)

    def play(cell, n, seed):
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        seen.append(marker.exists())

    play.__module__ = "warm_probe_mod"
    seen = []
    parallel = joblib.Parallel(n_jobs=2, backend="loky", return_as="generator_unordered")
    runner._compile_first(play, {"x": 3}, 7, False, parallel)
    assert seen == [True] and int(marker.read_text()) != os.getpid()


def test_a_worker_warm_up_imports_the_batch_module_and_the_loop():
    import sys

    from experiments import runner

    assert runner._import_for_play("experiments.pairs.job") == os.getpid()
    assert "experiments.pairs.job" in sys.modules and "agents.loop" in sys.modules
