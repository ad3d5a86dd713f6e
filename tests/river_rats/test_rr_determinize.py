"""River Rats' hidden-information sampling: the traps the issue names (face-down jokers are not
hidden cards, the waiting Rat's King trades places only with unseen Kings and the header
follows it, the display piles are not cards in play), public knowledge of card moves, and
uniform placement (chi-square)."""

from __future__ import annotations

import numpy as np
from scipy import stats

from agents.policy import Agent
from engines.river_rats import RiverRatsConfig, core as C, new_game

from .helpers import pile


def _play(st, n_actions, agent="heuristic"):
    ag = Agent("river_rats", agent)
    for _ in range(n_actions):
        if st.is_terminal():
            break
        st.apply_action(ag(st))
    return st


def test_jokers_and_display_piles_never_move():
    st = _play(new_game(RiverRatsConfig(n_players=3), 8), 60)
    p = st.current_player()
    for k in range(30):
        d = st.determinize(p, k)
        assert pile(d.state, C.JSUP) == pile(st.state, C.JSUP)
        assert pile(d.state, C.JUP) == pile(st.state, C.JUP)
        assert np.array_equal(d.state[C.LAST_COLL:C.SCR], st.state[C.LAST_COLL:C.SCR])


def test_waiting_king_is_an_unseen_king_and_the_header_follows():
    st = new_game(RiverRatsConfig(n_players=2, rats=("D", "S")), 5)
    p = 0
    seen_kings = {c for c in range(44, 48) if st.information_state(p)[C.I_LOC + c] != 0}
    counts = {}
    for k in range(400):
        d = st.determinize(p, k)
        king = int(d.state[C.ASIDE + 1])
        assert king >> 2 == C.KING and king not in seen_kings
        assert d.state[C.WAITING] == king & 3 == d.state[C.SECOND_RAT]
        assert d.state[C.ACTIVE] == st.state[C.ACTIVE] == d.state[C.FIRST_RAT]
        counts[king] = counts.get(king, 0) + 1
    unseen = sorted(set(range(44, 48)) - seen_kings)
    assert sorted(counts) == unseen  # every unseen King can be the waiting Rat
    assert stats.chisquare([counts[c] for c in unseen]).pvalue > 1e-3


def test_public_moves_are_remembered():
    """A card taken from the market stays known in the taker's hand for everyone; a deck draw
    does not; a card played face down is known only to its player."""
    st = new_game(RiverRatsConfig(n_players=2, rats=("H", "C")), 3)
    market_card = pile(st.state, C.MARKET)[0]
    st.apply_action(C.K_DRAW_MARKET * 64 + market_card)
    info1 = st.information_state(1)
    assert info1[C.I_LOC + market_card] == 1 + C.PILE_HAND0 + 0
    for k in range(20):
        assert market_card in pile(st.determinize(1, k).state, C.hand_base(0))
    hidden = [c for c in pile(st.state, C.hand_base(0)) if c != market_card]
    assert all(info1[C.I_LOC + c] == 0 for c in hidden)


def test_face_down_collective_card_known_only_to_its_player():
    st = new_game(RiverRatsConfig(n_players=3, rats=("S", "H")), 12)
    while st.state[C.PHASE] != C.PH_PLAY or not C.facedown_pending(st.state):
        st.apply_action(st.legal_actions()[0])
    p = st.current_player()
    card = st.legal_actions()[0] & 63
    st.apply_action(C.K_PLAY * 64 + card)
    other = (p + 1) % 3
    assert st.information_state(p)[C.I_LOC + card] == 1 + C.PILE_COLL
    assert st.information_state(other)[C.I_LOC + card] == 0
    moved = sum(int(st.determinize(other, k).state[C.COLL + 1]) != card for k in range(50))
    assert moved > 40  # the other player's worlds put other cards face down
    assert all(int(st.determinize(p, k).state[C.COLL + 1]) == card for k in range(10))


def test_uniform_placement_chi_square():
    """Each card the player has not seen is equally likely to be dealt to a given hidden place
    (another player's hand, the top of the deck, the Rat's face-down cards); Kings excepted
    (one unseen King is the waiting Rat's)."""
    st = _play(new_game(RiverRatsConfig(n_players=4, rats=("C", "H")), 21), 9)
    p = st.current_player()
    info = st.information_state(p)
    unknown = [c for c in range(52) if info[C.I_LOC + c] == 0 and c >> 2 != C.KING]
    other = (p + 1) % 4
    n = 3000
    in_hand = np.zeros(54, dtype=np.int64)
    on_top = np.zeros(54, dtype=np.int64)
    rat_down = np.zeros(54, dtype=np.int64)
    for k in range(n):
        d = st.determinize(p, k).state
        for c in pile(d, C.hand_base(other)):
            in_hand[c] += 1
        on_top[int(d[C.DECK + int(d[C.DECK])])] += 1
        for i in range(int(d[C.RAT])):
            if d[C.RAT_UP + i] == 0:
                rat_down[int(d[C.RAT + 1 + i])] += 1
    known = [c for c in range(54) if c not in unknown and c >> 2 != C.KING]
    for counts in (in_hand, on_top, rat_down):
        assert counts[known].sum() == 0
        assert stats.chisquare(counts[unknown]).pvalue > 1e-4, counts[unknown]


def test_search_on_determinized_worlds_cannot_see_the_deck():
    """A clone carries the future (same deck order); a determinized copy does not."""
    st = _play(new_game(RiverRatsConfig(n_players=2), 30), 5)
    p = st.current_player()
    clone = st.clone()
    assert np.array_equal(clone.state[C.DECK:C.DISCARD], st.state[C.DECK:C.DISCARD])
    same = sum(np.array_equal(st.determinize(p, k).state[C.DECK:C.DISCARD],
                              st.state[C.DECK:C.DISCARD]) for k in range(20))
    assert same == 0
