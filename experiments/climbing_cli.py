"""``boardlab play rats``, ``boardlab play recurring`` (a person plays one seat in the terminal)
and ``boardlab climbing-winrates`` (agents' win rates with 95% Wilson intervals).

Rules: ``../shared/rules/rats.md`` and ``../shared/rules/recurring.md``. Opponents are the
compiled policies of :mod:`agents.rats` / :mod:`agents.recurring`, seeded as in ``play_batch``
so a game can be replayed from its printed JSON record.
"""

from __future__ import annotations

import builtins
import itertools

import numpy as np
import pandas as pd

_EXAMPLES = {"rats": "'lead set 7s 7h', 'lead run 5s 6s X1', 'play 7h'",
             "recurring": "'play 7-7-7', 'play R', 'pass'"}


def _help(game_name: str) -> str:
    """The prompt help of one game: action examples and the commands."""
    return (f"type an action (e.g. {_EXAMPLES[game_name]}), or its number from '?' (lists the "
            f"legal actions), 'hint' for the greedy agent's choice, 'q' to quit")


def register(sub, play) -> None:
    """Add ``play rats``, ``play recurring`` and ``climbing-winrates`` to the command line."""
    for game in ("rats", "recurring"):
        title = "Rats" if game == "rats" else "ReCURRRing"
        p = play.add_parser(game, help=f"play one seat of {title} against agents")
        p.add_argument("--players", type=int, default=4)
        p.add_argument("--seat", type=int, default=0, help="your seat (0-based)")
        p.add_argument("--opponents", default="greedy", help="random, greedy or heuristic")
        p.add_argument("--seed", type=int, default=0)
        p.add_argument("--record", default=None, help="write the game record(s) to this JSON file")
        if game == "rats":
            p.add_argument("--max-rounds", type=int, default=None,
                           help="variant: stop after K rounds")
            p.set_defaults(func=_play_rats)
        else:
            p.add_argument("--games", type=int, default=None,
                           help="games in the match (default: games_per_match = 3)")
            p.set_defaults(func=_play_recurring)
    w = sub.add_parser("climbing-winrates",
                       help="win rates of the Rats / ReCURRRing agents against each other "
                            "(95%% CI)")
    w.add_argument("game", choices=("rats", "recurring"))
    w.add_argument("--players", type=int, default=4)
    w.add_argument("--games", type=int, default=20000, help="games per (agent, opponent) pairing")
    w.add_argument("--seed", type=int, default=0)
    w.set_defaults(func=_winrates)


# ----------------------------------------------------------------------------- playing
def _human_turn(game, seat, hint_agent, rng, out, ask, game_name="rats"):
    """Ask the person for an action until one is legal; returns the action or None (quit)."""
    while True:
        try:
            text = ask(f"seat {seat}> ").strip()
        except EOFError:  # end of input: leave like 'quit'
            return None
        if text in ("q", "quit", "exit"):
            return None
        legal = game.legal_actions()
        if text in ("?", "help", ""):
            out(_help(game_name))
            for i, a in enumerate(legal[:80], 1):
                out(f"  {i:3d}. {game.action_to_string(a)}")
            if len(legal) > 80:
                out(f"  ... {len(legal) - 80} more (type the action)")
            continue
        if text == "hint":
            out(f"hint: {game.action_to_string(hint_agent(game, rng.copy()))}")
            continue
        if text.isdigit() and 1 <= int(text) <= len(legal):
            return int(legal[int(text) - 1])
        try:
            probe = game.clone()
            probe.apply_action(text)
            return probe.history[-1]
        except ValueError as exc:
            out(f"not legal: {exc}")


def _seats_and_agents(args, mod, n):
    if not 0 <= args.seat < n:
        raise ValueError(f"--seat {args.seat} out of range: expected 0..{n - 1}")
    agents = [mod.make_agent(args.opponents) for _ in range(n)]
    return agents, mod.make_agent("greedy")


def _play_one(game, args, agents, hint, out, ask):
    """Play one game with the person at ``args.seat``; returns False if they quit."""
    from engines.splitmix import seat_streams, seed_word

    rngs = seat_streams(np.int64(seed_word(game.seed, game.game_index)), game.n_players)
    while not game.is_terminal():
        p = game.current_player()
        if p == args.seat:
            out("")
            out(_view(game, p))
            name = "recurring" if "Recurring" in type(game).__name__ else "rats"
            a = _human_turn(game, p, hint, rngs[p:p + 1], out, ask, name)
            if a is None:
                return False
        else:
            a = agents[p](game, rngs[p:p + 1])
            out(f"seat {p}: {game.action_to_string(a)}")
        game.apply_action(a)
    return True


def _view(game, p):
    obs = game.observation(p)
    if "kitty_size" in obs:  # Rats
        from engines import cards

        table = "; ".join(f"seat {q}: {cards.format(c)}" for q, c in enumerate(obs["table"]) if c)
        hand = cards.format(sorted(obs["hand"], key=lambda c: (c & 3, c)))
        return (f"round {obs['round']} | your hand: {hand}"
                f"\ntable: {table or '(you lead)'} | captured sizes {obs['captured_sizes']}"
                f" | alive {[int(a) for a in obs['alive']]}")
    hand = " ".join(f"{k}x{c}" for k, c in obs["hand"].items())
    t = obs["table"]
    return (f"round {obs['round']}{' (final)' if obs['final_round'] else ''} | your hand: {hand}"
            f"\ntable: {t[0] + ' by seat ' + str(t[1]) if t else '(you open with one card)'}"
            f" | hand sizes {obs['hand_sizes']}")


def _play_rats(args, out=print, ask=None) -> int:
    import json

    from agents import rats as mod
    from engines.rats import RatsConfig, new_game

    ask = ask or builtins.input
    cfg = RatsConfig(n_players=args.players, max_rounds=args.max_rounds)
    agents, hint = _seats_and_agents(args, mod, cfg.n_players)
    game = new_game(cfg, args.seed)
    out(f"Rats, {cfg.n_players} players, you are seat {args.seat}. {_help('rats')}")
    if not _play_one(game, args, agents, hint, out, ask):
        out("quit.")
        return 0
    out(str(game))
    won = game.returns()[args.seat]
    out("you win!" if won == 1 else ("you share the win." if won > 0 else "you lose."))
    if args.record:
        with open(args.record, "w") as f:
            json.dump(game.to_record(), f)
    return 0


def _play_recurring(args, out=print, ask=None) -> int:
    import json

    from agents import recurring as mod
    from engines.recurring import RecurringConfig, new_game

    ask = ask or builtins.input
    cfg = RecurringConfig(n_players=args.players)
    n_games = args.games or cfg.games_per_match
    agents, hint = _seats_and_agents(args, mod, cfg.n_players)
    totals = np.zeros(cfg.n_players)
    records = []
    out(f"ReCURRRing, {cfg.n_players} players, {n_games} games, you are seat {args.seat}. "
        f"{_help('recurring')}")
    for i in range(n_games):
        game = new_game(cfg, args.seed, game_index=i)
        out(f"--- game {i + 1} of {n_games}")
        if not _play_one(game, args, agents, hint, out, ask):
            out("quit.")
            return 0
        out(str(game))
        totals += game.returns()
        records.append(game.to_record())
        out(f"totals after game {i + 1}: {totals.astype(int).tolist()}")
    best = totals.max()
    winners = [p for p in range(cfg.n_players) if totals[p] == best]
    you = " -- that includes you!" if args.seat in winners else ""
    out(f"match winner(s): seats {winners}{you}")
    if args.record:
        with open(args.record, "w") as f:
            json.dump(records, f)
    return 0


# ----------------------------------------------------------------------------- win rates
AGENTS = ("random", "greedy", "heuristic")


def winrate_table(game: str, n_players: int, n_games: int, seed: int = 0) -> pd.DataFrame:
    """Win rate of each agent in one seat against ``n_players - 1`` copies of each agent.

    The agent under test sits in every seat in turn (``n_games // n_players`` games per seat,
    seeds ``seed + seat``), so seat effects cancel. Rats: a game's win share; ReCURRRing: a
    3-game match's win share (``n_games`` games = ``n_games // 3`` matches). Returns columns
    ``agent, opponents, trials, win_rate, ci_low, ci_high, fair_share`` with 95% Wilson
    intervals (:func:`experiments.stats.wilson_interval`). Raises ``ValueError`` for an unknown
    game or too few games.
    """
    from experiments.stats import wilson_interval

    if game == "rats":
        from engines.rats import RatsConfig, play_batch

        cfg = RatsConfig(n_players=n_players)
    elif game == "recurring":
        from engines.recurring import RecurringConfig, match_results, play_batch

        cfg = RecurringConfig(n_players=n_players)
    else:
        raise ValueError(f"game {game!r}: expected 'rats' or 'recurring'")
    per_seat = n_games // n_players
    if game == "recurring":
        per_seat -= per_seat % cfg.games_per_match
    if per_seat < 1:
        raise ValueError(f"--games {n_games} is too few for {n_players} seats")
    rows = []
    for agent, opp in itertools.product(AGENTS, AGENTS):
        wins = 0.0
        trials = 0
        for seat in range(n_players):
            pol = [opp] * n_players
            pol[seat] = agent
            df = play_batch(cfg, pol, per_seat, seed=seed + seat)
            if game == "recurring":
                df = match_results(df, cfg)
            wins += float(df[f"win_{seat}"].sum())
            trials += len(df)
        lo, hi = wilson_interval(wins, trials)
        rows.append({"agent": agent, "opponents": opp, "trials": trials,
                     "win_rate": wins / trials, "ci_low": float(lo), "ci_high": float(hi),
                     "fair_share": 1.0 / n_players})
    return pd.DataFrame(rows)


def _winrates(args, out=print) -> int:
    df = winrate_table(args.game, args.players, args.games, args.seed)
    unit = "games" if args.game == "rats" else "3-game matches"
    out(f"{args.game}, {args.players} players: win rate of one agent against "
        f"{args.players - 1} copies of the opponent ({unit}, 95% Wilson interval)")
    out(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    return 0
