"""Scenario tests of the ReCURRRing rules (``rules/recurring.md``), one rule per test (named),
including the worked example of the rules text."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from engines.recurring import RecurringConfig, RecurringGame, compare_plays, match_results, new_game
from engines.recurring import core as C


def scenario(hands, start=0, **config):
    cfg = RecurringConfig(n_players=len(hands), **config)
    return RecurringGame(cfg, 0, 0, C.state_from_hands(cfg.to_array(), hands, start))


def legal_text(g):
    return [g.action_to_string(a) for a in g.legal_actions()]


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
    g = new_game(RecurringConfig(n_players=n), seed=4)
    assert g.observation(0)["hand_sizes"] == [per] * n


def test_first_round_start_player_holds_the_1():
    """A round: the player dealt the single 1 starts the first round."""
    for seed in range(10):
        g = new_game(RecurringConfig(n_players=4), seed=seed)
        assert g.hand(g.current_player()).get("1") == 1


def test_start_player_opens_with_exactly_one_card_no_pass():
    """A round: the start player must open with exactly one card (no pass)."""
    g = scenario([{7: 3, 2: 1, 10: 2}, {5: 1}, {4: 1}])
    assert legal_text(g) == ["play 2", "play 7", "play R"]


def test_play_same_count_or_one_more_and_stronger():
    """Plays: only the table's count or count + 1; more cards stronger; with equal counts the
    smaller number; R the weakest number."""
    g = scenario([{6: 2, 1: 1}, {9: 2, 8: 3, 7: 4, 10: 3, 5: 1}, {4: 1}])
    g.apply_action("play 6")  # table: one 6
    assert legal_text(g) == ["pass", "play 5", "play 7-7", "play 8-8", "play 9-9", "play R-R"]
    g.apply_action("play R-R")  # table: two R
    g.apply_action("pass")  # seat 2
    # seat 0 holds one 6 and the 1: on R-R only 2 or 3 cards may be played
    assert g.current_player() == 0 and legal_text(g) == ["pass"]


def test_compare_plays_is_a_total_order_by_count_then_smaller_number():
    """compare_plays (pure): more cards stronger; equal counts: smaller number; R weakest."""
    for (v1, k1), (v2, k2) in itertools.product(
            itertools.product(range(1, 11), range(1, 13)), repeat=2):
        expect = (k1 > k2) or (k1 == k2 and v1 < v2)
        worse = (k1 < k2) or (k1 == k2 and v1 > v2)
        assert compare_plays(v1, k1, v2, k2) == (1 if expect else -1 if worse else 0)
    assert C.may_follow(7, 3, 6, 4) and not C.may_follow(7, 2, 6, 4)
    assert C.may_follow(10, 3, 9, 3) and not C.may_follow(9, 3, 10, 3)


def test_worked_example_of_the_rules_text():
    """The rules' walk-through: 7; 2; 6-6; R-R-R; 9-9-9; 7-7-7-7 -- each player takes the
    replaced play into hand; all others pass; 7-7-7-7 goes face up to its player, who starts
    the next round."""
    g = scenario([{7: 5, 5: 1}, {2: 1, 3: 1}, {6: 2, 4: 1}, {10: 3, 8: 1}, {9: 3, 5: 1}])
    g.apply_action("play 7")
    assert g.hand(0) == {"5": 1, "7": 4} and g.table() == ("7", 0)
    g.apply_action("play 2")
    assert g.hand(1) == {"3": 1, "7": 1} and g.table() == ("2", 1)
    g.apply_action("play 6-6")
    assert g.hand(2) == {"2": 1, "4": 1}
    g.apply_action("play R-R-R")
    assert g.hand(3) == {"6": 2, "8": 1}
    g.apply_action("play 9-9-9")
    assert g.hand(4) == {"5": 1, "R": 3}
    assert g.current_player() == 0
    g.apply_action("play 7-7-7-7")
    assert g.hand(0) == {"5": 1, "9": 3} and g.table() == ("7-7-7-7", 0)
    for seat in (1, 2, 3, 4):
        assert g.current_player() == seat
        g.apply_action("pass")
    assert g.score_pile(0) == {"7": 4}
    assert g.table() is None and g.state[C.ROUND] == 2 and g.current_player() == 0
    assert not any(g.observation(0)["passed"])


def test_hard_pass_is_final_for_the_round():
    """A round: a pass is final for the rest of the round (the passer is skipped)."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}])
    g.apply_action("play 9")
    g.apply_action("pass")  # seat 1
    g.apply_action("play 4")  # seat 2
    assert g.current_player() == 0  # seat 1 skipped
    g.apply_action("pass")
    # seat 0 passed, seat 1 passed: seat 2 takes the 4 face up
    assert g.score_pile(2) == {"4": 1} and g.current_player() == 2


def test_round_winner_banks_face_up_and_starts_next_round():
    """A round: when all but one passed, the table's owner banks it face up and starts."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}])
    g.apply_action("play 9")
    g.apply_action("play 5")
    g.apply_action("pass")
    g.apply_action("pass")
    assert g.score_pile(1) == {"5": 1} and g.hand(1) == {"5": 1, "9": 1}
    assert g.current_player() == 1 and g.state[C.ROUND] == 2
    assert legal_text(g) == ["play 5", "play 9"]  # opens with one card again ([decision])


def test_open_single_every_round_option():
    """[decision] option open_single_every_round=False: later rounds open with any play."""
    g = scenario([{9: 1, 8: 1}, {5: 2}, {4: 1, 3: 1}], open_single_every_round=False)
    for a in ("play 9", "play 5", "pass", "pass"):
        g.apply_action(a)
    assert legal_text(g) == ["play 5", "play 9"]  # seat 1 holds 5, 9
    g = scenario([{9: 1, 8: 1}, {5: 3}, {4: 1, 3: 1}], open_single_every_round=False)
    for a in ("play 9", "play 5", "pass", "pass"):
        g.apply_action(a)
    assert legal_text(g) == ["play 5", "play 9", "play 5-5"]


def test_final_round_emptier_puts_replaced_play_face_down():
    """End of the game: who plays their last card puts the replaced play face down; the final
    round goes on until all but one passed; the owner banks it face up; the game ends."""
    g = scenario([{9: 1, 8: 3, 4: 1}, {5: 1}, {7: 2, 6: 2}])
    g.apply_action("play 9")
    g.apply_action("play 5")  # seat 1's last card: the 9 goes face down
    assert g.face_down(1) == {"9": 1} and g.hand(1) == {}
    assert g.state[C.FINAL] == 1 and not g.is_terminal()
    g.apply_action("play 6-6")  # seat 2 takes the 5 into hand
    assert g.hand(2) == {"5": 1, "7": 2}
    g.apply_action("play 8-8-8")  # seat 0 (count + 1); seat 1 is skipped (empty hand)
    assert g.current_player() == 2 and g.hand(0) == {"4": 1, "6": 2}
    g.apply_action("pass")
    assert g.is_terminal()
    assert g.score_pile(0) == {"8": 3}
    assert g.returns().tolist() == [3.0, 0.0, 0.0]  # face-down cards score nothing


def test_second_emptier_also_places_face_down_and_scores_r():
    """Engine decision EVERY_EMPTIER_PLACES_FACE_DOWN: a second player who empties their hand
    in the final round also puts the replaced play face down (and would score R cards)."""
    assert C.EVERY_EMPTIER_PLACES_FACE_DOWN
    g = scenario([{9: 1, 8: 3}, {5: 1}, {7: 2, 6: 2}])
    for a in ("play 9", "play 5", "play 6-6", "play 8-8-8"):
        g.apply_action(a)
    assert g.face_down(0) == {"6": 2} and g.hand(0) == {}
    assert g.state[C.EMPTIED + 0] == 1 and g.state[C.EMPTIED + 1] == 1
    g.apply_action("pass")
    assert g.is_terminal() and g.returns().tolist() == [3.0, 0.0, 0.0]


def test_empty_hand_player_is_skipped():
    """[decision] EMPTY_HAND_SKIPPED: a player with an empty hand cannot act."""
    assert C.EMPTY_HAND_SKIPPED
    g = scenario([{9: 1, 8: 1}, {5: 1}, {4: 1, 3: 1}])
    g.apply_action("play 9")
    g.apply_action("play 5")
    g.apply_action("play 4")
    assert g.current_player() == 0  # seat 1 has no cards


def test_emptier_owning_the_last_play_takes_it_face_up():
    """[decision] the emptier whose play is last on the table takes it face up as usual;
    option emptier_on_table_scores=False puts it face down."""
    g = scenario([{9: 1, 8: 1}, {5: 1}, {6: 1, 7: 1}])
    g.apply_action("play 9")
    g.apply_action("play 5")  # seat 1 empties
    g.apply_action("pass")
    g.apply_action("pass")
    assert g.is_terminal() and g.score_pile(1) == {"5": 1} and g.returns()[1] == 1
    g = scenario([{9: 1, 8: 1}, {5: 1}, {6: 1, 7: 1}], emptier_on_table_scores=False)
    for a in ("play 9", "play 5", "pass", "pass"):
        g.apply_action(a)
    assert g.score_pile(1) == {} and g.face_down(1) == {"5": 1, "9": 1}
    assert g.returns()[1] == 0


def test_scoring_r_cards_count_only_for_the_emptier():
    """Scoring: 1 point per face-up card, R cards 0 -- except for the player who emptied their
    hand, who scores their face-up R cards too."""
    g = scenario([{10: 2, 9: 1}, {10: 1, 1: 1}, {8: 1, 2: 1}])
    # round 1: seat 0 opens R, seat 1 (R) cannot beat with R... plays 1; seat 2 passes;
    # seat 0 passes -> seat 1 banks the 1 (1 point)
    for a in ("play R", "play 1", "pass", "pass"):
        g.apply_action(a)
    assert g.score_pile(1) == {"1": 1}
    # round 2: seat 1 opens R; seat 2 plays 8; seat 0 plays 9? no: 9 is weaker than 8 -> pass
    g.apply_action("play R")
    assert legal_text(g) == ["pass", "play 2", "play 8"]
    g.apply_action("play 2")  # seat 2 takes R into hand
    g.apply_action("pass")  # seat 0
    g.apply_action("pass")  # seat 1 -> seat 2 banks the 2
    assert g.score_pile(2) == {"2": 1}
    pts_before = [C.points_of(g.state, p) for p in range(3)]
    assert pts_before == [0, 1, 1]
    st = g.state.copy()
    # face-up R cards: 0 points normally, 1 each for an emptier
    st[C.SCORE + C.BLOCK * 0 + C.R] = 3
    assert C.points_of(st, 0) == 0
    st[C.EMPTIED + 0] = 1
    assert C.points_of(st, 0) == 3


def test_match_totals_and_shared_ties():
    """Scoring: a match is 3 games; highest total wins; [decision] ties are shared."""
    df = pd.DataFrame({"points_0": [3, 1, 2, 0, 0, 0], "points_1": [1, 1, 4, 0, 0, 0],
                       "points_2": [0, 0, 0, 1, 1, 1]})
    m = match_results(df, RecurringConfig(n_players=3))
    assert m["total_0"].tolist() == [6, 0] and m["total_1"].tolist() == [6, 0]
    assert m["win_0"].tolist() == [0.5, 0.0] and m["win_2"].tolist() == [0.0, 1.0]
    m = match_results(df, RecurringConfig(n_players=3, match_tie="none"))
    assert m["win_0"].tolist() == [0.0, 0.0] and m["win_2"].tolist() == [0.0, 1.0]
    with pytest.raises(ValueError, match="whole matches"):
        match_results(df.iloc[:4], RecurringConfig(n_players=3))
