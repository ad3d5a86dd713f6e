"""The balance report, the command line and the notebook (experiments/lure_*)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from engines.lure.decks import default_deck
from experiments import cli
from experiments.lure_balance import add_fit, card_table, fit_curve, run_balance
from experiments.lure_cli import parse_players

ROOT = Path(__file__).resolve().parents[2]


def test_card_table_numbers():
    cards, table = card_table(default_deck(), deep_waters=False)
    assert len(cards) == 30 and table.shape == (30, 6, 8, 10)
    b02 = cards.set_index("id").loc["B02"]  # catch number 4, no requirement
    assert b02["p_1d6"] == pytest.approx(0.5) and b02["p_2d6"] == pytest.approx(33 / 36)
    assert b02["cheapest_50"] == "1d6" and b02["cheapest_90"] == "2d6"
    b13 = cards.set_index("id").loc["B13"]  # requires a lure: evaluated with one boost
    assert b13["lure_context"] == "boost" and b13["p_5d6"] > 0.9
    b30 = cards.set_index("id").loc["B30"]  # distinct, 30+: impossible with five d6 alone
    assert b30["p_5d6"] == 0 and b30["p_5d6+d12+d20"] > 0


def test_fit_flags_a_card_far_off_the_curve():
    d = np.linspace(0.1, 3, 12)
    pts = np.round(1 + 2 * d)
    pts[5] += 6
    coef, fitted, rmse = fit_curve(d, pts)
    cards = pd.DataFrame({"difficulty": d, "points": pts})
    out, fit = add_fit(cards)
    assert out.loc[5, "flag"] == "over-valued" and (out["flag"] == "over-valued").sum() == 1
    with pytest.raises(ValueError, match="at least 4"):
        fit_curve([1, 2], [1, 2])


def test_run_balance_writes_every_file(tmp_path):
    out = run_balance(players=(2, 3), deep_waters=True, agents=["greedy", "random"],
                      n_games=60, seed=1, out=tmp_path, batch_size=25)
    for f in ("cards.csv", "simulated.csv", "points_vs_difficulty.png", "catch_heatmaps.png",
              "caught_by_players.png", "metadata.json", "report.md"):
        assert (out / f).stat().st_size > 0, f
    sim = pd.read_csv(out / "simulated.csv")
    assert set(sim["players"]) == {2, 3} and len(sim) == 90
    assert (sim["caught_low"] <= sim["caught_rate"]).all()
    assert (sim["caught_rate"] <= sim["caught_high"]).all()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["n_games_per_player_count"] == 60 and meta["agents"] == ["greedy", "random"]
    assert "# Lure fish-card balance report: Deep Waters" in (out / "report.md").read_text()
    # same seed, same numbers
    again = run_balance(players=(2, 3), deep_waters=True, agents=["greedy", "random"],
                        n_games=60, seed=1, out=tmp_path / "again", batch_size=25)
    pd.testing.assert_frame_equal(sim, pd.read_csv(again / "simulated.csv"))


def test_parse_players():
    assert parse_players("2..5") == [2, 3, 4, 5] and parse_players("2-3") == [2, 3]
    assert parse_players("4") == [4] and parse_players("2,4") == [2, 4]
    for bad in ("1..5", "x", "6"):
        with pytest.raises(ValueError):
            parse_players(bad)


def test_cli_balance_and_errors(tmp_path, capsys):
    rc = cli.main(["lure", "balance", "--players", "2", "--games", "30", "--out",
                   str(tmp_path / "r")])
    assert rc == 0 and (tmp_path / "r" / "report.md").exists()
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name,points,catch_number,requirements,splash,trophy,set\n"
                   "B01,x,1,3,wobbly,,,base\n")
    rc = cli.main(["lure", "odds", "--cards", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "row 2, column 'requirements'" in err and "wobbly" in err
    assert cli.main(["lure", "balance", "--players", "7"]) == 2
    assert cli.main(["lure", "versus", "--agents", "greedy", "random", "--games", "20"]) == 0
    out = capsys.readouterr().out
    assert "greedy" in out and "low" in out


def test_cli_play_lure_with_scripted_input(monkeypatch, capsys, tmp_path):
    lines = iter(["legal", "cast 9d6", "cast 2d6"] + ["cast 2d6", "adjust none"] * 40)
    monkeypatch.setattr("builtins.input", lambda prompt="": next(lines))
    rec = tmp_path / "g.json"
    rc = cli.main(["play", "lure", "--players", "2", "--seed", "3", "--record", str(rec)])
    out = capsys.readouterr().out
    assert rc == 0 and "final scores" in out and "cast token '9d6'" in out
    from engines.lure.game import LureGame

    assert LureGame.replay(rec).is_terminal()


def test_notebook_runs_small(monkeypatch):
    """The notebook executes top to bottom with small sizes (nbclient)."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("LURE_NB_GAMES", "150")
    monkeypatch.setenv("LURE_NB_PLAYERS", "2,4")
    monkeypatch.setenv("LURE_NB_DEEP", "1")
    nb = nbformat.read(ROOT / "notebooks" / "lure_fish_balance.ipynb", as_version=4)
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(ROOT)}}).execute()
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert "cards from" in outputs and "outside the 95% Monte Carlo interval" in outputs
