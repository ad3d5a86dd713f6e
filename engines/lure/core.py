"""Lure rules core: compiled kernels over a flat ``int64`` state (``../shared/rules/lure.md``).

The single copy of the rules. Both doors use it: :class:`engines.lure.game.LureGame` (step API)
and :func:`engines.lure.batch.play_batch` (compiled games).

Decisions
---------
The simultaneous *Cast* (step 2) is played as one decision per player in seat order; casts are
secret (:func:`observe` hides them) until all are in, then revealed at once. During *Fish*
(step 3) a player who played adjust lures and rolled dice makes one *adjust* decision after
rolling (players of a simultaneous group decide in seat order, each seeing the raw rolls of the
group but not the others' adjustments). Everything else is automatic.

Action encoding (``int64``)
---------------------------
* cast: ``n_d6 | spec << 3 | sum(count[k] << (6 + 5 k))`` with ``spec`` the special-dice mask
  (1 d12, 2 d20, 4 d4) and ``count[k]`` the lure tokens of kind ``k`` played (kinds as
  :data:`engines.lure.config.LURE_KINDS`: 0 adjust, 1..6 extra die 1..6, 7 boost; < 32 each).
* adjust: ``sum((delta[i] + 32) << (6 i))`` over the 8 dice slots (0-4 d6, 5 d12, 6 d20, 7 d4).

Chance
------
A splitmix64 stream whose 64-bit word lives in the state (``H_RNG``): game ``g`` of seed ``s``
starts from ``mix64(base(s) + g * GOLDEN)`` where ``base(s)`` is the first word of
``numpy.random.SeedSequence(s).generate_state``. Draws use ``word % n`` (bias < 1e-17).
Cloning the state clones the stream.

State layout (``int64``, length :data:`STATE_LEN`)
--------------------------------------------------
=================  ==========  ==============================================================
name               index       meaning
=================  ==========  ==============================================================
H_NP               0           number of players
H_DEEP             1           Deep Waters (0/1)
H_PHASE            2           PH_CAST, PH_ADJUST or PH_END
H_ROUND            3           round number (1-based)
H_FINAL            4           1 when this round is the final round
H_CUR              5           player to decide (-1 at the end)
H_NDRAW            6           fish cards left in the draw pile
H_DRAWPOS          7           position of the next card in DRAW
H_NINPLAY          8           fish cards in play this game
H_GROUP            9           rank of the acting group (fewest dice = 0)
H_NGROUPS          10          number of acting groups this round
H_RNG              11          splitmix64 word (hidden)
H_NTABLE           12          fish on the table
H_NCARDS           13          cards in the deck file
H_BAGN, H_DISCN    14, 15      tokens in the lure bag / discard pile
H_STEP             16          decisions taken so far
H_BAG .. +7        20..27      bag tokens per kind (hidden)
H_DISC .. +7       28..35      discard pile per kind (public)
PB + p * PSTRIDE   40 + 80 p   player block (offsets P_* below)
DRAW               440..503    draw pile, card indices in draw order (hidden)
TABLE              504..567    fish on the table, card indices in reveal order
LOC                568..631    per card: LOC_OUT, LOC_DECK, LOC_TABLE, LOC_CAUGHT + player
CROUND             632..695    per card: round caught (0 = not caught)
CGROUP             696..759    per card: turn-order rank of the catcher's group
CREVEAL            760..823    per card: round revealed (0 = not yet)
CLAIM_P/G/S        824..1015   per card (stubborn): claimant, its group rank, its sum
=================  ==========  ==============================================================

Player block offsets: P_CAST_DONE 0, P_N6 1, P_SPEC 2, P_CAST 3..10 (tokens played per kind),
P_HELD 11..18 (tokens held per kind), P_NHELD 19, P_KEPT 20 (boosts kept), P_POINTS 21 (fish
points), P_NFISH 22, P_TROPHY 23, P_RESTING 24 (special dice unavailable this round), P_NDICE
25, P_GROUPR 26, P_RAW 27..34 (rolled faces per slot, -1 unused), P_DICE 35..42 (after
adjusts), P_ADJ_PENDING 43, P_CAUGHT 44 (fish caught this round), P_SUM 45, P_LAST_NDICE 46
(dice cast last round, -1 before), P_SCORE 47, P_WIN 48 (1 for a winner), P_NCAUGHT_ROUNDS 49
(rounds with a catch), and the public record of the player's last finished round: P_LAST_N6 50,
P_LAST_SPEC 51, P_LAST_CAST 52..59, P_LAST_SUM 60, P_LAST_CAUGHT 61, P_LAST_DICE 62..69,
P_LAST_GROUPR 70 (turn-order rank).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines import dice
from engines.lure import config as C
from engines.lure import decks as D

MAXP = 5
MAXC = D.MAX_CARDS
NK = 8
K_ADJ = 0
K_BOOST = 7
NSLOT = 8
SLOT_FACES = np.array([6, 6, 6, 6, 6, 12, 20, 4], np.int64)

H_NP, H_DEEP, H_PHASE, H_ROUND, H_FINAL, H_CUR = 0, 1, 2, 3, 4, 5
H_NDRAW, H_DRAWPOS, H_NINPLAY, H_GROUP, H_NGROUPS, H_RNG = 6, 7, 8, 9, 10, 11
H_NTABLE, H_NCARDS, H_BAGN, H_DISCN, H_STEP = 12, 13, 14, 15, 16
H_BAG = 20
H_DISC = 28
PB = 40
PSTRIDE = 80
P_CAST_DONE, P_N6, P_SPEC, P_CAST, P_HELD = 0, 1, 2, 3, 11
P_NHELD, P_KEPT, P_POINTS, P_NFISH, P_TROPHY, P_RESTING = 19, 20, 21, 22, 23, 24
P_NDICE, P_GROUPR, P_RAW, P_DICE, P_ADJ_PENDING, P_CAUGHT = 25, 26, 27, 35, 43, 44
P_SUM, P_LAST_NDICE, P_SCORE, P_WIN, P_NCAUGHT_ROUNDS = 45, 46, 47, 48, 49
P_LAST_N6, P_LAST_SPEC, P_LAST_CAST, P_LAST_SUM, P_LAST_CAUGHT, P_LAST_DICE = 50, 51, 52, 60, 61, 62
P_LAST_GROUPR = 70
DRAW = PB + MAXP * PSTRIDE
TABLE = DRAW + MAXC
LOC = TABLE + MAXC
CROUND = LOC + MAXC
CGROUP = CROUND + MAXC
CREVEAL = CGROUP + MAXC
CLAIM_P = CREVEAL + MAXC
CLAIM_G = CLAIM_P + MAXC
CLAIM_S = CLAIM_G + MAXC
STATE_LEN = CLAIM_S + MAXC

PH_CAST, PH_ADJUST, PH_END = 0, 1, 2

# scratch (``work``, int64) used by the kernels, so that no game step allocates
W_COUNTS = 0
W_VALS = 32
W_MEMBERS = 40
W_SUMS = 48
W_MET = 64
W_TAKE = W_MET + MAXP * MAXC
W_CAUGHT = W_TAKE + MAXC
W_WHO = W_CAUGHT + MAXC
W_FREE = W_WHO + MAXC
WORK_LEN = W_FREE + 4096
"""Length of the ``work`` scratch; ``work[W_FREE:]`` is free for policies."""
LOC_OUT, LOC_DECK, LOC_TABLE, LOC_CAUGHT = 0, 1, 2, 3

GOLDEN = np.uint64(0x9E3779B97F4A7C15)

# error codes of check_action / apply_action
E_OK = 0
E_OVER = 1
E_BITS = 2
E_D6 = 3
E_SPECIAL = 4
E_LURE = 5
E_UNROLLED = 6
E_FACE = 7
E_STEPS = 8
E_PARITY = 9
ERROR_TEXT = {
    E_OVER: "the game is over",
    E_BITS: "the action number does not encode a cast or an adjust",
    E_D6: "more d6 than the five a player has",
    E_SPECIAL: "a special die that is resting this round (or the d4 without Deep Waters)",
    E_LURE: "more lure tokens of a kind than the player holds",
    E_UNROLLED: "an adjust on a die that was not rolled",
    E_FACE: "an adjust past the die's lowest or highest face",
    E_STEPS: "more adjust steps than adjust lures played",
    E_PARITY: "every adjust must move a die (adjust_may_be_unused is False)",
}


# ---------------------------------------------------------------- chance
@njit(cache=True)
def mix64(x):
    """splitmix64 output function of a ``uint64`` (Steele, Lea & Flood 2014)."""
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def game_seed(base, g):
    """``uint64`` seed of game ``g`` (int) of a batch whose SeedSequence word is ``base``."""
    return mix64(np.uint64(base) + np.uint64(g) * GOLDEN)


@njit(cache=True)
def policy_seed(gseed, p):
    """``uint64`` initial word of player ``p``'s policy stream in the game seeded ``gseed``."""
    return mix64(np.uint64(gseed) ^ (np.uint64(p + 1) * np.uint64(0xD1B54A32D192ED03)))


@njit(cache=True)
def next_u64(words, i):
    """Advance the splitmix64 word ``words[i]`` (an int64 array) and return a uint64."""
    x = np.uint64(words[i]) + GOLDEN
    words[i] = np.int64(x)
    return mix64(x)


@njit(cache=True)
def randint(state, n):
    """Uniform integer in ``[0, n)`` from the state's chance stream (``n >= 1``)."""
    return np.int64(next_u64(state, H_RNG) % np.uint64(n))


# ---------------------------------------------------------------- small helpers
@njit(cache=True)
def popcount3(spec):
    """Number of special dice in a mask (bits 1, 2, 4)."""
    return (spec & 1) + ((spec >> 1) & 1) + ((spec >> 2) & 1)


@njit(cache=True)
def available_specials(state, p):
    """Mask of special dice player ``p`` may cast this round (rules step 2 and 4)."""
    full = 3 | (4 if state[H_DEEP] else 0)
    return full & ~state[PB + p * PSTRIDE + P_RESTING]


@njit(cache=True)
def encode_cast(n6, spec, counts):
    """Cast action from ``n6``, ``spec`` and per-kind token counts (int64 ``(8,)``)."""
    a = n6 | (spec << 3)
    for k in range(NK):
        a |= counts[k] << (6 + 5 * k)
    return a


@njit(cache=True)
def decode_cast(a, counts):
    """Inverse of :func:`encode_cast`: returns ``(n6, spec)``, fills ``counts``."""
    for k in range(NK):
        counts[k] = (a >> (6 + 5 * k)) & 31
    return a & 7, (a >> 3) & 7


@njit(cache=True)
def encode_adjust(delta):
    """Adjust action from per-slot deltas (int64 ``(8,)``, each in -31..31)."""
    a = np.int64(0)
    for i in range(NSLOT):
        a |= (delta[i] + 32) << (6 * i)
    return a


@njit(cache=True)
def decode_adjust(a, delta):
    """Inverse of :func:`encode_adjust` (fills ``delta``)."""
    for i in range(NSLOT):
        delta[i] = ((a >> (6 * i)) & 63) - 32


@njit(cache=True)
def player_features(state, p, counts):
    """Roll features of player ``p``'s adjusted dice and extra-die lures.

    Returns ``(total, maxcount, all_odd, all_even, nspecial, lure_used)``; fills ``counts``
    (int64 ``(21,)``). Rules: *Fish cards* (extra-die lures count as dice showing k).
    """
    b = PB + p * PSTRIDE
    counts[:] = 0
    total = 0
    maxc = 0
    odd = True
    even = True
    for s in range(NSLOT):
        v = state[b + P_DICE + s]
        if v >= 0:
            total += v
            counts[v] += 1
            if counts[v] > maxc:
                maxc = counts[v]
            if v & 1:
                even = False
            else:
                odd = False
    lure = False
    for k in range(NK):
        if state[b + P_CAST + k] > 0:
            lure = True
    for v in range(1, 7):
        n = state[b + P_CAST + v]
        if n > 0:
            total += v * n
            counts[v] += n
            if counts[v] > maxc:
                maxc = counts[v]
            if v & 1:
                even = False
            else:
                odd = False
    return total, maxc, odd, even, popcount3(state[b + P_SPEC]), lure


# ---------------------------------------------------------------- lure bag
@njit(cache=True)
def draw_lure(state, p):
    """Player ``p`` draws one lure; the discard pile is reshuffled in only when the bag is empty.

    Returns the kind drawn, or -1 when bag and discard pile are both empty (rules:
    *Components*, lure bag).
    """
    if state[H_BAGN] == 0:
        for k in range(NK):
            state[H_BAG + k] += state[H_DISC + k]
            state[H_DISC + k] = 0
        state[H_BAGN] = state[H_DISCN]
        state[H_DISCN] = 0
    if state[H_BAGN] == 0:
        return -1
    r = randint(state, state[H_BAGN])
    k = 0
    while r >= state[H_BAG + k]:
        r -= state[H_BAG + k]
        k += 1
    state[H_BAG + k] -= 1
    state[H_BAGN] -= 1
    b = PB + p * PSTRIDE
    state[b + P_HELD + k] += 1
    state[b + P_NHELD] += 1
    return k


# ---------------------------------------------------------------- setup and rounds
@njit(cache=True)
def _reveal_one(state, info, p_count):
    pos = state[H_DRAWPOS]
    c = state[DRAW + pos]
    state[H_DRAWPOS] = pos + 1
    state[H_NDRAW] -= 1
    state[TABLE + state[H_NTABLE]] = c
    state[H_NTABLE] += 1
    state[LOC + c] = LOC_TABLE
    state[CREVEAL + c] = state[H_ROUND]
    sp = info[c, D.I_SPLASH]
    if sp == D.SPLASH_LURE:
        for p in range(p_count):
            draw_lure(state, p)
    return sp


@njit(cache=True)
def start_round(state, cfg, info):
    """Begin a round: reset round fields, *Splash* (step 1), open *Cast* (step 2)."""
    np_ = state[H_NP]
    for p in range(np_):
        b = PB + p * PSTRIDE
        state[b + P_CAST_DONE] = 0
        state[b + P_N6] = 0
        state[b + P_SPEC] = 0
        for k in range(NK):
            state[b + P_CAST + k] = 0
        for s in range(NSLOT):
            state[b + P_RAW + s] = -1
            state[b + P_DICE + s] = -1
        state[b + P_ADJ_PENDING] = 0
        state[b + P_CAUGHT] = 0
        state[b + P_SUM] = 0
        state[b + P_NDICE] = 0
        state[b + P_GROUPR] = -1
    n = cfg[C.C_SPLASH_SMALL] if np_ <= cfg[C.C_SMALL_MAX] else cfg[C.C_SPLASH_LARGE]
    i = 0
    while i < n and state[H_NDRAW] > 0:
        if _reveal_one(state, info, np_) == D.SPLASH_FISH:
            n += 1
        i += 1
    if state[H_NDRAW] == 0:
        state[H_FINAL] = 1
    state[H_PHASE] = PH_CAST
    state[H_CUR] = 0


@njit(cache=True)
def init_state(state, cfg, conds, info, gseed):
    """Set up a new game in ``state`` (int64 ``(STATE_LEN,)``) and play the first splash.

    ``gseed``: uint64 game seed (:func:`game_seed`). Deep Waters: the new cards are shuffled
    into the base cards and ``cfg[C_DEEP_REMOVE]`` are removed at random (rules: *End and
    scoring*, last line). Players draw ``cfg[C_START_LURES]`` lures each, in seat order.
    """
    state[:] = 0
    np_ = cfg[C.C_NPLAYERS]
    deep = cfg[C.C_DEEP]
    ncards = conds.shape[0]
    state[H_NP] = np_
    state[H_DEEP] = deep
    state[H_NCARDS] = ncards
    state[H_RNG] = np.int64(np.uint64(gseed))
    state[H_ROUND] = 1
    for c in range(MAXC):
        state[CLAIM_P + c] = -1
    n = 0
    for c in range(ncards):
        if info[c, D.I_SET] == D.SET_BASE or deep:
            state[DRAW + n] = c
            n += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = randint(state, i + 1)
        t = state[DRAW + i]
        state[DRAW + i] = state[DRAW + j]
        state[DRAW + j] = t
    start = 0
    if deep:
        start = min(cfg[C.C_DEEP_REMOVE], n - 1)
        for i in range(start):
            state[LOC + state[DRAW + i]] = LOC_OUT
        for i in range(n - start):
            state[DRAW + i] = state[DRAW + start + i]
        n -= start
    for i in range(n):
        state[LOC + state[DRAW + i]] = LOC_DECK
    state[H_NDRAW] = n
    state[H_NINPLAY] = n
    tot = 0
    for k in range(NK):
        state[H_BAG + k] = cfg[C.C_MIX + k]
        tot += cfg[C.C_MIX + k]
    state[H_BAGN] = tot
    for p in range(np_):
        state[PB + p * PSTRIDE + P_LAST_NDICE] = -1
        for s in range(NSLOT):
            state[PB + p * PSTRIDE + P_LAST_DICE + s] = -1
    for _ in range(cfg[C.C_START_LURES]):
        for p in range(np_):
            draw_lure(state, p)
    start_round(state, cfg, info)


# ---------------------------------------------------------------- legality
@njit(cache=True)
def check_cast(state, p, a):
    """Error code (0 = legal) of cast action ``a`` for player ``p`` (rules step 2)."""
    if a < 0 or (a >> (6 + 5 * NK)) != 0:
        return E_BITS
    b = PB + p * PSTRIDE
    if (a & 7) > 5:
        return E_D6
    spec = (a >> 3) & 7
    if spec & ~available_specials(state, p):
        return E_SPECIAL
    for k in range(NK):
        if ((a >> (6 + 5 * k)) & 31) > state[b + P_HELD + k]:
            return E_LURE
    return E_OK


@njit(cache=True)
def check_adjust(state, cfg, p, a):
    """Error code (0 = legal) of adjust action ``a`` for player ``p`` (rules: adjust lure)."""
    if a < 0 or (a >> (6 * NSLOT)) != 0:
        return E_BITS
    b = PB + p * PSTRIDE
    steps = 0
    rolled = 0
    for s in range(NSLOT):
        d = ((a >> (6 * s)) & 63) - 32
        raw = state[b + P_RAW + s]
        if raw < 0:
            if d != 0:
                return E_UNROLLED
            continue
        rolled += 1
        v = raw + d
        if v < 1 or v > SLOT_FACES[s]:
            return E_FACE
        steps += abs(d)
    k = state[b + P_CAST + K_ADJ]
    if steps > k:
        return E_STEPS
    if cfg[C.C_ADJ_UNUSED] == 0 and rolled > 0 and (k - steps) % 2 != 0:
        return E_PARITY
    return E_OK


@njit(cache=True)
def check_action(state, cfg, a):
    """Error code (0 = legal) of action ``a`` for the player to decide (:data:`ERROR_TEXT`)."""
    ph = state[H_PHASE]
    if ph == PH_END:
        return E_OVER
    if ph == PH_CAST:
        return check_cast(state, state[H_CUR], a)
    return check_adjust(state, cfg, state[H_CUR], a)


# ---------------------------------------------------------------- fishing
@njit(cache=True)
def _catch(state, info, c, p, g):
    b = PB + p * PSTRIDE
    state[LOC + c] = LOC_CAUGHT + p
    state[CROUND + c] = state[H_ROUND]
    state[CGROUP + c] = g
    state[b + P_POINTS] += info[c, D.I_POINTS]
    state[b + P_NFISH] += 1
    state[b + P_TROPHY] += info[c, D.I_TROPHY]
    state[b + P_CAUGHT] += 1
    n = state[H_NTABLE]
    for i in range(n):
        if state[TABLE + i] == c:
            for j in range(i, n - 1):
                state[TABLE + j] = state[TABLE + j + 1]
            state[TABLE + n - 1] = 0
            state[H_NTABLE] = n - 1
            break


@njit(cache=True)
def _roll_group(state, cfg, conds, info):
    """Roll the dice of the acting group; returns True when an adjust decision is pending."""
    np_ = state[H_NP]
    g = state[H_GROUP]
    pending = -1
    for p in range(np_):
        b = PB + p * PSTRIDE
        if state[b + P_GROUPR] != g:
            continue
        for s in range(state[b + P_N6]):
            v = 1 + randint(state, 6)
            state[b + P_RAW + s] = v
            state[b + P_DICE + s] = v
        spec = state[b + P_SPEC]
        for i in range(3):
            if spec & (1 << i):
                v = 1 + randint(state, SLOT_FACES[5 + i])
                state[b + P_RAW + 5 + i] = v
                state[b + P_DICE + 5 + i] = v
        if state[b + P_CAST + K_ADJ] > 0 and state[b + P_NDICE] > 0:
            state[b + P_ADJ_PENDING] = 1
            if pending < 0:
                pending = p
    if pending >= 0:
        state[H_PHASE] = PH_ADJUST
        state[H_CUR] = pending
        return True
    return False


@njit(cache=True)
def _resolve_group(state, cfg, conds, info, work):
    """Catch every fish met by the acting group (rules step 3; ties: lower sum, equal = none)."""
    np_ = state[H_NP]
    g = state[H_GROUP]
    nm = 0
    counts = work[W_COUNTS:W_COUNTS + dice.MAX_VALUE + 1]
    members = work[W_MEMBERS:W_MEMBERS + MAXP]
    sums = work[W_SUMS:W_SUMS + MAXP]
    met = work[W_MET:W_MET + MAXP * MAXC].reshape((MAXP, MAXC))
    nt = state[H_NTABLE]
    for p in range(np_):
        b = PB + p * PSTRIDE
        if state[b + P_GROUPR] != g:
            continue
        total, maxc, odd, even, nspec, lure = player_features(state, p, counts)
        state[b + P_SUM] = total
        members[nm] = p
        sums[nm] = total
        for i in range(nt):
            c = state[TABLE + i]
            met[nm, i] = 1 if dice.condition_met(conds, c, total, maxc, odd, even, nspec,
                                                 lure, counts) else 0
        nm += 1
    take = work[W_TAKE:W_TAKE + MAXC]
    for i in range(nt):
        take[i] = -1
        c = state[TABLE + i]
        best = -1
        bsum = 1 << 40
        tie = False
        for m in range(nm):
            if met[m, i] != 0:
                if sums[m] < bsum:
                    best = members[m]
                    bsum = sums[m]
                    tie = False
                elif sums[m] == bsum:
                    tie = True
        if best < 0:
            continue
        if conds[c, dice.FLAGS] & dice.F_STUBBORN:
            state[CLAIM_P + c] = -1 if tie else best
            state[CLAIM_G + c] = g
            state[CLAIM_S + c] = bsum
        elif not tie:
            take[i] = best
    caught = work[W_CAUGHT:W_CAUGHT + MAXC]
    who = work[W_WHO:W_WHO + MAXC]
    nc = 0
    for i in range(nt):
        if take[i] >= 0:
            caught[nc] = state[TABLE + i]
            who[nc] = take[i]
            nc += 1
    for j in range(nc):
        _catch(state, info, caught[j], who[j], g)


@njit(cache=True)
def _end_round(state, cfg, conds, info):
    """Stubborn fish, lure draws, discards and kept boosts, resting dice, the end (step 3-4)."""
    np_ = state[H_NP]
    # stubborn fish go to the last player (in turn order) whose roll met them
    i = 0
    while i < state[H_NTABLE]:
        c = state[TABLE + i]
        if (conds[c, dice.FLAGS] & dice.F_STUBBORN) and state[CLAIM_P + c] >= 0:
            _catch(state, info, c, state[CLAIM_P + c], state[CLAIM_G + c])
        else:
            i += 1
    for c in range(MAXC):
        state[CLAIM_P + c] = -1
        state[CLAIM_G + c] = 0
        state[CLAIM_S + c] = 0
    # a player who caught nothing draws one lure (turn order, seat order within a group)
    for g in range(state[H_NGROUPS]):
        for p in range(np_):
            b = PB + p * PSTRIDE
            if state[b + P_GROUPR] == g and state[b + P_CAUGHT] == 0:
                draw_lure(state, p)
    for p in range(np_):
        b = PB + p * PSTRIDE
        state[b + P_LAST_N6] = state[b + P_N6]
        state[b + P_LAST_SPEC] = state[b + P_SPEC]
        state[b + P_LAST_SUM] = state[b + P_SUM]
        state[b + P_LAST_CAUGHT] = state[b + P_CAUGHT]
        state[b + P_LAST_GROUPR] = state[b + P_GROUPR]
        for s in range(NSLOT):
            state[b + P_LAST_DICE + s] = state[b + P_DICE + s]
        for k in range(NK):
            n = state[b + P_CAST + k]
            state[b + P_LAST_CAST + k] = n
            if k == K_BOOST and state[b + P_CAUGHT] > 0:
                state[b + P_KEPT] += n
            else:
                state[H_DISC + k] += n
                state[H_DISCN] += n
            state[b + P_CAST + k] = 0
        if state[b + P_CAUGHT] > 0:
            state[b + P_NCAUGHT_ROUNDS] += 1
        state[b + P_RESTING] = state[b + P_SPEC]
        state[b + P_LAST_NDICE] = state[b + P_NDICE]
    if state[H_FINAL]:
        _score(state, cfg)
    else:
        state[H_ROUND] += 1
        start_round(state, cfg, info)


@njit(cache=True)
def _score(state, cfg):
    """Final scores and winners (rules: *End and scoring*)."""
    np_ = state[H_NP]
    maxt = 0
    for p in range(np_):
        maxt = max(maxt, state[PB + p * PSTRIDE + P_TROPHY])
    best = -(1 << 40)
    for p in range(np_):
        b = PB + p * PSTRIDE
        s = (state[b + P_POINTS] + cfg[C.C_BOOST_POINTS] * state[b + P_KEPT]
             + cfg[C.C_UNUSED_LURE_POINTS] * state[b + P_NHELD])
        if maxt > 0 and state[b + P_TROPHY] == maxt:
            s += cfg[C.C_TROPHY_BONUS]
        state[b + P_SCORE] = s
        best = max(best, s)
    fewest = 1 << 40
    for p in range(np_):
        b = PB + p * PSTRIDE
        if state[b + P_SCORE] == best:
            fewest = min(fewest, state[b + P_NFISH])
    for p in range(np_):
        b = PB + p * PSTRIDE
        state[b + P_WIN] = 1 if (state[b + P_SCORE] == best
                                 and state[b + P_NFISH] == fewest) else 0
    state[H_PHASE] = PH_END
    state[H_CUR] = -1


@njit(cache=True)
def _advance(state, cfg, conds, info, work):
    """Run automatic steps from the current group until a decision is needed or the game ends."""
    while True:
        # only called in PH_ADJUST after the last pending decision, or after the reveal
        _resolve_group(state, cfg, conds, info, work)
        state[H_GROUP] += 1
        if state[H_GROUP] >= state[H_NGROUPS]:
            _end_round(state, cfg, conds, info)
            return
        if _roll_group(state, cfg, conds, info):
            return


@njit(cache=True)
def _reveal(state, cfg, conds, info, work):
    """All casts are in: reveal, order the groups by dice count, roll the first group."""
    np_ = state[H_NP]
    vals = work[W_VALS:W_VALS + MAXP]
    for p in range(np_):
        b = PB + p * PSTRIDE
        nd = state[b + P_N6] + popcount3(state[b + P_SPEC])
        state[b + P_NDICE] = nd
        vals[p] = nd
    ng = 0
    for p in range(np_):
        rank = 0
        first = True  # first seat showing this dice count
        for q in range(np_):
            if vals[q] < vals[p]:
                dup = False  # count each smaller value once
                for r in range(q):
                    if vals[r] == vals[q]:
                        dup = True
                if not dup:
                    rank += 1
            elif vals[q] == vals[p] and q < p:
                first = False
        state[PB + p * PSTRIDE + P_GROUPR] = rank
        if first:
            ng += 1
    state[H_NGROUPS] = ng
    state[H_GROUP] = 0
    if _roll_group(state, cfg, conds, info):
        return
    _advance(state, cfg, conds, info, work)


@njit(cache=True)
def apply_action(state, cfg, conds, info, a, work):
    """Apply action ``a`` of the player to decide; returns an error code and then changes nothing.

    ``work``: int64 scratch ``(WORK_LEN,)``. After a legal action the automatic steps run until the
    next decision (or the end). Rules: *A round* steps 2-4, *End and scoring*.
    """
    err = check_action(state, cfg, a)
    if err != E_OK:
        return err
    p = state[H_CUR]
    b = PB + p * PSTRIDE
    state[H_STEP] += 1
    if state[H_PHASE] == PH_CAST:
        state[b + P_N6] = a & 7
        state[b + P_SPEC] = (a >> 3) & 7
        for k in range(NK):
            n = (a >> (6 + 5 * k)) & 31
            state[b + P_CAST + k] = n
            state[b + P_HELD + k] -= n
            state[b + P_NHELD] -= n
        state[b + P_CAST_DONE] = 1
        nxt = -1
        for q in range(state[H_NP]):
            if state[PB + q * PSTRIDE + P_CAST_DONE] == 0:
                nxt = q
                break
        if nxt >= 0:
            state[H_CUR] = nxt
        else:
            _reveal(state, cfg, conds, info, work)
        return E_OK
    for s in range(NSLOT):
        d = ((a >> (6 * s)) & 63) - 32
        if state[b + P_RAW + s] >= 0:
            state[b + P_DICE + s] = state[b + P_RAW + s] + d
    state[b + P_ADJ_PENDING] = 0
    nxt = -1
    for q in range(state[H_NP]):
        if state[PB + q * PSTRIDE + P_ADJ_PENDING]:
            nxt = q
            break
    if nxt >= 0:
        state[H_CUR] = nxt
        return E_OK
    state[H_PHASE] = PH_CAST  # transient; _advance sets the next phase
    _advance(state, cfg, conds, info, work)
    return E_OK


# ---------------------------------------------------------------- observation
@njit(cache=True)
def observe(state, player, out):
    """Copy ``state`` into ``out`` with what ``player`` may not see replaced by -1.

    Hidden: the chance word, the bag contents and the draw-pile order (bag *size* and pile size
    stay), other players' tokens by kind (their count stays in P_NHELD), other players' casts
    until all casts are revealed, and the adjusted dice of other members of the acting group
    until the group is resolved (their raw rolls stay). Returns ``out``.
    """
    out[:] = state
    out[H_RNG] = -1
    for k in range(NK):
        out[H_BAG + k] = -1
    for i in range(MAXC):
        out[DRAW + i] = -1
    for c in range(MAXC):
        if out[LOC + c] == LOC_DECK or out[LOC + c] == LOC_OUT:
            out[LOC + c] = -1
    casting = state[H_PHASE] == PH_CAST
    for p in range(state[H_NP]):
        if p == player:
            continue
        b = PB + p * PSTRIDE
        for k in range(NK):
            out[b + P_HELD + k] = -1
        if casting:
            out[b + P_N6] = -1
            out[b + P_SPEC] = -1
            for k in range(NK):
                out[b + P_CAST + k] = -1
        if state[H_PHASE] == PH_ADJUST and state[b + P_GROUPR] == state[H_GROUP]:
            for s in range(NSLOT):
                out[b + P_DICE + s] = state[b + P_RAW + s]
    return out


@njit(cache=True)
def tokens_total(state):
    """Lure tokens in bag + discard + held + played + kept (conserved: equals the mix)."""
    t = state[H_BAGN] + state[H_DISCN]
    for p in range(state[H_NP]):
        b = PB + p * PSTRIDE
        t += state[b + P_NHELD] + state[b + P_KEPT]
        for k in range(NK):
            t += state[b + P_CAST + k]
    return t
