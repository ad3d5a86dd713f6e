"""On a cold kernel cache the compiled loop's policies compile in a second process while this one
compiles the rules core (:mod:`agents.precompile`): the policy then comes from the cache, and
the games are the same as when one process compiles everything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents import precompile as P
from agents.loop import play_batch
from agents.policy import resolve

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _side_compile_on(monkeypatch):
    """These tests are of the second process: on, whatever tests/conftest.py chose for the
    parallel workers."""
    monkeypatch.delenv(P.SIDE_COMPILE_ENV, raising=False)

# In a fresh process with an empty cache: prepare a Kuhn poker table of "heuristic" seats (the
# cheapest core and policy to compile), then play it.
COLD = """
import json
import numpy as np
from agents import kuhn_poker
from agents.loop import play_batch
from agents.precompile import policy_in_cache, prepare_loop
from engines.kuhn_poker.config import KuhnPokerConfig
fn = kuhn_poker.POLICY_FUNCTIONS["heuristic"]
before = policy_in_cache(fn)
used = prepare_loop("kuhn_poker", KuhnPokerConfig(n_players=2), ["heuristic"])
after = policy_in_cache(fn)
compiled_here = len(fn.overloads)
df = play_batch(KuhnPokerConfig(n_players=2), "heuristic", 12, seed=2026)
print(json.dumps({"before": before, "used": used, "after": after,
                  "compiled_here": compiled_here,
                  "hits": sum(fn.stats.cache_hits.values()),
                  "misses": sum(fn.stats.cache_misses.values()),
                  "returns": df[[c for c in df.columns if c.startswith("return_")]]
                  .to_numpy().tolist()}))
"""


@pytest.mark.slow
def test_a_cold_cache_compiles_the_policy_in_a_second_process_and_plays_the_same_games(
        tmp_path):
    from engines.kuhn_poker.config import KuhnPokerConfig

    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR", P.SIDE_COMPILE_ENV)}
    env["BOARDLAB_CACHE_DIR"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", COLD], cwd=ROOT, env=env, capture_output=True,
                         text=True, check=True, timeout=600)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    assert r["before"] is False and r["used"] is True
    # the second process wrote the policy to the cache; this one never compiled it, the loop
    # loaded it from there
    assert r["after"] is True and r["compiled_here"] == 0
    assert r["hits"] == 1 and r["misses"] == 0
    here = play_batch(KuhnPokerConfig(n_players=2), "heuristic", 12, seed=2026)
    assert np.array_equal(np.array(r["returns"]),
                          here[[c for c in here.columns if c.startswith("return_")]].to_numpy())


def test_a_warm_cache_starts_no_second_process(monkeypatch):
    from engines.river_rats.config import RiverRatsConfig

    # compiled or loaded: in the cache now
    play_batch(RiverRatsConfig(n_players=2), "greedy", 1, seed=1)
    monkeypatch.setattr(P, "_prepared", set())
    # a command refused before its loop ran (another test in this worker) may have left a
    # process it started in _pending: not this test's concern
    monkeypatch.setattr(P, "_pending", {})
    monkeypatch.setattr(P, "_side_process", lambda *a: pytest.fail("started a second process"))
    assert P.prepare_loop("river_rats", RiverRatsConfig(n_players=2), ["greedy"]) is False


def test_a_policy_missing_from_the_cache_starts_one_and_waits_for_it(monkeypatch):
    from engines.river_rats.config import RiverRatsConfig

    started = []

    class Done:
        def wait(self, timeout=None):
            started.append(("wait", timeout))
            return 0

        def poll(self):
            return 0

    monkeypatch.setattr(P, "_prepared", set())
    monkeypatch.setattr(P, "policy_in_cache", lambda fn: False)
    monkeypatch.setattr(P, "_side_process", lambda game, names: started.append(
        (game, list(names))) or Done())
    assert P.prepare_loop("River Rats", RiverRatsConfig(n_players=2), ["peek", "heuristic"]) is True
    assert started == [("river_rats", ["heuristic", "peek"]), ("wait", P.SIDE_TIMEOUT_S)]
    # once per table and process
    assert P.prepare_loop("river_rats", RiverRatsConfig(n_players=2),
                          ["heuristic", "peek"]) is False


@pytest.mark.parametrize("value, started", [("0", False), (" 0 ", False), ("1", True),
                                            ("", True)])
def test_the_environment_variable_turns_the_second_process_off(monkeypatch, value, started):
    """``BOARDLAB_SIDE_COMPILE=0``: neither :func:`P.start` nor :func:`P.prepare_loop` starts a
    second process (every core busy already); any other value leaves it on."""
    from engines.river_rats.config import RiverRatsConfig

    log = []
    monkeypatch.setenv(P.SIDE_COMPILE_ENV, value)
    monkeypatch.setattr(P, "_prepared", set())
    monkeypatch.setattr(P, "_pending", {})
    monkeypatch.setattr(P, "policy_in_cache", lambda fn: False)
    monkeypatch.setattr(P, "_core_then_wait", lambda game, config, procs: None)
    monkeypatch.setattr(P, "_side_process", lambda game, names: log.append(
        ("started", game, list(names))) or _Proc(log))
    assert P.start("river_rats", "heuristic") is started
    monkeypatch.setattr(P, "_pending", {})
    assert P.prepare_loop("river_rats", RiverRatsConfig(n_players=2), ["greedy"]) is started
    assert len(log) == (2 if started else 0)


def test_the_policies_compiled_into_the_loop_of_a_table():
    def kind(name, game="river_rats"):
        return int(resolve(game, [name], 1)[0][0])

    assert P.policies_of_table("river_rats", kind("heuristic")) == ["heuristic"]
    # mixed seats (-1) and search agents call the game's act, which holds every policy
    every = sorted(["random", "greedy", "heuristic", "peek"])
    assert P.policies_of_table("river_rats", -1) == every
    assert P.policies_of_table("river_rats", kind("pimc-fast")) == every
    # Lure's heuristic family reads the deck from aux: only random has the plain signature,
    # and the family's act holds it
    assert P.policies_of_table("lure", kind("greedy", "lure")) == ["random"]
    assert P.policies_of_table("lure", kind("random", "lure")) == ["random"]


def test_the_loop_calls_every_shipped_policy_with_the_declared_argument_types():
    """The cache entry the loop's own compile writes for a policy is the one the second process
    writes (else the loop would compile the policy again)."""
    from agents import river_rats
    from engines.river_rats.config import RiverRatsConfig

    play_batch(RiverRatsConfig(n_players=3), "random", 2, seed=3)
    fn = river_rats.POLICY_FUNCTIONS["random"]
    assert P.policy_in_cache(fn)
    assert all(tuple(s) == P.POLICY_ARGS for s in fn.signatures)


def test_bad_names_get_one_line_errors(capsys):
    with pytest.raises(ValueError, match="bad policy 'nope'"):
        P.compile_policies("river_rats", ["nope"])
    assert P.main(["river_rats", "nope"]) == 2
    assert P.main(["chess"]) == 2
    assert P.main([]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(line.startswith(("agents.precompile:", "usage:"))
                                 for line in err)


class _Proc:
    """A finished second process."""

    def __init__(self, log):
        self.log = log

    def wait(self, timeout=None):
        self.log.append("waited")
        return 0

    def poll(self):
        return 0


def test_a_process_started_early_is_waited_for_by_the_loop_instead_of_a_new_one(monkeypatch):
    from engines.river_rats.config import RiverRatsConfig

    log = []
    monkeypatch.setattr(P, "_prepared", set())
    monkeypatch.setattr(P, "_pending", {})
    monkeypatch.setattr(P, "_side_process", lambda game, names: log.append(
        ("started", game, list(names))) or _Proc(log))
    assert P.start("River Rats", "heuristic") is True
    assert log == [("started", "river_rats", ["heuristic"])]
    # it has compiled the policy by now: the loop's preparation waits for it, starts nothing
    monkeypatch.setattr(P, "policy_in_cache", lambda fn: True)
    assert P.prepare_loop("river_rats", RiverRatsConfig(n_players=2), ["heuristic"]) is True
    assert log[1:] == ["waited"] and P._pending == {}


@pytest.mark.parametrize("agents, expected", [(["heuristic"], [("river_rats", "heuristic")]),
                                              (["heuristic", "greedy"], [])])
def test_the_pairs_command_starts_compiling_its_one_policy_before_its_imports(
        monkeypatch, tmp_path, agents, expected):
    from experiments.cli import main

    calls = []
    monkeypatch.setattr(P, "start", lambda game, policy: calls.append((game, policy)))
    # a --ci-width the runner refuses: the command stops before it plays
    rc = main(["river-rats", "pairs", "--players", "2", "--agents", *agents, "--ci-width", "7",
               "--jobs", "1", "--quiet", "--out", str(tmp_path / "out")])
    assert rc == 2 and calls == expected


def test_no_python_to_start_means_no_second_process(monkeypatch):
    monkeypatch.setattr(sys, "executable", "")
    assert P._side_process("river_rats", ["heuristic"]) is None
    monkeypatch.setattr(sys, "executable", "/nonexistent/python")
    assert P._side_process("river_rats", ["heuristic"]) is None
