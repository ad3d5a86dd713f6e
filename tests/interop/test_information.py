"""What the OpenSpiel views of a boardlab game tell a player (issue 24, "Interop findings").

- Leak probe: a player's observation string is the same in every world that
  ``resample_from_infostate`` (our ``determinize``) gives that player, since anything else
  would show what the resampling treats as hidden (Lure's "to act" line did: where another
  player stood in its secret cast or adjusts).
- Perfect recall: no two different own-action sequences of a player reach the same
  information-state string, over random games of every game and player count, with a probe
  that branches at random states over two consecutive decisions of the player to act (the
  core's summary alone fails it: a follow of "As, Ts" and of "Ts, As" give the same summary).

Skipped (with the reason) only when pyspiel (the ``interop`` extra) is not importable.
"""

import hashlib

import numpy as np
import pytest

pyspiel = pytest.importorskip(
    "pyspiel", reason="open_spiel is not installed (pip install -e '.[interop]')")

from engines.protocol import GAME_NAMES, core_of  # noqa: E402
from experiments.interop import openspiel_game as O  # noqa: E402


def _key(text: str) -> bytes:
    # the strings run to kilobytes (Lure's summary has 2,352 words); keep a 16-byte hash
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _random_state(game, n, rng, steps):
    st = O.load_game(game, n, seed=int(rng.integers(2**63))).new_initial_state()
    for _ in range(steps):
        if st.is_terminal():
            break
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
    return st


# (games, resamples per player) per game: about a second each on one core
LEAK_SIZES = {"river_rats": (12, 2), "lure": (8, 2), "rats": (12, 2), "recurring": (12, 2)}


@pytest.mark.parametrize("game", GAME_NAMES)
def test_observation_string_is_equal_in_every_resampled_world(game):
    """Leak probe: observation_string(p) of a state equals that of each resample_from_infostate
    (p) world, for every seat p, at states spread over whole games of every player count; and
    the worlds do differ (the probe compares something)."""
    C = core_of(game)
    rng = np.random.default_rng(24)
    sampler = pyspiel.UniformProbabilitySampler(7, 0.0, 1.0)
    n_games, n_worlds = LEAK_SIZES.get(game, (300, 2))
    compared = worlds_differ = 0
    for i in range(n_games):
        n = C.MIN_PLAYERS + i % (C.MAX_PLAYERS - C.MIN_PLAYERS + 1)
        st = _random_state(game, n, rng, 0)
        while not st.is_terminal():
            if rng.random() < 0.15:
                for p in range(n):
                    seen = st.observation_string(p)
                    for _ in range(n_worlds):
                        r = st.resample_from_infostate(p, sampler)
                        assert r.observation_string(p) == seen, (
                            f"{game}, {n} players: seat {p}'s observation string differs in a "
                            f"resampled world (history {st.history()})")
                        compared += 1
                        worlds_differ += str(r) != str(st)
            legal = st.legal_actions()
            st.apply_action(legal[int(rng.integers(len(legal)))])
    assert compared > 100
    assert worlds_differ > compared // 10, "the resampled worlds were (almost) never different"


# (games, branch probability, branch width) per game
RECALL_SIZES = {"river_rats": (40, 0.08, 6), "lure": (8, 0.03, 4), "rats": (40, 0.08, 6),
                "recurring": (40, 0.05, 6)}


def _adjusts_ahead(game, st) -> bool:
    """True at a Lure adjust with two or more adjusts left (where two orders of the same
    adjusts can meet): the probe branches there more often and over every legal adjust."""
    if game != "lure":
        return False
    K = core_of("lure")
    s = st.game_state.state
    p = st.current_player()
    return s[K.H_PHASE] == K.PH_ADJUST and s[K.PB + p * K.PSTRIDE + K.P_ADJ_LEFT] >= 2


@pytest.mark.parametrize("game", GAME_NAMES)
def test_information_state_strings_are_perfect_recall(game):
    """No two different own-action sequences of a player reach one information-state string:
    along random games (every seat's string every few steps, the acting seat's at every step)
    and at branch points (two consecutive decisions of the acting seat, every pair of its first
    legal actions, so different orders of the same actions meet). The core's summary alone
    (the step API's information_state_string) does meet itself there: the probe can fail."""
    C = core_of(game)
    rng = np.random.default_rng(2024)
    n_games, p_branch, width = RECALL_SIZES.get(game, (600, 0.08, 6))
    seen: dict = {}
    summary_seen: dict = {}
    summary_clashes = checked = branch_pairs = 0

    def check(st, p, own):
        nonlocal checked
        text = st.information_state_string(p)
        assert seen.setdefault(_key(text), own) == own, (
            f"{game}: seat {p} reaches {text[-120:]!r} by two action sequences "
            f"{seen[_key(text)]} and {own}")
        checked += 1

    for i in range(n_games):
        n = C.MIN_PLAYERS + i % (C.MAX_PLAYERS - C.MIN_PLAYERS + 1)
        st = _random_state(game, n, rng, 0)
        own = [() for _ in range(n)]
        step = 0
        while not st.is_terminal():
            p = st.current_player()
            check(st, p, own[p])
            if step % 7 == 0:
                for q in range(n):
                    check(st, q, own[q])
            adjusts = _adjusts_ahead(game, st)
            if rng.random() < (0.3 if adjusts else p_branch):
                w = 99 if adjusts else width
                for a in st.legal_actions()[:w]:
                    s1 = st.clone()
                    s1.apply_action(a)
                    if s1.is_terminal() or s1.current_player() != p:
                        continue
                    for b in s1.legal_actions()[:w]:
                        s2 = s1.clone()
                        s2.apply_action(b)
                        check(s2, p, own[p] + (a, b))
                        branch_pairs += 1
                        k = _key(s2.game_state.information_state_string(p))
                        summary_clashes += summary_seen.setdefault(k, (a, b)) != (a, b)
                summary_seen.clear()
            legal = st.legal_actions()
            a = legal[int(rng.integers(len(legal)))]
            own[p] += (a,)
            st.apply_action(a)
            step += 1
    assert checked > 1000
    if branch_pairs:  # games whose turns are single decisions have nothing to reorder
        assert summary_clashes > 0, "the branch probe never met a clash of the bare summary"


def test_resampled_world_keeps_the_players_string_and_hides_the_others_decisions():
    """After resample_from_infostate(p): p's information-state string is the original's; the
    other seats' decisions before the resample show as "?" (they would carry their secret
    actions), then their new decisions follow; two different real worlds in p's information
    set give the same resampled world for the same sampler."""
    rng = np.random.default_rng(3)
    st = _random_state("lure", 3, rng, 0)
    while st.game_state.state[core_of("lure").H_ROUND] < 2 and not st.is_terminal():
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
    p = st.current_player()
    r = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))
    assert r.information_state_string(p) == st.information_state_string(p)
    for q in range(3):
        if q != p:
            assert r.information_state_string(q).endswith("decisions: ?")
            assert not st.information_state_string(q).endswith("decisions: ?")
    # the same information set of p, another real world: resample that one the same way
    other = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(9, 0.0, 1.0))
    r1 = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(5, 0.0, 1.0))
    r2 = other.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(5, 0.0, 1.0))
    assert str(r1) == str(r2)
    for q in range(3):
        assert r1.information_state_string(q) == r2.information_state_string(q)
    legal = r1.legal_actions()
    r1.apply_action(legal[0])
    q = r1.current_player()
    if not r1.is_terminal() and q != p:
        r1.apply_action(r1.legal_actions()[0])
        assert r1.information_state_string(q).startswith(
            r1.game_state.information_state_string(q))
    with pytest.raises(ValueError, match="bad player"):
        st.resample_from_infostate(7, pyspiel.UniformProbabilitySampler(1, 0.0, 1.0))


def test_recall_record_survives_clone_serialization_and_replay():
    rng = np.random.default_rng(8)
    osg = O.load_game("rats", 3)
    st = osg.new_initial_state()
    for _ in range(8):
        st.apply_action(int(rng.integers(256)))
    for _ in range(25):
        legal = st.legal_actions()
        st.apply_action(legal[int(rng.integers(len(legal)))])
    c = st.clone()  # cloned before the record was brought up to date
    strings = [st.information_state_string(p) for p in range(3)]
    assert [c.information_state_string(p) for p in range(3)] == strings
    g2, st2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(osg, st))
    assert [st2.information_state_string(p) for p in range(3)] == strings
    import pickle

    st3 = pickle.loads(pickle.dumps(st))
    assert [st3.information_state_string(p) for p in range(3)] == strings
    # a change of the step-API game behind OpenSpiel's back is reported, not recorded wrongly
    bad = st.clone()
    bad.game_state.history.append(bad.legal_actions()[0])  # listed but never applied
    with pytest.raises(RuntimeError, match="outside the OpenSpiel state"):
        bad.information_state_string(0)
