"""Cost of a step through the OpenSpiel and PettingZoo adapters against our step API, side by
side in one process run (issue 14: an adapter step may cost at most 2x a step-API step).

A *step* is what a learning loop does per decision: read the legal actions, build the acting
player's observation tensor (its information state, ``float32 (TENSOR_SIZE,)``) and apply an
action. The three loops play the same games (same seeds, action ``legal[r % len(legal)]`` for a
shared stream of random ints ``r``, so the policy costs nothing):

- step API: ``st.legal_actions()``, ``st.observation_tensor(p)``, ``st.apply_action(a)``;
- OpenSpiel: ``state.legal_actions()``, ``state.information_state_tensor(p)``,
  ``state.apply_action(a)`` on ``boardlab_<game>`` with a fixed seed (no chance node);
- PettingZoo: ``env.last()`` (observation and action mask of the agent to act) and
  ``env.step(a)`` on the unwrapped AEC environment.

With ``--search-deals D`` it also pits OpenSpiel's Python ISMCTS (our ``heuristic`` rollouts and
leaf value as its evaluator, ``worlds x len(legal)`` simulations per decision) against our
compiled ``pimc-fast`` (8 worlds x every legal action rollouts) in one seat against
``heuristic`` seats, on the same ``D`` deals with every seat in turn, and prints each one's mean
return and decisions per second (:func:`search_duel`; the notebook
``notebooks/interop_training.ipynb`` runs the same comparison on ReCURRRing).

Wall time with ``time.perf_counter`` (compile and first calls excluded by a warm-up game), the
loops alternate in each of ``--rounds`` rounds and the median microseconds per step are
reported with the ratios adapter/step API. Run: ``python benchmarks/interop.py [--games 10]
[--rounds 3] [--game rats] [--search-deals 0] [--worlds 8]``; the defaults take a few
seconds. On a loaded machine the ratios are more stable than the absolute times.
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


def run_pettingzoo(game, cfg, seeds, r) -> int:
    """Play the games through the PettingZoo AEC environment; returns the steps taken."""
    from experiments.interop.pettingzoo_env import raw_env

    env = raw_env(game, config=cfg)
    steps = 0
    for seed in seeds:
        env.reset(seed=seed)
        while True:
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[r[steps % r.size] % legal.size]))
            steps += 1
    return steps


LOOPS = {"step_api": run_step_api, "openspiel": run_openspiel, "pettingzoo": run_pettingzoo}


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
    print(f"{'game':<11} {'steps':>6} {'step API µs':>12} {'OpenSpiel µs':>13} "
          f"{'PettingZoo µs':>14} {'OS/step':>8} {'PZ/step':>8}")
    worst = 0.0
    for game in a.game or GAME_NAMES:
        m = measure(game, a.players, a.games, a.rounds)
        ro, rp = m["openspiel"] / m["step_api"], m["pettingzoo"] / m["step_api"]
        worst = max(worst, ro, rp)
        print(f"{game:<11} {m['steps']:>6} {m['step_api']:>12.1f} {m['openspiel']:>13.1f} "
              f"{m['pettingzoo']:>14.1f} {ro:>8.2f} {rp:>8.2f}")
    print(f"largest adapter/step-API ratio: {worst:.2f} (target <= 2)")
    if a.search_deals > 0:
        for game in a.game or GAME_NAMES:
            res = search_duel(game, a.players, a.search_deals, a.worlds)
            for name, r in res.items():
                print(f"{game:<11} {name:<17} games {r['games']:>4}  mean return "
                      f"{r['mean_return']:>7.3f}  decisions/s {r['decisions_per_s']:>8.1f}")


if __name__ == "__main__":
    main()
