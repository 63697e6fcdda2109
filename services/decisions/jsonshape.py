"""Checked reads from parsed JSON, for the decoders of syncdesk's own files.

A file on disk may have been truncated, edited by hand or written by another
version: every field is checked for its type, and a wrong shape raises
:class:`syncdesk.services.git.atomic.FormatError` (which moves the file aside), never a
``KeyError`` or ``TypeError`` deep inside a screen.
"""

from __future__ import annotations

from typing import Any, TypeVar

from syncdesk.services.git.atomic import FormatError

T = TypeVar("T")


def as_object(value: Any, where: str) -> dict[str, Any]:
    """``value`` as a JSON object."""
    if not isinstance(value, dict):
        raise FormatError(f"{where}: expected an object")
    return value


def as_list(value: Any, where: str) -> list[Any]:
    """``value`` as a JSON array."""
    if not isinstance(value, list):
        raise FormatError(f"{where}: expected a list")
    return value


def required(data: dict[str, Any], key: str, kind: type[T]) -> T:
    """``data[key]``, which must exist and be a ``kind`` (a bool is not an int)."""
    if key not in data:
        raise FormatError(f"missing {key!r}")
    return _checked(data[key], key, kind)


def optional(data: dict[str, Any], key: str, kind: type[T]) -> T | None:
    """``data[key]`` if present and not null, checked like :func:`required`."""
    value = data.get(key)
    return None if value is None else _checked(value, key, kind)


def _checked(value: Any, key: str, kind: type[T]) -> T:
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise FormatError(f"{key!r} must be a {kind.__name__}")
    return value
