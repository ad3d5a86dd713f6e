"""boardlab uses Numba through its documented API only (docs/architecture.md, "Compiled code on
Numba's public API"): over the sources of engines/, agents/ and experiments/, no assignment to
an attribute of anything imported from Numba (no monkeypatching), no ``sys.meta_path`` hook, and
no Numba name with a leading underscore."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "agents", "experiments")


def violations(source: str) -> list[str]:
    """What in ``source`` (Python text) reaches into Numba's internals, one line each."""
    tree = ast.parse(source)
    numba_names: set[str] = set()
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "numba":
                    numba_names.add((alias.asname or alias.name).split(".")[0])
                    if any(part.startswith("_") for part in alias.name.split(".")):
                        found.append(f"line {node.lineno}: import {alias.name}")
        elif isinstance(node, ast.ImportFrom) and node.module and \
                node.module.split(".")[0] == "numba":
            if any(part.startswith("_") for part in node.module.split(".")):
                found.append(f"line {node.lineno}: from {node.module}")
            for alias in node.names:
                numba_names.add(alias.asname or alias.name)
                if alias.name.startswith("_"):
                    found.append(f"line {node.lineno}: {node.module}.{alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            root = node
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and root.id in numba_names:
                if node.attr.startswith("_") and not node.attr.startswith("__"):
                    found.append(f"line {node.lineno}: {root.id}...{node.attr}")
                if isinstance(node.ctx, (ast.Store, ast.Del)):
                    found.append(f"line {node.lineno}: assigns {root.id}...{node.attr}")
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id in ("setattr", "delattr") and node.args and \
                isinstance(node.args[0], ast.Name) and node.args[0].id in numba_names:
            found.append(f"line {node.lineno}: {node.func.id}({node.args[0].id}, ...)")
        if isinstance(node, ast.Attribute) and node.attr == "meta_path":
            found.append(f"line {node.lineno}: sys.meta_path")
    return found


def test_the_check_finds_what_it_forbids():
    bad = """
import sys
import numba
from numba.core import dispatcher, caching
from numba.core.caching import _CacheLocator
dispatcher.Dispatcher.get_call_template = None
caching.CacheImpl._locator_classes.insert(0, object)
numba.config.CACHE_DIR = "x"
setattr(dispatcher, "x", 1)
sys.meta_path.insert(0, object())
"""
    found = violations(bad)
    for expected in ("_CacheLocator", "assigns dispatcher...get_call_template",
                     "_locator_classes", "assigns numba...CACHE_DIR", "setattr(dispatcher",
                     "sys.meta_path"):
        assert any(expected in f for f in found), (expected, found)
    good = """
import os
from numba import njit, types
from numba.extending import overload
from numba.core.caching import UserProvidedCacheLocator
os.environ["NUMBA_CACHE_DIR"] = "x"
class Locator(UserProvidedCacheLocator):
    def __init__(self, f, p):
        super().__init__(f, p)
        self.folder = p
"""
    assert violations(good) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_no_source_reaches_into_numba_internals(package):
    bad = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        found = violations(path.read_text())
        if found:
            bad[path.relative_to(ROOT).as_posix()] = found
    assert not bad, bad
