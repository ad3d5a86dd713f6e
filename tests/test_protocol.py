"""One conformance test that every game passes (in the spirit of pgx's ``api_test`` and
OpenSpiel's random simulation test), for every player count: random playouts through the step
API check the contract of :mod:`engines.protocol` at every decision, and sampled positions
check the contract of ``determinize`` (conservation, the player's information state and legal
actions unchanged, no dependence on where the hidden items really are, fair play of every
policy that claims to see only its own information)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agents.policy import Agent, specs
from engines.names import DESCRIPTIONS
from engines.protocol import GAME_NAMES, game_class, replay
from engines.protocol.game import absent_seat_field

PLAYERS = {g: d.players for g, d in DESCRIPTIONS.items()}
ROOT = Path(__file__).resolve().parents[1]
CASES = [(g, n) for g in GAME_NAMES for n in PLAYERS[g]]


def _config(game, n):
    return game_class(game).config_class(n_players=n)


def _bad_inputs(st):
    C = st.core
    legal = st.legal_actions()
    out = [C.NUM_DISTINCT_ACTIONS, -1, 10**12, float(legal[0]), str(legal[0]), None, True]
    illegal = next((a for a in range(C.NUM_DISTINCT_ACTIONS) if a not in legal), None)
    if illegal is not None:
        out.append(illegal)
    return out


def _check_decision(st, rng):
    C = st.core
    n = st.n_players
    legal = st.legal_actions()
    assert legal, "no legal action while the game runs"
    assert len(legal) <= C.MAX_LEGAL
    assert legal == sorted(set(legal)), "legal actions must be ascending and distinct"
    assert 0 <= legal[0] and legal[-1] < C.NUM_DISTINCT_ACTIONS
    p = st.current_player()
    assert 0 <= p < n
    texts = [st.action_to_string(a) for a in legal]
    assert len(set(texts)) == len(texts), "two legal actions share a text"
    a = legal[int(rng.integers(len(legal)))]
    assert st.string_to_action(st.action_to_string(a)) == a
    for q in range(n):
        seen = int(C.observed_action(st.state, a, q))
        assert seen == a if q == p else (seen == a or seen >= C.HIDDEN_ACTION)
    if rng.random() < 0.15:  # illegal input is refused and changes nothing
        before, hist = st.state.copy(), list(st.history)
        for bad in _bad_inputs(st):
            with pytest.raises(ValueError):
                st.apply_action(bad)
            assert np.array_equal(st.state, before) and st.history == hist
    return a


def _views(st, p):
    C = st.core
    obs = st.observation_array(p)
    info = st.information_state(p)
    ten = st.observation_tensor(p)
    assert obs.shape == (C.OBS_SIZE,) and obs.dtype == np.int64
    assert info.shape == (C.INFO_SIZE,) and info.dtype == np.int64
    assert ten.shape == (C.TENSOR_SIZE,) and ten.dtype == np.float32
    assert np.all(np.isfinite(ten))
    return obs, info


def _inventory(st):
    out = np.zeros(st.core.INVENTORY_SIZE, dtype=np.int64)
    st.core.inventory(st.state, out)
    return out


def _check_determinize(st, rng, fair_agents):
    """The contract of determinize at this position, for the player to act."""
    p = st.current_player()
    inv = _inventory(st)
    obs, info = _views(st, p)
    s1, s2 = (int(x) for x in rng.integers(0, 2**63, size=2))
    d = st.determinize(p, s1)
    assert np.array_equal(_inventory(d), inv), "determinize must conserve every item"
    assert np.array_equal(d.information_state(p), info), "information state changed"
    assert np.array_equal(d.observation_array(p), obs), "observation changed"
    assert d.current_player() == p and d.legal_actions() == st.legal_actions()
    # no leak: the result depends only on the information state and the seed
    assert np.array_equal(st.determinize(p, s2).state, d.determinize(p, s2).state), \
        "determinize depends on where the hidden items really are"
    assert np.array_equal(st.determinize(p, s1).state, d.state), "determinize is not seeded"
    # fair play: policies that see only their own information decide the same
    for agent in fair_agents:
        mem = st.seat_memory.copy()
        a1 = agent(st)
        st.seat_memory[:] = mem
        d.seat_memory[:] = mem
        assert agent(d) == a1, f"{agent.name} reads hidden information"
        st.seat_memory[:] = mem
    return d


@pytest.mark.parametrize("game,n", CASES, ids=[f"{g}-{n}p" for g, n in CASES])
def test_random_playouts_keep_the_protocol(game, n):
    rng = np.random.default_rng(1000 * n + len(game))
    cfg = _config(game, n)
    fair = [Agent(game, s.name) for s in specs(game).values()
            if not s.sees_hidden and not s.search]
    for _ in range(2):
        st = game_class(game)(cfg, int(rng.integers(0, 2**64, dtype=np.uint64)))
        C = st.core
        inv0 = _inventory(st)
        assert inv0.sum() > 0
        steps = 0
        while not st.is_terminal():
            a = _check_decision(st, rng)
            if steps % 7 == 3:
                d = _check_determinize(st, rng, fair)
                if steps % 21 == 3:  # a determinized world plays on to a legal end
                    while not d.is_terminal():
                        d.apply_action(d.legal_actions()[int(rng.integers(len(d.legal_actions())))])
                    assert np.array_equal(_inventory(d), inv0)
            st.apply_action(a)
            steps += 1
            assert steps <= C.MAX_GAME_LENGTH
            assert np.array_equal(_inventory(st), inv0), "an item appeared or vanished"
        assert st.legal_actions() == [] and st.current_player() == -1
        r = st.returns()
        assert len(r) == n and all(np.isfinite(r))
        with pytest.raises(ValueError):
            st.apply_action(0)
        again = replay(st.to_json())
        assert np.array_equal(again.state, st.state) and again.history == st.history
        # every outcome field of a seat in play (fields of absent seats are left out)
        expected = {f for f in C.OUTCOME_FIELDS if not absent_seat_field(f, n)}
        assert set(st.outcome()) >= expected
        assert not any(absent_seat_field(f, n) for f in st.outcome())


@pytest.mark.parametrize("game", GAME_NAMES)
def test_constants_and_bad_construction(game):
    cls = game_class(game)
    C = cls.core
    for name in ("GAME_NAME", "MIN_PLAYERS", "MAX_PLAYERS", "CONFIG_SIZE", "STATE_SIZE",
                 "NUM_DISTINCT_ACTIONS", "MAX_LEGAL", "MAX_GAME_LENGTH", "OBS_SIZE",
                 "INFO_SIZE", "TENSOR_SIZE", "INVENTORY_SIZE", "OUTCOME_FIELDS",
                 "HIDDEN_ACTION"):
        assert hasattr(C, name), name
    assert C.GAME_NAME == game and C.HIDDEN_ACTION == C.NUM_DISTINCT_ACTIONS
    d = DESCRIPTIONS[game]  # the description agrees with the rules core and the config
    assert (d.min_players, d.max_players) == (C.MIN_PLAYERS, C.MAX_PLAYERS)
    assert cls.config_class().n_players == d.default_players
    lo, hi = d.utility_bounds(C)
    assert lo < hi and (d.rules == "" or (ROOT / "docs" / "rules" / d.rules).is_file())
    if d.match_games_field:
        assert hasattr(cls.config_class(), d.match_games_field)
    fields = set(C.OUTCOME_FIELDS)
    need = {"place": "place_0", "win_then_score": "score_0"}.get(d.outcome)
    assert need is None or need in fields, (d.outcome, need)
    assert C.NUM_DISTINCT_ACTIONS <= 5000, "a few thousand distinct actions at most"
    assert len(cls.config_class().to_array()) == C.CONFIG_SIZE
    assert cls.rules_summary.strip()
    for bad_seed in (-1, 2**64, 1.5, "7"):
        with pytest.raises(ValueError, match="seed"):
            cls(None, bad_seed)
    with pytest.raises(ValueError, match="config"):
        cls(42, 0)
    st = cls(None, 3)
    with pytest.raises(ValueError, match="player"):
        st.observation_array(C.MAX_PLAYERS + 1)
    with pytest.raises(ValueError, match="player"):
        st.determinize(-1, 0)
    with pytest.raises(ValueError, match="no legal action"):
        st.string_to_action("fly to the moon")


@pytest.mark.parametrize("game", GAME_NAMES)
def test_kernels_take_the_protocol_parameter_names(game):
    """One naming scheme: every kernel of every core has the parameters of the protocol's
    table (:data:`engines.protocol.kernels.KERNELS`), ``init_state(cfg, seed, out)``,
    ``observe(s, p, out)`` and so on."""
    import inspect

    from engines.protocol.kernels import KERNELS

    C = game_class(game).core
    assert len(KERNELS) == 15
    for name, params in KERNELS.items():
        f = getattr(C, name)
        got = tuple(inspect.signature(getattr(f, "py_func", f)).parameters)
        assert got == params, f"{game}: {name}{got}, expected {name}{params}"


def test_a_bad_game_description_is_one_line(tmp_path):
    from engines.description import GameDescription

    base = dict(name="g", title="G", min_players=2, max_players=4, default_players=4,
                play_players=2, cooperative=False, utility="general_sum", min_utility=0.0,
                max_utility=1.0)
    for bad, msg in ((dict(default_players=5), "players 2..4 with default 5"),
                     (dict(utility="sum"), "utility 'sum'"),
                     (dict(outcome="match"), "without match_games_field"),
                     (dict(cooperative=True), "cooperative")):
        with pytest.raises(ValueError, match=msg) as e:
            GameDescription(**dict(base, **bad))
        assert "\n" not in str(e.value)


def test_no_game_name_decides_code_outside_the_descriptions():
    """Facts about a game live in its description: no ``== "<game>"`` test on a game's name
    in the command line, the tournament, the adapters or the learning tools."""
    import re

    names = "|".join(GAME_NAMES)
    pat = re.compile(rf"""(==|!=)\s*["']({names})["']""")
    hits = []
    for folder in ("experiments/cli", "experiments/tournament", "experiments/interop",
                   "experiments/learn", "agents"):
        for f in sorted((ROOT / folder).glob("*.py")):
            for i, line in enumerate(f.read_text().splitlines(), 1):
                if pat.search(line):
                    hits.append(f"{f.relative_to(ROOT)}:{i}: {line.strip()}")
    assert not hits, hits


@pytest.mark.parametrize("game", GAME_NAMES)
def test_agents_meet_the_contract(game):
    from agents.contract import contract

    c = contract(game)
    assert c.specs and c.policy_functions and c.has_search


def test_a_missing_agents_hook_is_one_line():
    import types

    from agents.contract import check_module
    from agents.policy import agents_module

    real = agents_module("rats")
    for drop, msg in (("act", "missing hook act"), ("POLICY_FUNCTIONS", "POLICY_FUNCTIONS"),
                      ("LEAF_VALUE_NAMES", "missing hook LEAF_VALUE_NAMES")):
        mod = types.ModuleType("fake")
        mod.__dict__.update({k: v for k, v in vars(real).items() if k != drop})
        with pytest.raises(ValueError, match=msg) as e:
            check_module("rats", mod)
        assert "\n" not in str(e.value) and "agents/rats.py" in str(e.value)


def test_a_malformed_table_order_hook_is_one_line():
    """TABLE_ORDER_POLICIES names a shipped policy function and pairs two compiled functions."""
    import types

    from agents.contract import check_module
    from agents.policy import agents_module

    real = agents_module("river_rats")
    pair = real.TABLE_ORDER_POLICIES["random"]
    for table in ({"peeky": pair}, {"random": pair[0]}, {"random": (pair[0], 3)}, [pair]):
        mod = types.ModuleType("fake")
        mod.__dict__.update(vars(real))
        mod.TABLE_ORDER_POLICIES = table
        with pytest.raises(ValueError, match="TABLE_ORDER_POLICIES") as e:
            check_module("river_rats", mod)
        assert "\n" not in str(e.value) and "agents/river_rats.py" in str(e.value)
    assert check_module("river_rats", real).table_order_policies == {"random": pair}


def test_one_naming_scheme_and_the_old_names_gone():
    """<Game>Config and <Game>State in every game; the old names, deprecated for a release,
    are gone (AttributeError, as for any unknown name)."""
    import importlib

    from engines.names import DESCRIPTIONS

    for g in GAME_NAMES:
        cls = game_class(g)
        title = "".join(w.capitalize() for w in DESCRIPTIONS[g].title.replace("eCURRR",
                                                                               "ecurr").split())
        assert cls.__name__ == f"{title}State", cls.__name__
        assert cls.config_class.__name__ == f"{title}Config", cls.config_class.__name__
    import engines.lure
    import engines.river_rats

    for module, old in ((engines.river_rats, "Config"), (engines.lure, "LureGame"),
                        (importlib.import_module("engines.river_rats.config"), "Config"),
                        (importlib.import_module("engines.lure.game"), "LureGame")):
        with pytest.raises(AttributeError, match=old):
            getattr(module, old)
