"""Modules and definitions of one tree, found by import path and read in rounds.

A question such as "where does ``from a.b import f`` lead?" needs files the
asker has not read yet (``a/b.py``, then the module ``a/b.py`` re-exports
``f`` from). Rather than read file by file, :meth:`TreeModules.settle` runs
every question of a check together: a lookup of a file not read yet answers
"absent" and notes the path; when a pass noted paths, they are read with one
:meth:`Tree.read` and the whole pass runs again. Each pass reaches one import
further, and re-exports are followed at most :data:`MAX_HOPS` times, so a few
rounds settle every question; answers of a pass with unread paths are dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from syncdesk.services.audit.calls import CallSite, call_sites
from syncdesk.services.audit.modules import (
    Definition,
    FromImport,
    ImportUse,
    ModuleFacts,
    import_uses,
    module_facts,
)
from syncdesk.services.audit.tree import Tree

# How many ``from x import name`` re-exports a callee is followed through
# (``megatron/core/__init__.py`` re-exporting from a submodule is one).
MAX_HOPS = 4
# A pass per hop, one for the importing module, one for a submodule check.
_MAX_ROUNDS = MAX_HOPS + 3

Answer = TypeVar("Answer")


class ParsedSources:
    """What each source holds, by content: dev's, main's and the result's copies parse once."""

    def __init__(self) -> None:
        self._facts: dict[bytes, ModuleFacts | None] = {}
        self._imports: dict[bytes, tuple[ImportUse, ...]] = {}
        self._calls: dict[bytes, tuple[CallSite, ...]] = {}

    def facts(self, source: bytes) -> ModuleFacts | None:
        """The top-level facts of ``source`` (None: it does not parse), computed on first use."""
        if source not in self._facts:
            self._facts[source] = module_facts(source)
        return self._facts[source]

    def imports(self, source: bytes, facts: ModuleFacts) -> tuple[ImportUse, ...]:
        """The imports of ``source``, whose facts are ``facts``."""
        if source not in self._imports:
            self._imports[source] = import_uses(facts.tree)
        return self._imports[source]

    def calls(self, source: bytes, facts: ModuleFacts) -> tuple[CallSite, ...]:
        """The calls of ``source`` to callees it names, whose facts are ``facts``."""
        if source not in self._calls:
            candidates = facts.definitions.keys() | facts.from_imports.keys()
            self._calls[source] = call_sites(facts.tree, candidates)
        return self._calls[source]


@dataclass(frozen=True, slots=True)
class Found:
    """A top-level definition found in the tree, through any re-exports."""

    path: str
    facts: ModuleFacts
    node: Definition


class TreeModules:
    """The files of one tree that a check asked for, read in batches (see the module doc)."""

    def __init__(self, tree: Tree, parsed: ParsedSources) -> None:
        self._tree = tree
        self._parsed = parsed
        self._files: dict[str, bytes | None] = {}  # None: the tree has no such file
        self._unread: set[str] = set()

    def load(self, paths: Iterable[str]) -> None:
        """Read those of ``paths`` not read yet, with one :meth:`Tree.read`."""
        wanted = [path for path in dict.fromkeys(paths) if path not in self._files]
        if not wanted:
            return
        found = self._tree.read(wanted)
        for path in wanted:
            self._files[path] = found.get(path)

    def source(self, path: str) -> bytes | None:
        """The content of ``path``; None if absent, or not read yet (noted for the next round)."""
        if path not in self._files:
            self._unread.add(path)
            return None
        return self._files[path]

    def facts(self, path: str) -> ModuleFacts | None:
        """The facts of the file at ``path``; None if absent, unread or not parsing."""
        source = self.source(path)
        return None if source is None else self._parsed.facts(source)

    def imports(self, path: str) -> tuple[ImportUse, ...]:
        """The imports of the file at ``path`` (none if absent, unread or not parsing)."""
        source = self.source(path)
        facts = None if source is None else self._parsed.facts(source)
        return () if source is None or facts is None else self._parsed.imports(source, facts)

    def calls(self, path: str) -> tuple[CallSite, ...]:
        """The calls of the file at ``path`` to callees it names (see :mod:`.calls`)."""
        source = self.source(path)
        facts = None if source is None else self._parsed.facts(source)
        return () if source is None or facts is None else self._parsed.calls(source, facts)

    def module(self, dotted: str) -> str | None:
        """The file of module ``dotted`` (a package's ``__init__.py`` first, as Python looks).

        Only its existence is asked: a module is parsed when its facts are.
        """
        base = dotted.replace(".", "/")
        for path in (f"{base}/__init__.py", f"{base}.py"):
            if self.source(path) is not None:
                return path
        return None

    def settle(self, ask: Callable[[], Answer]) -> Answer:
        """``ask()`` once every file it looks up has been read (see the module doc)."""
        for _ in range(_MAX_ROUNDS):
            self._unread.clear()
            answer = ask()
            if not self._unread:
                return answer
            self.load(sorted(self._unread))
        # Unreachable while each pass reaches one file further and hops are bounded;
        # should it happen, unread files count as absent.
        return ask()

    def definition(self, importer: str, imported: FromImport, hops: int = MAX_HOPS) -> Found | None:
        """The def or class ``from <module> import <name>`` in file ``importer`` leads to.

        Re-exports (the module binding the name by a ``from`` import of its
        own) are followed ``hops`` times; any other binding (an assignment,
        a name bound twice, a module not in the tree) leads nowhere.
        """
        dotted = absolute_module(importer, imported.level, imported.module)
        path = self.module(dotted) if dotted else None
        facts = self.facts(path) if path is not None else None
        if path is None or facts is None:
            return None
        if imported.name in facts.definitions:
            return Found(path, facts, facts.definitions[imported.name])
        further = facts.from_imports.get(imported.name)
        if further is None or hops == 0:
            return None
        return self.definition(path, further, hops - 1)


def absolute_module(path: str, level: int, module: str | None) -> str | None:
    """The module an import in file ``path`` names, a relative one resolved (None: above root).

    The file's package is its folder, for ``__init__.py`` as for any module:
    ``from .x import y`` in ``a/b/c.py`` and in ``a/b/__init__.py`` both mean ``a.b.x``.
    """
    if level == 0:
        return module
    package = path.split("/")[:-1]
    up = level - 1
    if up > len(package):
        return None
    parts = package[: len(package) - up] + (module.split(".") if module else [])
    return ".".join(parts) or None
