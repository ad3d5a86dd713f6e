"""The Python side of the compiled-policy protocol shared by the games' agent modules.

A game's agent module defines a compiled dispatcher ``act(kind, state, player, legal, n_legal,
params, rng)`` and a registry ``{name: spec}`` (spec with ``kind`` and ``default_params``);
:class:`PolicyAgent` subclasses bind them, so a named policy with its ``float64`` parameter
vector can act on a step-API game (door 1) or be resolved into the ``kinds`` / ``params``
arrays of a compiled batch (door 2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["AgentSpec", "PolicyAgent"]


@dataclass(frozen=True)
class AgentSpec:
    """A registered policy: its dispatch number ``kind``, its default ``float64`` parameter
    vector and a one-line description."""

    kind: int
    default_params: np.ndarray
    description: str = ""


class PolicyAgent:
    """A named compiled policy with its parameter vector (subclass per game).

    Subclasses set ``game`` (its display name), ``registry``, ``n_params`` and ``dispatch``
    (the compiled ``act``). ``agent(game, rng)`` returns the action for the current player of a
    step-API game; ``rng`` is the seat's ``int64`` word array of shape (1,)
    (:func:`engines.splitmix.seat_streams`). Raises ``ValueError`` for an unknown name or a
    parameter vector of the wrong shape.
    """

    game = ""
    registry: dict = {}
    n_params = 0

    @staticmethod
    def dispatch(kind, st, player, legal, n_legal, params, rng):  # pragma: no cover
        raise NotImplementedError

    def __init__(self, name: str, params=None):
        if name not in self.registry:
            raise ValueError(f"unknown {self.game} policy {name!r}: expected one of "
                             f"{sorted(self.registry)}")
        spec = self.registry[name]
        self.name = name
        self.kind = spec.kind
        p = spec.default_params if params is None else np.asarray(params, dtype=np.float64)
        if p.shape != (self.n_params,):
            raise ValueError(f"params of {name!r} have shape {p.shape}: expected "
                             f"({self.n_params},)")
        self.params = p.astype(np.float64).copy()

    def __call__(self, game, rng: np.ndarray) -> int:
        legal = game.legal_actions()
        return int(self.dispatch(self.kind, game.state, game.current_player(), legal,
                                 len(legal), self.params, rng))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"

    @classmethod
    def resolve(cls, policies, n_players: int) -> tuple[np.ndarray, np.ndarray]:
        """Seat policies -> (``int64`` kinds (n_players,), ``float64`` params (n_players,
        n_params)). Each entry is a registry name, a ``(name, params)`` pair or an agent.
        Raises ``ValueError`` for a wrong count, an unknown name or bad params."""
        policies = list(policies)
        if len(policies) != n_players:
            raise ValueError(f"{len(policies)} policies given for {n_players} seats: expected "
                             f"one per seat")
        kinds = np.empty(n_players, dtype=np.int64)
        params = np.zeros((n_players, cls.n_params), dtype=np.float64)
        for p, spec in enumerate(policies):
            if isinstance(spec, cls):
                agent = spec
            elif isinstance(spec, tuple):
                agent = cls(*spec)
            elif isinstance(spec, str):
                agent = cls(spec)
            else:
                raise ValueError(f"policy {spec!r} of seat {p}: expected a name, a (name, "
                                 f"params) pair or a {cls.__name__}")
            kinds[p] = agent.kind
            params[p] = agent.params
        return kinds, params
