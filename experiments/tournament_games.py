"""One adapter per game so that tournaments, ratings and tuning treat the four games alike.

An adapter (:class:`GameAdapter`) knows, for its game: the player counts, how to build a config
from options, the shipped agents (registry names), the parameter vector of each agent, and how
to play ``n_deals`` **deals** with a given agent in each seat, returning per-deal outcome arrays
(:class:`Outcome`). A deal is what duplicate format replays in every seat rotation: one game
(Rats, River Rats, Lure) or one 3-game match (ReCURRRing, rules "Scoring"). Deal ``i`` of a
seed word depends on the seed word and ``i`` only -- the engines deal from the game's own seed
and every seat draws its policy's chance from its own stream -- so the same seed word replays
the same cards whatever agents sit where (tested in ``tests/tournament``).

Outcome per deal and seat, higher is better everywhere:

=============  ==========================  =========================  ===========================
game           ``win`` (share of the win)  ``score``                  ``key`` (ranks the seats)
=============  ==========================  =========================  ===========================
rats           1, 1/k tied, 0              = ``win``                  ``-place``
recurring      match win share             match points (3 games)     match points
river_rats     1 if the team won           = ``win``                  = ``win`` (cooperative)
lure           1, 1/k tied, 0              final score (points)       ``win``, then score
=============  ==========================  =========================  ===========================

Agents are :class:`AgentRef` (a label, a base policy name, an optional parameter vector). A
base name is a registry name of the game, a user policy added with :meth:`register_policy`
(a compiled ``@njit`` function with the game's policy signature, see the README section
"Compare strategies"), or a saved tuned agent (``results/<game>/agents/<name>.json``, written
by :mod:`experiments.tournament_tune`). User policies are supported for Rats, ReCURRRing and
River Rats; Lure's user policies take Lure's own protocol (the deck tables), see LureAdapter.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numba import njit

__all__ = ["AgentRef", "Outcome", "GameAdapter", "GAMES", "get_adapter", "parse_agents",
           "WIN_UNITS", "AGENTS_DIR_ENV", "agents_dir", "USER_KIND"]

WIN_UNITS = 60
"""Win shares are summed as integers in units of 1/60 (exact for ties of 1..5 players)."""
AGENTS_DIR_ENV = "BOARDLAB_AGENTS_DIR"
"""Environment variable naming the root of saved tuned agents (default ``results``)."""
USER_KIND = 1000
"""Kinds ``>= USER_KIND`` in a compiled loop call user policy ``kind - USER_KIND``."""
MAX_USER = 4
"""User policies that one table may seat at once (distinct functions)."""


def agents_dir(game: str, root: str | os.PathLike | None = None) -> Path:
    """Folder of the saved tuned agents of ``game``: ``<root>/<game>/agents`` with ``root`` from
    the argument, else ``$BOARDLAB_AGENTS_DIR``, else ``results``."""
    root = root if root is not None else os.environ.get(AGENTS_DIR_ENV, "results")
    return Path(root) / game / "agents"


@dataclass(frozen=True)
class AgentRef:
    """An agent of a tournament: ``label`` (unique display name), ``base`` (registry name, user
    policy or saved agent) and ``params`` (``None``: the base's defaults; else a tuple of
    floats, the full parameter vector)."""

    label: str
    base: str
    params: tuple[float, ...] | None = None

    def to_dict(self) -> dict:
        """JSON-ready form (used in runner cells and metadata)."""
        return {"label": self.label, "base": self.base,
                "params": None if self.params is None else list(self.params)}

    @classmethod
    def from_dict(cls, d: dict) -> AgentRef:
        """Inverse of :meth:`to_dict`."""
        p = d.get("params")
        return cls(d["label"], d["base"], None if p is None else tuple(float(x) for x in p))


@dataclass
class Outcome:
    """Per-deal outcome arrays of :meth:`GameAdapter.play`, shape ``(n_deals, n_players)``,
    seat order: ``win`` float64 win share, ``score`` float64 game score, ``key`` float64 rank
    key (higher is better; equal keys tie). See the module docstring's table."""

    win: np.ndarray
    score: np.ndarray
    key: np.ndarray


@dataclass
class _UserPolicy:
    fn: Any
    default_params: np.ndarray
    description: str


@dataclass
class GameAdapter:
    """What the tournament needs to know of one game (subclassed per game).

    Attributes: ``name`` (command-line name), ``title``, ``cooperative`` (River Rats: all seats
    are one team), ``players`` (allowed player counts), ``default_players``, ``deal_games``
    (games per deal), ``score_name`` (what ``Outcome.score`` measures), ``score_scale``
    (integer units per score point when summing), ``param_names``, ``param_bounds`` (lower,
    upper per parameter, for tuning), ``shipped`` (registry names, in display order),
    ``tunable`` (bases whose parameter vector matters), ``user`` (user policies).
    """

    name: str = ""
    title: str = ""
    cooperative: bool = False
    players: tuple[int, ...] = ()
    default_players: int = 4
    deal_games: int = 1
    score_name: str = "win share"
    score_scale: int = WIN_UNITS
    param_names: tuple[str, ...] = ()
    param_bounds: tuple[tuple[float, float], ...] = ()
    shipped: tuple[str, ...] = ()
    tunable: tuple[str, ...] = ()
    user: dict[str, _UserPolicy] = field(default_factory=dict)

    # ---- registry --------------------------------------------------------------------------
    def registry_params(self, base: str) -> np.ndarray:  # pragma: no cover - per game
        raise NotImplementedError

    def describe(self, base: str) -> str:  # pragma: no cover - per game
        raise NotImplementedError

    def register_policy(self, name: str, fn, default_params=None, description: str = "") -> None:
        """Add a user policy ``name``: a compiled ``@njit`` function with the game's policy
        signature (:attr:`user_signature`; ``policy(state, player, legal, n_legal, params,
        rng) -> action`` except for Lure, see the game's agents module). ``default_params``:
        its float vector (default: zeros of the game's parameter length). Raises
        ``ValueError`` if the name is taken by a shipped agent or badly formed, or ``fn`` is
        not compiled."""
        from numba.core.registry import CPUDispatcher

        if not self.accepts_user_policies:
            raise ValueError(f"{self.title} does not take user policies: its policy protocol "
                             f"needs the deck tables; use a registry name with parameters")
        if not isinstance(name, str) or not name or any(c in name for c in ",:@;= "):
            raise ValueError(f"policy name {name!r}: expected a word without , : @ ; = or spaces")
        if name in self.shipped:
            raise ValueError(f"policy name {name!r} is a shipped {self.title} agent: choose "
                             f"another name")
        if not isinstance(fn, CPUDispatcher):
            raise ValueError(f"policy {name!r}: expected an @njit function "
                             f"{self.user_signature}, got {type(fn).__name__}")
        p = (np.zeros(len(self.param_names)) if default_params is None
             else np.asarray(default_params, dtype=np.float64).ravel())
        if not np.all(np.isfinite(p)):
            raise ValueError(f"default_params of {name!r} must be finite, got {p.tolist()}")
        self.user[name] = _UserPolicy(fn, p.copy(), description)

    accepts_user_policies = True
    """Whether :meth:`register_policy` is open (class attribute)."""
    user_signature = "policy(state, player, legal, n_legal, params, rng) -> action"
    """The signature a user policy of this game must have (class attribute)."""

    def base_names(self) -> list[str]:
        """Shipped names followed by the user policies' names."""
        return list(self.shipped) + [n for n in self.user if n not in self.shipped]

    def resolve(self, ref: AgentRef, root=None) -> AgentRef:
        """Check ``ref`` and fill its parameter vector: a registry name keeps ``params`` (or gets
        its defaults), a user policy likewise, a saved tuned agent gets its saved base and
        parameters. Raises ``ValueError`` for an unknown base or a vector of the wrong length
        or non-finite values."""
        base, params = ref.base, ref.params
        if base in self.shipped:
            default = self.registry_params(base)
        elif base in self.user:
            default = self.user[base].default_params
        else:
            path = agents_dir(self.name, root) / f"{base}.json"
            if not path.exists():
                raise ValueError(f"unknown {self.title} agent {base!r}: expected one of "
                                 f"{self.base_names()} or a tuned agent saved as {path}")
            saved = json.loads(path.read_text())
            if saved.get("game") != self.name:
                raise ValueError(f"{path}: agent of game {saved.get('game')!r}, expected "
                                 f"{self.name!r}")
            inner = self.resolve(AgentRef(ref.label, saved["base"],
                                          tuple(saved["params"]) if params is None else params))
            return inner
        vec = default if params is None else np.asarray(params, dtype=np.float64)
        if base in self.shipped and vec.shape != default.shape:
            raise ValueError(f"params of {ref.label!r} have {vec.size} values: expected "
                             f"{default.size} ({', '.join(self.param_names)})")
        if not np.all(np.isfinite(vec)):
            raise ValueError(f"params of {ref.label!r} must be finite, got {vec.tolist()}")
        self.check_params(base, vec)
        return AgentRef(ref.label, base, tuple(float(x) for x in vec))

    def check_params(self, base: str, vec: np.ndarray) -> None:
        """Game-specific checks of a parameter vector (raise ``ValueError``); default none."""

    # ---- playing ---------------------------------------------------------------------------
    def config(self, n_players: int, options: dict | None = None):  # pragma: no cover
        raise NotImplementedError

    def play(self, config, seats: list[AgentRef], n_deals: int, word: int) -> Outcome:
        """Play ``n_deals`` deals from seed word ``word`` (int in ``0 .. 2**63-1``) with
        ``seats[p]`` (resolved :class:`AgentRef`) in seat ``p``; returns an :class:`Outcome`.
        Raises ``ValueError`` for a wrong number of seats or an illegal action of a user
        policy."""
        raise NotImplementedError  # pragma: no cover

    def games_per_deal(self, config) -> int:
        """Games in one deal under ``config`` (1; ReCURRRing: ``games_per_match``)."""
        return self.deal_games

    def check_players(self, n_players: int) -> None:
        """Raise ``ValueError`` unless ``n_players`` is allowed for this game."""
        if isinstance(n_players, bool) or n_players not in self.players:
            raise ValueError(f"{self.title} is played by {self.players[0]}..{self.players[-1]} "
                             f"players, got {n_players!r}")


def _config_from(cls, n_players, options, game):
    import dataclasses

    names = {f.name for f in dataclasses.fields(cls)}
    options = dict(options or {})
    bad = sorted(set(options) - names)
    if bad or "n_players" in options:
        raise ValueError(f"unknown {game} option(s) {bad or ['n_players']}: expected some of "
                         f"{sorted(names - {'n_players'})} (players are set by --players)")
    return cls(n_players=n_players, **options)


def _user_table(adapter: GameAdapter, seats: list[AgentRef], base_kinds: dict[str, int],
                n_params: int):
    """(kinds int64 (P,), params float64 (P, width), user functions tuple) for one line-up."""
    fns: list = []
    width = max([n_params] + [len(s.params or ()) for s in seats])
    kinds = np.zeros(len(seats), dtype=np.int64)
    params = np.zeros((len(seats), width), dtype=np.float64)
    for p, s in enumerate(seats):
        if s.base in base_kinds:
            kinds[p] = base_kinds[s.base]
        else:
            fn = adapter.user[s.base].fn
            if fn not in fns:
                fns.append(fn)
            if len(fns) > MAX_USER:
                raise ValueError(f"at most {MAX_USER} different user policies at one table")
            kinds[p] = USER_KIND + fns.index(fn)
        vec = np.asarray(s.params, dtype=np.float64)
        params[p, :vec.size] = vec
    return kinds, params, tuple(fns)


_KERNELS: dict = {}


def _padded(fns):
    fns = list(fns)
    return tuple(fns + [fns[0]] * (MAX_USER - len(fns)))


# ---- Rats and ReCURRRing -----------------------------------------------------------------------
def _climbing_user_kernel(game: str, fns):
    """Compiled loop of a climbing game, the loop of ``engines.<game>.batch.play_games`` (same
    kernels, seeds and seat streams) where kinds >= USER_KIND call the given user policies.

    ``game``: ``"rats"`` or ``"recurring"``. The kernel
    ``kernel(cfg, seeds, kinds, params, out, shares, bad)`` plays one game per seed and fills
    ``out`` (int64, ``(n_games, n_players)``: Rats the final place of each seat, ReCURRRing its
    points) and ``shares`` (float64, same shape: ``core.returns``, each seat's win share); on
    an illegal action it stores (game, seat, action) in ``bad`` and stops.
    Compiled once per set of functions per process (closures are not cached on disk)."""
    key = (game,) + tuple(id(f) for f in fns)
    if key in _KERNELS:
        return _KERNELS[key][1]
    from engines.splitmix import seat_streams

    if game == "rats":
        from agents.rats import act
        from engines.rats import core as C

        result_base = C.PLACE
    else:
        from agents.recurring import act
        from engines.recurring import core as C

        result_base = C.POINTS
    u0, u1, u2, u3 = _padded(fns)

    @njit
    def kernel(cfg, seeds, kinds, params, out, shares, bad):
        n = cfg[0]
        legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
        for g in range(seeds.shape[0]):
            st = C.init_state(cfg, seeds[g])
            rngs = seat_streams(seeds[g], n)
            while st[C.PHASE] != C.PHASE_OVER:
                p = st[C.CUR]
                k = C.legal_actions(st, legal)
                kd = kinds[p]
                r = rngs[p:p + 1]
                if kd < USER_KIND:
                    a = act(kd, st, p, legal, k, params[p], r)
                elif kd == USER_KIND:
                    a = u0(st, p, legal, k, params[p], r)
                elif kd == USER_KIND + 1:
                    a = u1(st, p, legal, k, params[p], r)
                elif kd == USER_KIND + 2:
                    a = u2(st, p, legal, k, params[p], r)
                else:
                    a = u3(st, p, legal, k, params[p], r)
                ok = False
                for i in range(k):
                    if legal[i] == a:
                        ok = True
                        break
                if not ok:
                    bad[0] = g
                    bad[1] = p
                    bad[2] = a
                    return
                C.apply_action(st, a)
            rr = C.returns(st)
            for p in range(n):
                out[g, p] = st[result_base + p]
                shares[g, p] = rr[p]

    _KERNELS[key] = (fns, kernel)
    return kernel


class RatsAdapter(GameAdapter):
    """Rats (``../shared/rules/rats.md``): 2..5 players, a deal is one game; score = win share,
    seats ranked by final place."""

    def __init__(self):
        from agents.rats import HEURISTIC_PARAM_NAMES, REGISTRY

        super().__init__(
            name="rats", title="Rats", players=(2, 3, 4, 5), default_players=4,
            score_name="win share", score_scale=WIN_UNITS, param_names=HEURISTIC_PARAM_NAMES,
            param_bounds=((-5, 5),) * 7 + ((0, 20),), shipped=tuple(REGISTRY),
            tunable=("heuristic",))
        self._registry = REGISTRY

    def registry_params(self, base):
        """Default ``float64`` (8,) vector of a registered policy."""
        return self._registry[base].default_params.copy()

    def describe(self, base):
        """One line on the agent."""
        if base in self.user:
            return self.user[base].description or "user policy"
        return self._registry[base].description

    def config(self, n_players, options=None):
        """:class:`engines.rats.RatsConfig` with ``n_players`` and ``options`` (field names);
        raises ``ValueError`` for a bad count or option."""
        from engines.rats import RatsConfig

        self.check_players(n_players)
        return _config_from(RatsConfig, n_players, options, "Rats")

    def play(self, config, seats, n_deals, word):
        """See :meth:`GameAdapter.play`; uses :func:`engines.rats.batch.play_games` (seeds
        :func:`engines.splitmix.game_seeds`) or the same loop with user policies."""
        from engines.rats.batch import play_games
        from engines.splitmix import game_seeds

        n = config.n_players
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seats given for {n} players")
        kinds_by_name = {k: v.kind for k, v in self._registry.items()}
        kinds, params, fns = _user_table(self, seats, kinds_by_name, 8)
        seeds = game_seeds(word, n_deals)
        wins = np.zeros((n_deals, n))
        places = np.zeros((n_deals, n), dtype=np.int64)
        if not fns:
            play_games(config.to_array(), seeds, kinds, params, wins, places,
                       np.zeros((n_deals, n), np.int64), np.zeros((n_deals, n), np.int64),
                       np.zeros((n_deals, 4), np.int64))
        else:
            bad = np.full(3, -1, dtype=np.int64)
            _climbing_user_kernel("rats", fns)(config.to_array(), seeds, kinds, params, places,
                                               wins, bad)
            _raise_illegal(bad, seats)
        return Outcome(wins, wins.copy(), -places.astype(np.float64))


def _raise_illegal(bad, seats):
    if bad[0] >= 0:
        raise ValueError(f"policy {seats[int(bad[1])].label!r} (seat {int(bad[1])}) returned the "
                         f"illegal action {int(bad[2])} in deal {int(bad[0])}")


# ---- ReCURRRing ---------------------------------------------------------------------------------
class RecurringAdapter(GameAdapter):
    """ReCURRRing (``../shared/rules/recurring.md``): 3..5 players, a deal is one match of
    ``games_per_match`` games (rules "Scoring"); score = match points, win = match win share
    (ties per ``match_tie``)."""

    def __init__(self):
        from agents.recurring import HEURISTIC_PARAM_NAMES, REGISTRY

        super().__init__(
            name="recurring", title="ReCURRRing", players=(3, 4, 5), default_players=4,
            deal_games=3, score_name="match points", score_scale=1,
            param_names=HEURISTIC_PARAM_NAMES, param_bounds=((-10, 10),) * 8,
            shipped=tuple(REGISTRY), tunable=("heuristic",))
        self._registry = REGISTRY

    def registry_params(self, base):
        """Default ``float64`` (8,) vector of a registered policy."""
        return self._registry[base].default_params.copy()

    def describe(self, base):
        """One line on the agent."""
        if base in self.user:
            return self.user[base].description or "user policy"
        return self._registry[base].description

    def games_per_deal(self, config) -> int:
        """``config.games_per_match`` (a deal is a match)."""
        return int(config.games_per_match)

    def config(self, n_players, options=None):
        """:class:`engines.recurring.RecurringConfig`; raises ``ValueError`` for bad values."""
        from engines.recurring import RecurringConfig

        self.check_players(n_players)
        return _config_from(RecurringConfig, n_players, options, "ReCURRRing")

    def play(self, config, seats, n_deals, word):
        """See :meth:`GameAdapter.play`; plays ``n_deals * games_per_match`` games with
        :func:`engines.recurring.batch.play_games` (or the same loop with user policies) and
        totals them per match as :func:`engines.recurring.batch.match_results` does."""
        from engines.recurring.batch import play_games
        from engines.splitmix import game_seeds

        n = config.n_players
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seats given for {n} players")
        kinds_by_name = {k: v.kind for k, v in self._registry.items()}
        kinds, params, fns = _user_table(self, seats, kinds_by_name, 8)
        g = config.games_per_match
        seeds = game_seeds(word, n_deals * g)
        points = np.zeros((n_deals * g, n), dtype=np.int64)
        if not fns:
            play_games(config.to_array(), seeds, kinds, params, points,
                       np.zeros((n_deals * g, n), np.int64), np.zeros((n_deals * g, 3), np.int64))
        else:
            bad = np.full(3, -1, dtype=np.int64)
            _climbing_user_kernel("recurring", fns)(config.to_array(), seeds, kinds, params,
                                                    points, np.zeros(points.shape), bad)
            if bad[0] >= 0:
                bad[0] //= g
            _raise_illegal(bad, seats)
        totals = points.reshape(n_deals, g, n).sum(axis=1).astype(np.float64)
        top = totals == totals.max(axis=1, keepdims=True)
        n_top = top.sum(axis=1, keepdims=True)
        win = top / n_top if config.match_tie == "shared" else top * (n_top == 1)
        return Outcome(win.astype(np.float64), totals, totals.copy())


# ---- River Rats ---------------------------------------------------------------------------------
class RiverRatsAdapter(GameAdapter):
    """River Rats (``../shared/rules/river_rats.md``): cooperative, 1..4 players; an agent is a
    team (every seat plays it); a deal is one game; win = the team won."""

    def __init__(self):
        from agents import river_rats as A

        super().__init__(
            name="river_rats", title="River Rats", cooperative=True, players=(1, 2, 3, 4),
            default_players=4, score_name="team win", score_scale=1,
            param_names=tuple(A.PARAM_NAMES), param_bounds=_river_rats_bounds(A),
            shipped=tuple(A.POLICY_IDS), tunable=("heuristic", "greedy"))
        self._A = A

    def registry_params(self, base):
        """Default ``float64`` vector of a registered policy (:func:`default_params`)."""
        return self._A.default_params(base)

    def describe(self, base):
        """One line on the agent."""
        if base in self.user:
            return self.user[base].description or "user policy"
        return self._A.POLICY_LABELS.get(base, "")

    def check_params(self, base, vec):
        """Length checked by :func:`agents.river_rats.check_params` for registry agents."""
        if base in self.shipped:
            self._A.check_params(vec)

    def config(self, n_players, options=None):
        """:class:`engines.river_rats.Config`; raises ``ValueError`` for bad values."""
        from engines.river_rats import Config

        self.check_players(n_players)
        return _config_from(Config, n_players, options, "River Rats")

    def play(self, config, seats, n_deals, word):
        """See :meth:`GameAdapter.play`; :func:`engines.river_rats.play_batch` with names or the
        user's compiled functions (game ``g`` uses ``game_seed(word, g)``)."""
        from engines.river_rats import play_batch

        n = config.n_players
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seats given for {n} players")
        pols = [s.base if s.base in self.shipped else self.user[s.base].fn for s in seats]
        params = [np.asarray(s.params, dtype=np.float64) for s in seats]
        if all(isinstance(p, str) for p in pols):
            df = play_batch(config, pols, n_deals, seed=word, params=params)
        else:
            try:
                df = play_batch(config, pols, n_deals, seed=word, params=params)
            except ValueError as exc:
                raise ValueError(f"line-up {[s.label for s in seats]}: {exc}") from exc
        won = df["won"].to_numpy().astype(np.float64)
        win = np.repeat(won[:, None], n, axis=1)
        return Outcome(win, win.copy(), win.copy())


def _river_rats_bounds(A):
    out = []
    for name in A.PARAM_NAMES:
        if name == "h_eff":
            out.append((1.0, 8.0))
        elif name == "max_reveals":
            out.append((0.0, 4.0))
        elif name == "joker_value":
            out.append((0.0, 2.0))
        else:
            out.append((0.0, 1.0))
    return tuple(out)


# ---- Lure ---------------------------------------------------------------------------------------
def _lure_user_kernel(fns):
    """Compiled Lure loop (that of :func:`engines.lure.batch.simulate`, same kernels and seeds)
    where kinds >= USER_KIND call the given user policies, whose signature is Lure's policy
    protocol without the ``kind``: ``policy(state, cfg, conds, info, table, params, prng,
    player, work) -> action`` (see :mod:`agents.lure`)."""
    key = ("lure",) + tuple(id(f) for f in fns)
    if key in _KERNELS:
        return _KERNELS[key][1]
    from agents.lure import policy_action
    from engines.lure import core as K

    u0, u1, u2, u3 = _padded(fns)

    @njit
    def kernel(cfg, conds, info, table, kinds, params, base, n_games, wins, scores, bad):
        np_ = cfg[0]
        state = np.zeros(K.STATE_LEN, np.int64)
        work = np.zeros(K.WORK_LEN, np.int64)
        prng = np.zeros(np_, np.int64)
        for g in range(n_games):
            gs = K.game_seed(base, g)
            K.init_state(state, cfg, conds, info, gs)
            for p in range(np_):
                prng[p] = np.int64(K.policy_seed(gs, p))
            while state[K.H_PHASE] != K.PH_END:
                p = state[K.H_CUR]
                kd = kinds[p]
                if kd < USER_KIND:
                    a = policy_action(kd, state, cfg, conds, info, table, params[p], prng, p,
                                      work)
                elif kd == USER_KIND:
                    a = u0(state, cfg, conds, info, table, params[p], prng, p, work)
                elif kd == USER_KIND + 1:
                    a = u1(state, cfg, conds, info, table, params[p], prng, p, work)
                elif kd == USER_KIND + 2:
                    a = u2(state, cfg, conds, info, table, params[p], prng, p, work)
                else:
                    a = u3(state, cfg, conds, info, table, params[p], prng, p, work)
                err = K.apply_action(state, cfg, conds, info, a, work)
                if err != 0:
                    bad[0] = g
                    bad[1] = p
                    bad[2] = a
                    return
            nw = 0
            for p in range(np_):
                nw += state[K.PB + p * K.PSTRIDE + K.P_WIN]
            for p in range(np_):
                b = K.PB + p * K.PSTRIDE
                scores[g, p] = state[b + K.P_SCORE]
                wins[g, p] = state[b + K.P_WIN] / nw

    _KERNELS[key] = (fns, kernel)
    return kernel


class LureAdapter(GameAdapter):
    """Lure (``../shared/rules/lure.md``): 2..5 players, a deal is one game; score = final
    score, win share with the rules' tie-breaks; seats ranked by win share, then score.

    User policies (:meth:`register_policy`) take Lure's policy protocol without the ``kind``:
    ``policy(state, cfg, conds, info, table, params, prng, player, work) -> action``
    (:mod:`agents.lure` documents each argument); an action the rules refuse stops the run
    with an error naming the policy."""

    user_signature = ("policy(state, cfg, conds, info, table, params, prng, player, work) "
                      "-> action")

    def __init__(self):
        from agents import lure as A

        super().__init__(
            name="lure", title="Lure", players=(2, 3, 4, 5), default_players=4,
            score_name="points", score_scale=1, param_names=tuple(A.PARAM_NAMES),
            param_bounds=((-1, 1), (0, 2), (0, 3), (0, 3), (0, 3), (0, 1), (0, 0.5), (0, 2)),
            shipped=tuple(A.REGISTRY), tunable=("heuristic",))
        self._A = A

    def registry_params(self, base):
        """Default ``float64`` (8,) vector of a registered agent."""
        return self._A.REGISTRY[base].params_array()

    def describe(self, base):
        """One line on the agent (from the agents module docstring)."""
        if base in self.user:
            return self.user[base].description or "user policy"
        return {"random": "uniformly random legal cast and adjusts",
                "greedy": "maximizes expected points of the round from the exact odds",
                "heuristic": "tunable family (8 parameters), default vector",
                "cautious": "heuristic preferring sure catches",
                "bold": "heuristic preferring long shots"}.get(base, "")

    def check_params(self, base, vec):
        """Range checks of :func:`agents.lure.heuristic` (caution, pressure)."""
        if base in self.shipped and base != "random":
            self._A.heuristic(vec)

    def config(self, n_players, options=None):
        """:class:`engines.lure.LureConfig`; raises ``ValueError`` for bad values."""
        from engines.lure import LureConfig

        self.check_players(n_players)
        opts = dict(options or {})
        if "lure_mix" in opts and isinstance(opts["lure_mix"], list):
            opts["lure_mix"] = tuple(opts["lure_mix"])
        return _config_from(LureConfig, n_players, opts, "Lure")

    def play(self, config, seats, n_deals, word):
        """See :meth:`GameAdapter.play`; :func:`engines.lure.batch.simulate` (game ``g`` uses
        ``game_seed(base_word(SeedSequence(word)), g)``)."""
        from engines.lure.batch import simulate

        n = config.n_players
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seats given for {n} players")
        if any(s.base in self.user for s in seats):
            return self._play_user(config, seats, n_deals, word)
        specs = []
        for s in seats:
            if s.base == "random":
                specs.append(self._A.REGISTRY["random"])
            else:
                specs.append(self._A.heuristic(np.asarray(s.params), name=s.label))
        res = simulate(config, specs, n_deals, seed=int(word))
        g = res.games
        win = g[[f"win_{p}" for p in range(n)]].to_numpy(dtype=np.float64)
        score = g[[f"score_{p}" for p in range(n)]].to_numpy(dtype=np.float64)
        return Outcome(win, score, win * 1e4 + score)

    def _play_user(self, config, seats, n_deals, word):
        """The same games as :meth:`play` with user policies in some seats."""
        from engines.lure import decks as D
        from engines.lure.batch import base_word

        n = config.n_players
        kinds_by_name = {"random": self._A.KIND_RANDOM}
        kinds_by_name.update({k: self._A.KIND_HEURISTIC for k in self.shipped if k != "random"})
        kinds, params, fns = _user_table(self, seats, kinds_by_name, len(self.param_names))
        deck = D.default_deck()
        table = self._A.policy_table(deck, config.adjust_may_be_unused)
        wins = np.zeros((n_deals, n))
        scores = np.zeros((n_deals, n), dtype=np.int64)
        bad = np.full(3, -1, dtype=np.int64)
        _lure_user_kernel(fns)(config.to_array(), deck.conds, deck.info, table, kinds, params,
                               np.uint64(base_word(int(word))), int(n_deals), wins, scores, bad)
        _raise_illegal(bad, seats)
        score = scores.astype(np.float64)
        return Outcome(wins, score, wins * 1e4 + score)


GAMES: dict[str, type[GameAdapter]] = {"rats": RatsAdapter, "recurring": RecurringAdapter,
                                       "river_rats": RiverRatsAdapter, "lure": LureAdapter}
"""Adapter class per game name (command-line names; ``river-rats`` is accepted too)."""
_INSTANCES: dict[str, GameAdapter] = {}


def get_adapter(game: str) -> GameAdapter:
    """The process-wide adapter of ``game`` (``rats``, ``recurring``, ``river_rats`` or
    ``river-rats``, ``lure``). Raises ``ValueError`` for an unknown game."""
    key = str(game).replace("-", "_")
    if key not in GAMES:
        raise ValueError(f"unknown game {game!r}: expected one of {sorted(GAMES)}")
    if key not in _INSTANCES:
        _INSTANCES[key] = GAMES[key]()
    return _INSTANCES[key]


def parse_agents(text: str, adapter: GameAdapter, root=None) -> list[AgentRef]:
    """Parse ``--agents`` text into resolved :class:`AgentRef` (``ValueError`` on errors).

    Grammar: agents separated by commas; each ``NAME[:PARAMS][@LABEL]`` where ``PARAMS`` is
    either ``v1;v2;...`` (the whole vector) or ``key=value;key=value`` (overrides of the base's
    defaults by parameter name). Without ``@LABEL`` the label is the text itself. Example:
    ``greedy,heuristic,heuristic:win_bias=2@eager``.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError("--agents is empty: expected e.g. 'greedy,heuristic,random'")
    out: list[AgentRef] = []
    for item in (t.strip() for t in text.split(",")):
        if not item:
            raise ValueError(f"--agents {text!r} has an empty entry")
        body, _, label = item.partition("@")
        name, _, ptext = body.partition(":")
        label = label or item
        params = None
        if ptext:
            base = adapter.resolve(AgentRef(label, name))
            vec = np.asarray(base.params, dtype=np.float64)
            parts = [p for p in ptext.split(";") if p]
            if all("=" in p for p in parts):
                for p in parts:
                    k, _, v = p.partition("=")
                    if k not in adapter.param_names:
                        raise ValueError(f"agent {item!r}: unknown parameter {k!r}, expected one "
                                         f"of {adapter.param_names}")
                    vec[adapter.param_names.index(k)] = _float(v, item)
            elif any("=" in p for p in parts):
                raise ValueError(f"agent {item!r}: mix of named and positional parameters")
            else:
                vec = np.array([_float(v, item) for v in parts])
            params = tuple(vec)
        out.append(adapter.resolve(AgentRef(label, name, params), root))
    labels = [a.label for a in out]
    dup = sorted({x for x in labels if labels.count(x) > 1})
    if dup:
        raise ValueError(f"agent label(s) {dup} given twice: add @LABEL to tell them apart")
    return out


def _float(v: str, item: str) -> float:
    try:
        return float(v)
    except ValueError:
        raise ValueError(f"agent {item!r}: parameter value {v!r} is not a number") from None
