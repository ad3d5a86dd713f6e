"""The model card of a weights file of ``net``: a Markdown file beside it (``<name>.md``)
with the teacher, the data (games, decisions, seeds, settings, code version), the training
settings, the held-out accuracy against the teacher and, when given, strength and speed
figures with the machine and its load."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np

from experiments.io import cpu_model

__all__ = ["write_card"]


def write_card(weights, evaluation: list[dict] | None = None, notes: str = "") -> Path:
    """Write ``<weights>.md`` from the file's metadata and optional ``evaluation`` rows
    (:mod:`experiments.learn.evaluate`); returns its path. Raises ``ValueError`` for a file
    that is not a weights file."""
    p = Path(weights)
    try:
        with np.load(p, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            two = meta.get("format") == "boardlab.net/2"
            sizes = {k: z[k].shape for k in (("W1", "W2") if two else ("W1", "W2", "W3"))}
    except Exception as exc:  # noqa: BLE001 - one line for any unreadable file
        raise ValueError(f"{p}: not a weights file ({type(exc).__name__})") from None
    info = meta.get("info", {})
    st = info.get("settings", {})
    last = (info.get("history") or [{}])[-1]
    if two:
        network = [f"- File: `{p.name}` ({p.stat().st_size / 1e6:.2f} MB), format "
                   f"`{meta.get('format')}`, action features `{meta.get('features')}` "
                   f"({info.get('state_features')} state + {info.get('action_features')} "
                   "per-action features)",
                   f"- Network: one scorer for every legal action, {sizes['W1'][0]} inputs -> "
                   f"{sizes['W1'][1]} -> {sizes['W2'][1]} -> 1 (ReLU) plus a linear skip; the "
                   "features include the heuristic's value of each action "
                   f"(agents/{meta.get('game')}_features.py)"]
    else:
        network = [f"- File: `{p.name}` ({p.stat().st_size / 1e6:.2f} MB), format "
                   f"`{meta.get('format')}`, tensor layout `{meta.get('layout')}` "
                   f"({meta.get('tensor_size')} inputs, {meta.get('num_actions')} actions)",
                   f"- Network: embedding-bag first layer {sizes['W1'][0]} rows x "
                   f"{sizes['W1'][1]}, hidden {sizes['W2'][1]}, logits of the legal actions of "
                   f"{sizes['W3'][0]}; prior policy `{meta.get('prior') or 'none'}` (its choice "
                   "is an input and gets a learned gate)"]
    lines = [f"# Model card: `net` for {meta.get('game')}", "", *network,
             "- Method: behaviour cloning of a PIMC teacher's action values (targets: "
             f"{1 - st.get('mix', 0):.2f} x the teacher's choice + {st.get('mix', 0):.2f} x "
             f"softmax(values / {st.get('tau')})), DAgger rounds where listed below "
             "(Ross et al. 2011; Anthony et al. 2017)", "", "## Data", ""]
    for d in info.get("data", []):
        kind = f"DAgger round (student `{Path(d['student']).name}` played)" if d.get(
            "student") else "teacher played"
        lines.append(f"- teacher `{d.get('teacher')}`, {kind}; players {d.get('players')}, "
                     f"{d.get('games_per_count')} games per count, seed {d.get('seed')}, "
                     f"config {d.get('config') or 'default'}, code {d.get('code_version')}")
    lines += [f"- {info.get('decisions')} unforced decisions ({info.get('train_decisions')} "
              f"train, {info.get('heldout_decisions')} held out by game)", "",
              "## Training", "",
              f"- Settings: {json.dumps(st, sort_keys=True)}",
              f"- JAX {info.get('jax', '?')} + optax {info.get('optax', '?')} (AdamW, cosine "
              f"decay), {info.get('train_seconds')} s, training code "
              f"{info.get('code_version', 'as the data (not recorded)')}",
              f"- Held-out: agreement with the teacher's choice {last.get('agree', 0):.3f}, "
              f"teacher's best value {last.get('best', 0):.3f}, mean regret "
              f"{last.get('regret', 0):.4f} (teacher's value units)"]
    cal = info.get("calibration")
    if cal:
        lines.append(f"- Prior gate calibrated: shift {cal['shift']:+.2f} chosen on {cal['deals']} "
                     f"calibration deals at {cal['players']} players (seed {cal['seed']}); "
                     f"scores by shift: {json.dumps(cal['scores'])}")
    lines.append("")
    if evaluation:
        lines += ["## Strength and speed (same deals for every agent; 95% intervals)", "",
                  f"Machine: {cpu_model()}, {os.cpu_count()} cores, load "
                  f"{os.getloadavg()[0]:.2f} when written; games/s of one core.", ""]
        for r in evaluation:
            if "rate" in r:
                lines.append(f"- {r['players']} players, `{r['agent']}`: wins {r['rate']:.3f} "
                             f"[{r['low']:.3f}, {r['high']:.3f}] over {r['games']} games, "
                             f"{r['games_per_s']:.0f} games/s")
            else:
                lines.append(f"- {r['players']} players, `{r['agent']}` vs heuristic "
                             f"(duplicate): {r['mean']:.3f} vs {r['base_mean']:.3f}, difference "
                             f"{r['diff']:+.3f} [{r['low']:+.3f}, {r['high']:+.3f}], "
                             f"p = {r['p']:.1e} over {r.get('units', '?')} deal x seat pairs, "
                             f"{r['games_per_s']:.0f} games/s")
        lines.append("")
    if notes:
        lines += ["## Notes", "", notes, ""]
    lines += ["Retrain: see docs/guides/learned_policy.md (`boardlab learn`)."]
    out = p.with_suffix(".md")
    out.write_text("\n".join(lines) + "\n")
    return out
