"""notebooks/river_rats_rat_pairs.ipynb executes top to bottom on small fresh runs."""

import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "river_rats_rat_pairs.ipynb"


def test_rat_pairs_notebook_runs(monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_GAMES", "240")
    monkeypatch.setenv("BOARDLAB_NB_JOBS", "1")
    monkeypatch.setenv("BOARDLAB_NB_PLAYERS", "2")
    monkeypatch.setenv("BOARDLAB_NB_DECISION_GAMES", "2")
    if os.environ.get("BOARDLAB_NB_RESULTS_TEST"):
        monkeypatch.setenv("BOARDLAB_NB_RESULTS", os.environ["BOARDLAB_NB_RESULTS_TEST"])
    nb = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOK.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    assert "widest 95% interval" in text
    assert "decisions with a choice" in text  # section 5 ran its fresh decision analysis
