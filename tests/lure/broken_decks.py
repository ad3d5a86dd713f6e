"""Three broken copies of the shipped (reconstructed) Lure deck, the fixtures of the balance and
rebalance targets: each has one card made far too strong (points up by 7, catch number down by
4) and one far too weak (points down by 3, catch number up by 6, a requirement added), a cheap,
a mid and an expensive card among them. ``python -m tests.lure.broken_decks`` writes them as
``tests/lure/data/broken_<name>.csv`` (loadable by ``--cards``)."""

from __future__ import annotations

from pathlib import Path

from engines.lure.decks import deck_from_rows, default_deck, write_deck

DATA = Path(__file__).parent / "data"
BROKEN = {
    # name: (too strong card, too weak card, requirement added to the weak one)
    "cheap_strong": ("B04", "B26", "pair"),      # a cheap card too strong, a dear one too weak
    "mid": ("B12", "B16", "distinct"),           # two mid cards
    "dear_strong": ("B27", "B08", "has:6"),      # a dear card too strong, a cheap one too weak
}
"""The broken decks: which card is made too strong and which too weak."""


def broken_rows(name: str) -> list[dict]:
    """The rows of broken deck ``name`` (:data:`BROKEN`)."""
    strong, weak, extra = BROKEN[name]
    rows = []
    for r in default_deck().rows():
        r = dict(r)
        if r["id"] == strong:
            r["points"] = int(r["points"]) + 7
            r["catch_number"] = int(r["catch_number"]) - 4
        elif r["id"] == weak:
            r["points"] = int(r["points"]) - 3
            r["catch_number"] = int(r["catch_number"]) + 6
            reqs = [x for x in str(r["requirements"]).split(";") if x]
            r["requirements"] = ";".join(reqs + [extra])
        rows.append(r)
    return rows


def broken_path(name: str) -> Path:
    """The committed file of broken deck ``name``."""
    return DATA / f"broken_{name}.csv"


def broken_deck(name: str):
    """Broken deck ``name`` as a :class:`engines.lure.decks.Deck` (source: its file's path)."""
    return deck_from_rows(broken_rows(name), source=str(broken_path(name)))


if __name__ == "__main__":
    DATA.mkdir(exist_ok=True)
    for key, (s, w, _) in BROKEN.items():
        write_deck(broken_deck(key), broken_path(key),
                   comment=f"a broken copy of the reconstructed deck: {s} far too strong "
                           f"(points +7, catch number -4), {w} far too weak (points -3, catch "
                           f"number +6, a requirement added)")
        print(broken_path(key))
