"""determinize / information_state of Lure: conservation, the information state kept, legal
actions kept, a function of (information state, seed), uniform placements (chi-square), and
fair play of the shipped policies (engines/lure/core.py, agents/lure.py)."""

from __future__ import annotations

import functools
import itertools
from collections import Counter

import numpy as np
import pytest
from scipy.stats import chisquare

from agents import lure as A
from agents.policy import Agent, params_width, specs
from engines.protocol import chance
from engines.lure import LureState, core as C
from engines.lure.config import LureConfig

from .helpers import give, make, plain_deck

CONFIGS = [LureConfig(n_players=2, starting_lures=2),
           LureConfig(n_players=3, deep_waters=True, starting_lures=3),
           LureConfig(n_players=4, adjust_may_be_unused=False, starting_lures=2),
           LureConfig(n_players=5, deep_waters=True, adjust_may_be_unused=False,
                      starting_lures=1)]


@functools.cache
def _states(every=3, games=2):
    """(game, seat) pairs along mixed games: every ``every``-th decision, every seat."""
    out = []
    for ci, cfg in enumerate(CONFIGS):
        for gi in range(games):
            g = LureState(cfg, 100 * ci + gi)
            pols = [Agent("lure", ["random", "greedy", "bold"][(p + gi) % 3])
                    for p in range(cfg.n_players)]
            i = 0
            while not g.is_terminal():
                if i % every == 0:
                    for p in range(cfg.n_players):
                        out.append((g.clone(), p))
                g.apply_action(pols[g.current_player()](g))
                i += 1
            out.append((g.clone(), 0))
    return tuple(out)


def _det(s, p, seed):
    out = np.empty(C.STATE_SIZE, np.int64)
    C.determinize(s, p, np.int64(seed), out)
    return out


def _info(s, p):
    out = np.empty(C.INFO_SIZE, np.int64)
    C.information_state(s, p, out)
    return out


def _inv(s):
    out = np.zeros(C.INVENTORY_SIZE, np.int64)
    C.inventory(s, out)
    return out


def _legal(s):
    buf = np.empty(C.MAX_LEGAL, np.int64)
    return buf[:C.legal_actions(s, buf)].tolist()


def test_determinize_keeps_items_information_and_legal_actions():
    """Conservation (inventory), information state unchanged, the acting seat's legal actions
    unchanged, idempotent up to the seed: det(det(s, p, s1), p, s2) == det(s, p, s2)."""
    for k, (g, p) in enumerate(_states()):
        s = g.state
        d = _det(s, p, 7 + k)
        assert np.array_equal(_inv(d), _inv(s))
        assert np.array_equal(_info(d, p), _info(s, p))
        if p == g.current_player():
            assert _legal(d) == _legal(s)
        assert C.current_player(d) == C.current_player(s)
        assert C.progress(d, 0) == C.progress(s, 0) and C.progress(d, 1) == C.progress(s, 1)
        assert np.array_equal(_det(d, p, 99), _det(s, p, 99))
        assert d[C.H_RNG] == chance.mix(np.int64(7 + k) ^ np.int64(C.RNG_SALT))


def test_determinized_games_play_to_the_end():
    """A determinized state is a legal game state: random play from it keeps the invariants
    and ends."""
    for k, (g, p) in enumerate(_states()[::7]):
        h = g.determinize(p, 1000 + k)
        assert h.determinized
        inv = _inv(h.state)
        agent = Agent("lure", "random")
        while not h.is_terminal():
            h.apply_action(agent(h))
            assert np.array_equal(_inv(h.state), inv)
        assert sum(h.returns()) == pytest.approx(1.0)
        with pytest.raises(ValueError, match="determinized"):
            h.record()


def _permute_hidden(g: LureState, p: int, rng: np.random.Generator) -> np.ndarray:
    """The state with its hidden items moved: the unrevealed cards permuted (pile and Deep
    Waters removals), the bag and the other players' tokens exchanged, the chance word and the
    decision counter changed."""
    s = g.state.copy()
    pos, nd = int(s[C.H_DRAWPOS]), int(s[C.H_NDRAW])
    pool = [int(s[C.DRAW + pos + i]) for i in range(nd)]
    if s[C.H_DEEP]:
        pool += [c for c in range(len(g.deck)) if s[C.LOC + c] == C.LOC_OUT]
    pool = [pool[i] for i in rng.permutation(len(pool))]
    for i, c in enumerate(pool):
        if i < nd:
            s[C.DRAW + pos + i] = c
            s[C.LOC + c] = C.LOC_DECK
        else:
            s[C.LOC + c] = C.LOC_OUT
    # exchange tokens between the bag and others' holdings (kinds only, counts kept)
    others = [q for q in range(g.n_players) if q != p]
    if s[C.H_PHASE] != C.PH_CAST:
        holders = [C.H_BAG] + [C.PB + q * C.PSTRIDE + C.P_HELD for q in others]
        sizes = [int(s[h:h + 8].sum()) for h in holders]
        tokens = [k for h in holders for k in range(8) for _ in range(int(s[h + k]))]
        tokens = [tokens[i] for i in rng.permutation(len(tokens))]
        j = 0
        for h, n in zip(holders, sizes, strict=True):
            s[h:h + 8] = 0
            for k in tokens[j:j + n]:
                s[h + k] += 1
            j += n
    s[C.H_RNG] = rng.integers(-2**62, 2**62)
    s[C.H_STEP] += 3
    return s


def test_determinize_depends_on_the_information_state_only():
    """Bit-identical output after moving the hidden items of the state."""
    rng = np.random.default_rng(3)
    for k, (g, p) in enumerate(_states()):
        t = _permute_hidden(g, p, rng)
        assert np.array_equal(_info(t, p), _info(g.state, p))
        assert np.array_equal(_det(t, p, k), _det(g.state, p, k))


def test_a_secret_cast_in_progress_starts_again_and_finished_ones_are_redrawn():
    g = make(plain_deck(20, cn=60), n=3)
    give(g, 0, "x3", 2)
    give(g, 0, "adjust")
    give(g, 1, "boost")
    g.play_move("cast 4d6 d12 lures adjust x3")
    g.apply_action(2)  # P1: 2d6, then still choosing
    g.apply_action(C.A_SPECIAL)
    d = g.determinize(2, 5)
    b0, b1 = C.PB, C.PB + C.PSTRIDE
    assert d.current_player() == 1 and d.state[b1 + C.P_CSTEP] == C.CS_D6
    assert d.state[b1 + C.P_NHELD] == 1 and d.state[b1 + C.P_CAST:b1 + C.P_CAST + 8].sum() == 0
    assert d.legal_actions() == list(range(6))
    assert d.state[b0 + C.P_CAST_DONE] == 1
    assert d.state[b0 + C.P_NHELD] + d.state[b0 + C.P_CAST:b0 + C.P_CAST + 8].sum() == 3
    # seat 1 itself keeps its partial cast
    own = g.determinize(1, 5)
    assert own.state[b1 + C.P_CSTEP] == C.CS_LURES and own.legal_actions() == g.legal_actions()


def _chi2_ok(counts: Counter, support, n):
    obs = np.array([counts.get(x, 0) for x in support], float)
    assert obs.sum() == n, "a sample fell outside the support"
    return chisquare(obs).pvalue > 1e-4


def test_unrevealed_fish_are_placed_uniformly():
    g = LureState(LureConfig(n_players=4, deep_waters=True), 4)
    pool = sorted(int(c) for c in range(45) if g.state[C.LOC + c] in (C.LOC_DECK, C.LOC_OUT))
    n = 6000
    top = Counter()
    inplay = Counter()
    pos = int(g.state[C.H_DRAWPOS])
    for k in range(n):
        d = _det(g.state, 1, k)
        top[int(d[C.DRAW + pos])] += 1
        inplay.update(int(c) for c in pool if d[C.LOC + c] == C.LOC_DECK)
    assert _chi2_ok(top, pool, n)
    # every unrevealed card is in the pile (not removed) with the same chance
    share = np.array([inplay[c] for c in pool]) / n
    assert abs(share.mean() - g.state[C.H_NDRAW] / len(pool)) < 1e-9
    assert chisquare(np.array([inplay[c] for c in pool], float)).pvalue > 1e-4


def test_unknown_tokens_are_dealt_uniformly():
    """Another player's single token is of kind k with chance (unknown tokens of kind k) /
    (unknown tokens)."""
    g = make(plain_deck(20, cn=60), n=3)
    give(g, 1, "x2")
    give(g, 2, "adjust", 2)
    give(g, 0, "boost")
    # P0 knows: P1 holds one token, P2 two, of the mix minus P0's boost
    n = 12000
    kinds = Counter()
    for k in range(n):
        d = _det(g.state, 0, k)
        b1 = C.PB + C.PSTRIDE
        held = d[b1 + C.P_HELD:b1 + C.P_HELD + 8] + d[b1 + C.P_CAST:b1 + C.P_CAST + 8]
        (kind,) = np.flatnonzero(held)
        kinds[int(kind)] += 1
    mix = np.array(g.config.lure_mix, float)
    mix[7] -= 1
    obs = np.array([kinds.get(k, 0) for k in range(8)], float)
    assert chisquare(obs, mix / mix.sum() * n).pvalue > 1e-4


def test_a_finished_secret_cast_is_redrawn_with_the_documented_distribution():
    g = make(plain_deck(20, cn=60), n=2)
    give(g, 0, "x3", 2)
    g.play_move("cast 5d6 d12 d20 lures x3 x3")
    n = 6000
    n6, spec, x3 = Counter(), Counter(), Counter()
    for k in range(n):
        d = _det(g.state, 1, k)
        n6[int(d[C.PB + C.P_N6])] += 1
        spec[int(d[C.PB + C.P_SPEC])] += 1
        held = d[C.PB + C.P_HELD:C.PB + C.P_HELD + 8] + d[C.PB + C.P_CAST:C.PB + C.P_CAST + 8]
        assert held.sum() == 2
        for k in np.flatnonzero(held):
            x3[(int(held[k]), int(d[C.PB + C.P_CAST + k]))] += 1
    assert _chi2_ok(n6, range(6), n) and _chi2_ok(spec, range(4), n)
    # each kind: a count uniform in 0..tokens of that kind dealt to the player
    for h in (1, 2):
        m = sum(v for (hh, _), v in x3.items() if hh == h)
        assert m > 300 and _chi2_ok(Counter({c: v for (hh, c), v in x3.items() if hh == h}),
                                    range(h + 1), m)


def test_finished_secret_adjusts_are_redrawn_uniformly_among_reachable_dice():
    rows = plain_deck(10, cn=60)
    # a group of two: P0 (2 adjusts, done) and P1 (to act)
    for unused in (True, False):
        for seed in range(200):
            g = make(rows, n=2, seed=seed, adjust_may_be_unused=unused)
            give(g, 0, "adjust", 2)
            give(g, 1, "adjust", 1)
            g.play_move("cast 2d6 lures adjust*2")
            g.play_move("cast 2d6 lures adjust")
            raw = [int(g.state[C.PB + C.P_RAW + t]) for t in range(2)]
            if g.phase == "adjust" and 2 <= raw[0] <= 4 and 2 <= raw[1] <= 5:
                break
        else:
            raise AssertionError("no such roll")
        g.play_move("adjust d6#1+2" if unused else "adjust d6#1+1 d6#2+1")
        assert g.current_player() == 1
        reach = set()
        for d1, d2 in itertools.product(range(-2, 3), repeat=2):
            steps = abs(d1) + abs(d2)
            if (steps <= 2 and (unused or steps % 2 == 0) and 1 <= raw[0] + d1 <= 6
                    and 1 <= raw[1] + d2 <= 6):
                reach.add((raw[0] + d1, raw[1] + d2))
        n = 5000
        seen = Counter()
        for k in range(n):
            d = _det(g.state, 1, k)
            seen[(int(d[C.PB + C.P_DICE]), int(d[C.PB + C.P_DICE + 1]))] += 1
            assert d[C.PB + C.P_RAW] == raw[0] and d[C.PB + C.P_ADJ_LEFT] == 0
        assert _chi2_ok(seen, sorted(reach), n), (unused, raw, seen)


@pytest.mark.parametrize("name", [s.name for s in specs("lure").values()
                                  if not s.sees_hidden and not s.search and s.name != "net"])
def test_policies_play_fair(name):
    """Every shipped policy takes the same action, and leaves the same memory, on
    determinize(s, player, seed) as on s."""
    spec = specs("lure")[name]
    params = np.zeros(params_width("lure"))
    params[:len(spec.default_params)] = spec.default_params
    for cfg_i, cfg in enumerate(CONFIGS):
        aux = A.make_aux(cfg)
        g = LureState(cfg, 50 + cfg_i)
        agent = Agent("lure", name)
        k = 0
        while not g.is_terminal():
            p = g.current_player()
            legal = np.array(g.legal_actions(), np.int64)
            mem1 = g.seat_memory[p].copy()
            mem2 = g.seat_memory[p].copy()
            a1 = A.act(spec.kind, g.state, p, legal, len(legal), params, aux, mem1)
            d = _det(g.state, p, 1000 + k)
            a2 = A.act(spec.kind, d, p, legal, len(legal), params, aux, mem2)
            assert a1 == a2 and np.array_equal(mem1, mem2), (name, cfg_i, k)
            g.apply_action(agent(g))
            k += 1
