"""Where a River Rats ``net`` decision's time goes: the learned policy's parts against the
heuristic, on the same recorded decisions, side by side in one process run, one core.

Run: ``python benchmarks/net_decision_cost.py [--games 200] [--players 4] [--rounds 5]``.

The decisions (every state with two or more legal actions) are recorded from ``--games`` games
of ``--players`` players, each played by ``net`` itself (so the states are the ones ``net``
meets). Then, in rounds that alternate the contenders, compiled loops over those same states
time:

* ``heuristic values``: :func:`agents.river_rats.action_values`, the plan heuristic's valuation of
  every legal action (``net``'s features start from it);
* ``action features``: :func:`agents.river_rats_features.action_features`, the state and
  action features ``net`` reads (the heuristic's values, the showdown chances on
  ``K_WORLDS`` sampled worlds, the card features);
* ``net logits``: :func:`agents.net.net_logits`, the features plus the network's forward
  pass (the difference to the line above is the forward pass);
* ``heuristic act``: the heuristic's whole decision (:func:`agents.river_rats.act`).

Prints microseconds per decision (median over the rounds, CPU time of this process, compile
time excluded) and each line's ratio to ``heuristic act`` within its round (median), with the
CPU model and the load. Figures: ``docs/benchmarks.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from agents import river_rats  # noqa: E402  (after the path: run from a clone)
from agents.river_rats_features import N_ACTION, N_STATE  # noqa: E402
from engines.river_rats import core  # noqa: E402

# module-level ints: the compile-time sizes of the stack scratch (agents.stack_arrays), which is
# how the game code gets its scratch, so that no allocation is timed
F_SIZE = river_rats.F_SIZE
W_SIZE = river_rats.W_SIZE
MAX_LEGAL = core.MAX_LEGAL
ACTION_SCRATCH = core.MAX_LEGAL * N_ACTION


def record_decisions(n_games: int, n_players: int):
    """The decisions of ``n_games`` River Rats games played by ``net`` in every seat
    (:class:`agents.policy.Agent`, as the step API plays it): states ``int64 (D, STATE_SIZE)``,
    legal actions ``int64 (D, MAX_LEGAL)`` (padded with -1), their counts ``int64 (D,)``, the
    acting players ``int64 (D,)`` and their seat memories ``int64 (D, SEAT_WORDS)`` as the
    decision saw them; only decisions with two or more legal actions (one legal action is
    played without thinking)."""
    from agents.policy import Agent
    from engines.protocol import new_game
    from engines.river_rats import RiverRatsConfig

    config = RiverRatsConfig(n_players=n_players)
    net = Agent("river_rats", "net")
    states, legals, counts, players, memories = [], [], [], [], []
    for seed in range(n_games):
        game = new_game("river_rats", config, seed=seed)
        while not game.is_terminal():
            actions = game.legal_actions()
            if len(actions) > 1:
                player = game.current_player()
                row = np.full(MAX_LEGAL, -1, dtype=np.int64)
                row[:len(actions)] = actions
                states.append(game.array.copy())
                legals.append(row)
                counts.append(len(actions))
                players.append(player)
                memories.append(game.seat_memory[player].copy())
                game.apply_action(net(game))
            else:
                game.apply_action(actions[0])
    return (np.stack(states), np.stack(legals), np.asarray(counts, dtype=np.int64),
            np.asarray(players, dtype=np.int64), np.stack(memories))


def contenders():
    """The compiled loops timed, by name, with the agent whose parameter row each takes. Each
    loop takes ``(states, legals, counts, players, memories, params, aux)``, gives every
    decision a copy of its seat memory (as the game loop hands a seat its own) and returns a
    checksum (so nothing is optimized away)."""
    from numba import njit

    from agents.net import net_logits
    from agents.river_rats_features import action_features
    from agents.stack_arrays import stack_f32, stack_f64, stack_i64
    from engines.protocol import GAME_IDS

    game_id = GAME_IDS["river_rats"]
    heuristic_kind = river_rats.POLICY_IDS["heuristic"]

    def timed_loop(decide):
        """The loop over the recorded decisions around ``decide(state, player, legal,
        n_legal, params, aux, memory) -> float``."""
        @njit
        def loop(states, legals, counts, players, memories, params, aux):
            total = 0.0
            for i in range(states.shape[0]):
                total += decide(states[i].copy(), players[i], legals[i], counts[i], params,
                                aux, memories[i].copy())
            return total
        return loop

    @njit
    def heuristic_values(s, p, legal, n, params, aux, memory):
        f = stack_f64(F_SIZE)
        w = stack_i64(W_SIZE)
        river_rats.action_values(s, p, legal, n, params, False, False, f, w)
        return f[0]

    @njit
    def features(s, p, legal, n, params, aux, memory):
        state_out = stack_f32(N_STATE)
        action_out = stack_f32(ACTION_SCRATCH)[:n * N_ACTION].reshape((n, N_ACTION))
        action_features(s, p, legal, n, params, memory, state_out, action_out)
        return state_out[17]

    @njit
    def logits(s, p, legal, n, params, aux, memory):
        out = stack_f64(MAX_LEGAL)
        net_logits(game_id, s, p, legal, n, params, aux, memory, out)
        return out[0]

    @njit
    def heuristic_act(s, p, legal, n, params, aux, memory):
        return river_rats.act(heuristic_kind, s, p, legal, n, params, aux, memory)

    return {"heuristic values": (timed_loop(heuristic_values), "heuristic"),
            "action features": (timed_loop(features), "net"),
            "net logits": (timed_loop(logits), "net"),
            "heuristic act": (timed_loop(heuristic_act), "heuristic")}


def main(argv=None) -> int:
    from agents.policy import Agent, table_aux
    from engines.river_rats import RiverRatsConfig
    from experiments.io import cpu_model

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games recorded (default 200)")
    ap.add_argument("--players", type=int, default=4, choices=(1, 2, 3, 4))
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default 5)")
    args = ap.parse_args(argv)
    print(f"CPU: {cpu_model()}; load {os.getloadavg()[0]:.2f} at start", flush=True)
    data = record_decisions(args.games, args.players)
    aux = table_aux("river_rats", RiverRatsConfig(n_players=args.players))
    params = {name: Agent("river_rats", name).params for name in ("net", "heuristic")}
    n = data[0].shape[0]
    print(f"{n} decisions of {args.games} games ({args.players} players, net in every seat), "
          f"{data[2].mean():.2f} legal actions on average", flush=True)
    loops = contenders()
    for fn, agent in loops.values():  # compile (or load) outside the clock
        fn(*(x[:2] for x in data), params[agent], aux)
    per_decision = {name: [] for name in loops}
    ratios = {name: [] for name in loops}
    names = list(loops)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]  # rotate who goes first
        this_round = {}
        for name in order:
            fn, agent = loops[name]
            t = time.process_time()
            fn(*data, params[agent], aux)
            this_round[name] = (time.process_time() - t) / n * 1e6
        for name in names:
            per_decision[name].append(this_round[name])
            ratios[name].append(this_round[name] / this_round["heuristic act"])
    print(f"{'':18} {'us/decision':>12} {'x heuristic act':>16}")
    for name in names:
        print(f"{name:18} {statistics.median(per_decision[name]):12.2f} "
              f"{statistics.median(ratios[name]):16.2f}")
    forward = [a - b for a, b in zip(per_decision["net logits"], per_decision["action features"],
                                     strict=True)]
    print(f"{'forward pass':18} {statistics.median(forward):12.2f}   (net logits - features)")
    print(f"load {os.getloadavg()[0]:.2f} at the end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
