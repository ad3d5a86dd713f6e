"""Invariants of River Rats after every action under random play, for thousands of games
(hypothesis draws the configurations and seeds; a compiled checker runs the games):
each of the 54 cards is in exactly one place, pile and debt counts never go negative or past
their capacity, the legal-action list is never empty while running, and every game ends."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from agents import river_rats as agents
from engines.protocol import chance
from engines.river_rats import RiverRatsConfig, new_game
from engines.river_rats import core as C

from .helpers import PILE_BASES, PILE_CAPS, card_counts

MAX_ACTIONS = 5000


@njit(cache=True)
def _check(s, bases, caps, seen):
    """0 if the state is consistent, else an error code."""
    seen[:] = 0
    for k in range(len(bases)):
        n = s[bases[k]]
        if n < 0 or n > caps[k]:
            return 1
        for i in range(n):
            c = s[bases[k] + 1 + i]
            if c < 0 or c > 53:
                return 2
            seen[c] += 1
    for c in range(54):
        if seen[c] != 1:
            return 3
    if s[C.PDEBT] < 0 or s[C.RDEBT] < 0 or s[C.STAKE] < 0:
        return 4
    if s[C.JOKERS_EARNED] > 2 or s[C.JOKERS_EARNED] != 2 - s[C.JSUP]:
        return 5
    if s[C.STATUS] == C.RUNNING and (s[C.CUR] < 0 or s[C.CUR] >= s[C.N_PLAYERS]):
        return 6
    if s[C.COLL] > s[C.TARGET] or (s[C.STATUS] == C.WON and s[C.DEFEATED] != 2):
        return 7
    return 0


@njit(cache=True)
def _run(cfg, seed, n_games, pid, params, bases, caps, out):
    """Play n_games with policy pid, checking after every action; out[g] = error code."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    seen = np.zeros(54, dtype=np.int64)
    mem = np.zeros((4, chance.SEAT_WORDS), dtype=np.int64)
    aux = np.zeros(0)
    for g in range(n_games):
        gs = chance.game_seed(seed, g)
        C.init_state(cfg, gs, s)
        chance.init_seat_memory(gs, mem)
        err = _check(s, bases, caps, seen)
        steps = 0
        while err == 0 and s[C.STATUS] == C.RUNNING:
            n = C.legal_actions(s, legal)
            if n == 0:
                err = 10
                break
            p = s[C.CUR]
            a = agents.act(pid, s, p, legal, n, params, aux, mem[p])
            if a < 0 or a >= C.NUM_DISTINCT_ACTIONS or (n > 1 and legal[n - 2] >= legal[n - 1]):
                err = 12
                break
            C.apply_action(s, a)
            err = _check(s, bases, caps, seen)
            steps += 1
            if steps > 5000:
                err = 11
        out[g] = err


configs = st.builds(
    RiverRatsConfig,
    n_players=st.integers(1, 4),
    rats=st.one_of(st.none(), st.permutations("CDHS").map(lambda p: (p[0], p[1]))),
    difficulty=st.sampled_from(["first_game", "normal", "advanced", "expert"]),
    prediction_match=st.sampled_from(["exact", "at_least"]),
    defeated_rat_stays=st.booleans(),
    empty_draw=st.sampled_from(["skip", "lose"]),
    first_game_defeat_bonuses=st.booleans(),
)


@settings(max_examples=60)
@given(cfg=configs, seed=st.integers(0, 2**64 - 1),
       policy=st.sampled_from(["random", "random", "heuristic", "peek"]))
def test_invariants_after_every_action(cfg, seed, policy):
    """60 configurations x 100 games (6,000 games) checked after every action."""
    out = np.full(100, -1, dtype=np.int64)
    _run(cfg.to_array(), chance.as_word(seed), 100, agents.POLICY_IDS[policy],
         agents.default_params(policy), PILE_BASES, PILE_CAPS, out)
    assert (out == 0).all(), f"error codes {sorted(set(out.tolist()))}"


def test_checker_detects_a_broken_state():
    """The compiled checker is not vacuous: a duplicated or lost card is reported."""
    st_ = new_game(RiverRatsConfig(n_players=2), 1)
    a = st_.array
    seen = np.zeros(54, dtype=np.int64)
    assert _check(a, PILE_BASES, PILE_CAPS, seen) == 0
    b = a.copy()
    b[C.MARKET + 1] = b[C.MARKET + 2]
    assert _check(b, PILE_BASES, PILE_CAPS, seen) == 3
    b = a.copy()
    b[C.PDEBT] = -1
    assert _check(b, PILE_BASES, PILE_CAPS, seen) == 1


@settings(max_examples=20)
@given(n=st.integers(1, 4), seed=st.integers(0, 2**32))
def test_step_api_invariants_python_side(n, seed):
    """The same invariant through the step API (Python card count), action by action."""
    game = new_game(RiverRatsConfig(n_players=n), seed)
    rng = np.random.default_rng(seed)
    while not game.is_terminal():
        game.apply_action(rng.choice(game.legal_actions()))
        assert (card_counts(game.array) == 1).all()
        assert game.array[C.PDEBT] >= 0 and game.array[C.RDEBT] >= 0
