"""The rules cores' and policies' kernels compile once per argument type, not once per constant
a caller passes (:mod:`engines.jit_literals`); the modules whose kernels specialize on a
literal game id or policy kind, and code outside ``engines``/``agents``, keep Numba's literal
specialization. That the games stay the same is the golden tests' (River Rats, Rats, Lure)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from engines import jit_literals
from engines.jit_literals import erases_literals
from engines.river_rats import core as RR

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("module", [
    "engines.river_rats.core", "engines.rats.relabel", "engines.poker.evaluator",
    "engines.poker.tables", "engines.dice.checker", "engines.protocol.chance",
    "engines.protocol.deal", "agents.river_rats", "agents.river_rats_features",
    "agents.kuhn_poker", "agents.recurring_features"])
def test_cores_evaluator_chance_and_policies_erase_literals(module):
    assert erases_literals(module)


@pytest.mark.parametrize("module", [
    "agents.loop", "agents.dispatch", "agents.search", "agents.net", "agents.inference",
    "agents.value", "agents.stack_arrays", "engines.protocol.kernels",
    "engines.protocol.relabel", "engines.protocol.direct", "engines.protocol.history",
    "experiments.learn.collect", "tests.test_jit_literals", "__main__", "my_policies",
    "agents.chess", "engines.river_rats.coreX"])
def test_game_id_and_kind_specializing_modules_and_user_code_keep_literals(module):
    assert not erases_literals(module)


def test_a_module_that_keeps_literals_says_so():
    """``agents.lure`` sets the flag: its one-policy tables call ``act`` with a constant kind
    and run faster compiled per kind."""
    import agents.lure

    assert agents.lure.KEEPS_LITERALS is True and not erases_literals("agents.lure")
    assert erases_literals("agents.rats") and erases_literals("engines.lure.core")


@njit
def _calls_a_core_helper_with_constants(s):
    RR._know(s, 52)
    RR._know(s, 53)
    RR._know(s, 7)


def test_a_core_helper_called_with_constants_compiles_once_without_literals():
    s = np.zeros(RR.STATE_SIZE, dtype=np.int64)
    _calls_a_core_helper_with_constants(s)
    sigs = [str(sig) for sig in RR._know.signatures]
    assert sigs and not any("Literal" in sig for sig in sigs), sigs
    assert len(sigs) == 1


@njit
def _callee(x):
    return x + 1


@njit
def _caller():
    return _callee(3) + _callee(4)


def test_functions_outside_the_named_modules_keep_numbas_literal_specialization():
    assert _caller() == 9
    assert sum("Literal" in str(sig) for sig in _callee.signatures) == 2


def test_install_is_idempotent_and_in_place_in_this_process():
    from numba.core import dispatcher

    assert dispatcher.Dispatcher.get_call_template._boardlab_unliteral
    assert jit_literals.install() is False


@pytest.mark.parametrize("first", ["numba", "engines"])
def test_installed_whichever_is_imported_first(first):
    """``import engines`` before Numba installs it by an import hook; after Numba, at once."""
    code = (f"import {first}\nimport numba, engines\nfrom numba.core import dispatcher\n"
            "print(dispatcher.Dispatcher.get_call_template._boardlab_unliteral)")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip().splitlines()[-1] == "True"
