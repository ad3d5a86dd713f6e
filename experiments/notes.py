"""Notes a command prints on standard error while it works, once per process: above all the
first-use note, so that a long first call is never silent.

Numba compiles a kernel the first time it is called on a machine (then loads it from the disk
cache). :func:`install_compile_note` listens to Numba's ``numba:compile`` event, which fires only
when a function is really compiled (a cache load does not fire it), and prints
:data:`COMPILE_NOTE` at the first one; :func:`say_compiling` prints the same note for work that
compiles elsewhere (the runner's first game, a second process). ``--quiet`` silences both
(:func:`set_quiet`).
"""

from __future__ import annotations

import sys
import threading

__all__ = ["COMPILE_NOTE", "install_compile_note", "say_compiling", "is_quiet", "set_quiet"]

COMPILE_NOTE = ("compiling the game kernels once for this machine (a minute or two; later runs "
                "load them)...")
_lock = threading.Lock()
_state = {"said": False, "quiet": False, "installed": False}


def is_quiet() -> bool:
    """True when notes are off in this process (:func:`set_quiet`)."""
    return bool(_state["quiet"])


def set_quiet(quiet: bool) -> None:
    """``--quiet``: no notes from this process from now on."""
    _state["quiet"] = bool(quiet)


def say_compiling() -> bool:
    """Print :data:`COMPILE_NOTE` on standard error unless it was printed already in this
    process or notes are off; returns True if it printed."""
    with _lock:
        if _state["said"] or _state["quiet"]:
            return False
        _state["said"] = True
    print(COMPILE_NOTE, file=sys.stderr, flush=True)
    return True


def install_compile_note(quiet: bool = False) -> None:
    """From now on, the first real Numba compilation in this process prints
    :data:`COMPILE_NOTE` (once; never with ``quiet``). Installing twice is harmless."""
    set_quiet(quiet)
    if _state["installed"]:
        return
    _state["installed"] = True
    from numba.core import event

    class _FirstCompile(event.Listener):
        def on_start(self, ev):  # noqa: D401 - Numba's listener protocol
            if not _state["said"]:
                say_compiling()

        def on_end(self, ev):
            pass

    event.register("numba:compile", _FirstCompile())
