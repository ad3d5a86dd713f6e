"""What the learned-policy tests share: synthetic weights files and data sets, the unforced
decisions of a seeded game, and a decision's action features."""

from __future__ import annotations

import json

import numpy as np

from agents.contract import contract
from agents.net import FORMAT, feature_sizes, layout_signature
from agents.policy import Agent, get_spec
from engines.protocol import core_of, game_class


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


FEATURE_GAMES = ("river_rats", "recurring")
"""The games whose agents offer action features (the contract's optional group)."""


def unforced_decisions(game, n_players, seed, policy="net", limit=40):
    """``(state copy, player, legal)`` of the unforced decisions (two or more legal actions) of
    one game of ``game`` with ``n_players`` from ``seed``, every seat played by ``policy``; at
    most ``limit`` of them. ``legal``: ``int64 (n_legal,)``."""
    cls = game_class(game)
    st = cls(cls.config_class(n_players=n_players), seed)
    agent = Agent(game, policy)
    out = []
    while not st.is_terminal() and len(out) < limit:
        legal = np.array(st.legal_actions(), dtype=np.int64)
        if len(legal) > 1:
            out.append((st.clone(), st.current_player(), legal))
        st.apply_action(agent(st))
    return out


def decision_features(st, p, legal, game):
    """The state features ``float32 (S,)`` and action features ``float32 (len(legal), F)`` of
    player ``p`` deciding among ``legal`` in step-API state ``st`` of ``game``, with the
    heuristic's default parameters; asserts that the seat memory is read, not changed."""
    S, F = feature_sizes(game)
    fs = np.zeros(S, np.float32)
    fa = np.zeros((len(legal), F), np.float32)
    mem = st.seat_memory[p].copy()
    params = np.asarray(get_spec(game, "heuristic").default_params, dtype=np.float64)
    contract(game).action_features(st.state, p, legal, len(legal), params, mem, fs, fa)
    assert np.array_equal(mem, st.seat_memory[p])  # the seat memory is read, not changed
    return fs, fa
