"""notebooks/interop_training.ipynb executes top to bottom with small sizes.

Skipped (with the reason) only when open_spiel or the notebook runner is not importable.
"""

from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[interop]')")
pytest.importorskip("nbformat", reason="nbformat is not installed")
pytest.importorskip("nbclient", reason="nbclient is not installed")

from tests.notebook_run import run_notebook  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "interop_training.ipynb"


def test_interop_notebook_runs(monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_EPISODES", "30")
    monkeypatch.setenv("BOARDLAB_NB_DEALS", "2")
    monkeypatch.setenv("BOARDLAB_NB_SEARCH_DEALS", "1")
    monkeypatch.setenv("BOARDLAB_NB_WORLDS", "1")
    text = run_notebook(NOTEBOOK, timeout=300)
    assert "30 episodes" in text
    assert "decisions in states seen in training" in text
    assert "speed ratio pimc-fast / OpenSpiel ISMCTS" in text
