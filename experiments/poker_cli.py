"""``boardlab poker``: evaluate poker hands from text (see :mod:`engines.poker`)."""

from __future__ import annotations

import argparse


def register(sub, play) -> None:
    """Add ``boardlab poker`` to the command line (``sub``: the top-level subparsers)."""
    p = sub.add_parser("poker", help="evaluate poker hands given as text")
    p.add_argument("hands", nargs="+",
                   help='hands such as "Ah Kh Qh Jh Th 2c 3d" (one per argument)')
    p.add_argument("--rules", choices=("standard", "river_rats"), default="standard")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from engines import cards, poker

    for text in args.hands:
        ids = cards.parse(text)
        strength = int(poker.evaluate(ids[None, :], rules=args.rules)[0])
        cat = poker.CATEGORY_NAMES[int(poker.hand_category(strength))]
        five = cards.format(poker.best_five(ids, rules=args.rules))
        print(f"{text}: {cat} ({five}), strength {strength}")
    return 0
