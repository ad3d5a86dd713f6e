"""The learned value (:mod:`agents.value`) and its pipeline: the compiled network equals its
numpy reference, the leaf rule (cooperative mean, competitive relative to the mean, returns at
the end), ``net`` unchanged with a value blob before its own in ``aux``, one-line refusals of
bad files, the guided search with the learned leaf decides on the information state only, and
the self-play data record each position's true outcome, the same for the same seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import layout
from agents.policy import Agent, get_spec, names, table_aux
from agents.value import learned_leaf, load_value, numpy_value, use_value_weights, value_of
from engines.protocol import GAME_IDS, core_of, game_class
from engines.protocol.kernels import call_literal
from tests.players import assert_fair


def _random_value_file(path, game, h1=12, h2=6, seed=0):
    from agents.net import layout_signature

    sig = layout_signature(game)
    T = sig["tensor_size"]
    rng = np.random.default_rng(seed)
    arrays = {"W1": rng.normal(0, 0.3, (T + 1, h1)), "b1": rng.normal(0, 0.1, h1),
              "W2": rng.normal(0, 0.3, (h1, h2)), "b2": rng.normal(0, 0.1, h2),
              "w3": rng.normal(0, 0.5, h2), "b3": rng.normal(0, 0.1, 1)}
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    meta = {"format": "boardlab.value/1", "game": game, "tensor_size": T,
            "layout": sig["layout"]}
    np.savez(path, meta=json.dumps(meta), **arrays)
    return arrays


@pytest.fixture
def value_file(tmp_path):
    """A random value network for River Rats and Lure, used by this process while the test
    runs."""
    files = {}
    for game in ("river_rats", "lure"):
        p = tmp_path / f"{game}_value.npz"
        files[game] = (p, _random_value_file(p, game, seed=len(game)))
        use_value_weights(game, p)
    yield files
    for game in files:
        use_value_weights(game, None)


def _positions(game, n_players, count, seed):
    cls = game_class(game)
    st = cls(cls.config_class(n_players=n_players), seed)
    rng = np.random.default_rng(seed)
    out = []
    while not st.is_terminal() and len(out) < count:
        if rng.random() < 0.2:
            out.append(st.clone())
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize("game,n", [("river_rats", 4), ("lure", 3)])
def test_compiled_value_and_leaf_equal_the_numpy_reference(value_file, game, n):
    _, arrays = value_file[game]
    C = core_of(game)
    coop = game == "river_rats"
    for st in _positions(game, n, 6, 11):
        aux = table_aux(game, st.config)
        s = st.array
        x = np.empty(C.TENSOR_SIZE, dtype=np.float32)
        ref = np.array([numpy_value(arrays, st.observation_tensor(q)[None, :], [n])[0]
                        for q in range(n)])
        for q in range(n):
            got = call_literal(value_of, GAME_IDS[game], s, q, aux, x)
            assert got == pytest.approx(ref[q], rel=1e-4, abs=1e-4)
        out = np.zeros(C.MAX_PLAYERS)
        assert call_literal(learned_leaf, GAME_IDS[game], s, aux, 10.0, x, out)
        want = np.full(n, 10 * ref.mean()) if coop else 10 * (ref - ref.mean())
        np.testing.assert_allclose(out[:n], want, rtol=1e-4, atol=1e-3)
        assert np.all(out[n:] == 0.0)


def test_leaf_of_a_finished_game_is_its_return(value_file):
    game = "river_rats"
    cls = game_class(game)
    st = cls(cls.config_class(n_players=2), 5)
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
    aux = table_aux(game, st.config)
    out = np.zeros(core_of(game).MAX_PLAYERS)
    x = np.empty(core_of(game).TENSOR_SIZE, dtype=np.float32)
    assert call_literal(learned_leaf, GAME_IDS[game], st.array, aux, 10.0, x, out)
    assert out[0] == out[1] == 10.0 * st.returns()[0] and abs(out[0]) == 10.0


def test_without_a_value_file_the_leaf_is_not_learned():
    game = "recurring"  # ships no value weights (its searches roll out to the end of the game)
    st = _positions(game, 3, 1, 2)[0]
    out = np.full(core_of(game).MAX_PLAYERS, 7.0)
    x = np.empty(core_of(game).TENSOR_SIZE, dtype=np.float32)
    assert not call_literal(learned_leaf, GAME_IDS[game], st.array, table_aux(game, st.config),
                            10.0, x, out)
    assert np.all(out == 7.0)


def test_net_plays_the_same_with_a_value_blob_before_its_own(value_file):
    game = "river_rats"
    states = _positions(game, 4, 8, 21)
    with_value = [Agent(game, "net")(st.clone()) for st in states]
    use_value_weights(game, None)
    without = [Agent(game, "net")(st.clone()) for st in states]
    assert with_value == without


def test_bad_value_files_are_refused_in_one_line(tmp_path):
    game = "river_rats"
    with pytest.raises(ValueError, match="no such file"):
        load_value(tmp_path / "missing.npz", game)
    junk = tmp_path / "junk.npz"
    junk.write_text("not a file")
    with pytest.raises(ValueError, match="not a weights file"):
        load_value(junk, game)
    good = tmp_path / "v.npz"
    arrays = _random_value_file(good, game)
    with pytest.raises(ValueError, match="trained for game 'river_rats'"):
        load_value(good, "lure")
    meta = json.loads(str(np.load(good)["meta"]))
    bad = tmp_path / "bad.npz"
    np.savez(bad, meta=json.dumps(meta), **dict(arrays, W1=arrays["W1"][:-1]))
    with pytest.raises(ValueError, match="inconsistent shapes"):
        load_value(bad, game)
    arrays["b2"][0] = np.nan
    np.savez(bad, meta=json.dumps(meta), **arrays)
    with pytest.raises(ValueError, match="non-finite"):
        load_value(bad, game)
    for exc in (ValueError,):
        with pytest.raises(exc) as e:
            use_value_weights(game, tmp_path / "missing.npz")
        assert "\n" not in str(e.value)


@pytest.mark.parametrize("game", ["river_rats", "lure"])
def test_search_with_the_learned_leaf_decides_on_the_information_state_only(value_file, game):
    for steps in (0.0, -1.0):  # rollouts to the horizon, or none (the leaf right after)
        v = get_spec(game, "net-search").params_array()
        v[layout.H_SIMS] = 2
        v[layout.H_LEARNED_VALUE] = 10.0
        v[layout.H_MAX_STEPS] = steps
        assert_fair(Agent(game, "net-search", v), game, 41, 6, 3000)


def test_presets_score_leaves_with_the_shipped_learned_value():
    """Where a game ships value weights (River Rats and Rats do), its ``net-search`` presets with
    ``net`` rollouts use the learned leaf at the game's scale (a win worth the hand-written
    leaf's win weight); ``net-search-lite`` (the game's own rollouts) and the games without
    value weights keep the hand-written leaf."""
    from agents.contract import contract
    from agents.value import has_value
    from engines.protocol import GAME_NAMES

    assert has_value("river_rats") and has_value("rats") and not has_value("lure")
    for game in GAME_NAMES:
        if "net-search" not in names(game):
            continue
        c = contract(game)
        want = c.learned_value_scale if has_value(game) else 0.0
        if has_value(game):
            assert want == 10.0  # a whole win, as the hand-written leaves weigh it
        for name in ("net-search-fast", "net-search", "net-search-strong"):
            spec = get_spec(game, name)
            assert spec.default_params[layout.H_LEARNED_VALUE] == want
            assert spec.param_names[layout.H_LEARNED_VALUE] == "learned_value"
            assert ("learned leaf value" in spec.label) == (want > 0)
        assert get_spec(game, "net-search-lite").default_params[layout.H_LEARNED_VALUE] == 0.0


def test_value_data_record_true_outcomes_the_same_for_the_same_seed(tmp_path, capsys):
    """``learn value-collect``: every recorded position carries its seat's final return (the
    same for all positions of a cooperative game, +-1), seats and player counts are right,
    the same seed gives the same files (run twice), and ``learn value-train`` trains on them
    and writes a weights file that loads, refusing to replace it without --force."""
    pytest.importorskip("jax")
    from experiments.cli import main
    from experiments.learn.value_data import read_value_data

    outs = []
    for k in range(2):
        out = tmp_path / f"data{k}"
        rc = main(["learn", "value-collect", "river_rats", "--players", "2", "--games", "40",
                   "--every", "5", "--seed", "3", "--batch-size", "20", "--out", str(out),
                   "--quiet"])
        assert rc == 0
        outs.append(out)
    files = sorted((outs[0] / "data").glob("*.npz"))
    assert [f.name for f in files] == ["p2_b000000.npz", "p2_b000001.npz"]
    for f in files:
        a, b = np.load(f), np.load(outs[1] / "data" / f.name)
        assert all(np.array_equal(a[k], b[k]) for k in a.files)
    d = read_value_data([outs[0]])
    rec = d["rec"]
    assert rec.shape[0] > 40 and set(np.unique(rec[:, 3])) <= {-1.0, 1.0}
    assert np.all(rec[:, 0] == 2) and set(np.unique(rec[:, 1])) == {0.0, 1.0}
    for g in np.unique(d["group"]):  # one outcome per game: the team wins or loses together
        assert np.unique(rec[d["group"] == g, 3]).size == 1
    w = tmp_path / "v.npz"
    args = ["learn", "value-train", str(outs[0]), "--out", str(w), "--epochs", "1",
            "--h1", "8", "--h2", "4", "--batch", "32"]
    assert main(args) == 0
    assert load_value(w, "river_rats")["meta"]["figures"]["positions"] == rec.shape[0]
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "exists" in err and "--force" in err
    new = tmp_path / "new.npz"
    assert main(["learn", "value-train", str(outs[0]), "--out", str(new), "--lr", "-1"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.endswith("--lr -1.0: expected a number > 0") and len(err.splitlines()) == 1
    assert not new.exists()


def test_value_collect_does_not_replace_another_collections_meta(tmp_path, capsys):
    """A folder holding another collection is refused in one line, before anything is played
    or written; the same settings resume (nothing more to play)."""
    from experiments.cli import main

    out = tmp_path / "d"
    args = ["learn", "value-collect", "river_rats", "--players", "1", "--games", "10",
            "--seed", "4", "--batch-size", "10", "--out", str(out), "--quiet"]
    assert main(args) == 0
    meta = (out / "meta.json").read_text()
    files = sorted(p.name for p in (out / "data").iterdir())
    capsys.readouterr()
    assert main(args[:-3] + ["--every", "7", "--out", str(out), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "holds another collection (every 20" in err
    assert (out / "meta.json").read_text() == meta
    assert sorted(p.name for p in (out / "data").iterdir()) == files
    assert main(args) == 0  # the same settings: a resume
