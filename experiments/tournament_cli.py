"""``boardlab tournament GAME`` and ``boardlab tune GAME AGENT`` (see
:mod:`experiments.tournament` and :mod:`experiments.tournament_tune`)."""

from __future__ import annotations

import argparse
import json

from experiments.runner import BACKENDS

GAME_CHOICES = ("rats", "recurring", "river-rats", "river_rats", "lure")


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


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument("game", choices=GAME_CHOICES, metavar="GAME",
                   help="rats, recurring, river-rats or lure")
    p.add_argument("--players", type=int, default=None,
                   help="seats per table (default: 4)")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="a rules option of the game's config (repeatable), e.g. "
                        "difficulty=expert, games_per_match=5")
    p.add_argument("--seed", type=int, default=0, help="master seed (default 0)")
    p.add_argument("--jobs", type=int, default=1, help="worker processes (-1: all cores)")
    p.add_argument("--backend", choices=BACKENDS, default="loky")
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="dask.distributed scheduler to use with --backend dask")
    p.add_argument("--batch-size", type=int, default=100,
                   help="deals per work unit (results depend on it, not on --jobs)")
    p.add_argument("--agents-dir", default=None, metavar="ROOT",
                   help="root of saved tuned agents (ROOT/GAME/agents/NAME.json; default "
                        "results or $BOARDLAB_AGENTS_DIR)")
    p.add_argument("--quiet", action="store_true", help="no progress output")


def register(sub, play) -> None:
    """Add ``tournament`` and ``tune`` to the top-level subcommands (``play`` unused)."""
    del play
    p = sub.add_parser(
        "tournament", help="round robin of bot strategies in duplicate format",
        description="Round robin of agents: every table in every seat rotation on the same "
                    "deals (River Rats: teams on identical deals); win rates, pairwise matrix, "
                    "ratings and paired tests, written as CSV + PNG + meta.json.")
    _common(p)
    p.add_argument("--agents", default=None,
                   help="comma-separated agents NAME[:PARAMS][@LABEL]; PARAMS is v1;v2;... or "
                        "key=value;...; NAME is a shipped agent or a saved tuned agent "
                        "(default: every shipped agent)")
    p.add_argument("--games", type=int, default=1000,
                   help="deals; each is played at every table in every rotation (default 1000)")
    p.add_argument("--rating-deals", type=int, default=300,
                   help="deals whose games feed the openskill ratings (default 300)")
    p.add_argument("--force", action="store_true",
                   help="overwrite an output folder that holds another tournament")
    p.add_argument("--out", default=None,
                   help="output folder (default results/GAME/tournaments/<N>p_<agents>)")
    p.set_defaults(func=_tournament)

    t = sub.add_parser(
        "tune", help="tune a heuristic's parameters against a fixed field",
        description="Random search + compass refinement of AGENT's parameter vector for the "
                    "highest win share against a fixed field, every candidate on the same "
                    "deals; saves the best as a named agent and checks it on fresh deals.")
    _common(t)
    t.add_argument("agent", metavar="AGENT", help="tunable agent, e.g. heuristic")
    t.add_argument("--field", default=None,
                   help="opponents, comma-separated (default: shipped agents except random)")
    t.add_argument("--games", type=int, default=600, help="deals per candidate (default 600)")
    t.add_argument("--random", type=int, default=24, help="random candidates (default 24)")
    t.add_argument("--refine", type=int, default=6, help="compass-search rounds (default 6)")
    t.add_argument("--params", default=None,
                   help="comma-separated parameter names to tune (default all)")
    t.add_argument("--name", default=None, help="name of the saved agent (default AGENT_tuned)")
    t.add_argument("--force", action="store_true",
                   help="overwrite a saved agent of the same name (otherwise an error)")
    t.add_argument("--validate", type=int, default=2000,
                   help="deals of the check tournament on fresh deals (0: skip; default 2000)")
    t.set_defaults(func=_tune)


def _tournament(args) -> int:
    from experiments.tournament import run_tournament
    from experiments.tournament_games import get_adapter

    ad = get_adapter(args.game)
    agents = args.agents or ",".join(ad.shipped)
    res = run_tournament(ad.name, agents, args.players, args.games, seed=args.seed,
                         options=parse_options(args.option), n_jobs=args.jobs,
                         backend=args.backend, scheduler=args.scheduler,
                         batch_size=args.batch_size, rating_deals=args.rating_deals,
                         out_dir=args.out, progress=not args.quiet, agents_root=args.agents_dir,
                         overwrite=args.force)
    print(res.summary())
    m = res.meta
    print(f"{m['games_played_this_run']} games in {m['wall_time_s']:.1f} s "
          f"({m['games_per_s']:.0f} games/s, --jobs {args.jobs}); ratings "
          f"{m['rating_time_s']:.1f} s")
    print(f"results in {m['files']['meta'].rsplit('/', 1)[0]}")
    return 0


def _tune(args) -> int:
    from experiments.tournament_games import get_adapter
    from experiments.tournament_tune import tune

    ad = get_adapter(args.game)
    params = [p for p in args.params.split(",") if p] if args.params else None
    from experiments.tournament_games import agents_dir

    target = agents_dir(ad.name, args.agents_dir) / f"{args.name or args.agent + '_tuned'}.json"
    if target.exists() and not args.force:
        raise ValueError(f"{target} exists: choose another --name, or --force to overwrite it")
    r = tune(ad.name, args.agent, field_agents=args.field, n_players=args.players,
             n_deals=args.games, n_random=args.random, refine_rounds=args.refine,
             tune_params=params, name=args.name, seed=args.seed,
             options=parse_options(args.option), n_jobs=args.jobs,
             batch_size=args.batch_size, validate_deals=args.validate,
             agents_root=args.agents_dir, progress=not args.quiet)
    print(f"{ad.title} {args.agent}: objective {r.start_objective:.4f} -> {r.best_objective:.4f} "
          f"on the tuning deals ({r.evaluations} candidates)")
    names = ad.param_names
    for i, (a, b) in enumerate(zip(r.start, r.best, strict=True)):
        mark = "" if a == b else "  *"
        print(f"  {names[i] if i < len(names) else i:<16} {a:9.4f} -> {b:9.4f}{mark}")
    print(f"saved as agent {r.name!r}: {r.path}")
    if r.validation is not None:
        print("\ncheck on fresh deals:")
        print(r.validation.summary())
    return 0
