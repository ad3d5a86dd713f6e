"""The search space of ``boardlab tune``: which parameters of an agent's vector are tuned
and over which ranges (the rules are in :mod:`experiments.tournament.tune`'s docstring,
"Search space")."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from experiments.tournament.games import get_adapter

__all__ = ["INTEGER_PARAMS", "FIXED_PARAMS", "Param", "parse_bounds", "search_space"]

INTEGER_PARAMS = ("simulations", "horizon", "max_rollout", "whole_tree")
"""Parameters that count something: tuned as integers when default and bounds are integral."""


FIXED_PARAMS = ("rollout_kind", "peek", "reserved_7")
"""Structural parameters of the search agents, never tuned (a policy id, a cheating flag)."""
SEARCH_TUNED_BY_DEFAULT = ("exploration",)
"""The search agents' parameters tuned by default besides their leaf-value weights."""


@dataclass(frozen=True)
class Param:
    """One tuned parameter: ``name``, ``index`` in the agent's vector, range ``low..high``,
    ``integer`` (tuned as an integer), ``start`` (its starting value) and ``source`` of the
    range (``"game"``: the adapter's family bounds, ``"rule"``: [d/4, 4d], ``"user"``)."""

    name: str
    index: int
    low: float
    high: float
    integer: bool
    start: float
    source: str

    def distribution(self):
        """The optuna distribution (``IntDistribution`` or ``FloatDistribution``)."""
        from optuna.distributions import FloatDistribution, IntDistribution

        if self.integer:
            return IntDistribution(int(self.low), int(self.high))
        return FloatDistribution(float(self.low), float(self.high))

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"name": self.name, "index": self.index, "low": self.low, "high": self.high,
                "integer": self.integer, "start": self.start, "source": self.source}


def parse_bounds(text: str | None) -> dict[str, tuple[float, float]]:
    """``--bounds`` text ``a=lo:hi,b=lo:hi`` -> ``{name: (lo, hi)}``. Raises a one-line
    ``ValueError`` naming ``--bounds`` and the bad entry."""
    out: dict[str, tuple[float, float]] = {}
    if text is None:
        return out
    for item in (t.strip() for t in str(text).split(",")):
        if not item:
            continue
        name, eq, rng = item.partition("=")
        lo, colon, hi = rng.partition(":")
        try:
            pair = (float(lo), float(hi))
        except ValueError:
            pair = None
        if not eq or not colon or not name.strip() or pair is None:
            raise ValueError(f"--bounds {item!r}: expected NAME=LO:HI with numbers, e.g. "
                             f"pass_bias=-8:0")
        if name.strip() in out:
            raise ValueError(f"--bounds gives {name.strip()!r} twice")
        out[name.strip()] = pair
    return out


def _integral(x: float) -> bool:
    return bool(np.isfinite(x)) and float(x) == math.floor(x)


def _rule_range(name: str, d: float) -> tuple[float, float] | None:
    """The documented default range of a parameter outside the heuristic families."""
    if d == 0 or not np.isfinite(d):
        return None
    if name in INTEGER_PARAMS and _integral(d) and d > 0:
        return float(max(1, math.ceil(d / 4))), float(4 * d)
    lo, hi = d / 4, 4 * d
    return (min(lo, hi), max(lo, hi))


def search_space(game: str, base: str, start, tune_params=None, bounds=None) -> list[Param]:
    """The tuned parameters of policy ``base`` (a registered or user policy of ``game``, not a
    saved agent's name) starting from the vector ``start``, with their ranges (see the module
    docstring). ``tune_params``: names (list, or comma-separated text), default the base's
    default set; ``bounds``: ``{name: (lo, hi)}`` overrides.

    Raises a one-line ``ValueError`` for an unknown, repeated or structural name, bounds that
    are not finite, not ``lo < hi``, or exclude the starting value, a parameter without a
    default range and no bounds, or nothing left to tune."""
    from agents.policy import get_spec
    from agents.layout import LEAF_VALUE_AT, N_VALUE, ROLLOUT_AT

    ad = get_adapter(game)
    x0 = np.asarray(start, dtype=np.float64)
    names = list(ad.param_names_for(base))
    if len(names) != x0.size:
        names = [f"param_{i}" for i in range(x0.size)]
    spec = get_spec(ad.name, base) if base in ad.shipped else None
    is_search = bool(spec is not None and spec.search)
    family = dict(zip(ad.param_names, ad.param_bounds, strict=True))
    in_family = tuple(names) == tuple(ad.param_names)
    roll = names[ROLLOUT_AT:] if is_search else []
    roll_family = is_search and [n[len("rollout_"):] for n in roll] == list(ad.param_names)
    if x0.size == 0:
        raise ValueError(f"{ad.title} agent {base!r} has no tunable parameters (its parameter "
                         f"vector is empty)")
    bounds = dict(bounds or {})
    what = f"{ad.title} {base}"

    def family_range(n):
        if in_family and n in family:
            return family[n]
        if roll_family and n in roll:
            return family[n[len("rollout_"):]]
        return None

    for n in bounds:
        if n not in names:
            raise ValueError(f"--bounds names unknown parameter {n!r} of {what}: expected one "
                             f"of {', '.join(names)}")
    if tune_params is None:
        chosen = []
        for i, n in enumerate(names):
            if n in FIXED_PARAMS:
                continue
            if is_search and not (n in SEARCH_TUNED_BY_DEFAULT
                                  or (LEAF_VALUE_AT <= i < LEAF_VALUE_AT + N_VALUE
                                      and not n.startswith("value_"))):
                continue
            if family_range(n) is not None or _rule_range(n, x0[i]) is not None:
                chosen.append(n)
        chosen += [n for n in bounds if n not in chosen]
        chosen.sort(key=names.index)
    else:
        chosen = ([p.strip() for p in tune_params.split(",") if p.strip()]
                  if isinstance(tune_params, str) else [str(p) for p in tune_params])
        for p in chosen:
            if p not in names:
                raise ValueError(f"unknown parameter {p!r} of {what} (--params): expected one "
                                 f"of {', '.join(names)}")
        dup = sorted({p for p in chosen if chosen.count(p) > 1})
        if dup:
            raise ValueError(f"parameter(s) {dup} named twice in --params")
        extra = [n for n in bounds if n not in chosen]
        if extra:
            raise ValueError(f"--bounds gives {extra} which --params does not tune: add them "
                             f"to --params or drop their bounds")
    if not chosen:
        raise ValueError(f"{what}: no parameter has a default range: name some with --params "
                         f"and give their --bounds")
    out = []
    for n in chosen:
        i = names.index(n)
        d = float(x0[i])
        if n in FIXED_PARAMS:
            raise ValueError(f"parameter {n!r} of {what} is structural (the rollout policy's "
                             f"kind, the peek flag), not tunable")
        if n in bounds:
            lo, hi = (float(v) for v in bounds[n])
            if not (np.isfinite(lo) and np.isfinite(hi)) or not lo < hi:
                raise ValueError(f"--bounds {n}={lo:g}:{hi:g}: expected finite LO < HI")
            if not lo <= d <= hi:
                raise ValueError(f"--bounds {n}={lo:g}:{hi:g} exclude its starting value {d:g}: "
                                 f"widen them")
            source = "user"
        else:
            fr = family_range(n)
            if fr is not None:
                lo, hi = min(float(fr[0]), d), max(float(fr[1]), d)
                source = "game"
            else:
                rr = _rule_range(n, d)
                if rr is None:
                    raise ValueError(f"parameter {n!r} of {what} has default {d:g} and so no "
                                     f"default range: give one with --bounds {n}=LO:HI")
                lo, hi = rr
                source = "rule"
        integer = (n in INTEGER_PARAMS and not (in_family or family_range(n) is not None)
                   and _integral(d) and _integral(lo) and _integral(hi))
        out.append(Param(n, i, lo, hi, integer, d, source))
    return out
