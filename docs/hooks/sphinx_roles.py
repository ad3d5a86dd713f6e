"""Griffe extension (mkdocs.yml, mkdocstrings' python handler): the docstrings of boardlab
cite code with Sphinx roles (``:mod:`engines.protocol```, ``:func:`replay```,
``:class:`GameDescription```, ``:data:``, ``:attr:``, ``:meth:``); mkdocstrings does not read
them, so this turns each into plain inline code (`` `engines.protocol` ``) before rendering."""

from __future__ import annotations

import re

import griffe

ROLE = re.compile(r":(?:py:)?(?:mod|func|class|data|attr|meth|obj|exc|const):`~?([^`]+)`")


class SphinxRoles(griffe.Extension):
    def on_instance(self, *, obj, **kwargs) -> None:
        if obj.docstring is not None:
            obj.docstring.value = ROLE.sub(r"`\1`", obj.docstring.value)
