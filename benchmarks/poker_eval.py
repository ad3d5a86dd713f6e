"""Poker evaluator throughput: boardlab side by side with the native evaluators, same hands,
one process run, one core, interleaved.

Run: ``python benchmarks/poker_eval.py [--hands N] [--peer-hands M] [--rounds R]
[--ompeval LIB] [--baseline REV]``.

Every round times each contender once on the same random hands, in an order rotated from
round to round, and a ratio is taken inside each round (so load from other work hits both
sides of a ratio alike); the table prints the median over rounds of evaluations/s and of each
ratio. Contenders, 7-card hands:

* ``boardlab`` - :func:`engines.poker.evaluate` on an ``int8`` array, validating (the public
  batch API, a fresh output array each call), ``boardlab out=`` (the same with a reused output
  array), ``boardlab int64`` (an ``int64`` array), ``boardlab river_rats``, ``eval_at`` (the
  compiled scalar kernel called once per hand from a compiled loop, as the game engines call
  it) and ``eval_hand (view)`` (the same on a row view);
* ``OMPEval`` (C++, the fastest 7-card evaluator we know): given ``--ompeval LIB`` (or the
  environment variable ``BOARDLAB_OMPEVAL``), a shared library built from
  https://github.com/zekyll/OMPEval that exports ``void omp_init(void)`` and
  ``void omp_eval(const int8_t *cards, long n, int k, uint16_t *out)`` (rows of ``k`` card ids
  ``4 * rank + suit``, one ``HandEvaluator::evaluate`` of the summed ``Hand`` per row). We do
  not ship OMPEval or a build of it; without the library its rows are left out;
* ``phevaluator`` (its C core, ``phevaluator._pheval.evaluate_7cards``, one call per hand),
  ``holdem-hand-evaluator`` (Rust, ``evaluate_hand``, one call per hand), ``eval7`` (Cython)
  and ``treys`` (pure Python): each through its lowest-level public entry point, on
  ``--peer-hands`` hands.

Then 5- and 6-card hands (with OMPEval when present), 8- and 10-card hands and hands with jokers.
``--baseline REV`` also loads the evaluator as it was at git revision ``REV``
(``engines/poker/evaluator.py`` and the ``engines`` modules it imports, its tables included) and
prints the current code's ratio to it for every hand size, and for ``eval_at`` (the old kernel in
the same compiled loop). Compile (or cache load) time is measured apart and kept out of the figures.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def _time(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def _interleaved(contenders: dict, rounds: int) -> dict:
    """Seconds per contender per round (name -> list), order rotated every round."""
    names = list(contenders)
    out = {k: [] for k in names}
    for r in range(rounds):
        for k in names[r % len(names):] + names[: r % len(names)]:
            out[k].append(_time(contenders[k]))
    return out


def _ompeval(path: str | None):
    """``fn(hands_int8) -> uint16 ranks`` from the OMPEval shared library, or None."""
    if not path:
        return None
    lib = ctypes.CDLL(path)
    lib.omp_init()
    lib.omp_eval.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_int, ctypes.c_void_p]
    lib.omp_eval.restype = None

    def run(hands, out):
        lib.omp_eval(hands.ctypes.data, hands.shape[0], hands.shape[1], out.ctypes.data)
    return run


def _python_peers(rows: list[list[int]]) -> dict:
    """Closures evaluating every row with each installed Python-called peer (name -> fn)."""
    from engines import cards

    out = {}
    try:
        from phevaluator import _pheval

        ev = {5: _pheval.evaluate_5cards, 6: _pheval.evaluate_6cards,
              7: _pheval.evaluate_7cards}[len(rows[0])]
        out["phevaluator"] = lambda: [ev(*r) for r in rows]
    except ImportError:  # pragma: no cover
        pass
    try:
        import holdem_hand_evaluator as hhe

        text = ["".join(cards.format_card(c) for c in r) for r in rows]
        hev = hhe.evaluate_hand
        out["holdem-hand-eval"] = lambda: [hev(t) for t in text]
    except ImportError:  # pragma: no cover
        pass
    try:
        import eval7

        e7 = [[eval7.Card(cards.format_card(c)) for c in r] for r in rows]
        ev7 = eval7.evaluate
        out["eval7"] = lambda: [ev7(r) for r in e7]
    except ImportError:  # pragma: no cover
        pass
    try:
        from treys import Card, Evaluator

        tv = Evaluator()
        tr = [[Card.new(cards.format_card(c)) for c in r] for r in rows]
        out["treys"] = lambda: [tv.evaluate(r[:2], r[2:]) for r in tr]
    except ImportError:  # pragma: no cover
        pass
    return out


def _baseline(rev: str | None):
    """The evaluator as of git revision ``rev`` (``engines.poker``, a module before the engines
    were grouped in folders, then a package, with the ``engines`` modules it imports, as they
    were then), imported as package ``poker_baseline``; or None.

    The modules of ``engines`` at ``rev`` are extracted once per commit to a folder under the
    system temp folder (kept, so the copy's Numba cache is reused by later runs), their imports
    of ``engines`` pointed at the copy and its ``__init__`` left empty (no cache setup), so the
    baseline runs its own tables and helpers, not today's. Raises
    ``subprocess.CalledProcessError`` for a revision git does not know."""
    if not rev:
        return None
    sha = subprocess.run(["git", "rev-parse", "--verify", f"{rev}^{{commit}}"], cwd=ROOT,
                         check=True, capture_output=True, text=True).stdout.strip()
    tmp = Path(tempfile.gettempdir()) / f"boardlab_poker_baseline_{sha[:12]}"
    pkg = tmp / "poker_baseline"
    if not pkg.is_dir():  # renamed into place whole: a folder there is complete
        tmp.mkdir(parents=True, exist_ok=True)
        work = Path(tempfile.mkdtemp(prefix=".extract_", dir=tmp))
        try:
            archive = subprocess.run(["git", "archive", sha, "engines"], cwd=ROOT, check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", str(work)], input=archive, check=True)
            for path in (work / "engines").rglob("*.py"):
                text = path.read_text()
                text = text.replace("from engines.", "from poker_baseline.").replace(
                    "from engines import", "from poker_baseline import").replace(
                    "import engines.", "import poker_baseline.").replace(
                    '"engines.', '"poker_baseline.').replace("'engines.", "'poker_baseline.")
                path.write_text(text)
            (work / "engines" / "__init__.py").write_text(
                '"""The evaluator at a past revision."""\n')
            try:
                (work / "engines").rename(pkg)  # atomic: a concurrent run finds all or nothing
            except OSError:
                if not pkg.is_dir():
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
    sys.path.insert(0, str(tmp))
    try:
        return importlib.import_module("poker_baseline.poker")
    finally:
        sys.path.remove(str(tmp))


def _scalar_loops(poker, cache=True):
    """Compiled loops calling the scalar kernels of the evaluator module ``poker`` once per
    hand: ``eval_at`` on the flat array (as the engines call it) and ``eval_hand`` on a row
    view (a view costs Numba two reference-count calls per hand). ``cache=False`` for a
    baseline's module (its loops would share the current ones' cache entries)."""
    from numba import njit

    eval_at, eval_hand = poker.eval_at, poker.eval_hand

    @njit(cache=cache)
    def loop_at(hands, rules, out):
        k = hands.shape[1]
        flat = hands.reshape(-1)
        for i in range(hands.shape[0]):
            out[i] = eval_at(flat, i * k, k, rules)

    @njit(cache=cache)
    def loop_view(hands, rules, out):
        k = hands.shape[1]
        for i in range(hands.shape[0]):
            out[i] = eval_hand(hands[i], k, rules)
    return loop_at, loop_view


def _row(label, name, rate, ratios=()):
    tail = "".join(f"{r:>12.2f}x" if r == r else f"{'':>13}" for r in ratios)
    print(f"{label:<22}{name:<20}{rate:>14,.0f}{tail}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=2_000_000, help="hands per boardlab call")
    ap.add_argument("--peer-hands", type=int, default=50_000, help="hands per Python-called peer")
    ap.add_argument("--rounds", type=int, default=7, help="interleaved rounds (medians)")
    ap.add_argument("--ompeval", default=os.environ.get("BOARDLAB_OMPEVAL"),
                    help="OMPEval shared library (see the module docstring)")
    ap.add_argument("--baseline", help="git revision whose evaluator to compare with")
    args = ap.parse_args(argv)
    try:  # the user's options first: one line and exit 2 if one is bad
        omp = _ompeval(args.ompeval)
    except (OSError, AttributeError):  # not a library, or not one with these functions
        print(f"poker_eval.py: bad --ompeval {args.ompeval!r}: expected a shared library "
              "exporting omp_init and omp_eval (see the module docstring)", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        base = _baseline(args.baseline)
    except subprocess.CalledProcessError:
        print(f"poker_eval.py: bad --baseline {args.baseline!r}: expected a git revision of "
              "this clone", file=sys.stderr)
        return 2
    from engines import cards, poker

    loop_at, loop_view = _scalar_loops(poker)
    warm = cards.random_hands(8, 7, seed=0)
    poker.evaluate(warm)
    poker.evaluate(cards.random_hands(4, 7, seed=0, n_jokers=2), "river_rats")
    loop_at(warm, 0, np.empty(8, np.int32))
    loop_view(warm, 0, np.empty(8, np.int32))
    base_at = None
    if base is not None:
        base.evaluate(warm)
        if hasattr(base, "eval_at"):
            base_at = _scalar_loops(base, cache=False)[0]
            base_at(warm, 0, np.empty(8, np.int32))
    t_compile = time.perf_counter() - t0
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, load {os.getloadavg()[0]:.2f}; one thread; "
          f"medians of {args.rounds} interleaved rounds")
    print(f"import + first calls (Numba compile or cache load): {t_compile:.2f} s")
    print(f"OMPEval: {args.ompeval or 'not given (--ompeval LIB), left out'}"
          + (f"; baseline: engines/poker/evaluator.py at {args.baseline}" if base else "") + "\n")
    cols = ["vs OMPEval" if omp else None, "vs baseline" if base else None]
    cols = [c for c in cols if c]
    print(f"{'hands':<22}{'evaluator':<20}{'evals/s':>14}" + "".join(f"{c:>13}" for c in cols))

    n = args.hands
    peer_of = {"boardlab": "baseline", "boardlab out=": "baseline",
               "eval_at (compiled)": "baseline eval_at"}  # each contender's baseline twin
    for k in (7, 6, 5):
        hands = cards.random_hands(n, k, seed=k)
        h64 = hands.astype(np.int64)
        buf = np.empty(n, np.int32)
        o16 = np.empty(n, np.uint16)
        c = {"boardlab": lambda h=hands: poker.evaluate(h),
             "boardlab out=": lambda h=hands, b=buf: poker.evaluate(h, out=b)}
        if k == 7:
            c["boardlab int64"] = lambda h=h64: poker.evaluate(h)
            c["boardlab river_rats"] = lambda h=hands: poker.evaluate(h, "river_rats")
            c["eval_at (compiled)"] = lambda h=hands, b=buf: loop_at(h, 0, b)
            c["eval_hand (view)"] = lambda h=hands, b=buf: loop_view(h, 0, b)
        if omp:
            c["OMPEval"] = lambda h=hands, o=o16: omp(h, o)
        if base is not None:
            c["baseline"] = lambda h=hands: base.evaluate(h)
        if base_at is not None and k == 7:
            c["baseline eval_at"] = lambda h=hands, b=buf: base_at(h, 0, b)
        t = _interleaved(c, args.rounds)
        label = f"{k} cards"
        for name in c:
            if name in ("OMPEval", "baseline", "baseline eval_at"):
                continue
            ratios = []
            if omp:
                ratios.append(float(np.median(np.array(t["OMPEval"]) / np.array(t[name]))))
            if base is not None:
                peer = peer_of.get(name)
                ratios.append(float(np.median(np.array(t[peer]) / np.array(t[name])))
                              if peer in t else float("nan"))
            _row(label, name, n / float(np.median(t[name])), ratios)
        for name in ("OMPEval", "baseline", "baseline eval_at"):
            if name in t:
                _row(label, name, n / float(np.median(t[name])))
        if k == 7:
            sub = hands[: args.peer_hands]
            peers = _python_peers(sub.tolist())
            if not peers:
                print(f"{label:<22}(no Python-called peer installed: pip install -e '.[dev]')")
            tp = _interleaved(peers, max(1, args.rounds // 2)) if peers else {}
            ours = n / float(np.median(t["boardlab"]))
            for name, secs in tp.items():
                rate = len(sub) / float(np.median(secs))
                print(f"{label:<22}{name:<20}{rate:>14,.0f}   boardlab is {ours / rate:,.0f}x")
    for k, nj in ((8, 0), (10, 0), (5, 1), (7, 1), (7, 2), (10, 2)):
        m = n if nj == 0 else n // (10 if nj == 1 else 50)
        hands = cards.random_hands(m, k, seed=100 + k + nj, n_jokers=nj)
        c = {"boardlab": lambda h=hands: poker.evaluate(h)}
        if base is not None:
            c["baseline"] = lambda h=hands: base.evaluate(h)
        t = _interleaved(c, args.rounds)
        label = f"{k} cards, {nj} joker{'s' if nj != 1 else ''}"
        ratios = [float("nan")] * bool(omp)
        if base is not None:
            ratios.append(float(np.median(np.array(t["baseline"]) / np.array(t["boardlab"]))))
        _row(label, "boardlab", m / float(np.median(t["boardlab"])), ratios)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
