"""``boardlab lure ...`` and ``boardlab play lure``: the Lure command line.

* ``boardlab lure balance [--cards FILE] [--players 2..5] [--deep-waters] [--agents ...]``:
  the fish-card balance report (:mod:`experiments.lure_balance`) under ``results/lure/``;
* ``boardlab lure odds [--cards FILE] [--deep-waters]``: exact catch probabilities per card;
* ``boardlab lure versus --agents A B [...] [--players N]``: win rates with 95% intervals
  (:mod:`experiments.lure_versus`);
* ``boardlab lure tune``: random search over the heuristic family;
* ``boardlab play lure``: play one seat in the terminal against compiled agents.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from experiments.cli import parse_player_counts


def parse_players(text: str) -> list[int]:
    """``"2..5"``, ``"2-5"``, ``"2,4"`` or ``"3"`` -> sorted player counts in 2..5
    (:func:`experiments.cli.parse_player_counts`).

    Raises:
        ValueError: unreadable text or a count outside 2..5.
    """
    return parse_player_counts(text, 2, 5, "Lure")


def register(sub, play) -> None:
    """Add ``boardlab lure`` (balance, odds, versus, tune) and ``boardlab play lure``."""
    p = sub.add_parser("lure", help="Lure: fish-card balance, odds, agents")
    lsub = p.add_subparsers(dest="lure_command", metavar="ACTION", required=True)

    b = lsub.add_parser("balance", help="write the fish-card balance report under results/lure/")
    b.add_argument("--cards", help="fish deck CSV (default: the reconstructed deck)")
    b.add_argument("--players", default="2..5", help="player counts, e.g. 2..5, 4 or 2,4")
    b.add_argument("--deep-waters", action="store_true", help="play with Deep Waters")
    b.add_argument("--agents", nargs="+", default=["heuristic"],
                   help="agents by seat, cycled over the seats (default: heuristic, the "
                        "strongest)")
    b.add_argument("--games", type=int, default=20000, help="games per player count")
    b.add_argument("--seed", type=int, default=0)
    b.add_argument("--jobs", type=int, default=1, help="joblib workers")
    b.add_argument("--out", help="output folder (default results/lure/<base|deep_waters>)")
    b.add_argument("--force", action="store_true",
                   help="overwrite a report made with other settings (otherwise an error)")
    b.set_defaults(func=_balance)

    o = lsub.add_parser("odds", help="exact catch probabilities of every card")
    o.add_argument("--cards")
    o.add_argument("--deep-waters", action="store_true")
    o.add_argument("--csv", help="also write the table to this CSV file")
    o.set_defaults(func=_odds)

    v = lsub.add_parser("versus", help="agents' win rates against each other (95%% intervals)")
    v.add_argument("--agents", nargs="+", default=["random", "greedy", "heuristic"])
    v.add_argument("--players", type=int, default=2,
                   help="2: every pair head to head; 3-5: one table of len(agents) seats")
    v.add_argument("--games", type=int, default=20000)
    v.add_argument("--seed", type=int, default=0)
    v.add_argument("--deep-waters", action="store_true")
    v.add_argument("--cards")
    v.add_argument("--csv", help="also write the table to this CSV file")
    v.set_defaults(func=_versus)

    t = lsub.add_parser("tune", help="random search over the heuristic family vs greedy")
    t.add_argument("--players", type=int, default=4)
    t.add_argument("--candidates", type=int, default=40)
    t.add_argument("--games", type=int, default=2000)
    t.add_argument("--seed", type=int, default=0)
    t.set_defaults(func=_tune)

    pl = play.add_parser("lure", help="play Lure against compiled agents")
    pl.add_argument("--players", type=int, default=3)
    pl.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
    pl.add_argument("--opponents", default="greedy", help="agent name for the other seats")
    pl.add_argument("--deep-waters", action="store_true")
    pl.add_argument("--cards")
    pl.add_argument("--seed", type=int, default=0)
    pl.add_argument("--record", help="write the game's JSON record here at the end")
    pl.set_defaults(func=_play)


def _deck(path):
    from engines.lure.decks import load_deck

    return load_deck(path) if path else None


def _check_balance_out(args: argparse.Namespace, players) -> None:
    """Refuse to overwrite a report made with other settings (games, players, agents, seed,
    Deep Waters) unless ``--force``: the default folders hold the committed reports."""
    import json
    from pathlib import Path

    out = Path(args.out) if args.out else (Path("results/lure")
                                           / ("deep_waters" if args.deep_waters else "base"))
    meta_path = out / "metadata.json"
    if args.force or not meta_path.exists():
        return
    meta = json.loads(meta_path.read_text())
    mine = {"deep_waters": bool(args.deep_waters), "players": list(players),
            "agents": list(args.agents), "n_games_per_player_count": args.games,
            "seed": args.seed}
    theirs = {k: meta.get(k) for k in mine}
    if theirs != mine:
        raise ValueError(f"{out} holds a report made with other settings ({theirs}): choose "
                         f"another --out, or --force to overwrite it")


def _balance(args: argparse.Namespace) -> int:
    from experiments.lure_balance import run_balance

    players = parse_players(args.players)
    _check_balance_out(args, players)
    cmd = "boardlab " + " ".join(shlex.quote(a) for a in sys.argv[1:]) if sys.argv[1:] else ""
    out = run_balance(_deck(args.cards), players, args.deep_waters, args.agents, args.games,
                      args.seed, args.out, args.jobs, command=cmd or "boardlab lure balance",
                      progress=sys.stderr.isatty())
    print(f"wrote {out / 'report.md'}")
    return 0


def _odds(args: argparse.Namespace) -> int:
    import pandas as pd

    from experiments.lure_balance import add_fit, card_table

    from engines.lure.decks import default_deck

    deck = _deck(args.cards) or default_deck()
    cards, _ = add_fit(card_table(deck, args.deep_waters)[0])
    cols = ["id", "points", "catch_number", "requirements"] + [c for c in cards.columns
                                                               if c.startswith("p_")]
    cols += ["cheapest_50", "cheapest_90", "difficulty", "fair_points", "flag"]
    with pd.option_context("display.width", 250, "display.max_columns", 40):
        print(cards[cols].round(3).to_string(index=False))
    if args.csv:
        cards.to_csv(args.csv, index=False)
    return 0


def _versus(args: argparse.Namespace) -> int:
    from experiments.lure_versus import pairwise, rotation

    deck = _deck(args.cards)
    if args.players == 2:
        df = pairwise(args.agents, args.games, args.seed, args.deep_waters, deck)
    else:
        if len(args.agents) != args.players:
            raise ValueError(f"--players {args.players} needs {args.players} agents (one per "
                             f"seat, rotated); got {len(args.agents)}")
        df = rotation(args.agents, args.games, args.seed, args.deep_waters, deck)
    print(df.round(4).to_string(index=False))
    if args.csv:
        Path(args.csv).parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(args.csv, index=False)
    return 0


def _tune(args: argparse.Namespace) -> int:
    from experiments.lure_versus import tune_heuristic

    df = tune_heuristic(args.players, args.candidates, args.games, args.seed)
    print(df.head(10).round(3).to_string(index=False))
    return 0


def _play(args: argparse.Namespace) -> int:
    from agents.lure import Agent
    from engines.lure.config import LureConfig
    from engines.lure.game import LureGame

    cfg = LureConfig(n_players=args.players, deep_waters=args.deep_waters)
    if not 0 <= args.seat < args.players:
        raise ValueError(f"--seat {args.seat}; expected 0..{args.players - 1}")
    game = LureGame(cfg, _deck(args.cards), args.seed)
    bot = Agent(args.opponents)
    print("Cast: e.g. 'cast 3d6 d12 lures adjust x3 boost' or 'cast nothing'. "
          "Adjust: e.g. 'adjust d6#2+1 d20-1' or 'adjust none'. 'legal' lists actions, "
          "'quit' stops.")
    while not game.is_terminal():
        p = game.current_player()
        if p != args.seat:
            game.apply_action(bot.act(game))
            continue
        print(_view(game, p))
        while True:
            try:
                text = input(f"{game.phase}> ").strip()
            except EOFError:
                return 1
            if text == "quit":
                return 1
            if text == "legal":
                acts = game.legal_actions()
                print(", ".join(game.action_to_string(a) for a in acts[:60])
                      + (" ..." if len(acts) > 60 else ""))
                continue
            try:
                game.apply_action(text)
                break
            except ValueError as e:
                print(f"  {e}")
    print(_view(game, args.seat))
    print("final scores:", game.scores().tolist(), " your seat:", args.seat)
    if args.record:
        game.save_record(args.record)
    return 0


def _view(game, p) -> str:
    o = game.observation(p)
    lines = [f"round {o['round']}{' (final)' if o['final_round'] else ''}, fish left "
             f"{o['fish_left_in_deck']}, table: " + ", ".join(_fish(game, c) for c in o["table"])]
    for q in o["players"]:
        last = q["last_round"]
        lr = ""
        if last:
            lr = (f" | last round: {last['cast']['d6']}d6 {' '.join(last['cast']['special'])}"
                  f" lures {last['cast']['lures']} dice {list(last['dice'].values())}"
                  f" sum {last['sum']} caught {last['caught']}")
        you = " (you)" if q["seat"] == p else ""
        lines.append(f"  P{q['seat']}{you}: {q['fish_points']} pts, fish {q['caught']}, "
                     f"boosts {q['boosts_kept']}, lures "
                     f"{q['lures'] if q['lures'] is not None else q['n_lures']}, resting "
                     f"{q['resting']}{' roll ' + str(q['roll']) if q['roll'] else ''}{lr}")
    return "\n".join(lines)


def _fish(game, cid) -> str:
    i = game.deck.index(cid)
    req = game.deck.requirement_text(i)
    return f"{cid}({int(game.deck.catch_numbers[i])}+{' ' + req if req else ''}, " \
           f"{int(game.deck.points[i])}pt)"
