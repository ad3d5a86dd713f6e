"""``python -m experiments.cli``: the ``boardlab`` command."""

import sys

from experiments.cli import main

sys.exit(main())
