"""Scenario tests of the Rats rules (``rules/rats.md``), one rule per test (named in each), in
the card-by-card encoding: a lead is the kind, its cards in ascending id order, then FINISH."""

from __future__ import annotations

import pytest

from engines.rats import RatsConfig, new_game
from engines.rats import core as C
from rats_scenarios import ids, lead_texts, legal, mask, play, scenario


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
    t = lead_texts(g)
    assert "single X1" not in t
    assert {"single 5s", "single 9h", "set 5s X1", "set 9h X1"} <= t
    assert not any(x.startswith("run") for x in t)  # two cards are no sequence
    assert g.legal_actions() == [C.LEAD_SINGLE, C.LEAD_SET]
    g.apply_action(C.LEAD_SINGLE)
    assert g.legal_actions() == ids(mask("5s 9h"))


def test_lead_hand_of_one_joker_leads_it():
    """Engine decision JOKER_ONLY_LEAD: a hand that is one joker leads it (a single)."""
    g = scenario(["X2", "5c"])
    assert lead_texts(g) == {"single X2"}
    assert g.legal_actions() == [C.LEAD_SINGLE]
    g.apply_action(C.LEAD_SINGLE)
    assert g.legal_actions() == [53]


def test_lead_sets_and_sequences_with_jokers():
    """Tricks 2-3: sets of 2+ equal ranks, sequences of 3+ of one suit, jokers wild."""
    g = scenario(["5s 6s 7s 7h X1", "2c 3c 4c 5c 6c"])
    t = lead_texts(g)
    for expected in ["set 7h 7s", "set 7h 7s X1", "set 6s X1", "run 5s 6s 7s",
                     "run 5s 6s 7s X1", "run 6s 7s X1", "run 5s 7s X1", "single 7h"]:
        assert expected in t, expected
    assert "run 7h 7s X1" not in t
    assert "set 5s 6s" not in t
    assert g.legal_actions() == [C.LEAD_SINGLE, C.LEAD_SET, C.LEAD_SEQ]


def test_lead_sequence_ace_low_only_by_default():
    """Tricks 3 + [decision]: A-2-3 is a sequence, Q-K-A is not (option ace_high_sequences)."""
    g = scenario(["As 2s 3s Qs Ks", "2c 3c 4c 5c 6c"])
    t = lead_texts(g)
    assert "run 2s 3s As" in t
    assert "run Qs Ks As" not in t
    g = scenario(["As 2s 3s Qs Ks", "2c 3c 4c 5c 6c"], ace_high_sequences=True)
    assert "run Qs Ks As" in lead_texts(g)


def test_lead_is_declared_then_built_in_ascending_order():
    """Action table: the leader declares the kind, adds cards in ascending id order (a card is
    legal iff a lead of that kind continues with it), then finishes when the cards form a
    lead."""
    g = scenario(["5s 6s 7s 7h 9s", "2c 3c 4c 5c 6c"])
    g.apply_action(C.LEAD_SEQ)
    assert g.phase() == "build"
    # only 5s starts a run (5s 6s 7s): 6s/7s cannot be the smallest card, 7h, 9s fit no run
    assert g.legal_actions() == ids(mask("5s"))
    g.apply_action(ids(mask("5s"))[0])
    assert g.legal_actions() == ids(mask("6s"))  # 7s would leave a gap no joker fills
    g.apply_action(ids(mask("6s"))[0])
    assert g.legal_actions() == ids(mask("7s"))  # not complete yet: FINISH illegal
    g.apply_action(ids(mask("7s"))[0])
    # 5s 6s 7s cannot grow (8s missing), yet the lead waits for FINISH: completing by itself
    # would tell the others that seat 0 holds no card to extend it
    assert g.current_player() == 0 and g.phase() == "build"
    assert g.legal_actions() == [C.FINISH]
    g.apply_action(C.FINISH)
    assert g.current_player() == 1 and g.phase() == "follow"
    assert g.state[C.LEAD_N] == 3 and g.state[C.TABLE + 0] == mask("5s 6s 7s")


def test_lead_finish_when_it_could_grow():
    """FINISH is a decision while the lead could still grow; it is legal only when the cards
    chosen form a lead."""
    g = scenario(["5s 6s 7s 8s", "2c 3c 4c 5c"])
    play(g, "run", "5s", "6s", "7s")
    assert g.legal_actions() == ids(mask("8s")) + [C.FINISH]
    assert g.action_to_string(C.FINISH) == "finish lead"
    g.apply_action(C.FINISH)
    assert g.state[C.TABLE + 0] == mask("5s 6s 7s") and g.current_player() == 1


def test_lead_completes_by_itself_only_as_a_single_or_with_an_empty_hand():
    """Engine rule (action table): a single completes with its card and a lead that empties
    its leader's hand completes by itself (both are public facts: a single has one card, hand
    sizes are public); any other lead waits for FINISH, even when FINISH is its only legal
    action."""
    g = scenario(["7s 7h", "2c 3c"])
    play(g, "single", "7h")
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 1 and g.current_player() == 1
    g = scenario(["X2", "5c"])  # a lone joker led as a single
    play(g, "single", "X2")
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 1
    # a set of all four 7s and both jokers: nothing can be added, still FINISH is a decision
    g = scenario(["7c 7d 7h 7s X1 X2 2c", "3c 4c 5c 6c 8c 9c Tc"])
    play(g, "set", "7c", "7d", "7h", "7s", "X1")
    assert g.legal_actions() == [53, C.FINISH]
    g.apply_action(53)
    assert g.phase() == "build" and g.current_player() == 0
    assert g.legal_actions() == [C.FINISH]
    g.apply_action(C.FINISH)
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 6
    # the same set emptying the hand completes by itself
    g = scenario(["7c 7d 7h 7s X1 X2", "2c 3c 4c 5c 6c 8c"])
    assert g.parse_move("set 7c 7d 7h 7s X1 X2") == [C.LEAD_SET] + ids(mask("7c 7d 7h 7s X1 X2"))
    play(g, "set 7c 7d 7h 7s X1 X2")
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 6
    # a 13-card run: with another card in hand it waits, as the whole hand it completes
    suit = " ".join(f"{r}d" for r in "23456789TJQKA")
    g = scenario([suit + " 2c", suit.replace("d", "c").replace("2c", "") + " 3h 4h"])
    play(g, "run", *suit.split())
    assert g.phase() == "build" and g.legal_actions() == [C.FINISH]
    g.apply_action(C.FINISH)
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 13
    g = scenario([suit, suit.replace("d", "c")])
    play(g, "run", *suit.split()[:-1])
    assert g.phase() == "build"
    g.apply_action(ids(mask("Ad"))[0])
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 13
    # a two-card set that empties the hand
    g = scenario(["7s 7h", "2c 3c"])
    play(g, "set", "7h", "7s")
    assert g.phase() == "follow" and g.state[C.LEAD_N] == 2


@pytest.mark.parametrize("kind,lead,fillers,other", [
    ("run", "5s 6s 7s", ["2c", "9h", "8s", "4s", "X1", "Kd"], "3c 4c 5c 6c"),
    ("set", "7h 7s", ["2c", "7c", "7d", "X1", "9h"], "3c 4c 5c"),
])
def test_completion_does_not_reveal_the_leaders_other_cards(kind, lead, fillers, other):
    """The case that used to leak: after the same public choices (the kind, then the same
    cards) the game goes on identically whatever the leader's other card is (one that extends
    the lead or not): the leader still acts in the build phase with FINISH legal, every other
    seat observes the same thing, and after FINISH the follower faces the same state."""
    seen, after = set(), set()
    for f in fillers:
        g = scenario([f"{lead} {f}", other])
        play(g, kind, *lead.split())
        assert g.current_player() == 0 and g.phase() == "build"
        legal_now = g.legal_actions()
        assert legal_now[-1] == C.FINISH
        assert set(legal_now[:-1]) <= set(ids(mask(f)))  # only the extra card can differ
        seen.add(g.information_state(1).tobytes())
        g.apply_action(C.FINISH)
        assert g.current_player() == 1 and g.state[C.LEAD_N] == len(lead.split())
        after.add((g.information_state(1).tobytes(), tuple(g.legal_actions())))
    assert len(seen) == 1 and len(after) == 1


def test_lead_interchangeable_jokers_lower_first():
    """A lead with one joker uses the lower joker id: X2 alone is never legal while X1 is
    held; a whole lead named with X2 is mapped to X1."""
    g = scenario(["7s X1 X2", "2c 3c 4c"])
    play(g, "set", "7s")
    assert g.legal_actions() == [52]  # not X2: the lower joker goes first
    play(g, "X1")
    assert g.legal_actions() == [53, C.FINISH]
    g = scenario(["7s X1 X2", "2c 3c 4c"])
    assert g.parse_move("set 7s X2") == [C.LEAD_SET, ids(mask("7s"))[0], 52, C.FINISH]


def test_followers_play_same_number_of_cards_one_at_a_time():
    """Tricks: every other player plays exactly as many cards as the leader, chosen card by
    card; they need not follow suit nor form a combination."""
    g = scenario(["5s 6s 7s 2d", "Ah Kc 2h 9d", "3c 4c 8d Qh"])
    play(g, "lead run 5s 6s 7s")
    assert g.current_player() == 1
    assert sorted(g.action_to_string(a) for a in g.legal_actions()) == sorted(
        ["play Ah", "play Kc", "play 2h", "play 9d"])
    play(g, "play Kc", "play 2h")
    assert g.current_player() == 1
    with pytest.raises(ValueError):
        g.apply_action(g.string_to_action("play Kc"))  # already played
    play(g, "play 9d")
    assert g.current_player() == 2
    play(g, "play 3c 4c 8d")
    # the trick is over: the leader's sequence wins (no follower matched), 9 cards captured
    assert g.current_player() == 0
    assert C.popcount(g.state[C.CAPT + 0]) == 9
    assert g.state[C.HAND + 1] == mask("Ah")


def test_trick_winner_captures_and_leads_next():
    """Tricks: the trick's winner takes its cards into their capture pile and leads next."""
    g = scenario(["7h 2c", "9h 3c", "Ah 4d"])
    play(g, "lead 7h", "play 9h", "play 4d")
    assert g.current_player() == 1 and g.phase() == "declare"
    assert g.state[C.CAPT + 1] == mask("7h 9h 4d")
    assert g.state[C.TABLE + 0] == g.state[C.TABLE + 1] == g.state[C.TABLE + 2] == 0
    assert g.state[C.TRICKS] == 1 and C.progress(g.state, 0) == 1


def test_sets_later_equal_play_wins_in_a_game():
    """Who takes the trick, sets: highest rank; equal rank, the later play (in a real trick)."""
    g = scenario(["9s 9h 2c", "9c 9d 3c", "Ks 4d 5d"])
    play(g, "set 9h 9s", "play 9c 9d", "play Ks 4d")
    assert C.popcount(g.state[C.CAPT + 1]) == 6 and g.current_player() == 1


def _round_one(**config):
    """3 players, kitty 2c 3c: seat 0 wins trick 1, seat 1 the last trick, seat 2 nothing."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c", **config)
    play(g, "lead As", "play Kh", "play 7c", "lead 5d", "play 6d", "play Qc")
    return g


def test_end_of_round_elimination_kitty_and_next_leader():
    """End of a round: no captures = eliminated; the first round's last-trick winner takes the
    kitty; holdings = captures; the last-trick winner leads the next round."""
    g = _round_one()
    st = g.state
    assert st[C.ALIVE + 2] == 0 and st[C.ELIM_ROUND + 2] == 1
    assert st[C.KITTY] == 0
    # round 2 has begun: each holding is now hand + set aside
    assert sorted(g.hand(1) + g.holding(1)) == ids(mask("5d 6d Qc 2c 3c"))
    assert sorted(g.hand(0) + g.holding(0)) == ids(mask("As Kh 7c"))
    assert g.current_player() == 1 and st[C.ROUND] == 2 and C.progress(st, 1) == 2


def test_later_rounds_hand_size_is_smallest_holding():
    """Later rounds: H = min(D0, smallest holding); each survivor draws H from their holding,
    the rest stays set aside."""
    st = _round_one().state
    assert st[C.HAND_SIZE] == 3
    assert C.popcount(st[C.HAND + 0]) == 3 and st[C.ASIDE + 0] == 0
    assert C.popcount(st[C.HAND + 1]) == 3 and C.popcount(st[C.ASIDE + 1]) == 2
    assert st[C.HAND + 1] | st[C.ASIDE + 1] == mask("5d 6d Qc 2c 3c")


def test_later_rounds_draw_is_uniform():
    """Later rounds: the survivor shuffles the holding and draws H: every 3-card hand of the
    5-card holding appears, none far from 1/10 (400 seeds)."""
    seen = {}
    for seed in range(400):
        g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c")
        g.state[C.RNG] = seed * 7919
        play(g, "lead As", "play Kh", "play 7c", "lead 5d", "play 6d", "play Qc")
        h = int(g.state[C.HAND + 1])
        seen[h] = seen.get(h, 0) + 1
    assert len(seen) == 10 and min(seen.values()) > 20


def test_later_rounds_cap_with_two_survivors():
    """Later rounds: H = min(D0, smallest holding) never exceeds the first deal: two survivors
    holding 24 cards each get H = D0 = 13."""
    big = "2s 3s 4s 5s 6s 7s 8s 9s Ts Js Qs Ks 2h 3h 4h 5h 6h 7h 8h 9h"
    big1 = "2d 3d 4d 5d 6d 7d 8d 9d Td Jd Qd Kd 2c 3c 4c 5c 6c 7c 8c 9c"
    g = scenario(["As 2d", "Ah Kd", "Ac Qh", "X1 X2"], aside=[big, big1, "", ""])
    play(g, "lead As", "play Ah", "play Ac", "play X1", "lead 2d", "play Kd", "play Qh",
         "play X2")
    st = g.state
    assert [st[C.ALIVE + p] for p in range(4)] == [1, 1, 0, 0]
    assert st[C.HAND_SIZE] == 13 == st[C.D0]
    assert C.popcount(st[C.HAND + 0]) == 13 and C.popcount(st[C.HAND + 1]) == 13


def test_end_of_game_last_survivor_wins():
    """End of the game (default): at most one player remains; that player wins."""
    g = scenario(["As Ks", "2h 3h", "Ah 4d"])
    play(g, "lead As", "play 2h", "play Ah", "lead Ks", "play 3h", "play 4d")
    assert g.is_terminal() and g.current_player() == -1 and g.legal_actions() == []
    assert g.returns() == [1.0, 0.0, 0.0]
    assert g.places() == [1, 2, 2]
    out = g.outcome()
    assert out["place_0"] == 1 and out["elim_round_1"] == 1 and out["holding_0"] == 6


def _two_survivors(hands, **config):
    g = scenario(hands, **config)
    h0, h1 = hands[0].split(), hands[1].split()
    play(g, f"lead {h0[0]}", f"play {h1[0]}", f"lead {h0[1]}", f"play {h1[1]}")
    return g


def test_max_rounds_variant_most_cards_then_spades():
    """Variant max_rounds: stop after k rounds; most cards in holding wins, ties broken by
    more spades (then hearts, then diamonds)."""
    g = _two_survivors(["As 2h", "Kd 3h"], max_rounds=1)
    assert g.is_terminal()
    assert g.returns() == [1.0, 0.0]  # 2 cards each, seat 0 has a spade
    assert not g.state[C.TRUNCATED]


def test_max_rounds_variant_remaining_tie_shared_or_none():
    """[decision] a tie left after the tie-breaks is shared (option max_rounds_tie='none')."""
    g = _two_survivors(["Ah 3h", "2h 4h"], max_rounds=1)
    assert g.returns() == [0.5, 0.5]
    assert g.places() == [1, 1]
    g = _two_survivors(["Ah 3h", "2h 4h"], max_rounds=1, max_rounds_tie="none")
    assert g.returns() == [0.0, 0.0]


def test_round_cap_ends_as_variant_and_flags_truncated():
    """[decision] safety cap: after round_cap rounds the game ends as in the variant, flagged
    truncated."""
    g = _two_survivors(["As 2h", "Kd 3h"], round_cap=1)
    assert g.is_terminal() and g.state[C.TRUNCATED] == 1
    assert g.returns() == [1.0, 0.0] and g.outcome()["truncated"] == 1


def test_max_game_length_ends_the_game_truncated():
    """MAX_GAME_LENGTH is a real bound: the decision that reaches it ends the game as in the
    variant (the trick in progress is void: its cards go back to the hands), truncated."""
    g = scenario(["As 2h", "Kd 3h", "Qc 4c"])
    play(g, "lead As")
    g.state[C.DECISIONS] = C.MAX_GAME_LENGTH - 1
    g.apply_action(g.string_to_action("play Kd"))
    st = g.state
    assert g.is_terminal() and st[C.TRUNCATED] == 1 and st[C.DECISIONS] == C.MAX_GAME_LENGTH
    assert st[C.HAND + 0] == mask("As 2h") and st[C.HAND + 1] == mask("Kd 3h")
    assert all(st[C.TABLE + q] == 0 for q in range(3))
    assert g.returns() == [1.0, 0.0, 0.0]  # 2 cards each; seat 0 holds a spade
    assert g.outcome()["truncated"] == 1 and g.outcome()["holding_2"] == 2


def test_kitty_only_in_first_round():
    """End of a round: only the first round's last-trick winner takes the kitty."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c", round_no=2)
    play(g, "lead As", "play Kh", "play 7c", "lead 5d", "play 6d", "play Qc")
    assert g.state[C.KITTY] == mask("2c 3c")
    assert C.popcount(g.state[C.ASIDE + 1]) + C.popcount(g.state[C.HAND + 1]) == 3


def test_observation_hides_other_hands_kitty_and_rng():
    """Hidden information: a player sees own cards, the tables, the capture piles (played face
    up) and public counts only."""
    g = new_game(RatsConfig(n_players=3), seed=5)
    obs = g.observation(0)
    assert obs["hand"] == g.hand(0)
    arr = g.observation_array(0)
    assert arr[C.HAND + 1] == 0 and arr[C.HAND + 2] == 0 and arr[C.KITTY] == 0
    assert arr[C.RNG] == 0 and arr[C.OBS_PLAYER] == 0
    assert obs["hand_sizes"] == [18, 18, 18] and obs["kitty_size"] == 0
    assert obs["known_holdings"] is None
    g4 = new_game(RatsConfig(n_players=4), seed=5)
    assert g4.observation(2)["kitty_size"] == 2
    assert g4.observation_array(2)[C.HAND + 2] == g4.state[C.HAND + 2]
    text = g4.table(2)
    for q in (0, 1, 3):
        assert "13 cards" in text.splitlines()[1 + q]
    assert "kitty 2 cards" in text and "kitty [" in g4.table()


def test_legal_actions_of_follow_phase_are_the_hand():
    """What an engine must expose: a follower may play any card of the hand."""
    g = scenario(["5s 6s", "Ah Kc 2h", "3c 4c 8d"])
    play(g, "5s")
    assert legal(g.state) == ids(mask("Ah Kc 2h"))
