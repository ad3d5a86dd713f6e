"""River Rats agents: registry, legality, information hygiene (no peeking) and strength."""

from __future__ import annotations

import numpy as np
import pytest

from agents import river_rats as agents
from agents.loop import play_batch
from engines.river_rats import RiverRatsConfig, new_game
from engines.river_rats import core as C

from .helpers import pile

AUX = np.zeros(0)


def _mem(word=7):
    m = np.zeros(16, dtype=np.int64)
    m[0] = word
    return m


def test_registry_and_params():
    assert set(agents.POLICY_IDS) == {"random", "greedy", "heuristic", "peek"}
    assert [s.name for s in agents.SPECS] == list(agents.POLICY_IDS)
    assert [s.name for s in agents.SPECS if s.sees_hidden] == ["peek"]
    assert set(agents.POLICY_FUNCTIONS) == set(agents.POLICY_IDS)
    assert "upper bound" in agents.POLICY_LABELS["peek"]
    assert agents.default_params("heuristic").shape == (agents.N_PARAMS,)
    assert len(agents.PARAM_NAMES) == agents.N_PARAMS == len(agents.DEFAULT_PARAMS)
    with pytest.raises(ValueError, match="policy"):
        agents.default_params("oracle")
    with pytest.raises(ValueError, match="params"):
        agents.check_params(np.zeros(agents.N_PARAMS + 1))
    np.testing.assert_array_equal(agents.check_params([1.0])[1:], agents.DEFAULT_PARAMS[1:])


def _shuffle_hidden(st, player, rng):
    """Permute the cards `player` cannot see among their hidden places (deck, other hands,
    the Rat's face-down cards, the discard pile), keeping every pile's size."""
    a = st.array.copy()
    slots = []
    for b in (C.DECK, C.DISCARD):
        slots += [b + 1 + i for i in range(a[b])]
    for q in range(a[C.N_PLAYERS]):
        if q != player:
            hb = C.hand_base(q)
            slots += [hb + 1 + i for i in range(a[hb])]
    slots += [C.RAT + 1 + i for i in range(a[C.RAT]) if a[C.RAT_UP + i] == 0]
    vals = a[slots].copy()
    a[slots] = rng.permutation(vals)
    return a


@pytest.mark.parametrize("policy", ["greedy", "heuristic"])
def test_own_view_policies_ignore_hidden_cards(policy):
    """greedy and heuristic use only what the acting player may see: shuffling the hidden
    cards never changes their choice (peek, the upper bound, does react to them)."""
    rng = np.random.default_rng(0)
    pid = agents.POLICY_IDS[policy]
    params = agents.default_params(policy)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    checked = 0
    peek_differs = 0
    for seed in range(25):
        st = new_game(RiverRatsConfig(n_players=3, rats=("C", "H")), seed)
        while not st.is_terminal() and checked < 600 * (seed + 1):
            n = C.legal_actions(st.array, legal)
            p = st.current_player()
            if n > 1 and not (st.array[C.COLL_FD] == 1 and st.array[C.FD_OWNER] != p):
                r1 = _mem(7)
                a1 = agents.act(pid, st.array, p, legal, n, params, AUX, r1)
                for _ in range(2):
                    b = _shuffle_hidden(st, p, rng)
                    r2 = _mem(7)
                    assert agents.act(pid, b, p, legal, n, params, AUX, r2) == a1
                    r3, r4 = _mem(7), _mem(7)
                    pk = agents.POLICY_IDS["peek"]
                    if (agents.act(pk, b, p, legal, n, params, AUX, r3)
                            != agents.act(pk, st.array, p, legal, n, params, AUX, r4)):
                        peek_differs += 1
                checked += 1
            st.apply_action(int(agents.act(pid, st.array, p, legal, n, params, AUX,
                                           _mem(1))))
    assert checked > 300
    assert peek_differs > 0


def test_policies_return_legal_actions():
    for pol in agents.POLICY_IDS:
        df = play_batch(RiverRatsConfig(n_players=4, difficulty="advanced"), pol, 30, seed=4)
        assert len(df) == 30  # an illegal action would raise inside the kernel


def test_strength_ordering_at_four_players():
    """The heuristic clearly beats random and greedy; peek (upper bound) beats the heuristic
    (400 games each, fixed seed)."""
    cfg = RiverRatsConfig(n_players=4)
    rate = {p: play_batch(cfg, p, 400, seed=2024)["won"].mean()
            for p in ("random", "greedy", "heuristic", "peek")}
    assert rate["random"] < 0.02
    assert rate["heuristic"] > rate["greedy"] + 0.05
    assert rate["heuristic"] > 0.15
    assert rate["peek"] > rate["heuristic"] + 0.1


def test_heuristic_raises_stake_only_when_strong():
    """♥ rule of thumb: with a weak collective hand the heuristic never adds debt."""
    st = new_game(RiverRatsConfig(n_players=2, rats=("S", "C"), characters=("H", "C")), 3)
    a = st.array
    from .helpers import ids, put, set_hand, set_rat, to_play_phase
    set_rat(a, ids("Qc Qd Qh Jc Jd"), ids("3s 4s"))  # full house showing: hopeless
    put(a, ids("2c")[0], C.COLL)
    a[C.COLL_FD] = 1
    set_hand(a, 0, ids("5h 8c"))
    to_play_phase(a, 0)
    st.apply_action(C.K_PLAY * 64 + ids("5h")[0])
    legal = np.array(st.legal_actions() + [0] * 10, dtype=np.int64)
    n = len(st.legal_actions())
    a1 = agents.act(2, a, 0, legal, n, agents.DEFAULT_PARAMS, AUX, _mem(1))
    assert a1 >> 6 == C.K_PREVEAL  # turning a Rat card up first is free information
    st.apply_action(int(a1))
    n = len(st.legal_actions())
    legal[:n] = st.legal_actions()
    a2 = agents.act(2, a, 0, legal, n, agents.DEFAULT_PARAMS, AUX, _mem(1))
    assert a2 >> 6 == C.K_STOP
    assert pile(a, C.STAKE) == pile(a, C.STAKE)[:1]
