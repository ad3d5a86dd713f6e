"""The learned policy ``net`` of every game: a small network on the acting player's
information-state tensor, masked to the legal actions, run compiled inside the one game loop.

**What it computes.** ``x = observation_tensor(state, player)`` (``float32 (TENSOR_SIZE,)``,
:mod:`engines.protocol`) plus the player count and the choice of a *prior* policy (the game's
``heuristic``, which also reads only the player's information), then ``h1 = relu(b1 + sum of W1
rows of the active features)``, ``h2 = relu(W2 h1 + b2)``, and a logit ``W3[a] . h2 + b3[a]``
for each legal action ``a`` only, plus a learned gate ``wh . h2 + bh`` on the prior's choice (a
residual policy on top of the heuristic: the network learns where the search teacher plays
otherwise; the gate's bias is calibrated after training, :mod:`experiments.learn.calibrate`);
the policy plays the legal action of the highest logit (ties to the smaller id). A decision with
one legal action is played without the network. The tensor is mostly zeros and one-hots, so the
first layer is a sum of weight rows (an embedding bag): a 0/1 or numeric position ``i`` that is
nonzero adds ``x[i] * scale[i] * W1[row[i]]``; a small-integer position (a phase, a card id, a
count; found in the training data) is one-hot encoded: it adds the row ``cat_off[j] + clip(x[i]
- cat_lo[j], 0, cat_n[j] - 1)`` whatever its value, zero included. The player count is such a
position (index ``TENSOR_SIZE``), so one model serves every player count; the prior's choice is
another (index ``TENSOR_SIZE + 1``, an action id). The layout is the one the training code
builds (:mod:`experiments.learn.model`), and the compiled forward pass equals its JAX forward
pass (tested).

**Weights** live in ``agents/weights/<game>.npz`` (package data, with a model card ``<game>.md``
beside them): the arrays of :data:`ARRAYS` and a ``meta`` JSON string (``format``
:data:`FORMAT`, ``game``, ``tensor_size``, ``num_actions``, ``layout``: a hash of the game's
tensor code, :func:`layout_signature`; format 2 adds ``features``, a hash of the action
features' names and their module's ``FEATURES_VERSION``). :func:`load` refuses another game's
or another layout's file with one line naming the file and what differs. The weights reach
the compiled loop inside the table's ``aux`` array (:func:`agents.policy.table_aux`, on the
game's ``make_aux``): ``aux = [game data..., the learned value's part (:mod:`agents.value`),
blob..., len(blob)]``, the blob (:func:`pack`) a ``float64`` header of sizes and offsets (its
words: :mod:`agents.layout`) then the arrays, so a table loads them once and no Python runs per
decision. :func:`use_weights` points a process at another file (the training
pipeline's students).

The sources of the method: behaviour cloning of a search teacher, then DAgger rounds (Ross,
Gordon and Bagnell 2011, "A reduction of imitation learning and structured prediction to
no-regret online learning") where the student plays and the teacher labels; the expert
iteration view of Anthony, Tian and Barber 2017 ("Thinking fast and slow with deep learning
and tree search").
"""

from __future__ import annotations

import ast
import hashlib
import inspect
import json
from pathlib import Path

import numpy as np
from numba import literally, njit

from agents.contract import contract
from agents.game_hooks import g_act_base, g_action_features
from agents.layout import (
    K_NET,
    NET2_F,
    NET2_H1,
    NET2_H2,
    NET2_MAGIC,
    NET2_S,
    NET_A,
    NET_C,
    NET_FLOATS_AT,
    NET_FLOATS_WORDS,
    NET_H1,
    NET_H2,
    NET_HEADER,
    NET_INTS_AT,
    NET_INTS_WORDS,
    NET_MAGIC,
    NET_PRIOR,
    NET_R,
    NET_T,
    PolicySpec,
    feature_net_weights,
    net_weights,
)
from agents.stack_arrays import stack_f32, stack_f64
from engines.protocol.kernels import g_num_players, g_observation_tensor, g_sizes
from engines.protocol import core_of, normalize_game_name

__all__ = ["FORMAT", "ARRAYS", "FORMAT2", "ARRAYS2", "feature_sizes",
           "layout_signature", "weights_path", "use_weights", "load",
           "pack", "read_weights_file", "float32_words", "weights_blob", "net_spec",
           "check_available", "net_logits", "softmax", "net_act", "WEIGHTS_DIR"]

FORMAT = "boardlab.net/1"
ARRAYS = ("feat_row", "feat_scale", "cat_pos", "cat_lo", "cat_n", "cat_off", "W1", "b1", "W2",
          "b2", "W3", "b3", "wh", "bh")
"""The arrays of a weights file: ``feat_row`` ``int64 (T + 1,)`` the first-layer row of each
0/1 or numeric position (-1: categorical or unused), ``feat_scale`` ``float64 (T + 2,)``;
``cat_pos``, ``cat_lo``, ``cat_n``, ``cat_off`` ``int64 (C,)`` the categorical positions, their
lowest value, value count and first row; ``W1 (R, H1)``, ``b1 (H1,)``, ``W2 (H1, H2)``,
``b2 (H2,)``, ``W3 (NUM_DISTINCT_ACTIONS, H2)``, ``b3 (NUM_DISTINCT_ACTIONS,)``, ``wh (H2,)``
and ``bh (1,)`` the prior's gate (position ``T`` is the player count, ``T + 1`` the prior
policy's choice)."""
FORMAT2 = "boardlab.net/2"
ARRAYS2 = ("W1", "b1", "W2", "b2", "w3", "b3", "wl")
"""The arrays of a format-2 weights file (a network on the game's action features,
:mod:`agents.contract`): ``W1 (S + F, H1)``, ``b1 (H1,)``, ``W2 (H1, H2)``, ``b2 (H2,)``,
``w3 (H2,)``, ``b3 (1,)`` and the linear skip ``wl (S + F,)``; the logit of a legal action
with state features ``u`` and its own features ``v`` is ``w3 . relu(W2' relu(W1' [u, v] +
b1) + b2) + b3 + wl . [u, v]`` (the training code's input standardization folded in)."""
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
_FS_STACK = 256
_FA_STACK = 8192
_H_STACK = 256
_Z_STACK = 1024
"""Format 2's scratch arrays live on the stack (:mod:`agents.stack_arrays`: no allocation per
decision) up to these sizes (state features; legal actions x action features; hidden units;
the logits of :func:`net_act`), and on the heap beyond them."""


class WeightsFiles:
    """Which weights file each game's network uses in this process, and its packed blob,
    loaded once: ``agents/weights/<game><suffix>.npz`` unless :meth:`use` named another.
    ``load(path, game)`` reads and checks a file (``ValueError`` in one line), ``pack(data)``
    makes the blob the compiled code reads. One registry each for ``net`` (this module) and the
    learned value (:mod:`agents.value`)."""

    def __init__(self, suffix: str, load, pack):
        self.suffix, self._load, self._pack = suffix, load, pack
        self._override: dict[str, str] = {}
        self._blobs: dict[str, np.ndarray | None] = {}

    def path(self, game: str) -> Path:
        """The file of ``game`` in this process: the one given to :meth:`use`, else the
        shipped one."""
        game = normalize_game_name(game)
        return Path(self._override.get(game, WEIGHTS_DIR / f"{game}{self.suffix}.npz"))

    def use(self, game: str, path=None) -> None:
        """Use the file ``path`` for ``game`` in this process (None: the shipped file again);
        checks it now (``ValueError`` in one line, nothing changed)."""
        game = normalize_game_name(game)
        if path is not None:
            self._load(path, game)
        self._blobs.pop(game, None)
        if path is None:
            self._override.pop(game, None)
        else:
            self._override[game] = str(path)

    def blob(self, game: str) -> np.ndarray | None:
        """The packed weights of ``game`` (loaded once), or None without a usable file."""
        game = normalize_game_name(game)
        if game not in self._blobs:
            try:
                self._blobs[game] = self._pack(self._load(self.path(game), game))
            except ValueError:
                self._blobs[game] = None
        return self._blobs[game]


_FILES = WeightsFiles("", lambda path, game: load(path, game), lambda data: pack(data))


def feature_sizes(game: str) -> tuple[int, int]:
    """``(S, F)``: the number of state and of per-action features of ``game``'s action
    features hook (:mod:`agents.contract`, group "action features"), ``(0, 0)`` without it."""
    c = contract(game)
    return len(c.state_feature_names), len(c.action_feature_names)


def _code_tree(src: str) -> str:
    """The syntax tree of Python source ``src`` without its docstrings, as text (so a layout
    hash does not change with the documentation)."""
    tree = ast.parse(src)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if (isinstance(body, list) and body and isinstance(body[0], ast.Expr)
                and isinstance(getattr(body[0], "value", None), ast.Constant)
                and isinstance(body[0].value.value, str)):
            node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def layout_signature(game: str) -> dict:
    """``{"game", "tensor_size", "num_actions", "layout"}`` of ``game``: ``layout`` is a hash
    of the code of the core's ``observation_tensor``, ``information_state`` and ``observe``
    (their syntax trees without docstrings), so weights trained on another tensor are told
    apart even at the same size; plus ``features`` for a game with action features: a hash of
    the feature names and the features module's ``FEATURES_VERSION`` (:mod:`agents.contract`),
    not of its source, so a refactor keeps the weights and a change of what a feature computes
    bumps the version (caught by ``tests/learn/test_features_golden.py``)."""
    game = normalize_game_name(game)
    C = core_of(game)
    h = hashlib.sha256()
    for name in ("observation_tensor", "information_state", "observe"):
        fn = getattr(C, name)
        h.update(_code_tree(inspect.getsource(getattr(fn, "py_func", fn))).encode())
    out = {"game": game, "tensor_size": int(C.TENSOR_SIZE),
           "num_actions": int(C.NUM_DISTINCT_ACTIONS), "layout": h.hexdigest()[:16]}
    c = contract(game)
    if c.action_features is not None:
        names = "|".join(c.state_feature_names + ("/",) + c.action_feature_names)
        key = f"{names}|version={c.features_version}"
        out["features"] = hashlib.sha256(key.encode()).hexdigest()[:16]
    return out


def weights_path(game: str) -> Path:
    """The weights file ``net`` plays with in this process: the one given to
    :func:`use_weights`, else the shipped ``agents/weights/<game>.npz``."""
    return _FILES.path(game)


def use_weights(game: str, path=None) -> None:
    """Make ``net`` of ``game`` play with the weights file ``path`` in this process (None: the
    shipped file again). Checks the file now (:func:`load`: ``ValueError`` in one line)."""
    _FILES.use(game, path)


def load(path, game: str) -> dict:
    """The arrays and ``meta`` of weights file ``path`` for ``game``, as a dict (numpy arrays,
    ``meta`` a dict). Raises ``ValueError`` in one line naming the file and what is wrong: not
    there, not a weights file, another format, another game, another tensor size, action table
    or tensor layout, missing or badly shaped arrays, non-finite weights."""
    game = normalize_game_name(game)
    p = Path(path)
    data, meta = read_weights_file(p, "net weights", "boardlab learn train")
    if not isinstance(meta, dict) or meta.get("format") not in (FORMAT, FORMAT2):
        got = meta.get("format") if isinstance(meta, dict) else None
        raise ValueError(f"net weights {p}: format {got!r}, expected {FORMAT!r} or "
                         f"{FORMAT2!r}")
    want = layout_signature(game)
    if meta["format"] == FORMAT2:
        return _check2(p, game, data, meta, want)
    for key, what in (("game", "game"), ("tensor_size", "tensor size"),
                      ("num_actions", "action table size"), ("layout", "tensor layout")):
        if meta.get(key) != want[key]:
            raise ValueError(f"net weights {p}: trained for {what} {meta.get(key)!r}, but "
                             f"{game} has {want[key]!r}")
    missing = [a for a in ARRAYS if a not in data]
    if missing:
        raise ValueError(f"net weights {p}: missing arrays {', '.join(missing)}")
    T, A = want["tensor_size"], want["num_actions"]
    W1, W2, W3 = data["W1"], data["W2"], data["W3"]
    C = data["cat_pos"].shape[0] if data["cat_pos"].ndim == 1 else -1
    ok = (W1.ndim == 2 and W2.ndim == 2 and W3.ndim == 2 and data["feat_row"].shape == (T + 2,)
          and data["feat_scale"].shape == (T + 2,) and C >= 0
          and data["wh"].shape == (W2.shape[1],) and data["bh"].shape == (1,)
          and all(data[k].shape == (C,) for k in ("cat_lo", "cat_n", "cat_off"))
          and data["b1"].shape == (W1.shape[1],) and W2.shape[0] == W1.shape[1]
          and data["b2"].shape == (W2.shape[1],) and W3.shape == (A, W2.shape[1])
          and data["b3"].shape == (A,))
    if ok:
        rows = np.concatenate([data["feat_row"][data["feat_row"] >= 0],
                               data["cat_off"] + data["cat_n"] - 1, data["cat_off"]])
        ok = (rows.size == 0 or (rows.min() >= 0 and rows.max() < W1.shape[0])) and bool(
            np.all((data["cat_pos"] >= 0) & (data["cat_pos"] <= T + 1))
            and np.all(data["cat_n"] >= 1))
    if not ok:
        raise ValueError(f"net weights {p}: arrays of inconsistent shapes (W1 {W1.shape}, W2 "
                         f"{W2.shape}, W3 {W3.shape}; expected W3 ({A}, H2))")
    if not all(np.all(np.isfinite(data[k])) for k in ("W1", "b1", "W2", "b2", "W3", "b3",
                                                       "wh", "bh", "feat_scale")):
        raise ValueError(f"net weights {p}: non-finite weights")
    prior = meta.get("prior", "")
    if prior:
        if prior not in {sp.name for sp in contract(game).specs}:
            raise ValueError(f"net weights {p}: prior policy {prior!r} is not a policy of {game}")
    data["meta"] = meta
    return data


def _check2(p: Path, game: str, data: dict, meta: dict, want: dict) -> dict:
    """The checks of :func:`load` for a format-2 file (action features)."""
    if meta.get("game") != game:
        raise ValueError(f"net weights {p}: trained for game {meta.get('game')!r}, but this is "
                         f"{game!r}")
    if "features" not in want:
        raise ValueError(f"net weights {p}: format {FORMAT2!r} needs action features, which "
                         f"{game} does not offer")
    if meta.get("features") != want["features"]:
        raise ValueError(f"net weights {p}: trained for action features "
                         f"{meta.get('features')!r}, but {game} has {want['features']!r}")
    missing = [a for a in ARRAYS2 if a not in data]
    if missing:
        raise ValueError(f"net weights {p}: missing arrays {', '.join(missing)}")
    S, F = feature_sizes(game)
    W1, W2 = data["W1"], data["W2"]
    ok = (W1.ndim == 2 and W2.ndim == 2 and W1.shape[0] == S + F and W2.shape[0] == W1.shape[1]
          and data["b1"].shape == (W1.shape[1],) and data["b2"].shape == (W2.shape[1],)
          and data["w3"].shape == (W2.shape[1],) and data["b3"].shape == (1,)
          and data["wl"].shape == (S + F,))
    if not ok:
        raise ValueError(f"net weights {p}: arrays of inconsistent shapes (W1 {W1.shape}, W2 "
                         f"{W2.shape}; expected W1 ({S + F}, H1) for {S} + {F} features)")
    if not all(np.all(np.isfinite(data[k])) for k in ARRAYS2):
        raise ValueError(f"net weights {p}: non-finite weights")
    data["meta"] = meta
    return data


def read_weights_file(p: Path, what: str, command: str) -> tuple[dict, object]:
    """The arrays (a dict) and the parsed ``meta`` JSON of the npz weights file ``p``. Raises
    ``ValueError`` in one line, ``"<what> <p>: ..."``: no such file (train with ``command``),
    or not a weights file (unreadable, no ``meta``, bad JSON)."""
    if not p.is_file():
        raise ValueError(f"{what} {p}: no such file (train with `{command}`)")
    try:
        with np.load(p, allow_pickle=False) as z:
            data = {k: z[k] for k in z.files}
        meta = json.loads(str(data.pop("meta")))
    except Exception as exc:  # noqa: BLE001 - any unreadable file is the same one-line error
        raise ValueError(f"{what} {p}: not a weights file ({type(exc).__name__})") from None
    return data, meta


def float32_words(data: dict, names, transpose=("W2",)) -> np.ndarray:
    """The arrays ``names`` of ``data`` (those in ``transpose`` transposed) as one ``float32``
    run padded to an even count and viewed as ``float64`` words (the section of a blob that
    the compiled forward passes view back as ``float32``)."""
    flts = np.concatenate([np.asarray(data[k].T if k in transpose else data[k],
                                      dtype=np.float32).ravel() for k in names])
    if flts.size % 2:
        flts = np.concatenate([flts, np.zeros(1, dtype=np.float32)])
    return flts.view(np.float64)


_INTS = ("feat_row", "cat_pos", "cat_lo", "cat_n", "cat_off")
_FLOATS = ("feat_scale", "W1", "b1", "W2", "b2", "W3", "b3", "wh", "bh")


def pack(data: dict) -> np.ndarray:
    """The ``float64`` blob of loaded weights (:func:`load`) that the compiled
    :func:`net_logits` reads, its header words named in :mod:`agents.layout`. Format 2: a
    header (magic ``NET2_MAGIC``, ``S``, ``F``, ``H1``, ``H2``; the offset and length in words of
    the ``float32`` section) then the arrays of :data:`ARRAYS2` (``W2`` transposed, ``(H2,
    H1)``: each second-layer unit one contiguous row). Format 1: a header of ``NET_HEADER``
    floats (magic ``NET_MAGIC``, ``T``, ``A``, ``H1``, ``H2``, ``C``, ``R``, the prior policy's
    kind or -1, the offset and length in words of the ``int32`` section and of the ``float32``
    section), then the ``int32`` arrays
    (``feat_row``, ``cat_pos``, ``cat_lo``, ``cat_n``, ``cat_off``) and the ``float32`` arrays
    (``feat_scale``, ``W1``, ``b1``, ``W2``, ``b2``, ``W3``, ``b3``, ``wh``, ``bh``), each
    section an even number of 4-byte values viewed as ``float64`` words."""
    if data["meta"].get("format") == FORMAT2:
        # W2 goes in transposed ((H2, H1): each second-layer unit a contiguous dot product)
        flts = float32_words(data, ARRAYS2)
        W1, W2 = data["W1"], data["W2"]
        S, F = feature_sizes(data["meta"]["game"])
        head = np.zeros(NET_HEADER)
        head[0] = NET2_MAGIC
        head[NET2_S], head[NET2_F], head[NET2_H1], head[NET2_H2] = S, F, W1.shape[1], W2.shape[1]
        head[NET_FLOATS_AT], head[NET_FLOATS_WORDS] = NET_HEADER, flts.size
        return np.concatenate([head, flts])

    def section(names, dtype):
        flat = np.concatenate([np.asarray(data[k], dtype=dtype).ravel() for k in names])
        if flat.size % 2:
            flat = np.concatenate([flat, np.zeros(1, dtype=dtype)])
        return flat.view(np.float64)

    ints = section(_INTS, np.int32)
    flts = section(_FLOATS, np.float32)
    head = np.zeros(NET_HEADER)
    W1, W2 = data["W1"], data["W2"]
    head[0] = NET_MAGIC
    head[NET_T], head[NET_A] = data["feat_row"].shape[0] - 2, data["W3"].shape[0]
    head[NET_H1], head[NET_H2] = W1.shape[1], W2.shape[1]
    head[NET_C], head[NET_R] = data["cat_pos"].shape[0], W1.shape[0]
    prior = data["meta"].get("prior", "")
    head[NET_PRIOR] = -1.0
    if prior:
        game = data["meta"]["game"]
        head[NET_PRIOR] = next(sp.kind for sp in contract(game).specs if sp.name == prior)
    head[NET_INTS_AT], head[NET_INTS_WORDS] = NET_HEADER, ints.size
    head[NET_FLOATS_AT], head[NET_FLOATS_WORDS] = NET_HEADER + ints.size, flts.size
    return np.concatenate([head, ints, flts])


def weights_blob(game: str) -> np.ndarray | None:
    """The packed ``net`` weights of ``game`` in this process (:func:`pack`, loaded once), or
    None without a usable weights file (:func:`check_available` tells why); the table's ``aux``
    carries them (:func:`agents.policy.table_aux`)."""
    return _FILES.blob(game)


def check_available(game: str) -> None:
    """Raise the one-line ``ValueError`` of :func:`load` if ``net`` of ``game`` has no usable
    weights file in this process (called when a table seats ``net``)."""
    load(weights_path(game), game)


def net_spec(game: str) -> PolicySpec:
    """The :class:`agents.layout.PolicySpec` of ``net`` for ``game``: its parameter vector is
    the prior policy's (the game's ``heuristic``), whose choice the network sees."""
    h = next(sp for sp in contract(game).specs if sp.name == "heuristic")
    return PolicySpec(normalize_game_name(game), "net", K_NET, h.default_params,
                      tuple(f"prior_{x}" for x in h.param_names),
                      "learned policy: a network trained on pimc's decisions, with the "
                      "heuristic's choice as an input (agents/weights)")


@njit(cache=True, fastmath=True)
def _logits_features(game, s, player, legal, n_legal, params, aux, rng, out, base):
    """Format 2 of :func:`net_logits`: the network on the game's action features
    (:data:`ARRAYS2`), whose blob starts at ``aux[base]``. The state features' share of the
    first layer and of the linear skip is computed once per decision; each legal action adds
    the rows of its nonzero features."""
    literally(game)
    wt = feature_net_weights(aux, base)
    S, F, H1, H2 = wt.S, wt.F, wt.H1, wt.H2
    fs = stack_f32(_FS_STACK)
    if S > _FS_STACK:
        fs = np.empty(S, dtype=np.float32)
    fa_flat = stack_f32(_FA_STACK)
    if n_legal * F > _FA_STACK:
        fa_flat = np.empty(n_legal * F, dtype=np.float32)
    fa = fa_flat[:n_legal * F].reshape((n_legal, F))
    if not g_action_features(game, s, player, legal, n_legal, params, rng, fs[:S], fa):
        return False
    h0 = stack_f32(_H_STACK)
    h1 = stack_f32(_H_STACK)
    if H1 > _H_STACK:
        h0 = np.empty(H1, dtype=np.float32)
        h1 = np.empty(H1, dtype=np.float32)
    for k in range(H1):
        h0[k] = wt.b1[k]
    lin0 = np.float32(wt.b3)
    for i in range(S):
        x = fs[i]
        if x != 0.0:
            lin0 += x * wt.wl[i]
            for k in range(H1):
                h0[k] += x * wt.W1[i, k]
    for j in range(n_legal):
        z = lin0
        for k in range(H1):
            h1[k] = h0[k]
        for i in range(F):
            x = fa[j, i]
            if x != 0.0:
                z += x * wt.wl[S + i]
                for k in range(H1):
                    h1[k] += x * wt.W1[S + i, k]
        for k in range(H1):
            h1[k] = max(h1[k], np.float32(0.0))
        for k in range(H2):
            t = wt.b2[k]
            for i in range(H1):
                t += h1[i] * wt.W2t[k, i]
            z += wt.w3[k] * max(t, np.float32(0.0))  # no branch: the sign of t is unpredictable
        out[j] = z
    return True


@njit(cache=True)
def net_logits(game, s, player, legal, n_legal, params, aux, rng, out):
    """The logits of ``legal[:n_legal]`` for ``player`` in state ``s`` into ``out[:n_legal]``
    (``float64``), from the weights blob at the end of ``aux`` (:func:`pack`; module
    docstring); the prior policy (the game's heuristic, with ``params``) is asked on a copy of
    the seat memory ``rng``, so the seat's stream and memory are not changed. Returns False
    (``out`` untouched) when ``aux`` holds no weights. ``game``: literal game id."""
    literally(game)
    m = aux.shape[0]
    if m == 0 or aux[m - 1] <= 0.0:
        return False
    base = m - 1 - np.int64(aux[m - 1])
    if aux[base] == NET2_MAGIC:
        return _logits_features(game, s, player, legal, n_legal, params, aux, rng, out, base)
    wt = net_weights(aux, base)
    T, H1, H2, C = wt.T, wt.H1, wt.H2, wt.C
    sz = g_sizes(game)
    x = np.zeros(sz[7] + 2, dtype=np.float32)
    g_observation_tensor(game, s, player, x[:sz[7]])
    x[T] = g_num_players(game, s)
    hc = -1
    if wt.prior >= 0:
        mem = rng.copy()
        hc = g_act_base(game, wt.prior, s, player, legal, n_legal, params, aux, mem)
        x[T + 1] = hc
    h1 = wt.b1.copy()
    for j in range(C):
        v = np.int64(np.round(x[wt.cat_pos[j]])) - wt.cat_lo[j]
        nv = wt.cat_n[j]
        v = 0 if v < 0 else (nv - 1 if v >= nv else v)
        r = wt.cat_off[j] + v
        for k in range(H1):
            h1[k] += wt.W1[r, k]
    for i in range(T):
        xi = x[i]
        if xi != 0.0:
            r = wt.feat_row[i]
            if r >= 0:
                c = xi * wt.feat_scale[i]
                for k in range(H1):
                    h1[k] += c * wt.W1[r, k]
    h2 = wt.b2.copy()
    for i in range(H1):
        hi = h1[i]
        if hi > 0.0:
            for k in range(H2):
                h2[k] += hi * wt.W2[i, k]
    for k in range(H2):
        if h2[k] < 0.0:
            h2[k] = 0.0
    for j in range(n_legal):
        a = legal[j]
        z = np.float32(wt.b3[a])
        for k in range(H2):
            z += wt.W3[a, k] * h2[k]
        if a == hc:
            z += wt.bh
            for k in range(H2):
                z += wt.wh[k] * h2[k]
        out[j] = z
    return True


@njit(cache=True)
def softmax(z, n):
    """Turn the logits ``z[:n]`` (``float64``, e.g. :func:`net_logits`'s) into probabilities in
    place: ``exp(z - max z)``, normalized to sum 1. The prior of the guided searches and the
    likelihood of inference over hidden cards read ``net`` this way."""
    m = z[0]
    for i in range(1, n):
        m = max(m, z[i])
    tot = 0.0
    for i in range(n):
        z[i] = np.exp(z[i] - m)
        tot += z[i]
    for i in range(n):
        z[i] /= tot


@njit(cache=True)
def net_act(game, s, player, legal, n_legal, params, aux, rng):
    """The ``net`` policy (the signature of :mod:`agents.policy` plus the literal ``game``):
    the legal action of the highest logit (ties to the smaller id); a forced move without the
    network; ``legal[0]`` if ``aux`` carries no weights (a table that seats ``net`` checks the
    file first: :func:`check_available`). Reads only ``player``'s information state and leaves
    the seat memory ``rng`` unchanged."""
    literally(game)
    if n_legal == 1:
        return legal[0]
    z = stack_f64(_Z_STACK)  # no allocation per decision
    if n_legal > _Z_STACK:
        z = np.empty(n_legal, dtype=np.float64)
    if not net_logits(game, s, player, legal, n_legal, params, aux, rng, z):
        return legal[0]
    best = 0
    for j in range(1, n_legal):
        if z[j] > z[best]:
            best = j
    return legal[best]
