"""Scenario tests, one or more per rule bullet of ``docs/rules/river_rats.md``; each test's
name and docstring say which rule it checks."""

from __future__ import annotations

import numpy as np
import pytest

from engines.river_rats import RiverRatsConfig, new_game
from engines.river_rats import core as C

from .helpers import (
    card_counts,
    clear,
    ids,
    pile,
    put,
    resolve_with,
    set_hand,
    set_rat,
    stack_deck,
    to_play_phase,
)

A = C  # short alias for action kinds


def act(kind: int, arg: int = 0) -> int:
    return kind * 64 + arg


def game(**kw):
    seed = kw.pop("seed", 7)
    return new_game(RiverRatsConfig(**kw), seed)


# ---- Setup ------------------------------------------------------------------------------------
def test_setup_1_each_player_takes_a_different_ace():
    """Setup 1: each player takes a different Ace; random by default, fixed by `characters`."""
    for seed in range(20):
        st = new_game(RiverRatsConfig(n_players=3), seed)
        chars = [int(st.array[C.CHAR0 + p]) for p in range(3)]
        assert len(set(chars)) == 3
        assert sorted(pile(st.array, C.CHARS)) == sorted(48 + s for s in chars)
    st = game(n_players=2, characters=("H", "C"))
    assert [int(st.array[C.CHAR0 + p]) for p in range(2)] == [2, 0]


def test_setup_2_ordered_rat_pair_active_and_waiting():
    """Setup 2: the first King is the active Rat, the second waits face down."""
    st = game(rats=("D", "S"))
    a = st.array
    assert (a[C.ACTIVE], a[C.WAITING]) == (1, 3)
    assert 4 * 11 + 1 in pile(a, C.RAT)
    assert pile(a, C.ASIDE) == [4 * 11 + 3]
    firsts = {int(new_game(RiverRatsConfig(), s).array[C.FIRST_RAT]) for s in range(40)}
    assert firsts == {0, 1, 2, 3}


def test_setup_3_to_5_deck_deal_and_market():
    """Setup 3-5: deck of 50 - n cards (jokers aside), 2 cards each, market of 3."""
    for n in range(1, 5):
        st = game(n_players=n, rats=("H", "S"))
        a = st.array
        for p in range(n):
            assert a[C.hand_base(p)] == 2
        assert a[C.MARKET] == 3
        assert pile(a, C.JSUP) == [52, 53]
        # deck after setup: 50 - n - 2n dealt - 3 market - 7 Rat cards - 1 prediction
        assert a[C.DECK] == 50 - n - 2 * n - 3 - 7 - 1
        assert card_counts(a).tolist() == [1] * 54


# ---- Round setup ------------------------------------------------------------------------------
def test_round_setup_1_rat_hand_king_five_up_two_down():
    """Round setup 1: the Rat's hand is its King, 5 face-up and 2 face-down cards."""
    a = game(rats=("H", "S")).array
    assert a[C.RAT] == 8
    ups = a[C.RAT_UP:C.RAT_UP + 8].tolist()
    assert sum(ups) == 6 and ups[0] == 1 and pile(a, C.RAT)[0] == 4 * 11 + 2


def test_round_setup_1_club_rat_two_extra_facedown():
    """Round setup 1 / ♣K ability: the ♣ Rat's hand has 2 extra face-down cards."""
    a = game(rats=("C", "S")).array
    assert a[C.RAT] == 10 and sum(a[C.RAT_UP:C.RAT_UP + 10]) == 6


def test_round_setup_2_prediction_is_first_debt_card():
    """Round setup 2: the top deck card is the joker prediction and the first card at stake."""
    st = game(rats=("H", "S"))
    a = st.array
    assert a[C.STAKE] == 1 and pile(a, C.STAKE)[0] == a[C.PRED_CARD]
    assert a[C.PRED_CAT] == C.prediction_category(a[C.PRED_CARD])


def test_resolution_1_prediction_category_by_rank():
    """Resolution 1: A -> straight flush, K -> four, Q J 10 -> full house, 9-6 -> flush,
    5-2 -> straight."""
    want = {12: 8, 11: 7, 10: 6, 9: 6, 8: 6, 7: 5, 6: 5, 5: 5, 4: 5, 3: 4, 2: 4, 1: 4, 0: 4}
    for r, cat in want.items():
        for su in range(4):
            assert C.prediction_category(4 * r + su) == cat


def test_round_setup_3_diamond_rat_first_collective_card():
    """Round setup 3: with the ♦ Rat active the round starts with a face-up collective card."""
    a = game(rats=("D", "S")).array
    assert a[C.COLL] == 1 and a[C.COLL_FD] == 0
    a2 = game(rats=("H", "S")).array
    assert a2[C.COLL] == 0


def test_round_setup_4_market_refilled_to_capacity():
    """Round setup 4: the market is refilled up to its capacity at each round setup."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    clear(a, C.MARKET)
    resolve_with(st, ids("2c 7d 9h Js 4c"), ids("Qc Qd Qs Jc Jd"))
    assert a[C.MARKET] == 3


# ---- A turn -----------------------------------------------------------------------------------
def test_turn_first_turn_is_seat_0_and_option_first_player():
    """A turn [decision]: the first turn of the game is seat 0's (option `first_player`)."""
    assert game(n_players=3).current_player() == 0
    assert game(n_players=3, first_player=2).current_player() == 2


def test_turn_draw_refills_hand_to_3_card_by_card_market_refills():
    """A turn, draw and play: refill to 3 one card at a time from market or deck; the market
    refills after each market draw; then play."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    set_hand(a, 0, ids("2c"))
    a[C.PHASE] = C.PH_DRAW
    m = pile(a, C.MARKET)[0]
    st.apply_action(act(C.K_DRAW_MARKET, m))
    assert a[C.MARKET] == 3 and m in pile(a, C.hand_base(0)) and a[C.PHASE] == C.PH_DRAW
    st.apply_action(act(C.K_DRAW_DECK))
    assert a[C.hand_base(0)] == 3 and a[C.PHASE] == C.PH_PLAY
    assert all(k == C.K_PLAY for k in (x >> 6 for x in st.legal_actions()))


def test_turn_play_then_optional_action_ends_turn():
    """A turn: after playing a card the suit action/power is optional ("no action")."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    set_hand(a, 0, ids("2h 5c 9d"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5c")[0]))
    assert act(C.K_NONE) in st.legal_actions()
    st.apply_action(act(C.K_NONE))
    assert st.current_player() == 1 and ids("5c")[0] in pile(a, C.COLL)


def test_powers_only_for_the_character_suit_and_not_at_first_game():
    """Powers: only a card of the player's character suit offers the power, never at
    `first_game`."""
    st = game(n_players=2, rats=("H", "S"), characters=("S", "C"))
    a = st.array
    set_hand(a, 0, ids("2s 5c 9d"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("2s")[0]))
    kinds = {x >> 6 for x in st.legal_actions()}
    assert C.K_PDISCARD in kinds and C.K_DISCARD in kinds
    st2 = game(n_players=2, rats=("H", "S"), characters=("S", "C"))
    set_hand(st2.array, 0, ids("2c 5s 9d"))
    to_play_phase(st2.array, 0)
    st2.apply_action(act(C.K_PLAY, ids("2c")[0]))
    assert {x >> 6 for x in st2.legal_actions()} == {C.K_NONE, C.K_PUSH}
    st3 = game(n_players=2, rats=("H", "S"), characters=("S", "C"), difficulty="first_game")
    set_hand(st3.array, 0, ids("2s 5c 9d"))
    to_play_phase(st3.array, 0)
    st3.apply_action(act(C.K_PLAY, ids("2s")[0]))
    assert C.K_PDISCARD not in {x >> 6 for x in st3.legal_actions()}


def _earn_joker(a):
    put(a, 52, C.JUP)


def test_turn_joker_only_when_earned_one_per_hand_and_leaves_game():
    """A turn, play a joker: only an earned face-up joker, at most one per collective hand; a
    used joker leaves the game at cleanup."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    assert C.K_JOKER not in {x >> 6 for x in st.legal_actions()}
    _earn_joker(a)
    put(a, 53, C.JUP)
    assert act(C.K_JOKER, 53) in st.legal_actions()
    st.apply_action(act(C.K_JOKER, 53))
    assert 53 in pile(a, C.COLL) and st.current_player() == 1
    assert C.K_JOKER not in {x >> 6 for x in st.legal_actions()}  # one per collective hand
    resolve_with(st, [53] + ids("2c 7d 9h 4c"), ids("Qc Qd Qs Jc Jd"))
    assert 53 in pile(a, C.OUT)
    assert C.K_JOKER in {x >> 6 for x in st.legal_actions()}  # the other one, next hand


def test_spade_rat_first_card_face_down_no_action_no_swap_no_joker():
    """♠K ability: the first card of each collective hand is face down, has no action, cannot
    be swapped and cannot be a joker; it counts normally at resolution."""
    st = game(n_players=2, rats=("S", "H"))
    a = st.array
    _earn_joker(a)
    set_hand(a, 0, ids("9d Td Jd"))
    to_play_phase(a, 0)
    a[C.DRAWN] = 0
    assert C.K_JOKER not in {x >> 6 for x in st.legal_actions()}
    st.apply_action(act(C.K_PLAY, ids("9d")[0]))
    assert a[C.COLL_FD] == 1 and st.current_player() == 1  # no action phase
    obs1 = st.observation(1)
    assert obs1["collective"] == [-1]
    assert st.observation(0)["collective"] == ids("9d")
    set_hand(a, 1, ids("2d 3d 4d"))
    to_play_phase(a, 1)
    st.apply_action(act(C.K_PLAY, ids("2d")[0]))
    assert not any(x >> 6 == C.K_SWAP_OUT for x in st.legal_actions())


# ---- Suit actions -----------------------------------------------------------------------------
def test_club_action_puts_hand_card_in_market_max_6():
    """Suit action ♣: put 1 card from hand face up into the market (market max 6)."""
    st = game(n_players=2, rats=("H", "S"), characters=("D", "H"))
    a = st.array
    set_hand(a, 0, ids("5c 8h 9s"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5c")[0]))
    st.apply_action(act(C.K_PUSH, ids("8h")[0]))
    assert ids("8h")[0] in pile(a, C.MARKET) and a[C.MARKET] == 4
    for c in ids("2d 3d"):
        put(a, c, C.MARKET)
    set_hand(a, 1, ids("6c 7c 8c"))
    to_play_phase(a, 1)
    st.apply_action(act(C.K_PLAY, ids("6c")[0]))
    assert a[C.MARKET] == 6 and st.legal_actions() == [act(C.K_NONE)]


def test_club_action_solo_takes_top_deck_card():
    """Solo: the ♣ action takes its card from the top of the deck instead of the hand."""
    st = game(n_players=1, rats=("H", "S"), characters=("D",))
    a = st.array
    set_hand(a, 0, ids("5c 8h 9s"))
    to_play_phase(a, 0)
    stack_deck(a, ids("Qd"))
    st.apply_action(act(C.K_PLAY, ids("5c")[0]))
    assert st.legal_actions() == [act(C.K_NONE), act(C.K_PUSH, C.DECK_TOP)]
    st.apply_action(act(C.K_PUSH, C.DECK_TOP))
    assert ids("Qd")[0] in pile(a, C.MARKET) and a[C.hand_base(0)] == 2


def test_diamond_action_swaps_with_hand_card_not_joker_not_played():
    """Suit action ♦: swap another collective card (not a joker, not face down, not the card
    just played) with a hand card; the swapped-out card goes to hand, its action does not
    trigger."""
    st = game(n_players=2, rats=("H", "S"), characters=("C", "H"))
    a = st.array
    for c in ids("2h 7c"):
        put(a, c, C.COLL)
    put(a, 52, C.COLL)
    set_hand(a, 0, ids("5d 8h 9s"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5d")[0]))
    outs = sorted(x & 63 for x in st.legal_actions() if x >> 6 == C.K_SWAP_OUT)
    assert outs == sorted(ids("2h 7c"))
    st.apply_action(act(C.K_SWAP_OUT, ids("7c")[0]))
    st.apply_action(act(C.K_SWAP_IN, ids("9s")[0]))
    assert sorted(pile(a, C.COLL)) == sorted(ids("2h 9s 5d") + [52])
    assert sorted(pile(a, C.hand_base(0))) == sorted(ids("8h 7c"))
    assert st.current_player() == 1  # the swapped-out ♣ did not trigger


def test_heart_action_adds_top_deck_card_to_stake():
    """Suit action ♥: add the top deck card face down to the debt at stake."""
    st = game(n_players=2, rats=("S", "H"), characters=("C", "D"))
    a = st.array
    put(a, ids("2c")[0], C.COLL)
    a[C.COLL_FD] = 1
    set_hand(a, 0, ids("5h 8c 9s"))
    to_play_phase(a, 0)
    stack_deck(a, ids("Qd"))
    st.apply_action(act(C.K_PLAY, ids("5h")[0]))
    st.apply_action(act(C.K_STAKE))
    assert a[C.STAKE] == 2 and pile(a, C.STAKE)[-1] == ids("Qd")[0]
    assert ids("Qd")[0] not in st.observation(0)["hand"]


def test_spade_action_discards_from_hand_or_market_and_refills():
    """Suit action ♠: discard 1 card from hand or market (the market refills)."""
    st = game(n_players=2, rats=("H", "C"), characters=("C", "D"))
    a = st.array
    set_hand(a, 0, ids("5s 8c 9h"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5s")[0]))
    targets = sorted(x & 63 for x in st.legal_actions() if x >> 6 == C.K_DISCARD)
    assert targets == sorted(ids("8c 9h") + pile(a, C.MARKET))
    m = pile(a, C.MARKET)[1]
    st.apply_action(act(C.K_DISCARD, m))
    assert m in pile(a, C.DISCARD) and a[C.MARKET] == 3


# ---- Powers -----------------------------------------------------------------------------------
def test_club_power_puts_up_to_two_cards_in_market():
    """Power ♣: put up to 2 cards from hand face up into the market."""
    st = game(n_players=2, rats=("H", "S"), characters=("C", "D"))
    a = st.array
    set_hand(a, 0, ids("5c 8h 9s"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5c")[0]))
    st.apply_action(act(C.K_PPUSH, ids("8h")[0]))
    assert st.current_player() == 0 and act(C.K_STOP) in st.legal_actions()
    st.apply_action(act(C.K_PPUSH, ids("9s")[0]))
    assert a[C.MARKET] == 5 and st.current_player() == 1


def test_diamond_power_swaps_with_market_card():
    """Power ♦: swap another collective card with a card from the market."""
    st = game(n_players=2, rats=("H", "S"), characters=("D", "C"))
    a = st.array
    put(a, ids("2h")[0], C.COLL)
    set_hand(a, 0, ids("5d 8c"))
    to_play_phase(a, 0)
    m = pile(a, C.MARKET)[0]
    st.apply_action(act(C.K_PLAY, ids("5d")[0]))
    st.apply_action(act(C.K_PSWAP_OUT, ids("2h")[0]))
    assert {x >> 6 for x in st.legal_actions()} == {C.K_PSWAP_IN}
    st.apply_action(act(C.K_PSWAP_IN, m))
    assert m in pile(a, C.COLL) and ids("2h")[0] in pile(a, C.MARKET)


def test_heart_power_reveals_rat_card_then_optional_debt():
    """Power ♥: turn one of the Rat's face-down cards face up, then optionally add 1 debt."""
    st = game(n_players=2, rats=("S", "C"), characters=("H", "C"))
    a = st.array
    put(a, ids("2c")[0], C.COLL)
    a[C.COLL_FD] = 1
    set_hand(a, 0, ids("5h 8c"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5h")[0]))
    rev = [x for x in st.legal_actions() if x >> 6 == C.K_PREVEAL]
    assert len(rev) == 1
    fd_before = int(a[C.RAT]) - int(a[C.RAT_UP:C.RAT_UP + a[C.RAT]].sum())
    st.apply_action(rev[0])
    assert int(a[C.RAT]) - int(a[C.RAT_UP:C.RAT_UP + a[C.RAT]].sum()) == fd_before - 1
    assert st.legal_actions() == sorted([act(C.K_STOP), act(C.K_PSTAKE)])
    st.apply_action(act(C.K_PSTAKE))
    assert a[C.STAKE] == 2 and st.current_player() == 1


def test_spade_power_discards_any_number_from_hand_and_market():
    """Power ♠: discard any number of cards from hand and/or market (market refilled after)."""
    st = game(n_players=2, rats=("H", "C"), characters=("S", "C"))
    a = st.array
    set_hand(a, 0, ids("5s 8c 9h"))
    to_play_phase(a, 0)
    st.apply_action(act(C.K_PLAY, ids("5s")[0]))
    m = pile(a, C.MARKET)
    st.apply_action(act(C.K_PDISCARD, ids("8c")[0]))
    st.apply_action(act(C.K_PDISCARD, m[0]))
    st.apply_action(act(C.K_PDISCARD, m[1]))
    assert a[C.MARKET] == 1 and st.current_player() == 0
    st.apply_action(act(C.K_STOP))
    assert a[C.MARKET] == 3 and st.current_player() == 1
    assert {ids("8c")[0], m[0], m[1]} <= set(pile(a, C.DISCARD))


# ---- Resolution -------------------------------------------------------------------------------
def test_resolution_1_prediction_exact_vs_at_least():
    """Resolution 1 [decision] prediction_match: `exact` needs the predicted category,
    `at_least` also accepts higher ones."""
    for match, want in (("exact", 0), ("at_least", 1)):
        st = game(n_players=2, rats=("H", "S"), prediction_match=match)
        a = st.array
        a[C.PRED_CAT] = 5  # flush predicted; the players make a full house
        resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))
        assert a[C.JOKERS_EARNED] == want
    st = game(n_players=2, rats=("H", "S"))
    st.array[C.PRED_CAT] = 6
    resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))
    assert st.array[C.JOKERS_EARNED] == 1 and pile(st.array, C.JUP) == [53]


def test_resolution_1_at_most_two_jokers_ever():
    """Resolution 1: at most 2 jokers are ever earned."""
    st = game(n_players=2, rats=("H", "S"))
    for _ in range(3):
        st.array[C.PRED_CAT] = 6
        resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))
    assert st.array[C.JOKERS_EARNED] == 2


def test_resolution_3_tie_goes_to_the_rat():
    """Resolution 3: a tie goes to the Rat (flushes tie on the highest card only)."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    resolve_with(st, ids("Ac 9c 7c 5c 3c"), ids("Ad 2d 4d 6d 8d"))
    assert a[C.LAST_WINNER] == 1 and a[C.PDEBT] == 1 + 1  # ante + ♥ Rat's extra card


def test_resolution_4_players_win_stake_goes_to_rat():
    """Resolution 4: when the players win, all debt at stake goes onto the active Rat."""
    st = game(n_players=2, rats=("S", "H"))
    a = st.array
    put(a, ids("Qd")[0], C.STAKE)
    resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))
    assert a[C.RDEBT] == 2 and a[C.PDEBT] == 0 and a[C.HANDS_WON] == 1


def test_resolution_4_rat_wins_stake_to_players_plus_one_for_heart_rat():
    """Resolution 4 / ♥K ability: the Rat wins -> stake to the players, +1 with the ♥ Rat."""
    for rats, extra in ((("H", "S"), 1), (("S", "H"), 0)):
        st = game(n_players=2, rats=rats)
        a = st.array
        resolve_with(st, ids("2c 5d 7h 9s Jc"), ids("Qc Qd Qs 3c 3d"))
        assert a[C.PDEBT] == 1 + extra and a[C.HANDS_LOST] == 1


def _win_hand(st, stake_extra=0):
    a = st.array
    for c in [x for x in pile(a, C.DECK)[:stake_extra]]:
        put(a, c, C.STAKE)
    # any cards not already used by the rat
    resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))


def test_resolution_5_rat_defeated_at_5_debt_waiting_rat_becomes_active():
    """Resolution 5: a Rat with 5+ debt is defeated, its debt discarded, the waiting Rat
    becomes active; defeating the second Rat wins the game."""
    st = game(n_players=2, rats=("S", "H"))
    a = st.array
    _win_hand(st, stake_extra=4)
    assert a[C.DEFEATED] == 1 and a[C.RDEBT] == 0 and a[C.ACTIVE] == 2
    assert a[C.RAT_DEBT1] == 5 and 4 * 11 + 2 in pile(a, C.RAT)
    assert not st.is_terminal()
    _win_hand(st, stake_extra=5)
    assert st.is_terminal() and st.won and st.returns() == [1.0, 1.0]
    assert a[C.RAT_DEBT2] == 6


def test_resolution_5_players_lose_at_5_debt():
    """Resolution 5: players with 5 or more debt lose the game."""
    st = game(n_players=2, rats=("S", "C"))
    a = st.array
    for c in pile(a, C.DECK)[:4]:
        put(a, c, C.PDEBT)
    resolve_with(st, ids("2c 5d 7h 9s Jc"), ids("Qc Qd Qs 3c 3d"))
    assert st.is_terminal() and not st.won and a[C.LOSS_REASON] == C.LOSS_DEBT
    assert st.returns() == [-1.0, -1.0] and st.legal_actions() == []


def test_resolution_6_cleanup_keeps_hands_market_and_rat_kings():
    """Resolution 6: collective and Rat cards (not the King) are discarded; hands and market
    stay."""
    st = game(n_players=2, rats=("S", "H"))
    a = st.array
    set_hand(a, 1, ids("Tc Th"))
    clear(a, C.MARKET, to=C.DECK)
    for c in ids("Td Ts Qh"):
        put(a, c, C.MARKET)
    hand1 = pile(a, C.hand_base(1))
    market = pile(a, C.MARKET)
    resolve_with(st, ids("2c 2d 2h 9s 9c"), ids("3c 5d 7h Js 4d"))
    assert pile(a, C.hand_base(1)) == hand1 and pile(a, C.MARKET) == market
    assert set(ids("2c 2d 2h 9s 9c 3c 5d 7h Js 4d")) <= set(pile(a, C.DISCARD))
    assert pile(a, C.RAT)[0] == 4 * 11 + 3 and a[C.RAT] == 8  # new round: King + 7


def test_defeated_rat_stays_option():
    """Round setup 1 [decision] defeated_rat_stays: the first King stays in the Rat's hand
    (True) or leaves the game (False)."""
    for stays in (True, False):
        st = game(n_players=2, rats=("S", "H"), defeated_rat_stays=stays)
        _win_hand(st, stake_extra=4)
        kings = [c for c in pile(st.array, C.RAT) if c >> 2 == 11 and (c & 3) in (2, 3)]
        assert (4 * 11 + 3 in kings) == stays
        assert (4 * 11 + 3 in pile(st.array, C.OUT)) == (not stays)


def test_club_defeat_bonus_one_fewer_facedown():
    """♣K defeat bonus: later Rat hands have 1 face-down card fewer."""
    st = game(n_players=2, rats=("C", "H"))
    _win_hand(st, stake_extra=4)
    a = st.array
    ups = int(a[C.RAT_UP:C.RAT_UP + a[C.RAT]].sum())
    assert a[C.RAT] - ups == 1  # 2 - 1


def test_diamond_defeat_bonus_resolves_at_six_best_five():
    """♦K defeat bonus: the collective hand resolves at 6 cards, best 5 of 6."""
    st = game(n_players=2, rats=("D", "H"))
    _win_hand(st, stake_extra=4)
    a = st.array
    assert a[C.TARGET] == 6
    resolve_with(st, ids("2c 2d 2h 9s 9c 4h"), ids("3c 5d 7h Js 4d"))
    assert a[C.LAST_WINNER] == 0 and (a[C.LAST_P] >> 20) == 6


def test_spade_defeat_bonus_market_capacity_4():
    """♠K defeat bonus: the market capacity becomes 4."""
    st = game(n_players=2, rats=("S", "H"))
    _win_hand(st, stake_extra=4)
    assert st.array[C.MARKET_CAP] == 4 and st.array[C.MARKET] == 4


def test_heart_defeat_bonus_discards_one_player_debt():
    """♥K defeat bonus: discard 1 card from the players' debt."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    for c in pile(a, C.DECK)[:2]:
        put(a, c, C.PDEBT)
    _win_hand(st, stake_extra=4)
    assert a[C.DEFEATED] == 1 and a[C.PDEBT] == 1


def test_deck_reshuffles_discard_pile_when_empty():
    """Resolution, last paragraph: an empty deck is replaced by the shuffled discard pile."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    set_hand(a, 0, ids("5c 8c"))
    for c in pile(a, C.DECK):
        put(a, c, C.DISCARD)
    n_disc = int(a[C.DISCARD])
    a[C.PHASE] = C.PH_DRAW
    st.apply_action(act(C.K_DRAW_DECK))
    assert a[C.DISCARD] == 0 and a[C.DECK] == n_disc - 1


@pytest.mark.parametrize("mode", ["skip", "lose"])
def test_empty_draw_option(mode):
    """Resolution, last paragraph [decision] empty_draw: with deck and discard empty a needed
    card is not drawn (`skip`) or the players lose (`lose`)."""
    st = game(n_players=2, rats=("S", "C"), characters=("C", "D"), empty_draw=mode)
    a = st.array
    set_hand(a, 0, ids("5s 8h"))
    for c in pile(a, C.DECK):
        put(a, c, C.OUT)
    clear(a, C.DISCARD, to=C.OUT)
    a[C.PHASE], a[C.DRAWN] = C.PH_DRAW, 0
    market = int(a[C.MARKET])
    st.apply_action(act(C.K_DRAW_MARKET, pile(a, C.MARKET)[0]))  # the refill finds no card
    assert a[C.MARKET] == market - 1 and a[C.hand_base(0)] == 3
    assert st.is_terminal() == (mode == "lose")


# ---- Difficulty -------------------------------------------------------------------------------
def test_first_game_no_rat_abilities_but_defeat_bonuses():
    """Difficulty `first_game`: no Rat abilities (♣ extra cards, ♦ first card, ♠ face down,
    ♥ extra debt) but defeat bonuses apply, unless first_game_defeat_bonuses=False."""
    assert game(rats=("C", "H"), difficulty="first_game").array[C.RAT] == 8
    assert game(rats=("D", "H"), difficulty="first_game").array[C.COLL] == 0
    st = game(n_players=2, rats=("H", "S"), difficulty="first_game")
    resolve_with(st, ids("2c 5d 7h 9s Jc"), ids("Qc Qd Qs 3c 3d"))
    assert st.array[C.PDEBT] == 1
    for bonus, target in ((True, 6), (False, 5)):
        st = game(n_players=2, rats=("D", "H"), difficulty="first_game",
                  first_game_defeat_bonuses=bonus)
        _win_hand(st, stake_extra=4)
        assert st.array[C.TARGET] == target


def test_advanced_extra_facedown_and_joker_removes_rat_card():
    """Difficulty `advanced`: 1 more face-down Rat card; a joker removes a non-King card of
    the Rat's hand and the Rat takes 2 more face-down cards."""
    st = game(n_players=2, rats=("H", "S"), difficulty="advanced")
    a = st.array
    assert a[C.RAT] == 9
    _earn_joker(a)
    a[C.PHASE], a[C.DRAWN] = C.PH_DRAW, 0
    opts = [x for x in st.legal_actions() if x >> 6 == C.K_JREMOVE]
    assert len(opts) == 6  # 5 face-up non-King cards + "a face-down card"
    assert not any(x >> 6 == C.K_JOKER for x in st.legal_actions())
    target = pile(a, C.RAT)[1]
    st.apply_action(act(C.K_JREMOVE, 1))
    assert target in pile(a, C.DISCARD) and a[C.RAT] == 10 and 52 in pile(a, C.OUT)
    assert a[C.COLL] == 0 and st.current_player() == 1


def test_advanced_joker_never_removes_a_king():
    """Difficulty `advanced`: the joker "removes one non-King card from the Rat's hand": a King
    that is not a Rat (here ♠K, face up) is no target; "a face-down card" is one target whatever
    the face-down cards are (the legal list must not tell whether one is a King), and chance
    picks which face-down non-King card goes."""
    removed = set()
    for seed in range(12):
        st = game(n_players=2, rats=("C", "D"), difficulty="advanced")
        a = st.array
        a[C.RNG] = seed
        set_rat(a, ids("Qh 3d Th Ks Ts"), ids("Kh 4c 5c 6c 7c"))
        _earn_joker(a)
        a[C.PHASE], a[C.DRAWN] = C.PH_DRAW, 0
        opts = [x & 63 for x in st.legal_actions() if x >> 6 == C.K_JREMOVE]
        face_up = [pile(a, C.RAT)[i] for i in opts if i != C.FACE_DOWN_TARGET]
        assert ids("Ks")[0] not in face_up and ids("Qh")[0] in face_up
        assert C.FACE_DOWN_TARGET in opts
        before = set(pile(a, C.RAT))
        st.apply_action(act(C.K_JREMOVE, C.FACE_DOWN_TARGET))
        gone = before - set(pile(a, C.RAT))
        assert len(gone) == 1 and ids("Kh")[0] not in gone
        removed |= gone
    assert removed == set(ids("4c 5c 6c 7c"))  # chance picks among the face-down non-Kings


def test_advanced_joker_face_down_target_with_only_kings_face_down():
    """Engine decision: if every face-down Rat card is a King, "a face-down card" removes
    nothing (the joker is spent and the Rat takes no card)."""
    st = game(n_players=2, rats=("C", "D"), difficulty="advanced")
    a = st.array
    set_rat(a, ids("Qh 3d Th Ts 9s"), ids("Kh Ks"))
    _earn_joker(a)
    a[C.PHASE], a[C.DRAWN] = C.PH_DRAW, 0
    legal = st.legal_actions()
    assert act(C.K_JREMOVE, C.FACE_DOWN_TARGET) in legal
    rat = pile(a, C.RAT)
    st.apply_action(act(C.K_JREMOVE, C.FACE_DOWN_TARGET))
    assert pile(a, C.RAT) == rat and a[C.JUP] == 0 and a[C.JOKERS_USED] == 1


def test_advanced_legal_actions_do_not_depend_on_hidden_cards():
    """The leak fixed with the protocol: at `advanced`, whether a face-down Rat card is a King
    does not change the legal actions (4 players, game seed game_seed(1, 21), heuristic in
    every seat: the position found by the issue)."""
    from engines.protocol import chance
    from agents.loop import play_stepwise
    from agents.policy import Agent
    cfg = RiverRatsConfig(n_players=4, difficulty="advanced")
    seed = chance.word_to_seed(chance.game_seed(chance.as_word(1), 21))
    st = new_game(cfg, seed)
    ag = [Agent("river_rats", "heuristic") for _ in range(4)]
    for _ in range(34):
        st.apply_action(ag[st.current_player()](st))
    p = st.current_player()
    for k in range(20):
        other = st.determinize(p, k)
        assert other.legal_actions() == st.legal_actions()
    del play_stepwise


def test_expert_extra_facedown_and_joker_reveals_until_stop_or_bust():
    """Difficulty `expert`: 2 more face-down Rat cards; a joker is used at resolution to reveal
    deck cards into the collective hand until the players stop; a card of the active Rat's
    suit discards them all and gives the players 1 debt."""
    st = game(n_players=2, rats=("H", "S"), difficulty="expert")
    a = st.array
    assert a[C.RAT] == 10
    _earn_joker(a)
    p = st.current_player()
    clear(a, C.COLL)
    for c in ids("2c 5d 7s 9s"):
        put(a, c, C.COLL)
    set_hand(a, p, ids("Jc"))
    to_play_phase(a, p)
    a[C.DRAWN] = 0
    assert not any(x >> 6 in (C.K_JOKER, C.K_JREMOVE) for x in st.legal_actions())
    stack_deck(a, ids("Js Jd 4h"))
    st.apply_action(act(C.K_PLAY, ids("Jc")[0]))
    st.apply_action(act(C.K_NONE))
    assert a[C.PHASE] == C.PH_EXPERT and st.current_player() == p
    st.apply_action(act(C.K_EREVEAL))
    assert pile(a, C.REVEAL) == ids("Js") and 52 in pile(a, C.OUT)
    st.apply_action(act(C.K_EREVEAL))
    debt = int(a[C.PDEBT])
    st.apply_action(act(C.K_EREVEAL))  # 4h: the active Rat's suit -> bust
    assert a[C.LAST_BUST] == 1 and set(ids("Js Jd 4h")) <= set(pile(a, C.DISCARD))
    assert a[C.PDEBT] >= debt + 1 and a[C.ROUND] == 1


def test_expert_reveals_join_the_collective_hand():
    """Difficulty `expert`: revealed cards join the collective hand (best 5 of all)."""
    st = game(n_players=2, rats=("H", "S"), difficulty="expert")
    a = st.array
    _earn_joker(a)
    p = st.current_player()
    clear(a, C.COLL)
    set_rat(a, ids("3c 5d 8c Ts 2d"), ids("Qd Ad"))
    for c in ids("9c 9d Qs 2c"):
        put(a, c, C.COLL)
    set_hand(a, p, ids("Jd"))
    to_play_phase(a, p)
    stack_deck(a, ids("Jc Js"))
    st.apply_action(act(C.K_PLAY, ids("Jd")[0]))
    st.apply_action(act(C.K_NONE))
    st.apply_action(act(C.K_EREVEAL))
    st.apply_action(act(C.K_EREVEAL))
    st.apply_action(act(C.K_ESTOP))
    assert (a[C.LAST_P] >> 20) == 6 and a[C.LAST_WINNER] == 0  # Jd Jc Js 9c 9d
    assert np.array_equal(sorted(pile(a, C.LAST_COLL)), sorted(ids("9c 9d Qs 2c Jd Jc Js")))


def test_stuck_player_passes_and_all_passing_ends_game():
    """Engine decision: a player with no card and no joker passes; if every seat passes in a
    row the game ends as a loss (`LOSS_STALL`)."""
    st = game(n_players=2, rats=("H", "S"))
    a = st.array
    for p in range(2):
        clear(a, C.hand_base(p), to=C.OUT)
    clear(a, C.MARKET, to=C.OUT)
    for c in pile(a, C.DECK):
        put(a, c, C.OUT)
    clear(a, C.DISCARD, to=C.OUT)
    a[C.PHASE] = C.PH_PLAY
    assert st.legal_actions() == [act(C.K_STUCK)]
    st.apply_action(act(C.K_STUCK))
    st.apply_action(act(C.K_STUCK))
    assert st.is_terminal() and a[C.LOSS_REASON] == C.LOSS_STALL


@pytest.mark.parametrize(
    "option, a, b, default_cmp, option_cmp",
    [
        # "Hand ranking" [decision] full house: the three only (tie) vs the pair deciding
        ({"full_house_ties": "pair"}, "Kh Kc Kd 2h 2c", "Kh Kc Kd Ah Ac", 0, -1),
        # [decision] four / three of a kind: set then kickers vs the set only
        ({"set_ties": "set_only"}, "9h 9c 9d 9s 5h", "9h 9c 9d 9s 6h", -1, 0),
        ({"set_ties": "set_only"}, "9h 9c 9d 3s 5h", "9h 9c 9d 3s 6h", -1, 0),
        # [decision] two pair: pairs then kicker vs pairs only vs the higher pair only
        ({"two_pair_ties": "pairs_only"}, "9h 9c 5d 5s 2h", "9h 9c 5d 5s 3h", -1, 0),
        ({"two_pair_ties": "higher_pair_only"}, "9h 9c 4d 4s 2h", "9h 9c 5d 5s 3h", -1, 0),
    ],
)
def test_hand_ranking_decisions_are_options(option, a, b, default_cmp, option_cmp):
    """Each "Hand ranking" **[decision]** is a RiverRatsConfig option; the default is the rules'
    text."""
    from engines import cards
    from engines.poker import RULES_STANDARD, eval_hand

    def cmp(cfg, x, y):
        st = new_game(cfg, seed=1)
        sx = C.ranked(st.array, eval_hand(cards.parse(x), 5, RULES_STANDARD))
        sy = C.ranked(st.array, eval_hand(cards.parse(y), 5, RULES_STANDARD))
        return (sx > sy) - (sx < sy)

    assert cmp(RiverRatsConfig(), a, b) == default_cmp
    assert cmp(RiverRatsConfig(**option), a, b) == option_cmp


def test_default_ranking_equals_the_evaluators_river_rats_rules():
    """With default options the engine's ranking is engines.poker's "river_rats" rule set."""
    from engines import cards
    from engines.poker import evaluate

    hands = cards.random_hands(3000, 7, seed=4)
    st = new_game(RiverRatsConfig(), seed=1)
    got = [C.ranked(st.array, int(v)) for v in evaluate(hands, "standard")]
    assert got == evaluate(hands, "river_rats").tolist()


def test_bad_ranking_option_names_the_field():
    with pytest.raises(ValueError, match="bad two_pair_ties"):
        RiverRatsConfig(two_pair_ties="kicker_first")
