"""The learned value of every game: a small network that reads one seat's information-state
tensor and predicts that seat's return, the leaf value of the guided search (``net-search``
with ``learned_value``; :func:`agents.search.net_pimc`).

**What it computes.** ``x = observation_tensor(state, seat)`` (``float32 (T,)``, ``T =
TENSOR_SIZE``, :mod:`engines.protocol`) and the player count at position ``T``; ``h1 =
relu(b1 + sum over the nonzero x[i] of x[i] W1[i])`` (the tensor is mostly one-hots, so the
first layer is a sum of a few dozen rows; the trainer's input standardization is folded into
``W1`` and ``b1``), ``h2 = relu(W2 h1 + b2)``, ``v = w3 . h2 + b3``: the expected return of the
seat (the core's ``returns``: River Rats +1 won / -1 lost) when every seat goes on playing the
policy whose games trained it (``net``). It is the value network of Silver et al. 2016
("Mastering the game of Go with deep neural networks and tree search": a regression of game
outcomes on positions of self-play games, one position or a few per game so that the samples
are not all alike) on an information state instead of a full position.

**As a leaf value** (:func:`learned_leaf`): in a determinized world every seat's value is the
network on *that seat's* tensor, so the world's hidden cards reach the value through the other
seats' views; a cooperative game (the description's ``cooperative``) gives every seat the mean
of the seats' values (one team, several views of it), a competitive game each seat's value
relative to the mean. A finished game scores its ``returns``. The scale (``params`` of the
search) puts it on the units of the game's hand-written leaf value.

**Weights** live in ``agents/weights/<game>_value.npz`` with a model card ``<game>_value.md``:
the arrays of :data:`ARRAYS` and a ``meta`` JSON string (``format`` :data:`FORMAT`, ``game``,
``tensor_size``, ``layout``: :func:`agents.net.layout_signature`'s hash of the tensor code, so
weights trained on another tensor are refused). They reach the compiled search in the table's
``aux`` array just before ``net``'s blob: ``aux = [game data..., value blob..., len(value
blob), net blob..., len(net blob)]`` (:func:`agents.policy.table_aux`; the blob's header
words: :mod:`agents.layout`), a zero length when the process has no value file.
"""

from __future__ import annotations

import importlib
from pathlib import Path

import numpy as np
from numba import literally, njit, types
from numba.extending import overload

from agents.layout import (
    VALUE_FLOATS_AT,
    VALUE_FLOATS_WORDS,
    VALUE_H1,
    VALUE_H2,
    VALUE_HEADER,
    VALUE_MAGIC,
    VALUE_T,
    value_weights,
)
from agents.net import WeightsFiles, float32_words, layout_signature, read_weights_file
from agents.stack_arrays import stack_f32
from engines.protocol import GAME_NAMES, normalize_game_name
from engines.protocol.kernels import (
    g_is_terminal,
    g_num_players,
    g_observation_tensor,
    g_returns,
)

__all__ = ["FORMAT", "ARRAYS", "value_path", "use_value_weights", "load_value", "pack_value",
           "value_tail", "has_value", "value_of", "learned_leaf", "numpy_value"]

FORMAT = "boardlab.value/1"
ARRAYS = ("W1", "b1", "W2", "b2", "w3", "b3")
"""The arrays of a value weights file: ``W1 (T + 1, H1)`` (row ``T``: the player count),
``b1 (H1,)``, ``W2 (H1, H2)``, ``b2 (H2,)``, ``w3 (H2,)``, ``b3 (1,)``, all ``float32``, the
input standardization folded in."""
_H_STACK = 256
"""Hidden layers up to this width keep their units on the stack (no allocation per leaf)."""


def value_path(game: str) -> Path:
    """The value weights file of ``game`` in this process: the one given to
    :func:`use_value_weights`, else the shipped ``agents/weights/<game>_value.npz``."""
    return _FILES.path(game)


def use_value_weights(game: str, path=None) -> None:
    """Make the learned value of ``game`` use weights file ``path`` in this process (None: the
    shipped file again). Checks the file now (:func:`load_value`: ``ValueError`` in one line).
    """
    _FILES.use(game, path)


def load_value(path, game: str) -> dict:
    """The arrays and ``meta`` (a dict) of value weights file ``path`` for ``game``. Raises
    ``ValueError`` in one line naming the file and what is wrong: not there, not a weights
    file, another format, game, tensor size or tensor layout, badly shaped or non-finite
    arrays."""
    game = normalize_game_name(game)
    p = Path(path)
    data, meta = read_weights_file(p, "value weights", "boardlab learn value-train")
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        got = meta.get("format") if isinstance(meta, dict) else None
        raise ValueError(f"value weights {p}: format {got!r}, expected {FORMAT!r}")
    want = layout_signature(game)
    for key, what in (("game", "game"), ("tensor_size", "tensor size"),
                      ("layout", "tensor layout")):
        if meta.get(key) != want[key]:
            raise ValueError(f"value weights {p}: trained for {what} {meta.get(key)!r}, but "
                             f"{game} has {want[key]!r}")
    missing = [a for a in ARRAYS if a not in data]
    if missing:
        raise ValueError(f"value weights {p}: missing arrays {', '.join(missing)}")
    T = want["tensor_size"]
    W1, W2 = data["W1"], data["W2"]
    ok = (W1.ndim == 2 and W2.ndim == 2 and W1.shape[0] == T + 1 and W2.shape[0] == W1.shape[1]
          and data["b1"].shape == (W1.shape[1],) and data["b2"].shape == (W2.shape[1],)
          and data["w3"].shape == (W2.shape[1],) and data["b3"].shape == (1,))
    if not ok:
        raise ValueError(f"value weights {p}: arrays of inconsistent shapes (W1 {W1.shape}, "
                         f"W2 {W2.shape}; expected W1 ({T + 1}, H1))")
    if not all(np.all(np.isfinite(data[k])) for k in ARRAYS):
        raise ValueError(f"value weights {p}: non-finite weights")
    data["meta"] = meta
    return data


def pack_value(data: dict) -> np.ndarray:
    """The ``float64`` blob that :func:`value_of` reads: a header of ``VALUE_HEADER`` floats
    (magic, ``T``, ``H1``, ``H2``, offset and length in words of the ``float32`` section; the
    words named in :mod:`agents.layout`) then ``W1``, ``b1``, ``W2`` transposed (``(H2, H1)``:
    each second-layer unit one contiguous row), ``b2``, ``w3``, ``b3`` as ``float32``, an even
    count viewed as ``float64`` words."""
    flts = float32_words(data, ARRAYS)
    head = np.zeros(VALUE_HEADER)
    W1, W2 = data["W1"], data["W2"]
    head[0] = VALUE_MAGIC
    head[VALUE_T], head[VALUE_H1], head[VALUE_H2] = W1.shape[0] - 1, W1.shape[1], W2.shape[1]
    head[VALUE_FLOATS_AT], head[VALUE_FLOATS_WORDS] = VALUE_HEADER, flts.size
    return np.concatenate([head, flts])


_FILES = WeightsFiles("_value", load_value, pack_value)


def has_value(game: str) -> bool:
    """True when this process has a usable value weights file for ``game``."""
    return _FILES.blob(game) is not None


def value_tail(game: str) -> np.ndarray:
    """``[blob..., len(blob)]`` of this process's value weights of ``game`` (``[0.0]``
    without a usable file): the part of the table's ``aux`` that :func:`value_of` reads,
    placed by :func:`agents.policy.table_aux` just before ``net``'s blob."""
    b = _FILES.blob(game)
    tail = np.zeros(0) if b is None else b
    return np.concatenate([tail, np.array([float(tail.size)])])


@njit(cache=True)
def _value_base(aux):
    """The start of the value blob in ``aux`` (module docstring), or -1 without one."""
    m = aux.shape[0]
    if m == 0:
        return -1
    end = m - 1 - np.int64(aux[m - 1])  # the net blob's start (its length is the last word)
    if end < 1 or aux[end - 1] <= 0.0:
        return -1
    base = end - 1 - np.int64(aux[end - 1])
    if base < 0 or aux[base] != VALUE_MAGIC:
        return -1
    return base


@njit(cache=True, fastmath=True)
def _forward(x, n_players, wt):
    """The network (module docstring) on the tensor ``x`` (``float32 (T,)``) with ``n_players``
    players, weights ``wt`` (:class:`agents.layout.ValueWeights`); returns ``float64``."""
    T, H1, H2 = wt.T, wt.H1, wt.H2
    h1 = stack_f32(_H_STACK)
    if H1 > _H_STACK:
        h1 = np.empty(H1, dtype=np.float32)
    npl = np.float32(n_players)
    for k in range(H1):
        h1[k] = wt.b1[k] + npl * wt.W1[T, k]
    for i in range(T):
        xi = x[i]
        if xi != 0.0:
            for k in range(H1):
                h1[k] += xi * wt.W1[i, k]
    for k in range(H1):
        h1[k] = max(h1[k], np.float32(0.0))
    z = np.float32(wt.b3)
    for k in range(H2):
        t = wt.b2[k]
        for i in range(H1):
            t += h1[i] * wt.W2t[k, i]
        z += wt.w3[k] * max(t, np.float32(0.0))
    return np.float64(z)


@njit(cache=True)
def value_of(game, s, seat, aux, x):
    """The learned value (module docstring) of ``seat`` in state ``s``: its expected return,
    ``float64``; ``x`` is ``float32`` scratch of the game's ``TENSOR_SIZE``; 0.0 when ``aux``
    holds no value blob. Reads only ``seat``'s information state. ``game``: literal game id;
    raises nothing (compiled)."""
    literally(game)
    base = _value_base(aux)
    if base < 0:
        return 0.0
    g_observation_tensor(game, s, seat, x)
    return _forward(x, g_num_players(game, s), value_weights(aux, base))


def g_team_mode(game):
    """1 for a cooperative game (its description's ``cooperative``), 0 for a competitive
    one: a compile-time constant of the literal game id."""


@overload(g_team_mode, jit_options={"cache": True})
def _ov_team_mode(game):
    if not isinstance(game, types.IntegerLiteral):
        return None
    d = importlib.import_module(f"engines.{GAME_NAMES[game.literal_value]}.description")
    team = 1 if d.DESCRIPTION.cooperative else 0

    def impl(game):
        return team
    return impl


@njit(cache=True)
def learned_leaf(game, w, aux, scale, x, out):
    """Each seat's learned leaf value of world ``w`` into ``out`` (``float64 (MAX_PLAYERS,)``,
    seats beyond the player count 0), times ``scale``: a finished game its ``returns``, else
    :func:`value_of` per seat, the mean for every seat in a cooperative game, each seat's
    value minus the mean in a competitive one (module docstring). ``x``: ``float32`` scratch of
    ``TENSOR_SIZE``. Returns False (``out`` untouched) when ``aux`` holds no value blob."""
    literally(game)
    base = _value_base(aux)
    if base < 0:
        return False
    n = g_num_players(game, w)
    if g_is_terminal(game, w):
        g_returns(game, w, out)
    else:
        wt = value_weights(aux, base)
        for q in range(n):
            g_observation_tensor(game, w, q, x)
            out[q] = _forward(x, n, wt)
    tot = 0.0
    for q in range(n):
        tot += out[q]
    team = g_team_mode(game)
    for q in range(out.shape[0]):
        if q >= n:
            out[q] = 0.0
        elif team == 1:
            out[q] = scale * tot / n
        else:
            out[q] = scale * (out[q] - tot / n)
    return True


def numpy_value(data: dict, x: np.ndarray, n_players) -> np.ndarray:
    """The same network in numpy (the reference of the compiled :func:`_forward`): ``x``
    ``float32 (N, T)`` tensors, ``n_players`` ``(N,)``; returns ``float64 (N,)``."""
    x = np.asarray(x, dtype=np.float32)
    xin = np.concatenate([x, np.asarray(n_players, dtype=np.float32).reshape(-1, 1)], axis=1)
    h1 = np.maximum(xin @ data["W1"] + data["b1"], 0.0)
    h2 = np.maximum(h1 @ data["W2"] + data["b2"], 0.0)
    return (h2 @ data["w3"] + data["b3"][0]).astype(np.float64)

