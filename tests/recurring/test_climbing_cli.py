"""``boardlab play rats``, ``boardlab play recurring`` and ``boardlab climbing-winrates``, driven
with scripted input (a person who asks for help, a hint, types nonsense, then picks the first
legal action)."""

from __future__ import annotations

import itertools
import json

import pytest

from experiments.cli import main
from experiments.climbing_cli import winrate_table
from experiments.climbing_tune import random_search


def scripted(monkeypatch, first=("?", "hint", "nonsense", "99999")):
    answers = itertools.chain(first, itertools.repeat("1"))
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))


def test_play_recurring_match(monkeypatch, capsys, tmp_path):
    scripted(monkeypatch)
    rec = tmp_path / "match.json"
    assert main(["play", "recurring", "--players", "3", "--seat", "1", "--seed", "4",
                 "--record", str(rec)]) == 0
    out = capsys.readouterr().out
    assert "hint: play" in out and "not legal" in out and "match winner(s)" in out
    records = json.loads(rec.read_text())
    assert len(records) == 3
    from engines.recurring import replay
    assert [replay(r).returns().tolist() for r in records] == [r["points"] for r in records]


def test_play_rats_game(monkeypatch, capsys, tmp_path):
    scripted(monkeypatch)
    rec = tmp_path / "rats.json"
    assert main(["play", "rats", "--players", "3", "--seed", "2", "--opponents", "random",
                 "--record", str(rec)]) == 0
    out = capsys.readouterr().out
    assert "game over" in out and ("you win" in out or "you lose" in out or "share" in out)
    from engines.rats import replay
    assert replay(json.loads(rec.read_text())).is_terminal()


def test_play_quit_and_bad_seat(monkeypatch, capsys):
    scripted(monkeypatch, first=("quit",))
    assert main(["play", "rats", "--seat", "0", "--seed", "1"]) == 0
    assert "quit." in capsys.readouterr().out
    assert main(["play", "recurring", "--seat", "7"]) == 2
    assert "--seat 7 out of range" in capsys.readouterr().err


def test_winrates_command_and_table(capsys):
    assert main(["climbing-winrates", "recurring", "--players", "3", "--games", "90"]) == 0
    out = capsys.readouterr().out
    assert "95% Wilson interval" in out and "heuristic" in out
    df = winrate_table("rats", 2, 40, seed=3)
    assert len(df) == 9 and ((df.ci_low <= df.win_rate) & (df.win_rate <= df.ci_high)).all()
    with pytest.raises(ValueError, match="too few"):
        winrate_table("rats", 4, 2)


def test_random_search_never_worse_than_start():
    best, s = random_search("recurring", 3, n_candidates=2, n_games=60, seed=1)
    assert best.shape == (8,) and 0.0 <= s <= 1.0
    with pytest.raises(ValueError, match="expected 'rats' or 'recurring'"):
        random_search("chess")
