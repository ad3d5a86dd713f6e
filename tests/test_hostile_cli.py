"""A hostile user at the command line (issue 12): every mistake gets one line naming the bad
value as typed and what was expected, exit status 2 (usage) or 1 (runtime), no traceback, and
nothing changes on disk."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import main
from experiments.notes import COMPILE_NOTE

ROOT = Path(__file__).resolve().parent.parent


def _run(argv, capsys):
    """Exit status and standard error of ``boardlab argv``, without the note a process prints
    when it first compiles kernels (importing the poker tables compiles on a cold cache, so
    whether it shows depends on which test ran first in this process)."""
    try:
        code = main(argv)
    except SystemExit as exc:  # a usage error of argparse (such as --jobs 0): status 2
        code = exc.code
    err = capsys.readouterr().err.strip()
    return code, "\n".join(line for line in err.splitlines() if line != COMPILE_NOTE)


@pytest.mark.parametrize("argv, needle", [
    (["--games", "-5"], "--games -5"),
    (["--jobs", "0"], "--jobs"),
    (["--round-batches", "0", "--ci-width", "0.1"], "--round-batches"),
    (["--games", "99999999999999999999999"], "99999999999999999999999"),
    (["--seed", "-1"], "--seed -1"),
    (["--agents", "heuristic", "greedy", "--players", "1"], "--players 1"),
    (["--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"], "--scheduler"),
])
def test_bad_numbers_name_the_option_and_create_nothing(tmp_path, capsys, argv, needle):
    out = tmp_path / "out"
    code, err = _run(["river-rats", "pairs", "--players", "4", "--out", str(out)] + argv, capsys)
    assert code == 2 and needle in err and len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "games_per_cell" not in err
    assert not out.exists()


@pytest.mark.parametrize("argv, needle", [
    (["tournament", "rats", "--seed", "-1"], "--seed -1"),
    (["tournament", "rats", "--jobs", "0"], "argument --jobs: '0'"),
    (["lure", "balance", "--jobs", "0"], "--jobs 0"),
    (["winrates", "rats", "--seed", "-1"], "--seed -1"),
])
def test_other_commands_name_the_option_and_create_nothing(tmp_path, capsys, argv, needle):
    out = tmp_path / "out"
    extra = [] if argv[0] == "winrates" else ["--out", str(out)]
    code, err = _run(argv + extra, capsys)
    assert code == 2 and needle in err and len(err.splitlines()) == 1, err
    assert not out.exists()


@pytest.mark.parametrize("argv", [["river-rats", "pairs", "--players", "4", "--games", "10"],
                                  ["tournament", "rats"], ["lure", "balance"]])
def test_out_pointing_at_a_file_is_one_line(tmp_path, capsys, argv):
    f = tmp_path / "a_file"
    f.write_text("keep me")
    with pytest.raises(SystemExit) as e:
        main(argv + ["--out", str(f)])
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1, err
    assert f"argument --out: {str(f)!r} is a file: expected a folder" in err
    assert f.read_text() == "keep me"


@pytest.mark.parametrize("argv, needle", [
    (["river-rats", "pairs", "--games", "abc"], "invalid int value: 'abc'"),
    (["river-rats", "pairs", "--difficulty", "hard"], "invalid choice: 'hard'"),
    (["river-rats", "pairs", "--backend", "lokky"], "invalid choice: 'lokky'"),
    (["tournament", "chess"], "invalid choice: 'chess'"),
    (["winrates", "riverrats"], "invalid choice: 'riverrats'"),
    (["play", "poker"], "invalid choice: 'poker'"),
    ([], "the following arguments are required: COMMAND"),
])
def test_usage_errors_are_one_line_without_the_usage_text(capsys, argv, needle):
    """argparse's own errors (bad choice, not a number) as one line, exit 2, with where to find
    the usage; a game is listed once in its hyphenated spelling."""
    with pytest.raises(SystemExit) as e:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert e.value.code == 2 and len(err.splitlines()) == 1, err
    assert needle in err and "--help)" in err and "usage:" in err.split("error:")[1]
    if "GAME" in err:
        assert err.count("'lure'") == 1 and "river_rats" not in err


def test_both_spellings_of_a_game_are_accepted():
    from experiments.cli import build_parser

    parser = build_parser()
    for name in ("river_rats", "river-rats"):
        assert parser.parse_args(["tournament", name]).game == name
        assert parser.parse_args(["play", name]).game == name


def test_record_path_is_checked_before_the_game(tmp_path, capsys):
    bad = tmp_path / "no_such_folder" / "g.json"
    code = main(["play", "recurring", "--players", "3", "--record", str(bad)])
    out, err = capsys.readouterr()
    assert code == 2 and f"bad --record {str(bad)!r}" in err and len(err.splitlines()) == 1
    assert "you are seat" not in out and not bad.parent.exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into read-only folders")
def test_read_only_out_is_one_line(tmp_path, capsys):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o500)
    try:
        code, err = _run(["river-rats", "pairs", "--players", "4", "--games", "10",
                          "--batch-size", "10", "--out", str(ro / "x")], capsys)
        assert code == 1 and "Permission denied" in err and len(err.splitlines()) == 1
    finally:
        ro.chmod(0o700)


def test_a_user_error_in_a_subprocess_has_no_traceback(tmp_path):
    r = subprocess.run([sys.executable, "-m", "experiments.cli", "river-rats", "pairs",
                        "--games", "-5", "--out", str(tmp_path / "o")], cwd=ROOT,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().splitlines() == [r.stderr.strip()] and "--games -5" in r.stderr


def test_help_texts_are_plain_text_without_docstring_markup():
    import argparse

    from experiments.cli import build_parser

    def walk(p, path):
        for a in p._actions:
            for t in (p.description or "", a.help or ""):
                assert "``" not in t and ":func:" not in t and ":class:" not in t, (path, t)
            if isinstance(a, argparse._SubParsersAction):
                for name, child in a.choices.items():
                    walk(child, path + [name])

    walk(build_parser(), [])


HELP_COMMANDS = [[], ["river-rats", "pairs"], ["river-rats", "decisions"], ["tournament"],
                 ["tune"], ["winrates"], ["lure", "balance"], ["lure", "odds"], ["play"],
                 ["poker"]]


def test_help_loads_no_compiler_and_no_data_stack():
    """Issue 13: every ``--help`` answers without importing Numba, pandas, SciPy or any game's
    rules core (the registry imports every game's description: each game package loads its
    names lazily; the figure, well under a second, is printed by ``benchmarks/cli_help.py``)."""
    code = ("import sys\nfrom experiments.cli import build_parser\n"
            f"for argv in {HELP_COMMANDS!r}:\n"
            "    try:\n        build_parser().parse_args(argv + ['--help'])\n"
            "    except SystemExit:\n        pass\n"
            "from engines.names import REGISTRY\n"
            "heavy = sorted(m for m in ('numba', 'pandas', 'scipy', 'joblib', 'matplotlib',\n"
            "               'engines.protocol', *(f'engines.{g}.core' for g in REGISTRY))\n"
            "               if m in sys.modules)\n"
            "print('HEAVY', heavy)\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert "HEAVY []" in r.stdout, r.stdout[-500:]


def _interrupt_after(argv, ready, tmp_path, stdin=None):
    """Start ``boardlab argv`` in a subprocess, send SIGINT once ``ready()`` holds, return
    (exit code, stdout, stderr)."""
    import signal
    import time

    # Ctrl-C in a terminal reaches a command whose SIGINT is Python's default; a test run
    # started in the background of a shell (`make test &`) hands its children SIGINT ignored,
    # so the child sets the default back, as the user's terminal would give it, and runs the
    # console script's main (what `python -m experiments.cli` runs).
    start = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
             "from experiments.cli import main; sys.exit(main(sys.argv[1:]))")
    proc = subprocess.Popen([sys.executable, "-c", start, *argv], cwd=ROOT,
                            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 240
    while time.time() < deadline and proc.poll() is None and not ready():
        time.sleep(0.05)
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    for _ in range(3 if stdin is None else 0):  # as a user presses Ctrl-C again when a busy
        # machine seems to miss the first
        try:
            proc.wait(timeout=10)
            break
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(input=stdin, timeout=120)
    return proc.returncode, out, err


def test_ctrl_c_in_pairs_says_where_the_partial_results_are(tmp_path):
    out = tmp_path / "run"
    code, _, err = _interrupt_after(
        ["river-rats", "pairs", "--players", "1", "--agents", "random", "--games", "400000",
         "--batch-size", "2000", "--quiet", "--out", str(out)],
        lambda: (out / "_partial" / "state.json").exists(), tmp_path)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert code == 130 and "Traceback" not in err, err
    assert len(lines) == 1 and "interrupted" in lines[0] and str(out) in lines[0]
    assert "run the same command again to resume" in lines[0]


@pytest.mark.parametrize("text, bad", [("1..6", "1..6"), ("2,9", "9"), ("3, 6-7", "6-7")])
def test_player_counts_out_of_range_name_the_part_as_typed(text, bad):
    from experiments.cli import parse_player_counts

    with pytest.raises(ValueError, match=rf"^bad --players {bad}: Lure has 2 to 5 players$"):
        parse_player_counts(text, 2, 5, "Lure")


def test_a_scheduler_that_refuses_the_connection_is_named_at_once(tmp_path, capsys):
    """A ``--scheduler`` address whose host refuses the connection fails on the first try
    (dask's client would retry it for its 10 s timeout) with one line saying so."""
    import socket

    with socket.socket() as s:  # a port bound but never listened on refuses connections
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        out = tmp_path / "out"
        code, err = _run(["river-rats", "pairs", "--players", "4", "--out", str(out),
                          "--backend", "dask", "--scheduler", f"tcp://127.0.0.1:{port}"], capsys)
    assert code == 2 and len(err.splitlines()) == 1, err
    assert f"127.0.0.1:{port} refused the connection" in err and "--scheduler" in err
    assert not out.exists()
