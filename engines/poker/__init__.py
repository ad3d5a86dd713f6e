"""The poker hand evaluator (best 5 of N cards, standard and River Rats rankings).

- :mod:`engines.poker.evaluator`  the evaluator's entry points (re-exported here):
  :func:`evaluate` (batch, validating), :func:`eval_hand` / :func:`eval_at` (compiled scalar
  kernels), :func:`hand_category`, :func:`best_five`, :data:`CATEGORY_NAMES`
- :mod:`engines.poker.tables`  the lookup tables (rank keys, flush tables, perfect hash), built
  at import from :file:`hash_offsets.npy`
- :mod:`engines.poker.card_sums`  the 128-bit vector sums of a hand's card records (LLVM IR)
- :mod:`engines.poker.reference`  the plain-Python reference the compiled evaluator is tested
  against
"""

from __future__ import annotations

from engines.poker.evaluator import (  # noqa: F401  (the package's public names)
    CATEGORY_NAMES,
    HIGH_CARD,
    PAIR,
    TWO_PAIR,
    THREE_OF_A_KIND,
    STRAIGHT,
    FLUSH,
    FULL_HOUSE,
    FOUR_OF_A_KIND,
    STRAIGHT_FLUSH,
    RULES_STANDARD,
    RULES_RIVER_RATS,
    RULES,
    MIN_CARDS,
    MAX_CARDS,
    category_of,
    eval_hand,
    eval_at,
    evaluate,
    hand_category,
    describe,
    best_five,
)

__all__ = [
    "CATEGORY_NAMES",
    "HIGH_CARD",
    "PAIR",
    "TWO_PAIR",
    "THREE_OF_A_KIND",
    "STRAIGHT",
    "FLUSH",
    "FULL_HOUSE",
    "FOUR_OF_A_KIND",
    "STRAIGHT_FLUSH",
    "RULES_STANDARD",
    "RULES_RIVER_RATS",
    "RULES",
    "MIN_CARDS",
    "MAX_CARDS",
    "category_of",
    "eval_hand",
    "eval_at",
    "evaluate",
    "hand_category",
    "describe",
    "best_five",
]
