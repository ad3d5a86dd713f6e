"""The experiment runner (experiments.runner): seeding independent of workers and backend,
resume after a kill, interval-driven stopping, bad options."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from experiments.coin_flips import coin_flips
from experiments.runner import STATE_FILE, batch_seed, run_experiment, speed_summary
from experiments.stats import wilson_interval

CELLS = [{"p": 0.3}, {"p": 0.55}, {"p": 0.02}]


def _plain(result):
    return [{k: int(v) for k, v in t.items()} for t in result.totals]


def test_batch_seed_is_the_spawned_child():
    children = np.random.SeedSequence(42).spawn(5)
    for b in range(5):
        assert (batch_seed(42, b).generate_state(4) == children[b].generate_state(4)).all()


def test_same_totals_for_one_or_two_workers_and_threading():
    kw = dict(seed=7, games_per_cell=50_000, batch_size=6_000, progress=False)
    one = run_experiment(coin_flips, CELLS, n_jobs=1, **kw)
    two = run_experiment(coin_flips, CELLS, n_jobs=2, **kw)
    thr = run_experiment(coin_flips, CELLS, n_jobs=2, backend="threading", **kw)
    assert _plain(one) == _plain(two) == _plain(thr)
    assert one.games.tolist() == [50_000] * 3
    assert one.batches_done == [9, 9, 9]  # 8 full batches and one of 2,000


def test_cells_share_their_seeds_common_random_numbers():
    r = run_experiment(coin_flips, CELLS, seed=3, games_per_cell=10_000, batch_size=1_000,
                       progress=False)
    rounds = {int(t["rounds"]) for t in r.totals}
    assert len(rounds) == 1  # the die rolls come from the same streams in every cell


def test_dask_local_cluster_gives_the_same_totals():
    pytest.importorskip("dask.distributed")
    kw = dict(seed=11, games_per_cell=20_000, batch_size=5_000, progress=False)
    ref = run_experiment(coin_flips, CELLS, n_jobs=1, **kw)
    dsk = run_experiment(coin_flips, CELLS, n_jobs=2, backend="dask", **kw)
    assert _plain(ref) == _plain(dsk)


def test_interrupted_run_resumes_to_the_uninterrupted_totals(tmp_path):
    cells = [{"p": 0.4, "sleep": 0.15}, {"p": 0.6, "sleep": 0.15}]
    kw = dict(seed=5, games_per_cell=24_000, batch_size=2_000, group_batches=1)
    out = tmp_path / "run"
    done = _run_and_kill(cells, kw, out, min_done=3)
    assert 3 <= done < 24, "the run should have been killed part way"
    resumed = run_experiment(coin_flips, cells, out_dir=out, progress=False, **kw)
    assert resumed.resumed_batches >= 3
    assert resumed.games_played < 48_000
    fresh = run_experiment(coin_flips, cells, progress=False, **kw)
    assert _plain(resumed) == _plain(fresh)
    # running once more finds everything done and plays nothing
    again = run_experiment(coin_flips, cells, out_dir=out, progress=False, **kw)
    assert again.games_played == 0 and _plain(again) == _plain(fresh)
    # issue 12.6: the history keeps the runs that played the games, killed one included
    runs = again.meta["runs"]
    assert len(runs) == 2 and [r["finished"] for r in runs] == [False, True]
    assert sum(r["games_played"] for r in runs) == 48_000
    assert runs[1]["games_played"] == resumed.games_played and runs[0]["games_per_s"] > 0
    speed = speed_summary(again)
    assert speed["games_per_s_this_run"] is None and speed["runs"] == runs
    assert speed["games_per_s"] == pytest.approx(
        48_000 / sum(r["wall_time_s"] for r in runs))
    # units of several games (a tournament's deals): the history counts games, keeps the deals
    per_deal = speed_summary(again, per_unit=3)["runs"]
    assert [r["deals_played"] for r in per_deal] == [r["games_played"] for r in runs]
    assert [r["games_played"] for r in per_deal] == [3 * r["games_played"] for r in runs]
    assert per_deal[0]["games_per_s"] == pytest.approx(3 * runs[0]["games_per_s"])


def test_state_of_another_experiment_is_not_overwritten_without_consent(tmp_path):
    run_experiment(coin_flips, CELLS, seed=1, games_per_cell=4_000, batch_size=1_000,
                   out_dir=tmp_path, progress=False)
    with pytest.raises(ValueError, match="different experiment"):
        run_experiment(coin_flips, CELLS, seed=2, games_per_cell=4_000, batch_size=1_000,
                       out_dir=tmp_path, progress=False)
    other = run_experiment(coin_flips, CELLS, seed=2, games_per_cell=4_000, batch_size=1_000,
                           out_dir=tmp_path, progress=False, overwrite=True)
    assert other.resumed_batches == 0 and other.games_played == 12_000


def test_ci_width_adds_batches_until_every_interval_is_narrow_enough():
    r = run_experiment(coin_flips, CELLS, seed=9, games_per_cell=2_000, batch_size=1_000,
                       ci_width=0.02, max_games=100_000, group_batches=4, progress=False)
    for t in r.totals:
        lo, hi = wilson_interval(int(t["wins"]), int(t["games"]))
        assert hi - lo <= 0.02
    # the p = 0.02 cell needs far fewer games than the p = 0.55 cell
    assert r.games[2] < r.games[1]
    # the same with two workers, and a resumed run stops at the same place
    two = run_experiment(coin_flips, CELLS, seed=9, games_per_cell=2_000, batch_size=1_000,
                         ci_width=0.02, max_games=100_000, group_batches=4, n_jobs=2,
                         progress=False)
    assert _plain(two) == _plain(r)


def _run_and_kill(cells, kw, out, min_done):
    code = (
        "from experiments.runner import run_experiment\n"
        "from experiments.coin_flips import coin_flips\n"
        f"run_experiment(coin_flips, {cells!r}, out_dir={str(out)!r}, progress=False, "
        f"n_jobs=1, **{kw!r})\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code])
    state = out / STATE_FILE
    deadline = time.time() + 60
    done = 0
    while time.time() < deadline and proc.poll() is None:
        if state.exists():
            done = sum(len(d) for d in json.loads(state.read_text())["done"])
            if done >= min_done:
                break
        time.sleep(0.02)
    proc.kill()
    proc.wait()
    return done


def test_ci_width_resume_stops_where_an_uninterrupted_run_stops(tmp_path):
    cells = [{"p": 0.3, "sleep": 0.05}, {"p": 0.05, "sleep": 0.05}]
    kw = dict(seed=4, games_per_cell=1_000, batch_size=500, ci_width=0.03, max_games=40_000,
              group_batches=2)
    full = run_experiment(coin_flips, cells, progress=False, **kw)
    assert full.batches_done[0] > 6  # several rounds were needed
    done = _run_and_kill(cells, kw, tmp_path, min_done=7)
    assert 7 <= done < sum(full.batches_done)
    resumed = run_experiment(coin_flips, cells, out_dir=tmp_path, progress=False, **kw)
    assert resumed.resumed_batches >= 7
    assert _plain(resumed) == _plain(full)


def test_max_games_caps_a_cell():
    r = run_experiment(coin_flips, [{"p": 0.5}], seed=1, games_per_cell=1_000, batch_size=500,
                       ci_width=0.001, max_games=3_000, group_batches=2, progress=False)
    assert r.games.tolist() == [3_000]


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"backend": "spark"}, "backend 'spark'"),
        ({"n_jobs": 0}, "n_jobs 0"),
        ({"batch_size": 0}, "batch_size 0"),
        ({"games_per_cell": -5}, "games_per_cell -5"),
        ({"ci_width": 2.0}, "ci_width 2.0"),
        ({"ci_width": 0.1, "max_games": 10}, "max_games 10"),
    ],
)
def test_bad_options_raise_naming_the_option(kw, message):
    base = dict(seed=1, games_per_cell=100, progress=False)
    with pytest.raises(ValueError, match=message):
        run_experiment(coin_flips, CELLS, **{**base, **kw})


def test_errors_of_the_batch_function_propagate():
    with pytest.raises(ValueError, match="p=1.5"):
        run_experiment(coin_flips, [{"p": 1.5}], seed=1, games_per_cell=10, progress=False)


def test_dask_scheduler_address_connects_to_a_running_cluster():
    distributed = pytest.importorskip("dask.distributed")
    kw = dict(seed=12, games_per_cell=8_000, batch_size=2_000, progress=False)
    ref = run_experiment(coin_flips, CELLS, n_jobs=1, **kw)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}
                                  ) as cluster:
        got = run_experiment(coin_flips, CELLS, backend="dask",
                             scheduler=cluster.scheduler_address, **kw)
    assert _plain(ref) == _plain(got)


def test_atomic_writes_have_the_usual_permissions(tmp_path):
    import os

    from experiments.io import atomic_write_text

    atomic_write_text(tmp_path / "a.txt", "hello")
    mask = os.umask(0)
    os.umask(mask)
    assert (tmp_path / "a.txt").read_text() == "hello"
    assert (tmp_path / "a.txt").stat().st_mode & 0o777 == 0o666 & ~mask
    assert [p.name for p in tmp_path.iterdir()] == ["a.txt"]  # no temporary file left


def test_resume_survives_unrelated_edits_but_not_other_engine_code(tmp_path, monkeypatch):
    """Issue 12.1: the resume fingerprint holds the engines' and agents' sources, not
    ``git describe --dirty``: editing the README between a kill and the re-run resumes; other
    engine or agent sources stop with a message naming the code, and --force starts over."""
    import experiments.runner as R

    kw = dict(seed=3, games_per_cell=4_000, batch_size=1_000, progress=False)
    first = run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    monkeypatch.setattr(R, "code_version", lambda: "f7a7982-dirty")  # README edited
    again = run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    assert again.resumed_batches == sum(first.batches_done) and again.games_played == 0
    monkeypatch.setattr(R, "source_hash", lambda: "0123456789abcdef")  # an engine changed
    with pytest.raises(ValueError, match="other engine or agent code"):
        run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    forced = run_experiment(coin_flips, CELLS, out_dir=tmp_path, overwrite=True, **kw)
    assert forced.resumed_batches == 0 and _plain(forced) == _plain(first)


@pytest.mark.parametrize("content", ['{"version": 1, "fingerp', "[1, 2, 3]",
                                     '{"fingerprint": 5, "done": 7, "totals": 1}'])
def test_damaged_state_file_names_the_file_and_force_starts_over(tmp_path, content):
    """Issue 12.3: a truncated or foreign ``state.json`` gives a one-line error naming it and
    what to do; --force starts over."""
    kw = dict(seed=3, games_per_cell=2_000, batch_size=1_000, progress=False)
    (tmp_path / STATE_FILE).write_text(content)
    with pytest.raises(ValueError, match=r"state\.json.*--force"):
        run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    assert (tmp_path / STATE_FILE).read_text() == content  # nothing changed
    res = run_experiment(coin_flips, CELLS, out_dir=tmp_path, overwrite=True, **kw)
    assert res.resumed_batches == 0 and res.games_played == 2_000 * len(CELLS)


def test_a_second_run_on_the_same_folder_is_refused_and_a_killed_run_does_not_block(tmp_path):
    """Issue 12.4: two runs on one ``--out`` would both play every game: the second stops
    naming the first's process; the lock of a killed run does not block."""
    from experiments.io import LOCK_FILE

    kw = dict(seed=3, games_per_cell=2_000, batch_size=1_000, progress=False)
    code = ("import sys, time; from experiments.io import out_lock\n"
            "with out_lock(sys.argv[1]):\n    print('locked', flush=True); time.sleep(60)")
    holder = subprocess.Popen([sys.executable, "-c", code, str(tmp_path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ValueError, match=f"in use by another run \\(process {holder.pid}\\)"):
            run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
        assert not (tmp_path / STATE_FILE).exists()  # nothing played, nothing written
    finally:
        holder.kill()  # as with kill -9: no clean-up in the holder
        holder.wait()
    res = run_experiment(coin_flips, CELLS, out_dir=tmp_path, **kw)
    assert res.games_played == 2_000 * len(CELLS) and not (tmp_path / LOCK_FILE).exists()


def _children(pid: int) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                out.append(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_soon_after_the_run_is_killed(tmp_path):
    """Issue 12.5: after ``kill -9`` of the run's process its loky workers (hundreds of MB
    each) exit within seconds instead of idling until loky's timeout."""
    cells = [{"p": 0.5, "sleep": 0.2}, {"p": 0.4, "sleep": 0.2}]
    kw = dict(seed=1, games_per_cell=40_000, batch_size=1_000, group_batches=1)
    code = ("from experiments.runner import run_experiment\n"
            "from experiments.coin_flips import coin_flips\n"
            f"run_experiment(coin_flips, {cells!r}, out_dir={str(tmp_path)!r}, progress=False, "
            f"n_jobs=2, **{kw!r})\n")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.time() + 120
    workers: list[int] = []
    while time.time() < deadline and proc.poll() is None:
        # both workers have run batches (the watchdog starts with a worker's first batch);
        # only the workers count, not loky's resource tracker
        if (tmp_path / STATE_FILE).exists() and sum(
                len(d) for d in json.loads((tmp_path / STATE_FILE).read_text())["done"]) >= 6:
            workers = [c for c in _children(proc.pid)
                       if b"LokyProcess" in (Path("/proc") / str(c) / "cmdline").read_bytes()]
            if len(workers) >= 2:
                break
        time.sleep(0.05)
    assert len(workers) >= 2, "the run should have started its workers"
    proc.kill()
    proc.wait()
    t0 = time.time()
    while time.time() - t0 < 15 and any(_alive(w) for w in workers):
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for w in left:  # do not leave them behind if the test fails
        os.kill(w, 9)
    assert not left, f"workers {left} outlived the killed run by 15 s"


_FIRST_CALL = {"done": False}


def slow_first_batch(cell, n_games, seed):
    """A batch function whose first call in a process takes 1 s longer, as a Numba kernel's
    first call compiles it."""
    if not _FIRST_CALL["done"]:
        _FIRST_CALL["done"] = True
        time.sleep(1.0)
    return coin_flips(cell, n_games, seed)


def test_games_per_second_excludes_compilation():
    # the runner compiles (plays one game) before the clock of the play starts, also with one
    # worker, so a run's wall time and games/s never count the first call's compilation
    _FIRST_CALL["done"] = False
    res = run_experiment(slow_first_batch, CELLS, seed=3, games_per_cell=4_000,
                         batch_size=1_000, n_jobs=1, progress=False)
    assert res.setup_time >= 1.0 and res.wall_time < 1.0
    assert res.meta["setup_time_s"] >= 1.0
    speed = speed_summary(res)
    assert speed["games_per_s_this_run"] == pytest.approx(res.games_played / res.wall_time)


def test_tournament_speed_line_counts_play_only():
    from experiments.cli.tournament import speed_line

    line = speed_line({"games_played_this_run": 800, "wall_time_s": 19.1, "play_time_s": 0.4,
                       "setup_time_s": 18.7, "rating_time_s": 0.1}, 1)
    assert line.startswith("800 games in 0.4 s of play (2,000 games/s")
    assert "compilation excluded" in line and "18.7 s starting workers and compiling" in line
