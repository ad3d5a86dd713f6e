"""Cost of a step through the OpenSpiel and PettingZoo adapters against our step API, side by
side in one process run (targets: an adapter step costs at most 2x a step-API step; the
PettingZoo ``env()`` docs/guides/interop.md tells users to use, at most 1.5x).

A *step* is what a learning loop does per decision: read the legal actions, build the acting
player's observation tensor (its information state, ``float32 (TENSOR_SIZE,)``) and apply an
action. The three loops play the same games (same seeds, action ``legal[r % len(legal)]`` for a
shared stream of random ints ``r``, so the policy costs nothing):

- step API: ``st.legal_actions()``, ``st.observation_tensor(p)``, ``st.apply_action(a)``;
- OpenSpiel: ``state.legal_actions()``, ``state.information_state_tensor(p)``,
  ``state.apply_action(a)`` on ``boardlab_<game>`` with a fixed seed (no chance node);
- PettingZoo ``env()``: the loop of docs/guides/interop.md, ``for agent in e.agent_iter():
  obs, reward, termination, truncation, info = e.last(); e.step(None if termination else a)`` on
  ``env(game)`` (our order-enforcing wrapper, :class:`~experiments.interop.pettingzoo_env.
  FastOrderEnforcingWrapper`), the end included (one ``step(None)`` per agent);
- the same loop on ``raw_env(game)`` (no wrapper) and on PettingZoo's stock
  ``OrderEnforcingWrapper(raw_env(game))`` (what ``env()`` returned before our faster wrapper),
  so the wrapper's cost and the change show in one run. The loops read the legal actions from the
  ``int8`` action mask through a ``bool`` view (``mask.view(np.bool_).nonzero()[0]``): numpy's
  ``nonzero`` on ``int8`` costs 4 µs for River Rats' 1,344 actions, on ``bool`` 0.7 µs, and
  that is the policy's cost, which the step-API loop does not pay either.

With ``--search-deals D`` it also pits OpenSpiel's Python ISMCTS (our ``heuristic`` rollouts and
leaf value as its evaluator, ``worlds x len(legal)`` simulations per decision) against our
compiled ``pimc-fast`` (8 worlds x every legal action rollouts) in one seat against
``heuristic`` seats, on the same ``D`` deals with every seat in turn, and prints each one's mean
return and decisions per second (:func:`search_duel`; the notebook
``notebooks/interop_training.ipynb`` runs the same comparison on ReCURRRing).

Wall time with ``time.perf_counter`` (compile and first calls excluded by a warm-up game), the
loops alternate in each of ``--rounds`` rounds and the median microseconds per step are
reported with the ratios adapter/step API (a step = one decision; the PettingZoo loops also
pay for their end-of-game steps). Run: ``python benchmarks/interop.py [--games 10] [--rounds
3] [--game rats] [--search-deals 0] [--worlds 8]``; the defaults take a few seconds after the
first-call compilation. On a loaded machine the ratios are more stable than the absolute
times.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

from engines.protocol import GAME_NAMES, game_class, new_game


def _config(game: str, n: int | None):
    cls = game_class(game)
    d = cls.config_class().to_dict()
    if n is not None:
        d["n_players"] = n
    return cls._as_config(d)


def _seeds(n_games: int) -> list[int]:
    return [1000 + 7919 * i for i in range(n_games)]


def run_step_api(game, cfg, seeds, r) -> int:
    """Play the games through the step API; returns the steps taken."""
    steps = 0
    for seed in seeds:
        st = new_game(game, cfg, seed)
        while not st.is_terminal():
            p = st.current_player()
            legal = st.legal_actions()
            st.observation_tensor(p)
            st.apply_action(legal[r[steps % r.size] % len(legal)])
            steps += 1
    return steps


def run_openspiel(game, cfg, seeds, r) -> int:
    """Play the games through the OpenSpiel adapter; returns the steps taken."""
    from experiments.interop.openspiel_game import load_game

    games = [load_game(game, cfg.n_players, seed=s) for s in seeds]
    steps = 0
    for g in games:
        st = g.new_initial_state()
        while not st.is_terminal():
            p = st.current_player()
            legal = st.legal_actions()
            st.information_state_tensor(p)
            st.apply_action(legal[r[steps % r.size] % len(legal)])
            steps += 1
    return steps


def _readme_loop(env, seeds, r) -> int:
    """The PettingZoo loop of docs/guides/interop.md over ``seeds``; returns the decisions taken."""
    steps = 0
    for seed in seeds:
        env.reset(seed=seed)
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = obs["action_mask"].view(np.bool_).nonzero()[0]
            env.step(int(legal[r[steps % r.size] % legal.size]))
            steps += 1
    return steps


def run_pettingzoo(game, cfg, seed_list, r) -> int:
    """Play the games through ``env()`` (what docs/guides/interop.md tells users to use) with its
    loop; returns the decisions taken."""
    from experiments.interop.pettingzoo_env import env

    return _readme_loop(env(game, config=cfg), seed_list, r)


def run_pettingzoo_raw(game, cfg, seed_list, r) -> int:
    """The loop of docs/guides/interop.md on ``raw_env()`` (no order-enforcing wrapper)."""
    from experiments.interop.pettingzoo_env import raw_env

    return _readme_loop(raw_env(game, config=cfg), seed_list, r)


def run_pettingzoo_stock(game, cfg, seed_list, r) -> int:
    """The loop of docs/guides/interop.md on PettingZoo's own
    ``OrderEnforcingWrapper(raw_env())``, what ``env()`` returned before our faster wrapper."""
    from pettingzoo.utils import wrappers

    from experiments.interop.pettingzoo_env import raw_env

    return _readme_loop(wrappers.OrderEnforcingWrapper(raw_env(game, config=cfg)), seed_list, r)


LOOPS = {"step_api": run_step_api, "openspiel": run_openspiel, "pettingzoo": run_pettingzoo,
         "pettingzoo_raw": run_pettingzoo_raw, "pettingzoo_stock": run_pettingzoo_stock}
"""The timed loops: ``{name: f(game, config, seeds, r) -> decisions}``."""


def measure(game: str, n_players: int | None, n_games: int, rounds: int) -> dict:
    """Median microseconds per step of each loop over ``rounds`` rounds of ``n_games`` games;
    returns ``{loop: µs per step}``. Raises ``RuntimeError`` if the loops took different
    numbers of steps (they must play the same games)."""
    cfg = _config(game, n_players)
    r = np.random.default_rng(0).integers(0, 2**31, 4096)
    warm = _seeds(1)
    for f in LOOPS.values():
        f(game, cfg, warm, r)
    seeds = _seeds(n_games)
    times: dict = {k: [] for k in LOOPS}
    counts = {}
    for _ in range(rounds):
        for name, f in LOOPS.items():
            t0 = time.perf_counter()
            counts[name] = f(game, cfg, seeds, r)
            times[name].append((time.perf_counter() - t0) / counts[name] * 1e6)
    if len(set(counts.values())) != 1:
        raise RuntimeError(f"the loops played different games: steps {counts}")
    return {k: statistics.median(v) for k, v in times.items()} | {"steps": counts["step_api"]}


def search_duel(game: str, n_players: int | None, n_deals: int, worlds: int = 8,
                seed: int = 2026) -> dict:
    """OpenSpiel ISMCTS (``MatchedISMCTSBot`` with ``RolloutEvaluator(game, "pimc-fast")``)
    and our ``pimc-fast`` in one seat against ``heuristic`` seats on ``n_deals`` deals (the
    seeds of ``play_batch(config, "random", n_deals, seed)``), each seat in turn. Returns
    ``{agent: {"games", "mean_return", "decisions", "decisions_per_s"}}``; decisions count the
    search seat's decisions with more than one legal action, timed with ``perf_counter``."""
    from agents.loop import play_batch
    from experiments.interop.bots import MatchedISMCTSBot, PolicyBot, RolloutEvaluator
    from experiments.interop.openspiel_game import load_game

    cfg = _config(game, n_players)
    n = int(cfg.n_players)
    deals = [int(x) for x in play_batch(cfg, "random", n_deals, seed=seed)["seed"]]
    makers = {
        "pimc-fast": lambda g, seat, s: PolicyBot(game, "pimc-fast", seat),
        "openspiel-ismcts": lambda g, seat, s: MatchedISMCTSBot(
            g, RolloutEvaluator(game, "pimc-fast", seed=s), worlds=worlds, seed=s),
    }
    PolicyBot(game, "pimc-fast", 0)  # load the compiled search outside the timing
    out = {}
    for name, make in makers.items():
        rets, spent, decisions = [], 0.0, 0
        for s in deals:
            for seat in range(n):
                g = load_game(game, n, seed=s)
                st = g.new_initial_state()
                bot = make(g, seat, s)
                others = [PolicyBot(game, "heuristic", p) for p in range(n)]
                while not st.is_terminal():
                    p = st.current_player()
                    if p != seat:
                        st.apply_action(others[p].step(st))
                        continue
                    multi = len(st.legal_actions()) > 1
                    t0 = time.perf_counter()
                    a = bot.step(st)
                    if multi:
                        spent += time.perf_counter() - t0
                        decisions += 1
                    st.apply_action(a)
                rets.append(st.returns()[seat])
        out[name] = {"games": len(rets), "mean_return": float(np.mean(rets)),
                     "decisions": decisions, "decisions_per_s": decisions / max(spent, 1e-9)}
    return out


def main(argv=None) -> None:
    """Command line: print one line per game with µs per step and the ratios."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=10, help="games per round and game (10)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (3)")
    ap.add_argument("--game", choices=GAME_NAMES, action="append",
                    help="a game (repeatable; default all four)")
    ap.add_argument("--players", type=int, default=None, help="player count (config default)")
    ap.add_argument("--search-deals", type=int, default=0,
                    help="deals of the ISMCTS vs pimc-fast comparison (0: skip it)")
    ap.add_argument("--worlds", type=int, default=8,
                    help="ISMCTS simulations per decision = worlds x legal actions (8)")
    a = ap.parse_args(argv)
    if a.games < 1 or a.rounds < 1:
        ap.error(f"bad --games {a.games} / --rounds {a.rounds}: expected integers >= 1")
    print("µs per decision (median of the rounds) and ratios to the step API; PZ env() = the "
          "the guide's loop on env(), raw = on raw_env(), stock = on PettingZoo's own "
          "OrderEnforcingWrapper (the former env())")
    print(f"{'game':<11} {'steps':>6} {'step API':>9} {'OpenSpiel':>10} {'PZ env()':>9} "
          f"{'PZ raw':>7} {'PZ stock':>9} {'OS/step':>8} {'env/step':>9} {'raw/step':>9} "
          f"{'stock/step':>11}")
    worst_os = worst_env = worst_stock = 0.0
    for game in a.game or GAME_NAMES:
        m = measure(game, a.players, a.games, a.rounds)
        base = m["step_api"]
        ro, re_, rr, rs = (m[k] / base for k in ("openspiel", "pettingzoo", "pettingzoo_raw",
                                                   "pettingzoo_stock"))
        worst_os, worst_env = max(worst_os, ro), max(worst_env, re_)
        worst_stock = max(worst_stock, rs)
        print(f"{game:<11} {m['steps']:>6} {base:>9.1f} {m['openspiel']:>10.1f} "
              f"{m['pettingzoo']:>9.1f} {m['pettingzoo_raw']:>7.1f} "
              f"{m['pettingzoo_stock']:>9.1f} {ro:>8.2f} {re_:>9.2f} {rr:>9.2f} {rs:>11.2f}")
    print(f"largest OpenSpiel/step-API ratio: {worst_os:.2f} (target <= 2)")
    print(f"largest PettingZoo env()/step-API ratio: {worst_env:.2f} (target <= 1.5; with "
          f"PettingZoo's stock wrapper {worst_stock:.2f})")
    if a.search_deals > 0:
        for game in a.game or GAME_NAMES:
            res = search_duel(game, a.players, a.search_deals, a.worlds)
            for name, r in res.items():
                print(f"{game:<11} {name:<17} games {r['games']:>4}  mean return "
                      f"{r['mean_return']:>7.3f}  decisions/s {r['decisions_per_s']:>8.1f}")


if __name__ == "__main__":
    main()
