"""Rules engines of boardlab and the shared fast kernels.

Folders by purpose:

- :mod:`engines.protocol`  the one game protocol (the kernels every rules core offers, the
  step-API base class, game records) and the kernels every game shares: compiled calls by game
  id (``kernels``), the one source of chance (``chance``), dealing, bit tricks, borrowed arrays
  and branch hints
- :mod:`engines.poker`  the best-5-of-N poker evaluator (standard and River Rats rankings), its
  tables and its plain-Python reference
- :mod:`engines.dice`   the compiled dice-condition checker and exact catch odds (Lure), and its
  plain-Python reference

Four modules stay at the top, each used by every folder: :mod:`engines.names` (the registry:
the one list of games), :mod:`engines.description` (what a game declares about itself),
:mod:`engines.cards` (card ids and their text form, shared by the poker-deck games) and
:mod:`engines.kernel_cache` (where Numba files compiled code).
- :mod:`engines.river_rats`, :mod:`engines.lure`, :mod:`engines.rats`,
  :mod:`engines.recurring`, :mod:`engines.kuhn_poker`  one compiled rules core per game
  (``core``) with its step API (``game``); whole games of compiled policies are played above
  the engines, by :mod:`agents.loop`

Importing :mod:`engines` points Numba's on-disk cache at ``~/.cache/boardlab/numba`` (or
``$BOARDLAB_CACHE_DIR/numba``) through Numba's documented environment variables
``NUMBA_CACHE_DIR`` and ``NUMBA_CACHE_LOCATOR_CLASSES``, set before Numba reads them (importing
Numba costs half a second that ``--help`` must not pay; worker processes inherit them).
Inside that folder :class:`engines.kernel_cache.SourceClosureLocator` files each kernel under
the hash of the sources it may link (its game's files and the shared ones), so an edit to one
game recompiles that game only, and every clone of the same sources shares the code. A
``NUMBA_CACHE_DIR`` or ``NUMBA_CACHE_LOCATOR_CLASSES`` the user set is respected as it is.
Caches of other sources are pruned (:func:`prune_kernel_caches`).
"""

from __future__ import annotations

import os
from pathlib import Path


def source_hash() -> str:
    """Hex digest (16 characters) of every source file of ``engines`` and ``agents``: what
    decides the games a seed gives. The runner's resume fingerprint (:mod:`experiments.runner`),
    so unrelated edits (README, results) never invalidate it. Computed once per process (the
    source this process imported); :func:`engines.source_closure.closure_hash` of everything."""
    from engines.source_closure import closure_hash

    return closure_hash(None)


OWN_CACHE_MARK = "BOARDLAB_NUMBA_CACHE_DIR"
"""Environment variable recording the cache folder this package chose (to tell it from a
``NUMBA_CACHE_DIR`` the user set)."""


def _configure_numba_cache() -> None:
    """Set ``NUMBA_CACHE_DIR`` to ``<base>/numba`` and ``NUMBA_CACHE_LOCATOR_CLASSES`` to
    :data:`NUMBA_LOCATORS` unless the user set either. When Numba is
    already imported, asks it to read its environment again (``numba.core.config.reload_config``,
    what its compiler does before every compilation) so that kernels decorated from now on
    follow."""
    import sys

    env = os.environ.get("NUMBA_CACHE_DIR")
    if env and env != os.environ.get(OWN_CACHE_MARK):
        return
    if os.environ.get("NUMBA_CACHE_LOCATOR_CLASSES", "") not in ("", NUMBA_LOCATORS):
        return
    base = Path(os.environ.get("BOARDLAB_CACHE_DIR", Path.home() / ".cache" / "boardlab"))
    folder = base / "numba"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable home: keep Numba's default (next to the sources)
        return
    os.environ["NUMBA_CACHE_DIR"] = os.environ[OWN_CACHE_MARK] = str(folder)
    os.environ["NUMBA_CACHE_LOCATOR_CLASSES"] = NUMBA_LOCATORS
    if "numba" in sys.modules:
        from numba.core.config import reload_config

        reload_config()
    if not env:  # the first process of a run (workers inherit the folder): housekeeping
        prune_kernel_caches(folder)


NUMBA_LOCATORS = ("engines.kernel_cache.SourceClosureLocator,UserProvidedCacheLocator,"
                  "InTreeCacheLocator,UserWideCacheLocator,IPythonCacheLocator,ZipCacheLocator")
"""The value of ``NUMBA_CACHE_LOCATOR_CLASSES`` this package sets: ours first, then Numba's
default locators in Numba's order (a function ours declines goes where Numba would put it)."""


KEEP_CACHES = 40
"""Kernel cache folders (one per game's source closure, see :mod:`engines.kernel_cache`) kept
besides those in use (the most recently used): about eight versions of the sources."""
KEEP_DAYS = 1.0
"""A kernel cache used within this many days is never deleted (another checkout may be using
it)."""


def prune_kernel_caches(folder: Path, keep: int = KEEP_CACHES, keep_days: float = KEEP_DAYS,
                        in_use: set[str] | None = None) -> list[Path]:
    """Delete the kernel caches in ``folder`` (``<base>/numba``) of sources other than the
    current ones beyond the ``keep`` most recently used, unless used within ``keep_days`` days.
    Every edit of ``engines``/``agents`` starts new closure folders (tens of MB each), so
    without this a working copy fills the disk. Only subfolders named like a source hash (16 hex
    digits) are touched; those of ``in_use`` (default: the closures of the current sources,
    :func:`engines.source_closure.current_closures`) are marked as used now and never deleted;
    errors (a folder in use, no permission) are ignored. Returns the folders deleted."""
    import re
    import shutil
    import time

    from engines.source_closure import current_closures

    keep_names = current_closures() if in_use is None else set(in_use)
    try:
        hashed = [p for p in folder.iterdir()
                  if p.is_dir() and re.fullmatch(r"[0-9a-f]{16}", p.name)]
        for p in hashed:
            if p.name in keep_names:
                os.utime(p)
        others = [p for p in hashed if p.name not in keep_names]
        used = {p: p.stat().st_mtime for p in others}
    except OSError:
        return []
    old = sorted(others, key=used.get, reverse=True)[keep:]
    cutoff = time.time() - keep_days * 86400
    gone = [p for p in old if used[p] < cutoff]
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone


_configure_numba_cache()
