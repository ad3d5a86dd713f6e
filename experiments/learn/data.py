"""Data sets of the learned policies: the batch files of :mod:`experiments.learn.collect` read
back, and the feature map (which tensor positions are 0/1, numeric or small-integer
categories) that the model (:mod:`experiments.learn.model`) and the compiled inference
(:mod:`agents.net`) share.

A data set is a folder with ``meta.json`` (game, teacher, seeds, settings, tensor layout, code
version) and ``data/p<players>_b<batch>.npz`` files; :func:`load_dataset` concatenates any
number of folders of one game and layout (behaviour cloning plus DAgger rounds).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["Dataset", "load_dataset", "feature_map", "encode", "from_states", "MAX_CATEGORIES"]

MAX_CATEGORIES = 64
"""A non-0/1 integer position with at most this many values (zero included) is one-hot
encoded; others are numeric (scaled by their largest magnitude)."""


@dataclass
class Dataset:
    """Decisions of one game as flat arrays (``N`` decisions).

    ``x_idx`` ``int16`` / ``x_val`` ``float32`` the nonzero tensor entries, ``x_ptr``
    ``int64 (N + 1,)`` their offsets; ``legal`` ``int16 (N, L)`` legal actions (-1 padded),
    ``q`` ``float32 (N, L)`` the teacher's action values; ``dec`` ``int16 (N, 7)`` (player
    count, seat, teacher's choice, action played, legal count, step, the heuristic's choice);
    ``group`` ``int64 (N,)`` a game id unique across files (held-out splits are by game); ``meta``:
    each folder's ``meta.json``; for a game with action features, ``fs`` ``float32 (N, S)``
    the state features, ``fa`` ``float32 (M, F)`` the features of every legal action (decision
    ``i``'s rows ``fa_ptr[i]:fa_ptr[i + 1]``, its legal actions in order)."""

    x_idx: np.ndarray
    x_val: np.ndarray
    x_ptr: np.ndarray
    legal: np.ndarray
    q: np.ndarray
    dec: np.ndarray
    group: np.ndarray
    meta: list
    fs: np.ndarray | None = None
    fa: np.ndarray | None = None
    fa_ptr: np.ndarray | None = None

    def __post_init__(self):
        n = int(self.dec.shape[0])
        if self.fs is None:
            self.fs = np.zeros((n, 0), dtype=np.float32)
        if self.fa is None:
            self.fa = np.zeros((0, 0), dtype=np.float32)
        if self.fa_ptr is None:
            self.fa_ptr = np.zeros(n + 1, dtype=np.int64)
            if self.fa.shape[1] > 0:
                np.cumsum(self.dec[:, 4].astype(np.int64), out=self.fa_ptr[1:])

    @property
    def has_features(self) -> bool:
        """True if the decisions carry action features (:mod:`agents.contract`)."""
        return self.fa.shape[1] > 0

    def action_rows(self, rows: np.ndarray) -> np.ndarray:
        """``int64``: the rows of :attr:`fa` of decisions ``rows``, in order (each decision's
        legal actions in order)."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = self.fa_ptr[rows + 1] - self.fa_ptr[rows]
        start = np.cumsum(lens) - lens
        return np.repeat(self.fa_ptr[rows] - start, lens) + np.arange(int(lens.sum()))

    def action_features(self, rows: np.ndarray, L: int) -> np.ndarray:
        """``float32 (len(rows), L, F)``: the action features of decisions ``rows``, one row
        per legal action in order, zero padded to ``L`` actions."""
        rows = np.asarray(rows, dtype=np.int64)
        n = self.fa_ptr[rows + 1] - self.fa_ptr[rows]
        out = np.zeros((rows.size, L, self.fa.shape[1]), dtype=np.float32)
        out[np.arange(L)[None, :] < n[:, None]] = self.fa[self.action_rows(rows)]
        return out

    @property
    def n(self) -> int:
        """Number of decisions."""
        return int(self.dec.shape[0])

    @property
    def game(self) -> str:
        """The game of the data set."""
        return self.meta[0]["game"]

    def subset(self, rows: np.ndarray) -> Dataset:
        """The decisions ``rows`` (``int`` indices) as a new :class:`Dataset`."""
        rows = np.asarray(rows, dtype=np.int64)
        lens = self.x_ptr[rows + 1] - self.x_ptr[rows]
        ptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lens, out=ptr[1:])
        src = np.repeat(self.x_ptr[rows] - ptr[:-1], lens) + np.arange(ptr[-1])
        fa = None
        if self.has_features:
            fa = self.fa[self.action_rows(rows)]
        return Dataset(self.x_idx[src], self.x_val[src], ptr, self.legal[rows], self.q[rows],
                       self.dec[rows], self.group[rows], self.meta, self.fs[rows], fa)


def _layout_name(meta: dict) -> str:
    """The game, tensor layout and action-features hash of a data folder's ``meta.json``."""
    lay = meta["layout"]
    return (f"{meta['game']} layout {lay['layout']}"
            + (f" features {lay['features']}" if lay.get("features") else ""))


def load_dataset(folders, max_decisions: int | None = None, players=None) -> Dataset:
    """Read the batch files of one or more collection folders (same game and tensor layout)
    into a :class:`Dataset`, files in batch order (player counts interleaved), then folder
    order. ``max_decisions``: keep at most that many (the first files); ``players``: only
    these player counts (None: all). Raises ``ValueError`` naming a folder without data, or
    folders of different games or layouts."""
    folders = [Path(f) for f in ([folders] if isinstance(folders, (str, Path)) else folders)]
    metas, parts = [], {k: [] for k in ("x_idx", "x_val", "x_len", "legal", "q", "dec", "game",
                                        "fs", "fa")}
    groups = []
    total = 0
    base = 0
    L = 0
    for f in folders:
        mp = f / "meta.json"
        files = sorted((f / "data").glob("p*_b*.npz"),
                       key=lambda q: (q.stem.split("_b")[1], q.stem))
        if players is not None:
            files = [q for q in files if int(q.stem[1:].split("_")[0]) in set(players)]
        if not mp.is_file() or not files:
            raise ValueError(f"{f}: no collected data (meta.json and data/*.npz expected)")
        meta = json.loads(mp.read_text())
        if metas and (meta["game"], meta["layout"]) != (metas[0]["game"], metas[0]["layout"]):
            raise ValueError(f"{f}: data of {_layout_name(meta)}, not {_layout_name(metas[0])}")
        metas.append(meta)
        for path in files:
            with np.load(path) as z:
                part = {k: z[k] for k in z.files}
            if part["dec"].shape[0] == 0:
                continue
            n_dec = part["dec"].shape[0]
            part.setdefault("fs", np.zeros((n_dec, 0), dtype=np.float32))
            part.setdefault("fa", np.zeros((0, 0), dtype=np.float32))
            for k in parts:
                parts[k].append(part[k])
            groups.append(part["game"].astype(np.int64) + base)
            base += int(part["game"].max()) + 1
            L = max(L, int(part["dec"][:, 4].max()))
            total += part["dec"].shape[0]
            if max_decisions is not None and total >= max_decisions:
                break
    x_len = np.concatenate(parts["x_len"]).astype(np.int64)
    ptr = np.zeros(x_len.size + 1, dtype=np.int64)
    np.cumsum(x_len, out=ptr[1:])
    ds = Dataset(np.concatenate(parts["x_idx"]), np.concatenate(parts["x_val"]), ptr,
                 np.concatenate([a[:, :L] for a in parts["legal"]]),
                 np.concatenate([a[:, :L] for a in parts["q"]]), np.concatenate(parts["dec"]),
                 np.concatenate(groups), metas, np.concatenate(parts["fs"]),
                 np.concatenate(parts["fa"]) if parts["fa"][0].shape[1] else None)
    if max_decisions is not None and ds.n > max_decisions:
        ds = ds.subset(np.arange(max_decisions))
    return ds


def feature_map(ds: Dataset, tensor_size: int, max_players: int, n_actions: int,
                prior: bool = True) -> dict:
    """The feature map of :mod:`agents.net` from the values seen in ``ds``: ``feat_row``,
    ``feat_scale`` (``T + 2``), ``cat_pos``, ``cat_lo``, ``cat_n``, ``cat_off`` and ``rows``
    (the first layer's row count). Position ``T`` is the player count (categorical,
    ``0..max_players``), ``T + 1`` the prior's choice (categorical over the ``n_actions``
    actions; left out without ``prior``). Positions never nonzero get no row."""
    T = tensor_size
    idx = ds.x_idx.astype(np.int64)
    val = ds.x_val.astype(np.float64)
    seen = np.zeros(T, dtype=bool)
    seen[idx] = True
    integer = np.ones(T, dtype=bool)
    np.logical_and.at(integer, idx, val == np.round(val))
    vmin = np.zeros(T)
    vmax = np.zeros(T)
    np.minimum.at(vmin, idx, val)
    np.maximum.at(vmax, idx, val)
    binary = seen & (vmin >= 0) & (vmax <= 1) & integer
    cat = seen & ~binary & integer & (vmax - vmin + 1 <= MAX_CATEGORIES)
    feat_row = np.full(T + 2, -1, dtype=np.int64)
    feat_scale = np.ones(T + 2, dtype=np.float64)
    r = 0
    for i in range(T):
        if seen[i] and not cat[i]:
            feat_row[i] = r
            r += 1
            if not binary[i]:
                feat_scale[i] = 1.0 / max(abs(vmin[i]), abs(vmax[i]), 1e-9)
    cat_pos = [int(i) for i in np.flatnonzero(cat)]
    cat_lo = [int(vmin[i]) for i in cat_pos]
    cat_n = [int(vmax[i] - vmin[i]) + 1 for i in cat_pos]
    cat_pos += [T] + ([T + 1] if prior else [])
    cat_lo += [0] + ([0] if prior else [])
    cat_n += [max_players + 1] + ([n_actions] if prior else [])
    cat_off = []
    for n in cat_n:
        cat_off.append(r)
        r += n
    return {"feat_row": feat_row, "feat_scale": feat_scale,
            "cat_pos": np.array(cat_pos, dtype=np.int64),
            "cat_lo": np.array(cat_lo, dtype=np.int64), "cat_n": np.array(cat_n, dtype=np.int64),
            "cat_off": np.array(cat_off, dtype=np.int64), "rows": r}


def encode(ds: Dataset, fmap: dict, tensor_size: int):
    """The model inputs of every decision: ``rows`` ``int32 (N, K)`` first-layer rows and
    ``vals`` ``float32 (N, K)`` their weights (padding: row 0, weight 0), exactly the sum
    :func:`agents.net.net_logits` forms; ``K`` is the most active rows of any decision."""
    T = tensor_size
    n = ds.n
    idx = ds.x_idx.astype(np.int64)
    dec_of = np.repeat(np.arange(n), np.diff(ds.x_ptr))
    C = fmap["cat_pos"].size
    # categorical values (zero where the tensor had no entry), the player count last
    catv = np.zeros((n, C), dtype=np.float64)
    col = np.full(T + 2, -1, dtype=np.int64)
    col[fmap["cat_pos"]] = np.arange(C)
    m = col[idx] >= 0
    catv[dec_of[m], col[idx[m]]] = ds.x_val[m]
    catv[:, col[T]] = ds.dec[:, 0]
    if col[T + 1] >= 0:
        catv[:, col[T + 1]] = ds.dec[:, 6]
    v = np.round(catv).astype(np.int64) - fmap["cat_lo"][None, :]
    v = np.clip(v, 0, fmap["cat_n"][None, :] - 1)
    cat_rows = fmap["cat_off"][None, :] + v
    # 0/1 and numeric entries
    row = fmap["feat_row"][idx]
    keep = row >= 0
    d_k = dec_of[keep]
    cnt = np.bincount(d_k, minlength=n)
    K1 = int(cnt.max()) if n else 0
    start = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(cnt, out=start[1:])
    pos = np.arange(d_k.size) - start[d_k]
    num_rows = np.zeros((n, K1), dtype=np.int64)
    num_vals = np.zeros((n, K1), dtype=np.float32)
    num_rows[d_k, pos] = row[keep]
    num_vals[d_k, pos] = (ds.x_val[keep] * fmap["feat_scale"][idx[keep]]).astype(np.float32)
    rows = np.concatenate([cat_rows, num_rows], axis=1).astype(np.int32)
    vals = np.concatenate([np.ones((n, C), dtype=np.float32), num_vals], axis=1)
    return rows, vals


def from_states(game: str, items) -> Dataset:
    """A :class:`Dataset` of given decisions, without teacher labels: ``items`` are
    ``(state, player, legal, prior_choice)`` or ``(state, player, legal, prior_choice,
    memory)`` (a state array of ``game``, the seat to act, its legal actions, the prior
    policy's choice or -1, the seat's memory: zeros if left out). For a game with action
    features they are computed as the compiled ``net`` does (the heuristic's default
    parameters). For checking a model on recorded states (the compiled inference against the
    training library's forward pass)."""
    from agents.contract import contract
    from agents.policy import resolve
    from engines.protocol import core_of
    from engines.protocol.chance import SEAT_WORDS

    C = core_of(game)
    T = int(C.TENSOR_SIZE)
    hooks = contract(game)
    S, F = len(hooks.state_feature_names), len(hooks.action_feature_names)
    idx, val, lens, legs, decs, fss, fas = [], [], [], [], [], [], []
    L = max(len(it[2]) for it in items)
    for it in items:
        s, p, legal, hc = it[:4]
        mem = np.asarray(it[4], dtype=np.int64) if len(it) > 4 else np.zeros(SEAT_WORDS,
                                                                             np.int64)
        x = np.zeros(T, dtype=np.float32)
        C.observation_tensor(s, int(p), x)
        nz = np.flatnonzero(x)
        idx.append(nz.astype(np.int16))
        val.append(x[nz])
        lens.append(nz.size)
        row = np.full(L, -1, dtype=np.int16)
        row[:len(legal)] = legal
        legs.append(row)
        decs.append([int(C.num_players(s)), int(p), -1, -1, len(legal), 0, int(hc)])
        if F:
            n_players = int(C.num_players(s))
            h = resolve(game, "heuristic", n_players)[1][0]
            fs = np.zeros(S, np.float32)
            fa = np.zeros((len(legal), F), np.float32)
            hooks.action_features(s, int(p), np.asarray(legal, np.int64), len(legal), h, mem,
                                  fs, fa)
            fss.append(fs)
            fas.append(fa)
    ptr = np.zeros(len(items) + 1, dtype=np.int64)
    np.cumsum(lens, out=ptr[1:])
    n = len(items)
    return Dataset(np.concatenate(idx), np.concatenate(val), ptr, np.array(legs),
                   np.zeros((n, L), np.float32), np.array(decs, dtype=np.int16),
                   np.arange(n, dtype=np.int64), [{"game": game}],
                   np.array(fss) if F else None, np.concatenate(fas) if F else None)
