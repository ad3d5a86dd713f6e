"""experiments.lure.card (``boardlab lure card``, ``lure balance --what-if``): one proposed or
changed fish card against the deck's exact odds and points curve."""

import numpy as np
import pandas as pd
import pytest

from engines.lure.decks import default_deck, load_deck
from experiments.cli import main
from experiments.lure.balance import add_fit, card_table
from experiments.lure.card import apply_card_spec, card_report, parse_card_spec


@pytest.fixture(scope="module")
def deck():
    return default_deck()


@pytest.fixture(scope="module")
def report_cards(deck):
    return add_fit(card_table(deck, False)[0])[0].set_index("id")


def test_a_card_unchanged_gets_the_balance_reports_flag(deck, report_cards):
    b17 = report_cards.loc["B17"]
    rep = card_report(deck, "B17: points=5")
    assert rep["difficulty"] == pytest.approx(b17.difficulty)
    assert rep["flag"] == b17.flag == "under-valued"
    assert rep["fitted_points"] == pytest.approx(b17.fitted_points)
    fixed = card_report(deck, "B17: points=7")
    assert fixed["flag"] == "" and fixed["old"]["points"] == 5 and fixed["points_given"]


def test_a_new_card_like_b17_has_b17s_odds_and_a_suggested_value(deck, report_cards):
    rep = card_report(deck, "cn=14; has:1,5")
    assert rep["card"]["id"] == "NEW" and not rep["points_given"]
    assert rep["difficulty"] == pytest.approx(report_cards.loc["B17", "difficulty"])
    assert rep["no_tokens"].loc["5d6", "-"] == pytest.approx(report_cards.loc["B17", "p_5d6"])
    assert rep["no_tokens"].loc["5d6", "d12+d20"] == pytest.approx(
        report_cards.loc["B17", "p_5d6+d12+d20"])
    assert (rep["best_tokens"].to_numpy() >= rep["no_tokens"].to_numpy() - 1e-12).all()
    assert len(rep["long"]) == 6 * 4 * 10 and rep["long"]["p"].between(0, 1).all()
    assert rep["fair_points"] == np.round(rep["fitted_points"])


def test_a_card_nobody_can_miss_with_high_points_is_over_valued(deck):
    assert card_report(deck, "cn=1; points=10")["flag"] == "over-valued"
    assert card_report(deck, "cn=1; points=1")["flag"] == ""


def test_spec_forms_and_the_changed_deck(deck):
    ch = parse_card_spec("B05: cn=8; req=")
    assert ch.card_id == "B05" and ch.fields == {"catch_number": "8", "requirements": ""}
    new, cid, old = apply_card_spec(deck, ch)
    i = new.index("B05")
    assert cid == "B05" and new.catch_numbers[i] == 8 and new.requirements[i] == ()
    assert old["requirements"] == "has:1" and len(new) == len(deck)
    assert parse_card_spec("has:1,5; cn=9").add_requirements == ("has:1,5",)


@pytest.mark.parametrize("spec, message", [
    ("", "bad card spec"), ("pair", "needs a catch number"),
    ("cn=14; fishy", "'fishy'"), ("cn=14; colour=red", "unknown key 'colour'"),
    ("B99: points=3", "unknown card id 'B99'"), ("cn=99", "catch number 99 is impossible"),
])
def test_bad_specs_are_named(deck, spec, message):
    with pytest.raises(ValueError, match=message):
        card_report(deck, spec)


def test_cli_card_and_what_if(tmp_path, capsys):
    csv = tmp_path / "odds.csv"
    assert main(["lure", "card", "cn=14; pair", "--csv", str(csv)]) == 0
    out = capsys.readouterr().out
    assert "suggested points:" in out and "P(catch) by loadout" in out
    assert len(pd.read_csv(csv)) == 240
    assert main(["lure", "card", "cn=14; fishy"]) == 2
    assert "'fishy'" in capsys.readouterr().err
    folder = tmp_path / "wi"
    assert main(["lure", "balance", "--what-if", "B17: points=7", "--players", "2",
                 "--games", "40", "--batch-size", "20", "--out", str(folder)]) == 0
    changed = load_deck(folder / "deck.csv")
    assert changed.points[changed.index("B17")] == 7
    cards = pd.read_csv(folder / "cards.csv").set_index("id")
    assert cards.loc["B17", "points"] == 7 and cards.loc["B17", "flag"] != "under-valued"


def test_a_bare_card_id_is_the_card_as_it_is_and_points_read_well(deck, capsys):
    """``B29`` is ``B29:`` (the deck's card, unchanged); one point is "1 point"; the printed
    curve is the robust one with its scale."""
    assert parse_card_spec("B29") == parse_card_spec("B29:")
    assert parse_card_spec("B29").card_id == "B29"
    assert parse_card_spec(" pair; cn=4").card_id is None
    assert main(["lure", "card", "B29"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("B29: 8 points,") and "robust curve" in out
    assert "robust sigma" in out and "RMSE" not in out
    assert main(["lure", "card", "B26: points=1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("B26: 1 point,") and "with 1 point the card" in out
