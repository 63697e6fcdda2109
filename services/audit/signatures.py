"""What a statically known callee accepts, and how a call fails to fit it.

Only callees whose signature their ``def`` says are judged: a function with
no decorator, a method that is plain, ``@staticmethod`` or ``@classmethod``,
and a class through the ``__init__`` of its own body. A decorator may change
the signature (``functools.wraps`` copies the name, not the parameters), a
dataclass, NamedTuple, TypedDict or Enum writes its constructor itself, and a
class without its own ``__init__`` takes its base's: all of those are skipped,
never guessed.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from enum import StrEnum

from syncdesk.services.audit.calls import CallSite, Receiver
from syncdesk.services.audit.modules import ClassFacts, Definition

# Bases whose machinery writes the constructor (or forbids calling the class).
_GENERATED_CONSTRUCTORS = frozenset(
    {
        "NamedTuple",
        "TypedDict",
        "Enum",
        "IntEnum",
        "StrEnum",
        "Flag",
        "IntFlag",
        "Protocol",
    }
)


class Mismatch(StrEnum):
    """How a call fails to fit its callee's signature."""

    UNKNOWN_KEYWORD = "unknown-keyword"
    TOO_MANY_POSITIONAL = "too-many-positional"
    MISSING_ARGUMENT = "missing-argument"


@dataclass(frozen=True, slots=True)
class Signature:
    """The parameters a call fills, the bound ``self``/``cls`` already dropped."""

    line: int  # of the ``def``
    positional: tuple[str, ...]  # positional-only first, then positional-or-keyword
    positional_only: int  # how many of ``positional`` cannot be passed by keyword
    required_positional: int  # how many of ``positional`` have no default
    keyword_only: tuple[str, ...]
    required_keyword_only: frozenset[str]
    var_positional: bool  # ``*args``
    var_keyword: bool  # ``**kwargs``


@dataclass(frozen=True, slots=True)
class Problem:
    """One way a call does not fit: ``detail`` is the keyword, or the missing parameters."""

    mismatch: Mismatch
    detail: str


def function_signature(node: Definition, *, bound: bool) -> Signature | None:
    """The signature of an undecorated function; ``bound`` drops its first parameter."""
    if isinstance(node, ast.ClassDef) or node.decorator_list:
        return None
    return _signature(node, bound=bound)


def method_signature(
    owner: ClassFacts, name: str, receiver: Receiver
) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef, Signature] | None:
    """The method ``name`` of class ``owner`` as ``self.name`` / ``cls.name`` calls it.

    None when the class body binds ``name`` more than once or not by a
    ``def``, when a decorator other than ``staticmethod``/``classmethod``
    wraps it, or for ``cls.m(...)`` of an instance method (``self`` is then
    an explicit argument).
    """
    method = _own_function(owner, name)
    if method is None:
        return None
    decorators = [_decorator_name(d) for d in method.decorator_list]
    if decorators == ["staticmethod"]:
        bound = False
    elif (
        decorators == ["classmethod"]
        or (not decorators and name == "__new__")
        or (not decorators and receiver is Receiver.SELF)
    ):
        bound = True
    else:
        return None
    signature = _signature(method, bound=bound)
    return None if signature is None else (method, signature)


def constructor_signature(owner: ClassFacts) -> tuple[ast.FunctionDef, Signature] | None:
    """What ``Class(...)`` takes: its own undecorated ``__init__`` minus ``self``; else None."""
    node = owner.node
    if node.decorator_list or any(
        _decorator_name(base) in _GENERATED_CONSTRUCTORS for base in node.bases
    ):
        return None
    init = _own_function(owner, "__init__")
    if not isinstance(init, ast.FunctionDef) or init.decorator_list:
        return None
    signature = _signature(init, bound=True)
    return None if signature is None else (init, signature)


def problems(signature: Signature, call: CallSite) -> list[Problem]:
    """Every way ``call`` fails to fit ``signature`` (a TypeError when it runs)."""
    found: list[Problem] = []
    if not signature.var_positional and call.positional > len(signature.positional):
        found.append(Problem(Mismatch.TOO_MANY_POSITIONAL, str(len(signature.positional))))
    by_keyword = set(signature.positional[signature.positional_only :]) | set(
        signature.keyword_only
    )
    if not signature.var_keyword:
        found += [
            Problem(Mismatch.UNKNOWN_KEYWORD, keyword)
            for keyword in call.keywords
            if keyword not in by_keyword
        ]
    missing = [
        name
        for index, name in enumerate(signature.positional[: signature.required_positional])
        if index >= call.positional
        # A positional-only parameter is never filled by a keyword (that goes to **kwargs).
        and (index < signature.positional_only or name not in call.keywords)
    ]
    missing += sorted(signature.required_keyword_only - set(call.keywords))
    if missing:
        found.append(Problem(Mismatch.MISSING_ARGUMENT, ", ".join(missing)))
    return found


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef, *, bound: bool) -> Signature | None:
    args = node.args
    positional = [arg.arg for arg in (*args.posonlyargs, *args.args)]
    positional_only = len(args.posonlyargs)
    # Defaults belong to the last parameters of posonlyargs + args together.
    required = len(positional) - len(args.defaults)
    if bound:
        if not positional:
            return None  # self lands in *args (or nowhere): nothing we can judge
        positional, positional_only, required = (
            positional[1:],
            max(positional_only - 1, 0),
            max(required - 1, 0),
        )
    return Signature(
        line=node.lineno,
        positional=tuple(positional),
        positional_only=positional_only,
        required_positional=required,
        keyword_only=tuple(arg.arg for arg in args.kwonlyargs),
        required_keyword_only=frozenset(
            arg.arg
            for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True)
            if default is None
        ),
        var_positional=args.vararg is not None,
        var_keyword=args.kwarg is not None,
    )


def _own_function(owner: ClassFacts, name: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The ``def name`` of the class body, when it is the body's only binding of ``name``."""
    if owner.bindings[name] != 1:
        return None
    for child in owner.node.body:
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef) and child.name == name:
            return child
    return None


def _decorator_name(node: ast.expr) -> str | None:
    """``x`` for ``@x``, ``@a.x`` and ``@x(...)``: enough to tell staticmethod apart."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Subscript):  # a generic base: Protocol[T]
        node = node.value
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None
