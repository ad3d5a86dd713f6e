"""Compiled dice-condition checker and exact catch probabilities (Lure fish cards).

Implements the catch test of ``docs/rules/lure.md`` (sections *Fish cards* and *A round*,
step 3): a fish is caught when the sum of all dice, special dice and extra-die lures reaches its
**catch number** and every requirement holds.

Compiled condition vector (``int64``, length :data:`COND_LEN`), one row per card:

=========  ==========================================================================
index      meaning
=========  ==========================================================================
0 (CN)     catch number (minimum sum)
1 (FLAGS)  bit mask of requirements: 1 ``pair``, 2 ``distinct``, 4 ``lure``,
           8 ``no_lure``, 16 ``special2``, 32 ``odd``, 64 ``even``, 128 ``stubborn``
           (``stubborn`` changes who takes the fish, not whether a roll meets it)
2 (NHAS)   number of distinct values required by ``has:``
3..        ``MAX_HAS`` pairs (value, how many dice must show it)
=========  ==========================================================================

A *roll* is a row of an integer array of shape ``(n, k)``: the face shown by each of ``k`` dice
slots, ``-1`` for an unused slot. ``faces`` (shape ``(k,)``) gives the number of faces of each
slot: 6 for a d6, 12/20/4 for the special dice, 0 for an extra-die lure (a fixed value that is not
a die: it counts for sum and values but is not special and cannot be adjusted).

Exact probabilities enumerate the **multisets** of d6 faces (at most 252 for five d6) with their
multinomial weights ``n! / prod(c_i!) / 6^n``, times every face of each special die. Adjust lures
"applied in the best way" are handled by a breadth-first *ball* on the set of rolls: a roll is
caught with ``k`` adjusts when some roll within ``k`` single-face steps (never past a die's lowest
or highest face) meets the card; bit masks of met cards are OR-ed over neighbours ``k`` times.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from math import factorial

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
from engines.protocol.chance import next_u64

# ---------------------------------------------------------------- condition vector layout
CN = 0
FLAGS = 1
NHAS = 2
MAX_HAS = 6
COND_LEN = 3 + 2 * MAX_HAS

F_PAIR = 1
F_DISTINCT = 2
F_LURE = 4
F_NO_LURE = 8
F_SPECIAL2 = 16
F_ODD = 32
F_EVEN = 64
F_STUBBORN = 128

REQUIREMENT_FLAGS = {
    "pair": F_PAIR,
    "distinct": F_DISTINCT,
    "lure": F_LURE,
    "no_lure": F_NO_LURE,
    "special2": F_SPECIAL2,
    "odd": F_ODD,
    "even": F_EVEN,
    "stubborn": F_STUBBORN,
}
"""Requirement code -> flag bit (``has:`` is stored separately as value/count pairs)."""

MAX_VALUE = 20
"""Highest face of any die (the d20); values in ``has:`` must lie in 1..20."""

SPECIAL_FACES = (12, 20, 4)
"""Faces of the special dice, in the order of the special-dice bit mask (1 d12, 2 d20, 4 d4)."""

MAX_D6 = 5


def compile_condition(catch_number: int, requirements) -> np.ndarray:
    """Compile a card's catch number and requirement codes into a condition vector.

    Args:
        catch_number: minimum sum (int >= 0).
        requirements: iterable of codes from the rules' table: ``"pair"``, ``"distinct"``,
            ``"lure"``, ``"no_lure"``, ``"special2"``, ``"odd"``, ``"even"``, ``"stubborn"`` or
            ``"has:V[,V...]"`` (a value listed twice needs two dice showing it).

    Returns:
        ``int64`` array of shape ``(COND_LEN,)`` (layout in the module docstring).

    Raises:
        ValueError: unknown code, value outside 1..20, more than ``MAX_HAS`` distinct values,
            negative catch number, or contradictory requirements (pair+distinct, odd+even,
            lure+no_lure).
    """
    cond = np.zeros(COND_LEN, np.int64)
    cn = int(catch_number)
    if cn < 0:
        raise ValueError(f"catch number {catch_number!r} must be >= 0")
    cond[CN] = cn
    counts: dict[int, int] = {}
    flags = 0
    for code in requirements:
        code = str(code).strip().lower()
        if not code:
            continue
        if code.startswith("has:"):
            vals = [v.strip() for v in code[4:].split(",") if v.strip()]
            if not vals:
                raise ValueError(f"requirement {code!r}: 'has:' needs at least one value")
            for v in vals:
                if not v.isdigit() or not 1 <= int(v) <= MAX_VALUE:
                    raise ValueError(
                        f"requirement {code!r}: value {v!r} is not an integer in 1..{MAX_VALUE}")
                counts[int(v)] = counts.get(int(v), 0) + 1
        elif code in REQUIREMENT_FLAGS:
            flags |= REQUIREMENT_FLAGS[code]
        else:
            raise ValueError(
                f"unknown requirement {code!r}; expected one of "
                f"{sorted(REQUIREMENT_FLAGS)} or has:V[,V...]")
    for a, b in (("pair", "distinct"), ("odd", "even"), ("lure", "no_lure")):
        if flags & REQUIREMENT_FLAGS[a] and flags & REQUIREMENT_FLAGS[b]:
            raise ValueError(f"requirements {a!r} and {b!r} contradict each other")
    if flags & F_DISTINCT and any(c > 1 for c in counts.values()):
        raise ValueError("requirement 'distinct' contradicts a value listed twice in 'has:'")
    if flags & F_ODD and any(v % 2 == 0 for v in counts):
        raise ValueError("requirement 'odd' contradicts an even value in 'has:'")
    if flags & F_EVEN and any(v % 2 == 1 for v in counts):
        raise ValueError("requirement 'even' contradicts an odd value in 'has:'")
    if len(counts) > MAX_HAS:
        raise ValueError(f"'has:' lists {len(counts)} distinct values; at most {MAX_HAS}")
    cond[FLAGS] = flags
    cond[NHAS] = len(counts)
    for i, (v, c) in enumerate(sorted(counts.items())):
        cond[3 + 2 * i] = v
        cond[4 + 2 * i] = c
    return cond


# ---------------------------------------------------------------- compiled core
@njit_per_type
def condition_met(cond, c, total, maxcount, all_odd, all_even, nspecial, lure_used, counts):
    """True when roll features meet condition row ``c`` of ``cond`` (shape ``(C, COND_LEN)``).

    ``counts`` (int64, length ``MAX_VALUE + 1``) counts dice showing each value; the other
    arguments are the sum, the largest count, whether every value is odd / even, the number of
    special dice rolled and whether a lure was used. Rules: *Fish cards*, requirement table.
    """
    if total < cond[c, CN]:
        return False
    f = cond[c, FLAGS]
    if f != 0:
        if (f & F_PAIR) and maxcount < 2:
            return False
        if (f & F_DISTINCT) and maxcount > 1:
            return False
        if (f & F_LURE) and not lure_used:
            return False
        if (f & F_NO_LURE) and lure_used:
            return False
        if (f & F_SPECIAL2) and nspecial < 2:
            return False
        if (f & F_ODD) and not all_odd:
            return False
        if (f & F_EVEN) and not all_even:
            return False
    for h in range(cond[c, NHAS]):
        if counts[cond[c, 3 + 2 * h]] < cond[c, 4 + 2 * h]:
            return False
    return True


@njit(cache=True)
def _features(vals, nv, counts):
    """Sum, max count, all-odd, all-even of ``vals[:nv]``; fills ``counts`` (zeroed first)."""
    counts[:] = 0
    total = 0
    maxc = 0
    odd = True
    even = True
    for i in range(nv):
        v = vals[i]
        total += v
        counts[v] += 1
        if counts[v] > maxc:
            maxc = counts[v]
        if v & 1:
            even = False
        else:
            odd = False
    return total, maxc, odd, even


@njit(cache=True, inline="always")
def _check_kernel(rolls, faces, lure_used, cond, out):
    n, k = rolls.shape
    ncard = cond.shape[0]
    counts = np.zeros(MAX_VALUE + 1, np.int64)
    vals = np.zeros(k, np.int64)
    for i in range(n):
        nv = 0
        nspec = 0
        for j in range(k):
            v = rolls[i, j]
            if v >= 0:
                vals[nv] = v
                nv += 1
                fj = faces[j]
                if fj != 6 and fj != 0:
                    nspec += 1
        total, maxc, odd, even = _features(vals, nv, counts)
        for c in range(ncard):
            out[i, c] = condition_met(cond, c, total, maxc, odd, even, nspec, lure_used[i], counts)


def _prepare_rolls(rolls, faces, lure_used):
    rolls = np.ascontiguousarray(rolls, dtype=np.int64)
    if rolls.ndim != 2:
        raise ValueError(f"rolls must have shape (n, k); got shape {rolls.shape}")
    faces = np.ascontiguousarray(faces, dtype=np.int64)
    if faces.shape != (rolls.shape[1],):
        raise ValueError(f"faces must have shape ({rolls.shape[1]},); got {faces.shape}")
    bad = ~np.isin(faces, (0, 4, 6, 12, 20))
    if bad.any():
        raise ValueError(f"faces {faces[bad].tolist()} not in (0, 4, 6, 12, 20)")
    top = np.where(faces == 0, 6, faces)
    used = rolls >= 0
    if ((rolls < -1) | (used & ((rolls < 1) | (rolls > top[None, :])))).any():
        i, j = np.argwhere((rolls < -1) | (used & ((rolls < 1) | (rolls > top[None, :]))))[0]
        raise ValueError(f"rolls[{i}, {j}] = {rolls[i, j]} is not -1 or a face 1..{top[j]}")
    lure = np.broadcast_to(np.asarray(lure_used, dtype=np.bool_), (rolls.shape[0],))
    return rolls, faces, np.ascontiguousarray(lure)


def check(rolls, faces, lure_used, cond) -> np.ndarray:
    """Which rolls meet one card's conditions (compiled, vectorized).

    Args:
        rolls: integer array ``(n, k)``; face per slot, ``-1`` for an unused slot.
        faces: integer array ``(k,)``; 6, 12, 20, 4 for dice, 0 for an extra-die lure.
        lure_used: bool scalar or array ``(n,)``; whether the player used a lure that turn.
        cond: ``int64`` condition vector ``(COND_LEN,)`` from :func:`compile_condition`.

    Returns:
        ``bool`` array ``(n,)``.

    Raises:
        ValueError: wrong shapes, a face outside its die, an unknown die kind.
    """
    cond = np.ascontiguousarray(cond, dtype=np.int64).reshape(1, COND_LEN)
    return check_batch(rolls, faces, lure_used, cond)[:, 0]


def check_batch(rolls, faces, lure_used, conds) -> np.ndarray:
    """Which rolls meet which cards: ``bool`` array ``(n, cards)``.

    Same arguments as :func:`check`, with ``conds`` of shape ``(cards, COND_LEN)``.
    Rules: ``lure.md`` *Fish cards*. Raises ``ValueError`` on malformed input.
    """
    rolls, faces, lure = _prepare_rolls(rolls, faces, lure_used)
    conds = np.ascontiguousarray(conds, dtype=np.int64)
    if conds.ndim != 2 or conds.shape[1] != COND_LEN:
        raise ValueError(f"conds must have shape (cards, {COND_LEN}); got {conds.shape}")
    out = np.zeros((rolls.shape[0], conds.shape[0]), np.bool_)
    _check_kernel(rolls, faces, lure, conds, out)
    return out


# ---------------------------------------------------------------- d6 multisets
@cache
def d6_multisets(n: int):
    """Multisets of ``n`` d6 faces (``0 <= n <= 5``).

    Returns:
        ``(values, weights, neighbours)``: ``values`` int64 ``(m, n)`` sorted faces;
        ``weights`` float64 ``(m,)`` multinomial probabilities ``n!/prod(c!)/6^n`` (sum 1);
        ``neighbours`` int64 ``(m, 6, 2)``: index of the multiset reached by moving one die of
        face ``v+1`` down (``[..., 0]``) or up (``[..., 1]``) by one, ``-1`` when impossible.
    """
    if not 0 <= n <= MAX_D6:
        raise ValueError(f"number of d6 {n} not in 0..{MAX_D6}")
    from itertools import combinations_with_replacement

    ms = [tuple(c) for c in combinations_with_replacement(range(1, 7), n)]
    index = {m: i for i, m in enumerate(ms)}
    values = np.array(ms, np.int64).reshape(len(ms), n)
    weights = np.empty(len(ms))
    nbr = np.full((len(ms), 6, 2), -1, np.int64)
    for i, m in enumerate(ms):
        cnt = [m.count(v) for v in range(1, 7)]
        w = factorial(n)
        for c in cnt:
            w //= factorial(c)
        weights[i] = w / 6**n
        for v in range(1, 7):
            if cnt[v - 1] == 0:
                continue
            j = m.index(v)
            for d, nv in ((0, v - 1), (1, v + 1)):
                if 1 <= nv <= 6:
                    new = tuple(sorted(m[:j] + (nv,) + m[j + 1:]))
                    nbr[i, v - 1, d] = index[new]
    return values, weights, nbr


@cache
def _multiset_pack():
    """All multisets for n = 0..5 packed into flat arrays with offsets (for the kernels)."""
    offs = np.zeros(MAX_D6 + 2, np.int64)
    vals = np.zeros((0, MAX_D6), np.int64)
    ws = np.zeros(0)
    nb = np.zeros((0, 6, 2), np.int64)
    parts_v, parts_w, parts_n = [], [], []
    for n in range(MAX_D6 + 1):
        v, w, b = d6_multisets(n)
        pv = np.zeros((len(w), MAX_D6), np.int64)
        pv[:, :n] = v
        parts_v.append(pv)
        parts_w.append(w)
        parts_n.append(b)
        offs[n + 1] = offs[n] + len(w)
    vals = np.concatenate(parts_v)
    ws = np.concatenate(parts_w)
    nb = np.concatenate(parts_n)
    return offs, vals, ws, nb


# ---------------------------------------------------------------- exact enumeration
@njit(cache=True, inline="always")
def _class_masks(conds, n6, spec, extras, lure_flag, ms_off, ms_vals, masks):
    """Bit masks of cards met by every roll of one dice class (no adjusts).

    Roll index ``r = m * R + ((i12 * R20) + i20) * R4 + i4`` with ``R = R12 * R20 * R4``
    (``Rx`` = faces of special die x when used, else 1). ``masks``: uint64 ``(nrolls, W)``.
    """
    ncard = conds.shape[0]
    r12 = 12 if spec & 1 else 1
    r20 = 20 if spec & 2 else 1
    r4 = 4 if spec & 4 else 1
    nspec = (spec & 1) + ((spec >> 1) & 1) + ((spec >> 2) & 1)
    base = ms_off[n6]
    m_count = ms_off[n6 + 1] - base
    ne = extras.shape[0]
    vals = np.zeros(MAX_D6 + 3 + ne, np.int64)
    counts = np.zeros(MAX_VALUE + 1, np.int64)
    nw = masks.shape[1]
    r = 0
    for m in range(m_count):
        for i in range(n6):
            vals[i] = ms_vals[base + m, i]
        for i12 in range(r12):
            for i20 in range(r20):
                for i4 in range(r4):
                    nv = n6
                    if spec & 1:
                        vals[nv] = i12 + 1
                        nv += 1
                    if spec & 2:
                        vals[nv] = i20 + 1
                        nv += 1
                    if spec & 4:
                        vals[nv] = i4 + 1
                        nv += 1
                    for e in range(ne):
                        vals[nv] = extras[e]
                        nv += 1
                    total, maxc, odd, even = _features(vals, nv, counts)
                    for w in range(nw):
                        masks[r, w] = np.uint64(0)
                    for c in range(ncard):
                        if condition_met(conds, c, total, maxc, odd, even, nspec, lure_flag,
                                         counts):
                            masks[r, c >> 6] |= np.uint64(1) << np.uint64(c & 63)
                    r += 1


@njit(cache=True, inline="always")
def _ball_step(masks, out, n6, spec, ms_off, ms_nb, keep_self):
    """One adjust: ``out[r] = (masks[r] if keep_self) | OR of masks over one-step neighbours``.

    A roll with no dice (no neighbour) keeps its own mask (an adjust with nothing to adjust).
    """
    r12 = 12 if spec & 1 else 1
    r20 = 20 if spec & 2 else 1
    r4 = 4 if spec & 4 else 1
    per = r12 * r20 * r4
    base = ms_off[n6]
    m_count = ms_off[n6 + 1] - base
    nw = masks.shape[1]
    for m in range(m_count):
        for i12 in range(r12):
            for i20 in range(r20):
                for i4 in range(r4):
                    r = m * per + (i12 * r20 + i20) * r4 + i4
                    has_nb = False
                    for w in range(nw):
                        out[r, w] = masks[r, w] if keep_self else np.uint64(0)
                    for v in range(6):
                        for d in range(2):
                            m2 = ms_nb[base + m, v, d]
                            if m2 >= 0:
                                has_nb = True
                                r2 = m2 * per + (i12 * r20 + i20) * r4 + i4
                                for w in range(nw):
                                    out[r, w] |= masks[r2, w]
                    if spec & 1:
                        for d in (-1, 1):
                            j = i12 + d
                            if 0 <= j < 12:
                                has_nb = True
                                r2 = m * per + (j * r20 + i20) * r4 + i4
                                for w in range(nw):
                                    out[r, w] |= masks[r2, w]
                    if spec & 2:
                        for d in (-1, 1):
                            j = i20 + d
                            if 0 <= j < 20:
                                has_nb = True
                                r2 = m * per + (i12 * r20 + j) * r4 + i4
                                for w in range(nw):
                                    out[r, w] |= masks[r2, w]
                    if spec & 4:
                        for d in (-1, 1):
                            j = i4 + d
                            if 0 <= j < 4:
                                has_nb = True
                                r2 = m * per + (i12 * r20 + i20) * r4 + j
                                for w in range(nw):
                                    out[r, w] |= masks[r2, w]
                    if not has_nb:
                        for w in range(nw):
                            out[r, w] = masks[r, w]


@njit(cache=True)
def _mask_probs(masks, n6, spec, ms_off, ms_w, ncard, out):
    """``out[c] = sum of weights of rolls whose mask has bit c`` (probability of meeting c)."""
    r12 = 12 if spec & 1 else 1
    r20 = 20 if spec & 2 else 1
    r4 = 4 if spec & 4 else 1
    per = r12 * r20 * r4
    base = ms_off[n6]
    m_count = ms_off[n6 + 1] - base
    for c in range(ncard):
        out[c] = 0.0
    for m in range(m_count):
        w = ms_w[base + m] / per
        for j in range(per):
            r = m * per + j
            for c in range(ncard):
                if (masks[r, c >> 6] >> np.uint64(c & 63)) & np.uint64(1):
                    out[c] += w


@njit_per_type
def _exact_one(conds, n6, spec, extras, lure_flag, n_adjust, keep_self, ms_off, ms_vals, ms_w,
               ms_nb, out):
    """Exact probabilities for one loadout; ``out[k, c]`` for ``k = 0..n_adjust`` adjusts."""
    ncard = conds.shape[0]
    nw = (ncard + 63) // 64
    per = (12 if spec & 1 else 1) * (20 if spec & 2 else 1) * (4 if spec & 4 else 1)
    nroll = (ms_off[n6 + 1] - ms_off[n6]) * per
    a = np.zeros((nroll, nw), np.uint64)
    b = np.zeros((nroll, nw), np.uint64)
    _class_masks(conds, n6, spec, extras, lure_flag, ms_off, ms_vals, a)
    _mask_probs(a, n6, spec, ms_off, ms_w, ncard, out[0])
    for k in range(1, n_adjust + 1):
        _ball_step(a, b, n6, spec, ms_off, ms_nb, keep_self)
        a, b = b, a
        _mask_probs(a, n6, spec, ms_off, ms_w, ncard, out[k])


@dataclass(frozen=True)
class Loadout:
    """What one player commits to one catch attempt (rules: *A round*, step 2).

    Attributes:
        n_d6: number of d6 (0..5).
        d12, d20, d4: whether each special die is rolled (``d4`` only exists with Deep Waters).
        extras: values (1..6) of the extra-die lures played.
        n_adjust: adjust lures played (applied in the best way for the card).
        boosts: boost lures played (they change nothing but count as "a lure used").
    """

    n_d6: int = 0
    d12: bool = False
    d20: bool = False
    d4: bool = False
    extras: tuple[int, ...] = field(default_factory=tuple)
    n_adjust: int = 0
    boosts: int = 0

    def __post_init__(self):
        if not 0 <= int(self.n_d6) <= MAX_D6:
            raise ValueError(f"n_d6 = {self.n_d6!r}; expected 0..{MAX_D6}")
        for e in self.extras:
            if not 1 <= int(e) <= 6:
                raise ValueError(f"extra-die lure value {e!r}; expected 1..6")
        if int(self.n_adjust) < 0 or int(self.boosts) < 0:
            raise ValueError(f"n_adjust={self.n_adjust!r}, boosts={self.boosts!r}; expected >= 0")

    @property
    def spec(self) -> int:
        """Special-dice bit mask: 1 d12, 2 d20, 4 d4."""
        return int(self.d12) | (int(self.d20) << 1) | (int(self.d4) << 2)

    @property
    def lure_used(self) -> bool:
        """True when at least one lure token is played (requirement ``lure`` / ``no_lure``)."""
        return bool(self.extras) or self.n_adjust > 0 or self.boosts > 0

    @property
    def n_dice(self) -> int:
        """Dice committed (d6 and special; extra-die lures do not count): the turn-order key."""
        return int(self.n_d6) + int(self.d12) + int(self.d20) + int(self.d4)

    @property
    def n_lures(self) -> int:
        """Lure tokens played."""
        return len(self.extras) + int(self.n_adjust) + int(self.boosts)

    def label(self) -> str:
        """Short text such as ``"3d6+d12 +adj"`` (``"nothing"`` for the empty loadout)."""
        parts = []
        if self.n_d6:
            parts.append(f"{self.n_d6}d6")
        for name, on in (("d12", self.d12), ("d20", self.d20), ("d4", self.d4)):
            if on:
                parts.append(name)
        text = "+".join(parts) if parts else "nothing"
        lures = ["adj"] * int(self.n_adjust) + [f"x{e}" for e in self.extras]
        lures += ["boost"] * int(self.boosts)
        return text + (" +" + "+".join(lures) if lures else "")


def _as_conds(conds) -> np.ndarray:
    conds = np.ascontiguousarray(conds, dtype=np.int64)
    if conds.ndim == 1:
        conds = conds.reshape(1, -1)
    if conds.ndim != 2 or conds.shape[1] != COND_LEN:
        raise ValueError(f"conditions must have shape (cards, {COND_LEN}); got {conds.shape}")
    return conds


def exact_catch_probabilities(conds, loadout: Loadout, adjust_may_be_unused: bool = True
                              ) -> np.ndarray:
    """Exact probability that a loadout meets each card (multiset enumeration, see module doc).

    Args:
        conds: ``int64`` ``(cards, COND_LEN)`` (or one vector ``(COND_LEN,)``).
        loadout: the dice and lures committed.
        adjust_may_be_unused: rules **[decision]**; when False each adjust must move a die
            (reachable rolls then have the parity of ``n_adjust``).

    Returns:
        ``float64`` ``(cards,)`` probabilities in [0, 1].

    Raises:
        ValueError: malformed conditions or loadout.
    """
    conds = _as_conds(conds)
    off, vals, w, nb = _multiset_pack()
    out = np.zeros((loadout.n_adjust + 1, conds.shape[0]))
    extras = np.array(loadout.extras, np.int64)
    _exact_one(conds, int(loadout.n_d6), loadout.spec, extras, loadout.lure_used,
               int(loadout.n_adjust), bool(adjust_may_be_unused), off, vals, w, nb, out)
    return np.minimum(out[loadout.n_adjust], 1.0)  # float sums may exceed 1 by ~1e-15


# ---------------------------------------------------------------- the standard table
PLAN_NONE = 0
PLAN_FLAG = 1
PLAN_ADJ1 = 2
PLAN_ADJ2 = 3
PLAN_X1 = 4  # PLAN_X1 + k - 1 for an extra die showing k
N_PLANS = 10
PLAN_NAMES = ("none", "boost", "adj", "adj+adj", "x1", "x2", "x3", "x4", "x5", "x6")
"""Lure plans of the standard table: none; a lure that changes no die (``boost``); one or two
adjusts; one extra-die lure showing 1..6."""


@njit(cache=True, inline="always")
def _table_kernel(conds, specs, keep_self, ms_off, ms_vals, ms_w, ms_nb, out):
    ncard = conds.shape[0]
    tmp = np.zeros((3, ncard))
    none = np.zeros(0, np.int64)
    one = np.zeros(1, np.int64)
    for n6 in range(MAX_D6 + 1):
        for si in range(specs.shape[0]):
            spec = specs[si]
            _exact_one(conds, n6, spec, none, False, 0, keep_self, ms_off, ms_vals, ms_w,
                       ms_nb, tmp)
            out[:, n6, spec, PLAN_NONE] = tmp[0]
            _exact_one(conds, n6, spec, none, True, 2, keep_self, ms_off, ms_vals, ms_w,
                       ms_nb, tmp)
            out[:, n6, spec, PLAN_FLAG] = tmp[0]
            out[:, n6, spec, PLAN_ADJ1] = tmp[1]
            out[:, n6, spec, PLAN_ADJ2] = tmp[2]
            for x in range(1, 7):
                one[0] = x
                _exact_one(conds, n6, spec, one, True, 0, keep_self, ms_off, ms_vals, ms_w,
                           ms_nb, tmp)
                out[:, n6, spec, PLAN_X1 + x - 1] = tmp[0]


_TABLE_ROWS: dict[tuple[bytes, bool, bool], np.ndarray] = {}
"""Memo of :func:`exact_table`: one card's rows ``(6, 8, N_PLANS)`` per (its compiled
condition, ``deep_waters``, ``adjust_may_be_unused``)."""
TABLE_ROWS_KEPT = 8192
"""Cards' rows the memo of :func:`exact_table` keeps (about 3.8 KB each); beyond, it starts
again empty."""


def exact_table(conds, deep_waters: bool = True, adjust_may_be_unused: bool = True
                ) -> np.ndarray:
    """Exact catch probability of every card under every standard loadout.

    Loadouts: 0..5 d6 x every subset of the special dice (d12, d20, and d4 when
    ``deep_waters``) x the lure plans :data:`PLAN_NAMES`.

    A card's probabilities depend on its own condition only, so each card's rows are computed
    once per process (per condition and flags; a deck whose points change, or one card's
    condition, computes only the cards not seen before: a rebalance's trials, the Lure
    heuristic's table of every batch) and the result is the same, bit for bit, as computing
    the whole deck at once.

    Returns:
        A new ``float64`` array ``(cards, 6, 8, N_PLANS)`` indexed ``[card, n_d6, spec, plan]``
        where ``spec`` is the special-dice bit mask (1 d12, 2 d20, 4 d4); subsets containing
        the d4 are NaN when ``deep_waters`` is False.

    Raises:
        ValueError: malformed conditions.
    """
    conds = _as_conds(conds)
    flags = (bool(deep_waters), bool(adjust_may_be_unused))
    keys = [(row.tobytes(),) + flags for row in conds]
    todo = list(dict.fromkeys(k for k in keys if k not in _TABLE_ROWS))
    if todo:
        if len(_TABLE_ROWS) + len(todo) > TABLE_ROWS_KEPT:
            _TABLE_ROWS.clear()
        rows = np.array([np.frombuffer(k[0], dtype=np.int64) for k in todo])
        for k, t in zip(todo, _exact_table_of(rows, *flags), strict=True):
            _TABLE_ROWS[k] = t
    return np.array([_TABLE_ROWS[k] for k in keys]).reshape(
        (conds.shape[0], MAX_D6 + 1, 8, N_PLANS))


def _exact_table_of(conds: np.ndarray, deep_waters: bool, adjust_may_be_unused: bool
                    ) -> np.ndarray:
    """:func:`exact_table` of ``conds`` (``int64 (cards, COND_LEN)``) computed, not
    remembered."""
    off, vals, w, nb = _multiset_pack()
    specs = np.arange(8 if deep_waters else 4, dtype=np.int64)
    out = np.full((conds.shape[0], MAX_D6 + 1, 8, N_PLANS), np.nan)
    _table_kernel(conds, specs, adjust_may_be_unused, off, vals, w, nb, out)
    return np.minimum(out, 1.0)  # float sums may exceed 1 by ~1e-15 (NaN stays NaN)


def plan_loadout(n_d6: int, spec: int, plan: int) -> Loadout:
    """The :class:`Loadout` of a standard-table cell ``[n_d6, spec, plan]``."""
    extras: tuple[int, ...] = ()
    n_adj = 0
    boosts = 0
    if plan == PLAN_FLAG:
        boosts = 1
    elif plan in (PLAN_ADJ1, PLAN_ADJ2):
        n_adj = plan - PLAN_ADJ1 + 1
    elif plan >= PLAN_X1:
        extras = (plan - PLAN_X1 + 1,)
    return Loadout(n_d6, bool(spec & 1), bool(spec & 2), bool(spec & 4), extras, n_adj, boosts)


# ---------------------------------------------------------------- adjust enumeration, Monte Carlo
@njit_per_type
def enumerate_deltas(lo, hi, n, k, need_parity, out):
    """Fill ``out`` with every adjust vector for ``n`` dice; return how many.

    A vector ``d`` (int64 ``(n,)``) is listed when ``lo[i] <= d[i] <= hi[i]`` (the die stays on
    its faces), ``sum |d| <= k`` and, when ``need_parity``, ``sum |d| % 2 == k % 2`` (every
    adjust must move a die). ``out``: int64 ``(M, >= n)``; stops when full. Depth-first order.
    """
    if n == 0:
        out[0, :] = 0
        return 1
    cnt = 0
    d = np.zeros(n, np.int64)
    rem = np.zeros(n + 1, np.int64)
    rem[0] = k
    pos = 0
    d[0] = max(lo[0], -k) - 1
    while pos >= 0:
        d[pos] += 1
        if d[pos] > min(hi[pos], rem[pos]):
            pos -= 1
            continue
        r = rem[pos] - abs(d[pos])
        if pos == n - 1:
            if (not need_parity) or (k - r) % 2 == k % 2:
                if cnt >= out.shape[0]:
                    return cnt
                for i in range(n):
                    out[cnt, i] = d[i]
                cnt += 1
        else:
            pos += 1
            rem[pos] = r
            d[pos] = max(lo[pos], -r) - 1
    return cnt


def count_deltas(faces_shown, faces, k: int, need_parity: bool = False) -> int:
    """Number of adjust vectors :func:`enumerate_deltas` lists (for sizing buffers)."""
    n = len(faces_shown)
    lo = np.array([1 - v for v in faces_shown], np.int64)
    hi = np.array([f - v for v, f in zip(faces_shown, faces, strict=True)], np.int64)
    size = 1
    for _ in range(n):
        size *= 2 * k + 1
    buf = np.zeros((min(size, 2_000_000), max(n, 1)), np.int64)
    return int(enumerate_deltas(lo, hi, n, k, need_parity, buf))


@njit(cache=True, inline="always")
def _mc_kernel(conds, n6, spec, extras, lure_flag, n_adjust, need_parity, seed, n, hits):
    ncard = conds.shape[0]
    nd = n6 + (spec & 1) + ((spec >> 1) & 1) + ((spec >> 2) & 1)
    ne = extras.shape[0]
    nspec = nd - n6
    faces = np.zeros(max(nd, 1), np.int64)
    for i in range(n6):
        faces[i] = 6
    j = n6
    for b, f in ((1, 12), (2, 20), (4, 4)):
        if spec & b:
            faces[j] = f
            j += 1
    size = 1
    for _ in range(nd):
        size *= 2 * n_adjust + 1
    deltas = np.zeros((min(size, 200_000), max(nd, 1)), np.int64)
    roll = np.zeros(max(nd, 1), np.int64)
    lo = np.zeros(max(nd, 1), np.int64)
    hi = np.zeros(max(nd, 1), np.int64)
    vals = np.zeros(nd + ne, np.int64)
    counts = np.zeros(MAX_VALUE + 1, np.int64)
    met = np.zeros(ncard, np.bool_)
    words = np.empty(1, np.int64)
    words[0] = seed
    for _ in range(n):
        for i in range(nd):
            z = np.uint64(next_u64(words, 0))
            roll[i] = 1 + np.int64((z >> np.uint64(11)) % np.uint64(faces[i]))
            lo[i] = 1 - roll[i]
            hi[i] = faces[i] - roll[i]
        nvec = enumerate_deltas(lo, hi, nd, n_adjust, need_parity and nd > 0, deltas)
        met[:] = False
        for t in range(nvec):
            for i in range(nd):
                vals[i] = roll[i] + deltas[t, i]
            for e in range(ne):
                vals[nd + e] = extras[e]
            total, maxc, odd, even = _features(vals, nd + ne, counts)
            for c in range(ncard):
                if not met[c]:
                    if condition_met(conds, c, total, maxc, odd, even, nspec, lure_flag, counts):
                        met[c] = True
        for c in range(ncard):
            if met[c]:
                hits[c] += 1


def monte_carlo_catch_probabilities(conds, loadout: Loadout, n_samples: int, seed: int = 0,
                                    adjust_may_be_unused: bool = True, confidence: float = 0.95):
    """Monte Carlo estimate of :func:`exact_catch_probabilities` with Wilson intervals.

    Samples ``n_samples`` rolls (the splitmix64 stream of :mod:`engines.protocol.chance` seeded from
    ``seed``; faces by modulo of the top 53 bits, bias below 1e-15) and, for adjusts,
    searches every adjust vector of the roll (:func:`enumerate_deltas`), an implementation
    independent of the exact ball method.

    Returns:
        ``(p, low, high)``: three ``float64`` arrays ``(cards,)``.

    Raises:
        ValueError: malformed input or ``n_samples < 1``.
    """
    if int(n_samples) < 1:
        raise ValueError(f"n_samples = {n_samples!r}; expected >= 1")
    conds = _as_conds(conds)
    hits = np.zeros(conds.shape[0], np.int64)
    seed64 = np.random.SeedSequence(seed).generate_state(1, np.uint64).view(np.int64)[0]
    _mc_kernel(conds, int(loadout.n_d6), loadout.spec, np.array(loadout.extras, np.int64),
               loadout.lure_used, int(loadout.n_adjust), not adjust_may_be_unused,
               seed64, int(n_samples), hits)
    low, high = _wilson(hits, int(n_samples), confidence)
    return hits / n_samples, low, high


def _wilson(k, n: int, confidence: float):
    """Wilson score interval of ``k`` successes in ``n`` trials (Wilson, 1927; the formula of
    :func:`experiments.stats.wilson_interval`, kept here so the engines import nothing above
    them)."""
    from scipy.stats import norm

    z = norm.ppf(0.5 + confidence / 2)
    p = np.asarray(k, np.float64) / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)
