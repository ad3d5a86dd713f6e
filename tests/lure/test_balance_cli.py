"""The balance report, its command line and the notebook (experiments/lure, cli/lure)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from agents.loop import run_games
from engines.protocol import chance
from engines.lure import LureConfig
from engines.lure import core as C
from engines.lure.decks import default_deck
from engines.lure.game import card_outcomes
from experiments import cli
from experiments.cli.lure import parse_players
from experiments.lure.balance import (
    OUTPUT_FILES,
    WIN_UNITS,
    add_fit,
    balance_cells,
    card_table,
    fit_curve,
    play_balance_batch,
    run_balance,
    simulate,
    simulate_cards,
)
from tests.notebook_run import run_notebook

ROOT = Path(__file__).resolve().parents[2]
FILES = ("cards.csv", "simulated.csv", "games.csv", "points_vs_difficulty.png",
         "catch_heatmaps.png", "caught_by_players.png", "metadata.json", "report.md")


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


def test_batch_sums_match_the_games():
    """play_balance_batch's sums agree with the same games decoded from the compiled loop, and
    with the per-seat outcome fields (fish caught, win shares)."""
    deck = default_deck()
    cell = balance_cells(deck, [3], True, ["greedy", "heuristic"])[0]
    assert cell["agents"] == ["greedy", "heuristic", "greedy"]
    ss = np.random.SeedSequence(7, spawn_key=(2,))
    sums = play_balance_batch(cell, 80, ss)
    cfg = LureConfig(n_players=3, deep_waters=True)
    ret, out = run_games(cfg, cell["agents"], chance.game_seeds(chance.batch_word(ss), 80))
    f = {k: i for i, k in enumerate(C.OUTCOME_FIELDS)}
    co = card_outcomes(out[:, f["card_0"]:], len(deck))
    who = co["catch_player"]
    assert sums["games"] == 80
    np.testing.assert_array_equal(sums["in_play"], (who >= -1).sum(axis=0))
    np.testing.assert_array_equal(sums["caught"], (who >= 0).sum(axis=0))
    assert (sums["in_play"] <= 80).all() and (sums["caught"] <= sums["in_play"]).all()
    # Deep Waters: 30 of the 45 cards in play in every game
    assert sums["in_play"].sum() == 80 * 30
    fish = out[:, [f[f"fish_{p}"] for p in range(3)]].sum(axis=0)
    np.testing.assert_array_equal(sums["seat_caught"].sum(axis=0), fish)
    assert sums["seat_win"].sum() == 80 * WIN_UNITS
    assert sums["inplay_win"].sum() == sums["in_play"].sum() * WIN_UNITS
    assert (sums["catcher_win"] <= sums["caught"] * WIN_UNITS).all()
    assert sums["rounds_sum"] == out[:, f["rounds"]].sum() and sums["truncated"] == 0


def test_simulate_is_reproducible_for_any_workers_and_resumes(tmp_path):
    kw = dict(players=(2, 4), deep_waters=False, agents=["greedy", "random"], n_games=50,
              seed=3, batch_size=20)
    sim, games, res = simulate(**kw)
    assert list(res.batches_done) == [3, 3] and list(res.games) == [50, 50]
    assert set(sim["players"]) == {2, 4} and len(sim) == 60  # 30 base cards each
    assert (games["games"] == 50).all() and games["seat_3_win"].notna().sum() == 1
    sim2, games2, _ = simulate(**kw, n_jobs=2, backend="threading", out_dir=tmp_path / "p")
    pd.testing.assert_frame_equal(sim, sim2)
    pd.testing.assert_frame_equal(games, games2)
    # a second run with the same folder finds every batch done and plays nothing
    sim3, _, res3 = simulate(**kw, out_dir=tmp_path / "p")
    assert res3.resumed_batches == 6 and res3.games_played == 0
    pd.testing.assert_frame_equal(sim, sim3)
    # other settings in the same folder: an error naming it, unless overwrite
    with pytest.raises(ValueError, match="different experiment"):
        simulate(**dict(kw, seed=4), out_dir=tmp_path / "p")
    one = simulate_cards(LureConfig(n_players=4), ["greedy", "random"], 50, seed=3,
                         batch_size=20)
    pd.testing.assert_frame_equal(one, sim[sim["players"] == 4].reset_index(drop=True))


def test_simulated_rates_are_consistent():
    sim, _, _ = simulate(players=(2,), agents="greedy", n_games=40, seed=1, batch_size=40)
    assert (sim["caught_low"] <= sim["caught_rate"]).all()
    assert (sim["caught_rate"] <= sim["caught_high"]).all()
    caught = sim["caught_rate"] > 0
    shares = sim.loc[caught, ["seat_0_share", "seat_1_share"]].sum(axis=1)
    np.testing.assert_allclose(shares, 1.0)
    assert sim[["seat_2_share", "seat_3_share", "seat_4_share"]].isna().all().all()
    assert ((sim.loc[caught, "first_group_share"] >= 0)
            & (sim.loc[caught, "first_group_share"] <= 1)).all()
    assert (sim.loc[caught, "mean_rounds_on_table"] >= 0).all()


def test_bad_options_raise():
    with pytest.raises(ValueError, match="unknown lure policy 'nobody'"):
        balance_cells(default_deck(), [2], False, ["nobody"])
    with pytest.raises(ValueError, match="player count 6"):
        balance_cells(default_deck(), [6], False, ["greedy"])
    with pytest.raises(ValueError, match="n_games"):
        simulate(players=(2,), n_games=0)
    with pytest.raises(ValueError, match="player counts"):
        run_balance(players=(1, 2), n_games=10)


def test_run_balance_writes_every_file(tmp_path):
    out = run_balance(players=(2, 3), deep_waters=True, agents=["greedy", "random"],
                      n_games=60, seed=1, out=tmp_path, batch_size=25)
    for f in FILES:
        assert (out / f).stat().st_size > 0, f
    sim = pd.read_csv(out / "simulated.csv")
    assert set(sim["players"]) == {2, 3} and len(sim) == 90
    assert (sim["caught_low"] <= sim["caught_rate"]).all()
    assert (sim["caught_rate"] <= sim["caught_high"]).all()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["n_games_per_player_count"] == 60 and meta["agents"] == ["greedy", "random"]
    assert meta["games_simulated"] == 120 and meta["batch_size"] == 25
    assert "code_version" in meta and "machine" in meta
    report = (out / "report.md").read_text()
    assert "# Lure fish-card balance report: Deep Waters" in report
    assert "### 3 players (60 games)" in report and "rounds (sd)" in report
    # the numbers are simulate()'s (reproducible: test above); the runner's state is gone
    sim2, _, _ = simulate(None, (2, 3), True, ["greedy", "random"], 60, 1, batch_size=25)
    pd.testing.assert_frame_equal(sim, sim2, check_exact=False, rtol=1e-12)
    assert not (out / "_partial").exists()
    assert {p.name for p in out.iterdir()} <= set(OUTPUT_FILES)  # its results, nothing else


def test_parse_players():
    assert parse_players("2..5") == [2, 3, 4, 5] and parse_players("2-3") == [2, 3]
    assert parse_players("4") == [4] and parse_players("2,4") == [2, 4]
    for bad in ("1..5", "x", "6"):
        with pytest.raises(ValueError):
            parse_players(bad)


def test_cli_balance_and_odds(tmp_path, capsys):
    out = tmp_path / "r"
    rc = cli.main(["lure", "balance", "--players", "2", "--games", "30", "--batch-size", "10",
                   "--agents", "greedy,random", "--out", str(out)])
    assert rc == 0 and (out / "report.md").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["agents"] == ["greedy", "random"] and meta["batch_size"] == 10
    assert meta["command"].startswith("boardlab lure balance")
    capsys.readouterr()
    # the same settings again: allowed (resumes, nothing to play); others need --force
    assert cli.main(["lure", "balance", "--players", "2", "--games", "30", "--batch-size", "10",
                     "--agents", "greedy", "random", "--out", str(out)]) == 0
    assert cli.main(["lure", "balance", "--players", "2", "--games", "40", "--batch-size", "10",
                     "--agents", "greedy,random", "--out", str(out)]) == 2
    assert "other settings" in capsys.readouterr().err
    assert cli.main(["lure", "balance", "--players", "2", "--games", "40", "--batch-size", "10",
                     "--agents", "greedy,random", "--out", str(out), "--force"]) == 0
    assert json.loads((out / "metadata.json").read_text())["n_games_per_player_count"] == 40
    csv = tmp_path / "sub" / "odds.csv"
    assert cli.main(["lure", "odds", "--deep-waters", "--csv", str(csv)]) == 0
    printed = capsys.readouterr().out
    assert "D15" in printed and len(pd.read_csv(csv)) == 45


@pytest.mark.parametrize("args, option", [
    (["--players", "7"], "--players"),
    (["--games", "0"], "--games"),
    (["--agents", "greedy", "nobody"], "--agents"),
    (["--jobs", "0"], "--jobs"),
    (["--batch-size", "0"], "--batch-size"),
    (["--seed", "-1"], "--seed"),
])
def test_cli_balance_errors_name_the_option(tmp_path, capsys, args, option):
    rc = cli.main(["lure", "balance", "--out", str(tmp_path / "x")] + args)
    err = capsys.readouterr().err
    assert rc == 2 and option in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()


def test_cli_bad_deck_and_removed_commands(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,name,points,catch_number,requirements,splash,trophy,set\n"
                   "B01,x,1,3,wobbly,,,base\n")
    rc = cli.main(["lure", "odds", "--cards", str(bad)])
    err = capsys.readouterr().err
    assert rc == 2 and "row 2, column 'requirements'" in err and "wobbly" in err
    rc = cli.main(["lure", "balance", "--cards", str(tmp_path / "missing.csv")])
    assert rc == 2 and "missing.csv" in capsys.readouterr().err
    # win rates, tuning and play are the generic commands now
    with pytest.raises(SystemExit):
        cli.main(["lure", "versus", "--agents", "greedy", "random"])


def test_notebook_runs_small(monkeypatch):
    """The notebook executes top to bottom with small sizes (nbclient)."""
    monkeypatch.setenv("LURE_NB_GAMES", "150")
    monkeypatch.setenv("LURE_NB_PLAYERS", "2,4")
    monkeypatch.setenv("LURE_NB_DEEP", "1")
    outputs = run_notebook(ROOT / "notebooks" / "lure_fish_balance.ipynb", cwd=ROOT)
    assert "cards from" in outputs and "outside the 95% Monte Carlo interval" in outputs
    assert "300 games in" in outputs
    assert "card(s) changed" in outputs  # the rebalance section ran
