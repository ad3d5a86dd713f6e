"""``boardlab play GAME``: one command and one convention for the four games (numbers from 1,
text moves, ``?``/``help`` with the rules summary, ``hint``, ``q``, the same end screen, records
that replay)."""

from __future__ import annotations

import io
import json

import pytest

from engines.names import DESCRIPTIONS
from engines.protocol import GAME_NAMES, load_record
from experiments.cli import build_parser, main
from experiments.cli.play import run

PLAYERS = {g: d.play_players for g, d in DESCRIPTIONS.items()} | {
    "river_rats": 2, "lure": 2, "rats": 3, "recurring": 3}
"""Small tables; a game added to the registry plays its description's ``play_players``."""


def _args(game, *argv):
    return build_parser().parse_args(["play", game.replace("_", "-"), *argv])


@pytest.mark.parametrize("game", GAME_NAMES)
def test_play_a_whole_game_from_stdin(game, tmp_path):
    """Typing numbers plays the seat to the end; the end screen shows every seat's result and
    the record replays to the same game."""
    rec = tmp_path / "g.json"
    out = io.StringIO()
    inp = io.StringIO("?\nhint\n" + "1\n" * 5000)
    extra = ["--games", "1"] if game == "recurring" else []
    assert run(_args(game, "--players", str(PLAYERS[game]), "--seat", "1", "--seed", "5",
                     "--record", str(rec), *extra), stdin=inp, stdout=out) == 0
    text = out.getvalue()
    assert "  1. " in text and "seat 0 (heuristic)" in text
    assert "hint:" in text and "game over: seat 0" in text and "(you)" in text
    first_rules_line = text.split("Type ? for help")[1]
    assert len(first_rules_line) > 100
    st = load_record(rec)
    assert st.is_terminal() and json.loads(rec.read_text())["seed"] == 5


@pytest.mark.parametrize("game", GAME_NAMES)
def test_quit_bad_input_and_end_of_input(game):
    out = io.StringIO()
    assert run(_args(game, "--seed", "1", "--players", str(PLAYERS[game])),
               stdin=io.StringIO("999\nfly away\nq\n"), stdout=out) == 0
    text = out.getvalue()
    assert "no action 999" in text and "no legal action 'fly away'" in text and "bye" in text
    out = io.StringIO()
    assert run(_args(game, "--seed", "1", "--players", str(PLAYERS[game])),
               stdin=io.StringIO(""), stdout=out) == 0
    assert "bye" in out.getvalue()


def test_river_rats_text_moves_and_news():
    out = io.StringIO()
    inp = io.StringIO("deck\n" + "1\n" * 3000)
    assert run(_args("river_rats", "--players", "1", "--seed", "3"), stdin=inp, stdout=out) == 0
    assert "Last hand:" in out.getvalue()


@pytest.mark.parametrize("argv, message", [
    (["play", "river-rats", "--players", "2", "--seat", "2"], "--seat"),
    (["play", "river-rats", "--players", "9"], "n_players"),
    (["play", "river-rats", "--bots", "oracle"], "oracle"),
    (["play", "recurring", "--games", "0"], "--games"),
    (["play", "rats", "--option", "difficulty=hard"], "difficulty"),
    (["play", "lure", "--seed", "-4"], "seed"),
])
def test_bad_options_exit_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_river_rats_end_screen_counts_the_rounds_of_the_record(tmp_path):
    """Issue 12.13: the end screen said "round 7" where the record had 6 rounds."""
    rec = tmp_path / "g.json"
    out = io.StringIO()
    assert run(_args("river_rats", "--players", "2", "--seed", "4", "--record", str(rec)),
               stdin=io.StringIO("1\n" * 5000), stdout=out) == 0
    rounds = int(load_record(rec).outcome()["rounds"])
    end = out.getvalue().rsplit("game over", 1)[0]
    assert f"after {rounds} round" in end.rsplit("River Rats:", 1)[1]
    assert f"round {rounds + 1}," not in end.rsplit("River Rats:", 1)[1]


# ---- issue 24: the header's bots, who won each trick / round -------------------------------
@pytest.mark.parametrize("game, players, seat", [("rats", 4, 0), ("rats", 2, 1),
                                                 ("recurring", 3, 2), ("lure", 3, 1),
                                                 ("river_rats", 1, 0)])
def test_the_header_lists_one_bot_per_bot_seat(game, players, seat):
    out = io.StringIO()
    run(_args(game, "--players", str(players), "--seat", str(seat), "--seed", "1",
              "--bots", "greedy" if game != "river_rats" else "heuristic"),
        stdin=io.StringIO("q\n"), stdout=out)
    header = out.getvalue().splitlines()[0]
    bots = [q for q in range(players) if q != seat]
    assert header.count("seat ") == 1 + len(bots)  # "you are seat S" and one per bot
    for q in bots:
        assert f"seat {q} " in header.split("; ", 1)[1]
    assert f"seat {seat} " not in header.split("; ", 1)[1]


def test_bots_text():
    from experiments.cli.play import bots_text

    assert bots_text(["heuristic", "greedy", "random"], 0) == "bots: seat 1 greedy, seat 2 random"
    assert bots_text(["heuristic", "greedy"], 1) == "bot: seat 0 heuristic"


@pytest.mark.parametrize("game, players, pattern", [
    ("rats", 3, r"-> seat \d \((you|heuristic)\) takes the trick \(\d+ cards?: "),
    ("recurring", 3, r"-> round 1: the others passed; seat \d \((you|heuristic)\) takes \S+ "),
    ("lure", 3, r"-> round 1: seat 0 \(you\) catch"),
])
def test_play_says_who_won_each_trick_or_round(game, players, pattern):
    import re

    out = io.StringIO()
    extra = ["--games", "1"] if game == "recurring" else []
    run(_args(game, "--players", str(players), "--seed", "5", *extra),
        stdin=io.StringIO("1\n" * 3000), stdout=out)
    text = out.getvalue()
    assert re.search(pattern, text), text[-2000:]
    if game == "rats":
        n_tricks = text.count("takes the trick")
        assert n_tricks >= 5 and "-> round 1 ends" in text


def test_rats_trick_lines_match_the_engine():
    """The events of every action of a whole Rats game: one trick line per completed trick,
    naming the engine's LAST_WINNER."""
    import numpy as np

    from agents.policy import Agent
    from engines.protocol import game_class
    from engines.rats import core as C
    from experiments.cli.play import events

    st = game_class("rats")(game_class("rats").config_class(n_players=3), 11)
    bot = Agent("rats", "greedy")
    names = ["greedy"] * 3
    lines, winners = [], []
    while not st.is_terminal():
        a = bot(st)
        before = st.state.copy()
        st.apply_action(a)
        new = events("rats", before, st, a, names, 0)
        lines += new
        if int(st.state[C.TRICKS]) != int(before[C.TRICKS]) or \
                int(st.state[C.ROUND]) != int(before[C.ROUND]):
            winners.append(int(st.state[C.LAST_WINNER]))
    trick_lines = [ln for ln in lines if "takes the trick" in ln]
    assert len(trick_lines) == len(winners) > 0
    for ln, w in zip(trick_lines, winners, strict=True):
        assert f"seat {w} (" in ln
    assert np.all([ln.startswith("  -> ") for ln in lines])


def test_kernels_compile_before_the_game_is_shown_and_no_note_inside_it(monkeypatch):
    """The compile note comes before the first line of a session (the warm-up compiles what
    the display calls) and never inside the game's display."""
    import experiments.cli.play as play
    from experiments import notes

    out = io.StringIO()
    shown_at_warm_up, said_inside = [], []
    real_warm_up, real_play_one = play.warm_up, play._play_one

    def warm_up(*args):
        shown_at_warm_up.append(out.getvalue())
        real_warm_up(*args)

    def play_one(*args):
        said_inside.append(notes.say_compiling())  # what a compile inside the game would do
        return real_play_one(*args)

    monkeypatch.setattr(play, "warm_up", warm_up)
    monkeypatch.setattr(play, "_play_one", play_one)
    monkeypatch.setitem(notes._state, "said", False)
    monkeypatch.setitem(notes._state, "quiet", False)
    assert run(_args("kuhn_poker", "--seed", "3"), stdin=io.StringIO("1\n" * 50),
               stdout=out) == 0
    assert shown_at_warm_up == [""] and said_inside == [False]
    assert not notes._state["quiet"]  # the command's own setting is back after the session
