"""River Rats rules core: compiled kernels over one flat ``int64`` state array.

Implements all of ``docs/rules/river_rats.md`` behind the one game protocol of
:mod:`engines.protocol` (kernels :func:`init_state`, :func:`legal_actions`,
:func:`apply_action`, :func:`is_terminal`, :func:`returns`, :func:`current_player`,
:func:`observe`, :func:`information_state`, :func:`observation_tensor`, :func:`determinize`,
:func:`observed_action`, :func:`inventory`, :func:`outcome`, :func:`progress`). The step API
(:mod:`engines.river_rats.game`) and the compiled game loop (:mod:`agents.loop`) call these
kernels; there is no other copy of a rule.

Chance
------
All chance comes from the splitmix64 word kept in the state (``RNG``;
:mod:`engines.protocol.chance`), so a game is a pure function of (config, seed, actions);
``state.copy()`` therefore also copies the future, and search must use :func:`determinize`.

Knowledge
---------
``PUBLIC`` is a 54-bit mask of the cards whose place every player saw them go to: face-up cards
and every card moved in public (market draws, plays, pushes, swaps, discards, reveals) are
known; a card drawn where others cannot see it (a deck draw into a hand, a face-down Rat card,
a ♥ stake) is not, and such a draw also makes every card still in the deck unknown again (it
could have been any of them). A card played face down under the ♠ Rat is known only to its
player, and it makes the other cards of that hand unknown. A player also knows its own hand.
:func:`information_state` is the observation plus this knowledge; :func:`determinize` deals the
cards a player does not know anew (see there).

Actions
-------
An action is ``kind * 64 + arg`` (``arg`` a card id 0..53, 54 = "top of the deck", a slot of the
Rat's hand, or 63 = "a face-down card" of the Rat); the action table has ``21 * 64 = 1344``
ids. :func:`legal_actions` lists them in ascending order. A turn is a short sequence of small
decisions (phase ``PHASE``):

=========  ==============================================================================
phase      legal actions
=========  ==============================================================================
DRAW       ``DRAW_MARKET c`` / ``DRAW_DECK`` one card at a time until the hand holds 3; at
           the turn's start also the joker (``JOKER j``, or ``JREMOVE slot`` at advanced)
PLAY       ``PLAY c`` for a hand card (joker too if nothing was drawn); ``STUCK`` if none
ACTION     ``NONE``; the played card's suit action (``PUSH c``, ``SWAP_OUT c``, ``STAKE``,
           ``DISCARD c``) or, if its suit is the player's, the power (``PPUSH``, ``PSWAP_OUT``,
           ``PREVEAL slot``, ``PDISCARD``)
SWAP_IN    ``SWAP_IN c`` (hand card replacing the chosen collective card)
P_PUSH2    second ``PPUSH c`` or ``STOP``;  P_SWAP_IN: ``PSWAP_IN c`` (a market card)
P_STAKE    ``PSTAKE`` (add 1 debt card) or ``STOP``;  P_DISCARD: ``PDISCARD c`` or ``STOP``
EXPERT     expert joker at resolution: ``EREVEAL`` (use it, reveal a deck card) or ``ESTOP``
EXPERT2    ``EREVEAL`` another card or ``ESTOP``
=========  ==============================================================================

Interpretations of silent points (fixed, documented here; the rules' **[decision]** lines are
fields of :class:`engines.river_rats.RiverRatsConfig`):

- Resolution happens at the end of the turn whose card (or joker) fills the collective hand, so
  the suit action of the last card still triggers; the player who filled it decides the expert
  joker. The next turn is the next seat's.
- ♥ defeat bonus: when the ♥ Rat is defeated, one card of the players' debt is discarded once.
- ♦ swaps (action and power) cannot take the card just played, a joker or the face-down card.
- The ♠ power discards one card at a time and refills the market once, when it stops.
- ♥ power needs a face-down Rat card (which one is turned is chance: the first face-down slot).
- At advanced, the joker's target is a face-up non-King card or "a face-down card"
  (``JREMOVE 63``, offered whenever the Rat has a face-down card, so the legal actions do not
  tell whether one is a King); chance then picks one of the face-down non-King cards (a King is
  never removed: the rule removes "one non-King card"). If every face-down card is a King the
  joker is spent and removes nothing.
- Expert: the joker may be used once per collective hand; the revealed cards join the
  collective hand before the prediction is checked; a bust gives the players 1 debt at once.
- Players lose as soon as their debt reaches 5 (checked before the win at a resolution).
- A player with no card and no usable joker passes (``STUCK``); if every player passes in a
  row the game ends as a loss (``LOSS_STALL``; unreachable in practice, kept for safety).

State layout (``int64``; a pile is a count at ``base`` followed by up to ``cap`` card ids):

=================  =====  ===================================================================
name               index  meaning
=================  =====  ===================================================================
N_PLAYERS          0      1..4
PHASE              1      PH_* (above), PH_OVER once terminal
CUR                2      seat to act
STATUS             3      0 running, 1 won, 2 lost
RNG                4      splitmix64 word (int64 bit pattern)
ROUND              5      collective hands resolved so far
N_ACTIONS          6      actions applied
ACTIVE, WAITING    7, 8   suit of the active Rat; of the waiting one (-1 once active)
FIRST_RAT          9      suit of the first Rat;  SECOND_RAT 10: of the second
DEFEATED           11     Rats defeated (0..2);  DEF_MASK 12: bit per defeated Rat suit
RAT_DEBT1, 2       13,14  debt the first / second Rat reached (at its defeat or now)
PRED_CARD          15     this round's prediction card (-1 none);  PRED_CAT 16: its category
JOKERS_EARNED      17     0..2;  JOKER_USED 18: a joker was used on this collective hand
TARGET             19     collective hand size to resolve (5, or 6 after the ♦ bonus)
MARKET_CAP         20     3, or 4 after the ♠ bonus
PLAYED             21     card played this turn (-1);  PENDING 22: chosen swap-out card
PUSHES             23     cards pushed by the ♣ power this turn;  DRAWN 24: cards drawn
COLL_FD            25     1 if collective slot 0 is face down;  FD_OWNER 26: who played it
PASS_STREAK        27     consecutive STUCK passes
HANDS_WON          28     hands the players won;  HANDS_LOST 29: hands the Rat won
LOSS_REASON        30     0 none, 1 debt, 2 stall, 3 empty draw (``empty_draw="lose"``), 4 length
FAILED_DRAW        31     a needed card could not be drawn (cleared by apply_action)
LAST_P, LAST_R     32,33  strengths of the last resolution (players, Rat);  LAST_WINNER 34:
                          0 players, 1 Rat, -1 none;  LAST_PRED 35: last prediction hit
LAST_BUST          36     last expert reveal went bust;  JOKERS_USED 37
C_DIFF .. C_FGB    38-42  difficulty, prediction_match, defeated_rat_stays, empty_draw,
                          first_game_defeat_bonuses (copied from the config)
CHAR0..3           43-46  character suit of each seat (-1 for absent seats)
TURNS              47     turns started
DECK               48     pile, cap 54 (top = last)
DISCARD            103    pile, cap 54
HAND0..3           158    piles, cap 8, stride 9
MARKET             194    pile, cap 8
COLL               203    pile, cap 8 (the collective hand, in play order)
REVEAL             212    pile, cap 54 (expert joker reveals)
RAT                267    pile, cap 24 (the Rat's hand);  RAT_UP 292: 24 face-up flags
PDEBT              316    pile, cap 54 (players' debt);  RDEBT 371: active Rat's debt
STAKE              426    pile, cap 54 (debt at stake; the prediction card first)
CHARS              481    pile, cap 4 (the characters' Aces)
ASIDE              486    pile, cap 4 (the waiting Rat's King, face down)
JSUP               491    pile, cap 2 (jokers face down);  JUP 494: earned, face up
OUT                497    pile, cap 54 (left the game: used jokers, a removed King)
LAST_COLL          552    pile, cap 64 (display: players' cards at the last resolution)
LAST_RAT           617    pile, cap 24 (display: the Rat's cards at the last resolution)
SCR                642    64 scratch cells for the evaluator
C_RANKING          706    hand-ranking tie-break flags (``CFG_RANKING``, copied from the config)
PUBLIC             707    bit ``c`` set: every player knows where card ``c`` is (see Knowledge)
DECK_KNOWN         708    1 while the deck may hold publicly known cards (after a reshuffle)
=================  =====  ===================================================================
STATE_SIZE = 709. A game that reaches ``MAX_GAME_LENGTH`` decisions ends as a loss
(``LOSS_TRUNCATED``; never seen in practice).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from engines.protocol.per_type import njit_per_type
from engines.protocol.bits import popcount
from engines.protocol.chance import rand_below
from engines.poker import RULES_STANDARD, eval_at
from engines.river_rats.config import (
    CFG_CHAR0,
    CFG_DIFFICULTY,
    CFG_EMPTY_DRAW,
    CFG_FG_BONUS,
    CFG_FIRST_PLAYER,
    CFG_MATCH,
    CFG_N_PLAYERS,
    CFG_RAT_ACTIVE,
    CFG_RANKING,
    CFG_RAT_WAITING,
    CFG_SIZE,
    CFG_STAYS,
    RANK_2P_HIGH_ONLY,
    RANK_2P_NO_KICKER,
    RANK_FH_PAIR,
    RANK_SET_ONLY,
)

# ---- header ------------------------------------------------------------------------------
N_PLAYERS, PHASE, CUR, STATUS, RNG, ROUND, N_ACTIONS = 0, 1, 2, 3, 4, 5, 6
ACTIVE, WAITING, FIRST_RAT, SECOND_RAT, DEFEATED, DEF_MASK = 7, 8, 9, 10, 11, 12
RAT_DEBT1, RAT_DEBT2, PRED_CARD, PRED_CAT, JOKERS_EARNED, JOKER_USED = 13, 14, 15, 16, 17, 18
TARGET, MARKET_CAP, PLAYED, PENDING, PUSHES, DRAWN = 19, 20, 21, 22, 23, 24
COLL_FD, FD_OWNER, PASS_STREAK, HANDS_WON, HANDS_LOST = 25, 26, 27, 28, 29
LOSS_REASON, FAILED_DRAW, LAST_P, LAST_R, LAST_WINNER, LAST_PRED = 30, 31, 32, 33, 34, 35
LAST_BUST, JOKERS_USED = 36, 37
C_DIFF, C_MATCH, C_STAYS, C_EMPTY, C_FGB = 38, 39, 40, 41, 42
CHAR0 = 43
TURNS = 47
# ---- piles -------------------------------------------------------------------------------
DECK = 48
DISCARD = 103
HAND0 = 158
HAND_STRIDE = 9
MARKET = 194
COLL = 203
REVEAL = 212
RAT = 267
RAT_UP = 292
PDEBT = 316
RDEBT = 371
STAKE = 426
CHARS = 481
ASIDE = 486
JSUP = 491
JUP = 494
OUT = 497
LAST_COLL = 552
LAST_RAT = 617
SCR = 642
C_RANKING = 706
PUBLIC = 707
DECK_KNOWN = 708
STATE_SIZE = 709

CARD_PILES = (
    ("deck", DECK, 54), ("discard", DISCARD, 54),
    ("hand0", HAND0, 8), ("hand1", HAND0 + HAND_STRIDE, 8),
    ("hand2", HAND0 + 2 * HAND_STRIDE, 8), ("hand3", HAND0 + 3 * HAND_STRIDE, 8),
    ("market", MARKET, 8), ("collective", COLL, 8), ("revealed", REVEAL, 54), ("rat", RAT, 24),
    ("player_debt", PDEBT, 54), ("rat_debt", RDEBT, 54), ("stake", STAKE, 54),
    ("characters", CHARS, 4), ("aside", ASIDE, 4), ("joker_supply", JSUP, 2),
    ("jokers_up", JUP, 2), ("out", OUT, 54),
)
"""(name, base, capacity) of every pile holding cards: each of the 54 cards is in exactly one."""

# ---- phases, statuses, kinds ----------------------------------------------------------------
PH_DRAW, PH_PLAY, PH_ACTION, PH_SWAP_IN, PH_P_PUSH2 = 0, 1, 2, 3, 4
PH_P_SWAP_IN, PH_P_STAKE, PH_P_DISCARD, PH_EXPERT, PH_EXPERT2, PH_OVER = 5, 6, 7, 8, 9, 10
PHASE_NAMES = ("draw", "play", "action", "swap in", "power: push", "power: swap in",
               "power: stake", "power: discard", "expert joker", "expert joker", "over")
RUNNING, WON, LOST = 0, 1, 2
LOSS_NONE, LOSS_DEBT, LOSS_STALL, LOSS_EMPTY, LOSS_TRUNCATED = 0, 1, 2, 3, 4
FIRST_GAME, NORMAL, ADVANCED, EXPERT = 0, 1, 2, 3
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
KING = 11

K_DRAW_MARKET, K_DRAW_DECK, K_PLAY, K_JOKER, K_JREMOVE, K_NONE = 0, 1, 2, 3, 4, 5
K_PUSH, K_SWAP_OUT, K_SWAP_IN, K_STAKE, K_DISCARD = 6, 7, 8, 9, 10
K_PPUSH, K_PSWAP_OUT, K_PSWAP_IN, K_PREVEAL, K_PSTAKE, K_PDISCARD = 11, 12, 13, 14, 15, 16
K_STOP, K_EREVEAL, K_ESTOP, K_STUCK = 17, 18, 19, 20
N_KINDS = 21
DECK_TOP = 54
FACE_DOWN_TARGET = 63
"""``arg`` of ``JREMOVE`` aimed at "a face-down card" of the Rat (which one is chance)."""
MAX_LEGAL = 96
"""Size of the ``out`` buffer :func:`legal_actions` needs."""

# ---- the protocol's constants (engines.protocol) ---------------------------------------------
GAME_NAME = "river_rats"
MIN_PLAYERS = 1
MAX_PLAYERS = 4
NUM_DISTINCT_ACTIONS = N_KINDS * 64
"""The action table: ``kind * 64 + arg`` for the 21 kinds (many ids are never legal)."""
HIDDEN_ACTION = NUM_DISTINCT_ACTIONS
"""What :func:`observed_action` returns for another player's face-down play (its card)."""
MAX_GAME_LENGTH = 4000
"""Decisions after which a game ends as a loss (``LOSS_TRUNCATED``). Never reached in practice
(the longest of 10^6 4-player heuristic games had far fewer; see tests), it makes the bound of
the protocol a real one."""



# ---- random numbers -------------------------------------------------------------------------
@njit_per_type
def rng_below(s, n):
    """Uniform integer in ``0..n-1`` from the state's chance word ``s[RNG]``
    (:func:`engines.protocol.chance.rand_below`)."""
    return rand_below(s, RNG, n)


# ---- piles ----------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _push(s, b, c):
    n = s[b]
    s[b + 1 + n] = c
    s[b] = n + 1


@njit(cache=True, inline="always")
def _pop(s, b):
    n = s[b] - 1
    s[b] = n
    return s[b + 1 + n]


@njit(cache=True, inline="always")
def find(s, b, c):
    """Index of card ``c`` in the pile at ``b``, or -1."""
    for i in range(s[b]):
        if s[b + 1 + i] == c:
            return i
    return -1


@njit(cache=True, inline="always")
def _remove_at(s, b, i):
    n = s[b]
    for j in range(i, n - 1):
        s[b + 1 + j] = s[b + 2 + j]
    s[b] = n - 1


@njit(cache=True, inline="always")
def _remove(s, b, c):
    i = find(s, b, c)
    if i >= 0:
        _remove_at(s, b, i)
    return i


@njit_per_type
def _rat_remove_at(s, i):
    n = s[RAT]
    for j in range(i, n - 1):
        s[RAT + 1 + j] = s[RAT + 2 + j]
        s[RAT_UP + j] = s[RAT_UP + j + 1]
    s[RAT_UP + n - 1] = 0
    s[RAT] = n - 1


@njit(cache=True, inline="always")
def _move_all(s, src, dst):
    for i in range(s[src]):
        _push(s, dst, s[src + 1 + i])
    s[src] = 0


@njit(cache=True, inline="always")
def hand_base(p):
    """Base index of seat ``p``'s hand pile."""
    return HAND0 + HAND_STRIDE * p


@njit(cache=True)
def _shuffle_pile(s, b):
    n = s[b]
    for i in range(n - 1, 0, -1):
        j = rng_below(s, i + 1)
        t = s[b + 1 + i]
        s[b + 1 + i] = s[b + 1 + j]
        s[b + 1 + j] = t


@njit(cache=True, inline="always")
def can_draw(s):
    """True if a card can be drawn (deck or discard pile non-empty)."""
    return s[DECK] + s[DISCARD] > 0


@njit(cache=True)
def draw(s):
    """Top card of the deck, reshuffling the discard pile into a new deck when the deck is
    empty ("Resolution", last paragraph); -1 (and ``FAILED_DRAW`` set) if both are empty."""
    if s[DECK] == 0:
        if s[DISCARD] == 0:
            s[FAILED_DRAW] = 1
            return -1
        _move_all(s, DISCARD, DECK)
        _shuffle_pile(s, DECK)
        s[DECK_KNOWN] = 1
    return _pop(s, DECK)


# ---- public knowledge of where each card is ------------------------------------------------
@njit_per_type
def _know(s, c):
    """Card ``c`` (if >= 0) now lies where every player saw it go (bit of ``PUBLIC``)."""
    if c >= 0:
        s[PUBLIC] |= np.int64(1) << c


@njit(cache=True)
def _forget(s, c):
    """Card ``c`` (if >= 0) went where the other players could not follow it."""
    if c >= 0:
        s[PUBLIC] &= ~(np.int64(1) << c)


@njit_per_type
def _forget_pile(s, b):
    for i in range(s[b]):
        _forget(s, s[b + 1 + i])


@njit(cache=True)
def draw_public(s):
    """:func:`draw` a card that is put face up (every player sees it)."""
    c = draw(s)
    _know(s, c)
    return c


@njit(cache=True)
def draw_hidden(s):
    """:func:`draw` a card that only its taker (or nobody) sees: it could have been any deck
    card, so nobody else knows any longer which cards are still in the deck."""
    c = draw(s)
    _forget(s, c)
    if s[DECK_KNOWN]:  # only a reshuffled deck can hold known cards
        _forget_pile(s, DECK)
        s[DECK_KNOWN] = 0
    return c


@njit(cache=True)
def _refill_market(s):
    while s[MARKET] < s[MARKET_CAP]:
        c = draw_public(s)
        if c < 0:
            return
        _push(s, MARKET, c)


# ---- rule helpers ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def abilities_on(s):
    """Rat abilities apply (not at ``first_game``)."""
    return s[C_DIFF] != FIRST_GAME


@njit(cache=True, inline="always")
def bonus_on(s, suit):
    """The defeat bonus of the Rat of ``suit`` applies."""
    return (s[DEF_MASK] >> suit) & 1 == 1 and (s[C_DIFF] != FIRST_GAME or s[C_FGB] == 1)


@njit(cache=True, inline="always")
def is_rat_king(s, c):
    """Card ``c`` is the King of one of the game's two Rats."""
    return c < 52 and c >> 2 == KING and ((c & 3) == s[FIRST_RAT] or (c & 3) == s[SECOND_RAT])


@njit(cache=True, inline="always")
def facedown_pending(s):
    """The next card played goes face down (♠ Rat active, collective hand still empty)."""
    return s[ACTIVE] == SPADES and abilities_on(s) and s[COLL] == 0


@njit(cache=True, inline="always")
def prediction_category(card):
    """Predicted category of a prediction card ("Resolution" 1): A straight flush (8), K four
    of a kind (7), Q J 10 full house (6), 9-6 flush (5), 5-2 straight (4)."""
    r = card >> 2
    if r == 12:
        return 8
    if r == 11:
        return 7
    if r >= 8:
        return 6
    if r >= 4:
        return 5
    return 4


@njit(cache=True)
def rat_facedown_count(s):
    """Face-down cards dealt to the Rat this round ("Round setup" 1, abilities, difficulty)."""
    fd = 2
    if s[ACTIVE] == CLUBS and abilities_on(s):
        fd += 2
    if bonus_on(s, CLUBS):
        fd -= 1
    if s[C_DIFF] == ADVANCED:
        fd += 1
    elif s[C_DIFF] == EXPERT:
        fd += 2
    return fd


@njit(cache=True)
def swappable(s, i):
    """Collective slot ``i`` may be swapped out: not the card just played, not a joker, not the
    face-down card."""
    c = s[COLL + 1 + i]
    return c != s[PLAYED] and c < 52 and not (i == 0 and s[COLL_FD] == 1)


@njit(cache=True)
def players_strength(s):
    """River Rats strength of the players' cards (collective hand + expert reveals), n >= 5."""
    n = 0
    for i in range(s[COLL]):
        s[SCR + n] = s[COLL + 1 + i]
        n += 1
    for i in range(s[REVEAL]):
        s[SCR + n] = s[REVEAL + 1 + i]
        n += 1
    return ranked(s, eval_at(s, SCR, n, RULES_STANDARD))


@njit(cache=True)
def rat_strength(s):
    """River Rats strength of the best 5 of all the Rat's cards (face down included)."""
    n = s[RAT]
    for i in range(n):
        s[SCR + i] = s[RAT + 1 + i]
    return ranked(s, eval_at(s, SCR, n, RULES_STANDARD))


@njit(cache=True)
def ranked(s, v):
    """River Rats strength of a hand from its standard strength ``v`` ("Hand ranking"): a flush
    by its highest card only (a rule) and the tie-break **[decision]** options of the config:
    with the defaults this equals ``engines.poker``'s ``"river_rats"`` ranking. Clearing the
    low nibbles of the packed strength (see :mod:`engines.poker`) drops those kickers, and the
    best hand under the standard order is also best under this coarsening."""
    cat = v >> 20
    f = s[C_RANKING]
    if cat == 5:
        return v & ~0xFFFF
    if cat == 6:
        return v if f & RANK_FH_PAIR else v & ~0xFFFF
    if cat == 7 or cat == 3:
        return v & ~0xFFFF if f & RANK_SET_ONLY else v
    if cat == 2:
        if f & RANK_2P_HIGH_ONLY:
            return v & ~0xFFFF
        if f & RANK_2P_NO_KICKER:
            return v & ~0xFFF
    return v


# ---- setup ----------------------------------------------------------------------------------
@njit(cache=True)
def _setup_round(s):
    """"Round setup" 1-4: Rat's hand, prediction/ante, ♦ Rat's first card, market refill."""
    king = 4 * KING + s[ACTIVE]
    if find(s, RAT, king) < 0:
        _remove(s, ASIDE, king)
        _push(s, RAT, king)
        s[RAT_UP + s[RAT] - 1] = 1
        _know(s, king)
    s[TARGET] = 6 if bonus_on(s, DIAMONDS) else 5
    s[MARKET_CAP] = 4 if bonus_on(s, SPADES) else 3
    for _ in range(5):
        c = draw_public(s)
        if c >= 0:
            _push(s, RAT, c)
            s[RAT_UP + s[RAT] - 1] = 1
    for _ in range(rat_facedown_count(s)):
        c = draw_hidden(s)
        if c >= 0:
            _push(s, RAT, c)
            s[RAT_UP + s[RAT] - 1] = 0
    c = draw_public(s)
    s[PRED_CARD] = c
    s[PRED_CAT] = -1
    if c >= 0:
        _push(s, STAKE, c)
        s[PRED_CAT] = prediction_category(c)
    if s[ACTIVE] == DIAMONDS and abilities_on(s):
        c = draw_public(s)
        if c >= 0:
            _push(s, COLL, c)
    _refill_market(s)
    s[JOKER_USED] = 0
    s[COLL_FD] = 0
    s[FD_OWNER] = -1


@njit(cache=True)
def _settle_draw(s):
    p = s[CUR]
    if s[hand_base(p)] >= 3 or (s[MARKET] == 0 and not can_draw(s)):
        s[PHASE] = PH_PLAY


@njit(cache=True)
def _begin_turn(s):
    s[PHASE] = PH_DRAW
    s[DRAWN] = 0
    s[PLAYED] = -1
    s[PENDING] = -1
    s[PUSHES] = 0
    s[TURNS] += 1
    _settle_draw(s)


@njit(cache=True)
def init_state(cfg, seed, out):
    """Fill ``out`` (``int64``, shape ``(STATE_SIZE,)``) with a new game ("Setup" 1-5 and the
    first "Round setup"). ``cfg``: config array (:meth:`RiverRatsConfig.to_array`, validated
    there); ``seed``: the game's ``int64`` seed word, its only source of chance."""
    s = out
    s[:] = 0
    n = cfg[CFG_N_PLAYERS]
    s[N_PLAYERS] = n
    s[RNG] = seed
    s[C_DIFF] = cfg[CFG_DIFFICULTY]
    s[C_MATCH] = cfg[CFG_MATCH]
    s[C_STAYS] = cfg[CFG_STAYS]
    s[C_EMPTY] = cfg[CFG_EMPTY_DRAW]
    s[C_FGB] = cfg[CFG_FG_BONUS]
    s[C_RANKING] = cfg[CFG_RANKING]
    # Setup 1: characters (Aces), random unless given.
    suits = np.arange(4)
    if cfg[CFG_CHAR0] < 0:
        for i in range(3, 0, -1):
            j = rng_below(s, i + 1)
            suits[i], suits[j] = suits[j], suits[i]
    else:
        for i in range(n):
            suits[i] = cfg[CFG_CHAR0 + i]
    for p in range(4):
        s[CHAR0 + p] = suits[p] if p < n else -1
    for p in range(n):
        _push(s, CHARS, 4 * 12 + suits[p])
        _know(s, 4 * 12 + suits[p])
    # Setup 2: the two Rats.
    if cfg[CFG_RAT_ACTIVE] < 0:
        k = np.arange(4)
        for i in range(3, 0, -1):
            j = rng_below(s, i + 1)
            k[i], k[j] = k[j], k[i]
        a, w = k[0], k[1]
    else:
        a, w = cfg[CFG_RAT_ACTIVE], cfg[CFG_RAT_WAITING]
    s[ACTIVE], s[WAITING], s[FIRST_RAT], s[SECOND_RAT] = a, w, a, w
    _push(s, ASIDE, 4 * KING + a)
    _push(s, ASIDE, 4 * KING + w)
    # Setup 3: the draw deck (50 - n cards), jokers aside face down.
    for c in range(52):
        if find(s, CHARS, c) < 0 and find(s, ASIDE, c) < 0:
            _push(s, DECK, c)
    _shuffle_pile(s, DECK)
    _push(s, JSUP, 52)
    _push(s, JSUP, 53)
    _know(s, 52)  # the jokers lie face down, but every player knows they are the jokers
    _know(s, 53)
    # Setup 4-5: deal 2 cards each, market of 3.
    for _ in range(2):
        for p in range(n):
            _push(s, hand_base(p), _pop(s, DECK))
    s[MARKET_CAP] = 3
    _refill_market(s)
    s[LAST_WINNER] = -1
    s[PRED_CARD] = -1
    _setup_round(s)
    s[CUR] = cfg[CFG_FIRST_PLAYER]
    _begin_turn(s)


# ---- resolution -----------------------------------------------------------------------------
@njit_per_type
def _end_game(s, status, reason):
    s[STATUS] = status
    s[LOSS_REASON] = reason
    s[PHASE] = PH_OVER


@njit(cache=True, inline="always")
def _resolve(s):
    """"Resolution" 1-6 of a full collective hand."""
    pstr = players_strength(s)
    pcat = pstr >> 20
    s[LAST_PRED] = 0
    if s[PRED_CAT] >= 0 and s[JSUP] > 0:
        hit = pcat == s[PRED_CAT] if s[C_MATCH] == 0 else pcat >= s[PRED_CAT]
        if hit:
            _push(s, JUP, _pop(s, JSUP))
            s[JOKERS_EARNED] += 1
            s[LAST_PRED] = 1
    for i in range(s[RAT]):
        s[RAT_UP + i] = 1
        _know(s, s[RAT + 1 + i])
    for i in range(s[COLL]):  # the face-down card is shown too
        _know(s, s[COLL + 1 + i])
    rstr = rat_strength(s)
    s[LAST_P] = pstr
    s[LAST_R] = rstr
    s[LAST_COLL] = 0
    for i in range(s[COLL]):
        _push(s, LAST_COLL, s[COLL + 1 + i])
    for i in range(s[REVEAL]):
        _push(s, LAST_COLL, s[REVEAL + 1 + i])
    s[LAST_RAT] = 0
    for i in range(s[RAT]):
        _push(s, LAST_RAT, s[RAT + 1 + i])
    if pstr > rstr:
        _move_all(s, STAKE, RDEBT)
        s[HANDS_WON] += 1
        s[LAST_WINNER] = 0
    else:
        _move_all(s, STAKE, PDEBT)
        if s[ACTIVE] == HEARTS and abilities_on(s):
            c = draw_hidden(s)
            if c >= 0:
                _push(s, PDEBT, c)
        s[HANDS_LOST] += 1
        s[LAST_WINNER] = 1
    first = s[DEFEATED] == 0
    s[RAT_DEBT1 if first else RAT_DEBT2] = s[RDEBT]
    if s[RDEBT] >= 5:
        _move_all(s, RDEBT, DISCARD)
        old = s[ACTIVE]
        s[DEFEATED] += 1
        s[DEF_MASK] |= 1 << old
        if old == HEARTS and bonus_on(s, HEARTS) and s[PDEBT] > 0:
            _push(s, DISCARD, _pop(s, PDEBT))
        if s[DEFEATED] < 2:
            s[ACTIVE] = s[WAITING]
            s[WAITING] = -1
            if s[C_STAYS] == 0:
                i = find(s, RAT, 4 * KING + old)
                _rat_remove_at(s, i)
                _push(s, OUT, 4 * KING + old)
    # Cleanup.
    for i in range(s[COLL]):
        c = s[COLL + 1 + i]
        _push(s, OUT if c >= 52 else DISCARD, c)
    s[COLL] = 0
    _move_all(s, REVEAL, DISCARD)
    i = 0
    while i < s[RAT]:
        c = s[RAT + 1 + i]
        if is_rat_king(s, c):
            s[RAT_UP + i] = 1
            i += 1
        else:
            _push(s, DISCARD, c)
            _rat_remove_at(s, i)
    s[COLL_FD] = 0
    s[FD_OWNER] = -1
    s[PRED_CARD] = -1
    s[PRED_CAT] = -1
    s[ROUND] += 1
    if s[PDEBT] >= 5:
        _end_game(s, LOST, LOSS_DEBT)
    elif s[DEFEATED] == 2:
        _end_game(s, WON, LOSS_NONE)


@njit(cache=True)
def _finish_resolution(s):
    _resolve(s)
    if s[STATUS] == RUNNING:
        _setup_round(s)
        s[CUR] = (s[CUR] + 1) % s[N_PLAYERS]
        _begin_turn(s)


@njit(cache=True)
def _end_turn(s):
    if s[COLL] >= s[TARGET]:
        if (s[C_DIFF] == EXPERT and s[JUP] > 0 and s[JOKER_USED] == 0 and can_draw(s)):
            s[PHASE] = PH_EXPERT
            s[LAST_BUST] = 0
            return
        _finish_resolution(s)
    else:
        s[CUR] = (s[CUR] + 1) % s[N_PLAYERS]
        _begin_turn(s)


# ---- legal actions ---------------------------------------------------------------------------
@njit(cache=True, inline="always")
def _joker_options(s, out, n):
    if s[JUP] == 0 or s[JOKER_USED] == 1:
        return n
    d = s[C_DIFF]
    if d == EXPERT:
        return n
    if d == ADVANCED:
        fd = False
        for i in range(s[RAT]):
            if s[RAT_UP + i] == 0:
                fd = True
            elif s[RAT + 1 + i] >> 2 != KING:  # "one non-King card" (any King is kept)
                out[n] = K_JREMOVE * 64 + i
                n += 1
        if fd:  # "a face-down card": whether one is a King is hidden, so it is always offered
            out[n] = K_JREMOVE * 64 + FACE_DOWN_TARGET
            n += 1
        return n
    if facedown_pending(s):
        return n
    out[n] = K_JOKER * 64 + s[JUP + s[JUP]]
    return n + 1


@njit_per_type
def _push_options(s, kind, out, n):
    if s[MARKET] >= 6:
        return n
    if s[N_PLAYERS] == 1:
        if can_draw(s):
            out[n] = kind * 64 + DECK_TOP
            n += 1
        return n
    hb = hand_base(s[CUR])
    for i in range(s[hb]):
        out[n] = kind * 64 + s[hb + 1 + i]
        n += 1
    return n


@njit_per_type
def _discard_options(s, kind, out, n):
    hb = hand_base(s[CUR])
    for i in range(s[hb]):
        out[n] = kind * 64 + s[hb + 1 + i]
        n += 1
    for i in range(s[MARKET]):
        out[n] = kind * 64 + s[MARKET + 1 + i]
        n += 1
    return n


@njit_per_type
def _swap_out_options(s, kind, out, n):
    for i in range(s[COLL]):
        if swappable(s, i):
            out[n] = kind * 64 + s[COLL + 1 + i]
            n += 1
    return n


@njit(cache=True)
def legal_actions(s, out):
    """Write the legal actions of the player to act into ``out`` (``int64``, size >=
    ``MAX_LEGAL``) in ascending order and return their number (0 when the game is over). See
    the phase table in the module docstring ("A turn", "Suit actions", "Powers", difficulty
    levels)."""
    n = legal_actions_in_table_order(s, out)
    _sort(out, n)
    return n


@njit(cache=True)
def legal_actions_in_table_order(s, out):
    """The legal actions of :func:`legal_actions` in **table order**: the turn's joker options
    first (in the draw and play phases), "no action" or "stop" first in the other phases, then
    the suit action before the power, and cards as they lie (the market's, the hand's and the
    collective hand's order; a discard lists the hand before the market). Policies use it to
    break ties by what a player sees rather than by card ids. Returns their number."""
    if s[STATUS] != RUNNING:
        return 0
    ph = s[PHASE]
    p = s[CUR]
    hb = hand_base(p)
    n = 0
    if ph == PH_DRAW or ph == PH_PLAY:
        if s[DRAWN] == 0:
            n = _joker_options(s, out, n)
        if ph == PH_DRAW:
            for i in range(s[MARKET]):
                out[n] = K_DRAW_MARKET * 64 + s[MARKET + 1 + i]
                n += 1
            if can_draw(s):
                out[n] = K_DRAW_DECK * 64
                n += 1
        else:
            for i in range(s[hb]):
                out[n] = K_PLAY * 64 + s[hb + 1 + i]
                n += 1
            if n == 0:
                out[0] = K_STUCK * 64
                n = 1
    elif ph == PH_ACTION:
        out[0] = K_NONE * 64
        n = 1
        c = s[PLAYED]
        su = c & 3
        if su == CLUBS:
            n = _push_options(s, K_PUSH, out, n)
        elif su == DIAMONDS:
            if s[hb] > 0:
                n = _swap_out_options(s, K_SWAP_OUT, out, n)
        elif su == HEARTS:
            if can_draw(s):
                out[n] = K_STAKE * 64
                n += 1
        else:
            n = _discard_options(s, K_DISCARD, out, n)
        if su == s[CHAR0 + p] and s[C_DIFF] != FIRST_GAME:
            if su == CLUBS:
                n = _push_options(s, K_PPUSH, out, n)
            elif su == DIAMONDS:
                if s[MARKET] > 0:
                    n = _swap_out_options(s, K_PSWAP_OUT, out, n)
            elif su == HEARTS:
                for i in range(s[RAT]):
                    if s[RAT_UP + i] == 0:
                        out[n] = K_PREVEAL * 64 + i
                        n += 1
                        break
            else:
                n = _discard_options(s, K_PDISCARD, out, n)
    elif ph == PH_SWAP_IN:
        for i in range(s[hb]):
            out[n] = K_SWAP_IN * 64 + s[hb + 1 + i]
            n += 1
    elif ph == PH_P_PUSH2:
        out[0] = K_STOP * 64
        n = _push_options(s, K_PPUSH, out, 1)
    elif ph == PH_P_SWAP_IN:
        for i in range(s[MARKET]):
            out[n] = K_PSWAP_IN * 64 + s[MARKET + 1 + i]
            n += 1
    elif ph == PH_P_STAKE:
        out[0] = K_STOP * 64
        n = 1
        if can_draw(s):
            out[1] = K_PSTAKE * 64
            n = 2
    elif ph == PH_P_DISCARD:
        out[0] = K_STOP * 64
        n = _discard_options(s, K_PDISCARD, out, 1)
    elif ph == PH_EXPERT or ph == PH_EXPERT2:
        out[0] = K_ESTOP * 64
        n = 1
        if can_draw(s):
            out[1] = K_EREVEAL * 64
            n = 2
    return n


@njit(cache=True, inline="always")
def table_order_action(s, legal, n, r, buf):
    """Action ``r`` (``0 <= r < n``) of :func:`legal_actions_in_table_order`, given the
    ascending ``legal[:n]`` of :func:`legal_actions` (``int64``; ``buf``: ``int64`` scratch of
    ``MAX_LEGAL``). The same action as ``legal_actions_in_table_order(s, buf); buf[r]`` (tested
    on every decision of many games, ``tests/river_rats/test_table_order.py``) without listing
    the actions again in the phases most decisions are in (the random policy otherwise spends
    a large share of a game listing them twice). Draw and play: the table lists the joker
    options, then the market (draw) or the hand (play) as it lies, then the deck draw; the
    joker options' kinds (``K_JOKER``, ``K_JREMOVE``, arguments ascending) sort after
    ``K_DRAW_MARKET``, ``K_DRAW_DECK`` and ``K_PLAY``, so they are the last ``nj`` sorted
    actions in table order.
    Swap-in phases: the hand or the market as it lies. Action phase: "no action" first (it
    sorts first too), then the suit action's run, then the power's, each kind one run in both
    orders. Power phases with a "stop": stop first in the table, last by id. Only a stuck play
    lists the actions again."""
    ph = s[PHASE]
    if ph == PH_PLAY:
        h = s[hand_base(s[CUR])]
        if h > 0:
            nj = n - h
            if r < nj:
                return legal[h + r]
            return K_PLAY * 64 + s[hand_base(s[CUR]) + 1 + r - nj]
    elif ph == PH_DRAW:
        m = s[MARKET]
        nd = 1 if can_draw(s) else 0
        nj = n - m - nd
        if r < nj:
            return legal[m + nd + r]
        if r < nj + m:
            return K_DRAW_MARKET * 64 + s[MARKET + 1 + r - nj]
        return K_DRAW_DECK * 64
    elif ph == PH_ACTION:
        if r == 0:
            return K_NONE * 64
        k = legal[r] >> 6
        i0 = r
        while legal[i0 - 1] >> 6 == k:  # legal[0] is "no action": the walk stops there
            i0 -= 1
        return _segment_action(s, legal, r, k, r - i0)
    elif ph == PH_SWAP_IN:
        return K_SWAP_IN * 64 + s[hand_base(s[CUR]) + 1 + r]
    elif ph == PH_P_SWAP_IN:
        return K_PSWAP_IN * 64 + s[MARKET + 1 + r]
    elif ph == PH_P_PUSH2 or ph == PH_P_DISCARD or ph == PH_P_STAKE or ph == PH_EXPERT \
            or ph == PH_EXPERT2:
        if r == 0:  # "stop" leads the table and sorts last (K_STOP, K_ESTOP)
            return legal[n - 1]
        return _segment_action(s, legal, r - 1, legal[r - 1] >> 6, r - 1)
    legal_actions_in_table_order(s, buf)
    return buf[r]


@njit(cache=True)
def _segment_action(s, legal, pos, k, j):
    """Action ``j`` in table order of the actions of kind ``k`` (one contiguous run in both
    orders, ``legal[pos]`` its ``j``-th by id): the hand as it lies (push), the hand then the
    market (discard), the swappable collective-hand cards (swap out); a run of one otherwise."""
    if k == K_PUSH or k == K_PPUSH:
        if s[N_PLAYERS] == 1:
            return legal[pos]
        return k * 64 + s[hand_base(s[CUR]) + 1 + j]
    if k == K_DISCARD or k == K_PDISCARD:
        hb = hand_base(s[CUR])
        if j < s[hb]:
            return k * 64 + s[hb + 1 + j]
        return k * 64 + s[MARKET + 1 + j - s[hb]]
    if k == K_SWAP_OUT or k == K_PSWAP_OUT:
        for i in range(s[COLL]):
            if swappable(s, i):
                if j == 0:
                    return k * 64 + s[COLL + 1 + i]
                j -= 1
    return legal[pos]


@njit(cache=True)
def _sort(a, n):
    """Sort the distinct actions ``a[:n]`` in place. Most lists hold one or two kinds (a play,
    a draw): their arguments (< 64) go into one bit mask per kind, read back in ascending
    order (no data-dependent branches: an insertion sort here was a visible share of a
    random game); lists of three or more kinds are sorted by insertion (they are short)."""
    if n < 2:
        return
    k0 = a[0] >> 6
    k1 = np.int64(-1)
    m0 = np.int64(0)
    m1 = np.int64(0)
    many = False
    for i in range(n):
        k = a[i] >> 6
        bit = np.int64(1) << (a[i] & 63)
        if k == k0:
            m0 |= bit
        elif k1 < 0 or k == k1:
            k1 = k
            m1 |= bit
        else:
            many = True
            break
    if not many:
        if k1 >= 0 and k1 < k0:
            k0, k1 = k1, k0
            m0, m1 = m1, m0
        j = 0
        while m0 != 0:
            b = m0 & -m0
            a[j] = k0 * 64 + popcount(b - 1)
            j += 1
            m0 ^= b
        while m1 != 0:
            b = m1 & -m1
            a[j] = k1 * 64 + popcount(b - 1)
            j += 1
            m1 ^= b
        return
    for i in range(1, n):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@njit(cache=True)
def is_legal(s, a, buf):
    """True if action ``a`` is legal in ``s`` (``buf``: scratch ``int64`` of size MAX_LEGAL)."""
    n = legal_actions(s, buf)
    for i in range(n):
        if buf[i] == a:
            return True
    return False


# ---- applying actions -----------------------------------------------------------------------
@njit(cache=True, inline="always")
def _take_from_hand_or_market(s, c):
    """Remove card ``c`` from the current hand, else from the market; 0 hand, 1 market."""
    if _remove(s, hand_base(s[CUR]), c) >= 0:
        return 0
    _remove(s, MARKET, c)
    return 1


@njit(cache=True)
def _push_to_market(s, arg):
    if arg == DECK_TOP:
        c = draw_public(s)
        if c >= 0:
            _push(s, MARKET, c)
    else:
        _remove(s, hand_base(s[CUR]), arg)
        _push(s, MARKET, arg)
        _know(s, arg)


@njit(cache=True, inline="always")
def _stake_card(s):
    c = draw_hidden(s)
    if c >= 0:
        _push(s, STAKE, c)


@njit(cache=True, inline="always")
def _expert_reveal(s):
    if s[PHASE] == PH_EXPERT:
        _push(s, OUT, _pop(s, JUP))
        s[JOKER_USED] = 1
        s[JOKERS_USED] += 1
    c = draw_public(s)
    if c < 0:
        _finish_resolution(s)
        return
    _push(s, REVEAL, c)
    if (c & 3) == s[ACTIVE]:
        _move_all(s, REVEAL, DISCARD)
        s[LAST_BUST] = 1
        d = draw_hidden(s)
        if d >= 0:
            _push(s, PDEBT, d)
        if s[PDEBT] >= 5:
            _end_game(s, LOST, LOSS_DEBT)
            return
        _finish_resolution(s)
    elif can_draw(s):
        s[PHASE] = PH_EXPERT2
    else:
        _finish_resolution(s)


@njit(cache=True, inline="always")
def _random_facedown_non_king(s):
    """Slot of a face-down non-King card of the Rat chosen uniformly by chance ("a joker ...
    removes one non-King card", advanced), or -1 if every face-down card is a King: then the
    joker is spent and removes nothing (engine decision)."""
    m = 0
    for i in range(s[RAT]):
        if s[RAT_UP + i] == 0 and s[RAT + 1 + i] >> 2 != KING:
            m += 1
    if m == 0:
        return -1
    k = rng_below(s, m)
    for i in range(s[RAT]):
        if s[RAT_UP + i] == 0 and s[RAT + 1 + i] >> 2 != KING:
            if k == 0:
                return i
            k -= 1
    return -1


@njit(cache=True)
def _draw(s, k, arg, hb):
    """``DRAW_MARKET arg`` (take market card ``arg``, refill the market) or ``DRAW_DECK`` (the
    deck's top card, hidden) into the hand at ``hb``; the draw step ends when the hand holds 3
    or nothing can be drawn ("A turn" 1)."""
    if k == K_DRAW_MARKET:
        _remove(s, MARKET, arg)
        _push(s, hb, arg)
        _refill_market(s)
    else:
        c = draw_hidden(s)
        if c >= 0:
            _push(s, hb, c)
    s[DRAWN] += 1
    _settle_draw(s)


@njit(cache=True, inline="always")
def _play_card(s, arg, p, hb):
    """``PLAY arg``: seat ``p`` puts hand card ``arg`` into the collective hand ("A turn" 2):
    face down when a face-down card is due (♠ Rat active; which card it was is hidden from the
    others, and the turn ends), else face up, and its suit action or power follows (phase
    ACTION)."""
    _remove(s, hb, arg)
    s[PASS_STREAK] = 0
    if facedown_pending(s):
        _push(s, COLL, arg)
        s[COLL_FD] = 1
        s[FD_OWNER] = p
        # which of the player's cards went face down is hidden
        _forget(s, arg)
        _forget_pile(s, hb)
        _end_turn(s)
    else:
        _push(s, COLL, arg)
        s[PLAYED] = arg
        s[PHASE] = PH_ACTION
        _know(s, arg)


@njit(cache=True, inline="always")
def _use_joker(s, k, arg):
    """``JOKER arg`` (the face-up joker ``arg`` joins the collective hand) or ``JREMOVE arg``
    (advanced: the joker removes the Rat's card in slot ``arg``, or a face-down non-King card
    chosen by chance for ``FACE_DOWN_TARGET``, and the Rat draws 2 face down); either ends the
    turn ("A turn": play a joker; "Difficulty levels": advanced)."""
    if k == K_JOKER:
        _remove(s, JUP, arg)
        _push(s, COLL, arg)
    else:
        i = arg
        if arg == FACE_DOWN_TARGET:
            i = _random_facedown_non_king(s)
        if i >= 0:
            c = s[RAT + 1 + i]
            _rat_remove_at(s, i)
            _push(s, DISCARD, c)
            for _ in range(2):
                d = draw_hidden(s)
                if d >= 0:
                    _push(s, RAT, d)
                    s[RAT_UP + s[RAT] - 1] = 0
        _push(s, OUT, _pop(s, JUP))
    s[JOKER_USED] = 1
    s[JOKERS_USED] += 1
    s[PASS_STREAK] = 0
    _end_turn(s)


@njit(cache=True, inline="always")
def _swap_in(s, k, arg, hb):
    """``SWAP_IN arg`` (♦ suit action: hand card ``arg`` replaces the chosen collective card,
    which goes to the hand) or ``PSWAP_IN arg`` (♦ power: market card ``arg`` and the chosen
    card trade places); the turn ends ("Suit actions", "Powers")."""
    x = s[PENDING]
    i = find(s, COLL, x)
    if k == K_SWAP_IN:
        _remove(s, hb, arg)
        _push(s, hb, x)
        _know(s, arg)
    else:
        j = find(s, MARKET, arg)
        s[MARKET + 1 + j] = x
    s[COLL + 1 + i] = arg
    s[PENDING] = -1
    _end_turn(s)


@njit(cache=True, inline="always")
def _discard(s, k, arg):
    """``DISCARD arg`` (♠ suit action: a hand or market card to the discard pile, the market
    refilled, the turn ends) or ``PDISCARD arg`` (♠ power: one card at a time, phase
    P_DISCARD until ``STOP``)."""
    _take_from_hand_or_market(s, arg)
    _push(s, DISCARD, arg)
    _know(s, arg)
    if k == K_DISCARD:
        _refill_market(s)
        _end_turn(s)
    else:
        s[PHASE] = PH_P_DISCARD


@njit(cache=True, inline="always")
def _power_push(s, arg):
    """``PPUSH arg`` (♣ power): a card to the market, twice at most, then the turn ends."""
    _push_to_market(s, arg)
    s[PUSHES] += 1
    s[PHASE] = PH_P_PUSH2
    if s[PUSHES] >= 2:
        _end_turn(s)


@njit(cache=True, inline="always")
def _stop(s):
    """``STOP``: the power ends (after the ♠ power's discards the market is refilled once) and
    so does the turn."""
    if s[PHASE] == PH_P_DISCARD:
        _refill_market(s)
    _end_turn(s)


@njit(cache=True, inline="always")
def _stuck(s):
    """``STUCK``: the player passes; when every player passed in a row the game is lost
    (``LOSS_STALL``)."""
    s[PASS_STREAK] += 1
    if s[PASS_STREAK] >= s[N_PLAYERS]:
        _end_game(s, LOST, LOSS_STALL)
    else:
        _end_turn(s)


@njit(cache=True, inline="always")
def _check_game_end(s):
    """After every action: a draw from an empty deck loses when the config says so
    (``LOSS_EMPTY``), and a game that reached :data:`MAX_GAME_LENGTH` decisions ends as a loss
    (``LOSS_TRUNCATED``)."""
    if s[FAILED_DRAW] == 1:
        s[FAILED_DRAW] = 0
        if s[C_EMPTY] == 1 and s[STATUS] == RUNNING:
            _end_game(s, LOST, LOSS_EMPTY)
    if s[N_ACTIONS] >= MAX_GAME_LENGTH and s[STATUS] == RUNNING:
        _end_game(s, LOST, LOSS_TRUNCATED)


@njit(cache=True)
def apply_action(s, a):
    """Apply legal action ``a`` to ``s`` in place and advance through forced steps (market
    refills, end of turn, resolution, the next round's setup) to the next decision.
    The caller guarantees legality (:func:`is_legal`; the step API checks it)."""
    k = a >> 6
    arg = a & 63
    p = s[CUR]
    hb = hand_base(p)
    s[N_ACTIONS] += 1
    if k == K_DRAW_MARKET or k == K_DRAW_DECK:
        _draw(s, k, arg, hb)
    elif k == K_PLAY:
        _play_card(s, arg, p, hb)
    elif k == K_JOKER or k == K_JREMOVE:
        _use_joker(s, k, arg)
    elif k == K_NONE:
        _end_turn(s)
    elif k == K_PUSH:
        _push_to_market(s, arg)
        _end_turn(s)
    elif k == K_SWAP_OUT or k == K_PSWAP_OUT:
        s[PENDING] = arg
        s[PHASE] = PH_SWAP_IN if k == K_SWAP_OUT else PH_P_SWAP_IN
    elif k == K_SWAP_IN or k == K_PSWAP_IN:
        _swap_in(s, k, arg, hb)
    elif k == K_STAKE or k == K_PSTAKE:
        _stake_card(s)
        _end_turn(s)
    elif k == K_DISCARD or k == K_PDISCARD:
        _discard(s, k, arg)
    elif k == K_PPUSH:
        _power_push(s, arg)
    elif k == K_PREVEAL:
        s[RAT_UP + arg] = 1
        _know(s, s[RAT + 1 + arg])
        s[PHASE] = PH_P_STAKE
    elif k == K_STOP:
        _stop(s)
    elif k == K_EREVEAL:
        _expert_reveal(s)
    elif k == K_ESTOP:
        _finish_resolution(s)
    elif k == K_STUCK:
        _stuck(s)
    _check_game_end(s)


@njit(cache=True)
def is_terminal(s):
    """True once the game is won or lost ("Resolution" 5)."""
    return s[STATUS] != RUNNING


@njit(cache=True)
def returns(s, out):
    """Write each seat's return into ``out`` (``float64``, shape ``(MAX_PLAYERS,)``): +1 for
    every player if the game is won, -1 if lost, 0 while running (the game is cooperative);
    seats beyond the player count get 0."""
    v = 0.0
    if s[STATUS] == WON:
        v = 1.0
    elif s[STATUS] == LOST:
        v = -1.0
    for p in range(out.shape[0]):
        out[p] = v if p < s[N_PLAYERS] else 0.0


# ---- observation ------------------------------------------------------------------------------
OBS_CARDS = 54
"""``obs[0:54]``: where each card is, as far as the observing player may know (``LOC_*``)."""
(LOC_UNSEEN, LOC_MY_HAND, LOC_MARKET, LOC_COLLECTIVE, LOC_MY_FACEDOWN, LOC_RAT_UP,
 LOC_PREDICTION, LOC_CHARACTER, LOC_JOKER_UP, LOC_OUT, LOC_REVEALED, LOC_ACTIVE_KING) = range(12)
LOC_NAMES = ("unseen", "my hand", "market", "collective", "collective (my face-down card)",
             "rat face up", "prediction", "character", "joker earned", "out of the game",
             "revealed (expert joker)", "rat king")
OBS_SCALARS = (
    "player", "n_players", "phase", "current_player", "status", "round", "active_rat",
    "rats_defeated", "defeated_mask", "player_debt", "rat_debt", "stake", "prediction_card",
    "prediction_category", "jokers_earned", "jokers_up", "joker_used", "target", "market_cap",
    "played", "pending", "deck", "discard", "rat_facedown", "collective_size", "hand0",
    "hand1", "hand2", "hand3", "char0", "char1", "char2", "char3", "collective_facedown",
    "facedown_owner", "hands_won", "hands_lost", "first_rat", "pushes",
)
"""Names of ``obs[54:]``, in order."""
OBS_SIZE = OBS_CARDS + len(OBS_SCALARS)


@njit(cache=True)
def observe(s, p, out):
    """Write what ``p`` may see into ``out`` (``int64``, shape ``(OBS_SIZE,)``): the own
    hand, public cards, the Rat's face-up cards and counts ("Communication"). ``out[0:54]``
    are ``LOC_*`` codes per card id; ``out[54:]`` the scalars named in :data:`OBS_SCALARS`.
    The waiting Rat (face down), other hands, the deck, the Rat's face-down cards, debt piles
    and the discard pile show only as counts."""
    out[:] = 0
    hb = hand_base(p)
    for i in range(s[hb]):
        out[s[hb + 1 + i]] = LOC_MY_HAND
    for i in range(s[MARKET]):
        out[s[MARKET + 1 + i]] = LOC_MARKET
    for i in range(s[COLL]):
        c = s[COLL + 1 + i]
        if i == 0 and s[COLL_FD] == 1:
            if s[FD_OWNER] == p:
                out[c] = LOC_MY_FACEDOWN
        else:
            out[c] = LOC_COLLECTIVE
    for i in range(s[REVEAL]):
        out[s[REVEAL + 1 + i]] = LOC_REVEALED
    fd = 0
    for i in range(s[RAT]):
        c = s[RAT + 1 + i]
        if s[RAT_UP + i] == 1:
            out[c] = LOC_ACTIVE_KING if is_rat_king(s, c) else LOC_RAT_UP
        else:
            fd += 1
    if s[PRED_CARD] >= 0:
        out[s[PRED_CARD]] = LOC_PREDICTION
    for i in range(s[CHARS]):
        out[s[CHARS + 1 + i]] = LOC_CHARACTER
    for i in range(s[JUP]):
        out[s[JUP + 1 + i]] = LOC_JOKER_UP
    for i in range(s[OUT]):
        out[s[OUT + 1 + i]] = LOC_OUT
    o = OBS_CARDS
    vals = (p, s[N_PLAYERS], s[PHASE], s[CUR], s[STATUS], s[ROUND], s[ACTIVE],
            s[DEFEATED], s[DEF_MASK], s[PDEBT], s[RDEBT], s[STAKE], s[PRED_CARD], s[PRED_CAT],
            s[JOKERS_EARNED], s[JUP], s[JOKER_USED], s[TARGET], s[MARKET_CAP], s[PLAYED],
            s[PENDING], s[DECK], s[DISCARD], fd, s[COLL], s[HAND0], s[HAND0 + HAND_STRIDE],
            s[HAND0 + 2 * HAND_STRIDE], s[HAND0 + 3 * HAND_STRIDE], s[CHAR0], s[CHAR0 + 1],
            s[CHAR0 + 2], s[CHAR0 + 3], s[COLL_FD], s[FD_OWNER], s[HANDS_WON], s[HANDS_LOST],
            s[FIRST_RAT], s[PUSHES])
    for i in range(len(vals)):
        out[o + i] = vals[i]


# ---- the rest of the protocol (engines.protocol) ------------------------------------------------
CONFIG_SIZE = CFG_SIZE
OUTCOME_FIELDS = ("won", "rounds", "hands_won", "hands_lost", "player_debt", "rat1_debt",
                  "rat2_debt", "rats_defeated", "jokers_earned", "jokers_used", "loss_reason",
                  "n_actions", "turns", "rat1", "rat2")
"""Per-game statistics of :func:`outcome` (``int64``): ``won`` 0/1; ``rounds`` collective
hands resolved; ``hands_won``/``hands_lost`` by the players; ``player_debt`` final players'
debt; ``rat1_debt``/``rat2_debt`` debt the first/second Rat reached; ``rats_defeated`` 0..2;
``jokers_earned``/``jokers_used``; ``loss_reason`` (``LOSS_*``); ``n_actions``; ``turns``;
``rat1``/``rat2`` suits 0..3 of the first (active) and second (waiting) Rat."""
(O_WON, O_ROUNDS, O_HW, O_HL, O_PDEBT, O_R1, O_R2, O_DEF, O_JE, O_JU, O_LOSS, O_NACT, O_TURNS,
 O_RAT1, O_RAT2) = range(len(OUTCOME_FIELDS))
INVENTORY_SIZE = 54
N_PILES = len(CARD_PILES)
PILE_BASE = np.array([b for _, b, _ in CARD_PILES], dtype=np.int64)
_PILE_ORDERED = np.array([0 if name == "deck" or name.startswith("hand") else 1
                          for name, _, _ in CARD_PILES], dtype=np.int64)
"""Piles whose order every player can follow (not the deck, not the hands)."""
(PILE_DECK, PILE_DISCARD, PILE_HAND0, PILE_MARKET, PILE_COLL, PILE_REVEAL, PILE_RAT,
 PILE_PDEBT, PILE_RDEBT, PILE_STAKE, PILE_CHARS, PILE_ASIDE) = (0, 1, 2, 6, 7, 8, 9, 10, 11, 12,
                                                              13, 14)
I_OBS = 0
I_HEADER = OBS_SIZE
"""``info[I_HEADER:+48]``: the public header ``s[0:48]`` (chance word 0; the waiting Rat's suit
-1 while it waits face down)."""
I_LOC = I_HEADER + 48
"""``info[I_LOC + c]``: 0 if the observer does not know where card ``c`` is, else
``1 + pile`` (pile index of :data:`CARD_PILES`: 0 deck, 1 discard, 2..5 hands, 6 market, ...)."""
I_POS = I_LOC + 54
"""``info[I_POS + c]``: position of a known card in its pile when every player can follow that
pile's order (not the deck, not a hand), else -1."""
I_SIZES = I_POS + 54
"""``info[I_SIZES + k]``: number of cards in pile ``k`` of :data:`CARD_PILES`."""
I_RAT_UP = I_SIZES + N_PILES
"""``info[I_RAT_UP + i]``: slot ``i`` of the Rat's hand is face up (24 flags)."""
I_LAST = I_RAT_UP + 24
"""``info[I_LAST:+65]``, ``[+65:+90]``: the display piles of the last resolution."""
I_RANKING = I_LAST + 90
INFO_SIZE = I_RANKING + 1
N_LOC_CODES = 1 + N_PILES
TENSOR_SIZE = 54 * N_LOC_CODES + len(OBS_SCALARS)
"""``observation_tensor``: per card a one-hot of where the observer knows it is (hands relative
to the observer: code 3 = own hand, 4 = the next seat's, ...), then the observation's scalars."""


@njit(cache=True)
def current_player(s):
    """Seat to act, -1 once the game is over."""
    return -1 if s[STATUS] != RUNNING else s[CUR]


@njit(cache=True)
def num_players(s):
    """Player count (1..4)."""
    return s[N_PLAYERS]


@njit(cache=True)
def known_cards(s, p, c):
    """Player ``p`` knows where card ``c`` is: its place is public, it is in ``p``'s hand, or it
    is the face-down collective card ``p`` played."""
    if (s[PUBLIC] >> c) & 1:
        return True
    if find(s, hand_base(p), c) >= 0:
        return True
    return s[COLL_FD] == 1 and s[FD_OWNER] == p and s[COLL] > 0 and s[COLL + 1] == c


@njit(cache=True)
def information_state(s, p, out):
    """What seat ``p`` knows now (``int64 (INFO_SIZE,)``): the observation (:func:`observe`),
    the public header, and for every card whether ``p`` knows where it is (it saw it go there:
    :data:`PUBLIC` tracks every card's public moves, plus ``p``'s own hand and face-down card)
    and its place (layout: ``I_*`` constants). This is where things are, not how they got
    there, so it is not perfect recall (two orders of the same market draws give one
    summary); :func:`observation_tensor` encodes the same summary."""
    out[:] = 0
    observe(s, p, out[:OBS_SIZE])
    for i in range(48):
        out[I_HEADER + i] = s[i]
    out[I_HEADER + RNG] = 0
    out[I_HEADER + FAILED_DRAW] = 0
    if s[WAITING] >= 0:
        out[I_HEADER + WAITING] = -1
        out[I_HEADER + SECOND_RAT] = -1
    for c in range(54):
        out[I_POS + c] = -1
    for k in range(N_PILES):
        b = PILE_BASE[k]
        out[I_SIZES + k] = s[b]
        for i in range(s[b]):
            c = s[b + 1 + i]
            if known_cards(s, p, c):
                out[I_LOC + c] = 1 + k
                if _PILE_ORDERED[k] == 1:
                    out[I_POS + c] = i
    for i in range(24):
        out[I_RAT_UP + i] = s[RAT_UP + i]
    for i in range(65):
        out[I_LAST + i] = s[LAST_COLL + i]
    for i in range(25):
        out[I_LAST + 65 + i] = s[LAST_RAT + i]
    out[I_RANKING] = s[C_RANKING]


@njit(cache=True)
def observation_tensor(s, p, out):
    """:func:`information_state` as ``float32 (TENSOR_SIZE,)``: for each card a one-hot of
    ``N_LOC_CODES`` places (unknown, deck, discard, own hand, next seats' hands, market, ...),
    then the observation's scalars (:data:`OBS_SCALARS`) as floats."""
    info = np.zeros(INFO_SIZE, dtype=np.int64)
    information_state(s, p, info)
    out[:] = 0.0
    n = s[N_PLAYERS]
    for c in range(54):
        code = info[I_LOC + c]
        if code >= 1 + PILE_HAND0 and code < 1 + PILE_HAND0 + 4:
            q = code - 1 - PILE_HAND0
            code = 1 + PILE_HAND0 + (q - p + n) % n
        out[c * N_LOC_CODES + code] = 1.0
    for i in range(len(OBS_SCALARS)):
        out[54 * N_LOC_CODES + i] = info[OBS_CARDS + i]


@njit(cache=True)
def determinize(s, p, seed, out):
    """A world consistent with what seat ``p`` knows, in ``out`` (``int64 (STATE_SIZE,)``).

    Every card ``p`` does not know the place of (other hands, the deck, the Rat's face-down
    cards, face-down debt and stake cards, another player's face-down collective card, the
    waiting Rat's King) is dealt anew into the same hidden places, uniformly: the waiting Rat's
    King from the Kings ``p`` has not seen (the waiting and second Rat's suit follow it), the
    other cards by a uniform shuffle. Known cards stay in place; other hands are then sorted
    and the deck shuffled (their order is not information), the evaluator's scratch cleared,
    and the chance word restarted from ``seed`` (the future is resampled too). Jokers are never
    hidden: the face-down ones are known to be the jokers; the display piles of the last
    resolution are copies, not cards in play. The result depends only on
    ``information_state(s, p)`` and ``seed``."""
    out[:] = s
    out[RNG] = seed
    out[FAILED_DRAW] = 0
    for i in range(64):
        out[SCR + i] = 0
    # the pool of unknown cards, in id order
    pool = np.empty(54, dtype=np.int64)
    npool = 0
    for c in range(54):
        if not known_cards(s, p, c):
            pool[npool] = c
            npool += 1
    if npool == 0:
        return
    # the waiting Rat's King: one of the unseen Kings
    if s[WAITING] >= 0 and s[ASIDE] > 0:
        king = -1
        nk = 0
        for i in range(npool):
            if pool[i] >> 2 == KING:
                nk += 1
        k = rng_below(out, nk)
        for i in range(npool):
            if pool[i] >> 2 == KING:
                if k == 0:
                    king = pool[i]
                    for j in range(i, npool - 1):
                        pool[j] = pool[j + 1]
                    npool -= 1
                    break
                k -= 1
        out[ASIDE + 1] = king
        out[WAITING] = king & 3
        out[SECOND_RAT] = king & 3
    # shuffle the rest and deal it into the hidden slots, pile by pile
    for i in range(npool - 1, 0, -1):
        j = rng_below(out, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    used = 0
    for k in range(N_PILES):
        if k == PILE_ASIDE:
            continue
        b = PILE_BASE[k]
        for i in range(s[b]):
            if not known_cards(s, p, s[b + 1 + i]):
                out[b + 1 + i] = pool[used]
                used += 1
    hide_order(out, p)


@njit(cache=True)
def hide_order(out, p):
    """The last step of making a world for seat ``p`` (:func:`determinize`,
    :func:`engines.river_rats.relabel.relabeled_world`): the other hands sorted and the deck
    shuffled from the world's chance word (the order of hidden cards is not information)."""
    for q in range(out[N_PLAYERS]):
        if q != p:
            hb = hand_base(q)
            _sort(out[hb + 1:hb + 1 + out[hb]], out[hb])
    _sort(out[DECK + 1:DECK + 1 + out[DECK]], out[DECK])
    _shuffle_pile(out, DECK)


@njit(cache=True)
def observed_action(s, a, p):
    """Action ``a`` of the player to act as seat ``p`` sees it: ``HIDDEN_ACTION`` for another
    player's face-down play under the ♠ Rat (its card is hidden), else ``a``."""
    if p != s[CUR] and (a >> 6) == K_PLAY and facedown_pending(s):
        return HIDDEN_ACTION
    return a


@njit(cache=True)
def inventory(s, out):
    """``out[c]`` (``int64 (54,)``) = how many piles hold card ``c`` (always 1 each: every card
    is in exactly one place; the display piles are not counted)."""
    out[:] = 0
    for k in range(N_PILES):
        b = PILE_BASE[k]
        for i in range(s[b]):
            out[s[b + 1 + i]] += 1


@njit(cache=True)
def outcome(s, out):
    """Fill ``out`` (``int64 (len(OUTCOME_FIELDS),)``) with the statistics of the game."""
    out[O_WON] = 1 if s[STATUS] == WON else 0
    out[O_ROUNDS] = s[ROUND]
    out[O_HW] = s[HANDS_WON]
    out[O_HL] = s[HANDS_LOST]
    out[O_PDEBT] = s[PDEBT]
    out[O_R1] = s[RAT_DEBT1]
    out[O_R2] = s[RAT_DEBT2]
    out[O_DEF] = s[DEFEATED]
    out[O_JE] = s[JOKERS_EARNED]
    out[O_JU] = s[JOKERS_USED]
    out[O_LOSS] = s[LOSS_REASON]
    out[O_NACT] = s[N_ACTIONS]
    out[O_TURNS] = s[TURNS]
    out[O_RAT1] = s[FIRST_RAT]
    out[O_RAT2] = s[SECOND_RAT]


@njit(cache=True)
def progress(s, level):
    """Search-horizon counters: level 0 = collective hands resolved (a "hand"), level 1 = Rats
    defeated."""
    return s[ROUND] if level == 0 else s[DEFEATED]
