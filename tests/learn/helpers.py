"""Synthetic weights files and data sets for the learned-policy tests (numpy only)."""

from __future__ import annotations

import json

import numpy as np

from agents.net import FORMAT, layout_signature
from engines.protocol import core_of


def tiny_weights(game: str, seed: int = 0, h1: int = 8, h2: int = 4, prior: str = "heuristic"):
    """Random weights of the layout of :mod:`agents.net` for ``game`` (every tensor position
    a 0/1-or-numeric row; the player count and the prior's choice categorical)."""
    C = core_of(game)
    T, A = int(C.TENSOR_SIZE), int(C.NUM_DISTINCT_ACTIONS)
    rng = np.random.default_rng(seed)
    n_cat = [int(C.MAX_PLAYERS) + 1, A]
    R = T + sum(n_cat)
    w = {"feat_row": np.r_[np.arange(T), -1, -1].astype(np.int64),
         "feat_scale": rng.uniform(0.05, 1.0, T + 2),
         "cat_pos": np.array([T, T + 1]), "cat_lo": np.zeros(2, np.int64),
         "cat_n": np.array(n_cat), "cat_off": np.array([T, T + n_cat[0]]),
         "W1": rng.standard_normal((R, h1)).astype(np.float32),
         "b1": rng.standard_normal(h1).astype(np.float32),
         "W2": rng.standard_normal((h1, h2)).astype(np.float32),
         "b2": rng.standard_normal(h2).astype(np.float32),
         "W3": rng.standard_normal((A, h2)).astype(np.float32),
         "b3": rng.standard_normal(A).astype(np.float32),
         "wh": rng.standard_normal(h2).astype(np.float32), "bh": np.ones(1, np.float32)}
    meta = {"format": FORMAT, **layout_signature(game), "prior": prior, "info": {}}
    return w, meta


def save(path, weights: dict, meta: dict):
    """Write ``weights`` and ``meta`` as a weights file at ``path``."""
    np.savez(path, meta=np.array(json.dumps(meta)), **weights)
    return path


def tiny_weights2(game: str, seed: int = 0, h1: int = 8, h2: int = 4):
    """Random weights of format 2 (:data:`agents.net.ARRAYS2`, the network on the game's
    action features) for ``game``."""
    from agents.net import FORMAT2, feature_sizes

    S, F = feature_sizes(game)
    rng = np.random.default_rng(seed)
    w = {"W1": rng.standard_normal((S + F, h1)).astype(np.float32),
         "b1": rng.standard_normal(h1).astype(np.float32),
         "W2": rng.standard_normal((h1, h2)).astype(np.float32),
         "b2": rng.standard_normal(h2).astype(np.float32),
         "w3": rng.standard_normal(h2).astype(np.float32),
         "b3": rng.standard_normal(1).astype(np.float32),
         "wl": rng.standard_normal(S + F).astype(np.float32)}
    meta = {"format": FORMAT2, **layout_signature(game), "prior": "", "info": {}}
    return w, meta
