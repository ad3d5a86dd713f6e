"""User policies compiled in a notebook or script: the README's worked example, agreement of
the user-policy loop with the engines' loop, illegal actions, registration errors."""

import numpy as np
import pytest
from numba import njit

from agents.lure import KIND_HEURISTIC
from agents.lure import policy_action as lure_policy_action
from agents.rats import greedy_policy as rats_greedy
from agents.recurring import greedy_policy as recurring_greedy
from engines.recurring.core import BLOCK, HAND, PASS
from experiments.tournament import register_policy, run_tournament
from experiments.tournament_games import get_adapter


# The worked example of the README section "Compare strategies" (keep the two in step).
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
    assert a.loc["biggest_group", "rating_games"] == 10 * 3


@pytest.mark.parametrize("game, fn, n", [("recurring", recurring_greedy, 4),
                                         ("rats", rats_greedy, 3)])
def test_user_loop_plays_the_same_games_as_the_engine_loop(game, fn, n):
    """The shipped greedy policy registered as a user policy goes through the tournament's own
    compiled loop; it must play exactly the games of the engines' play_games."""
    register_policy(game, "greedy_copy", fn)
    ad = get_adapter(game)
    cfg = ad.config(n)
    ref = [ad.resolve(ad_ref) for ad_ref in _refs(["greedy", "heuristic", "random", "greedy"][:n])]
    mine = [ad.resolve(x) for x in _refs(["greedy_copy", "heuristic", "random", "greedy"][:n])]
    a = ad.play(cfg, ref, 12, 4242)
    b = ad.play(cfg, mine, 12, 4242)
    assert np.array_equal(a.win, b.win) and np.array_equal(a.key, b.key)


def _refs(names):
    from experiments.tournament_games import AgentRef

    return [AgentRef(f"{x}{i}", x) for i, x in enumerate(names)]


@njit
def always_first(state, player, legal, n_legal, params, rng):
    return legal[0]


@njit
def cheater(state, player, legal, n_legal, params, rng):
    return -12345


def test_river_rats_user_policy_and_two_workers():
    register_policy("river_rats", "first_legal", always_first)
    one = run_tournament("river-rats", "first_legal,random", 2, 8, batch_size=4, rating_deals=0,
                         save=False)
    two = run_tournament("river-rats", "first_legal,random", 2, 8, batch_size=4, rating_deals=0,
                         save=False, n_jobs=2)
    assert one.sums == two.sums and one.meta["games_played"] == 16


def test_illegal_action_of_a_user_policy_is_reported():
    register_policy("rats", "cheater", cheater)
    with pytest.raises(ValueError, match="'cheater' .* illegal action -12345"):
        run_tournament("rats", "cheater,random", 2, 4, rating_deals=0, save=False)


def test_registration_errors():
    with pytest.raises(ValueError, match="shipped"):
        register_policy("rats", "greedy", always_first)
    with pytest.raises(ValueError, match="@njit"):
        register_policy("rats", "plain", lambda *a: 0)
    with pytest.raises(ValueError, match="without"):
        register_policy("rats", "bad,name", always_first)
    with pytest.raises(ValueError, match=r"policy\(state, cfg, conds"):
        register_policy("lure", "plain", lambda *a: 0)


@njit
def lure_heuristic_copy(state, cfg, conds, info, table, params, prng, player, work):
    """Lure's protocol without the kind: here the shipped heuristic itself."""
    return lure_policy_action(KIND_HEURISTIC, state, cfg, conds, info, table, params, prng, player,
                         work)


@njit
def lure_cheater(state, cfg, conds, info, table, params, prng, player, work):
    return -7


def test_lure_user_policy_plays_the_same_games_as_the_engine_loop():
    """Lure user policies take Lure's protocol; the shipped heuristic registered as a user
    policy (with the heuristic's parameters) plays exactly the games of the engine's loop."""
    from agents.lure import REGISTRY

    register_policy("lure", "heuristic_copy", lure_heuristic_copy,
                    default_params=REGISTRY["heuristic"].params_array())
    ad = get_adapter("lure")
    cfg = ad.config(3)
    ref = [ad.resolve(x) for x in _refs(["heuristic", "greedy", "random"])]
    mine = [ad.resolve(x) for x in _refs(["heuristic_copy", "greedy", "random"])]
    a = ad.play(cfg, ref, 10, 99)
    b = ad.play(cfg, mine, 10, 99)
    assert np.array_equal(a.win, b.win) and np.array_equal(a.score, b.score)
    register_policy("lure", "lure_cheater", lure_cheater)
    with pytest.raises(ValueError, match="'lure_cheater' .* illegal action -7"):
        run_tournament("lure", "lure_cheater,random", 2, 4, rating_deals=0, save=False)
