"""notebooks/river_rats_rat_pairs.ipynb executes top to bottom on small fresh runs."""

import os
from pathlib import Path

from tests.notebook_run import run_notebook

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "river_rats_rat_pairs.ipynb"


def test_rat_pairs_notebook_runs(monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_GAMES", "240")
    monkeypatch.setenv("BOARDLAB_NB_JOBS", "1")
    monkeypatch.setenv("BOARDLAB_NB_PLAYERS", "2")
    monkeypatch.setenv("BOARDLAB_NB_DECISION_GAMES", "2")
    monkeypatch.setenv("BOARDLAB_NB_NET_GAMES", "40")
    monkeypatch.setenv("BOARDLAB_NB_SEARCH_GAMES", "8")
    if os.environ.get("BOARDLAB_NB_RESULTS_TEST"):
        monkeypatch.setenv("BOARDLAB_NB_RESULTS", os.environ["BOARDLAB_NB_RESULTS_TEST"])
    text = run_notebook(NOTEBOOK)
    assert "widest 95% interval" in text
    assert "decisions with a choice" in text  # section 5 ran its fresh decision analysis
    # the strong players sat live, and the pairs are labelled as the command line prints them
    assert "net" in text and "pimc-fast" in text and "♦K→♠K" in text
    assert "DS " not in text
