"""The ``boardlab poker`` command and the evaluator benchmark script stay runnable."""

import runpy
import sys

from experiments.cli import main


def test_poker_command_prints_category_and_best_five(capsys):
    assert main(["poker", "Ah Kh Qh Jh X1 2c", "--rules", "river_rats"]) == 0
    out = capsys.readouterr().out
    assert "straight flush (Ah Kh Qh Jh Th)" in out


def test_poker_command_reports_bad_cards(capsys):
    assert main(["poker", "Ah Zz Kd"]) == 2
    assert "bad card 'Zz'" in capsys.readouterr().err


def test_poker_command_names_the_bad_hand(capsys):
    assert main(["poker", "Ah Kh Qh Jh Th", "7h 7d"]) == 2
    assert "hand 2 ('7h 7d'): 2 real cards" in capsys.readouterr().err


def test_benchmark_script_runs_on_tiny_sizes(capsys, monkeypatch):
    monkeypatch.setattr(sys, "argv", ["poker_eval.py", "--hands", "2000", "--peer-hands", "200",
                                      "--rounds", "1"])
    try:
        runpy.run_path("benchmarks/poker_eval.py", run_name="__main__")
    except SystemExit as exc:
        assert exc.code == 0
    out = capsys.readouterr().out
    for text in ("7 cards", "boardlab river_rats", "eval_at (compiled)", "phevaluator",
                 "eval7", "5 cards", "10 cards, 2 jokers"):
        assert text in out
