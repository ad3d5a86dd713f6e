"""River Rats' plan policies play exactly the games they played before the speed-up of issue 13.

``tests/golden/river_rats_heuristic_games.npz`` was recorded with the code of commit
``60d4f08`` (before the policy kernel was made faster). For every case of :data:`CASES` it
holds, per game, a hash of the whole action sequence and the final outcome row
(:func:`_play_hashes`; its low 32 bits, ``uint32``) and the outcome row (``uint8``: every
field of these games is below 256) of the compiled game loop (:func:`agents.loop.run_games`).
The cases (42,220 games) cover ``heuristic`` at 1-4 players over three seeds (2,000 games
each) and every difficulty, with two random parameter vectors over a tuner's ranges (so both
the tabled and the computed powers of the slot chances are used) and vectors that turn the plan
pruning off or change only ``q_market``, the presets that share its
valuation kernel (``greedy``, whose ties draw from the seat stream; ``peek``), mixed seats
with ``random``, and the search agents whose rollouts play ``heuristic`` (``pimc-fast``,
``ismcts-fast``).

Regenerate (only when a change of decisions is intended, and say so in the commit):
``python -m tests.river_rats.test_heuristic_same_games --write``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from numba import literally, njit

from agents.dispatch import g_act_seat, g_legal_seat, mixed_kind
from agents.loop import run_games
from agents.policy import resolve
from agents.layout import K_ISMCTS, K_PIMC
from engines.protocol import chance
from engines.protocol.chance import SEAT_WORDS, init_seat_memory, mix
from engines.protocol.kernels import call_literals
from engines.protocol import GAME_IDS
from engines.river_rats import RiverRatsConfig
from engines.river_rats import core as C

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "river_rats_heuristic_games.npz"

_LO = np.array([1.0, 0.2, 0.5, 0.3, 0.1, 0.0, 0.0, -0.1, 0.0, -0.1, 0.2, -0.1, -0.1, 0.0, 0.0,
                -0.1])
_HI = np.array([8.0, 1.0, 1.0, 1.0, 0.9, 0.5, 1.0, 0.2, 0.5, 0.2, 0.9, 0.3, 0.3, 4.0, 0.5, 0.4])
_TUNED = [np.round(np.random.default_rng(13 + i).uniform(_LO, _HI), 3) for i in range(2)]
"""Two random parameter vectors over the ranges a tuner explores."""
_NO_PRUNE = np.array([4.0, 0.8, 0.95, 0.8, 0.45, 0.1, 0.3, 0.02, 0.15, 0.02, 0.5, 0.05, 0.0, 2.0,
                      -0.05, 0.1])
"""The default parameters with ``p_new_pair < 0``."""
_Q_ONLY = np.array([4.0, 0.7])
"""The default ``h_eff`` with another ``q_market``."""


def _cases():
    """(key, policies, RiverRatsConfig kwargs, params, n_games, seed) of every recorded case."""
    out = []
    for n in (1, 2, 3, 4):
        for seed in (1, 2, 3):
            out.append((f"heuristic-normal-{n}p-s{seed}", "heuristic", {"n_players": n}, None,
                        2000, seed))
        for diff in ("first_game", "advanced", "expert"):
            out.append((f"heuristic-{diff}-{n}p", "heuristic",
                        {"n_players": n, "difficulty": diff}, None, 500, 7))
        for pol in ("greedy", "peek"):
            for diff in ("normal", "advanced", "expert"):
                out.append((f"{pol}-{diff}-{n}p", pol, {"n_players": n, "difficulty": diff},
                            None, 300, 11))
    for i, v in enumerate(_TUNED):
        for n in (2, 4):
            out.append((f"heuristic-tuned{i}-{n}p", "heuristic", {"n_players": n}, v, 500, 17))
    for n in (2, 4):  # a new-pair factor < 0 turns the plan pruning of score off
        out.append((f"heuristic-noprune-{n}p", "heuristic", {"n_players": n}, _NO_PRUNE, 500,
                    43))
    out.append(("heuristic-q-4p", "heuristic", {"n_players": 4}, _Q_ONLY, 500, 47))
    out.append(("heuristic-at_least-gone-4p", "heuristic",
                {"n_players": 4, "prediction_match": "at_least", "defeated_rat_stays": False,
                 "difficulty": "expert"}, None, 500, 19))
    out.append(("mixed-4p", ["heuristic", "greedy", "peek", "random"], {"n_players": 4}, None,
                500, 23))
    out.append(("mixed-advanced-3p", ["peek", "heuristic", "greedy"],
                {"n_players": 3, "difficulty": "advanced"}, None, 500, 29))
    for n in (2, 4):
        out.append((f"pimc-fast-{n}p", "pimc-fast", {"n_players": n}, None, 6, 31))
    out.append(("ismcts-fast-3p", "ismcts-fast", {"n_players": 3}, None, 4, 37))
    out.append(("pimc-fast-advanced-4p", "pimc-fast", {"n_players": 4, "difficulty": "advanced"},
                None, 4, 41))
    return out


CASES = _cases()

HASH_KIND = mixed_kind((K_PIMC, K_ISMCTS))
"""The literal ``one_kind`` :func:`_play_hashes` is compiled with for every case: River Rats'
own policies and the two search agents by kind at run time, one compiled loop for all cases
(one per table literal compiled six loops, 30 s of a cold test run). The shipped loop
(:func:`agents.loop.run_games`, checked against the same outcomes) keeps each table's own
literal."""


@njit(cache=True)
def _play_hashes(game, one_kind, cfg, seeds, kinds, params, aux, hashes, outcomes):
    """Play one game per seed word as :func:`agents.table_loop.run_table` does (same seat streams,
    the policies dispatched as on a table of literal ``one_kind``) and write per game a hash of
    every action and the final outcome row into ``hashes`` (``int64 (G,)``) and the outcome row
    into ``outcomes``."""
    literally(game)
    literally(one_kind)
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    mem = np.zeros((C.MAX_PLAYERS, SEAT_WORDS), dtype=np.int64)
    for g in range(seeds.shape[0]):
        C.init_state(cfg, seeds[g], s)
        init_seat_memory(seeds[g], mem)
        h = mix(seeds[g])
        while not C.is_terminal(s):
            p = C.current_player(s)
            n = g_legal_seat(game, one_kind, s, legal)
            a = g_act_seat(game, one_kind, kinds[p], s, p, legal, n, params[p], aux, mem[p])
            h = mix(h ^ (a + 7919 * n))
            C.apply_action(s, a)
        C.outcome(s, outcomes[g])
        for k in range(outcomes.shape[1]):
            h = mix(h ^ (outcomes[g, k] + 104729 * k))
        hashes[g] = h


def play_case(case):
    """``(hashes int64 (G,), outcome int64 (G, F) of this loop, outcome of run_games)``."""
    key, pols, kw, params, n_games, seed = case
    cfg = RiverRatsConfig(**kw)
    n = cfg.n_players
    seeds = chance.game_seeds(seed, n_games)
    kinds, rows, _ = resolve("river_rats", pols, n, params)
    hashes = np.zeros(n_games, dtype=np.int64)
    outc = np.zeros((n_games, len(C.OUTCOME_FIELDS)), dtype=np.int64)
    call_literals(_play_hashes, (GAME_IDS["river_rats"], HASH_KIND), cfg.to_array(),
                  seeds, kinds, rows, np.zeros(0), hashes, outc)
    _, loop_out = run_games(cfg, pols, seeds, params=params)
    return hashes, outc, loop_out


@pytest.fixture(scope="module")
def golden():
    with np.load(GOLDEN) as z:
        return {k: z[k] for k in z.files}


def _groups():
    """The cases in about a dozen groups (so ``pytest -n`` spreads them)."""
    groups: dict[str, list] = {}
    for c in CASES:
        g = c[0].split("-")[0] + ("-" + c[0].split("-")[-1] if c[0].startswith("heuristic")
                                  else "")
        groups.setdefault(g, []).append(c)
    return groups


GROUPS = _groups()


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_same_games_as_the_golden(golden, group):
    """Every game of every case plays the recorded action sequence to the recorded outcome,
    both in a loop that hashes each action and in the shipped game loop."""
    for case in GROUPS[group]:
        key = case[0]
        hashes, outc, loop_out = play_case(case)
        want_h = golden[f"{key}/hash"].astype(np.int64)
        hashes = hashes & 0xFFFFFFFF
        want_o = golden[f"{key}/outcome"].astype(np.int64)
        bad = np.flatnonzero(hashes != want_h)
        if bad.size:
            word = chance.game_seeds(case[5], case[4])[bad[0]]
            raise AssertionError(f"{key}: {bad.size} of {hashes.size} games differ, first game "
                                 f"{bad[0]} (seed word {word})")
        np.testing.assert_array_equal(outc, want_o, err_msg=key)
        np.testing.assert_array_equal(loop_out, want_o, err_msg=key)


def test_golden_covers_every_case(golden):
    """The golden file holds exactly the cases listed here (nothing silently skipped)."""
    want = {f"{c[0]}/{x}" for c in CASES for x in ("hash", "outcome")}
    assert set(golden) == want
    assert sum(c[4] for c in CASES if c[1] == "heuristic") >= 24_000


def write_golden(path: Path = GOLDEN) -> None:
    """Record every case of :data:`CASES` with the code as it is now into ``path``."""
    out = {}
    for case in CASES:
        hashes, outc, loop_out = play_case(case)
        assert np.array_equal(outc, loop_out), case[0]
        assert outc.min() >= 0 and outc.max() < 256, case[0]
        out[f"{case[0]}/hash"] = (hashes & 0xFFFFFFFF).astype(np.uint32)
        out[f"{case[0]}/outcome"] = outc.astype(np.uint8)
        print(case[0], int(outc[:, 0].sum()), "won of", len(outc), flush=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **out)


if __name__ == "__main__":
    if "--write" in sys.argv[1:]:
        write_golden()
    else:
        print(__doc__)
