"""benchmarks/compile_time.py: its table's first run (the OWN_KINDS loop it measures) and its
one-line refusal of a game it does not know."""

import subprocess
import sys
from pathlib import Path

from numba import types

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "compile_time.py"


def test_bad_game_is_refused_in_one_line():
    r = subprocess.run([sys.executable, str(SCRIPT), "--games", "rats,chess"], cwd=ROOT,
                       capture_output=True, text=True)
    assert r.returncode != 0 and r.stdout == ""
    assert r.stderr.strip() == ("bad --games 'chess': expected some of river_rats, lure, rats, "
                                "recurring")


def test_child_times_the_own_kinds_loop_of_its_table():
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import compile_time
    finally:
        sys.path.remove(str(SCRIPT.parent))
    from agents.dispatch import OWN_KINDS
    from agents.policy import agents_module

    assert compile_time.child("rats", "own", False)["seconds"] > 0
    lits = {sig[0] for sig in agents_module("rats").play_table.signatures}
    assert types.literal(OWN_KINDS) in lits
