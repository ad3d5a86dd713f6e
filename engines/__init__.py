"""Rules engines of boardlab and the shared fast kernels.

- :mod:`engines.cards`  card ids and their text form (shared by the poker-deck games)
- :mod:`engines.poker`  the best-5-of-N poker evaluator (standard and River Rats rankings)
"""
