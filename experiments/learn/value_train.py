"""Training the learned value (:mod:`agents.value`) on self-play data
(:mod:`experiments.learn.value_data`): seeded minibatch Adam on the squared error of the
predicted return (JAX + optax; the ``learn`` extra), a held-out split by game, and the value
weights file with its model card.

The inputs are standardized with the training split's mean and standard deviation, and the
standardization is folded into the first layer when the file is written, so the compiled
forward pass sums raw tensor entries. Reproducible: the split, the initialization and the
minibatch order come from ``seed``.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

__all__ = ["VALUE_DEFAULTS", "train_value", "dense_rows"]

VALUE_DEFAULTS = {"h1": 128, "h2": 64, "epochs": 3, "batch": 1024, "lr": 1e-3,
                  "holdout": 0.05, "seed": 0, "weight_decay": 1e-5}
"""Training settings of :func:`train_value`: hidden sizes, epochs, minibatch size, Adam
learning rate (cosine decay to 5% over the run), held-out share of games, seed, AdamW decay."""


def dense_rows(data: dict, rows: np.ndarray, T: int) -> np.ndarray:
    """The tensors of positions ``rows`` (``int64 (B,)``) of value data ``data``
    (:func:`experiments.learn.value_data.read_value_data`) as ``float32 (B, T + 1)``, the
    player count in the last column."""
    ptr = data["x_ptr"]
    lo, hi = ptr[rows], ptr[rows + 1]
    lens = hi - lo
    out = np.zeros((rows.size, T + 1), dtype=np.float32)
    idx = np.repeat(np.arange(rows.size), lens)
    src = np.repeat(lo - np.cumsum(np.concatenate([[0], lens[:-1]])), lens) + np.arange(
        lens.sum())
    out[idx, data["x_idx"][src].astype(np.int64)] = data["x_val"][src]
    out[:, T] = data["rec"][rows, 0]
    return out


def _moments(data: dict, rows: np.ndarray, T: int, chunk: int = 65536):
    s = np.zeros(T + 1)
    s2 = np.zeros(T + 1)
    for i in range(0, rows.size, chunk):
        x = dense_rows(data, rows[i:i + chunk], T).astype(np.float64)
        s += x.sum(0)
        s2 += (x * x).sum(0)
    mu = s / rows.size
    sd = np.sqrt(np.maximum(s2 / rows.size - mu * mu, 0.0))
    return mu, np.where(sd > 1e-3, sd, 1.0)


def train_value(folders, out, *, settings: dict | None = None, force: bool = False,
                log=print) -> dict:
    """Train the value network on the data folders ``folders`` and write weights file ``out``
    (``.npz``) and its model card (``.md`` beside it). ``settings``: overrides of
    :data:`VALUE_DEFAULTS`. Returns the held-out figures (``mse``, ``mse_constant``: the error
    of the training mean, ``r2``, ``sign_accuracy`` when returns are +-1, positions and games,
    seconds). Raises ``ValueError`` for an existing ``out`` without ``force``, unknown
    settings or unreadable data (one line each)."""
    import jax
    import jax.numpy as jnp
    import optax

    from agents.net import layout_signature
    from experiments.learn.value_data import read_value_data

    cfg = dict(VALUE_DEFAULTS)
    bad = sorted(set(settings or {}) - set(cfg))
    if bad:
        raise ValueError(f"value training settings {bad}: expected some of {sorted(cfg)}")
    cfg.update(settings or {})
    out = Path(out)
    if out.exists() and not force:
        raise ValueError(f"value weights {out}: exists (--force replaces it)")
    t0 = time.time()
    data = read_value_data(folders)
    meta_in = data["meta"]
    game = meta_in["game"]
    sig = layout_signature(game)
    if meta_in["layout"].get("layout") != sig["layout"]:
        raise ValueError(f"value data {folders[0]}: collected on tensor layout "
                         f"{meta_in['layout'].get('layout')!r}, but {game} has {sig['layout']!r}")
    T = sig["tensor_size"]
    y_all = data["rec"][:, 3].astype(np.float32)
    groups = np.unique(data["group"])
    rng = np.random.default_rng(cfg["seed"])
    held_games = groups[rng.random(groups.size) < cfg["holdout"]]
    held = np.isin(data["group"], held_games)
    tr, te = np.flatnonzero(~held), np.flatnonzero(held)
    mu, sd = _moments(data, tr, T)
    mu32, sd32 = mu.astype(np.float32), sd.astype(np.float32)
    H1, H2 = int(cfg["h1"]), int(cfg["h2"])
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(int(cfg["seed"])), 3)
    params = {"W1": jax.random.normal(k1, (T + 1, H1)) * np.sqrt(2.0 / (T + 1)),
              "b1": jnp.zeros(H1),
              "W2": jax.random.normal(k2, (H1, H2)) * np.sqrt(2.0 / H1), "b2": jnp.zeros(H2),
              "w3": jax.random.normal(k3, (H2,)) * np.sqrt(1.0 / H2),
              "b3": jnp.full((1,), float(y_all[tr].mean()))}

    def forward(p, x):
        h1 = jax.nn.relu(x @ p["W1"] + p["b1"])
        h2 = jax.nn.relu(h1 @ p["W2"] + p["b2"])
        return h2 @ p["w3"] + p["b3"][0]

    def loss_fn(p, x, y):
        return jnp.mean((forward(p, x) - y) ** 2)

    B = int(cfg["batch"])
    steps = max(1, int(cfg["epochs"]) * (tr.size // B))
    sched = optax.cosine_decay_schedule(float(cfg["lr"]), steps, alpha=0.05)
    opt = optax.adamw(sched, weight_decay=float(cfg["weight_decay"]))
    state = opt.init(params)

    @jax.jit
    def step(p, s, x, y):
        lval, g = jax.value_and_grad(loss_fn)(p, x, y)
        upd, s = opt.update(g, s, p)
        return optax.apply_updates(p, upd), s, lval

    pred = jax.jit(forward)

    def norm(x):
        return (x - mu32) / sd32

    def evaluate(p, rows):
        yh = []
        for i in range(0, rows.size, 16384):
            r = rows[i:i + 16384]
            yh.append(np.asarray(pred(p, norm(dense_rows(data, r, T)))))
        yh = np.concatenate(yh) if yh else np.zeros(0)
        y = y_all[rows]
        err = float(np.mean((yh - y) ** 2))
        return err, yh

    for ep in range(int(cfg["epochs"])):
        order = tr[rng.permutation(tr.size)]
        tot = 0.0
        nb = 0
        for i in range(0, order.size - B + 1, B):
            r = order[i:i + B]
            params, state, lval = step(params, state, norm(dense_rows(data, r, T)), y_all[r])
            tot += float(lval)
            nb += 1
        mse, _ = evaluate(params, te)
        log(f"epoch {ep + 1}/{cfg['epochs']}: train mse {tot / max(nb, 1):.4f}, held-out mse "
            f"{mse:.4f}")
    mse, yh = evaluate(params, te)
    y = y_all[te]
    mse0 = float(np.mean((y - y_all[tr].mean()) ** 2))
    figures = {"positions": int(tr.size + te.size), "games": int(groups.size),
               "held_out_positions": int(te.size), "mse": mse, "mse_constant": mse0,
               "r2": 1.0 - mse / mse0 if mse0 > 0 else 0.0}
    if np.all(np.isin(np.unique(y_all), (-1.0, 1.0))):
        figures["sign_accuracy"] = float(np.mean(np.sign(yh) == y))
    p = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    W1 = p["W1"] / sd[:, None]
    b1 = p["b1"] - (mu / sd) @ p["W1"]
    arrays = {"W1": W1, "b1": b1, "W2": p["W2"], "b2": p["b2"], "w3": p["w3"], "b3": p["b3"]}
    arrays = {k: v.astype(np.float32) for k, v in arrays.items()}
    figures["seconds"] = round(time.time() - t0, 1)
    from agents.value import FORMAT

    meta = {"format": FORMAT, "game": game, "tensor_size": sig["tensor_size"],
            "layout": sig["layout"], "settings": cfg,
            "data": [str(Path(f)) for f in folders], "policy": meta_in.get("policy"),
            "figures": figures}
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.stem + ".tmp.npz")
    np.savez(tmp, meta=json.dumps(meta), **arrays)
    tmp.replace(out)
    out.with_suffix(".md").write_text(_card(meta))
    return figures


def _card(meta: dict) -> str:
    f = meta["figures"]
    s = meta["settings"]
    acc = (f"; the sign of the prediction is the outcome in {100 * f['sign_accuracy']:.1f}% "
           f"of held-out positions" if "sign_accuracy" in f else "")
    return (f"# Learned value of {meta['game']}\n\n"
            f"Format `{meta['format']}` ([agents/value.py](../value.py)): the expected return of a "
            f"seat from its information-state tensor (size {meta['tensor_size']}, layout "
            f"`{meta['layout']}`) and the player count; layers {meta['tensor_size'] + 1} -> "
            f"{s['h1']} -> {s['h2']} -> 1 (ReLU).\n\n"
            f"Trained by `boardlab learn value-train` on {f['positions']:,} positions of "
            f"{f['games']:,} self-play games of `{meta['policy']}` (games with a recorded "
            f"position; data: "
            f"{', '.join(meta['data'])}), {s['epochs']} epochs, batch {s['batch']}, Adam "
            f"{s['lr']}, seed {s['seed']}.\n\n"
            f"Held out ({f['held_out_positions']:,} positions of games never trained on): mean "
            f"squared error {f['mse']:.4f} against {f['mse_constant']:.4f} for the constant "
            f"mean (R^2 {f['r2']:.3f}){acc}. Training took {f['seconds']:.0f} s.\n")
