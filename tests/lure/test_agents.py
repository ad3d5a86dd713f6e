"""Lure agents: registry, heuristic family, strength ordering (agents/lure.py)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import lure as A
from engines import dice
from engines.lure import core as K
from engines.lure.batch import play_batch
from engines.lure.config import LureConfig
from engines.lure.game import LureGame
from experiments.stats import wilson_interval

from .helpers import give, make, plain_deck, set_table


def test_registry_and_heuristic_family():
    assert {"random", "greedy", "heuristic"} <= set(A.REGISTRY)
    spec = A.heuristic({"caution": 0.5, "d6_cost": 0.2})
    assert spec.params[0] == 0.5 and spec.params[1] == 0.2
    for bad, msg in [({"nerve": 1}, "unknown heuristic parameter"), ([1, 2], "shape"),
                     ({"pressure": 2}, "pressure"), ({"caution": 3}, "caution"),
                     ({"d6_cost": float("nan")}, "finite")]:
        with pytest.raises(ValueError, match=msg):
            A.heuristic(bad)
    with pytest.raises(ValueError, match="unknown Lure agent"):
        A.get_agent("oracle")


def test_greedy_beats_random():
    """Greedy's win rate against random (2 players, seats alternated) is well above 1/2."""
    cfg = LureConfig(n_players=2)
    a = play_batch(cfg, ["greedy", "random"], 200, seed=1)
    b = play_batch(cfg, ["random", "greedy"], 200, seed=2)
    wins = a["win_0"].sum() + b["win_1"].sum()
    low, _ = wilson_interval(wins, 400)
    assert low > 0.7


def test_greedy_uses_exact_odds_and_its_place_in_turn_order():
    """One 1-point fish (catch number 3); the opponent is expected to cast 3 dice (first round),
    so casts of 3+ dice risk losing the fish: greedy takes the best cast of at most 2 dice,
    d12 + d20 (P = 239/240), over 1d6 + d20 (119/120) or 2d6 (35/36)."""
    g = make(plain_deck(10, cn=3), n=2)
    set_table(g, ["F00"])
    a = A.Agent("greedy").act(g)
    assert g.action_to_string(a) == "cast d12 d20"
    table = A.policy_table(g.deck)
    assert table[0, 0, 3, dice.PLAN_NONE] == pytest.approx(239 / 240)
    # once the opponent is known to cast 5 dice, 3 dice are safe: a sure catch
    g.state[K.PB + K.PSTRIDE + K.P_LAST_NDICE] = 5
    a = A.Agent("greedy").act(g)
    assert table[0, a & 7, (a >> 3) & 7, dice.PLAN_NONE] == pytest.approx(1.0)


def test_greedy_adjust_finds_the_catch():
    for seed in range(100):
        g = make(plain_deck(10, cn=0, req="has:6"), n=2, seed=seed)
        give(g, 0, "adjust", 2)
        g.apply_action("cast 1d6 lures adjust*2")
        g.apply_action("cast nothing")
        raw = int(g.observation(0)["players"][0]["roll"]["d6#1"])
        if raw in (4, 5):
            break
    a = A.Agent("greedy").act(g)
    assert g.action_to_string(a) == f"adjust d6#1+{6 - raw}"


def test_heuristic_costs_change_decisions():
    """The family's parameters matter: a huge d6 cost casts nothing."""
    g = LureGame(LureConfig(n_players=3), seed=5)
    stingy = A.Agent(A.heuristic({"d6_cost": 50.0, "special_cost": 50.0}))
    assert stingy.act(g) == 0
    assert A.Agent("greedy").act(g) != 0


def test_pack_agents_shapes():
    kinds, params = A.pack_agents(A.seat_agents("greedy", 3))
    assert kinds.shape == (3,) and params.shape == (3, A.N_PARAMS)
    assert np.array_equal(params[0], A.GREEDY_PARAMS)
