"""The search agents of :mod:`agents.search` (PIMC and ISMCTS, one implementation for every
game): registered presets, fair play (a decision depends only on the searching player's
information state), reproducibility, and the same games through the step API and the loop."""

from __future__ import annotations

import pytest

from agents.loop import play_batch, play_stepwise
from agents.policy import Agent, get_spec, specs
from engines.protocol import GAME_NAMES, game_class
from tests.players import assert_fair, three_players

PRESETS = ("pimc-fast", "pimc", "pimc-strong", "ismcts-fast", "ismcts", "ismcts-strong")
SEARCH_GAMES = [g for g in GAME_NAMES if "pimc" in specs(g)]
PLAYERS = {g: three_players(g) for g in GAME_NAMES}
"""Three players where the game allows (a game added to the registry needs no line here)."""


def _small(game, name, sims=3):
    """A search agent's parameter vector with a tiny budget (tests stay fast)."""
    v = get_spec(game, name).params_array()
    v[0] = sims
    return v


def test_every_game_has_the_search_presets():
    assert set(SEARCH_GAMES) == set(GAME_NAMES)
    for game in GAME_NAMES:
        reg = specs(game)
        for name in PRESETS:
            s = reg[name]
            assert s.search and not s.sees_hidden and s.label
            assert len(s.param_names) == len(s.default_params)
            assert s.default_params[0] >= 8


@pytest.mark.parametrize("game", SEARCH_GAMES)
@pytest.mark.parametrize("name", ["pimc", "ismcts"])
def test_search_decisions_depend_only_on_the_information_state(game, name):
    """Fair play: at sampled positions, the search decides the same on the real state and on
    worlds where everything the player cannot see was dealt anew (same seed for the search's
    own randomness)."""
    assert_fair(Agent(game, name, _small(game, name)), game, 17, 4, 1000)


@pytest.mark.parametrize("game", SEARCH_GAMES)
def test_step_api_equals_loop_and_same_seed_same_games(game):
    cls = game_class(game)
    cfg = cls.config_class(n_players=PLAYERS[game])
    n = PLAYERS[game]
    pols = ["pimc", "heuristic", "ismcts-fast"][:n]
    params = [_small(game, "pimc", 2), None, _small(game, "ismcts-fast", 4)][:n]
    if n == 2:  # a two-player game: both searches, no heuristic
        pols, params = ["pimc", "ismcts-fast"], [params[0], _small(game, "ismcts-fast", 4)]
    df = play_batch(cfg, pols, 2, seed=11, params=params)
    again = play_batch(cfg, pols, 2, seed=11, params=params)
    assert df.equals(again)
    for g in range(2):
        st = play_stepwise(cfg, pols, int(df["seed"].iloc[g]), params=params)
        assert st.returns() == pytest.approx([df[f"return_{p}"].iloc[g]
                                              for p in range(PLAYERS[game])])


def test_search_in_a_tournament_with_two_workers_is_reproducible():
    from experiments.tournament.run import run_tournament

    agents = "heuristic,pimc:simulations=2@pimc2"
    one = run_tournament("recurring", agents, 3, 4, batch_size=2, rating_deals=0, save=False)
    two = run_tournament("recurring", agents, 3, 4, batch_size=2, rating_deals=0, save=False,
                         n_jobs=2)
    assert one.sums == two.sums
