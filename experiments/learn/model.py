"""The model of ``net`` on JAX: the training-side twin of the compiled inference of
:mod:`agents.net` (the same layers, the same feature map), its initialization, forward pass
and loss. Needs the ``learn`` extra (``jax``, ``optax``).

Forward pass (batched): ``h1 = relu(b1 + sum_k vals[:, k] * W1[rows[:, k]])`` (the embedding
bag of the active features), ``h2 = relu(h1 @ W2 + b2)``, logits ``W3[legal] . h2 +
b3[legal]`` for the legal actions only (padding masked to ``-1e9``). Loss: cross-entropy of
the masked softmax against a target distribution over the legal actions (the teacher's
choice mixed with a softmax of its action values: behaviour cloning of a search teacher as in
Anthony, Tian and Barber 2017 and Silver et al. 2017's policy targets from visit counts).
"""

from __future__ import annotations

import numpy as np

__all__ = ["import_jax", "init_params", "forward", "loss_fn", "targets", "to_numpy"]


def import_jax():
    """``(jax, jax.numpy)``; raises a one-line ``ValueError`` naming the ``learn`` extra when
    jax is not installed."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        raise ValueError("training needs the learn extra: pip install 'boardlab[learn]' "
                         "(jax, optax)") from None
    return jax, jnp


def init_params(seed: int, rows: int, n_actions: int, h1: int, h2: int) -> dict:
    """Seeded initial parameters (``float32`` JAX arrays): ``W1 (rows, h1)``, ``b1``,
    ``W2 (h1, h2)``, ``b2``, ``W3 (n_actions, h2)``, ``b3``, the prior's gate ``wh (h2,)`` (zeros),
    ``bh (1,)`` (one: the prior's choice starts ahead) (He-style scales; the first layer scaled for
    about 64 active rows)."""
    jax, jnp = import_jax()
    k1, k2, k3 = jax.random.split(jax.random.PRNGKey(int(seed)), 3)
    return {"W1": jax.random.normal(k1, (rows, h1), jnp.float32) * (2.0 / 64) ** 0.5,
            "b1": jnp.zeros(h1, jnp.float32),
            "W2": jax.random.normal(k2, (h1, h2), jnp.float32) * (2.0 / h1) ** 0.5,
            "b2": jnp.zeros(h2, jnp.float32),
            "W3": jax.random.normal(k3, (n_actions, h2), jnp.float32) * (1.0 / h2) ** 0.5,
            "b3": jnp.zeros(n_actions, jnp.float32),
            "wh": jnp.zeros(h2, jnp.float32), "bh": jnp.ones(1, jnp.float32)}


def forward(params, rows, vals, legal, prior):
    """Logits ``(B, L)`` of the legal actions ``legal`` (``int32 (B, L)``, -1 padded: those
    get -1e9) from the active rows ``rows`` / weights ``vals`` (``(B, K)``,
    :func:`experiments.learn.data.encode`); ``prior`` ``int32 (B,)`` the prior policy's
    choice (-1: none), whose logit gets the gate ``wh . h2 + bh``."""
    _, jnp = import_jax()
    import jax

    h1 = params["b1"] + jnp.einsum("bk,bkh->bh", vals, params["W1"][rows])
    h1 = jax.nn.relu(h1)
    h2 = jax.nn.relu(h1 @ params["W2"] + params["b2"])
    a = jnp.maximum(legal, 0)
    z = jnp.einsum("bh,blh->bl", h2, params["W3"][a]) + params["b3"][a]
    gate = h2 @ params["wh"] + params["bh"][0]
    z = z + jnp.where(legal == prior[:, None], gate[:, None], 0.0)
    return jnp.where(legal >= 0, z, -1e9)


def loss_fn(params, rows, vals, legal, prior, target, regret, w_regret):
    """Mean cross-entropy of the masked softmax of :func:`forward` against ``target``
    (``float32 (B, L)``, rows summing to 1, zero on padding) plus ``w_regret`` times the
    policy's expected regret ``sum_a pi(a) regret[:, a]`` (``regret``: the teacher's best
    value minus each action's, zero on padding): decisions weigh by what is at stake, and
    near-ties of a noisy teacher cost little."""
    import jax

    z = forward(params, rows, vals, legal, prior)
    logp = jax.nn.log_softmax(z, axis=-1)
    ce = -(target * logp).sum(-1).mean()
    return ce + w_regret * (jax.numpy.exp(logp) * regret).sum(-1).mean()


def targets(legal: np.ndarray, q: np.ndarray, choice: np.ndarray, tau: float,
            mix: float) -> np.ndarray:
    """Target distributions ``float32 (N, L)``: ``(1 - mix)`` on the teacher's choice plus
    ``mix`` times ``softmax(q / tau)`` over the legal actions (``tau``: a temperature in the
    teacher's value units; ``mix`` 0: plain behaviour cloning of the choice)."""
    ok = legal >= 0
    hard = (legal == choice[:, None]).astype(np.float64)
    z = np.where(ok, q.astype(np.float64) / max(tau, 1e-9), -np.inf)
    z -= z.max(axis=1, keepdims=True)
    e = np.where(ok, np.exp(z), 0.0)
    soft = e / e.sum(axis=1, keepdims=True)
    return ((1.0 - mix) * hard + mix * soft).astype(np.float32)


def to_numpy(params) -> dict:
    """The parameters as ``float32`` numpy arrays."""
    return {k: np.asarray(v, dtype=np.float32) for k, v in params.items()}
