"""The hostile user, part two (issue 24): nothing a user has is lost. A command never replaces
files it did not write in this run unless --force; a damaged resume state is refused with one
line, never repaired; SIGTERM ends a run like Ctrl-C; the progress bar never moves backwards;
every user mistake is one line and changes nothing on disk (checksums of the folder before and
after)."""

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from experiments.cli import build_parser, main
from experiments.coin_flips import coin_flips
from experiments.runner import STATE_FILE, run_experiment

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
CELLS = [{"p": 0.3}, {"p": 0.55}]


def _checksums(folder: Path) -> dict[str, str]:
    """Every file below ``folder`` with the SHA-256 of its bytes."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _run(argv, capsys):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err.strip()


def _one_line_refusal(code, err, *needles):
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "Traceback" not in err and "overwrite=True" not in err, err
    for n in needles:
        assert n in err, (n, err)


# ---------------------------------------------------------------- finished results
@pytest.fixture
def headline(tmp_path):
    """A copy of the committed 48-million-game River Rats table."""
    dst = tmp_path / "headline"
    shutil.copytree(RESULTS / "river_rats" / "headline", dst)
    return dst


HEADLINE_CMD = ["river-rats", "pairs", "--players", "1..4", "--games", "1000000", "--jobs", "2",
                "--batch-size", "25000", "--seed", "2026"]


def test_pairs_with_other_settings_refuses_a_finished_table(headline, capsys):
    before = _checksums(headline)
    code, out, err = _run(["river-rats", "pairs", "--players", "1", "--games", "200",
                           "--out", str(headline)], capsys)
    _one_line_refusal(code, err, str(headline), "finished river-rats pairs run",
                      "48,000,000 games", "--force", "games 1000000 there, 200 now")
    assert _checksums(headline) == before and out == ""


def test_pairs_with_the_same_settings_answers_from_the_finished_table(headline, capsys):
    """The README's headline command on the committed folder prints its table and plays
    nothing (its metadata predates the "settings" key: derived from the stored spec)."""
    before = _checksums(headline)
    code, out, err = _run(HEADLINE_CMD + ["--out", str(headline)], capsys)
    assert code == 0 and "nothing was played" in out and "48,000,000 games" in out
    assert "4 players (agents: heuristic" in out and err == ""
    assert _checksums(headline) == before


@pytest.fixture
def rats_tournament(tmp_path):
    dst = tmp_path / "t"
    shutil.copytree(RESULTS / "rats" / "tournaments" / "4p_random-greedy-heuristic", dst)
    return dst


def test_tournament_with_other_settings_refuses_the_committed_tables(rats_tournament, capsys):
    before = _checksums(rats_tournament)
    code, _, err = _run(["tournament", "rats", "--agents", "random,greedy,heuristic",
                         "--players", "4", "--games", "2000", "--out", str(rats_tournament)],
                        capsys)
    _one_line_refusal(code, err, "finished tournament run", "deals 20000 there, 2000 now",
                      "--force")
    assert _checksums(rats_tournament) == before


def test_tournament_with_the_same_settings_answers_from_its_tables(rats_tournament, capsys):
    before = _checksums(rats_tournament)
    code, out, _ = _run(["tournament", "rats", "--agents", "random,greedy,heuristic",
                         "--players", "4", "--games", "20000", "--rating-deals", "3000",
                         "--out", str(rats_tournament)], capsys)
    assert code == 0 and "nothing was played" in out
    assert "heuristic                      0.361 [ 0.360,  0.362]" in out
    assert _checksums(rats_tournament) == before


def test_a_command_refuses_another_commands_finished_run(headline, rats_tournament, capsys):
    for argv, folder, needle in (
            (["river-rats", "pairs", "--players", "4", "--games", "10"], rats_tournament,
             "finished tournament run"),
            (["tournament", "rats", "--games", "10"], headline, "finished river-rats pairs run"),
            (["lure", "balance", "--games", "10"], headline, "finished river-rats pairs run")):
        before = _checksums(folder)
        code, _, err = _run(argv + ["--out", str(folder)], capsys)
        _one_line_refusal(code, err, needle, "--force")
        assert _checksums(folder) == before


@pytest.mark.parametrize("argv, name", [
    (["river-rats", "pairs", "--players", "4", "--games", "10"], "pairs.csv"),
    (["tournament", "rats", "--games", "10"], "agents.csv"),
    (["lure", "balance", "--games", "10", "--players", "2"], "cards.csv"),
])
def test_a_users_own_files_are_refused_then_replaced_with_force(tmp_path, capsys, argv, name):
    out = tmp_path / "mine"
    out.mkdir()
    (out / name).write_text("my own table\n")
    code, _, err = _run(argv + ["--out", str(out)], capsys)
    _one_line_refusal(code, err, str(out), name, "no ", "--force")
    assert (out / name).read_text() == "my own table\n" and len(list(out.iterdir())) == 1


def test_force_replaces_a_finished_run_of_other_settings(tmp_path, capsys):
    out = tmp_path / "p"
    base = ["river-rats", "pairs", "--players", "1", "--agents", "random", "--batch-size", "50",
            "--out", str(out), "--quiet"]
    assert main(base + ["--games", "50"]) == 0
    capsys.readouterr()
    code, _, err = _run(base + ["--games", "100"], capsys)
    assert code == 2 and "--force" in err
    assert main(base + ["--games", "100", "--force"]) == 0
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["games_total"] == 12 * 100 and meta["settings"]["games"] == 100


@pytest.mark.parametrize("argv, option", [
    (["river-rats", "decisions", "--games", "1", "--out"], "--out"),
    (["winrates", "rats", "--games", "2", "--csv"], "--csv"),
    (["lure", "odds", "--csv"], "--csv"),
    (["lure", "card", "cn=14; pair", "--csv"], "--csv"),
])
def test_an_existing_output_file_is_refused_before_any_work(tmp_path, capsys, argv, option):
    f = tmp_path / "table.csv"
    f.write_text("keep\n")
    code, out, err = _run(argv + [str(f)], capsys)
    _one_line_refusal(code, err, f"{option} {f} exists", "--force")
    assert out == "" and f.read_text() == "keep\n" and os.listdir(tmp_path) == ["table.csv"]


def test_odds_csv_below_a_file_is_one_line_before_the_table(tmp_path, capsys):
    (tmp_path / "a_file").write_text("x")
    bad = tmp_path / "a_file" / "sub" / "odds.csv"
    code, out, err = _run(["lure", "odds", "--csv", str(bad)], capsys)
    _one_line_refusal(code, err, "bad --csv", "is a file, not a folder")
    assert out == "" and ".tmp" not in err and sorted(os.listdir(tmp_path)) == ["a_file"]


def test_odds_csv_with_force_replaces_the_file(tmp_path, capsys):
    f = tmp_path / "odds.csv"
    f.write_text("old\n")
    code, out, _ = _run(["lure", "odds", "--csv", str(f), "--force"], capsys)
    assert code == 0 and f.read_text().startswith("id,") and "table written to" in out
    assert os.listdir(tmp_path) == ["odds.csv"]  # no temporary file left behind


def test_read_only_out_is_one_line_saying_what_to_do(tmp_path, capsys, monkeypatch):
    """Root may write anywhere, so the permission is simulated: the check asks os.access."""
    import experiments.outputs as outputs

    ro = tmp_path / "ro"
    ro.mkdir()
    real = os.access
    monkeypatch.setattr(outputs.os, "access",
                        lambda p, mode: False if Path(p) == ro else real(p, mode))
    code, _, err = _run(["river-rats", "pairs", "--players", "4", "--games", "10",
                         "--out", str(ro / "x")], capsys)
    _one_line_refusal(code, err, "read-only", "choose a folder you can write to")
    assert list(ro.iterdir()) == []


# ---------------------------------------------------------------- damaged states
def _good_state(tmp_path) -> tuple[Path, dict]:
    kw = dict(seed=4, games_per_cell=1_000, batch_size=200, progress=False)
    run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    return tmp_path / STATE_FILE, kw


def _damage(state: dict, kind: str) -> dict | str:
    s = json.loads(json.dumps(state))
    t0 = s["totals"][0]
    if kind == "repeated and missing batch":
        s["done"][0] = [0, 0, 0, 999]
    elif kind == "repeated batch":
        s["done"][0] = [0, 1, 1, 2, 3]
    elif kind == "batch out of range":
        s["done"][0] = [0, 1, 2, 3, 7]
    elif kind == "negative batch":
        s["done"][0] = [-1, 1, 2, 3, 4]
    elif kind == "batch not a number":
        s["done"][0] = ["0", 1, 2, 3, 4]
    elif kind == "batch a boolean":
        s["done"][1] = [True, 1, 2, 3, 4]
    elif kind == "wins above games":
        t0["wins"] = t0["games"] + 1
    elif kind == "negative wins":
        t0["wins"] = -3
    elif kind == "games not the batches'":
        t0["games"] = 700
    elif kind == "batch dropped, totals kept":
        s["done"][1] = s["done"][1][:-1]
    elif kind == "totals without batches":
        s["done"][1] = []
    elif kind == "a total is text":
        t0["rounds"] = "lots"
    elif kind == "a total is a float":
        t0["rounds"] = 3.5
    elif kind == "a cell missing":
        s["done"] = s["done"][:1]
    elif kind == "runs not a list":
        s["runs"] = {"a": 1}
    elif kind == "truncated file":
        return json.dumps(state)[:80]
    elif kind == "not an object":
        return "[1, 2, 3]"
    return s


DAMAGES = ["repeated and missing batch", "repeated batch", "batch out of range",
           "negative batch", "batch not a number", "batch a boolean", "wins above games",
           "negative wins", "games not the batches'", "batch dropped, totals kept",
           "totals without batches", "a total is text", "a total is a float", "a cell missing",
           "runs not a list", "truncated file", "not an object"]


@pytest.mark.parametrize("kind", DAMAGES)
def test_a_damaged_state_is_refused_in_one_line_and_never_repaired(tmp_path, kind):
    path, kw = _good_state(tmp_path)
    good = json.loads(path.read_text())
    bad = _damage(good, kind)
    text = bad if isinstance(bad, str) else json.dumps(bad)
    path.write_text(text)
    with pytest.raises(ValueError) as e:
        run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    msg = str(e.value)
    assert len(msg.splitlines()) == 1 and str(path) in msg and "--force" in msg, msg
    assert "array(" not in msg
    assert path.read_text() == text  # nothing repaired, nothing written
    again = run_experiment(coin_flips, CELLS, out_dir=tmp_path, overwrite=True, **kw)
    fresh = run_experiment(coin_flips, CELLS, **kw)
    assert again.resumed_batches == 0
    assert [{k: int(v) for k, v in t.items()} for t in again.totals] == \
        [{k: int(v) for k, v in t.items()} for t in fresh.totals]


def test_the_issue_cases_name_what_is_wrong(tmp_path):
    path, kw = _good_state(tmp_path)
    good = json.loads(path.read_text())
    for kind, needle in (("repeated and missing batch", "batch 999, outside 0..4"),
                         ("repeated batch", "lists batch 1 2 times"),
                         ("wins above games", "1001 wins for 1000 games")):
        path.write_text(json.dumps(_damage(good, kind)))
        with pytest.raises(ValueError, match=needle):
            run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)


def test_a_valid_state_with_ci_rounds_still_resumes(tmp_path):
    """Batches of later --ci-width rounds are in range: the validation accepts them."""
    kw = dict(seed=2, games_per_cell=400, batch_size=200, ci_width=0.05, max_games=2_000,
              group_batches=2, progress=False)
    first = run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    assert max(first.batches_done) > 2
    again = run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    assert again.games_played == 0 and again.batches_done == first.batches_done


def test_a_damaged_state_through_the_command_line_is_one_line(tmp_path, capsys):
    out = tmp_path / "p"
    argv = ["river-rats", "pairs", "--players", "1", "--agents", "random", "--games", "100",
            "--batch-size", "50", "--out", str(out), "--quiet"]
    # the partial results of this command's experiment, as if killed before the end
    from experiments.pairs.job import PairsSpec, run_pairs

    run_pairs(PairsSpec(players=[1], agents="random", games=100), out_dir=out, batch_size=50,
              group_batches=4, progress=False)
    state = out / "_partial" / STATE_FILE
    s = json.loads(state.read_text())
    s["done"][0] = [0, 0, 0, 999]
    state.write_text(json.dumps(s))
    before = _checksums(out)
    code, _, err = _run(argv, capsys)
    _one_line_refusal(code, err, "state.json is damaged", "--force")
    assert _checksums(out) == before


# ---------------------------------------------------------------- runs in progress
@pytest.mark.slow
def test_sigterm_ends_a_run_like_ctrl_c_and_the_rerun_equals_an_uninterrupted_run(tmp_path):
    argv = [sys.executable, "-m", "experiments.cli", "river-rats", "pairs", "--players", "1",
            "--agents", "heuristic", "--games", "3000", "--batch-size", "125", "--seed", "5"]
    out = tmp_path / "killed"
    p = subprocess.Popen(argv + ["--out", str(out)], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    state = out / "_partial" / STATE_FILE
    deadline = time.time() + 240
    while not state.exists() and time.time() < deadline and p.poll() is None:
        time.sleep(0.05)
    assert p.poll() is None, "the run ended before it could be stopped"
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    lines = [ln for ln in err.splitlines() if ln.strip() and "games" not in ln[:12]
             and "%" not in ln]
    assert p.returncode == 130, err
    assert lines == [lines[-1]] and "interrupted" in lines[-1] and "resume" in lines[-1], err
    assert "Traceback" not in err
    assert not (out / "_partial" / "run.lock").exists() and not (out / "pairs.csv").exists()
    done = sum(len(d) for d in json.loads(state.read_text())["done"])
    assert 0 < done < 12 * 24  # 24 batches of 125 games per pair
    r = subprocess.run(argv + ["--out", str(out), "--quiet"], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0 and f"resumed {done} batches" in r.stdout, r.stderr
    # the uninterrupted run, in this process
    from experiments.pairs.job import PairsSpec, run_pairs

    full, _ = run_pairs(PairsSpec(players=[1], agents="heuristic", games=3000, seed=5),
                        batch_size=125, progress=False)
    resumed = __import__("pandas").read_csv(out / "pairs.csv")
    assert resumed["wins"].tolist() == full["wins"].tolist()
    assert resumed["games"].tolist() == full["games"].tolist() == [3000] * 12


def test_the_progress_bar_shows_rounds_and_never_moves_backwards(monkeypatch):
    import experiments.runner as runner

    bars = []

    class Bar:
        def __init__(self, total=0, desc="", disable=False, **kw):
            self.total, self.desc, self.n, self.seen = total, desc, 0, []
            bars.append(self)

        def update(self, k):
            self.n += k
            self.seen.append(self.n / self.total)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    monkeypatch.setattr(runner, "tqdm", Bar)
    run_experiment(coin_flips, [{"p": 0.5}, {"p": 0.01}], seed=1, games_per_cell=400,
                   batch_size=200, ci_width=0.08, max_games=4_000, group_batches=2)
    assert len(bars) >= 2
    assert bars[0].desc.startswith("round 1: 800 games for 2 cells")
    assert "more games for 1 cell" in bars[1].desc
    for b in bars:
        assert b.seen == sorted(b.seen) and b.seen[-1] == pytest.approx(1.0)


# ---------------------------------------------------------------- options and messages
@pytest.mark.parametrize("argv", [
    ["river-rats", "pairs", "--players", "4", "--agents", ""],
    ["river-rats", "pairs", "--players", "4", "--agents", ","],
    ["tournament", "rats", "--agents", ""],
    ["winrates", "rats", "--agents", ""],
    ["lure", "balance", "--agents", ""],
    ["lure", "rebalance", "--agents", " , "],
])
def test_empty_agents_is_an_error_not_the_default_field(tmp_path, capsys, argv):
    out = tmp_path / "o"
    extra = [] if argv[0] == "winrates" else ["--out", str(out)]
    code, stdout, err = _run(argv + extra, capsys)
    _one_line_refusal(code, err, "--agents")
    assert stdout == "" and not out.exists()


def test_quiet_means_the_same_in_every_command():
    helps = {}

    def walk(p, path):
        for a in p._actions:
            if "--quiet" in a.option_strings:
                helps[" ".join(path)] = a.help
            for name, child in getattr(a, "choices", None).items() if isinstance(
                    getattr(a, "choices", None), dict) else ():
                walk(child, path + [name])

    walk(build_parser(), [])
    for cmd in ("river-rats pairs", "river-rats decisions", "tournament", "tune", "winrates",
                "lure balance", "lure rebalance", "lure odds", "lure card"):
        assert cmd in helps, cmd
    assert len(set(helps.values())) == 1, helps


def test_quiet_pairs_prints_the_table_and_nothing_on_stderr(tmp_path, capsys):
    code, out, err = _run(["river-rats", "pairs", "--players", "1", "--agents", "random",
                           "--games", "40", "--batch-size", "20", "--quiet",
                           "--out", str(tmp_path / "q")], capsys)
    assert code == 0 and "1 player (agents: random)" in out and err == ""


def test_the_first_real_compilation_says_so_once(capsys):
    import numba

    from experiments import notes

    notes._state.update(said=False)
    notes.install_compile_note(quiet=False)

    @numba.njit
    def f(x):
        return x + 1

    @numba.njit
    def g(x):
        return x * 2

    f(1)
    g(2)
    err = capsys.readouterr().err
    assert err.count(notes.COMPILE_NOTE) == 1
    notes._state.update(said=False)
    notes.set_quiet(True)

    @numba.njit
    def h(x):
        return x - 1

    h(3)
    assert notes.COMPILE_NOTE not in capsys.readouterr().err
    notes.set_quiet(False)


def test_lure_balance_answers_with_its_flagged_cards(tmp_path, capsys):
    dst = tmp_path / "base"
    shutil.copytree(RESULTS / "lure" / "base", dst)
    before = _checksums(dst)
    code, out, _ = _run(["lure", "balance", "--players", "2..5", "--out", str(dst)], capsys)
    assert code == 0 and "4 card(s) whose points are wrong" in out and "B29" in out
    assert "too many points" in out
    assert "nothing was played" in out and _checksums(dst) == before


def test_no_python_api_words_reach_the_command_line(tmp_path, capsys):
    (tmp_path / STATE_FILE).write_text("{")
    argv = ["river-rats", "pairs", "--players", "1", "--games", "10", "--out", str(tmp_path)]
    part = tmp_path / "_partial"
    part.mkdir()
    (part / STATE_FILE).write_text("{")
    code, _, err = _run(argv, capsys)
    _one_line_refusal(code, err, "--force")
    assert "overwrite" not in err and "games_per_cell" not in err
    assert np.all([s not in err for s in ("n_jobs", "batch_size", "ci_width")])


def test_a_deck_read_from_another_clone_is_the_same_setting():
    """A finished run's settings name the deck by content (sha256, rows); the path it was read
    from differs between clones and is not a setting (the README's Lure tournament answers
    from the committed run in a fresh clone)."""
    from experiments.outputs import same_settings, settings_diff

    deck = {"sha256": "ab12", "rows": [[1, 2]]}
    here = {"games": 10, "config": {"deck": dict(deck, source="/work/main/deck.csv")}}
    there = {"games": 10, "config": {"deck": dict(deck, source="/tmp/clone/deck.csv")}}
    assert same_settings(here, there) and settings_diff(here, there) == ""
    other = {"games": 10, "config": {"deck": dict(deck, sha256="cd34", source="/x.csv")}}
    assert not same_settings(here, other)
    assert settings_diff(here, other) == "config.deck.sha256 ab12 there, cd34 now"
