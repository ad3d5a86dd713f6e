"""Markdown tables for the reports the experiments write (``report.md``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["format_cell", "markdown_table", "relative_path"]


def format_cell(x, nd=2) -> str:
    """A table cell's text: a float with ``nd`` decimals (empty for NaN), anything else as
    ``str``."""
    if isinstance(x, (float, np.floating)):
        return "" if np.isnan(x) else f"{x:.{nd}f}"
    return str(x)


def markdown_table(df: pd.DataFrame, nd=2) -> str:
    """``df`` as a Markdown (GitHub) table: its columns as the header, floats with ``nd``
    decimals (:func:`format_cell`); the index is not shown."""
    head = "| " + " | ".join(df.columns) + " |"
    sep = "| " + " | ".join("---" for _ in df.columns) + " |"
    body = ["| " + " | ".join(format_cell(v, nd) for v in row) + " |"
            for row in df.itertuples(index=False)]
    return "\n".join([head, sep] + body)


def relative_path(path: str) -> str:
    """``path`` relative to the working directory when it lies below it."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
