"""What a run does to its folder: --force replaces the previous run as a whole and nothing
else, a finished run keeps only its results, bad --out folders and a full disk are one line
naming the cause, and a run without --out never writes into the clone."""

import errno
import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from experiments.cli import main, os_error_line

ROOT = Path(__file__).resolve().parents[1]
PAIRS = ["river-rats", "pairs", "--players", "1", "--agents", "random", "--games", "40",
         "--batch-size", "20", "--quiet"]


def _checksums(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _lure_balance_folder(folder: Path) -> None:
    """A finished Lure balance report's files (its metadata and outputs) and a user's note."""
    from experiments.lure.balance import OUTPUT_FILES

    folder.mkdir()
    for name in OUTPUT_FILES:
        (folder / name).write_text(f"lure balance {name}\n")
    (folder / "metadata.json").write_text(json.dumps(
        {"experiment": "lure balance", "settings": {"experiment": "lure balance"}}))
    (folder / "my_notes.txt").write_text("mine, not a run's\n")


def test_force_replaces_the_previous_run_as_a_whole_and_nothing_else(tmp_path, capsys):
    out = tmp_path / "folder"
    _lure_balance_folder(out)
    user_file = _checksums(out)["my_notes.txt"]
    assert main(PAIRS + ["--out", str(out)]) == 2  # refused without --force
    assert "lure balance" in capsys.readouterr().err
    assert main(PAIRS + ["--out", str(out), "--force"]) == 0
    after = _checksums(out)
    from experiments.pairs.job import OUTPUT_FILES

    assert set(after) == set(OUTPUT_FILES) | {"my_notes.txt"}  # no report.md, cards.csv...
    assert after["my_notes.txt"] == user_file
    assert json.loads((out / "metadata.json").read_text())["experiment"] == "river-rats pairs"
    # forced again: the pairs run is replaced by a pairs run, the user's file still untouched
    assert main(PAIRS + ["--out", str(out), "--force", "--seed", "7"]) == 0
    again = _checksums(out)
    assert set(again) == set(after) and again["my_notes.txt"] == user_file
    assert again["pairs.csv"] != after["pairs.csv"]


def test_force_removes_nothing_without_a_run_metadata_file(tmp_path):
    from experiments.outputs import remove_previous_run

    (tmp_path / "report.md").write_text("a user's report")
    (tmp_path / "metadata.json").write_text("{not json")
    before = _checksums(tmp_path)
    assert remove_previous_run(tmp_path) == [] and _checksums(tmp_path) == before


def test_a_finished_run_keeps_only_its_results(tmp_path):
    out = tmp_path / "p"
    assert main(PAIRS + ["--out", str(out)]) == 0
    assert not (out / "_partial").exists() and (out / "metadata.json").is_file()
    assert main(PAIRS + ["--out", str(out)]) == 0  # answered from the finished run


@pytest.mark.parametrize("where, cause", [("file", "is a file, not a folder"),
                                          ("/proc/boardlab_x", "no folder can be created")])
def test_an_output_folder_that_cannot_be_made_is_one_line_naming_why(tmp_path, capsys,
                                                                    where, cause):
    if where == "file":
        (tmp_path / "afile").write_text("x")
        where = str(tmp_path / "afile" / "sub")
    code = main(PAIRS + ["--out", where])
    err = capsys.readouterr().err
    assert code == 2 and cause in err and len(err.strip().splitlines()) == 1, err
    assert "read-only" not in err and "Errno" not in err


def test_a_full_disk_names_the_folder_and_says_the_same_command_resumes(tmp_path, capsys,
                                                                        monkeypatch):
    import experiments.pairs.job as job

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "p" / "pairs.csv"))

    monkeypatch.setattr(job, "write_outputs", full)
    code = main(PAIRS + ["--out", str(tmp_path / "p")])
    err = capsys.readouterr().err.strip()
    assert code == 1 and len(err.splitlines()) == 1
    assert str(tmp_path / "p") in err and "finished games are kept" in err
    assert "same command again to resume" in err
    assert (tmp_path / "p" / "_partial" / "state.json").is_file()  # they are kept
    line = os_error_line(OSError(errno.EACCES, "Permission denied", "/x/y"), "/x")
    assert line.startswith("/x/y: Permission denied; choose a folder")


def test_runs_without_out_do_not_dirty_the_clone(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("BOARDLAB_AGENTS_DIR", str(tmp_path / "store"))
    monkeypatch.chdir(ROOT)
    status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                            capture_output=True, text=True).stdout
    assert main(PAIRS[:-1] + ["--quiet"]) == 0
    assert main(["tournament", "kuhn-poker", "--agents", "random,heuristic", "--games", "10",
                 "--rating-deals", "0", "--quiet"]) == 0
    text = capsys.readouterr().out
    assert str(tmp_path / "store") in text
    assert list((tmp_path / "store").glob("river_rats/pairs_random_normal_1p_seed2026/*.csv"))
    assert list((tmp_path / "store").glob("kuhn_poker/tournaments/2p_random-heuristic/*.csv"))
    after = subprocess.run(["git", "status", "--porcelain", "--untracked-files=all"], cwd=ROOT,
                           capture_output=True, text=True).stdout
    assert after == status
