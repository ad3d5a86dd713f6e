"""The model of ``net`` format 2 on JAX: a small network scoring each legal action from the
game's action features (:mod:`agents.contract`, group "action features"), the training-side
twin of :func:`agents.net._logits_features`. Needs the ``learn`` extra (``jax``, ``optax``).

Forward pass (batched): the input of legal action ``a`` of a decision is ``x = [u, v_a]``
(``u`` the decision's state features, ``v_a`` the action's features), standardized by the
training data's mean and spread; its logit is ``w3 . relu(W2 relu(W1 x + b1) + b2) + b3 +
wl . x`` (a two-layer network plus a linear skip, one shared scorer for every action: the
action-in architecture of DQN-style value networks over variable action sets); padding is
masked to ``-1e9``. Loss: cross-entropy of the masked softmax against the targets of
:func:`experiments.learn.model.targets` (a softmax of the teacher's action values).
:func:`fold` writes the standardization into the weights, so the compiled inference reads
raw features (and keeps their zeros sparse).
"""

from __future__ import annotations

import numpy as np

from experiments.learn.model import import_jax

__all__ = ["init_params", "forward", "loss_fn", "fold"]


def init_params(seed: int, d: int, h1: int, h2: int) -> dict:
    """Seeded initial parameters (``float32`` JAX arrays) for ``d`` input features: ``W1 (d,
    h1)``, ``b1``, ``W2 (h1, h2)``, ``b2``, ``w3 (h2,)``, ``b3 (1,)``, ``wl (d,)`` (He-style
    scales; the skip starts at zero)."""
    jax, jnp = import_jax()
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(int(seed)), 3)
    return {"W1": jax.random.normal(k1, (d, h1), jnp.float32) * (2.0 / d) ** 0.5,
            "b1": jnp.zeros(h1, jnp.float32),
            "W2": jax.random.normal(k2, (h1, h2), jnp.float32) * (2.0 / h1) ** 0.5,
            "b2": jnp.zeros(h2, jnp.float32),
            "w3": jax.random.normal(k3, (h2,), jnp.float32) * (1.0 / h2) ** 0.5,
            "b3": jnp.zeros(1, jnp.float32), "wl": jnp.zeros(d, jnp.float32)}


def forward(params, xs, xa, legal):
    """Logits ``(B, L)`` from the standardized state features ``xs (B, S)`` and action
    features ``xa (B, L, F)`` of the legal actions ``legal`` (``int32 (B, L)``, -1 padded:
    those get -1e9)."""
    jax, jnp = import_jax()
    B, L, _ = xa.shape
    x = jnp.concatenate([jnp.broadcast_to(xs[:, None, :], (B, L, xs.shape[1])), xa], axis=-1)
    h1 = jax.nn.relu(x @ params["W1"] + params["b1"])
    h2 = jax.nn.relu(h1 @ params["W2"] + params["b2"])
    z = h2 @ params["w3"] + params["b3"][0] + x @ params["wl"]
    return jnp.where(legal >= 0, z, -1e9)


def loss_fn(params, xs, xa, legal, target):
    """Mean cross-entropy of the masked softmax of :func:`forward` against ``target``
    (``float32 (B, L)``, rows summing to 1, zero on padding)."""
    import jax

    z = forward(params, xs, xa, legal)
    return -(target * jax.nn.log_softmax(z, axis=-1)).sum(-1).mean()


def fold(params: dict, mu: np.ndarray, sd: np.ndarray) -> dict:
    """The ``float32`` numpy weights of :data:`agents.net.ARRAYS2` for raw features, from
    parameters trained on ``(x - mu) / sd`` (``mu``, ``sd`` ``(S + F,)``): ``W1' = W1 / sd``,
    ``b1' = b1 - (mu / sd) W1``, ``wl' = wl / sd``, ``b3' = b3 - (mu / sd) . wl``."""
    p = {k: np.asarray(v, dtype=np.float64) for k, v in params.items()}
    r = mu / sd
    out = {"W1": p["W1"] / sd[:, None], "b1": p["b1"] - r @ p["W1"], "W2": p["W2"],
           "b2": p["b2"], "w3": p["w3"], "b3": p["b3"] - r @ p["wl"], "wl": p["wl"] / sd}
    return {k: np.asarray(v, dtype=np.float32) for k, v in out.items()}
