"""The calls a module makes to callees it names without running code.

A call is kept when its callee is a plain name that means the module's own
top-level name at that point (no enclosing function, lambda or comprehension
binds it), or ``x.m(...)`` where ``x`` is the first parameter of the method
(written directly in a class body) around the call: ``self.m(...)`` or, in a
class method, ``cls.m(...)``. Which definition the name leads to is for the
caller to find (:mod:`~syncdesk.services.audit.resolve`); a call passing
``*x`` or ``**x`` is never kept, since what it passes is known only at run time.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence, Set
from dataclasses import dataclass
from enum import StrEnum

from syncdesk.services.audit.modules import bound_names, last_name

_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
# Methods Python binds to the class although they carry no ``@classmethod``.
_IMPLICIT_CLASS_METHODS = frozenset({"__new__", "__init_subclass__", "__class_getitem__"})


class Receiver(StrEnum):
    """What the first parameter of the method holding a ``x.m(...)`` call is."""

    SELF = "self"  # an instance method's instance
    CLS = "cls"  # a class method's class


@dataclass(frozen=True, slots=True)
class CallSite:
    """A call whose callee a module names statically.

    ``method_of`` is None for ``name(...)`` (a top-level name of the module,
    shadowed by no local); else the call is ``self.name(...)`` or
    ``cls.name(...)`` inside class ``method_of`` (a qualified name).
    """

    line: int
    name: str
    method_of: str | None
    receiver: Receiver | None
    positional: int
    keywords: tuple[str, ...]


def call_sites(tree: ast.Module, candidates: Set[str]) -> tuple[CallSite, ...]:
    """Every call of the module whose callee it names statically (see the module doc).

    ``candidates`` are the top-level names a plain call may resolve to (the
    module's functions, classes and names it imports by ``from``): a call
    through any other name is not kept, and costs no look at its scopes.
    """
    collector = _CallCollector(candidates)
    collector.visit(tree)
    return tuple(collector.sites)


class _Scope:
    """A scope around a call: the names it binds, and for a method, its receiver.

    The names its body binds are gathered on the first question (a walk of
    the body): most scopes hold no call that asks.
    """

    __slots__ = ("_body", "_body_names", "_parameters", "class_qualname", "receiver")

    def __init__(
        self,
        parameters: frozenset[str],
        body: Sequence[ast.stmt],
        class_qualname: str | None = None,  # a class body's qualified name
        receiver: tuple[str, Receiver, str] | None = None,  # a method's (parameter, role, class)
    ) -> None:
        self._parameters = parameters
        self._body = body
        self._body_names: frozenset[str] | None = None
        self.class_qualname = class_qualname
        self.receiver = receiver

    def binds(self, name: str) -> bool:
        """Whether the scope binds ``name`` (a parameter, or any binding in its own body)."""
        if name in self._parameters:
            return True
        if self._body_names is None:
            self._body_names = frozenset(bound_names(self._body))
        return name in self._body_names


class _CallCollector(ast.NodeVisitor):
    """Collects the :class:`CallSite` of a module, tracking the scopes around each call."""

    def __init__(self, candidates: Set[str]) -> None:
        self.sites: list[CallSite] = []
        self._candidates = candidates
        self._scopes: list[_Scope] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        # Decorators, bases and keywords are evaluated in the enclosing scope.
        for part in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(part)
        outer = self._scopes[-1].class_qualname if self._scopes else ""
        prefix = f"{outer}." if outer else ""
        if any(scope.class_qualname is None for scope in self._scopes):
            prefix = "<local>."  # a class inside a function: never a callee we resolve
        self._inside(_Scope(frozenset(), node.body, f"{prefix}{node.name}"), node.body)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        for part in (*node.decorator_list, *node.args.defaults, *node.args.kw_defaults):
            if part is not None:
                self.visit(part)
        scope = _Scope(frozenset(_parameters(node.args)), node.body, None, self._receiver_of(node))
        self._inside(scope, node.body)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node: ast.Lambda) -> None:
        for part in (*node.args.defaults, *node.args.kw_defaults):
            if part is not None:
                self.visit(part)
        self._inside(_Scope(frozenset(_parameters(node.args)), ()), [node.body])

    def visit_comprehension_node(
        self, node: ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp
    ) -> None:
        targets = {name for gen in node.generators for name in _store_names(gen.target)}
        # Conservative: the first iterable is evaluated outside, but visiting it
        # inside only hides calls through a name the comprehension rebinds.
        self._inside(_Scope(frozenset(targets), ()), [node])

    visit_ListComp = visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_comprehension_node

    def _inside(self, scope: _Scope, body: Sequence[ast.AST]) -> None:
        self._scopes.append(scope)
        for child in body:
            if isinstance(child, _COMPREHENSIONS):
                self.generic_visit(child)  # its scope is the one just pushed
            else:
                self.visit(child)
        self._scopes.pop()

    def _receiver_of(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> tuple[str, Receiver, str] | None:
        """For a method written directly in a class body: its first parameter and its role."""
        if not self._scopes or self._scopes[-1].class_qualname is None:
            return None
        positional = [*node.args.posonlyargs, *node.args.args]
        decorators = {last_name(d) for d in node.decorator_list}
        if not positional or "staticmethod" in decorators:
            return None
        role = Receiver.SELF
        if "classmethod" in decorators or node.name in _IMPLICIT_CLASS_METHODS:
            role = Receiver.CLS
        return positional[0].arg, role, self._scopes[-1].class_qualname

    def visit_Call(self, node: ast.Call) -> None:
        if not any(isinstance(arg, ast.Starred) for arg in node.args) and all(
            keyword.arg is not None for keyword in node.keywords
        ):  # a call with *x or **x passes what it passes only at run time
            site = self._site(node)
            if site is not None:
                self.sites.append(site)
        self.generic_visit(node)

    def _site(self, node: ast.Call) -> CallSite | None:
        keywords = tuple(keyword.arg for keyword in node.keywords if keyword.arg is not None)
        func = node.func
        if isinstance(func, ast.Name) and self._names_top_level(func.id):
            return CallSite(node.lineno, func.id, None, None, len(node.args), keywords)
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            method = self._method_receiving(func.value.id)
            if method is not None:
                role, class_qualname = method
                return CallSite(
                    node.lineno, func.attr, class_qualname, role, len(node.args), keywords
                )
        return None

    def _names_top_level(self, name: str) -> bool:
        """Whether ``name`` here means a candidate top-level ``name`` of the module."""
        if name not in self._candidates:
            return False
        for depth, scope in enumerate(reversed(self._scopes)):
            # A class body's names are visible in that body only, not in its methods.
            if scope.class_qualname is not None and depth > 0:
                continue
            if scope.binds(name):
                return False
        return True

    def _method_receiving(self, name: str) -> tuple[Receiver, str] | None:
        """The role and class of the method whose first parameter ``name`` is, seen from here."""
        for scope in reversed(self._scopes):
            if scope.receiver is not None and scope.receiver[0] == name:
                return scope.receiver[1], scope.receiver[2]
            if scope.binds(name):
                return None  # rebound (or a parameter) of a function nested in the method
        return None


def _parameters(args: ast.arguments) -> Iterator[str]:
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        yield arg.arg
    for rest in (args.vararg, args.kwarg):
        if rest is not None:
            yield rest.arg


def _store_names(target: ast.AST) -> Iterator[str]:
    for node in ast.walk(target):
        if isinstance(node, ast.Name):
            yield node.id
