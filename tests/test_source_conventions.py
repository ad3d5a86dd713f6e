"""Conventions of the sources of ``engines/``, ``agents/`` and ``experiments/``, checked over
every module (the developers' guide: small modules of one purpose; no private name used
across modules; comments say what and why, figures live in ``docs/benchmarks.md``, issue
numbers in commit messages):

(a) no module over :data:`MAX_LINES` lines, except the files of :data:`LONG_MODULES`, each
    with the reason it stays long;
(b) no private name (one leading underscore) of another boardlab module imported
    (``from engines.x import _name``) or read through a module (``x._name``), except the
    files of :data:`PRIVATE_IMPORTS`;
(c) no issue number ("issue 12"), commit hash or timing figure ("12.3 s", "4x faster") in a
    docstring or comment, except the files of :data:`MENTIONS`.

Each check is also run on a planted violation (a synthetic source), so that it is seen to
catch what it looks for.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "agents", "experiments")
PROJECT = PACKAGES
MAX_LINES = 600

ENGINES_AGENTS = ("a game's rules core or policies in one compiled module: to split with the "
                  "redesign of each game into one registered object")
LONG_MODULES = {
    "engines/dice/checker.py": ENGINES_AGENTS,
    "engines/lure/core.py": ENGINES_AGENTS,
    "engines/rats/core.py": ENGINES_AGENTS,
    "engines/recurring/core.py": ENGINES_AGENTS,
    "engines/river_rats/core.py": ENGINES_AGENTS,
    "agents/river_rats.py": ENGINES_AGENTS,
}
"""Modules allowed over :data:`MAX_LINES` lines, with the reason."""

PRIVATE_IMPORTS: dict[str, str] = {}
"""Modules allowed to use another module's private name, with the reason."""

MENTIONS: dict[str, str] = {}
"""Modules allowed an issue number, commit hash or timing figure in a comment or docstring,
with the reason."""


def _modules() -> list[Path]:
    return sorted(p for pkg in PACKAGES for p in (ROOT / pkg).rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ---- (a) module size -------------------------------------------------------------------------
def long_modules(paths) -> dict[str, int]:
    """``{path: lines}`` of the modules over :data:`MAX_LINES` lines (paths below the
    repository relative to it)."""
    out = {}
    for p in map(Path, paths):
        n = len(p.read_text().splitlines())
        if n > MAX_LINES:
            out[_rel(p) if p.is_relative_to(ROOT) else str(p)] = n
    return out


def test_no_module_over_the_line_limit_but_the_allowed_ones():
    found = long_modules(_modules())
    unexplained = {p: n for p, n in found.items() if p not in LONG_MODULES}
    assert not unexplained, f"modules over {MAX_LINES} lines: {unexplained}; split them"
    stale = sorted(set(LONG_MODULES) - set(found))
    assert not stale, f"allowed long but no longer long (drop them from LONG_MODULES): {stale}"


def test_the_size_check_catches_a_long_module(tmp_path):
    short = tmp_path / "short.py"
    short.write_text("x = 1\n" * MAX_LINES)
    long = tmp_path / "long.py"
    long.write_text("x = 1\n" * (MAX_LINES + 1))
    assert long_modules([str(short), str(long)]) == {str(long): MAX_LINES + 1}


# ---- (b) private names across modules --------------------------------------------------------
def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def private_uses(source: str) -> list[str]:
    """The private names of boardlab modules (:data:`PROJECT`) that ``source`` imports or reads
    through a module: ``["engines.x._name", ...]``."""
    tree = ast.parse(source)
    modules: dict[str, str] = {}  # local name -> boardlab module it stands for
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.split(".")[0] in PROJECT:
            for alias in node.names:
                if _is_private(alias.name):
                    found.append(f"{node.module}.{alias.name}")
                else:  # ``from experiments import notes``: maybe a module
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PROJECT:
                    modules[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0])
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            base = node.value
            while isinstance(base, ast.Attribute):  # engines.lure.core._x: the leftmost name
                base = base.value
            if isinstance(base, ast.Name) and base.id in modules:
                found.append(f"{ast.unparse(node.value)}.{node.attr}")
    return found


def test_no_private_name_is_used_across_modules():
    bad = {}
    for p in _modules():
        uses = private_uses(p.read_text())
        if uses and _rel(p) not in PRIVATE_IMPORTS:
            bad[_rel(p)] = uses
    assert not bad, f"private names used across modules: {bad}; make them public (with a " \
                    "docstring) or move the code"
    stale = sorted(p for p in PRIVATE_IMPORTS if not private_uses((ROOT / p).read_text()))
    assert not stale, f"allowed private imports but uses none (drop them): {stale}"


@pytest.mark.parametrize("source, expected", [
    ("from experiments.io import _jsonable\n", ["experiments.io._jsonable"]),
    ("from engines.lure import core as C\nC._step(1)\n", ["C._step"]),
    ("import experiments.tournament.tune as T\nT._storage\n", ["T._storage"]),
    ("import engines.lure.core\nengines.lure.core._hidden\n", ["engines.lure.core._hidden"]),
    ("from experiments import notes\nnotes._state['quiet']\n", ["notes._state"]),
    ("from experiments.io import read_json\nimport os\nos._exit(0)\n", []),
    ("from experiments.io import __all__\nclass A:\n    def f(self):\n        self._x = 1\n", []),
])
def test_the_private_name_check_catches_a_planted_use(source, expected):
    assert private_uses(source) == expected


# ---- (c) issue numbers, commit hashes, timings in comments and docstrings -------------------
MENTION_PATTERNS = {
    "issue number": re.compile(r"\bissues?\s*#?\d+", re.IGNORECASE),
    "commit hash": re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b"),
    # a number with a unit of time ("7s", "7h" without a space are cards: seven of spades)
    "timing figure": re.compile(
        r"\b\d+(?:\.\d+)?(?:\s?(?:ms|us|µs|secs?|seconds?|mins?|minutes?|hours?)|\s[sh])\b"
        r"|\b\d+(?:\.\d+)?\s?(?:x|×|times)\s+(?:faster|slower|quicker)\b"),
}


def _texts(source: str):
    """``(line, text)`` of every comment and docstring of ``source``."""
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            yield tok.start[0], tok.string
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                yield body[0].lineno, body[0].value.value
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):  # attribute docstrings
            yield node.lineno, node.value.value


def mentions(source: str) -> list[tuple[int, str, str]]:
    """``(line, kind, text)`` of every issue number, commit hash or timing figure in the
    comments and docstrings of ``source``."""
    found = set()
    for line, text in _texts(source):
        for kind, pattern in MENTION_PATTERNS.items():
            for m in pattern.finditer(text):
                found.add((line, kind, m.group(0)))
    return sorted(found)


def test_no_issue_number_hash_or_timing_in_comments_and_docstrings():
    bad = {}
    for p in _modules():
        found = mentions(p.read_text())
        if found and _rel(p) not in MENTIONS:
            bad[_rel(p)] = found
    assert not bad, f"issue numbers, hashes or timings in comments/docstrings: {bad}; issue " \
                    "numbers go in commit messages, figures in docs/benchmarks.md"


@pytest.mark.parametrize("source, kind", [
    ('"""Resolves issue 52."""\n', "issue number"),
    ("x = 1  # see Issue #7\n", "issue number"),
    ('def f():\n    """As of f7a7982 the cache is keyed."""\n', "commit hash"),
    ("# measured at commit 0123456789abcdef0123456789abcdef01234567\n", "commit hash"),
    ('class A:\n    """Compiles in 12.3 s on the VM."""\n', "timing figure"),
    ("y = 2  # 4x faster than the Python loop\n", "timing figure"),
    ('N = 3\n"""About 250 ms per call."""\n', "timing figure"),
])
def test_the_mention_check_catches_a_planted_mention(source, kind):
    assert [k for _, k, _ in mentions(source)] == [kind]


@pytest.mark.parametrize("source", [
    '"""The deal is the independent unit; 2 seats, 5 players, seed + 1."""\n',
    "x = '12.3 s'  # a string in code is output, not a comment\n",
    '"""Rules section 4: a card worth 3 points; sha256 of the deck."""\n',
    "# the decade of accessed defaced records\n",
])
def test_the_mention_check_passes_plain_text(source):
    assert mentions(source) == []
