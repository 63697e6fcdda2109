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

The scanner is a byte-level approximation of the tokenizer, linear in the
file, and fails safe: a bracket left open for more than :data:`LONGEST`
lines (a stray one, or a file that is not Python after all) ends the
statement at its first line, and the scan starts over on the next.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# The longest statement (in lines) the scanner follows; above it, the first line stands alone.
LONGEST = 60
# The lines :func:`_statement` scans first, before the whole of :data:`LONGEST`.
_FIRST_WINDOW = 6
# Files read as Python.
PYTHON_SUFFIXES = (".py", ".pyi")

# The tokens the scanner walks: whole string literals (triple-quoted ones over
# lines), a comment, a bracket, a backslash continuation, a line break.
_TOKEN = re.compile(
    b"|".join(
        [
            rb'"""(?:[^"\\]|\\.|"(?!""))*"""',  # a triple-quoted string, over lines
            rb"'''(?:[^'\\]|\\.|'(?!''))*'''",
            rb'"(?:[^"\\\n]|\\.)*"',  # a string on one line
            rb"'(?:[^'\\\n]|\\.)*'",
            rb"#[^\n]*",  # a comment
            rb"[()\[\]{}]",
            rb"\\\n",  # a backslash continuation
            rb"\n",
        ]
    ),
    re.DOTALL,
)
# The key drops what rewrapping changes: whitespace, commas, wrapping
# parentheses and backslashes; one quote style; adjacent string literals joined.
_DROPPED = b" \t\n\r\x0b\x0c,()\\"
# A statement that is only a string literal: a docstring, or prose used as one.
_BARE_STRING = re.compile(rb'[rRuU]?"')
# A line with none of what makes a statement span lines or hides code: quotes, "#", "\\".
_PLAIN_LINE = re.compile(rb"[^\"'#\\]*")
# Two string literals in a row, which Python joins: ``"abc" "def"``, over lines too.
_JOINED_LITERALS = re.compile(rb'"\s+[rRbBfFuU]{0,2}"')


def is_python(path: str) -> bool:
    """Whether ``path`` is read as Python source."""
    return path.endswith(PYTHON_SUFFIXES)


def statement_keys(lines: Sequence[bytes]) -> list[tuple[int, int, bytes]]:
    """The file's statements as ``(first index, last index, key)``, 0-based and inclusive.

    Every line belongs to exactly one statement, in order. The key is the
    statement's code without comments, whitespace, commas, parentheses,
    backslashes and string-literal seams, with one quote style, so two
    wrappings of the same statement have the same key.
    """
    out: list[tuple[int, int, bytes]] = []
    first = 0
    while first < len(lines):
        line = lines[first]
        if _PLAIN_LINE.fullmatch(line) and _balanced(line):
            # Most lines: no string, comment or continuation, brackets closed
            # (and no quote, so the key is the line without what rewrapping changes).
            out.append((first, first, line.translate(None, _DROPPED)))
            first += 1
            continue
        last, code = _statement(lines, first)
        out.append((first, last, _key(code)))
        first = last + 1
    return out


def _balanced(line: bytes) -> bool:
    return (
        line.count(b"(") == line.count(b")")
        and line.count(b"[") == line.count(b"]")
        and line.count(b"{") == line.count(b"}")
    )


def docstring_lines(statements: Sequence[tuple[int, int, bytes]]) -> set[int]:
    """The 0-based indices of the lines inside a bare string statement (a docstring),
    given the file's :func:`statement_keys`."""
    found: set[int] = set()
    for first, last, key in statements:
        if _BARE_STRING.match(key) and key.endswith(b'"'):
            found.update(range(first, last + 1))
    return found


def _statement(lines: Sequence[bytes], first: int) -> tuple[int, bytes]:
    """The last line of the statement that begins at line ``first``, and its code
    (comments cut out).

    One pass over the tokens that matter; a string literal is one token, so
    brackets and ``#`` inside it are not seen. A statement still open after
    :data:`LONGEST` lines is cut back to its first line.
    """
    reach = min(len(lines), first + LONGEST)
    # Most statements end within a few lines: scan a short window first, and the
    # whole reach only when the statement is still open at its end or a
    # triple-quoted string may run past it (cut short, it would scan as others).
    short = min(reach, first + _FIRST_WINDOW)
    if short < reach:
        window = b"\n".join(lines[first:short]) + b"\n"
        if b'"""' not in window and b"'''" not in window:
            found = _scan(window, first)
            if found is not None:
                return found
    found = _scan(b"\n".join(lines[first:reach]) + b"\n", first)
    # Never closed within reach: not a statement this scanner understands.
    return found if found is not None else (first, lines[first])


def _scan(text: bytes, first: int) -> tuple[int, bytes] | None:
    """:func:`_statement` over ``text`` (lines from ``first``): None if it never closes."""
    depth, line, kept, position = 0, first, [], 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        head = token[:1]
        if head == b"\n" or token == b"\\\n":
            line += 1
            if head == b"\n" and depth <= 0:
                kept.append(text[position : match.start()])
                return line - 1, b"".join(kept)
        elif head == b"#":
            kept.append(text[position : match.start()])
            position = match.end()
        elif head in b"([{":
            depth += 1
        elif head in b")]}":
            depth -= 1
        else:  # a string literal, maybe over lines
            line += token.count(b"\n")
    return None


def _key(code: bytes) -> bytes:
    joined = _JOINED_LITERALS.sub(b"", code.replace(b"'", b'"'))
    return joined.translate(None, _DROPPED)
