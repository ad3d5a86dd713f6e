"""Batch simulator of River Rats: identical games to the step API, sums = rows, errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from numba import njit

from agents import river_rats as agents
from engines.river_rats import (
    COLUMNS,
    SUM_FIELDS,
    Config,
    core as C,
    game_seed,
    play_batch,
    play_game_stepwise,
    play_sums,
    resolve_policies,
    summary_frame,
)

CONFIGS = [
    Config(n_players=1),
    Config(n_players=2, difficulty="advanced", rats=("C", "D")),
    Config(n_players=3, difficulty="expert", prediction_match="at_least"),
    Config(n_players=4, difficulty="first_game", defeated_rat_stays=False),
    Config(n_players=4, rats=("S", "H")),
]


@pytest.mark.parametrize("policy", ["random", "greedy", "heuristic", "peek"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: f"{c.n_players}p-{c.difficulty}")
def test_step_api_equals_batch(cfg, policy):
    """Two doors, one core: game g of play_batch(seed) is the step-API game with
    game_seed(seed, g) driven by the same compiled policies."""
    df = play_batch(cfg, policy, 4, seed=123)
    for g in range(4):
        gs = int(game_seed(123, g))
        assert int(df["seed"].iloc[g]) == gs
        st = play_game_stepwise(cfg, policy, gs)
        row = st.outcome()
        for k in COLUMNS:
            want = df[k].iloc[g]
            assert row[k] == (bool(want) if k == "won" else want), (k, g)


def test_mixed_seats_step_equals_batch():
    cfg = Config(n_players=4)
    pols = ["heuristic", "random", "greedy", "peek"]
    df = play_batch(cfg, pols, 3, seed=5)
    for g in range(3):
        st = play_game_stepwise(cfg, pols, int(game_seed(5, g)))
        assert st.outcome()["n_actions"] == df["n_actions"].iloc[g]


def test_play_batch_table_and_reproducibility():
    df = play_batch(Config(n_players=2), "heuristic", 50, seed=9)
    for k in ("won", "rounds", "hands_won", "hands_lost", "player_debt", "rat1_debt",
              "rat2_debt", "jokers_earned", "rat1", "rat2", "rat_pair", "seed"):
        assert k in df.columns
    assert df["won"].dtype == bool and len(df) == 50
    assert set(df["rat_pair"]) <= {a + b for a in "CDHS" for b in "CDHS" if a != b}
    lost = ~df["won"]
    assert (df.loc[lost, "player_debt"] >= 5).all() or (df.loc[lost, "loss_reason"] != 1).any()
    pd.testing.assert_frame_equal(df, play_batch(Config(n_players=2), "heuristic", 50, seed=9))
    assert not df.equals(play_batch(Config(n_players=2), "heuristic", 50, seed=10))
    assert len(play_batch(Config(), "random", 0, seed=1)) == 0


def test_play_sums_equals_rows():
    """play_sums (flat memory) adds exactly the per-game rows of play_games."""
    cfg = Config(n_players=3)
    df = play_batch(cfg, "heuristic", 200, seed=77)
    ids, par, _ = resolve_policies("heuristic", 3)
    sums = np.zeros((16, len(SUM_FIELDS)), dtype=np.int64)
    play_sums(cfg.to_array(), ids, par, 200, np.uint64(77), sums)
    tab = summary_frame(sums)
    g = df.groupby("rat_pair")
    assert (tab["games"] == g.size()).all()
    assert (tab["won"] == g["won"].sum()).all()
    for k in ("rounds", "hands_won", "hands_lost", "player_debt", "rat1_debt", "rat2_debt",
              "jokers_earned", "n_actions"):
        assert (tab[k] == g[k].sum()).all(), k
    assert (tab["rounds_sq"] == (df["rounds"] ** 2).groupby(df["rat_pair"]).sum()).all()
    assert tab["lost_on_debt"].sum() == ((~df["won"]) & (df["loss_reason"] == 1)).sum()


def test_bad_batch_arguments():
    with pytest.raises(ValueError, match="policy"):
        play_batch(Config(n_players=2), ["random", "nope"], 1)
    with pytest.raises(ValueError, match="policies"):
        play_batch(Config(n_players=2), ["random"], 1)
    with pytest.raises(ValueError, match="n_games"):
        play_batch(Config(), "random", -1)
    with pytest.raises(ValueError, match="params"):
        play_batch(Config(), "heuristic", 1, params=[np.nan])
    with pytest.raises(ValueError, match="n_players"):
        play_batch({"n_players": 7}, "random", 1)


def test_params_change_play():
    """Parameter vectors reach the compiled policies (a different vector, different games)."""
    base = play_batch(Config(n_players=2), "heuristic", 30, seed=3)
    p = agents.DEFAULT_PARAMS.copy()
    p[agents.T_HEART] = 0.0  # raise the stake at every ♥
    other = play_batch(Config(n_players=2), "heuristic", 30, seed=3, params=p)
    assert not base["n_actions"].equals(other["n_actions"])
    per_seat = play_batch(Config(n_players=2), "heuristic", 30, seed=3, params=[None, None])
    pd.testing.assert_frame_equal(base, per_seat)


@njit
def _first_legal(s, player, legal, n_legal, params, rng):
    return legal[0]


def test_compiled_custom_policies():
    """play_batch accepts compiled policies; the registry's own function gives the same games
    as its name."""
    cfg = Config(n_players=2)
    by_name = play_batch(cfg, ["heuristic", "random"], 5, seed=1)
    by_fn = play_batch(cfg, [agents.heuristic_policy, "random"], 5, seed=1)
    pd.testing.assert_frame_equal(by_name, by_fn)
    df = play_batch(cfg, [_first_legal, _first_legal], 3, seed=1)
    assert len(df) == 3
    with pytest.raises(ValueError, match="policy"):
        play_batch(cfg, [print, "random"], 1)


@njit
def _illegal(s, player, legal, n_legal, params, rng):
    return -5


def test_policy_returning_illegal_action_raises():
    with pytest.raises(ValueError, match="illegal"):
        play_batch(Config(n_players=1), [_illegal], 1)


def test_game_seed_is_splitmix_sequence():
    """core.game_seed: the (g+1)-th splitmix64 output from the batch seed."""
    def splitmix(x):
        x = (x + 0x9E3779B97F4A7C15) % 2**64
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        return x, z ^ (z >> 31)
    x = 42
    for g in range(3):
        x, out = splitmix(x)
        assert int(game_seed(42, g)) == out
    assert C.STATE_SIZE == C.C_RANKING + 1 and C.C_RANKING >= C.SCR + 64
