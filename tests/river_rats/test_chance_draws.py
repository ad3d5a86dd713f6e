"""Distribution tests of River Rats' chance draws (the inventory:
tests/test_chance_draw_inventory.py) that tests/river_rats/test_rr_determinize.py does not
already check: the setup (rules "Setup" 1-5: random characters, the ordered pair of Rats, the
shuffled deck dealt), the reshuffle of the discard pile ("Resolution", last paragraph), the
advanced joker's face-down target ("Difficulty levels": chance picks which face-down non-King
card goes), the deck order of a determinized world, and the relabellings of inference
(engines/river_rats/relabel.py). Chi-square on fixed seed words, p > 1e-4."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
from scipy.stats import chisquare

from engines.protocol import chance
from engines.river_rats import RiverRatsConfig
from engines.river_rats import core as C
from engines.river_rats.relabel import relabel_map

from .helpers import ids, pile, set_rat

P_MIN = 1e-4


def _new(cfg: RiverRatsConfig, word) -> np.ndarray:
    out = np.empty(C.STATE_SIZE, np.int64)
    C.init_state(cfg.to_array(), word, out)
    return out


def test_characters_are_a_uniform_draw_of_the_aces():
    """Setup 1: with 4 players the seats' Aces are a uniform permutation of the four suits (24
    orders, 4,800 games); with 2 players an ordered pair of different suits (12, 2,400)."""
    for players, n in ((4, 4800), (2, 2400)):
        cfg = RiverRatsConfig(n_players=players, rats=("C", "D"))
        seen = Counter()
        for w in chance.game_seeds(players, n):
            s = _new(cfg, w)
            seen[tuple(int(x) for x in s[C.CHAR0:C.CHAR0 + players])] += 1
        cells = list(itertools.permutations(range(4), players))
        assert set(seen) <= set(cells)
        assert chisquare([seen[c] for c in cells]).pvalue > P_MIN, seen


def test_the_rats_are_a_uniform_ordered_pair_of_kings():
    """Setup 2: the four Kings shuffled, the first two the active and the waiting Rat: each of
    the 12 ordered pairs equally likely (3,600 games)."""
    cfg = RiverRatsConfig(n_players=3, characters=("C", "D", "H"))
    seen = Counter()
    for w in chance.game_seeds(17, 3600):
        s = _new(cfg, w)
        assert s[C.FIRST_RAT] == s[C.ACTIVE] and s[C.SECOND_RAT] == s[C.WAITING]
        seen[(int(s[C.ACTIVE]), int(s[C.WAITING]))] += 1
    cells = list(itertools.permutations(range(4), 2))
    assert set(seen) <= set(cells)
    assert chisquare([seen[c] for c in cells]).pvalue > P_MIN, seen


def test_the_deal_gives_each_deck_card_each_place_uniformly():
    """Setup 3-5: the 48 cards of the draw deck (2 players, Rats and characters fixed) are
    shuffled: each is equally likely in seat 0's 2 cards and in the market's 3 (3,000 games),
    and the top card of the remaining deck is each of the others equally often."""
    cfg = RiverRatsConfig(n_players=2, rats=("C", "D"), characters=("H", "S"))
    deck = [c for c in range(52) if c not in (4 * 12 + 2, 4 * 12 + 3, 4 * C.KING, 4 * C.KING + 1)]
    hand0, market, top = Counter(), Counter(), Counter()
    for w in chance.game_seeds(18, 3000):
        s = _new(cfg, w)
        hand0.update(pile(s, C.hand_base(0)))
        market.update(pile(s, C.MARKET))
        top[int(s[C.DECK + s[C.DECK]])] += 1
    for counts in (hand0, market, top):
        assert set(counts) <= set(deck)
        assert chisquare([counts[c] for c in deck]).pvalue > P_MIN, counts


def test_an_empty_deck_is_refilled_by_a_uniform_shuffle():
    """Resolution, last paragraph: a draw from an empty deck shuffles the 6 discarded cards
    into a new deck: the first two cards drawn are each of the 30 ordered pairs equally often
    (3,000 seeds), and the new deck is marked as holding known cards."""
    s = _new(RiverRatsConfig(n_players=2, rats=("H", "S")), chance.as_word(4))
    discard = pile(s, C.DECK)[:6]
    s[C.DECK] = 0
    s[C.DISCARD] = 6
    s[C.DISCARD + 1:C.DISCARD + 7] = discard
    seen = Counter()
    for w in chance.game_seeds(19, 3000):
        t = s.copy()
        t[C.RNG] = w
        a = int(C.draw(t))
        assert t[C.DISCARD] == 0 and t[C.DECK] == 5 and t[C.DECK_KNOWN] == 1
        seen[(a, int(C.draw(t)))] += 1
    cells = list(itertools.permutations(discard, 2))
    assert set(seen) <= set(cells)
    assert chisquare([seen[c] for c in cells]).pvalue > P_MIN, seen


def test_the_advanced_joker_removes_a_uniform_face_down_card():
    """Difficulty `advanced`: a joker played on "a face-down card" removes one of the Rat's
    face-down non-King cards chosen by chance: each of the 4 equally often, never the face-down
    King (4,000 seeds)."""
    s = _new(RiverRatsConfig(n_players=2, rats=("C", "D"), difficulty="advanced"),
             chance.as_word(5))
    set_rat(s, ids("Qh 3d Th Ks Ts"), ids("Kh 4c 5c 6c 7c"))
    rat = pile(s, C.RAT)
    seen = Counter()
    for w in chance.game_seeds(20, 4000):
        t = s.copy()
        t[C.RNG] = w
        i = int(C._random_facedown_non_king(t))
        assert t[C.RAT_UP + i] == 0
        seen[rat[i]] += 1
    targets = ids("4c 5c 6c 7c")
    assert set(seen) <= set(targets)
    assert chisquare([seen[c] for c in targets]).pvalue > P_MIN, seen


def test_determinize_shuffles_the_hidden_deck_uniformly():
    """The deck of a determinized world (``hide_order``): whatever its order before, its 4
    cards are in each of the 24 orders equally often (2,400 seeds), and the other hands are
    sorted."""
    s = _new(RiverRatsConfig(n_players=2, rats=("H", "S")), chance.as_word(6))
    cards = pile(s, C.DECK)[:4]
    s[C.DECK] = 4
    s[C.DECK + 1:C.DECK + 5] = cards[::-1]
    seen = Counter()
    for w in chance.game_seeds(21, 2400):
        t = s.copy()
        t[C.RNG] = w
        C.hide_order(t, 0)
        other = pile(t, C.hand_base(1))
        assert other == sorted(other)
        seen[tuple(pile(t, C.DECK))] += 1
    cells = list(itertools.permutations(sorted(cards)))
    assert set(seen) <= set(cells)
    assert chisquare([seen[c] for c in cells]).pvalue > P_MIN, seen


def test_a_relabelling_is_uniform_among_unseen_cards():
    """Inference: a relabelling for seat 0 sends the waiting Rat's King to each unseen King
    equally often, and a card of seat 1's hand to each unseen card, an unseen King with chance
    (m - 1) / m of another card's (m unseen Kings, one of them taken by the waiting Rat)
    (4,000 seeds)."""
    s = _new(RiverRatsConfig(n_players=3, rats=("C", "D")), chance.as_word(7))
    unknown = [c for c in range(54) if not C.known_cards(s, 0, c)]
    kings = [c for c in unknown if c >> 2 == C.KING]
    m = len(kings)
    assert m >= 2 and s[C.ASIDE + 1] in kings
    card = pile(s, C.hand_base(1))[0]
    assert card in unknown and card >> 2 != C.KING
    perm = np.empty(54, np.int64)
    waiting, image = Counter(), Counter()
    for w in chance.game_seeds(22, 4000):
        relabel_map(s, s, 0, w, perm)
        waiting[int(perm[s[C.ASIDE + 1]])] += 1
        image[int(perm[card])] += 1
    assert set(waiting) <= set(kings)
    assert chisquare([waiting[c] for c in kings]).pvalue > P_MIN, waiting
    weight = np.array([(m - 1) / m if c in kings else 1.0 for c in unknown])
    assert set(image) <= set(unknown)
    obs = np.array([image[c] for c in unknown], float)
    assert chisquare(obs, weight / weight.sum() * obs.sum()).pvalue > P_MIN, image
