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


def record_decisions(n_games: int, n_players: int):
    """The decisions of ``n_games`` River Rats games played by ``net`` in every seat: states
    ``int64 (D, STATE_SIZE)``, legal actions ``int64 (D, MAX_LEGAL)`` (padded with -1), their
    counts ``int64 (D,)`` and the acting players ``int64 (D,)``; only decisions with two or
    more legal actions (one legal action is played without thinking)."""
    from numba import njit

    from agents.net import net_act
    from agents.policy import table_aux
    from engines.protocol import GAME_IDS, new_game
    from engines.river_rats import RiverRatsConfig
    from engines.river_rats import core

    game_id = GAME_IDS["river_rats"]
    config = RiverRatsConfig(n_players=n_players)
    aux = table_aux("river_rats", config)
    params = net_params()

    @njit
    def choose(state, player, legal, n_legal, params, aux, memory):
        return net_act(game_id, state, player, legal, n_legal, params, aux, memory)

    states, legals, counts, players = [], [], [], []
    memory = np.zeros(8, dtype=np.int64)
    for seed in range(n_games):
        game = new_game("river_rats", config, seed=seed)
        while not game.is_terminal():
            actions = game.legal_actions()
            player = game.current_player()
            if len(actions) > 1:
                row = np.full(core.MAX_LEGAL, -1, dtype=np.int64)
                row[:len(actions)] = actions
                states.append(game.array.copy())
                legals.append(row)
                counts.append(len(actions))
                players.append(player)
                memory[0] = seed * 7919 + len(states)  # the seat's stream word
                action = int(choose(game.array.copy(), player, row, len(actions), params, aux,
                                    memory))
            else:
                action = actions[0]
            game.apply_action(action)
    return (np.stack(states), np.stack(legals), np.asarray(counts, dtype=np.int64),
            np.asarray(players, dtype=np.int64))


def net_params() -> np.ndarray:
    """``net``'s parameter row of River Rats (``float64``): the heuristic's default weights
    (its prior and the source of its features), zero-padded to the table's width."""
    from agents import river_rats
    from agents.policy import params_width

    params = np.zeros(params_width("river_rats"))
    params[:len(river_rats.DEFAULT_PARAMS)] = river_rats.DEFAULT_PARAMS
    return params


def contenders(n_players: int):
    """The compiled loops timed, by name: each takes ``(states, legals, counts, players,
    params, aux)`` and returns a checksum (so nothing is optimized away)."""
    from numba import njit

    from agents import river_rats
    from agents.net import net_logits
    from agents.river_rats_features import N_ACTION, N_STATE, action_features
    from engines.protocol import GAME_IDS
    from engines.river_rats import core

    game_id = GAME_IDS["river_rats"]
    f_size, w_size, max_legal = river_rats.F_SIZE, river_rats.W_SIZE, core.MAX_LEGAL
    heuristic_kind = river_rats.POLICY_IDS["heuristic"]

    @njit
    def heuristic_values(states, legals, counts, players, params, aux):
        f = np.zeros(f_size)
        w = np.zeros(w_size, dtype=np.int64)
        total = 0.0
        for i in range(states.shape[0]):
            s = states[i].copy()
            river_rats.action_values(s, players[i], legals[i], counts[i], params, False, False,
                                     f, w)
            total += f[0]
        return total

    @njit
    def features(states, legals, counts, players, params, aux):
        state_out = np.zeros(N_STATE, dtype=np.float32)
        action_out = np.zeros((max_legal, N_ACTION), dtype=np.float32)
        memory = np.zeros(8, dtype=np.int64)
        total = 0.0
        for i in range(states.shape[0]):
            s = states[i].copy()
            memory[0] = i
            action_features(s, players[i], legals[i], counts[i], params, memory, state_out,
                            action_out)
            total += state_out[17]
        return total

    @njit
    def logits(states, legals, counts, players, params, aux):
        out = np.zeros(max_legal)
        memory = np.zeros(8, dtype=np.int64)
        total = 0.0
        for i in range(states.shape[0]):
            s = states[i].copy()
            memory[0] = i
            net_logits(game_id, s, players[i], legals[i], counts[i], params, aux, memory, out)
            total += out[0]
        return total

    @njit
    def heuristic_act(states, legals, counts, players, params, aux):
        memory = np.zeros(8, dtype=np.int64)
        total = 0
        for i in range(states.shape[0]):
            s = states[i].copy()
            memory[0] = i
            total += river_rats.act(heuristic_kind, s, players[i], legals[i], counts[i], params,
                                    aux, memory)
        return total

    return {"heuristic values": heuristic_values, "action features": features,
            "net logits": logits, "heuristic act": heuristic_act}


def main(argv=None) -> int:
    from agents.policy import table_aux
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
    inputs = (*data, net_params(), aux)
    n = data[0].shape[0]
    print(f"{n} decisions of {args.games} games ({args.players} players, net in every seat), "
          f"{data[2].mean():.2f} legal actions on average", flush=True)
    loops = contenders(args.players)
    for fn in loops.values():  # compile (or load) outside the clock
        fn(*(x[:2] if isinstance(x, np.ndarray) and x.shape[:1] == (n,) else x
             for x in inputs))
    per_decision = {name: [] for name in loops}
    ratios = {name: [] for name in loops}
    names = list(loops)
    for r in range(args.rounds):
        order = names[r % len(names):] + names[:r % len(names)]  # rotate who goes first
        this_round = {}
        for name in order:
            t = time.process_time()
            loops[name](*inputs)
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
