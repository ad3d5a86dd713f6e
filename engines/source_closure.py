"""Which sources a compiled kernel may link: the shared files and one game's own files.

Three kinds of file, three closures:

- a game's file (``engines/<game>/...``, ``agents/<game>.py``, ``agents/<game>_*.py``): the
  shared files and that game's files;
- a shared file that may reach a game's code (it, or a module it imports from, looks modules up
  by name: ``importlib.import_module``, the by-game dispatch of the protocol and the agents):
  every file;
- any other shared file (chance, the poker evaluator, the dice checker, bit tricks...): the
  shared files only, so an edit to one game recompiles neither those nor the other games.

Used without Numba (importing it costs nothing): by :mod:`engines.kernel_cache` to stamp and
file compiled code, by :func:`engines.prune_kernel_caches` to keep the folders of the current
sources, and by :func:`engines.source_hash` (the fingerprint of everything).
"""

from __future__ import annotations

import ast
import functools
import hashlib
from pathlib import Path

__all__ = ["ROOT", "PACKAGES", "games", "game_of_file", "closure_hash", "current_closures",
           "closure_of_file", "SHARED"]

SHARED = "shared"
"""The closure name of the shared files alone (:func:`closure_of_file`)."""

ROOT = Path(__file__).resolve().parent.parent
"""The checkout (or installed tree) holding ``engines`` and ``agents``."""
PACKAGES = ("engines", "agents")
"""The packages whose sources compiled kernels come from."""


@functools.cache
def games() -> tuple[str, ...]:
    """The game packages: folders of ``engines`` with a rules core (``core.py``)."""
    return tuple(sorted(p.parent.name for p in (ROOT / "engines").glob("*/core.py")
                        if p.parent.name != "protocol"))


def game_of_file(relative: str) -> str | None:
    """The game a source file (path relative to the checkout, ``/``-separated) belongs to, or
    None for a shared file."""
    parts = relative.split("/")
    names = games()
    if len(parts) >= 3 and parts[0] == "engines" and parts[1] in names:
        return parts[1]
    if len(parts) == 2 and parts[0] == "agents":
        stem = parts[1].removesuffix(".py")
        for g in names:
            if stem == g or stem.startswith(g + "_"):
                return g
    return None


@functools.cache
def _sources() -> dict[str, bytes]:
    """Every ``.py`` file of ``engines`` and ``agents``: relative path -> bytes (read once)."""
    return {p.relative_to(ROOT).as_posix(): p.read_bytes()
            for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))}


@functools.cache
def closure_hash(game: str | None) -> str:
    """16 hex digits: the hash of the shared files and ``game``'s own files (``game`` None:
    of every file; :data:`SHARED`: of the shared files alone), paths and contents."""
    digest = hashlib.sha1()
    for rel, data in _sources().items():
        owner = game_of_file(rel)
        if game is None or owner is None or owner == game:
            digest.update(rel.encode())
            digest.update(data)
    return digest.hexdigest()[:16]


def current_closures() -> set[str]:
    """The closure hashes of the current sources: every game's, the shared files' and the one
    of everything."""
    return {closure_hash(None), closure_hash(SHARED)} | {closure_hash(g) for g in games()}


def _module_file(module: str) -> str | None:
    """The source file (relative path) of a dotted module name of ours, or None."""
    rel = module.replace(".", "/")
    sources = _sources()
    for candidate in (rel + ".py", rel + "/__init__.py"):
        if candidate in sources:
            return candidate
    return None


@functools.cache
def _parsed(rel: str) -> tuple[frozenset[str], bool]:
    """What file ``rel`` imports from (the files of ours: ``import x.y``, ``from x import y``
    with ``y`` a submodule or a name of ``x``, anywhere in the file, function bodies included),
    and whether it looks a module up by name (a call of ``import_module``)."""
    found, by_name = set(), False
    try:
        tree = ast.parse(_sources()[rel])
    except SyntaxError:  # a file being edited: assume the worst (it reaches every game)
        return frozenset(), True
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            by_name = by_name or name == "import_module"
            continue
        if isinstance(node, ast.Import):
            targets = [_module_file(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            targets = [_module_file(f"{node.module}.{a.name}") or _module_file(node.module)
                       for a in node.names]
        else:
            continue
        found.update(t for t in targets if t is not None and t != rel)
    return frozenset(found), by_name


@functools.cache
def _reaches_games(rel: str) -> bool:
    """True when ``rel`` or a file it imports from (transitively) is a game's file or looks
    modules up by name."""
    seen, todo = set(), [rel]
    while todo:
        f = todo.pop()
        if f in seen:
            continue
        seen.add(f)
        imports, by_name = _parsed(f)
        if game_of_file(f) is not None or by_name:
            return True
        todo.extend(imports)
    return False


def closure_of_file(relative: str) -> str | None:
    """The closure a file's compiled code is stamped with: its game's name, :data:`SHARED`, or
    None (every file); see the module docstring."""
    game = game_of_file(relative)
    if game is not None:
        return game
    if relative not in _sources() or _reaches_games(relative):
        return None
    return SHARED
