"""The one JSON serialiser of ``syncdesk report`` and ``syncdesk findings``.

Section builders return JSON-ready values (dicts with string keys, lists,
tuples, strings, numbers, booleans, None) and leave safety to
:func:`to_json_text`: it walks the whole value and shows every string, key or
value, with :func:`~syncdesk.services.sanitize.visible` exactly once, then
dumps it. No builder chooses which of its strings are untrusted, so one it
forgets (a maintainer's note, a SHA the server sent) is as safe as the rest.

Builders still flatten fields that must stay on one line (titles, paths,
names) with :func:`~syncdesk.services.sanitize.one_line`: that changes what
the field says (a newline becomes ``^J``), it is not escaping for JSON.
Nothing is escaped twice: ``visible`` only writes printable text (``^[``,
``<U+202E>``, U+FFFD) and leaves printable text alone, so a string sanitised
at ingestion or flattened by a builder passes through unchanged.
"""

from __future__ import annotations

import json
from typing import TypeAlias

from syncdesk.services.sanitize import visible

JsonValue: TypeAlias = dict[str, "JsonValue"] | list["JsonValue"] | str | int | float | bool | None


def sanitized_text(text: str) -> str:
    """``text`` as the serialiser emits it: controls and bidi overrides spelled out."""
    return visible(text)


def sanitized(value: object) -> JsonValue:
    """``value`` as plain JSON data (tuples as lists), every string and key :func:`sanitized_text`.

    Raises TypeError for anything that is not JSON-ready (a key that is not a
    string included), and ValueError if two keys of one object would read the
    same once sanitised: keys are the schema's names, never untrusted text.
    """
    if isinstance(value, str):
        return sanitized_text(value)
    if value is None or isinstance(value, bool | int | float):
        return value
    if isinstance(value, list | tuple):
        return [sanitized(item) for item in value]
    if isinstance(value, dict):
        out: dict[str, JsonValue] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"JSON object keys must be strings, not {type(key).__name__}")
            name = sanitized_text(key)
            if name in out:
                raise ValueError(f"two keys read {name!r} once sanitised")
            out[name] = sanitized(item)
        return out
    raise TypeError(f"not JSON-ready: {type(value).__name__}")


def to_json_text(value: object) -> str:
    """``value`` as the JSON the commands print: sanitised, indented, UTF-8, one final newline."""
    return json.dumps(sanitized(value), indent=2, ensure_ascii=False) + "\n"
