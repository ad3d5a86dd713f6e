"""``core.table_order_action`` (the random policy's shortcut into table order) against
``core.legal_actions_in_table_order`` at every decision of random and heuristic games at every
difficulty and player count: for every index, the same action."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from agents import river_rats as agents
from engines.protocol import chance
from engines.river_rats import RiverRatsConfig
from engines.river_rats import core as C


@njit(cache=True)
def _run(cfg, seed, n_games, pid, params):
    """Play ``n_games``; returns (decisions checked, mismatches)."""
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    order = np.empty(C.MAX_LEGAL, dtype=np.int64)
    buf = np.empty(C.MAX_LEGAL, dtype=np.int64)
    mem = np.zeros((4, chance.SEAT_WORDS), dtype=np.int64)
    aux = np.zeros(0)
    checked = 0
    bad = 0
    for g in range(n_games):
        gs = chance.game_seed(seed, g)
        C.init_state(cfg, gs, s)
        chance.init_seat_memory(gs, mem)
        while s[C.STATUS] == C.RUNNING:
            n = C.legal_actions(s, legal)
            m = C.legal_actions_in_table_order(s, order)
            if m != n:
                bad += 1
            for r in range(n):
                checked += 1
                if C.table_order_action(s, legal, n, r, buf) != order[r]:
                    bad += 1
            p = s[C.CUR]
            C.apply_action(s, agents.act(pid, s, p, legal, n, params, aux, mem[p]))
    return checked, bad


@pytest.mark.parametrize("difficulty", ["first_game", "normal", "advanced", "expert"])
@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_table_order_action_matches_the_table(difficulty, policy):
    spec = agents.get_spec(policy) if hasattr(agents, "get_spec") else next(
        sp for sp in agents.SPECS if sp.name == policy)
    total = 0
    for n_players in (1, 2, 3, 4):
        cfg = RiverRatsConfig(n_players=n_players, difficulty=difficulty).to_array()
        checked, bad = _run(cfg, chance.as_word(29 + n_players), 60 if policy == "random" else 8,
                            spec.kind, spec.params_array())
        assert bad == 0
        total += checked
    assert total > 1000


def test_sort_orders_lists_of_any_kinds():
    """``core._sort`` (bit masks for one or two kinds, insertion otherwise) = ``sorted``."""
    rng = np.random.default_rng(29)
    buf = np.zeros(C.MAX_LEGAL, dtype=np.int64)
    for _ in range(3000):
        n = int(rng.integers(0, 40))
        kinds = rng.choice(21, size=int(rng.integers(1, 5)), replace=False)
        vals: set[int] = set()
        while len(vals) < n:
            vals.add(int(rng.choice(kinds)) * 64 + int(rng.integers(0, 64)))
        a = np.array(sorted(vals), dtype=np.int64)
        rng.shuffle(a)
        buf[:n] = a
        C._sort(buf, n)
        assert buf[:n].tolist() == sorted(vals)
