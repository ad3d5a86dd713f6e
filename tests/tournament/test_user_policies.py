"""User policies compiled in a notebook or script: the worked example of
docs/guides/tournaments.md, agreement of the user-policy loop with the engines' loop, illegal
actions, registration errors."""

import importlib

import numpy as np
import pytest
from numba import njit

from engines.recurring.core import BLOCK, HAND, PASS
from experiments.tournament.games import get_adapter
from experiments.tournament.run import register_policy, run_tournament


# The worked example of docs/guides/tournaments.md (keep the two in step).
@njit
def biggest_group(state, player, legal, n_legal, params, rng):
    hand = HAND + BLOCK * player
    best, best_score = legal[0], -1e300
    for i in range(n_legal):
        a = legal[i]
        if a == PASS:
            continue
        v, k = a & 15, a >> 4
        score = k + 0.01 * v + (params[0] if state[hand + v] == k else 0.0)
        if score > best_score:
            best, best_score = a, score
    return best


def test_readme_worked_example_rates_a_new_recurring_policy():
    register_policy("recurring", "biggest_group", biggest_group, default_params=[0.5],
                    description="play the most cards")
    r = run_tournament("recurring", "biggest_group,greedy,random", 3, 30, batch_size=15,
                       rating_deals=10, save=False)
    a = r.agents
    assert a.loc["biggest_group", "base"] == "biggest_group"
    assert a.loc["biggest_group", "params"] == "0.5"
    # it plays (beats random on points) and is rated
    assert a.loc["biggest_group", "score"] > a.loc["random", "score"]
    # ReCURRRing ranks by match points: one rated match per deal and table (1 table), its 3
    # rotations' points summed
    assert a.loc["biggest_group", "rating_games"] == 10


@pytest.mark.parametrize("game, n", [("recurring", 4), ("rats", 3), ("river_rats", 2)])
def test_user_loop_plays_the_same_games_as_the_engine_loop(game, n):
    """A shipped policy function registered as a user policy goes through the loop's
    user-policy path; it must play exactly the games of the shipped name."""
    fn = importlib.import_module(f"agents.{game}").POLICY_FUNCTIONS["greedy"]
    register_policy(game, "greedy_copy", fn,
                    default_params=get_adapter(game).registry_params("greedy"))
    ad = get_adapter(game)
    cfg = ad.config(n)
    names = ["greedy", "heuristic", "random", "greedy"][:n]
    if ad.cooperative:
        names = ["greedy"] * n
    ref = [ad.resolve(x) for x in _refs(names)]
    mine = [ad.resolve(x) for x in _refs(["greedy_copy"] + names[1:])]
    a = ad.play(cfg, ref, 12, 4242)
    b = ad.play(cfg, mine, 12, 4242)
    assert np.array_equal(a.win, b.win) and np.array_equal(a.key, b.key)


def _refs(names):
    from experiments.tournament.games import AgentRef

    return [AgentRef(f"{x}{i}", x) for i, x in enumerate(names)]


@njit
def always_first(state, player, legal, n_legal, params, rng):
    return legal[0]


@njit
def cheater(state, player, legal, n_legal, params, rng):
    return -12345


def test_a_user_policy_reaches_two_workers():
    """A user policy is sent to worker processes and plays there the games it plays here (on
    Kuhn poker, whose loop compiles in seconds: every worker compiles the loop around a user
    policy anew; River Rats' user-policy loop is checked in-process above)."""
    register_policy("kuhn_poker", "first_legal", always_first)
    one = run_tournament("kuhn-poker", "first_legal,random", 2, 8, batch_size=4, rating_deals=0,
                         save=False)
    two = run_tournament("kuhn-poker", "first_legal,random", 2, 8, batch_size=4, rating_deals=0,
                         save=False, n_jobs=2)
    assert one.sums == two.sums and one.meta["games_played"] == 16


def test_illegal_action_of_a_user_policy_is_reported():
    """The one loop's user-policy path reports an illegal action with the policy's label (on
    Kuhn poker: the same loop code for every game, compiled in seconds)."""
    register_policy("kuhn_poker", "cheater", cheater)
    with pytest.raises(ValueError, match="'cheater' .* illegal action -12345"):
        run_tournament("kuhn-poker", "cheater,random", 2, 4, rating_deals=0, save=False)


def test_registration_errors():
    with pytest.raises(ValueError, match="shipped"):
        register_policy("rats", "greedy", always_first)
    with pytest.raises(ValueError, match="@njit"):
        register_policy("rats", "plain", lambda *a: 0)
    with pytest.raises(ValueError, match="without"):
        register_policy("rats", "bad,name", always_first)
    with pytest.raises(ValueError, match=r"policy\(state, player, legal, n_legal, params, rng"):
        register_policy("lure", "plain", lambda *a: 0)


@njit
def lure_scripted(state, player, legal, n_legal, params, rng):
    """The first legal action, or the illegal -7 when ``params[0] < 0`` (one function for both
    Lure user policies below: one compilation of the loop around it)."""
    if params[0] < 0:
        return -7
    return legal[0]


def test_lure_user_policies_take_the_one_signature():
    """Lure user policies have the same signature as every game's; a first-legal policy plays
    whole games, and an illegal action is reported with the policy's label."""
    n = len(get_adapter("lure").param_names)
    register_policy("lure", "lure_first", lure_scripted, default_params=np.zeros(n))
    r = run_tournament("lure", "lure_first,random", 2, 4, rating_deals=0, save=False)
    assert r.meta["games_played"] == 8
    register_policy("lure", "lure_cheater", lure_scripted, default_params=-np.ones(n))
    with pytest.raises(ValueError, match="'lure_cheater' .* illegal action -7"):
        run_tournament("lure", "lure_cheater,random", 2, 4, rating_deals=0, save=False)
