"""The rules core and the shipped policies play exactly the games of the pre-protocol code
(commit 4d0b703): ``tests/golden/pre_protocol_games.json``, key ``"recurring"``, 240 games
(3, 4 and 5 players; all random, all greedy, all heuristic, and a mix).

Each golden game holds its seed ``word`` (the old ``seed_word``, stored as a signed int64),
its ``actions`` and ``points``, and ``seat_words``: the old per-seat policy words **after** the
game (the old generator of ``make_golden.py`` recorded its ``rngs`` array once the agents had
advanced it in place). The initial seat words come from the old derivation
``mix(word + (p + 1) * 0xD1B54A32D192ED03)``; this test checks that each recorded word is that
initial word advanced once per decision of a ``random`` seat (and unchanged for the
deterministic policies), then replays the game with ``init_state`` and each seat's shipped
policy called with a memory row whose word 0 is the old initial seat word.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from agents import recurring as A
from agents.policy import get_spec
from engines.protocol.chance import GOLDEN, SEAT_WORDS, mix
from engines.recurring import RecurringConfig
from engines.recurring import core as C

from .helpers import i64

GOLDEN_FILE = Path(__file__).resolve().parents[1] / "golden" / "pre_protocol_games.json"
OLD_SEAT_STEP = 0xD1B54A32D192ED03
GAMES = json.loads(GOLDEN_FILE.read_text())["recurring"]["games"]


def old_seat_word(word: int, p: int) -> np.int64:
    """Seat ``p``'s initial policy word in the pre-protocol engine (``seat_streams``)."""
    return mix(i64(int(word) + (p + 1) * OLD_SEAT_STEP))


def replay_golden(g):
    n = g["n_players"]
    word = i64(g["word"])
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    C.init_state(RecurringConfig(n_players=n).to_array(), word, s)
    mem = np.zeros((n, SEAT_WORDS), dtype=np.int64)
    for p in range(n):
        mem[p, 0] = old_seat_word(word, p)
    start = mem[:, 0].copy()
    specs = [get_spec("recurring", name) for name in g["policies"]]
    params = np.zeros((n, A.PARAMS_WIDTH))
    for p, sp in enumerate(specs):
        params[p, :len(sp.default_params)] = sp.default_params
    aux = A.make_aux(RecurringConfig(n_players=n))
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    actions, turns = [], [0] * n
    while not C.is_terminal(s):
        p = C.current_player(s)
        k = C.legal_actions(s, legal)
        a = A.act(specs[p].kind, s, p, legal, k, params[p], aux, mem[p])
        assert a in legal[:k]
        actions.append(int(a))
        turns[p] += 1
        C.apply_action(s, a)
    ret = np.zeros(C.MAX_PLAYERS)
    C.returns(s, ret)
    return actions, ret, start, turns, mem[:, 0]


def test_golden_file_has_240_games():
    assert len(GAMES) == 240
    assert {g["n_players"] for g in GAMES} == {3, 4, 5}


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_golden_game(i):
    g = GAMES[i]
    n = g["n_players"]
    actions, ret, start, turns, end = replay_golden(g)
    assert actions == g["actions"]
    assert ret[:n].astype(int).tolist() == g["points"]
    assert ret[n:].tolist() == [0.0] * (C.MAX_PLAYERS - n)
    for p in range(n):
        draws = turns[p] if g["policies"][p] == "random" else 0
        assert i64(int(start[p]) + draws * int(GOLDEN)) == g["seat_words"][p]
        assert end[p] == g["seat_words"][p]
