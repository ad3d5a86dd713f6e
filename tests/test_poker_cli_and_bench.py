"""The ``boardlab poker`` command and the evaluator benchmark script stay runnable."""

import runpy
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from engines import cards, poker
from engines.poker import tables
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


def test_benchmark_runs_without_the_python_peers(capsys, monkeypatch):
    """The Python-called peers come with the ``dev`` extra; without them (as after ``make
    run``) their rows are left out, not a crash."""
    sys.path.insert(0, "benchmarks")
    try:
        import poker_eval
    finally:
        sys.path.remove("benchmarks")
    monkeypatch.setattr(poker_eval, "_python_peers", lambda hands: {})
    assert poker_eval.main(["--hands", "2000", "--peer-hands", "200", "--rounds", "1"]) == 0
    out = capsys.readouterr().out
    assert "no Python-called peer installed" in out and "10 cards, 2 jokers" in out


@pytest.mark.slow
def test_benchmark_baseline_is_the_evaluator_of_that_revision():
    """``--baseline REV`` loads the evaluator's modules as they were at REV (here HEAD: the
    same strengths), as a package of its own with its own tables, not today's modules."""
    sys.path.insert(0, "benchmarks")
    try:
        import poker_eval
    finally:
        sys.path.remove("benchmarks")
    base = poker_eval._baseline("HEAD")
    assert base.__name__ == "poker_baseline.poker"
    evaluator = sys.modules["poker_baseline.poker.evaluator"]  # a package since issue 28
    assert evaluator._cards is not cards and evaluator.FLUSH_STD is not tables.FLUSH_STD
    # the commit's folder: the package, no leftovers
    folder = Path(sys.modules["poker_baseline"].__file__).parents[1]
    assert [p.name for p in folder.iterdir() if p.name != "__pycache__"] == ["poker_baseline"]
    for k, nj in ((7, 0), (5, 0), (10, 2)):
        hands = cards.random_hands(300, k, seed=k, n_jokers=nj)
        np.testing.assert_array_equal(base.evaluate(hands), poker.evaluate(hands))
    # the scalar kernel's loop, built on either module (the baseline's uncached)
    base_at = poker_eval._scalar_loops(base, cache=False)[0]
    loop_at = poker_eval._scalar_loops(poker)[0]
    hands = cards.random_hands(500, 7, seed=3)
    got, want = np.empty(500, np.int32), np.empty(500, np.int32)
    base_at(hands, 1, got)
    loop_at(hands, 1, want)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(want, poker.evaluate(hands, "river_rats"))
    assert poker_eval._baseline(None) is None
    with pytest.raises(subprocess.CalledProcessError):
        poker_eval._baseline("no-such-revision")


@pytest.mark.parametrize("option,value", [("--baseline", "no-such-revision"),
                                          ("--ompeval", "/no/such/libompshim.so"),
                                          ("--ompeval", "libm.so.6")])
def test_benchmark_bad_option_is_one_line(option, value, capsys):
    sys.path.insert(0, "benchmarks")
    try:
        import poker_eval
    finally:
        sys.path.remove("benchmarks")
    assert poker_eval.main([option, value]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and f"bad {option} {value!r}" in err
