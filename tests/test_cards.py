"""Card ids and text (engines.cards: the card convention of every poker-deck game)."""

import numpy as np
import pytest

from engines import cards


def test_ids_follow_the_convention_4_rank_plus_suit():
    assert cards.parse("2c")[0] == 0
    assert cards.parse("2d")[0] == 1
    assert cards.parse("2h")[0] == 2
    assert cards.parse("2s")[0] == 3
    assert cards.parse("As")[0] == 51
    assert cards.parse("X1 X2").tolist() == [52, 53]


def test_every_card_round_trips_through_text():
    ids = np.arange(54, dtype=np.int8)
    text = cards.format(ids)
    assert cards.parse(text).tolist() == ids.tolist()
    assert text.split()[:4] == ["2c", "2d", "2h", "2s"]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("10d", "Td"), ("td", "Td"), ("TD", "Td"), ("♠A", "As"), ("A♠", "As"), ("♥10", "Th"),
        ("♦q", "Qd"), ("♣2", "2c"), ("ah", "Ah"), ("x1", "X1"), ("Jk", "X1"),
    ],
)
def test_parse_accepts_ten_symbols_and_either_case(text, expected):
    assert cards.format(cards.parse(text)) == expected


def test_second_jk_is_the_second_joker():
    assert cards.parse("Jk 2c jk").tolist() == [52, 0, 53]
    assert cards.parse("X1 jk").tolist() == [52, 53]


def test_compact_and_comma_separated_strings():
    assert cards.format(cards.parse("AhKd10c")) == "Ah Kd Tc"
    assert cards.format(cards.parse("Ah,Kd, 10c")) == "Ah Kd Tc"
    assert cards.parse("").size == 0


@pytest.mark.parametrize("bad", ["1h", "Ax", "11c", "Zz", "A", "hh"])
def test_bad_tokens_raise_naming_the_token(bad):
    with pytest.raises(ValueError, match=repr(bad).replace("'", ".")):
        cards.parse(f"Ah {bad} Kd")


def test_bad_compact_string_names_the_position():
    with pytest.raises(ValueError, match="position 4"):
        cards.parse("AhKdZz")


def test_format_rejects_out_of_range_ids_and_skips_empty_slots():
    assert cards.format([51, -1, 0]) == "As 2c"
    with pytest.raises(ValueError, match="54"):
        cards.format([54])


def test_rank_and_suit_helpers():
    assert cards.rank_of(51) == 12 and cards.suit_of(51) == 3
    assert cards.card_id(8, 1) == cards.parse("Td")[0]
    with pytest.raises(ValueError, match="no rank"):
        cards.rank_of(52)
    with pytest.raises(ValueError, match="rank 13"):
        cards.card_id(13, 0)


def test_random_hands_are_distinct_cards_with_the_requested_jokers():
    h = cards.random_hands(2000, 9, seed=3, n_jokers=2)
    assert h.shape == (2000, 9) and h.dtype == np.int8
    assert all(len(set(row)) == 9 for row in h.tolist())
    assert ((h >= 52).sum(axis=1) == 2).all()
    assert h.min() >= 0 and h.max() <= 53
    # every card appears: the deal is not stuck on part of the deck
    assert set(np.unique(h[h < 52]).tolist()) == set(range(52))
    assert np.array_equal(h, cards.random_hands(2000, 9, seed=3, n_jokers=2))
    with pytest.raises(ValueError, match="n_jokers 3"):
        cards.random_hands(1, 5, n_jokers=3)
