"""Door 2: the compiled batch simulator of Lure (:func:`play_batch`, :func:`simulate`).

Plays whole games with compiled policies (:mod:`agents.lure`) through the same kernels as the
step API (:mod:`engines.lure.core`): game ``g`` of ``seed`` is identical to
``LureGame(config, deck, seed, game_index=g)`` driven by the same agents.

Parallel runs (:func:`simulate_parallel`): ``n_games`` is split into fixed-size batches; batch
``i`` gets ``numpy.random.SeedSequence(seed).spawn(n_batches)[i]``, so the numbers do not depend
on the number of workers; batches are fanned out with ``joblib.Parallel``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numba import njit

from agents import lure as A
from engines.lure import core as K
from engines.lure import decks as D
from engines.lure.config import LureConfig

MAX_DECISIONS = 2048
"""Longest action log per game kept by ``simulate(..., keep_actions=True)``."""


def base_word(seed) -> int:
    """The uint64 word every game seed of a batch derives from (``SeedSequence(seed)``).

    ``seed``: int (>= 0) or ``numpy.random.SeedSequence``. Raises ``ValueError`` otherwise.
    """
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    else:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed {seed!r}; expected an integer >= 0 or a SeedSequence")
        ss = np.random.SeedSequence(int(seed))
    return int(ss.generate_state(1, np.uint64)[0])


@njit(cache=True)
def _play_kernel(cfg, conds, info, table, kinds, params, base, offset, n_games, keep_actions,
                 scores, fish, points, kept, trophies, wins, rounds, steps,
                 c_player, c_round, c_group, c_reveal, actions):
    np_ = cfg[0]
    state = np.zeros(K.STATE_LEN, np.int64)
    work = np.zeros(K.WORK_LEN, np.int64)
    prng = np.zeros(np_, np.int64)
    ncard = conds.shape[0]
    for g in range(n_games):
        gs = K.game_seed(base, offset + g)
        K.init_state(state, cfg, conds, info, gs)
        for p in range(np_):
            prng[p] = np.int64(K.policy_seed(gs, p))
        n = 0
        while state[K.H_PHASE] != K.PH_END:
            p = state[K.H_CUR]
            a = A.policy_action(kinds[p], state, cfg, conds, info, table, params[p], prng, p,
                                work)
            err = K.apply_action(state, cfg, conds, info, a, work)
            if err != 0:
                return g, p, a, err
            if keep_actions and n < actions.shape[1]:
                actions[g, n] = a
            n += 1
        nw = 0
        for p in range(np_):
            nw += state[K.PB + p * K.PSTRIDE + K.P_WIN]
        for p in range(np_):
            b = K.PB + p * K.PSTRIDE
            scores[g, p] = state[b + K.P_SCORE]
            fish[g, p] = state[b + K.P_NFISH]
            points[g, p] = state[b + K.P_POINTS]
            kept[g, p] = state[b + K.P_KEPT]
            trophies[g, p] = state[b + K.P_TROPHY]
            wins[g, p] = state[b + K.P_WIN] / nw
        rounds[g] = state[K.H_ROUND]
        steps[g] = n
        for c in range(ncard):
            loc = state[K.LOC + c]
            c_player[g, c] = -2 if loc == K.LOC_OUT else (loc - K.LOC_CAUGHT
                                                            if loc >= K.LOC_CAUGHT else -1)
            c_round[g, c] = state[K.CROUND + c]
            c_group[g, c] = state[K.CGROUP + c] if loc >= K.LOC_CAUGHT else -1
            c_reveal[g, c] = state[K.CREVEAL + c]
    return -1, -1, 0, 0


@dataclass
class BatchResult:
    """Outcome of :func:`simulate`.

    Attributes:
        games: one row per game (see :func:`play_batch`).
        catch_player: int8 ``(n_games, cards)``: catcher's seat, -1 in play but not caught,
            -2 not in play (Deep Waters removal).
        catch_round: int16 ``(n_games, cards)``: round caught (0 = not caught).
        catch_group: int8 ``(n_games, cards)``: turn-order rank of the catcher's group (0 =
            fewest dice), -1 when not caught.
        reveal_round: int16 ``(n_games, cards)``: round revealed (0 = never).
        actions: int64 ``(n_games, MAX_DECISIONS)`` action log (-1 padded) or None.
        deck: the deck played; seconds: wall time of the compiled loop.
    """

    games: pd.DataFrame
    catch_player: np.ndarray
    catch_round: np.ndarray
    catch_group: np.ndarray
    reveal_round: np.ndarray
    actions: np.ndarray | None
    deck: D.Deck
    seconds: float


def simulate(config: LureConfig, policies, n_games: int, seed=0, deck: D.Deck | None = None,
             game_offset: int = 0, keep_actions: bool = False) -> BatchResult:
    """Play ``n_games`` compiled games and keep per-game and per-card outcomes.

    Args:
        config: the game options.
        policies: an agent name / :class:`agents.lure.AgentSpec`, or one per seat.
        n_games: games to play (>= 1).
        seed: int >= 0 or ``SeedSequence``; game ``g`` uses ``game_seed(base, game_offset+g)``.
        deck: fish deck (default: the reconstruction).
        game_offset: index of the first game (to continue a seed's sequence).
        keep_actions: also return the action log.

    Returns:
        :class:`BatchResult`.

    Raises:
        ValueError: bad config / policies / n_games / seed; a RuntimeError if a policy returns
            an illegal action (a bug in the policy).
    """
    if not isinstance(config, LureConfig):
        raise ValueError(f"config must be a LureConfig; got {type(config).__name__}")
    if isinstance(n_games, bool) or not isinstance(n_games, (int, np.integer)) or n_games < 1:
        raise ValueError(f"n_games = {n_games!r}; expected an integer >= 1")
    deck = deck if deck is not None else D.default_deck()
    specs = A.seat_agents(policies, config.n_players)
    kinds, params = A.pack_agents(specs)
    table = A.policy_table(deck, config.adjust_may_be_unused)
    base = np.uint64(base_word(seed))
    n, np_, nc = int(n_games), config.n_players, len(deck)
    scores = np.zeros((n, np_), np.int64)
    fish = np.zeros((n, np_), np.int64)
    points = np.zeros((n, np_), np.int64)
    kept = np.zeros((n, np_), np.int64)
    trophies = np.zeros((n, np_), np.int64)
    wins = np.zeros((n, np_), np.float64)
    rounds = np.zeros(n, np.int64)
    steps = np.zeros(n, np.int64)
    cp = np.zeros((n, nc), np.int64)
    cr = np.zeros((n, nc), np.int64)
    cg = np.zeros((n, nc), np.int64)
    cv = np.zeros((n, nc), np.int64)
    actions = np.full((n if keep_actions else 1, MAX_DECISIONS), -1, np.int64)
    t0 = time.perf_counter()
    g, p, a, err = _play_kernel(config.to_array(), deck.conds, deck.info, table, kinds, params,
                                base, int(game_offset), n, bool(keep_actions), scores, fish,
                                points, kept, trophies, wins, rounds, steps, cp, cr, cg, cv,
                                actions)
    seconds = time.perf_counter() - t0
    if g >= 0:
        raise RuntimeError(f"policy {specs[p].name!r} (seat {p}) returned illegal action {a} in "
                           f"game {g}: {K.ERROR_TEXT.get(int(err), err)}")
    cols = {"game": np.arange(game_offset, game_offset + n), "rounds": rounds,
            "decisions": steps}
    for q in range(np_):
        cols[f"score_{q}"] = scores[:, q]
        cols[f"fish_{q}"] = fish[:, q]
        cols[f"fish_points_{q}"] = points[:, q]
        cols[f"boosts_{q}"] = kept[:, q]
        cols[f"trophies_{q}"] = trophies[:, q]
        cols[f"win_{q}"] = wins[:, q]
    games = pd.DataFrame(cols)
    games.attrs.update(config=config.to_dict(), policies=[s.name for s in specs],
                       deck=deck.source, deck_sha256=deck.sha256())
    return BatchResult(games, cp.astype(np.int8), cr.astype(np.int16), cg.astype(np.int8),
                       cv.astype(np.int16), actions if keep_actions else None, deck, seconds)


def play_batch(config: LureConfig, policies, n_games: int, seed=0, deck: D.Deck | None = None,
               game_offset: int = 0) -> pd.DataFrame:
    """Play ``n_games`` compiled games; one DataFrame row per game.

    Columns: ``game``, ``rounds``, ``decisions`` and per seat ``q``: ``score_q``, ``fish_q``,
    ``fish_points_q``, ``boosts_q`` (kept), ``trophies_q``, ``win_q`` (1/k for each of k tied
    winners, else 0). ``attrs`` holds the config, policies and deck hash. Arguments and errors
    as :func:`simulate`.
    """
    return simulate(config, policies, n_games, seed, deck, game_offset).games


def simulate_parallel(config: LureConfig, policies, n_games: int, seed: int = 0,
                      deck: D.Deck | None = None, batch_size: int = 5000, n_jobs: int = 1,
                      progress: bool = False) -> BatchResult:
    """:func:`simulate` split into batches seeded by ``SeedSequence(seed).spawn`` (joblib).

    Results depend on ``seed`` and ``batch_size`` only, not on ``n_jobs``. The returned
    ``games["game"]`` numbers games consecutively across batches.

    Raises:
        ValueError: as :func:`simulate`, or ``batch_size < 1``.
    """
    from joblib import Parallel, delayed

    if int(batch_size) < 1:
        raise ValueError(f"batch_size = {batch_size!r}; expected >= 1")
    deck = deck if deck is not None else D.default_deck()
    sizes = [min(batch_size, n_games - i) for i in range(0, int(n_games), int(batch_size))]
    children = np.random.SeedSequence(seed).spawn(len(sizes))
    t0 = time.perf_counter()
    pairs = list(zip(sizes, children, strict=True))
    jobs = (delayed(simulate)(config, policies, s, ch, deck) for s, ch in pairs)
    if n_jobs == 1:
        it = (simulate(config, policies, s, ch, deck) for s, ch in pairs)
        if progress:
            from tqdm import tqdm

            it = tqdm(it, total=len(sizes), desc="lure batches", unit="batch")
        parts = list(it)
    else:
        parts = Parallel(n_jobs=n_jobs)(jobs)
    games = pd.concat([r.games for r in parts], ignore_index=True)
    games["game"] = np.arange(len(games))
    games.attrs.update(parts[0].games.attrs, seed=seed, batch_size=batch_size)
    return BatchResult(games, np.concatenate([r.catch_player for r in parts]),
                       np.concatenate([r.catch_round for r in parts]),
                       np.concatenate([r.catch_group for r in parts]),
                       np.concatenate([r.reveal_round for r in parts]), None, deck,
                       time.perf_counter() - t0)
