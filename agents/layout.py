"""The bottom of ``agents/``: the policy kinds, the :class:`PolicySpec` record, and every layout
the compiled agents share (the slots of a search agent's parameter row, the words of the packed
weights of ``net`` and of the learned value).

Every other module of ``agents/`` reads these names from here, and this module imports nothing
of ``agents/`` (only NumPy), so the modules above it form no import circle
(``tests/test_agents_layers.py``; the layers: ``docs/architecture.md``).

**Kinds.** A seat's policy is an ``int64`` kind in the compiled loop: below :data:`K_NET` the
game's own policies (its ``act``), :data:`K_NET` the learned policy (:mod:`agents.net`), from
:data:`SEARCH_BASE` the search agents (:mod:`agents.search`), from :data:`USER_KIND` the user
policies of a table (:mod:`agents.loop`).

**A search agent's parameter row** (``float64``, :data:`ROLLOUT_AT` + the game's
``PARAMS_WIDTH``): ``[H_SIMS .. H_PRIOR]`` the header (:data:`N_HEADER` slots), then
:data:`N_VALUE` leaf-value slots from :data:`LEAF_VALUE_AT` (the game's ``leaf_value`` weights;
the last four, which no game's ``leaf_value`` reads, hold inference's and the learned value's
settings), then from :data:`ROLLOUT_AT` the rollout policy's own parameter row.

**Packed weights** (:func:`agents.net.pack`, :func:`agents.value.pack_value`): a ``float64``
blob whose header words (``NET_*``, ``NET2_*``, ``VALUE_*`` below: the index of each word in
the header) give the sizes and where each section of 4-byte values starts; the table's ``aux``
array ends ``[value blob..., len(value blob), net blob..., len(net blob)]``
(:func:`agents.policy.table_aux`).

**By name.** Compiled code reads a row or a blob through one unpacker each, which gives its
fields by name as a named tuple of scalars and array views (no copy): :func:`search_settings`
(:class:`SearchSettings`), :func:`net_weights` (:class:`NetWeights`, ``net`` format 1),
:func:`feature_net_weights` (:class:`FeatureNetWeights`, format 2) and :func:`value_weights`
(:class:`ValueWeights`); no other compiled code indexes the slots or the header words (the
Python code that builds the rows and the blobs writes them through the names above).
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass

import numpy as np
from numba import njit

__all__ = [
    "USER_KIND", "K_NET", "SEARCH_BASE", "K_PIMC", "K_ISMCTS", "K_NET_PIMC", "K_NET_ISMCTS",
    "PolicySpec",
    "H_SIMS", "H_ROLLOUT", "H_HORIZON", "H_EXPLORE", "H_MAX_STEPS", "H_PEEK", "H_WHOLE_TREE",
    "H_PRIOR", "N_HEADER", "N_VALUE", "LEAF_VALUE_AT", "H_INFER", "H_INFER_WORLDS", "H_INFER_TEMP",
    "H_LEARNED_VALUE", "ROLLOUT_AT",
    "NET_MAGIC", "NET2_MAGIC", "NET_HEADER", "NET_T", "NET_A", "NET_H1", "NET_H2", "NET_C",
    "NET_R", "NET_PRIOR", "NET_INTS_AT", "NET_INTS_WORDS", "NET_FLOATS_AT", "NET_FLOATS_WORDS",
    "NET2_S", "NET2_F", "NET2_H1", "NET2_H2",
    "VALUE_MAGIC", "VALUE_HEADER", "VALUE_T", "VALUE_H1", "VALUE_H2", "VALUE_FLOATS_AT",
    "VALUE_FLOATS_WORDS",
    "SearchSettings", "search_settings", "NetWeights", "net_weights", "FeatureNetWeights",
    "feature_net_weights", "ValueWeights", "value_weights",
]

# ---- policy kinds ---------------------------------------------------------------------------
USER_KIND = 1000
"""Kinds ``>= USER_KIND`` in the compiled loop call user policy ``kind - USER_KIND``."""
K_NET = 90
"""The dispatch kind of ``net`` in every game (below the search kinds, above the games' own)."""
SEARCH_BASE = 100
"""Policy kinds ``>= SEARCH_BASE`` are search agents (dispatched by :mod:`agents.dispatch`)."""
K_PIMC, K_ISMCTS = 100, 101
"""Determinized Monte Carlo (``pimc*``) and information-set MCTS (``ismcts*``)."""
K_NET_PIMC = 102
"""The search guided by the learned policy ``net`` (``net-search*``,
:func:`agents.search.net_pimc`): PIMC with ``net`` as rollout policy (``params[H_ROLLOUT] =
K_NET``) and its action probabilities as a prior (``params[H_PRIOR]``)."""
K_NET_ISMCTS = 103
"""ISMCTS guided by ``net`` (``net-ismcts``, :func:`agents.search.net_ismcts`): ``net``'s action
probabilities as a PUCT prior at the root (``params[H_PRIOR]``)."""


@dataclass(frozen=True)
class PolicySpec:
    """A registered policy of one game (the registry: :mod:`agents.policy`).

    ``game``: game name; ``name``: registry name (``"heuristic"``); ``kind``: the dispatch
    number of the game's ``act``; ``default_params``: its default ``float64`` vector;
    ``param_names``: one name per entry (tuning, ``name:key=value`` overrides); ``label``: one
    line on what it does; ``sees_hidden``: it reads cards its seat may not see (an analysis
    upper bound such as River Rats' ``peek``, never fair play); ``search``: a search agent
    (slow per decision, built on ``determinize``)."""

    game: str
    name: str
    kind: int
    default_params: tuple[float, ...]
    param_names: tuple[str, ...]
    label: str = ""
    sees_hidden: bool = False
    search: bool = False

    def params_array(self) -> np.ndarray:
        """``default_params`` as a ``float64`` array."""
        return np.array(self.default_params, dtype=np.float64)


# ---- a search agent's parameter row (agents.search) -----------------------------------------
H_SIMS, H_ROLLOUT, H_HORIZON, H_EXPLORE, H_MAX_STEPS, H_PEEK, H_WHOLE_TREE = 0, 1, 2, 3, 4, 5, 6
"""Header slots: worlds (PIMC) or simulations (ISMCTS) per decision; the rollout policy's kind;
the horizon (0 hand, 1 round, 2 game); the exploration constant; the most rollout decisions (0
the game's bound, below 0 none); the peek flag; the whole-tree flag (ISMCTS)."""
H_PRIOR = 7
"""Header slot: the weight of ``net``'s prior (the guided searches; 0 elsewhere)."""
N_HEADER = 8
"""Header slots of a search agent's parameter row."""
N_VALUE = 16
"""Leaf-value slots of a search agent's parameter row."""
LEAF_VALUE_AT = N_HEADER
"""``params[LEAF_VALUE_AT:LEAF_VALUE_AT + N_VALUE]``: the leaf-value weights."""
H_INFER = LEAF_VALUE_AT + N_VALUE - 4
"""In :func:`agents.search.net_pimc`: inference over hidden cards (:mod:`agents.inference`)
looks at the other players' decisions among this many last decisions of the game; 0 = no
inference (the worlds from ``determinize``). One of the leaf-value slots no game's
``leaf_value`` reads."""
H_INFER_WORLDS = LEAF_VALUE_AT + N_VALUE - 3
"""In :func:`agents.search.net_pimc` with inference: candidate worlds scored per decision (at
least the search's world count)."""
H_INFER_TEMP = LEAF_VALUE_AT + N_VALUE - 2
"""In :func:`agents.search.net_pimc` with inference: the exponent of the likelihood (1 = Bayes'
rule, below 1 a tempered one)."""
H_LEARNED_VALUE = LEAF_VALUE_AT + N_VALUE - 1
"""The last leaf-value slot (no game's ``leaf_value`` reads it): in the guided searches, the
scale of the learned value (:mod:`agents.value`) that replaces the game's leaf value; 0 keeps
the game's own."""
ROLLOUT_AT = N_HEADER + N_VALUE
"""``params[ROLLOUT_AT:]``: the rollout policy's parameter vector."""

SearchSettings = namedtuple("SearchSettings", (
    "simulations", "rollout_kind", "horizon", "exploration", "max_rollout", "peek",
    "whole_tree", "prior_weight", "leaf_weights", "infer_window", "infer_worlds",
    "infer_temperature", "learned_value", "rollout_params"))
"""A search agent's parameter row by name (:func:`search_settings`): the ``float64`` values of
the slots ``H_SIMS``, ``H_ROLLOUT``, ``H_HORIZON``, ``H_EXPLORE``, ``H_MAX_STEPS``, ``H_PEEK``,
``H_WHOLE_TREE``, ``H_PRIOR``; ``leaf_weights`` the view
``params[LEAF_VALUE_AT:LEAF_VALUE_AT + N_VALUE]``; the values of ``H_INFER``,
``H_INFER_WORLDS``, ``H_INFER_TEMP``, ``H_LEARNED_VALUE``; and ``rollout_params`` the view
``params[ROLLOUT_AT:]``."""


@njit(cache=True)
def search_settings(params):
    """The :class:`SearchSettings` of a search agent's parameter row ``params`` (``float64``,
    at least :data:`ROLLOUT_AT` long): what the compiled search reads, unpacked once per call of
    a search (views into ``params``, no copy)."""
    return SearchSettings(params[H_SIMS], params[H_ROLLOUT], params[H_HORIZON],
                          params[H_EXPLORE], params[H_MAX_STEPS], params[H_PEEK],
                          params[H_WHOLE_TREE], params[H_PRIOR],
                          params[LEAF_VALUE_AT:LEAF_VALUE_AT + N_VALUE],
                          params[H_INFER], params[H_INFER_WORLDS], params[H_INFER_TEMP],
                          params[H_LEARNED_VALUE], params[ROLLOUT_AT:])

# ---- packed weights of net (agents.net) -----------------------------------------------------
NET_MAGIC = 7.0431
"""Word 0 of a format-1 ``net`` blob (the network on the observation tensor)."""
NET2_MAGIC = 7.0432
"""Word 0 of a format-2 ``net`` blob (the network on the game's action features)."""
NET_HEADER = 16
"""Header words of a ``net`` blob (either format)."""
NET_T, NET_A, NET_H1, NET_H2, NET_C, NET_R, NET_PRIOR = 1, 2, 3, 4, 5, 6, 7
"""Format-1 header words: tensor size, distinct actions, the two hidden widths, categorical
positions, first-layer rows, the prior policy's kind (-1: none)."""
NET_INTS_AT, NET_INTS_WORDS = 8, 9
"""Format-1 header words: where the ``int32`` section starts (from the blob's start) and its
length, in ``float64`` words."""
NET_FLOATS_AT, NET_FLOATS_WORDS = 10, 11
"""Header words of either format: where the ``float32`` section starts and its length, in
``float64`` words."""
NET2_S, NET2_F, NET2_H1, NET2_H2 = 1, 2, 3, 4
"""Format-2 header words: state features, per-action features, the two hidden widths."""

# ---- packed weights of the learned value (agents.value) -------------------------------------
VALUE_MAGIC = 7.0531
"""Word 0 of a value blob."""
VALUE_HEADER = 8
"""Header words of a value blob."""
VALUE_T, VALUE_H1, VALUE_H2, VALUE_FLOATS_AT, VALUE_FLOATS_WORDS = 1, 2, 3, 4, 5
"""Value header words: tensor size, the two hidden widths, where the ``float32`` section starts
and its length in ``float64`` words."""


# ---- the packed weights as named arrays (read in compiled code) -----------------------------
NetWeights = namedtuple("NetWeights", (
    "T", "A", "H1", "H2", "C", "prior", "feat_row", "cat_pos", "cat_lo", "cat_n", "cat_off",
    "feat_scale", "W1", "b1", "W2", "b2", "W3", "b3", "wh", "bh"))
"""A format-1 ``net`` blob's sizes (``int64``: tensor size ``T``, distinct actions ``A``, hidden
widths ``H1``, ``H2``, categorical positions ``C``; ``prior`` the prior policy's kind or -1)
and arrays (views into the blob, no copy): ``int32`` ``feat_row (T + 2,)``, ``cat_pos``,
``cat_lo``, ``cat_n``, ``cat_off`` ``(C,)``; ``float32`` ``feat_scale (T + 2,)``, ``W1 (R, H1)``,
``b1 (H1,)``, ``W2 (H1, H2)``, ``b2 (H2,)``, ``W3 (A, H2)``, ``b3 (A,)``, ``wh (H2,)`` and the
scalar ``bh`` (their meaning: :data:`agents.net.ARRAYS`)."""


@njit(cache=True)
def net_weights(aux, base):
    """The :class:`NetWeights` of the format-1 ``net`` blob that starts at ``aux[base]``
    (``aux``: ``float64``; the blob: :func:`agents.net.pack`)."""
    T = np.int64(aux[base + NET_T])
    H1 = np.int64(aux[base + NET_H1])
    H2 = np.int64(aux[base + NET_H2])
    C = np.int64(aux[base + NET_C])
    R = np.int64(aux[base + NET_R])
    A = np.int64(aux[base + NET_A])
    o = base + np.int64(aux[base + NET_INTS_AT])
    ints = aux[o:o + np.int64(aux[base + NET_INTS_WORDS])].view(np.int32)
    o = base + np.int64(aux[base + NET_FLOATS_AT])
    f = aux[o:o + np.int64(aux[base + NET_FLOATS_WORDS])].view(np.float32)
    i0 = T + 2
    W1 = f[i0:i0 + R * H1].reshape((R, H1))
    i1 = i0 + R * H1
    b1 = f[i1:i1 + H1]
    i2 = i1 + H1
    W2 = f[i2:i2 + H1 * H2].reshape((H1, H2))
    i3 = i2 + H1 * H2
    b2 = f[i3:i3 + H2]
    i4 = i3 + H2
    W3 = f[i4:i4 + A * H2].reshape((A, H2))
    i5 = i4 + A * H2
    b3 = f[i5:i5 + A]
    i6 = i5 + A
    return NetWeights(T, A, H1, H2, C, np.int64(aux[base + NET_PRIOR]), ints[:T + 2],
                      ints[T + 2:T + 2 + C], ints[T + 2 + C:T + 2 + 2 * C],
                      ints[T + 2 + 2 * C:T + 2 + 3 * C], ints[T + 2 + 3 * C:T + 2 + 4 * C],
                      f[:i0], W1, b1, W2, b2, W3, b3, f[i6:i6 + H2], f[i6 + H2])


FeatureNetWeights = namedtuple("FeatureNetWeights", (
    "S", "F", "H1", "H2", "W1", "b1", "W2t", "b2", "w3", "b3", "wl"))
"""A format-2 ``net`` blob's sizes (``int64``: state features ``S``, per-action features ``F``,
hidden widths ``H1``, ``H2``) and ``float32`` arrays (views into the blob): ``W1 (S + F, H1)``,
``b1 (H1,)``, ``W2t (H2, H1)`` (``W2`` transposed), ``b2 (H2,)``, ``w3 (H2,)``, the scalar
``b3`` and the linear skip ``wl (S + F,)`` (their meaning: :data:`agents.net.ARRAYS2`)."""


@njit(cache=True)
def feature_net_weights(aux, base):
    """The :class:`FeatureNetWeights` of the format-2 ``net`` blob that starts at ``aux[base]``
    (``aux``: ``float64``; the blob: :func:`agents.net.pack`)."""
    S = np.int64(aux[base + NET2_S])
    F = np.int64(aux[base + NET2_F])
    H1 = np.int64(aux[base + NET2_H1])
    H2 = np.int64(aux[base + NET2_H2])
    o = base + np.int64(aux[base + NET_FLOATS_AT])
    f = aux[o:o + np.int64(aux[base + NET_FLOATS_WORDS])].view(np.float32)
    D = S + F
    i1 = D * H1
    i2 = i1 + H1
    i3 = i2 + H1 * H2
    i4 = i3 + H2
    i5 = i4 + H2
    return FeatureNetWeights(S, F, H1, H2, f[:i1].reshape((D, H1)), f[i1:i2],
                             f[i2:i3].reshape((H2, H1)), f[i3:i4], f[i4:i5], f[i5],
                             f[i5 + 1:i5 + 1 + D])


ValueWeights = namedtuple("ValueWeights", ("T", "H1", "H2", "W1", "b1", "W2t", "b2", "w3",
                                           "b3"))
"""A value blob's sizes (``int64``: tensor size ``T``, hidden widths ``H1``, ``H2``) and
``float32`` arrays (views into the blob): ``W1 (T + 1, H1)`` (row ``T``: the player count),
``b1 (H1,)``, ``W2t (H2, H1)`` (``W2`` transposed), ``b2 (H2,)``, ``w3 (H2,)`` and the scalar
``b3`` (:data:`agents.value.ARRAYS`)."""


@njit(cache=True)
def value_weights(aux, base):
    """The :class:`ValueWeights` of the value blob that starts at ``aux[base]`` (``aux``:
    ``float64``; the blob: :func:`agents.value.pack_value`)."""
    T = np.int64(aux[base + VALUE_T])
    H1 = np.int64(aux[base + VALUE_H1])
    H2 = np.int64(aux[base + VALUE_H2])
    o = base + np.int64(aux[base + VALUE_FLOATS_AT])
    f = aux[o:o + np.int64(aux[base + VALUE_FLOATS_WORDS])].view(np.float32)
    i1 = (T + 1) * H1
    i2 = i1 + H1
    i3 = i2 + H1 * H2
    i4 = i3 + H2
    i5 = i4 + H2
    return ValueWeights(T, H1, H2, f[:i1].reshape((T + 1, H1)), f[i1:i2],
                        f[i2:i3].reshape((H2, H1)), f[i3:i4], f[i4:i5], f[i5])
