"""The PettingZoo environments (experiments.interop.pettingzoo_env).

Skipped (with the reason) only when pettingzoo (the ``interop`` extra) is not importable.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo", reason="pettingzoo is not installed "
                    "(pip install -e '.[interop]')")

from pettingzoo.test import api_test, seed_test  # noqa: E402

from engines.protocol import GAME_NAMES, core_of, game_class, new_game  # noqa: E402
from experiments.interop import pettingzoo_env as Z  # noqa: E402

ALL = [(g, n) for g in GAME_NAMES
       for n in range(core_of(g).MIN_PLAYERS, core_of(g).MAX_PLAYERS + 1)]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        # api_test's advice for Dict observation spaces (the classic games' layout)
        warnings.filterwarnings("ignore", message="Observation space for each agent")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        yield


@pytest.mark.parametrize("game,n", ALL)
def test_api_and_seed(game, n):
    api_test(Z.env(game, n), num_cycles=60)
    seed_test(lambda: Z.env(game, n), num_cycles=40)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_reset_seed_is_new_game_and_obs_matches_step_api(game):
    cls = game_class(game)
    n = min(core_of(game).MIN_PLAYERS + 1, core_of(game).MAX_PLAYERS)
    cfg = cls._as_config({**cls.config_class().to_dict(), "n_players": n})
    env = Z.raw_env(game, n)
    seed = 2**63 + 12345
    env.reset(seed=seed)
    ref = new_game(game, cfg, seed)
    rng = np.random.default_rng(0)
    for _ in range(25):
        if ref.is_terminal():
            break
        assert env.render() == str(ref)
        agent = env.agent_selection
        p = ref.current_player()
        assert agent == f"player_{p}"
        obs = env.observe(agent)
        np.testing.assert_array_equal(obs["observation"], ref.observation_tensor(p))
        assert np.flatnonzero(obs["action_mask"]).tolist() == ref.legal_actions()
        other = f"player_{(p + 1) % n}"
        assert not env.observe(other)["action_mask"].any()
        a = ref.legal_actions()[int(rng.integers(len(ref.legal_actions())))]
        env.step(a)
        ref.apply_action(a)
    assert env.action_space("player_0").n == core_of(game).NUM_DISTINCT_ACTIONS


def test_rewards_are_the_returns_and_illegal_actions_raise():
    env = Z.raw_env("recurring", 3)
    env.reset(seed=9)
    illegal = next(a for a in range(env.action_space("player_0").n)
                   if not env.observe(env.agent_selection)["action_mask"][a])
    with pytest.raises(ValueError, match="illegal action"):
        env.step(illegal)
    rng = np.random.default_rng(3)
    total = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, rew, term, trunc, _ = env.last()
        total[agent] += rew
        if term or trunc:
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert list(total.values()) == env.game_state.returns()
    assert sum(total.values()) > 0
    with pytest.raises(ValueError, match="bad players 2 for recurring"):
        Z.raw_env("recurring", 2)


@pytest.mark.parametrize("n", range(2, 6))
def test_lure_parallel_api(n):
    from pettingzoo.test import parallel_api_test

    parallel_api_test(Z.parallel_env("lure", n), num_cycles=300)


def _random_joint(obs, rng, override=None):
    acts = {}
    for a, o in obs.items():
        legal = np.flatnonzero(o["action_mask"])
        acts[a] = int(rng.choice(legal)) if legal.size else 0
    acts.update(override or {})
    return acts


def test_lure_parallel_cast_is_simultaneous_and_replays():
    """During a cast every player acts at once; a player's view does not depend on what the
    others cast; the finished game is an ordinary sequential Lure game of the same seed."""
    envs = [Z.parallel_env("lure", 3), Z.parallel_env("lure", 3)]
    obs = [e.reset(seed=21)[0] for e in envs]
    assert all(obs[0][a]["action_mask"].any() for a in envs[0].agents)  # all three cast at once
    rng = np.random.default_rng(4)
    for _ in range(3):  # seat 0 casts differently in the two games, seats 1-2 the same
        joint = _random_joint(obs[0], rng)
        legal0 = np.flatnonzero(obs[0]["player_0"]["action_mask"])
        other = {"player_0": int(legal0[0] if joint["player_0"] != legal0[0] else legal0[-1])}
        obs = [envs[0].step(joint)[0], envs[1].step(_random_joint(obs[1], rng, other) | {
            k: v for k, v in joint.items() if k != "player_0"})[0]]
        for a in ("player_1", "player_2"):
            np.testing.assert_array_equal(obs[0][a]["observation"], obs[1][a]["observation"])
            np.testing.assert_array_equal(obs[0][a]["action_mask"], obs[1][a]["action_mask"])
    e = envs[0]
    while e.agents:
        obs[0], rew, term, *_ = e.step(_random_joint(obs[0], rng))
    from engines.protocol import replay

    ref = replay(e.game_state.record())
    assert ref.returns() == [rew[a] for a in e.possible_agents]
    assert len(e.game_state.history) > 0 and ref.is_terminal()
    with pytest.raises(ValueError, match="parallel_env"):
        Z.parallel_env("rats", 3)


def test_env_wrapper_enforces_order_like_pettingzoos():
    """env() is PettingZoo's OrderEnforcingWrapper (a subclass) with the same errors before
    reset, the same agent_iter check and the same game as the stock wrapper."""
    from pettingzoo.utils import wrappers

    fast = Z.env("rats", players=3)
    stock = wrappers.OrderEnforcingWrapper(Z.raw_env("rats", players=3))
    assert isinstance(fast, wrappers.OrderEnforcingWrapper)
    for e in (fast, stock):
        for name in ("agents", "agent_selection", "rewards", "terminations", "infos"):
            with pytest.raises(AttributeError, match="before reset"):
                getattr(e, name)
        with pytest.raises(AttributeError, match="before reset"):
            e.last()
        with pytest.raises(Exception, match="reset"):
            e.step(0)
        with pytest.raises(Exception, match="reset"):
            e.observe("player_0")
        with pytest.raises(Exception, match="reset"):
            e.agent_iter()
    rng = np.random.default_rng(1)
    runs = []
    for e in (fast, stock):
        e.reset(seed=77)
        it = iter(e.agent_iter())
        next(it)
        with pytest.raises(AssertionError, match="step"):
            next(it)  # two agents without a step between
        e.reset(seed=77)
        trace = []
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            trace.append((agent, rew, term, obs["action_mask"].tobytes()))
            e.step(None if term else int(np.flatnonzero(obs["action_mask"])[
                int(rng.integers(1 << 20)) % int(obs["action_mask"].sum())]))
        runs.append((trace, e.unwrapped.game_state.history))
        rng = np.random.default_rng(1)
    assert runs[0] == runs[1]
    assert fast.agents == [] and str(fast) == str(stock)


def test_benchmark_prints_the_env_ratio(capsys):
    """benchmarks/interop.py times env() (the README's loop) against the step API and prints
    the ratio (a benchmark, not a timed test: only that it runs and reports is checked)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "interop.py"
    spec = importlib.util.spec_from_file_location("benchmark_interop", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    bench.main(["--game", "recurring", "--games", "1", "--rounds", "1"])
    out = capsys.readouterr().out
    assert "largest PettingZoo env()/step-API ratio:" in out
    row = next(line for line in out.splitlines() if line.startswith("recurring"))
    assert len(row.split()) == 11
