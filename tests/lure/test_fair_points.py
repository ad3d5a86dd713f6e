"""Every card's points against what it takes to catch it (experiments/lure/fair_points.py,
rebalance_points.py, play_styles.py): the broken copies of the shipped deck are flagged and
fixed and the fix is never worse; two seed sets must agree before a play verdict; the reason
lines read back agree in sign and words with their numbers; the never-worse rule."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from engines.lure.decks import default_deck
from experiments import cli
from experiments.lure import fair_points as F
from experiments.lure import rebalance as R
from experiments.lure.balance import add_fit, card_table
from experiments.lure.rebalance_points import recommendation
from experiments.lure.rebalance_stats import kendall_tau
from .broken_decks import BROKEN, broken_deck, broken_path

SHIPPED_CHANGES = {"B05", "B17", "B23", "B29"}
"""The cards the points goal changes on the shipped deck (its exact lens: docs/results/lure.md)."""


def _sim(cards: pd.DataFrame, players, extra: dict | None = None, se: float = 0.005):
    """A simulate frame whose win advantage is exactly 2 pp + 3 pp per point, plus ``extra``
    (fractions) for some cards."""
    rows = []
    for n in players:
        for r in cards.itertuples():
            wd = 0.02 + 0.03 * r.points + (extra or {}).get(r.id, 0.0)
            rows.append({"id": r.id, "players": n, "in_play": 2000, "caught_rate": 0.99,
                         "win_diff": wd, "win_diff_low": wd - 1.96 * se,
                         "win_diff_high": wd + 1.96 * se})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def shipped_cards():
    cards, fit = add_fit(card_table(default_deck(), False)[0])
    return cards, fit


def test_play_measure_is_in_points_and_does_not_grow_with_them(shipped_cards):
    cards, fit = shipped_cards
    m = F.play_measure(_sim(cards, [2, 4], {"B10": 0.09}), cards, [2, 4])
    x = m.set_index("id")["play_points"]
    assert x["B10"] == pytest.approx(3.0, abs=0.3)  # 9 pp at 3 pp per point
    assert x.drop("B10").abs().max() < 0.3  # the rise per point removed
    assert abs(np.corrcoef(cards["points"], x)[0, 1]) < 0.3


def test_two_seed_sets_must_agree_else_undecided(shipped_cards):
    cards, fit = shipped_cards
    a = _sim(cards, [2], {"B10": 0.12, "B12": -0.12})
    b = _sim(cards, [2], {"B10": 0.12, "B12": 0.0})
    v = F.card_verdicts(cards, a, b, [2], 2000, fit["threshold"]).set_index("id")
    assert v.loc["B10", "verdict"] == "too many points" and v.loc["B10", "play_side"] == 1
    assert v.loc["B12", "verdict"] == "undecided" and not v.loc["B12", "off"]
    assert v.loc["B12", "games_to_decide"] > 2000
    assert "undecided: about" in v.loc["B12", "reason_play"]
    # the odds need no seeds: B05 is too few points whatever play says
    assert v.loc["B05", "verdict"] == "too few points" and v.loc["B05", "odds_side"] == -1
    # between players: a change only when both decided
    other = F.card_verdicts(cards, b, b, [2], 2000, fit["threshold"])
    cmp = F.compare_players(v.reset_index(), other).set_index("id")
    assert cmp.loc["B12", "status"] == "undecided" and cmp.loc["B10", "status"] == "same"
    assert F.games_to_decide(2.5, 0.2, 2000, 2.0, 30) > 2000
    assert F.games_to_decide(2.0, 0.2, 2000, 2.0, 30) == 10 ** 9


def _numbers_agree(line: str) -> None:
    """A reason line's signs and words agree: ``x points too many`` goes with a positive
    residual (checked by the caller), ``wins x pp more`` with ``as if y points too many``."""
    m = re.search(r"wins ([\d.]+) pp (more|less) than a card of its points and difficulty: "
                  r"as if ([\d.]+) points too (many|few)", line)
    if m and float(m.group(1)) > 0.05 and float(m.group(3)) > 0.05:
        assert (m.group(2) == "more") == (m.group(4) == "many"), line


def test_the_balance_report_read_back_flags_both_and_its_reasons_match_their_numbers(
        tmp_path, capsys):
    """`lure balance` on a broken copy flags both broken cards; every reason line of the
    report, read back, agrees in sign and words with the card's numbers in verdicts.csv."""
    strong, weak, _ = BROKEN["mid"]
    out = tmp_path / "b"
    assert cli.main(["lure", "balance", "--cards", str(broken_path("mid")), "--players", "2",
                     "--games", "200", "--batch-size", "100", "--compare-agents", "none",
                     "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    v = pd.read_csv(out / "verdicts.csv").set_index("id")
    assert v.loc[strong, "verdict"] == "too many points"
    assert v.loc[weak, "verdict"] == "too few points"
    assert re.search(rf"  {strong} +too many points: ", printed)
    report = (out / "report.md").read_text()
    assert "reconstruction" not in report.split("\n")[2]  # a deck of its own: no such note
    reasons = [x for x in report.splitlines() if x.startswith("* **B")]
    assert len(reasons) == int(v["off"].sum() + (v["verdict"] == "undecided").sum()) >= 2
    for line in reasons:
        cid = re.match(r"\* \*\*(B\d\d)\*\*", line).group(1)
        m = re.search(r": ([\d.]+) points too (many|few) for what it takes to catch it", line)
        if v.loc[cid, "odds_side"] != 0:
            assert m and (m.group(2) == "many") == (v.loc[cid, "residual"] > 0), line
            assert float(m.group(1)) == pytest.approx(abs(v.loc[cid, "residual"]), abs=0.051)
        _numbers_agree(line)


@pytest.mark.parametrize("name", list(BROKEN))
def test_broken_decks_are_flagged_fixed_and_never_worse(tmp_path, name):
    """Each broken copy: the odds flag both broken cards; rebalance with the points goal
    changes both, leaves both inside the goal on fresh seeds, changes other cards only among
    the shipped deck's changes (at most two more), keeps Kendall's tau and is recommended
    (never worse)."""
    strong, weak, _ = BROKEN[name]
    cards, fit = add_fit(card_table(broken_deck(name), False)[0])
    odds = F.card_verdicts(cards, None, None, [2], 0, fit["threshold"]).set_index("id")
    assert odds.loc[strong, "verdict"] == "too many points"
    assert odds.loc[weak, "verdict"] == "too few points"
    res = R.rebalance(broken_deck(name), players=(2,), verify_games=100, batch_size=100,
                      out=tmp_path / "r", plots=False, styles_games=40 if name == "mid" else 0)
    changed = set(res.changed_ids)
    assert {strong, weak} <= changed and len(changed - {strong, weak} - SHIPPED_CHANGES) <= 2
    after = res.verification["verdicts"]["after"].set_index("id")
    assert not after.loc[[strong, weak], "off"].any()
    tau = res.verification["kendall_tau"]
    assert tau["after"] >= tau["before"]
    assert res.recommendation["recommended"] and res.exit_status in (0, R.EXIT_OFF_GOAL)
    assert res.recommendation["off_after"] < res.recommendation["off_before"]
    text = (res.out / "report.md").read_text()
    assert "**Recommended:" in text
    if name == "mid":
        styles = pd.read_csv(res.out / "styles.csv")
        assert list(styles["style"]) == ["cautious", "bold", "greedy", "heuristic", "net"]
        assert "## The play styles against each other" in text


def test_the_shipped_deck_rebalance_changes_the_four_cards_of_the_odds(tmp_path):
    res = R.rebalance(None, players=(2,), verify_games=200, batch_size=100,
                      out=tmp_path / "s", plots=False, styles_games=0)
    assert set(res.changed_ids) == SHIPPED_CHANGES and res.recommendation["recommended"]
    assert "reconstruction" in (res.out / "report.md").read_text()
    cards, _ = card_table(res.proposed, False)
    assert kendall_tau(cards["difficulty"], cards["points"]) >= res.verification[
        "kendall_tau"]["before"]


def _fake(off_before, off_after, dev_before, dev_after, changed=("B01",)):
    rows = []
    for i in range(3):
        rows.append({"id": f"C{i}", "players": 2,
                     "off_goal_before": i < off_before, "off_goal_after": i < off_after,
                     "violation_before": dev_before / max(off_before, 1) if i < off_before
                     else 0.0,
                     "violation_after": dev_after / max(off_after, 1) if i < off_after else 0.0})
    cards = pd.DataFrame(rows)
    return SimpleNamespace(verification={"cards": cards, "violating": {
        "before": off_before, "after": off_after}}, goal=R.Goal("points", 2.0),
        changed_ids=list(changed))


def test_never_worse_rule_and_exit_status():
    better = recommendation(_fake(2, 1, 3.0, 1.0))
    assert better["recommended"] and better["text"].startswith("Recommended")
    worse = recommendation(_fake(1, 2, 1.0, 2.0))
    assert not worse["recommended"] and "NO CHANGE RECOMMENDED" in worse["text"]
    assert R.exit_status(worse, False) == R.EXIT_NOT_RECOMMENDED == 4
    same_less_far = recommendation(_fake(2, 2, 3.0, 2.0))
    assert same_less_far["recommended"]
    same_as_far = recommendation(_fake(2, 2, 3.0, 3.0))
    assert not same_as_far["recommended"]
    nothing = recommendation(_fake(0, 0, 0.0, 0.0, changed=()))
    assert nothing["text"].startswith("No change proposed") and R.exit_status(nothing, True) == 0
    assert R.exit_status(better, False) == R.EXIT_OFF_GOAL
    styles = pd.DataFrame({"style": ["net"], "change_pp": [12.0], "change_low_pp": [8.0]})
    handed = recommendation(_fake(2, 1, 3.0, 1.0), styles)
    assert not handed["recommended"] and "hands the game to net" in handed["text"]


def test_a_rejected_proposal_leaves_the_original_deck(tmp_path, monkeypatch, capsys):
    """A proposal worse than the start (here: every changed card pushed 5 points the wrong
    way) is not recommended: exit status 4, deck.csv is the original deck, the proposal is
    kept in rejected_deck.csv and the terminal and report say why."""
    real = R.curve_fixes

    def wrong_way(deck, *a, **kw):
        new, fixes, unfixable = real(deck, *a, **kw)
        rows = new.rows()
        for r, old in zip(rows, deck.rows(), strict=True):
            if r["points"] != old["points"]:
                r["points"] = int(old["points"]) + 5 * (1 if r["points"] < old["points"]
                                                        else -1)
                r["points"] = max(r["points"], 1)
        from engines.lure.decks import deck_from_rows

        return deck_from_rows(rows, source=deck.source), fixes, unfixable

    monkeypatch.setattr(R, "curve_fixes", wrong_way)
    out = tmp_path / "w"
    rc = cli.main(["lure", "rebalance", "--players", "2", "--verify-games", "100",
                   "--batch-size", "100", "--styles-games", "0", "--out", str(out)])
    assert rc == R.EXIT_NOT_RECOMMENDED
    printed = capsys.readouterr().out
    assert printed.splitlines()[1].startswith("NO CHANGE RECOMMENDED")
    assert (out / "deck.csv").read_text().count("B05,Goby,2,") == 1  # the original points
    assert (out / "rejected_deck.csv").exists()
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["recommendation"]["recommended"] is False
    assert "Exit status 4" in (out / "report.md").read_text()
    # answered from the folder: the same status
    assert cli.main(["lure", "rebalance", "--players", "2", "--verify-games", "100",
                     "--batch-size", "100", "--styles-games", "0", "--out", str(out)]) == 4


def test_a_card_held_by_the_order_is_fixed_once_the_cards_after_it_are():
    """Deep Waters: D01 and D02 (3 points, the curve gives about 7) come before D04 and D05
    (4 points, harder) in deck order, so the order first holds them at 4; once D04 and D05 are
    raised to 5, the second pass brings D01 and D02 to 5 and every card meets the curve."""
    deck = default_deck()
    goal = R.parse_goal("curve")
    cards, _ = card_table(deck, True)
    crv = R.fit_difficulty_curve(cards)
    cons = R.make_constraints(deck, True, goal)
    new, fixes, unfixable = R.curve_fixes(deck, True, crv, crv.threshold, cons)
    assert not unfixable
    assert {c: new.points[new.index(c)] for c in ("D01", "D02", "D04", "D05")} == {
        "D01": 5, "D02": 5, "D04": 5, "D05": 5}
    why = {f["id"]: f["why"] for f in fixes}
    assert "once the cards after it were fixed, points -> 5" in why["D01"]
