"""The compiled kernels are cached once per machine, not once per checkout
(:mod:`engines.jit_cache`): a second clone of the same source loads what the first compiled,
and an edit to the source still compiles afresh."""

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
from engines.jit_cache import SourceHashLocator
seed = int(chance.game_seed(2026, 7))
loc = chance.game_seed._cache._impl.locator
print(json.dumps({"root": os.path.dirname(chance.__file__), "seed": seed,
                  "hits": sum(chance.game_seed.stats.cache_hits.values()),
                  "misses": sum(chance.game_seed.stats.cache_misses.values()),
                  "ours": isinstance(loc, SourceHashLocator), "path": loc.get_cache_path()}))
"""


def _checkout(dst: Path) -> Path:
    """A copy of the two packages whose source the cache is keyed by (new path, new mtimes)."""
    for pkg in ("engines", "agents"):
        shutil.copytree(ROOT / pkg, dst / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _probe(cwd: Path, cache: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR")}
    env["BOARDLAB_CACHE_DIR"] = str(cache)
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=cwd, env=env, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_a_second_checkout_of_the_same_source_loads_the_first_ones_compiled_kernels(tmp_path):
    cache = tmp_path / "cache"
    a = _probe(_checkout(tmp_path / "a"), cache)
    assert a["root"].startswith(str(tmp_path / "a"))  # the copy was imported, not the repo
    assert a["ours"] and a["misses"] == 1 and a["hits"] == 0
    b = _probe(_checkout(tmp_path / "b"), cache)
    assert b["root"].startswith(str(tmp_path / "b"))
    assert b["ours"] and b["hits"] == 1 and b["misses"] == 0
    assert b["path"] == a["path"] and b["seed"] == a["seed"]
    # an edit anywhere in engines/agents is a new source: compiled again, in a new folder
    c = _checkout(tmp_path / "c")
    with open(c / "agents" / "__init__.py", "a") as f:
        f.write("\n# edited\n")
    r = _probe(c, cache)
    assert r["misses"] == 1 and r["hits"] == 0 and r["path"] != a["path"]


def test_the_locator_applies_only_to_this_packages_files_in_its_own_cache_folder(tmp_path):
    import engines
    from engines import jit_cache
    from engines.protocol import chance

    loc = chance.game_seed._cache._impl.locator
    if os.environ.get("NUMBA_CACHE_DIR") != os.environ.get(engines._OWN_CACHE_MARK):
        pytest.skip("the user's own NUMBA_CACHE_DIR is in force")
    assert isinstance(loc, jit_cache.SourceHashLocator)
    assert loc.get_source_stamp() == engines.source_hash()
    assert Path(loc.get_cache_path()).as_posix().endswith("/src/engines/protocol")
    outside = tmp_path / "user_policy.py"
    outside.write_text("def f():\n    return 1\n")
    assert jit_cache.SourceHashLocator.from_function(lambda: 1, str(outside)) is None


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
    gone = prune_kernel_caches(current, keep=4, keep_days=1.0)
    # most recent first: the 1-hour one, then 0.5, 1.5, 2.5 days: kept; older ones deleted
    expected_gone = others[3:10]
    assert sorted(gone) == sorted(expected_gone)
    assert all(not p.exists() for p in expected_gone)
    assert all(p.exists() for p in others[:3] + [others[10], current, not_ours])
    assert current.stat().st_mtime > 1e9
    # within keep_days nothing goes, whatever the count
    young = _fake_caches(tmp_path / "numba2", [0.1] * 6)
    assert prune_kernel_caches(young[0], keep=1, keep_days=1.0) == []


def test_a_new_run_prunes_the_kernel_caches_of_old_sources(tmp_path):
    cache = tmp_path / "cache"
    old = _fake_caches(cache / "numba", [30 + i for i in range(12)])
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "BOARDLAB_NUMBA_CACHE_DIR")}
    env["BOARDLAB_CACHE_DIR"] = str(cache)
    subprocess.run([sys.executable, "-c", "import engines"], cwd=tmp_path, env=env, check=True)
    left = {p.name for p in (cache / "numba").iterdir()}
    assert {p.name for p in old[:8]} <= left and not any(p.name in left for p in old[8:])
    assert len(left) == 9  # the 8 most recently used old ones and this source's own
