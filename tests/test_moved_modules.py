"""The engines' old module names (before the folders by purpose) still import, as the moved
modules themselves, with a DeprecationWarning naming the new place (issue 28: old names kept
for a release)."""

from __future__ import annotations

import subprocess
import sys

import pytest

import engines

PROBE = """
import importlib, sys, warnings
old, new = sys.argv[1], sys.argv[2]
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    module = importlib.import_module(old)
assert module is importlib.import_module(new), (module, new)
messages = [str(w.message) for w in caught if w.category is DeprecationWarning]
assert any(old in m and new in m for m in messages), messages
from engines import {leaf}
assert {leaf} is module
print("ok")
"""


@pytest.mark.parametrize("old,new", sorted(engines.MOVED_MODULES.items()))
def test_an_old_module_name_is_the_moved_module_with_a_warning(old, new):
    leaf = old.rsplit(".", 1)[1]
    out = subprocess.run([sys.executable, "-c", PROBE.format(leaf=leaf), old, new],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_names_that_never_existed_still_fail():
    with pytest.raises(ModuleNotFoundError):
        __import__("engines.no_such_module")
