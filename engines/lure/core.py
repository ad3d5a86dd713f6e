"""Lure rules core: compiled kernels of the one game protocol over a flat ``int64`` state.

The single copy of the rules of ``docs/rules/lure.md``. The step API
(:class:`engines.lure.game.LureState`) and the compiled game loop (:mod:`agents.loop`) both call
the kernels below, whose names, arguments and contracts are those of :mod:`engines.protocol`:
``init_state``, ``legal_actions``, ``apply_action``, ``is_terminal``, ``returns``,
``current_player``, ``num_players``, ``observe``, ``information_state``,
``observation_tensor``, ``determinize``, ``observed_action``, ``inventory``, ``outcome``,
``progress``. The state holds a copy of the config array (options and fish deck), so
``apply_action(state, a)`` needs nothing else.

Decisions and the action table
------------------------------
A round's simultaneous secret *Cast* (rules step 2) is played seat by seat (0, 1, ...), each
player's cast being a short sequence of small decisions: the number of d6, then the special
dice, then the lure tokens one at a time in non-decreasing kind order, then "finish". The casts
stay secret (``observe``) until the last player finishes; then they are revealed, the acting
groups are formed and the dice of the first group are rolled. During *Fish* (step 3) a player
who played ``k`` adjust lures and rolled at least one die makes up to ``k`` adjust decisions
(one step of one die each) after its group rolled; the members of a simultaneous group decide
in seat order, each seeing the group's raw rolls but not the others' adjustments. Everything
else (rolls, catches, draws, splashes, scoring) is automatic.

=========  ========================================================================  ========
action     meaning (legal when)                                                      text
=========  ========================================================================  ========
0..5       cast ``n`` d6 (the first decision of a cast)                              3d6
6..13      cast the special dice of mask ``m = a - 6`` (bit 1 d12, 2 d20, 4 d4;      special
           the second decision; ``m`` a subset of the player's available dice:       d12+d20
           not rested, the d4 only in Deep Waters)
14..21     add one lure token of kind ``k = a - 14`` (kinds in the order of          lure x3
           :data:`engines.lure.config.LURE_KINDS`: adjust, x1..x6, boost; only a
           held kind, ``k`` at least the kind added last)
22         finish the cast (after the special dice)                                  finish
                                                                                     cast
23 + 2*s   adjust die slot ``s`` by +1 (slots 0..7: d6#1..d6#5, d12, d20, d4; only   d6#2+1
           a rolled die below its highest face)
24 + 2*s   adjust die slot ``s`` by -1 (a rolled die above 1)                        d20-1
39         leave the remaining adjusts unused (only if ``adjust_may_be_unused``)     stop
                                                                                     adjusting
=========  ========================================================================  ========

A player's adjust decisions end by themselves when all its adjusts are used. With
``adjust_may_be_unused=False`` every adjust moves a die (39 is never legal); opposite steps may
cancel, so the reachable final dice are exactly those of the rule "at most ``k`` steps in all,
of the parity of ``k``, never past a face" (the rule of the previous one-action encoding).

Chance
------
:mod:`engines.protocol.chance`: the game's seed word (the ``seed`` of ``init_state``) is the
state's own splitmix64 word ``H_RNG``; draws use ``chance.rand_below`` (multiply-shift).

State layout (``int64``, length :data:`STATE_SIZE`)
---------------------------------------------------
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
H_DRAWPOS          7           position of the next card in DRAW (= cards revealed so far)
H_NINPLAY          8           fish cards in play this game
H_GROUP            9           rank of the acting group (fewest dice = 0)
H_NGROUPS          10          number of acting groups this round
H_RNG              11          splitmix64 word (hidden)
H_NTABLE           12          fish on the table
H_NCARDS           13          cards in the deck
H_BAGN, H_DISCN    14, 15      tokens in the lure bag / discard pile
H_STEP             16          decisions taken so far (hidden: it would count the lures of
                               a secret cast)
H_GDONE            17          acting groups resolved so far in the game (``progress(s, 0)``)
H_TRUNC            18          1 when the game was ended at MAX_GAME_LENGTH decisions
H_BAG .. +7        20..27      bag tokens per kind (hidden)
H_DISC .. +7       28..35      discard pile per kind (public)
PB + p * PSTRIDE   40 + 100 p  player block (offsets P_* below)
DRAW               540..603    draw pile: the next card is DRAW[H_DRAWPOS] (hidden)
TABLE              604..667    fish on the table, card indices in reveal order
LOC                668..731    per card: LOC_OUT, LOC_DECK, LOC_TABLE, LOC_CAUGHT + player
CROUND             732..795    per card: round caught (0 = not caught)
CGROUP             796..859    per card: turn-order rank of the catcher's group
CREVEAL            860..923    per card: round revealed (0 = not yet)
CLAIM_P/G/S        924..1115   per card (stubborn): claimant, its group rank, its sum
S_CFG              1116..2351  static: the config array (``LureConfig.to_array()``: options,
                               deck conditions and info; layout in
                               :mod:`engines.lure.config`), copied by ``init_state``
=================  ==========  ==============================================================

Player block offsets: P_CAST_DONE 0, P_N6 1, P_SPEC 2, P_CAST 3..10 (tokens cast per kind),
P_HELD 11..18 (tokens held per kind), P_NHELD 19, P_KEPT 20 (boosts kept), P_POINTS 21 (fish
points), P_NFISH 22, P_TROPHY 23, P_RESTING 24 (special dice unavailable this round), P_NDICE
25, P_GROUPR 26, P_RAW 27..34 (rolled faces per slot, -1 unused), P_DICE 35..42 (after
adjusts), P_ADJ_PENDING 43, P_CAUGHT 44 (fish caught this round), P_SUM 45, P_LAST_NDICE 46
(dice cast last round, -1 before), P_SCORE 47, P_WIN 48 (1 for a winner), P_NCAUGHT_ROUNDS 49
(rounds with a catch), the public record of the player's last finished round: P_LAST_N6 50,
P_LAST_SPEC 51, P_LAST_CAST 52..59, P_LAST_SUM 60, P_LAST_CAUGHT 61, P_LAST_DICE 62..69,
P_LAST_GROUPR 70 (turn-order rank); the cast in progress: P_CSTEP 71 (0 d6, 1 special dice, 2
lures, 3 done), P_LASTK 72 (kind added last); P_ADJ_LEFT 73 (adjust decisions left); the roll
features computed when the player's group resolves: P_MAXC 74, P_ODD 75, P_EVEN 76, P_NSPEC 77,
P_LUREU 78 (a lure was used), P_VCOUNT 79..99 (dice and extra-die lures showing each value
0..20).

Observation and information state
---------------------------------
``observe(s, p, out)`` (``OBS_SIZE`` = the state up to S_CFG) is the state with what ``p`` may
not see replaced by a canonical value: ``H_RNG`` and ``H_STEP`` 0; the bag by kind and the draw
pile -1; ``LOC`` -1 for an unrevealed card (in the draw pile, or, in Deep Waters, removed at
random); other players' tokens by kind -1 (their count stays); during the cast phase another
player's cast (``P_N6``, ``P_SPEC``, ``P_CAST`` -1, ``P_CSTEP`` 0 or 3 = done, ``P_LASTK`` 0)
and ``P_NHELD`` = its tokens held **plus cast**; during an adjust, the other members of the
acting group show their raw roll as ``P_DICE`` and ``P_ADJ_LEFT`` = their adjusts if they have
not finished, else 0. ``information_state(s, p, out)`` (``INFO_SIZE`` = ``STATE_SIZE``) is the
observation plus the static section (options and deck): the state keeps every public record
``determinize`` needs (catches, reveal rounds, stubborn claims, the last round of each player),
so nothing else is remembered. One limit (as the brief allows): when the discard pile is
shuffled back into an empty bag its composition is public, and tokens drawn later come from
it; the information state does not track that, so determinize deals the unknown tokens as if
any of them could be anywhere unknown.

Determinization (``determinize(s, p, seed, out)``)
--------------------------------------------------
``out`` = ``information_state(s, p)`` with the hidden parts filled from a generator seeded by
``seed`` only (never from where the hidden items really are), in this order:

1. fish: the unrevealed cards (``LOC`` -1), sorted by id, are shuffled (Fisher-Yates); the first
   ``H_NDRAW`` form the draw pile in that order, the others (Deep Waters) are out of the game;
2. tokens: the unknown tokens (the mix minus the discard pile, ``p``'s held and cast tokens,
   the revealed casts and the kept boosts), sorted by kind, are dealt uniformly at random to the
   other players (seat order, each its public count: held, or held+cast during the cast phase)
   and the rest is the bag;
3. secret casts (cast phase): another player who finished its cast gets a new one: ``n`` d6
   uniform in 0..5, each available special die with probability 1/2, each kind ``c`` tokens
   uniform in 0..held; a player that has not finished (or is in the middle of its cast) is at
   its first cast decision with all its tokens held;
4. adjusts (adjust phase): another member of the acting group who finished its adjusts gets
   final dice uniform among all those its adjusts can reach from the raw roll (at most ``k``
   steps, parity of ``k`` when adjusts must be used, never past a face); one that has not
   finished is at its first adjust decision with its raw roll;
5. the chance word is ``chance.mix(seed ^ RNG_SALT)``; ``H_STEP`` is 0 (a determinized game
   counts its decisions afresh).

So ``determinize`` is a function of ``(information_state(s, p), seed)``, and
``determinize(determinize(s, p, s1), p, s2) == determinize(s, p, s2)`` bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
from engines import dice

from engines.protocol import chance
from engines.lure import config
from engines.lure import decks

# ---------------------------------------------------------------- protocol constants
GAME_NAME = "lure"
MIN_PLAYERS = 2
MAX_PLAYERS = 5
MAXP = MAX_PLAYERS
MAXC = decks.MAX_CARDS
NK = 8
K_ADJ = 0
K_BOOST = 7
NSLOT = 8
SLOT_FACES = np.array([6, 6, 6, 6, 6, 12, 20, 4], np.int64)
MAX_TOKENS = 60
"""Most lure tokens a mix may hold (``LureConfig`` checks it)."""

A_CAST_D6 = 0
A_SPECIAL = 6
A_LURE = 14
A_FINISH = 22
A_ADJUST = 23
A_STOP = 39
NUM_DISTINCT_ACTIONS = 40
HIDDEN_ACTION = NUM_DISTINCT_ACTIONS
MAX_LEGAL = 2 * NSLOT + 1
MAX_GAME_LENGTH = MAXC * (MAX_PLAYERS * 3 + 2 * MAX_TOKENS)
"""A proven bound: every round reveals at least one card (so at most ``MAX_CARDS`` rounds) and
has at most 3 cast decisions per player plus one decision per token cast and per adjust
played (at most ``MAX_TOKENS`` each). The core still ends a game that reaches it."""

H_NP, H_DEEP, H_PHASE, H_ROUND, H_FINAL, H_CUR = 0, 1, 2, 3, 4, 5
H_NDRAW, H_DRAWPOS, H_NINPLAY, H_GROUP, H_NGROUPS, H_RNG = 6, 7, 8, 9, 10, 11
H_NTABLE, H_NCARDS, H_BAGN, H_DISCN, H_STEP, H_GDONE, H_TRUNC = 12, 13, 14, 15, 16, 17, 18
H_BAG = 20
H_DISC = 28
PB = 40
PSTRIDE = 100
P_CAST_DONE, P_N6, P_SPEC, P_CAST, P_HELD = 0, 1, 2, 3, 11
P_NHELD, P_KEPT, P_POINTS, P_NFISH, P_TROPHY, P_RESTING = 19, 20, 21, 22, 23, 24
P_NDICE, P_GROUPR, P_RAW, P_DICE, P_ADJ_PENDING, P_CAUGHT = 25, 26, 27, 35, 43, 44
P_SUM, P_LAST_NDICE, P_SCORE, P_WIN, P_NCAUGHT_ROUNDS = 45, 46, 47, 48, 49
P_LAST_N6, P_LAST_SPEC, P_LAST_CAST, P_LAST_SUM, P_LAST_CAUGHT, P_LAST_DICE = 50, 51, 52, 60, 61, 62
P_LAST_GROUPR = 70
P_CSTEP, P_LASTK, P_ADJ_LEFT = 71, 72, 73
P_MAXC, P_ODD, P_EVEN, P_NSPEC, P_LUREU, P_VCOUNT = 74, 75, 76, 77, 78, 79
DRAW = PB + MAXP * PSTRIDE
TABLE = DRAW + MAXC
LOC = TABLE + MAXC
CROUND = LOC + MAXC
CGROUP = CROUND + MAXC
CREVEAL = CGROUP + MAXC
CLAIM_P = CREVEAL + MAXC
CLAIM_G = CLAIM_P + MAXC
CLAIM_S = CLAIM_G + MAXC
S_CFG = CLAIM_S + MAXC
CONFIG_SIZE = config.CONFIG_SIZE
STATE_SIZE = S_CFG + CONFIG_SIZE
OBS_SIZE = S_CFG
INFO_SIZE = STATE_SIZE
S_CONDS = S_CFG + config.C_CONDS
S_INFO = S_CFG + config.C_INFO

CS_D6, CS_SPECIAL, CS_LURES, CS_DONE = 0, 1, 2, 3
PH_CAST, PH_ADJUST, PH_END = 0, 1, 2
LOC_OUT, LOC_DECK, LOC_TABLE, LOC_CAUGHT = 0, 1, 2, 3

DET_SALT = 0x4C5552455F444554  # "LURE_DET": the generator of determinize's samples
RNG_SALT = 0x4C5552455F524E47  # "LURE_RNG": the chance word of a determinized state

INVENTORY_SIZE = MAXC + NK
"""Per card id (0..MAX_CARDS-1): how many times it sits in the draw pile, on the table, caught
or out of the game (1 for each card of the deck); then per token kind: bag + discard + held +
cast + kept."""

SEAT_FIELDS = ("score", "fish", "trophies", "boosts", "win")
OUTCOME_FIELDS = (tuple(f"{f}_{p}" for f in SEAT_FIELDS for p in range(MAX_PLAYERS))
                  + ("rounds", "decisions", "truncated")
                  + tuple(f"card_{c}" for c in range(MAXC)))
"""Per seat ``score_p``, ``fish_p``, ``trophies_p``, ``boosts_p`` (kept), ``win_p`` (1 for a
winner), for p in 0..4 (0 for absent seats); ``rounds``, ``decisions``, ``truncated``; then per
card ``card_c`` the packed record of :func:`card_record` (decode with
:func:`engines.lure.game.card_outcomes`)."""
O_ROUNDS = len(SEAT_FIELDS) * MAX_PLAYERS
O_CARDS = O_ROUNDS + 3

# observation tensor layout (float32)
T_HEAD = 40
T_PLAYER = 57
T_CARD = 9
TENSOR_SIZE = T_HEAD + MAX_PLAYERS * T_PLAYER + MAXC * T_CARD


# ---------------------------------------------------------------- small helpers
@njit(cache=True)
def popcount3(spec):
    """Number of special dice in a mask (bits 1, 2, 4)."""
    return (spec & 1) + ((spec >> 1) & 1) + ((spec >> 2) & 1)


@njit(cache=True)
def conds_of(s):
    """The deck's condition rows, a view ``int64 (MAX_CARDS, dice.COND_LEN)`` of the state."""
    return s[S_CONDS:S_CONDS + MAXC * dice.COND_LEN].reshape((MAXC, dice.COND_LEN))


@njit(cache=True)
def cond_flags(s, c):
    """The requirement flags (``dice.F_*``) of card ``c`` (no view of the table needed)."""
    return s[S_CONDS + c * dice.COND_LEN + dice.FLAGS]


@njit(cache=True)
def card_info(s, c, j):
    """Column ``j`` (``decks.I_*``: points, splash, trophy, set) of card ``c``'s info row."""
    return s[S_INFO + c * decks.INFO_LEN + j]


@njit(cache=True)
def cfg_of(s, i):
    """Option ``i`` (``config.C_*``) of the game in state ``s``."""
    return s[S_CFG + i]


@njit(cache=True)
def available_specials(s, p):
    """Mask of the special dice player ``p`` may cast this round (rules step 2 and 4)."""
    full = 3 | (4 if s[H_DEEP] else 0)
    return full & ~s[PB + p * PSTRIDE + P_RESTING]


@njit(cache=True)
def player_features(s, p):
    """Roll features of player ``p``'s dice and extra-die lures, stored in its block.

    Writes ``P_SUM``, ``P_MAXC``, ``P_ODD``, ``P_EVEN``, ``P_NSPEC``, ``P_LUREU`` and the value
    counts ``P_VCOUNT`` (rules: *Fish cards*; extra-die lures count as dice showing ``k``)."""
    b = PB + p * PSTRIDE
    for v in range(dice.MAX_VALUE + 1):
        s[b + P_VCOUNT + v] = 0
    total = 0
    maxc = 0
    odd = 1
    even = 1
    for t in range(NSLOT):
        v = s[b + P_DICE + t]
        if v >= 0:
            total += v
            s[b + P_VCOUNT + v] += 1
            if s[b + P_VCOUNT + v] > maxc:
                maxc = s[b + P_VCOUNT + v]
            if v & 1:
                even = 0
            else:
                odd = 0
    lure = 0
    for k in range(NK):
        if s[b + P_CAST + k] > 0:
            lure = 1
    for v in range(1, 7):
        n = s[b + P_CAST + v]
        if n > 0:
            total += v * n
            s[b + P_VCOUNT + v] += n
            if s[b + P_VCOUNT + v] > maxc:
                maxc = s[b + P_VCOUNT + v]
            if v & 1:
                even = 0
            else:
                odd = 0
    s[b + P_SUM] = total
    s[b + P_MAXC] = maxc
    s[b + P_ODD] = odd
    s[b + P_EVEN] = even
    s[b + P_NSPEC] = popcount3(s[b + P_SPEC])
    s[b + P_LUREU] = lure


@njit(cache=True)
def meets(s, conds, p, c):
    """True when player ``p``'s stored roll features (:func:`player_features`) meet card ``c``
    (``conds``: :func:`conds_of` of ``s``)."""
    b = PB + p * PSTRIDE
    return dice.condition_met(conds, c, s[b + P_SUM], s[b + P_MAXC], s[b + P_ODD] != 0,
                              s[b + P_EVEN] != 0, s[b + P_NSPEC], s[b + P_LUREU] != 0,
                              s[b + P_VCOUNT:b + P_VCOUNT + dice.MAX_VALUE + 1])


# ---------------------------------------------------------------- lure bag
@njit(cache=True)
def draw_lure(s, p):
    """Player ``p`` draws one lure; the discard pile is shuffled back in only when the bag is
    empty. Returns the kind drawn, or -1 when bag and discard pile are both empty (rules:
    *Components*, lure bag)."""
    if s[H_BAGN] == 0:
        for k in range(NK):
            s[H_BAG + k] += s[H_DISC + k]
            s[H_DISC + k] = 0
        s[H_BAGN] = s[H_DISCN]
        s[H_DISCN] = 0
    if s[H_BAGN] == 0:
        return -1
    r = chance.rand_below(s, H_RNG, s[H_BAGN])
    k = 0
    while r >= s[H_BAG + k]:
        r -= s[H_BAG + k]
        k += 1
    s[H_BAG + k] -= 1
    s[H_BAGN] -= 1
    b = PB + p * PSTRIDE
    s[b + P_HELD + k] += 1
    s[b + P_NHELD] += 1
    return k


# ---------------------------------------------------------------- setup and rounds
@njit(cache=True, inline="always")
def _reveal_one(s):
    pos = s[H_DRAWPOS]
    c = s[DRAW + pos]
    s[H_DRAWPOS] = pos + 1
    s[H_NDRAW] -= 1
    s[TABLE + s[H_NTABLE]] = c
    s[H_NTABLE] += 1
    s[LOC + c] = LOC_TABLE
    s[CREVEAL + c] = s[H_ROUND]
    sp = card_info(s, c, decks.I_SPLASH)
    if sp == decks.SPLASH_LURE:
        for p in range(s[H_NP]):
            draw_lure(s, p)
    return sp


@njit(cache=True)
def start_round(s):
    """Begin a round: reset the round's fields, *Splash* (step 1), open the *Cast* (step 2)."""
    np_ = s[H_NP]
    for p in range(np_):
        b = PB + p * PSTRIDE
        s[b + P_CAST_DONE] = 0
        s[b + P_N6] = 0
        s[b + P_SPEC] = 0
        s[b + P_CSTEP] = CS_D6
        s[b + P_LASTK] = 0
        s[b + P_ADJ_LEFT] = 0
        for k in range(NK):
            s[b + P_CAST + k] = 0
        for t in range(NSLOT):
            s[b + P_RAW + t] = -1
            s[b + P_DICE + t] = -1
        s[b + P_ADJ_PENDING] = 0
        s[b + P_CAUGHT] = 0
        s[b + P_SUM] = 0
        s[b + P_NDICE] = 0
        s[b + P_GROUPR] = -1
    n = cfg_of(s, config.C_SPLASH_SMALL) if np_ <= cfg_of(s, config.C_SMALL_MAX) else cfg_of(
        s, config.C_SPLASH_LARGE)
    i = 0
    while i < n and s[H_NDRAW] > 0:
        if _reveal_one(s) == decks.SPLASH_FISH:
            n += 1
        i += 1
    if s[H_NDRAW] == 0:
        s[H_FINAL] = 1
    s[H_PHASE] = PH_CAST
    s[H_CUR] = 0


@njit(cache=True)
def init_state(cfg, seed, out):
    """A new game in ``out`` (``int64 (STATE_SIZE,)``) from the config array ``cfg``
    (``int64 (CONFIG_SIZE,)``, ``LureConfig.to_array()``) and the game's seed word ``seed``
    (``int64``), up to the first decision: the deck is shuffled (Deep Waters: the new cards are
    shuffled in and ``C_DEEP_REMOVE`` cards removed at random, rules *End and scoring*), players
    draw ``C_START_LURES`` lures each in seat order, and the first splash is played."""
    s = out
    s[:] = 0
    s[S_CFG:S_CFG + CONFIG_SIZE] = cfg
    np_ = cfg[config.C_NPLAYERS]
    deep = cfg[config.C_DEEP]
    ncards = cfg[config.C_NCARDS]
    s[H_NP] = np_
    s[H_DEEP] = deep
    s[H_NCARDS] = ncards
    s[H_RNG] = seed
    s[H_ROUND] = 1
    for c in range(MAXC):
        s[CLAIM_P + c] = -1
    n = 0
    for c in range(ncards):
        if card_info(s, c, decks.I_SET) == decks.SET_BASE or deep:
            s[DRAW + n] = c
            n += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = chance.rand_below(s, H_RNG, i + 1)
        t = s[DRAW + i]
        s[DRAW + i] = s[DRAW + j]
        s[DRAW + j] = t
    start = 0
    if deep:
        start = min(cfg[config.C_DEEP_REMOVE], n - 1)
        for i in range(start):
            s[LOC + s[DRAW + i]] = LOC_OUT
        for i in range(n - start):
            s[DRAW + i] = s[DRAW + start + i]
        for i in range(n - start, n):
            s[DRAW + i] = 0
        n -= start
    for i in range(n):
        s[LOC + s[DRAW + i]] = LOC_DECK
    s[H_NDRAW] = n
    s[H_NINPLAY] = n
    tot = 0
    for k in range(NK):
        s[H_BAG + k] = cfg[config.C_MIX + k]
        tot += cfg[config.C_MIX + k]
    s[H_BAGN] = tot
    for p in range(np_):
        s[PB + p * PSTRIDE + P_LAST_NDICE] = -1
        for t in range(NSLOT):
            s[PB + p * PSTRIDE + P_LAST_DICE + t] = -1
    for _ in range(cfg[config.C_START_LURES]):
        for p in range(np_):
            draw_lure(s, p)
    start_round(s)


# ---------------------------------------------------------------- legal actions
@njit(cache=True)
def legal_actions(s, out):
    """The legal actions of the player to decide, ascending, in ``out`` (``int64
    (MAX_LEGAL,)``); returns how many (0 once the game is over). Table: module docstring."""
    ph = s[H_PHASE]
    if ph == PH_END:
        return 0
    p = s[H_CUR]
    b = PB + p * PSTRIDE
    n = 0
    if ph == PH_CAST:
        step = s[b + P_CSTEP]
        if step == CS_D6:
            for i in range(6):
                out[i] = A_CAST_D6 + i
            return 6
        if step == CS_SPECIAL:
            avail = available_specials(s, p)
            for m in range(8):
                if (m & ~avail) == 0:
                    out[n] = A_SPECIAL + m
                    n += 1
            return n
        for k in range(s[b + P_LASTK], NK):
            if s[b + P_HELD + k] > 0:
                out[n] = A_LURE + k
                n += 1
        out[n] = A_FINISH
        return n + 1
    for t in range(NSLOT):
        if s[b + P_RAW + t] >= 0:
            v = s[b + P_DICE + t]
            if v < SLOT_FACES[t]:
                out[n] = A_ADJUST + 2 * t
                n += 1
            if v > 1:
                out[n] = A_ADJUST + 2 * t + 1
                n += 1
    if cfg_of(s, config.C_ADJ_UNUSED) != 0:
        out[n] = A_STOP
        n += 1
    return n


# ---------------------------------------------------------------- fishing
@njit_per_type
def _catch(s, c, p, g, i):
    """Player ``p`` (group rank ``g``) catches card ``c``, which sits at ``TABLE[i]``."""
    b = PB + p * PSTRIDE
    s[LOC + c] = LOC_CAUGHT + p
    s[CROUND + c] = s[H_ROUND]
    s[CGROUP + c] = g
    s[b + P_POINTS] += card_info(s, c, decks.I_POINTS)
    s[b + P_NFISH] += 1
    s[b + P_TROPHY] += card_info(s, c, decks.I_TROPHY)
    s[b + P_CAUGHT] += 1
    n = s[H_NTABLE]
    for j in range(i, n - 1):
        s[TABLE + j] = s[TABLE + j + 1]
    s[TABLE + n - 1] = 0
    s[H_NTABLE] = n - 1


@njit(cache=True)
def _roll_group(s):
    """Roll the dice of the acting group; returns True when an adjust decision is pending."""
    np_ = s[H_NP]
    g = s[H_GROUP]
    pending = -1
    for p in range(np_):
        b = PB + p * PSTRIDE
        if s[b + P_GROUPR] != g:
            continue
        for t in range(s[b + P_N6]):
            v = 1 + chance.rand_below(s, H_RNG, 6)
            s[b + P_RAW + t] = v
            s[b + P_DICE + t] = v
        spec = s[b + P_SPEC]
        for i in range(3):
            if spec & (1 << i):
                v = 1 + chance.rand_below(s, H_RNG, SLOT_FACES[5 + i])
                s[b + P_RAW + 5 + i] = v
                s[b + P_DICE + 5 + i] = v
        if s[b + P_CAST + K_ADJ] > 0 and s[b + P_NDICE] > 0:
            s[b + P_ADJ_PENDING] = 1
            s[b + P_ADJ_LEFT] = s[b + P_CAST + K_ADJ]
            if pending < 0:
                pending = p
    if pending >= 0:
        s[H_PHASE] = PH_ADJUST
        s[H_CUR] = pending
        return True
    return False


@njit(cache=True, inline="always")
def _resolve_group(s):
    """Catch every fish met by the acting group (rules step 3): the member who meets it takes
    it; simultaneous members: the lower sum takes it, equal lowest sums leave it; a stubborn
    fish is only claimed (the group's taker, or nobody on a tie) and caught at the round's
    end by its last claimant."""
    np_ = s[H_NP]
    g = s[H_GROUP]
    for p in range(np_):
        if s[PB + p * PSTRIDE + P_GROUPR] == g:
            player_features(s, p)
    s[H_GDONE] += 1
    if s[H_NTABLE] == 0:
        return
    conds = conds_of(s)
    for i in range(s[H_NTABLE] - 1, -1, -1):  # backwards: a catch shifts only later fish
        c = s[TABLE + i]
        best = -1
        bsum = 1 << 40
        tie = False
        for p in range(np_):
            b = PB + p * PSTRIDE
            if s[b + P_GROUPR] != g or not meets(s, conds, p, c):
                continue
            if s[b + P_SUM] < bsum:
                best = p
                bsum = s[b + P_SUM]
                tie = False
            elif s[b + P_SUM] == bsum:
                tie = True
        if best < 0:
            continue
        if conds[c, dice.FLAGS] & dice.F_STUBBORN:
            s[CLAIM_P + c] = -1 if tie else best
            s[CLAIM_G + c] = g
            s[CLAIM_S + c] = bsum
        elif not tie:
            _catch(s, c, best, g, i)


@njit(cache=True)
def _score(s):
    """Final scores and winners (rules: *End and scoring*): fish points + boost points per kept
    boost + unused-lure points + (Deep Waters only) the trophy bonus to the player(s) with the
    most trophies (at least one); the highest score wins, ties to fewer fish, remaining ties
    shared."""
    np_ = s[H_NP]
    maxt = 0
    if s[H_DEEP]:  # the trophy bonus is a Deep Waters rule
        for p in range(np_):
            maxt = max(maxt, s[PB + p * PSTRIDE + P_TROPHY])
    best = -(1 << 40)
    for p in range(np_):
        b = PB + p * PSTRIDE
        sc = (s[b + P_POINTS] + cfg_of(s, config.C_BOOST_POINTS) * s[b + P_KEPT]
              + cfg_of(s, config.C_UNUSED_LURE_POINTS) * s[b + P_NHELD])
        if maxt > 0 and s[b + P_TROPHY] == maxt:
            sc += cfg_of(s, config.C_TROPHY_BONUS)
        s[b + P_SCORE] = sc
        best = max(best, sc)
    fewest = 1 << 40
    for p in range(np_):
        b = PB + p * PSTRIDE
        if s[b + P_SCORE] == best:
            fewest = min(fewest, s[b + P_NFISH])
    for p in range(np_):
        b = PB + p * PSTRIDE
        s[b + P_WIN] = 1 if (s[b + P_SCORE] == best and s[b + P_NFISH] == fewest) else 0
    s[H_PHASE] = PH_END
    s[H_CUR] = -1


@njit(cache=True)
def _end_round(s):
    """Stubborn fish, lure draws, discards and kept boosts, resting dice, the end (steps 3-4)."""
    np_ = s[H_NP]
    i = 0
    while i < s[H_NTABLE]:  # stubborn fish go to their last claimant; claims are cleared
        c = s[TABLE + i]
        who = s[CLAIM_P + c]
        g = s[CLAIM_G + c]
        s[CLAIM_P + c] = -1
        s[CLAIM_G + c] = 0
        s[CLAIM_S + c] = 0
        if (cond_flags(s, c) & dice.F_STUBBORN) and who >= 0:
            _catch(s, c, who, g, i)
        else:
            i += 1
    # a player who caught nothing draws one lure (turn order, seat order within a group)
    for g in range(s[H_NGROUPS]):
        for p in range(np_):
            b = PB + p * PSTRIDE
            if s[b + P_GROUPR] == g and s[b + P_CAUGHT] == 0:
                draw_lure(s, p)
    for p in range(np_):
        b = PB + p * PSTRIDE
        s[b + P_LAST_N6] = s[b + P_N6]
        s[b + P_LAST_SPEC] = s[b + P_SPEC]
        s[b + P_LAST_SUM] = s[b + P_SUM]
        s[b + P_LAST_CAUGHT] = s[b + P_CAUGHT]
        s[b + P_LAST_GROUPR] = s[b + P_GROUPR]
        for t in range(NSLOT):
            s[b + P_LAST_DICE + t] = s[b + P_DICE + t]
        for k in range(NK):
            n = s[b + P_CAST + k]
            s[b + P_LAST_CAST + k] = n
            if k == K_BOOST and s[b + P_CAUGHT] > 0:
                s[b + P_KEPT] += n
            else:
                s[H_DISC + k] += n
                s[H_DISCN] += n
            s[b + P_CAST + k] = 0
        if s[b + P_CAUGHT] > 0:
            s[b + P_NCAUGHT_ROUNDS] += 1
        s[b + P_RESTING] = s[b + P_SPEC]
        s[b + P_LAST_NDICE] = s[b + P_NDICE]
    if s[H_FINAL]:
        _score(s)
    else:
        s[H_ROUND] += 1
        start_round(s)


@njit(cache=True)
def _advance(s):
    """Resolve the acting group, then run the next groups until a decision or the round's end."""
    while True:
        _resolve_group(s)
        s[H_GROUP] += 1
        if s[H_GROUP] >= s[H_NGROUPS]:
            _end_round(s)
            return
        if _roll_group(s):
            return


@njit(cache=True, inline="always")
def _reveal(s):
    """All casts are in: reveal, rank the groups by dice count (extra-die lures do not count),
    roll the first group (rules step 3)."""
    np_ = s[H_NP]
    for p in range(np_):
        b = PB + p * PSTRIDE
        s[b + P_NDICE] = s[b + P_N6] + popcount3(s[b + P_SPEC])
    ng = 0
    for p in range(np_):
        vp = s[PB + p * PSTRIDE + P_NDICE]
        rank = 0
        first = True  # first seat showing this dice count
        for q in range(np_):
            vq = s[PB + q * PSTRIDE + P_NDICE]
            if vq < vp:
                dup = False  # count each smaller value once
                for r in range(q):
                    if s[PB + r * PSTRIDE + P_NDICE] == vq:
                        dup = True
                if not dup:
                    rank += 1
            elif vq == vp and q < p:
                first = False
        s[PB + p * PSTRIDE + P_GROUPR] = rank
        if first:
            ng += 1
    s[H_NGROUPS] = ng
    s[H_GROUP] = 0
    s[H_PHASE] = PH_ADJUST  # transient: _roll_group / _advance set the next phase
    if _roll_group(s):
        return
    _advance(s)


@njit(cache=True)
def apply_action(s, a):
    """Apply the legal action ``a`` (:func:`legal_actions`) of the player to decide, then run
    every automatic step (reveal, rolls, catches, draws, splashes, scoring) up to the next
    decision. Rules: *A round* steps 2-4, *End and scoring*. The action is not checked (the
    step API and the game loop check it); the game ends, flagged truncated, at
    ``MAX_GAME_LENGTH`` decisions."""
    p = s[H_CUR]
    b = PB + p * PSTRIDE
    s[H_STEP] += 1
    if s[H_PHASE] == PH_CAST:
        step = s[b + P_CSTEP]
        if step == CS_D6:
            s[b + P_N6] = a - A_CAST_D6
            s[b + P_CSTEP] = CS_SPECIAL
        elif step == CS_SPECIAL:
            s[b + P_SPEC] = a - A_SPECIAL
            s[b + P_CSTEP] = CS_LURES
            s[b + P_LASTK] = 0
        elif a != A_FINISH:
            k = a - A_LURE
            s[b + P_HELD + k] -= 1
            s[b + P_NHELD] -= 1
            s[b + P_CAST + k] += 1
            s[b + P_LASTK] = k
        else:
            s[b + P_CSTEP] = CS_DONE
            s[b + P_CAST_DONE] = 1
            if p + 1 < s[H_NP]:
                s[H_CUR] = p + 1
            else:
                _reveal(s)
    else:
        if a == A_STOP:
            s[b + P_ADJ_LEFT] = 0
        else:
            t = (a - A_ADJUST) >> 1
            s[b + P_DICE + t] += 1 if ((a - A_ADJUST) & 1) == 0 else -1
            s[b + P_ADJ_LEFT] -= 1
        if s[b + P_ADJ_LEFT] == 0:
            s[b + P_ADJ_PENDING] = 0
            nxt = -1
            for q in range(p + 1, s[H_NP]):
                if s[PB + q * PSTRIDE + P_ADJ_PENDING]:
                    nxt = q
                    break
            if nxt >= 0:
                s[H_CUR] = nxt
            else:
                _advance(s)
    if s[H_STEP] >= MAX_GAME_LENGTH and s[H_PHASE] != PH_END:
        s[H_TRUNC] = 1
        _score(s)


# ---------------------------------------------------------------- simple queries
@njit(cache=True)
def is_terminal(s):
    """True once the game is over (after the final round, or truncated)."""
    return s[H_PHASE] == PH_END


@njit(cache=True)
def current_player(s):
    """The seat to decide, -1 once the game is over."""
    return s[H_CUR]


@njit(cache=True)
def num_players(s):
    """The player count of this game."""
    return s[H_NP]


@njit(cache=True)
def returns(s, out):
    """Each seat's return in ``out`` (``float64 (MAX_PLAYERS,)``): ``1/k`` for each of the
    ``k`` winners once the game is over (rules *End and scoring*), else 0."""
    out[:] = 0.0
    if s[H_PHASE] != PH_END:
        return
    nw = 0
    for p in range(s[H_NP]):
        nw += s[PB + p * PSTRIDE + P_WIN]
    for p in range(s[H_NP]):
        out[p] = s[PB + p * PSTRIDE + P_WIN] / nw


@njit(cache=True)
def progress(s, level):
    """Search-horizon counters: ``level`` 0 = acting groups resolved so far (a turn of
    fishing), any other level = the round number."""
    if level == 0:
        return s[H_GDONE]
    return s[H_ROUND]


@njit(cache=True)
def observed_action(s, a, p):
    """Action ``a`` (about to be taken in ``s`` by the player to act) as seat ``p`` sees it:
    ``a`` for the acting seat; ``HIDDEN_ACTION`` for everyone else (every Lure decision is a
    secret cast or a secret adjust; casts are revealed together at the end of the cast phase
    and adjusted dice when the group resolves, in the state)."""
    if p == s[H_CUR]:
        return a
    return HIDDEN_ACTION


@njit(cache=True)
def inventory(s, out):
    """Count of each physical item in ``out`` (``int64 (INVENTORY_SIZE,)``): per card id its
    appearances in the draw pile, on the table, caught or out of the game (1 for every card of
    the deck); then per token kind bag + discard + held + cast (+ kept, boosts). Constant over
    a game and under :func:`determinize`."""
    out[:] = 0
    pos = s[H_DRAWPOS]
    for i in range(s[H_NDRAW]):
        out[s[DRAW + pos + i]] += 1
    for i in range(s[H_NTABLE]):
        out[s[TABLE + i]] += 1
    for c in range(s[H_NCARDS]):
        if s[LOC + c] == LOC_OUT or s[LOC + c] >= LOC_CAUGHT:
            out[c] += 1
    for k in range(NK):
        t = s[H_BAG + k] + s[H_DISC + k]
        for p in range(s[H_NP]):
            b = PB + p * PSTRIDE
            t += s[b + P_HELD + k] + s[b + P_CAST + k]
            if k == K_BOOST:
                t += s[b + P_KEPT]
        out[MAXC + k] = t


@njit(cache=True)
def card_record(s, c):
    """Packed public record of card ``c``: bits 0-2 the catcher + 2 (0 not in play, 1 in play
    and not caught, 2..6 seats 0..4), bits 3-9 the round caught, bits 10-12 the catcher's group
    rank + 1 (0 not caught), bits 13-19 the round revealed (0 never)."""
    loc = s[LOC + c]
    if c >= s[H_NCARDS] or (loc == LOC_OUT):
        return 0
    if loc >= LOC_CAUGHT:
        return ((loc - LOC_CAUGHT + 2) | (s[CROUND + c] << 3) | ((s[CGROUP + c] + 1) << 10)
                | (s[CREVEAL + c] << 13))
    return 1 | (s[CREVEAL + c] << 13)


@njit(cache=True)
def outcome(s, out):
    """The per-game statistics (``int64 (len(OUTCOME_FIELDS),)``, names in
    :data:`OUTCOME_FIELDS`): per seat score, fish, trophies, kept boosts and win (1 for a
    winner); rounds, decisions, truncated; per card its :func:`card_record`."""
    out[:] = 0
    for p in range(s[H_NP]):
        b = PB + p * PSTRIDE
        out[p] = s[b + P_SCORE]
        out[MAX_PLAYERS + p] = s[b + P_NFISH]
        out[2 * MAX_PLAYERS + p] = s[b + P_TROPHY]
        out[3 * MAX_PLAYERS + p] = s[b + P_KEPT]
        out[4 * MAX_PLAYERS + p] = s[b + P_WIN]
    out[O_ROUNDS] = s[H_ROUND]
    out[O_ROUNDS + 1] = s[H_STEP]
    out[O_ROUNDS + 2] = s[H_TRUNC]
    for c in range(MAXC):
        out[O_CARDS + c] = card_record(s, c)


# ---------------------------------------------------------------- observation
@njit(cache=True)
def _mask(s, p, out):
    """``out[:OBS_SIZE]`` = the dynamic part of ``s`` as seat ``p`` sees it (module docstring,
    *Observation and information state*)."""
    out[:OBS_SIZE] = s[:OBS_SIZE]
    out[H_RNG] = 0
    out[H_STEP] = 0
    for k in range(NK):
        out[H_BAG + k] = -1
    for i in range(MAXC):
        out[DRAW + i] = -1
    deep = s[H_DEEP] != 0
    for c in range(s[H_NCARDS]):
        loc = s[LOC + c]
        if loc == LOC_DECK or (deep and loc == LOC_OUT):
            out[LOC + c] = -1
    ph = s[H_PHASE]
    for q in range(s[H_NP]):
        if q == p:
            continue
        b = PB + q * PSTRIDE
        for k in range(NK):
            out[b + P_HELD + k] = -1
        if ph == PH_CAST:
            tot = s[b + P_NHELD]
            for k in range(NK):
                tot += s[b + P_CAST + k]
                out[b + P_CAST + k] = -1
            out[b + P_NHELD] = tot
            out[b + P_N6] = -1
            out[b + P_SPEC] = -1
            out[b + P_CSTEP] = CS_DONE if s[b + P_CAST_DONE] else CS_D6
            out[b + P_LASTK] = 0
        elif ph == PH_ADJUST and s[b + P_GROUPR] == s[H_GROUP]:
            for t in range(NSLOT):
                out[b + P_DICE + t] = s[b + P_RAW + t]
            out[b + P_ADJ_LEFT] = s[b + P_CAST + K_ADJ] if s[b + P_ADJ_PENDING] else 0


@njit(cache=True)
def observe(s, p, out):
    """What seat ``p`` sees now, in ``out`` (``int64 (OBS_SIZE,)``): the state without its
    static section, with the hidden fields canonical (module docstring)."""
    _mask(s, p, out)


@njit(cache=True)
def information_state(s, p, out):
    """What seat ``p`` knows, in ``out`` (``int64 (INFO_SIZE,)``): :func:`observe` plus the
    static section (options and deck). Equal information states give equal
    :func:`determinize` results."""
    _mask(s, p, out)
    out[S_CFG:STATE_SIZE] = s[S_CFG:STATE_SIZE]


@njit(cache=True, inline="always")
def _sample_adjust(out, q):
    """Final dice of player ``q`` uniform among those its adjusts reach from its raw roll (at
    most ``k`` unit steps, never past a face; with the parity of ``k`` when adjusts must be
    used), drawn from ``out``'s chance word: count by dynamic programming over the dice, then
    sample backwards."""
    b = PB + q * PSTRIDE
    k = out[b + P_CAST + K_ADJ]
    need = cfg_of(out, config.C_ADJ_UNUSED) == 0
    nd = 0
    top = 0
    lo = np.empty(NSLOT, np.int64)
    hi = np.empty(NSLOT, np.int64)
    slot = np.empty(NSLOT, np.int64)
    for t in range(NSLOT):
        v = out[b + P_RAW + t]
        if v >= 0:
            lo[nd] = 1 - v
            hi[nd] = SLOT_FACES[t] - v
            slot[nd] = t
            top += max(-lo[nd], hi[nd])
            nd += 1
    kk = min(k, top)
    cnt = np.zeros((nd + 1, kk + 1), np.int64)
    cnt[nd, 0] = 1
    for i in range(nd - 1, -1, -1):
        for t in range(kk + 1):
            w = 0
            for d in range(lo[i], hi[i] + 1):
                r = t - abs(d)
                if r >= 0:
                    w += cnt[i + 1, r]
            cnt[i, t] = w
    total = 0
    for t in range(kk + 1):
        if (not need) or (t % 2 == k % 2):
            total += cnt[0, t]
    r = chance.rand_below(out, H_RNG, total)
    budget = 0
    for t in range(kk + 1):
        if (not need) or (t % 2 == k % 2):
            if r < cnt[0, t]:
                budget = t
                break
            r -= cnt[0, t]
    for i in range(nd):
        for d in range(lo[i], hi[i] + 1):
            rest = budget - abs(d)
            if rest < 0:
                continue
            w = cnt[i + 1, rest]
            if r < w:
                out[b + P_DICE + slot[i]] = out[b + P_RAW + slot[i]] + d
                budget = rest
                break
            r -= w


@njit(cache=True)
def determinize(s, p, seed, out):
    """A copy of ``s`` in ``out`` (``int64 (STATE_SIZE,)``) with everything seat ``p`` cannot
    know resampled uniformly (the unrevealed fish, the unknown lure tokens, the other players'
    secret casts and finished secret adjusts) and the chance word reseeded from ``seed``
    (``int64``). A function of ``(information_state(s, p), seed)`` only; the rule is in the
    module docstring (*Determinization*)."""
    information_state(s, p, out)
    out[H_RNG] = chance.mix(seed ^ DET_SALT)
    np_ = out[H_NP]
    # 1. fish: shuffle the sorted unrevealed cards; the first H_NDRAW are the draw pile
    pos = out[H_DRAWPOS]
    npool = 0
    for c in range(out[H_NCARDS]):
        if out[LOC + c] == -1:
            out[DRAW + pos + npool] = c
            npool += 1
    for i in range(npool - 1, 0, -1):
        j = chance.rand_below(out, H_RNG, i + 1)
        t = out[DRAW + pos + i]
        out[DRAW + pos + i] = out[DRAW + pos + j]
        out[DRAW + pos + j] = t
    nd = out[H_NDRAW]
    for i in range(npool):
        c = out[DRAW + pos + i]
        if i < nd:
            out[LOC + c] = LOC_DECK
        else:
            out[LOC + c] = LOC_OUT
            out[DRAW + pos + i] = -1
    # 2. tokens: deal the unknown ones (sorted by kind) to the others, the rest is the bag
    casting = out[H_PHASE] == PH_CAST
    bp = PB + p * PSTRIDE
    left = 0
    for k in range(NK):
        u = (cfg_of(out, config.C_MIX + k) - out[H_DISC + k] - out[bp + P_HELD + k]
             - out[bp + P_CAST + k])
        for q in range(np_):
            b = PB + q * PSTRIDE
            if k == K_BOOST:
                u -= out[b + P_KEPT]
            if q != p and not casting:
                u -= out[b + P_CAST + k]
        out[H_BAG + k] = u
        left += u
    for q in range(np_):
        if q == p:
            continue
        b = PB + q * PSTRIDE
        for k in range(NK):
            out[b + P_HELD + k] = 0
        for _ in range(out[b + P_NHELD]):
            r = chance.rand_below(out, H_RNG, left)
            k = 0
            while r >= out[H_BAG + k]:
                r -= out[H_BAG + k]
                k += 1
            out[H_BAG + k] -= 1
            out[b + P_HELD + k] += 1
            left -= 1
    # 3. secret casts: a finished one is redrawn, an unfinished one starts again
    if casting:
        for q in range(np_):
            if q == p:
                continue
            b = PB + q * PSTRIDE
            out[b + P_N6] = 0
            out[b + P_SPEC] = 0
            out[b + P_LASTK] = 0
            for k in range(NK):
                out[b + P_CAST + k] = 0
            if out[b + P_CAST_DONE]:
                out[b + P_N6] = chance.rand_below(out, H_RNG, 6)
                avail = available_specials(out, q)
                spec = 0
                for i in range(3):
                    if avail & (1 << i) and chance.rand_below(out, H_RNG, 2) == 1:
                        spec |= 1 << i
                out[b + P_SPEC] = spec
                for k in range(NK):
                    h = out[b + P_HELD + k]
                    if h > 0:
                        n = chance.rand_below(out, H_RNG, h + 1)
                        out[b + P_HELD + k] = h - n
                        out[b + P_CAST + k] = n
                        out[b + P_NHELD] -= n
    # 4. finished secret adjusts of the acting group: final dice redrawn
    elif out[H_PHASE] == PH_ADJUST:
        for q in range(np_):
            b = PB + q * PSTRIDE
            if (q != p and out[b + P_GROUPR] == out[H_GROUP] and out[b + P_CAST + K_ADJ] > 0
                    and out[b + P_NDICE] > 0 and out[b + P_ADJ_PENDING] == 0):
                _sample_adjust(out, q)
    out[H_RNG] = chance.mix(seed ^ RNG_SALT)


@njit(cache=True)
def observation_tensor(s, p, out):
    """The information state of seat ``p`` as ``float32 (TENSOR_SIZE,)`` in ``out``.

    Layout: a head of ``T_HEAD`` (seat ``p`` one-hot (5), player to act one-hot (5), player
    count one-hot 2..5 (4), phase one-hot (3), ``p``'s cast step one-hot (4), round/16, final,
    Deep Waters, fish in the deck/64, fish on the table/16, bag/24, discard/24, acting group/5,
    groups/5, adjust-may-be-unused, discard per kind/6 (8), ``p``'s adjusts left/6);
    then per seat 0..4 ``T_PLAYER`` values (present, tokens held/10, held per kind/6 (8, 0
    when unknown), cast known, d6/5, special dice (3), cast per kind/6 (8), cast done,
    resting (3), kept boosts/6, fish points/50, fish/10, trophies/5, group rank+1/6, dice/8,
    dice shown per slot/faces (8), raw roll per slot/faces (8), adjust pending, adjusts
    left/6, last round: sum/66, caught/5, dice/8, group rank+1/6, score/50, winner); then per
    card id ``T_CARD`` values: location one-hot (unknown, out, table, caught by seat 0..4, in
    the deck but not the game) and the round revealed/16 folded into the table slot."""
    info = np.empty(STATE_SIZE, np.int64)
    information_state(s, p, info)
    out[:] = 0.0
    np_ = info[H_NP]
    out[p] = 1.0
    if info[H_CUR] >= 0:
        out[5 + info[H_CUR]] = 1.0
    out[10 + np_ - 2] = 1.0
    out[14 + info[H_PHASE]] = 1.0
    bp = PB + p * PSTRIDE
    if info[H_PHASE] == PH_CAST:
        out[17 + info[bp + P_CSTEP]] = 1.0
    out[21] = info[H_ROUND] / 16.0
    out[22] = info[H_FINAL]
    out[23] = info[H_DEEP]
    out[24] = info[H_NDRAW] / 64.0
    out[25] = info[H_NTABLE] / 16.0
    out[26] = info[H_BAGN] / 24.0
    out[27] = info[H_DISCN] / 24.0
    out[28] = info[H_GROUP] / 5.0
    out[29] = info[H_NGROUPS] / 5.0
    out[30] = cfg_of(info, config.C_ADJ_UNUSED)
    for k in range(NK):
        out[31 + k] = info[H_DISC + k] / 6.0
    out[39] = info[bp + P_ADJ_LEFT] / 6.0
    for q in range(np_):
        b = PB + q * PSTRIDE
        o = T_HEAD + q * T_PLAYER
        out[o] = 1.0
        out[o + 1] = info[b + P_NHELD] / 10.0
        for k in range(NK):
            if info[b + P_HELD + k] >= 0:
                out[o + 2 + k] = info[b + P_HELD + k] / 6.0
        if info[b + P_N6] >= 0:
            out[o + 10] = 1.0
            out[o + 11] = info[b + P_N6] / 5.0
            for i in range(3):
                out[o + 12 + i] = (info[b + P_SPEC] >> i) & 1
            for k in range(NK):
                out[o + 15 + k] = info[b + P_CAST + k] / 6.0
        out[o + 23] = info[b + P_CAST_DONE]
        for i in range(3):
            out[o + 24 + i] = (info[b + P_RESTING] >> i) & 1
        out[o + 27] = info[b + P_KEPT] / 6.0
        out[o + 28] = info[b + P_POINTS] / 50.0
        out[o + 29] = info[b + P_NFISH] / 10.0
        out[o + 30] = info[b + P_TROPHY] / 5.0
        out[o + 31] = (info[b + P_GROUPR] + 1) / 6.0
        out[o + 32] = info[b + P_NDICE] / 8.0
        for t in range(NSLOT):
            if info[b + P_DICE + t] >= 0:
                out[o + 33 + t] = info[b + P_DICE + t] / SLOT_FACES[t]
            if info[b + P_RAW + t] >= 0:
                out[o + 41 + t] = info[b + P_RAW + t] / SLOT_FACES[t]
        out[o + 49] = info[b + P_ADJ_PENDING]
        out[o + 50] = info[b + P_ADJ_LEFT] / 6.0
        out[o + 51] = info[b + P_LAST_SUM] / 66.0
        out[o + 52] = info[b + P_LAST_CAUGHT] / 5.0
        out[o + 53] = max(info[b + P_LAST_NDICE], 0) / 8.0
        out[o + 54] = (info[b + P_LAST_GROUPR] + 1) / 6.0
        out[o + 55] = info[b + P_SCORE] / 50.0
        out[o + 56] = info[b + P_WIN]
    base = T_HEAD + MAX_PLAYERS * T_PLAYER
    deep = info[H_DEEP] != 0
    for c in range(info[H_NCARDS]):
        o = base + c * T_CARD
        loc = info[LOC + c]
        if loc == -1:
            out[o] = 1.0
        elif loc == LOC_OUT:
            if deep or card_info(info, c, decks.I_SET) == decks.SET_BASE:
                out[o + 1] = 1.0
            else:
                out[o + 8] = 1.0
        elif loc == LOC_TABLE:
            out[o + 2] = 1.0 + info[CREVEAL + c] / 16.0
        else:
            out[o + 3 + loc - LOC_CAUGHT] = 1.0
