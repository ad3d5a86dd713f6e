"""What OpenSpiel is told of the boardlab games (:mod:`experiments.interop.openspiel_game`):
their short names, their ``pyspiel.GameType`` (:func:`game_type`: dynamics, chance,
information, utility from the game's description), the seed chance nodes
(:data:`SEED_CHANCE_NODES` of :data:`SEED_OUTCOMES` outcomes, :func:`seed_of_history`), the
encoding of the observation tensor (:data:`OBS_PIECES` exact pieces of each word,
:func:`observation_words`), and
their parameters ``seed`` and
``config`` in the canonical text forms of a game string (:func:`parse_seed`,
:func:`seed_text`, :func:`parse_config`, :func:`config_text`; see the game module's
docstring for the forms); importing it puts :func:`pyspiel_load_game` in the place of
``pyspiel.load_game``, so that numeric seeds of the boardlab games load."""

from __future__ import annotations

import base64
import json
import re

import numpy as np
import pyspiel

from engines.protocol import chance
from engines.names import GAME_TITLES, describe
from engines.protocol import GAME_NAMES, core_of, game_class, normalize_game_name

__all__ = ["SEED_CHANCE_NODES", "SEED_OUTCOMES", "OBS_PIECES", "OBS_PIECE_MASK",
           "observation_words", "seed_of_history", "pyspiel_load_game", "SHORT_NAMES",
           "short_name", "utility_of", "game_type", "parse_seed", "seed_text", "parse_config",
           "config_text", "seeds_as_text"]

SEED_CHANCE_NODES = 8
"""Chance nodes at the start of a game without a fixed seed (one byte of the seed each)."""

SEED_OUTCOMES = 256
"""Outcomes of each seed chance node (the values of one byte)."""
OBS_PIECES = 3
"""Float32 entries per ``int64`` word of the observation tensor (exact 24-bit pieces)."""
OBS_PIECE_MASK = (1 << 24) - 1
"""The 24 bits of one piece of an observation word."""


def observation_words(tensor) -> np.ndarray:
    """The core's ``observe`` words (``int64 (OBS_SIZE,)``) back from an observation tensor
    (``float32 (3 * OBS_SIZE,)``, see the module docstring). Raises ``ValueError`` for a
    length that is not a multiple of 3."""
    t = np.asarray(tensor, dtype=np.float64)
    if t.ndim != 1 or t.shape[0] % OBS_PIECES:
        raise ValueError(f"bad observation tensor of shape {t.shape}: expected (3 * OBS_SIZE,)")
    n = t.shape[0] // OBS_PIECES
    lo, mid, hi = (t[i * n:(i + 1) * n].astype(np.int64) for i in range(OBS_PIECES))
    return (hi << 48) | (mid << 24) | lo


_GT = pyspiel.GameType
_UTILITY_TYPES = {"identical": _GT.Utility.IDENTICAL, "constant_sum": _GT.Utility.CONSTANT_SUM,
                  "zero_sum": _GT.Utility.ZERO_SUM, "general_sum": _GT.Utility.GENERAL_SUM}


def utility_of(game: str):
    """(OpenSpiel utility type, min utility, max utility, utility sum or None) of ``game``,
    from its description (:mod:`engines.description`)."""
    d = describe(game)
    lo, hi = d.utility_bounds(core_of(game))
    return _UTILITY_TYPES[d.utility], lo, hi, d.utility_sum


def short_name(game: str) -> str:
    """OpenSpiel's short name of a boardlab game: ``"boardlab_" + game`` (``"boardlab_rats"``).
    Raises ``ValueError`` for an unknown game."""
    return "boardlab_" + normalize_game_name(game)


SHORT_NAMES = {g: "boardlab_" + g for g in GAME_NAMES}
"""``{game: OpenSpiel short name}`` of the four registered games."""


def game_type(game: str) -> pyspiel.GameType:
    """The ``pyspiel.GameType`` of ``game``: sequential, explicit stochastic chance, imperfect
    information, terminal rewards, its player range and utility, every view provided."""
    C = core_of(game)
    cls = game_class(game)
    utility = utility_of(game)[0]
    default_players = int(cls.config_class().n_players)
    return pyspiel.GameType(
        short_name=SHORT_NAMES[game],
        long_name=f"boardlab {GAME_TITLES[game]}",
        dynamics=_GT.Dynamics.SEQUENTIAL,
        chance_mode=_GT.ChanceMode.EXPLICIT_STOCHASTIC,
        information=_GT.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=_GT.RewardModel.TERMINAL,
        max_num_players=int(C.MAX_PLAYERS),
        min_num_players=int(C.MIN_PLAYERS),
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={"players": default_players, "seed": "", "config": ""},
    )


def parse_seed(value) -> int | None:
    """The ``seed`` parameter as an int seed, or None (chance nodes pick it). Raises
    ``ValueError`` naming a bad value."""
    if isinstance(value, str):
        text = value.strip().lower()
        if text == "":
            return None
        try:
            value = int(text, 16) if text.startswith("0x") else int(text)
        except ValueError:
            raise ValueError(f"bad seed parameter {value!r}: expected '' (chance nodes pick the "
                             f"seed), a decimal integer or 0x + hex digits, 0 <= seed < 2**64"
                             ) from None
    return chance.check_seed(value, "seed parameter")


def seed_text(seed: int | None) -> str:
    """The canonical ``seed`` parameter: ``""`` or ``0x`` + 16 hex digits."""
    return "" if seed is None else f"0x{seed:016x}"


def parse_config(text, config_class) -> dict:
    """The ``config`` parameter (JSON or unpadded base64url JSON) as a dict of fields. Raises
    ``ValueError`` naming a bad value."""
    if not isinstance(text, str):
        raise ValueError(f"bad config parameter {text!r}: expected JSON text of "
                         f"{config_class.__name__} fields")
    t = text.strip()
    if not t:
        return {}
    if not t.startswith("{"):
        try:
            t = base64.urlsafe_b64decode(t + "=" * (-len(t) % 4)).decode("utf-8")
        except (ValueError, UnicodeDecodeError):
            raise ValueError(f"bad config parameter {text!r}: neither JSON nor base64url "
                             f"JSON") from None
    try:
        extra = json.loads(t)
    except json.JSONDecodeError as exc:
        raise ValueError(f"bad config parameter {text!r}: not JSON ({exc})") from None
    if not isinstance(extra, dict):
        raise ValueError(f"bad config parameter {text!r}: expected a JSON object of "
                         f"{config_class.__name__} fields")
    return extra


def config_text(extra: dict) -> str:
    """The canonical ``config`` parameter: ``""`` or unpadded base64url of sorted JSON."""
    if not extra:
        return ""
    raw = json.dumps(extra, sort_keys=True, separators=(",", ":")).encode("utf-8")
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


_SEED_IN_GAME_STRING = re.compile(r"([(,]seed=)(-?\d+)(?=[,)])")


def seeds_as_text(args: tuple) -> tuple:
    """``pyspiel.load_game`` arguments of a boardlab game with a numeric ``seed`` turned into
    its canonical text (``0x`` + 16 hex digits). Raises ``ValueError`` for a seed outside
    ``0 .. 2**64-1``."""
    if len(args) == 1 and isinstance(args[0], str):
        return (_SEED_IN_GAME_STRING.sub(
            lambda m: m.group(1) + seed_text(parse_seed(m.group(2))), args[0]),)
    if len(args) == 2 and isinstance(args[1], dict):
        v = args[1].get("seed")
        if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
            return (args[0], {**args[1], "seed": seed_text(parse_seed(int(v)))})
    return args


def seed_of_history(history) -> int:
    """The game seed encoded by the first :data:`SEED_CHANCE_NODES` entries of an OpenSpiel
    history (byte ``i`` at position ``i``). Raises ``ValueError`` for a short history or an
    entry outside ``0..255``."""
    h = list(history)[:SEED_CHANCE_NODES]
    if len(h) < SEED_CHANCE_NODES or any(not 0 <= int(b) < SEED_OUTCOMES for b in h):
        raise ValueError(f"bad history {list(history)[:SEED_CHANCE_NODES]!r}: expected "
                         f"{SEED_CHANCE_NODES} seed bytes 0..255 first")
    return sum(int(b) << (8 * i) for i, b in enumerate(h))


_PYSPIEL_LOAD_GAME = getattr(pyspiel.load_game, "__wrapped__", pyspiel.load_game)


def pyspiel_load_game(*args, **kwargs):
    """``pyspiel.load_game`` (this module puts it in its place on import) that also accepts a
    numeric ``seed`` for the boardlab games: ``"boardlab_rats(seed=123)"``, ``{"seed": 123}``
    and seeds up to ``2**64-1`` (OpenSpiel's game-string ints stop at ``2**31-1``) load the
    game of ``seed=0x7b``...; any other call goes to OpenSpiel's ``load_game`` unchanged.
    Raises ``ValueError`` for a seed outside ``0 .. 2**64-1``, OpenSpiel's errors otherwise."""
    if args and isinstance(args[0], str) and args[0].lstrip().startswith("boardlab_"):
        args = seeds_as_text(args)
    return _PYSPIEL_LOAD_GAME(*args, **kwargs)


pyspiel_load_game.__wrapped__ = _PYSPIEL_LOAD_GAME
pyspiel.load_game = pyspiel_load_game
