"""Python statements across line breaks: what stays the same when a formatter rewraps code.

A formatter (or a person following another style) joins a call onto one line,
splits it over five, trades a backslash continuation for brackets, adds or
drops the "magic" trailing comma, or splits a long string literal in two. The
lines change; the statement does not. :func:`statement_keys` cuts a Python
file into its logical lines, as Python's own tokenizer would (a statement
goes on while a bracket is open, a triple-quoted string is unfinished, or the
line ends in a backslash), and gives each one a key that ignores all of that
and the comments inside it. A lost dev line whose statement's key the result
still holds was rewrapped, not lost.

The scan works on the whole file at once, in three passes that run at C
speed but one: the string literals and comments are found left to right
(one regex, the only per-token Python), the brackets that close on their own
line are cancelled by repeated ``bytes.replace``, and only the lines left
with an open bracket, a continuation or a string over lines are walked one
by one. It fails safe: a bracket left open for more than :data:`LONGEST`
lines (a stray one, or a file that is not Python after all) ends the
statement at its first line, and the walk starts over on the next.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import NamedTuple

# The longest a bracket stays open (in lines) before the scanner gives up on it.
LONGEST = 60
# Files read as Python.
PYTHON_SUFFIXES = (".py", ".pyi")

# What hides brackets and line ends from the code: whole string literals
# (triple-quoted ones over lines, a single-quoted one over a backslash-newline)
# and comments. Possessive runs keep the literals linear: each alternative inside a
# literal starts with its own byte, so nothing is ever given back, and a run of
# prose is taken at once, not byte by byte (half the time on a file of docstrings).
_HIDING = re.compile(
    b"|".join(
        [
            rb'("""(?:[^"\\]++|\\.|"(?!""))*+"""',
            rb"'''(?:[^'\\]++|\\.|'(?!''))*+'''",
            rb'"[^"\\\n]*+(?:\\.[^"\\\n]*+)*+"',
            rb"'[^'\\\n]*+(?:\\.[^'\\\n]*+)*+'",
            rb"#[^\n]*)",
        ]
    ),
    re.DOTALL,
)
# For ``bytes.translate``: the bytes to delete to keep only the brackets, a backslash
# and line ends; then the table writing every kind of bracket as a parenthesis.
_NOT_SHAPE = bytes(b for b in range(256) if b not in b"()[]{}\\\n")
_ONE_KIND = bytes.maketrans(b"[]{}", b"()()")
# The key drops what rewrapping changes: whitespace, commas, wrapping
# parentheses and backslashes; one quote style; adjacent string literals joined.
_DROPPED = b" \t\n\r\x0b\x0c,()\\"
# A statement that is only a string literal: a docstring, or prose used as one.
_BARE_STRING = re.compile(rb'[rRuU]?"')
# Two string literals in a row, which Python joins: ``"abc" "def"``, over lines too
# (and the same within each line, for all the lines of a file at once).
_JOINED_LITERALS = re.compile(rb'"\s+[rRbBfFuU]{0,2}"')
_JOINED_ON_A_LINE = re.compile(rb'"[ \t\r\x0b\x0c]+[rRbBfFuU]{0,2}"')
_DROPPED_BUT_LINE_ENDS = _DROPPED.replace(b"\n", b"")
# What :func:`rewrap_invariant` drops besides: quotes and every letter a string prefix
# may hold, so that a seam the key removes (``" f"``) leaves nothing either.
_NOT_INVARIANT = _DROPPED + b"\"'rRbBfFuU"


class Scan(NamedTuple):
    """A Python file read once: its code (comments dropped) and its shape."""

    code: bytes
    shape: bytes


def is_python(path: str) -> bool:
    """Whether ``path`` is read as Python source."""
    return path.endswith(PYTHON_SUFFIXES)


def scan(lines: Sequence[bytes]) -> Scan:
    """The file's code without its comments, and its shape (:func:`statement_keys` reads
    both; the code alone gives :func:`rewrap_invariant`)."""
    return Scan(*_code_and_shape(b"\n".join(lines)))


def statement_keys(
    lines: Sequence[bytes], scanned: Scan | None = None
) -> list[tuple[int, int, bytes]]:
    """The file's statements as ``(first index, last index, key)``, 0-based and inclusive.

    Every line belongs to exactly one statement, in order. The key is the
    statement's code without comments, whitespace, commas, parentheses,
    backslashes and string-literal seams, with one quote style, so two
    wrappings of the same statement have the same key. ``scanned`` is
    :func:`scan` of the same lines, when already read.
    """
    code, shape = scanned if scanned is not None else scan(lines)
    code_lines = code.split(b"\n")
    # Every line's key as if it were a statement of its own, all lines at once.
    own_keys = _key_per_line(code).split(b"\n")
    # Per line, the brackets it leaves open ("(" or ")" whatever their kind) and
    # a backslash where it goes on: the lines a statement may go on past.
    left = shape.split(b"\n")
    open_at = [at for at, rest in enumerate(left) if rest]
    out: list[tuple[int, int, bytes]] = []
    first, count = 0, len(lines)
    while first < count:
        # Up to the next line something stays open on, every line is a statement.
        at = bisect.bisect_left(open_at, first)
        upto = open_at[at] if at < len(open_at) else count
        span = range(first, upto)
        out.extend(zip(span, span, own_keys[first:upto], strict=True))
        if upto >= count:
            break
        first = upto
        last = _last_line(left, first)
        if last is None:  # never closed: not a statement this scanner understands
            out.append((first, first, _key(code_lines[first])))
            first += 1
            continue
        out.append((first, last, _key(b"\n".join(code_lines[first : last + 1]))))
        first = last + 1
    return out


def _code_and_shape(text: bytes) -> tuple[bytes, bytes]:
    """``text`` without its comments; and its shape: per line, only the brackets it
    leaves open (every kind as ``(`` and ``)``) and a backslash where it goes on (a
    string literal over lines becomes a backslash at each of its line ends)."""
    # split() with the pattern's one group gives code, token, code, token, ...:
    # the tokens handled by comprehensions, no Python call per match.
    parts = _HIDING.split(text)
    tokens = parts[1::2]
    parts[1::2] = [b"" if token[:1] == b"#" else token for token in tokens]
    code = b"".join(parts)
    parts[1::2] = [b"\\\n" * token.count(b"\n") for token in tokens]
    shape = b"".join(parts).translate(None, _NOT_SHAPE)
    # Cancel the pairs closed on their own line, innermost first, until none is left:
    # a line break between two brackets keeps them apart.
    while (shorter := shape.replace(b"()", b"").replace(b"[]", b"").replace(b"{}", b"")) != shape:
        shape = shorter
    return code, shape.translate(_ONE_KIND)


def _last_line(left: Sequence[bytes], first: int) -> int | None:
    """The last line of the statement starting at ``first``, from each line's shape
    (:func:`_code_and_shape`); None if a bracket stays open past :data:`LONGEST` lines."""
    depth = 0
    for at in range(first, len(left)):
        rest = left[at]
        depth += rest.count(b"(") - rest.count(b")")
        if depth <= 0 and not rest.endswith(b"\\"):
            return at
        if depth > 0 and at + 1 - first >= LONGEST:
            return None
    return None


def rewrap_invariant(code: bytes) -> bytes:
    """What no rewrapping changes: ``code`` without whitespace, commas, parentheses,
    backslashes, quotes and the letters ``rbfu`` (either case), byte by byte.

    Every byte a statement's key drops or rewrites is one of these, so a key's
    invariant is the invariant of its statement's code, and it lies whole in the
    invariant of the file's code (:func:`scan`): a cheap test, at C speed, that a file
    cannot hold a statement before its statements are read. So does the invariant of
    any one line of the statement (cut at its first ``#``, which drops at least its
    comment): see :func:`line_invariant`.
    """
    return code.translate(None, _NOT_INVARIANT)


def line_invariant(line: bytes) -> bytes:
    """:func:`rewrap_invariant` of one line read alone: cut at its first ``#`` (a comment
    there or not, what is left is a part of the line's code)."""
    return rewrap_invariant(line.split(b"#", 1)[0])


def docstring_lines(statements: Sequence[tuple[int, int, bytes]]) -> set[int]:
    """The 0-based indices of the lines inside a bare string statement (a docstring),
    given the file's :func:`statement_keys`."""
    found: set[int] = set()
    for first, last, key in statements:
        if _BARE_STRING.match(key) and key.endswith(b'"'):
            found.update(range(first, last + 1))
    return found


def _key(code: bytes) -> bytes:
    joined = _JOINED_LITERALS.sub(b"", code.replace(b"'", b'"'))
    return joined.translate(None, _DROPPED)


def _key_per_line(code: bytes) -> bytes:
    """:func:`_key` of every line of ``code``, the lines kept apart."""
    joined = _JOINED_ON_A_LINE.sub(b"", code.replace(b"'", b'"'))
    return joined.translate(None, _DROPPED_BUT_LINE_ENDS)
