"""``boardlab poker``: evaluate poker hands from text (see :mod:`engines.poker`)."""

from __future__ import annotations

import argparse


def register(sub) -> None:
    """Add ``boardlab poker`` to the command line (``sub``: the top-level subparsers)."""
    p = sub.add_parser("poker", help="evaluate poker hands given as text")
    p.add_argument("hands", nargs="+",
                   help='hands such as "Ah Kh Qh Jh Th 2c 3d" (one per argument)')
    p.add_argument("--rules", choices=("standard", "river_rats"), default="standard")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from engines import cards, poker

    for i, text in enumerate(args.hands, 1):
        ids = cards.parse(text)
        try:
            strength = int(poker.evaluate(ids[None, :], rules=args.rules)[0])
        except ValueError as exc:  # name the argument, not the batch row
            reason = str(exc).split(": ", 1)[-1]
            raise ValueError(f"hand {i} ({text!r}): {reason}") from None
        cat = poker.CATEGORY_NAMES[int(poker.hand_category(strength))]
        five = cards.format(poker.best_five(ids, rules=args.rules))
        print(f"{text}: {cat} ({five}), strength {strength}")
    return 0
