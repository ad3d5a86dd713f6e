"""``net`` format 2: the network on a game's action features (River Rats,
``agents/river_rats_features.py``; ReCURRRing, ``agents/recurring_features.py``): the
features' fairness and meaning, the compiled inference against the JAX forward pass, weights
checks, the action-features hook of the contract and a tiny training run (JAX tests skip
without the learn extra)."""

from __future__ import annotations

import types

import numpy as np
import pytest

from agents.contract import check_module, contract
from agents.net import load, net_logits, use_weights
from agents.policy import Agent, table_aux
from agents.river_rats_features import K_WORLDS
from engines.protocol import GAME_IDS
from engines.protocol.kernels import call_literal
from tests.learn.helpers import (
    FEATURE_GAMES,
    decision_features,
    save,
    tiny_weights2,
    unforced_decisions,
)

GAME = "river_rats"
@pytest.fixture(params=FEATURE_GAMES)
def tiny2(request, tmp_path):
    """``(game, path)``: the game's ``net`` on small random format-2 weights for the test,
    then back."""
    game = request.param
    w, meta = tiny_weights2(game, seed=7)
    p = save(tmp_path / f"{game}2.npz", w, meta)
    use_weights(game, p)
    yield game, p
    use_weights(game, None)


@pytest.mark.parametrize("game,n_players", [("river_rats", 1), ("river_rats", 4),
                                            ("recurring", 3), ("recurring", 5)])
def test_action_features_see_only_the_players_information(game, n_players):
    """The features of a decision are the same on determinized worlds (the other hands, the
    deck, the Rat's face-down cards dealt anew) with the same seat memory."""
    for i, (st, p, legal) in enumerate(unforced_decisions(game, n_players, 21, "heuristic", 30)):
        fs, fa = decision_features(st, p, legal, game)
        for k in range(2):
            d = st.determinize(p, 500 + 10 * i + k)
            d.seat_memory[:] = st.seat_memory
            fs2, fa2 = decision_features(d, p, legal, game)
            assert np.array_equal(fs, fs2) and np.array_equal(fa, fa2)


def test_action_features_name_the_kind_and_the_heuristics_choice():
    from agents.river_rats import ACTION_FEATURE_NAMES, DEFAULT_PARAMS, heuristic_policy

    col = {n: i for i, n in enumerate(ACTION_FEATURE_NAMES)}
    for st, p, legal in unforced_decisions(GAME, 4, 3, "heuristic", 40):
        fs, fa = decision_features(st, p, legal, GAME)
        assert np.all(fa[:, :21].sum(1) == 1)  # one kind per action
        assert np.array_equal(np.argmax(fa[:, :21], 1), legal >> 6)
        mem = st.seat_memory[p].copy()
        h = heuristic_policy(st.state, p, legal, len(legal), DEFAULT_PARAMS, mem)
        assert fa[list(legal).index(h), col["heuristic_choice"]] == 1.0
        assert fa[:, col["heuristic_choice"]].sum() == 1.0
        assert np.all(fa[:, col["value_gap"]] <= 0) and fa[:, col["value_gap"]].max() == 0
        # showdown chances are shares of the sampled worlds
        w = fa[:, col["win_chance"]] * K_WORLDS
        assert np.allclose(w, np.round(w), atol=1e-4) and np.all((w >= 0) & (w <= K_WORLDS))


def test_recurring_features_say_what_may_beat_a_play():
    """ReCURRRing ("Plays and their strength"): nothing beats the single 1 with one card, so
    its may-beat-same is 0; "surely beaten" implies "may be beaten"; "safe" is neither; the
    heuristic's choice and the pass are marked, and the number is one-hot."""
    from agents.recurring import ACTION_FEATURE_NAMES, HEURISTIC_DEFAULT, heuristic_policy

    col = {n: i for i, n in enumerate(ACTION_FEATURE_NAMES)}
    nums = [col[f"number_{v}"] for v in range(1, 10)] + [col["number_R"]]
    seen_one = 0
    for seed in range(6):
        for st, p, legal in unforced_decisions("recurring", 4, seed, "heuristic", 80):
            fs, fa = decision_features(st, p, legal, "recurring")
            h = heuristic_policy(st.state, p, legal, len(legal),
                                 np.asarray(HEURISTIC_DEFAULT), st.seat_memory[p].copy())
            assert fa[list(legal).index(h), col["heuristic_choice"]] == 1.0
            assert fa[:, col["heuristic_choice"]].sum() == 1.0
            for a, row in zip(legal, fa, strict=True):
                assert row[col["pass"]] == (a == 0)
                if a == 0:
                    assert row[nums].sum() == 0
                    continue
                assert row[nums].sum() == 1 and row[nums[(a & 15) - 1]] == 1
                may = row[col["may_beat_same"]] + row[col["may_beat_more"]]
                # an opponent that surely beats the play may beat it one way or the other
                assert row[col["surely_beaten"]] <= may
                assert row[col["safe"]] == (may == 0)
                if a == 16 + 1:  # the single 1
                    seen_one += 1
                    assert row[col["may_beat_same"]] == 0
    assert seen_one > 0


def test_net_format2_plays_legal_and_fair(tiny2):
    game, _ = tiny2
    agent = Agent(game, "net")
    for i, (st, p, legal) in enumerate(unforced_decisions(game, 4, 11, "heuristic", 40)):
        a = agent(st)
        assert a in legal
        d = st.determinize(p, 900 + i)
        d.seat_memory[:] = st.seat_memory
        assert agent(d) == a


def test_compiled_format2_equals_the_jax_forward_pass(tiny2):
    pytest.importorskip("jax")
    import jax.numpy as jnp

    from experiments.learn.data import from_states
    from experiments.learn.model_features import forward

    game, path = tiny2
    w = load(path, game)
    params = Agent(game, "net").params
    items, compiled = [], []
    for st, p, legal in unforced_decisions(game, 4, 3, "heuristic", 30):
        z = np.zeros(len(legal))
        mem = st.seat_memory[p].copy()
        assert call_literal(net_logits, GAME_IDS[game], st.state, p, legal, len(legal), params,
                            table_aux(game, st.config), mem, z)
        items.append((st.state, p, legal, -1, st.seat_memory[p]))
        compiled.append(z)
    ds = from_states(game, items)
    L = ds.legal.shape[1]
    ref = np.asarray(forward({k: jnp.asarray(w[k]) for k in ("W1", "b1", "W2", "b2", "w3",
                                                              "b3", "wl")},
                             jnp.asarray(ds.fs), jnp.asarray(ds.action_features(
                                 np.arange(ds.n), L)), ds.legal.astype(np.int32)))
    for i, z in enumerate(compiled):
        k = len(z)
        np.testing.assert_allclose(z, ref[i, :k], rtol=1e-4, atol=1e-3)
        assert int(np.argmax(z)) == int(np.argmax(ref[i, :k]))


def test_bad_format2_files_are_one_line_errors(tmp_path):
    w, meta = tiny_weights2(GAME)
    bad = {
        "features": (dict(meta, features="0123456789abcdef"), w, "action features"),
        "shapes": (meta, dict(w, W1=w["W1"][:-1]), "inconsistent shapes"),
        "missing": (meta, {k: v for k, v in w.items() if k != "wl"}, "missing arrays wl"),
        "nan": (meta, dict(w, b2=w["b2"] * np.nan), "non-finite"),
    }
    for what, (m, ww, msg) in bad.items():
        p = save(tmp_path / f"{what}.npz", ww, m)
        with pytest.raises(ValueError, match=msg) as e:
            load(p, GAME)
        assert "\n" not in str(e.value) and p.name in str(e.value), what
    p = save(tmp_path / "lure2.npz", w, dict(meta, game="lure"))
    with pytest.raises(ValueError, match="does not offer") as e:
        load(p, "lure")
    assert "\n" not in str(e.value)


def test_the_contract_wants_the_whole_features_group():
    import agents.river_rats as mod

    part = types.ModuleType("agents.fake")
    for k in ("SPECS", "act", "make_aux", "PARAMS_WIDTH", "POLICY_FUNCTIONS",
              "action_features", "STATE_FEATURE_NAMES"):
        setattr(part, k, getattr(mod, k))
    with pytest.raises(ValueError, match="missing hook ACTION_FEATURE_NAMES") as e:
        check_module(GAME, part)
    assert "\n" not in str(e.value)
    part.ACTION_FEATURE_NAMES = mod.ACTION_FEATURE_NAMES
    with pytest.raises(ValueError, match="missing hook FEATURES_VERSION") as e:
        check_module(GAME, part)
    assert "\n" not in str(e.value)
    part.FEATURES_VERSION = 0
    with pytest.raises(ValueError, match="FEATURES_VERSION 0: expected an int >= 1") as e:
        check_module(GAME, part)
    assert "\n" not in str(e.value)
    c = check_module(GAME, mod)
    assert c.action_features is mod.action_features and c.features_version == mod.FEATURES_VERSION


def test_the_features_hash_is_the_names_and_the_version(monkeypatch):
    """The features hash of the weights (:func:`agents.net.layout_signature`) changes with
    ``FEATURES_VERSION`` and the names, not with the module's code."""
    import dataclasses

    import agents.contract as ac
    from agents.net import layout_signature

    c = contract(GAME)
    before = layout_signature(GAME)["features"]
    assert len(before) == 16 and int(before, 16) >= 0
    for change in ({"features_version": c.features_version + 1},
                   {"action_feature_names": c.action_feature_names[::-1]}):
        monkeypatch.setitem(ac._contracts, GAME, dataclasses.replace(c, **change))
        assert layout_signature(GAME)["features"] != before, change


def _synthetic2(n=2000, seed=0):
    """Decisions with action features whose teacher picks the action with feature 2 set (one
    per decision, among random others): a target a small model learns in seconds."""
    from experiments.learn.data import Dataset

    rng = np.random.default_rng(seed)
    L, S, F = 4, 3, 5
    legal = np.sort(np.array([rng.choice(40, size=L, replace=False) for _ in range(n)]), 1)
    pos = rng.integers(0, L, n)
    fa = rng.random((n, L, F)).astype(np.float32)
    fa[:, :, 2] = 0.0
    fa[np.arange(n), pos, 2] = 1.0
    choice = legal[np.arange(n), pos]
    q = (legal == choice[:, None]).astype(np.float32)
    dec = np.stack([np.full(n, 4), np.zeros(n), choice, choice, np.full(n, L), np.zeros(n),
                    legal[:, 0]], axis=1).astype(np.int16)
    return Dataset(np.zeros(n, np.int16), np.ones(n, np.float32), np.arange(n + 1),
                   legal.astype(np.int16), q, dec, np.arange(n),
                   [{"game": GAME, "teacher": "synthetic", "student": "", "players": [4],
                     "games_per_count": n, "seed": seed}],
                   rng.random((n, S)).astype(np.float32), fa.reshape(n * L, F))


def test_dataset_keeps_each_decisions_action_features():
    ds = _synthetic2(50)
    sub = ds.subset(np.array([3, 7, 8]))
    full = ds.action_features(np.array([3, 7, 8]), 4)
    assert np.array_equal(sub.action_features(np.arange(3), 4), full)
    assert np.array_equal(sub.fs, ds.fs[[3, 7, 8]])


def test_tiny_format2_training_learns_a_known_target_and_is_reproducible():
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from experiments.learn.train import train

    ds = _synthetic2()
    st = {"h1": 8, "h2": 8, "epochs": 4, "batch": 100, "lr": 0.01, "mix": 0.0,
          "holdout": 0.2, "seed": 3}
    w1, info = train(ds, st, log=lambda *_: None)
    assert info["model"] == "features" and info["history"][-1]["agree"] > 0.95
    w2, _ = train(ds, st, log=lambda *_: None)
    assert all(np.array_equal(w1[k], w2[k]) for k in w1)
