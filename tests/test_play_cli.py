"""``boardlab play GAME``: one command and one convention for the four games (numbers from 1,
text moves, ``?``/``help`` with the rules summary, ``hint``, ``q``, the same end screen, records
that replay)."""

from __future__ import annotations

import io
import json

import pytest

from engines.protocol import GAME_NAMES, load_record
from experiments.cli import build_parser, main
from experiments.cli.play import run

PLAYERS = {"river_rats": 2, "lure": 2, "rats": 3, "recurring": 3}


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
