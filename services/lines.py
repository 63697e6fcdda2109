"""Lines of file content, the way git counts them: split after each LF, endings kept.

One convention for every folder: a line keeps its own ending (``"a\\r\\n"``),
a last line without a newline stays as it is, and bytes that are not UTF-8
survive the round trip as lone surrogates (``surrogateescape``). The audit's
sort-like lines (bytes, no endings) are :func:`syncdesk.services.audit.lines.raw_lines`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def split_lines(text: str) -> list[str]:
    """``text`` cut into lines the way git counts them: after each LF, endings kept.

    A last line without a final newline is kept as it is, so
    ``"".join(split_lines(text)) == text`` always holds.
    """
    parts = text.split("\n")
    lines = [part + "\n" for part in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


def decode_text(data: bytes) -> tuple[str, bool]:
    """Decode file content losslessly: ``(text, decodable)``.

    Invalid UTF-8 bytes become lone surrogates (``surrogateescape``), so
    :func:`encode_text` gives the same bytes back; ``decodable`` is False then.
    """
    try:
        return data.decode("utf-8"), True
    except UnicodeDecodeError:
        return data.decode("utf-8", errors="surrogateescape"), False


def encode_text(text: str) -> bytes:
    """The inverse of :func:`decode_text`."""
    return text.encode("utf-8", errors="surrogateescape")


def bytes_to_lines(data: bytes) -> list[str]:
    """Split on ``\\n`` only, each line keeping its ending: the inverse of :func:`lines_to_bytes`.

    (``str.splitlines`` would also split on form feeds and U+2028 inside a line.)
    """
    return split_lines(data.decode("utf-8", "surrogateescape"))


def lines_to_bytes(lines: Iterable[str]) -> bytes:
    """Join lines that keep their own endings (``"a\\r\\n"``, a last line without one).

    ``surrogateescape`` gives back the exact bytes of text that was decoded from
    invalid UTF-8 with the same handler.
    """
    return "".join(lines).encode("utf-8", "surrogateescape")


def common_prefix(one: Sequence[Any], other: Sequence[Any]) -> int:
    """How many leading items ``one`` and ``other`` share (lines, words, characters)."""
    count = 0
    for mine, theirs in zip(one, other, strict=False):
        if mine != theirs:
            break
        count += 1
    return count
