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

Five modules stay at the top, each used by every folder: :mod:`engines.names` (the registry:
the one list of games), :mod:`engines.description` (what a game declares about itself),
:mod:`engines.cards` (card ids and their text form, shared by the poker-deck games),
:mod:`engines.jit_cache` (where Numba files compiled code) and :mod:`engines.jit_literals` (makes
Numba compile the cores' and policies' kernels once per argument type, not once per constant).
- :mod:`engines.river_rats`, :mod:`engines.lure`, :mod:`engines.rats`,
  :mod:`engines.recurring`  one compiled rules core per game (``core``) with its step API
  (``game``); whole games of compiled policies are played above the engines, by
  :mod:`agents.loop`

Numba's on-disk cache (``cache=True``) only checks the timestamp of the file a function is
defined in, so a kernel that inlines code from another module could load stale machine code
after that module changes. Importing :mod:`engines` therefore points Numba's cache at a
folder keyed by a hash of every source file of ``engines`` and ``agents`` (where the kernels
live)
(``~/.cache/boardlab/numba/<hash>``, or under ``$BOARDLAB_CACHE_DIR``): any edit starts a
fresh cache. An explicit ``NUMBA_CACHE_DIR`` is respected as it is. Inside that folder
:mod:`engines.jit_cache` files the code by package path and source hash, not by the checkout's
absolute path, so every clone of the same source on a machine compiles it once. Caches of other
sources are pruned (:func:`prune_kernel_caches`: the 8 most recently used kept, and any used in
the last day).
"""

from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path


@functools.cache
def source_hash() -> str:
    """Hex digest (16 characters) of every source file of ``engines`` and ``agents``: what
    decides the games a seed gives. Keys Numba's cache folder and the runner's resume
    fingerprint (:mod:`experiments.runner`), so unrelated edits (README, results) never
    invalidate either. Computed once per process (the source this process imported)."""
    root = Path(__file__).resolve().parent.parent
    h = hashlib.sha1()
    for pkg in ("engines", "agents"):
        for path in sorted((root / pkg).rglob("*.py")):
            h.update(path.relative_to(root).as_posix().encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]


_OWN_CACHE_MARK = "BOARDLAB_NUMBA_CACHE_DIR"
"""Environment variable recording the cache folder this package chose (to tell it from a
``NUMBA_CACHE_DIR`` the user set)."""


def _configure_numba_cache() -> None:
    """Point Numba's cache at ``<base>/numba/<source_hash()>``. Before Numba is imported this
    only sets ``NUMBA_CACHE_DIR`` (importing Numba costs half a second that ``--help`` must not
    pay); worker processes inherit it. A ``NUMBA_CACHE_DIR`` set by the user is kept."""
    import sys

    env = os.environ.get("NUMBA_CACHE_DIR")
    if env and env != os.environ.get(_OWN_CACHE_MARK):
        return
    base = Path(os.environ.get("BOARDLAB_CACHE_DIR", Path.home() / ".cache" / "boardlab"))
    folder = base / "numba" / source_hash()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:  # no writable home: keep Numba's default (next to the sources)
        return
    os.environ["NUMBA_CACHE_DIR"] = os.environ[_OWN_CACHE_MARK] = str(folder)
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(folder)
    _install_locator_with_numba()
    if not env:  # the first process of a run (workers inherit the folder): housekeeping
        prune_kernel_caches(folder)


KEEP_CACHES = 8
"""Kernel caches of other sources kept besides the current one (the most recently used)."""
KEEP_DAYS = 1.0
"""A kernel cache used within this many days is never deleted (another checkout may be using
it)."""


def prune_kernel_caches(current: Path, keep: int = KEEP_CACHES, keep_days: float = KEEP_DAYS
                        ) -> list[Path]:
    """Mark ``current`` (a ``<base>/numba/<source hash>`` folder) as used now and delete the
    caches of other sources beyond the ``keep`` most recently used, unless used within
    ``keep_days`` days. Every edit of ``engines``/``agents`` starts a new cache (60-130 MB), so
    without this a working copy fills the disk. Only folders named like a source hash (16 hex
    digits) are touched; errors (a folder in use, no permission) are ignored. Returns the
    folders deleted."""
    import re
    import shutil
    import time

    try:
        os.utime(current)
        others = [p for p in current.parent.iterdir()
                  if p != current and p.is_dir() and re.fullmatch(r"[0-9a-f]{16}", p.name)]
        used = {p: p.stat().st_mtime for p in others}
    except OSError:
        return []
    old = sorted(others, key=used.get, reverse=True)[keep:]
    cutoff = time.time() - keep_days * 86400
    gone = [p for p in old if used[p] < cutoff]
    for p in gone:
        shutil.rmtree(p, ignore_errors=True)
    return gone


class _AfterNumbaImport:
    """Meta path finder that calls :meth:`loaded` with Numba module :attr:`MODULE` right after
    it is first imported, once, so importing :mod:`engines` alone never imports Numba."""

    MODULE = ""

    def find_spec(self, name, path=None, target=None):
        if name != self.MODULE:
            return None
        import importlib.machinery
        import sys

        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name, path)
        if spec is None or spec.loader is None:
            return spec
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            self.loaded(module)
        spec.loader.exec_module = exec_module
        return spec

    def loaded(self, module) -> None:
        """What to do once :attr:`MODULE` is imported (``module``, the module object)."""

    @classmethod
    def arm(cls) -> None:
        """Call :meth:`loaded` now if :attr:`MODULE` is imported, else put this finder first on
        ``sys.meta_path`` (once) so that it is called right after the module's first import."""
        import sys

        module = sys.modules.get(cls.MODULE)
        if module is not None:
            cls().loaded(module)
        elif not any(isinstance(f, cls) for f in sys.meta_path):
            sys.meta_path.insert(0, cls())


class _AfterNumbaCaching(_AfterNumbaImport):
    """Installs :func:`engines.jit_cache.install` right after ``numba.core.caching`` is first
    imported (before any kernel is decorated)."""

    MODULE = "numba.core.caching"

    def loaded(self, module) -> None:
        import sys

        jit_cache = sys.modules.get("engines.jit_cache")
        if jit_cache is not None and not hasattr(jit_cache, "install"):
            # engines.jit_cache itself is importing Numba: it installs when it is done
            global _locator_deferred
            _locator_deferred = True
            return
        from engines.jit_cache import install

        install()


_locator_deferred = False
"""True when Numba's caching module was first imported by :mod:`engines.jit_cache` itself (the
locator is then installed at the end of that module)."""


def _install_locator_with_numba() -> None:
    """Install the checkout-independent cache locator now if Numba's caching module is loaded,
    else as soon as it is."""
    _AfterNumbaCaching.arm()


class _AfterNumbaDispatcher(_AfterNumbaImport):
    """Installs :func:`engines.jit_literals.install` right after ``numba.core.dispatcher`` is
    first imported (before any kernel is decorated, let alone compiled)."""

    MODULE = "numba.core.dispatcher"

    def loaded(self, module) -> None:
        from engines.jit_literals import install

        install(module)


def _install_literal_erasure() -> None:
    """Compile the rules cores' and policies' kernels once per argument type
    (:mod:`engines.jit_literals`): now if Numba's dispatcher module is loaded, else as soon as
    it is."""
    _AfterNumbaDispatcher.arm()


MOVED_MODULES = {
    "engines.kernels": "engines.protocol.kernels",
    "engines.chance": "engines.protocol.chance",
    "engines.bits": "engines.protocol.bits",
    "engines.borrow": "engines.protocol.borrow",
    "engines.hints": "engines.protocol.hints",
    "engines.poker_reference": "engines.poker.reference",
    "engines.dice_reference": "engines.dice.reference",
}
"""Old module name -> its place since the engines were grouped in folders. The old names still
import, with a ``DeprecationWarning``, for one release (:class:`_MovedModules`)."""


class _MovedModules:
    """Meta path finder serving the old names of :data:`MOVED_MODULES`: ``import
    engines.chance`` (and ``from engines import chance``) gives the module
    :mod:`engines.protocol.chance` itself, after a ``DeprecationWarning`` naming the new place."""

    def find_spec(self, name, path=None, target=None):
        if name not in MOVED_MODULES:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec):
        import importlib
        import warnings

        new = MOVED_MODULES[spec.name]
        warnings.warn(f"{spec.name} is deprecated: it moved to {new}", DeprecationWarning,
                      stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module):
        """Nothing to run: the module is the moved one, already imported."""


def _install_moved_modules() -> None:
    import sys

    if not any(isinstance(f, _MovedModules) for f in sys.meta_path):
        sys.meta_path.append(_MovedModules())


_configure_numba_cache()
_install_literal_erasure()
_install_moved_modules()
