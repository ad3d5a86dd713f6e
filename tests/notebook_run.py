"""Execute a notebook top to bottom for a test (the sizes come from environment variables the
test sets): one helper for every notebook test."""

from __future__ import annotations

from pathlib import Path


def run_notebook(path: Path, timeout: int = 600, cwd: Path | None = None) -> str:
    """Run ``path`` in ``cwd`` (default: its own folder) with a python3 kernel; fail if any
    cell raised or tqdm warned, and return the text the cells printed and displayed (stream
    outputs and the plain-text form of displayed values, joined)."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=timeout, kernel_name="python3",
                   resources={"metadata": {"path": str(cwd or Path(path).parent)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    errors = [o for o in outputs if o.get("output_type") == "error"]
    assert not errors, [e.get("ename") for e in errors]
    # printed text and the plain-text form of displayed values (tables)
    text = "".join(o.get("text", "") or o.get("data", {}).get("text/plain", "")
                   for o in outputs)
    # tqdm.auto without ipywidgets warns in every notebook: the runner's bar avoids it
    assert "IProgress not found" not in text
    return text
