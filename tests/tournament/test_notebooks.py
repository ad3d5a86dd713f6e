"""notebooks/bot_strategies.ipynb and notebooks/writing_an_agent.ipynb execute top to bottom
with small sizes (nbclient; sizes through environment variables)."""

from pathlib import Path

import pytest
from tests.notebook_run import run_notebook

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, expect", [
    ("bot_strategies.ipynb", ["Rats, 4 players", "ReCURRRing, 4 players", "Lure, 4 players",
                              "River Rats, 4 players", "Best by win rate",
                              "Best by match points", "Strong players ranked, per game",
                              "ranked by match points per match",
                              "Strongest per game", "recurring: at 100+ games/s net"]),
    ("writing_an_agent.ipynb", ["biggest_group wins"]),
])
def test_notebook_runs(name, expect, monkeypatch):
    monkeypatch.setenv("BOARDLAB_NB_DEALS", "6")
    monkeypatch.setenv("BOARDLAB_NB_RATING_DEALS", "3")
    monkeypatch.setenv("BOARDLAB_NB_JOBS", "1")
    monkeypatch.setenv("BOARDLAB_NB_SEARCH_DEALS", "5")
    text = run_notebook(ROOT / "notebooks" / name)
    for e in expect:
        assert e in text
