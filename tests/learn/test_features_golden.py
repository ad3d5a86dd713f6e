"""The action features of each game (``agents/<game>_features.py``) against golden values: the
features hash of the shipped weights (:func:`agents.net.layout_signature`) covers the feature
names and the module's ``FEATURES_VERSION``, not its code, so this test is what catches a change
of what a feature computes without a version bump.

The golden file ``tests/learn/golden/<game>_features_v<FEATURES_VERSION>.npz`` holds the state
and action features of the first decisions of two seeded heuristic games at 4 players. After an
intended change of the features: bump ``FEATURES_VERSION`` in the module, regenerate the golden
files with ``python -m tests.learn.test_features_golden`` (writes the current version's file of
every game and removes the older ones), and retrain or re-stamp the shipped weights
(``agents/weights/<game>.npz`` and its model card).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.contract import contract
from tests.learn.helpers import FEATURE_GAMES, decision_features, unforced_decisions

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SEEDS = (1, 2)
PER_GAME = 15
"""The seeded heuristic games at 4 players and the decisions taken of each."""
REGENERATE = "python -m tests.learn.test_features_golden"


def golden_path(game: str) -> Path:
    """The golden features file of ``game`` at its module's current ``FEATURES_VERSION``."""
    return GOLDEN_DIR / f"{game}_features_v{contract(game).features_version}.npz"


def compute(game: str) -> dict:
    """The legal actions and the state and action features of the fixed decisions of ``game``
    (:data:`SEEDS`, :data:`PER_GAME`), as the arrays of its golden file."""
    legal, fs, fa = [], [], []
    for seed in SEEDS:
        for st, p, lg in unforced_decisions(game, 4, seed, "heuristic", PER_GAME):
            s, a = decision_features(st, p, lg, game)
            legal.append(lg)
            fs.append(s)
            fa.append(a)
    return {"n_legal": np.array([len(lg) for lg in legal]), "legal": np.concatenate(legal),
            "state": np.stack(fs), "action": np.concatenate(fa)}


def regenerate(games=FEATURE_GAMES) -> list[Path]:
    """Write the golden file of each of ``games`` at its current ``FEATURES_VERSION``, remove
    its older versions' files, and return the paths written."""
    GOLDEN_DIR.mkdir(exist_ok=True)
    out = []
    for game in games:
        p = golden_path(game)
        for old in GOLDEN_DIR.glob(f"{game}_features_v*.npz"):
            old.unlink()
        np.savez_compressed(p, **compute(game))
        out.append(p)
    return out


@pytest.mark.parametrize("game", FEATURE_GAMES)
def test_action_features_match_the_golden_file_of_their_version(game):
    p = golden_path(game)
    assert p.is_file(), f"{p.name} missing: after bumping FEATURES_VERSION run `{REGENERATE}`"
    got = compute(game)
    with np.load(p, allow_pickle=False) as z:
        want = {k: z[k] for k in z.files}
    assert np.array_equal(got["n_legal"], want["n_legal"]) and np.array_equal(
        got["legal"], want["legal"]), (f"the seeded decisions of {game} changed (rules or "
                                       f"heuristic), not only its features: run `{REGENERATE}`")
    c = contract(game)
    module = getattr(c.action_features, "py_func", c.action_features).__module__
    msg = (f"{game}'s action features changed at FEATURES_VERSION {c.features_version}; if "
           f"intended, bump FEATURES_VERSION in {module}, regenerate the golden file with "
           f"`{REGENERATE}`, and retrain or re-stamp agents/weights/{game}.npz")
    for key in ("state", "action"):
        np.testing.assert_allclose(got[key], want[key], rtol=1e-5, atol=1e-6,
                                   err_msg=f"{key} features: {msg}")


if __name__ == "__main__":
    for path in regenerate():
        print(path)
