"""Plain-Python reference of the Lure catch test (a slow, obvious oracle for :mod:`engines.dice`).

Implements the requirement table of ``docs/rules/lure.md`` (*Fish cards*) literally, and
exact probabilities by brute force over every ordered outcome of every die (``itertools
.product``) and, for adjust lures, over every sequence of single-face steps (each adjust
moves one die by +-1 within its faces, or, when allowed, is left unused).
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

SPECIAL = {12, 20, 4}


def meets(values, n_special: int, lure_used: bool, catch_number: int, requirements) -> bool:
    """True when ``values`` (all dice and extra-die lures, ints) meet a card.

    ``requirements``: codes as in the deck file (``"pair"``, ``"has:1,5"``, ...).
    """
    if sum(values) < catch_number:
        return False
    counts = Counter(values)
    for code in requirements:
        if code.startswith("has:"):
            need = Counter(int(v) for v in code[4:].split(","))
            if any(counts[v] < n for v, n in need.items()):
                return False
        elif code == "pair":
            if not any(n >= 2 for n in counts.values()):
                return False
        elif code == "distinct":
            if any(n >= 2 for n in counts.values()):
                return False
        elif code == "lure":
            if not lure_used:
                return False
        elif code == "no_lure":
            if lure_used:
                return False
        elif code == "special2":
            if n_special < 2:
                return False
        elif code == "odd":
            if any(v % 2 == 0 for v in values):
                return False
        elif code == "even":
            if any(v % 2 == 1 for v in values):
                return False
        elif code == "stubborn":
            pass
        else:
            raise ValueError(f"unknown requirement {code!r}")
    return True


def reachable(roll, faces, n_adjust: int, may_be_unused: bool = True) -> set:
    """Every roll reachable from ``roll`` with ``n_adjust`` adjust lures (step by step)."""
    current = {tuple(roll)}
    for _ in range(n_adjust):
        nxt = set(current) if may_be_unused else set()
        for r in current:
            moved = False
            for i, f in enumerate(faces):
                for d in (-1, 1):
                    v = r[i] + d
                    if 1 <= v <= f:
                        nxt.add(r[:i] + (v,) + r[i + 1:])
                        moved = True
            if not moved:  # no die to adjust: the adjust is discarded unused
                nxt.add(r)
        current = nxt
    return current


def probability(catch_number: int, requirements, n_d6: int = 0, d12=False, d20=False, d4=False,
                extras=(), n_adjust: int = 0, boosts: int = 0, may_be_unused: bool = True
                ) -> Fraction:
    """Exact catch probability by brute force over ordered outcomes (a ``Fraction``)."""
    faces = [6] * n_d6 + [f for f, on in ((12, d12), (20, d20), (4, d4)) if on]
    n_special = len(faces) - n_d6
    lure_used = bool(extras) or n_adjust > 0 or boosts > 0
    hits = 0
    total = 0
    for roll in itertools.product(*[range(1, f + 1) for f in faces]):
        total += 1
        for r in reachable(roll, faces, n_adjust, may_be_unused):
            if meets(list(r) + list(extras), n_special, lure_used, catch_number, requirements):
                hits += 1
                break
    return Fraction(hits, total)
