"""Every command of the README's Lure section runs verbatim (README.md, "2. Lure"): the cheap ones
here, `lure balance` and `lure rebalance` answered from their committed folders (which must
therefore hold today's defaults), in a scratch copy so that nothing in the repository changes."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

from experiments import cli

ROOT = Path(__file__).resolve().parents[2]


def readme_lure_commands() -> list[str]:
    """The ``boardlab`` lines of the code blocks of the README's section "2. Lure" (comments
    dropped)."""
    text = (ROOT / "README.md").read_text()
    section = text.split("### 2. Lure", 1)[1].split("\n### ", 1)[0]
    out = []
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            line = line.split("#", 1)[0].strip()
            if line.startswith("boardlab "):
                out.append(line)
    return out


def test_every_readme_lure_command_runs_verbatim(tmp_path, monkeypatch, capsys):
    commands = readme_lure_commands()
    assert [c.split()[2] for c in commands] == ["balance", "card", "rebalance"]
    for folder in ("base", "rebalance/points_base"):
        shutil.copytree(ROOT / "results" / "lure" / folder, tmp_path / "results" / "lure" / folder,
                        ignore=shutil.ignore_patterns("_partial"))
    monkeypatch.chdir(tmp_path)
    for cmd in commands:
        rc = cli.main(shlex.split(cmd)[1:])
        printed = capsys.readouterr().out
        assert rc == 0, (cmd, printed)
        if cmd.split()[2] in ("balance", "rebalance"):  # the committed folder answers
            assert "answered from the finished" in printed, (cmd, printed)
    readme = (ROOT / "README.md").read_text()
    assert "reconstruction" in readme and "--cards" in readme
    for report in ("results/lure/base/report.md", "results/lure/rebalance/points_base/report.md"):
        assert "reconstruction" in (ROOT / report).read_text(), report
