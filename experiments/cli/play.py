"""``boardlab play GAME``: a person plays one seat of any of the four games in the terminal,
compiled bots play the others. One convention for every game: the legal actions are listed
numbered from 1; type a number, an action's text or a short form (``"7h"``, ``"deck"``,
``"pass"``, a whole Rats lead ``"lead set 7s 7h"`` or Lure cast ``"cast 3d6 d12"``), ``?`` or
``help`` for the legal actions with their meaning and a one-screen summary of the rules,
``hint`` for what a bot would do, ``q`` to quit. Every game ends on the same screen: the
table, each seat's result, and the record (``--record``) that
:func:`engines.protocol.replay` replays."""

from __future__ import annotations

import argparse
import sys

__all__ = ["register", "run", "play_session", "bots_text", "events"]


def register(sub) -> None:
    """Add ``boardlab play GAME``."""
    from engines.names import GAME_NAMES
    from experiments.cli import GameChoices
    from experiments.cli.agent_names import agents_help

    p = sub.add_parser("play", help="play one seat of a game in the terminal against bots",
                       description=__doc__.split("\n\n")[0], epilog=agents_help() + ".")
    p.add_argument("game", metavar="GAME", choices=GameChoices(GAME_NAMES),
                   help=", ".join(g.replace("_", "-") for g in GAME_NAMES))
    p.add_argument("--players", type=int, default=None,
                   help="number of players (default: the game's usual count)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--bots", default=None,
                   help="policy of the other seats (one name, or one per seat separated by "
                        "commas; default the game's best heuristic)")
    p.add_argument("--hint", default=None, help="policy asked by 'hint' (default as --bots)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a rules option of the game's config (repeatable), e.g. "
                        "difficulty=expert")
    p.add_argument("--seed", type=int, default=None, help="seed of the first game (default: "
                   "random; printed so the game can be replayed)")
    p.add_argument("--games", type=int, default=None,
                   help="games to play (default 1; ReCURRRing: a match of games_per_match)")
    p.add_argument("--record", default=None, metavar="PATH",
                   help="write the game record(s) (JSON) here at the end")
    p.set_defaults(func=run)


def _default_players(game: str) -> int:
    from engines.names import describe

    return describe(game).play_players


def _default_bot(game: str) -> str:
    return "heuristic"


def run(args: argparse.Namespace, stdin=None, stdout=None) -> int:
    """Play the session described by ``args``; returns the exit status (0; 130 after Ctrl-C).
    Raises ``ValueError`` (one line, naming the option) for bad options."""
    from experiments.cli.tournament import parse_options

    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    try:
        return play_session(args.game, players=args.players, seat=args.seat, bots=args.bots,
                            hint=args.hint, options=parse_options(args.option), seed=args.seed,
                            games=args.games, record=args.record, stdin=inp, stdout=out)
    except KeyboardInterrupt:
        print("\ninterrupted: the game was not finished (no record written)", file=out)
        return 130


def play_session(game, *, players=None, seat=0, bots=None, hint=None, options=None, seed=None,
                 games=None, record=None, stdin=None, stdout=None) -> int:
    """The interactive loop (see the module docstring); ``stdin``/``stdout`` are text streams.
    Returns 0 (also when the person quits). Raises ``ValueError`` for bad options."""
    import numpy as np

    from agents.policy import Agent, get_spec
    from engines.protocol import chance
    from engines.names import describe
    from engines.protocol import game_class, normalize_game_name

    game = normalize_game_name(game)
    cls = game_class(game)
    inp = stdin or sys.stdin
    out = stdout or sys.stdout
    n = _default_players(game) if players is None else players
    opts = dict(options or {})
    for k, v in opts.items():
        if isinstance(v, list):
            opts[k] = tuple(v)
    try:
        cfg = cls.config_class(n_players=n, **opts)
    except TypeError as exc:
        raise ValueError(f"bad --option: {exc}") from None
    if isinstance(seat, bool) or not 0 <= seat < cfg.n_players:
        raise ValueError(f"bad --seat {seat}: expected 0..{cfg.n_players - 1}")
    names = (bots or _default_bot(game)).split(",")
    if len(names) not in (1, cfg.n_players):
        raise ValueError(f"bad --bots {bots!r}: expected one name or {cfg.n_players} names "
                         f"(one per seat)")
    names = names * cfg.n_players if len(names) == 1 else names
    for nm in names:
        get_spec(game, nm.strip())
    agents = [Agent(game, nm.strip()) for nm in names]
    hint_agent = Agent(game, (hint or names[0]).strip())
    match_field = describe(game).match_games_field
    n_games = games if games is not None else (
        int(getattr(cfg, match_field)) if match_field else 1)
    if isinstance(n_games, bool) or not isinstance(n_games, int) or n_games < 1:
        raise ValueError(f"bad --games {games!r}: expected an integer >= 1")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**63)
    chance.check_seed(seed, "--seed")
    if record:  # before the game, not after it: a path that cannot be written loses nothing
        import os

        folder = os.path.dirname(os.path.abspath(record))
        if os.path.isdir(record) or not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            raise ValueError(f"bad --record {record!r}: expected a file path in an existing, "
                             f"writable folder")

    def say(text=""):
        print(text, file=out)

    from experiments import notes

    warm_up(game, cls, cfg, sorted({nm.strip() for nm in names} | {(hint or names[0]).strip()}))
    quiet_before = notes.is_quiet()
    notes.set_quiet(True)  # from here on the screen is the game's: no note inside it
    try:
        return _session(cls, cfg, seat, names, agents, hint_agent, n_games, seed, record, say,
                        inp, out)
    finally:
        notes.set_quiet(quiet_before)


def warm_up(game: str, cls, cfg, bot_names) -> None:
    """Compile (or load from the cache) everything a session calls before its first line is
    shown, so that the note "compiling the game kernels ..." (:mod:`experiments.notes`) comes
    before the game and never inside its display: a throwaway game of ``cls`` under ``cfg``
    (seed 0, the first legal action each time) through the calls the display makes (table,
    action texts, news, returns, outcome), and one decision of a fresh copy of each bot in
    ``bot_names`` on its first state (the session's own bots are untouched: the same seed
    plays the same game)."""
    from agents.policy import Agent

    st = cls(cfg, 0)
    for name in bot_names:
        Agent(game, name)(st.clone())
    steps = 0
    while not st.is_terminal() and steps < 10_000:
        p = st.current_player()
        legal = st.legal_actions()
        st.table(viewer=p)
        st.action_to_string(legal[0])
        int(st.core.observed_action(st.state, legal[0], p))
        st.apply_action(legal[0])
        if hasattr(st, "news"):
            st.news(p)
        steps += 1
    st.table(None)
    st.returns()
    st.outcome()


def _session(cls, cfg, seat, names, agents, hint_agent, n_games, seed, record, say, inp,
             out) -> int:
    """The games of a session after the checks and the warm-up of :func:`play_session`."""
    import json

    import numpy as np

    from engines.protocol import chance

    title = cls(cfg, 0).title
    say(f"{title}, {cfg.n_players} players: you are seat {seat}; "
        f"{bots_text(names, seat)}. Type ? for help, q to quit.")
    records, totals = [], np.zeros(cfg.n_players)
    for gi in range(n_games):
        gseed = seed if gi == 0 else chance.word_to_seed(chance.game_seed(chance.as_word(seed),
                                                                          gi - 1))
        st = cls(cfg, gseed)
        if n_games > 1:
            say(f"\n=== game {gi + 1} of {n_games} (seed {gseed}) ===")
        else:
            say(f"seed {gseed}")
        if not _play_one(st, seat, agents, names, hint_agent, say, inp, out):
            say("\nbye (the game was not finished)")
            return 0
        say("")
        say(st.table(None))
        r = st.returns()
        totals += r
        say("game over: " + ", ".join(f"seat {q}{' (you)' if q == seat else ''} {r[q]:g}"
                                       for q in range(cfg.n_players)))
        o = st.outcome()
        extra = {k: o[k] for k in ("rounds", "decisions", "n_actions") if k in o}
        if extra:
            say("  " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in extra.items()))
        records.append(st.record())
    if n_games > 1:
        say("totals: " + ", ".join(f"seat {q}{' (you)' if q == seat else ''} {totals[q]:g}"
                                   for q in range(cfg.n_players)))
    if record:
        from pathlib import Path

        data = records[0] if len(records) == 1 else {"records": records}
        Path(record).write_text(json.dumps(data, indent=1, ensure_ascii=False))
        say(f"record written to {record}")
    return 0


def bots_text(names: list[str], seat: int) -> str:
    """The header's bot list: one entry per bot seat (the person's seat left out), e.g.
    ``"bots: seat 1 heuristic, seat 2 greedy"``; ``names`` has one policy name per seat."""
    bots = [f"seat {q} {nm.strip()}" for q, nm in enumerate(names) if q != seat]
    return f"bot{'s' if len(bots) != 1 else ''}: " + ", ".join(bots)


def events(game: str, before, st, action: int, names: list[str], seat: int) -> list[str]:
    """Lines on what an action resolved that the table no longer shows: who took a Rats trick
    (and its cards), the kitty and who was eliminated at a Rats round's end, who won a
    ReCURRRing round (the others passed) and where its cards went, who caught what in a Lure
    round. ``before`` is the state array (1-D, the game's layout) before ``action``, ``st`` the
    game after it; ``names`` the policy of each seat, ``seat`` the person's. Empty for other
    actions (River Rats reports its resolutions through the game's ``news``)."""
    def who(q: int) -> str:
        return f"seat {q} (you)" if q == seat else f"seat {q} ({names[q].strip()})"

    return st.events(before, action, who)


def _play_one(st, seat, agents, names, hint_agent, say, inp, out) -> bool:
    """Play one game; False if the person quit."""
    game = st.core.GAME_NAME if hasattr(st.core, "GAME_NAME") else ""

    def apply(a):
        before = st.state.copy()
        st.apply_action(a)
        for line in events(game, before, st, a, names, seat):
            say(line)

    while not st.is_terminal():
        p = st.current_player()
        if p == seat:
            say("")
            say(st.table(viewer=seat))
            actions = _ask(st, hint_agent, say, inp, out)
            if actions is None:
                return False
            for a in actions:
                apply(a)
        else:
            a = agents[p](st)
            seen = int(st.core.observed_action(st.state, a, seat))
            text = st.action_to_string(a) if seen == a else "decides in secret"
            say(f"  seat {p} ({names[p]}): {text}")
            apply(a)
        for line in st.news(seat) if hasattr(st, "news") else ():
            say(line)
    return True


def _ask(st, hint_agent, say, inp, out):
    """Read the person's move: a list of actions, or None to quit."""
    legal = st.legal_actions()
    texts = [st.action_to_string(a) for a in legal]
    for i, t in enumerate(texts[:40], 1):
        say(f"  {i:3d}. {t}")
    if len(texts) > 40:
        say(f"  ... and {len(texts) - 40} more ('?' lists them all)")
    while True:
        out.write("your move> ")
        out.flush()
        line = inp.readline()
        if not line:
            return None
        t = line.strip()
        if t.lower() in ("q", "quit", "exit"):
            return None
        if t.lower() in ("?", "help", ""):
            say(st.rules_summary)
            for i, x in enumerate(texts, 1):
                say(f"  {i:3d}. {x}")
            continue
        if t.lower() == "hint":
            probe = st.clone()
            say(f"  hint: {st.action_to_string(hint_agent(probe))}")
            continue
        if t.isdigit():
            k = int(t)
            if 1 <= k <= len(legal):
                return [legal[k - 1]]
            say(f"  no action {k}: type 1..{len(legal)}")
            continue
        try:
            return [st.string_to_action(t)]
        except ValueError as exc:
            first = str(exc)
        parse = getattr(st, "parse_move", None)
        if parse is not None:
            try:
                return list(parse(t))
            except ValueError as exc:
                if t.split()[0].lower() in ("cast", "adjust", "lead"):
                    first = str(exc)  # a whole move: its own error says what is wrong
        say(f"  {first}")
