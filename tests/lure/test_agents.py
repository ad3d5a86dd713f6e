"""Lure policies: registry, the heuristic family, plans kept in the seat memory, strength
(agents/lure.py)."""

from __future__ import annotations

import numpy as np
import pytest

from agents import lure as A
from agents.loop import play_batch
from agents.policy import Agent, names, params_width, resolve
from engines import dice
from engines.lure import LureState, core as C
from engines.lure.config import LureConfig
from experiments.stats import wilson_interval

from .helpers import give, make, plain_deck, set_table


def _first_cast(g: LureState, name: str, params=None) -> str:
    """The whole cast ``name`` plays from here, as text (run on a clone)."""
    h = g.clone()
    p = h.current_player()
    agent = Agent("lure", name, params)
    while h.current_player() == p and h.phase == "cast":
        h.apply_action(agent(h))
    return h._cast_text(h.state, C.PB + p * C.PSTRIDE)


def test_registry_params_and_resolve():
    assert [s.name for s in A.SPECS] == ["random", "greedy", "heuristic", "cautious", "bold"]
    assert names("lure")[:5] == [s.name for s in A.SPECS]
    kinds, rows, _ = resolve("lure", ["random", "greedy", "bold"], 3)
    assert kinds[:3].tolist() == [A.KIND_RANDOM, A.KIND_HEURISTIC, A.KIND_HEURISTIC]
    assert rows.shape == (C.MAX_PLAYERS, params_width("lure"))
    assert rows.shape[1] >= A.PARAMS_WIDTH
    w = A.PARAMS_WIDTH
    assert rows[1, :w].tolist() == list(A.GREEDY_PARAMS)
    assert rows[2, :w].tolist() == list(A.BOLD_PARAMS)
    vec = A.heuristic_params({"caution": 0.5, "d6_cost": 0.2})
    assert vec[0] == 0.5 and vec[1] == 0.2 and vec[2] == A.HEURISTIC_PARAMS[2]
    for bad, msg in [({"nerve": 1}, "unknown heuristic parameter"), ([1, 2], "shape"),
                     ({"pressure": 2}, "pressure"), ({"caution": 3}, "caution"),
                     ({"d6_cost": float("nan")}, "finite")]:
        with pytest.raises(ValueError, match=msg):
            A.heuristic_params(bad)
    with pytest.raises(ValueError, match="unknown lure policy 'oracle'"):
        Agent("lure", "oracle")


def test_make_aux_is_the_exact_table_cached_per_deck():
    cfg = LureConfig()
    aux = A.make_aux(cfg)
    assert aux is A.make_aux(LureConfig(n_players=2))
    t = aux.reshape(len(cfg.deck), 6, 8, dice.N_PLANS)
    i = cfg.deck.index("B02")  # catch number 4, no requirement
    assert t[i, 1, 0, dice.PLAN_NONE] == pytest.approx(0.5)
    assert t[i, 2, 0, dice.PLAN_NONE] == pytest.approx(33 / 36)
    assert A.make_aux(LureConfig(adjust_may_be_unused=False)) is not aux


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
    assert _first_cast(g, "greedy") == "d12 d20"
    table = A.make_aux(g.config).reshape(len(g.deck), 6, 8, dice.N_PLANS)
    assert table[0, 0, 3, dice.PLAN_NONE] == pytest.approx(239 / 240)
    # once the opponent is known to cast 5 dice, 3 dice are safe: a sure catch
    g.state[C.PB + C.PSTRIDE + C.P_LAST_NDICE] = 5
    h = g.clone()
    agent = Agent("lure", "greedy")
    n6 = agent(h)
    h.apply_action(n6)
    spec = agent(h) - C.A_SPECIAL
    assert table[0, n6, spec, dice.PLAN_NONE] == pytest.approx(1.0)


def test_the_cast_plan_is_kept_in_the_seat_memory_keyed_by_round():
    g = make(plain_deck(10, cn=3), n=2)
    give(g, 0, "boost", 2)
    agent = Agent("lure", "greedy")
    mem = g.seat_memory[0]
    a = agent(g)
    assert mem[A.M_CAST_KEY] == g.round and mem[A.M_CAST_PLAN] & 7 == a
    # the plan is emitted piece by piece without being recomputed: change it and see
    plan = int(mem[A.M_CAST_PLAN])
    mem[A.M_CAST_PLAN] = (plan & ~0x3F) | 4 | (1 << 3)  # 4d6 and the d12, boosts kept
    g.apply_action(a)
    assert agent(g) == C.A_SPECIAL + 1
    g.apply_action(C.A_SPECIAL + 1)
    boosts = (plan >> (6 + 5 * 7)) & 31
    for _ in range(boosts):
        assert agent(g) == C.A_LURE + 7
        g.apply_action(C.A_LURE + 7)
    assert agent(g) == C.A_FINISH
    # a stale plan (another round) is recomputed
    mem[A.M_CAST_KEY] = 0
    g.apply_action(C.A_FINISH)
    g.apply_action(agent(g))  # seat 1 plans its own cast in its own memory
    assert g.seat_memory[1][A.M_CAST_KEY] == g.round


def test_greedy_adjust_finds_the_catch_step_by_step():
    for seed in range(100):
        g = make(plain_deck(10, cn=0, req="has:6"), n=2, seed=seed)
        give(g, 0, "adjust", 2)
        g.play_move("cast 1d6 lures adjust*2")
        g.play_move("cast nothing")
        raw = int(g.observation(0)["players"][0]["roll"]["d6#1"])
        if raw in (4, 5):
            break
    agent = Agent("lure", "greedy")
    acts = []
    while g.current_player() == 0 and g.phase == "adjust":
        acts.append(agent(g))
        g.apply_action(acts[-1])
    want = [C.A_ADJUST] * (6 - raw) + ([C.A_STOP] if raw == 5 else [])
    assert acts == want
    assert g.seat_memory[0][A.M_ADJ_KEY] == 1 and len(g.caught(0)) == 2


def test_greedy_uses_every_adjust_when_it_must():
    for seed in range(200):
        g = make(plain_deck(10, cn=0, req="has:6"), n=2, seed=seed, adjust_may_be_unused=False)
        give(g, 0, "adjust", 3)
        g.play_move("cast 1d6 lures adjust*3")
        g.play_move("cast nothing")
        raw = int(g.state[C.PB + C.P_RAW])
        if raw == 5:
            break
    agent = Agent("lure", "greedy")
    n = 0
    while g.phase == "adjust":
        g.apply_action(agent(g))
        n += 1
    assert n == 3 and int(g.state[C.PB + C.P_LAST_DICE]) == 6 and len(g.caught(0)) == 2


def test_heuristic_costs_change_decisions():
    """The family's parameters matter: a huge d6 and special-die cost casts nothing."""
    g = LureState(LureConfig(n_players=3), 5)
    stingy = A.heuristic_params({"d6_cost": 50.0, "special_cost": 50.0})
    assert _first_cast(g, "heuristic", stingy) == "no dice"
    assert _first_cast(g, "greedy") != "no dice"


def test_random_is_uniform_over_the_legal_decisions():
    g = LureState(LureConfig(n_players=2), 1)
    legal = np.arange(6, dtype=np.int64)
    rng = np.array([12345] + [0] * 15, np.int64)
    counts = np.zeros(6)
    for _ in range(6000):
        counts[A.random_policy(g.state, 0, legal, 6, np.zeros(8), rng)] += 1
    assert abs(counts / 6000 - 1 / 6).max() < 0.03


def test_leaf_value_is_relative_and_search_agents_play_fair():
    """leaf_value (the search agents' horizon value) sums to 0 over the seats and ranks the
    winner first at the end; a search agent decides the same on determinize(s, p, seed)."""
    from agents.loop import play_stepwise

    cfg = LureConfig(n_players=3)
    end = play_stepwise(cfg, "greedy", 4)
    out = np.zeros(C.MAX_PLAYERS)
    A.leaf_value(end.state, A.LEAF_VALUE_DEFAULT, out)
    assert abs(out.sum()) < 1e-9 and (out[3:] == 0).all()
    assert int(np.argmax(out)) == int(np.argmax(end.returns()))
    g = LureState(cfg, 8)
    agent = Agent("lure", "pimc", [2])  # 2 worlds per decision: quick
    other = Agent("lure", "greedy")
    for k in range(40):
        if k % 8 == 0:
            p = g.current_player()
            mem = g.seat_memory.copy()
            a1 = agent(g)
            d = g.determinize(p, 77 + k)
            d.seat_memory[:] = mem
            assert agent(d) == a1
            g.seat_memory[:] = mem
        g.apply_action(other(g))
