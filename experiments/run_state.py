"""The runner's partial results (``state.json`` in the output folder): the running totals and
the finished batches of every cell (:class:`RunState`), written atomically after each group
of batches; :func:`resume_state` reads one back for a resume, checked whole before any of it
is used and never repaired (:func:`validate_state`); :func:`settings_fingerprint` names the
experiment a state belongs to."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import numpy as np

from experiments.io import read_json, write_json

__all__ = ["STATE_FILE", "STATE_VERSION", "settings_fingerprint", "RunState", "validate_state",
           "resume_state"]

STATE_FILE = "state.json"
"""Name of the partial-results file inside ``out_dir``."""
STATE_VERSION = 1
"""The format of ``state.json``; a state of another version is not resumed."""


def settings_fingerprint(cells, seed, batch_size, play_fn, extra) -> str:
    """16 hex digits (SHA-256) of what determines an experiment's numbers: its cells, seed,
    batch size, batch function (module and name) and ``extra`` (JSON-ready)."""
    name = f"{getattr(play_fn, '__module__', '')}.{getattr(play_fn, '__qualname__', play_fn)}"
    blob = json.dumps({"cells": cells, "seed": seed, "batch_size": batch_size, "fn": name,
                       "extra": extra}, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


class RunState:
    """Running totals (integer sums per cell) and finished batches of a run; saved atomically
    as JSON (:meth:`save`)."""

    def __init__(self, n_cells: int, fingerprint: str):
        self.fingerprint = fingerprint
        self.totals: list[dict[str, np.ndarray]] = [{} for _ in range(n_cells)]
        self.done: list[set[int]] = [set() for _ in range(n_cells)]
        self.runs: list[dict] = []

    def add(self, ci: int, batch: int, stats: dict[str, np.ndarray]) -> None:
        """Add batch ``batch`` of cell ``ci`` (its integer sums ``stats``), once."""
        if batch in self.done[ci]:
            return
        tot = self.totals[ci]
        for k, v in stats.items():
            tot[k] = tot[k] + v if k in tot else v.copy()
        self.done[ci].add(batch)

    def save(self, path: Path, meta: dict) -> None:
        """Write the state and ``meta`` to ``path`` atomically."""
        write_json(path, {
            "version": STATE_VERSION,
            "fingerprint": self.fingerprint,
            "done": [sorted(d) for d in self.done],
            "totals": [{k: v.tolist() for k, v in t.items()} for t in self.totals],
            "runs": self.runs,
            "meta": meta,
        })

    @classmethod
    def from_saved(cls, data: dict, n_cells: int, fingerprint: str) -> RunState | None:
        """The state saved as ``data`` (a parsed ``state.json``) if it was made by this
        experiment and code version, else ``None``. Its contents are not checked here: see
        :func:`validate_state`."""
        if data.get("version") != STATE_VERSION or data.get("fingerprint") != fingerprint:
            return None
        st = cls(n_cells, fingerprint)
        if len(data["done"]) != n_cells:
            return None
        st.done = [set(d) for d in data["done"]]
        st.totals = [{k: np.asarray(v, dtype=np.int64) for k, v in t.items()}
                     for t in data["totals"]]
        runs = data.get("runs", [])
        st.runs = [dict(r) for r in runs] if isinstance(runs, list) else []
        return st


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def validate_state(data: dict, n_cells: int, sizes: Callable[[int], int], max_batches: int,
                    success_key: str) -> str | None:
    """What is wrong with a parsed ``state.json`` of this experiment, in a few words, or
    ``None`` when it is consistent: one ``done`` list and one ``totals`` dict per cell; batch
    indices integers in ``0..max_batches-1``, each listed once; ``totals["games"]`` equal to the
    summed sizes of the batches listed (``sizes(b)``: games of batch ``b``); every total an
    integer or a (nested) list of integers; the success count within ``0..games``; ``runs`` a
    list of objects. Never repairs."""
    done, totals = data.get("done"), data.get("totals")
    if not isinstance(done, list) or len(done) != n_cells:
        return f"'done' is not a list of {n_cells} batch lists"
    if not isinstance(totals, list) or len(totals) != n_cells:
        return f"'totals' is not a list of {n_cells} objects"
    runs = data.get("runs", [])
    if not isinstance(runs, list) or not all(isinstance(r, dict) for r in runs):
        return "'runs' is not a list of objects"
    for ci, (d, t) in enumerate(zip(done, totals, strict=True)):
        if not isinstance(d, list) or not all(_is_int(b) for b in d):
            return f"cell {ci}: 'done' is not a list of batch numbers"
        bad = sorted({b for b in d if not 0 <= b < max_batches})
        if bad:
            return (f"cell {ci} lists batch {bad[0]}, outside 0..{max_batches - 1} (this "
                    "experiment's batches)")
        dup = sorted({b for b in d if d.count(b) > 1})
        if dup:
            return f"cell {ci} lists batch {dup[0]} {d.count(dup[0])} times"
        if not isinstance(t, dict):
            return f"cell {ci}: its totals are not an object"
        if not d:
            if t:
                return f"cell {ci} has totals but no finished batch"
            continue
        for k, v in t.items():
            arr = np.asarray(v, dtype=object)
            if not all(_is_int(x) for x in arr.ravel().tolist()) or arr.size == 0:
                return f"cell {ci}: total {k!r} is not an integer or a list of integers"
        games = t.get("games")
        expected = sum(sizes(b) for b in d)
        if games != expected:
            return (f"cell {ci} counts {games} games for {len(d)} batches of {expected} games "
                    "in all")
        wins = t.get(success_key)
        if not _is_int(wins) or not 0 <= wins <= games:
            return (f"cell {ci} counts {wins} {success_key} for {games} games (expected 0.."
                    f"{games})")
    return None


def resume_state(state_path: Path, out_dir, fp: str, settings_fp: str, code_fp: str,
                  n_cells: int, plan, success_key: str, overwrite: bool):
    """The :class:`RunState` to resume from ``state_path`` (this experiment's, checked whole
    before any of it is used, never repaired), or None to start over (only with
    ``overwrite``). Raises ``ValueError`` naming the file for an unreadable, damaged or other
    experiment's state."""
    try:
        saved = read_json(state_path)
    except (ValueError, OSError) as exc:
        saved = {"fingerprint": f"unreadable: {type(exc).__name__}"}
    if not (isinstance(saved, dict) and isinstance(saved.get("fingerprint"), str)
            and isinstance(saved.get("done"), list)
            and isinstance(saved.get("totals"), list)):
        if not (isinstance(saved, dict)
                and str(saved.get("fingerprint", "")).startswith("unreadable")):
            saved = {"fingerprint": "unreadable: not a state file of the runner"}
    if str(saved.get("fingerprint", "")).startswith("unreadable") and not overwrite:
        raise ValueError(f"{state_path} cannot be read ({saved['fingerprint'][12:]}): "
                         "start over with --force (overwrite=True), or remove it")
    state = None
    problem = (validate_state(saved, n_cells, plan.batch_games, plan.max_batches, success_key)
               if saved.get("version") == STATE_VERSION and saved.get("fingerprint") == fp
               else None)
    if problem is None:
        try:
            state = RunState.from_saved(saved, n_cells, fp) if "done" in saved else None
        except (TypeError, KeyError, ValueError, AttributeError) as exc:
            problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        if not overwrite:
            raise ValueError(f"{state_path} is damaged ({problem}): start over with "
                             "--force (overwrite=True), or remove it")
        state = None
    old_settings, _, old_code = str(saved.get("fingerprint") or "").partition(":")
    if state is None and not overwrite:
        if old_settings != settings_fp:
            what = ("of a different experiment (other cells, seed, games or options)")
        elif old_code != code_fp:
            what = (f"made by other engine or agent code (sources {old_code or 'unknown'}, "
                    f"now {code_fp}), which may play other games")
        else:
            what = "in a format this version cannot resume"
        raise ValueError(
            f"{out_dir} holds partial results {what}: choose another output folder, or "
            f"start over with --force (overwrite=True)")
    return state
