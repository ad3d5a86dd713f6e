"""Distribution tests of Lure's chance draws (the inventory: tests/test_chance_draw_inventory.py)
that tests/lure/test_determinize.py does not already check: the shuffle of the fish deck and
the Deep Waters removal (rules *End and scoring*), the lure bag (rules *Components*: drawn from
the bag, the discard pile shuffled back only when the bag is empty), the dice of a roll (rules
*Components*: d6, d12, d20, d4), and two parts of ``determinize`` (a finished secret cast's
special dice with the d4, several players' unknown tokens). Chi-square on fixed seed words,
p > 1e-4, against the distributions the rules and ``engines/lure/core.py`` document."""

from __future__ import annotations

import itertools
from collections import Counter
import numpy as np
from scipy.stats import chisquare, hypergeom

from engines.lure import core as C
from engines.lure import decks as D
from engines.lure.config import LureConfig
from engines.lure.decks import deck_from_rows
from engines.protocol import chance

from .helpers import give, make, plain_deck

P_MIN = 1e-4


def _new(cfg: LureConfig, word) -> np.ndarray:
    out = np.empty(C.STATE_SIZE, np.int64)
    C.init_state(cfg.to_array(), word, out)
    return out


def _chi2(counts: Counter, expected: dict, n: int) -> float:
    """p-value of ``counts`` against the probabilities ``expected`` (cells outside it must be
    empty)."""
    assert set(counts) <= set(expected), set(counts) - set(expected)
    cells = sorted(expected)
    obs = np.array([counts.get(c, 0) for c in cells], float)
    exp = np.array([expected[c] for c in cells], float)
    return chisquare(obs, exp / exp.sum() * n).pvalue


def test_the_fish_deck_is_shuffled_uniformly():
    """``init_state``: the 30 base cards in a uniform order: card 0 equally likely at each
    place of the draw pile, each card equally likely first (6,000 games, 3 players)."""
    cfg = LureConfig(n_players=3)
    n = 6000
    first, place_of_0 = np.zeros(30, np.int64), np.zeros(30, np.int64)
    for w in chance.game_seeds(5, n):
        s = _new(cfg, w)
        order = s[C.DRAW:C.DRAW + 30]
        assert sorted(order) == list(range(30))
        first[order[0]] += 1
        place_of_0[int(np.flatnonzero(order == 0)[0])] += 1
    assert chisquare(first).pvalue > P_MIN, first
    assert chisquare(place_of_0).pvalue > P_MIN, place_of_0


def test_deep_waters_removes_cards_uniformly():
    """Deep Waters: the 15 new cards shuffled into the 30, 15 removed at random: each of the 45
    cards out with chance 1/3, and the number of new cards removed hypergeometric (3,000
    games)."""
    cfg = LureConfig(n_players=4, deep_waters=True)
    deep = np.array([cfg.deck.info[c, D.I_SET] != D.SET_BASE for c in range(45)])
    assert deep.sum() == 15
    n = 3000
    out_count = np.zeros(45, np.int64)
    new_out = Counter()
    for w in chance.game_seeds(6, n):
        s = _new(cfg, w)
        gone = s[C.LOC:C.LOC + 45] == C.LOC_OUT
        assert gone.sum() == 15 and s[C.H_NINPLAY] == 30
        out_count += gone
        new_out[int(gone[deep].sum())] += 1
    assert chisquare(out_count).pvalue > P_MIN, out_count
    law = hypergeom(45, 15, 15).pmf(np.arange(16))
    common = law * n >= 5  # the tails expected below 5 games pooled into one cell
    obs = np.array([new_out.get(k, 0) for k in range(16)], float)
    obs = np.append(obs[common], obs[~common].sum())
    exp = np.append(law[common], law[~common].sum()) * n
    assert chisquare(obs, exp / exp.sum() * n).pvalue > P_MIN, new_out


def _kind_pair_law(mix):
    """Probabilities of the kind multiset of 2 tokens drawn without replacement from ``mix``."""
    tokens = [k for k, m in enumerate(mix) for _ in range(m)]
    law = Counter(tuple(sorted((tokens[i], tokens[j])))
                  for i, j in itertools.combinations(range(len(tokens)), 2))
    return dict(law)


def test_starting_lures_are_drawn_from_the_mix():
    """Setup: each player draws 2 lures from the 24-token bag (seat order, twice): each
    player's pair of kinds has the law of 2 tokens drawn without replacement (6,000 games;
    a plain deck, so no splash draws more)."""
    cfg = LureConfig(n_players=2, starting_lures=2,
                     deck=deck_from_rows(plain_deck(20, cn=60), "<test>"))
    law = _kind_pair_law(cfg.lure_mix)
    n = 6000
    pairs = [Counter(), Counter()]
    for w in chance.game_seeds(7, n):
        s = _new(cfg, w)
        for p in range(2):
            b = C.PB + p * C.PSTRIDE
            held = s[b + C.P_HELD:b + C.P_HELD + 8]
            assert held.sum() == 2
            pairs[p][tuple(int(k) for k in np.repeat(np.arange(8), held))] += 1
        held_all = sum(s[C.PB + p * C.PSTRIDE + C.P_HELD:C.PB + p * C.PSTRIDE + C.P_HELD + 8]
                       for p in range(2))
        assert list(s[C.H_BAG:C.H_BAG + 8] + held_all) == list(cfg.lure_mix)
    for p in range(2):
        assert _chi2(pairs[p], law, n) > P_MIN, (p, pairs[p])


def _bag_draws(bag, discard, p, stream, n=8000):
    """``n`` draws of :func:`draw_lure` for seat ``p`` from a state whose bag and discard pile
    hold ``bag`` and ``discard`` tokens per kind, each from its own seed word of batch
    ``stream``: the kinds drawn, after checking the piles and the seat's tokens."""
    base = _new(LureConfig(n_players=2), chance.as_word(stream))
    base[C.H_BAG:C.H_BAG + 8] = bag
    base[C.H_BAGN] = sum(bag)
    base[C.H_DISC:C.H_DISC + 8] = discard
    base[C.H_DISCN] = sum(discard)
    source = bag if sum(bag) else discard  # the discard pile only refills an empty bag
    held = C.PB + p * C.PSTRIDE + C.P_HELD
    kinds = Counter()
    for w in chance.game_seeds(stream, n):
        s = base.copy()
        s[C.H_RNG] = w
        k = C.draw_lure(s, p)
        kinds[int(k)] += 1
        assert s[C.H_BAG + k] == source[k] - 1 and s[C.H_BAGN] == sum(source) - 1
        assert s[C.H_DISCN] == (sum(discard) if sum(bag) else 0)
        assert s[held + k] == base[held + k] + 1
    return kinds


def test_a_lure_is_drawn_from_the_bag_by_its_composition():
    """``draw_lure``: a token of kind k with chance (tokens of kind k in the bag) / (tokens in
    the bag), empty kinds never, the discard pile untouched (8,000 draws from a bag of 3 x1,
    1 x3, 2 x6, 4 boosts)."""
    bag = [0, 3, 0, 1, 0, 0, 2, 4]
    kinds = _bag_draws(bag, [1, 0, 0, 0, 0, 0, 0, 1], 1, 8)
    assert _chi2(kinds, {k: m for k, m in enumerate(bag) if m}, 8000) > P_MIN, kinds


def test_an_empty_bag_is_refilled_from_the_discard_pile():
    """``draw_lure`` on an empty bag: the discard pile becomes the bag, then a token is drawn
    by its composition (8,000 draws from a discard pile of 2 adjusts, 1 x2, 3 boosts)."""
    disc = [2, 0, 1, 0, 0, 0, 0, 3]
    kinds = _bag_draws([0] * 8, disc, 0, 9)
    assert _chi2(kinds, {k: m for k, m in enumerate(disc) if m}, 8000) > P_MIN, kinds


def test_every_die_rolls_each_face_equally_often():
    """Rolling the acting group (rules *Fish*): every d6 and the d12, d20 and d4 show each
    face with the same chance, the first two d6 independently (36 pairs), and a player of
    another group rolls nothing (4,000 rolls of 5d6 + d12 + d20 + d4)."""
    base = _new(LureConfig(n_players=2, deep_waters=True), chance.as_word(3))
    b = C.PB
    base[C.H_GROUP] = 0
    base[b + C.P_GROUPR] = 0
    base[b + C.P_N6] = 5
    base[b + C.P_SPEC] = 7
    base[b + C.P_NDICE] = 8
    base[C.PB + C.PSTRIDE + C.P_GROUPR] = 1
    n = 4000
    raw = np.empty((n, C.NSLOT), np.int64)
    for i, w in enumerate(chance.game_seeds(10, n)):
        s = base.copy()
        s[C.H_RNG] = w
        assert not C._roll_group(s)  # no adjust cast: no decision pending
        raw[i] = s[b + C.P_RAW:b + C.P_RAW + C.NSLOT]
        assert (s[C.PB + C.PSTRIDE + C.P_RAW:C.PB + C.PSTRIDE + C.P_RAW + C.NSLOT] == -1).all()
    for slot, faces in enumerate(C.SLOT_FACES):
        col = raw[:, slot]
        assert col.min() >= 1 and col.max() <= faces, slot
        assert chisquare(np.bincount(col - 1, minlength=faces)).pvalue > P_MIN, slot
    pairs = (raw[:, 0] - 1) * 6 + raw[:, 1] - 1
    assert chisquare(np.bincount(pairs, minlength=36)).pvalue > P_MIN


def test_a_finished_secret_cast_redraws_each_special_die_with_chance_one_half():
    """``determinize``, a finished secret cast (Deep Waters): each available special die, the
    d4 included, is in the redrawn cast with chance 1/2 independently (all 8 masks equally
    likely); a resting die never (the 4 masks without the d20) (4,000 seeds each)."""
    for resting, cast, masks in ((0, "cast 2d6 d12 d20 d4", range(8)),
                                 (2, "cast 2d6 d12 d4", (0, 1, 4, 5))):
        g = make(plain_deck(20, cn=60), n=2, deep_waters=True, deep_waters_removed=0)
        g.state[C.PB + C.P_RESTING] = resting
        g.play_move(cast)
        assert g.state[C.PB + C.P_CAST_DONE] == 1 and g.current_player() == 1
        n = 4000
        spec = Counter()
        out = np.empty(C.STATE_SIZE, np.int64)
        for w in chance.game_seeds(11 + resting, n):
            C.determinize(g.state, 1, w, out)
            spec[int(out[C.PB + C.P_SPEC])] += 1
        assert _chi2(spec, {m: 1 for m in masks}, n) > P_MIN, (resting, spec)


def test_unknown_tokens_of_several_players_are_dealt_uniformly():
    """``determinize``: the unknown tokens are dealt to the other players as a uniform draw
    without replacement: seat 1's two tokens and seat 2's one token have the joint law of 3
    tokens drawn in order from the 6 unknown ones (bag of 3 adjusts, 2 x1, 1 boost; 6,000
    seeds)."""
    g = make(plain_deck(20, cn=60), n=3, lure_mix=(3, 2, 0, 0, 0, 0, 0, 1))
    give(g, 1, "adjust")
    give(g, 1, "boost")
    give(g, 2, "x1")
    tokens = [0, 0, 0, 1, 1, 7]
    law = Counter((tuple(sorted((tokens[i], tokens[j]))), tokens[k])
                  for i, j, k in itertools.permutations(range(6), 3))
    n = 6000
    seen = Counter()
    out = np.empty(C.STATE_SIZE, np.int64)
    for w in chance.game_seeds(12, n):
        C.determinize(g.state, 0, w, out)
        hands = []
        for q in (1, 2):
            b = C.PB + q * C.PSTRIDE
            held = out[b + C.P_HELD:b + C.P_HELD + 8] + out[b + C.P_CAST:b + C.P_CAST + 8]
            hands.append(tuple(int(k) for k in np.repeat(np.arange(8), held)))
        assert len(hands[0]) == 2 and len(hands[1]) == 1
        seen[(hands[0], hands[1][0])] += 1
    assert _chi2(seen, dict(law), n) > P_MIN, seen
