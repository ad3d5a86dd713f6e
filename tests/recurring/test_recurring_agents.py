"""The shipped ReCURRRing policies on the one policy protocol (:mod:`agents.policy`): the
registry, the compiled dispatch, legal and reproducible play through both doors, user policies
in the loop, and the expected strength order."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents import recurring as A
from agents.loop import play_batch, play_stepwise
from agents.policy import params_width, Agent, PolicySpec, get_spec, names, resolve
from engines.protocol import chance
from engines.recurring import RecurringConfig, new_game
from engines.recurring.core import PASS


def test_registry_and_exports():
    assert names("recurring")[:3] == ["random", "greedy", "heuristic"]
    assert names("recurring")[3] == "net"  # the learned policy (agents.net), then search
    assert all(get_spec("recurring", n).search for n in names("recurring")[4:])
    for s in A.SPECS:
        assert isinstance(s, PolicySpec) and s.game == "recurring" and s.label
        assert not s.sees_hidden and not s.search
        assert len(s.default_params) == len(s.param_names) <= A.PARAMS_WIDTH
    assert [s.kind for s in A.SPECS] == [A.RANDOM, A.GREEDY, A.HEURISTIC]
    h = get_spec("recurring", "heuristic")
    assert h.param_names == A.HEURISTIC_PARAM_NAMES and h.default_params == A.HEURISTIC_DEFAULT
    assert A.PARAMS_WIDTH == 8 and A.make_aux(RecurringConfig()).shape == (0,)
    kinds, rows, seat_names = resolve("recurring", ["heuristic", "random", "greedy"], 3)
    assert kinds.tolist()[:3] == [2, 0, 1] and rows.shape == (5, params_width("recurring"))
    assert rows[0, :8].tolist() == list(A.HEURISTIC_DEFAULT) and not rows[0, 8:].any()


def test_random_is_uniform_draw_from_word_0():
    legal = np.array([0, 17, 33, 49, 65], dtype=np.int64)
    rng = np.zeros(chance.SEAT_WORDS, dtype=np.int64)
    rng[0] = 12345
    ref = rng.copy()
    s = new_game(seed=1).state
    for _ in range(50):
        a = A.act(A.RANDOM, s, 0, legal, 5, np.zeros(8), A.make_aux(None), rng)
        assert a == legal[chance.rand_below(ref, 0, 5)]
    assert np.array_equal(rng[1:], np.zeros(15))


@pytest.mark.parametrize("name", ["random", "greedy", "heuristic"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_policy_plays_legal_whole_games(name, n):
    for seed in range(3):
        g = play_stepwise(RecurringConfig(n_players=n), name, seed)
        assert g.is_terminal() and len(g.history) > n


def test_greedy_prefers_the_weakest_whole_group_and_never_passes_by_choice():
    from .helpers import play, scenario

    g = scenario([{9: 1, 3: 1}, {8: 2, 7: 1, 6: 3}, {5: 1}])
    play(g, "play 9")
    # seat 1: legal pass, 6, 7, 8, 6-6, 7-7? (one 7), 8-8: weakest whole group is 7
    assert Agent("recurring", "greedy")(g) == 16 + 7
    g = scenario([{9: 1, 3: 1}, {8: 3, 6: 3}, {5: 1}])
    play(g, "play 9")
    # every play splits a group (8, 6, 8-8, 6-6): the weakest play overall, 8
    assert Agent("recurring", "greedy")(g) == 16 + 8


def test_heuristic_params_change_play():
    from .helpers import play, scenario

    g = scenario([{9: 1, 3: 1}, {8: 2, 7: 1, 6: 3}, {5: 1}])
    play(g, "play 9")
    eager = Agent("recurring", "heuristic", [0, 0, 0, 0, 0, 0, -100, 0])
    lazy = Agent("recurring", "heuristic", [0, 0, 0, 0, 0, 0, 100, 0])
    assert eager(g) != PASS and lazy(g) == PASS
    with pytest.raises(ValueError, match="bad params for 'heuristic'"):
        Agent("recurring", "heuristic", np.zeros(9))


def test_user_policy_in_the_loop_equals_the_shipped_one():
    @njit
    def greedy_copy(state, player, legal, n_legal, params, rng):
        return A.greedy_policy(state, player, legal, n_legal, params, rng)

    cfg = RecurringConfig(n_players=4)
    a = play_batch(cfg, [greedy_copy, "random", "heuristic", "random"], 40, seed=9)
    b = play_batch(cfg, ["greedy", "random", "heuristic", "random"], 40, seed=9)
    assert a.equals(b)


def test_strength_order_greedy_and_heuristic_beat_random():
    """Against three random seats (4 players, 1500 games), greedy and heuristic win most
    games (the pre-protocol numbers: about 0.83 of the game wins for either)."""
    cfg = RecurringConfig(n_players=4)
    for hero in ("greedy", "heuristic"):
        df = play_batch(cfg, [hero, "random", "random", "random"], 1500, seed=2)
        pts = df[[f"points_{p}" for p in range(4)]].to_numpy()
        top = pts == pts.max(axis=1, keepdims=True)
        share = (top[:, 0] / top.sum(axis=1)).mean()
        assert share > 0.75, hero
