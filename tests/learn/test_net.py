"""The learned policy ``net``: weights files, compiled inference, legality, fairness,
reproducible training (JAX tests skip without the learn extra)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.layout import K_NET
from agents.net import load, net_logits, use_weights, weights_path
from agents.policy import Agent, agents_module, get_spec, names, table_aux
from engines.protocol.kernels import call_literal
from engines.protocol import GAME_IDS, GAME_NAMES, game_class
from tests.learn.helpers import save, tiny_weights, unforced_decisions


@pytest.fixture
def tiny(tmp_path):
    """Point every game's ``net`` at small random weights for the test, then back."""
    paths = {}
    for g in GAME_NAMES:
        w, meta = tiny_weights(g, seed=GAME_IDS[g])
        paths[g] = save(tmp_path / f"{g}.npz", w, meta)
        use_weights(g, paths[g])
    yield paths
    for g in GAME_NAMES:
        use_weights(g, None)


def _prior_choice(game, st, p, legal, params):
    mod = agents_module(game)
    kind = get_spec(game, "heuristic").kind
    mem = st.seat_memory[p].copy()
    aux = table_aux(game, st.config)
    return int(mod.act(kind, st.state, p, legal, len(legal), params, aux, mem))


@pytest.mark.parametrize("game", GAME_NAMES)
def test_net_is_registered_and_plays_legal_actions(game, tiny):
    assert "net" in names(game) and get_spec(game, "net").kind == K_NET
    C = game_class(game).core
    n = min(C.MIN_PLAYERS + 1, C.MAX_PLAYERS)
    for st, _p, legal in unforced_decisions(game, n, 5):
        a = Agent(game, "net")(st)
        assert a in legal


@pytest.mark.parametrize("game", GAME_NAMES)
def test_net_is_fair_on_determinized_worlds(game, tiny):
    """The same decision (and the same seat memory) on determinize(s, player, seed) as on s."""
    C = game_class(game).core
    n = min(C.MIN_PLAYERS + 1, C.MAX_PLAYERS)
    agent = Agent(game, "net")
    for i, (st, p, _legal) in enumerate(unforced_decisions(game, n, 11, policy="heuristic")):
        a1 = agent(st)
        for k in range(2):
            d = st.determinize(p, 1000 + 10 * i + k)
            d.seat_memory[:] = st.seat_memory
            assert agent(d) == a1 and np.array_equal(d.seat_memory, st.seat_memory)


def test_bad_weights_files_are_one_line_errors(tmp_path):
    game = "river_rats"
    w, meta = tiny_weights(game)
    cases = {"missing": None, "garbage": b"not a zip"}
    p = tmp_path / "missing.npz"
    with pytest.raises(ValueError, match="no such file") as e:
        load(p, game)
    assert "\n" not in str(e.value) and str(p) in str(e.value)
    (tmp_path / "garbage.npz").write_bytes(cases["garbage"])
    bad = {"garbage": ("garbage.npz", "not a weights file")}
    other = tiny_weights("rats")
    bad["other game"] = (save(tmp_path / "rats.npz", *other).name, "trained for game 'rats'")
    m2 = dict(meta, layout="0123456789abcdef")
    bad["layout"] = (save(tmp_path / "layout.npz", w, m2).name, "tensor layout")
    m3 = dict(meta, format="boardlab.net/0")
    bad["format"] = (save(tmp_path / "format.npz", w, m3).name, "format")
    w4 = dict(w)
    del w4["W2"]
    bad["missing array"] = (save(tmp_path / "arrays.npz", w4, meta).name, "missing arrays W2")
    w5 = dict(w, W3=w["W3"][:, :2])
    bad["shapes"] = (save(tmp_path / "shapes.npz", w5, meta).name, "inconsistent shapes")
    w6 = dict(w, b1=w["b1"] * np.nan)
    bad["nan"] = (save(tmp_path / "nan.npz", w6, meta).name, "non-finite")
    for what, (name, msg) in bad.items():
        with pytest.raises(ValueError, match=msg) as e:
            load(tmp_path / name, game)
        text = str(e.value)
        assert "\n" not in text and name in text, what
    with pytest.raises(ValueError, match="tensor layout"):
        use_weights(game, tmp_path / "layout.npz")
    assert weights_path(game).name == f"{game}.npz"  # a refused file is not taken


@pytest.mark.parametrize("game", ["river_rats", "lure", "rats", "recurring"])
def test_the_shipped_weights_load(game):
    """The four games' shipped weights (the worked example Kuhn poker ships none) fit each
    game's current tensor layout and action features (a change of either must retrain or
    re-stamp them, with the reason in the model card)."""
    use_weights(game, None)
    w = load(weights_path(game), game)
    assert w["meta"]["game"] == game


def test_cli_names_the_bad_weights_file(tmp_path, capsys):
    from experiments.cli import main

    (tmp_path / "w.npz").write_bytes(b"x")
    rc = main(["learn", "evaluate", "rats", "--weights", str(tmp_path / "w.npz"),
               "--deals", "2"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "w.npz" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("option, value, needle", [
    ("--mix", "2", "--mix 2.0: expected a number in 0..1"),
    ("--tau", "0", "--tau 0.0: expected a number > 0"),
    ("--lr", "nan", "--lr nan: expected a number > 0"),
    ("--holdout", "1", "--holdout 1.0: expected a number strictly between 0 and 1"),
    ("--epochs", "0", "--epochs 0: expected an integer >= 1"),
    ("--prior", "3", "--prior 3: expected 0 or 1"),
])
def test_cli_refuses_bad_training_settings_before_reading_data(tmp_path, capsys, option, value,
                                                               needle):
    """A bad training setting is one line naming the option, before the data folder is read
    (here it does not exist) and with no weights file written."""
    from experiments.cli import main

    out = tmp_path / "w.npz"
    rc = main(["learn", "train", str(tmp_path / "missing"), "--out", str(out), option, value])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and needle in err and len(err.splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("existing", ["w.npz", "w.md"])
def test_cli_train_does_not_replace_weights_or_card_without_force(tmp_path, capsys, existing):
    """An existing weights file or model card at --out is refused in one line, before the data
    are read, and left as it was; --force lets the run go on (here to the missing data)."""
    from experiments.cli import main

    (tmp_path / existing).write_text("a user's file")
    args = ["learn", "train", str(tmp_path / "missing"), "--out", str(tmp_path / "w.npz")]
    rc = main(args)
    err = capsys.readouterr().err.strip()
    assert rc == 2 and len(err.splitlines()) == 1 and "exists" in err and "--force" in err
    assert (tmp_path / existing).read_text() == "a user's file"
    rc = main(args + ["--force"])
    err = capsys.readouterr().err.strip()
    assert rc == 2 and "missing" in err and "exists" not in err


@pytest.mark.parametrize("game", GAME_NAMES)
def test_compiled_inference_equals_the_jax_forward_pass(game, tiny):
    pytest.importorskip("jax")
    import jax.numpy as jnp

    from experiments.learn.data import encode, from_states
    from experiments.learn.model import forward

    w = load(tiny[game], game)
    n = game_class(game).core.MAX_PLAYERS
    params = Agent(game, "net").params
    items, compiled = [], []
    for st, p, legal in unforced_decisions(game, n, 3, policy="heuristic", limit=25):
        aux = table_aux(game, st.config)
        z = np.zeros(len(legal))
        mem = st.seat_memory[p].copy()
        assert call_literal(net_logits, GAME_IDS[game], st.state, p, legal, len(legal), params,
                            aux, mem, z)
        assert np.array_equal(mem, st.seat_memory[p])
        items.append((st.state, p, legal, _prior_choice(game, st, p, legal, params)))
        compiled.append(z)
    ds = from_states(game, items)
    rows, vals = encode(ds, w, int(w["meta"]["tensor_size"]))
    jp = {k: jnp.asarray(w[k]) for k in ("W1", "b1", "W2", "b2", "W3", "b3", "wh", "bh")}
    ref = np.asarray(forward(jp, rows, vals, ds.legal.astype(np.int32),
                             ds.dec[:, 6].astype(np.int32)))
    for i, z in enumerate(compiled):
        k = len(z)
        np.testing.assert_allclose(z, ref[i, :k], rtol=1e-4, atol=1e-3)
        assert int(np.argmax(z)) == int(np.argmax(ref[i, :k]))


def _synthetic(n=3000, seed=0):
    """A data set of River Rats layout whose teacher picks action ``10 k + 5`` when the 0/1
    feature ``900 + k`` is active (k = 0..3; among random other features and random other
    legal actions): a known target a small model learns in seconds."""
    from experiments.learn.data import Dataset

    rng = np.random.default_rng(seed)
    L = 4
    pos = rng.integers(0, L, n)
    choice = 10 * pos + 5
    legal = np.sort(np.array([np.r_[c, rng.choice(np.setdiff1d(np.arange(40), [c]), size=L - 1,
                                                  replace=False)] for c in choice]), 1)
    feats = np.array([rng.choice(200, size=4, replace=False) for _ in range(n)])
    x_idx = np.concatenate([900 + pos[:, None], feats], axis=1).ravel().astype(np.int16)
    dec = np.stack([np.full(n, 4), np.zeros(n), choice, choice, np.full(n, L), np.zeros(n),
                    legal[:, 0]], axis=1).astype(np.int16)
    q = (legal == choice[:, None]).astype(np.float32)
    ptr = np.arange(0, 5 * n + 1, 5, dtype=np.int64)
    return Dataset(x_idx, np.ones(5 * n, np.float32), ptr, legal.astype(np.int16), q, dec,
                   np.arange(n), [{"game": "river_rats", "teacher": "synthetic", "student": "",
                                   "players": [4], "games_per_count": n, "seed": seed}])


def test_tiny_training_learns_a_known_target_and_is_reproducible(tmp_path):
    pytest.importorskip("jax")
    pytest.importorskip("optax")
    from experiments.learn.train import save_weights, train

    ds = _synthetic()
    st = {"h1": 16, "h2": 16, "epochs": 6, "batch": 128, "lr": 0.01, "mix": 0.0,
          "holdout": 0.2, "seed": 3}
    w1, info = train(ds, st, log=lambda *_: None)
    assert info["history"][-1]["agree"] > 0.9
    w2, _ = train(ds, st, log=lambda *_: None)
    for k in w1:
        assert np.array_equal(w1[k], w2[k]), k
    w3, _ = train(ds, dict(st, seed=4), log=lambda *_: None)
    assert not np.array_equal(w1["W1"], w3["W1"])
    p = save_weights(tmp_path / "syn.npz", "river_rats", w1, info)
    meta = load(p, "river_rats")["meta"]
    assert meta["info"]["settings"]["seed"] == 3 and json.dumps(meta)


@pytest.mark.slow
def test_collection_is_the_same_for_one_and_two_workers(tmp_path):
    from experiments.learn.collect import run_collect
    from experiments.learn.data import load_dataset

    game = "lure"
    kw = dict(teacher="pimc-fast", seed=5, batch_size=1, progress=False)
    run_collect(game, tmp_path / "a", [2], 2, jobs=1, **kw)
    run_collect(game, tmp_path / "b", [2], 2, jobs=2, **kw)
    a, b = load_dataset(tmp_path / "a"), load_dataset(tmp_path / "b")
    assert a.n > 0
    for k in ("x_idx", "x_val", "x_ptr", "legal", "q", "dec"):
        assert np.array_equal(getattr(a, k), getattr(b, k)), k


@pytest.mark.slow
def test_expert_iteration_records_the_guided_search_as_teacher(tmp_path):
    """A ``net-search`` teacher (expert iteration): every recorded decision's best label is the
    action the teacher chose and played; a teacher that sees hidden cards is refused."""
    from experiments.learn.collect import run_collect
    from experiments.learn.data import load_dataset

    run_collect("lure", tmp_path / "x", [2], 1, teacher="net-search-fast", seed=5,
                batch_size=1, progress=False)
    d = load_dataset(tmp_path / "x")
    assert d.n > 0 and d.meta[0]["teacher"] == "net-search-fast"
    n = d.dec[:, 4].astype(int)
    q = np.where(np.arange(d.q.shape[1])[None, :] < n[:, None], d.q, -np.inf)
    best = d.legal[np.arange(d.n), q.argmax(axis=1)]
    assert np.array_equal(best, d.dec[:, 2]) and np.array_equal(best, d.dec[:, 3])
    with pytest.raises(ValueError, match="pimc-peek"):
        run_collect("lure", tmp_path / "y", [2], 1, teacher="pimc-peek", seed=5, progress=False)
