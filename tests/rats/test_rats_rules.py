"""Scenario tests of the Rats rules (``rules/rats.md``), one rule per test (named in each)."""

from __future__ import annotations

import numpy as np
import pytest

from engines.rats import RatsConfig, new_game
from engines.rats import core as C
from rats_scenarios import mask, scenario


def leads_text(game):
    return {game.action_to_string(a) for a in game.legal_actions()}


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_deal_first_round_sizes_and_kitty(n):
    """Deal (first round): 54 // n cards each, 54 % n face down as the kitty, D0 remembered."""
    g = new_game(RatsConfig(n_players=n), seed=11)
    st = g.state
    sizes = [C.popcount(st[C.HAND + p]) for p in range(n)]
    assert sizes == [54 // n] * n
    assert C.popcount(st[C.KITTY]) == 54 % n
    assert st[C.D0] == 54 // n
    union = st[C.KITTY]
    for p in range(n):
        assert union & st[C.HAND + p] == 0
        union |= st[C.HAND + p]
    assert union == (1 << 54) - 1


def test_deal_first_leader_parameter_or_drawn():
    """Deal: the first leader is a parameter, or drawn from the game's RNG."""
    assert new_game(RatsConfig(n_players=4, first_leader=2), seed=3).current_player() == 2
    drawn = {new_game(RatsConfig(n_players=4), seed=s).current_player() for s in range(40)}
    assert drawn == {0, 1, 2, 3}


def test_lead_lone_joker_may_not_be_led():
    """Tricks 1: a lone joker may NOT be led; jokers are wild inside sets and sequences."""
    g = scenario(["X1 5s 9h", "2c 3c 4c"])
    t = leads_text(g)
    assert "lead X1" not in t
    assert {"lead 5s", "lead 9h", "lead set 5s X1", "lead set 9h X1"} <= t
    assert "lead run 9h X1" not in t  # two cards are no sequence


def test_lead_hand_of_one_joker_leads_it():
    """Engine decision JOKER_ONLY_LEAD: a hand that is one joker leads it."""
    g = scenario(["X2", "5c"])
    assert leads_text(g) == {"lead X2"}


def test_lead_sets_and_sequences_with_jokers():
    """Tricks 2-3: sets of 2+ equal ranks, sequences of 3+ of one suit, jokers wild."""
    g = scenario(["5s 6s 7s 7h X1", "2c 3c 4c 5c 6c"])
    t = leads_text(g)
    for expected in ["lead set 7h 7s", "lead set 7h 7s X1", "lead set 6s X1", "lead run 5s 6s 7s",
                     "lead run 5s 6s 7s X1", "lead run 6s 7s X1", "lead run 5s 7s X1", "lead 7h"]:
        assert expected in t, expected
    assert "lead run 7h 7s X1" not in t
    assert "lead set 5s 6s" not in t


def test_lead_sequence_ace_low_only_by_default():
    """Tricks 3 + [decision]: A-2-3 is a sequence, Q-K-A is not (option ace_high_sequences)."""
    g = scenario(["As 2s 3s Qs Ks", "2c 3c 4c 5c 6c"])
    t = leads_text(g)
    assert "lead run 2s 3s As" in t
    assert "lead run Qs Ks As" not in t
    g = scenario(["As 2s 3s Qs Ks", "2c 3c 4c 5c 6c"], ace_high_sequences=True)
    assert "lead run Qs Ks As" in leads_text(g)


def test_followers_play_same_number_of_cards_one_at_a_time():
    """Tricks: every other player plays exactly as many cards as the leader, chosen card by
    card; they need not follow suit nor form a combination."""
    g = scenario(["5s 6s 7s 2d", "Ah Kc 2h 9d", "3c 4c 8d Qh"])
    g.apply_action("lead run 5s 6s 7s")
    assert g.current_player() == 1
    assert sorted(g.action_to_string(a) for a in g.legal_actions()) == sorted(
        ["play Ah", "play Kc", "play 2h", "play 9d"])
    g.apply_action("play Kc")
    g.apply_action("play 2h")
    assert g.current_player() == 1
    with pytest.raises(ValueError):
        g.apply_action("play Kc")  # already played
    g.apply_action("play 9d")
    assert g.current_player() == 2
    for c in ("3c", "4c", "8d"):
        g.apply_action(f"play {c}")
    # the trick is over: the leader's sequence wins (no follower matched), 9 cards captured
    assert g.current_player() == 0
    assert C.popcount(g.state[C.CAPT + 0]) == 9
    assert g.state[C.HAND + 1] == mask("Ah")


def test_trick_winner_captures_face_down_and_leads_next():
    """Tricks: the trick's winner takes its cards into their capture pile and leads next."""
    g = scenario(["7h 2c", "9h 3c", "Ah 4d"])
    g.apply_action("lead 7h")
    g.apply_action("play 9h")
    g.apply_action("play 4d")
    assert g.current_player() == 1
    assert g.state[C.CAPT + 1] == mask("7h 9h 4d")
    assert g.state[C.TABLE + 0] == g.state[C.TABLE + 1] == g.state[C.TABLE + 2] == 0


def _round_one(**config):
    """3 players, kitty 2c 3c: seat 0 wins trick 1, seat 1 the last trick, seat 2 nothing."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c", **config)
    for a in ("lead As", "play Kh", "play 7c", "lead 5d", "play 6d", "play Qc"):
        g.apply_action(a)
    return g


def test_end_of_round_elimination_kitty_and_next_leader():
    """End of a round: no captures = eliminated; the first round's last-trick winner takes the
    kitty; holdings = captures; the last-trick winner leads the next round."""
    g = _round_one()
    st = g.state
    assert st[C.ALIVE + 2] == 0 and st[C.ELIM_ROUND + 2] == 1
    assert st[C.KITTY] == 0
    # round 2 has begun: each holding is now hand + set aside
    assert sorted(g.hand(1) + g.holding(1)) == sorted(mask_ids("5d 6d Qc 2c 3c"))
    assert sorted(g.hand(0) + g.holding(0)) == sorted(mask_ids("As Kh 7c"))
    assert g.current_player() == 1 and st[C.ROUND] == 2


def mask_ids(text):
    m = mask(text)
    return [c for c in range(54) if (m >> c) & 1]


def test_later_rounds_hand_size_is_smallest_holding():
    """Later rounds: H = min(D0, smallest holding); each survivor draws H from their holding,
    the rest stays set aside."""
    g = _round_one()
    st = g.state
    assert st[C.HAND_SIZE] == 3
    assert C.popcount(st[C.HAND + 0]) == 3 and st[C.ASIDE + 0] == 0
    assert C.popcount(st[C.HAND + 1]) == 3 and C.popcount(st[C.ASIDE + 1]) == 2
    assert st[C.HAND + 1] | st[C.ASIDE + 1] == mask("5d 6d Qc 2c 3c")


def test_later_rounds_cap_with_two_survivors():
    """Later rounds: H = min(D0, smallest holding) never exceeds the first deal: two survivors
    holding 24 cards each get H = D0 = 13."""
    big = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks 2h 3h 4h 5h 6h 7h 8h 9h"
    big1 = "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd 2c 3c 4c 5c 6c 7c 8c 9c"
    g = scenario(["As 2d", "Ah Kd", "Ac Qh", "X1 X2"], aside=[big, big1, "", ""])
    for a in ("lead As", "play Ah", "play Ac", "play X1", "lead 2d", "play Kd", "play Qh",
              "play X2"):
        g.apply_action(a)
    st = g.state
    assert [st[C.ALIVE + p] for p in range(4)] == [1, 1, 0, 0]
    assert st[C.HAND_SIZE] == 13 == st[C.D0]
    assert C.popcount(st[C.HAND + 0]) == 13 and C.popcount(st[C.HAND + 1]) == 13


def test_end_of_game_last_survivor_wins():
    """End of the game (default): at most one player remains; that player wins."""
    g = scenario(["As Ks", "2h 3h", "Ah 4d"])
    for a in ("lead As", "play 2h", "play Ah", "lead Ks", "play 3h", "play 4d"):
        g.apply_action(a)
    assert g.is_terminal()
    assert g.returns().tolist() == [1.0, 0.0, 0.0]
    assert g.places().tolist() == [1, 2, 2]


def _two_survivors(hands, **config):
    g = scenario(hands, **config)
    h0, h1 = hands[0].split(), hands[1].split()
    g.apply_action(f"lead {h0[0]}")
    g.apply_action(f"play {h1[0]}")
    g.apply_action(f"lead {h0[1]}")
    g.apply_action(f"play {h1[1]}")
    return g


def test_max_rounds_variant_most_cards_then_spades():
    """Variant max_rounds: stop after k rounds; most cards in holding wins, ties broken by
    more spades (then hearts, then diamonds)."""
    g = _two_survivors(["As 2h", "Kd 3h"], max_rounds=1)
    assert g.is_terminal()
    assert g.returns().tolist() == [1.0, 0.0]  # 2 cards each, seat 0 has a spade
    assert not g.state[C.TRUNCATED]


def test_max_rounds_variant_remaining_tie_shared_or_none():
    """[decision] a tie left after the tie-breaks is shared (option max_rounds_tie='none')."""
    g = _two_survivors(["Ah 3h", "2h 4h"], max_rounds=1)
    assert g.returns().tolist() == [0.5, 0.5]
    assert g.places().tolist() == [1, 1]
    g = _two_survivors(["Ah 3h", "2h 4h"], max_rounds=1, max_rounds_tie="none")
    assert g.returns().tolist() == [0.0, 0.0]


def test_round_cap_ends_as_variant_and_flags_truncated():
    """[decision] safety cap: after round_cap rounds the game ends as in the variant, flagged
    truncated."""
    g = _two_survivors(["As 2h", "Kd 3h"], round_cap=1)
    assert g.is_terminal() and g.state[C.TRUNCATED] == 1
    assert g.returns().tolist() == [1.0, 0.0]


def test_kitty_only_in_first_round():
    """End of a round: only the first round's last-trick winner takes the kitty."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c", round_no=2)
    for a in ("lead As", "play Kh", "play 7c", "lead 5d", "play 6d", "play Qc"):
        g.apply_action(a)
    assert g.state[C.KITTY] == mask("2c 3c")
    assert C.popcount(g.state[C.ASIDE + 1]) + C.popcount(g.state[C.HAND + 1]) == 3


def test_observation_hides_other_hands_kitty_and_rng():
    """Hidden information: a player sees own cards, the table and public counts only."""
    g = new_game(RatsConfig(n_players=3), seed=5)
    obs = g.observation(0)
    assert obs["hand"] == g.hand(0)
    arr = g.observation_array(0)
    assert arr[C.HAND + 1] == 0 and arr[C.HAND + 2] == 0 and arr[C.KITTY] == 0
    assert arr[C.RNG] == 0
    assert obs["hand_sizes"] == [18, 18, 18] and obs["kitty_size"] == 0
    g4 = new_game(RatsConfig(n_players=4), seed=5)
    assert g4.observation(2)["kitty_size"] == 2
    assert np.array_equal(g4.observation_array(2)[C.HAND + 2], g4.state[C.HAND + 2])
