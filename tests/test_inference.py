"""Inference over hidden cards (:mod:`agents.inference`, :mod:`engines.river_rats.relabel`,
:mod:`engines.protocol.history`): relabellings move only the cards the player does not know
and keep its information (rules, *Communication*: a player sees the public cards and its own
hand), a relabelled history is a history of the same game, the worlds and the decisions
depend only on the player's information and the public history, the evidence favours the true
deal, and the compiled loop and the step API play the same games with inference."""

from __future__ import annotations

import numpy as np
import pytest

from agents import layout
from agents.search import SEARCH_FUNCTIONS
from agents.inference import infer_world_seeds, world_log_likelihood
from agents.loop import play_batch, play_stepwise
from agents.policy import Agent, get_spec, table_aux
from engines.protocol import GAME_IDS
from engines.protocol.history import LOG_N, LOG_ON, LOG_S0, log_width
from engines.protocol.kernels import call_literal
from engines.river_rats import RiverRatsConfig
from engines.river_rats import core as C
from engines.river_rats.relabel import relabel_map

G = GAME_IDS["river_rats"]
HOOKED = ("river_rats", "rats")
"""The games that offer relabel hooks."""


def _mods(game):
    import importlib

    from engines.protocol import core_of

    return core_of(game), importlib.import_module(f"engines.{game}.relabel")


def _history_positions(n, policy="heuristic", players=4, difficulty=None, game="river_rats"):
    """Positions ``(state, p)`` of games played by ``policy`` in which every step of the
    history may be relabelled for the acting player (River Rats: before it loses track of a
    card; Rats: in round 1)."""
    from engines.protocol import game_class

    core, R = _mods(game)
    cls = game_class(game)
    out = []
    for seed in range(300):
        kw = {"n_players": players}
        if difficulty is not None:
            kw["difficulty"] = difficulty
        st = cls(cls.config_class(**kw), seed)
        ag = Agent(game, policy)
        stop = 6 + (seed * 7) % 30
        while not st.is_terminal() and len(st.history) < stop:
            st.apply_action(ag(st))
        if st.is_terminal() or len(st.legal_actions()) < 2:
            continue
        p = st.current_player()
        w = st.initial.copy()
        ok = True
        for a in st.history:
            ok = ok and R.relabel_consistent(w, st.state, p)
            core.apply_action(w, a)
        if ok:
            out.append((st, p))
        if len(out) == n:
            break
    return out


def _relabelled_history(st, p, seed, game="river_rats"):
    """Another deal consistent with everything seat ``p`` saw: the game's initial state and
    actions relabelled by a relabelling for ``p``; returns (perm, initial, actions, state)."""
    core, R = _mods(game)
    perm = np.empty(54, np.int64)
    R.relabel_map(st.state, st.initial, p, seed, perm)
    s0 = np.empty_like(st.state)
    R.relabel(st.initial, perm, s0)
    hist = [int(R.relabel_action(a, perm)) for a in st.history]
    s = s0.copy()
    for a in hist:
        core.apply_action(s, a)
    return perm, s0, hist, s


def _row(seat_memory, s0, hist, game="river_rats"):
    core, _ = _mods(game)
    row = np.zeros(log_width(core.STATE_SIZE, core.MAX_GAME_LENGTH), np.int64)
    row[:seat_memory.shape[0]] = seat_memory
    row[LOG_ON], row[LOG_N] = 1, len(hist)
    row[LOG_S0:LOG_S0 + core.STATE_SIZE] = s0
    row[LOG_S0 + core.STATE_SIZE:LOG_S0 + core.STATE_SIZE + len(hist)] = hist
    return row


def _live(game, s):
    """What a state holds, without the words past a pile's count (River Rats' piles keep stale
    cards there; nothing reads them)."""
    if game != "river_rats":
        return s.tolist()
    out = s[:48].tolist() + [int(s[C.PUBLIC])]
    for _, b, _cap in C.CARD_PILES:
        out += s[b:b + 1 + s[b]].tolist()
    return out


def _infer_params(sims=4, window=40, worlds=16, temp=1.0, game="river_rats"):
    params = get_spec(game, "net-search").params_array()
    params[layout.H_SIMS] = sims
    params[layout.H_INFER] = window
    params[layout.H_INFER_WORLDS] = worlds
    params[layout.H_INFER_TEMP] = temp
    return params


def test_river_rats_relabelling_moves_only_unknown_cards():
    """River Rats (rules, *Communication*): a seat knows the public cards, its own hand and its
    own face-down card; the waiting Rat is one of the unseen Kings."""
    for st, p in _history_positions(12, difficulty="advanced"):
        s = st.state
        perm = np.empty(54, np.int64)
        moved = relabel_map(s, st.initial, p, 99, perm)
        assert sorted(perm) == list(range(54))
        assert moved > 0
        for c in range(54):
            if C.known_cards(s, p, c):
                assert perm[c] == c
            else:
                assert not C.known_cards(s, p, perm[c])
        if s[C.WAITING] >= 0 and s[C.ASIDE] > 0:
            assert perm[s[C.ASIDE + 1]] >> 2 == C.KING


@pytest.mark.parametrize("game", HOOKED)
def test_relabelling_keeps_the_information_and_moves_hidden_cards(game):
    core, R = _mods(game)
    changed = 0
    for st, p in _history_positions(12, game=game):
        s = st.state
        perm = np.empty(54, np.int64)
        R.relabel_map(s, st.initial, p, 99, perm)
        assert sorted(perm) == list(range(54))
        a, b = np.empty(core.INFO_SIZE, np.int64), np.empty(core.INFO_SIZE, np.int64)
        core.information_state(s, p, a)
        for world in (True, False):
            w = np.empty_like(s)
            if world:
                R.relabeled_world(s, p, perm, 5, w)
            else:
                R.relabel(s, perm, w)
            inv = np.empty(core.INVENTORY_SIZE, np.int64)
            core.inventory(w, inv)
            assert (inv[:54] == 1).all()
            core.information_state(w, p, b)
            assert (a == b).all()
        changed += (w != s).any()
    assert changed >= 10


@pytest.mark.parametrize("game", HOOKED)
def test_a_relabelled_history_is_a_history_of_the_same_game(game):
    """Rules: nothing between the deal and now depended on a card the player does not know, so
    the relabelled deal played with the relabelled actions reaches the relabelled state."""
    core, R = _mods(game)
    positions = _history_positions(15, game=game)
    assert len(positions) == 15
    for st, p in positions:
        perm, s0, hist, s = _relabelled_history(st, p, 7, game)
        want = np.empty_like(st.state)
        R.relabel(st.state, perm, want)
        assert _live(game, s) == _live(game, want)


@pytest.mark.parametrize("game", HOOKED)
def test_relabelling_depends_only_on_the_information_and_the_public_history(game):
    core, R = _mods(game)
    for st, p in _history_positions(10, game=game):
        perm, s0, _hist, s = _relabelled_history(st, p, 11, game)
        a = np.empty(54, np.int64)
        b = np.empty(54, np.int64)
        R.relabel_map(st.state, st.initial, p, 4242, a)
        R.relabel_map(s, s0, p, 4242, b)
        wa, wb = np.empty_like(s), np.empty_like(s)
        R.relabeled_world(st.state, p, a, 3, wa)
        R.relabeled_world(s, p, b, 3, wb)
        if game == "river_rats":
            assert (b[perm] == a).all()  # b relabels perm(c) where a relabels c
        assert _live(game, wa) == _live(game, wb)  # the same world


@pytest.mark.parametrize("game", HOOKED)
def test_search_with_inference_is_fair_and_infers(game):
    """The same decision and seat stream whatever the deal consistent with what the player
    saw; and inference is at work (it chose the worlds) in these positions."""
    core, _ = _mods(game)
    gid = GAME_IDS[game]
    params = _infer_params(game=game)
    spec = get_spec(game, "net-search")
    agent = SEARCH_FUNCTIONS[spec.kind]  # the step API's call (only this agent compiled)
    from engines.protocol import game_class

    aux = table_aux(game, game_class(game).config_class(n_players=4))
    inferred = 0
    positions = _history_positions(10, game=game)
    assert len(positions) == 10
    for i, (st, p) in enumerate(positions):
        legal = np.array(st.legal_actions(), np.int64)
        r1 = _row(st.seat_memory[p], st.initial, st.history, game)
        k = call_literal(infer_world_seeds, gid, st.state, p, params, aux, r1.copy(), 4,
                         np.empty(4, np.int64))
        inferred += k > 0
        a1 = call_literal(agent, gid, st.state, p, legal, len(legal), params, aux, r1)
        for seed in (1, 2):
            _perm, s0, hist, s = _relabelled_history(st, p, 1000 * i + seed, game)
            r2 = _row(st.seat_memory[p], s0, hist, game)
            buf = np.empty(core.MAX_LEGAL, np.int64)
            n = core.legal_actions(s, buf)
            a2 = call_literal(agent, gid, s, p, buf[:n].copy(), n, params, aux, r2)
            assert a2 == a1
            assert (r2[:16] == r1[:16]).all()
    assert inferred >= 5


@pytest.mark.parametrize("game", HOOKED)
def test_the_evidence_favours_the_true_deal(game):
    """In games of ``net``, ``net``'s likelihood of the others' decisions is higher in the
    true deal (the identity relabelling) than in relabelled ones, on average: their plays
    carry information about their hands."""
    from agents.inference import _evidence
    from engines.protocol import game_class

    core, R = _mods(game)
    gid = GAME_IDS[game]
    params = _infer_params(game=game)
    aux = table_aux(game, game_class(game).config_class(n_players=4))
    true_ll, other_ll = [], []
    ident = np.arange(54, dtype=np.int64)
    for st, p in _history_positions(25, policy="net", game=game):
        row = _row(st.seat_memory[p], st.initial, st.history, game)
        past = np.empty((40, core.STATE_SIZE), np.int64)
        acts = np.empty(40, np.int64)
        actors = np.empty(40, np.int64)
        m = call_literal(_evidence, gid, st.state, p, row, 40, past, acts, actors)
        if m <= 0:
            continue
        mem = row[:16].copy()
        true_ll.append(call_literal(world_log_likelihood, gid, ident, past, acts, actors, m,
                                    params, aux, mem))
        perm = np.empty(54, np.int64)
        for seed in range(8):
            R.relabel_map(st.state, st.initial, p, seed, perm)
            other_ll.append(call_literal(world_log_likelihood, gid, perm, past, acts, actors,
                                         m, params, aux, mem) / 8)
    assert len(true_ll) >= 10
    n = len(true_ll)
    other = np.add.reduceat(np.array(other_ll), np.arange(0, 8 * n, 8))
    assert np.mean(np.array(true_ll) - other) > 0.2


def test_without_a_log_or_with_inference_off_the_search_is_unchanged():
    agent = SEARCH_FUNCTIONS[get_spec("river_rats", "net-search").kind]
    aux = table_aux("river_rats", RiverRatsConfig(n_players=4))
    off = _infer_params(window=0)
    on = _infer_params()
    for st, p in _history_positions(4):
        legal = np.array(st.legal_actions(), np.int64)
        narrow = st.seat_memory[p].copy()
        wide = _row(st.seat_memory[p], st.initial, st.history)
        a0 = call_literal(agent, G, st.state, p, legal, len(legal), off, aux, narrow.copy())
        assert call_literal(agent, G, st.state, p, legal, len(legal), off, aux,
                            wide.copy()) == a0
        assert call_literal(agent, G, st.state, p, legal, len(legal), on, aux,
                            narrow.copy()) == a0


@pytest.mark.slow
def test_loop_and_step_api_play_the_same_games_with_inference():
    params = _infer_params(sims=2, window=24, worlds=8)
    cfg = RiverRatsConfig(n_players=3)
    df = play_batch(cfg, "net-search", 2, seed=31, params=params)
    from engines.protocol import chance

    for g in range(2):
        seed = chance.word_to_seed(chance.game_seed(chance.as_word(31), g))
        st = play_stepwise(cfg, "net-search", seed, params=params)
        assert st.returns()[0] == df["return_0"][g]
        assert st.state[C.N_ACTIONS] == df["n_actions"][g]
        assert st.state[C.ROUND] == df["rounds"][g]


def test_benchmarks_refuse_bad_inference_points_before_playing(tmp_path):
    """A bad ``:infer``/``:candidates``/``:temp`` setting is one ``ValueError`` naming the point
    (one line on the command line), raised before anything is played or written."""
    from benchmarks import search as B
    from benchmarks import search_vs_heuristic as V

    name, params = B.point_params("net-search:8:infer=30:candidates=24:temp=0.5")
    assert name == "net-search"
    inference = (params[layout.H_INFER], params[layout.H_INFER_WORLDS], params[layout.H_INFER_TEMP])
    assert inference == (30, 24, 0.5)
    for bad in ("net-search:8:infer=x", "net-search:8:temp=-1", "pimc:8:infer=4"):
        with pytest.raises(ValueError, match="bad point"):
            B.point_params(bad)
        with pytest.raises(ValueError, match="bad point"):
            V.main(["--games", "rats", "--agents", bad, "--deals", "2"])
    with pytest.raises(ValueError, match="bad point"):
        B.main(["--points", "heuristic,net-search:8:infer=x", "--games", "2",
                "--out", str(tmp_path / "run")])
    assert list(tmp_path.iterdir()) == []
