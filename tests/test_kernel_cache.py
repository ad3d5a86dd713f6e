"""The compiled kernels are cached once per machine, not once per checkout, by the sources they
may link (:mod:`engines.kernel_cache`, :mod:`engines.source_closure`): a second clone of the
same source loads what the first compiled, an edit to one game's file recompiles that game's
kernels and the ones that may reach any game, never the other games' nor the shared leaves."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# the current directory comes first on sys.path, before the editable install's finder
PROBE = """
import json, os
from engines.protocol import chance
from engines.kuhn_poker import core
import numpy as np
seed = int(chance.game_seed(2026, 7))
s = np.zeros(core.STATE_SIZE, dtype=np.int64)
core.init_state(np.full(core.CONFIG_SIZE, 2, dtype=np.int64), 5, s)
print(json.dumps({"root": os.path.dirname(chance.__file__), "seed": seed,
                  "hits": sum(chance.game_seed.stats.cache_hits.values()),
                  "misses": sum(chance.game_seed.stats.cache_misses.values()),
                  "game_hits": sum(core.init_state.stats.cache_hits.values()),
                  "game_misses": sum(core.init_state.stats.cache_misses.values())}))
"""


def _checkout(dst: Path) -> Path:
    """A copy of the two packages whose sources the cache is keyed by (new path, new mtimes)."""
    for pkg in ("engines", "agents"):
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _probe(cwd: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR",
                        "NUMBA_CACHE_LOCATOR_CLASSES")}
    env["BOARDLAB_CACHE_DIR"] = str(cache)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_second_checkout_loads_the_first_ones_kernels_and_an_edit_recompiles_its_game_only(
        tmp_path):
    cache = tmp_path / "cache"
    a = _probe(_checkout(tmp_path / "a"), cache)
    assert a["root"].startswith(str(tmp_path / "a"))  # the copy was imported, not the repo
    assert (a["misses"], a["hits"], a["game_misses"], a["game_hits"]) == (1, 0, 1, 0)
    b = _probe(_checkout(tmp_path / "b"), cache)
    assert b["root"].startswith(str(tmp_path / "b"))
    assert (b["misses"], b["hits"], b["game_misses"], b["game_hits"]) == (0, 1, 0, 1)
    assert b["seed"] == a["seed"]
    # an edit to another game's agents: neither the shared leaf (chance) nor Kuhn poker's core
    # compiles again
    c = _checkout(tmp_path / "c")
    with open(c / "agents" / "rats.py", "a") as f:
        f.write("\n# edited\n")
    r = _probe(c, cache)
    assert (r["misses"], r["hits"], r["game_misses"], r["game_hits"]) == (0, 1, 0, 1)
    # an edit to Kuhn poker's own file: its core compiles again, the shared leaf does not
    d = _checkout(tmp_path / "d")
    with open(d / "engines" / "kuhn_poker" / "core.py", "a") as f:
        f.write("\n# edited\n")
    r = _probe(d, cache)
    assert (r["misses"], r["hits"], r["game_misses"], r["game_hits"]) == (0, 1, 1, 0)
    # an edit to a shared file: everything compiles again
    e = _checkout(tmp_path / "e")
    with open(e / "engines" / "protocol" / "chance.py", "a") as f:
        f.write("\n# edited\n")
    r = _probe(e, cache)
    assert (r["misses"], r["hits"], r["game_misses"], r["game_hits"]) == (1, 0, 1, 0)


def test_every_file_has_the_closure_of_what_it_may_link():
    from engines.source_closure import SHARED, closure_of_file

    assert closure_of_file("engines/river_rats/core.py") == "river_rats"
    assert closure_of_file("agents/recurring_features.py") == "recurring"
    assert closure_of_file("agents/rats.py") == "rats"
    # leaves that reach no game's code
    for leaf in ("engines/protocol/chance.py", "engines/poker/evaluator.py",
                 "engines/dice/checker.py"):
        assert closure_of_file(leaf) == SHARED, leaf
    # code that dispatches by game may link any game's code: every file
    for by_game in ("engines/protocol/kernels.py", "agents/loop.py", "agents/search.py",
                    "agents/dispatch.py"):
        assert closure_of_file(by_game) is None, by_game


def test_numba_is_told_by_its_documented_environment_variables():
    import engines
    from engines import kernel_cache

    assert kernel_cache.LOCATOR_CLASSES[0] == "engines.kernel_cache.SourceClosureLocator"
    if os.environ.get("NUMBA_CACHE_DIR") != os.environ.get(engines.OWN_CACHE_MARK):
        pytest.skip("the user's own NUMBA_CACHE_DIR is in force")
    assert os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] == engines.NUMBA_LOCATORS
    assert Path(os.environ["NUMBA_CACHE_DIR"]).name == "numba"


def _fake_caches(base: Path, ages_days: list[float]) -> list[Path]:
    import time

    now = time.time()
    out = []
    for i, age in enumerate(ages_days):
        p = base / f"{i:016x}"
        (p / "src").mkdir(parents=True)
        os.utime(p, (now - age * 86400, now - age * 86400))
        out.append(p)
    return out


def test_old_kernel_caches_are_pruned_but_recent_and_current_ones_kept(tmp_path):
    from engines import prune_kernel_caches

    base = tmp_path / "numba"
    # ten other sources' caches, the i-th last used i + 0.5 days ago; one used an hour ago
    others = _fake_caches(base, [i + 0.5 for i in range(10)] + [0.04])
    current = base / "feedfacefeedface"
    current.mkdir()
    os.utime(current, (0, 0))  # long unused: still never deleted, and marked as used now
    not_ours = base / "notes"
    not_ours.mkdir()
    os.utime(not_ours, (0, 0))
    gone = prune_kernel_caches(base, keep=4, keep_days=1.0, in_use={current.name})
    # most recent first: the 1-hour one, then 0.5, 1.5, 2.5 days: kept; older ones deleted
    expected_gone = others[3:10]
    assert sorted(gone) == sorted(expected_gone)
    assert all(not p.exists() for p in expected_gone)
    assert all(p.exists() for p in others[:3] + [others[10], current, not_ours])
    assert current.stat().st_mtime > 1e9
    # within keep_days nothing goes, whatever the count
    _fake_caches(tmp_path / "numba2", [0.1] * 6)
    assert prune_kernel_caches(tmp_path / "numba2", keep=1, keep_days=1.0, in_use=set()) == []


def test_a_new_run_prunes_the_kernel_caches_of_old_sources(tmp_path):
    from engines.source_closure import current_closures

    cache = tmp_path / "cache"
    old = _fake_caches(cache / "numba", [30 + i for i in range(50)])
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR",
                        "NUMBA_CACHE_LOCATOR_CLASSES")}
    env["BOARDLAB_CACHE_DIR"] = str(cache)
    subprocess.run([sys.executable, "-c", "import engines"], cwd=ROOT, env=env, check=True)
    left = {p.name for p in (cache / "numba").iterdir()}
    keep = 40  # engines.KEEP_CACHES: the most recently used old ones
    assert {p.name for p in old[:keep]} <= left and not any(p.name in left for p in old[keep:])
    assert left - {p.name for p in old} <= current_closures()
