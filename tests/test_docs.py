"""The README and the documentation site: the README stays short and every command it shows
exists (its ``make`` targets in the Makefile, its ``boardlab`` subcommands in the command
line's parser, its links as files); the site under ``docs/`` builds with
``mkdocs build --strict`` (a broken link, a page missing from the nav's files or a bad API
reference fails)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from experiments.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
MAX_README_BYTES = 15_000
QUICK_START = ("make run", "make test")


def code_text(markdown: str) -> list[str]:
    """The code of a Markdown text: each line of its fenced blocks and each inline code span
    (commands are shown as code; prose such as "installs boardlab into" is not a command)."""
    out: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append(line)
        else:
            out.extend(re.findall(r"`([^`\n]+)`", line))
    return out


def make_targets_mentioned(markdown: str) -> set[str]:
    """Targets of every ``make TARGET`` shown as code."""
    found = set()
    for code in code_text(markdown):
        found.update(re.findall(r"(?:^|[\s;&(])make ([A-Za-z][\w-]*)", code))
    return found


def makefile_targets(makefile: str) -> set[str]:
    """Rule targets of a Makefile (not variable assignments such as ``X := ...``)."""
    targets = set()
    for m in re.finditer(r"^([^\s#:=$][^:=]*?)\s*:(?![:=])", makefile, re.M):
        targets.update(m.group(1).split())
    return targets


def cli_commands() -> dict[str, set[str]]:
    """``boardlab``'s subcommands: name -> its own subcommands (empty when it has none)."""
    def subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return dict(action.choices)
        return {}

    return {name: set(subparsers(p)) for name, p in subparsers(build_parser()).items()}


def bad_boardlab_commands(markdown: str, commands: dict[str, set[str]]) -> list[str]:
    """Every ``boardlab WORD [WORD]`` shown as code whose subcommand does not exist (a command
    group named alone, such as ``boardlab learn``, is fine)."""
    bad = []
    for code in code_text(markdown):
        for first, second in re.findall(
                r"(?:^|[\s/;&(])boardlab ([a-z][\w-]*)(?: ([a-z][\w-]*))?", code):
            if first not in commands:
                bad.append(f"boardlab {first}")
            elif commands[first] and second and second not in commands[first]:
                bad.append(f"boardlab {first} {second}")
    return bad


def test_readme_is_short():
    size = README.stat().st_size
    assert size <= MAX_README_BYTES, (
        f"README.md is {size:,} bytes, more than {MAX_README_BYTES:,}: move the detail to "
        "a page under docs/")


def test_readme_shows_the_quick_start():
    code = code_text(README.read_text(encoding="utf-8"))
    for command in QUICK_START:
        assert any(line.split("#")[0].strip() == command for line in code), (
            f"README.md's quick start no longer shows `{command}`")


def test_readme_make_targets_exist():
    mentioned = make_targets_mentioned(README.read_text(encoding="utf-8"))
    missing = mentioned - makefile_targets((ROOT / "Makefile").read_text(encoding="utf-8"))
    assert set(t.split()[1] for t in QUICK_START) <= mentioned
    assert not missing, f"README.md shows make targets the Makefile lacks: {sorted(missing)}"


def test_readme_boardlab_commands_exist():
    text = README.read_text(encoding="utf-8")
    bad = bad_boardlab_commands(text, cli_commands())
    assert not bad, f"README.md shows boardlab commands the CLI lacks: {bad}"
    assert re.search(r"boardlab river-rats pairs", text), "the main job's command is gone"


def test_readme_links_exist():
    text = README.read_text(encoding="utf-8")
    missing = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        path = target.split("#", 1)[0]
        if path and "://" not in path and not (ROOT / path).exists():
            missing.append(target)
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_the_checks_can_fail():
    """The checkers above flag what they should (so a passing test means something)."""
    bad_readme = ("```bash\nmake run\nmake no-such-target\n"
                  "boardlab no-such-command --x\nboardlab lure no-such-sub\n"
                  "boardlab play rats --seat 0\n```\nIt installs boardlab into `.venv`.\n")
    assert make_targets_mentioned(bad_readme) == {"run", "no-such-target"}
    assert "no-such-target" not in makefile_targets((ROOT / "Makefile").read_text())
    assert {"run", "test", "docs", "notebooks"} <= makefile_targets(
        (ROOT / "Makefile").read_text())
    assert makefile_targets("X := a:b\nall: x\n\t$(X)\n") == {"all"}
    assert bad_boardlab_commands(bad_readme, cli_commands()) == [
        "boardlab no-such-command", "boardlab lure no-such-sub"]


@pytest.mark.slow
def test_docs_site_builds_strict(tmp_path):
    """``mkdocs build --strict`` of mkdocs.yml (about 10 s): every nav page exists, every
    link and anchor resolves, every ``::: module`` API page loads."""
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        if importlib.util.find_spec(module.split(".")[0]) is None or (
                "." in module and importlib.util.find_spec(module) is None):
            pytest.skip(f"{module} is not installed: the docs extra is missing "
                        "(pip install -e '.[docs]'; make test installs it)")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, f"mkdocs build --strict failed:\n{done.stdout}\n{done.stderr}"
    site = tmp_path / "site"
    assert (site / "index.html").is_file()
    assert (site / "repo/results/river_rats/headline/heatmap.png").is_file(), (
        "the hook did not copy the results pictures into the site")
    assert (site / "api/protocol/index.html").read_text(encoding="utf-8").count(
        "engines.protocol") > 1, "the API page of engines.protocol is empty"
