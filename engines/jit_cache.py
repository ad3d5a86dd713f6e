"""Numba's on-disk cache shared by every checkout of the same source on a machine.

Numba files a ``cache=True`` function's machine code under a folder named after the absolute
path of its source file and trusts it while the file's modification time and size are
unchanged. A fresh clone, a second worktree or a CI checkout of the very same code therefore
compiles everything again (about a minute and a half for one River Rats table). Our cache folder
is already keyed by :func:`engines.source_hash` (every source file of ``engines`` and
``agents``), so for the files of those two packages this locator files the code under
``<cache>/<package path relative to the checkout>`` and uses the source hash as the freshness
stamp: any checkout of the same source loads what another compiled, and any edit still misses
(the folder and the stamp both change). Numba's index key also holds each function's bytecode,
so nothing stale can load.

Used only when the cache folder is the one :mod:`engines` chose; with a ``NUMBA_CACHE_DIR`` of
the user's own, and for files outside ``engines`` and ``agents`` (notebooks, user policies),
Numba's own locators apply unchanged. Implements Numba's cache-locator extension point
(``numba.core.caching.CacheImpl._locator_classes``, a ``_CacheLocator`` subclass).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from numba.core import caching, config

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("engines", "agents")
_BASE = getattr(caching, "UserProvidedCacheLocator", None) or caching._UserProvidedCacheLocator
_IMPL = getattr(caching, "CacheImpl", None) or caching._CacheImpl


@functools.cache
def _package_subpath(py_file: str) -> str | None:
    """Folder of ``py_file`` relative to the checkout (``engines/river_rats``), or None when
    the file is not in ``engines`` or ``agents`` of this checkout (once per file: every
    cached function of a module asks, twice)."""
    try:
        rel = Path(py_file).resolve().relative_to(_ROOT)
    except ValueError:
        return None
    if not rel.parts or rel.parts[0] not in _PACKAGES:
        return None
    return rel.parent.as_posix()


class SourceHashLocator(_BASE):
    """Cache locator for the functions of ``engines`` and ``agents``: folder
    ``<NUMBA_CACHE_DIR>/<package path>``, freshness stamp :func:`engines.source_hash` (not the
    file's path and modification time), so every checkout of the same source shares it."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        self._cache_path = os.path.join(config.CACHE_DIR, "src", _package_subpath(py_file))

    def get_source_stamp(self):
        """The source hash of ``engines`` and ``agents`` (a str)."""
        from engines import source_hash

        return source_hash()

    @classmethod
    def from_function(cls, py_func, py_file):
        """This locator for a function of ``engines``/``agents`` when the cache folder is the
        one :mod:`engines` chose, else None (Numba tries its own locators)."""
        from engines import _OWN_CACHE_MARK

        if not config.CACHE_DIR or config.CACHE_DIR != os.environ.get(_OWN_CACHE_MARK):
            return None
        if _package_subpath(py_file) is None:
            return None
        return super().from_function(py_func, py_file)


def install() -> None:
    """Put :class:`SourceHashLocator` first among Numba's cache locators (idempotent)."""
    if SourceHashLocator not in _IMPL._locator_classes:
        _IMPL._locator_classes.insert(0, SourceHashLocator)


def _install_if_deferred() -> None:
    """Install the locator now if importing this module was what first imported Numba's caching
    module (the import hook of :mod:`engines` could not reach :func:`install` then)."""
    import engines

    if engines._locator_deferred:
        install()


_install_if_deferred()
