"""``boardlab lure rebalance`` (experiments/lure/rebalance.py, rebalance_report.py): a deck with
deliberately broken cards gets exactly those cards fixed; the optuna study resumes after an
interruption with identical results; bad goals and constraints are one-line errors."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pandas as pd
import pytest

from engines.lure.decks import default_deck, deck_from_rows, load_deck
from experiments import cli
from experiments.lure import rebalance as R
from experiments.lure.balance import card_table

# base cards of the default deck re-pointed onto points = 3.5 x difficulty (each within 0.35 of
# the least-squares line through the origin), plus two broken cards: X1, 1 point though
# nobody can miss it (difficulty 0: worth 0 on that line), and X2, 10 points though no dice
# loadout catches it
ON_LINE = {"B05": 4, "B08": 3, "B09": 1, "B10": 4, "B11": 4, "B12": 1, "B14": 3, "B16": 2,
           "B17": 7, "B18": 5, "B19": 2, "B20": 4, "B21": 5, "B24": 3, "B25": 7, "B26": 4,
           "B28": 10}


def _card(cid, cn, pts, req=""):
    return {"id": cid, "name": cid, "points": pts, "catch_number": cn, "requirements": req,
            "splash": "", "trophy": "", "set": "base"}


BROKEN = [_card("X1", 0, 1), _card("X2", 64, 10)]


@pytest.fixture(scope="module")
def curve_deck():
    rows = [dict(r, points=ON_LINE[r["id"]]) for r in default_deck().rows()
            if r["id"] in ON_LINE]
    return deck_from_rows(rows + BROKEN, source="broken_curve.csv")


@pytest.fixture(scope="module")
def flat_deck():
    """Ten plain 4-point cards (catch numbers 9..14: similar catcher win advantages) and the
    two broken cards."""
    rows = [_card(f"F{i:02d}", cn, 4) for i, cn in enumerate([9, 10, 10, 11, 11, 12, 12, 13,
                                                             13, 14])]
    return deck_from_rows(rows + BROKEN, source="broken_flat.csv")


CURVE_KW = dict(goal="curve", curve="proportional", tolerance=0.5, players=(2,),
                points_range="0..10", verify_games=60, batch_size=60)


def test_curve_goal_fixes_exactly_the_broken_cards(tmp_path, curve_deck):
    res = R.rebalance(curve_deck, fields="points,catch_number", out=tmp_path / "a", **CURVE_KW)
    assert res.changed_ids == ["X1", "X2"] and res.unfixable == []
    new = res.proposed
    assert new.points[new.index("X1")] == 0  # nobody can miss it: worth 0 on the line
    cards, _ = card_table(new, False)
    v = R.curve_violation(cards["points"], cards["difficulty"], res.curve, 0.5)
    assert (v == 0).all()  # every card within 0.5 of the line, X2 catchable
    x2 = cards.set_index("id").loc["X2"]
    assert np.isfinite(x2["difficulty"]) and x2["catch_number"] < 64
    # the proposed deck is the written one, loadable by --cards
    assert load_deck(res.out / "deck.csv") == new
    ch = pd.read_csv(res.out / "changes.csv")
    assert set(ch["id"]) == {"X1", "X2"} and ch["why"].str.contains("X2: no dice").any()
    assert res.verification["violating"] == {"before": 2, "after": 0}
    for f in ("win_diff.png", "points_vs_difficulty.png", "scores.png", "seats.png",
              "game_length.png", "cards.csv", "games.csv", "metadata.json", "report.md"):
        assert (res.out / f).stat().st_size > 0, f


def test_points_only_cannot_fix_a_card_nobody_can_catch(tmp_path, curve_deck):
    res = R.rebalance(curve_deck, fields="points", out=tmp_path / "b", **CURVE_KW)
    assert res.changed_ids == ["X1"] and [u[0] for u in res.unfixable] == ["X2"]
    report = (res.out / "report.md").read_text()
    assert "X2 cannot be fixed under the given constraints" in report
    assert "no number of points makes a card nobody can catch fair" in report


WD_KW = dict(goal="win-diff", tolerance=8, players=(2,), fields="points,catch_number",
             points_range="0..10", n_games=600, verify_games=600, batch_size=300)


def test_win_diff_goal_fixes_exactly_the_broken_cards(tmp_path, flat_deck):
    res = R.rebalance(flat_deck, n_trials=4, out=tmp_path / "w", **WD_KW)
    assert res.changed_ids == ["X1", "X2"]
    assert res.proposed.points[res.proposed.index("X1")] > 1  # it decided too little
    assert res.verification["violating"]["after"] == 0
    assert res.verification["violating"]["before"] == 2
    trials = pd.read_csv(res.out / "trials.csv")
    assert len(trials) == 4 and trials.loc[0, "role"] == "start"
    assert trials["objective"].min() < trials.loc[0, "objective"]
    assert (res.out / "search.png").exists() and (res.out / "study.journal").exists()


def _run_outputs(folder):
    return ((folder / "trials.csv").read_text(), (folder / "deck.csv").read_text(),
            (folder / "changes.csv").read_text())


@pytest.mark.parametrize("where", ["add", "tell"])
def test_study_resumes_after_an_interruption_with_identical_results(tmp_path, flat_deck,
                                                                    monkeypatch, where):
    """An uninterrupted study and one interrupted in the middle of a trial (``add``: a
    proposal, nothing stored yet; ``tell``: a TPE trial left RUNNING in the journal), then run
    again, give the same trials, deck and changes."""
    kw = dict(WD_KW, n_games=300, verify_games=50, batch_size=150, n_trials=7, plots=False)
    R.rebalance(flat_deck, out=tmp_path / "whole", **kw)
    real = R._Study.evaluate
    hit = []

    def interrupted(self, deck):
        if not hit and where in {f.function for f in inspect.stack()[1:4]}:
            hit.append(True)
            raise KeyboardInterrupt
        return real(self, deck)

    monkeypatch.setattr(R._Study, "evaluate", interrupted)
    with pytest.raises(KeyboardInterrupt):
        R.rebalance(flat_deck, out=tmp_path / "cut", **kw)
    assert hit and not (tmp_path / "cut" / "trials.csv").exists()
    monkeypatch.setattr(R._Study, "evaluate", real)
    res = R.rebalance(flat_deck, out=tmp_path / "cut", **kw)
    assert _run_outputs(tmp_path / "cut") == _run_outputs(tmp_path / "whole")
    assert len(res.trials) == 7
    # run again: the study is complete; nothing is played and nothing changes
    R.rebalance(flat_deck, out=tmp_path / "cut", **kw)
    assert _run_outputs(tmp_path / "cut") == _run_outputs(tmp_path / "whole")


@pytest.mark.parametrize("args, needle", [
    (["--goal", "fairness"], "--goal 'fairness'"),
    (["--tolerance", "-3"], "--tolerance '-3'"),
    (["--tolerance", "lots"], "--tolerance 'lots'"),
    (["--goal", "curve", "--target", "10"], "--target '10'"),
    (["--target", "abc"], "--target 'abc'"),
    (["--curve", "cubic"], "--curve 'cubic'"),
    (["--change", "B05,B99"], "--change 'B99'"),
    (["--change", "D03"], "Deep Waters card"),
    (["--fields", "points,colour"], "--fields item 'colour'"),
    (["--points-range", "5..2"], "--points-range '5..2'"),
    (["--points-range", "2..8"], "excludes the points of B01 (1)"),
    (["--fields", "points,requirements", "--requirements-whitelist", "pair,fishy"],
     "item 'fishy'"),
    (["--fields", "requirements", "--requirements-whitelist", "odd"], "Deep Waters requirement"),
    (["--requirements-whitelist", "pair"], "needs requirements among --fields"),
    (["--goal", "curve", "--fields", "splash"], "--fields 'splash'"),
    (["--trials", "0"], "--trials 0"),
    (["--games", "1"], "--games 1"),
    (["--verify-games", "0"], "--verify-games 0"),
    (["--players", "6"], "--players 6"),
    (["--agents", "nobody"], "--agents 'nobody'"),
    (["--jobs", "0"], "--jobs 0"),
])
def test_bad_goals_and_constraints_are_one_line_errors(tmp_path, capsys, args, needle):
    out = tmp_path / "x"
    rc = cli.main(["lure", "rebalance", "--out", str(out)] + args)
    err = capsys.readouterr().err
    assert rc == 2 and needle in err and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and not out.exists()


def test_cli_end_to_end(tmp_path, capsys):
    out = tmp_path / "r"
    argv = ["lure", "rebalance", "--goal", "curve", "--players", "2", "--verify-games", "40",
            "--batch-size", "40", "--out", str(out)]
    assert cli.main(argv) == 0
    printed = capsys.readouterr().out
    assert "4 card(s) changed: B05, B17, B23, B29" in printed and "deck.csv" in printed
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["command"].startswith("boardlab lure rebalance") or meta["command"]
    assert meta["changed_cards"] == ["B05", "B17", "B23", "B29"]
    # the proposed deck is loadable by --cards
    assert cli.main(["lure", "odds", "--cards", str(out / "deck.csv")]) == 0
    capsys.readouterr()
    # other settings in the same folder: an error unless --force
    assert cli.main(argv[:-2] + ["--tolerance", "1", "--out", str(out)]) == 2
    assert "other settings" in capsys.readouterr().err
    # the win-diff search from the command line, tiny
    wd = tmp_path / "wd"
    assert cli.main(["lure", "rebalance", "--players", "2", "--trials", "2", "--games", "400",
                     "--verify-games", "40", "--batch-size", "400", "--change", "B01,B02,B05",
                     "--target", "30", "--out", str(wd)]) == 0
    assert len(pd.read_csv(wd / "trials.csv")) == 2 and (wd / "deck.csv").exists()
