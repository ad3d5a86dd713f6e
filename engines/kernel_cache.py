"""Where Numba caches the compiled kernels: one folder per game's source closure.

Numba files a ``cache=True`` function's machine code with a freshness stamp of the function's
own source file only ("Cache invalidation fails to recognize changes in symbols defined in a
different file", Numba's notes on caching), yet a kernel links the code of what it calls: a
rules core links the evaluator, a game's policy links its core, the game loop links everything
of its game. So this package stamps compiled code by the sources it may link, grouped by game:

- a file of one game (``engines/<game>/...``, ``agents/<game>.py``, ``agents/<game>_*.py``)
  gets the hash of that game's files and of every shared file (``engines/protocol``, the poker
  evaluator, the dice checker, the shared parts of ``agents``): an edit to one game's files
  recompiles that game only;
- a shared file gets the hash of every file of ``engines`` and ``agents``: its compiled
  functions may be specialized for any game.

The code is filed under ``<NUMBA_CACHE_DIR>/<that hash>/<package path>``, independent of the
checkout's absolute path, so every clone of the same sources on a machine compiles them once.
Files outside ``engines`` and ``agents`` (notebooks, user policies) keep Numba's own locators.

:class:`SourceClosureLocator` is installed the way Numba documents (its notes on caching, "Cache
Locators"): :mod:`engines` sets ``NUMBA_CACHE_LOCATOR_CLASSES`` to it followed by Numba's own
locators, and ``NUMBA_CACHE_DIR`` to the kernel cache folder, before Numba reads them; a user
who sets either variable keeps Numba's behaviour.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

from numba.core import config
from numba.core.caching import UserProvidedCacheLocator

from engines import NUMBA_LOCATORS
from engines.source_closure import PACKAGES, ROOT, closure_hash, closure_of_file

__all__ = ["SourceClosureLocator", "LOCATOR_CLASSES"]

LOCATOR_CLASSES = tuple(NUMBA_LOCATORS.split(","))
"""``NUMBA_CACHE_LOCATOR_CLASSES`` as :mod:`engines` sets it (:data:`engines.NUMBA_LOCATORS`)."""


@functools.cache
def _relative(py_file: str) -> str | None:
    """``py_file`` relative to the checkout when it is a file of ``engines`` or ``agents``."""
    try:
        rel = Path(py_file).resolve().relative_to(ROOT)
    except ValueError:
        return None
    return rel.as_posix() if rel.parts and rel.parts[0] in PACKAGES else None


@functools.cache
def _mark_used(folder: str) -> None:
    """Touch a closure folder once per process (pruning keeps the recently used ones)."""
    try:
        os.makedirs(folder, exist_ok=True)
        os.utime(folder)
    except OSError:
        pass


class SourceClosureLocator(UserProvidedCacheLocator):
    """Numba cache locator for the compiled functions of ``engines`` and ``agents``: folder
    ``<NUMBA_CACHE_DIR>/<closure hash>/<package path>``, freshness stamp the closure hash
    (:func:`closure_hash` of the file's game, or of everything for a shared file)."""

    def __init__(self, py_func, py_file):
        super().__init__(py_func, py_file)
        rel = _relative(py_file)
        self.closure = closure_hash(closure_of_file(rel))
        top = os.path.join(config.CACHE_DIR, self.closure)
        _mark_used(top)
        self.folder = os.path.join(top, str(Path(rel).parent.as_posix()))

    def get_cache_path(self):
        """The folder of this function's index and object files."""
        return self.folder

    def get_source_stamp(self):
        """The closure hash (a str): equal exactly when the sources this code may link are."""
        return self.closure

    @classmethod
    def from_function(cls, py_func, py_file):
        """This locator for a function of ``engines``/``agents`` while the cache folder is the
        one :mod:`engines` chose, else None (Numba's next locator decides)."""
        from engines import OWN_CACHE_MARK

        if not config.CACHE_DIR or config.CACHE_DIR != os.environ.get(OWN_CACHE_MARK):
            return None
        if _relative(py_file) is None:
            return None
        return super().from_function(py_func, py_file)
