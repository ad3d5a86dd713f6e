"""Issue 26: the rat-pair table on a ``dask.distributed`` cluster of local worker processes (the
way a user with a cluster runs it: ``--backend dask --scheduler ADDRESS``) is the joblib table
exactly, and a worker killed in the middle of the run does not change it: the scheduler gives
the dead worker's batch to another worker and the run finishes with the same numbers."""

import os

import pytest

from experiments.pairs.job import PairsSpec, run_pairs

distributed = pytest.importorskip("dask.distributed")


class _DieOnce(distributed.WorkerPlugin):
    """Kills the first worker process that starts a batch (``os._exit``: no clean-up, as with
    ``kill -9`` or a lost machine); ``marker`` (a path created with ``O_EXCL``) makes it happen
    once over the whole cluster, restarted workers included."""

    def __init__(self, marker: str):
        self.marker = marker

    def transition(self, key, start, finish, **kwargs):
        if finish != "executing":
            return
        try:
            fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            return
        os.write(fd, str(os.getpid()).encode())
        os.close(fd)
        os._exit(1)


@pytest.mark.slow
def test_the_cluster_gives_the_joblib_table_after_a_killed_worker(tmp_path):
    spec = PairsSpec(players=[2], agents="heuristic", games=300, seed=77)
    kw = dict(batch_size=100, progress=False)
    ref, _ = run_pairs(spec, n_jobs=1, **kw)
    marker = tmp_path / "killed"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None,
                                  scheduler_kwargs={"dashboard_address": "127.0.0.1:0"}
                                  ) as cluster, distributed.Client(cluster) as client:
        client.register_plugin(_DieOnce(str(marker)))
        got, res = run_pairs(spec, backend="dask", scheduler=cluster.scheduler_address,
                             out_dir=tmp_path / "out", **kw)
        killed = int(marker.read_text())
        alive = list(client.run(os.getpid).values())
    assert killed not in alive  # a worker really died during the run
    assert res.games_played == 12 * 300
    assert got.equals(ref)
    # the finished folder resumes to the same table without playing a game
    again, res2 = run_pairs(spec, n_jobs=1, out_dir=tmp_path / "out", **kw)
    assert res2.games_played == 0 and again.equals(ref)
