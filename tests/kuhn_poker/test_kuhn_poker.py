"""Kuhn poker, the worked example game (docs/adding_a_game.md): its rules line by line, the
known equilibrium value -1/18 (Kuhn 1950) from its shipped equilibrium policy and from
OpenSpiel's CFR run through our adapter, in agreement with OpenSpiel's own ``kuhn_poker``."""

from __future__ import annotations

import numpy as np
import pytest

from agents.loop import play_batch
from engines.kuhn_poker import core as C
from engines.kuhn_poker.config import KuhnPokerConfig
from engines.protocol import game_class, new_game

J, Q, K = 0, 1, 2
DEAL = {(int(a), int(b)): d for d, (a, b) in enumerate(C.DEALS)}


def _play(cards, line):
    st = game_class("kuhn_poker").from_deal(DEAL[cards])
    for text in line.split():
        st.apply_action(st.string_to_action(text))
    return st


@pytest.mark.parametrize("cards, line, result", [
    ((K, Q), "pass pass", [1, -1]),        # showdown for the antes: the higher card
    ((J, Q), "pass pass", [-1, 1]),
    ((J, K), "pass bet pass", [-1, 1]),    # player 0 folds to the bet
    ((K, J), "pass bet bet", [2, -2]),     # called: showdown for 2
    ((J, K), "bet pass", [1, -1]),         # player 1 folds: the bettor wins 1, cards unseen
    ((Q, K), "bet bet", [-2, 2]),
    ((K, Q), "check bet call", [2, -2]),   # the other words for pass and bet
])
def test_rules_betting_lines(cards, line, result):
    """Rules, "Betting": every line of the table, returns in chips."""
    st = _play(cards, line)
    assert st.is_terminal() and st.returns() == result
    shown = "pass pass" in line or line.endswith(("bet bet", "bet call"))
    assert bool(st.state[C.SHOW]) == shown
    assert st.outcome()["pot"] == 2 * abs(result[0])


def test_rules_order_and_views():
    """Rules, "Setup": player 0 acts first; a player sees its own card, the betting, and the
    other card only at a showdown; a fold shows nothing."""
    st = game_class("kuhn_poker").from_deal(DEAL[(Q, K)])
    assert st.current_player() == 0 and st.legal_actions() == [C.PASS, C.BET]
    assert st.observation(0)["opponent_card"] is None and st.card(1) == "K"
    st.apply_action(C.BET)
    assert st.current_player() == 1 and st.observation(1)["betting"] == ["bet"]
    fold = st.clone()
    fold.apply_action(C.PASS)
    assert fold.observation(1)["opponent_card"] is None
    st.apply_action(C.BET)
    assert st.observation(1)["opponent_card"] == "Q"


def test_deals_are_uniform_from_seeds():
    """Setup: the six ordered deals are equally likely (chi-square over 6,000 seeded games)."""
    df = play_batch(KuhnPokerConfig(), "random", 6000, seed=3)
    counts = np.zeros(6)
    for s in df["seed"]:
        counts[int(new_game("kuhn_poker", None, int(s)).state[C.DEAL])] += 1
    chi2 = float(((counts - 1000.0) ** 2 / 1000.0).sum())
    assert chi2 < 20.5, counts  # 5 degrees of freedom, p = 0.001


def test_bad_config_and_deal_are_one_line_errors():
    with pytest.raises(ValueError, match="n_players = 3 is invalid: expected 2"):
        KuhnPokerConfig(n_players=3)
    for bad in (6, -1, 1.0, True):
        with pytest.raises(ValueError, match="bad deal") as e:
            game_class("kuhn_poker").from_deal(bad)
        assert "\n" not in str(e.value)
    with pytest.raises(ValueError, match="no explicit deals"):
        game_class("rats").from_deal(0)


def test_the_equilibrium_policy_loses_one_eighteenth_as_first_player():
    """Known value: Kuhn's equilibrium family gives the first player -1/18 (the mean of 60,000
    seeded games within 4 standard errors)."""
    df = play_batch(KuhnPokerConfig(), "heuristic", 60000, seed=7)
    r = df["return_0"].to_numpy()
    assert abs(r.mean() + 1 / 18) < 4 * r.std() / np.sqrt(r.size)
    assert np.allclose(df["return_0"] + df["return_1"], 0)  # zero-sum


def _cfr(game, iterations):
    from open_spiel.python.algorithms import cfr, exploitability, expected_game_score

    solver = cfr.CFRPlusSolver(game)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    pol = solver.average_policy()
    value = expected_game_score.policy_value(game.new_initial_state(), [pol, pol])
    return value, exploitability.exploitability(game, pol)


def test_openspiel_cfr_through_the_adapter_reaches_the_known_value():
    """OpenSpiel's CFR+ and exploitability run on our game through the adapter (the deal is one
    explicit chance node): the first player's value reaches -1/18, exploitability falls toward
    0, and every figure equals CFR+ on OpenSpiel's own ``kuhn_poker`` (same tree, same
    iterations)."""
    pyspiel = pytest.importorskip("pyspiel", reason="open_spiel is not installed")
    from experiments.interop import openspiel_game as O

    ours = O.load_game("kuhn_poker", 2)
    assert ours.new_initial_state().chance_outcomes() == [(d, 1 / 6) for d in range(6)]
    theirs = pyspiel.load_game("kuhn_poker")
    for iterations in (10, 200):
        (v0, v1), expl = _cfr(ours, iterations)
        (w0, w1), expl_theirs = _cfr(theirs, iterations)
        assert v0 == pytest.approx(w0, abs=1e-12) and expl == pytest.approx(expl_theirs,
                                                                          abs=1e-12)
        assert v0 + v1 == pytest.approx(0.0, abs=1e-12)
    assert v0 == pytest.approx(-1 / 18, abs=1e-3) and expl < 2e-3
