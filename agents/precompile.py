"""Compiling the game loop on two cores the first time a machine plays a table.

On a cold kernel cache (a new machine, a fresh install, any edit of ``engines``/``agents``),
the first call of the compiled game loop (:mod:`agents.loop`) compiles the rules core, the
seated policies and the loop around them in one process (for River Rats with four
``heuristic`` seats, about half of it the policy; figures in docs/benchmarks.md).
:func:`prepare_loop` splits that work. When a seated shipped policy is not in this machine's
kernel cache, a second Python process (``python -m agents.precompile <game> <policy>...``)
compiles it at the one policy signature of :mod:`agents.policy` and writes it to the cache,
while this process compiles the rules core (:func:`compile_core`); the loop then compiles
around both, loading the policy from the cache. Numba compiles a function the same way in any
process, so the machine code, and every game, is the same as when one process compiles all.

A command that knows its table before its long imports (``boardlab river-rats pairs``) calls
:func:`start` first, so the second process starts compiling while this one still imports
pandas and the rest; :func:`prepare_loop` then waits for that process instead of starting one.

Nothing changes when the cache is warm (one read of each policy's cache index), on a
one-core machine, with ``BOARDLAB_SIDE_COMPILE=0`` in the environment (for when other processes
already keep every core busy, parallel test workers say: a second process would only compete,
and :func:`start` starts one before it can know whether the cache is warm), for user policies
(compiled in their caller's process, never cached), or when the second process cannot start or
fails (the loop then compiles the policy itself).
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from numba import types

from agents.contract import contract
from agents.policy import agents_module
from engines.protocol import core_of, normalize_game_name

__all__ = ["SIDE_COMPILE_ENV", "POLICY_ARGS", "policy_in_cache", "compile_policies",
           "compile_core", "prepare_loop", "start", "policies_of_table", "main"]

_INT_VECTOR = types.Array(types.int64, 1, "C")
POLICY_ARGS = (_INT_VECTOR, types.int64, _INT_VECTOR, types.int64,
               types.Array(types.float64, 1, "C"), _INT_VECTOR)
"""The argument types the compiled loop calls every shipped policy with: ``(state int64 (S,),
player int64, legal int64 (L,), n_legal int64, params float64 (PARAMS_WIDTH,), rng int64
(SEAT_WORDS,))``, all C-contiguous (the signature of :mod:`agents.policy`)."""

SIDE_TIMEOUT_S = 900.0
"""Longest wait for the second process (seconds); it is then stopped and this process compiles
what it did not."""

_prepared: set[tuple[str, tuple[str, ...]]] = set()
"""(game, policy names) already prepared in this process."""

_pending: dict[str, list[subprocess.Popen]] = {}
"""Second processes started by :func:`start`, per game, not yet waited for."""


def _policy_functions(game: str) -> dict:
    """The game module's ``POLICY_FUNCTIONS`` (name -> compiled policy)."""
    return contract(game).policy_functions


SIDE_COMPILE_ENV = "BOARDLAB_SIDE_COMPILE"
"""Environment variable: ``0`` turns the second compiling process off (any other value, or
unset: on where the machine has two or more CPUs)."""


def _side_compile_off() -> bool:
    """True where a second compiling process would only compete: a one-CPU machine, or
    :data:`SIDE_COMPILE_ENV` set to ``0`` (every core already busy)."""
    return (os.cpu_count() or 1) < 2 or os.environ.get(SIDE_COMPILE_ENV, "").strip() == "0"


def policy_in_cache(fn) -> bool:
    """True if this machine's kernel cache holds compiled policy ``fn`` (a cached ``@njit``
    dispatcher) at :data:`POLICY_ARGS`, or if that cannot be told (no on-disk cache, another
    Numba layout): only a certain miss starts a second process. Reads the function's cache
    index (Numba's own file, the same freshness check as loading); compiles nothing."""
    cache_file = getattr(getattr(fn, "_cache", None), "_cache_file", None)
    load = getattr(cache_file, "_load_index", None)
    if load is None:
        return True
    try:
        index = load()
    except Exception:  # noqa: BLE001 - an unreadable index: Numba recompiles, so do not guess
        return True
    return any(key[0] == POLICY_ARGS for key in index)


def policies_of_table(game: str, one_kind: int) -> list[str]:
    """The shipped policies the compiled loop builds in for a table whose seats all play kind
    ``one_kind`` (the literal of a game's ``play_table``; ``agents.dispatch.OWN_KINDS`` or a
    mixed kind for seats of several kinds): that one
    policy function; otherwise (mixed seats, or a search agent, whose rollouts call the game's
    ``act``) every policy function of the game. Names are keys of the game module's
    ``POLICY_FUNCTIONS``."""
    functions = _policy_functions(game)
    name = next((sp.name for sp in agents_module(game).SPECS if sp.kind == one_kind), None)
    return [name] if name in functions else sorted(functions)


def compile_policies(game: str, names) -> None:
    """Compile (or load from the kernel cache) the shipped policies ``names`` of ``game`` at
    :data:`POLICY_ARGS`, writing them to the cache. Raises ``ValueError`` for an unknown game
    or a name that is not a policy function of the game."""
    functions = _policy_functions(game)
    for name in names:
        if name not in functions:
            raise ValueError(f"bad policy {name!r}: not a compiled policy function of {game} "
                             f"(expected one of: {', '.join(sorted(functions)) or 'none'})")
        functions[name].compile(POLICY_ARGS)


def compile_core(game: str, config) -> None:
    """Compile (or load) the kernels of ``game``'s rules core that the loop calls, with the
    argument types it calls them with, by calling each once on a new game of ``config`` (the
    game's config object): ``init_state``, ``current_player``, ``is_terminal``,
    ``legal_actions``, ``apply_action`` (of the first legal action), ``returns``, ``outcome``.
    Plays nothing else; raises what the core raises for a bad config."""
    C = core_of(game)
    s = np.zeros(C.STATE_SIZE, dtype=np.int64)
    C.init_state(config.to_array(), np.int64(1), s)
    legal = np.empty(C.MAX_LEGAL, dtype=np.int64)
    C.current_player(s)
    if not C.is_terminal(s) and C.legal_actions(s, legal) > 0:
        C.apply_action(s, np.int64(legal[0]))
    C.returns(s, np.zeros(C.MAX_PLAYERS, dtype=np.float64))
    C.outcome(s, np.zeros(len(C.OUTCOME_FIELDS), dtype=np.int64))


def _side_process(game: str, names: list[str]) -> subprocess.Popen | None:
    """Start ``python -m agents.precompile game names...`` with this checkout first on its
    path and this process's environment (the same kernel cache folder); None if it cannot
    start."""
    if not sys.executable:  # an embedded interpreter: no Python to start
        return None
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root] + ([env["PYTHONPATH"]]
                                                  if env.get("PYTHONPATH") else []))
    try:
        return subprocess.Popen([sys.executable, "-m", "agents.precompile", game, *names],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, env=env, cwd=root)
    except (OSError, ValueError):
        return None


def _finish(proc: subprocess.Popen, wait: bool = True) -> None:
    """Wait for ``proc`` (at most :data:`SIDE_TIMEOUT_S`), or with ``wait=False`` not at all;
    then stop it if it still runs."""
    try:
        if wait:
            proc.wait(timeout=SIDE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        pass
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def start(game: str, policy: str) -> bool:
    """Start compiling shipped policy ``policy`` of ``game`` (a registry name; a name that is not
    one of the game's ``POLICY_FUNCTIONS``, a search agent say, makes the second process exit at
    once) in a second process now, for a command that will play a table of it after imports
    that take seconds. :func:`prepare_loop` waits for it; a process still running when this one
    exits is stopped. The second process loads the policy in a moment if it is already in the
    cache. Returns True if it started (two or more CPUs, :data:`SIDE_COMPILE_ENV` not ``0``)."""
    if _side_compile_off():
        return False
    game = normalize_game_name(game)
    proc = _side_process(game, [str(policy)])
    if proc is None:
        return False
    _pending.setdefault(game, []).append(proc)
    atexit.register(_finish, proc, False)
    return True


def prepare_loop(game: str, config, names) -> bool:
    """Before the compiled loop first runs a table of ``game`` (its ``config`` object) whose
    seats play the shipped policies ``names`` (:func:`policies_of_table`): if some of them are
    not in the kernel cache and this machine has two or more CPUs (and :data:`SIDE_COMPILE_ENV`
    is not ``0``), compile them in a second
    process while this one compiles the rules core, and wait for it; first wait for the
    processes :func:`start` began for the game (compiling the core meanwhile). Returns True if
    a second process ran. Once per (game, policies) per process; errors of the second process
    are ignored (the loop compiles what is missing, as it would have)."""
    game = normalize_game_name(game)
    key = (game, tuple(sorted(names)))
    if key in _prepared:
        return False
    _prepared.add(key)
    pending = _pending.pop(game, [])
    if pending:
        _core_then_wait(game, config, pending)
    functions = _policy_functions(game)
    missing = [n for n in key[1] if n in functions and not policy_in_cache(functions[n])]
    if not missing or _side_compile_off():
        return bool(pending)
    proc = _side_process(game, missing)
    if proc is None:
        return bool(pending)
    _core_then_wait(game, config, [proc])
    return True


def _core_then_wait(game: str, config, procs: list[subprocess.Popen]) -> None:
    """:func:`compile_core`, then wait for ``procs``; if the core fails (or the user
    interrupts), stop them at once and re-raise."""
    try:
        compile_core(game, config)
    except BaseException:
        for proc in procs:
            _finish(proc, wait=False)
        raise
    for proc in procs:
        _finish(proc)


def main(argv: list[str] | None = None) -> int:
    """``python -m agents.precompile <game> <policy>...``: compile those shipped policies into
    this machine's kernel cache (the second process of :func:`prepare_loop`). Exit status 0,
    or 2 with a one-line message for a bad game or policy name."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:
        print("usage: python -m agents.precompile <game> <policy>...", file=sys.stderr)
        return 2
    try:
        compile_policies(normalize_game_name(args[0]), args[1:])
    except ValueError as exc:
        print(f"agents.precompile: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
