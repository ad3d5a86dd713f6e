"""The modules of ``agents/`` import each other in layers, never in a circle: a module that
(transitively) imports itself, even through an import inside a function body, is a defect
(docs/architecture.md, "agents/ in layers"; the kinds and layouts live at the bottom, in
``agents/layout.py``). Read from the sources with ``ast``, so nothing is imported or compiled."""

from __future__ import annotations

import ast
from pathlib import Path

AGENTS = Path(__file__).resolve().parents[1] / "agents"


def imported_agents_modules(path: Path) -> set[str]:
    """The modules of ``agents/`` (bare names, ``"search"``) that the source file ``path``
    imports anywhere: at the top, inside function bodies, under ``if``/``try``; absolute
    (``from agents.net import x``, ``import agents.net``, ``from agents import net``) and
    relative (``from .net import x``) forms."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "agents" and len(parts) > 1:
                    found.add(parts[1])
        elif isinstance(node, ast.ImportFrom):
            parts = (node.module or "").split(".") if node.module else []
            if node.level == 1:
                parts = ["agents"] + parts
            if not parts or parts[0] != "agents":
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:  # from agents import net, loop
                found.update(alias.name for alias in node.names)
    return found


def import_graph(folder: Path = AGENTS) -> dict[str, set[str]]:
    """Module name -> the modules of the same package it imports (self-imports dropped), over
    every ``*.py`` file of ``folder``."""
    modules = {p.stem: p for p in folder.glob("*.py")}
    return {name: imported_agents_modules(p) & set(modules) - {name}
            for name, p in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle of ``graph`` as the list of modules along it (first repeated last),
    or None when the graph is acyclic (depth-first search with colours)."""
    colour = dict.fromkeys(graph, 0)  # 0 unvisited, 1 on the current path, 2 done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        colour[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if colour.get(nxt, 0) == 1:
                return path[path.index(nxt):] + [nxt]
            if colour.get(nxt, 0) == 0:
                found = visit(nxt)
                if found:
                    return found
        path.pop()
        colour[node] = 2
        return None

    for start in sorted(graph):
        if colour[start] == 0:
            found = visit(start)
            if found:
                return found
    return None


def test_the_import_reader_sees_every_form_of_import(tmp_path):
    (tmp_path / "a.py").write_text(
        "import numpy\nfrom agents.b import x\n\n"
        "def f():\n    import agents.c\n    from agents import d, e\n    from .f import y\n")
    assert imported_agents_modules(tmp_path / "a.py") == {"b", "c", "d", "e", "f"}


def test_a_circle_is_found_even_through_a_function_body(tmp_path):
    (tmp_path / "low.py").write_text("import numpy\n")
    (tmp_path / "mid.py").write_text("from agents.low import x\n")
    (tmp_path / "top.py").write_text("from agents.mid import y\n")
    assert find_cycle(import_graph(tmp_path)) is None
    (tmp_path / "low.py").write_text("def late():\n    from agents.top import z\n")
    cycle = find_cycle(import_graph(tmp_path))
    assert cycle is not None and cycle[0] == cycle[-1]
    assert set(cycle) == {"low", "mid", "top"}


def test_no_module_of_agents_imports_itself():
    graph = import_graph()
    assert {"layout", "policy", "search", "net", "dispatch"} <= set(graph)
    cycle = find_cycle(graph)
    assert cycle is None, "import circle in agents/: " + " -> ".join(cycle or [])


def test_the_kinds_and_layouts_sit_at_the_bottom():
    """``agents/layout.py`` imports nothing of ``agents/``, and every module that reads a kind
    or a slot reads it from there (none defines its own copy)."""
    graph = import_graph()
    assert graph["layout"] == set()
    names = {"K_NET", "K_PIMC", "USER_KIND", "ROLLOUT_AT", "LEAF_VALUE_AT", "H_PRIOR", "PolicySpec"}
    for path in AGENTS.glob("*.py"):
        if path.stem == "layout":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined = {t.id for node in tree.body if isinstance(node, ast.Assign)
                   for t in ast.walk(node) if isinstance(t, ast.Name)
                   and isinstance(t.ctx, ast.Store)}
        defined |= {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
        assert not defined & names, f"agents/{path.name} defines {sorted(defined & names)}"
