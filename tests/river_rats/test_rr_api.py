"""Step API, configuration errors, observations and JSON game records of River Rats."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engines.river_rats import RiverRatsConfig, core as C, load_record, new_game, replay
from engines.river_rats.config import as_config


@pytest.mark.parametrize("field,value", [
    ("n_players", 0), ("n_players", 5), ("n_players", "2"), ("n_players", True),
    ("rats", ("D", "D")), ("rats", ("D",)), ("rats", ("X", "S")), ("rats", "DS"),
    ("characters", ("C", "C", "D", "H")), ("characters", ("C",)),
    ("difficulty", "hard"), ("prediction_match", "close"), ("defeated_rat_stays", 1),
    ("first_player", 4), ("first_player", -1), ("empty_draw", "wait"),
    ("first_game_defeat_bonuses", "yes"),
])
def test_bad_config_field_raises_naming_the_field(field, value):
    """RiverRatsConfig: every bad field value raises ValueError naming the field."""
    with pytest.raises(ValueError, match=field):
        RiverRatsConfig(**{field: value})


def test_config_defaults_and_round_trip():
    """RiverRatsConfig: the rules file's defaults; dict round trip; unknown fields rejected."""
    c = RiverRatsConfig()
    assert (c.n_players, c.rats, c.difficulty, c.prediction_match, c.defeated_rat_stays,
            c.first_player, c.empty_draw) == (4, None, "normal", "exact", True, 0, "skip")
    d = RiverRatsConfig(n_players=3, rats=("d", "♠"), characters=("h", "C", "S")).to_dict()
    assert d["rats"] == ["D", "S"] and d["characters"] == ["H", "C", "S"]
    assert RiverRatsConfig.from_dict(d) == RiverRatsConfig(n_players=3, rats=("D", "S"),
                                                           characters=("H", "C", "S"))
    with pytest.raises(ValueError, match="unknown RiverRatsConfig field"):
        RiverRatsConfig.from_dict({"players": 3})
    with pytest.raises(ValueError, match="config"):
        as_config(3)


def test_bad_seed_rejected():
    with pytest.raises(ValueError, match="seed"):
        new_game(RiverRatsConfig(), -1)
    with pytest.raises(ValueError, match="seed"):
        new_game(RiverRatsConfig(), 2**64)
    assert new_game(RiverRatsConfig(), 2**64 - 1).seed == 2**64 - 1


def test_illegal_action_raises_and_changes_nothing():
    """Step API: an illegal action raises ValueError naming it and leaves the state as is."""
    st = new_game(RiverRatsConfig(n_players=2), 3)
    before = st.array.copy()
    legal0 = st.legal_actions()[0]
    for bad in (C.K_PLAY * 64 + 51, 9999, -1, "x", float(legal0), str(legal0), True, None):
        with pytest.raises(ValueError, match="action"):
            st.apply_action(bad)
        assert np.array_equal(st.array, before) and st.history == []


def test_terminal_state_accepts_no_action():
    st = new_game(RiverRatsConfig(n_players=1), 5)
    rng = np.random.default_rng(0)
    while not st.is_terminal():
        st.apply_action(rng.choice(st.legal_actions()))
    assert st.legal_actions() == [] and st.current_player() == -1
    with pytest.raises(ValueError, match="over"):
        st.apply_action(0)
    assert st.returns() in ([1.0], [-1.0])


def test_clone_is_independent():
    st = new_game(RiverRatsConfig(n_players=3), 11)
    cl = st.clone()
    cl.apply_action(cl.legal_actions()[0])
    assert len(st.history) == 0 and not np.array_equal(st.array, cl.array)
    st.apply_action(st.legal_actions()[0])
    assert np.array_equal(st.array, cl.array)  # same action, same chance (RNG in the state)


def test_observation_shows_only_what_the_player_may_see():
    """Communication: own hand, public cards, face-up Rat cards and counts only."""
    st = new_game(RiverRatsConfig(n_players=3, rats=("C", "H")), 2)
    a = st.array
    for p in range(3):
        obs = st.observation(p)
        assert obs["hand"] == [int(x) for x in a[C.hand_base(p) + 1: C.hand_base(p) + 3]]
        arr = st.observation_array(p)
        for q in range(3):
            if q != p:
                for c in a[C.hand_base(q) + 1: C.hand_base(q) + 1 + a[C.hand_base(q)]]:
                    assert arr[c] == C.LOC_UNSEEN
        rat = a[C.RAT + 1: C.RAT + 1 + a[C.RAT]]
        up = a[C.RAT_UP: C.RAT_UP + a[C.RAT]]
        face_up = sorted(int(c) for c, u in zip(rat, up, strict=True) if u)
        assert sorted(obs["rat_face_up"]) == face_up
        assert all(arr[c] == C.LOC_UNSEEN for c, u in zip(rat, up, strict=True) if not u)
        assert obs["rat_facedown"] == 4 and obs["hand1"] == 2
        assert arr[4 * 11 + 2] == C.LOC_UNSEEN  # the waiting Rat is face down
        for c in a[C.DECK + 1: C.DECK + 1 + a[C.DECK]]:
            assert arr[c] == C.LOC_UNSEEN
    with pytest.raises(ValueError, match="player"):
        st.observation(3)


def test_action_strings_and_table():
    """Every legal action has a text; string_to_action inverts it; str() shows the table."""
    rng = np.random.default_rng(1)
    for seed in range(5):
        st = new_game(RiverRatsConfig(n_players=1 + seed % 4,
                                      difficulty=("normal", "advanced", "expert",
                                                                 "first_game", "normal")[seed]),
                      seed)
        while not st.is_terminal():
            legal = st.legal_actions()
            texts = [st.action_to_string(a) for a in legal]
            assert len(set(texts)) == len(texts)
            a = legal[rng.integers(len(legal))]
            assert st.string_to_action(st.action_to_string(a)) == a
            st.apply_action(a)
        s = str(st)
        assert "River Rats" in s and "Rat's hand" in s and ("WON" in s or "LOST" in s)
    with pytest.raises(ValueError, match="action table"):
        st.action_to_string(63 * 64)
    with pytest.raises(ValueError, match="no legal action"):
        new_game(RiverRatsConfig(), 0).string_to_action("fly away")


def test_table_hides_cards_from_a_viewer():
    st = new_game(RiverRatsConfig(n_players=2, rats=("H", "S")), 4)
    other = st.array[C.hand_base(1) + 1]
    from engines.cards import format_card
    assert format_card(other) in st.table(None)
    assert "seat 1 (" in st.table(0) and "2 cards" in st.table(0)


def test_record_replays_to_the_same_final_state(tmp_path):
    """Game records: config, seed and actions as JSON replay to the same final state."""
    rng = np.random.default_rng(2)
    st = new_game(RiverRatsConfig(n_players=3, difficulty="expert",
                                  prediction_match="at_least"), 99)
    while not st.is_terminal():
        st.apply_action(rng.choice(st.legal_actions()))
    path = tmp_path / "game.json"
    st.save_record(path)
    rec = json.loads(path.read_text())
    assert rec["seed"] == 99 and len(rec["actions"]) == len(st.history)
    again = load_record(path)
    assert np.array_equal(again.array, st.array)
    rec["actions"][3] = 12345
    with pytest.raises(ValueError, match="record action #3"):
        replay(rec)
    with pytest.raises(ValueError, match="format"):
        replay({"format": "other"})


def test_same_seed_same_game_different_seed_different_game():
    a = new_game(RiverRatsConfig(), 5).array
    assert np.array_equal(a, new_game(RiverRatsConfig(), 5).array)
    assert not np.array_equal(a, new_game(RiverRatsConfig(), 6).array)
