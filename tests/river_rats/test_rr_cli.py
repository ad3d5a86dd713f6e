"""``boardlab play river-rats``: a person plays one seat in the terminal."""

from __future__ import annotations

import io
import json

import pytest

from experiments.cli import build_parser, main
from experiments.river_rats_cli import run


def _args(*argv):
    return build_parser().parse_args(["play", "river-rats", *argv])


def test_play_a_whole_game_from_stdin(tmp_path):
    """The table, numbered legal actions, bot moves and resolutions are shown; typing numbers
    (or action texts) plays the seat to the end; the record replays."""
    rec = tmp_path / "g.json"
    out = io.StringIO()
    inp = io.StringIO("draw from the deck\n" + "0\n" * 2000)
    assert run(_args("--players", "2", "--seat", "1", "--seed", "5", "--record", str(rec)),
               stdin=inp, stdout=out) == 0
    text = out.getvalue()
    assert "[0]" in text and "seat 0 (heuristic)" in text and "Last hand:" in text
    assert "The players" in text
    from engines.river_rats import load_record
    st = load_record(rec)
    assert st.is_terminal() and json.loads(rec.read_text())["seed"] == 5


def test_quit_and_bad_input():
    out = io.StringIO()
    inp = io.StringIO("99\nfoo\nq\n")
    assert run(_args("--players", "1", "--seed", "1"), stdin=inp, stdout=out) == 0
    assert "not a choice" in out.getvalue() and "bye" in out.getvalue()


def test_bad_options_exit_with_error(capsys):
    assert main(["play", "river-rats", "--players", "2", "--seat", "2", "--seed", "1"]) == 2
    assert "--seat" in capsys.readouterr().err
    assert main(["play", "river-rats", "--players", "9"]) == 2
    assert main(["play", "river-rats", "--bots", "oracle"]) == 2
    with pytest.raises(SystemExit):
        main(["play", "river-rats", "--difficulty", "insane"])
