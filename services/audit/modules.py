"""What one Python module binds at its top level, and which imports it makes.

The breakage check (:mod:`syncdesk.services.audit.breakage`) asks of every
module an import leads to which names its top level binds (does ``from m
import name`` still find ``name``?) and what those names are (a ``def``, a
class, a re-export). :func:`module_facts` answers from the top level alone,
cheaply: most modules read are only imported, and a Megatron-LM sync reads a
few hundred of them. The imports of a file (:func:`import_uses`) and its calls
(:mod:`~syncdesk.services.audit.calls`) are walked only for the files checked.
Facts depend on the content only, so one object serves every tree and path
holding the same bytes.

Resolution is deliberately conservative: a name bound more than once at the
top level (``try: from x import f`` / ``except ImportError: f = None``)
resolves to no definition, so no call through it is judged.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

Definition = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Nodes that open a scope of their own: their bodies bind nothing in the enclosing one.
_SCOPES = (
    *_FUNCTIONS,
    ast.ClassDef,
    ast.Lambda,
    ast.ListComp,
    ast.SetComp,
    ast.DictComp,
    ast.GeneratorExp,
)
_GLOBAL = re.compile(rb"^[ \t]*global[ \t]", re.MULTILINE)
# An ``except`` catching one of these around an import expects the import may fail.
_IMPORT_FAILURES = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True, slots=True)
class ImportUse:
    """One import statement: ``import a.b`` (no names) or ``from .a import b, c``."""

    line: int
    level: int  # leading dots of a relative import
    module: str | None  # as written; None for ``from . import x``
    names: tuple[str, ...]  # the names a ``from`` import takes; empty for ``import``
    guarded: bool  # inside a ``try`` whose ``except`` catches ImportError


@dataclass(frozen=True, slots=True)
class FromImport:
    """A top-level ``from <module> import <name>``: where a name of the module comes from."""

    level: int
    module: str | None
    name: str


class ClassFacts:
    """A class not inside a function, and how many statements of its body bind each name.

    Not a frozen dataclass: the count is taken on first use, since most
    classes of the modules read are never called.
    """

    __slots__ = ("_bindings", "node")

    def __init__(self, node: ast.ClassDef) -> None:
        self.node = node
        self._bindings: Counter[str] | None = None

    @property
    def bindings(self) -> Counter[str]:
        """Name -> how many statements of the class body bind it."""
        if self._bindings is None:
            self._bindings = bound_names(self.node.body)
        return self._bindings


@dataclass(frozen=True, slots=True)
class ModuleFacts:
    """What a module binds at its top level (see the module's docstring)."""

    tree: ast.Module
    bindings: Counter[str]  # top-level name -> how many statements bind it
    definitions: dict[str, Definition]  # top-level def/class of a name bound once
    from_imports: dict[str, FromImport]  # top-level from-import of a name bound once
    classes: dict[str, ClassFacts]  # by qualified name
    open_namespace: bool  # a star import or a module ``__getattr__``: any name may exist


def module_facts(source: bytes) -> ModuleFacts | None:
    """The facts of a module's source; None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):  # ValueError: a NUL byte in the source
        return None
    bindings = bound_names(tree.body)
    # A ``global x`` in a function binds x at the top level when the function runs.
    # The text is searched first: walking a whole large module costs more than parsing it.
    if _GLOBAL.search(source):
        bindings.update(
            name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names
        )
    once = {name for name, count in bindings.items() if count == 1}
    definitions = {
        node.name: node
        for node in tree.body
        if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and node.name in once
    }
    open_namespace = "__getattr__" in bindings or any(
        isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names)
        for node in _same_scope(tree.body)
    )
    return ModuleFacts(
        tree=tree,
        bindings=bindings,
        definitions=definitions,
        from_imports=_top_from_imports(tree, once),
        classes=dict(_classes(tree.body, "")),
        open_namespace=open_namespace,
    )


def bound_names(body: Sequence[ast.stmt]) -> Counter[str]:
    """How many statements of ``body``'s own scope bind each name (nested scopes left out)."""
    found: Counter[str] = Counter()
    for node in _same_scope(body):
        found.update(_names_bound_by(node))
    return found


def _same_scope(body: Sequence[ast.AST]) -> Iterator[ast.AST]:
    """Every node of ``body`` evaluated in its scope: a nested def or class only as itself."""
    stack = list(body)
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, _SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def _names_bound_by(node: ast.AST) -> list[str]:
    if isinstance(node, (*_FUNCTIONS, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
        return [node.id]
    if isinstance(node, ast.Import):
        # ``import a.b`` binds ``a``.
        return [alias.asname or alias.name.partition(".")[0] for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [alias.asname or alias.name for alias in node.names if alias.name != "*"]
    if isinstance(node, ast.ExceptHandler) and node.name:
        return [node.name]
    if isinstance(node, (ast.Global, ast.Nonlocal)):
        return list(node.names)
    if isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
        return [node.name]
    if isinstance(node, ast.MatchMapping) and node.rest:
        return [node.rest]
    return []


def _top_from_imports(tree: ast.Module, once: set[str]) -> dict[str, FromImport]:
    """Names bound once, by a ``from`` import written directly at the top level."""
    found: dict[str, FromImport] = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                bound = alias.asname or alias.name
                if bound in once:
                    found[bound] = FromImport(node.level, node.module, alias.name)
    return found


def _classes(body: Sequence[ast.stmt], prefix: str) -> Iterator[tuple[str, ClassFacts]]:
    """The classes of a module and, nested, of its classes, by qualified name."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            qualname = f"{prefix}{node.name}"
            yield qualname, ClassFacts(node)
            yield from _classes(node.body, f"{qualname}.")


def import_uses(tree: ast.Module) -> tuple[ImportUse, ...]:
    """Every import statement of a module, at any depth, in order."""
    return tuple(_imports(tree.body, guarded=False))


def _imports(body: Sequence[ast.AST], *, guarded: bool) -> Iterator[ImportUse]:
    """Every import of ``body``, at any depth, and whether a ``try`` expects it to fail."""
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield ImportUse(node.lineno, 0, alias.name, (), guarded)
        elif isinstance(node, ast.ImportFrom):
            names = tuple(alias.name for alias in node.names if alias.name != "*")
            yield ImportUse(node.lineno, node.level, node.module, names, guarded)
        elif isinstance(node, ast.Try | ast.TryStar):
            expects = guarded or any(_catches_import_error(h) for h in node.handlers)
            yield from _imports(node.body, guarded=expects)
            yield from _imports([*node.handlers, *node.orelse, *node.finalbody], guarded=guarded)
        elif isinstance(node, ast.stmt | ast.ExceptHandler | ast.match_case):
            yield from _imports(list(ast.iter_child_nodes(node)), guarded=guarded)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True  # a bare except
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(last_name(kind) in _IMPORT_FAILURES for kind in kinds)


def last_name(node: ast.expr) -> str | None:
    """``b`` for ``b`` and for ``a.b``; None for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
