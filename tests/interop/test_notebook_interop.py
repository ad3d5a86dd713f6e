"""notebooks/interop_training.ipynb executes top to bottom with small sizes.

Skipped (with the reason) only when open_spiel or the notebook runner is not importable.
"""

from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="open_spiel is not installed (pip install -e '.[interop]')")
nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "interop_training.ipynb"


def test_interop_notebook_runs(monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_EPISODES", "30")
    monkeypatch.setenv("BOARDLAB_NB_DEALS", "2")
    monkeypatch.setenv("BOARDLAB_NB_SEARCH_DEALS", "1")
    monkeypatch.setenv("BOARDLAB_NB_WORLDS", "1")
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "30 episodes" in text
    assert "decisions in states seen in training" in text
    assert "speed ratio pimc-fast / OpenSpiel ISMCTS" in text
