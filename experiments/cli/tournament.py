"""``boardlab tournament GAME``, ``boardlab tune GAME AGENT`` and ``boardlab winrates GAME``
(see :mod:`experiments.tournament`)."""

from __future__ import annotations

import argparse
import json

from engines.names import GAME_NAMES
from experiments.cli import QUIET_HELP, GameChoices, output_folder, worker_count
from experiments.cli.agent_names import agents_help
from experiments.options import BACKENDS

GAME_CHOICES = GameChoices(GAME_NAMES)
DEFAULT_FIELD_HELP = ("the shipped agents that neither search nor see hidden cards, the "
                      "learned net included, and net-search-fast, the search guided by net: "
                      "the strong player to compare bots with; other search presets and the "
                      "hidden-card viewers (peek) only when named")
"""What ``--agents`` defaults to in ``tournament`` and ``winrates`` (the help's words for
:meth:`experiments.tournament.games.GameAdapter.standard_agents`)."""
SEARCH_SIZE_HELP = ("fewer when the field includes a search agent, which plays a few to a few "
                    "hundred games/s per seat against thousands: as many as fit about 10 "
                    "minutes of one core at the speeds measured in "
                    "benchmarks/results/strength_speed.csv, in steps of 50, at least 100")
"""How ``--games`` shrinks for a field with search agents
(:func:`experiments.tournament.cost.tournament_defaults`)."""


def parse_options(items) -> dict:
    """``KEY=VALUE`` strings -> config options; a value is read as JSON when it parses
    (``true``, ``3``, ``["D","S"]``), else kept as text. Raises ``ValueError`` without ``=``."""
    out = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"--option {item!r}: expected KEY=VALUE, e.g. difficulty=expert")
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def _common(p: argparse.ArgumentParser, batch_default: str = "100") -> None:
    p.add_argument("game", choices=GAME_CHOICES, metavar="GAME",
                   help=", ".join(g.replace("_", "-") for g in GAME_NAMES))
    p.add_argument("--players", type=int, default=None,
                   help="seats per table (default: the game's default, 4 for the four "
                        "board games)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a rules option of the game's config (repeatable), e.g. "
                        "difficulty=expert, games_per_match=5")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--jobs", type=worker_count, default=1,
                   help="worker processes (-1: all cores)")
    p.add_argument("--backend", choices=BACKENDS, default="loky")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="dask.distributed scheduler to use with --backend dask")
    p.add_argument("--batch-size", type=int, default=None,
                   help="deals per work unit (results depend on it, not on --jobs; default "
                        f"{batch_default})")
    p.add_argument("--agents-dir", default=None, metavar="ROOT",
                   help="agent store: tuned agents are saved in and looked up from "
                        "ROOT/GAME/agents/NAME.json, then the repository's committed "
                        "results/GAME/agents (default $BOARDLAB_AGENTS_DIR, else "
                        "~/.local/share/boardlab)")
    p.add_argument("--quiet", action="store_true", help=QUIET_HELP)


def register(sub) -> None:
    """Add ``tournament``, ``tune`` and ``winrates`` to the top-level subcommands."""
    p = sub.add_parser(
        "tournament", help="round robin of bot strategies in duplicate format",
        epilog=agents_help() + ".",
        description="Round robin of agents: every table in every seat rotation on the same "
                    "deals (River Rats: teams on identical deals); win rates, pairwise matrix, "
                    "ratings and paired tests, written as CSV + PNG + meta.json.")
    _common(p, "100, 10 when the field includes a search agent")
    p.add_argument("--agents", default=None,
                   help="comma-separated agents NAME[:PARAMS][@LABEL]; PARAMS is v1;v2;... or "
                        "key=value;...; NAME is a shipped agent or a saved tuned agent "
                        f"(default: {DEFAULT_FIELD_HELP})")
    p.add_argument("--games", type=int, default=None,
                   help="deals; each is played at every table in every rotation (default "
                        f"1000; {SEARCH_SIZE_HELP}; the run starts by printing the number "
                        "and its estimated time)")
    p.add_argument("--rating-deals", type=int, default=None,
                   help="deals whose games feed the openskill ratings, replayed in one "
                        "process (default 300, at most --games; a fifth of --games when the "
                        "field includes a search agent)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an output folder that holds another tournament")
    p.add_argument("--out", default=None,
                   type=output_folder,
                   help="output folder (default ROOT/GAME/tournaments/<N>p_<agents> in the "
                        "agent store, ROOT as for --agents-dir: outside the clone)")
    p.set_defaults(func=_tournament)

    t = sub.add_parser(
        "tune", help="tune an agent's parameters against a fixed field (optuna)",
        epilog=agents_help() + ".",
        description="Tune AGENT's parameter vector with optuna (TPE, CMA-ES or random search) "
                    "for the highest mean win share against a fixed field in duplicate "
                    "format, every trial on the same deals; the study is stored in the output "
                    "folder (a killed run continues it; a finished one answers from it); "
                    "checks the best against its start on fresh deals and saves it as a named "
                    "agent in the agent store only when the gain there is significant.")
    _common(t)
    t.add_argument("agent", metavar="AGENT",
                   help="agent to tune: heuristic, a search agent (pimc, ismcts, ...) or a "
                        "saved agent")
    t.add_argument("--field", default=None,
                   help="opponents, comma-separated NAME[:PARAMS][@LABEL] (default: the "
                        "shipped agents that neither search nor see hidden cards, net "
                        "included, except random: tournament's default field without its "
                        "search agent, which would make each trial minutes long)")
    t.add_argument("--games", type=int, default=600,
                   help="deals per trial, the same for every trial (default 600)")
    t.add_argument("--trials", type=int, default=40,
                   help="complete trials wanted in the study, the start included (default 40)")
    t.add_argument("--sampler", choices=("tpe", "cmaes", "random"), default="tpe",
                   help="optuna sampler: tpe (default), cmaes (local, from the start) or "
                        "random")
    t.add_argument("--params", default=None,
                   help="comma-separated parameter names to tune (default: the agent's "
                        "default set)")
    t.add_argument("--bounds", default=None, metavar="NAME=LO:HI,...",
                   help="ranges overriding the defaults, e.g. pass_bias=-8:0,empties=2:6")
    t.add_argument("--name", default=None, help="name of the saved agent (default AGENT_tuned)")
    t.add_argument("--validate", type=int, default=2000,
                   help="fresh deals of the check against the start (0: skip, and save only "
                        "with --save-anyway; default 2000)")
    t.add_argument("--save-anyway", action="store_true",
                   help="save the agent in the store even when its gain on fresh deals is "
                        "not significant (also after a finished study)")
    t.add_argument("--out", default=None,
                   type=output_folder,
                   help="output folder (default ROOT/GAME/tuning/NAME in the agent store; "
                        "the best vector is always in OUT/agent.json)")
    t.add_argument("--force", action="store_true",
                   help="start the study over, replacing the folder's results and a saved "
                        "agent of the same name")
    t.add_argument("--random", type=int, default=None, help=argparse.SUPPRESS)
    t.add_argument("--refine", type=int, default=None, help=argparse.SUPPRESS)
    t.set_defaults(func=_tune)

    w = sub.add_parser(
        "winrates", help="each agent's win rate with a 95%% interval at several player counts",
        epilog=agents_help() + ".",
        description="The agent win-rate table of a game: River Rats teams on the same game "
                    "seeds; competitive games by a duplicate tournament per player count.")
    w.add_argument("game", choices=GAME_CHOICES, metavar="GAME",
                   help=", ".join(g.replace("_", "-") for g in GAME_NAMES))
    w.add_argument("--agents", default=None,
                   help=f"comma-separated agents (default: {DEFAULT_FIELD_HELP})")
    w.add_argument("--players", default=None,
                   help="player counts, e.g. 4, 1..4 or 2,4 (default: all of the game's)")
    w.add_argument("--games", type=int, default=None,
                   help="games per agent and player count (River Rats) or deals per player "
                        f"count (default 20000; {SEARCH_SIZE_HELP} over all the player "
                        "counts; the run starts by printing the number and its estimated "
                        "time)")
    w.add_argument("--option", action="append", default=[], metavar="KEY=VALUE")
    w.add_argument("--seed", type=int, default=2026)
    w.add_argument("--jobs", type=worker_count, default=1,
                help="worker processes (-1: all cores)")
    w.add_argument("--csv", default=None, metavar="PATH", help="also write the table as CSV")
    w.add_argument("--force", action="store_true", help="replace the --csv file if it exists")
    w.add_argument("--quiet", action="store_true", help=QUIET_HELP)
    w.set_defaults(func=_winrates)


def agents_option(text: str | None, adapter) -> str:
    """``--agents`` of ``tournament``/``winrates``: the text as given, or the game's standard
    field when the option is left out. Raises ``ValueError`` when it is given but names no
    agent (``--agents ""`` or ``--agents ,``)."""
    if text is None:
        return ",".join(adapter.standard_agents())
    if not text.replace(",", "").strip():
        raise ValueError(f"bad --agents {text!r}: expected comma-separated agent names, e.g. "
                         f"{','.join(adapter.standard_agents()[:2])}; leave the option out for "
                         "the standard field")
    return text


def _winrates(args) -> int:
    from experiments.cli import parse_player_counts
    from experiments.tournament.cost import (
        DEFAULT_BATCH,
        NO_ESTIMATE,
        format_duration,
        wall_seconds,
        winrates_defaults,
    )
    from experiments.tournament.games import get_adapter, parse_agents
    from experiments.tournament.winrates import format_winrates, winrates

    from experiments.io import atomic_write_text
    from experiments.outputs import claim_file

    ad = get_adapter(args.game)
    lo, hi = ad.players[0], ad.players[-1]
    players = parse_player_counts(args.players or f"{lo}..{hi}", lo, hi, ad.title)
    if args.csv:
        claim_file(args.csv, "--csv", args.force)
    options = parse_options(args.option)
    agents = agents_option(args.agents, ad)
    sizes = winrates_defaults(ad.name, parse_agents(agents, ad), players, options)
    games = sizes.deals if args.games is None else args.games
    batch = sizes.batch_size if sizes.search else DEFAULT_BATCH
    if isinstance(games, int) and games >= 2:
        what = "games per agent" if ad.cooperative else "deals"
        note = (sizes.note(what) if args.games is None else f"{games} {what}")
        play_s = sizes.play_s * games / max(sizes.deals, 1)
        units = 1 if ad.cooperative else -(-games // batch) * len(players)
        jobs = 1 if ad.cooperative else args.jobs
        estimate = NO_ESTIMATE if play_s != play_s else (
            f"estimated {format_duration(play_s)} of one core, about "
            f"{format_duration(wall_seconds(play_s, 0.0, jobs, units))} with --jobs {jobs}"
            f"{' (River Rats plays in one process)' if ad.cooperative else ''}")
        print(f"playing {note} per player count ({', '.join(map(str, players))}): {estimate}",
              flush=True)
    df = winrates(ad.name, agents, players, games, seed=args.seed, n_jobs=args.jobs,
                  options=options, progress=not args.quiet, batch_size=batch)
    print(format_winrates(df))
    if args.csv:
        atomic_write_text(args.csv, df.to_csv(index=False))
        print(f"table written to {args.csv}")
    return 0


def start_line(tour, settings: dict, sizes, n_jobs: int, defaulted: bool) -> str:
    """The line ``boardlab tournament`` prints before it plays: deals (and why, when
    ``defaulted`` and the field searches), games per deal, rated deals, and the estimated time
    on one core and with ``n_jobs`` workers (:mod:`experiments.tournament.cost`; ``sizes`` is
    :func:`~experiments.tournament.cost.tournament_defaults` of ``tour``)."""
    import math

    from experiments.tournament.cost import (
        NO_ESTIMATE,
        deal_seconds,
        format_duration,
        wall_seconds,
    )
    from experiments.tournament.run import seatings

    deals, rating = int(settings["deals"]), int(settings["rating_deals"])
    per = deal_seconds(tour)
    coop = tour.adapter.cooperative
    rot = len(seatings(tour.tables[0], coop)) if tour.tables else 1
    g = tour.deal_games()
    units = -(-deals // int(settings["batch_size"]))
    what = sizes.note() if defaulted else f"{deals} deals"
    k = len(tour.tables)
    estimate = NO_ESTIMATE if math.isnan(per) else (
        f"estimated {format_duration(per * (deals + rating))} of one core, about "
        f"{format_duration(wall_seconds(per * deals, per * rating, n_jobs, units))} with "
        f"--jobs {n_jobs} (the ratings replay in one process)")
    return (f"playing {what}, {tour.games_per_deal_total()} games each ({k} "
            f"{'team' if coop else 'table'}{'s' if k > 1 else ''}"
            + ("" if coop else f" x {rot} rotations")
            + (f" x {g} games per match" if g > 1 else "") + "), "
            + (f"the first {rating} rated" if rating else "no ratings") + f": {estimate}")


def speed_line(meta: dict, n_jobs: int) -> str:
    """The speed line of ``boardlab tournament`` from a tournament's ``meta``: the games of this
    run over the seconds of play, which exclude compilation (the runner compiles, or loads
    from the cache, before the clock starts: :class:`experiments.runner.RunResult`), then the
    seconds spent before the play (starting workers, compiling) and on the ratings, so that
    every figure is what it says."""
    games, play = meta["games_played_this_run"], meta.get("play_time_s", meta["wall_time_s"])
    setup = meta.get("setup_time_s") or 0.0
    rate = f"{games / play:,.0f} games/s" if play > 0 else "too fast to time"
    return (f"{games:,} games in {play:.1f} s of play ({rate}, --jobs {n_jobs}; compilation "
            f"excluded); before the play {setup:.1f} s starting workers and compiling or "
            f"loading the kernels; ratings {meta['rating_time_s']:.1f} s")


def _tournament(args) -> int:
    from experiments.tournament.cost import tournament_defaults
    from experiments.tournament.games import get_adapter, parse_agents
    from experiments.tournament.run import Tournament, run_tournament

    ad = get_adapter(args.game)
    agents = agents_option(args.agents, ad)
    options = parse_options(args.option)
    n_players = ad.default_players if args.players is None else args.players
    sizes = tournament_defaults(Tournament(ad.name, n_players,
                                           parse_agents(agents, ad, args.agents_dir), options))
    games = sizes.deals if args.games is None else args.games
    rating = args.rating_deals
    if rating is None:
        rating = (sizes.rating_deals if args.games is None else
                  games // 5 if sizes.search else sizes.rating_deals)
    batch = sizes.batch_size if args.batch_size is None else args.batch_size

    def announce(tour, settings):
        print(start_line(tour, settings, sizes, args.jobs, args.games is None), flush=True)

    res = run_tournament(ad.name, agents, n_players, games, seed=args.seed,
                         options=options, n_jobs=args.jobs,
                         backend=args.backend, scheduler=args.scheduler,
                         batch_size=batch, rating_deals=rating,
                         out_dir=args.out, progress=not args.quiet, agents_root=args.agents_dir,
                         overwrite=args.force, on_start=announce)
    print(res.summary())
    m = res.meta
    if m.get("answered_from"):
        print(f"answered from the finished tournament in {m['answered_from']}/: nothing was "
              "played; add --force to play it again")
        return 0
    if m["games_played_this_run"]:
        print(speed_line(m, args.jobs))
    else:
        print(f"no games left to play: every deal was played by an earlier run of the same "
              f"tournament; ratings {m['rating_time_s']:.1f} s")
    print(f"results in {m['files']['meta'].rsplit('/', 1)[0]}")
    return 0


def _tune(args) -> int:
    import sys

    from experiments.tournament.games import get_adapter
    from experiments.tournament.tune import parse_bounds, tune

    ad = get_adapter(args.game)
    trials = args.trials
    if args.random is not None or args.refine is not None:
        # the options of the former random + compass search, kept so that old command lines
        # run: one trial per former candidate round
        trials = 1 + (args.random or 0) + (args.refine or 0)
        print(f"boardlab tune: --random/--refine are deprecated: running --trials {trials} "
              f"(use --trials)", file=sys.stderr)
    batch = 100 if args.batch_size is None else args.batch_size
    for opt, value, low in (("--trials", trials, 1), ("--games", args.games, 2),
                            ("--batch-size", batch, 1)):
        if value < low:
            raise ValueError(f"{opt} {value}: expected an integer >= {low}")
    if args.validate != 0 and args.validate < 2:
        raise ValueError(f"--validate {args.validate}: expected 0 (skip) or at least 2 deals")
    params = [p for p in args.params.split(",") if p.strip()] if args.params else None
    if args.params is not None and not params:
        raise ValueError("--params is empty: expected names such as pass_bias,empties")
    r = tune(ad.name, args.agent, field_agents=args.field, n_players=args.players,
             n_deals=args.games, n_trials=trials, tune_params=params,
             bounds=parse_bounds(args.bounds), sampler=args.sampler, name=args.name,
             seed=args.seed, options=parse_options(args.option), n_jobs=args.jobs,
             batch_size=batch, validate_deals=args.validate,
             agents_root=args.agents_dir, out_dir=args.out, progress=not args.quiet,
             overwrite=args.force, backend=args.backend, scheduler=args.scheduler,
             save_anyway=args.save_anyway)
    print(r.summary())
    if r.saved:
        print(f"saved as agent {r.name!r} ({r.save_note}): {r.path}")
    else:
        print(f"agent {r.name!r} {r.save_note}")
    if r.answered_from:
        print(f"answered from the finished study in {r.answered_from}: nothing was played; "
              f"add --force to run it again")
        return 0
    pics = "objective.png" + ("" if r.importances_note else ", importances.png")
    print(f"study, trials.csv, {pics}, agent.json, meta.json in {r.out_dir} "
          f"({r.wall_time_s:.1f} s, --jobs {args.jobs})")
    return 0
