"""Every chance draw in ``engines/`` is named in a table of covered sites, each with the test that
checks its distribution against the rules, so that a new draw without a distribution test fails
the suite, and a Numba or NumPy upgrade that changes a draw (as numba 0.66 once changed Lure's
redraw of a finished secret cast while the golden games did not notice) fails a named test.

A *draw site* is a pair (source file, function) whose body calls a draw primitive: the
generator functions of :mod:`engines.protocol.chance` (``next_u64``, ``rand_below``,
``rand_float``), the engines' own draw helpers listed in :data:`HELPERS` (a helper is a site
too: its callers are found through it), or a method of a NumPy ``Generator``
(``rng.integers(...)`` and the like) or anything under ``np.random``. The calls are found by a
regular expression over each source line and attributed to the innermost enclosing function
(the ``def`` with the deepest indentation above the line); docstrings and comments do not count.
"""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINES = ROOT / "engines"

PRIMITIVES = ("next_u64", "rand_below", "rand_float")
"""The draws of the one chance module (:mod:`engines.protocol.chance`)."""

HELPERS = {
    "engines/river_rats/core.py": ("rng_below", "_shuffle_pile"),
    "engines/protocol/relabel.py": ("shuffle_onto",),
    "engines/rats/core.py": ("_draw",),
}
"""Draw helpers of the engines: functions whose whole job is a draw, matched by name in their
own file and in the files that import them (River Rats' ``_draw`` is a deck draw, not Rats')."""

GENERATOR_METHODS = ("integers", "random", "choice", "shuffle", "permutation", "permuted",
                     "uniform", "normal", "binomial", "multinomial", "hypergeometric",
                     "standard_normal", "exponential", "poisson", "geometric", "bytes")
"""Methods of ``numpy.random.Generator`` that draw."""

# (file, function) -> the tests that check the distribution of that function's draws, each
# "path::test_name" (the test must exist: test_every_named_test_exists).
COVERED = {
    # --- the one chance module: the generator itself
    ("engines/protocol/chance.py", "rand_below"): [
        "tests/test_chance.py::test_next_u64_is_splitmix64",
        "tests/test_chance.py::test_rand_below_is_uniform_and_in_range"],
    ("engines/protocol/chance.py", "rand_float"): [
        "tests/test_chance_draws.py::test_rand_float_is_uniform_on_the_unit_interval"],
    ("engines/protocol/chance.py", "batch_word"): [
        "tests/test_chance.py::test_batch_word_comes_from_the_seed_sequence"],
    # --- shared helpers
    ("engines/protocol/relabel.py", "shuffle_onto"): [
        "tests/test_chance_draws.py::test_shuffle_onto_gives_every_arrangement_equally_often"],
    ("engines/protocol/deal.py", "deal_hands"): [
        "tests/test_chance_draws.py::test_random_hands_deal_every_card_and_joker_place_equally"],
    ("engines/cards.py", "random_hands"): [
        "tests/test_chance_draws.py::test_random_hands_deal_every_card_and_joker_place_equally"],
    ("engines/dice/checker.py", "_mc_kernel"): [
        "tests/test_chance_draws.py::test_monte_carlo_rolls_every_face_equally_often",
        "tests/lure/test_dice.py::test_monte_carlo_within_interval_of_exact"],
    ("engines/dice/checker.py", "monte_carlo_catch_probabilities"): [
        "tests/test_chance_draws.py::test_monte_carlo_rolls_every_face_equally_often"],
    # --- Kuhn poker
    ("engines/kuhn_poker/core.py", "init_state"): [
        "tests/kuhn_poker/test_kuhn_poker.py::test_deals_are_uniform_from_seeds",
        "tests/kuhn_poker/test_chance_draws.py::test_the_six_deals_are_equally_likely"],
    ("engines/kuhn_poker/core.py", "determinize"): [
        "tests/kuhn_poker/test_chance_draws.py::"
        "test_determinize_gives_the_opponent_either_other_card_equally"],
    # --- Lure
    ("engines/lure/core.py", "draw_lure"): [
        "tests/lure/test_chance_draws.py::test_starting_lures_are_drawn_from_the_mix",
        "tests/lure/test_chance_draws.py::test_a_lure_is_drawn_from_the_bag_by_its_composition",
        "tests/lure/test_chance_draws.py::test_an_empty_bag_is_refilled_from_the_discard_pile"],
    ("engines/lure/core.py", "init_state"): [
        "tests/lure/test_chance_draws.py::test_the_fish_deck_is_shuffled_uniformly",
        "tests/lure/test_chance_draws.py::test_deep_waters_removes_cards_uniformly"],
    ("engines/lure/core.py", "_roll_group"): [
        "tests/lure/test_chance_draws.py::test_every_die_rolls_each_face_equally_often"],
    ("engines/lure/core.py", "_sample_adjust"): [
        "tests/lure/test_determinize.py::"
        "test_finished_secret_adjusts_are_redrawn_uniformly_among_reachable_dice"],
    ("engines/lure/core.py", "determinize"): [
        "tests/lure/test_determinize.py::test_unrevealed_fish_are_placed_uniformly",
        "tests/lure/test_determinize.py::test_unknown_tokens_are_dealt_uniformly",
        "tests/lure/test_determinize.py::"
        "test_a_finished_secret_cast_is_redrawn_with_the_documented_distribution",
        "tests/lure/test_chance_draws.py::"
        "test_a_finished_secret_cast_redraws_each_special_die_with_chance_one_half",
        "tests/lure/test_chance_draws.py::test_unknown_tokens_of_several_players_are_dealt_uniformly"],
    # --- Rats
    ("engines/rats/core.py", "init_state"): [
        "tests/rats/test_rats_chance_draws.py::test_the_deal_puts_each_card_in_each_place_uniformly",
        "tests/rats/test_rats_chance_draws.py::test_the_first_leader_is_drawn_uniformly"],
    ("engines/rats/core.py", "_draw"): [
        "tests/rats/test_rats_chance_draws.py::test_a_later_round_hand_is_a_uniform_subset",
        "tests/rats/test_rats_determinize.py::test_uniform_placement_round_one"],
    ("engines/rats/core.py", "_end_round"): [
        "tests/rats/test_rats_chance_draws.py::test_a_later_round_hand_is_a_uniform_subset"],
    ("engines/rats/core.py", "_deal_hidden"): [
        "tests/rats/test_rats_determinize.py::test_uniform_placement_round_one",
        "tests/rats/test_rats_determinize.py::test_uniform_placement_later_round",
        "tests/rats/test_rats_determinize.py::test_builder_hand_is_conditioned_on_completing_its_lead"],
    ("engines/rats/relabel.py", "_draw_map"): [
        "tests/rats/test_rats_chance_draws.py::test_a_relabelling_sends_a_hidden_card_anywhere_in_its_group"],
    # --- ReCURRRing
    ("engines/recurring/core.py", "_deal"): [
        "tests/recurring/test_chance_draws.py::test_the_deal_gives_each_card_to_each_seat_uniformly"],
    ("engines/recurring/core.py", "determinize"): [
        "tests/recurring/test_determinize.py::test_uniform_split_of_distinct_unknown_cards",
        "tests/recurring/test_determinize.py::test_duplicate_unknown_cards_are_dealt_as_individual_cards",
        "tests/recurring/test_determinize.py::test_hypergeometric_count_in_a_hidden_hand"],
    # --- River Rats
    ("engines/river_rats/core.py", "rng_below"): [
        "tests/river_rats/test_chance_draws.py::test_characters_are_a_uniform_draw_of_the_aces"],
    ("engines/river_rats/core.py", "_shuffle_pile"): [
        "tests/river_rats/test_chance_draws.py::test_the_deal_gives_each_deck_card_each_place_uniformly"],
    ("engines/river_rats/core.py", "init_state"): [
        "tests/river_rats/test_chance_draws.py::test_characters_are_a_uniform_draw_of_the_aces",
        "tests/river_rats/test_chance_draws.py::test_the_rats_are_a_uniform_ordered_pair_of_kings",
        "tests/river_rats/test_chance_draws.py::test_the_deal_gives_each_deck_card_each_place_uniformly"],
    ("engines/river_rats/core.py", "draw"): [
        "tests/river_rats/test_chance_draws.py::test_an_empty_deck_is_refilled_by_a_uniform_shuffle"],
    ("engines/river_rats/core.py", "_random_facedown_non_king"): [
        "tests/river_rats/test_chance_draws.py::test_the_advanced_joker_removes_a_uniform_face_down_card"],
    ("engines/river_rats/core.py", "determinize"): [
        "tests/river_rats/test_rr_determinize.py::test_waiting_king_is_an_unseen_king_and_the_header_follows",
        "tests/river_rats/test_rr_determinize.py::test_uniform_placement_chi_square"],
    ("engines/river_rats/core.py", "hide_order"): [
        "tests/river_rats/test_chance_draws.py::test_determinize_shuffles_the_hidden_deck_uniformly"],
    ("engines/river_rats/relabel.py", "relabel_map"): [
        "tests/river_rats/test_chance_draws.py::test_a_relabelling_is_uniform_among_unseen_cards"],
}


def _code_lines(text: str) -> list[str]:
    """The source lines with comments and string literals (docstrings included) blanked."""
    lines = text.splitlines(keepends=True)
    out = [list(line) for line in lines]
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.STRING):
            (r0, c0), (r1, c1) = tok.start, tok.end
            for r in range(r0, r1 + 1):
                row = out[r - 1]
                a = c0 if r == r0 else 0
                b = c1 if r == r1 else len(row)
                for c in range(a, min(b, len(row))):
                    if row[c] != "\n":
                        row[c] = " "
    return ["".join(row) for row in out]


def _imported_helpers(text: str) -> set[str]:
    """Names of :data:`HELPERS` that ``text`` imports from the helper's own module."""
    names = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ImportFrom) and node.module:
            path = node.module.replace(".", "/") + ".py"
            for alias in node.names:
                if alias.name in HELPERS.get(path, ()):
                    names.add(alias.asname or alias.name)
    return names


@functools.cache
def draw_sites() -> dict[tuple[str, str], set[str]]:
    """Every draw site of ``engines/``: (file relative to the repository, function) -> the
    primitives and helpers it calls (module docstring)."""
    sites: dict[tuple[str, str], set[str]] = {}
    for path in sorted(ENGINES.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        text = path.read_text()
        names = set(PRIMITIVES) | set(HELPERS.get(rel, ())) | _imported_helpers(text)
        call = re.compile(r"(?<![\w.])(?:\w+\.)?(" + "|".join(sorted(names)) + r")\s*\(")
        generator = re.compile(r"\.(" + "|".join(GENERATOR_METHODS) + r")\s*\(|\bnp\.random\.(\w+)")
        stack: list[tuple[int, str]] = []  # (indentation, name) of the enclosing defs
        for line in _code_lines(text):
            stripped = line.lstrip()
            if not stripped.strip():
                continue
            indent = len(line) - len(stripped)
            while stack and stack[-1][0] >= indent:
                stack.pop()
            m = re.match(r"def\s+(\w+)", stripped)
            if m:
                stack.append((indent, m.group(1)))
                continue
            found = [x for x in call.findall(line)]
            found += [a or b for a, b in generator.findall(line)]
            if found:
                fn = stack[-1][1] if stack else "<module>"
                sites.setdefault((rel, fn), set()).update(found)
    return sites


def test_the_scan_finds_the_known_draws():
    """The scanner itself can fail: it finds draws we know of (a River Rats helper, Lure's
    redraw of a secret cast, a NumPy generator, the Rats selection sampling) and skips the
    mentions of ``rand_below`` in docstrings."""
    sites = draw_sites()
    assert sites[("engines/river_rats/core.py", "rng_below")] == {"rand_below"}
    assert sites[("engines/lure/core.py", "determinize")] == {"rand_below"}
    assert "integers" in sites[("engines/protocol/deal.py", "deal_hands")]
    assert sites[("engines/rats/core.py", "_end_round")] == {"_draw"}
    assert ("engines/river_rats/core.py", "_draw") not in sites  # a deck draw, no chance
    assert ("engines/lure/core.py", "<module>") not in sites


def test_every_draw_site_has_a_distribution_test():
    """A draw added to an engine needs a distribution test named in :data:`COVERED`."""
    missing = sorted(set(draw_sites()) - set(COVERED))
    assert not missing, (f"draw sites without a distribution test: {missing}; add a test "
                         "(tests/<game>/test_chance_draws.py) and name it in COVERED")


def test_the_table_names_only_existing_sites():
    """A site that no longer draws leaves the table (the table stays the inventory)."""
    gone = sorted(set(COVERED) - set(draw_sites()))
    assert not gone, f"COVERED names functions that do not draw (any more): {gone}"


@pytest.mark.parametrize("helper_file", sorted(HELPERS))
def test_every_helper_exists(helper_file):
    text = (ROOT / helper_file).read_text()
    for name in HELPERS[helper_file]:
        assert re.search(rf"^def {name}\(", text, re.M), f"{helper_file}: no def {name}"


def test_every_named_test_exists():
    for site, tests in COVERED.items():
        assert tests, site
        for node in tests:
            path, name = node.split("::")
            tree = ast.parse((ROOT / path).read_text())
            defs = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
            assert name in defs, f"{site}: {node} does not exist"
