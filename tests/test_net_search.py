"""The search guided by the learned policy (``net-search*``, :func:`agents.search.net_pimc`):
registered where a game has ``net`` weights, fair play
(a decision depends only on the searching player's information state), the unguided search
when the guidance is switched off, and the same games for the same seed."""

from __future__ import annotations

import pytest

from agents import layout
from agents.loop import play_batch
from agents.policy import Agent, get_spec, specs
from engines.protocol import GAME_NAMES, game_class
from tests.players import assert_fair

NET_GAMES = [g for g in GAME_NAMES if "net-search" in specs(g)]
PRESETS = ("net-search-fast", "net-search", "net-search-strong")


def _small(game, name, sims=2, prior=1.0):
    """A guided search's parameter vector with a tiny budget and the prior switched on."""
    v = get_spec(game, name).params_array()
    v[layout.H_SIMS] = sims
    v[layout.H_PRIOR] = prior
    return v


def test_guided_presets_where_net_weights_are_shipped():
    assert set(NET_GAMES) == {g for g in GAME_NAMES if "net" in specs(g)}
    assert {"river_rats", "lure", "rats", "recurring"} <= set(NET_GAMES)
    for game in NET_GAMES:
        for name in PRESETS:
            s = get_spec(game, name)
            assert s.search and not s.sees_hidden and "net rollouts" in s.label
            assert s.kind == layout.K_NET_PIMC
            assert len(s.param_names) == len(s.default_params)
            assert s.param_names[layout.H_PRIOR] == "prior_weight"
            assert s.default_params[layout.H_ROLLOUT] == layout.K_NET
        lite = get_spec(game, "net-search-lite")  # the prior alone, the game's own rollouts
        assert lite.kind == layout.K_NET_PIMC and "heuristic rollouts" in lite.label
        assert lite.default_params[layout.H_ROLLOUT] == get_spec(game, "heuristic").kind
        assert lite.default_params[layout.H_PRIOR] > 0


@pytest.mark.parametrize("game", NET_GAMES)
def test_guided_search_decides_on_the_information_state_only(game):
    """Fair play: the guided search (net rollouts, prior on) decides the same on the real state
    and on worlds where everything the player cannot see was dealt anew."""
    assert_fair(Agent(game, "net-search", _small(game, "net-search")), game, 31, 5, 2000)


def test_guided_search_without_guidance_is_pimc():
    """With the heuristic as rollout policy, prior weight 0 and the hand-written leaf (learned
    value 0), ``net-search`` plays exactly the games of ``pimc`` at the same budget (the
    guidance is the only difference)."""
    game = "river_rats"
    cfg = game_class(game).config_class(n_players=2)
    v = _small(game, "net-search", sims=3, prior=0.0)
    v[layout.H_ROLLOUT] = get_spec(game, "heuristic").kind
    assert v[layout.H_LEARNED_VALUE] > 0  # River Rats ships a learned value: switch it off too
    v[layout.H_LEARNED_VALUE] = 0.0
    _guided_equals_unguided_without_prior(cfg, "net-search", v, "pimc", 5.0)


def test_guided_search_same_seed_same_games():
    cfg = game_class("lure").config_class(n_players=3)
    v = _small("lure", "net-search")
    one = play_batch(cfg, ["net-search", "heuristic", "net"], 2, seed=8, params=[v, None, None])
    two = play_batch(cfg, ["net-search", "heuristic", "net"], 2, seed=8, params=[v, None, None])
    assert one.equals(two)


def test_guided_ismcts_preset_where_net_weights_are_shipped():
    """``net-ismcts``: ``ismcts``'s settings with ``net``'s prior at the root."""
    for game in NET_GAMES:
        g = get_spec(game, "net-ismcts")
        base = get_spec(game, "ismcts")
        assert g.kind == layout.K_NET_ISMCTS and g.search and not g.sees_hidden
        assert g.default_params[layout.H_PRIOR] > 0 and g.param_names == base.param_names
        assert g.default_params[layout.H_SIMS] < base.default_params[layout.H_SIMS]
        same = [i for i in range(len(g.default_params)) if i not in (layout.H_SIMS, layout.H_PRIOR)]
        assert [g.default_params[i] for i in same] == [base.default_params[i] for i in same]


@pytest.mark.parametrize("game", ["river_rats", "rats"])
def test_guided_ismcts_decides_on_the_information_state_only(game):
    """Fair play: the root prior reads the player's own information state only."""
    assert_fair(Agent(game, "net-ismcts", _small(game, "net-ismcts", sims=12, prior=3.0)),
                game, 31, 5, 2000)


def test_guided_ismcts_without_the_prior_is_ismcts():
    """Prior weight 0: ``net-ismcts`` plays exactly ``ismcts``'s games at the same budget; a
    strong prior changes decisions."""
    game = "river_rats"
    cfg = game_class(game).config_class(n_players=2)
    v = _small(game, "net-ismcts", sims=24, prior=0.0)
    _guided_equals_unguided_without_prior(cfg, "net-ismcts", v, "ismcts", 50.0)


def _guided_equals_unguided_without_prior(cfg, guided, v, plain, strong):
    """Six games of ``guided`` (params ``v``, prior 0) are those of ``plain`` at the same
    budget; with prior weight ``strong`` some decision changes."""
    p = get_spec("river_rats", plain).params_array()
    p[layout.H_SIMS] = v[layout.H_SIMS]
    a = play_batch(cfg, guided, 6, seed=3, params=v)
    b = play_batch(cfg, plain, 6, seed=3, params=p)
    cols = [c for c in a.columns if c.startswith("return_")]
    assert a[cols].equals(b[cols])
    v[layout.H_PRIOR] = strong
    c = play_batch(cfg, guided, 6, seed=3, params=v)
    assert not a.equals(c)
