"""Compile-time convention (docs/adding_a_game.md, the rules core): a private compiled helper
called from exactly one place in engines/ and agents/ is ``@njit(cache=True, inline="always")``.

Numba compiles every function reached through a call as a module of its own that links,
optimizes again and turns into machine code again everything below it; a helper inlined into
its one caller costs nothing of that (River Rats' rules core: 15.3 s -> 11.1 s to compile on the
2-core development machine). Helpers with two or more callers stay separate (inlining copies
them into each caller)."""
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Private helpers called at one place that stay compiled on their own, and why.
KEPT_SEPARATE = {
    # Numba's inliner fails on it inside net_pimc's inlined values ("Cannot bind ... too many
    # positional arguments"; numba 0.6x), tests/test_inference.py fails.
    "_evidence": "numba inliner bug",
}


def _sources():
    return {p: p.read_text() for d in ("engines", "agents", "experiments")
            for p in (ROOT / d).rglob("*.py")}


def single_site_helpers(texts):
    """Names of private ``@njit(cache=True)`` functions of engines/ and agents/ defined once
    and mentioned exactly once more (one call, not passed as a value or imported)."""
    defs = [m.group(1) for p, t in texts.items()
            if p.parts[len(ROOT.parts)] in ("engines", "agents")
            for m in re.finditer(r"^@njit\(cache=True\)\ndef (_\w+)\(", t, re.M)]
    # every word and every call of every file counted once (not one scan of the sources per
    # helper): a call is a name followed by "(" and preceded by nothing of a longer name or
    # by a ".", as in ``_h(`` and ``C._h(``
    mentions, calls = Counter(), Counter()
    for t in texts.values():
        mentions.update(re.findall(r"\b\w+\b", t))
        calls.update(m.group(1) for m in re.finditer(r"(?:(?<![\w.])|(?<=\.))(\w+)\(", t))
    out = []
    for name in defs:
        if defs.count(name) > 1:
            continue
        if calls[name] == 2 and mentions[name] == 2:
            out.append(name)
    return out


def test_private_helpers_called_once_are_inlined():
    missing = [n for n in single_site_helpers(_sources()) if n not in KEPT_SEPARATE]
    assert not missing, (f"mark these @njit(cache=True, inline=\"always\") (one caller each), or "
                         f"say in KEPT_SEPARATE why not: {missing}")


def test_the_check_finds_a_helper_called_once():
    fake = {ROOT / "engines" / "x.py": "@njit(cache=True)\ndef _h(a):\n    return a\n\n"
                                        "def f(a):\n    return _h(a)\n"}
    assert single_site_helpers(fake) == ["_h"]
    fake[ROOT / "agents" / "y.py"] = "def g(a):\n    return _h(a)\n"
    assert single_site_helpers(fake) == []
