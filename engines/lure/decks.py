"""Lure fish decks as data: the file format, a validating loader, the default deck.

File format (CSV, UTF-8; rules: ``lure.md`` *Fish cards*). Lines whose first character is ``#``
are comments. The first other line is the header; it must hold exactly these columns (any
order):

================  =========================================================================
column            content
================  =========================================================================
``id``            unique card id: letters, digits, ``_`` or ``-`` (e.g. ``B17``)
``name``          free text (may be empty)
``points``        integer 0..100
``catch_number``  integer 0..66 (66 = every die at its highest face: 5d6, d12, d20, d4)
``requirements``  zero or more codes separated by commas or semicolons: ``pair``,
                  ``distinct``, ``lure``, ``no_lure``, ``special2``, ``odd``, ``even``,
                  ``stubborn``, ``has:V[,V...]`` (values 1..20; a value listed twice needs two
                  dice). Bare numbers after ``has:`` extend it, so ``"has:1,5"`` and
                  ``"stubborn,pair"`` read as in the rules file (quote cells with commas).
``splash``        empty, ``fish+`` or ``lure``
``trophy``        empty/``0``/``no``/``false`` or ``T``/``1``/``yes``/``true``
``set``           ``base`` or ``deep_waters``
================  =========================================================================

Each data row is one card. A deck holds at most :data:`MAX_CARDS` cards and at least one
``base`` card. The default deck (:data:`DEFAULT_DECK_PATH`) is the rules file's
**reconstruction**, not the publisher's cards.
"""

from __future__ import annotations

import csv
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from engines import dice

DEFAULT_DECK_PATH = Path(__file__).with_name("default_deck.csv")
"""The shipped reconstruction of the 30 base + 15 Deep Waters cards."""

COLUMNS = ("id", "name", "points", "catch_number", "requirements", "splash", "trophy", "set")
MAX_CARDS = 64
MAX_POINTS = 100
MAX_CATCH_NUMBER = 5 * 6 + 12 + 20 + 4

SPLASH_NONE, SPLASH_FISH, SPLASH_LURE = 0, 1, 2
SPLASH_NAMES = ("", "fish+", "lure")
SET_BASE, SET_DEEP = 0, 1
SET_NAMES = ("base", "deep_waters")

# columns of Deck.info (int64, (cards, INFO_LEN))
I_POINTS, I_SPLASH, I_TROPHY, I_SET = 0, 1, 2, 3
INFO_LEN = 4

_TRUE = {"t", "1", "yes", "true", "y"}
_FALSE = {"", "0", "no", "false", "n"}
_ID_RE = re.compile(r"^[A-Za-z0-9_\-]+$")


@dataclass(frozen=True, eq=False)
class Deck:
    """A validated fish deck.

    Attributes:
        source: where it was read from (a path, or ``"<rows>"``).
        ids, names: card ids and names, tuples of ``str`` (length ``cards``).
        requirements: per card, the tuple of normalised requirement codes.
        conds: ``int64`` ``(cards, dice.COND_LEN)`` compiled conditions (:mod:`engines.dice`).
        info: ``int64`` ``(cards, INFO_LEN)``: points, splash (0 none, 1 fish+, 2 lure),
            trophy (0/1), set (0 base, 1 deep_waters).

    Two decks are equal when their cards are (:meth:`sha256` and the names; the ``source`` is
    not compared), and equal decks hash alike, so a :class:`engines.lure.config.LureConfig`
    holding a deck is hashable and compares by content. Treat the arrays as read-only (the
    hash is computed once, at construction).
    """

    source: str
    ids: tuple[str, ...]
    names: tuple[str, ...]
    requirements: tuple[tuple[str, ...], ...]
    conds: np.ndarray
    info: np.ndarray
    _sha: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self):
        h = hashlib.sha256()
        h.update(np.ascontiguousarray(self.conds, np.int64).tobytes())
        h.update(np.ascontiguousarray(self.info, np.int64).tobytes())
        h.update("|".join(self.ids).encode())
        object.__setattr__(self, "_sha", h.hexdigest())

    def __len__(self) -> int:
        return len(self.ids)

    def __eq__(self, other) -> bool:
        if not isinstance(other, Deck):
            return NotImplemented
        return self._sha == other._sha and self.names == other.names

    def __hash__(self) -> int:
        return hash(self._sha)

    def __repr__(self) -> str:
        return f"Deck(source={self.source!r}, cards={len(self)}, sha256={self._sha[:16]})"

    @property
    def points(self) -> np.ndarray:
        """``int64`` ``(cards,)`` points of each card."""
        return self.info[:, I_POINTS]

    @property
    def catch_numbers(self) -> np.ndarray:
        """``int64`` ``(cards,)`` catch numbers."""
        return self.conds[:, dice.CN]

    def index(self, card_id: str) -> int:
        """Row of ``card_id``; raises ``ValueError`` naming the id when unknown."""
        try:
            return self.ids.index(card_id)
        except ValueError:
            raise ValueError(f"unknown card id {card_id!r} in deck {self.source}") from None

    def requirement_text(self, i: int) -> str:
        """Requirements of card ``i`` in the file notation (``""`` when none)."""
        return ";".join(self.requirements[i])

    def rows(self) -> list[dict]:
        """The deck as file rows (dicts keyed by :data:`COLUMNS`, all values ``str``/int)."""
        out = []
        for i, cid in enumerate(self.ids):
            out.append({
                "id": cid,
                "name": self.names[i],
                "points": int(self.info[i, I_POINTS]),
                "catch_number": int(self.conds[i, dice.CN]),
                "requirements": self.requirement_text(i),
                "splash": SPLASH_NAMES[self.info[i, I_SPLASH]],
                "trophy": "T" if self.info[i, I_TROPHY] else "",
                "set": SET_NAMES[self.info[i, I_SET]],
            })
        return out

    def sha256(self) -> str:
        """Hash of the card content (not of comments or formatting): identifies a deck (hex
        ``str``, computed once)."""
        return self._sha


def parse_requirements(text: str) -> tuple[str, ...]:
    """Split a requirements cell into normalised codes (``"has:1,5;pair"`` -> two codes).

    Raises:
        ValueError: a bare number not preceded by ``has:``.
    """
    tokens = [t.strip().lower() for t in re.split(r"[,;]", text or "") if t.strip()]
    out: list[str] = []
    for tok in tokens:
        if tok.isdigit() or (tok.startswith("-") and tok[1:].isdigit()):
            if not out or not out[-1].startswith("has:"):
                raise ValueError(f"value {tok!r} is not preceded by 'has:'")
            out[-1] = out[-1] + "," + tok
        else:
            out.append(tok)
    return tuple(out)


def _int_field(text: str, lo: int, hi: int, what: str) -> int:
    t = text.strip()
    if not re.fullmatch(r"[+-]?\d+", t):
        raise ValueError(f"{what} {text!r} is not an integer")
    v = int(t)
    if not lo <= v <= hi:
        raise ValueError(f"{what} {v} is impossible; expected {lo}..{hi}")
    return v


def deck_from_rows(rows, source: str = "<rows>", first_row: int = 2) -> Deck:
    """Validate card rows (dicts with the :data:`COLUMNS` keys, values str or int).

    ``first_row`` is the file row number of ``rows[0]`` (for error messages).

    Raises:
        ValueError: ``"<source>: row R, column 'C': <what is wrong and what was expected>"``.
    """
    ids, names, reqs, conds, info = [], [], [], [], []
    seen: dict[str, int] = {}
    for k, raw in enumerate(rows):
        line = raw.get("__row__", first_row + k)

        def fail(col, msg, line=line):
            raise ValueError(f"{source}: row {line}, column '{col}': {msg}")

        cell = {c: ("" if raw.get(c) is None else str(raw.get(c))) for c in COLUMNS}
        cid = cell["id"].strip()
        if not cid or not _ID_RE.match(cid):
            fail("id", f"id {cid!r} must be non-empty letters, digits, '_' or '-'")
        if cid in seen:
            fail("id", f"duplicate id {cid!r} (first used in row {seen[cid]})")
        seen[cid] = line
        try:
            points = _int_field(cell["points"], 0, MAX_POINTS, "points")
        except ValueError as e:
            fail("points", str(e))
        try:
            cn = _int_field(cell["catch_number"], 0, MAX_CATCH_NUMBER, "catch number")
        except ValueError as e:
            fail("catch_number", str(e) + " (the sum of every die at its highest face is "
                 f"{MAX_CATCH_NUMBER})" if "impossible" in str(e) else str(e))
        try:
            codes = parse_requirements(cell["requirements"])
            cond = dice.compile_condition(cn, codes)
        except ValueError as e:
            fail("requirements", str(e))
        splash = cell["splash"].strip().lower()
        if splash not in SPLASH_NAMES:
            fail("splash", f"splash icon {cell['splash']!r}; expected empty, 'fish+' or 'lure'")
        trophy = cell["trophy"].strip().lower()
        if trophy not in _TRUE | _FALSE:
            fail("trophy", f"trophy {cell['trophy']!r}; expected empty/0/no or T/1/yes")
        cset = cell["set"].strip().lower()
        if cset not in SET_NAMES:
            fail("set", f"set {cell['set']!r}; expected 'base' or 'deep_waters'")
        ids.append(cid)
        names.append(cell["name"].strip())
        reqs.append(codes)
        conds.append(cond)
        info.append([points, SPLASH_NAMES.index(splash), int(trophy in _TRUE),
                     SET_NAMES.index(cset)])
    if len(ids) > MAX_CARDS:
        raise ValueError(f"{source}: {len(ids)} cards; a deck holds at most {MAX_CARDS}")
    if not any(row[I_SET] == SET_BASE for row in info):
        raise ValueError(f"{source}: no card has set 'base'; a deck needs at least one")
    return Deck(source, tuple(ids), tuple(names), tuple(reqs),
                np.array(conds, np.int64).reshape(len(ids), dice.COND_LEN),
                np.array(info, np.int64).reshape(len(ids), INFO_LEN))


def load_deck(path=None) -> Deck:
    """Read and validate a fish-deck CSV file (format in the module docstring).

    Args:
        path: file path; ``None`` loads the default reconstructed deck.

    Returns:
        The validated :class:`Deck`.

    Raises:
        FileNotFoundError: no such file.
        ValueError: a file that is not UTF-8 (a leading byte-order mark, as spreadsheets write
            it, is accepted), or any malformed content, naming the file, the row (line number
            in the file) and the column: unknown requirement, impossible value, duplicate id,
            missing or unknown column, wrong number of cells.
    """
    p = Path(path) if path is not None else DEFAULT_DECK_PATH
    if not p.is_file():
        raise FileNotFoundError(f"fish deck file {str(p)!r} not found")
    source = str(p)
    raw = p.read_bytes()
    try:
        # "utf-8-sig": a spreadsheet's "CSV UTF-8" starts with a byte-order mark
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[:exc.start].count(b"\n") + 1
        raise ValueError(f"{source}: row {line}: byte 0x{raw[exc.start]:02x} is not UTF-8; "
                         "expected a UTF-8 text file (in a spreadsheet: save as "
                         "'CSV UTF-8')") from None
    lines = text.splitlines()
    numbered = [(i + 1, t) for i, t in enumerate(lines) if t.strip() and not t.startswith("#")]
    if not numbered:
        raise ValueError(f"{source}: no header row; expected columns {', '.join(COLUMNS)}")
    parsed = list(csv.reader([t for _, t in numbered]))
    header = [h.strip().lower() for h in parsed[0]]
    hline = numbered[0][0]
    for col in COLUMNS:
        if col not in header:
            raise ValueError(f"{source}: row {hline}, column '{col}': missing column "
                             f"(header must hold {', '.join(COLUMNS)})")
    for j, col in enumerate(header):
        if col not in COLUMNS:
            raise ValueError(f"{source}: row {hline}, column {j + 1} ('{col}'): unknown column; "
                             f"expected only {', '.join(COLUMNS)}")
        if header.count(col) > 1:
            raise ValueError(f"{source}: row {hline}, column '{col}': column appears twice")
    rows = []
    for (line, _), cells in zip(numbered[1:], parsed[1:], strict=True):
        if len(cells) != len(header):
            raise ValueError(f"{source}: row {line}: {len(cells)} cells; expected {len(header)} "
                             f"({', '.join(header)})")
        row = dict(zip(header, cells, strict=True))
        row["__row__"] = line
        rows.append(row)
    if not rows:
        raise ValueError(f"{source}: no cards after the header")
    return deck_from_rows(rows, source)


FILE_HEADER = ("Lure fish deck. Rules: docs/rules/lure.md (in the repository); format: "
               "engines/lure/decks.py (one row per card; lines starting with # are comments).")
"""The comment line :func:`write_deck` puts at the top of every deck file it writes (paths from
the repository's root, present in every clone)."""


def write_deck(deck: Deck, path, comment: str = "") -> None:
    """Write ``deck`` in the file format: :data:`FILE_HEADER` and the ``comment`` lines, each
    prefixed with ``#``, then the header row and one row per card. Raises ``OSError`` from the
    file system."""
    p = Path(path)
    with p.open("w", newline="", encoding="utf-8") as fh:
        for line in [FILE_HEADER, *comment.splitlines()]:
            fh.write(f"# {line}\n")
        w = csv.DictWriter(fh, fieldnames=COLUMNS)
        w.writeheader()
        for row in deck.rows():
            w.writerow(row)


_DEFAULT: Deck | None = None


def default_deck() -> Deck:
    """The shipped reconstructed deck (loaded once, cached)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = load_deck(DEFAULT_DECK_PATH)
    return _DEFAULT
