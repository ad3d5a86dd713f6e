"""Scenario tests of the ReCURRRing rules (``rules/recurring.md``), one rule per test (named),
including the worked example of the rules text, and the public-knowledge bookkeeping (KNOWN)
of the rules core."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engines.recurring import RecurringConfig, new_game
from engines.recurring import core as C

from .helpers import legal_text, play, scenario


@pytest.mark.parametrize("n,size,per,removed", [
    (5, 55, 11, {10: 2}), (4, 48, 12, {9: 9}), (3, 39, 13, {8: 8, 9: 9, 10: 1})])
def test_components_deck_reduced_per_player_count(n, size, per, removed):
    """Components: 57 cards (v copies of each v, 12 R); removal per player count; all dealt."""
    ids = C.deck_ids(n)
    assert len(ids) == size
    counts = np.bincount([C.number_of_id(c) for c in ids], minlength=11)
    for v in range(1, 11):
        full = 12 if v == 10 else v
        assert counts[v] == full - removed.get(v, 0)
    assert C.deck_counts(n).tolist() == counts[1:].tolist()
    g = new_game(RecurringConfig(n_players=n), seed=4)
    assert g.observation(0)["hand_sizes"] == [per] * n
    inv = np.zeros(C.INVENTORY_SIZE, dtype=np.int64)
    C.inventory(g.state, inv)
    assert inv.tolist() == counts[1:].tolist()


def test_bad_player_count_and_card_id():
    with pytest.raises(ValueError, match="bad n_players 6"):
        C.deck_ids(6)
    with pytest.raises(ValueError, match="bad card id 57"):
        C.number_of_id(57)


def test_deal_is_the_pre_protocol_shuffle():
    """init_state: Fisher-Yates from the top with the state's word, blocks dealt seat 0 first
    (an independent Python re-implementation with the same splitmix64 draws)."""
    from engines.protocol import chance

    for n, seed in [(3, 1), (4, 2), (5, 3), (4, 2**64 - 5)]:
        g = new_game(RecurringConfig(n_players=n), seed)
        deck = C.deck_ids(n).tolist()
        w = np.array([chance.as_word(seed)], dtype=np.int64)
        for i in range(len(deck) - 1, 0, -1):
            j = chance.rand_below(w, 0, i + 1)
            deck[i], deck[j] = deck[j], deck[i]
        per = len(deck) // n
        for p in range(n):
            hand = np.bincount([C.number_of_id(c) for c in deck[p * per:(p + 1) * per]],
                               minlength=11)
            assert g.state[C.HAND + C.BLOCK * p + 1:C.HAND + C.BLOCK * p + 11].tolist() \
                == hand[1:].tolist()
        assert g.state[C.RNG] == w[0]


def test_first_round_start_player_holds_the_1():
    """A round: the player dealt the single 1 starts the first round (and that is public)."""
    for seed in range(10):
        g = new_game(RecurringConfig(n_players=4), seed=seed)
        p = g.current_player()
        assert g.hand(p).get("1") == 1 and g.state[C.FIRST_START] == p
        assert g.known_cards(p) == {"1": 1}
        assert all(g.known_cards(q) == {} for q in range(4) if q != p)


def test_start_player_opens_with_exactly_one_card_no_pass():
    """A round: the start player must open with exactly one card (no pass)."""
    g = scenario([{7: 3, 2: 1, 10: 2}, {5: 1}, {4: 1}])
    assert legal_text(g) == ["play 2", "play 7", "play R"]
    assert g.legal_actions() == [18, 23, 26]


def test_play_same_count_or_one_more_and_stronger():
    """Plays: only the table's count or count + 1; more cards stronger; with equal counts the
    smaller number; R the weakest number."""
    g = scenario([{6: 2, 1: 1}, {9: 2, 8: 3, 7: 4, 10: 3, 5: 1}, {4: 1}])
    play(g, "play 6")  # table: one 6
    assert legal_text(g) == ["pass", "play 5", "play 7-7", "play 8-8", "play 9-9", "play R-R"]
    play(g, "play R-R")  # table: two R
    play(g, "pass")  # seat 2
    # seat 0 holds one 6 and the 1: on R-R only 2 or 3 cards may be played
    assert g.current_player() == 0 and legal_text(g) == ["pass"]


def test_compare_plays_is_a_total_order_by_count_then_smaller_number():
    """compare_plays (pure): more cards stronger; equal counts: smaller number; R weakest."""
    for (v1, k1), (v2, k2) in itertools.product(
            itertools.product(range(1, 11), range(1, 13)), repeat=2):
        expect = (k1 > k2) or (k1 == k2 and v1 < v2)
        worse = (k1 < k2) or (k1 == k2 and v1 > v2)
        assert C.compare_plays(v1, k1, v2, k2) == (1 if expect else -1 if worse else 0)
    assert C.may_follow(7, 3, 6, 4) and not C.may_follow(7, 2, 6, 4)
    assert C.may_follow(10, 3, 9, 3) and not C.may_follow(9, 3, 10, 3)


def test_worked_example_of_the_rules_text():
    """The rules' walk-through: 7; 2; 6-6; R-R-R; 9-9-9; 7-7-7-7 -- each player takes the
    replaced play into hand; all others pass; 7-7-7-7 goes face up to its player, who starts
    the next round."""
    g = scenario([{7: 5, 5: 1}, {2: 1, 3: 1}, {6: 2, 4: 1}, {10: 3, 8: 1}, {9: 3, 5: 1}])
    play(g, "play 7")
    assert g.hand(0) == {"5": 1, "7": 4} and g.table_play() == ("7", 0)
    play(g, "play 2")
    assert g.hand(1) == {"3": 1, "7": 1} and g.table_play() == ("2", 1)
    play(g, "play 6-6")
    assert g.hand(2) == {"2": 1, "4": 1}
    play(g, "play R-R-R")
    assert g.hand(3) == {"6": 2, "8": 1}
    play(g, "play 9-9-9")
    assert g.hand(4) == {"5": 1, "R": 3}
    assert g.current_player() == 0
    play(g, "play 7-7-7-7")
    assert g.hand(0) == {"5": 1, "9": 3} and g.table_play() == ("7-7-7-7", 0)
    for seat in (1, 2, 3, 4):
        assert g.current_player() == seat
        play(g, "pass")
    assert g.score_pile(0) == {"7": 4}
    assert g.table_play() is None and g.state[C.ROUND] == 2 and g.current_player() == 0
    assert g.state[C.ROUNDS_DONE] == 1 and C.progress(g.state, 0) == 1
    assert not any(g.observation(0)["passed"])


def test_hard_pass_is_final_for_the_round():
    """A round: a pass is final for the rest of the round (the passer is skipped)."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}])
    play(g, "play 9", "pass", "play 4")
    assert g.current_player() == 0  # seat 1 skipped
    play(g, "pass")
    # seat 0 passed, seat 1 passed: seat 2 takes the 4 face up
    assert g.score_pile(2) == {"4": 1} and g.current_player() == 2


def test_round_winner_banks_face_up_and_starts_next_round():
    """A round: when all but one passed, the table's owner banks it face up and starts."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}])
    play(g, "play 9", "play 5", "pass", "pass")
    assert g.score_pile(1) == {"5": 1} and g.hand(1) == {"5": 1, "9": 1}
    assert g.current_player() == 1 and g.state[C.ROUND] == 2
    assert legal_text(g) == ["play 5", "play 9"]  # opens with one card again ([decision])


def test_open_single_every_round_option():
    """[decision] option open_single_every_round=False: later rounds open with any play."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}], open_single_every_round=False)
    play(g, "play 9", "play 5", "pass", "pass")
    assert legal_text(g) == ["play 5", "play 9"]  # seat 1 holds 5, 9
    g = scenario([{9: 1, 8: 1}, {5: 3}, {4: 1, 3: 1}], open_single_every_round=False)
    play(g, "play 9", "play 5", "pass", "pass")
    assert legal_text(g) == ["play 5", "play 9", "play 5-5"]
    assert g.legal_actions() == sorted(g.legal_actions())


def test_final_round_emptier_puts_replaced_play_face_down():
    """End of the game: who plays their last card puts the replaced play face down; the final
    round goes on until all but one passed; the owner banks it face up; the game ends."""
    g = scenario([{9: 1, 8: 3, 4: 1}, {5: 1}, {7: 2, 6: 2}])
    play(g, "play 9", "play 5")  # seat 1's last card: the 9 goes face down
    assert g.face_down(1) == {"9": 1} and g.hand(1) == {}
    assert g.state[C.FINAL] == 1 and not g.is_terminal()
    play(g, "play 6-6")  # seat 2 takes the 5 into hand
    assert g.hand(2) == {"5": 1, "7": 2}
    play(g, "play 8-8-8")  # seat 0 (count + 1); seat 1 is skipped (empty hand)
    assert g.current_player() == 2 and g.hand(0) == {"4": 1, "6": 2}
    play(g, "pass")
    assert g.is_terminal() and g.current_player() == -1 and g.legal_actions() == []
    assert g.score_pile(0) == {"8": 3}
    assert g.returns() == [3.0, 0.0, 0.0]  # face-down cards score nothing
    assert C.progress(g.state, 1) == 1 and C.progress(g.state, 0) == 1


def test_second_emptier_also_places_face_down_and_scores_r():
    """Engine decision EVERY_EMPTIER_PLACES_FACE_DOWN: a second player who empties their hand
    in the final round also puts the replaced play face down (and would score R cards)."""
    assert C.EVERY_EMPTIER_PLACES_FACE_DOWN
    g = scenario([{9: 1, 8: 3}, {5: 1}, {7: 2, 6: 2}])
    play(g, "play 9", "play 5", "play 6-6", "play 8-8-8")
    assert g.face_down(0) == {"6": 2} and g.hand(0) == {}
    assert g.state[C.EMPTIED + 0] == 1 and g.state[C.EMPTIED + 1] == 1
    play(g, "pass")
    assert g.is_terminal() and g.returns() == [3.0, 0.0, 0.0]


def test_empty_hand_player_is_skipped():
    """[decision] EMPTY_HAND_SKIPPED: a player with an empty hand cannot act."""
    assert C.EMPTY_HAND_SKIPPED
    g = scenario([{9: 1, 8: 1}, {5: 1}, {4: 1, 3: 1}])
    play(g, "play 9", "play 5", "play 4")
    assert g.current_player() == 0  # seat 1 has no cards


def test_emptier_owning_the_last_play_takes_it_face_up():
    """[decision] the emptier whose play is last on the table takes it face up as usual;
    option emptier_on_table_scores=False puts it face down."""
    g = scenario([{9: 1, 8: 1}, {5: 1}, {6: 1, 7: 1}])
    play(g, "play 9", "play 5", "pass", "pass")
    assert g.is_terminal() and g.score_pile(1) == {"5": 1} and g.returns()[1] == 1
    g = scenario([{9: 1, 8: 1}, {5: 1}, {6: 1, 7: 1}], emptier_on_table_scores=False)
    play(g, "play 9", "play 5", "pass", "pass")
    assert g.score_pile(1) == {} and g.face_down(1) == {"5": 1, "9": 1}
    assert g.returns()[1] == 0


def test_scoring_r_cards_count_only_for_the_emptier():
    """Scoring: 1 point per face-up card, R cards 0 -- except for the player who emptied their
    hand, who scores their face-up R cards too."""
    g = scenario([{10: 2, 9: 1}, {10: 1, 1: 1}, {8: 1, 2: 1}])
    # round 1: seat 0 opens R, seat 1 plays 1; seat 2 and seat 0 pass -> seat 1 banks the 1
    play(g, "play R", "play 1", "pass", "pass")
    assert g.score_pile(1) == {"1": 1}
    # round 2: seat 1 opens R; seat 2 may play 2 or 8
    play(g, "play R")
    assert legal_text(g) == ["pass", "play 2", "play 8"]
    play(g, "play 2", "pass", "pass")  # seat 2 takes R into hand, banks the 2
    assert g.score_pile(2) == {"2": 1}
    assert g.points() == [0, 1, 1]
    st = g.state.copy()
    st[C.SCORE + C.BLOCK * 0 + C.R] = 3
    assert C.points_of(st, 0) == 0
    st[C.EMPTIED + 0] = 1
    assert C.points_of(st, 0) == 3


# ----------------------------------------------------------------------------- knowledge
def test_known_cards_follow_the_public_takes():
    """KNOWN: a replaced play taken into hand is public; playing k cards of v forgets up to k
    known cards of v; an emptier's face-down cards are not in hand."""
    g = scenario([{7: 5, 5: 1}, {2: 1, 3: 1}, {6: 2, 4: 1}, {10: 3, 8: 1}, {9: 3, 5: 1}])
    play(g, "play 7", "play 2")
    assert g.known_cards(1) == {"7": 1}
    play(g, "play 6-6", "play R-R-R")
    assert g.known_cards(2) == {"2": 1} and g.known_cards(3) == {"6": 2}
    play(g, "play 9-9-9")
    assert g.known_cards(4) == {"R": 3}
    play(g, "play 7-7-7-7")  # seat 0 plays four 7s (none known) and takes the three 9s
    assert g.known_cards(0) == {"9": 3}
    kb = C.KNOWN + C.BLOCK * 0
    assert g.state[kb] == 3
    # a known card stays known while fewer cards of its number are played than are known
    g2 = scenario([{9: 1, 4: 1, 3: 1}, {8: 1, 9: 2}, {5: 3, 6: 1}])
    play(g2, "play 9", "play 8")  # seat 1 takes the 9: 9 x1 known (of its three 9s)
    assert g2.known_cards(1) == {"9": 1}
    play(g2, "play 5", "pass", "play 9-9")  # seat 1 plays two 9s: max(0, 1 - 2) known
    assert g2.known_cards(1) == {"5": 1} and g2.hand(1) == {"9": 1, "5": 1}
    g3 = scenario([{9: 1, 3: 1}, {8: 2, 2: 1}, {7: 2, 5: 1}])
    play(g3, "play 9", "play 8-8", "play 7-7")  # seat 2 takes 8-8: both known
    assert g3.known_cards(2) == {"8": 2} and g3.known_cards(1) == {"9": 1}
    play(g3, "pass", "pass", "play 8")  # seat 2 banks 7-7, opens with one of its 8s
    assert g3.known_cards(2) == {"8": 1}


def test_known_same_number_take_and_play():
    """Playing k cards of the table's own number: the k played are forgotten first, then the
    replaced play (same number) is known."""
    g = scenario([{7: 1, 1: 1}, {7: 2, 2: 1}, {3: 1}])
    play(g, "play 7", "play 7-7")  # seat 1 plays its two 7s and takes the one 7
    assert g.known_cards(1) == {"7": 1} and g.hand(1) == {"7": 1, "2": 1}


def test_known_cards_of_an_emptier_are_gone():
    g = scenario([{9: 1, 8: 3, 4: 1}, {5: 1}, {7: 2, 6: 2}])
    play(g, "play 9", "play 5")
    assert g.known_cards(1) == {} and g.face_down(1) == {"9": 1}


def test_known_never_exceeds_the_hand_under_random_play():
    from .helpers import random_walk

    for n, seed in [(3, 1), (4, 2), (5, 3), (4, 9)]:
        for g in random_walk(n, seed):
            s = g.state
            for q in range(n):
                h = s[C.HAND + C.BLOCK * q:C.HAND + C.BLOCK * q + 11]
                k = s[C.KNOWN + C.BLOCK * q:C.KNOWN + C.BLOCK * q + 11]
                assert (k <= h).all() and k[0] == k[1:].sum() and h[0] == h[1:].sum()


# ----------------------------------------------------------------------------- length bound
def test_max_game_length_truncates_and_flags_it():
    """A game that reaches MAX_GAME_LENGTH decisions ends (TRUNCATED, in the outcome); the
    points are the score piles' points at that moment."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}])
    play(g, "play 9", "play 5", "pass", "pass")  # seat 1 banks the 5
    g.state[C.DECISIONS] = C.MAX_GAME_LENGTH - 1
    play(g, "play 5")
    assert g.is_terminal() and g.current_player() == -1 and g.legal_actions() == []
    out = g.outcome()
    assert out["truncated"] == 1 and out["decisions"] == C.MAX_GAME_LENGTH
    assert g.returns() == [0.0, 1.0, 0.0]
    inv = np.zeros(C.INVENTORY_SIZE, dtype=np.int64)
    C.inventory(g.state, inv)
    assert inv.sum() == 6 and g.table_play() == ("5", 1)  # the 5 stays on the table
    assert "(truncated)" in g.table()


def test_dealt_games_stay_far_below_the_bound():
    from agents.loop import play_batch

    df = play_batch(RecurringConfig(n_players=3), "random", 300, seed=5)
    assert df["decisions"].max() < C.MAX_GAME_LENGTH // 10 and not df["truncated"].any()
