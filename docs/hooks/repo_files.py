"""mkdocs hook: serve the repository's committed result files (pictures, CSV tables, reports)
in the site without copying them into ``docs/``.

A page links a result file by its path in the repository, relative to the page's own file,
so the link also works when the Markdown is read on a code host; for example
``docs/results/river_rats.md`` shows ``![...](../../results/river_rats/headline/heatmap.png)``.
At build time this hook

1. (``on_files``) finds every such link whose target lies under one of :data:`SHARED`, adds
   the file to the build as ``repo/<its repository path>`` (mkdocs copies it into the site; a
   linked ``report.md`` becomes a page, and the files it links are added in turn), and
2. (``on_page_markdown``) rewrites those links to the file's place in the site, so that
   ``mkdocs build --strict`` validates them like any other link.

A link to a file that does not exist is left as written, so ``--strict`` fails on it.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[2]
SHARED = ("results/", "benchmarks/results/")
"""Repository folders whose files pages may link to."""
PREFIX = "repo/"
"""Where those files go in the site."""
# Markdown links and images: ](target) or ](target "title"); the target stops at space or ')'.
LINK = re.compile(r"(\]\()([^)\s]+)")


def _repo_path(src_uri: str) -> str:
    """The repository path of a page or file of the build."""
    return src_uri[len(PREFIX):] if src_uri.startswith(PREFIX) else "docs/" + src_uri


def _target(src_uri: str, link: str) -> str | None:
    """The repository path ``link`` (written in the file ``src_uri``) points to, when it is a
    relative link into :data:`SHARED`; else None."""
    path = link.split("#", 1)[0]
    if not path or "://" in path or path.startswith(("/", "mailto:")):
        return None
    repo = posixpath.normpath(posixpath.join(posixpath.dirname(_repo_path(src_uri)), path))
    return repo if repo.startswith(SHARED) else None


def on_files(files, config):
    todo = list(files.documentation_pages())
    while todo:
        page = todo.pop()
        text = Path(page.abs_src_path).read_text(encoding="utf-8")
        for _, link in LINK.findall(text):
            repo = _target(page.src_uri, link)
            if repo is None or files.get_file_from_path(PREFIX + repo) is not None:
                continue
            if not (ROOT / repo).is_file():
                continue  # left to mkdocs: --strict reports the broken link
            new = File.generated(config, PREFIX + repo, abs_src_path=str(ROOT / repo))
            files.append(new)
            if repo.endswith(".md"):
                todo.append(new)
    return files


def on_page_markdown(markdown, page, config, files):
    src = page.file.src_uri

    def rewrite(m: re.Match) -> str:
        repo = _target(src, m.group(2))
        if repo is None or files.get_file_from_path(PREFIX + repo) is None:
            return m.group(0)
        anchor = m.group(2)[len(m.group(2).split("#", 1)[0]):]
        rel = posixpath.relpath(PREFIX + repo, posixpath.dirname(src) or ".")
        return m.group(1) + rel + anchor

    return LINK.sub(rewrite, markdown)
