"""Training ``net`` on collected teacher data (JAX + optax; the ``learn`` extra): seeded
minibatch Adam on the cross-entropy of :mod:`experiments.learn.model`, a held-out split by
game, and the weights file of :mod:`agents.net` with its metadata.

Reproducible: the split, the initialization and the minibatch order all come from ``seed``;
XLA on the CPU computes the same sums in the same order, so the same data and seed give the
same weights (tested on a tiny run).
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

from experiments.learn.data import Dataset, encode, feature_map

__all__ = ["TrainSettings", "train", "save_weights", "accuracy"]

DEFAULTS = {"h1": 256, "h2": 128, "epochs": 4, "batch": 512, "lr": 1e-3, "tau": 0.1,
            "mix": 1.0, "holdout": 0.05, "seed": 0, "weight_decay": 1e-5, "prior": 1,
            "regret": 0.0, "model": "auto"}
"""Training settings (:func:`train`): hidden sizes, epochs, minibatch size, Adam learning rate
(cosine decay to 5% over the run), target temperature ``tau`` (teacher value units) and mix
(:func:`experiments.learn.model.targets`; 1.0, the teacher's values alone, is what every
shipped model used: half the teacher's one-hot choice cost River Rats 2-3 points), held-out
share of games, seed, AdamW decay,
``prior`` 1: the heuristic's choice is an input (:mod:`agents.net`), 0: the tensor only;
``regret``: weight of the expected-regret term (:func:`experiments.learn.model.loss_fn`);
``model``: ``tensor`` (format 1, :mod:`experiments.learn.model`), ``features`` (format 2 on
the game's action features, :mod:`experiments.learn.train_features`) or ``auto`` (features
when the data carry them)."""
TrainSettings = dict


def _split(ds: Dataset, holdout: float, seed: int):
    games = np.unique(ds.group)
    rng = np.random.default_rng(seed)
    held = rng.random(games.size) < holdout
    is_held = np.isin(ds.group, games[held])
    return np.flatnonzero(~is_held), np.flatnonzero(is_held)


def accuracy(params: dict, rows, vals, legal, prior, choice, q, batch: int = 4096) -> dict:
    """Held-out figures of numpy/JAX parameters: ``agree`` (share of decisions where the
    student's choice is the teacher's), ``best`` (share where it has the teacher's best value,
    ties included) and ``regret`` (mean teacher value lost, teacher units)."""
    import jax

    from experiments.learn.model import forward

    f = jax.jit(forward)
    agree = best = 0
    regret = 0.0
    n = rows.shape[0]
    for s in range(0, n, batch):
        z = np.asarray(f(params, rows[s:s + batch], vals[s:s + batch], legal[s:s + batch],
                         prior[s:s + batch]))
        j = z.argmax(1)
        pick = legal[s:s + batch][np.arange(j.size), j]
        agree += int((pick == choice[s:s + batch]).sum())
        qq = np.where(legal[s:s + batch] >= 0, q[s:s + batch], -np.inf)
        got = qq[np.arange(j.size), j]
        top = qq.max(1)
        best += int((got >= top - 1e-6).sum())
        regret += float((top - got).sum())
    return {"agree": agree / max(n, 1), "best": best / max(n, 1), "regret": regret / max(n, 1),
            "decisions": int(n)}


def train(ds: Dataset, settings: dict | None = None, log=print) -> tuple[dict, dict]:
    """Train on ``ds``; returns ``(weights, info)``: ``weights`` the arrays of
    :data:`agents.net.ARRAYS` (numpy), ``info`` the settings, data sizes, held-out figures
    (:func:`accuracy`) of the first and last epoch and the training time. ``settings``
    override :data:`DEFAULTS`. Raises ``ValueError`` without the ``learn`` extra or with an
    unknown setting."""
    st = dict(DEFAULTS)
    for k, v in (settings or {}).items():
        if k not in DEFAULTS:
            raise ValueError(f"unknown training setting {k!r}: expected one of "
                             f"{', '.join(DEFAULTS)}")
        st[k] = type(DEFAULTS[k])(v)
    try:
        import jax
        import jax.numpy as jnp
        import optax
    except ImportError:
        raise ValueError("training needs the learn extra: pip install 'boardlab[learn]' "
                         "(jax, optax)") from None
    if st["model"] not in ("auto", "tensor", "features"):
        raise ValueError(f"model {st['model']!r}: expected auto, tensor or features")
    if st["model"] == "features" and not ds.has_features:
        raise ValueError(f"model 'features': the data of {ds.game} carry no action features")
    from engines.protocol import core_of
    from experiments.io import code_version
    from experiments.learn.model import init_params, loss_fn, targets, to_numpy

    t0 = time.time()
    if ds.has_features and st["model"] != "tensor":
        from experiments.learn.train_features import train_features

        tr, ho = _split(ds, st["holdout"], st["seed"])
        w, info = train_features(ds, st, tr, ho, log=log)
        info.update(settings=st, code_version=code_version(), jax=jax.__version__,
                    optax=optax.__version__, data=_data_info(ds))
        return w, info
    C = core_of(ds.game)
    T, A = int(C.TENSOR_SIZE), int(C.NUM_DISTINCT_ACTIONS)
    tr, ho = _split(ds, st["holdout"], st["seed"])
    fmap = feature_map(ds.subset(tr), T, int(C.MAX_PLAYERS), A, prior=bool(st["prior"]))
    rows, vals = encode(ds, fmap, T)
    legal = ds.legal.astype(np.int32)
    prior = ds.dec[:, 6].astype(np.int32) if st["prior"] else np.full(ds.n, -1, np.int32)
    choice = ds.dec[:, 2].astype(np.int32)
    tgt = targets(legal, ds.q, choice, st["tau"], st["mix"])
    qm = np.where(legal >= 0, ds.q, -np.inf)
    reg = np.where(legal >= 0, qm.max(1, keepdims=True) - qm, 0.0).astype(np.float32)
    log(f"{ds.game}: {ds.n} decisions ({tr.size} train, {ho.size} held out), {fmap['rows']} "
        f"feature rows, {rows.shape[1]} active at most, {legal.shape[1]} legal at most")
    params = init_params(st["seed"], fmap["rows"], A, st["h1"], st["h2"])
    steps = max(1, st["epochs"] * (tr.size // st["batch"]))
    sched = optax.cosine_decay_schedule(st["lr"], steps, alpha=0.05)
    opt = optax.adamw(sched, weight_decay=st["weight_decay"])
    state = opt.init(params)

    @jax.jit
    def step(params, state, r, v, lg, pr, tg, rg):
        loss, g = jax.value_and_grad(loss_fn)(params, r, v, lg, pr, tg, rg, st["regret"])
        upd, state = opt.update(g, state, params)
        return optax.apply_updates(params, upd), state, loss

    rng = np.random.default_rng(st["seed"] + 1)
    hist = []
    B = st["batch"]
    for ep in range(st["epochs"]):
        order = tr[rng.permutation(tr.size)]
        tot = 0.0
        nb = 0
        for s in range(0, order.size - B + 1, B):
            b = np.sort(order[s:s + B])
            params, state, loss = step(params, state, jnp.asarray(rows[b]),
                                       jnp.asarray(vals[b]), jnp.asarray(legal[b]),
                                       jnp.asarray(prior[b]), jnp.asarray(tgt[b]),
                                       jnp.asarray(reg[b]))
            tot += float(loss)
            nb += 1
        acc = accuracy(params, rows[ho], vals[ho], legal[ho], prior[ho], choice[ho], ds.q[ho])
        hist.append({"epoch": ep + 1, "loss": tot / max(nb, 1), **acc})
        log(f"  epoch {ep + 1}: loss {tot / max(nb, 1):.4f}, held-out agreement "
            f"{acc['agree']:.3f}, best-value {acc['best']:.3f}, regret {acc['regret']:.4f}")
    w = to_numpy(params)
    for k in ("feat_row", "feat_scale", "cat_pos", "cat_lo", "cat_n", "cat_off"):
        w[k] = fmap[k]
    info = {"settings": st, "decisions": int(ds.n), "train_decisions": int(tr.size),
            "heldout_decisions": int(ho.size), "feature_rows": int(fmap["rows"]),
            "history": hist, "train_seconds": round(time.time() - t0, 1),
            "code_version": code_version(), "jax": jax.__version__, "optax": optax.__version__,
            "data": _data_info(ds)}
    return w, info


def _data_info(ds: Dataset) -> list:
    """What a model card records of each collection folder of ``ds``."""
    return [{k: m.get(k) for k in ("teacher", "student", "players", "games_per_count", "seed",
                                   "code_version", "config")} for m in ds.meta]


def save_weights(path, game: str, weights: dict, info: dict) -> Path:
    """Write a weights file of :mod:`agents.net` (``np.savez_compressed``; float32 arrays,
    ``meta`` JSON with the format, the layout signature and ``info``) and return its path;
    checks it loads (:func:`agents.net.load`)."""
    from agents.net import ARRAYS, ARRAYS2, FORMAT, FORMAT2, layout_signature, load

    if info.get("model") == "features":
        meta = {"format": FORMAT2, **layout_signature(game), "prior": "", "info": info}
        arrays = {k: weights[k] for k in ARRAYS2}
    else:
        prior = "heuristic" if info.get("settings", {}).get("prior", 1) else ""
        meta = {"format": FORMAT, **layout_signature(game), "prior": prior, "info": info}
        arrays = {k: weights[k] for k in ARRAYS}
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(p, meta=np.array(json.dumps(meta, default=float)), **arrays)
    load(p, game)
    return p
