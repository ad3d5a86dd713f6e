"""``boardlab play river-rats``: a person plays one seat of River Rats in the terminal, compiled
bots (:mod:`agents.river_rats`) play the others. Shows the table as that seat sees it, the legal
actions with numbers, the bots' moves and each resolution."""

from __future__ import annotations

import argparse
import sys


def register(sub, play) -> None:  # noqa: ARG001 - sub is part of the registrar protocol
    """Add ``boardlab play river-rats`` (``play``: the subparsers of ``boardlab play``)."""
    from engines.river_rats.config import DIFFICULTIES, EMPTY_DRAWS, PREDICTION_MATCHES

    p = play.add_parser("river-rats", help="play River Rats: you take one seat, bots the others",
                        description=__doc__)
    p.add_argument("--players", type=int, default=2, help="1..4 players (default 2)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--bots", default="heuristic",
                   help="policy of the other seats: random, greedy, heuristic (default), peek")
    p.add_argument("--difficulty", choices=DIFFICULTIES, default="normal")
    p.add_argument("--rats", default=None, metavar="AW",
                   help="active and waiting Rat as two suit letters, e.g. DS (default random)")
    p.add_argument("--prediction-match", choices=PREDICTION_MATCHES, default="exact")
    p.add_argument("--defeated-rat-leaves", action="store_true",
                   help="the first Rat's King leaves the game when defeated")
    p.add_argument("--empty-draw", choices=EMPTY_DRAWS, default="skip")
    p.add_argument("--seed", type=int, default=None, help="game seed (default: random)")
    p.add_argument("--record", default=None, metavar="PATH",
                   help="write the game record (JSON) here at the end")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, stdin=None, stdout=None) -> int:
    """Play one game interactively; returns 0. Raises ``ValueError`` for bad options."""
    import numpy as np

    from agents import river_rats as agents
    from engines.river_rats import Config, core, new_game
    from engines.river_rats.text import last_resolution_string

    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    rats = None
    if args.rats is not None:
        if len(args.rats) != 2:
            raise ValueError(f"bad --rats {args.rats!r}: expected two suit letters such as DS")
        rats = (args.rats[0], args.rats[1])
    cfg = Config(n_players=args.players, rats=rats, difficulty=args.difficulty,
                 prediction_match=args.prediction_match,
                 defeated_rat_stays=not args.defeated_rat_leaves, empty_draw=args.empty_draw)
    if not 0 <= args.seat < cfg.n_players:
        raise ValueError(f"bad --seat {args.seat}: expected 0..{cfg.n_players - 1}")
    if args.bots not in agents.POLICY_IDS:
        raise ValueError(f"bad --bots {args.bots!r}: expected one of {sorted(agents.POLICY_IDS)}")
    seed = args.seed if args.seed is not None else int(np.random.SeedSequence().entropy % 2**63)
    st = new_game(cfg, seed)
    pid = agents.POLICY_IDS[args.bots]
    params = agents.default_params(args.bots)
    prng = np.empty(4, dtype=np.uint64)
    core.policy_rngs(np.uint64(seed), prng)
    legal_buf = np.empty(core.MAX_LEGAL, dtype=np.int64)

    def say(text=""):
        print(text, file=out)

    say(f"River Rats, seed {seed}: you are seat {args.seat}; bots: {args.bots}. "
        f"Type the number of an action (q to quit).")
    last_round = -1
    while not st.is_terminal():
        if st.round != last_round:
            if last_round >= 0:
                say(last_resolution_string(st.array))
            last_round = st.round
            say("")
            say(f"--- round {st.round + 1} ---")
        p = st.current_player()
        if p == args.seat:
            say("")
            say(st.table(viewer=args.seat))
            legal = st.legal_actions()
            for i, a in enumerate(legal):
                say(f"  [{i}] {st.action_to_string(a)}")
            while True:
                out.write("your choice> ")
                out.flush()
                line = inp.readline()
                if not line or line.strip().lower() in ("q", "quit", "exit"):
                    say("\nbye")
                    return 0
                t = line.strip()
                try:
                    a = legal[int(t)] if t.isdigit() and int(t) < len(legal) else \
                        st.string_to_action(t)
                    break
                except ValueError:
                    say(f"  not a choice: {t!r} (type 0..{len(legal) - 1})")
            st.apply_action(a)
        else:
            n = core.legal_actions(st.array, legal_buf)
            a = int(agents.dispatch(pid, st.array, p, legal_buf, n, params, prng[p:p + 1]))
            say(f"  seat {p} ({args.bots}): {st.action_to_string(a)}")
            st.apply_action(a)
    say(last_resolution_string(st.array))
    say("")
    say(st.table(viewer=None))
    say("The players WIN: both Rats defeated!" if st.won else "The players lose.")
    if args.record:
        st.save_record(args.record)
        say(f"record written to {args.record}")
    return 0
