"""Training ``net`` format 2 (the network on the game's action features,
:mod:`experiments.learn.model_features`) on collected teacher data: seeded minibatch AdamW on
the cross-entropy against a softmax of the teacher's action values, a held-out split by game,
the standardization folded into the weights. Called by :func:`experiments.learn.train.train`
for data that carries action features.

Reproducible: the split, the initialization and the minibatch order come from the seed, and
XLA on the CPU sums in a fixed order, so the same data and seed give the same weights.
"""

from __future__ import annotations

import time

import numpy as np

from experiments.learn.data import Dataset

__all__ = ["train_features", "accuracy_features", "standardization"]


def standardization(ds: Dataset, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(mu, sd)`` ``float64 (S + F,)``: the mean and spread of the state features over the
    decisions ``rows`` and of the action features over their legal actions (a spread below
    1e-3, a constant feature, counts as 1)."""
    fs = ds.fs[rows].astype(np.float64)
    fa = ds.fa[ds.action_rows(rows)].astype(np.float64)
    mu = np.concatenate([fs.mean(0), fa.mean(0)])
    sd = np.concatenate([fs.std(0), fa.std(0)])
    sd[sd < 1e-3] = 1.0
    return mu, sd


def _inputs(ds: Dataset, rows, L, mu, sd):
    S = ds.fs.shape[1]
    xs = ((ds.fs[rows] - mu[:S]) / sd[:S]).astype(np.float32)
    xa = ((ds.action_features(rows, L) - mu[S:]) / sd[S:]).astype(np.float32)
    return xs, xa


def accuracy_features(params, ds: Dataset, rows, L, mu, sd, batch: int = 4096) -> dict:
    """Held-out figures of the format-2 model on decisions ``rows``: ``agree`` (share where
    its choice is the teacher's), ``best`` (share with the teacher's best value, ties
    included), ``regret`` (mean teacher value lost, teacher units), ``decisions``."""
    import jax

    from experiments.learn.model_features import forward

    f = jax.jit(forward)
    agree = best = 0
    regret = 0.0
    legal_all = ds.legal.astype(np.int32)
    choice_all = ds.dec[:, 2].astype(np.int32)
    for s in range(0, rows.size, batch):
        b = rows[s:s + batch]
        xs, xa = _inputs(ds, b, L, mu, sd)
        legal = legal_all[b]
        z = np.asarray(f(params, xs, xa, legal))
        j = z.argmax(1)
        pick = legal[np.arange(j.size), j]
        agree += int((pick == choice_all[b]).sum())
        qq = np.where(legal >= 0, ds.q[b], -np.inf)
        got = qq[np.arange(j.size), j]
        top = qq.max(1)
        best += int((got >= top - 1e-6).sum())
        regret += float((top - got).sum())
    n = max(rows.size, 1)
    return {"agree": agree / n, "best": best / n, "regret": regret / n,
            "decisions": int(rows.size)}


def train_features(ds: Dataset, st: dict, tr: np.ndarray, ho: np.ndarray,
                   log=print) -> tuple[dict, dict]:
    """Train the format-2 model on decisions ``tr`` of ``ds`` (held out: ``ho``) with the
    settings ``st`` of :data:`experiments.learn.train.DEFAULTS` (``h1``, ``h2``, ``epochs``,
    ``batch``, ``lr``, ``tau``, ``mix``, ``seed``, ``weight_decay``); returns ``(weights,
    info)``: the arrays of :data:`agents.net.ARRAYS2` (standardization folded in) and the
    training figures. Raises ``ValueError`` without the ``learn`` extra."""
    from experiments.learn.model import import_jax, targets

    jax, jnp = import_jax()
    import optax

    from experiments.learn.model_features import fold, init_params, loss_fn

    t0 = time.time()
    L = int(ds.dec[:, 4].max())
    legal = ds.legal[:, :L].astype(np.int32)
    tgt = targets(legal, ds.q[:, :L], ds.dec[:, 2].astype(np.int32), st["tau"], st["mix"])
    mu, sd = standardization(ds, tr)
    S, F = ds.fs.shape[1], ds.fa.shape[1]
    log(f"{ds.game}: {ds.n} decisions ({tr.size} train, {ho.size} held out), {S} state and "
        f"{F} action features, {L} legal at most")
    params = init_params(st["seed"], S + F, st["h1"], st["h2"])
    B = st["batch"]
    steps = max(1, st["epochs"] * (tr.size // B))
    sched = optax.cosine_decay_schedule(st["lr"], steps, alpha=0.05)
    opt = optax.adamw(sched, weight_decay=st["weight_decay"])
    state = opt.init(params)

    @jax.jit
    def step(params, state, xs, xa, lg, tg):
        loss, g = jax.value_and_grad(loss_fn)(params, xs, xa, lg, tg)
        upd, state = opt.update(g, state, params)
        return optax.apply_updates(params, upd), state, loss

    rng = np.random.default_rng(st["seed"] + 1)
    hist = []
    for ep in range(st["epochs"]):
        order = tr[rng.permutation(tr.size)]
        tot, nb = 0.0, 0
        for s in range(0, order.size - B + 1, B):
            b = np.sort(order[s:s + B])
            xs, xa = _inputs(ds, b, L, mu, sd)
            params, state, loss = step(params, state, jnp.asarray(xs), jnp.asarray(xa),
                                       jnp.asarray(legal[b]), jnp.asarray(tgt[b]))
            tot += float(loss)
            nb += 1
        acc = accuracy_features(params, ds, ho, L, mu, sd)
        hist.append({"epoch": ep + 1, "loss": tot / max(nb, 1), **acc})
        log(f"  epoch {ep + 1}: loss {tot / max(nb, 1):.4f}, held-out agreement "
            f"{acc['agree']:.3f}, best-value {acc['best']:.3f}, regret {acc['regret']:.4f}")
    w = fold(params, mu, sd)
    info = {"model": "features", "decisions": int(ds.n), "train_decisions": int(tr.size),
            "heldout_decisions": int(ho.size), "state_features": int(S),
            "action_features": int(F), "history": hist,
            "train_seconds": round(time.time() - t0, 1)}
    return w, info
