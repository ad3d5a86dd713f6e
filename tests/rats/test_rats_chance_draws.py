"""Distribution tests of Rats' chance draws (the inventory: tests/test_chance_draw_inventory.py)
that tests/rats/test_rats_determinize.py does not already check: the first deal and the first
leader (rules "Deal (first round)"), the later rounds' draw of a hand from the holding (rules
"Later rounds"), and the relabellings of inference (engines/rats/relabel.py). Chi-square on
fixed seed words, p > 1e-4."""

from __future__ import annotations

from collections import Counter
from math import comb

import numpy as np
from scipy.stats import chisquare

from engines.protocol import chance
from engines.rats import RatsConfig
from engines.rats import core as C
from engines.rats import relabel as R
from rats_scenarios import mask, play, scenario

P_MIN = 1e-4


def _cards(m: int) -> list[int]:
    return [c for c in range(C.N_CARDS) if (int(m) >> c) & 1]


def test_the_deal_puts_each_card_in_each_place_uniformly():
    """The 54 cards shuffled, ``54 // n`` to each seat, the rest the kitty: with 4 and 5
    players each card is in seat 0's hand and in the kitty equally often, and card 0 (2c)
    lies in each place with chance (size of the place) / 54 (3,000 games each)."""
    n = 3000
    for players in (4, 5):
        cfg = RatsConfig(n_players=players, first_leader=0).to_array()
        d0 = 54 // players
        sizes = [d0] * players + [54 - d0 * players]
        out = np.empty(C.STATE_SIZE, np.int64)
        hand0, kitty = np.zeros(54, np.int64), np.zeros(54, np.int64)
        place_of_0 = np.zeros(players + 1, np.int64)
        for w in chance.game_seeds(players, n):
            C.init_state(cfg, w, out)
            masks = [int(out[C.HAND + p]) for p in range(players)] + [int(out[C.KITTY])]
            assert [bin(m).count("1") for m in masks] == sizes
            assert sum(masks) == (1 << 54) - 1
            hand0[_cards(masks[0])] += 1
            kitty[_cards(masks[-1])] += 1
            place_of_0[next(i for i, m in enumerate(masks) if m & 1)] += 1
        assert chisquare(hand0).pvalue > P_MIN, hand0
        assert chisquare(kitty).pvalue > P_MIN, kitty
        assert chisquare(place_of_0, np.array(sizes) / 54 * n).pvalue > P_MIN, place_of_0


def test_the_first_leader_is_drawn_uniformly():
    """Deal: a first leader not configured is drawn from the game's chance: each of the 5 seats
    with chance 1/5 (5,000 games)."""
    cfg = RatsConfig(n_players=5).to_array()
    assert cfg[C.CFG_FIRST_LEADER] < 0
    out = np.empty(C.STATE_SIZE, np.int64)
    leaders = np.zeros(5, np.int64)
    for w in chance.game_seeds(11, 5000):
        C.init_state(cfg, w, out)
        assert out[C.CUR] == out[C.LEADER] == out[C.FIRST_LEADER]
        leaders[out[C.FIRST_LEADER]] += 1
    assert chisquare(leaders).pvalue > P_MIN, leaders


def test_a_later_round_hand_is_a_uniform_subset():
    """Later rounds: a survivor holding 5 cards draws a hand of H = 3 from it: each of the 10
    hands equally likely, the other 2 set aside (4,000 seeds)."""
    g = scenario(["As 5d", "Kh 6d", "Qc 7c"], kitty="2c 3c")
    play(g, "lead As", "play Kh", "play 7c", "lead 5d", "play 6d")
    last = g.parse_move("play Qc")
    holding = mask("5d 6d Qc 2c 3c")
    hands = Counter()
    for w in chance.game_seeds(12, 4000):
        s = g.state.copy()
        s[C.RNG] = w
        for a in last:
            C.apply_action(s, a)
        assert s[C.ROUND] == 2 and s[C.HAND_SIZE] == 3
        assert int(s[C.HAND + 1]) | int(s[C.ASIDE + 1]) == holding
        hands[int(s[C.HAND + 1])] += 1
    assert len(hands) == comb(5, 3)
    assert chisquare(list(hands.values())).pvalue > P_MIN, hands


def test_a_relabelling_sends_a_hidden_card_anywhere_in_its_group():
    """Inference: a relabelling for seat 0 is a uniform permutation within each group of
    places: in round 1 a card of another hand goes to each of the 41 cards of the other hands
    and the kitty equally often; in a later round a card of seat 1's holding to each card of
    that holding, and seat 0's cards stay (3,000 seeds each)."""
    s = np.empty(C.STATE_SIZE, np.int64)
    C.init_state(RatsConfig(n_players=4, first_leader=0).to_array(), chance.as_word(3), s)
    later = scenario(["As 5d", "Kh 6d", "Qc 7c"], round_no=2,
                     aside=["", "2c 3c 4c", "9h"]).state
    perm = np.empty(C.N_CARDS, np.int64)
    for state, group_mask in ((s, C.CARD_BITS & ~int(s[C.HAND])),
                              (later, mask("Kh 6d 2c 3c 4c"))):
        group = _cards(group_mask)
        card = _cards(int(state[C.HAND + 1]))[0]
        images = Counter()
        for w in chance.game_seeds(13, 3000):
            R.relabel_map(state, state, 0, w, perm)
            for c in _cards(int(state[C.HAND])):
                assert perm[c] == c
            images[int(perm[card])] += 1
        assert set(images) <= set(group)
        assert chisquare([images[c] for c in group]).pvalue > P_MIN, images
