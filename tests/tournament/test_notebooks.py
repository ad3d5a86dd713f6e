"""notebooks/bot_strategies.ipynb and notebooks/writing_an_agent.ipynb execute top to bottom
with small sizes (nbclient; sizes through environment variables)."""

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, expect", [
    ("bot_strategies.ipynb", ["Rats, 4 players", "ReCURRRing, 4 players", "Lure, 4 players",
                              "River Rats, 4 players", "Best by win rate"]),
    ("writing_an_agent.ipynb", ["biggest_group wins"]),
])
def test_notebook_runs(name, expect, monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_DEALS", "6")
    monkeypatch.setenv("BOARDLAB_NB_RATING_DEALS", "3")
    monkeypatch.setenv("BOARDLAB_NB_JOBS", "1")
    path = ROOT / "notebooks" / name
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs)
    for e in expect:
        assert e in text
