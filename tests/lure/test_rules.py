"""Rule-by-rule scenario tests of Lure (docs/rules/lure.md); each names its rule.

Deterministic set-ups use players casting no dice and extra-die lures (whose values are
fixed), so the sums are known in advance. A whole cast or adjust is played as one move
(:meth:`LureState.play_move`), i.e. its small decisions in a row.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from engines import dice
from engines.lure import core as C
from engines.lure.config import C_NCARDS, LureConfig
from engines.lure.game import LureState

from .helpers import card, cast_all, field, give, make, plain_deck, set_table, tokens_total


# ------------------------------------------------------------------ A round, step 1: Splash
@pytest.mark.parametrize("n,shown", [(2, 2), (3, 2), (4, 3), (5, 3)])
def test_splash_reveals_two_fish_with_2_3_players_else_three(n, shown):
    g = make(plain_deck(20), n=n)
    assert len(g.fish_on_table()) == shown


def test_splash_fish_plus_reveals_one_more():
    """A revealed 'fish+' card reveals one more fish at once (chains)."""
    rows = plain_deck(12) + [card(f"P{i}", splash="fish+") for i in range(4)]
    for seed in range(30):
        g = make(rows, n=4, seed=seed)
        tab = g.fish_on_table()
        plus = sum(c.startswith("P") for c in tab)
        assert len(tab) == min(3 + plus, 16)


def test_splash_lure_icon_every_player_draws():
    g = make([card(f"L{i}", splash="lure") for i in range(10)], n=4)
    assert [field(g, p, C.P_NHELD) for p in range(4)] == [3, 3, 3, 3]
    assert tokens_total(g) == 24


def test_splash_emptying_the_deck_makes_the_final_round():
    g = make(plain_deck(3), n=4)
    assert g.state[C.H_FINAL] == 1 and g.state[C.H_NDRAW] == 0
    cast_all(g, *["cast nothing"] * 4)
    assert g.is_terminal() and g.round == 1


def test_fish_left_over_are_carried_to_the_next_round():
    """Uncaught fish stay; the next splash adds to them."""
    g = make(plain_deck(10, cn=60), n=2)
    cast_all(g, "cast nothing", "cast nothing")
    assert g.round == 2 and len(g.fish_on_table()) == 4


# ------------------------------------------------------------------ step 2: Cast
def test_a_cast_is_d6_then_special_dice_then_lures_in_kind_order_then_finish():
    """The action table: 0..5 d6, 6..13 special-dice masks (available subsets), 14..21 one
    lure of a held kind at least the kind added last, 22 finish."""
    g = make(plain_deck(10, cn=60), n=2, deep_waters=True, deep_waters_removed=0)
    give(g, 0, "adjust", 2)
    give(g, 0, "x3")
    give(g, 0, "boost")
    assert g.legal_actions() == list(range(6))
    g.apply_action(2)
    assert g.legal_actions() == list(range(6, 14))  # every subset of d12, d20, d4
    g.apply_action(6 + 2)  # d20
    assert g.legal_actions() == [14, 17, 21, 22]
    g.apply_action(17)  # x3: adjust is now below the last kind added
    assert g.legal_actions() == [21, 22]
    g.apply_action(21)
    assert g.legal_actions() == [22]
    g.apply_action(22)
    assert g.current_player() == 1 and field(g, 0, C.P_CAST_DONE) == 1
    assert [field(g, 0, C.P_CAST + k) for k in range(8)] == [0, 0, 0, 1, 0, 0, 0, 1]
    assert field(g, 0, C.P_NHELD) == 2 and field(g, 0, C.P_N6) == 2
    assert field(g, 0, C.P_SPEC) == 2
    assert g.parse_move("cast 5d6 d12 d4") == [5, 6 + 5, 22]


def test_casts_are_secret_until_all_are_in():
    g = make(plain_deck(10), n=3)
    give(g, 0, "boost")
    g.play_move("cast 2d6 d12 lures boost")
    obs1 = g.observation(1)
    assert obs1["players"][0]["cast"] is None and obs1["players"][0]["cast_done"]
    # another player's count during the cast phase is held + cast: it hides the cast's size
    assert obs1["players"][0]["lures"] is None and obs1["players"][0]["n_lures"] == 1
    own = g.observation(0)["players"][0]["cast"]
    assert own == {"d6": 2, "special": ["d12"], "lures": {"boost": 1}}
    cast_all(g, "cast 1d6", "cast nothing")
    # revealed at once; the round resolved, and its record stays public
    last = g.observation(1)["players"][0]["last_round"]
    assert last["cast"] == own and len(last["dice"]) == 3


@pytest.mark.parametrize("text,msg", [
    ("cast 1d6 lures boost", "'lure boost' is not legal"),
    ("cast 1d6 d4", "'special d4' is not legal"),
    ("cast 7d6", "cast token '7d6'"),
])
def test_illegal_cast_is_rejected_and_changes_nothing(text, msg):
    g = make(plain_deck(10), n=2)
    before = g.state.copy()
    with pytest.raises(ValueError, match=msg):
        g.play_move(text)
    assert np.array_equal(before, g.state) and g.history == []
    for bad, why in [(6, "illegal action 6"), (-3, "not in the action table"),
                     (40, "not in the action table"), (3.0, "expected an int"),
                     ("3", "expected an int"), (True, "expected an int")]:
        with pytest.raises(ValueError, match=why):
            g.apply_action(bad)
    assert np.array_equal(before, g.state) and g.history == []


def test_special_dice_rest_one_round_then_come_back():
    """Rule step 4: special dice rolled this round are unavailable next round."""
    g = make(plain_deck(20, cn=60), n=2)
    cast_all(g, "cast 1d6 d12", "cast 1d6")
    assert g.round == 2
    assert "d12" in g.observation(1)["players"][0]["resting"]
    with pytest.raises(ValueError, match="special d12"):
        g.play_move("cast d12")
    cast_all(g, "cast d20", "cast nothing")
    assert g.round == 3
    g.apply_action(0)
    assert C.A_SPECIAL + 2 not in g.legal_actions()  # the d20 rests
    assert g.legal_actions() == [C.A_SPECIAL, C.A_SPECIAL + 1]
    g.play_move("d12")  # back after a round off


# ------------------------------------------------------------------ step 3: Fish
def test_turn_order_fewest_dice_first_and_extra_dice_do_not_count():
    """P1 casts one die plus an extra-die 6 (one die for turn order) and acts before P0 (2 d6)."""
    g = make(plain_deck(10, cn=1), n=4)
    give(g, 1, "x6")
    cast_all(g, "cast 2d6", "cast 1d6 lures x6", "cast 3d6", "cast nothing")
    ranks = [g.observation(0)["players"][p]["last_round"]["turn_order"] for p in range(4)]
    assert ranks == [2, 1, 3, 0]
    # P3 (no dice, sum 0) meets nothing; P1 acts next and catches every fish
    assert len(g.caught(1)) == 3 and g.caught(0) == g.caught(2) == g.caught(3) == []


def test_catch_every_fish_whose_conditions_hold():
    rows = [card("A", 3), card("B", 5, "has:5"), card("C", 6, "has:6"), card("D", 5, "pair")]
    rows += plain_deck(10, cn=60)
    g = make(rows, n=4)
    set_table(g, ["A", "B", "C"])
    give(g, 0, "x5")
    cast_all(g, "cast lures x5", "cast nothing", "cast nothing", "cast nothing")
    assert sorted(g.caught(0)) == ["A", "B"]
    assert "C" in g.fish_on_table()


def test_simultaneous_lower_sum_takes_a_contested_fish():
    g = make(plain_deck(10, cn=2), n=2)
    give(g, 0, "x2")
    give(g, 1, "x5")
    cast_all(g, "cast lures x2", "cast lures x5")
    assert len(g.caught(0)) == 2 and g.caught(1) == []


def test_simultaneous_equal_sums_leave_the_fish_and_both_draw():
    """Equal sums: nobody takes it, it stays; a player who caught nothing draws one lure."""
    g = make(plain_deck(10, cn=2), n=2)
    give(g, 0, "x3")
    give(g, 1, "x3")
    cast_all(g, "cast lures x3", "cast lures x3")
    assert g.caught(0) == g.caught(1) == []
    assert len(g.fish_on_table()) == 4
    assert field(g, 0, C.P_NHELD) == 1 and field(g, 1, C.P_NHELD) == 1
    assert g.state[C.H_DISC + 3] == 2
    assert tokens_total(g) == 24


def test_caught_nothing_draws_a_lure_even_with_no_fish_left():
    g = make(plain_deck(10, cn=1), n=2)
    give(g, 0, "x1")
    cast_all(g, "cast lures x1", "cast 3d6")  # P1 acts after P0, who took every fish
    assert len(g.caught(0)) == 2
    assert field(g, 1, C.P_NHELD) == 1 and field(g, 0, C.P_NHELD) == 0


def test_boosts_kept_and_scored_only_with_a_catch():
    """Boost: kept for 2 points each if the player catches at least one fish (one catch scores
    all boosts played); otherwise discarded."""
    g = make(plain_deck(4, cn=2), n=2)  # 2 + 2 cards: round 2 is the final round
    give(g, 0, "x2")
    give(g, 0, "boost", 2)
    give(g, 1, "x3")
    give(g, 1, "boost")
    cast_all(g, "cast lures x2 boost*2", "cast lures x3 boost")
    assert field(g, 0, C.P_KEPT) == 2 and field(g, 1, C.P_KEPT) == 0
    assert g.state[C.H_DISC + 7] == 1
    cast_all(g, "cast nothing", "cast nothing")
    assert g.is_terminal()
    assert g.scores() == [2 + 2 * 2, 0]


def test_extra_die_counts_for_values_and_lure_requirements():
    rows = [card("S", 6, "has:6"), card("L", 3, "lure"), card("N", 1, "no_lure")]
    g = make(rows + plain_deck(6, cn=60), n=4)
    set_table(g, ["S", "L", "N"])
    give(g, 0, "x6")
    cast_all(g, "cast lures x6", "cast nothing", "cast nothing", "cast nothing")
    assert sorted(g.caught(0)) == ["L", "S"] and "N" in g.fish_on_table()


def _adjust_game(seed, unused=True, want=(4, 5)):
    for sd in range(seed, seed + 300):
        g = make(plain_deck(10, cn=0, req="has:6"), n=2, seed=sd, adjust_may_be_unused=unused)
        give(g, 0, "adjust", 2)
        cast_all(g, "cast 1d6 lures adjust*2", "cast nothing")
        if field(g, 0, C.P_RAW) in want:
            return g
    raise AssertionError("no such roll")


def test_adjust_moves_a_die_within_its_faces_before_catching():
    """Adjust: +-1 per token (one decision each), several on one die, never past a face;
    applied before catching."""
    g = _adjust_game(0)
    assert g.phase == "adjust" and g.current_player() == 0
    raw = field(g, 0, C.P_RAW)
    assert g.legal_actions() == [C.A_ADJUST, C.A_ADJUST + 1, C.A_STOP]
    assert field(g, 0, C.P_ADJ_LEFT) == 2
    before = g.state.copy()
    with pytest.raises(ValueError, match="3 adjust steps but only 2"):
        g.play_move("adjust d6#1-3")
    with pytest.raises(ValueError, match="'d12\\+1' is not legal"):
        g.play_move("adjust d12+1")
    assert np.array_equal(before, g.state)
    g.apply_action(g.string_to_action("d6#1+1"))
    assert field(g, 0, C.P_ADJ_LEFT) == 1 and g.current_player() == 0
    if raw == 5:  # now at the highest face: +1 is no longer legal
        assert g.legal_actions() == [C.A_ADJUST + 1, C.A_STOP]
        g.play_move("adjust none")
    else:
        g.play_move("adjust d6#1+1")
    assert len(g.caught(0)) == 2 and field(g, 0, C.P_LAST_DICE) == 6


def test_adjust_may_be_left_unused_decision():
    """[decision] adjust_may_be_unused: True allows 'stop' (39); False needs every adjust to
    move a die (opposite steps may cancel)."""
    g = _adjust_game(1, unused=True)
    assert C.A_STOP in g.legal_actions()
    g.play_move("adjust none")
    assert g.phase != "adjust"
    g = _adjust_game(1, unused=False)
    assert C.A_STOP not in g.legal_actions()
    with pytest.raises(ValueError, match="every adjust must move"):
        g.play_move("adjust d6#1-1")
    raw = field(g, 0, C.P_RAW)
    acts = g.play_move("adjust none")  # +1 then -1 (or -1 then +1): two moves
    assert len(acts) == 2 and field(g, 0, C.P_LAST_DICE) == raw


def _reachable(raw, faces, k, unused):
    """Final dice reachable by the step decisions (breadth first over the action table)."""
    states = {tuple(raw)}
    done = set(states) if unused else set()
    for _ in range(k):
        nxt = set()
        for st in states:
            for i, v in enumerate(st):
                for d in (1, -1):
                    if 1 <= v + d <= faces[i]:
                        nxt.add(st[:i] + (v + d,) + st[i + 1:])
        states = nxt
        if unused:
            done |= states
    return done if unused else states


@pytest.mark.parametrize("unused", [True, False])
def test_step_adjusts_reach_exactly_the_final_dice_of_the_one_action_rule(unused):
    """With k adjusts the final dice reachable by k step decisions (and 'stop' when allowed)
    are exactly the vectors of the one-action rule: at most k steps in all, never past a face,
    the parity of k when adjusts must be used (engines.dice.enumerate_deltas)."""
    faces = [6, 6, 12, 20, 4]
    for raw in ([1, 6, 12, 1, 4], [3, 4, 6, 10, 2], [6, 1, 1, 20, 1]):
        for ndice in (1, 2, 5):
            r, f = raw[:ndice], faces[:ndice]
            for k in range(0, 4):
                got = _reachable(r, f, k, unused)
                lo = np.array([1 - v for v in r], np.int64)
                hi = np.array([fc - v for v, fc in zip(r, f, strict=True)], np.int64)
                buf = np.zeros((20000, ndice), np.int64)
                n = dice.enumerate_deltas(lo, hi, ndice, k, not unused, buf)
                want = {tuple(int(v + d) for v, d in zip(r, row, strict=True))
                        for row in buf[:n]}
                assert got == want, (r, k, unused)


def test_adjust_decisions_of_a_simultaneous_group_in_seat_order():
    """Members of one group adjust in seat order, each seeing the others' raw rolls only."""
    rows = plain_deck(10, cn=60)
    for seed in range(50):
        g = make(rows, n=3, seed=seed)
        give(g, 0, "adjust")
        give(g, 2, "adjust", 2)
        cast_all(g, "cast 1d6 lures adjust", "cast 3d6", "cast 1d6 lures adjust*2")
        if g.phase == "adjust":
            break
    assert g.current_player() == 0
    a = next(x for x in g.legal_actions() if x != C.A_STOP)
    g.apply_action(a)  # P0's only adjust: P2 is next
    assert g.current_player() == 2
    o = g.observation(2)["players"][0]
    assert o["dice"] == o["roll"]  # P0's adjusted die is hidden from P2
    assert g.observation(0)["players"][0]["dice"] != o["roll"]
    hidden = {k: int(v) for k, v in g.observation(0)["players"][0]["dice"].items()}
    g.play_move("adjust none")
    # the groups resolved and the round ended: P0's adjusted die is public in its record
    assert g.round == 2
    assert g.observation(2)["players"][0]["last_round"]["dice"] == hidden


def test_lure_bag_reshuffles_discards_only_when_empty():
    g = make(plain_deck(10), n=2)
    s = g.state
    for k in range(C.NK):  # the whole bag to the discard pile except one boost
        s[C.H_DISC + k] += s[C.H_BAG + k]
        s[C.H_BAG + k] = 0
    s[C.H_DISC + 7] -= 1
    s[C.H_BAG + 7] = 1
    s[C.H_DISCN] = s[C.H_BAGN] - 1
    s[C.H_BAGN] = 1
    disc = s[C.H_DISCN]
    assert C.draw_lure(s, 0) == 7
    assert s[C.H_DISCN] == disc and s[C.H_BAGN] == 0
    assert C.draw_lure(s, 0) >= 0  # now the discard pile is shuffled in
    assert s[C.H_DISCN] == 0 and s[C.H_BAGN] == disc - 1
    assert tokens_total(g) == 24
    for k in range(C.NK):
        s[C.H_BAG + k] = 0
    s[C.H_BAGN] = 0
    assert C.draw_lure(s, 1) == -1  # nothing left to draw


# ------------------------------------------------------------------ End and scoring
def _scored(points, fish, kept=(0, 0), trophies=(0, 0), held_=(0, 0), **cfg):
    g = make(plain_deck(10), n=len(points), **cfg)
    for p in range(len(points)):
        b = C.PB + p * C.PSTRIDE
        g.state[b + C.P_POINTS] = points[p]
        g.state[b + C.P_NFISH] = fish[p]
        g.state[b + C.P_KEPT] = kept[p]
        g.state[b + C.P_TROPHY] = trophies[p]
        g.state[b + C.P_NHELD] = held_[p]
    C._score(g.state)
    return g


def test_score_is_fish_points_plus_two_per_boost_and_unused_lures_score_nothing():
    g = _scored((10, 9), (3, 3), kept=(0, 1), held_=(4, 0))
    assert g.scores() == [10, 11] and g.returns() == [0, 1]
    g = _scored((10, 9), (3, 3), kept=(0, 1), held_=(4, 0), unused_lure_points=1)
    assert g.scores() == [14, 11]


def test_ties_go_to_fewer_fish_then_are_shared():
    assert _scored((10, 10), (3, 2)).returns() == [0, 1]
    assert _scored((10, 10), (2, 2)).returns() == [0.5, 0.5]


def test_most_trophies_score_five_each():
    """[decision] trophy_bonus (Deep Waters, "End and scoring"): the player(s) with the most
    trophy icons score 5 each; the base game has no trophy bonus (even with a deck whose base
    cards carry trophies)."""
    deep = {"deep_waters": True}
    assert _scored((10, 10), (2, 2), trophies=(2, 2), **deep).scores() == [15, 15]
    assert _scored((10, 10), (2, 2), trophies=(1, 0), **deep).scores() == [15, 10]
    assert _scored((10, 10), (2, 2), trophies=(0, 0), **deep).scores() == [10, 10]
    assert _scored((10, 10), (2, 2), trophies=(1, 0)).scores() == [10, 10]


def test_a_game_reaching_max_game_length_ends_truncated():
    g = make(plain_deck(20, cn=60), n=2)
    g.state[C.H_STEP] = C.MAX_GAME_LENGTH - 1
    g.apply_action(0)
    assert g.is_terminal() and g.outcome()["truncated"] == 1
    assert sum(g.returns()) == pytest.approx(1.0)


# ------------------------------------------------------------------ Deep Waters
def test_deep_waters_shuffles_in_15_and_removes_15():
    rows = plain_deck(30) + plain_deck(15, prefix="D")
    for r in rows[30:]:
        r["set"] = "deep_waters"
    g = make(rows, n=4, deep_waters=True)
    loc = g.state[C.LOC:C.LOC + 45]
    assert (loc == C.LOC_OUT).sum() == 15 and g.state[C.H_NINPLAY] == 30
    g = make(rows, n=4)
    assert (g.state[C.LOC + 30:C.LOC + 45] == C.LOC_OUT).all()


def test_deep_waters_d4_is_a_special_die():
    g = make(plain_deck(10, cn=60), n=2, deep_waters=True, deep_waters_removed=0)
    cast_all(g, "cast 1d6 d4", "cast nothing")
    with pytest.raises(ValueError, match="special d4"):
        g.play_move("cast d4")


def test_stubborn_fish_goes_to_the_last_player_who_met_it():
    """Stubborn: after everyone fished, the last player in turn order whose roll met it."""
    rows = [card(f"S{i}", 6, "stubborn", cset="deep_waters") for i in range(6)]
    rows += [card(f"B{i}", 6) for i in range(6)]
    g = make(rows, n=2, deep_waters=True, deep_waters_removed=0)
    set_table(g, ["S0", "S1"])
    give(g, 0, "x6")
    give(g, 1, "x6")
    g.play_move("cast lures x6")          # no dice: acts first, meets both (sum 6)
    g.play_move("cast 1d6 lures x6")      # one die: acts second, sum >= 7, meets both
    assert len(g.caught(1)) == 2 and g.caught(0) == []
    assert field(g, 0, C.P_NHELD) == 1  # P0 caught nothing and drew a lure
    assert (g.state[C.CLAIM_P:C.CLAIM_P + C.MAXC] == -1).all()


def test_non_stubborn_fish_goes_to_the_first():
    g = make(plain_deck(10, cn=6), n=2)
    give(g, 0, "x6")
    give(g, 1, "x6")
    cast_all(g, "cast lures x6", "cast 1d6 lures x6")
    assert len(g.caught(0)) == 2 and g.caught(1) == []


def test_deep_waters_requirements_in_play():
    """special2 (two special dice rolled), odd / even (every die and extra-die lure)."""
    rows = [card("S2", 2, "special2", cset="deep_waters"), card("OD", 8, "odd", cset="deep_waters"),
            card("EV", 1, "even", cset="deep_waters")] + plain_deck(8, cn=60)
    g = make(rows, n=2, deep_waters=True, deep_waters_removed=0)
    set_table(g, ["OD", "EV"])
    give(g, 0, "x3")
    give(g, 0, "x5")
    cast_all(g, "cast lures x3 x5", "cast 5d6")  # values 3 and 5: all odd, sum 8
    assert g.caught(0) == ["OD"]
    set_table(g, ["S2"])
    cast_all(g, "cast d12 d20", "cast 5d6")  # two special dice: meets special2 with sum >= 2
    assert "S2" in g.caught(0)


# ------------------------------------------------------------------ config
def test_config_rejects_bad_values():
    for kw, msg in [({"n_players": 6}, "n_players"), ({"lure_mix": (1, 2)}, "lure_mix"),
                    ({"trophy_bonus": -1}, "trophy_bonus"),
                    ({"deep_waters": "yes"}, "deep_waters"),
                    ({"deck": "default"}, "LureConfig.deck = 'default'")]:
        with pytest.raises(ValueError, match=msg):
            LureConfig(**kw)
    with pytest.raises(ValueError, match="unknown LureConfig field 'colour'"):
        LureConfig.from_dict({"colour": 1})
    with pytest.raises(ValueError, match="bad config '4 players'"):
        LureState("4 players")
    d = LureConfig().to_dict()
    d["deck"]["rows"][0]["points"] = 9
    with pytest.raises(ValueError, match="recorded sha256"):
        LureConfig.from_dict(d)


def test_config_carries_its_deck_and_round_trips():
    rows = plain_deck(5, cn=3)
    cfg = make(rows, n=3).config
    again = LureConfig.from_dict(cfg.to_dict())
    assert again == cfg and hash(again) == hash(cfg)
    assert np.array_equal(again.to_array(), cfg.to_array())
    assert again != LureConfig(n_players=3)
    arr = cfg.to_array()
    assert arr.shape == (C.CONFIG_SIZE,) and arr.dtype == np.int64
    assert arr[C_NCARDS] == 5 and {cfg, again} == {cfg}


def test_product_of_decisions_spans_every_old_cast():
    """Every cast of the one-action rule (d6 count x available special subset x tokens per
    held kind) is one path through the cast decisions."""
    g = make(plain_deck(10, cn=60), n=2)
    give(g, 0, "adjust", 2)
    give(g, 0, "x1")
    give(g, 0, "boost")
    paths = set()
    for n6, spec in itertools.product(range(6), range(4)):
        for counts in itertools.product(range(3), range(2), range(2)):
            h = g.clone()
            text = f"cast {n6}d6 " + " ".join(["d12"] * (spec & 1) + ["d20"] * (spec >> 1))
            text += " lures " + " ".join(["adjust"] * counts[0] + ["x1"] * counts[1]
                                         + ["boost"] * counts[2])
            h.play_move(text)
            b = C.PB
            paths.add((int(h.state[b + C.P_N6]), int(h.state[b + C.P_SPEC]),
                       tuple(int(x) for x in h.state[b + C.P_CAST:b + C.P_CAST + 8])))
    assert len(paths) == 6 * 4 * 3 * 2 * 2
