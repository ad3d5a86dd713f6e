"""Rule-by-rule scenario tests of Lure (../shared/rules/lure.md); each names its rule.

Deterministic set-ups use players casting no dice and extra-die lures (whose values are
fixed), so the sums are known in advance.
"""

from __future__ import annotations

import numpy as np
import pytest

from engines.lure import core as K
from engines.lure.config import LureConfig
from engines.lure.game import LureGame

from .helpers import card, field, give, make, plain_deck, set_table


# ------------------------------------------------------------------ A round, step 1: Splash
@pytest.mark.parametrize("n,shown", [(2, 2), (3, 2), (4, 3), (5, 3)])
def test_splash_reveals_two_fish_with_2_3_players_else_three(n, shown):
    g = make(plain_deck(20), n=n)
    assert len(g.table()) == shown


def test_splash_fish_plus_reveals_one_more():
    """A revealed 'fish+' card reveals one more fish at once (chains)."""
    rows = plain_deck(12) + [card(f"P{i}", splash="fish+") for i in range(4)]
    for seed in range(30):
        g = make(rows, n=4, seed=seed)
        tab = g.table()
        plus = sum(c.startswith("P") for c in tab)
        assert len(tab) == min(3 + plus, 16)


def test_splash_lure_icon_every_player_draws():
    g = make([card(f"L{i}", splash="lure") for i in range(10)], n=4)
    assert [field(g, p, K.P_NHELD) for p in range(4)] == [3, 3, 3, 3]
    assert int(K.tokens_total(g.state)) == 24


def test_splash_emptying_the_deck_makes_the_final_round():
    g = make(plain_deck(3), n=4)
    assert g.state[K.H_FINAL] == 1 and g.state[K.H_NDRAW] == 0
    for _ in range(4):
        g.apply_action("cast nothing")
    assert g.is_terminal() and g.round == 1


def test_fish_left_over_are_carried_to_the_next_round():
    """Uncaught fish stay; the next splash adds to them."""
    g = make(plain_deck(10, cn=60), n=2)
    g.apply_action("cast nothing")
    g.apply_action("cast nothing")
    assert g.round == 2 and len(g.table()) == 4


# ------------------------------------------------------------------ step 2: Cast
def test_casts_are_secret_until_all_are_in():
    g = make(plain_deck(10), n=3)
    give(g, 0, "boost")
    g.apply_action("cast 2d6 d12 lures boost")
    obs1 = g.observation(1)
    assert obs1["players"][0]["cast"] is None and obs1["players"][0]["cast_done"]
    assert obs1["players"][0]["lures"] is None and obs1["players"][0]["n_lures"] == 0
    own = g.observation(0)["players"][0]["cast"]
    assert own == {"d6": 2, "special": ["d12"], "lures": {"boost": 1}}
    g.apply_action("cast 1d6")
    g.apply_action("cast nothing")
    # revealed at once; the round resolved, and its record stays public
    last = g.observation(1)["players"][0]["last_round"]
    assert last["cast"] == own and len(last["dice"]) == 3


@pytest.mark.parametrize("text,msg", [
    ("cast 1d6 lures boost", "more lure tokens"),
    ("cast 1d6 d4", "resting this round \\(or the d4"),
])
def test_illegal_cast_is_rejected_and_changes_nothing(text, msg):
    g = make(plain_deck(10), n=2)
    before = g.state.copy()
    with pytest.raises(ValueError, match=msg):
        g.apply_action(text)
    assert np.array_equal(before, g.state)
    with pytest.raises(ValueError, match="more d6"):
        g.apply_action(6)
    with pytest.raises(ValueError, match="does not encode"):
        g.apply_action(-3)
    assert np.array_equal(before, g.state)


def test_special_dice_rest_one_round_then_come_back():
    """Rule step 4: special dice rolled this round are unavailable next round."""
    g = make(plain_deck(20, cn=60), n=2)
    g.apply_action("cast 1d6 d12")
    g.apply_action("cast 1d6")
    assert g.round == 2
    assert "d12" in g.observation(1)["players"][0]["resting"]
    with pytest.raises(ValueError, match="resting"):
        g.apply_action("cast d12")
    g.apply_action("cast d20")
    g.apply_action("cast nothing")
    assert g.round == 3
    with pytest.raises(ValueError, match="resting"):
        g.apply_action("cast d20")
    g.apply_action("cast d12")  # back after a round off


# ------------------------------------------------------------------ step 3: Fish
def test_turn_order_fewest_dice_first_and_extra_dice_do_not_count():
    """P1 casts one die plus an extra-die 6 (one die for turn order) and acts before P0 (2 d6)."""
    g = make(plain_deck(10, cn=1), n=4)
    give(g, 1, "x6")
    g.apply_action("cast 2d6")
    g.apply_action("cast 1d6 lures x6")
    g.apply_action("cast 3d6")
    g.apply_action("cast nothing")
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
    for text in ("cast lures x5", "cast nothing", "cast nothing", "cast nothing"):
        g.apply_action(text)
    assert sorted(g.caught(0)) == ["A", "B"]
    assert "C" in g.table()


def test_simultaneous_lower_sum_takes_a_contested_fish():
    g = make(plain_deck(10, cn=2), n=2)
    give(g, 0, "x2")
    give(g, 1, "x5")
    g.apply_action("cast lures x2")
    g.apply_action("cast lures x5")
    assert len(g.caught(0)) == 2 and g.caught(1) == []


def test_simultaneous_equal_sums_leave_the_fish_and_both_draw():
    """Equal sums: nobody takes it, it stays; a player who caught nothing draws one lure."""
    g = make(plain_deck(10, cn=2), n=2)
    give(g, 0, "x3")
    give(g, 1, "x3")
    g.apply_action("cast lures x3")
    g.apply_action("cast lures x3")
    assert g.caught(0) == g.caught(1) == []
    assert len(g.table()) == 4
    assert field(g, 0, K.P_NHELD) == 1 and field(g, 1, K.P_NHELD) == 1
    assert g.state[K.H_DISC + 3] == 2
    assert int(K.tokens_total(g.state)) == 24


def test_caught_nothing_draws_a_lure_even_with_no_fish_left():
    g = make(plain_deck(10, cn=1), n=2)
    give(g, 0, "x1")
    g.apply_action("cast lures x1")
    g.apply_action("cast 3d6")  # acts after P0, who took every fish
    assert len(g.caught(0)) == 2
    assert field(g, 1, K.P_NHELD) == 1 and field(g, 0, K.P_NHELD) == 0


def test_boosts_kept_and_scored_only_with_a_catch():
    """Boost: kept for 2 points each if the player catches at least one fish (one catch scores
    all boosts played); otherwise discarded."""
    g = make(plain_deck(4, cn=2), n=2)  # 2 + 2 cards: round 2 is the final round
    give(g, 0, "x2")
    give(g, 0, "boost", 2)
    give(g, 1, "x3")
    give(g, 1, "boost")
    g.apply_action("cast lures x2 boost*2")
    g.apply_action("cast lures x3 boost")
    assert field(g, 0, K.P_KEPT) == 2 and field(g, 1, K.P_KEPT) == 0
    assert g.state[K.H_DISC + 7] == 1
    g.apply_action("cast nothing")
    g.apply_action("cast nothing")
    assert g.is_terminal()
    assert g.scores().tolist() == [2 + 2 * 2, 0]


def test_extra_die_counts_for_values_and_lure_requirements():
    rows = [card("S", 6, "has:6"), card("L", 3, "lure"), card("N", 1, "no_lure")]
    g = make(rows + plain_deck(6, cn=60), n=4)
    set_table(g, ["S", "L", "N"])
    give(g, 0, "x6")
    for text in ("cast lures x6", "cast nothing", "cast nothing", "cast nothing"):
        g.apply_action(text)
    assert sorted(g.caught(0)) == ["L", "S"] and "N" in g.table()


def _adjust_game(seed, unused=True):
    g = make(plain_deck(10, cn=0, req="has:6"), n=2, seed=seed, adjust_may_be_unused=unused)
    give(g, 0, "adjust", 2)
    g.apply_action("cast 1d6 lures adjust*2")
    g.apply_action("cast nothing")
    return g


def test_adjust_moves_a_die_within_its_faces_before_catching():
    """Adjust: +-1 per token, several on one die, never past a face; applied before catching."""
    for seed in range(200):
        g = _adjust_game(seed)
        assert g.phase == "adjust" and g.current_player() == 0
        raw = field(g, 0, K.P_RAW)
        if raw in (4, 5):
            break
    legal = {g.action_to_string(a) for a in g.legal_actions()}
    want = {f"adjust d6#1{d:+d}" for d in (-2, -1, 1, 2) if 1 <= raw + d <= 6} | {"adjust none"}
    assert legal == want
    before = g.state.copy()
    with pytest.raises(ValueError, match="more adjust steps"):
        g.apply_action("adjust d6#1-3")
    with pytest.raises(ValueError, match="not rolled"):
        g.apply_action("adjust d12+1")
    assert np.array_equal(before, g.state)
    g.apply_action(f"adjust d6#1+{6 - raw}")
    assert len(g.caught(0)) == 2 and field(g, 0, K.P_LAST_DICE) == 6


def test_adjust_may_be_left_unused_decision():
    """[decision] adjust_may_be_unused: True allows 'adjust none'; False needs every adjust to
    move a die (same parity)."""
    g = _adjust_game(1, unused=True)
    g.apply_action("adjust none")
    g = _adjust_game(1, unused=False)
    with pytest.raises(ValueError, match="every adjust must move"):
        g.apply_action("adjust d6#1+1" if field(g, 0, K.P_RAW) < 6 else "adjust d6#1-1")
    g.apply_action("adjust none")  # +1 then -1 is two moves: parity 0 == 2 % 2


def test_lure_bag_reshuffles_discards_only_when_empty():
    g = make(plain_deck(10), n=2)
    s = g.state
    s[K.H_DISC + 0] += 0
    # move the whole bag to the discard pile except one boost
    for k in range(K.NK):
        s[K.H_DISC + k] += s[K.H_BAG + k]
        s[K.H_BAG + k] = 0
    s[K.H_DISC + 7] -= 1
    s[K.H_BAG + 7] = 1
    s[K.H_DISCN] = s[K.H_BAGN] - 1
    s[K.H_BAGN] = 1
    disc = s[K.H_DISCN]
    assert K.draw_lure(s, 0) == 7
    assert s[K.H_DISCN] == disc and s[K.H_BAGN] == 0
    assert K.draw_lure(s, 0) >= 0  # now the discard pile is shuffled in
    assert s[K.H_DISCN] == 0 and s[K.H_BAGN] == disc - 1
    assert int(K.tokens_total(s)) == 24
    for k in range(K.NK):
        s[K.H_BAG + k] = 0
    s[K.H_BAGN] = 0
    assert K.draw_lure(s, 1) == -1  # nothing left to draw


# ------------------------------------------------------------------ End and scoring
def _scored(points, fish, kept=(0, 0), trophies=(0, 0), held_=(0, 0), **cfg):
    g = make(plain_deck(10), n=len(points), **cfg)
    for p in range(len(points)):
        b = K.PB + p * K.PSTRIDE
        g.state[b + K.P_POINTS] = points[p]
        g.state[b + K.P_NFISH] = fish[p]
        g.state[b + K.P_KEPT] = kept[p]
        g.state[b + K.P_TROPHY] = trophies[p]
        g.state[b + K.P_NHELD] = held_[p]
    K._score(g.state, g.cfg)
    return g


def test_score_is_fish_points_plus_two_per_boost_and_unused_lures_score_nothing():
    g = _scored((10, 9), (3, 3), kept=(0, 1), held_=(4, 0))
    assert g.scores().tolist() == [10, 11] and g.returns().tolist() == [0, 1]
    g = _scored((10, 9), (3, 3), kept=(0, 1), held_=(4, 0), unused_lure_points=1)
    assert g.scores().tolist() == [14, 11]


def test_ties_go_to_fewer_fish_then_are_shared():
    assert _scored((10, 10), (3, 2)).returns().tolist() == [0, 1]
    assert _scored((10, 10), (2, 2)).returns().tolist() == [0.5, 0.5]


def test_most_trophies_score_five_each():
    """[decision] trophy_bonus: the player(s) with the most trophy icons score 5 each."""
    assert _scored((10, 10), (2, 2), trophies=(2, 2)).scores().tolist() == [15, 15]
    assert _scored((10, 10), (2, 2), trophies=(1, 0)).scores().tolist() == [15, 10]
    assert _scored((10, 10), (2, 2), trophies=(0, 0)).scores().tolist() == [10, 10]


# ------------------------------------------------------------------ Deep Waters
def test_deep_waters_shuffles_in_15_and_removes_15():
    rows = plain_deck(30) + plain_deck(15, prefix="D")
    for r in rows[30:]:
        r["set"] = "deep_waters"
    g = make(rows, n=4, deep_waters=True)
    loc = g.state[K.LOC:K.LOC + 45]
    assert (loc == K.LOC_OUT).sum() == 15 and g.state[K.H_NINPLAY] == 30
    g = make(rows, n=4)
    assert (g.state[K.LOC + 30:K.LOC + 45] == K.LOC_OUT).all()


def test_deep_waters_d4_is_a_special_die():
    g = make(plain_deck(10, cn=60), n=2, deep_waters=True, deep_waters_removed=0)
    g.apply_action("cast 1d6 d4")
    g.apply_action("cast nothing")
    with pytest.raises(ValueError, match="resting"):
        g.apply_action("cast d4")


def test_stubborn_fish_goes_to_the_last_player_who_met_it():
    """Stubborn: after everyone fished, the last player in turn order whose roll met it."""
    rows = [card(f"S{i}", 6, "stubborn", cset="deep_waters") for i in range(6)]
    rows += [card(f"B{i}", 6) for i in range(6)]
    g = make(rows, n=2, deep_waters=True, deep_waters_removed=0)
    set_table(g, ["S0", "S1"])
    give(g, 0, "x6")
    give(g, 1, "x6")
    g.apply_action("cast lures x6")          # no dice: acts first, meets both (sum 6)
    g.apply_action("cast 1d6 lures x6")      # one die: acts second, sum >= 7, meets both
    assert len(g.caught(1)) == 2 and g.caught(0) == []
    assert field(g, 0, K.P_NHELD) == 1  # P0 caught nothing and drew a lure


def test_non_stubborn_fish_goes_to_the_first():
    g = make(plain_deck(10, cn=6), n=2)
    give(g, 0, "x6")
    give(g, 1, "x6")
    g.apply_action("cast lures x6")
    g.apply_action("cast 1d6 lures x6")
    assert len(g.caught(0)) == 2 and g.caught(1) == []


def test_config_rejects_bad_values():
    for kw, msg in [({"n_players": 6}, "n_players"), ({"lure_mix": (1, 2)}, "lure_mix"),
                    ({"trophy_bonus": -1}, "trophy_bonus"), ({"deep_waters": "yes"},
                                                              "deep_waters")]:
        with pytest.raises(ValueError, match=msg):
            LureConfig(**kw)
    with pytest.raises(ValueError, match="unknown LureConfig field 'colour'"):
        LureConfig.from_dict({"colour": 1})
    with pytest.raises(ValueError, match="LureConfig"):
        LureGame("4 players")


def test_deep_waters_requirements_in_play():
    """special2 (two special dice rolled), odd / even (every die and extra-die lure)."""
    rows = [card("S2", 2, "special2", cset="deep_waters"), card("OD", 8, "odd", cset="deep_waters"),
            card("EV", 1, "even", cset="deep_waters")] + plain_deck(8, cn=60)
    g = make(rows, n=2, deep_waters=True, deep_waters_removed=0)
    set_table(g, ["OD", "EV"])
    give(g, 0, "x3")
    give(g, 0, "x5")
    g.apply_action("cast lures x3 x5")  # values 3 and 5: all odd, sum 8
    g.apply_action("cast 5d6")
    assert g.caught(0) == ["OD"]
    set_table(g, ["S2"])
    g.apply_action("cast d12 d20")  # two special dice: always meets special2 with sum >= 2
    g.apply_action("cast 5d6")
    assert "S2" in g.caught(0)
