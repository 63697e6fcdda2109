"""Code the sync merge broke: uses the result makes that neither dev nor main had broken.

After a main -> dev sync, main's callers can meet dev's callees (or the
reverse) with other signatures, and a resolution can drop a definition that
code still uses. Three checks run over the result's changed Python files:

1. undefined names, by pyflakes (``UndefinedName``, ``UndefinedLocal``,
   ``UndefinedExport``): a well-kept checker, not a name resolution of ours;
2. imports of a repository module that no longer binds the imported name (nor
   has it as a submodule), and imports of a module gone from a package that
   is still there (:func:`_import_findings`);
3. calls whose callee the file names statically (its own top-level def or
   class, one it imports by name from a module of the tree, ``self.m`` /
   ``cls.m`` of its class) that pass an unknown keyword, too many positional
   arguments, or miss a required one (:mod:`~syncdesk.services.audit.signatures`).

Only what is *new* is reported: the same check runs on dev's and on main's
version of each file the result got a finding in, each in its own tree, and a
finding either of them has too (same file, same kind, same name, same callee;
the line may move) was there before the sync and is not its doing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pyflakes import messages as flakes  # type: ignore[import-untyped]
from pyflakes.checker import Checker  # type: ignore[import-untyped]

from syncdesk.services.audit.calls import CallSite
from syncdesk.services.audit.model import Breakage, BreakageKind
from syncdesk.services.audit.modules import ImportUse, ModuleFacts
from syncdesk.services.audit.resolve import ParsedSources, TreeModules, absolute_module
from syncdesk.services.audit.signatures import (
    Mismatch,
    Signature,
    constructor_signature,
    function_signature,
    method_signature,
    problems,
)
from syncdesk.services.audit.tree import Tree


def find_breakage(paths: Sequence[str], result: Tree, dev: Tree, main: Tree) -> list[Breakage]:
    """The breakage of the result's Python files ``paths`` that dev and main did not have.

    ``paths`` are the files the sync changed. Each tree is read in a few
    batches (``paths`` at once, then the modules they import, round by
    round); a file that does not parse is skipped on that side. Dev and main
    are read only for the files where the result has a finding. Sorted by
    path and line.
    """
    # Both caches go by content: most files are the same on two sides of the three.
    parsed = ParsedSources()
    flakes_by_content: _FlakesCache = {}
    flagged = _findings(TreeModules(result, parsed), paths, flakes_by_content)
    suspects = sorted({finding.breakage.path for finding in flagged})
    before: set[tuple[str, ...]] = set()
    for tree in (dev, main):
        side = _findings(TreeModules(tree, parsed), suspects, flakes_by_content)
        before.update(finding.key for finding in side)
    new = [finding.breakage for finding in flagged if finding.key not in before]
    return sorted(new, key=lambda found: (found.path, found.line, found.kind, found.name))


@dataclass(frozen=True, slots=True)
class _Finding:
    """A breakage and what makes it the same one in another tree (its line aside)."""

    key: tuple[str, ...]
    breakage: Breakage


def _findings(modules: TreeModules, paths: Sequence[str], cache: _FlakesCache) -> list[_Finding]:
    """Every finding of the three checks in ``paths`` of one tree."""
    modules.load(paths)
    found = [finding for path in paths for finding in _undefined_findings(modules, path, cache)]
    found += modules.settle(
        lambda: [
            finding
            for path in paths
            for check in (_import_findings, _call_findings)
            for finding in check(modules, path)
        ]
    )
    return found


def _finding(
    path: str,
    line: int,
    kind: BreakageKind,
    name: str,
    detail: str,
    callee: str | None,
    message: str,
) -> _Finding:
    return _Finding(
        (path, kind, name, detail, callee or ""), Breakage(path, line, kind, name, callee, message)
    )


# --- 1. undefined names (pyflakes) ------------------------------------------------------------

_UNDEFINED = (flakes.UndefinedName, flakes.UndefinedLocal, flakes.UndefinedExport)
# (content, is a package's __init__.py) -> (line, name, what is wrong) of each undefined name
_FlakesCache = dict[tuple[bytes, bool], list[tuple[int, str, str]]]


def _undefined_findings(modules: TreeModules, path: str, cache: _FlakesCache) -> Iterator[_Finding]:
    source = modules.source(path)
    facts = modules.facts(path)
    if source is None or facts is None:
        return
    package = os.path.basename(path) == "__init__.py"
    for line, name, what in _undefined(source, facts, package, cache):
        yield _finding(
            path,
            line,
            BreakageKind.UNDEFINED_NAME,
            name,
            "",
            None,
            f"uses {name}, {what} (pyflakes)",
        )


def _undefined(
    source: bytes, facts: ModuleFacts, package: bool, cache: _FlakesCache
) -> list[tuple[int, str, str]]:
    """pyflakes' undefined names of a module: (line, name, what is wrong), once per content.

    pyflakes treats ``__init__.py`` apart (``__path__`` is defined there, and
    ``__all__`` is not checked), so only its base name is passed as a file name.
    """
    key = (source, package)
    if key not in cache:
        checker = Checker(
            facts.tree, filename="__init__.py" if package else "module.py", withDoctest=False
        )
        cache[key] = [_undefined_entry(m) for m in checker.messages if isinstance(m, _UNDEFINED)]
    return cache[key]


def _undefined_entry(message: object) -> tuple[int, str, str]:
    # UndefinedLocal's message_args is the bare name (not a tuple) when the
    # outer binding is a builtin: take the first argument either way.
    args = getattr(message, "message_args", ())
    name = str(args[0] if isinstance(args, tuple) else args)
    line = int(getattr(message, "lineno", 0))
    if isinstance(message, flakes.UndefinedLocal):
        return line, name, "a local assigned only after this use"
    if isinstance(message, flakes.UndefinedExport):
        return line, name, "listed in __all__, which the module does not define"
    return line, name, "which the file neither defines nor imports"


# --- 2. imports of names a module of the tree no longer has -----------------------------------


def _import_findings(modules: TreeModules, path: str) -> Iterator[_Finding]:
    for use in modules.imports(path):
        dotted = absolute_module(path, use.level, use.module)
        # An import inside ``try: ... except ImportError`` is expected to fail sometimes.
        if dotted is None or use.guarded:
            continue
        if use.names:
            yield from _from_import_findings(modules, path, use, dotted)
        elif "." in dotted and modules.module(dotted) is None:
            yield from _gone_module(modules, path, use, dotted)


def _from_import_findings(
    modules: TreeModules, path: str, use: ImportUse, dotted: str
) -> Iterator[_Finding]:
    module_path = modules.module(dotted)
    if module_path is None:
        # A folder without __init__.py (a namespace package) is seen through its submodules.
        if not any(modules.module(f"{dotted}.{name}") for name in use.names):
            yield from _gone_module(modules, path, use, dotted)
        return
    facts = modules.facts(module_path)
    if facts is None or facts.open_namespace:
        return  # does not parse, or any name may exist (star import, module __getattr__)
    for name in use.names:
        if facts.bindings[name] or modules.module(f"{dotted}.{name}") is not None:
            continue
        yield _finding(
            path, use.line, BreakageKind.MISSING_IMPORT, name, dotted, f"{dotted}.{name}",
            f"imports {name} from {dotted}, which no longer defines it ({module_path})",
        )  # fmt: skip


def _gone_module(
    modules: TreeModules, path: str, use: ImportUse, dotted: str
) -> Iterator[_Finding]:
    """A finding when module ``dotted`` is absent while the package holding it is in the tree.

    Without that package the module is no module of this repository (a
    third-party one, or one a script puts on ``sys.path``): nothing is said.
    """
    package, dot, _ = dotted.rpartition(".")
    if not dot or modules.source(f"{package.replace('.', '/')}/__init__.py") is None:
        return
    yield _finding(
        path,
        use.line,
        BreakageKind.MISSING_IMPORT,
        dotted,
        "",
        dotted,
        f"imports {dotted}, which its package {package} no longer has",
    )


# --- 3. calls that do not fit their callee ----------------------------------------------------

_KINDS = {
    Mismatch.UNKNOWN_KEYWORD: BreakageKind.UNKNOWN_KEYWORD,
    Mismatch.TOO_MANY_POSITIONAL: BreakageKind.TOO_MANY_POSITIONAL,
    Mismatch.MISSING_ARGUMENT: BreakageKind.MISSING_ARGUMENT,
}


@dataclass(frozen=True, slots=True)
class _Callee:
    """A resolved callee: where it is written, and what it accepts."""

    path: str
    qualname: str
    signature: Signature


def _call_findings(modules: TreeModules, path: str) -> Iterator[_Finding]:
    facts = modules.facts(path)
    if facts is None:
        return
    for site in modules.calls(path):
        callee = _callee(modules, path, facts, site)
        if callee is None:
            continue
        for problem in problems(callee.signature, site):
            kind = _KINDS[problem.mismatch]
            where = f"{callee.path}:{callee.qualname}"
            name = problem.detail if kind is BreakageKind.UNKNOWN_KEYWORD else site.name
            yield _finding(
                path,
                site.line,
                kind,
                name,
                problem.detail,
                where,
                _call_message(site, callee, problem.mismatch, problem.detail),
            )


def _callee(modules: TreeModules, path: str, facts: ModuleFacts, site: CallSite) -> _Callee | None:
    """What ``site`` calls, when its signature is known (see the module doc, check 3)."""
    if site.method_of is not None and site.receiver is not None:
        owner = facts.classes.get(site.method_of)
        method = method_signature(owner, site.name, site.receiver) if owner else None
        if method is None:
            return None
        return _Callee(path, f"{site.method_of}.{site.name}", method[1])
    if site.name in facts.definitions:
        return _defined(path, facts, site.name)
    imported = facts.from_imports.get(site.name)
    found = modules.definition(path, imported) if imported is not None else None
    return None if found is None else _defined(found.path, found.facts, found.node.name)


def _defined(path: str, facts: ModuleFacts, name: str) -> _Callee | None:
    """The top-level function or class ``name`` of a module, if its signature is known."""
    node = facts.definitions[name]
    if name in facts.classes and facts.classes[name].node is node:
        constructor = constructor_signature(facts.classes[name])
        return None if constructor is None else _Callee(path, name, constructor[1])
    signature = function_signature(node, bound=False)
    return None if signature is None else _Callee(path, name, signature)


def _call_message(site: CallSite, callee: _Callee, mismatch: Mismatch, detail: str) -> str:
    """One line: the call as written, what is wrong, and where the callee is defined."""
    shown = site.name if site.receiver is None else f"{site.receiver}.{site.name}"
    where = f"({callee.path}:{callee.signature.line})"
    signature = callee.signature
    if mismatch is Mismatch.UNKNOWN_KEYWORD:
        if detail in signature.positional[: signature.positional_only]:
            return f"calls {shown}({detail}=...), which takes {detail} only by position {where}"
        return f"calls {shown}({detail}=...), which takes no such parameter {where}"
    if mismatch is Mismatch.TOO_MANY_POSITIONAL:
        return (
            f"calls {shown} with {site.positional} positional arguments, "
            f"which takes at most {detail} {where}"
        )
    return f"calls {shown} without {detail}, which it requires {where}"
