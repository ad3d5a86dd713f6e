"""The fish-deck file format and its validating loader (engines/lure/decks.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engines import dice
from engines.lure import decks

HEADER = "id,name,points,catch_number,requirements,splash,trophy,set\n"
GOOD = "B01,Minnow,1,3,,lure,,base\n"


def write(tmp_path, text, name="deck.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_default_deck_is_the_labelled_reconstruction():
    """The shipped deck: 30 base + 15 Deep Waters cards of the rules file, labelled."""
    d = decks.default_deck()
    assert len(d) == 45
    assert sum(d.info[:, decks.I_SET] == decks.SET_BASE) == 30
    assert "RECONSTRUCTION" in decks.DEFAULT_DECK_PATH.read_text().splitlines()[0]
    i = d.index("B17")
    assert d.catch_numbers[i] == 14 and d.points[i] == 5 and d.requirements[i] == ("has:1,5",)
    i = d.index("D07")
    assert d.requirements[i] == ("stubborn", "pair")
    assert d.conds[i, dice.FLAGS] == dice.F_STUBBORN | dice.F_PAIR
    assert d.info[d.index("D15"), decks.I_TROPHY] == 1
    assert d.info[d.index("B03"), decks.I_SPLASH] == decks.SPLASH_FISH
    assert d.info[d.index("B01"), decks.I_SPLASH] == decks.SPLASH_LURE


def test_round_trip(tmp_path):
    d = decks.default_deck()
    p = tmp_path / "copy.csv"
    decks.write_deck(d, p, comment="copy")
    e = decks.load_deck(p)
    assert e.sha256() == d.sha256() and e.names == d.names


def test_requirement_notations():
    assert decks.parse_requirements("has:1,5;pair") == ("has:1,5", "pair")
    assert decks.parse_requirements("stubborn, pair") == ("stubborn", "pair")
    assert decks.parse_requirements("") == ()


@pytest.mark.parametrize("row,col,msg", [
    ("B01,Minnow,1,3,fishy,,,base\n", "requirements", "unknown requirement 'fishy'"),
    ("B01,Minnow,-1,3,,,,base\n", "points", "impossible"),
    ("B01,Minnow,x,3,,,,base\n", "points", "not an integer"),
    ("B01,Minnow,1,99,,,,base\n", "catch_number", "impossible"),
    ("B01,Minnow,1,3,\"has:1,0\",,,base\n", "requirements", "1..20"),
    ("B01,Minnow,1,3,pair;distinct,,,base\n", "requirements", "contradict"),
    ("B01,Minnow,1,3,3,,,base\n", "requirements", "not preceded by 'has:'"),
    ("B01,Minnow,1,3,,splashy,,base\n", "splash", "splash icon"),
    ("B01,Minnow,1,3,,,maybe,base\n", "trophy", "trophy"),
    ("B01,Minnow,1,3,,,,shallow\n", "set", "'base' or 'deep_waters'"),
    ("B 1,Minnow,1,3,,,,base\n", "id", "letters"),
])
def test_bad_field_names_file_row_and_column(tmp_path, row, col, msg):
    """Every malformed field raises ValueError naming file, row and column."""
    p = write(tmp_path, "# comment\n" + HEADER + GOOD.replace("B01", "B00") + row)
    with pytest.raises(ValueError) as e:
        decks.load_deck(p)
    text = str(e.value)
    assert str(p) in text and "row 4" in text and f"column '{col}'" in text and msg in text


def test_duplicate_id(tmp_path):
    p = write(tmp_path, HEADER + GOOD + GOOD)
    msg = r"row 3, column 'id': duplicate id 'B01' \(first used in row 2\)"
    with pytest.raises(ValueError, match=msg):
        decks.load_deck(p)


def test_missing_and_unknown_columns(tmp_path):
    p = write(tmp_path, HEADER.replace(",trophy", "") + "B01,Minnow,1,3,,lure,base\n")
    with pytest.raises(ValueError, match=r"row 1, column 'trophy': missing column"):
        decks.load_deck(p)
    p = write(tmp_path, HEADER.strip() + ",colour\n" + GOOD.strip() + ",red\n")
    with pytest.raises(ValueError, match=r"row 1, column 9 \('colour'\): unknown column"):
        decks.load_deck(p)


def test_wrong_cell_count_empty_and_missing_file(tmp_path):
    p = write(tmp_path, HEADER + "B01,Minnow,1\n")
    with pytest.raises(ValueError, match="row 2: 3 cells; expected 8"):
        decks.load_deck(p)
    with pytest.raises(ValueError, match="no cards"):
        decks.load_deck(write(tmp_path, HEADER))
    with pytest.raises(ValueError, match="no header"):
        decks.load_deck(write(tmp_path, "# only a comment\n"))
    with pytest.raises(ValueError, match="no card has set 'base'"):
        decks.load_deck(write(tmp_path, HEADER + GOOD.replace("base", "deep_waters")))
    with pytest.raises(FileNotFoundError, match="nope.csv"):
        decks.load_deck(tmp_path / "nope.csv")


def test_too_many_cards(tmp_path):
    rows = "".join(f"C{i},x,1,3,,,,base\n" for i in range(decks.MAX_CARDS + 1))
    with pytest.raises(ValueError, match="at most 64"):
        decks.load_deck(write(tmp_path, HEADER + rows))


def test_spreadsheet_files_with_a_byte_order_mark_or_another_encoding(tmp_path):
    """Issue 12.10: Excel's "CSV UTF-8" starts with a BOM; a cp1252 file is named with the
    encoding expected."""
    p = tmp_path / "excel.csv"
    p.write_bytes(("\ufeff" + HEADER + GOOD.replace("Minnow", "Minnow é")).encode("utf-8"))
    d = decks.load_deck(p)
    assert d.ids == ("B01",) and d.names == ("Minnow é",)
    p = tmp_path / "cp1252.csv"
    p.write_bytes((HEADER + GOOD + "B02,Brochet à l'œil,2,4,,lure,,base\n").encode("cp1252"))
    with pytest.raises(ValueError, match=r"cp1252.csv: row 3: byte 0xe0 is not UTF-8; "
                                         r"expected a UTF-8 text file"):
        decks.load_deck(p)


def test_deck_files_point_at_the_rules_in_the_repository(tmp_path):
    """Issue 24: the deck file's header names docs/rules/lure.md (which every clone has), not a
    path outside the repository."""
    repo = Path(decks.__file__).resolve().parents[2]
    p = tmp_path / "copy.csv"
    decks.write_deck(decks.default_deck(), p, comment="copy")
    for text in (p.read_text(), (repo / "engines" / "lure" / "default_deck.csv").read_text()):
        header = [ln for ln in text.splitlines() if ln.startswith("#")]
        assert any("docs/rules/lure.md" in ln for ln in header)
        assert not any("shared/" in ln or "../" in ln for ln in header)
    assert (repo / "docs" / "rules" / "lure.md").is_file()
    assert p.read_text().splitlines()[1] == "# copy"
