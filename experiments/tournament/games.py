"""What tournaments, ratings and tuning need to know of each game, on the one game protocol.

Every game is played by the one compiled loop (:func:`agents.loop.run_games`); this module only
says, per game, how a **deal** is scored. A deal is what duplicate format replays in every seat
rotation: one game (Rats, River Rats, Lure) or one 3-game match (ReCURRRing, rules "Scoring").
Deal ``i`` of a seed word ``w`` plays the games with seeds ``chance.game_seed(w, i * g + j)``
(``g`` games per deal), and each seat draws its policy's chance from its own stream, so the same
seed word replays the same cards whatever agents sit where (tested in ``tests/tournament``).

Outcome per deal and seat, higher is better everywhere (from the games' returns and the cores'
``OUTCOME_FIELDS``):

=============  ==========================  =========================  ===========================
game           ``win`` (share of the win)  ``score``                  ``key`` (ranks the seats)
=============  ==========================  =========================  ===========================
rats           1, 1/k tied, 0              = ``win``                  ``-place``
recurring      match win share             match points (3 games)     match points
river_rats     1 if the team won           = ``win``                  = ``win`` (cooperative)
lure           1, 1/k tied, 0              final score (points)       ``win``, then score
=============  ==========================  =========================  ===========================

Agents are :class:`AgentRef` (a label, a base policy name, an optional parameter vector). A
base name is a registered policy of the game (:func:`agents.policy.names`), a user policy added
with :meth:`GameAdapter.register_policy` (a compiled ``@njit`` function with the one policy
signature of :mod:`agents.policy`), or a saved tuned agent (written by
:mod:`experiments.tournament.tune`), found by name from any current folder in the **agent
store** and then among the repository's committed agents (:func:`agent_search_path`):

1. the store ``<root>/<game>/agents/<name>.json``, ``root`` = ``--agents-dir`` (the
   ``root``/``agents_root`` argument), else ``$BOARDLAB_AGENTS_DIR``, else the user data folder
   ``$XDG_DATA_HOME/boardlab`` (``~/.local/share/boardlab``): :func:`store_root`;
2. the committed agents ``<repository>/results/<game>/agents/<name>.json`` of the checkout this
   package is imported from (:func:`repo_results`; absent in an installed wheel), read-only.

The first file found wins (an agent in the store shadows a committed one of the same name).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agents.policy import get_spec, specs
from engines.protocol import chance
from engines.names import GAME_NAMES, describe
from engines.protocol import core_of, game_class, normalize_game_name

__all__ = ["AgentRef", "Outcome", "GameAdapter", "GAMES", "get_adapter", "parse_agents",
           "WIN_UNITS", "RANKED_BY", "DEFAULT_SEARCH", "AGENTS_DIR_ENV", "agents_dir", "store_root",
           "repo_results", "agent_search_path", "find_agent"]

WIN_UNITS = 60
"""Win shares are summed as integers in units of 1/60 (exact for ties of 1..5 players)."""
AGENTS_DIR_ENV = "BOARDLAB_AGENTS_DIR"
"""Environment variable naming the root of the agent store (default: the user data folder,
:func:`store_root`)."""
MAX_USER = 4
"""User policies that one table may seat at once (distinct functions)."""
RANKED_BY = {"team": "win", "place": "win", "win_then_score": "win", "chips": "score",
             "match": "score"}
"""The measure a tournament ranks by, per outcome kind of the game's description
(:data:`engines.description.OUTCOMES`): the game's own utility, i.e. the mean of its returns
per game. Where the returns are win shares (``team``, ``place``, ``win_then_score``) that is the
win rate; where they are chips (Kuhn poker, zero-sum) or points summed over a match
(ReCURRRing), the ``score`` column: a bot that wins many small pots but loses big ones has the
higher win rate and the lower utility, and ranks below."""
DEFAULT_SEARCH = ("net-search-fast",)
"""Search agents of the default field (:meth:`GameAdapter.standard_agents`), where the game
ships them."""


def store_root(root: str | os.PathLike | None = None) -> Path:
    """Root of the agent store, where ``boardlab tune`` saves agents and its default output
    folders: ``root`` if given (``--agents-dir``), else ``$BOARDLAB_AGENTS_DIR``, else
    ``$XDG_DATA_HOME/boardlab`` (default ``~/.local/share/boardlab``). The path does not depend
    on the current folder unless ``root`` (or the variable) is a relative path."""
    if root is not None:
        return Path(root).expanduser()
    env = os.environ.get(AGENTS_DIR_ENV)
    if env:
        return Path(env).expanduser()
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data).expanduser() / "boardlab"


def repo_results() -> Path | None:
    """The ``results/`` folder of the repository checkout this package is imported from (it
    holds the committed tuned agents), or ``None`` when there is none (an installed wheel)."""
    path = Path(__file__).resolve().parents[2] / "results"
    return path if path.is_dir() else None


def agents_dir(game: str, root: str | os.PathLike | None = None) -> Path:
    """Folder of the agent store where ``game``'s tuned agents are saved:
    ``<store_root(root)>/<game>/agents`` (see :func:`store_root`)."""
    return store_root(root) / game / "agents"


def agent_search_path(game: str, root: str | os.PathLike | None = None) -> list[Path]:
    """Folders searched, in order, for a saved agent of ``game`` given by name: the agent
    store (:func:`agents_dir`), then the repository's committed ``results/<game>/agents``
    (:func:`repo_results`) when it exists and is another folder."""
    folders = [agents_dir(game, root)]
    repo = repo_results()
    if repo is not None:
        committed = repo / game / "agents"
        if committed.resolve() != folders[0].resolve():
            folders.append(committed)
    return folders


def find_agent(game: str, name: str, root: str | os.PathLike | None = None) -> Path | None:
    """Path of the saved agent ``name`` of ``game`` (the first ``<folder>/<name>.json`` of
    :func:`agent_search_path`), or ``None``."""
    if not name or any(c in name for c in "/\\") or name.startswith("."):
        return None
    for folder in agent_search_path(game, root):
        path = folder / f"{name}.json"
        if path.is_file():
            return path
    return None


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
    """What the tournament needs to know of one game (one instance per game, from
    :func:`get_adapter`).

    Attributes: ``name`` (game name), ``title``, ``cooperative`` (River Rats: all seats are one
    team), ``players`` (allowed player counts), ``default_players``, ``score_name`` (what
    ``Outcome.score`` measures), ``score_scale`` (integer units per score point when summing),
    ``param_names`` and ``param_bounds`` (of the tunable family, for tuning), ``shipped``
    (registry names, in display order), ``tunable`` (bases whose parameter vector is tuned),
    ``user`` (user policies), ``utility`` (the description's utility type) and ``ranked_by``
    (:data:`RANKED_BY`: the measure a tournament ranks by, ``"win"`` or ``"score"``).
    """

    name: str
    title: str = ""
    cooperative: bool = False
    players: tuple[int, ...] = ()
    default_players: int = 4
    score_name: str = "win share"
    score_scale: int = WIN_UNITS
    param_names: tuple[str, ...] = ()
    param_bounds: tuple[tuple[float, float], ...] = ()
    shipped: tuple[str, ...] = ()
    tunable: tuple[str, ...] = ()
    user: dict[str, _UserPolicy] = field(default_factory=dict)
    utility: str = "general_sum"
    ranked_by: str = "win"

    accepts_user_policies = True
    """Whether :meth:`register_policy` is open (every game: one policy protocol)."""
    user_signature = "policy(state, player, legal, n_legal, params, rng) -> action"
    """The one compiled signature a user policy has (see :mod:`agents.policy`)."""

    @classmethod
    def for_game(cls, game: str) -> GameAdapter:
        """The adapter of ``game`` built from its description
        (:mod:`engines.description`) and its policy registry."""
        d = describe(game)
        reg = specs(d.name)
        fam = reg[d.tunable[0]]
        return cls(name=d.name, title=d.title, cooperative=d.cooperative, players=d.players,
                   default_players=d.default_players, score_name=d.score_name,
                   score_scale=WIN_UNITS if d.score_units == "win" else int(d.score_units),
                   param_names=tuple(fam.param_names),
                   param_bounds=d.bounds_for(fam.param_names), shipped=tuple(reg),
                   tunable=d.tunable, utility=d.utility, ranked_by=RANKED_BY[d.outcome])

    @property
    def ranked_name(self) -> str:
        """What the tournament ranks by, in words: the score's name (``chips``, ``match
        points``) for a game whose returns are chips or points, else ``win rate`` (``team win
        rate`` for a cooperative game)."""
        if self.ranked_by == "score":
            return self.score_name
        return "team win rate" if self.cooperative else "win rate"

    # ---- registry --------------------------------------------------------------------------
    def registry_params(self, base: str) -> np.ndarray:
        """Default ``float64`` vector of a registered policy."""
        return get_spec(self.name, base).params_array()

    def param_names_for(self, base: str) -> tuple[str, ...]:
        """Parameter names of a base (registered policy; user policies: the tunable family's)."""
        if base in self.shipped:
            return tuple(get_spec(self.name, base).param_names)
        return self.param_names

    def describe(self, base: str) -> str:
        """One line on the agent."""
        if base in self.user:
            return self.user[base].description or "user policy"
        return get_spec(self.name, base).label

    def register_policy(self, name: str, fn, default_params=None, description: str = "") -> None:
        """Add a user policy ``name``: a compiled ``@njit`` function with the one policy
        signature (:attr:`user_signature`). ``default_params``: its float vector (default:
        zeros of the tunable family's length). Raises ``ValueError`` if the name is taken by a
        shipped agent or badly formed, or ``fn`` is not compiled."""
        from numba.core.registry import CPUDispatcher

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

    def standard_agents(self) -> list[str]:
        """The default field of ``boardlab tournament`` and ``boardlab winrates``, in shipped
        order: every shipped agent that neither searches nor sees hidden cards (``random``,
        ``greedy``, ``heuristic``, Lure's ``cautious`` and ``bold``, the learned ``net``), and
        the search agents of :data:`DEFAULT_SEARCH` the game ships (``net-search-fast``: the
        search guided by ``net``, the strong player a user compares bots with). The other
        search presets (seconds per game) and the hidden-card viewers (``peek``,
        ``pimc-peek``: analysis bounds, not legal play) are named with ``--agents``. A field
        with a search agent costs seconds per deal: the commands size it by
        :func:`experiments.tournament.cost.tournament_defaults`."""
        all_specs = specs(self.name)
        return [n for n in self.shipped
                if n in DEFAULT_SEARCH
                or not (all_specs[n].search or all_specs[n].sees_hidden)]

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
            path = find_agent(self.name, base, root)
            if path is None:
                where = " or ".join(str(f) for f in agent_search_path(self.name, root))
                raise ValueError(f"unknown {self.title} agent {base!r}: expected one of "
                                 f"{self.base_names()} or a tuned agent saved in {where}")
            try:
                saved = json.loads(path.read_text())
                saved["base"], saved["params"]  # noqa: B018 - the fields a tuned agent has
            except (OSError, ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}: not a readable tuned agent ({exc})") from None
            if saved.get("game") != self.name:
                raise ValueError(f"{path}: agent of game {saved.get('game')!r}, expected "
                                 f"{self.name!r}")
            return self.resolve(AgentRef(ref.label, saved["base"],
                                         tuple(saved["params"]) if params is None else params))
        vec = default if params is None else np.asarray(params, dtype=np.float64)
        if base in self.shipped and vec.shape != default.shape:
            raise ValueError(f"params of {ref.label!r} have {vec.size} values: expected "
                             f"{default.size} ({', '.join(self.param_names_for(base))})")
        if not np.all(np.isfinite(vec)):
            raise ValueError(f"params of {ref.label!r} must be finite, got {vec.tolist()}")
        self.check_params(base, vec)
        return AgentRef(ref.label, base, tuple(float(x) for x in vec))

    def check_params(self, base: str, vec: np.ndarray) -> None:
        """Game-specific checks of a parameter vector (the agents module's ``check_params``,
        if it has one); raises ``ValueError``."""
        from agents.contract import contract

        check = contract(self.name).check_agent_params
        if check is not None and base in self.shipped:
            check(base, vec)

    # ---- playing ---------------------------------------------------------------------------
    def config(self, n_players: int, options: dict | None = None):
        """The game's config with ``n_players`` and ``options`` (field names); raises
        ``ValueError`` for a bad count or option."""
        import dataclasses

        self.check_players(n_players)
        cls = game_class(self.name).config_class
        names = {f.name for f in dataclasses.fields(cls)}
        opts = dict(options or {})
        bad = sorted(set(opts) - names)
        if bad or "n_players" in opts:
            raise ValueError(f"unknown {self.title} option(s) {bad or ['n_players']}: expected "
                             f"some of {sorted(names - {'n_players', 'deck'})} (players are set "
                             f"by --players)")
        for k, v in opts.items():
            if isinstance(v, list):
                opts[k] = tuple(v)
        return cls(n_players=n_players, **opts)

    def games_per_deal(self, config) -> int:
        """Games in one deal under ``config``: 1, or for a game whose outcome is a match the
        config field its description names (ReCURRRing: ``games_per_match``)."""
        field_name = describe(self.name).match_games_field
        return int(getattr(config, field_name)) if field_name else 1

    def check_players(self, n_players: int) -> None:
        """Raise ``ValueError`` unless ``n_players`` is allowed for this game."""
        if isinstance(n_players, bool) or n_players not in self.players:
            raise ValueError(f"{self.title} is played by {self.players[0]}..{self.players[-1]} "
                             f"players, got {n_players!r}")

    def play(self, config, seats: list[AgentRef], n_deals: int, word: int) -> Outcome:
        """Play ``n_deals`` deals from seed word ``word`` (int in ``0 .. 2**64-1``) with
        ``seats[p]`` (resolved :class:`AgentRef`) in seat ``p``; returns an :class:`Outcome`.
        Raises ``ValueError`` for a wrong number of seats or an illegal action of a user
        policy (naming its label)."""
        from agents.loop import run_games

        n = config.n_players
        if len(seats) != n:
            raise ValueError(f"{len(seats)} seats given for {n} players")
        pols = [s.base if s.base in self.shipped else self.user[s.base].fn for s in seats]
        if len({id(p) for p in pols if not isinstance(p, str)}) > MAX_USER:
            raise ValueError(f"at most {MAX_USER} different user policies at one table")
        params = [np.asarray(s.params, dtype=np.float64) for s in seats]
        g = self.games_per_deal(config)
        seeds = chance.game_seeds(int(word), int(n_deals) * g)
        try:
            ret, out = run_games(config, pols, seeds, params=params, game=self.name)
        except ValueError as exc:
            msg = str(exc)
            for p, s in enumerate(seats):
                msg = msg.replace(f"'user policy of seat {p}'", repr(s.label))
            raise ValueError(f"line-up {[s.label for s in seats]}: {msg}") from None
        return self._outcome(config, ret, out, int(n_deals), g)

    def _outcome(self, config, ret, out, n_deals: int, g: int) -> Outcome:
        n = ret.shape[1]
        fields = list(core_of(self.name).OUTCOME_FIELDS)

        def per_seat(prefix):
            return out[:, [fields.index(f"{prefix}_{p}") for p in range(n)]].astype(np.float64)

        kind = describe(self.name).outcome
        if kind == "team":
            win = np.repeat((ret[:, :1] > 0).astype(np.float64), n, axis=1)
            return Outcome(win, win.copy(), win.copy())
        if kind == "place":
            return Outcome(ret.copy(), ret.copy(), -per_seat("place"))
        if kind == "win_then_score":
            score = per_seat("score")
            return Outcome(ret.copy(), score, ret * 1e4 + score)
        if kind == "chips":
            top = ret == ret.max(axis=1, keepdims=True)
            return Outcome(top / top.sum(axis=1, keepdims=True), ret.copy(), ret.copy())
        totals = ret.reshape(n_deals, g, n).sum(axis=1)
        top = totals == totals.max(axis=1, keepdims=True)
        n_top = top.sum(axis=1, keepdims=True)
        win = top / n_top if config.match_tie == "shared" else top * (n_top == 1)
        return Outcome(win.astype(np.float64), totals, totals.copy())


GAMES: tuple[str, ...] = GAME_NAMES
"""Games with tournaments: every registered game (``river-rats`` is accepted too)."""
_INSTANCES: dict[str, GameAdapter] = {}


def get_adapter(game: str) -> GameAdapter:
    """The process-wide adapter of ``game`` (``rats``, ``recurring``, ``river_rats`` or
    ``river-rats``, ``lure``). Raises ``ValueError`` for an unknown game."""
    key = normalize_game_name(game)
    if key not in _INSTANCES:
        _INSTANCES[key] = GameAdapter.for_game(key)
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
            base = adapter.resolve(AgentRef(label, name), root)
            names = adapter.param_names_for(base.base)
            vec = np.asarray(base.params, dtype=np.float64)
            parts = [p for p in ptext.split(";") if p]
            if all("=" in p for p in parts):
                for p in parts:
                    k, _, v = p.partition("=")
                    if k not in names:
                        raise ValueError(f"agent {item!r}: unknown parameter {k!r}, expected one "
                                         f"of {names}")
                    vec[names.index(k)] = _float(v, item)
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
